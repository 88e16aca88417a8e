"""OMPT events -> :class:`probperf.trace.TaskTrace` (strands and dependency edges).

A *strand* is a maximal piece of one task's execution between two of its task events:
a task's run is cut where it creates a task, where it starts waiting (taskwait,
taskgroup, barrier, a nested parallel region), where it is switched out for another
task, and where it ends. The next strand of the task starts when the task resumes.
Time a worker spends between strands (in the runtime, waiting) belongs to no strand;
:func:`probperf.trace.dag_metrics` counts it as ``delay`` or ``no_work``.

Edges (``src -> dst``: ``dst`` cannot start before ``src`` ends):

* continuation: each strand of a task -> the task's next strand;
* creation: the strand that created a task -> the task's first strand;
* taskwait / taskgroup: the last strand of each child created since the previous wait
  -> the parent's strand after the wait;
* fork / barriers / join: the strand that opened a parallel region -> the first strand
  of every implicit task; every implicit task's strand before a barrier -> every
  implicit task's strand after it; explicit tasks that no taskwait joined -> the
  strands after the first barrier that ends after them; the last strands of the team
  -> the strand after the parallel region.

The initial task's strands cover the program from the runtime's start to its shutdown,
so ``time`` is the elapsed time of the traced program under the OpenMP runtime. LLVM
starts its runtime at the first OpenMP construct, so serial code before that is not
traced, and the runtime's own start-up (up to the first parallel region) counts as work
of the initial task.

Known limits: OMPT reports only the end of a taskgroup, so a taskgroup joins the
children of its task that ended before the wait ended (deeper descendants, and
children created before the group that were still running, are joined at the next
barrier); dependences between sibling tasks (``depend`` clauses) are not recorded, so
such a task counts as ready when its creator's strand ends; untied tasks and nested
teams are not special-cased.
LLVM reports a worker's exit from the last barrier of a region only when the worker
next wakes up, so the worker's piece after that barrier is dropped (it runs no user
code).
"""

from __future__ import annotations

import numpy as np

from . import events as ev
from .events import Events, TraceFileError

#: ompt_task_status_t values after which a task's body has finished.
_BODY_DONE = {1, 3, 4}  # complete, cancel, detach
#: ompt_sync_region_t values that join the children of the waiting task.
_TASK_WAITS = {5, 6}  # taskwait, taskgroup
_TASKWAIT = 5
#: ompt_sync_region_t values of team barriers.
_BARRIERS = {1, 2, 3, 4, 8, 9, 10}
_INITIAL = 0x1  # ompt_task_initial


class _Task:
    __slots__ = (
        "open_at", "open_worker", "open_preds", "post_barrier", "last", "waiting",
        "suspended", "started", "initial", "implicit", "team", "children", "wait_children",
        "barriers", "wait_kind",
    )

    def __init__(self):
        self.open_at = None  # start time of the strand in progress, if any
        self.open_worker = -1
        self.open_preds = ()
        self.post_barrier = False  # the open strand began when a barrier ended
        self.last = None  # index of the task's latest closed strand
        self.waiting = False
        self.suspended = False
        self.started = False
        self.initial = False
        self.implicit = False
        self.team = None
        self.children = []  # children created since the last taskwait
        self.wait_children = []
        self.barriers = 0
        self.wait_kind = 0


