"""probperf.sim: DAG builders, scheduler simulation, datasets and the sim CLI."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from probperf import sim
from probperf.sim import Machine, build, simulate
from probperf.trace import dag_metrics

SMALL = {
    "fib": (16, dict(cutoff=5)),
    "nqueens": (7, dict(cutoff=2)),
    "sort": (8192, dict(quick_cutoff=256, merge_cutoff=256, insertion_cutoff=16)),
    "fft": (1024, {}),
    "sparselu": (6, dict(block=8)),
    "strassen": (256, dict(cutoff=32, depth=2)),
    "farm": (40, dict(chunk=3)),
}


def metrics(app, p, machine, scheduler, seed=0):
    n, cfg = SMALL[app]
    return dag_metrics(simulate(build(app, n, **cfg), p, machine, scheduler, seed))


# -- DAG builders -------------------------------------------------------------------


@pytest.mark.parametrize("app", sorted(SMALL))
def test_builders_make_valid_fork_join_dags(app):
    n, cfg = SMALL[app]
    dag = build(app, n, **cfg).validate()
    counts = dag.counts()
    assert counts["end_task"] == dag.n_tasks
    assert counts["create_task"] == dag.n_tasks - 1
    src, dst = dag.edges()
    # every strand but the root's first has a predecessor
    assert np.setdiff1d(np.arange(dag.n_segments), dst).tolist() == [0]


def test_task_counts_follow_closed_forms():
    # fib with a depth cutoff below the tree's shortest branch: full binary tree
    assert build("fib", 30, cutoff=6).n_tasks == 2**7 - 1
    # strassen: 7 children per level for `depth` levels above the size cutoff
    assert build("strassen", 1024, cutoff=64, depth=3).n_tasks == 1 + 7 + 49 + 343
    # farm: one task per chunk, a single wait
    d = build("farm", 100, chunk=7)
    assert d.counts() == {"create_task": 15, "wait_tasks": 1, "end_task": 16}
    # nqueens: tasks at row 1 are the n first-row placements; row 2 the safe pairs
    assert build("nqueens", 6, cutoff=1).n_tasks == 1 + 6
    # second row: all columns but the queen's own and its diagonal neighbours
    # (one neighbour for the 2 edge columns, two for the 4 inner ones)
    assert build("nqueens", 6, cutoff=2).n_tasks == 1 + 6 + (2 * 4 + 4 * 3)
    # sort: n < quick_cutoff is a single serial task
    assert build("sort", 100, quick_cutoff=512).n_tasks == 1


def test_nqueens_searches_the_same_positions_whatever_the_cutoff():
    # the leaves (one-strand tasks: an inner task has at least a wait and an end) share
    # the full search's positions, so the cut-off moves only tasks and overheads
    full = sim.apps.QUEENS_NODE * 10 ** (0.69 * 10 - 2.2)
    for cutoff in range(5):
        dag = build("nqueens", 10, cutoff=cutoff)
        strands = np.diff(dag.seg_ptr)
        leaf = strands[dag.segment_task()] == 1
        assert dag.cost[leaf].sum() == pytest.approx(full, rel=1e-12), cutoff
    # and the whole work grows only by the tasks' overheads: under 1 % up to cut-off 4
    works = [build("nqueens", 12, cutoff=c).cost.sum() for c in range(5)]
    assert max(works) / min(works) < 1.01


def test_leaf_costs_follow_operation_counts():
    # serial fib(k) makes 2 F(k+1) - 1 calls; with cutoff 0 the root is the only task
    d = build("fib", 20, cutoff=0)
    assert d.cost.tolist() == [sim.apps.FIB_CALL * (2 * 10946 - 1)]
    # a sort below the quicksort cutoff: k log2(k / runs) comparisons + insertion
    k, runs = 256, 16
    want = sim.apps.SORT_CMP * k * math.log2(k / runs) + sim.apps.INSERT_CMP * k * runs / 4
    assert build("sort", k, quick_cutoff=512, insertion_cutoff=runs).cost.tolist() == [want]
    # sparselu on one block: only the main task, factorising it (2/3 m^3 flops)
    d = build("sparselu", 1, block=30)
    assert d.n_tasks == 1 and d.cost.sum() == pytest.approx(sim.apps.FLOP * 30**3 * 2 / 3 + 30)


def test_bad_program_parameters_are_rejected():
    with pytest.raises(ValueError, match="power of two"):
        build("fft", 1000)
    with pytest.raises(ValueError, match="no configuration parameter"):
        build("sort", 1024, cutof=3)
    with pytest.raises(ValueError, match="unknown program 'nope'"):
        build("nope", 10)
    with pytest.raises(ValueError, match="quick_cutoff must be an integer >= 4"):
        build("sort", 1024, quick_cutoff=2)



def test_dag_segment_limit_admits_exactly_its_count(monkeypatch):
    """A DAG of exactly MAX_SIM_SEGMENTS segments builds; one segment fewer allowed
    and it is refused, naming the program and its parameters."""
    from probperf import limits

    segments = build("fib", 10, cutoff=3).cost.size
    monkeypatch.setattr(limits, "MAX_SIM_SEGMENTS", segments)
    assert build("fib", 10, cutoff=3).cost.size == segments
    monkeypatch.setattr(limits, "MAX_SIM_SEGMENTS", segments - 1)
    with pytest.raises(ValueError, match=rf"^fib\(n=10, cutoff=3\) grows past {segments - 1} segments"):
        build("fib", 10, cutoff=3)


def test_a_dag_past_the_segment_limit_fails_before_any_run(monkeypatch):
    """The largest DAG is built first: the small ones are not simulated only to be
    thrown away (the rows still come back in the order of the points)."""
    from probperf import limits
    from probperf.sim import datasets

    monkeypatch.setattr(limits, "MAX_SIM_SEGMENTS", build("fib", 12, cutoff=20).cost.size)
    ran = []
    monkeypatch.setattr(datasets, "simulate", lambda *a, **k: ran.append(a) or None)
    with pytest.raises(ValueError, match=r"^fib\(n=14, cutoff=20\) grows past"):
        datasets.simulate_runs("fib", [(12, 1, {"cutoff": 20}, None), (14, 1, {"cutoff": 20}, None)])
    assert ran == []

def test_every_protocol_dag_at_the_largest_scale_fits_the_segment_limit():
    """MAX_SIM_SEGMENTS refuses run-away cut-offs, never a size MAX_SIM_SCALE admits
    with the protocol's configurations."""
    from probperf.sim.datasets import max_size
    from probperf.limits import MAX_SIM_SEGMENTS

    for app, spec in sim.PROTOCOL.items():
        values = spec["vary"][1] if spec["vary"] else [None]
        for value in values:
            cfg = dict(spec["config"], **({spec["vary"][0]: value} if value is not None else {}))
            assert build(app, max_size(app), **cfg).cost.size <= MAX_SIM_SEGMENTS, (app, cfg)

