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
steal then takes ``steal_latency``. A thief finding every deque empty stands aside
until a continuation is pushed. The ``S`` thieves standing aside all go on probing:
each probe round, each hits the pusher's deque with chance ``1 / (p - 1)``, so the
first of them hits it after a geometric number of rounds with success
``1 - (1 - 1/(p-1))^S`` (at a uniform phase of the round); that thief wakes then,
with the pusher as its victim. (Before 2026-11-29 the woken thief searched alone, about
``p - 1`` probes for one continuation, so a farm's serial hand-off slowed linearly
with ``p``: 7.4 ms at p = 36, 17.6 ms at 256.)
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
        start, end, worker, counts = _WorkStealing(dag, p, cost, infl, machine, pyrng).run()
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


#: What :meth:`_Joins.after` returns when the strand ended the root task: the run is over.
ROOT_ENDED = -2


class _Joins:
    """The join bookkeeping both schedulers share: per task, its children still running
    and the continuation suspended at its wait (-1: none), and the counts of creates,
    waits and task ends the trace reports. Plain lists: indexing them per event costs
    far less than numpy elements."""

    __slots__ = ("seg_task", "parent", "pending", "suspended", "creates", "waits", "ends")

    def __init__(self, dag: Dag):
        self.seg_task = dag.segment_task().tolist()
        self.parent = dag.parent().tolist()
        self.pending = [0] * dag.n_tasks
        self.suspended = [-1] * dag.n_tasks
        self.creates = self.waits = self.ends = 0

    def create(self, s: int) -> None:
        """Strand ``s`` created a child task: its task has one more child running."""
        self.creates += 1
        self.pending[self.seg_task[s]] += 1

    def after(self, s: int, a: int) -> int:
        """Strand ``s`` ended at a wait (``a == WAIT``) or at its task's end: the strand
        that may run now, -1 if none, :data:`ROOT_ENDED` if ``s`` ended the root task.

        Past a wait the task goes on at once if no child is running, else it is
        suspended and the last child to end resumes it (the parent's continuation is
        then what may run).
        """
        task = self.seg_task[s]
        if a == WAIT:
            self.waits += 1
            if self.pending[task]:
                self.suspended[task] = s + 1
                return -1
            return s + 1
        self.ends += 1
        if task == 0:
            return ROOT_ENDED
        par = self.parent[task]
        self.pending[par] -= 1
        if self.pending[par] == 0 and self.suspended[par] >= 0:
            resumed = self.suspended[par]
            self.suspended[par] = -1
            return resumed
        return -1

    def counts(self) -> dict:
        return {"create_task": self.creates, "wait_tasks": self.waits, "end_task": self.ends}


def _tables(dag: Dag, cost: np.ndarray):
    """What both event loops read and fill: each strand's segment start and action as
    lists, the join bookkeeping, the strand costs as a list and the trace columns
    (start, end, worker) as arrays."""
    m = len(cost)
    trace = (array("d", bytes(8 * m)), array("d", bytes(8 * m)), array("q", bytes(8 * m)))
    return dag.seg_ptr.tolist(), dag.action.tolist(), _Joins(dag), cost.tolist(), trace


def _greedy(dag: Dag, p: int, cost: np.ndarray, infl: list):
    seg_ptr, action, joins, cost, (start, end, worker) = _tables(dag, cost)
    running = [-1] * p
    heap = []
    ready = [0]          # LIFO: the most recently enabled strand first (depth-first)
    idle = list(range(p - 1, -1, -1))
    busy = 0
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
            joins.create(s)
            ready.append(s + 1)
            ready.append(seg_ptr[a])
        else:
            nxt = joins.after(s, a)
            if nxt == ROOT_ENDED:
                break
            if nxt >= 0:
                ready.append(nxt)
    _check_exact(t, t, "greedy")
    return start, end, worker, joins.counts()


