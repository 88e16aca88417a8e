"""The options of the commands that read measurement files (``validate``, ``convert``,
``doctor``, ``fit``), declared once, and the one reader behind them."""

from __future__ import annotations

import functools
import inspect
import warnings
from pathlib import Path
from typing import List, Optional

import typer

from ._app import bad_input, config_names, empty_path, fail, number, parse_assignments, shown, warn

_PARAM = typer.Option(
    None, "--param", help="A parameter constant over the input, NAME=VALUE (repeatable), e.g. p=4."
)
_PATTERN = typer.Option(
    None, "--pattern", help="File-name pattern for .stat files, e.g. 'sort_n{n}_p{p}.stat'."
)
_SIDE = typer.Option(
    None, "--side-table", help="CSV with a 'file' column and one column per parameter, and optionally 'split' (.stat input)."
)
_CONFIG = typer.Option(
    None, "--config", help="Declare a configuration parameter column (repeatable, or a comma-separated list: --config m,k)."
)
_STRICT = typer.Option(
    False, "--strict", help="Treat a broken work + delay + no_work = p * time identity as an error."
)
UNIT = typer.Option(None, "--unit", metavar="UNIT", help="Unit of the times of CSV or JSON input: s (the "
                     "default) or cycles (a tracer's counts).")
CLOCK = typer.Option(None, "--clock-hz", metavar="HZ", help="Clock rate of cycle counts, in Hz.")

#: The options of the commands that read measurement files, in ``--help`` order:
#: parameter name -> (type, option). :func:`reads_measurements` gives them to a command.
_READING = {
    "param": (Optional[List[str]], _PARAM),
    "pattern": (Optional[str], _PATTERN),
    "side_table": (Optional[str], _SIDE),
    "config": (Optional[List[str]], _CONFIG),
    "strict": (bool, _STRICT),
    "unit": (Optional[str], UNIT),
    "clock_hz": (Optional[str], CLOCK),
}


def reads_measurements(strict: bool = True):
    """Decorator: the command's ``reading`` parameter stands for the reading options.

    Typer makes a command's options from its signature, so the signature typer reads
    has the options where ``reading`` stood, and the command gets their values as one
    dict, ``reading``. ``strict=False`` leaves ``--strict`` out (a lenient reader).

    Examples
    --------
    >>> @reads_measurements(strict=False)
    ... def look(files: list, *, reading: dict):
    ...     return sorted(reading)
    >>> list(inspect.signature(look).parameters)
    ['files', 'param', 'pattern', 'side_table', 'config', 'unit', 'clock_hz']
    >>> look(files=[], param=None, pattern=None, side_table=None, config=None, unit=None, clock_hz=None)
    ['clock_hz', 'config', 'param', 'pattern', 'side_table', 'unit']
    """
    names = [name for name in _READING if strict or name != "strict"]

    def decorate(command):
        @functools.wraps(command)
        def run(**kwargs):
            return command(reading={name: kwargs.pop(name) for name in names}, **kwargs)

        run.__signature__ = _with_options(inspect.signature(command, eval_str=True), names)
        return run

    return decorate


def _with_options(signature: inspect.Signature, names) -> inspect.Signature:
    """``signature`` with the reading options ``names`` in place of ``reading``."""
    params = []
    for param in signature.parameters.values():
        if param.name == "reading":
            params += [param.replace(name=name, annotation=_READING[name][0], default=_READING[name][1])
                       for name in names]
        else:
            params.append(param)
    return signature.replace(parameters=params)


def read_measurements(files, reading: dict, identity_warnings=True, label="DATA"):
    """Read the inputs with the options of :data:`_READING` (warnings about the identity
    go to stderr, not to stdout, unless the caller reports the identity itself); an
    empty name among them is refused as the argument ``label``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.csv")
    >>> _ = open(path, "w").write("p,time\\n1,2.5\\n")
    >>> reading = dict(param=["n=2**10"], pattern=None, side_table=None, config=None, clock_hz=None)
    >>> read_measurements([path], reading).frame[["n", "p", "time"]].values.tolist()
    [[1024.0, 1.0, 2.5]]
    """
    from ..data import IdentityWarning, MeasurementError
    from ..formats import SUFFIXES, read

    if any(not f for f in files):  # plain strings (globs too): the path check of _app does not see them
        fail(empty_path(label))
    kw = dict(params=parse_assignments(reading["param"], "--param"), strict=reading.get("strict", False))
    if reading["config"]:  # else a Parquet file's own metadata (or nothing) declares them
        kw["config"] = config_names(reading["config"])
    kw.update(unit_options(reading.get("unit"), reading["clock_hz"]))
    if "unit" in kw and all(str(f).lower().endswith(".stat") for f in files):  # a tracer's files say their unit
        if kw.pop("unit") != "cycles":
            fail("--unit s: DAG Recorder .stat files count clock cycles, whatever --unit says; leave it out "
                 "(--clock-hz HZ is the rate that turns cycles into seconds where a command needs them)")
    for name in ("pattern", "side_table"):
        if reading[name] is not None:
            kinds = {SUFFIXES.get(Path(str(f)).suffix.lower()) for f in files}  # a glob without one: the reader says
            if None not in kinds and "stat" not in kinds:  # said as the option, not the reader's keyword
                fail(f"--{name.replace('_', '-')} applies to DAG Recorder .stat files only; {shown(files[0])} is not one")
            kw[name] = reading[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with bad_input():
            try:
                m = read(files if len(files) > 1 else files[0], **kw)
            except MeasurementError as exc:
                clock_refused(exc)
                raise
    for w in caught:
        if identity_warnings or not issubclass(w.category, IdentityWarning):
            warn(str(w.message))
    return m


def unit_options(unit: str | None, clock_hz: str | None) -> dict:
    """The reader's ``unit`` and ``clock_hz`` from ``--unit`` and ``--clock-hz`` (those
    given), checked; the commands that read runs and ``plot --data`` share them.

    Examples
    --------
    >>> unit_options("cycles", "2.5e9"), unit_options(None, None)
    ({'unit': 'cycles', 'clock_hz': 2500000000.0}, {})
    """
    kw = {}
    if unit is not None:  # a CSV or JSON file of cycle counts says nothing of its unit itself
        from ..data import UNITS

        if unit not in UNITS:
            fail(f"--unit {unit!r}: choose {' or '.join(UNITS)}")
        kw["unit"] = unit
    if clock_hz is not None:
        kw["clock_hz"] = float(number("--clock-hz", clock_hz, low=0, low_open=True))
    return kw


def clock_refused(exc) -> None:
    """Say the library's refusal of a clock rate for times in seconds as the options that
    set it (``--clock-hz``, ``--unit``); any other error is left to the caller.

    Examples
    --------
    >>> import typer
    >>> from probperf.data import MeasurementError
    >>> try:
    ...     clock_refused(MeasurementError("clock_hz applies to times in cycles (unit='cycles'), but unit is 's'"))
    ... except typer.Exit as exc:
    ...     exc.exit_code
    2
    >>> clock_refused(MeasurementError("column time: not a number"))
    """
    from ..data import CLOCK_NOT_CYCLES

    if getattr(exc, "message", "").startswith(CLOCK_NOT_CYCLES):
        fail("--clock-hz applies to runs measured in cycles, but these are in seconds (--unit cycles says a CSV "
             "or JSON file is in cycles)")
