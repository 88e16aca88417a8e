"""The grid runner: worker death, failing fits, resume, crash-safe result files."""

import argparse
import hashlib
import os
import signal
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from probperf.runner import (
    ResultStore,
    add_cli_options,
    grid_options,
    parse_seeds,
    run_grid,
    task_key,
)


def fit_stub(task):
    """A stand-in for a fit: logs each call to a file (workers are other processes)."""
    with open(task["calls"], "a") as f:
        f.write(f"{task['i']}\n")
    if task.get("fail"):
        raise ValueError(f"singular matrix in task {task['i']}")
    victim = Path(task["calls"]).with_name("victim.pid")
    if task.get("victim") and not victim.exists():
        # First attempt: tell the test which process to kill, then run long enough
        # to be killed mid-fit. The retry (on a live worker) finds the file and runs.
        victim.write_text(str(os.getpid()))
        time.sleep(30)
    time.sleep(task.get("sleep", 0.0))
    return {"y": task["i"] ** 2, "pid": os.getpid()}


def calls(path):
    return [int(line) for line in Path(path).read_text().split()]


def make_tasks(tmp_path, count, extra=None):
    extra = extra or {}
    return [
        {"i": i, "sleep": 0.2, "calls": str(tmp_path / "calls.log"), **extra.get(i, {})}
        for i in range(count)
    ]


def test_grid_survives_killed_worker_records_errors_and_resumes(tmp_path):
    from distributed import Client, LocalCluster

    out = tmp_path / "grid.parquet"
    tasks = make_tasks(tmp_path, 12, {3: {"fail": True}, 6: {"victim": True}})
    victim_file = tmp_path / "victim.pid"
    killed = []

    def killer():
        deadline = time.time() + 25
        while time.time() < deadline and not victim_file.exists():
            time.sleep(0.05)
        time.sleep(0.1)  # let it settle into its sleep, mid-task
        pid = int(victim_file.read_text())
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
        silence_logs=50,
    ) as cluster:
        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        table = run_grid(tasks, fit_stub, out, scheduler=cluster.scheduler_address, progress=False)
        thread.join(timeout=5)
        assert killed, "the victim task never started"
        with Client(cluster) as client:
            worker_pids = client.run(os.getpid)

        # every task exactly once, in the order given
        assert table["i"].tolist() == list(range(12))
        assert table["key"].is_unique and len(pd.read_parquet(out)) == 12
        # the killed task ran twice (once on the dead worker) but is recorded once, ok
        log = calls(tmp_path / "calls.log")
        assert log.count(6) == 2
        row6 = table.set_index("i").loc[6]
        assert row6["status"] == "ok" and row6["y"] == 36 and row6["pid"] != killed[0]
        assert killed[0] not in worker_pids.values()
        # the failing fit is an error row with its message; the others are fine
        bad = table.set_index("i").loc[3]
        assert bad["status"] == "error"
        assert bad["error"].startswith("ValueError: singular matrix in task 3")
        ok = table[table["i"] != 3]
        assert (ok["status"] == "ok").all() and ok["error"].isna().all()
        assert ok["y"].tolist() == [i * i for i in range(12) if i != 3]
        # the parts were compacted away
        assert not (tmp_path / "grid.parquet.parts").exists()

        # re-run with two more tasks: only the new ones are called
        more = make_tasks(tmp_path, 14)[12:]
        before = len(calls(tmp_path / "calls.log"))
        again = run_grid(tasks + more, fit_stub, out, scheduler=cluster.scheduler_address, progress=False)
        assert sorted(calls(tmp_path / "calls.log")[before:]) == [12, 13]
        assert again["i"].tolist() == list(range(14))
        assert again.set_index("i").loc[:11, "y"].equals(table.set_index("i")["y"])


