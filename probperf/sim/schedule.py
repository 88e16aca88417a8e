"""Scheduler simulation: run a :class:`~probperf.sim.dag.Dag` on ``p`` workers.

Two schedulers, both event-driven with one heap entry per worker:

* ``"greedy"``: a global ready list; whenever a worker is free and a strand is ready it
  starts at once (no overheads). The ideal the DAG metrics are defined against.
* ``"ws"``: randomized work stealing, work-first (Cilk / MassiveThreads): on a create
  the worker pushes the continuation on its deque and runs the child; when a task
  ends it pops its deque's bottom; with nothing to do it steals the top (oldest) entry
  of a random non-empty deque. A wait with children still running suspends the task;
  the worker that ends the last child resumes it.

Stealing is sampled rather than polled: a thief picks its victim uniformly among the
non-empty deques and the number of probes until it hits one is geometric with success
``k / (p - 1)`` (``k`` non-empty deques), each probe costing ``steal_attempt``; the
steal then takes ``steal_latency``. A thief finding every deque empty sleeps until a
continuation is pushed, then probes after a uniform fraction of ``steal_attempt``.
This keeps the event count near the strand count while idle time, steal costs and
their growth with ``p`` stay in the trace.

Strand time = cost x run noise x strand noise x contention factor for the number of
busy workers when the strand starts (:meth:`Machine.inflation`); times are whole
cycles, so the metric identity is exact.
"""

from __future__ import annotations

import heapq
import math
import random
from array import array
from collections import deque

import numpy as np

from ..trace import TaskTrace
from .dag import WAIT, Dag
from .machine import Machine

SCHEDULERS = ("ws", "greedy")


def strand_costs(dag: Dag, machine: Machine, rng: np.random.Generator) -> np.ndarray:
    """Noisy integer cycle costs of one run (before contention).

    Examples
    --------
    On a noise-free machine the costs are the DAG's, rounded to whole cycles:

    >>> from probperf.sim.apps import fib
    >>> dag = fib(10, cutoff=2)
    >>> rng = np.random.default_rng(0)
    >>> np.array_equal(strand_costs(dag, Machine.ideal(), rng), np.rint(dag.cost))
    True
    >>> noisy = strand_costs(dag, Machine(), rng)
    >>> noisy.shape == dag.cost.shape, bool(np.all(noisy == np.rint(noisy)))
    (True, True)
    """
    cost = dag.cost
    factor = math.exp(machine.run_noise * rng.standard_normal()) if machine.run_noise else 1.0
    if machine.strand_noise:
        cost = cost * np.exp(machine.strand_noise * rng.standard_normal(cost.shape[0]))
    return np.rint(cost * factor)


def simulate(dag: Dag, p: int, machine: Machine | None = None, scheduler: str = "ws",
             seed=None) -> TaskTrace:
    """Run ``dag`` on ``p`` workers and return the trace (times in cycles).

    Parameters
    ----------
    dag : Dag
        The program.
    p : int
        Number of workers (may exceed ``machine.cores``: extra workers are modelled as
        more cores of the last socket).
    machine : Machine, optional
        Overheads, contention and noise (default :class:`Machine()`).
    scheduler : {"ws", "greedy"}
        Work stealing, or greedy list scheduling (which ignores the runtime overheads).
    seed : int or numpy.random.Generator, optional
        Fixes noise and steal choices; the same seed reproduces the same trace.

    Examples
    --------
    >>> from probperf.sim.apps import fib
    >>> from probperf.trace import dag_metrics
    >>> tr = simulate(fib(12, cutoff=3), 2, Machine.ideal(), scheduler="greedy", seed=0)
    >>> mt = dag_metrics(tr)
    >>> mt["work"] + mt["delay"] + mt["no_work"] == 2 * mt["time"]
    True
    """
    if isinstance(p, bool) or int(p) != p or p < 1:
        raise ValueError(f"p (workers) must be a positive integer, got {p!r}")
    if scheduler not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r}; choose from {SCHEDULERS}")
    p = int(p)
    machine = machine or Machine()
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    cost = strand_costs(dag, machine, rng)
    infl = machine.inflation(p, dag.footprint, dag.memory_bound).tolist()
    if scheduler == "greedy":
        start, end, worker, counts = _greedy(dag, p, cost, infl)
    else:
        pyrng = random.Random(int(rng.integers(2**63)))
        start, end, worker, counts = _work_stealing(dag, p, cost, infl, machine, pyrng)
    src, dst = dag.edges()
    return TaskTrace(
        start=np.frombuffer(start, dtype=np.float64),
        end=np.frombuffer(end, dtype=np.float64),
        worker=np.frombuffer(worker, dtype=np.int64) if isinstance(worker, array) else worker,
        edge_src=src,
        edge_dst=dst,
        n_workers=p,
        **counts,
    )


