"""Fork-join task DAGs stored as arrays.

A program is a tree of tasks; each task is a sequence of *segments* (strands). A
segment runs for ``cost`` cycles and then performs one ``action``:

* ``action >= 0``: create (spawn) the task with that id;
* :data:`WAIT`: wait for every child created since the previous wait;
* :data:`END`: the task ends (always the task's last segment).

Segments of task ``t`` are ``seg_ptr[t] .. seg_ptr[t+1]-1`` (CSR layout); task 0 is
the root. Builders grow the tree level by level with numpy (see :func:`grow`), so a
million tasks cost a few arrays, not a million Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

#: Segment action: wait for the children created since the last wait.
WAIT = -1
#: Segment action: the task ends.
END = -2
#: Marker used by level builders for "spawn the next child" (resolved to a task id).
SPAWN = 0


@dataclass
class Dag:
    """A fork-join program: tasks as runs of segments (CSR), costs in cycles.

    Parameters
    ----------
    seg_ptr : numpy.ndarray of int64, shape (n_tasks + 1,)
        Segment range of every task.
    cost : numpy.ndarray of float64, shape (n_segments,)
        Serial cost of every segment (strand), in cycles, before noise and contention.
    action : numpy.ndarray of int64, shape (n_segments,)
        Child task id to create after the segment, or :data:`WAIT` / :data:`END`.
    footprint : float
        Working-set size in bytes (drives the contention model).
    memory_bound : float
        Fraction in [0, 1] of strand time exposed to shared-memory contention.
    name : str
        Program name.
    params : dict
        Problem size ``n`` and configuration parameters it was built with.

    Examples
    --------
    A root that runs 5 cycles, creates task 1, waits for it, then runs 2 more; task 1
    runs 10 cycles:

    >>> dag = Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
    ...           action=np.array([1, WAIT, END, END])).validate()
    >>> dag.n_tasks, dag.n_segments, dag.parent().tolist()
    (2, 4, [-1, 0])
    >>> dag.counts()
    {'create_task': 1, 'wait_tasks': 1, 'end_task': 2}
    >>> [side.tolist() for side in dag.edges()]  # (src, dst) strand pairs
    [[0, 1, 0, 3], [1, 2, 3, 2]]
    >>> Dag(seg_ptr=np.array([0, 2, 3]), cost=np.array([5.0, 2.0, 10.0]),
    ...     action=np.array([1, END, END])).validate()
    Traceback (most recent call last):
    ...
    ValueError: task 0 creates a child it never waits for
    """

    seg_ptr: np.ndarray
    cost: np.ndarray
    action: np.ndarray
    footprint: float = 0.0
    memory_bound: float = 0.0
    name: str = "dag"
    params: dict = field(default_factory=dict)

    @property
    def n_tasks(self) -> int:
        return int(self.seg_ptr.shape[0] - 1)

    @property
    def n_segments(self) -> int:
        return int(self.cost.shape[0])

    def segment_task(self) -> np.ndarray:
        """Task id of every segment.

        Examples
        --------
        >>> dag = Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
        ...           action=np.array([1, WAIT, END, END]))
        >>> dag.segment_task().tolist()
        [0, 0, 0, 1]
        """
        return np.repeat(np.arange(self.n_tasks, dtype=np.int64), np.diff(self.seg_ptr))

    def parent(self) -> np.ndarray:
        """Parent task of every task (-1 for the root).

        Examples
        --------
        >>> dag = Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
        ...           action=np.array([1, WAIT, END, END]))
        >>> dag.parent().tolist()
        [-1, 0]
        """
        out = np.full(self.n_tasks, -1, dtype=np.int64)
        spawns = np.flatnonzero(self.action >= 0)
        out[self.action[spawns]] = self.segment_task()[spawns]
        return out

    def counts(self) -> dict[str, int]:
        """``create_task``, ``wait_tasks``, ``end_task`` of one execution.

        Examples
        --------
        >>> from probperf.sim.apps import fib
        >>> fib(6, cutoff=2).counts()
        {'create_task': 6, 'wait_tasks': 3, 'end_task': 7}
        """
        return {
            "create_task": int(np.count_nonzero(self.action >= 0)),
            "wait_tasks": int(np.count_nonzero(self.action == WAIT)),
            "end_task": int(np.count_nonzero(self.action == END)),
        }

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Strand dependency edges ``(src, dst)``: continuation, create and join edges.

        Examples
        --------
        The root's strands 0, 1, 2 follow each other; strand 0 creates the child (its
        strand 3), which joins the root's strand 2, after the wait:

        >>> dag = Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
        ...           action=np.array([1, WAIT, END, END]))
        >>> src, dst = dag.edges()
        >>> list(zip(src.tolist(), dst.tolist()))
        [(0, 1), (1, 2), (0, 3), (3, 2)]
        """
        seg_ptr, action = self.seg_ptr, self.action
        cont = np.flatnonzero(action != END)
        spawns = np.flatnonzero(action >= 0)
        children = action[spawns]
        # the wait that joins a child is the first WAIT after its spawn segment
        waits = np.flatnonzero(action == WAIT)
        join_dst = waits[np.searchsorted(waits, spawns)] + 1
        child_first = seg_ptr[children]
        child_last = seg_ptr[children + 1] - 1
        src = np.concatenate((cont, spawns, child_last))
        dst = np.concatenate((cont + 1, child_first, join_dst))
        return src, dst

    def validate(self) -> "Dag":
        """Check the layout; raises ``ValueError`` naming the first problem.

        Examples
        --------
        >>> dag = Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
        ...           action=np.array([1, WAIT, END, END]))
        >>> dag.validate() is dag  # returned, so that a builder can end with it
        True
        >>> Dag(seg_ptr=np.array([0, 3, 4]), cost=np.array([5.0, 1.0, 2.0, 10.0]),
        ...     action=np.array([1, WAIT, WAIT, END])).validate()
        Traceback (most recent call last):
        ...
        ValueError: task 0 does not end with an END segment
        """
        seg_ptr, action, cost = self.seg_ptr, self.action, self.cost
        if seg_ptr.ndim != 1 or seg_ptr.shape[0] < 2 or seg_ptr[0] != 0:
            raise ValueError("seg_ptr must be 1-D, start at 0 and describe at least one task")
        if np.any(np.diff(seg_ptr) < 1):
            raise ValueError("every task needs at least one segment")
        if seg_ptr[-1] != cost.shape[0] or action.shape != cost.shape:
            raise ValueError("seg_ptr, cost and action disagree on the number of segments")
        if np.any(~np.isfinite(cost)) or np.any(cost < 0):
            raise ValueError("segment costs must be finite and non-negative")
        last = seg_ptr[1:] - 1
        if np.any(action[last] != END):
            t = int(np.flatnonzero(action[last] != END)[0])
            raise ValueError(f"task {t} does not end with an END segment")
        if np.count_nonzero(action == END) != self.n_tasks:
            raise ValueError("END may only be a task's last segment")
        spawns = np.flatnonzero(action >= 0)
        children = action[spawns]
        if np.any(children >= self.n_tasks) or np.any(children == 0):
            raise ValueError("a segment creates a task id that does not exist (or the root)")
        if np.unique(children).shape[0] != self.n_tasks - 1:
            raise ValueError("every task except the root must be created exactly once")
        # every spawn must be joined by a WAIT in the same task
        task = self.segment_task()
        waits = np.flatnonzero(action == WAIT)
        at = np.searchsorted(waits, spawns)
        joined = at < waits.shape[0]
        joined[joined] = waits[at[joined]] < seg_ptr[task[spawns[joined]] + 1]
        if not joined.all():
            t = int(task[spawns[~joined][0]])
            raise ValueError(f"task {t} creates a child it never waits for")
        return self


