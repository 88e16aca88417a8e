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