def _tables(dag: Dag, cost: np.ndarray):
    """What both event loops read and fill, as plain lists and arrays (indexing them
    per event costs far less than numpy elements): the DAG's structure, the strand
    costs, the trace columns (start, end, worker) and, per task, its children still
    running and the continuation suspended at its wait (-1: none)."""
    structure = (dag.seg_ptr.tolist(), dag.action.tolist(), dag.segment_task().tolist(),
                 dag.parent().tolist())
    m = len(cost)
    trace = (array("d", bytes(8 * m)), array("d", bytes(8 * m)), array("q", bytes(8 * m)))
    return structure, cost.tolist(), trace, ([0] * dag.n_tasks, [-1] * dag.n_tasks)


def _greedy(dag: Dag, p: int, cost: np.ndarray, infl: list):
    structure, cost, (start, end, worker), (pending, suspended) = _tables(dag, cost)
    seg_ptr, action, seg_task, parent = structure
    running = [-1] * p
    heap = []
    ready = [0]          # LIFO: the most recently enabled strand first (depth-first)
    idle = list(range(p - 1, -1, -1))
    busy = 0
    create = wait = ended = 0
    push, pop = heapq.heappush, heapq.heappop
    t = 0.0
    while True:
        while idle and ready:
            w = idle.pop()
            s = ready.pop()
            busy += 1
            start[s] = t
            worker[s] = w
            running[w] = s
            push(heap, (t + round(cost[s] * infl[busy]), w))
        t, w = pop(heap)
        s = running[w]
        end[s] = t
        busy -= 1
        idle.append(w)
        a = action[s]
        if a >= 0:
            create += 1
            pending[seg_task[s]] += 1
            ready.append(s + 1)
            ready.append(seg_ptr[a])
        elif a == WAIT:
            wait += 1
            task = seg_task[s]
            if pending[task]:
                suspended[task] = s + 1
            else:
                ready.append(s + 1)
        else:
            ended += 1
            task = seg_task[s]
            if task == 0:
                break
            par = parent[task]
            pending[par] -= 1
            if pending[par] == 0 and suspended[par] >= 0:
                ready.append(suspended[par])
                suspended[par] = -1
    return start, end, worker, {"create_task": create, "wait_tasks": wait, "end_task": ended}