def _check_exact(key: float, t: float, scheduler: str, over: str = "") -> None:
    """Refuse a run whose event keys (whole cycles, ``key`` the largest) passed 2^53,
    beyond which float64 holds no whole number exactly: the metric identity, exact in
    whole cycles, would no longer hold and times would be rounded without a word.

    Examples
    --------
    >>> _check_exact(2.0**54, 2.0**54, "greedy")
    Traceback (most recent call last):
    ...
    ValueError: its simulated time, 1.8e+16 cycles, is beyond what the greedy scheduler keeps exact (2^53 cycles); use smaller sizes or settings
    """
    if key >= 2.0**53:
        raise ValueError(f"its simulated time, {t:.3g} cycles, is beyond what the {scheduler} scheduler keeps exact "
                         f"(2^53 cycles{over}); use smaller sizes or settings")


class _WorkStealing:
    """One work-stealing run (see the module docstring): the workers, their deques, the
    thieves' victims and the sleepers, driven by :meth:`run`.

    The event heap holds one entry per worker: when its strand ends, or when its steal
    probes land. Keys are floats ``t * slots + w`` (times are whole cycles, ``slots`` a
    power of two >= p): float comparisons are much cheaper than tuple ones. An event
    peeks at the top and replaces it in place with the worker's next entry (one sift,
    not a pop and a push).

    Kept for speed: those float keys, the in-place replacement, and each method binding
    what it uses more than once to locals. The price of clarity is two to four method
    calls per event on state held in attributes; ``benchmarks/bench_sim.py`` measures
    the whole against its 10 s target.
    """

    __slots__ = ("seg_ptr", "action", "joins", "cost", "trace", "infl", "c_create", "c_wait",
                 "c_pop", "c_steal", "c_probe", "deques", "stealable", "pos", "sleeping",
                 "running", "victim", "slots", "other", "miss", "heap", "rand", "busy", "wake")

    def __init__(self, dag: Dag, p: int, cost: np.ndarray, infl: list, machine: Machine,
                 rnd: random.Random):
        self.seg_ptr, self.action, self.joins, self.cost, self.trace = _tables(dag, cost)
        self.infl = infl
        # whole cycles, as the event keys need (helper-83: --steal-latency 2000.5 decoded
        # the wrong worker from a key and ended in an IndexError)
        self.c_create = float(round(machine.create_overhead))
        self.c_wait = float(round(machine.wait_overhead))
        self.c_pop = float(round(machine.pop_overhead))
        self.c_steal = float(round(machine.steal_latency))
        self.c_probe = float(round(machine.steal_attempt))
        self.deques = [deque() for _ in range(p)]
        self.stealable = []      # workers whose deque has something to steal
        self.pos = [-1] * p      # index of a worker in `stealable`
        self.sleeping = []       # thieves that found every deque empty
        self.running = [-1] * p  # strand a worker is running, or -1 while it steals
        self.victim = [-1] * p   # deque a thief's probes will hit
        self.slots = float(1 << max(p - 1, 1).bit_length())
        self.other = max(p - 1, 1)
        self.miss = 1.0 - 1.0 / self.other   # one probe of one thief misses a given deque
        self.heap = []
        self.rand = rnd.random
        self.busy = 0            # workers running a strand (the contention factor's index)
        self.wake = None         # heap key of a sleeper woken by this event

    def run(self):
        """Simulate until the root task ends; the trace columns and the counts."""
        heap, running, slots = self.heap, self.running, self.slots
        strand_ended, steal_landed = self._strand_ended, self._steal_landed
        run_strand, steal = self._run_strand, self._steal
        # the root's first strand starts on worker 0; everyone else finds nothing to steal
        self.busy = 1
        running[0] = 0
        heapq.heappush(heap, round(self.cost[0] * self.infl[1]) * slots)
        self.sleeping.extend(range(1, len(running)))
        while heap:
            key = heap[0]
            t = key // slots
            w = int(key - t * slots)
            s = running[w]
            if s >= 0:
                nxt, t0 = strand_ended(w, s, t)
                if nxt == ROOT_ENDED:
                    break
            else:
                nxt, t0 = steal_landed(w, t)
            if nxt >= 0:
                run_strand(w, nxt, t0)
            else:
                steal(w, t)
            if self.wake is not None:
                # only now: pushed earlier, a wake due at once could take the top's place
                heapq.heappush(heap, self.wake)
                self.wake = None
        else:
            raise RuntimeError("simulation ran out of events before the root task ended")
        _check_exact(t * slots, t, "work-stealing", " over the worker slots")
        return (*self.trace, self.joins.counts())

    def _strand_ended(self, w: int, s: int, t: float):
        """Worker ``w`` ended strand ``s`` at ``t``: the strand it runs next and when, -1
        if it must steal, :data:`ROOT_ENDED` if the run is over.

        Work-first: a create runs the child at once and leaves the continuation to
        thieves; past a wait or a task's end the worker goes on in that task or its
        parent if the join allows, else pops the bottom (newest) entry of its deque.
        """
        self.trace[1][s] = t
        self.busy -= 1
        a = self.action[s]
        if a >= 0:
            self.joins.create(s)
            self._offer(w, s + 1, t)
            return self.seg_ptr[a], t + self.c_create
        nxt = self.joins.after(s, a)
        if nxt != -1:
            return nxt, t + self.c_wait
        dq = self.deques[w]
        if dq:
            return self._taken(w, dq.pop(), t + self.c_pop)
        return -1, t

    def _steal_landed(self, w: int, t: float):
        """Thief ``w``'s probes hit its victim at ``t``: the top (oldest) entry of the
        victim's deque and when it runs, or -1 if other workers emptied the deque first."""
        v = self.victim[w]
        if v >= 0 and self.deques[v]:
            return self._taken(v, self.deques[v].popleft(), t + self.c_steal)
        return -1, t

    def _offer(self, w: int, s: int, t: float) -> None:
        """Worker ``w`` pushes continuation ``s`` on its deque for thieves; of the
        thieves standing aside, if any, the first whose probe hits ``w`` wakes with
        ``w`` as its victim (module docstring: geometric rounds, uniform phase)."""
        dq = self.deques[w]
        if not dq:
            self.pos[w] = len(self.stealable)
            self.stealable.append(w)
        dq.append(s)
        sleeping = self.sleeping
        if sleeping:
            rand = self.rand
            i = int(rand() * len(sleeping))
            v = sleeping[i]
            sleeping[i] = sleeping[-1]
            sleeping.pop()
            self.victim[v] = w
            miss = self.miss ** (len(sleeping) + 1)   # no sleeper hits w in one round
            rounds = 0 if miss <= 0.0 else int(math.log(1.0 - rand()) / math.log(miss))
            self.wake = (t + round(self.c_probe * (rounds + rand()))) * self.slots + v

    def _taken(self, owner: int, s: int, t0: float):
        """Entry ``s`` was just taken from ``owner``'s deque, to run at ``t0``: returns
        both. An emptied deque is no steal target: its owner is swapped out of
        ``stealable`` (the order there does not matter, victims are drawn uniformly)."""
        if not self.deques[owner]:
            stealable = self.stealable
            i = self.pos[owner]
            last = stealable.pop()
            if last != owner:
                stealable[i] = last
                self.pos[last] = i
        return s, t0

    def _run_strand(self, w: int, s: int, t0: float) -> None:
        """Worker ``w`` starts strand ``s`` at ``t0``; it ends after its cost inflated by
        the contention of the workers now busy."""
        self.busy += 1
        start, _, worker = self.trace
        start[s] = t0
        worker[s] = w
        self.running[w] = s
        key = (t0 + round(self.cost[s] * self.infl[self.busy])) * self.slots + w
        heapq.heapreplace(self.heap, key)

    def _steal(self, w: int, t: float) -> None:
        """Worker ``w`` has nothing to run: it sleeps if every deque is empty, else draws
        its victim uniformly among the non-empty deques; its probes until it hits one
        are geometric with success ``k / (p - 1)`` (``k`` non-empty deques)."""
        self.running[w] = -1
        k = len(self.stealable)
        if k == 0:
            self.sleeping.append(w)
            heapq.heappop(self.heap)
            return
        rand = self.rand
        self.victim[w] = self.stealable[int(rand() * k)]
        q = k / self.other
        probes = 1 if q >= 1.0 else 1 + int(math.log(1.0 - rand()) / math.log(1.0 - q))
        heapq.heapreplace(self.heap, (t + probes * self.c_probe) * self.slots + w)
