"""Readers and writers for measurement tables.

Formats, chosen by the file suffix in :func:`read` and :func:`write`:

* ``.csv`` -- header line, one row per run; blank cells are missing metric values;
* ``.parquet`` -- columns as in CSV; the unit, clock rate and configuration
  parameters travel in the file's metadata;
* ``.jsonl`` -- one JSON object per line; ``null`` is a missing metric value;
* ``.stat`` -- DAG Recorder statistics, one traced run per file (times in cycles);
  read only, usually many at once through a glob, see :func:`read_dag_recorder`;
* ``.txt`` / ``.extrap`` -- Extra-P text input (one metric, normally ``time``),
  see :func:`read_extrap` and :func:`write_extrap`.

Every reader raises :class:`~probperf.data.MeasurementError` naming the file, line and
column of the first problem. Every writer writes a temporary file beside the target
and renames it, so a failed write leaves nothing behind; numbers are written with
``repr`` precision so a round trip changes no value.
"""

from __future__ import annotations

import contextlib
import csv
import glob as globlib
import io
import json
import math
import os
import re
import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TypedDict

import numpy as np
import pandas as pd

from . import userwarn
from .data import (
    BASE_PARAMS,
    LABEL_COLUMNS,
    METRICS,
    Location,
    MeasurementError,
    Measurements,
    check_known_columns,
    check_required_columns,
    config_list,
    named_setting_hint,
    row_name,
)
from .limits import MAX_FIELD_CHARS, NumberError, check_value, parse_literal
from .outputs import atomic_write as _atomic_write, check_output

if TYPE_CHECKING:  # typing.Unpack of a TypedDict is Python 3.11+; only checkers need it
    from typing_extensions import Unpack

#: DAG Recorder field -> column. The other lines (``T1/P``, speedups, granularities,
#: node counts and the edge matrices) are derived or not per-run metrics.
STAT_FIELDS: dict[str, str] = {
    "create_task": "create_task",
    "wait_tasks": "wait_tasks",
    "end_task": "end_task",
    "work (T1)": "work",
    "delay": "delay",
    "no_work": "no_work",
    "critical_path (T_inf)": "critical_path",
    "n_workers (P)": "p",
    "elapsed": "time",
}

#: Suffix -> format name.
SUFFIXES: dict[str, str] = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".jsonl": "jsonl",
    ".stat": "stat",
    ".txt": "extrap",
    ".extrap": "extrap",
}

_GLOB_CHARS = frozenset("*?[")


class ReadOptions(TypedDict, total=False):
    """The keyword options every reader takes, all optional (:func:`read` passes them on).

    Declared once for all the readers; a reader given another keyword raises
    ``TypeError``, as any function does.

    Attributes
    ----------
    config : sequence of str, default ``()``
        Columns to declare as configuration parameters.
    params : mapping, optional
        Parameters constant over the input, added as columns, e.g. ``{"p": 4}``.
    unit : str, default ``"s"``
        Unit of the times (``"cycles"`` for cycle counts).
    clock_hz : float, optional
        Clock rate, to convert cycles to seconds later (:meth:`Measurements.in_seconds`).
    strict : bool, default ``False``
        Raise instead of warn when ``work + delay + no_work != p * time``.

    Examples
    --------
    >>> import tempfile, os
    >>> runs = os.path.join(tempfile.mkdtemp(), "fib.jsonl")
    >>> _ = open(runs, "w").write('{"n": 30, "time": 1200}\\n')
    >>> options: ReadOptions = {"params": {"p": 4}, "unit": "cycles"}
    >>> m = read_jsonl(runs, **options)
    >>> m.frame.values.tolist(), m.unit
    ([[30, 4, 1200]], 'cycles')
    """

    config: Sequence[str]
    params: Mapping | None
    unit: str
    clock_hz: float | None
    strict: bool


#: What a reader does with an option not given.
_READ_DEFAULTS: ReadOptions = {"config": (), "params": None, "unit": "s", "clock_hz": None, "strict": False}
_COMMON_OPTIONS = set(_READ_DEFAULTS)
#: Keyword arguments each reader takes (``read`` rejects others, naming them).
_READ_OPTIONS = {
    "csv": _COMMON_OPTIONS,
    "jsonl": _COMMON_OPTIONS,
    "parquet": _COMMON_OPTIONS,
    "extrap": _COMMON_OPTIONS | {"metric", "region"},
    "stat": {"config", "params", "clock_hz", "strict", "pattern", "side_table"},
}
_INT64_MAX = 2**63 - 1


# -- dispatch ------------------------------------------------------------------------


def read(path, **kw) -> Measurements:
    """Read measurements; the format follows the suffix of ``path``.

    Parameters
    ----------
    path : str or Path or sequence of them
        A file, a glob (``"runs/*.stat"``; matching nothing is an error) or a list of
        files of one format. Several files are concatenated.
    **kw
        The :class:`ReadOptions` (for ``.stat`` files all but ``unit``, and ``pattern``
        and ``side_table`` besides); ``metric`` and ``region`` for Extra-P.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "runs.csv"), "w").write("n,p,time\\n10,1,2.5\\n")
    >>> read(os.path.join(d, "runs.csv")).frame["time"].tolist()
    [2.5]
    """
    if not isinstance(path, (str, os.PathLike)) and not (
            isinstance(path, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in path)):
        raise TypeError(f"read takes a path, a glob or a list of paths, got {type(path).__name__}"
                        + (": a table in memory is pp.Measurements(frame)" if hasattr(path, "columns") else ""))
    paths = _expand(path)
    kinds = {_format_of(p) for p in paths}
    if len(kinds) > 1:
        where = path if isinstance(path, (str, os.PathLike)) else ", ".join(map(str, path))  # not a list's repr
        raise MeasurementError(f"cannot mix formats ({', '.join(sorted(kinds))}) in one read; convert the files "
                               "to one format first", str(where))
    kind = kinds.pop()
    for key in kw:
        if key not in _READ_OPTIONS[kind]:
            raise MeasurementError(
                f"option {key!r} does not apply to {kind} files "
                f"(it takes {', '.join(sorted(_READ_OPTIONS[kind]))})",
                str(path),
            )
    if kind == "stat":
        return read_dag_recorder(paths, **kw)
    reader = {"csv": read_csv, "parquet": read_parquet, "jsonl": read_jsonl, "extrap": read_extrap}[
        kind
    ]
    try:
        tables = [reader(p, **kw) for p in paths]
    except MeasurementError as exc:
        if exc.column in config_list(kw.get("config")):  # a declared configuration column: say what to do with names
            exc.message += named_setting_hint(exc.column, exc.value)
        raise
    return tables[0].concat(*tables[1:]) if len(tables) > 1 else tables[0]


def write(measurements: Measurements, path) -> Path:
    """Write ``measurements`` atomically; the format follows the suffix of ``path``.

    Extra-P text holds one metric, so writing a table with more than ``time`` (or with
    a ``split`` column) to ``.txt``/``.extrap`` is an error rather than a silent loss;
    use :func:`write_extrap` to export one metric on purpose. ``.stat`` is read only.

    Returns the path written.

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [10], "p": [2], "time": [0.1]})
    >>> out = write(m, os.path.join(tempfile.mkdtemp(), "m.jsonl"))
    >>> open(out).read()
    '{"n": 10, "p": 2, "time": 0.1}\\n'

    What the format does not record and a reader must be given (a unit of cycles, the
    clock rate, configuration parameters: all but Parquet) is said as a ``UserWarning``
    naming the options that read the file back (:func:`_read_back`).
    """
    if not isinstance(measurements, Measurements):
        raise TypeError(f"write takes a probperf Measurements table, got {type(measurements).__name__} "
                        "(pp.Measurements(frame) makes one)")
    path = Path(path)
    kind = _format_of(path)
    if kind == "stat":
        raise MeasurementError("DAG Recorder .stat files can be read, not written", str(path))
    check_output(path)  # a missing directory by its name, not by the temporary file's
    if kind == "extrap":
        lost = [c for c in measurements.frame.columns if c not in (*measurements.params, "time")]
        if lost:
            raise MeasurementError(
                f"Extra-P text holds the parameters and one metric (time); this table also "
                f"has {', '.join(lost)}. Write CSV, Parquet or JSON lines to keep them, or "
                f"export one metric with probperf.write_extrap(m, path, metric=...)",
                str(path),
            )
        out = write_extrap(measurements, path)
    else:
        out = {"csv": write_csv, "parquet": write_parquet, "jsonl": write_jsonl}[kind](measurements, path)
    note = _read_back(measurements, kind)
    if note:
        userwarn.warn(note)
    return out