def _work_stealing(dag: Dag, p: int, cost: np.ndarray, infl: list, machine: Machine,
                   rnd: random.Random):
    # One function on purpose (the one exception to the project's ~60-line rule): this
    # is the simulator's event loop, run once per strand and steal attempt, and its
    # state lives in local variables because a method or closure call per event is
    # what the loop would spend its time on. Split it only with bench_sim.py numbers.
    # For the same reason the join bookkeeping (a wait, a task's end) repeats _greedy's
    # rather than calling a shared helper: one call per task end alone cost 1-2 %.
    structure, cost, (start, end, worker), (pending, suspended) = _tables(dag, cost)
    seg_ptr, action, seg_task, parent = structure
    c_create = float(machine.create_overhead)
    c_wait = float(machine.wait_overhead)
    c_pop = float(machine.pop_overhead)
    c_steal = float(machine.steal_latency)
    c_probe = float(machine.steal_attempt)
    deques = [deque() for _ in range(p)]
    nonempty = []        # workers whose deque has something to steal
    pos = [-1] * p       # index of a worker in `nonempty`
    sleeping = []
    running = [-1] * p   # strand a worker is running, or -1 while it steals
    victim = [-1] * p
    # Heap keys are floats t * slots + w (times are whole cycles): float comparisons
    # are much cheaper than tuple ones, and each worker has at most one entry.
    slots = float(1 << max(p - 1, 1).bit_length())
    heap = []
    push, pop, replace = heapq.heappush, heapq.heappop, heapq.heapreplace
    rand = rnd.random
    log = math.log
    other = max(p - 1, 1)
    busy = 1
    create = wait = ended = 0
    # the root's first strand starts on worker 0; everyone else finds nothing to steal
    running[0] = 0
    push(heap, round(cost[0] * infl[1]) * slots)
    sleeping.extend(range(1, p))
    wake = None
    while heap:
        # peek, and replace the top in place when the worker goes on (one sift, not two)
        key = heap[0]
        t = key // slots
        w = int(key - t * slots)
        s = running[w]
        nxt = -1
        taken = -1       # the worker whose deque nxt comes from
        if s >= 0:
            end[s] = t
            busy -= 1
            a = action[s]
            if a >= 0:
                create += 1
                pending[seg_task[s]] += 1
                dq = deques[w]
                if not dq:
                    pos[w] = len(nonempty)
                    nonempty.append(w)
                dq.append(s + 1)
                if sleeping:
                    i = int(rand() * len(sleeping))
                    v = sleeping[i]
                    sleeping[i] = sleeping[-1]
                    sleeping.pop()
                    victim[v] = -1
                    wake = (t + round(c_probe * rand())) * slots + v
                nxt = seg_ptr[a]
                t0 = t + c_create
            elif a == WAIT:
                wait += 1
                task = seg_task[s]
                if pending[task]:
                    suspended[task] = s + 1
                else:
                    nxt = s + 1
                    t0 = t + c_wait
            else:
                ended += 1
                task = seg_task[s]
                if task == 0:
                    break
                par = parent[task]
                pending[par] -= 1
                if pending[par] == 0 and suspended[par] >= 0:
                    nxt = suspended[par]
                    suspended[par] = -1
                    t0 = t + c_wait
            if nxt < 0:
                dq = deques[w]
                if dq:
                    nxt = dq.pop()
                    t0 = t + c_pop
                    taken = w
        else:
            v = victim[w]
            if v >= 0:
                dq = deques[v]
                if dq:
                    nxt = dq.popleft()
                    t0 = t + c_steal
                    taken = v
        if nxt >= 0:
            if taken >= 0 and not dq:
                # an emptied deque is no steal target: swap its owner out of nonempty
                i = pos[taken]
                last = nonempty.pop()
                if last != taken:
                    nonempty[i] = last
                    pos[last] = i
            busy += 1
            start[nxt] = t0
            worker[nxt] = w
            running[w] = nxt
            replace(heap, (t0 + round(cost[nxt] * infl[busy])) * slots + w)
        else:
            # nothing local: steal
            running[w] = -1
            k = len(nonempty)
            if k == 0:
                sleeping.append(w)
                pop(heap)
            else:
                victim[w] = nonempty[int(rand() * k)]
                q = k / other
                probes = 1 if q >= 1.0 else 1 + int(log(1.0 - rand()) / log(1.0 - q))
                replace(heap, (t + probes * c_probe) * slots + w)
        if wake is not None:
            push(heap, wake)
            wake = None
    else:
        raise RuntimeError("simulation ran out of events before the root task ended")
    if t * slots >= 2.0**53:
        raise ValueError("simulated time too long for exact cycle keys; use fewer cycles")
    return start, end, worker, {"create_task": create, "wait_tasks": wait, "end_task": ended}