# -- schedulers ---------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", ["greedy", "ws"])
@pytest.mark.parametrize("app", sorted(SMALL))
def test_one_worker_without_overheads_has_no_delay_or_idle(app, scheduler):
    n, cfg = SMALL[app]
    dag = build(app, n, **cfg)
    m = dag_metrics(simulate(dag, 1, Machine.ideal(), scheduler, seed=3))
    assert m["delay"] == 0 and m["no_work"] == 0
    assert m["time"] == m["work"] == np.rint(dag.cost).sum()


@pytest.mark.parametrize("p", [2, 3, 7, 36])
@pytest.mark.parametrize("app", sorted(SMALL))
def test_greedy_schedules_obey_graham_bounds(app, p):
    m = metrics(app, p, Machine(), "greedy", seed=p)
    t1, tinf, time = m["work"], m["critical_path"], m["time"]
    assert max(t1 / p, tinf) <= time <= t1 / p + tinf
    assert m["delay"] == 0  # greedy: never a ready strand beside a free worker
    assert m["work"] + m["delay"] + m["no_work"] == p * time


@pytest.mark.parametrize("app", ["fib", "sort", "sparselu", "farm"])
def test_greedy_with_a_worker_per_strand_runs_at_the_critical_path(app):
    n, cfg = SMALL[app]
    dag = build(app, n, **cfg)
    m = dag_metrics(simulate(dag, dag.n_segments, Machine(), "greedy", seed=1))
    assert m["time"] == m["critical_path"]


