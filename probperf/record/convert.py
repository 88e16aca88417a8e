"""OMPT events -> :class:`probperf.trace.TaskTrace` (strands and dependency edges).

Every thread runs at most one task at a time, so its event stream cuts its time into
intervals, each spent either running one task or in the runtime. The task a thread
runs after an event is read off that event alone (OpenMP 5.x, section 19.5.2):

* ``implicit_task`` begin, ``task_create`` (the parent goes on), the end of a
  ``sync_region``, the begin of a taskgroup (a taskgroup region spans its task's
  code; the task waits only at its end, between ``sync_region_wait`` begin and end),
  ``parallel_end``: the event's task;
* ``task_schedule(prior, status, next)``: ``next``, whatever ``prior`` was and
  whatever the thread ran before, unless ``next`` is waiting (in a barrier, a
  taskwait or the end of a taskgroup that executed tasks while it waited): then the
  thread is back in the runtime;
* anything else (a barrier or taskwait begins, a wait begins or ends, a region
  forks, an implicit task ends): nothing.

A *strand* is one such interval that runs a task: a task's run is cut where it
creates a task, starts waiting, is switched out and where it ends. Reading the
running task off the event, not off a per-task state, is what makes untied tasks
and ``taskyield`` come out right. LLVM's libomp runs an untied task as a chain of
parts, each re-queuing the task before it returns, and reports that return as a
switch from the task to whoever runs next. With one worker it then reports
``child -> parent`` and at once ``child -> child`` (the queued part, started on the
spot); with several, another thread may start the queued part before this one
reports the switch. A task seen running on two threads at once is therefore cut
where its next part starts: the first thread was only leaving the runtime.

Edges (``src -> dst``: ``dst`` cannot start before ``src`` ends):

* continuation: each strand of a task -> the task's next strand (in time);
* creation: the strand that created a task -> the task's first strand;
* taskwait: the last strand of each child created before it (and after the previous
  taskwait) -> the parent's strand after the wait;
* taskgroup: the last strand of each child created inside the group (innermost group
  if nested), and of their descendants that no wait joined -> the parent's strand
  after the group;
* fork / barriers / join: the strand that opened a parallel region -> the first strand
  of every implicit task; every implicit task's strand before a barrier -> every
  implicit task's strand after it; explicit tasks that no taskwait joined -> the
  strands after the first barrier that ends after them; the last strands of the team
  -> the strand after the parallel region.

A task that ran on top of a suspended one on the same thread (undeferred tasks:
``if(0)``, the tasks of a ``final`` task, every task of a one-thread team; tasks run
at a ``taskyield``) gets no edge to its host's next strand: the DAG keeps the logical
dependences, so the critical path is the program's, not the order this schedule
imposed. ``mergeable`` needs nothing: libomp runs such a task as an ordinary one.

The initial task's strands cover the program from the runtime's start to its shutdown,
so ``time`` is the elapsed time of the traced program under the OpenMP runtime. LLVM
starts its runtime at the first OpenMP construct, so serial code before that is not
traced, and the runtime's own start-up (up to the first parallel region) counts as work
of the initial task.

Dependences between sibling tasks (``depend`` clauses) are edges too: the last strand
of the task that must end first -> the first strand of the task that waits for it,
worked out by OpenMP's rules from the list items each task names (reported as it is
created), in creation order (:func:`_depend_pairs`). They are not libomp's own pairs
(``task_dependence``): those leave out earlier tasks that already ended. A ``taskwait
depend(...)`` is reported (libomp 14) as an empty task flagged ``ompt_task_taskwait``
that completes without running: the waiting task's strand after it follows the tasks
it names, and the time in between is a wait. libomp reports an ``if(0)`` task with
``depend`` the same way, so such a task also counts one wait (its DAG is right).
Doacross ``depend(source/sink)`` is ignored; ``omp_all_memory`` is refused.

Known limits: nested parallel regions
(a ``parallel`` construct met by anything but the initial task) are refused.
LLVM reports a worker's exit from the last barrier of a region only when the worker
next wakes up, so the worker's piece after that barrier is dropped (it runs no user
code).

The conversion is vectorised: events are ranked once by time, and every question
("the task's latest strand before this event", "the first wait after this creation")
is a sorted search on ``task * n + rank`` keys, so the cost is a few sorts of the
event arrays.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import events as ev
from .events import Events, TraceFileError

#: ompt_task_status_t values after which a task's body has finished.
_BODY_DONE = (1, 3, 4)  # complete, cancel, detach
#: ompt_sync_region_t values that join the children of the waiting task.
_TASKWAIT, _TASKGROUP = 5, 6
#: ompt_sync_region_t values of team barriers.
_BARRIERS = (1, 2, 3, 4, 8, 9, 10)
_INITIAL = 0x1  # ompt_task_initial
_TASKWAIT_TASK = 0x10  # ompt_task_taskwait (OpenMP 5.1): the empty task of a `taskwait depend`
_TASKWAIT_COMPLETE = 8  # ompt_taskwait_complete: the status with which that task ends
_ID_SHIFT = 40  # ID_SHIFT in ompt_tool.c


class UnsupportedConstruct(TraceFileError):
    """The trace holds an OpenMP construct the recorder cannot turn into a DAG.

    Examples
    --------
    >>> str(UnsupportedConstruct("nested parallel region"))
    'nested parallel region'
    """


@dataclass
class _Columns:
    """All events, thread after thread, as flat arrays.

    ``a`` and ``b`` are dense ranks of the 64-bit task / region ids (rank 0: none);
    ``rank`` orders events in time across threads (ties: thread, then position), so
    ``task * span + rank`` keys sort each task's events in time.
    """

    t: np.ndarray
    kind: np.ndarray
    x: np.ndarray
    a: np.ndarray
    b: np.ndarray
    w: np.ndarray
    rank: np.ndarray
    n_ids: int
    #: the depend clauses' list items (``task``, ``address``, ``type``), kept out of the
    #: event stream, where they would cut the creating task's strand
    depend: pd.DataFrame

    @property
    def span(self) -> int:
        return self.t.shape[0] + 2

    @functools.cached_property
    def taskwait_depend(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(computed once: both the running tasks and the edges need it) see
        :func:`_taskwait_depend`."""
        return _taskwait_depend(self)


