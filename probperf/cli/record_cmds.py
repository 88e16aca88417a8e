"""``probperf record`` (trace a real OpenMP program) and ``probperf bench build``."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from ._app import (_items, app, bad_input, bench_app, check_terminated, console, err_console, fail, interrupted_code,
                   number, parse_assignments, parse_list, shown, warn)


class _RowWriter:
    """Writes the rows recorded so far after the rows already in ``out``, atomically,
    after every run, so a later failure keeps them. The file is read again before each
    write and only this command's rows not yet in it are added, so rows another
    command wrote to it meanwhile stay (helper-66: the rows read at the start were
    rewritten with the new ones after every run, dropping any written since); the
    read and the write hold a lock (:func:`~probperf.outputs.folder_lock`), so that two commands
    appending at once do not write over each other's rows (helper-76: 3 commands of 6
    runs each left 14-16 rows). This command's rows already written keep their runs'
    metrics, their ``serial_work`` follows the recording's one-worker runs (the mean
    of all of them, as the rows written last have it; helper-76: the first row kept
    its own run's work, 2.2x the mean)."""

    def __init__(self, out: Path):
        self.out, self.written, self.rows_now = out, 0, 0
        self.positions = []  # where this command's rows are in the file: others only append

    def __call__(self, new):
        import numpy as np

        from ..formats import read, write
        from ..outputs import folder_lock

        with folder_lock(self.out.parent):
            now = read(self.out, config=new.config) if self.out.exists() else None
            if now is None:  # gone since (or never there): every row of this command
                now, self.positions = new, list(range(len(new)))
            else:
                self._same_params(now, new.params)
                fresh = new.rows(np.arange(len(new)) >= self.written)
                start = len(now)
                now = self._followed(now, new).concat(fresh)
                self.positions += range(start, start + len(fresh))
            write(now, self.out)
        self.written, self.rows_now = len(new), len(now)
        check_terminated()  # after the row is kept: a SIGTERM whose exception was lost stops here

    def _followed(self, now, new):
        """The file's rows ``now`` with this command's rows already written given the
        recording's ``serial_work`` (``new``'s, one value for all its rows)."""
        import numpy as np

        if "serial_work" not in new.frame or not self.positions or max(self.positions) >= len(now):
            return now  # no one-worker run yet, nothing written, or the file was cut since
        column = np.array(now.frame["serial_work"], dtype=np.float64) if "serial_work" in now.frame \
            else np.full(len(now), np.nan)
        column[self.positions] = new.frame["serial_work"].to_numpy(dtype=np.float64)[:len(self.positions)]
        return now.with_columns(serial_work=column)

    def preflight(self, params: dict) -> None:
        """Before any run: the ``--param`` values as a recorded row would hold them, and
        the rows already in ``out`` (readable, with this recording's parameters), so that
        a mistake is not found only after the program has run."""
        from ..data import MISSING_CONFIG, UNKNOWN_COLUMN, MeasurementError, Measurements
        from ..formats import read
        from ..record.run import NO_SIZE

        if "n" not in params:  # said as such, not as parameters that differ from the file's (helper-66)
            raise ValueError(NO_SIZE)
        config = [k for k in params if k != "n"]
        try:
            probe = Measurements({**{k: [v] for k, v in params.items()}, "p": [1], "time": [1.0]}, config=config)
        except MeasurementError as exc:
            raise ValueError(f"--param {exc.column}: {exc.message.removeprefix('1st row: ')}") from None
        if self.out.exists():
            try:
                old = read(self.out, config=config)
            except MeasurementError as exc:
                if exc.message.startswith(UNKNOWN_COLUMN) and exc.column is not None:
                    # a column this recording does not set (a --param of earlier runs, a label):
                    # record has no --config, so the reader's advice to declare one is not ours
                    fail(f"{self.out}: its runs have a column {exc.column} that this recording does not set "
                         f"(give --param {exc.column}=VALUE if it is a parameter of those runs); "
                         "or write these runs to another file")
                if not exc.message.startswith(MISSING_CONFIG):
                    raise
                # a --param this file's runs never had: the file is not wrong, the pairing is
                fail(f"{self.out}: its runs have no column {exc.column} (--param {exc.column} is new to it); "
                     "write these runs to another file, or record without that --param")
            self._same_params(old, probe.params)

    def _same_params(self, old, params) -> None:
        """Refuse to add rows of other parameters to the file's ``old`` rows (before the
        runs, and again before each write: another command may write to it meanwhile)."""
        if sorted(old.params) != sorted(params):
            fail(f"{self.out}: its parameters {old.params} differ from this recording's {params}; "
                 "write to another file")

    @property
    def total(self) -> int:
        """The rows in the file after the last write (this command's, the ones before it,
        any another command wrote meanwhile)."""
        return self.rows_now


def _overhead_table(overhead) -> Table:
    table = Table(title="tracing overhead (seconds; elapsed = OpenMP runtime start to end)")
    for col in ("p", "untraced", "traced", "overhead", "wall untraced", "wall traced", "CPU overhead"):
        table.add_column(col, justify="right")
    for row in overhead.itertuples():
        table.add_row(
            str(row.p), f"{row.untraced:.4g}", f"{row.traced:.4g}", f"{row.overhead:+.1%}",
            f"{row.untraced_wall:.4g}", f"{row.traced_wall:.4g}", f"{row.cpu_overhead:+.1%}",
        )
    return table


