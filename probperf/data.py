"""Measurements: the one table type that every part of probperf reads and writes.

One row per run (repetitions are separate rows). Columns are

* parameters: ``n`` (problem size), ``p`` (workers, integer >= 1) and any declared
  configuration parameters (cut-offs, block sizes); ``n`` may be absent (runs at one
  unnamed size, such as a single traced run), ``p`` may not;
* metrics (any subset of :data:`METRICS`): ``time`` is the elapsed time of the run,
  the others are the DAG Recorder metrics;
* optional labels: ``split`` (``train``/``test``/``test1``...), and after
  :meth:`Measurements.aggregate` the spread columns ``reps`` and ``<metric>_std``.

Times are in seconds (``unit="s"``) or clock cycles (``unit="cycles"`` with
``clock_hz``). Counts (``create_task``, ``wait_tasks``, ``end_task``) have no unit.

Readers and writers for files live in :mod:`probperf.formats`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from . import userwarn
from .limits import MAX_EXACT_INT, NotANumber, NumberError, check_value, parse_literal

#: The base parameters, in column order.
BASE_PARAMS: tuple[str, ...] = ("n", "p")

#: Parameters every table must have. ``n`` may be absent: runs at one (unnamed)
#: problem size, such as a single traced run, are valid data; models that
#: extrapolate in ``n`` ask for it through :meth:`Measurements.X`.
REQUIRED_PARAMS: tuple[str, ...] = ("p",)

#: The columns a prediction adds to its points (``Predictive.summary`` and ``probperf
#: predict``'s rows): no parameter may take one of these names, or a prediction's row
#: would hold two columns of one name (ExaFMM's tree ``level`` crashed predict's table
#: and was dropped from its JSON).
RESULT_COLUMNS: tuple[str, ...] = ("mean", "median", "lower", "upper", "level", "prob_fastest", "target", "unit", "beyond",
                                   "mean_reliable", "on_span", "laws", "decomposition", "noise_spread")

#: Metric columns a table may hold. ``serial_time`` is the measured run time of the
#: sequential program T(n) (the published Lobachev data), ``serial_work`` the work T1'
#: of a one-worker traced run.
METRICS: tuple[str, ...] = (
    "time",
    "work",
    "delay",
    "no_work",
    "create_task",
    "wait_tasks",
    "end_task",
    "critical_path",
    "serial_work",
    "serial_time",
)

#: The metrics only a traced run has (a timer alone gives time and serial_time).
TRACED_METRICS: tuple[str, ...] = tuple(m for m in METRICS if m not in ("time", "serial_time"))

#: The DAG metrics every traced run has, which the DAG-based models need.
DAG_METRICS: tuple[str, ...] = ("work", "delay", "no_work", "create_task", "wait_tasks")

#: Metrics measured in time units (converted by :meth:`Measurements.in_seconds`).
TIME_METRICS: tuple[str, ...] = (
    "time",
    "work",
    "delay",
    "no_work",
    "critical_path",
    "serial_work",
    "serial_time",
)

#: Metrics that are counts of DAG events.
COUNT_METRICS: tuple[str, ...] = ("create_task", "wait_tasks", "end_task")


def metric_label(metric: str, unit: str = "s") -> str:
    """How a metric is named on an axis or in a title: a time with its unit, a count as one.

    Examples
    --------
    >>> metric_label("time"), metric_label("work", "cycles"), metric_label("create_task")
    ('time [s]', 'work [cycles]', 'create_task (count)')
    """
    return f"{metric} (count)" if metric in COUNT_METRICS else f"{metric} [{unit}]"


#: The DAG metrics whose sum is ``p * time`` (identity (1), docs/concepts.md).
IDENTITY_METRICS: tuple[str, ...] = ("work", "delay", "no_work")

LABEL_COLUMNS: tuple[str, ...] = ("split", "reps")

UNITS: tuple[str, ...] = ("s", "cycles")

#: Default relative tolerance for the identity ``work + delay + no_work = p * time``.
IDENTITY_RTOL = 1e-3


class MeasurementError(ValueError):
    """Bad input, located: which file, which line (or row) and which column.

    Parameters
    ----------
    message : str
        What is wrong, in words a user can act on.
    source : str, optional
        The file (or other origin) the data came from.
    line : int, optional
        1-based line in the file (for text formats), or row number otherwise.
    column : str, optional
        The column or field that is wrong.
    value : optional
        The value that is wrong, as read (for a reader's caller that adds advice).

    Examples
    --------
    >>> str(MeasurementError("p must be a positive integer", "runs.csv", 3, "p"))
    'runs.csv, line 3, column p: p must be a positive integer'
    """

    def __init__(self, message, source=None, line=None, column=None, value=None):
        self.message = message
        self.value = value
        self.source = source
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self):
        where = []
        if self.source is not None:
            where.append(str(self.source))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        from .text import printable

        # a column name or a file's value may hold control characters: escaped, not sent to a terminal
        return printable((", ".join(where) + ": " if where else "") + self.message)


class IdentityWarning(UserWarning):
    """``work + delay + no_work`` differs from ``p * time`` beyond the tolerance.

    Examples
    --------
    >>> import warnings
    >>> df = pd.DataFrame({"p": [2], "time": [5.0], "work": [8.0],
    ...                    "delay": [1.0], "no_work": [2.0]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = validate_frame(df)
    >>> caught[0].category.__name__
    'IdentityWarning'
    """


class SpanWarning(IdentityWarning):
    """A run's critical path longer than its time or its work: a path of the DAG runs
    one strand after another, within the run and within the work, so the metrics
    are not of one run (or not in one unit). An :class:`IdentityWarning` as the
    identity's is: the commands that report the identity themselves (``doctor``)
    report this too.

    Examples
    --------
    >>> import warnings
    >>> df = pd.DataFrame({"p": [2], "time": [5.0], "work": [8.0], "critical_path": [6.0]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = validate_frame(df)
    >>> caught[0].category.__name__, str(caught[0].message)
    ('SpanWarning', 'column critical_path: 1st row: the critical path is 1.2x the run time (a path of the DAG runs within the run); 1 row(s) affected')
    """


def span_excess(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the critical path over the run time and over the work (NaN where a
    row lacks one of them): neither can exceed 1 in a traced run.

    Examples
    --------
    >>> [r.tolist() for r in span_excess(pd.DataFrame({"time": [2.0, 1.0], "work": [3.0, 9.0],
    ...                                                  "critical_path": [1.0, 4.0]}))]
    [[0.5, 4.0], [0.3333333333333333, 0.4444444444444444]]
    """
    def ratio(of):
        if "critical_path" not in frame or of not in frame:
            return np.full(len(frame), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            return frame["critical_path"].to_numpy(dtype=float) / frame[of].to_numpy(dtype=float)

    return ratio("time"), ratio("work")


def _check_span(frame, loc, strict, rtol) -> None:
    """Warn (with ``strict``, refuse) where a critical path exceeds its run's time or
    work by more than ``rtol``, the identity's tolerance: one such row lifted a DAG
    model's 90 % interval at 36 workers from 0.11 s to 78 s (helper-71). One warning,
    about the first such row, counting every row over either."""
    by_time, by_work = span_excess(frame)
    off = (by_time > 1.0 + rtol) | (by_work > 1.0 + rtol)
    if not off.any():
        return
    row = int(np.flatnonzero(off)[0])
    ratio, what, why = ((by_time[row], "run time", "within the run") if by_time[row] > 1.0 + rtol else
                        (by_work[row], "work", "among the work's strands"))
    error = loc.error(f"the critical path is {ratio:.3g}x the {what} (a path of the DAG runs {why}); "
                      f"{int(off.sum())} row(s) affected", row, "critical_path")
    if strict:
        raise error
    userwarn.warn(str(error), SpanWarning)


def row_name(row: int) -> str:
    """The 0-based position ``row`` named for a reader: ``"1st row"`` is the first.

    Examples
    --------
    >>> [row_name(i) for i in (0, 1, 2, 3, 10, 11, 12, 20, 101)]
    ['1st row', '2nd row', '3rd row', '4th row', '11th row', '12th row', '13th row', '21st row', '102nd row']
    """
    k = int(row) + 1
    suffix = "th" if k % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix} row"


@dataclass(frozen=True)
class Location:
    """How to name a row of a table in an error: file, line and column.

    ``first_line`` is the 1-based line of the first data row (2 for a CSV with a
    header, 1 for JSON lines); ``row_lines`` gives the line of every row instead (when
    blank lines are skipped); ``None`` for both names rows by :func:`row_name` ("3rd
    row"), counted from 1 as lines are, and in words so that a pandas user, who counts
    from 0, cannot read it off by one.
    ``row_sources`` names a file per row (tables read from many ``.stat`` files) and
    ``column_lines`` the line of each column's field per row in that file (0: none).
    ``header_line`` is named for problems with a whole column (missing, unknown), or
    ``key_lines[column]`` where a column has a line of its own (JSON lines: the first
    record with that key).

    Examples
    --------
    >>> str(Location("runs.csv", first_line=2).error("negative value", 3, "time"))
    'runs.csv, line 5, column time: negative value'
    >>> str(Location("runs.csv", first_line=2, given={"n": 0}).error("problem size n must be positive", 0, "n"))
    'runs.csv: n=0 given as a constant (--param, params=): problem size n must be positive'
    """

    source: str | None = None
    first_line: int | None = None
    row_sources: Sequence[str] | None = None
    row_lines: Sequence[int] | None = None
    column_lines: Mapping[str, Sequence[int]] | None = None
    header_line: int | None = None
    key_lines: Mapping[str, int] | None = None
    #: the parameters given as constants (``--param``, ``params=``), named as such
    given: Mapping[str, object] | None = None
    #: the positions of the rows in the table they were cut from (:meth:`rows`), named
    #: where no line is known
    row_positions: Sequence[int] | None = None

    def error(self, message, row=None, column=None) -> MeasurementError:
        """A :class:`MeasurementError` naming the file, the line of ``row`` (0-based)
        and ``column``; without ``row``, the header line (a whole column is wrong).

        Examples
        --------
        >>> loc = Location("runs.csv", first_line=2, header_line=1)
        >>> str(loc.error("must be a positive integer", 0, "p"))
        'runs.csv, line 2, column p: must be a positive integer'
        >>> str(loc.error("unknown column", column="tme"))
        'runs.csv, line 1, column tme: unknown column'
        """
        if self.given and column in self.given:  # not in the file: no line holds it
            return MeasurementError(f"{column}={self.given[column]} given as a constant (--param, params=): {message}",
                                    self.source)
        if row is None:  # a problem with the table or a whole column: name the header
            line = (self.key_lines or {}).get(column, self.header_line)
            return MeasurementError(message, self.source, line, column)
        source = self.source if self.row_sources is None else self.row_sources[row]
        line = None
        if self.column_lines is not None and column in self.column_lines:
            line = int(self.column_lines[column][row]) or None
        elif self.row_lines is not None:
            line = int(self.row_lines[row])
        elif self.first_line is not None and self.row_sources is None:
            line = self.first_line + row
        if line is None and self.row_sources is None:
            message = f"{row_name(row if self.row_positions is None else self.row_positions[row])}: {message}"
        return MeasurementError(message, source, line, column)

    def rows(self, positions) -> "Location":
        """The location of the rows at ``positions`` (0-based, in order): a table cut
        from this one (a split, the traced runs) names the same lines.

        Examples
        --------
        >>> str(Location("runs.csv", first_line=2).rows([0, 3]).error("negative value", 1, "time"))
        'runs.csv, line 5, column time: negative value'
        >>> str(Location().rows([0, 3]).error("negative value", 1, "time"))
        'column time: 4th row: negative value'
        """
        pos = [int(i) for i in positions]
        pick = lambda seq: None if seq is None else [seq[i] for i in pos]  # noqa: E731
        lines = pick(self.row_lines)
        if lines is None and self.first_line is not None and self.row_sources is None:
            lines = [self.first_line + i for i in pos]
        columns = None if self.column_lines is None else {c: pick(v) for c, v in self.column_lines.items()}
        positions = pick(self.row_positions) if self.row_positions is not None else pos
        return replace(self, first_line=None if lines is not None else self.first_line,
                       row_sources=pick(self.row_sources), row_lines=lines, column_lines=columns,
                       row_positions=positions)


def validate_frame(
    frame: pd.DataFrame,
    config: Sequence[str] = (),
    *,
    location: Location | None = None,
    strict: bool = False,
    identity_rtol: float = IDENTITY_RTOL,
) -> pd.DataFrame:
    """Check a raw table and return it with numeric dtypes.

    Raises :class:`MeasurementError` naming the file, line and column of the first
    problem: a missing ``p`` column (``n`` is optional), an unknown column, a value that is not a
    number, NaN, a negative value, ``p`` not a positive integer, no metric at all, or
    (with ``strict``) the identity ``work + delay + no_work = p * time`` broken by more
    than ``identity_rtol`` (relative). Without ``strict`` the identity gives an
    :class:`IdentityWarning`.

    Examples
    --------
    >>> df = pd.DataFrame({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6]})
    >>> validate_frame(df).dtypes["p"]
    dtype('int64')
    >>> validate_frame(df.assign(time=[None, None]))
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: column time: no run has a value in the metric column time: nothing was measured
    """
    loc = location or Location()
    if frame.shape[0] == 0:
        raise loc.error("the table has no rows")
    columns = [str(c) for c in frame.columns]
    _check_header(columns, config, loc)
    out = frame.copy()
    out.columns = columns
    for c in (c for c in columns if c != "split"):
        out[c] = _checked_numbers(out[c], c, c in BASE_PARAMS or c in config, loc)
    _check_counts(out, loc)
    metrics = [c for c in columns if c in METRICS]
    if not any(out[c].notna().any() for c in metrics):  # headers alone: nothing to fit or check
        raise loc.error(f"no run has a value in the metric column{'s' * (len(metrics) > 1)} {', '.join(metrics)}: "
                        "nothing was measured", column=metrics[0])
    if "split" in out:
        out["split"] = out["split"].astype(str)
    _check_identity(out, loc, strict, identity_rtol)
    _check_span(out, loc, strict, identity_rtol)
    return out


#: how a header problem's message begins, for a caller that words it for its own
#: context (``probperf plot --data``: the model's parameters, not ``--config``)
UNKNOWN_COLUMN = "unknown column"
MISSING_CONFIG = "declared configuration parameter"
#: how the refusal of a clock rate for times in seconds begins (the CLI says it as its option)
CLOCK_NOT_CYCLES = "clock_hz applies to times in cycles"


def _check_header(columns: list[str], config: Sequence[str], loc: Location) -> None:
    """Column names: no duplicates, ``p`` and the declared configuration present,
    nothing unknown (a typo must not pass as a new parameter), at least one metric."""
    reserved = set(BASE_PARAMS) | set(METRICS) | set(LABEL_COLUMNS)
    for c in config:
        if list(config).count(c) > 1:  # the declaration's fault, not the file's
            raise MeasurementError(f"configuration parameter {c!r} is declared twice (config=[...] or --config)")
        if c in reserved or c.removesuffix("_std") in METRICS:
            kind = "a parameter already" if c in BASE_PARAMS else "a metric or label, not a parameter"
            raise loc.error(f"{c!r} cannot be declared a configuration parameter: it is {kind}", column=c)
        if not _addressable(c):
            # a parameter is addressed as NAME=VALUE in --at lists: these could not be
            raise loc.error(f"configuration parameter name {c!r} cannot be used in NAME=VALUE lists such as "
                            "--at (no '=', ',' or surrounding spaces)", column=c)
    seen = set()
    for c in columns:
        if c in seen:
            raise loc.error(f"duplicate column {c!r} in the header", column=c)
        seen.add(c)
    check_required_columns(columns, config, loc)
    for c in config:
        if c not in seen:
            raise loc.error(f"{MISSING_CONFIG} {c!r} is missing", column=c)
    check_known_columns(columns, config, loc)
    if not any(c in METRICS for c in columns):
        raise loc.error(f"no metric column; expected at least one of {', '.join(METRICS)}")


def check_required_columns(columns: Sequence[str], config: Sequence[str], loc: Location) -> None:
    """``p`` among ``columns``, else an error that offers the columns of other names
    (threads, workers): one of them is likely it. Readers call it before they name
    unknown columns, which would advise declaring the worker count a configuration.

    Examples
    --------
    >>> check_required_columns(["n", "threads", "time"], [], Location("runs.csv", header_line=1))
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: runs.csv, line 1, column p: required parameter column 'p' is missing (the number of workers: name that column p; the file's other columns are threads)

    A comment line above the header is read as the header:

    >>> check_required_columns(["# run on node 7"], [], Location("runs.csv", header_line=1))
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: runs.csv, line 1, column p: required parameter column 'p' is missing: the header read is '# run on node 7' (a comment line? delete the lines above the header)

    >>> check_required_columns(["N", "P", "Time"], [], Location("runs.csv", header_line=1))
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: runs.csv, line 1, column p: required parameter column 'p' is missing: the file has 'P' (column names are case-sensitive: rename it p)
    """
    others = [str(c) for c in columns if c not in _known(config)]
    for c in REQUIRED_PARAMS:
        if c not in columns and columns and str(columns[0]).startswith("#") and str(columns[0]) != "#":
            # a comment line above the header ('#' alone is a repetition index's column)
            raise loc.error(f"required parameter column {c!r} is missing: the header read is "
                            f"{str(columns[0])[:40]!r} (a comment line? delete the lines above the header)", column=c)
        cased = [str(o) for o in columns if str(o).lower() == c]
        if c not in columns and cased:  # 'P': the parquet path said "a typo", the CSV one did not (helper-88)
            raise loc.error(f"required parameter column {c!r} is missing: the {'file' if loc.source else 'table'} "
                            f"has {cased[0]!r} (column names are case-sensitive: rename it {c})", column=c)
        if c not in columns:
            hint = (f" (the number of workers: name that column {c}; the {'file' if loc.source else 'table'}'s "
                    "other columns are "
                    f"{', '.join(others[:6])}{', ...' if len(others) > 6 else ''})") if others else ""
            raise loc.error(f"required parameter column {c!r} is missing{hint}", column=c)


def _known(config: Sequence[str]) -> set[str]:
    return {*BASE_PARAMS, *config, *METRICS, *LABEL_COLUMNS, *(f"{m}_std" for m in METRICS)}


def check_known_columns(columns: Sequence[str], config: Sequence[str], loc: Location) -> None:
    """Every column a parameter (``n``, ``p``, a declared configuration), a metric (or
    its ``_std``) or a label: a typo must not pass as a new parameter. Readers call it
    before they parse values, so that a column of host names is named as unknown rather
    than as holding a value that is not a number.

    Examples
    --------
    >>> check_known_columns(["n", "p", "time", "host"], [], Location("runs.csv", header_line=1))
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: runs.csv, line 1, column host: unknown column 'host'; declare ...
    """
    import difflib

    known = _known(config)
    for c in columns:
        if c in RESULT_COLUMNS:
            raise loc.error(f"a parameter cannot be named {c!r}: a prediction's row has a column of that name "
                            f"({', '.join(RESULT_COLUMNS)}); rename it, e.g. {c}_setting (or, a label, leave it "
                            "out)", column=c)
    unknown = [c for c in columns if c not in known]
    if not unknown:
        return
    c = unknown[0]
    if not _addressable(c):  # declaring it, as the advice below says, would be refused
        example = _renamed(c)
        raise loc.error(f"{UNKNOWN_COLUMN} {c!r}, and no parameter can take that name (it goes into NAME=VALUE "
                        "lists such as --at: no '=', ',' or surrounding spaces); rename the column"
                        + ("" if example in columns else f", e.g. {example!r}"), column=c)
    # a typo: of a metric, or of a declared name that is no column (--config ppm for ppn)
    absent = [d for d in config if d not in columns]
    close = difflib.get_close_matches(c, [*absent, *(x for x in METRICS if x not in columns)], n=1, cutoff=0.6)
    hint = "" if close and close[0] in absent else column_hint(c)
    if hint:  # a metric with its unit, a repetition index: the general advice would make it a parameter
        raise loc.error(f"{UNKNOWN_COLUMN} {c!r}: {hint}", column=c)
    typo = "" if not close else (f" (a typo? the declared {close[0]!r} is no column)" if close[0] in absent
                                 else f" (a typo for the metric {close[0]!r}?)")
    if c.lower() in known and c.lower() not in columns:  # 'N' for n: said before the advice to declare it
        typo = f" (column names are case-sensitive: {c.lower()!r}?)"
    also = f" (also unknown: {', '.join(repr(u) for u in unknown[1:])})" if len(unknown) > 1 else ""
    names = shlex.quote(",".join(unknown))  # one word to a shell (a name with a space)
    if not typo and not any(m in columns for m in METRICS):
        # no metric at all: one of the unknown columns is the measured time, and declaring
        # them all parameters (the advice below) would leave nothing to fit
        raise loc.error(
            f"{UNKNOWN_COLUMN} {c!r}{also}, and no metric column: name the measured time's column time "
            f"(in seconds){'' if 'n' in columns else ', the problem size n'} "
            f"(metrics are {', '.join(METRICS)})",
            column=c,
        )
    raise loc.error(
        f"{UNKNOWN_COLUMN} {c!r}{also}{typo}; declare configuration parameters with "
        f"config={unknown!r} or --config {names}, and leave labels such as host names out "
        f"(metrics are {', '.join(METRICS)})",
        column=c,
    )


def _addressable(name: str) -> bool:
    """Whether ``name`` can be a parameter's: it is written NAME=VALUE in lists such as
    ``--at n=64,p=8``, so no ``=``, no ``,`` and no surrounding spaces.

    Examples
    --------
    >>> _addressable("cutoff"), _addressable("p "), _addressable("a=b")
    (True, False, False)
    """
    return bool(name.strip()) and name == name.strip() and not {"=", ","} & set(name)


def _renamed(name: str) -> str:
    """A name :func:`_addressable` takes, made from ``name`` (for a message).

    Examples
    --------
    >>> _renamed(" block size "), _renamed("a=b,c")
    ('block size', 'a_b_c')
    """
    return re.sub(r"[=,]", "_", name.strip()) or "setting"


#: Seconds per unit of the time units a column name may carry (``time_ms``, ``work [us]``).
NAMED_UNITS = {"s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6,
               "usec": 1e-6, "µs": 1e-6, "ns": 1e-9, "nsec": 1e-9, "cycles": None}
#: Column names of a repetition index: each row is a run already, so they are no parameter.
#: Singular and exact only: ``iterations``, ``trials`` or ``runs`` may well be a workload.
REPETITION_NAMES = ("rep", "repetition", "run", "trial", "#", "idx", "index")


def column_hint(c: str) -> str:
    """What an undeclared column that is neither parameter nor metric most likely is,
    where its name says (else ""): a metric with its unit in the name, or a repetition
    index. The general advice (declare it a configuration) would make either a
    parameter, and a time in milliseconds renamed ``time`` would be read as seconds.

    Examples
    --------
    >>> column_hint("time_ms")
    "the metric 'time' in ms: give it in seconds (times 0.001) in a column named 'time'"
    >>> column_hint("Time [s]"), column_hint("rep")[:44]
    ("the metric 'time' in s: name the column 'time'", 'a repetition index: leave it out (each row i')
    >>> column_hint("host"), column_hint("iterations"), column_hint("runs"), column_hint("time_steps")
    ('', '', '', '')
    """
    import re

    found = re.fullmatch(r"\s*([a-z_]+?)[\s_\-]*[\[(]?\s*([a-zµ]+)\s*[\])]?\s*", c.lower())
    if found and found.group(1) in METRICS and found.group(2) in NAMED_UNITS:
        metric, unit = found.groups()
        seconds = NAMED_UNITS[unit]
        if seconds is None:
            return (f"the metric {metric!r} in cycles: name the column {metric!r} and read the table with "
                    "unit='cycles' and clock_hz (pp.read), or give it in seconds")
        if seconds == 1.0:
            return f"the metric {metric!r} in {unit}: name the column {metric!r}"
        return f"the metric {metric!r} in {unit}: give it in seconds (times {seconds:g}) in a column named {metric!r}"
    if c.strip().lower() in REPETITION_NAMES:
        return ("a repetition index: leave it out (each row is one run; repeated settings are repetitions), "
                f"or, if it is a parameter, declare it with --config {shlex.quote(c)}")
    return ""


def _checked_numbers(column: pd.Series, c: str, is_param: bool, loc: Location) -> pd.Series:
    """Column ``c`` as finite, non-negative numbers (NaN allowed in metrics only)."""
    values = _numeric(column, loc, c, config=is_param and c not in BASE_PARAMS)
    # Blank cells are allowed only in metric columns (a metric measured for some
    # rows only, like serial_time in the published data); parameters need values.
    if is_param and values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise loc.error("missing value (NaN) in a parameter column", row, c)
    finite = values.dropna()
    if np.isinf(finite.to_numpy(dtype=float)).any():
        row = int(np.flatnonzero(np.isinf(values.to_numpy(dtype=float)))[0])
        raise loc.error("value is infinite", row, c)
    if (finite < 0).any():
        row = int(np.flatnonzero((values < 0).to_numpy())[0])
        raise loc.error(f"negative value {_show(values.iloc[row])}", row, c)
    return values


def _check_counts(out: pd.DataFrame, loc: Location) -> None:
    """``p`` a positive integer, ``n`` and ``time`` positive, ``reps`` whole; ``p``
    and ``reps`` become int64 in place."""
    p = out["p"].to_numpy(dtype=float)
    bad_p = (p < 1) | (p != np.round(p))
    if bad_p.any():
        row = int(np.flatnonzero(bad_p)[0])
        raise loc.error(f"p must be a positive integer, got {_show(out['p'].iloc[row])}", row, "p")
    # beyond 2**53 float64 holds no exact integer, and int64 would wrap (1e19 -> -2**63);
    # compared in the column's own type: 2**53 + 1 read as an integer is 2**53 as a float
    # (helper-88)
    big = out["p"].to_numpy() > MAX_EXACT_INT
    if big.any():
        row = int(np.flatnonzero(big)[0])
        raise loc.error(f"p = {_show(out['p'].iloc[row])} is beyond 2**53, the largest integer "
                        "held exactly", row, "p")
    out["p"] = out["p"].astype("int64")
    if "n" in out and (out["n"] <= 0).any():
        row = int(np.flatnonzero((out["n"] <= 0).to_numpy())[0])
        raise loc.error("problem size n must be positive", row, "n")
    if "time" in out and (out["time"] <= 0).any():  # NaN (not measured) compares False
        row = int(np.flatnonzero((out["time"] <= 0).to_numpy())[0])
        raise loc.error("run time must be positive (a run takes time; a value rounded to 0 is no measurement)",
                        row, "time")
    if "reps" in out:
        reps = out["reps"].to_numpy(dtype=float)
        bad = (reps != np.round(reps)) | (reps > MAX_EXACT_INT)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise loc.error(f"reps must be a whole number up to 2**53, got {_show(reps[row])}", row, "reps")
        out["reps"] = out["reps"].astype("int64")


def named_setting_hint(column: str, value) -> str:
    """What follows "value 'ring' is not a number" in configuration column ``column``
    when ``value`` is a name (text that spells no number, not a blank or a boolean):
    a made-up number would order the settings; one 0/1 column per setting but one
    gives each its own factor (the docs' "Bring your own data").

    Examples
    --------
    >>> named_setting_hint("algo", "1.5"), named_setting_hint("algo", "inf"), named_setting_hint("algo", "")
    ('', '', '')
    >>> named_setting_hint("algo", "ring")
    "; a configuration parameter is a number: give settings by name (an algorithm) as one 0/1 column per setting but one, in place of 'algo' (docs: Bring your own data)"
    """
    if not isinstance(value, str) or not value.strip() or value.strip().lower() in ("true", "false"):
        return ""
    try:
        parse_literal(value)
        return ""  # a number written as text, or one out of range: the message says what is wrong
    except NotANumber:
        return (f"; a configuration parameter is a number: give settings by name (an algorithm) as one 0/1 "
                f"column per setting but one, in place of {column!r} (docs: Bring your own data)")
    except NumberError:
        return ""


def _numeric(column: pd.Series, loc: Location, name: str, config: bool = False) -> pd.Series:
    """A column as numbers; booleans, complex numbers, text and values beyond float64
    are refused (:func:`probperf.limits.check_value`), blanks become NaN. ``config``:
    a configuration column (a name in it gets :func:`named_setting_hint`)."""
    kind = column.dtype.kind
    if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and kind in "iuf":
        # pandas' nullable Int64/Float64: pd.NA is a missing value, as NaN is in float64
        return column.astype("float64")
    if kind in "iuf":  # already numbers (NaN and infinities are checked by the caller)
        return column
    if kind != "O":  # bool, complex, dates...: never a measurement
        try:
            check_value(column.iloc[0])
        except NumberError as exc:
            raise loc.error(str(exc), 0, name) from None
        raise loc.error(f"values of type {column.dtype} are not numbers", 0, name)
    blank = _blank(column).to_numpy()
    for row, v in enumerate(column.tolist()):
        if blank[row]:
            continue
        try:
            check_value(_from_text(v))
        except NumberError as exc:
            raise loc.error(str(exc) + (named_setting_hint(name, v) if config else ""), row, name) from None
    return pd.to_numeric(column.where(~blank), errors="coerce")


def _from_text(value):
    """A cell written as text (``"3"`` in a DataFrame) as the number it spells."""
    return parse_literal(value) if isinstance(value, str) else value


def _show(value) -> str:
    """A cell for a message: ``2.5`` or ``'fast'``, not ``np.float64(2.5)``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _blank(column: pd.Series) -> pd.Series:
    """True where a cell is empty (None, NaN or an empty string)."""
    return column.isna() | (column.astype(str).str.strip() == "")


def identity_residual(frame: pd.DataFrame) -> np.ndarray:
    """Relative residual ``(work + delay + no_work - p*time) / (p*time)`` per row.

    NaN where a row lacks one of the metrics. When all the columns hold integers
    (cycle counts) the difference is computed exactly, so an identity that holds
    exactly gives exactly 0 however large the counts.

    Examples
    --------
    >>> df = pd.DataFrame({"p": [2], "time": [5.0], "work": [8.0],
    ...                    "delay": [1.0], "no_work": [1.0]})
    >>> float(identity_residual(df)[0])
    0.0
    """
    needed = (*IDENTITY_METRICS, "time", "p")
    if not all(c in frame for c in needed):
        return np.full(len(frame), np.nan)
    if all(pd.api.types.is_integer_dtype(frame[c]) for c in needed):
        return _exact_residual(frame)
    budget = frame["p"].to_numpy(dtype=float), frame["time"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # each part over p, then over time: p * time or the sum of parts near the top of
        # float64 overflowed to inf, and an inf budget made the residual NaN, unchecked
        return sum(frame[m].to_numpy(dtype=float) / budget[0] / budget[1] for m in IDENTITY_METRICS) - 1.0


def _exact_residual(frame: pd.DataFrame) -> np.ndarray:
    # Python ints: no overflow, no rounding before the final division.
    cols = {c: frame[c].tolist() for c in (*IDENTITY_METRICS, "time", "p")}
    out = np.empty(len(frame))
    for i in range(len(frame)):
        budget = cols["p"][i] * cols["time"][i]
        diff = sum(cols[m][i] for m in IDENTITY_METRICS) - budget
        out[i] = diff / budget if budget else (0.0 if diff == 0 else np.inf)
    return out


def _percent_off(x: float) -> str:
    """A relative residual in percent, to 3 decimals, as a power past a million percent
    (a time of 1e-310 s is 1e307 % off: 300 digits otherwise)."""
    return f"{x * 100:+.3f}%" if abs(x) < 1e4 else f"{x * 100:+.3g}%"


def _check_identity(frame, loc, strict, rtol):
    resid = identity_residual(frame)
    off = np.abs(resid) > rtol
    if not off.any():
        return
    row = int(np.flatnonzero(off)[0])
    msg = (
        f"work + delay + no_work differs from p * time by {_percent_off(resid[row])} "
        f"(tolerance {rtol:.3%}); {int(off.sum())} row(s) affected"
    )
    if strict:
        raise loc.error(msg, row, "time")
    userwarn.warn(str(loc.error(msg, row, "time")), IdentityWarning)


def one_setting(m: "Measurements") -> bool:
    """Whether every run of ``m`` is at one setting (no parameter has two values): there
    the DAG model refuses (its parts would be constants, an interval of no width), and
    ``fit``'s ``auto`` models time alone, whose laws carry the runs' spread.

    Examples
    --------
    >>> one_setting(Measurements({"n": [64, 64], "p": [4, 4], "time": [1.0, 1.1]}))
    True
    """
    return not any(m.frame[c].nunique() > 1 for c in m.params)


def _check_cycles(frame, loc) -> None:
    """Warn where a run time said to be in clock cycles is below one cycle, which no run
    takes: the times are likely seconds (``--unit cycles`` given to the wrong file)."""
    if "time" not in frame:
        return
    time = frame["time"].to_numpy(dtype=np.float64)
    below = (time > 0) & (time < 1)
    if below.any():
        row = int(np.argmax(below))
        msg = (f"time is {time[row]:.4g} cycles, less than one clock cycle, in {int(below.sum())} of {len(time)} "
               "runs: are the times in seconds? (then the unit is s, not cycles)")
        userwarn.warn(str(loc.error(msg, row, "time")), UserWarning)


def _condition_mask(values: pd.Series, cond) -> np.ndarray:
    """Rows whose value meets ``cond``: a ``(low, high)`` tuple (inclusive, ``None`` an
    open end), a collection of values, or one value (see :meth:`Measurements.select`)."""
    if isinstance(cond, tuple):
        if len(cond) != 2:  # a tuple is a range; values are a list
            raise ValueError(f"a tuple selects a range (low, high); give several values as a list, got {cond!r}")
        lo, hi = cond
        mask = np.ones(len(values), dtype=bool)
        if lo is not None:
            mask &= (values >= lo).to_numpy()
        if hi is not None:
            mask &= (values <= hi).to_numpy()
        return mask
    if isinstance(cond, (list, set, np.ndarray, range, pd.Series, pd.Index)):
        return values.isin(list(cond)).to_numpy()
    return (values == cond).to_numpy()


def _as_frame(frame, source) -> pd.DataFrame:
    """``frame`` (a DataFrame or a mapping of columns) as a DataFrame; columns of
    different lengths, or scalars alone, are named as such (pandas says neither in
    the words of a table of runs).

    Examples
    --------
    >>> _as_frame({"n": [1, 2], "time": [1.0]}, None)
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: the columns have different lengths (n: 2, time: 1); give one value per run in each
    >>> _as_frame(pd.DataFrame({"n": [1, 2], "p": [1, 1]}).set_index("n"), None).columns.tolist()
    ['n', 'p']
    >>> _as_frame(pd.DataFrame({"n": [1, 2], "p": [1, 1]}).set_index("n", drop=False), None).columns.tolist()
    ['n', 'p']
    """
    if isinstance(frame, (str, bytes)) or hasattr(frame, "__fspath__"):
        raise TypeError(f"Measurements takes a table (a DataFrame or a dict of columns), got the path {frame!r}: "
                        "read a file with pp.read(path)")
    if isinstance(frame, Measurements):  # pandas would say "DataFrame constructor not properly called!"
        raise TypeError("Measurements takes a table (a DataFrame or a dict of columns), got a Measurements: use it "
                        "as it is, or its .frame with other options")
    if isinstance(frame, pd.DataFrame) and any(name is not None for name in frame.index.names):
        # a named index is a column set aside (df.set_index("n")), not labels; one kept as a
        # column too (set_index("n", drop=False)) is that column already
        kept = [name for name in frame.index.names if name is not None and name in frame.columns]
        frame = frame.reset_index(level=kept, drop=True) if kept else frame
        return frame.reset_index(drop=all(name is None for name in frame.index.names))
    if isinstance(frame, dict):
        lengths = {k: (len(v) if np.ndim(v) else None) for k, v in frame.items()}
        if lengths and all(n is None for n in lengths.values()):
            raise MeasurementError("every column is a single value; give each as a list (one value per run), "
                                   "e.g. {'n': [10], 'p': [1], 'time': [1.0]}", source)
        sized = {k: n for k, n in lengths.items() if n is not None}
        if len(set(sized.values())) > 1:
            raise MeasurementError("the columns have different lengths ("
                                   + ", ".join(f"{k}: {n}" for k, n in sized.items())
                                   + "); give one value per run in each", source)
    if np.ndim(frame) == 0 and not isinstance(frame, (pd.DataFrame, dict)):  # pandas: "constructor not properly called!"
        raise TypeError(f"Measurements takes a table (a DataFrame or a dict of columns), got {type(frame).__name__} "
                        f"{frame!r:.40}")
    if isinstance(frame, pd.Series):  # one run's values by column (df.iloc[0]), or one column
        raise TypeError(f"Measurements takes a table (a DataFrame or a dict of columns), got a Series of {len(frame)} "
                        "values: for one run pass a one-row DataFrame (df.iloc[[0]]), for one column a dict of "
                        "columns")
    if isinstance(frame, np.ndarray) and frame.dtype.names:  # a record array names its columns (df.to_records())
        return pd.DataFrame(frame)
    if not isinstance(frame, (pd.DataFrame, dict)) and np.ndim(frame) == 1 and not any(
            isinstance(v, dict) for v in frame):  # pandas would make one column called 0
        raise TypeError(f"Measurements takes a table (a DataFrame or a dict of columns), got a list of {len(frame)} "
                        "values: name the columns, e.g. {'n': [...], 'p': [...], 'time': [...]}")
    return pd.DataFrame(frame)


def config_list(config) -> list[str]:
    """The configuration parameters declared by ``config``: one name alone is one
    parameter (``list("sched")`` would be five one-letter ones), else a list of names.

    Examples
    --------
    >>> config_list("cutoff"), config_list(("m", "k")), config_list(None)
    (['cutoff'], ['m', 'k'], [])
    >>> config_list(3)
    Traceback (most recent call last):
    ...
    TypeError: config takes the names of the configuration columns (a string or a list of strings), got 3
    """
    names = [config] if isinstance(config, str) else list(config or ()) if isinstance(config or (), Iterable) else None
    if names is None or not all(isinstance(c, str) for c in names):
        raise TypeError(f"config takes the names of the configuration columns (a string or a list of strings), "
                        f"got {config!r}"[:300])
    return names


def _names(columns) -> list:
    """Column names as a list; one name alone is one column (``list("time")`` would be four).

    Examples
    --------
    >>> _names("time"), _names(["n", "p"]), _names(None)
    (['time'], ['n', 'p'], [])
    """
    return [columns] if isinstance(columns, str) else list(columns or [])


class Measurements:
    """A validated table of runs of one task-parallel program.

    Parameters
    ----------
    frame : pandas.DataFrame or mapping of column -> values
        One row per run with columns ``p`` (and usually ``n``), the ``config``
        parameters and any of :data:`METRICS` (plus optional ``split``).
    config : sequence of str
        Names of configuration parameter columns (cut-offs, block sizes).
    unit : {"s", "cycles"}
        Unit of the time metrics.
    clock_hz : float, optional
        Clock rate, required to convert ``cycles`` to seconds; only with ``unit="cycles"``.
    source : str, optional
        Where the data came from; used in error messages.
    strict : bool
        Raise instead of warn when the identity (1) is broken.

    Examples
    --------
    >>> m = Measurements({"n": [100, 100, 200], "p": [1, 2, 2],
    ...                   "time": [4.0, 2.2, 4.1]})
    >>> m.params, m.metrics
    (['n', 'p'], ['time'])
    >>> m.select(p=2).frame["time"].tolist()
    [2.2, 4.1]
    """

    def __init__(
        self,
        frame,
        config: Sequence[str] = (),
        *,
        unit: str = "s",
        clock_hz: float | None = None,
        source: str | None = None,
        strict: bool = False,
        location: Location | None = None,
    ):
        if unit not in UNITS:
            raise MeasurementError(f"unknown time unit {unit!r}; use one of {UNITS}", source)
        if clock_hz is not None:
            try:
                clock_hz = float(check_value(clock_hz))
            except (NumberError, TypeError, ValueError):
                raise MeasurementError(f"clock_hz must be a number of hertz, got {clock_hz!r}", source) from None
            if not (0 < clock_hz < float("inf")):
                raise MeasurementError(f"clock_hz must be positive and finite, got {clock_hz!r}", source)
            if unit != "cycles":  # a rate for times already in seconds would be kept and never used
                raise MeasurementError(f"{CLOCK_NOT_CYCLES} (unit='cycles'), but unit is {unit!r}", source)
        frame = _as_frame(frame, source)
        self.config = config_list(config)
        self.unit = unit
        self.clock_hz = clock_hz
        self.source = source
        loc = location or Location(source=source)
        frame = validate_frame(frame, self.config, location=loc, strict=strict)
        if unit == "cycles":
            _check_cycles(frame, loc)
        self._location = loc  # rows keep their order: a later check names the line too
        # Parameters first, in params order, so every writer lays tables out alike.
        first = [c for c in (*BASE_PARAMS, *self.config) if c in frame]
        frame = frame[first + [c for c in frame.columns if c not in first]]
        self._frame = frame.reset_index(drop=True)

    # -- views ---------------------------------------------------------------------

    @property
    def frame(self) -> pd.DataFrame:
        """A copy of the underlying table."""
        return self._frame.copy()

    @property
    def params(self) -> list[str]:
        """Parameter columns: ``n`` (if present), ``p`` and the configuration parameters."""
        return [*(c for c in BASE_PARAMS if c in self._frame), *self.config]

    @property
    def metrics(self) -> list[str]:
        """Metric columns present (with at least one value), in :data:`METRICS` order."""
        return [m for m in METRICS if m in self._frame and self._frame[m].notna().any()]

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        return (
            f"Measurements({len(self)} rows, params={self.params}, metrics={self.metrics}, "
            f"unit={self.unit!r})"
        )

    def has(self, *metrics: str) -> bool:
        """True if every named metric is present in every row.

        Examples
        --------
        >>> m = Measurements({"n": [10, 20], "p": [1, 2], "time": [1.0, 0.6], "work": [1.0, None]})
        >>> m.has("time"), m.has("time", "work")
        (True, False)
        """
        return all(m in self._frame and self._frame[m].notna().all() for m in metrics)

    def require(self, *metrics: str) -> None:
        """Raise :class:`MeasurementError` naming the first metric that is missing.

        Also takes parameter names: a table read from ``.stat`` files without a
        pattern has no ``n``, which a model that extrapolates in ``n`` needs.

        Examples
        --------
        >>> m = Measurements({"p": [4], "time": [1.0]})
        >>> m.require("time")
        >>> m.require("n")
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: column n: parameter 'n' is needed but missing ...
        """
        for m in metrics:
            if m not in self._frame and m in BASE_PARAMS:
                raise MeasurementError(
                    f"parameter {m!r} is needed but missing (give it as a column; the commands that read "
                    f"runs, and 'probperf record', take --param {m}=VALUE, and of .stat files a file-name "
                    f"--pattern)",
                    self.source,
                    column=m,
                )
            if m not in self._frame:
                # a table of times alone meets a model of the DAG metrics: say where they come from
                traced = " (a metric of traced runs: 'probperf record' writes it)" if m in TRACED_METRICS else ""
                raise MeasurementError(f"metric {m!r} is needed but missing{traced}", self.source, column=m)
            if self._frame[m].isna().any():
                row = int(np.flatnonzero(self._frame[m].isna().to_numpy())[0])
                raise self.row_error(f"metric {m!r} is needed but missing", row, m)

    def ranges(self) -> dict[str, tuple[float, float, int]]:
        """``{param: (min, max, number of distinct values)}``.

        Examples
        --------
        >>> m = Measurements({"n": [100, 100, 200], "p": [1, 2, 4], "time": [4.0, 2.2, 2.1]})
        >>> for name, (low, high, count) in m.ranges().items():
        ...     print(name, low, high, count)
        n 100 200 2
        p 1 4 3
        """
        return {
            c: (self._frame[c].min(), self._frame[c].max(), self._frame[c].nunique())
            for c in self.params
        }

    def identity_residual(self) -> np.ndarray:
        """Relative residual of ``work + delay + no_work = p * time`` per row.

        Examples
        --------
        >>> m = Measurements({"n": [10, 10], "p": [2, 2], "time": [5.0, 5.0], "work": [8.0, 8.004],
        ...                   "delay": [1.0, 1.0], "no_work": [1.0, 1.0]})
        >>> m.identity_residual().round(6).tolist()
        [0.0, 0.0004]
        """
        return identity_residual(self._frame)

    # -- derived tables ------------------------------------------------------------

    def _derive(self, frame: pd.DataFrame) -> "Measurements":
        out = object.__new__(Measurements)
        out.config = list(self.config)
        out.unit = self.unit
        out.clock_hz = self.clock_hz
        out.source = self.source
        out._frame = frame.reset_index(drop=True)
        return out

    def select(self, split: str | Iterable[str] | None = None, **where) -> "Measurements":
        """Rows matching a split label and parameter conditions.

        Each keyword names a parameter and gives a value, a list of values, or a
        ``(low, high)`` tuple (inclusive; ``None`` for an open end).

        Raises
        ------
        MeasurementError
            If nothing matches, or a named column does not exist.

        Examples
        --------
        >>> m = Measurements({"n": [100, 100, 200, 400], "p": [1, 2, 2, 4],
        ...                   "time": [4.0, 2.2, 4.1, 4.3], "split": ["train", "train", "train", "test"]})
        >>> m.select("train", p=2).frame["n"].tolist()
        [100, 200]
        >>> m.select(n=(150, None)).frame["time"].tolist()  # n >= 150
        [4.1, 4.3]
        >>> m.select(p=[1, 4]).frame["n"].tolist()
        [100, 400]
        >>> m.select(p=8)
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: no rows match p=8
        """
        mask = np.ones(len(self._frame), dtype=bool)
        if split is not None:
            if "split" not in self._frame:
                raise MeasurementError("no 'split' column to select on", self.source, column="split")
            labels = [split] if isinstance(split, str) else list(split)
            mask &= self._frame["split"].isin(labels).to_numpy()
        for col, cond in where.items():
            if col not in self._frame:
                raise MeasurementError(f"no column {col!r} to select on", self.source, column=col)
            mask &= _condition_mask(self._frame[col], cond)
        if not mask.any():
            labels = ""
            if split is not None and not where:  # a label mistyped (or cased otherwise): say which there are
                present = sorted({str(v) for v in self._frame["split"].dropna()})
                shown = ", ".join(repr(v) for v in present[:10]) + (", ..." if len(present) > 10 else "")
                labels = f" (its split labels: {shown})" if present else " (its split column is empty)"
            asked = ([f"split={split!r}"] if split is not None else []) + [f"{c}={v!r}" for c, v in where.items()]
            raise MeasurementError(f"no rows match {' and '.join(asked)}" + labels, self.source)
        return self.rows(mask)

    def rows(self, mask) -> "Measurements":
        """The runs where ``mask`` is true, whose errors still name their lines.

        Examples
        --------
        >>> m = Measurements({"n": [1, 2, 3], "p": [1, 1, 1], "time": [1.0, 2.0, 3.0]})
        >>> m.rows(np.array([False, True, True])).frame["n"].tolist()
        [2, 3]
        """
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != (len(self),):  # positions read as booleans would pick other runs
            raise ValueError(f"rows takes a boolean mask of {len(self)} values, one per run")
        out = self._derive(self._frame[mask])
        loc = getattr(self, "_location", None)
        if loc is not None:
            out._location = loc.rows(np.flatnonzero(mask))
        return out

    def row_error(self, message: str, row: int, column: str | None = None) -> MeasurementError:
        """A :class:`MeasurementError` about run ``row`` (0-based), naming its file
        and line where the table was read from one.

        Examples
        --------
        >>> str(Measurements({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]}).row_error("odd", 1, "time"))
        'column time: 2nd row: odd'
        """
        loc = getattr(self, "_location", None) or Location(self.source)
        return loc.error(message, row, column)

    def aggregate(self, how: str = "mean") -> "Measurements":
        """One row per distinct parameter setting: ``mean``, ``median`` or ``min``.

        The spread is kept: ``reps`` counts the repetitions and ``<metric>_std`` holds
        their standard deviation (0 for a single repetition).

        Examples
        --------
        >>> m = Measurements({"n": [100, 100, 100], "p": [2, 2, 4], "time": [2.0, 2.2, 1.3]})
        >>> a = m.aggregate()
        >>> a.frame[["p", "time", "reps"]].values.tolist()
        [[2.0, 2.1, 2.0], [4.0, 1.3, 1.0]]
        >>> a.frame["time_std"].round(3).tolist()
        [0.141, 0.0]
        """
        if how not in ("mean", "median", "min"):
            raise ValueError(f"how must be 'mean', 'median' or 'min', got {how!r}")
        keys = self.params + (["split"] if "split" in self._frame else [])
        metrics = self.metrics
        grouped = self._frame.groupby(keys, sort=True, dropna=False)
        center = grouped[metrics].agg(how)
        spread = grouped[metrics].std(ddof=1).fillna(0.0).add_suffix("_std")
        reps = grouped.size().rename("reps")
        frame = pd.concat([center, spread, reps], axis=1).reset_index()
        return self._derive(frame)

    def in_seconds(self) -> "Measurements":
        """The same table with time metrics in seconds.

        Examples
        --------
        >>> m = Measurements({"n": [100], "p": [2], "time": [3e9]}, unit="cycles", clock_hz=1.5e9)
        >>> s = m.in_seconds()
        >>> s.unit, s.frame["time"].tolist()
        ('s', [2.0])
        """
        if self.unit == "s":
            return self
        if not self.clock_hz:
            raise MeasurementError("times are in cycles and no clock_hz is set", self.source)
        frame = self._frame.copy()
        for m in TIME_METRICS:
            for c in (m, f"{m}_std"):
                if c in frame:
                    frame[c] = frame[c] / self.clock_hz
        out = self._derive(frame)
        out._location = getattr(self, "_location", None)  # the same runs: their errors name the same lines
        out.unit, out.clock_hz = "s", None
        return out

    def in_unit(self, unit: str) -> "Measurements":
        """The table in ``unit`` where a clock rate allows it: in seconds if counted in
        cycles with a rate, else itself (a caller refuses a unit that still differs, in
        its own words). One rule for ``pp.fit``, ``plot`` and the scores: a rate given
        is used.

        Examples
        --------
        >>> m = Measurements({"n": [1], "p": [1], "time": [2e9]}, unit="cycles", clock_hz=2e9)
        >>> m.in_unit("s").frame["time"].tolist(), m.in_unit("cycles").unit
        ([1.0], 'cycles')
        """
        return self.in_seconds() if unit == "s" and self.unit == "cycles" and self.clock_hz else self

    def concat(self, *others: "Measurements") -> "Measurements":
        """Rows of this table followed by the rows of ``others`` (same params and unit).

        Examples
        --------
        >>> a = Measurements({"n": [1], "p": [1], "time": [1.0]}, source="a.csv")
        >>> len(a.concat(a))
        2
        >>> a.concat(Measurements({"n": [1], "p": [1], "m": [3], "time": [1.0]}, config=["m"], source="b.csv"))
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: b.csv: its parameters (n, p, m) are not those of a.csv (n, p): tables read together must have the same parameters
        """
        frames = [self._frame]
        for o in others:
            if not isinstance(o, Measurements):
                raise TypeError(f"concat takes Measurements tables, got {type(o).__name__}")
            first = self.source or "the first table"
            if sorted(o.params) != sorted(self.params):  # the same in another order is the same table
                raise MeasurementError(f"its parameters ({', '.join(o.params)}) are not those of {first} "
                                       f"({', '.join(self.params)}): tables read together must have the same parameters", o.source)
            if o.unit != self.unit:
                raise MeasurementError(f"its times are in {o.unit}, those of {first} in {self.unit}: tables read "
                                       "together must have the same unit", o.source)
            if o.unit == "cycles" and o.clock_hz != self.clock_hz:  # one rate stands for all runs
                raise MeasurementError(f"its clock rate ({o.clock_hz} Hz) is not that of {first} ({self.clock_hz} "
                                       "Hz): convert each with in_seconds() first", o.source)
            frames.append(o._frame)
        return self._derive(pd.concat(frames, ignore_index=True))

    def with_columns(self, **columns) -> "Measurements":
        """A copy with metric columns added or replaced (validated again).

        Examples
        --------
        >>> m = Measurements({"n": [100, 200], "p": [2, 2], "time": [2.0, 4.1]})
        >>> m.with_columns(work=[3.9, 8.0]).metrics
        ['time', 'work']
        >>> m.with_columns(time=[1.0])  # one value per run, or one for all
        Traceback (most recent call last):
        ...
        ValueError: with_columns: time has 1 values for 2 runs
        """
        frame = self._frame.copy()
        for k, v in columns.items():
            if isinstance(v, pd.Series):  # by position, one value per run: an index of its own would misalign
                v = v.to_numpy()
            if np.ndim(v) and len(v) != len(frame):  # a scalar is every run's
                raise ValueError(f"with_columns: {k} has {len(v)} values for {len(frame)} runs")
            frame[k] = v
        return Measurements(
            frame, self.config, unit=self.unit, clock_hz=self.clock_hz, source=self.source
        )

    # -- arrays for models ---------------------------------------------------------

    def X(self, features: Sequence[str] | None = None) -> np.ndarray:
        """Parameter matrix (rows x features), float64; default features: :attr:`params`.

        Examples
        --------
        >>> m = Measurements({"n": [100, 200], "p": [1, 4], "time": [4.0, 2.1]})
        >>> m.X().tolist()
        [[100.0, 1.0], [200.0, 4.0]]
        >>> m.X("p").tolist()
        [[1.0], [4.0]]
        """
        features = _names(features) or list(self.params)
        for f in features:
            if f not in self._frame:
                raise MeasurementError(f"no parameter column {f!r}", self.source, column=f)
        return self._frame[features].to_numpy(dtype=np.float64)

    def y(self, metric: str) -> np.ndarray:
        """Values of one metric, float64; raises if it is missing anywhere.

        Examples
        --------
        >>> m = Measurements({"n": [100, 200], "p": [1, 4], "time": [4.0, 2.1], "work": [4.0, None]})
        >>> m.y("time").tolist()
        [4.0, 2.1]
        >>> m.y("work")
        Traceback (most recent call last):
        ...
        probperf.data.MeasurementError: column work: 2nd row: metric 'work' is needed but missing
        """
        self.require(metric)
        return self._frame[metric].to_numpy(dtype=np.float64)

    def to_torch(self, metric: str, features: Sequence[str] | None = None, dtype=None):
        """``(X, y)`` as torch tensors (float64 unless ``dtype`` is given).

        Examples
        --------
        >>> m = Measurements({"n": [100, 200, 400], "p": [1, 4, 4], "time": [4.0, 2.1, 4.2]})
        >>> X, y = m.to_torch("time")
        >>> tuple(X.shape), y.tolist(), str(X.dtype)
        ((3, 2), [4.0, 2.1, 4.2], 'torch.float64')
        """
        import torch

        dtype = dtype or torch.float64
        return (
            torch.tensor(self.X(features), dtype=dtype),
            torch.tensor(self.y(metric), dtype=dtype),
        )

    def points(self, features: Sequence[str] | None = None) -> pd.DataFrame:
        """The parameter columns as a DataFrame (what models' ``predict`` accepts), or
        the columns ``features`` (a metric may be a model's input).

        Examples
        --------
        >>> m = Measurements({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]})
        >>> m.points(["q"])
        Traceback (most recent call last):
        ...
        ValueError: points: these runs have no column 'q'; they have n, p, time
        """
        features = _names(features) or list(self.params)
        unknown = [c for c in features if c not in self._frame]
        if unknown:
            raise ValueError(f"points: these runs have no column {unknown[0]!r}; they have "
                             f"{', '.join(self._frame.columns)}")
        return self._frame[features].copy()


#: The split label a fit uses by default (the CLI's ``fit --split``, ``pp.fit(split=)``).
TRAIN_SPLIT = "train"


def labelled_rows(m: Measurements, split: str | None, every_row: str) -> tuple[Measurements, int]:
    """The rows a fit on ``split`` uses, and how many rows it leaves out for lack of a
    label; one rule for the CLI's ``--split`` and ``pp.fit(split=)``, which say what
    they picked each in their own way. ``split`` None or ``""``: every row. A table
    without a split column is used whole for the default label and refused for any
    other (it cannot have that label). ``every_row``: how the caller's user asks for
    every row, added to the errors.

    Examples
    --------
    >>> m = Measurements({"n": [1, 2, 3, 4], "p": [1, 1, 1, 1], "time": [1.0, 2.0, 3.0, 4.0],
    ...                   "split": ["train", "train", None, "test"]})
    >>> rows, unlabelled = labelled_rows(m, "train", "pass split=None")
    >>> len(rows), unlabelled, len(labelled_rows(m, "", "pass split=None")[0])
    (2, 1, 4)
    >>> labelled_rows(m, "Train", "pass split=None")
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: no rows match split='Train' (its split labels: 'test', 'train'); pass split=None
    """
    if not split:
        return m, 0
    if "split" not in m.frame:
        if split == TRAIN_SPLIT:
            return m, 0
        raise MeasurementError(f"no split column to pick split={split!r} from; {every_row}", m.source)
    try:
        chosen = m.select(split=split)
    except MeasurementError as exc:
        raise MeasurementError(f"{exc.message}; {every_row}", exc.source) from None
    labels = m.frame["split"]
    return chosen, int((labels.isna() | (labels.astype(str).str.strip() == "")).sum())  # a CSV's blank reads as ""


def near_labels(m: Measurements, split: str | None) -> dict[str, int]:
    """Split labels that differ from ``split`` only in case or spaces ('Train' for
    'train'), with their row counts: left out of a fit on ``split`` (labels are matched
    exactly), and said by the CLI and ``pp.fit``, since a typo is the likely cause.

    Examples
    --------
    >>> m = Measurements({"n": [1, 2, 3], "p": [1, 1, 1], "time": [1.0, 2.0, 3.0], "split": ["train", "Train", "test"]})
    >>> near_labels(m, "train"), near_labels(m, None)
    ({'Train': 1}, {})
    """
    if not split or "split" not in m.frame:
        return {}
    labels = m.frame["split"].dropna().astype(str)
    near = labels[(labels != split) & (labels.str.strip().str.lower() == split.strip().lower())]
    return {str(k): int(v) for k, v in near.value_counts().sort_index().items()}


def near_text(near: Mapping[str, int]) -> str:
    """What :func:`near_labels` found, as a phrase.

    Examples
    --------
    >>> near_text({"Train": 1})
    "1 row(s) labelled 'Train' left out (labels are matched exactly)"
    """
    return (f"{sum(near.values())} row(s) labelled {', '.join(repr(k) for k in near)} left out "
            "(labels are matched exactly)")


def as_points(at, features: Sequence[str] | None = None) -> pd.DataFrame:
    """Coerce prediction inputs to a DataFrame of parameter columns.

    Accepts a DataFrame, a :class:`Measurements`, a mapping of column -> scalar or
    array, or a 2-D array whose columns are ``features`` (default ``("n", "p")``).

    Examples
    --------
    >>> as_points({"n": [1024, 2048], "p": 36})
          n   p
    0  1024  36
    1  2048  36
    """
    if isinstance(at, Measurements):
        return at.points(features)
    if isinstance(at, pd.DataFrame):
        frame = at.copy()
    elif isinstance(at, Mapping):
        values = {k: np.atleast_1d(np.asarray(v)) for k, v in at.items()}
        length = max(len(v) for v in values.values())
        frame = pd.DataFrame({k: np.broadcast_to(v, (length,)) for k, v in values.items()})
    else:
        arr = np.atleast_2d(np.asarray(at, dtype=float))
        names = list(features or BASE_PARAMS)
        if arr.shape[1] != len(names):
            raise ValueError(f"expected {len(names)} columns ({names}), got {arr.shape[1]}")
        frame = pd.DataFrame(arr, columns=names)
    if features is not None:
        missing = [f for f in features if f not in frame]
        if missing:
            raise ValueError(f"prediction points lack parameter(s) {missing}")
        frame = frame[list(features)]
    return frame.reset_index(drop=True)


def check_positive_finite(values: np.ndarray, what: str) -> None:
    """Raise ``ValueError`` naming ``what`` if any value is not finite and > 0.

    Examples
    --------
    >>> check_positive_finite([1.0, 2.0], "n")
    >>> check_positive_finite([1.0, 0.0], "n")
    Traceback (most recent call last):
    ...
    ValueError: n must be positive and finite; index 1 is 0.0
    """
    values = np.asarray(values, dtype=float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} must be positive and finite; index {i} is {_show(values[i])}")


def column_baseline(frame: pd.DataFrame, size_features: Sequence[str], columns: Sequence[str]) -> tuple:
    """``(column, values, gap)``: the first of ``columns`` that gives every row a
    sequential baseline, a row's blank filled from another run of its size and
    configuration (``size_features``; a column may be filled on one run per size);
    ``(None, None, gap)`` where none does, ``gap`` the first ``(column, row)`` left
    blank in a column that has values (``None``: every column absent or blank).

    Examples
    --------
    >>> df = pd.DataFrame({"n": [8, 8, 16, 16], "serial_work": [3.0, None, None, 9.0]})
    >>> name, values, gap = column_baseline(df, ["n"], ["serial_work"])
    >>> name, values.tolist(), gap
    ('serial_work', [3.0, 3.0, 9.0, 9.0], None)
    >>> column_baseline(df.assign(n=[8, 8, 16, 32]), ["n"], ["serial_work"])[::2]
    (None, ('serial_work', 2))
    """
    gap = None
    for col in (c for c in columns if c in frame and frame[c].notna().any()):
        filled = frame[col].fillna(frame.groupby(list(size_features), dropna=False)[col].transform("first"))
        if filled.notna().all():
            return col, filled.to_numpy(dtype=np.float64), gap
        gap = gap or (col, int(np.flatnonzero(filled.isna().to_numpy())[0]))
    return None, None, gap


def one_worker_baseline(frame: pd.DataFrame, size_features: Sequence[str], columns: Sequence[str],
                        metric: str, source=None, needed_by: str = "this model", runs=None) -> np.ndarray:
    """A sequential baseline per row: T1'(n) for the DAG model, T(n) for the penalty model.

    The first of ``columns`` that gives every row a value (:func:`column_baseline`);
    otherwise the mean ``metric`` of the ``p == 1`` runs with the same size and
    configuration (``size_features``), one source for every row: a column with a gap
    that those runs fill is set aside with a warning (it was set aside unsaid), and a
    gap they do not fill is named. ``runs``: the :class:`Measurements` that ``frame``
    is, to name a row by its file's line (and its file: ``source`` is for a bare frame).

    Examples
    --------
    >>> df = pd.DataFrame({"n": [8, 8, 16, 16], "p": [1, 2, 1, 2], "work": [4.0, 5.0, 9.0, 10.0]})
    >>> one_worker_baseline(df, ["n"], ["serial_work"], "work").tolist()
    [4.0, 4.0, 9.0, 9.0]
    >>> one_worker_baseline(df.assign(serial_work=[3.5, None, None, 8.5]), ["n"], ["serial_work"], "work").tolist()
    [3.5, 3.5, 8.5, 8.5]
    """
    name, values, gap = column_baseline(frame, size_features, columns)
    if name is not None:
        return values

    def error(message, row=None):
        if runs is not None and row is not None:
            return runs.row_error(message, row, columns[0])
        where = runs.source if runs is not None else source
        return MeasurementError(message if row is None else f"{row_name(row)}: {message}", where, column=columns[0])

    ones = frame[frame["p"] == 1]
    if ones.empty and gap is None:
        raise error(f"{needed_by} needs the sequential baseline: a {' or '.join(map(repr, columns))} column "
                    "or runs with p=1")
    means = ones.groupby(list(size_features))[metric].mean().rename("_baseline")
    joined = frame[list(size_features)].merge(means, left_on=list(size_features), right_index=True, how="left")
    missing = joined["_baseline"].isna().to_numpy()
    if gap is not None and (missing.any() or ones.empty):
        raise error(f"no {gap[0]!r} value at this size/configuration and no p=1 run there, so its sequential "
                    f"baseline is unknown; add its {gap[0]} or p=1 runs", gap[1])
    if missing.any():
        raise error(f"no p=1 run at this size/configuration, so its sequential baseline is unknown; add p=1 runs "
                    f"or a {columns[0]!r} column", int(np.flatnonzero(missing)[0]))
    if gap is not None:
        userwarn.warn(str(error(f"no {gap[0]!r} value at this size/configuration: the p=1 runs' {metric} is the "
                                f"sequential baseline of every run, not {gap[0]}", gap[1])))
    return joined["_baseline"].to_numpy(dtype=np.float64)
