"""Run a grid of independent fits on ``dask.distributed`` and stream results to Parquet.

An experiment (compare kernels, compare models...) is a list of task dicts, each one
fit: ``{"case": "gauss", "model": "gp", "kernel": "sm4", "seed": 3}``. A module-level
function ``fn(task) -> dict`` does the fit and returns its figures.
:func:`run_grid` submits every task to a Dask cluster and records one row per task.

Where results go
----------------
``out`` is the final Parquet file. While the grid runs, each finished task is written
to its own part file ``<out>.parts/<hash of key>.parquet``, through a temporary file and an
atomic rename, by the client process only. A crash (of a worker, of the client, of
the machine) therefore loses at most the tasks still running: every part file on disk
is complete. At the end the parts are compacted into ``out`` (again through a
temporary file and a rename) and then deleted; a crash between the two leaves both,
and the next run merges them, keeping one row per key. Part writes and compactions
hold a lock on the folder of ``out`` (:func:`probperf.outputs.folder_lock`), so two
runs on one file (other tasks, or the same grid started twice) keep every row.

Resume and exactly-once
-----------------------
Each task has a key (default: a stable hash of the task dict, :func:`task_key`;
fields whose names begin with ``_`` say where, not what, such as the directory a
relative data path is read from, and are neither hashed nor stored: the results of
one clone are found in another). A
re-run reads the keys already in ``out`` and in the parts directory and submits only
the others, so re-running after a crash finishes the grid. Rows are stored by key, so a
task that Dask runs twice (it retries tasks whose worker died) is still recorded once.

Failures
--------
An exception in ``fn`` does not stop the grid: the task's row has ``status="error"``
and ``error`` holds the exception type and message. So does a task that Dask gives up
on (``KilledWorker`` after repeated worker deaths). Failed tasks count as done on a
re-run unless ``rerun_errors=True``.

Clusters
--------
Without ``scheduler`` an embedded ``LocalCluster`` is started (worker processes, one
thread each, as many as the machine has cores) and shut down at the end. With
``scheduler="tcp://HOST:8786"`` the same code runs on an existing cluster (started
with ``dask scheduler`` / ``dask worker`` on a cluster's nodes).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import math
import os
import shutil
import time
import traceback
import uuid
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from .outputs import folder_lock

class SchedulerUnreachable(ConnectionError):
    """``run_grid``'s ``scheduler`` names no Dask scheduler it can reach: raised before
    any task runs (a connection lost later is another error, and fits may be stored).

    Examples
    --------
    >>> import tempfile, os.path
    >>> try:
    ...     run_grid([{"x": 2}], example_square, os.path.join(tempfile.mkdtemp(), "g.parquet"),
    ...              scheduler="nonsense", progress=False)
    ... except SchedulerUnreachable as exc:
    ...     print(exc)
    cannot connect to the Dask scheduler 'nonsense': missing port number in address 'nonsense'
    """


#: Columns the runner adds to every row; task and result fields may not use them.
RESERVED = ("key", "status", "error", "seconds", "task")

log = logging.getLogger(__name__)

#: Tasks per worker between restarts of the embedded cluster's workers: a DAG-model fit
#: still leaves ~70 MB behind (TorchScript traces, see inference.run_svi; other fit functions
#: may leak more), and workers at 80 % of their memory limit stop working.
RESTART_EVERY = 8


# -- keys and rows -----------------------------------------------------------------


def _jsonable(value):
    """A JSON-serialisable stand-in for ``value`` (numpy scalars, paths, tuples)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (Path, type)):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _what(task: dict) -> dict:
    """The task's fields that say what it computes: not those beginning with ``_``
    (where: a machine's directory), which neither its key nor its row holds."""
    return {k: v for k, v in task.items() if not str(k).startswith("_")}