def _read_back(measurements: Measurements, kind: str) -> str | None:
    """What a file of format ``kind`` does not record of ``measurements`` and must be
    given to read it back as written, or None: read back
    without them, cycle counts would pass for seconds and a configuration column would
    be refused as unknown. Parquet records all; Extra-P text its parameters.

    Examples
    --------
    >>> m = Measurements({"n": [1], "p": [1], "nnodes": [4], "time": [2e9]}, config=["nnodes"], unit="cycles",
    ...                  clock_hz=2e9)
    >>> print(_read_back(m, "csv"))
    times are in clock cycles; this format does not record the unit, the clock rate or the configuration parameters (Parquet does): read it back with unit='cycles', clock_hz=2e+09, config=['nnodes'] (--unit cycles --clock-hz 2e+09 --config nnodes)
    >>> _read_back(m, "parquet") is None
    True
    """
    if kind == "parquet":
        return None
    lost = []  # (what, the Python keyword, the command-line option)
    if measurements.unit == "cycles":
        lost.append(("the unit", "unit='cycles'", "--unit cycles"))
        if measurements.clock_hz:
            hz = f"{measurements.clock_hz:g}"
            lost.append(("the clock rate", f"clock_hz={hz}", f"--clock-hz {hz}"))
    # Extra-P text declares every parameter; a simulated program's are read back undeclared
    undeclared = [] if kind == "extrap" else [
        c for c in measurements.config if c not in _simulator_config(measurements.config, [])]
    if undeclared:
        # quoted for a shell where a name needs it (a space: --config 'bad name')
        lost.append(("the configuration parameters", f"config={undeclared!r}",
                     f"--config {shlex.quote(','.join(undeclared))}"))
    if not lost:
        return None
    what, py, cli = zip(*lost)
    listed = what[0] if len(what) == 1 else f"{', '.join(what[:-1])} or {what[-1]}"
    lead = "times are in clock cycles; " if measurements.unit == "cycles" else ""
    return (f"{lead}this format does not record {listed} (Parquet does): read it back with {', '.join(py)} "
            f"({' '.join(cli)})")


#: Formats a table of DAG metrics can be written to without loss (Extra-P text holds
#: one metric): what ``sim run`` and ``record`` write.
TABLE_FORMATS = ("csv", "parquet", "jsonl")


def output_format(path, option: str, kinds=("csv", "parquet", "jsonl", "extrap")) -> str:
    """The format ``path``'s suffix names, when it is one of ``kinds`` (a writable
    format); else ``ValueError`` naming ``option`` and the suffixes to use. Checked
    before any work, so a bad name never costs a run.

    Examples
    --------
    >>> output_format("runs.parquet", "-o", TABLE_FORMATS)
    'parquet'
    >>> output_format("runs.xlsx", "-o", TABLE_FORMATS)
    Traceback (most recent call last):
    ...
    ValueError: -o runs.xlsx: use a .csv, .parquet or .jsonl file name
    """
    kind = SUFFIXES.get(Path(str(path)).suffix.lower())
    if kind not in kinds:
        names = [s for s, k in SUFFIXES.items() if k in kinds]
        raise ValueError(f"{option} {path}: use a {', '.join(names[:-1])} or {names[-1]} file name")
    return kind


def _format_of(path) -> str:
    suffix = Path(str(path)).suffix.lower()
    if suffix not in SUFFIXES:
        if os.path.isdir(path):  # a folder of runs named for the files in it: its name has no suffix
            raise MeasurementError(IS_DIRECTORY, str(path))
        _refuse_model_file(path)
        raise MeasurementError(
            f"unknown file type {suffix or '(no suffix)'!r}; use one of {', '.join(SUFFIXES)}",
            str(path),
        )
    return SUFFIXES[suffix]


def _refuse_model_file(path) -> None:
    """A :class:`MeasurementError` if ``path`` holds a probperf model: the slip predict
    names the other way round."""
    from .persist import is_model_file

    if is_model_file(path):
        raise MeasurementError("a probperf model file, not measurements: predict or plot with it "
                               f"(probperf predict {path} --at ...)", str(path))


