"""probperf.trace: DAG Recorder metrics from strand events."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probperf.trace import TaskTrace, critical_path, dag_metrics, profile_integrals, ready_times


# -- an independent reference: evaluate R, A at the midpoint of every piece ------------


def brute_force(start, end, src, dst, n_workers):
    m = len(start)
    t0 = min(start)
    ready = [t0] * m
    for s, d in zip(src, dst):
        ready[d] = max(ready[d], end[s])
    points = sorted(set(start) | set(end) | set(ready))
    work = delay = no_work = 0.0
    for a, b in zip(points[:-1], points[1:]):
        mid = (a + b) / 2
        running = sum(1 for i in range(m) if start[i] <= mid < end[i])
        waiting = sum(1 for i in range(m) if ready[i] <= mid < start[i])
        work += running * (b - a)
        delay += min(waiting, n_workers - running) * (b - a)
        no_work += max(0, n_workers - running - waiting) * (b - a)
    # longest path by strand durations, nodes in index order (edges go forward)
    longest = [0.0] * m
    preds = [[] for _ in range(m)]
    for s, d in zip(src, dst):
        preds[d].append(s)
    order = sorted(range(m), key=lambda i: (start[i], end[i]))
    for i in order:
        longest[i] = (end[i] - start[i]) + max((longest[j] for j in preds[i]), default=0.0)
    return dict(time=max(end) - t0, work=work, delay=delay, no_work=no_work,
                critical_path=max(longest))


@st.composite
def traces(draw, integer=True):
    """A random DAG (edges i -> j, i < j) and a valid schedule of it."""
    m = draw(st.integers(1, 10))
    w = draw(st.integers(1, 4))
    edges = [(i, j) for j in range(m) for i in range(j) if draw(st.booleans())]
    num = st.integers(0, 4) if integer else st.floats(0, 4, allow_nan=False)
    free = [0.0] * w
    start, end, worker = [], [], []
    for j in range(m):
        ready = max([end[i] for i, k in edges if k == j], default=0.0)
        k = draw(st.integers(0, w - 1))
        s = float(max(ready, free[k]) + draw(num))
        e = s + float(draw(num))
        start.append(s)
        end.append(e)
        worker.append(k)
        free[k] = e
    src = [i for i, _ in edges]
    dst = [j for _, j in edges]
    return TaskTrace(start, end, worker, src, dst, w, create_task=len(edges), wait_tasks=1,
                     end_task=m)


@settings(max_examples=150, deadline=None)
@given(traces())
def test_metrics_match_brute_force_and_identity_is_exact(trace):
    got = dag_metrics(trace)
    ref = brute_force(trace.start.tolist(), trace.end.tolist(), trace.edge_src.tolist(),
                      trace.edge_dst.tolist(), trace.n_workers)
    for key, value in ref.items():
        assert got[key] == value, key
    # integer times: the identity holds bit for bit
    assert got["work"] + got["delay"] + got["no_work"] == trace.n_workers * got["time"]
    assert got["create_task"] == trace.create_task and got["end_task"] == trace.end_task


@settings(max_examples=60, deadline=None)
@given(traces(integer=False))
def test_float_times_match_brute_force(trace):
    got = dag_metrics(trace)
    ref = brute_force(trace.start.tolist(), trace.end.tolist(), trace.edge_src.tolist(),
                      trace.edge_dst.tolist(), trace.n_workers)
    for key, value in ref.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    total = got["work"] + got["delay"] + got["no_work"]
    assert total == pytest.approx(trace.n_workers * got["time"], rel=1e-12, abs=1e-12)


def test_hand_computed_fork_join():
    # 0 forks 1 and 2; 3 joins them. Worker 1 idles before 2 starts and after it ends.
    t = TaskTrace(start=[0, 1, 3, 6], end=[1, 6, 4, 8], worker=[0, 0, 1, 0],
                  edge_src=[0, 0, 1, 2], edge_dst=[1, 2, 3, 3], n_workers=2)
    m = dag_metrics(t)
    # time 8; work 1+5+1+2 = 9; strand 2 ready at 1, started at 3: 2 of delay;
    # no_work = 16 - 9 - 2 = 5 (worker 1 idle on [0,1], [4,6], [6,8])
    assert (m["time"], m["work"], m["delay"], m["no_work"]) == (8.0, 9.0, 2.0, 5.0)
    assert m["critical_path"] == 8.0  # 0 -> 1 -> 3 = 1 + 5 + 2
    assert ready_times(t).tolist() == [0.0, 1.0, 1.0, 6.0]


def test_profile_integrals_counts_roots_ready_at_trace_start():
    # three roots on one worker, run back to back: the later ones wait (delay 0: no
    # free worker), the profile has no idle time
    work, delay, no_work, elapsed = profile_integrals([0, 2, 5], [2, 5, 6], [0, 0, 0], 1)
    assert (work, delay, no_work, elapsed) == (6.0, 0.0, 0.0, 6.0)
    # on 3 workers the waiting strands are delay: 2 (strand 1) + 5 (strand 2)
    work, delay, no_work, elapsed = profile_integrals([0, 2, 5], [2, 5, 6], [0, 0, 0], 3)
    assert (work, delay, no_work) == (6.0, 7.0, 18 - 6 - 7.0)


def test_critical_path_of_a_long_chain_is_its_total():
    m = 50_000
    dur = np.arange(m, dtype=float) % 7
    end = np.cumsum(dur)
    start = end - dur
    t = TaskTrace(start, end, np.zeros(m, int), np.arange(m - 1), np.arange(1, m), 1)
    assert critical_path(t) == dur.sum()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(end=[1.0]), "has 1 entries, expected 2"),
        (dict(end=[1.0, 1.5]), "strand 1 ends before it starts"),
        (dict(start=[0.0, 0.5], end=[1.0, 3.0]), "strand 1 starts before it is ready"),
        (dict(edge_src=[0], edge_dst=[5]), "edge_dst\\[0\\] = 5 is not a strand index"),
        (dict(worker=[0, 3]), "worker\\[1\\] = 3 is outside 0..1"),
        (dict(n_workers=0), "n_workers must be a positive integer"),
        (dict(edge_src=[1], edge_dst=[1]), "self-loop"),
        (dict(start=[0.0, float("nan")]), "start\\[1\\] is not finite"),
    ],
)
def test_bad_traces_are_rejected_with_a_clear_message(kwargs, message):
    base = dict(start=[0.0, 2.0], end=[1.0, 3.0], worker=[0, 1], edge_src=[0], edge_dst=[1],
                n_workers=2)
    with pytest.raises(ValueError, match=message):
        dag_metrics(TaskTrace(**{**base, **kwargs}))


def test_more_running_strands_than_workers_is_rejected():
    # a worker runs one strand at a time: two at once on one worker is refused by the
    # worker (helper-71: with a second worker idle, the overlap was counted as work)
    t = TaskTrace([0.0, 0.0], [2.0, 2.0], [0, 0], [], [], 1)
    with pytest.raises(ValueError, match=r"^worker 0 runs strands 0 and 1 at once \(strand 1 starts at 0, "
                                         r"before strand 0 ends at 2\)$"):
        dag_metrics(t)
    t = TaskTrace([0.0, 1.0, 5.0], [3.0, 4.0, 6.0], [1, 1, 0], [0, 1], [2, 2], 2)
    with pytest.raises(ValueError, match=r"^worker 1 runs strands 0 and 1 at once \(strand 1 starts at 1, "):
        dag_metrics(t)
    ok = dag_metrics(TaskTrace([0.0, 1.0, 5.0], [3.0, 4.0, 6.0], [1, 0, 0], [0, 1], [2, 2], 2))
    assert (ok["work"], ok["time"]) == (7.0, 6.0)
    # a strand of no length at the instant another starts, in either order: no clash
    for order in ([1.0, 3.0], [3.0, 1.0]):
        both = dag_metrics(TaskTrace([1.0, 1.0], order, [0, 0], [], [], 1))
        assert both["work"] == 2.0
    # a strand that ends before it starts is named as that, not as a clash
    with pytest.raises(ValueError, match="strand 1 ends before it starts"):
        dag_metrics(TaskTrace([0.0, 3.0], [5.0, 1.0], [0, 0], [], [], 1))


def test_the_profile_alone_refuses_more_running_strands_than_workers():
    # profile_integrals has no worker ids: it counts the strands running at once
    from probperf.trace import profile_integrals

    with pytest.raises(ValueError, match=r"2 strands run at once .* only n_workers=1"):
        profile_integrals([0.0, 0.0], [2.0, 2.0], [0.0, 0.0], 1)
    assert profile_integrals([0.0, 0.0], [2.0, 2.0], [0.0, 0.0], 2) == (4.0, 0.0, 0.0, 2.0)


def test_zero_length_cycle_is_rejected():
    t = TaskTrace([1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0, 1, 0], [2, 0, 1], [0, 1, 0], 2)
    with pytest.raises(ValueError, match="cycle"):
        dag_metrics(t)


def test_empty_trace_is_rejected():
    with pytest.raises(ValueError, match="no strands"):
        profile_integrals([], [], [], 2)