def _dense_ids(raw):
    """``(rank, n_ids)``: ``rank(ids)`` gives the dense ranks of task and region ids of
    ``raw``'s events (0 stays 0) without sorting them.

    The tool makes an id from the creating thread's index + 1 (high bits) and a
    per-thread counter (low bits, from 1), so the rank is the counter plus the counts
    of the threads before; a thread's count is the largest id it created.
    """
    kind = raw["kind"]
    made = np.concatenate((raw["b"][(kind == ev.TASK_CREATE) | (kind == ev.PARALLEL_BEGIN)],
                           raw["a"][kind == ev.IMPLICIT_BEGIN]))
    shift, low = np.uint64(_ID_SHIFT), np.uint64((1 << _ID_SHIFT) - 1)
    top = np.zeros(int(made.max() >> shift) + 1 if made.size else 1, np.int64)
    np.maximum.at(top, (made >> shift).astype(np.int64), (made & low).astype(np.int64))
    offset = np.concatenate(([0], np.cumsum(top)))[:-1]

    def rank(ids):
        hi = (ids >> shift).astype(np.int64)
        lo = (ids & low).astype(np.int64)
        bad = (hi >= top.shape[0]) | (lo > top[np.minimum(hi, top.shape[0] - 1)])
        if (bad & (ids != 0)).any():
            raise TraceFileError("an event names a task or region the trace never created")
        return np.where(ids == 0, 0, offset[np.minimum(hi, top.shape[0] - 1)] + lo)

    return rank, int(top.sum()) + 1


def _columns(events: Events) -> _Columns:
    parts = [(w, th) for w, th in enumerate(events.threads) if len(th)]
    if not parts:
        raise TraceFileError("the trace holds no events")
    raw = np.concatenate([th for _, th in parts])
    w = np.concatenate([np.full(len(th), i, np.int64) for i, th in parts])
    # the initial task runs on to the runtime's shutdown (FINI): its end is no cut
    keep = ~((raw["kind"] == ev.IMPLICIT_END) & ((raw["x"] & _INITIAL) != 0))
    raw, w = raw[keep], w[keep]
    t = raw["t"].astype(np.int64)
    t -= t.min()
    dep = raw["kind"] == ev.TASK_DEPEND
    rank_ids, n_ids = _dense_ids(raw[~dep])
    depend = pd.DataFrame({"task": rank_ids(raw["a"][dep]), "address": raw["b"][dep],
                           "type": raw["x"][dep].astype(np.int64)})
    raw, w, t = raw[~dep], w[~dep], t[~dep]
    a, b = rank_ids(raw["a"]), rank_ids(raw["b"])
    n = t.shape[0]
    rank = np.empty(n, np.int64)
    # a stable sort keeps each thread's order on ties; the input is one sorted run
    # per thread, which timsort merges in O(n log threads)
    rank[np.argsort(t, kind="stable")] = np.arange(n)
    return _Columns(t, raw["kind"].astype(np.int64), raw["x"].astype(np.int64), a, b, w, rank,
                    n_ids, depend)