def _check_segments(count: int, meta: dict) -> None:
    """``ValueError`` naming the program and its parameters when a DAG would hold more
    than :data:`~probperf.limits.MAX_SIM_SEGMENTS` segments."""
    from ..limits import MAX_SIM_SEGMENTS

    if count > MAX_SIM_SEGMENTS:
        shape = ", ".join(f"{k}={v}" for k, v in meta.get("params", {}).items())
        raise ValueError(f"{meta.get('name') or 'the program'}({shape}) grows past {MAX_SIM_SEGMENTS} segments "
                         "(MAX_SIM_SEGMENTS); use a smaller size or cut-offs that create fewer tasks")


def grow(root: dict, expand: Callable[[dict], dict], **meta) -> Dag:
    """Build a :class:`Dag` breadth-first, one level of the task tree at a time.

    ``expand(nodes)`` receives the parameters of every task of one level (a dict of
    equal-length arrays) and returns that level's segments as a dict with arrays
    ``owner`` (index of the task within the level), ``seq`` (order within the task),
    ``cost``, ``kind`` (:data:`SPAWN`, :data:`WAIT` or :data:`END`) and, for every
    child parameter, an array giving the spawned child's value on SPAWN rows.
    Children are numbered in (owner, seq) order on the next level.

    Examples
    --------
    >>> def expand(nodes):   # a binary tree of depth 1: root spawns two leaves
    ...     d = nodes["depth"]
    ...     if d[0] == 0:
    ...         return dict(owner=np.zeros(4, int), seq=np.arange(4), cost=np.ones(4),
    ...                     kind=np.array([SPAWN, SPAWN, WAIT, END]),
    ...                     depth=np.array([1, 1, 0, 0]))
    ...     n = len(d)
    ...     return dict(owner=np.arange(n), seq=np.zeros(n, int), cost=np.full(n, 5.0),
    ...                 kind=np.full(n, END), depth=d)
    >>> dag = grow({"depth": np.array([0])}, expand)
    >>> dag.n_tasks, dag.action.tolist()
    (3, [1, 2, -1, -2, -2, -2])
    """
    ptrs, costs, actions = [np.zeros(1, np.int64)], [], []
    nodes, offset, next_offset = root, 0, 1
    n_level = len(next(iter(root.values())))
    n_segments = 0
    while n_level:
        # every task has at least one segment: refuse before expanding a level that
        # cannot fit, so a run-away cut-off fails in seconds, not after gigabytes
        _check_segments(n_segments + n_level, meta)
        segs = expand(nodes)
        n_segments += len(segs["owner"])
        order = np.lexsort((segs["seq"], segs["owner"]))
        owner = np.asarray(segs["owner"])[order]
        kind = np.asarray(segs["kind"], dtype=np.int64)[order]
        is_spawn = kind == SPAWN
        next_offset = offset + n_level
        action = kind.copy()
        action[is_spawn] = next_offset + np.arange(np.count_nonzero(is_spawn))
        per_task = np.bincount(owner, minlength=n_level)
        ptrs.append(ptrs[-1][-1] + np.cumsum(per_task))
        costs.append(np.asarray(segs["cost"], dtype=np.float64)[order])
        actions.append(action)
        skip = {"owner", "seq", "cost", "kind"}
        nodes = {k: np.asarray(v)[order][is_spawn] for k, v in segs.items() if k not in skip}
        offset, n_level = next_offset, int(np.count_nonzero(is_spawn))
    _check_segments(n_segments, meta)
    return Dag(
        seg_ptr=np.concatenate(ptrs).astype(np.int64),
        cost=np.concatenate(costs),
        action=np.concatenate(actions).astype(np.int64),
        **meta,
    )