@settings(max_examples=25, deadline=None)
@given(app=st.sampled_from(sorted(SMALL)), p=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_work_stealing_traces_are_valid_and_identity_is_exact(app, p, seed):
    m = metrics(app, p, Machine(), "ws", seed)
    assert m["work"] + m["delay"] + m["no_work"] == p * m["time"]
    assert m["time"] >= max(m["critical_path"], m["work"] / p)
    n, cfg = SMALL[app]
    assert m["create_task"] == build(app, n, **cfg).n_tasks - 1


def test_overheads_show_up_as_delay_on_one_worker():
    dag = build("fib", 16, cutoff=5)
    machine = Machine.ideal(create_overhead=100.0, wait_overhead=40.0)
    m = dag_metrics(simulate(dag, 1, machine, "ws", seed=0))
    c = dag.counts()
    # every creation (child and continuation ready) and every wait whose children are
    # done (the continuation ready) leave a ready strand unrun: pure delay
    assert m["delay"] == 100.0 * c["create_task"] + 40.0 * c["wait_tasks"]
    assert m["no_work"] == 0
    # overheads are taken in whole cycles: 100.4 is 100 (helper-83: a fraction broke the
    # event keys, an IndexError on several workers)
    frac = Machine.ideal(create_overhead=100.4, wait_overhead=40.0, steal_latency=2000.5, steal_attempt=399.6)
    assert dag_metrics(simulate(dag, 1, frac, "ws", seed=0))["delay"] == m["delay"]
    several = dag_metrics(simulate(dag, 3, frac, "ws", seed=1))
    assert several["work"] + several["delay"] + several["no_work"] == 3 * several["time"]


def test_fixed_seeds_reproduce_and_different_seeds_differ():
    dag = build("sort", 8192, quick_cutoff=256, merge_cutoff=256, insertion_cutoff=16)
    a = simulate(dag, 8, Machine(), "ws", seed=11)
    b = simulate(dag, 8, Machine(), "ws", seed=11)
    c = simulate(dag, 8, Machine(), "ws", seed=12)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.worker, b.worker)
    assert not np.array_equal(a.end, c.end)


def test_contention_inflates_work_with_busy_workers():
    m = Machine()
    assert m.inflation(1, footprint=1e9, memory_bound=0.5)[1] == 1.0
    f = m.inflation(36, footprint=1e9, memory_bound=0.5)
    assert np.all(np.diff(f[1:]) > 0)
    # closed form at b = 36 (all busy) with pressure = 0.5 + 0.5 * 1e9 / (1e9 + 9e7)
    pressure = m.coherence + (1 - m.coherence) * 1e9 / (1e9 + m.cache_bytes)
    terms = m.share_inflation * 35 / 36 + m.worker_inflation * 35 + m.numa_inflation * 18 / 36
    assert f[36] == pytest.approx(1 + 0.5 * pressure * terms)


def test_bad_simulation_arguments_are_rejected():
    dag = build("fib", 10, cutoff=2)
    with pytest.raises(ValueError, match="p \\(workers\\) must be a positive integer"):
        simulate(dag, 0)
    with pytest.raises(ValueError, match="unknown scheduler"):
        simulate(dag, 2, scheduler="fifo")
    with pytest.raises(ValueError, match="Machine.steal_latency must be finite and >= 0"):
        Machine(steal_latency=-1)
    # streams keyed by 32 bits of the seed: 2**32 gave seed 0's table, -1 that of 2**32 - 1
    for seed in (2**32, -1, 1.5, True):
        with pytest.raises(ValueError, match=r"seed must be a whole number from 0 to 2\*\*32 - 1"):
            sim.generate("fib", [10], [1], seed=seed)
    assert len(sim.generate("fib", [10], [1], seed=np.int64(2**32 - 1))) == 1


# -- datasets and the effects the papers report --------------------------------------