class _Builder:
    """Strands and edge specifications, filled one thread's events at a time."""

    def __init__(self):
        self.start, self.end, self.worker = [], [], []
        self.src, self.dst = [], []
        self.specs = []  # (dst strand, spec) resolved once every event is seen
        self.tasks: dict[int, _Task] = {}
        self.creator, self.parent = {}, {}
        self.fork, self.members = {}, {}
        self.barrier_pre, self.barrier_end = {}, {}
        self.joined = set()
        self.create_task = self.wait_tasks = self.end_task = 0
        self.initial = None
        self.t_fini = None

    def task(self, tid: int) -> _Task:
        task = self.tasks.get(tid)
        if task is None:
            task = self.tasks[tid] = _Task()
        return task

    def open(self, task, t, worker, preds=(), post_barrier=False):
        task.open_at, task.open_worker = t, worker
        task.open_preds, task.post_barrier = preds, post_barrier

    def close(self, task, t):
        if task.open_at is None:
            return task.last
        idx = len(self.start)
        self.start.append(task.open_at)
        self.end.append(t)
        self.worker.append(task.open_worker)
        if task.last is not None:
            self.src.append(task.last)
            self.dst.append(idx)
        for spec in task.open_preds:
            self.specs.append((idx, spec))
        task.last, task.open_at = idx, None
        return idx

    # -- one thread --------------------------------------------------------------------

    def thread(self, events: np.ndarray, worker: int, t0: int) -> None:
        for t, kind, x, a, b in events.tolist():
            t -= t0
            if kind == ev.TASK_CREATE:
                self.on_create(a, b, t, worker)
            elif kind == ev.TASK_SCHEDULE:
                self.on_schedule(a, x, b, t, worker)
            elif kind == ev.SYNC_BEGIN:
                self.on_sync_begin(a, x, t)
            elif kind == ev.SYNC_END:
                self.on_sync_end(a, x, t, worker)
            elif kind == ev.IMPLICIT_BEGIN:
                self.on_implicit_begin(a, b, x, t, worker)
            elif kind == ev.IMPLICIT_END:
                self.on_implicit_end(a, t)
            elif kind == ev.PARALLEL_BEGIN:
                self.fork[b] = self.close(self.task(a), t)
            elif kind == ev.PARALLEL_END:
                self.open(self.task(a), t, worker, (("final", b),))
            elif kind == ev.FINI:
                self.t_fini = t

    def on_create(self, parent_id, child_id, t, worker):
        parent = self.task(parent_id)
        self.creator[child_id] = self.close(parent, t)
        self.parent[child_id] = parent_id
        parent.children.append(child_id)
        self.open(parent, t, worker)
        self.create_task += 1

    def on_schedule(self, prior_id, status, next_id, t, worker):
        prior = self.tasks.get(prior_id)
        if prior is not None and prior.open_at is not None:
            self.close(prior, t)
            if status in _BODY_DONE:
                if not prior.implicit:
                    self.end_task += 1
            else:
                prior.suspended = True
        if not next_id:
            return
        nxt = self.task(next_id)
        if not nxt.started and not nxt.implicit:
            nxt.started = True
            self.open(nxt, t, worker, (("creator", next_id),))
        elif nxt.suspended:
            # A task that ran to completion on top of a switched-out one (undeferred, or
            # any task in a serialized team) gets no edge to its host: the DAG keeps the
            # logical dependences, so the critical path is the program's, not the order
            # this schedule imposed.
            nxt.suspended = False
            self.open(nxt, t, worker)

    def on_sync_begin(self, tid, kind, t):
        task = self.task(tid)
        self.close(task, t)
        task.waiting = True
        if kind in _TASK_WAITS:
            task.wait_children, task.children = task.children, []
            task.wait_kind = kind
            if kind == _TASKWAIT:
                self.joined.update(task.wait_children)
            self.wait_tasks += 1
        elif kind in _BARRIERS:
            key = (task.team, task.barriers)
            self.barrier_pre.setdefault(key, []).append(task.last)

    def on_sync_end(self, tid, kind, t, worker):
        task = self.task(tid)
        task.waiting = False
        if kind in _TASK_WAITS:
            how = "last" if task.wait_kind == _TASKWAIT else "group"
            self.open(task, t, worker, tuple((how, c) for c in task.wait_children))
            task.wait_children = []
        elif kind in _BARRIERS:
            key = (task.team, task.barriers)
            task.barriers += 1
            self.barrier_end[key] = min(t, self.barrier_end.get(key, t))
            self.open(task, t, worker, (("barrier", key),), post_barrier=True)
        else:
            self.open(task, t, worker)

    def on_implicit_begin(self, tid, team, flags, t, worker):
        task = self.task(tid)
        task.implicit = task.started = True
        if flags & _INITIAL:
            task.initial = True
            self.initial = tid
            self.open(task, t, worker)
            return
        task.team = team
        self.members.setdefault(team, []).append(tid)
        self.open(task, t, worker, (("fork", team),))

    def on_implicit_end(self, tid, t):
        task = self.task(tid)
        if task.initial:
            return  # the initial task runs on to the runtime's shutdown (FINI)
        if task.post_barrier:
            task.open_at = None  # see "Known limits" in the module docstring
        else:
            self.close(task, t)

    # -- after all threads -------------------------------------------------------------

    def finish(self) -> None:
        if self.t_fini is None or self.initial is None:
            raise TraceFileError("the trace has no program start or end event")
        self.close(self.tasks[self.initial], self.t_fini)
        for task in self.tasks.values():
            if task.open_at is not None:
                if task.post_barrier:
                    task.open_at = None
                else:
                    self.close(task, self.t_fini)
        self._join_groups()
        attached = self._attach_unjoined()
        for dst, spec in self.specs:
            for src in self._resolve(spec, attached):
                if src is not None and src != dst:
                    self.src.append(src)
                    self.dst.append(dst)

    def _join_groups(self) -> None:
        """Decide which children a taskgroup joined.

        OMPT marks only the end of a taskgroup, so the children of the waiting task
        created since its last wait include any created before the taskgroup began,
        which it does not wait for. A child that ended before the wait ended may have
        been in the group: it gets the edge. One still running was not: it stays
        unjoined (and is joined at the next barrier).
        """
        for i, (dst, spec) in enumerate(self.specs):
            if spec[0] != "group":
                continue
            task = self.tasks.get(spec[1])
            if task is not None and task.last is not None and self.end[task.last] <= self.start[dst]:
                self.joined.add(spec[1])
                self.specs[i] = (dst, ("last", spec[1]))
            else:
                self.specs[i] = (dst, ("none",))

    def _team_of(self, tid, memo):
        chain = []
        while tid in self.parent and tid not in memo:
            chain.append(tid)
            tid = self.parent[tid]
        team = memo.get(tid, self.tasks[tid].team if tid in self.tasks else None)
        for c in chain:
            memo[c] = team
        return team

    def _attach_unjoined(self) -> dict:
        """Explicit tasks no taskwait joined wait for the first barrier ending after them."""
        memo, attached = {}, {}
        last_barrier = {}
        for team, k in self.barrier_pre:
            last_barrier[team] = max(k, last_barrier.get(team, -1))
        for tid in self.parent:
            if tid in self.joined:
                continue
            last = self.tasks[tid].last if tid in self.tasks else None
            team = self._team_of(tid, memo)
            if last is None or team is None:
                continue
            done = self.end[last]
            key = ("final", team)
            for k in range(last_barrier.get(team, -1)):
                if self.barrier_end.get((team, k), -1) >= done:
                    key = (team, k)
                    break
            attached.setdefault(key, []).append(last)
        return attached

    def _resolve(self, spec, attached):
        kind = spec[0]
        if kind == "last":
            task = self.tasks.get(spec[1])
            return [task.last] if task is not None else []
        if kind == "creator":
            return [self.creator.get(spec[1])]
        if kind == "fork":
            return [self.fork.get(spec[1])]
        if kind == "barrier":
            return self.barrier_pre.get(spec[1], []) + attached.get(spec[1], [])
        if kind == "final":
            team = spec[1]
            lasts = [self.tasks[m].last for m in self.members.get(team, [])]
            return lasts + attached.get(("final", team), [])
        if kind == "none":
            return []
        raise AssertionError(spec)