def test_embedded_cluster_gets_fresh_workers_every_restart_every_tasks(tmp_path):
    # one worker, a restart after every task: each task runs in a new process, and
    # without restarts all of them in the same one
    tasks = make_tasks(tmp_path, 3, {i: {"sleep": 0.0} for i in range(3)})
    table = run_grid(tasks, fit_stub, tmp_path / "a.parquet", n_workers=1, restart_every=1, progress=False)
    assert (table["status"] == "ok").all() and table["pid"].nunique() == 3
    table = run_grid(tasks, fit_stub, tmp_path / "b.parquet", n_workers=1, restart_every=None, progress=False)
    assert table["pid"].nunique() == 1 and table["pid"].iloc[0] != os.getpid()


def test_a_restart_that_times_out_gives_way_to_a_new_cluster(tmp_path, monkeypatch, caplog):
    # Dask's restart raising TimeoutError (a worker slow to come back) stopped a sweep
    # with a traceback: now a new cluster takes over, every task runs in a fresh process
    import distributed

    def slow(self, *args, **kwargs):
        raise TimeoutError("Waited for 1 worker(s) to reconnect after restarting")

    monkeypatch.setattr(distributed.Client, "restart", slow)
    tasks = make_tasks(tmp_path, 3, {i: {"sleep": 0.0} for i in range(3)})
    with caplog.at_level("WARNING", logger="probperf.runner"):
        table = run_grid(tasks, fit_stub, tmp_path / "a.parquet", n_workers=1, restart_every=1, progress=False)
    assert (table["status"] == "ok").all() and table["pid"].nunique() == 3
    assert caplog.text.count("restarting the workers failed") == 2


def test_resume_after_crash_merges_parts_and_ignores_partial_writes(tmp_path):
    out = tmp_path / "grid.parquet"
    tasks = make_tasks(tmp_path, 4)
    for t in tasks:
        t["sleep"] = 0.0
    store = ResultStore(out)
    # A crash after two results: their part files exist, a third write was cut short
    # (a temp file), and no final file was written.
    from probperf.runner import run_task

    for t in tasks[:2]:
        store.write(run_task(fit_stub, t, task_key(t)))
    (store.parts / ".junk.parquet.1234.tmp").write_bytes(b"PAR1 truncated")
    assert calls(tmp_path / "calls.log") == [0, 1]

    table = run_grid(tasks, fit_stub, out, scheduler="inline", progress=False)
    assert calls(tmp_path / "calls.log") == [0, 1, 2, 3]
    assert table["y"].tolist() == [0, 1, 4, 9]
    assert not store.parts.exists()


def _grid_of(out, tasks):
    run_grid(tasks, fit_stub, out, scheduler="inline", progress=False)


def test_two_runs_writing_one_file_at_once_keep_every_row(tmp_path):
    # helper-77: two grids of other tasks on one out file lost 2-4 of 45 rows (one run's
    # compaction deleted the parts the other wrote after its read) and one of them died
    # of a KeyError or a missing parts folder; writes and compactions now take turns
    import multiprocessing

    out = tmp_path / "grid.parquet"
    grids = [make_tasks(tmp_path, 12), [dict(t, i=t["i"] + 100) for t in make_tasks(tmp_path, 15)]]
    for grid in grids:
        for t in grid:
            t["sleep"] = 0.02
    procs = [multiprocessing.get_context("fork").Process(target=_grid_of, args=(out, g)) for g in grids]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [proc.exitcode for proc in procs] == [0, 0]
    assert sorted(pd.read_parquet(out)["y"]) == sorted(t["i"] ** 2 for g in grids for t in g)
    assert not ResultStore(out).parts.exists()


def test_duplicate_tasks_run_once_and_errors_rerun_on_request(tmp_path):
    out = tmp_path / "grid.parquet"
    task = make_tasks(tmp_path, 1, {0: {"fail": True, "sleep": 0.0}})[0]
    table = run_grid([task, dict(task)], fit_stub, out, scheduler="inline", progress=False)
    assert len(table) == 1 and table["status"][0] == "error"
    run_grid([task], fit_stub, out, scheduler="inline", progress=False)
    assert calls(tmp_path / "calls.log") == [0]
    run_grid([task], fit_stub, out, scheduler="inline", progress=False, rerun_errors=True)
    assert calls(tmp_path / "calls.log") == [0, 0]
    assert len(pd.read_parquet(out)) == 1