@pytest.fixture(scope="module")
def effects():
    # sparselu at small n has little parallelism; fib at cutoff 10 much more
    low = sim.generate("sparselu", [10], [1, 4, 12, 36], config={"block": 20}, seed=5)
    tasks = sim.generate("fib", [28], [1, 4, 12, 36], config={"cutoff": 10}, seed=5)
    return low.frame, tasks.frame


def test_work_grows_with_workers(effects):
    for frame in effects:
        work = frame.set_index("p")["work"]
        # contention: a few % more work on 36 workers (run-to-run noise is ~1 %)
        assert work[36] > 1.03 * work[1]
        assert work[36] > work[4] > work[1]
        assert (frame["serial_work"] == work[1]).all()


def test_no_work_grows_faster_than_linearly_for_low_parallelism(effects):
    no_work = effects[0].set_index("p")["no_work"]
    assert no_work[1] == 0
    # (p-1)^2 growth would give (35/11)^2 ~ 10; linear growth 35/11 ~ 3.2
    assert no_work[36] / no_work[12] > 35 / 11


def test_delay_per_created_task_grows_with_workers_while_steals_spread(effects):
    low, tasks = ((f["delay"] / f["create_task"]).to_numpy() for f in effects)
    # ample parallelism: more workers steal a larger share of the continuations
    assert np.all(np.diff(tasks) > 0), tasks
    # scarce parallelism: from 4 workers on nearly every continuation is stolen once,
    # at a cost (latency + about one probe round of the idle thieves) that does not
    # grow with p; the single worker only pays its overheads
    assert low[1] > 5 * low[0]
    assert np.all(np.abs(low[2:] / low[1] - 1) < 0.2), low


def test_idle_thieves_find_a_lone_continuation_at_once():
    # a farm hands its loop from thief to thief: each hand-off costs a steal latency
    # plus about one probe round of the idle thieves, whatever p; before 2026-11-29 the
    # woken thief searched alone (~p-1 probes) and the farm slowed from 36 to 256
    # workers (7.4 -> 17.6 ms)
    t = sim.generate("farm", [2048], [36, 64, 256], seed=0).frame["time"].to_numpy()
    assert t[0] > t[1] > t[2], t
    m = sim.Machine()
    hand_off = 2048 * (m.steal_latency + m.create_overhead) / m.clock_hz
    assert hand_off < t[2] < hand_off + 2048 * 3 * m.steal_attempt / m.clock_hz, (t, hand_off)


def test_dataset_protocol_layout():
    m = sim.dataset("nqueens", "B", scale=0.75, seed=2)
    f = m.frame
    assert m.config == ["cutoff"]
    assert list(f.columns) == ["n", "p", "cutoff", "time", "work", "delay", "no_work",
                               "critical_path", "create_task", "wait_tasks", "end_task",
                               "serial_work", "split"]
    splits = f.groupby("split")
    assert set(splits.groups) == {"train", "test1", "test2", "test3"}
    assert splits["p"].max()["train"] == 16 and splits["p"].min()["test2"] == 32
    assert splits["n"].max()["train"] < splits["n"].min()["test1"]
    assert f["cutoff"].nunique() == 3
    np.testing.assert_allclose(m.identity_residual(), 0, atol=1e-12)
    again = sim.dataset("nqueens", "B", scale=0.75, seed=2).frame
    pd.testing.assert_frame_equal(f, again)


def test_dataset_a_splits_and_bad_requests():
    f = sim.dataset("fib", "A", scale=0.7, seed=0).frame
    assert sorted(f[f.split == "train"]["p"].unique()) == list(range(1, 9))
    assert sorted(f[f.split == "test"]["p"].unique()) == [28, 32, 36]
    with pytest.raises(ValueError, match="which must be 'A' or 'B'"):
        sim.dataset("fib", "C")
    with pytest.raises(ValueError, match="no dataset protocol for 'x'"):
        sim.dataset("x")


# -- CLI ----------------------------------------------------------------------------


