"""Progress reporting: silent unless asked for, steps named and counted."""

import io

from probperf import progress


def test_tasks_print_nothing_without_a_reporter(capsys):
    with progress.task("fit DAG components", total=2) as step:
        step("work")
        step("delay")
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_steps_name_what_runs_and_count_what_is_done():
    seen = []
    with progress.reporting(file=io.StringIO()):
        with progress.task("fit DAG components", total=2) as step:
            for name in ("work", "delay"):
                step(name)
                bar = progress._PROGRESS.get().tasks[0]
                seen.append((bar.description, bar.completed, bar.total))
        assert progress._PROGRESS.get().tasks == []  # the finished task is removed
    assert seen == [("fit DAG components: work", 0, 2), ("fit DAG components: delay", 1, 2)]
    assert progress._PROGRESS.get() is None


def test_disabled_reporting_installs_no_reporter():
    with progress.reporting(enabled=False):
        assert progress._PROGRESS.get() is None


def test_a_reporter_inside_another_joins_its_bars():
    # one display at a time: rich refuses a second live display
    with progress.reporting(file=io.StringIO()):
        outer = progress._PROGRESS.get()
        with progress.reporting(file=io.StringIO()):
            assert progress._PROGRESS.get() is outer
    assert progress._PROGRESS.get() is None


def test_the_simulator_reports_each_run_inside_an_outer_reporter(monkeypatch):
    from probperf.sim import datasets

    labels = []
    real = datasets._rep_rows

    def spy(dag, pts, cfg, seed_of, machine, scheduler, step):
        def named(label):
            step(label)
            labels.append(progress._PROGRESS.get().tasks[0].description)
        return real(dag, pts, cfg, seed_of, machine, scheduler, named)

    monkeypatch.setattr(datasets, "_rep_rows", spy)
    with progress.reporting(file=io.StringIO()):
        datasets.simulate_runs("fib", [(12, 1, {}, None), (12, 2, {}, None)], progress=True)
    assert labels == ["simulating fib: n=12, p=1", "simulating fib: n=12, p=2"]


def test_off_a_terminal_nothing_but_results_is_printed(tmp_path):
    # `probperf sim run ... > log`: no bar and no blank line on either stream
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "probperf", "sim", "run", "--app", "fib", "--n", "12,13", "--p", "1,2",
                          "-o", str(tmp_path / "runs.csv")], capture_output=True, text=True)
    assert res.returncode == 0
    assert res.stdout == f"wrote 4 runs of fib to {tmp_path / 'runs.csv'}\n"
    assert "\n\n" not in "\n" + res.stderr, res.stderr  # no blank line left by a bar
