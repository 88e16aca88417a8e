"""``probperf validate``, ``convert`` and ``doctor``: check, translate and assess measurement files."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer
from rich.table import Table

from ..data import TRAIN_SPLIT, MeasurementError
from ..cautions import counted
from ._app import app, bad_input, console, empty_path, err_console, fail, require_stdout, shown, split_rows, warn
from .reading import read_measurements, reads_measurements

# The commands are the interface (documented by ``probperf validate --help`` and the
# CLI docs); the Python functions behind them are not API.
__all__: list[str] = []

def _fmt(x) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):.6g}"


def _unit_text(unit: str, clock_hz) -> str:
    """The time unit as validate and doctor say it: ``cycles at 2e+09 Hz`` where a rate is known.

    Examples
    --------
    >>> _unit_text("cycles", 2e9), _unit_text("s", None)
    ('cycles at 2e+09 Hz', 's')
    """
    return unit + (f" at {_fmt(clock_hz)} Hz" if unit == "cycles" and clock_hz else "")


def _missing(label) -> bool:
    """Whether a split label is missing: None, NaN or blank text."""
    return label is None or (isinstance(label, float) and label != label) or (isinstance(label, str) and not label.strip())


def _summary(m, title: str) -> Table:
    table = Table(title=title, show_header=True)
    table.add_column("item")
    table.add_column("value", overflow="fold")
    table.add_row("rows", str(len(m)))
    if "split" in m.frame:  # fit and doctor take the training rows: say how the file divides
        # a missing label (a CSV's empty cell, JSON's null) is counted and named, not shown as nothing
        labels = m.frame["split"].map(lambda k: None if _missing(k) else k)
        counts = labels.value_counts(sort=False, dropna=False)
        table.add_row("split", ", ".join(f"{'(no label)' if _missing(k) else shown(k)} {v}"
                                         for k, v in counts.items()) + " (fit and doctor use train)")
    table.add_row("time unit", _unit_text(m.unit, m.clock_hz))
    for name, (lo, hi, k) in m.ranges().items():
        span = _fmt(lo) if lo == hi else f"{_fmt(lo)} .. {_fmt(hi)}"
        table.add_row(f"parameter {shown(name)}", f"{span} ({k} distinct)")
    table.add_row("metrics", ", ".join(m.metrics))
    for name in m.metrics:  # where runs in ms mixed with runs in s show: nothing else says a unit
        values = m.frame[name].dropna()
        if len(values):
            lo, hi = float(values.min()), float(values.max())
            table.add_row(f"metric {shown(name)}", _fmt(lo) if lo == hi else f"{_fmt(lo)} .. {_fmt(hi)}")
    # an empty cell reads (a run without that metric), but fit may refuse it: say so here
    missing = {c: int(m.frame[c].isna().sum()) for c in m.metrics}
    if any(missing.values()):
        table.add_row("missing values", ", ".join(f"{shown(c)} in {k} of {len(m)} runs" for c, k in missing.items() if k)
                      + " (probperf doctor says what fit makes of them)")
    from ..doctor import beyond_law_range

    wide = beyond_law_range(m)  # what fit refuses: said here too, where the file is checked
    if wide:
        table.add_row("out of range", "; ".join(shown(line) for line in wide))
    resid = m.identity_residual()
    if np.isnan(resid).all():
        text = "n/a (needs work, delay, no_work, time)"
    else:
        text = _fmt(np.nanmax(np.abs(resid))) + " (max abs relative)"
    table.add_row("identity residual", text)
    return table


@app.command()
@reads_measurements()
def validate(
    files: List[str] = typer.Argument(..., metavar="DATA",
                                      help="Measurement files or quoted globs (.csv .parquet .jsonl .stat .txt .extrap)."),
    *,
    reading: dict,
):
    """Check measurement files and summarise them (rows, parameters, metrics, identity).

    Prints the number of rows, each parameter's range, the metrics present and their
    ranges, and the largest relative residual of work + delay + no_work = p * time. Bad input exits
    with status 2 and a message naming the file, line and column.
    """
    require_stdout()  # its summary is its result
    m = read_measurements(files, reading)
    console.print(_summary(m, shown(", ".join(files))))
    try:  # valid runs, which fit refuses without a size: said here, where the files are checked
        m.require("n")
    except MeasurementError as exc:
        warn(f"no problem size: {exc.message}; fit needs it")


@app.command()
@reads_measurements()
def convert(
    source: str = typer.Argument(..., metavar="IN", help="Input file or quoted glob."),
    target: Optional[str] = typer.Argument(None, metavar="OUT", help="Output file; its suffix picks the format."),
    *,
    reading: dict,
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="<path>",
                                         help="The output file, as OUT (every other command writes with -o)."),
    metric: Optional[str] = typer.Option(None, "--metric", metavar="NAME",
                                         help="Extra-P output (.txt/.extrap): the one metric to write, e.g. time; "
                                              "the table's other metrics and labels are left out."),
):
    """Convert between formats (.csv .parquet .jsonl .txt/.extrap; .stat as input).

    Values are copied unchanged (cycle counts stay cycles). The input is read and
    checked in full first, and the output is written atomically, so bad input
    leaves no output file. Extra-P text holds one metric: a table with more is
    written with --metric NAME.
    """
    from ..formats import input_files, output_format, write, write_extrap
    from ..outputs import check_not_input, check_output

    if target is not None and output is not None:
        fail(f"two output files: OUT {target!r} and -o {output!r}; give the output once")
    if target is None and output is None:
        fail("missing output file: give OUT or -o <path>")
    given = "OUT" if output is None else "-o"  # messages name what the user wrote
    target = output if target is None else target
    if not target:  # a plain string: the path check of _app does not see it
        fail(empty_path(given))
    with bad_input():
        kind = output_format(target, given)
        check_output(target, given)
    if metric is not None and kind != "extrap":  # every other format keeps every column
        fail(f"--metric {metric}: it picks the one metric of Extra-P output (.txt/.extrap); {given} {target} "
             "keeps every column")
    m = read_measurements([source], reading, label="IN")
    if metric is not None:  # before what the table holds besides it: a misspelt name is the first thing to fix
        with bad_input():
            m.require(metric)
    left_out = [c for c in m.frame.columns if c not in (*m.params, metric or "time")] if kind == "extrap" else []
    if left_out and metric is None:  # said in the command's words, not write's Python ones
        fail(f"{given} {target}: Extra-P text holds the parameters and one metric; this table also has "
             f"{', '.join(left_out)}: give --metric NAME (e.g. --metric time) to write one and leave the rest "
             "out, or write CSV, Parquet or JSON lines to keep them")
    with bad_input():
        check_not_input(target, input_files(source), given, "the conversion")
        with warnings.catch_warnings(record=True) as caught:  # said below, after the line saying what was written
            warnings.simplefilter("always")
            out = write_extrap(m, target, metric=metric) if metric is not None else write(m, target)
    err_console.print(f"wrote {counted(len(m), 'row')} to {shown(Path(out))}", highlight=False, soft_wrap=True)
    if metric is not None and left_out:
        err_console.print(f"note: left out of the Extra-P text: {', '.join(left_out)}", highlight=False, soft_wrap=True)
    for w in caught:  # only Parquet records the unit: said rather than let cycles pass for seconds
        err_console.print(f"note: {w.message}", highlight=False, soft_wrap=True)


@app.command()
@reads_measurements(strict=False)  # it reports the identity itself rather than failing on it
def doctor(
    files: List[str] = typer.Argument(..., metavar="DATA", help="Measurement files or quoted globs, as for validate."),
    *,
    reading: dict,
    split: Optional[str] = typer.Option(TRAIN_SPLIT, help="Look at the rows with this split label, as fit does, when the table has one."),
    format: str = typer.Option("table", "--format", help="table | json."),
):
    """Say what the runs can support: how far each input may be extrapolated, the DAG model, the identity.

    For n, p and each configuration parameter: the number of distinct values, the
    range, whether predict may go beyond it (it needs enough distinct values) and how
    far before it warns that the prediction is far out. Then whether the DAG model can
    be used, the largest residual of work + delay + no_work = p * time, and what is
    missing, one line each.
    """
    from ..doctor import diagnose

    require_stdout()
    if format not in ("json", "table"):
        fail(f"--format must be json or table, got {format!r}")
    m = read_measurements(files, reading, identity_warnings=False)
    with bad_input():
        m = split_rows(m, split, "looking at")  # the rows fit would use
    report = diagnose(m)
    if format == "json":
        print(json.dumps(report.to_dict(), indent=2))
        return
    console.print(_directions(report, shown(", ".join(files))))
    for line in _verdicts(report):
        console.print(line, highlight=False, soft_wrap=True)


def _directions(report, title: str) -> Table:
    from ..doctor import value

    table = Table(title=f"{title}: {counted(report.rows, 'run')}, times in {shown(_unit_text(report.unit, report.clock_hz))}")
    for name in ("parameter", "distinct", "range", "extrapolate", "far warning beyond"):
        table.add_column(name, justify="left" if name == "parameter" else "right")
    for d in report.directions:
        span = value(d.low) if d.low == d.high else f"{value(d.low)} .. {value(d.high)}"
        beyond = value(d.far) if d.far is not None else ("-" if d.extrapolates else "refused")
        table.add_row(shown(d.name), str(d.distinct), span, "yes" if d.extrapolates else "no", beyond)
    return table


def _verdicts(report) -> list[str]:
    """The lines under the table: metrics, DAG model, identity, what is missing."""
    from ..doctor import percent

    identity = report.identity
    if identity.worst is None:
        resid = "n/a (needs work, delay, no_work and time)"
    else:
        resid = (f"largest residual {percent(identity.worst)} (tolerance {percent(identity.tolerance)})"
                 f"{'' if identity.ok else ' [red]too large[/]'}")
    lines = [f"metrics: {shown(', '.join(report.metrics))}",
             "DAG model: " + ("not usable (see below)" if not report.dag_model else "[green]usable[/]"
                              + (f", but fit (auto) models time directly: {shown(report.auto_direct)}"
                                 if report.auto_direct else "")),
             f"identity work + delay + no_work = p * time: {resid}",
             *(shown(r) for r in report.relations)]
    if not report.problems:
        return [*lines, "[green]nothing missing[/]"]
    return [*lines, "[yellow]what limits the predictions:[/]", *(f"  - {shown(p)}" for p in report.problems)]