def events_to_trace(events: Events, n_workers: int | None = None):
    """Build the strands and edges of one traced run.

    Parameters
    ----------
    events : Events
        What :func:`probperf.record.events.read_events` returned.
    n_workers : int, optional
        Workers of the run (``OMP_NUM_THREADS``); default: the threads that ran
        strands. Times are in nanoseconds from the first event.

    Returns
    -------
    probperf.trace.TaskTrace

    Raises
    ------
    TraceFileError
        If the events are incomplete, more threads ran strands than ``n_workers``, or
        an edge points backwards in time (a clock or runtime the tool cannot handle).

    Examples
    --------
    A program whose initial task creates no task is one strand, from the initial
    task's start to the runtime's end (times count from the first event):

    >>> import numpy as np
    >>> from probperf.record.events import EVENT_DTYPE, FINI, IMPLICIT_BEGIN, INIT
    >>> rows = [(0, INIT, 0, 0, 0), (5, IMPLICIT_BEGIN, 1, 7, 0), (250, FINI, 0, 0, 0)]
    >>> tr = events_to_trace(Events([np.array(rows, dtype=EVENT_DTYPE)]))
    >>> tr.start.tolist(), tr.end.tolist(), tr.n_workers
    ([5.0], [250.0], 1)
    """
    from ..trace import TaskTrace

    threads = [t for t in events.threads if len(t)]
    if not threads:
        raise TraceFileError(f"{events.source}: the trace holds no events")
    t0 = int(min(int(t["t"].min()) for t in threads))
    builder = _Builder()
    for worker, thread in enumerate(events.threads):
        builder.thread(thread, worker, t0)
    try:
        builder.finish()
    except TraceFileError as exc:
        raise TraceFileError(f"{events.source}: {exc}") from None
    start = np.asarray(builder.start, dtype=np.float64)
    end = np.asarray(builder.end, dtype=np.float64)
    # Renumber workers densely: runtime helper threads that ran no strand don't count.
    used, worker = np.unique(np.asarray(builder.worker, dtype=np.int64), return_inverse=True)
    if n_workers is None:
        n_workers = len(used)
    if len(used) > n_workers:
        raise TraceFileError(
            f"{events.source}: {len(used)} threads ran tasks but the run had {n_workers} workers"
        )
    src = np.asarray(builder.src, dtype=np.int64)
    dst = np.asarray(builder.dst, dtype=np.int64)
    back = end[src] > start[dst]
    if back.any():
        i = int(np.flatnonzero(back)[0])
        raise TraceFileError(
            f"{events.source}: {int(back.sum())} dependency edge(s) point backwards in time, "
            f"e.g. strand {src[i]} ends at {end[src[i]]:.0f} ns after strand {dst[i]} starts "
            f"at {start[dst[i]]:.0f} ns"
        )
    return TaskTrace(
        start=start,
        end=end,
        worker=worker.astype(np.int64),
        edge_src=src,
        edge_dst=dst,
        n_workers=int(n_workers),
        create_task=builder.create_task,
        wait_tasks=builder.wait_tasks,
        end_task=builder.end_task,
    )