def _among(x, values) -> np.ndarray:
    """``np.isin(x, values)`` for small non-negative codes: one table look-up."""
    table = np.zeros(max(values) + 2, bool)
    table[list(values)] = True
    return table[np.minimum(x, table.shape[0] - 1)]


def _search(keys, query, side):
    """Index of the first key > query (side "right") or the last key < query ("left")."""
    i = np.searchsorted(keys, query, side=side)
    return i if side == "right" else i - 1


def _nesting(c: _Columns, opens, closes):
    """Events that open or close regions of their task, sorted by (task, time), and the
    number of the task's regions open after each."""
    ev_ = np.flatnonzero(opens | closes)
    keys = c.a[ev_] * c.span + c.rank[ev_]
    order = np.argsort(keys, kind="stable")
    ev_, keys = ev_[order], keys[order]
    # counts run over all tasks; subtracting the count before a task's first event
    # gives the task's own
    count = np.cumsum(np.where(opens[ev_], 1, -1))
    first = np.searchsorted(keys, c.a[ev_] * c.span, side="left")
    base = np.where(first > 0, count[np.maximum(first - 1, 0)], 0)
    return ev_, keys, count - base


def _waiting(c: _Columns, task, rank):
    """Whether each ``task`` waits (in a barrier, a taskwait, the end of a taskgroup)
    just before event ``rank``."""
    group = c.x == _TASKGROUP
    opens = (c.kind == ev.WAIT_BEGIN) | ((c.kind == ev.SYNC_BEGIN) & ~group)
    closes = (c.kind == ev.WAIT_END) | ((c.kind == ev.SYNC_END) & ~group)
    ev_, keys, depth = _nesting(c, opens, closes)
    if not ev_.size:
        return np.zeros(task.shape[0], bool)
    j = _search(keys, task * c.span + rank, "left")
    jj = np.maximum(j, 0)
    return (j >= 0) & (c.a[ev_[jj]] == task) & (depth[jj] > 0)


def _running(c: _Columns, initial: int) -> np.ndarray:
    """Task each thread runs after each event (0: none); see the module docstring."""
    run = np.zeros(c.t.shape[0], np.int64)
    for kind in (ev.IMPLICIT_BEGIN, ev.TASK_CREATE, ev.SYNC_END, ev.PARALLEL_END):
        hit = c.kind == kind
        run[hit] = c.a[hit]
    # a taskgroup region spans its task's code: the task waits only at its end
    group = (c.kind == ev.SYNC_BEGIN) & (c.x == _TASKGROUP)
    run[group] = c.a[group]
    sched = np.flatnonzero((c.kind == ev.TASK_SCHEDULE) & (c.b != 0))
    busy = _waiting(c, c.b[sched], c.rank[sched])
    run[sched[~busy]] = c.b[sched[~busy]]
    return _waiting_on_depend(c, run)


def _waiting_on_depend(c: _Columns, run: np.ndarray) -> np.ndarray:
    """``run`` with the ``taskwait depend`` waits: the task waits from the creation of
    its empty task until that task "completes" into no task (a task switched back to
    it in between finds it still waiting), and then goes on."""
    opened, done, parent_of = c.taskwait_depend
    if not done.size:
        return run
    opened_at = np.zeros(c.n_ids, np.int64)
    opened_at[c.b[opened]] = c.rank[opened]
    owner, begin, end = parent_of[c.a[done]], opened_at[c.a[done]], c.rank[done]
    order = np.argsort(owner * c.span + begin)
    owner, begin, end = owner[order], begin[order], end[order]
    j = _search(owner * c.span + begin, run * c.span + c.rank, "right") - 1  # the wait begun last
    jj = np.maximum(j, 0)
    run[(j >= 0) & (owner[jj] == run) & (c.rank < end[jj])] = 0
    run[done[order]] = owner
    return run


