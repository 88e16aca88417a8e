"""Task events -> DAG Recorder metrics.

A traced run is a set of *strands* (maximal pieces of a task between task-creation and
wait events), each with a start time, an end time and the worker that ran it, plus the
dependency edges between strands. From that, at every instant ``t`` let

* ``R(t)`` = strands running,
* ``A(t)`` = strands ready (all predecessors ended) but not yet started,
* ``W``    = workers.

Then ``work = integral R``, ``delay = integral min(A, W - R)`` and
``no_work = integral max(0, W - R - A)``. Because ``R + min(A, W-R) + max(0, W-R-A) = W``
whenever ``R <= W``, the three add up to ``W * elapsed`` segment by segment. With
integer-valued times (clock cycles below 2**53) every product and sum is exact in
float64, so the identity holds bit for bit.

The integrals come from one sort of all events and cumulative sums; the critical path
from one single-source shortest-path run (scipy, compiled) on the DAG reweighted by the
schedule's own slack, which makes all edge weights non-negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Keys of :func:`dag_metrics`'s result, in DAG Recorder's order.
METRIC_KEYS: tuple[str, ...] = (
    "time",
    "work",
    "delay",
    "no_work",
    "critical_path",
    "create_task",
    "wait_tasks",
    "end_task",
)


@dataclass
class TaskTrace:
    """One traced run: strands with times and workers, and their dependency edges.

    Parameters
    ----------
    start, end : numpy.ndarray of float64
        Start and end time of every strand (any time unit; clock cycles keep the
        metric identity exact).
    worker : numpy.ndarray of int64
        Worker that ran each strand, in ``0 .. n_workers-1``.
    edge_src, edge_dst : numpy.ndarray of int64
        Dependency edges between strand indices: ``edge_dst[i]`` cannot start before
        ``edge_src[i]`` ends.
    n_workers : int
        Number of workers ``W`` of the run.
    create_task, wait_tasks, end_task : int
        Event counts (tasks created, wait operations, tasks ended).

    Examples
    --------
    >>> t = TaskTrace(start=[0.0, 2.0], end=[2.0, 3.0], worker=[0, 0],
    ...               edge_src=[0], edge_dst=[1], n_workers=1)
    >>> t.n_strands
    2
    """

    start: np.ndarray
    end: np.ndarray
    worker: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    n_workers: int
    create_task: int = 0
    wait_tasks: int = 0
    end_task: int = 0

    def __post_init__(self):
        self.start = np.asarray(self.start, dtype=np.float64)
        self.end = np.asarray(self.end, dtype=np.float64)
        self.worker = np.asarray(self.worker, dtype=np.int64)
        self.edge_src = np.asarray(self.edge_src, dtype=np.int64)
        self.edge_dst = np.asarray(self.edge_dst, dtype=np.int64)

    @property
    def n_strands(self) -> int:
        return int(self.start.shape[0])


def _check_1d(values: np.ndarray, name: str, length: int | None = None) -> None:
    if values.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {values.shape}")
    if length is not None and values.shape[0] != length:
        raise ValueError(f"{name} has {values.shape[0]} entries, expected {length} (one per strand)")


def _check_finite(values: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] is not finite ({values[i]!r})")


def _check_workers(n_workers) -> int:
    if isinstance(n_workers, bool) or int(n_workers) != n_workers or n_workers < 1:
        raise ValueError(f"n_workers must be a positive integer, got {n_workers!r}")
    return int(n_workers)


def profile_integrals(start, end, ready, n_workers):
    """Integrate the parallelism profile: ``(work, delay, no_work, elapsed)``.

    Parameters
    ----------
    start, end : array_like of float
        Start and end time of every strand.
    ready : array_like of float
        Time each strand became ready (the latest end of its predecessors; a root is
        ready at the trace's start).
    n_workers : int
        Number of workers ``W``.

    Returns
    -------
    work, delay, no_work, elapsed : float
        ``work + delay + no_work == n_workers * elapsed`` (exactly for integer times).
        ``elapsed`` runs from the first ready time to the last end.

    Raises
    ------
    ValueError
        On arrays of different lengths, non-finite times, ``end < start``,
        ``start < ready``, or more than ``n_workers`` strands running at once.

    Examples
    --------
    >>> # two strands ready at 0 on one worker: the second waits 2 cycles for it
    >>> profile_integrals([0, 2], [2, 3], [0, 0], 1)
    (3.0, 0.0, 0.0, 3.0)
    >>> profile_integrals([0, 2], [2, 3], [0, 0], 2)
    (3.0, 2.0, 1.0, 3.0)
    """
    start, end, ready = _checked_strands(start, end, ready)
    w = _check_workers(n_workers)
    running, ready_now, dt, elapsed = _piecewise_counts(start, end, ready)
    if running.max(initial=0.0) > w:
        over = np.flatnonzero((running > w) & (dt > 0))
        if over.size:
            i = int(over[0])
            raise ValueError(
                f"{int(running[i])} strands run at once (piece {i} of the profile) "
                f"but there are only n_workers={w} workers"
            )
    work = float(running @ dt)
    free = np.subtract(w, running, out=running)
    # per piece R + min(A, W-R) + (W-R - min(A, W-R)) = W exactly
    used = np.minimum(ready_now, free, out=ready_now)
    delay = float(used @ dt)
    idle = np.subtract(free, used, out=free)
    no_work = float(np.maximum(idle, 0.0, out=idle) @ dt)
    return work, delay, no_work, elapsed


def _piecewise_counts(start, end, ready):
    """Between consecutive events of the trace: strands running and strands ready but
    not running, the length of each piece, and the elapsed time."""
    m = start.shape[0]
    # Merge the three sorted event lists (timsort merges pre-sorted runs in linear
    # time); a ready event adds to A, a start moves one from A to R, an end leaves R.
    # Events at one instant may come in any order: zero-length pieces add nothing.
    # Large fresh arrays are costly (page faults), so buffers are reused in place.
    times = np.concatenate((np.sort(ready), np.sort(start), np.sort(end)))
    order = np.argsort(times, kind="stable")
    times.sort(kind="stable")
    elapsed = float(times[-1] - times[0])
    np.floor_divide(order, m, out=order)
    which = order.astype(np.int8)
    del order
    dt = np.diff(times)
    del times
    # counts are small integers: float64 cumulative sums are exact and feed the dot
    # products directly
    running = np.cumsum(np.array([0, 1, -1], np.int8)[which], dtype=np.float64)[:-1]
    ready_now = np.cumsum(np.array([1, -1, 0], np.int8)[which], dtype=np.float64)[:-1]
    return running, ready_now, dt, elapsed


def _checked_strands(start, end, ready):
    """The three strand time arrays as float64, refused (by the first bad strand) when
    their lengths differ, a time is not finite, or a strand ends before it starts or
    starts before it is ready."""
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    ready = np.asarray(ready, dtype=np.float64)
    _check_1d(start, "start")
    m = start.shape[0]
    _check_1d(end, "end", m)
    _check_1d(ready, "ready", m)
    if m == 0:
        raise ValueError("the trace has no strands")
    for name, values in (("start", start), ("end", end), ("ready", ready)):
        _check_finite(values, name)
    bad = end < start
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"strand {i} ends before it starts (start={start[i]!r}, end={end[i]!r})")
    bad = start < ready
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"strand {i} starts before it is ready (ready={ready[i]!r}, start={start[i]!r})")
    return start, end, ready


def _check_trace(trace: TaskTrace) -> int:
    m = trace.n_strands
    _check_1d(trace.start, "start")
    _check_1d(trace.end, "end", m)
    _check_1d(trace.worker, "worker", m)
    _check_1d(trace.edge_src, "edge_src")
    _check_1d(trace.edge_dst, "edge_dst", trace.edge_src.shape[0])
    if m == 0:
        raise ValueError("the trace has no strands")
    w = _check_workers(trace.n_workers)
    bad = (trace.worker < 0) | (trace.worker >= w)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"worker[{i}] = {trace.worker[i]} is outside 0..{w - 1}")
    for name in ("edge_src", "edge_dst"):
        e = getattr(trace, name)
        bad = (e < 0) | (e >= m)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name}[{i}] = {e[i]} is not a strand index (0..{m - 1})")
    loops = trace.edge_src == trace.edge_dst
    if loops.any():
        i = int(np.flatnonzero(loops)[0])
        raise ValueError(f"edge {i} is a self-loop on strand {trace.edge_src[i]}: not a DAG")
    for name in ("create_task", "wait_tasks", "end_task"):
        if int(getattr(trace, name)) < 0:
            raise ValueError(f"{name} must be non-negative, got {getattr(trace, name)!r}")
    return w


def _check_one_at_a_time(trace: TaskTrace) -> None:
    """Refuse a worker that runs two strands at once (one starts before the other
    ends): the profile counts strands, not workers, so such a trace passed with
    every worker's overlap counted as work (helper-71)."""
    start, end = np.asarray(trace.start, float), np.asarray(trace.end, float)
    if np.any(end < start):  # refused by its own check, which names it
        return
    # by start, then end: a strand of no length at the instant another starts runs first
    order = np.lexsort((end, start, trace.worker))
    w, start, end = trace.worker[order], start[order], end[order]
    clash = (w[1:] == w[:-1]) & (start[1:] < end[:-1])
    if clash.any():
        k = int(np.flatnonzero(clash)[0])
        raise ValueError(f"worker {w[k]} runs strands {order[k]} and {order[k + 1]} at once (strand {order[k + 1]} "
                         f"starts at {start[k + 1]:g}, before strand {order[k]} ends at {end[k]:g})")


def ready_times(trace: TaskTrace) -> np.ndarray:
    """Time each strand became ready: latest end of its predecessors, else trace start.

    Examples
    --------
    >>> t = TaskTrace([0.0, 1.0, 5.0], [1.0, 4.0, 6.0], [0, 1, 0], [0, 1], [2, 2], 2)
    >>> ready_times(t).tolist()
    [0.0, 0.0, 4.0]
    """
    t0 = float(trace.start.min())
    ready = np.full(trace.n_strands, t0)
    np.maximum.at(ready, trace.edge_dst, trace.end[trace.edge_src])
    return ready


def critical_path(trace: TaskTrace) -> float:
    """Longest path through the DAG, weighting each strand by its duration.

    The schedule itself is a feasible potential (``end[u] <= start[v]`` on every
    edge), so reweighting edge ``u -> v`` to its slack ``start[v] - end[u] >= 0``
    turns the longest path into a shortest path that Dijkstra solves exactly.

    Raises
    ------
    ValueError
        If the edges contain a cycle (possible only among zero-length strands at one
        instant, since a valid schedule orders every edge in time).

    Examples
    --------
    >>> # a fork: 0 -> 1, 0 -> 2, both -> 3
    >>> t = TaskTrace([0, 1, 1, 5], [1, 5, 2, 6], [0, 0, 1, 0],
    ...               [0, 0, 1, 2], [1, 2, 3, 3], 2)
    >>> critical_path(t)
    6.0
    >>> # an edge recorded twice is one edge
    >>> critical_path(TaskTrace([0, 6], [1, 7], [0, 0], [0, 0], [1, 1], 1))
    2.0
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    m = trace.n_strands
    start, end = trace.start, trace.end
    # one edge per pair: csr_matrix adds up repeated entries, so an edge recorded twice
    # (a continuation that is also a barrier, helper-66) counted its slack twice and
    # the path through it lost to a shorter one
    # (as one sorted int64 key per pair: np.unique took 3-4 s for 2 million edges)
    pair = np.sort(trace.edge_src.astype(np.int64) * (m + 1) + trace.edge_dst)
    src, dst = np.divmod(pair[np.diff(pair, prepend=-1) != 0], m + 1)
    _check_acyclic(trace)
    t0 = float(start.min())
    # A super-source m linked to the roots with weight start - t0.
    has_pred = np.zeros(m, dtype=bool)
    has_pred[dst] = True
    roots = np.flatnonzero(~has_pred)
    slack = np.concatenate((start[dst] - end[src], start[roots] - t0))
    rows = np.concatenate((src, np.full(roots.shape[0], m, np.int64)))
    cols = np.concatenate((dst, roots))
    # csgraph keeps explicitly stored zeros as edges, which zero-slack edges need.
    graph = csr_matrix((slack, (rows, cols)), shape=(m + 1, m + 1))
    dist = dijkstra(graph, directed=True, indices=m, min_only=True)[:m]
    # dist(v) = (end[v] - t0) - longest(v) under the potential h(v) = -end[v]
    return float(np.max((end - t0) - dist))


def _check_acyclic(trace: TaskTrace) -> None:
    """A cycle needs every edge on it to have zero slack and zero-length strands."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    src, dst = trace.edge_src, trace.edge_dst
    start, end = trace.start, trace.end
    flat = (start[dst] == end[src]) & (start[src] == end[src]) & (start[dst] == end[dst])
    if not flat.any():
        return
    s, d = src[flat], dst[flat]
    nodes, inverse = np.unique(np.concatenate((s, d)), return_inverse=True)
    k = nodes.shape[0]
    g = csr_matrix((np.ones(s.shape[0]), (inverse[: s.shape[0]], inverse[s.shape[0]:])), shape=(k, k))
    n_comp, labels = connected_components(g, directed=True, connection="strong")
    if n_comp < k:
        sizes = np.bincount(labels)
        bad = nodes[labels == int(np.argmax(sizes))]
        raise ValueError(f"the edges contain a cycle through strands {bad[:5].tolist()}: not a DAG")


def dag_metrics(trace: TaskTrace) -> dict[str, float]:
    """DAG Recorder metrics of one traced run.

    Returns
    -------
    dict
        ``time`` (elapsed: first ready to last end), ``work``, ``delay``, ``no_work``,
        ``critical_path`` and the counts ``create_task``, ``wait_tasks``,
        ``end_task``. ``work + delay + no_work == n_workers * time``.

    Raises
    ------
    ValueError
        On malformed traces: arrays of different lengths, a worker or edge index out of
        range, a strand ending before it starts or starting before a predecessor ends,
        a worker running two strands at once, or a cycle.

    Examples
    --------
    >>> t = TaskTrace(start=[0, 1, 1, 5], end=[1, 5, 2, 6], worker=[0, 0, 1, 0],
    ...               edge_src=[0, 0, 1, 2], edge_dst=[1, 2, 3, 3], n_workers=2,
    ...               create_task=1, wait_tasks=1, end_task=2)
    >>> mt = dag_metrics(t)
    >>> mt["time"], mt["work"], mt["delay"], mt["no_work"], mt["critical_path"]
    (6.0, 7.0, 0.0, 5.0, 6.0)
    """
    _check_trace(trace)
    for name in ("start", "end"):
        _check_finite(getattr(trace, name), name)
    _check_one_at_a_time(trace)
    ready = ready_times(trace)
    work, delay, no_work, elapsed = profile_integrals(trace.start, trace.end, ready, trace.n_workers)
    return {
        "time": elapsed,
        "work": work,
        "delay": delay,
        "no_work": no_work,
        "critical_path": critical_path(trace),
        "create_task": float(trace.create_task),
        "wait_tasks": float(trace.wait_tasks),
        "end_task": float(trace.end_task),
    }