def test_cli_run_writes_a_readable_table(tmp_path):
    from probperf.cli import app
    from probperf.formats import read

    out = tmp_path / "runs.csv"
    res = CliRunner().invoke(app, ["sim", "run", "--app", "fib", "--n", "18,20", "--p", "1..3",
                                   "--set", "cutoff=3,4", "--reps", "2", "--seed", "7",
                                   "-o", str(out)])
    assert res.exit_code == 0, res.output
    m = read(out, config=["cutoff"])
    assert len(m) == 2 * 3 * 2 * 2
    assert sorted(m.frame["p"].unique()) == [1, 2, 3]


@pytest.mark.parametrize("args, message", [
    (["--app", "nope", "--n", "10"], "unknown program"),
    (["--app", "fib", "--n", "10", "--p", "0"], "worker counts must be >= 1"),
    (["--app", "fib", "--n", "x"], "cannot read 'x'"),
    (["--app", "fib", "--n", "10", "--set", "depth=3"], "no configuration parameter 'depth'"),
    (["--app", "fft", "--n", "100"], "power of two"),
])
def test_cli_run_bad_input_exits_2_without_output(tmp_path, args, message):
    from probperf.cli import app

    out = tmp_path / "runs.csv"
    res = CliRunner().invoke(app, ["sim", "run", *args, "-o", str(out)])
    assert res.exit_code == 2
    assert message in res.output.replace("\n", " ")
    assert not out.exists()


def test_cli_run_refuses_a_missing_directory_as_every_output_does(tmp_path):
    # a typo in the directory is not a directory to make (docs/tutorials/your-data.md)
    from probperf.cli import app

    out = tmp_path / "typo" / "runs.csv"
    res = CliRunner().invoke(app, ["sim", "run", "--app", "fib", "--n", "10", "--p", "1", "-o", str(out)])
    assert res.exit_code == 2
    assert res.output.replace("\n", "").strip() == f"error: -o {out}: directory {out.parent} does not exist"
    assert not out.parent.exists()


def test_cli_datasets_writes_a_and_b(tmp_path):
    from probperf.cli import app

    res = CliRunner().invoke(app, ["sim", "datasets", "-o", str(tmp_path / "d"), "--apps",
                                   "nqueens", "--scale", "0.7"])
    assert res.exit_code == 0, res.output
    assert sorted(x.name for x in (tmp_path / "d").iterdir()) == ["nqueens_A.csv", "nqueens_B.csv"]