def _taskwait_depend(c: _Columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The events that create a ``taskwait depend``'s empty task, those where such a
    task completes, and each task's creator (0 for tasks no event created)."""
    cr = c.kind == ev.TASK_CREATE
    parent_of = np.zeros(c.n_ids, np.int64)
    parent_of[c.b[cr]] = c.a[cr]
    opened = np.flatnonzero(cr & ((c.x & _TASKWAIT_TASK) != 0))
    waiting = np.zeros(c.n_ids, bool)
    waiting[c.b[opened]] = True
    done = np.flatnonzero((c.kind == ev.TASK_SCHEDULE) & (c.x == _TASKWAIT_COMPLETE) & waiting[c.a])
    return opened, done, parent_of


@dataclass
class _Strands:
    """Strands sorted by (task, start); ``keys = task * span + start_rank``."""

    task: np.ndarray
    w: np.ndarray
    start_t: np.ndarray
    end_t: np.ndarray
    start_rank: np.ndarray
    end_rank: np.ndarray
    keys: np.ndarray
    span: int

    def last_before(self, task, rank):
        """The task's latest strand starting before event ``rank`` (-1: none)."""
        j = _search(self.keys, task * self.span + rank, "left")
        return self._own(j, task)

    def first_after(self, task, rank):
        """The task's first strand starting after event ``rank`` (-1: none)."""
        j = _search(self.keys, task * self.span + rank, "right")
        return self._own(j, task)

    def first(self, task):
        return self.first_after(task, -1)

    def last(self, task):
        return self.last_before(task, self.span)

    def _own(self, j, task):
        ok = (j >= 0) & (j < self.task.shape[0])
        jj = np.where(ok, j, 0)
        return np.where(ok & (self.task[jj] == task), jj, -1)


def _strands(c: _Columns, run: np.ndarray, initial: int, t_fini: int) -> _Strands:
    """One strand per event after which its thread runs a task, to the thread's next event."""
    has_next = np.append(c.w[1:] == c.w[:-1], False)
    s = np.flatnonzero(run != 0)
    # after a thread's last event only the initial task runs on (to FINI)
    s = s[has_next[s] | (run[s] == initial)]
    last = ~has_next[s]
    e = np.where(last, s, s + 1)
    # a worker's piece after the region's final barrier (reported late, see above)
    late = (~last & (c.kind[s] == ev.SYNC_END) & _among(c.x[s], _BARRIERS)
            & (c.kind[e] == ev.IMPLICIT_END))
    s, e, last = s[~late], e[~late], last[~late]
    task = run[s]
    start_rank = c.rank[s]
    order = np.lexsort((start_rank, task))
    s, e, last, task, start_rank = s[order], e[order], last[order], task[order], start_rank[order]
    end_t = np.where(last, t_fini, c.t[e])
    end_rank = np.where(last, c.span - 1, c.rank[e])
    # an untied task's part started on another thread before this one reported the
    # switch: its strand here ends where the next part starts
    start_t = c.t[s]
    over = (task[1:] == task[:-1]) & (start_rank[1:] < end_rank[:-1])
    end_t[:-1][over] = start_t[1:][over]
    end_rank[:-1][over] = start_rank[1:][over]
    return _Strands(task, c.w[s], start_t, end_t, start_rank, end_rank,
                    task * c.span + start_rank, c.span)


class _Edges:
    """Edge arrays with the construct each came from (named in error messages)."""

    def __init__(self):
        self.parts = []

    def add(self, src, dst, construct: str):
        src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
        ok = (src >= 0) & (dst >= 0) & (src != dst)
        self.parts.append((src[ok], dst[ok], construct))

    def arrays(self):
        src = np.concatenate([p[0] for p in self.parts] or [np.zeros(0, np.int64)])
        dst = np.concatenate([p[1] for p in self.parts] or [np.zeros(0, np.int64)])
        return src, dst

    def construct_of(self, i: int) -> str:
        for src, _, name in self.parts:
            if i < src.shape[0]:
                return name
            i -= src.shape[0]
        raise IndexError(i)


def _frame(**cols) -> pd.DataFrame:
    return pd.DataFrame({k: np.asarray(v, np.int64) for k, v in cols.items()})


def _pairs(left: pd.DataFrame, right: pd.DataFrame, on) -> tuple[np.ndarray, np.ndarray]:
    """Every ``src`` of ``left`` with every ``dst`` of ``right`` that shares ``on``."""
    both = left.merge(right, on=on)
    return both["src"].to_numpy(), both["dst"].to_numpy()


def _joining_wait(c: _Columns, S: _Strands, parent, when):
    """For each creation (``parent`` at event ``when``), the parent's strand after its
    first taskwait after the creation (-1: none)."""
    wt = np.flatnonzero((c.kind == ev.SYNC_BEGIN) & (c.x == _TASKWAIT))
    if not wt.size:
        return np.full(parent.shape[0], -1, np.int64)
    wkeys = c.a[wt] * c.span + c.rank[wt]
    order = np.argsort(wkeys, kind="stable")
    wt, wkeys = wt[order], wkeys[order]
    found = _search(wkeys, parent * c.span + when, "right")
    j = np.minimum(found, wt.shape[0] - 1)
    post = S.first_after(c.a[wt], c.rank[wt])
    return np.where((found == j) & (c.a[wt[j]] == parent), post[j], -1)


def _joining_group(c: _Columns, S: _Strands, parent, when):
    """For each creation, the parent's strand after the end of the innermost taskgroup
    open at the creation (-1: none).

    A region opened at level ``d`` (``d`` regions open after its begin) is closed by
    the task's next event that leaves ``d - 1`` open; the innermost group open at a
    creation is the latest begin at the level the creation sees.
    """
    group = c.x == _TASKGROUP
    ev_, keys, level = _nesting(c, group & (c.kind == ev.SYNC_BEGIN), group & (c.kind == ev.SYNC_END))
    none = np.full(parent.shape[0], -1, np.int64)
    if not ev_.size:
        return none
    top = int(level.max()) + 2
    opens = c.kind[ev_] == ev.SYNC_BEGIN
    # key (task, level of the region, time): a begin at level d, an end leaving d - 1
    lk = (c.a[ev_] * top + np.where(opens, level, level + 1)) * c.span + c.rank[ev_]
    order = np.argsort(lk, kind="stable")
    lk, lev, lopen = lk[order], ev_[order], opens[order]
    nxt = np.minimum(np.arange(lk.shape[0]) + 1, lk.shape[0] - 1)
    # the creation's level: regions open just before it
    j = _search(keys, parent * c.span + when, "left")
    jj = np.maximum(j, 0)
    d = np.where((j >= 0) & (c.a[ev_[jj]] == parent), level[jj], 0)
    b = _search(lk, (parent * top + d) * c.span + when, "left")
    bb = np.maximum(b, 0)
    ok = (d > 0) & (b >= 0) & lopen[bb] & (lk[bb] // c.span == parent * top + d)
    ok &= ~lopen[nxt[bb]] & (lk[nxt[bb]] // c.span == parent * top + d)
    end = lev[nxt[bb]]
    return np.where(ok, S.first_after(parent, c.rank[end] - 1), none)


def _task_edges(c: _Columns, S: _Strands, edges: _Edges) -> tuple[np.ndarray, np.ndarray]:
    """Continuation, creation and taskwait / taskgroup edges.

    Returns the created tasks and whether a taskwait or taskgroup joined each.
    """
    same = np.flatnonzero(S.task[1:] == S.task[:-1])
    edges.add(same, same + 1, "task switch (continuation)")
    cr = np.flatnonzero(c.kind == ev.TASK_CREATE)
    parent, child, when = c.a[cr], c.b[cr], c.rank[cr]
    edges.add(S.last_before(parent, when), S.first(child), "task creation")
    _depend_edges(c, S, edges, parent, child, when)
    last = S.last(child)
    after_wait = _joining_wait(c, S, parent, when)
    after_group = _joining_group(c, S, parent, when)
    edges.add(last, after_wait, "taskwait")
    edges.add(last, after_group, "taskgroup")
    joined = (last >= 0) & ((after_wait >= 0) | (after_group >= 0))
    _group_descendants(c, S, edges, parent, child, joined, after_group)
    return child, joined


def _depend_edges(c: _Columns, S: _Strands, edges: _Edges, parent, child, when) -> None:
    """Depend-clause edges: the last strand of the task that must end first -> the
    first strand of the one that waits. A ``taskwait depend(...)`` is reported as an
    empty task (flag ``ompt_task_taskwait``) that never runs: its waits go to the
    parent's strand after it completes."""
    src, dst = _depend_pairs(c.depend, pd.Series(parent, index=child), pd.Series(when, index=child))
    _, done, parent_of = c.taskwait_depend
    waits = c.a[done]
    after = pd.Series(S.first_after(parent_of[waits], c.rank[done] - 1), index=waits)
    to_parent = np.isin(dst, after.index)
    edges.add(S.last(src[~to_parent]), S.first(dst[~to_parent]), "depend clause")
    edges.add(S.last(src[to_parent]), after.reindex(dst[to_parent]).to_numpy(), "taskwait depend")


#: ompt_dependence_type_t values: the kinds that order a list item's tasks.
_IN, _OUT, _INOUT, _MUTEXINOUTSET, _INOUTSET = 1, 2, 3, 4, 7
#: ompt_dependence_type_t values of doacross loops (``depend(source)``, ``depend(sink: ...)``).
_DOACROSS = (5, 6)


def _depend_pairs(depend: pd.DataFrame, parent: pd.Series, created: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``(src, dst)`` task pairs that depend clauses order: among the sibling tasks
    naming one list item, in creation order (OpenMP 5.2, section 15.9.5), ``in`` waits
    for the last writers; ``out``/``inout`` for the last writers and the readers since;
    consecutive ``mutexinoutset`` (or ``inoutset``) tasks form one group that waits for
    what its first member waits for, with no order inside (mutual exclusion is not an
    edge). Doacross ``source``/``sink`` are ignored. Later tasks' waits on earlier
    writers that are implied through others are left out: they do not change a path.

    Examples
    --------
    >>> dep = pd.DataFrame({"task": [1, 2, 3, 4], "address": [9, 9, 9, 9], "type": [3, 1, 1, 2]})
    >>> src, dst = _depend_pairs(dep, pd.Series(0, index=[1, 2, 3, 4]), pd.Series([1, 2, 3, 4], index=[1, 2, 3, 4]))
    >>> sorted(zip(src.tolist(), dst.tolist()))
    [(1, 2), (1, 3), (2, 4), (3, 4)]
    """
    unknown = ~depend["type"].isin((_IN, _OUT, _INOUT, _MUTEXINOUTSET, _INOUTSET, *_DOACROSS))
    if unknown.any():
        raise UnsupportedConstruct(f"depend clause of type {int(depend['type'][unknown].iloc[0])} (ompt_dependence_type_t; "
                                   "omp_all_memory?): not supported")
    dep = depend[~depend["type"].isin(_DOACROSS)].drop_duplicates()
    # the same list item twice in one task: libomp merges the kinds, two different
    # ones make it a writer
    twice = dep.duplicated(["task", "address"], keep=False)
    dep = dep.assign(type=np.where(twice, _INOUT, dep["type"])).drop_duplicates(["task", "address"])
    dep = dep.assign(parent=parent.reindex(dep["task"]).to_numpy(),
                     created=created.reindex(dep["task"]).to_numpy()).dropna(subset=["parent"])
    dep = dep.sort_values(["parent", "address", "created"], kind="stable")
    if dep.empty:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    task, kind = dep["task"].to_numpy(np.int64), dep["type"].to_numpy(np.int64)
    item = np.r_[True, (np.diff(dep["parent"].to_numpy()) != 0) | (np.diff(dep["address"].to_numpy()) != 0)]
    reader = kind == _IN
    joins = np.r_[False, kind[1:] == kind[:-1]] & np.isin(kind, (_MUTEXINOUTSET, _INOUTSET)) & ~item
    # a group: a writer (or a run of one mutexinoutset / inoutset kind) and the readers after it
    group = np.cumsum(item | (~reader & ~joins)) - 1
    n_groups = group[-1] + 1
    starts_item = item[np.searchsorted(group, np.arange(n_groups))]
    readers = pd.DataFrame({"g": group[reader], "task": task[reader]})
    writers = pd.DataFrame({"g": group[~reader], "task": task[~reader]})
    # readers wait for their group's writers; writers for the previous group of the same
    # item: its readers if it has any (each waits for that group's writers), else its writers
    has_readers = np.isin(np.arange(n_groups), readers["g"])
    before = pd.concat([readers[has_readers[readers["g"]]], writers[~has_readers[writers["g"]]]])
    before = before.assign(g=before["g"] + 1)
    before = before[before["g"] < n_groups]
    before = before[~starts_item[before["g"]]]
    pairs = pd.concat([readers.merge(writers, on="g", suffixes=("", "_src")),
                       writers.merge(before, on="g", suffixes=("", "_src"))]).drop_duplicates(["task_src", "task"])
    return pairs["task_src"].to_numpy(np.int64), pairs["task"].to_numpy(np.int64)


def _group_descendants(c, S, edges, parent, child, joined, group_post) -> None:
    """A taskgroup waits for the descendants of its tasks too: a task no wait joined
    goes to the end of the taskgroup that joined its nearest ancestor, if it ended
    before that (``joined`` is updated)."""
    up = np.zeros(c.n_ids, np.int64)
    up[child] = parent
    gp = np.full(c.n_ids, -1, np.int64)
    gp[child] = group_post
    idx = np.flatnonzero(~joined)
    anc, post = parent[idx], np.full(idx.shape[0], -1, np.int64)
    live = np.arange(idx.shape[0])
    while live.size:  # one step up the ancestry per round
        post[live] = gp[anc[live]]
        live = live[(post[live] < 0) & (up[anc[live]] != 0)]
        anc[live] = up[anc[live]]
    last = S.last(child[idx])
    ok = (post >= 0) & (last >= 0)
    ok[ok] = S.end_rank[last[ok]] <= S.start_rank[post[ok]]
    edges.add(last[ok], post[ok], "taskgroup (descendant)")
    joined[idx[ok]] = True


def _teams(c: _Columns, initial: int) -> tuple[np.ndarray, np.ndarray]:
    """Team (parallel region rank) of every task id rank (0: none), and the members."""
    nested = np.flatnonzero((c.kind == ev.PARALLEL_BEGIN) & (c.a != initial))
    if nested.size:
        raise UnsupportedConstruct(
            f"a nested parallel region (a parallel construct inside a parallel region or "
            f"a task, {c.t[nested[0]]} ns after the start) is not supported by the recorder"
        )
    members = np.flatnonzero((c.kind == ev.IMPLICIT_BEGIN) & (c.a != initial))
    team = np.zeros(c.n_ids, np.int64)
    team[c.a[members]] = c.b[members]
    anc = np.zeros(c.n_ids, np.int64)
    cr = c.kind == ev.TASK_CREATE
    anc[c.b[cr]] = c.a[cr]
    # pointer jumping: each round doubles the ancestor distance looked at
    todo = np.flatnonzero((team == 0) & (anc != 0))
    while todo.size:
        team[todo] = team[anc[todo]]
        anc[todo] = anc[anc[todo]]
        todo = todo[(team[todo] == 0) & (anc[todo] != 0)]
    return team, c.a[members]


def _barriers(c: _Columns, S: _Strands, team: np.ndarray) -> pd.DataFrame:
    """One row per implicit task and barrier: team, k (the task's k-th barrier), the
    strands before (``src``) and after (``dst``; -1 after the region's last one)."""
    br = np.flatnonzero((c.kind == ev.SYNC_BEGIN) & _among(c.x, _BARRIERS) & (team[c.a] != 0))
    br = br[np.lexsort((c.rank[br], c.a[br]))]
    task = c.a[br]
    first = np.searchsorted(task, task, side="left")
    return _frame(team=team[task], k=np.arange(br.shape[0]) - first,
                  src=S.last_before(task, c.rank[br]), dst=S.first_after(task, c.rank[br]))


def _team_edges(c, S, edges, team, members, unjoined) -> None:
    """Fork, barrier and join edges; tasks no wait joined go to the next barrier."""
    pb = np.flatnonzero(c.kind == ev.PARALLEL_BEGIN)
    fork = _frame(team=c.b[pb], src=S.last_before(c.a[pb], c.rank[pb]))
    edges.add(*_pairs(fork, _frame(team=team[members], dst=S.first(members)), "team"),
              "parallel region (fork)")
    bars = _barriers(c, S, team)
    edges.add(*_pairs(bars[["team", "k", "src"]], bars[["team", "k", "dst"]], ["team", "k"]),
              "barrier")
    # the barriers a late task can wait for: those the team leaves (not the last)
    after = bars[bars["dst"] >= 0]
    ends = after.assign(end=S.start_rank[after["dst"].to_numpy()]).groupby(
        ["team", "k"], as_index=False)["end"].min().sort_values("end")
    last = S.last(unjoined)
    late = _frame(team=team[unjoined], src=last, done=S.end_rank[np.maximum(last, 0)])
    late = late[(late["src"] >= 0) & (late["team"] != 0)].sort_values("done")
    if len(ends):
        late = pd.merge_asof(late, ends, left_on="done", right_on="end", by="team",
                             direction="forward")
    else:
        late = late.assign(k=np.nan)
    at_barrier = late[late["k"].notna()].astype({"k": np.int64})
    edges.add(*_pairs(at_barrier[["team", "k", "src"]], after[["team", "k", "dst"]], ["team", "k"]),
              "task joined at a barrier")
    pe = np.flatnonzero(c.kind == ev.PARALLEL_END)
    join = _frame(team=c.b[pe], dst=S.first_after(c.a[pe], c.rank[pe] - 1))
    ends_of_team = pd.concat([_frame(team=team[members], src=S.last(members)),
                              late[late["k"].isna()][["team", "src"]]])
    edges.add(*_pairs(ends_of_team, join, "team"), "parallel region (join)")


def _initial_and_fini(c: _Columns) -> tuple[int, int]:
    init = np.flatnonzero((c.kind == ev.IMPLICIT_BEGIN) & ((c.x & _INITIAL) != 0))
    fini = np.flatnonzero(c.kind == ev.FINI)
    if not init.size or not fini.size:
        raise TraceFileError("the trace has no program start or end event")
    return int(c.a[init[0]]), int(c.t[fini[-1]])


def _counts(c: _Columns, explicit: np.ndarray) -> dict:
    done = (c.kind == ev.TASK_SCHEDULE) & _among(c.x, _BODY_DONE)
    is_explicit = np.zeros(c.n_ids, bool)
    is_explicit[explicit] = True
    ended = c.a[done]
    seen = np.zeros(c.n_ids, bool)
    seen[ended[is_explicit[ended]]] = True
    # a `taskwait depend` is a wait, though the runtime reports it as a task creation
    taskwait_depend = len(c.taskwait_depend[0])
    return {
        "create_task": int(np.count_nonzero(c.kind == ev.TASK_CREATE)) - taskwait_depend,
        "wait_tasks": int(np.count_nonzero(
            (c.kind == ev.SYNC_BEGIN) & _among(c.x, (_TASKWAIT, _TASKGROUP)))) + taskwait_depend,
        "end_task": int(np.count_nonzero(seen)),
    }


def _check_edges(S: _Strands, edges: _Edges, src, dst) -> None:
    back = S.end_t[src] > S.start_t[dst]
    if back.any():
        i = int(np.flatnonzero(back)[0])
        raise UnsupportedConstruct(
            f"{int(back.sum())} dependency edge(s) point backwards in time, e.g. a "
            f"{edges.construct_of(i)} edge: strand {src[i]} ends at {S.end_t[src[i]]} ns "
            f"after strand {dst[i]} starts at {S.start_t[dst[i]]} ns"
        )


def _check_team_size(c: _Columns, initial: int, n_workers: int) -> None:
    """Refuse a run whose largest team had fewer threads than its workers: the missing
    workers' time would be booked as the others' delay and idling (a ``num_threads(1)``
    clause, ``OMP_THREAD_LIMIT`` or ``omp_set_num_threads`` below ``OMP_NUM_THREADS``)."""
    regions = c.b[(c.kind == ev.IMPLICIT_BEGIN) & (c.a != initial)]  # a region's id once per member
    largest = int(np.unique(regions, return_counts=True)[1].max()) if regions.size else 1  # none: the initial thread
    if largest < n_workers:
        where = (f"its largest OpenMP team had {largest} thread{'s' * (largest != 1)}" if regions.size
                 else "it opened no parallel region, so 1 thread ran it")
        raise UnsupportedConstruct(
            f"{where} but the run had {n_workers} workers (a num_threads clause, OMP_THREAD_LIMIT or "
            f"omp_set_num_threads below OMP_NUM_THREADS?): record it with that many workers"
        )


def _convert(events: Events, n_workers):
    from ..trace import TaskTrace

    c = _columns(events)
    initial, t_fini = _initial_and_fini(c)
    team, members = _teams(c, initial)
    S = _strands(c, _running(c, initial), initial, t_fini)
    edges = _Edges()
    child, joined = _task_edges(c, S, edges)
    _team_edges(c, S, edges, team, members, child[~joined])
    src, dst = edges.arrays()
    _check_edges(S, edges, src, dst)
    # Renumber workers densely: runtime helper threads that ran no strand don't count.
    used, worker = np.unique(S.w, return_inverse=True)
    if n_workers is None:
        n_workers = len(used)
    if len(used) > n_workers:
        raise UnsupportedConstruct(
            f"{len(used)} threads ran tasks but the run had {n_workers} workers"
        )
    _check_team_size(c, initial, n_workers)
    counts = _counts(c, child)
    _check_tasks_ended(counts)
    return TaskTrace(start=S.start_t.astype(np.float64), end=S.end_t.astype(np.float64),
                     worker=worker.astype(np.int64), edge_src=src, edge_dst=dst,
                     n_workers=int(n_workers), **counts)


def _check_tasks_ended(counts: dict) -> None:
    """Refuse a run in which a created task never ended: its work and its part of the
    DAG are missing. With one worker, ``exit()`` inside a task still shuts the runtime
    down and writes a trace (with more, it does not, and :func:`run_traced` says so),
    so the missing end is the only sign (helper-76)."""
    missing = counts["create_task"] - counts["end_task"]
    if missing > 0:
        raise UnsupportedConstruct(
            f"{missing} of its {counts['create_task']} tasks never ended (exit() inside a task?): record runs "
            "that finish every task they create"
        )


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
        an edge points backwards in time (a clock or runtime the tool cannot handle);
        :class:`UnsupportedConstruct` (a :class:`TraceFileError`) names the construct.
        The message starts with the events' source.

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
    try:
        return _convert(events, n_workers)
    except TraceFileError as exc:
        raise type(exc)(f"{events.source}: {exc}") from None