def task_key(task: dict) -> str:
    """A stable 16-hex-digit key for a task dict: same content, same key.

    The key does not depend on the order of the dict's entries, nor on the process,
    so it identifies a task across runs (unlike Python's ``hash``).

    Examples
    --------
    >>> task_key({"model": "gp", "seed": 1}) == task_key({"seed": 1, "model": "gp"})
    True
    >>> task_key({"seed": 1}) == task_key({"seed": 2})
    False
    >>> len(task_key({"seed": 1}))
    16
    >>> task_key({"seed": 1, "_root": "/here"}) == task_key({"seed": 1, "_root": "/there"}) == task_key({"seed": 1})
    True
    """
    text = json.dumps(_jsonable(_what(task)), sort_keys=True, default=repr, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cell(value):
    """A value Parquet can store in a column: scalars as they are, the rest as JSON."""
    if value is None or isinstance(value, (bool, int, float, str, np.generic)):
        return value
    return json.dumps(_jsonable(value), sort_keys=True, default=repr)


def run_task(fn: Callable[[dict], dict], task: dict, key: str) -> dict:
    """Run one task and return its row; an exception becomes an ``error`` row.

    This runs on the worker. Catching here (not in the client) keeps the traceback's
    message and means a failing fit is an answer, not a Dask error to retry.

    Examples
    --------
    >>> row = run_task(example_square, {"x": 3}, key="k1")
    >>> {k: row[k] for k in ("x", "y", "key", "status", "error", "task")}
    {'x': 3, 'y': 9, 'key': 'k1', 'status': 'ok', 'error': None, 'task': '{"x": 3}'}
    >>> row = run_task(example_square, {"x": -1}, key="k2")
    >>> row["status"], row["error"]
    ('error', 'ValueError: x must be >= 0, got -1 (at example_square:...)')
    """
    start = time.perf_counter()
    try:
        result = fn(dict(task))
        if not isinstance(result, dict):
            raise TypeError(f"{getattr(fn, '__name__', fn)} returned {type(result).__name__}, not a dict")
        clash = [k for k in result if k in RESERVED]
        if clash:
            raise ValueError(f"result fields {clash} clash with the runner's columns {RESERVED}")
        status, error = "ok", None
    except Exception as exc:  # any failure of the fit is recorded, never raised
        result, status, error = {}, "error", _describe(exc)
    return _row(task, key, status, error, time.perf_counter() - start, result)


def _describe(exc: BaseException) -> str:
    where = traceback.extract_tb(exc.__traceback__)
    at = f" (at {where[-1].name}:{where[-1].lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


def _row(task, key, status, error, seconds, result=None) -> dict:
    task = _what(task)
    row = {k: _cell(v) for k, v in task.items()}
    row.update({k: _cell(v) for k, v in (result or {}).items()})
    row.update(
        key=key,
        status=status,
        error=error,
        seconds=float(seconds),
        task=json.dumps(_jsonable(task), sort_keys=True, default=repr),
    )
    return row


# -- the result store --------------------------------------------------------------


class ResultStore:
    """Final Parquet file plus a directory of per-task part files (see module doc).

    Parameters
    ----------
    out : path
        The final ``.parquet`` file; parts live in ``<out>.parts/``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     store = ResultStore(os.path.join(tmp, "grid.parquet"))
    ...     store.write(run_task(example_square, {"x": 3}, "a"))
    ...     store.write(run_task(example_square, {"x": -1}, "b"))
    ...     keys = sorted(store.done_keys()), sorted(store.done_keys(rerun_errors=True))
    ...     table = store.compact().sort_values("key")
    ...     left = store.parts.exists(), store.out.exists()
    >>> keys
    (['a', 'b'], ['a'])
    >>> table[["x", "y", "key", "status"]].values.tolist()
    [[3, 9.0, 'a', 'ok'], [-1, nan, 'b', 'error']]
    >>> left  # parts merged into the final file, then deleted
    (False, True)
    """

    def __init__(self, out):
        self.out = Path(out)
        self.parts = self.out.with_name(self.out.name + ".parts")

    def _part(self, key: str) -> Path:
        # A user's key may hold any characters; the file is named by its hash.
        return self.parts / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.parquet"

    def write(self, row: dict) -> None:
        """Write one row as its key's part file, atomically (temp file + rename).

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "grid.parquet"))
        >>> store.write(run_task(example_square, {"x": 3}, "a"))
        >>> len(list(store.parts.glob("*.parquet")))  # one part file per key
        1
        """
        self.out.parent.mkdir(parents=True, exist_ok=True)
        with folder_lock(self.out.parent):  # another run's compaction may be removing the parts folder
            self.parts.mkdir(exist_ok=True)
            final = self._part(row["key"])
            tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
            pd.DataFrame([row]).to_parquet(tmp, index=False)
            os.replace(tmp, final)

    def read(self) -> pd.DataFrame:
        """Every row stored so far (final file and parts), one per key, parts winning.

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "grid.parquet"))
        >>> store.write(run_task(example_square, {"x": 3}, "a"))
        >>> store.write(run_task(example_square, {"x": 4}, "a"))  # the same key again: replaces
        >>> store.read()[["x", "y", "key", "status"]].values.tolist()
        [[4, 16, 'a', 'ok']]
        """
        with folder_lock(self.out.parent) if self.out.parent.is_dir() else contextlib.nullcontext():
            return self._read()

    def _read(self) -> pd.DataFrame:
        """:meth:`read` without the lock (its callers hold it: a process's locks do not
        nest)."""
        frames = []
        if self.out.exists():
            frames.append(pd.read_parquet(self.out))
        if self.parts.is_dir():
            frames += [pd.read_parquet(p) for p in sorted(self.parts.glob("*.parquet"))]
        frames = [f for f in frames if len(f)]
        if not frames:
            return pd.DataFrame(columns=list(RESERVED))
        table = pd.concat(frames, ignore_index=True)
        table = table.drop_duplicates("key", keep="last").reset_index(drop=True)
        # the task's and fn's fields first, the runner's bookkeeping last
        order = [c for c in table if c not in RESERVED] + [c for c in RESERVED if c in table]
        return _storable(table[order])

    def done_keys(self, rerun_errors: bool = False) -> set[str]:
        """Keys already recorded (errors excluded with ``rerun_errors``).

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "grid.parquet"))
        >>> store.write(run_task(example_square, {"x": 3}, "a"))
        >>> store.write(run_task(example_square, {"x": -1}, "b"))  # fails: an error row
        >>> sorted(store.done_keys()), sorted(store.done_keys(rerun_errors=True))
        (['a', 'b'], ['a'])
        """
        table = self.read()
        if rerun_errors and len(table):
            table = table[table["status"] != "error"]
        return set(table["key"])

    def compact(self) -> pd.DataFrame:
        """Merge the parts into the final file (atomic replace), then delete the parts.
        Writes and compactions hold the folder's lock (:func:`~probperf.outputs.folder_lock`):
        a part another run writes meanwhile waits, and is merged by the next compaction
        (two runs on one file lost rows to a compaction between a read and a write;
        helper-77).

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "grid.parquet"))
        >>> store.write(run_task(example_square, {"x": 3}, "a"))
        >>> store.compact()[["x", "y", "key"]].values.tolist()
        [[3, 9, 'a']]
        >>> store.parts.exists(), store.out.exists()
        (False, True)
        """
        self.out.parent.mkdir(parents=True, exist_ok=True)
        with folder_lock(self.out.parent):  # two runs on one file: each merges what is there in turn
            table = self._read()
            tmp = self.out.with_name(f".{self.out.name}.{uuid.uuid4().hex}.tmp")
            table.to_parquet(tmp, index=False)
            os.replace(tmp, self.out)
            if self.parts.is_dir():  # every part in it was read: no write runs while the lock is held
                shutil.rmtree(self.parts)
            # read back, so a first run and a resumed run return identical frames
            return pd.read_parquet(self.out)


def _storable(table: pd.DataFrame) -> pd.DataFrame:
    """Columns Parquet can hold: a column mixing kinds (numbers and text) becomes text.

    Part files are written one row at a time, so a field can be a number in one task
    and a string in another; compaction must not fail on that.
    """
    for column in table.columns[table.dtypes == object]:
        values = table[column]
        present = values[values.notna()]
        kinds = {_kind(v) for v in present}
        if len(kinds) > 1:
            table[column] = values.where(values.isna(), values.astype(str))
    return table


def _kind(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.number)):
        return "number"
    return type(value).__name__