def _expand(paths) -> list[str]:
    """Files named by a path, a glob or a list of either; a glob must match."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[str] = []
    for p in paths:
        p = os.fspath(p)
        if _GLOB_CHARS & set(p) and not os.path.exists(p):
            matched = sorted(globlib.glob(p))
            if not matched:
                raise MeasurementError("no files match this pattern", p)
            out.extend(matched)
        else:
            out.append(p)
    if not out:
        raise MeasurementError("no input files given")
    _refuse_repeated_files(out)
    return out


def input_files(paths) -> list[str]:
    """The files that ``read(paths)`` reads: each glob expanded (it must match), a file
    named twice refused. ``convert`` uses it to refuse writing over one of its inputs.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name in ("a.csv", "b.csv"):
    ...     _ = open(os.path.join(d, name), "w").write("n,p,time\\n1,1,1.0\\n")
    >>> [os.path.basename(f) for f in input_files(os.path.join(d, "*.csv"))]
    ['a.csv', 'b.csv']
    """
    return _expand(paths)


def _refuse_repeated_files(files) -> None:
    """A :class:`MeasurementError` for a file named twice (``runs/*.csv runs/a.csv``, or
    one file by two paths): its runs would count twice, and intervals fitted on them
    narrow as if they had been measured twice."""
    seen: dict = {}
    for f in files:
        key = os.path.realpath(f)
        if key in seen:
            also = "" if seen[key] == f else f" (as {seen[key]})"
            raise MeasurementError(f"the file is given twice{also}; give each file once", f)
        seen[key] = f


# -- shared helpers -------------------------------------------------------------------


#: Why a directory named as a measurements file is refused.
IS_DIRECTORY = "is a directory, not a file"
#: Why a file that is not UTF-8 is refused: {byte} is the first byte that is not.
NOT_UTF8 = "not UTF-8 text (byte {byte}); save the file as UTF-8"


@contextlib.contextmanager
def _reading(path):
    """Turn the ways a text file cannot be read into a :class:`MeasurementError`."""
    try:
        yield
    except FileNotFoundError:
        raise MeasurementError("file not found", str(path)) from None
    except IsADirectoryError:
        raise MeasurementError(IS_DIRECTORY, str(path)) from None
    except UnicodeDecodeError:
        _refuse_model_file(path)  # under a text suffix (model.csv): named as a model, not by its bytes
        if (kind := _binary_kind(path)) is not None:  # a binary table under a text suffix: no line to name
            raise MeasurementError(f"a {kind} file, not text: name it {Path(str(path)).stem}.{kind}", str(path)) from None
        # the decoder's offset is into the chunk it was given, not the file: find the line anew
        line, byte = _first_non_utf8(path)
        raise MeasurementError(NOT_UTF8.format(byte=f"0x{byte:02x}"), str(path), line) from None
    except OSError as exc:
        raise MeasurementError(f"cannot read the file ({exc.strerror or exc})", str(path)) from None


def _binary_kind(path) -> str | None:
    """``"parquet"`` for a file that starts with Parquet's magic bytes ``PAR1`` (one
    written by ``probperf convert`` or pandas, then renamed), else None.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.csv")
    >>> _ = open(path, "wb").write(b"PAR1\x15\x04")
    >>> _binary_kind(path)
    'parquet'
    """
    with open(path, "rb") as f:
        return "parquet" if f.read(4) == b"PAR1" else None


def _first_non_utf8(path) -> tuple[int, int]:
    """The line and value of the first byte of ``path`` that is not UTF-8 (a file
    saved as Latin-1 or Windows-1252, or not text at all), read in chunks. Lines end
    as the readers' do: at ``\\n``, ``\\r\\n`` or a lone ``\\r``.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.csv")
    >>> _ = open(path, "wb").write(b"n,p,time [\\xb5s]\\n1,1,2\\n")
    >>> _first_non_utf8(path)
    (1, 181)
    >>> _ = open(path, "wb").write(b"n,p,time\\r1,1,2\\r\\n2,1,\\xb5\\r")
    >>> _first_non_utf8(path)
    (3, 181)
    """
    import codecs

    def breaks(data: bytes, after_cr: bool) -> int:  # line ends in data; a \r\n split by a chunk counts once
        return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") - (after_cr and data[:1] == b"\n")

    decoder = codecs.getincrementaldecoder("utf-8")()
    line, after_cr = 1, False
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 16)
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:  # its object: bytes held from the last chunk (no line end) + this one
                return line + breaks(exc.object[:exc.start], after_cr), exc.object[exc.start]
            if not chunk:
                return line, 0  # unreachable for a file that failed to decode, unless it changed since
            line += breaks(chunk, after_cr)
            after_cr = chunk.endswith(b"\r")


def _read_text(path) -> str:
    # utf-8-sig: spreadsheet exports start with a byte-order mark; it is not data
    with _reading(path), open(path, encoding="utf-8-sig") as f:
        return f.read()


def _number(text: str, source, line=None, column=None, context: str = "", missing: str = ""):
    """The number ``text`` holds (:func:`~probperf.limits.parse_literal`), or a
    :class:`MeasurementError` at ``source``, ``line``, ``column`` saying why not
    (``missing``: how the format writes a missing value, said after a NaN)."""
    try:
        return parse_literal(text)
    except NumberError as exc:
        raise MeasurementError(f"{context}{_with_missing(exc, missing)}", source, line, column, value=text) from None


def _with_missing(exc: NumberError, missing: str) -> str:
    """The error, with the format's missing value after a NaN: a NaN written for a run
    not measured is the likeliest cause, and the fix is the format's own word for it.

    Examples
    --------
    >>> _with_missing(NumberError("value is NaN"), "leave the cell empty")
    'value is NaN (leave the cell empty for a missing value)'
    """
    return f"{exc} ({missing} for a missing value)" if missing and str(exc) == "value is NaN" else str(exc)


def _column_array(values: list) -> np.ndarray:
    """int64 if every value is an int that fits, else float64 (``None`` -> NaN).

    The values are already checked finite numbers (:mod:`probperf.limits`), so the
    conversion to float cannot overflow."""
    if all(type(v) is int and -_INT64_MAX <= v <= _INT64_MAX for v in values):
        return np.array(values, dtype=np.int64)
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _python_values(series: pd.Series) -> list:
    """Column values as Python ints/floats/str, ``None`` for missing: a NaN in a float
    column, and a missing label in a text one (a split label read as null was written
    back as the text 'nan', and refused by JSON).

    Examples
    --------
    >>> _python_values(pd.Series(["train", None, float("nan")], dtype="string"))
    ['train', None, None]
    """
    values = series.tolist()
    if pd.api.types.is_float_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        return [None if v is pd.NA or (isinstance(v, float) and v != v) else v for v in values]
    return values


def _format_value(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _add_params(frame: pd.DataFrame, params: Mapping | None, source) -> pd.DataFrame:
    """Constant parameter columns given by the user (``--param p=4``)."""
    for name, value in (params or {}).items():
        if name in METRICS:  # a constant run time would be a measurement made up, not a parameter
            raise MeasurementError(f"{name}={value} given as a constant (--param, params=): {name} is a metric, "
                                   "measured per run, not a parameter", str(source))
        if name in frame:
            raise MeasurementError(
                f"parameter {name!r} is given as {value!r} but is also a column of the file",
                str(source),
                column=name,
            )
        frame[name] = value
    return frame


def _config_of(config: Sequence[str], params: Mapping | None) -> list:
    """Declared config parameters plus those given as constants (not n or p)."""
    out = config_list(config)
    for name in params or {}:
        if name not in BASE_PARAMS and name not in out:
            out.append(name)
    return out


def _simulator_config(columns, config: Sequence[str]) -> list[str]:
    """Columns that are configuration parameters of a simulated program
    (``probperf sim run`` writes them) and are not declared: they need no ``--config``
    so that a simulated CSV or JSON lines table reads back as it was written."""
    known = {*BASE_PARAMS, *METRICS, *LABEL_COLUMNS, *config}
    unknown = [c for c in columns if c not in known and not str(c).endswith("_std")]
    if not unknown:
        return []
    from .sim.apps import APPS  # only when needed: the readers should not import the simulator

    names = {name for app in APPS.values() for name in app.config}
    return [c for c in unknown if c in names]


def _options(reader: str, given: Mapping) -> dict:
    """``given`` reader options completed with :data:`_READ_DEFAULTS`; an unknown one is
    a ``TypeError`` worded as Python words it for a keyword a function lacks."""
    for name in given:
        if name not in _READ_DEFAULTS:
            raise TypeError(f"{reader}() got an unexpected keyword argument {name!r}")
    return {**_READ_DEFAULTS, **given}


def _declared_config(columns, options: Mapping) -> list[str]:
    """The configuration parameters of a table with ``columns`` read with ``options``:
    declared, given as constants, or a simulated program's."""
    config = _config_of(options["config"], options["params"])
    return config + _simulator_config(columns, config)


def _check_header_first(header, options: Mapping, location: Location) -> None:
    """Unknown columns named before any value is parsed (a column of host names would
    otherwise be named for holding text), after a missing ``p`` (given as a constant, it
    is no column): its message offers the other columns as the worker count."""
    config = _declared_config(header, options)
    check_required_columns([*header, *(options["params"] or {})], config, location)
    check_known_columns(list(header), config, location)


def _make(frame, source, location, options: Mapping) -> Measurements:
    frame = _add_params(frame, options["params"], source)
    if options["params"]:  # a bad value given is no line's fault
        location = replace(location, given=dict(options["params"]))
    config = _declared_config(frame.columns, options)
    order = [c for c in (*BASE_PARAMS, *config) if c in frame]
    frame = frame[order + [c for c in frame.columns if c not in order]]
    return Measurements(frame, config, unit=options["unit"], clock_hz=options["clock_hz"],
                        source=str(source), strict=options["strict"], location=location)


# -- CSV ------------------------------------------------------------------------------


def read_csv(path, **options: Unpack[ReadOptions]) -> Measurements:
    """Read a CSV file: header on line 1, one run per line, blank cell = missing.

    Numbers are parsed with Python's ``int``/``float``, so a value written with
    ``repr`` precision comes back bit for bit. ``nan`` and ``inf`` are errors. A
    UTF-8 byte-order mark (spreadsheet exports) is skipped. The file is read in
    chunks of :data:`CSV_CHUNK_ROWS` rows, so memory follows the numbers, not the text.
    The options are those of :class:`ReadOptions`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.csv")
    >>> _ = open(path, "w").write("n,p,time\\n10,1,2.5\\n10,2,-1\\n")
    >>> read_csv(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: .../runs.csv, line 3, column time: negative value -1.0
    """
    options = _options("read_csv", options)
    source = str(path)
    with _reading(path), open(path, encoding="utf-8-sig", newline="") as f:
        rows = csv.reader(f, strict=True)  # strict: a quote left open is an error, not the rest of the file
        header = _csv_header(rows, source)
        _check_header_first(header, options, Location(source, header_line=1))
        columns, lines = _csv_columns(rows, header, source)
    frame = pd.DataFrame(dict(zip(header, columns)))
    return _make(frame, source, Location(source, row_lines=lines, header_line=1), options)


#: Rows parsed into Python values before they are packed into arrays: small enough
#: that the Python objects (about 30 bytes per value) stay a few MB, large enough that
#: packing costs nothing.
CSV_CHUNK_ROWS = 65536


def _csv_rows(rows, source):
    """``(line, fields)`` of the non-blank rows, ``line`` the one a row starts on (a
    quoted field may run over several lines), csv errors located."""
    while True:
        start = rows.line_num + 1
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            message = str(exc)
            if message == "unexpected end of data":  # the strict reader at the end, inside quotes
                raise MeasurementError("an unbalanced quote: a quoted field opened in this row is never closed",
                                       source, start) from None
            if "field larger than field limit" in message:
                message = f"a field is longer than {MAX_FIELD_CHARS} characters (MAX_FIELD_CHARS)"
            hint = _runs_on(start, rows.line_num)
            raise MeasurementError(f"not valid CSV ({message}{f'; {hint}' if hint else ''})", source,
                                   start if hint else rows.line_num) from None
        if any(c.strip() for c in row):
            yield start, row


def _lines(text: str) -> list[str]:
    r"""The lines of a text file read with universal newlines: split at newlines only.
    ``str.splitlines`` would also cut at U+2028 and other separators, which JSON allows
    raw inside strings and a comment may hold, and the line numbers said would drift.

    Examples
    --------
    >>> _lines("# a\u2028b\nDATA 1"), "# a\u2028b\nDATA 1".splitlines()
    (['# a\u2028b', 'DATA 1'], ['# a', 'b', 'DATA 1'])
    """
    return text.split("\n")


def _runs_on(start: int, end: int) -> str:
    """What to add to an error in a row from line ``start`` that the reader ended on
    line ``end``: a row over several lines is most often a quote left open."""
    return f"the row runs on inside quotes to line {end}: an unbalanced quote?" if end > start else ""


def _csv_header(rows, source) -> list[str]:
    first = next(_csv_rows(rows, source), None)
    if first is None:
        raise MeasurementError("the file is empty", source, 1)
    line, header = first
    if line != 1:
        raise MeasurementError("the header must be on line 1 (it is blank or holds only empty fields, "
                               "such as ',,')", source, 1)
    header = [h.strip() for h in header]
    if len(header) == 1 and (sep := next((c for c in ";\t|" if c in header[0]), None)):
        # a one-column header holding another separator: a spreadsheet's export
        raise MeasurementError(f"the header {header[0]!r} looks separated by {sep!r}; CSV files are read "
                               "comma-separated: save the file with commas", source, 1)
    _check_header(header, source, line=1)
    return header


def _csv_columns(rows, header, source) -> tuple[list[np.ndarray], np.ndarray]:
    """Each column as one array (int64, float64, or str for ``split``) and the line of
    each row, parsed :data:`CSV_CHUNK_ROWS` rows at a time."""
    chunks: list[list[np.ndarray]] = [[] for _ in header]
    lines: list[np.ndarray] = []
    batch: list[list[str]] = []
    batch_lines: list[int] = []
    for line, row in _csv_rows(rows, source):
        if len(row) != len(header):
            hint = _runs_on(line, rows.line_num)
            raise MeasurementError(f"{len(row)} fields, but the header has {len(header)}"
                                   + (f" ({hint})" if hint else ""), source, line)
        batch.append(row)
        batch_lines.append(line)
        if len(batch) == CSV_CHUNK_ROWS:
            _pack(batch, batch_lines, header, source, chunks, lines)
            batch, batch_lines = [], []
    if batch:
        _pack(batch, batch_lines, header, source, chunks, lines)
    if not lines:
        raise MeasurementError("no data rows after the header", source, 2)
    return [_concat(parts) for parts in chunks], np.concatenate(lines)


def _pack(batch, batch_lines, header, source, chunks, lines) -> None:
    for j, name in enumerate(header):
        chunks[j].append(_parse_column([r[j] for r in batch], batch_lines, source, name))
    lines.append(np.array(batch_lines, dtype=np.int64))


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    """One column from its chunks: float64 as soon as one chunk is (as if read at once)."""
    if len(parts) == 1:
        return parts[0]
    if any(p.dtype == object for p in parts):
        return np.concatenate([p.astype(object) for p in parts])
    if any(p.dtype != np.int64 for p in parts):
        return np.concatenate([p.astype(np.float64) for p in parts])
    return np.concatenate(parts)


def _check_header(header: list[str], source: str, line: int) -> None:
    seen = set()
    for i, name in enumerate(header, 1):
        if not name:
            raise MeasurementError(f"header field {i} is empty", source, line)
        if name in seen:
            raise MeasurementError(f"duplicate column {name!r} in the header", source, line, name)
        seen.add(name)


def _parse_column(texts: list[str], lines: list[int], source: str, name: str) -> np.ndarray:
    if name == "split":
        return np.array([t.strip() for t in texts], dtype=object)
    values = []
    for text, line in zip(texts, lines):
        text = text.strip()
        if not text:
            values.append(None)
            continue
        values.append(_number(text, source, line, name, missing="leave the cell empty"))
    return _column_array(values)


def write_csv(measurements: Measurements, path) -> Path:
    """Write a CSV file atomically (floats with ``repr`` precision, missing = blank).

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [10, 10], "p": [1, 2], "time": [0.1 + 0.2, 0.2]})
    >>> print(open(write_csv(m, os.path.join(tempfile.mkdtemp(), "m.csv"))).read(), end="")
    n,p,time
    10,1,0.30000000000000004
    10,2,0.2
    """
    frame = measurements.frame
    columns = [_python_values(frame[c]) for c in frame.columns]

    def write_to(tmp):
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(frame.columns)
            for row in zip(*columns):
                w.writerow([_format_value(v) for v in row])

    return _atomic_write(path, write_to)


# -- JSON lines -----------------------------------------------------------------------


def read_jsonl(path, **options: Unpack[ReadOptions]) -> Measurements:
    """Read JSON lines: one object per line; ``null`` or an absent key = missing. The
    options are those of :class:`ReadOptions`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> _ = open(path, "w").write('{"n": 8, "p": 1, "time": 1.5, "work": null}\\n')
    >>> m = read_jsonl(path)
    >>> m.metrics, m.frame["time"].tolist()
    (['time'], [1.5])
    """
    options = _options("read_jsonl", options)
    source = str(path)
    text = _read_text(path)
    if not text.strip():
        raise MeasurementError("the file is empty", source, 1)
    records: list[dict] = []
    lines: list[int] = []
    for line, raw in enumerate(_lines(text), 1):
        if not raw.strip():
            continue
        records.append(_json_record(raw, source, line))
        lines.append(line)
    names: dict[str, int] = {}  # each key and the first line that has it
    for rec, line in zip(records, lines):
        for key in rec:
            names.setdefault(key, line)
    # A column missing is named at the first record, one unknown at the first record with it.
    location = Location(source, row_lines=lines, header_line=lines[0], key_lines=names)
    _check_header_first(names, options, location)
    frame = pd.DataFrame(
        {
            name: _json_column(name, [rec.get(name) for rec in records], lines, source)
            for name in names
        }
    )
    return _make(frame, source, location, options)


class _Unheld(float):
    """A finite JSON number float64 cannot hold, with the number as written: ``inf``
    from one too large (``1e400``), 0 from one too small (``1e-400``); refused with its
    column by the one number reader, as too large or as underflowing (not as infinite,
    nor as not positive)."""

    def __new__(cls, text: str):
        self = super().__new__(cls, text)  # float() of it: inf with its sign
        self.text = text
        return self


def _json_float(text: str) -> float:
    """A JSON number with a fraction or exponent; one float64 cannot hold is kept as
    :class:`_Unheld`, refused with its column later."""
    value = float(text)
    if math.isinf(value):
        return _Unheld(text)
    if value == 0:  # 0.0 is 0; 1e-400 underflows, said by the one number reader
        try:
            return parse_literal(text)
        except NumberError:
            return _Unheld(text)
    return value


def _json_record(raw: str, source: str, line: int) -> dict:
    def no_duplicates(pairs):
        out = {}
        for k, v in pairs:
            if k in out:
                raise MeasurementError(f"duplicate key {k!r}", source, line, k)
            out[k] = v
        return out

    try:
        rec = json.loads(raw, object_pairs_hook=no_duplicates, parse_float=_json_float)
    except json.JSONDecodeError as exc:
        raise MeasurementError(f"not valid JSON ({exc.msg})", source, line) from None
    except MeasurementError:
        raise
    except NumberError as exc:
        raise MeasurementError(_with_missing(exc, "write null"), source, line) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise MeasurementError(f"not valid JSON ({exc})", source, line) from None
    except RecursionError:
        raise MeasurementError("not valid JSON (nested too deeply)", source, line) from None
    if not isinstance(rec, dict):
        raise MeasurementError("expected a JSON object {...} on each line", source, line)
    if not rec:
        raise MeasurementError("an empty JSON object {}: a run needs at least p and a metric", source, line)
    return rec


def _json_column(name, values, lines, source) -> np.ndarray:
    if name == "split":
        return np.array([None if v is None else str(v) for v in values], dtype=object)
    for v, line in zip(values, lines):
        if v is None:
            continue
        try:
            parse_literal(v.text) if isinstance(v, _Unheld) else check_value(v)  # says "too large", "underflows"
        except NumberError as exc:
            raise MeasurementError(_with_missing(exc, "write null"), source, line, name, value=v) from None
    return _column_array(values)


def write_jsonl(measurements: Measurements, path) -> Path:
    """Write JSON lines atomically (floats with ``repr`` precision, missing = ``null``).

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [10], "p": [2], "time": [1e-300], "work": [float("nan")]})
    >>> open(write_jsonl(m, os.path.join(tempfile.mkdtemp(), "m.jsonl"))).read()
    '{"n": 10, "p": 2, "time": 1e-300, "work": null}\\n'
    """
    frame = measurements.frame
    names = list(frame.columns)
    columns = [_python_values(frame[c]) for c in names]

    def write_to(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            for row in zip(*columns):
                f.write(json.dumps(dict(zip(names, row)), allow_nan=False))
                f.write("\n")

    return _atomic_write(path, write_to)


# -- Parquet --------------------------------------------------------------------------

_PARQUET_META = b"probperf"


def read_parquet(
    path,
    *,
    config: Sequence[str] | None = None,
    params: Mapping | None = None,
    unit: str | None = None,
    clock_hz: float | None = None,
    strict: bool = False,
) -> Measurements:
    """Read a Parquet file; unit, clock rate and config come from its metadata
    (``clock_hz`` given here takes precedence, with a warning where the file records
    another, ``unit`` applies to a file that records
    none and must agree with one that does, ``config`` adds to the stored names).
    Null = missing, NaN = error.

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [10], "p": [2], "time": [7]}, unit="cycles", clock_hz=2e9)
    >>> back = read_parquet(write_parquet(m, os.path.join(tempfile.mkdtemp(), "m.parquet")))
    >>> back.unit, back.clock_hz, back.frame["time"].tolist()
    ('cycles', 2000000000.0, [7])
    >>> read_parquet(os.path.join(os.path.dirname(back.source), "m.parquet"), unit="s")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probperf.data.MeasurementError: .../m.parquet: the file records its times in cycles; they cannot be read as s ...
    """
    source = str(path)
    table = _parquet_table(path, source)
    _check_header([str(n) for n in table.column_names], source, line=None)
    meta = _parquet_meta(table.schema.metadata or {}, source)
    stored = list(meta.get("config", []))
    config = stored + [c for c in config or () if c not in stored]
    if unit and meta.get("unit") and unit != meta["unit"]:  # the file says what its numbers are
        raise MeasurementError(f"the file records its times in {meta['unit']}; they cannot be read as {unit} "
                               "(a clock rate converts cycles to seconds)", source)
    unit = unit or meta.get("unit", "s")
    stored_clock = meta.get("clock_hz") if unit == "cycles" else None  # a rate kept beside seconds says nothing
    if clock_hz is not None and stored_clock is not None and float(clock_hz) != float(stored_clock):
        # given, it wins (a rate measured better than the recorder's), but not unsaid: a slip
        # here rescales every time (session 45's hunt found it silent)
        userwarn.warn(f"{source}: the file records a clock rate of {float(stored_clock):g} Hz; the rate given, "
                      f"{float(clock_hz):g} Hz, replaces it")
    options = dict(config=config, params=params, unit=unit,
                   clock_hz=clock_hz if clock_hz is not None else stored_clock, strict=strict)
    _check_header_first(table.column_names, options, Location(source))
    return _make(_parquet_frame(table, source), source, Location(source), options)


def _parquet_table(path, source: str):
    """The file as a pyarrow Table; a clear error for a missing, empty or foreign file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.exists(path):
        raise MeasurementError("file not found", source)
    if os.path.isdir(path):
        raise MeasurementError(IS_DIRECTORY, source)
    if os.path.getsize(path) == 0:
        raise MeasurementError("the file is empty", source)
    try:
        names = pq.read_schema(path).names
        duplicate = next((c for i, c in enumerate(names) if c in names[:i]), None)
        if duplicate is not None:  # Arrow's own message for it dumps the schema
            raise MeasurementError(f"duplicate column {duplicate!r} in the header", source, None, duplicate)
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        # Arrow's messages can go on with a dump of the schema: the first line says it
        first = (str(exc).strip().splitlines() or ["unknown reason"])[0]
        raise MeasurementError(f"not a readable Parquet file ({first})", source) from None
    # the row labels pandas saves with a frame cut from another (df[df.p > 1].to_parquet
    # without index=False) are no runs' values; a named index (set_index("n")) is kept
    try:
        pandas = table.schema.pandas_metadata or {}
    except ValueError:  # not JSON: written by no pandas, so no pandas index either
        pandas = {}
    index = pandas.get("index_columns", []) if isinstance(pandas, dict) else []
    labels = [c for c in index if isinstance(c, str) and re.fullmatch(r"__index_level_\d+__", c)]
    return table.drop(labels) if labels else table


def _parquet_frame(table, source: str) -> pd.DataFrame:
    """The table as a DataFrame: NaN refused (null is the missing value), and each
    non-numeric column but ``split`` checked value by value and made numeric."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _decimals_as_numbers(table)
    for j, name in enumerate(table.column_names):
        col = table.column(j)
        if pa.types.is_floating(col.type):
            nan = pc.fill_null(pc.is_nan(col), False).to_numpy(zero_copy_only=False)
            if nan.any():
                row = int(np.flatnonzero(nan)[0])
                raise MeasurementError(f"{row_name(row)}: {_with_missing(NumberError('value is NaN'), 'write null')}", source,
                                       None, name)
    frame = table.to_pandas()
    for name in frame.columns:
        if name != "split" and not pd.api.types.is_numeric_dtype(frame[name]):
            values = frame[name].tolist()
            for row, v in enumerate(values):
                try:
                    if v is not None:
                        check_value(v)
                except NumberError as exc:
                    raise MeasurementError(f"{row_name(row)}: {exc}", source, None, name, value=v) from None
            frame[name] = _column_array(values)
    return frame


def _decimals_as_numbers(table):
    """``table`` with its decimal columns (a database's or Spark's export) as numbers:
    whole ones (scale 0, up to 18 digits) as int64, the others as float64. pandas
    would make them Python ``Decimal`` objects, which no metric column takes.

    Examples
    --------
    >>> import decimal, pyarrow as pa
    >>> t = pa.table({"n": pa.array([decimal.Decimal(1024)], pa.decimal128(10, 0)),
    ...               "time": pa.array([decimal.Decimal("1.50")], pa.decimal128(5, 2))})
    >>> _decimals_as_numbers(t).schema.types
    [DataType(int64), DataType(double)]
    """
    import pyarrow as pa

    for j, field in enumerate(table.schema):
        if pa.types.is_decimal(field.type):
            whole = field.type.scale == 0 and field.type.precision <= 18  # always within int64
            table = table.set_column(j, field.name, table.column(j).cast(pa.int64() if whole else pa.float64()))
    return table


def _parquet_meta(metadata: Mapping, source: str) -> dict:
    """probperf's entry of a Parquet file's metadata, each field checked for its type."""
    raw = metadata.get(_PARQUET_META, b"{}")
    where = "metadata 'probperf'"
    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise MeasurementError(f"{where} is not valid JSON ({exc})", source) from None
    if not isinstance(meta, dict):
        raise MeasurementError(f"{where} must be a JSON object, not {type(meta).__name__}", source)
    unit, clock_hz, config = meta.get("unit"), meta.get("clock_hz"), meta.get("config", [])
    if unit is not None and not isinstance(unit, str):
        raise MeasurementError(f"{where}: unit must be a string, got {unit!r}", source)
    if clock_hz is not None:
        try:
            check_value(clock_hz)
        except NumberError as exc:
            raise MeasurementError(f"{where}: clock_hz: {exc}", source) from None
    if not isinstance(config, list) or not all(isinstance(c, str) for c in config):
        raise MeasurementError(f"{where}: config must be a list of column names, got {config!r}", source)
    return meta


def write_parquet(measurements: Measurements, path) -> Path:
    """Write Parquet atomically, with the unit, clock rate and config in its metadata.

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [10], "p": [2], "c": [4], "time": [0.5]}, config=["c"])
    >>> read_parquet(write_parquet(m, os.path.join(tempfile.mkdtemp(), "m.parquet"))).params
    ['n', 'p', 'c']
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(measurements.frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[_PARQUET_META] = json.dumps(
        {"unit": measurements.unit, "clock_hz": measurements.clock_hz, "config": measurements.config}
    ).encode()
    table = table.replace_schema_metadata(meta)
    return _atomic_write(path, lambda tmp: pq.write_table(table, tmp))


# -- DAG Recorder .stat ---------------------------------------------------------------


def read_dag_recorder(
    paths_or_glob,
    pattern: str | None = None,
    params: Mapping | None = None,
    side_table=None,
    clock_hz: float | None = None,
    *,
    config: Sequence[str] = (),
    strict: bool = False,
) -> Measurements:
    """Read DAG Recorder ``.stat`` files, one run per file, times in cycles.

    Parameters
    ----------
    paths_or_glob : str or Path or sequence of them
        Files or globs (``"runs/*.stat"``); a glob that matches nothing is an error.
    pattern : str, optional
        File-name pattern giving parameters, e.g. ``"sort_n{n}_p{p}.stat"``; matched
        against the file name (or as many trailing path components as it has).
    params : mapping, optional
        Parameters constant over all files, e.g. ``{"p": 4}``.
    side_table : str or Path, optional
        A CSV with a ``file`` column (file names) and one column per parameter, and
        optionally ``split``, the runs' labels (as in a CSV of runs).
    clock_hz : float, optional
        Clock rate, to convert cycles to seconds later (:meth:`Measurements.in_seconds`).
    config : sequence of str
        Extra configuration parameters to declare (those from ``pattern``,
        ``params`` and ``side_table`` other than ``n`` and ``p`` are declared anyway).
    strict : bool
        Raise instead of warn when ``work + delay + no_work != p * elapsed``.

    Notes
    -----
    ``p`` comes from the ``n_workers (P)`` field; a ``p`` from the pattern, ``params``
    or side table must agree with it. Fields read: ``create_task``, ``wait_tasks``,
    ``end_task``, ``work (T1)`` -> ``work``, ``delay``, ``no_work``,
    ``critical_path (T_inf)`` -> ``critical_path``, ``n_workers (P)`` -> ``p`` and
    ``elapsed`` -> ``time``; all must be present (a truncated file is an error).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> fields = dict(create_task=3, wait_tasks=3, end_task=4, work=90, delay=6,
    ...               no_work=4, critical_path=30, p=2, elapsed=50)
    >>> names = {"work": "work (T1)", "critical_path": "critical_path (T_inf)",
    ...          "p": "n_workers (P)"}
    >>> text = "".join(f"{names.get(k, k):<22}= {v}\\n" for k, v in fields.items())
    >>> _ = open(os.path.join(d, "fib_n20_p2.stat"), "w").write(text)
    >>> m = read_dag_recorder(os.path.join(d, "*.stat"), pattern="fib_n{n}_p{p}.stat")
    >>> m.frame[["n", "p", "work", "time"]].values.tolist(), m.unit
    ([[20, 2, 90, 50]], 'cycles')
    >>> float(m.identity_residual()[0])
    0.0
    """
    files = _expand(paths_or_glob)
    parse_name = _compile_pattern(pattern) if pattern else None
    side = _read_side_table(side_table) if side_table is not None else None
    if side is not None:
        _one_file_per_name(files, side)
    columns: dict[str, list] = {c: [] for c in STAT_FIELDS.values()}
    lines: dict[str, list] = {c: [] for c in STAT_FIELDS.values()}
    extra: dict[str, list] = {}
    for i, path in enumerate(files):
        values, where = _parse_stat(path)
        for c in columns:
            columns[c].append(values[c])
            lines[c].append(where[c])
        given = _stat_params(path, values, where, params, parse_name, side)
        for name, value in given.items():
            extra.setdefault(name, [None] * i).append(value)
        for col in extra.values():
            col.extend([None] * (i + 1 - len(col)))
    if side is not None:
        _unmatched_side_rows(side, files)
    if pattern and "n" not in extra and "N" in extra:  # {N} for {n}: fit would only miss n later
        raise MeasurementError(f"field {{N}} of the pattern {pattern!r} gives no size n (names are "
                               "case-sensitive): write {n}, or give n with params")
    frame = pd.DataFrame({c: _column_array(v) for c, v in columns.items()})
    _add_file_params(frame, extra, files)
    config = _config_of(config, {k: v for k, v in extra.items() if k != "split"})
    order = [c for c in (*BASE_PARAMS, *config) if c in frame]
    frame = frame[order + [c for c in frame.columns if c not in order]]
    loc = Location(None, row_sources=files, column_lines=lines, given=dict(params) if params else None)
    source = files[0] if len(files) == 1 else f"{len(files)} .stat files"
    return Measurements(frame, config, unit="cycles", clock_hz=clock_hz, source=source, strict=strict,
                        location=loc)


def _stat_params(path, values, where, params, parse_name, side) -> dict:
    """One ``.stat`` file's parameters from ``params``, the file-name pattern and the
    side table (they must agree), without ``p``: the file's own ``n_workers`` is ``p``,
    and a ``p`` given otherwise must equal it."""
    given = dict(params or {})
    if parse_name is not None:
        _merge(given, parse_name(path), path, "the file-name pattern")
    if side is not None:
        _merge(given, _side_params(side, path), path, "the side table")
    if "p" in given and given["p"] != values["p"]:
        raise MeasurementError(f"n_workers (P) is {values['p']} but the parameters give p={given.pop('p')!r}",
                               path, where["p"], "p")
    given.pop("p", None)
    return given


def _add_file_params(frame: pd.DataFrame, extra: dict, files) -> None:
    """Parameter columns, each given for every file (else the first file without it is named)."""
    for name, values in extra.items():
        missing = [k for k, v in enumerate(values) if v is None]
        if missing:
            raise MeasurementError(f"no value for parameter {name!r} (it is given for other files)",
                                   files[missing[0]], column=name)
        frame[name] = values if name == "split" else _column_array(values)


def _parse_stat(path: str) -> tuple[dict, dict]:
    """Values and line numbers of the :data:`STAT_FIELDS` in one file."""
    text = _read_text(path)
    values: dict[str, object] = {}
    where: dict[str, int] = {}
    fields = STAT_FIELDS
    n_lines = 0
    for n_lines, line in enumerate(_lines(text), 1):
        key, eq, value = line.partition("=")
        if not eq:
            continue
        column = fields.get(key.strip())
        if column is None:
            continue
        number = _number(value, path, n_lines, column, f"field {key.strip()!r}: ")
        if column in values:
            raise MeasurementError(
                f"field {key.strip()!r} appears twice (first on line {where[column]})",
                path,
                n_lines,
                column,
            )
        values[column] = number
        where[column] = n_lines
    if len(values) < len(fields):
        missing = [k for k, c in fields.items() if c not in values]
        what = "the file is empty" if not text.strip() else "the file is truncated or not a DAG Recorder .stat file"
        raise MeasurementError(
            f"{what}: field {missing[0]!r} is missing"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
            path,
            n_lines - text.endswith("\n") if text.strip() else 1,  # the last line (a final line end starts none)
            fields[missing[0]],
        )
    return values, where


def _merge(into: dict, new: Mapping, path: str, origin: str) -> None:
    for k, v in new.items():
        if k in into and into[k] != v:
            raise MeasurementError(
                f"{origin} gives {k}={v!r} but it is also given as {into[k]!r}", path, column=k
            )
        into[k] = v


def _compile_pattern(pattern: str) -> Callable[[str], dict]:
    """``"sort_n{n}_p{p}.stat"`` -> function from a path to ``{"n": ..., "p": ...}``.

    The pattern is compared with as many of the path's last parts as it has, both as
    :class:`~pathlib.Path` splits them (``./`` dropped, a root kept); an absolute pattern
    with the file's absolute path.

    Examples
    --------
    >>> _compile_pattern("./st/sort_n{n}_p{p}.stat")("st/sort_n8_p2.stat")
    {'n': 8, 'p': 2}
    >>> _compile_pattern("/runs/sort_n{n}_p{p}.stat")("/runs/sort_n8_p2.stat")
    {'n': 8, 'p': 2}
    """
    absolute = Path(pattern).is_absolute()
    pattern_parts = Path(pattern).parts
    depth = len(pattern_parts)
    parts = re.split(r"\{(\w+)\}", "/".join(pattern_parts))
    regex = []
    names = []
    for k, part in enumerate(parts):
        if k % 2:
            if part in names:
                raise MeasurementError(f"field {{{part}}} appears twice in the pattern {pattern!r}")
            names.append(part)
            regex.append(f"(?P<{part}>[^/]+?)")
        elif "{" in part or "}" in part:  # {}, {n:d}, a lone brace: would only never match
            raise MeasurementError(f"the pattern {pattern!r} has a brace outside a field: a field is {{name}}, "
                                   "a name of letters, digits and _")
        else:
            regex.append(re.escape(part))
    if not names:
        raise MeasurementError(f"the pattern {pattern!r} has no {{name}} fields")
    try:
        compiled = re.compile("".join(regex))
    except re.error as exc:  # a field name that is not an identifier, such as {1n}
        raise MeasurementError(f"the pattern {pattern!r} is not usable ({exc})") from None
    def parse(path: str) -> dict:
        tail = "/".join(Path(os.path.abspath(path) if absolute else path).parts[-depth:])
        m = compiled.fullmatch(tail)
        if m is None:
            raise MeasurementError(f"file name does not match the pattern {pattern!r}", path)
        out = {}
        for name, text in m.groupdict().items():
            out[name] = _number(text, path, None, name, f"the pattern {pattern!r} gives: ")
        return out

    return parse


def _read_side_table(path) -> dict[str, dict]:
    """CSV with a ``file`` column -> ``{file name: {param: value}}``."""
    source = str(path)
    text = _read_text(path)
    if not text.strip():
        raise MeasurementError("the side table is empty", source, 1)
    rows = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(rows)]
    _check_header(header, source, 1)
    if "file" not in header:
        raise MeasurementError("the side table needs a 'file' column", source, 1, "file")
    measured = next((c for c in header if c in METRICS), None)
    if measured is not None:  # said here, with the side table's name, not later of no file
        raise MeasurementError(f"{measured!r} is a metric, measured in each .stat file: a side table gives the "
                               "files' parameters (n, p, configuration)", source, 1, measured)
    out: dict[str, dict] = {}
    for row in rows:
        line = rows.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise MeasurementError(f"{len(row)} fields, but the header has {len(header)}", source, line)
        rec = dict(zip(header, (c.strip() for c in row)))
        name = os.path.basename(rec.pop("file"))
        values = {}
        for k, text in rec.items():  # the split label as written; every other field a number
            values[k] = text if k == "split" else _number(text, source, line, k)
        if name in out:
            raise MeasurementError(f"file {name!r} is listed twice", source, line, "file")
        out[name] = values
    return {"__source__": source, **out}


def _one_file_per_name(files, side: dict) -> None:
    """A ``MeasurementError`` when two files read share a file name: the side table names
    its files by their base names, so it would give both the same parameters (runs in
    ``p4/run1.stat`` and ``p8/run1.stat``)."""
    seen: dict[str, str] = {}
    for f in files:
        name = os.path.basename(f)
        if name in seen:
            raise MeasurementError(f"the files {seen[name]} and {f} share the name {name!r}, and the side table "
                                   f"{side['__source__']} names files by their names alone; give the runs distinct "
                                   "file names, or read each folder with its own side table", f)
        seen[name] = f


def _unmatched_side_rows(side: dict, files) -> None:
    """Warn of side-table rows that name none of the files read: a typo in a name there
    went unseen (a table written for more runs than a glob takes is said too, harmlessly)."""
    read = {os.path.basename(f) for f in files}
    unmatched = [name for name in side if name != "__source__" and name not in read]
    if unmatched:
        shown = ", ".join(unmatched[:3]) + (f" and {len(unmatched) - 3} more" if len(unmatched) > 3 else "")
        userwarn.warn(f"the side table {side['__source__']} has {len(unmatched)} row(s) for files not read: {shown} "
                      "(a misspelt file name?)")


def _side_params(side: dict, path: str) -> dict:
    name = os.path.basename(path)
    if name not in side:
        raise MeasurementError(f"no row for this file in the side table {side['__source__']}", path)
    return side[name]


# -- Extra-P text ---------------------------------------------------------------------


def read_extrap(
    path, *, metric: str | None = None, region: str | None = None, **options: Unpack[ReadOptions]
) -> Measurements:
    """Read an Extra-P text file (``PARAMETER``, ``POINTS``, ``REGION``, ``METRIC``,
    ``DATA`` lines; ``#`` comments).

    One (region, metric) block becomes the table: by default the only one, or metric
    ``time``. The metric column is named after the Extra-P metric if that is one of
    :data:`~probperf.data.METRICS`, else ``time``. Each value of a ``DATA`` line is a
    repetition (one row). Parameters other than ``n`` and ``p`` become config; the other
    options are those of :class:`ReadOptions`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.txt")
    >>> _ = open(path, "w").write("PARAMETER p\\nPOINTS 1 2\\nREGION main\\n"
    ...                           "METRIC time\\nDATA 4.0 4.2\\nDATA 2.1\\n")
    >>> read_extrap(path).frame.values.tolist()
    [[1.0, 4.0], [1.0, 4.2], [2.0, 2.1]]
    """
    options = _options("read_extrap", options)
    source = str(path)
    text = _read_text(path)
    if not text.strip():
        raise MeasurementError("the file is empty", source, 1)
    parsed = _ExtrapText(source)
    for line, raw in enumerate(_lines(text), 1):
        parsed.read_line(raw.strip(), line)
    if not parsed.blocks:
        raise MeasurementError("no DATA lines", source, line)
    key = _choose_block(parsed.blocks, region, metric, source)
    frame, lines, point_lines = parsed.table(key)
    names = parsed.names
    config = [*(n for n in names if n not in BASE_PARAMS), *(c for c in options["config"] if c not in names)]
    # a parameter's value is named at its POINTS line, a name at its PARAMETER line
    loc = Location(source, row_lines=lines, header_line=parsed.param_line or None, key_lines=parsed.param_lines,
                   column_lines=dict.fromkeys(names, point_lines))
    return _make(frame, source, loc, {**options, "config": config})


class _ExtrapText:
    """The state of reading an Extra-P text file line by line: declared parameters and
    points, and the ``DATA`` lines of every (region, metric) block."""

    def __init__(self, source: str):
        self.source = source
        self.names: list[str] = []
        self.points: list[tuple] = []
        self.points_line = self.param_line = 0
        self.param_lines: dict[str, int] = {}  # name -> its PARAMETER line
        self.point_lines: list[int] = []  # per point, its POINTS line
        self.blocks: dict[tuple[str, str], list[tuple[int, list]]] = {}
        self.region = self.metric = ""

    def read_line(self, stripped: str, line: int) -> None:
        if not stripped or stripped.startswith("#"):
            return
        keyword, rest = (stripped.split(None, 1) + [""])[:2]  # a tab after the keyword, as a space
        rest = rest.strip()
        if keyword == "PARAMETER":
            self._parameters(rest.split(), line)
        elif keyword == "POINTS":
            if not self.names:
                raise MeasurementError("POINTS before any PARAMETER line", self.source, line)
            new = _extrap_points(rest, len(self.names), self.names, self.source, line)
            self.points.extend(new)
            self.point_lines.extend([line] * len(new))
            self.points_line = line
        elif keyword == "REGION":
            self.region = rest
        elif keyword == "METRIC":
            if not rest:  # its DATA lines would belong to a metric named ''
                raise MeasurementError("METRIC without a name (Extra-P text: METRIC time)", self.source, line)
            self.metric = rest
        elif keyword == "DATA":
            self._data(rest, line)
        else:
            raise MeasurementError(
                f"unknown keyword {keyword!r}; expected PARAMETER, POINTS, REGION, METRIC or DATA", self.source, line)

    def _parameters(self, new: list[str], line: int) -> None:
        if not new:
            raise MeasurementError("PARAMETER without a name", self.source, line)
        for name in new:
            if name in self.names:
                raise MeasurementError(f"parameter {name!r} declared twice", self.source, line, name)
        self.names.extend(new)
        self.param_lines.update(dict.fromkeys(new, line))
        self.param_line = self.param_line or line

    def _data(self, rest: str, line: int) -> None:
        if not self.metric:  # else its values would belong to a metric named ''
            raise MeasurementError("DATA before any METRIC line (Extra-P text names its metric first: METRIC time)",
                                   self.source, line)
        column = self.metric if self.metric in METRICS else "time"
        values = [_number(token, self.source, line, column) for token in rest.split()]
        if not values:
            raise MeasurementError("DATA line without values", self.source, line, column)
        self.blocks.setdefault((self.region, self.metric), []).append((line, values))

    def table(self, key) -> tuple[pd.DataFrame, list[int], list[int]]:
        """One row per repetition of block ``key``, the file line of each row's value
        and that of its point."""
        data = self.blocks[key]
        column = key[1] if key[1] in METRICS else "time"
        if len(data) != len(self.points):
            where = data[len(self.points)][0] if len(data) > len(self.points) else data[-1][0]
            raise MeasurementError(f"{len(data)} DATA lines for {len(self.points)} POINTS "
                                   f"(declared up to line {self.points_line})", self.source, where, column)
        rows = {name: [] for name in self.names}
        metric_values, lines, point_lines = [], [], []
        for point, point_line, (line, values) in zip(self.points, self.point_lines, data):
            for v in values:
                for name, x in zip(self.names, point):
                    rows[name].append(x)
                metric_values.append(v)
                lines.append(line)
                point_lines.append(point_line)
        frame = pd.DataFrame({name: _column_array(v) for name, v in rows.items()})
        frame[column] = _column_array(metric_values)
        return frame, lines, point_lines


def _extrap_points(text: str, k: int, names, source, line) -> list[tuple]:
    if "(" in text:
        groups = re.findall(r"\(([^()]*)\)", text)
        if re.sub(r"\([^()]*\)", "", text).strip():
            raise MeasurementError("POINTS: expected (x y ...) groups", source, line)
    elif k == 1:
        groups = text.split()
    else:
        raise MeasurementError(f"POINTS: {k} parameters need (x y ...) groups", source, line)
    out = []
    for group in groups:
        tokens = group.split()
        if len(tokens) != k:
            raise MeasurementError(
                f"POINTS: ({group}) has {len(tokens)} coordinates for {k} parameters", source, line
            )
        point = []
        for name, token in zip(names, tokens):
            point.append(_number(token, source, line, name, "POINTS: "))
        out.append(tuple(point))
    if not out:
        raise MeasurementError("POINTS line without points", source, line)
    return out


#: Extra-P metric names taken for a run time without asking (besides probperf's own
#: metric names); a block of another metric (visits, energy, bytes) is read only when
#: chosen by name, never silently as seconds.
TIME_NAMES = ("time", "runtime", "run_time", "elapsed", "wall_time", "walltime", "duration", "execution_time")


def _choose_block(blocks, region, metric, source):
    keys = list(blocks)
    if region is not None:
        keys = [k for k in keys if k[0] == region]
    if metric is not None:
        keys = [k for k in keys if k[1] == metric]
    elif len(keys) > 1 and any(k[1] == "time" for k in keys):
        left = [k for k in keys if k[1] != "time"]  # read time, and say what is left out
        keys = [k for k in keys if k[1] == "time"]
        if len(keys) == 1:
            userwarn.warn(f"{source}: read metric 'time'; the file's other "
                          f"{'block is' if len(left) == 1 else 'blocks are'} left out "
                          f"({', '.join(f'region {r!r} metric {m!r}' for r, m in left)}): "
                          "keep one metric per file, or read(..., metric=) in Python")
    if len(keys) == 1 and metric is None and keys[0][1] not in METRICS and keys[0][1].lower() not in TIME_NAMES:
        raise MeasurementError(f"the file's only metric is {keys[0][1]!r}, not a run time; rename its METRIC "
                               "to time if it is one (in Python: read_extrap(..., metric=...))", source)
    if len(keys) != 1:
        have = ", ".join(f"region {r!r} metric {m!r}" for r, m in blocks)
        what = "no" if not keys else "several"
        raise MeasurementError(
            f"{what} (region, metric) blocks match; the file has {have}; choose one with read(..., region=, metric=) in Python, or keep one block per file",
            source,
        )
    return keys[0]


def write_extrap(
    measurements: Measurements, path, metric: str = "time", region: str = "main"
) -> Path:
    """Write one metric as Extra-P text input, atomically.

    One ``PARAMETER`` line per parameter (Extra-P takes at most 4), the distinct
    points in order of first appearance, and per point one ``DATA`` line with its
    repetitions in row order. Other metrics and labels are not written.

    Examples
    --------
    >>> import tempfile, os
    >>> m = Measurements({"n": [8, 8, 16], "p": [2, 2, 2], "time": [1.5, 1.25, 3.0]})
    >>> out = write_extrap(m, os.path.join(tempfile.mkdtemp(), "m.txt"))
    >>> print(open(out).read(), end="")
    PARAMETER n
    PARAMETER p
    POINTS (8 2) (16 2)
    REGION main
    METRIC time
    DATA 1.5 1.25
    DATA 3.0
    """
    params = measurements.params
    if len(params) > 4:
        raise MeasurementError(
            f"Extra-P text takes at most 4 parameters; this table has {len(params)}: {', '.join(params)}",
            str(path),
        )
    if any(len(name.splitlines()) != 1 for name in (region, metric)) or not region.strip() or not metric.strip():
        raise MeasurementError("region and metric names must be non-empty single lines", str(path))
    check_output(path)  # a missing directory by its name, not by the temporary file's
    spaced = [name for name in params if len(name.split()) != 1 or name != name.strip()]
    if spaced:  # the reader splits a PARAMETER line at white space: written, it would not read back
        raise MeasurementError(f"parameter name {spaced[0]!r} holds white space, which Extra-P text uses to "
                               f"separate names; rename the column (e.g. {'_'.join(spaced[0].split())!r})", str(path))
    measurements.require(metric)
    frame = measurements.frame
    keys = list(zip(*(_python_values(frame[c]) for c in params)))
    values = _python_values(frame[metric])
    groups: dict[tuple, list] = {}
    for key, v in zip(keys, values):
        groups.setdefault(key, []).append(v)
    points = " ".join("(" + " ".join(_format_value(x) for x in key) + ")" for key in groups)
    out = [f"PARAMETER {name}" for name in params]
    out += [f"POINTS {points}", f"REGION {region}", f"METRIC {metric}"]
    out += ["DATA " + " ".join(_format_value(v) for v in vs) for vs in groups.values()]
    text = "\n".join(out) + "\n"

    def write_to(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    return _atomic_write(path, write_to)


__all__ = [
    "STAT_FIELDS",
    "ReadOptions",
    "read",
    "write",
    "read_csv",
    "write_csv",
    "read_jsonl",
    "write_jsonl",
    "read_parquet",
    "write_parquet",
    "read_dag_recorder",
    "read_extrap",
    "write_extrap",
]