@pytest.mark.parametrize("sizes", ["2^4..2^6", "2**4..2^6", "2 ^ 4..2 ^ 6"])
def test_cli_run_caret_power_ranges_are_powers(tmp_path, sizes):
    """``2^4..2^6`` is read as ``2**4..2**6``: the three powers, not the 49 integers
    16..64 (the help writes the powers 2^16, 2^17, 2^18)."""
    from probperf.cli import app
    from probperf.formats import read

    out = tmp_path / "runs.csv"
    res = CliRunner().invoke(app, ["sim", "run", "--app", "sort", "--n", sizes, "--p", "1", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(read(out).frame["n"]) == [16, 32, 64]


def test_cli_datasets_checks_every_table_before_simulating(tmp_path):
    """A target that cannot be written fails before anything is simulated or written
    (it once wrote nqueens_A.csv, then failed on nqueens_B.csv)."""
    from probperf.cli import app

    def datasets(out):
        res = CliRunner().invoke(app, ["sim", "datasets", "-o", str(out), "--apps", "nqueens", "--scale", "0.7"])
        assert res.exit_code == 2 and "dataset A" not in res.output, res.output
        return res.output.replace("\n", "").strip()

    (tmp_path / "d" / "nqueens_B.csv").mkdir(parents=True)
    assert datasets(tmp_path / "d") == f"error: -o {tmp_path / 'd' / 'nqueens_B.csv'}: is a directory; give a file name"
    assert [x.name for x in (tmp_path / "d").iterdir()] == ["nqueens_B.csv"]
    (tmp_path / "f").write_text("")
    assert datasets(tmp_path / "f" / "d") == (f"error: -o {tmp_path / 'f' / 'd'}: lies under {tmp_path / 'f'}, "
                                              "which exists and is not a directory")

def test_cli_datasets_simulates_a_program_named_twice_once(tmp_path):
    from probperf.cli import app

    res = CliRunner().invoke(app, ["sim", "datasets", "-o", str(tmp_path / "d"), "--apps", "nqueens, nqueens",
                                   "--scale", "0.7"])
    assert res.exit_code == 0, res.output
    assert res.output.count("nqueens dataset A") == 1
    assert "wrote 2 tables" in res.output
    assert sorted(x.name for x in (tmp_path / "d").iterdir()) == ["nqueens_A.csv", "nqueens_B.csv"]


def test_generate_refuses_worker_counts_that_are_not_whole():
    """2.5 workers (or True) is no run: refused, not truncated to 2 (or 1)."""
    for bad in (2.5, 0):
        with pytest.raises(ValueError, match="worker counts p must be whole numbers >= 1"):
            sim.generate("sort", [1024], [bad, 2])
    with pytest.raises(TypeError, match="^p takes numbers, got True$"):
        sim.generate("sort", [1024], [True, 2])


def test_the_simulators_python_inputs_are_named_when_wrong():
    # helper-82: these ended in Python's own words from deep inside the simulation, and
    # fib(1500) overflowed float64 (the CLI's size limit held only there)
    cases = [(lambda: sim.generate("fib", [10], [1], reps=2.0), ValueError, "reps must be a positive whole number, got 2.0"),
             (lambda: sim.generate("fib", [float("nan")], [1]), ValueError, "n must be finite, got nan"),
             (lambda: sim.generate("fib", ["10"], [1]), TypeError, "n takes numbers, got '10'"),
             (lambda: sim.generate("fib", [10], [2, 2]), ValueError, "p gives 2 twice; use reps="),
             (lambda: sim.generate("fib", [10], [2], config={"cutoff": [4, 4]}), ValueError, "cutoff gives 4 twice"),
             (lambda: sim.run("fib", 1500, p=1, cutoff=0, seed=0), ValueError,
              "fib: n = 1500 is above the largest size the simulator builds, 42 (MAX_SIM_SCALE")]
    for make, kind, said in cases:
        with pytest.raises(kind) as err:
            make()
        assert str(err.value).startswith(said)
    assert len(sim.generate("fib", 10, [1, 2])) == 2  # one size alone, as predict takes one point


def test_dataset_in_python_keeps_the_simulators_limits():
    """The CLI's limits held only there: dataset("fft", reps=10**6) simulated 57 million
    runs, scale=1e6 was taken (n = 4.3e9), scale=inf overflowed, a string compared."""
    from probperf.sim import dataset
    from probperf.sim.datasets import dataset_points

    with pytest.raises(ValueError, match=r"^fft: 57000000 runs \(1000000 per setting\), above the "
                                         r"limit 100000 \(MAX_SIM_RUNS\)$"):
        dataset("fft", reps=10**6)  # A: 6 sizes x 8 workers + 3 x 3 = 57 settings
    for bad in (1e6, float("inf"), "0.5", 0.0, True):
        with pytest.raises(ValueError, match=r"^scale must be a number above 0 and at most 16 \(MAX_SIM_SCALE\)"):
            dataset_points("sort", scale=bad)


@pytest.mark.parametrize("scheduler", ["greedy", "ws"])
def test_a_run_beyond_exact_whole_cycles_is_refused_by_either_scheduler(monkeypatch, scheduler):
    # strands of 2^52 cycles: the run passes 2^53, where float64 holds no whole number
    # exactly (the greedy scheduler gave 7.3e39 s without a word)
    from probperf.sim import schedule
    from probperf.sim.apps import fib
    from probperf.sim.machine import Machine

    monkeypatch.setattr(schedule, "strand_costs", lambda dag, machine, rng: np.full(dag.n_segments, 2.0**52))
    with pytest.raises(ValueError, match=f"beyond what the {'greedy' if scheduler == 'greedy' else 'work-stealing'} "
                                         "scheduler keeps exact"):
        schedule.simulate(fib(6, cutoff=2), 2, Machine.ideal(), scheduler=scheduler, seed=0)