@app.command("record", context_settings={"allow_interspersed_args": False})  # options after the program are its own
def record_cmd(
    command: List[str] = typer.Argument(..., metavar="-- PROGRAM [ARGS]...", help="The OpenMP program to trace."),
    workers: str = typer.Option("1", "--workers", "-w", help="Worker counts, e.g. 1,2 or 1..4."),
    reps: str = typer.Option("1", "--reps", "-r", metavar="INTEGER", help="Traced runs per worker count."),
    param: Optional[List[str]] = typer.Option(
        None, "--param", help="Row parameter NAME=VALUE (repeatable); n=SIZE is required."
    ),
    output: Path = typer.Option(..., "--output", "-o", help="Measurements file to append to (.csv, .parquet, .jsonl)."),
    untraced: bool = typer.Option(True, "--untraced/--no-untraced", help="Also run once per p without event recording, to report the overhead."),
    timeout: Optional[str] = typer.Option(None, "--timeout", metavar="SECONDS", help="Seconds before a run is abandoned."),
):
    """Run PROGRAM under the OMPT tool and append one row of DAG metrics per run.

    Each run's row is written as soon as the run is recorded: if a later run fails, the
    rows before it stay in the output and the command exits with status 2.

    Example: probperf record --workers 1,2 --reps 2 --param n=30 -o runs.csv -- ./fib 30
    """
    import os

    from ..limits import MAX_LIST_VALUES, MAX_RECORD_WORKERS, MAX_TIMEOUT
    from ..formats import TABLE_FORMATS, output_format
    from ..outputs import check_output
    from ..record import BuildError, RecordError, record

    ps = parse_list(workers, "--workers", low=1, high=MAX_RECORD_WORKERS, limit="MAX_RECORD_WORKERS")
    reps = number("--reps", reps, integer=True, low=1, high=MAX_LIST_VALUES, limit="MAX_LIST_VALUES")
    if timeout is not None:
        timeout = float(number("--timeout", timeout, low=0, low_open=True, high=MAX_TIMEOUT, limit="MAX_TIMEOUT"))
    params = parse_assignments(param, "--param", "n=30")
    if "p" in params:
        fail("--param p: p is the worker count; give it with --workers")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if max(ps) > cores:  # measured, but not the program's scaling: said before the runs
        warn(f"--workers {workers}: p={max(ps)} is more than the {cores} cores this process may use; such runs "
             "measure workers sharing cores (their waiting counts as delay), not the program's scaling, and a "
             "model fitted on them predicts that sharing at every larger p")
    writer = _RowWriter(output)
    with bad_input():
        check_output(output, "-o")
        output_format(output, "-o", TABLE_FORMATS)  # known before the program runs
        writer.preflight(params)
        try:
            rec = record(
                command, ps, params, reps, untraced=untraced, timeout=timeout,
                # soft_wrap: a log keeps each run's line whole
                progress=lambda msg: err_console.print(shown(msg), highlight=False, soft_wrap=True),
                sink=writer,
            )
        except (RecordError, BuildError) as exc:
            kept = (f"; the {writer.written} row(s) recorded before it are in {output}"
                    if writer.written else "; nothing was written")
            fail(f"{str(exc).removesuffix('.')}{kept}")  # the error's own full stop would end up before the "; "
        except KeyboardInterrupt:  # Ctrl-C mid-recording: what was kept, said (not counted: it may
            # have come between a row's write and its count)
            kept = (f"the runs recorded before it are in {output}" if writer.written or output.exists()
                    else "nothing was written")
            err_console.print(shown(f"interrupted; {kept}"), highlight=False, soft_wrap=True)
            raise typer.Exit(interrupted_code()) from None
    if untraced:
        console.print(_overhead_table(rec.overhead))
    console.print(f"appended {len(rec.measurements)} row(s) to {shown(output)} ({writer.total} in total)")


@bench_app.command("build")
def bench_build(
    output: Path = typer.Option(..., "--output", "-o", help="Directory for the executables."),
    only: Optional[str] = typer.Option(None, "--only", help="Comma-separated subset, e.g. fib,nqueens; NAME_untied is a "
                                                   "program of its own, built when named."),
):
    """Compile the benchmark programs (fib, nqueens, mergesort, sparselu, strassen, health),
    each also as NAME_untied with untied tasks."""
    from ..outputs import check_output_dir
    from ..record import BENCHMARKS, BuildError, build_benchmarks
    from ..record.build import check_names

    # a program named twice is built once
    names = list(dict.fromkeys(_items(only, "--only"))) if only is not None else list(BENCHMARKS)
    if not names:  # an empty subset is no subset: building everything would not be what was asked
        fail(f"--only {only!r}: no program named; give e.g. --only fib,nqueens")
    try:  # named before any compiler is looked for
        check_names(names)
    except ValueError as exc:
        fail(f"--only {only!r}: {exc}")
    with bad_input():
        check_output_dir(output, names, "-o")  # before the compiler runs
        try:
            built = build_benchmarks(output, names)
        except BuildError as exc:
            fail(str(exc))
    for path in built:
        console.print(shown(path))