def test_task_key_is_stable_and_order_free():
    assert task_key({"a": 1, "b": [1, 2]}) == task_key({"b": [1, 2], "a": 1})
    assert task_key({"a": 1}) != task_key({"a": 1.5})
    # the key is the hash of the canonical JSON text, so it is the same in every
    # process and Python version (unlike hash())
    canonical = b'{"model":"gp","seed":0}'
    assert task_key({"seed": 0, "model": "gp"}) == hashlib.sha256(canonical).hexdigest()[:16]
    assert len({task_key({"seed": s}) for s in range(100)}) == 100


def test_bad_arguments_are_clear_errors(tmp_path):
    out = tmp_path / "g.parquet"
    with pytest.raises(ValueError, match="module-level function"):
        run_grid([{"i": 1}], lambda t: {}, out, scheduler="inline")
    with pytest.raises(ValueError, match=r"reserved field\(s\) \['status'\]"):
        run_grid([{"status": 1}], fit_stub, out, scheduler="inline")
    with pytest.raises(TypeError, match="task 1 is a list"):
        run_grid([{"i": 1}, [1]], fit_stub, out, scheduler="inline")
    assert not out.exists()


def test_cli_options():
    parser = add_cli_options(argparse.ArgumentParser(), out="results/x.parquet", seeds="3")
    args = parser.parse_args([])
    assert (args.scheduler, args.workers, args.quick, args.seeds) == (None, None, False, [0, 1, 2])
    args = parser.parse_args(["--scheduler", "tcp://node1:8786", "--seeds", "5-7", "--out", "y.parquet"])
    assert grid_options(args) == {"out": "y.parquet", "scheduler": "tcp://node1:8786", "n_workers": None}
    assert args.seeds == [5, 6, 7]
    assert parse_seeds("1,4,9") == [1, 4, 9]
    for bad in (["--workers", "0"], ["--seeds", "x"], ["--seeds", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_custom_key_names_tasks(tmp_path):
    out = tmp_path / "grid.parquet"
    tasks = make_tasks(tmp_path, 3)
    for t in tasks:
        t["sleep"] = 0.0
    by_index = lambda t: f"fit/{t['i']}"  # noqa: E731 (slashes must not become paths)
    table = run_grid(tasks, fit_stub, out, scheduler="inline", progress=False, key=by_index)
    assert table["key"].tolist() == ["fit/0", "fit/1", "fit/2"]
    # same key, other content: already done, not run again
    changed = [dict(t, sleep=0.01) for t in tasks]
    run_grid(changed, fit_stub, out, scheduler="inline", progress=False, key=by_index)
    assert calls(tmp_path / "calls.log") == [0, 1, 2]


def test_a_folder_whose_file_system_refuses_locks_is_written_without_one(tmp_path, monkeypatch):
    # helper-81: NFS refuses flock on a descriptor opened for reading (EBADF), Lustre
    # without -o flock (ENOSYS); the writers then run unlocked, as one writer alone may
    import errno
    import fcntl

    from probperf.outputs import folder_lock

    def refused(fd, op):
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(fcntl, "flock", refused)
    with folder_lock(tmp_path):
        (tmp_path / "rows.csv").write_text("n,p,time\n")
    table = run_grid([{"i": 1, "sleep": 0.0, "calls": str(tmp_path / "calls.log")}], fit_stub, tmp_path / "g.parquet",
                     scheduler="inline", progress=False)
    assert table["y"].tolist() == [1]
    with pytest.raises(KeyError) as err:  # an error inside the block is its own, not chained to the refusal
        with folder_lock(tmp_path):
            raise KeyError("inside")
    assert err.value.__context__ is None