# -- the grid ----------------------------------------------------------------------


def _check_fn(fn) -> None:
    qualname = getattr(fn, "__qualname__", "")
    if not callable(fn) or "<locals>" in qualname or "<lambda>" in qualname:
        raise ValueError(
            f"fn must be a module-level function that workers can import, got {fn!r}"
        )


def _check_tasks(tasks, key) -> dict[str, dict]:
    """``{key: task}`` in order; duplicates (same key) are run once."""
    unique: dict[str, dict] = {}
    for i, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise TypeError(f"task {i} is a {type(task).__name__}, not a dict")
        clash = [k for k in task if k in RESERVED]
        if clash:
            raise ValueError(f"task {i} uses reserved field(s) {clash}; rename them")
        unique.setdefault(str(key(task)), task)
    return unique


def default_workers() -> int:
    """The number of cores this process may use.

    Examples
    --------
    >>> n = default_workers()
    >>> isinstance(n, int), 1 <= n <= (os.cpu_count() or 1)
    (True, True)
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _connect(scheduler: str | None, n_workers: int | None):
    """``(client, cluster)``; ``cluster`` is None when connecting to an existing one."""
    from distributed import Client, LocalCluster

    if scheduler:
        if n_workers is not None:
            log.warning("n_workers is ignored when connecting to scheduler %s", scheduler)
        try:
            return Client(scheduler), None
        except (OSError, ValueError) as exc:  # nothing listens there, or no address (Dask's words follow)
            raise SchedulerUnreachable(f"cannot connect to the Dask scheduler {scheduler!r}: {exc}") from None
    cluster = LocalCluster(
        n_workers=n_workers or default_workers(),
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # a free port: never clash with another cluster
        silence_logs=logging.ERROR,
    )
    return Client(cluster), cluster


def run_grid(tasks: Sequence[dict], fn: Callable[[dict], dict], out, scheduler: str | None = None,
             n_workers: int | None = None, progress: bool = True, key: Callable[[dict], str] = task_key,
             rerun_errors: bool = False, restart_every: int | None = RESTART_EVERY) -> pd.DataFrame:
    """Run ``fn`` on every task on a Dask cluster; one row per task in ``out``.

    Parameters
    ----------
    tasks : sequence of dict
        One dict per fit. Its fields become columns of the result (non-scalars as JSON).
        Tasks with the same key run once.
    fn : callable
        ``fn(task) -> dict`` of result fields; a module-level function (workers import it
        by name).
    out : path
        Final Parquet file. Tasks already recorded there (or in its ``.parts`` directory,
        after a crash) are skipped.
    scheduler : str, optional
        Address of an existing Dask scheduler (``"tcp://host:8786"``). Default: an embedded
        ``LocalCluster`` with ``n_workers`` single-threaded processes. ``"inline"`` runs the
        tasks one after the other in this process, without Dask (for debugging a task
        function; same files and rows).
    n_workers : int, optional
        Size of the embedded cluster (default: the machine's cores).
    progress : bool
        Show a progress bar (done/total, elapsed, ETA) on stderr.
    key : callable
        ``key(task) -> str`` naming a task across runs (default :func:`task_key`).
    rerun_errors : bool
        Run again the tasks recorded with ``status="error"``.
    restart_every : int, optional
        Replace the embedded cluster's worker processes after this many tasks per worker
        (``None``: never). Ignored on an existing cluster (``scheduler``).

    Returns
    -------
    pandas.DataFrame
        One row per task of ``tasks`` (in their order): the task's fields, ``fn``'s fields,
        ``key``, ``status`` (``"ok"``/``"error"``), ``error`` (message or None), ``seconds``
        (run time of ``fn``) and ``task`` (the task as JSON).

    Raises
    ------
    SchedulerUnreachable
        A ``ConnectionError``: ``scheduler`` names no reachable Dask scheduler (before any task runs).

    Examples
    --------
    >>> import tempfile, os.path
    >>> from probperf.runner import run_grid, example_square
    >>> out = os.path.join(tempfile.mkdtemp(), "grid.parquet")
    >>> tasks = [{"x": 2}, {"x": 3}, {"x": -1}]
    >>> table = run_grid(tasks, example_square, out, scheduler="inline", progress=False)
    >>> table[["x", "y", "status"]].values.tolist()
    [[2, 4.0, 'ok'], [3, 9.0, 'ok'], [-1, nan, 'error']]
    >>> table["error"][2]  # doctest: +ELLIPSIS
    'ValueError: x must be >= 0, got -1 (at example_square:...)'
    >>> run_grid(tasks, example_square, out, scheduler="inline", progress=False).equals(table)
    True
    """
    _check_fn(fn)
    todo_all = _check_tasks(tasks, key)
    store = ResultStore(out)
    _run_pending(todo_all, fn, store, rerun_errors, scheduler, n_workers, progress, restart_every)
    table = store.compact()
    return table.set_index("key", drop=False).loc[list(todo_all)].reset_index(drop=True)


def _run_pending(todo_all, fn, store, rerun_errors, scheduler, n_workers, progress, restart_every):
    """Run the tasks ``store`` holds no result for (or an error, with ``rerun_errors``)."""
    done = store.done_keys(rerun_errors)
    todo = {k: t for k, t in todo_all.items() if k not in done}
    already = len(todo_all) - len(todo)
    if todo and scheduler == "inline":
        _run_inline(todo, fn, store, progress, already, len(todo_all))
    elif todo:
        _submit_all(todo, fn, store, scheduler, n_workers, progress, already, len(todo_all), restart_every)


def _submit_all(todo, fn, store, scheduler, n_workers, progress, already, total, restart_every):
    from distributed import as_completed

    client, cluster = _connect(scheduler, n_workers)
    try:  # the names are rebound when a restart gives way to a fresh cluster: finally closes the last
        items = list(todo.items())
        # Batches of restart_every tasks per worker, with fresh worker processes for
        # each batch (the embedded cluster only: a shared one is not ours to restart).
        # Model fits leave memory behind (torch keeps every traced function), and Dask
        # pauses a worker at 80 % of its memory limit: a long sweep would stall.
        batch = len(items)
        if cluster is not None and restart_every:
            batch = restart_every * len(client.scheduler_info()["workers"])
        with _progress_bar(progress, total, already) as advance:
            for start in range(0, len(items), batch):
                if start:
                    client, cluster = _restarted(client, cluster, n_workers)
                futures = {client.submit(run_task, fn, task, k, pure=False): k
                           for k, task in items[start:start + batch]}
                for future in as_completed(futures):
                    k = futures[future]
                    store.write(_collect(future, todo[k], k))
                    future.release()
                    advance()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _restarted(client, cluster, n_workers):
    """``(client, cluster)`` with fresh worker processes: the embedded cluster's workers
    restarted, or, when a worker does not come back in time (Dask's restart then raises
    ``TimeoutError``, seen once in a sweep of 32 fits on a loaded machine), a new
    cluster in its place: the sweep goes on, the fits already written stay."""
    try:
        client.restart()
        return client, cluster
    except (TimeoutError, OSError) as exc:
        log.warning("restarting the workers failed (%s); starting a new cluster", exc)
        client.close()
        cluster.close()
        return _connect(None, n_workers)


def _run_inline(todo, fn, store, progress, already, total):
    """Run the tasks one by one in this process (debugging, doctests; no Dask)."""
    with _progress_bar(progress, total, already) as advance:
        for k, task in todo.items():
            store.write(run_task(fn, task, k))
            advance()


def _collect(future, task, k) -> dict:
    """The row of a finished future; a future Dask gave up on becomes an error row."""
    if future.status == "finished":
        return future.result()
    try:
        exc = future.exception()
        message = _describe(exc) if exc is not None else f"future {future.status}"
    except Exception as err:  # cancelled futures raise when asked for their exception
        message = f"{type(err).__name__}: {err}"
    return _row(task, k, "error", message, math.nan)


class _progress_bar:
    """Context manager yielding ``advance()``; a rich bar, or nothing if disabled."""

    def __init__(self, enabled: bool, total: int, already: int):
        self.enabled, self.total, self.already = enabled, total, already

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("fits"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self.bar.start()
        # The ETA covers only this run's fits: tasks done earlier are shown as done
        # but don't make the rate look fast.
        task = self.bar.add_task("fits", total=self.total, completed=self.already)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.stop()
        return False


def example_square(task: dict) -> dict:
    """A trivial task function (for examples): ``{"y": task["x"] ** 2}``, x >= 0.

    Examples
    --------
    >>> example_square({"x": 3})
    {'y': 9}
    >>> example_square({"x": -1})
    Traceback (most recent call last):
    ...
    ValueError: x must be >= 0, got -1
    """
    if task["x"] < 0:
        raise ValueError(f"x must be >= 0, got {task['x']}")
    return {"y": task["x"] ** 2}


# -- command-line options shared by the experiment scripts -------------------------


def parse_seeds(text: str) -> list[int]:
    """``"3"`` -> [0, 1, 2]; ``"4,7,9"`` -> [4, 7, 9]; ``"2-5"`` -> [2, 3, 4, 5].

    Examples
    --------
    >>> parse_seeds("3"), parse_seeds("4,7"), parse_seeds("2-4")
    ([0, 1, 2], [4, 7], [2, 3, 4])
    """
    text = str(text).strip()
    try:
        if "," in text:
            seeds = [int(s) for s in text.split(",") if s.strip()]
        elif "-" in text.lstrip("-"):
            lo, hi = text.split("-", 1)
            seeds = list(range(int(lo), int(hi) + 1))
        else:
            count = int(text)
            if count < 1:
                raise ValueError
            seeds = list(range(count))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--seeds {text!r}: give a count (5), a list (1,4,7) or a range (0-9)"
        ) from None
    if not seeds:
        raise argparse.ArgumentTypeError(f"--seeds {text!r} names no seed")
    return seeds


def add_cli_options(parser: argparse.ArgumentParser, out: str, seeds: str = "5") -> argparse.ArgumentParser:
    """Add the flags every experiment script shares.

    ``--scheduler ADDR`` (existing Dask cluster), ``--workers N`` (size of the embedded
    one), ``--out PATH`` (result Parquet, default ``out``), ``--quick`` (a tiny grid for
    a smoke run) and ``--seeds`` (see :func:`parse_seeds`). Pass the parsed namespace
    to :func:`grid_options` for the keyword arguments of :func:`run_grid`.

    Examples
    --------
    >>> p = add_cli_options(argparse.ArgumentParser(), out="results/kernels.parquet")
    >>> a = p.parse_args(["--quick", "--seeds", "2", "--workers", "2"])
    >>> a.quick, a.seeds, grid_options(a)
    (True, [0, 1], {'out': 'results/kernels.parquet', 'scheduler': None, 'n_workers': 2})
    """
    group = parser.add_argument_group("grid execution")
    group.add_argument(
        "--scheduler", default=None, metavar="ADDR",
        help="address of an existing Dask scheduler, e.g. tcp://host:8786 "
        "(default: start a local cluster)",
    )
    group.add_argument(
        "--workers", type=_positive_int, default=None, metavar="N",
        help="worker processes of the local cluster (default: number of cores)",
    )
    group.add_argument("--out", default=out, metavar="PATH", help=f"result Parquet file (default: {out})")
    group.add_argument("--quick", action="store_true", help="run a tiny grid (smoke test)")
    group.add_argument(
        "--seeds", type=parse_seeds, default=parse_seeds(seeds), metavar="SEEDS",
        help=f"a count, list (1,4,7) or range (0-9) of seeds (default: {seeds})",
    )
    return parser


def grid_options(args: argparse.Namespace) -> dict:
    """The :func:`run_grid` keyword arguments held by parsed :func:`add_cli_options` flags.

    Examples
    --------
    >>> grid_options(argparse.Namespace(out="r.parquet", scheduler=None, workers=2))
    {'out': 'r.parquet', 'scheduler': None, 'n_workers': 2}
    """
    return {"out": args.out, "scheduler": args.scheduler, "n_workers": args.workers}


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def tasks_product(**axes: Iterable) -> list[dict]:
    """Every combination of the given axes as task dicts, first axis slowest.

    Examples
    --------
    >>> tasks_product(model=["gp", "bayes"], seed=[0, 1])[:3]
    [{'model': 'gp', 'seed': 0}, {'model': 'gp', 'seed': 1}, {'model': 'bayes', 'seed': 0}]
    """
    from itertools import product

    names = list(axes)
    return [dict(zip(names, combo)) for combo in product(*(list(v) for v in axes.values()))]
