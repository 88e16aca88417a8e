"""The typer application and the error handling every command shares.

Commands live in sibling modules by topic (data, sim, models, record) and register on
:data:`app`; :mod:`probperf.cli` imports them all.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import os
import signal
import sys
import threading
import warnings

import typer
import typer.core
from rich.console import Console
from rich.markup import escape

from ..limits import NumberError, parse_expression
from ..text import printable
from ..limits import parse_list as limits_parse_list

def _plain_flags(params):
    """``params`` with no type shown for flags: they take no value, yet this typer
    prints ``<bool>`` after each (an empty metavar is what it shows instead)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


def reflowed(text):
    """A docstring as help text: each paragraph on one line, so the terminal wraps it.

    Typer keeps the line breaks of a docstring's later paragraphs, so a line wrapped
    at 88 columns in the source broke mid-sentence again at 80. A paragraph that
    starts with ``\\b`` (click's mark for preformatted text) is kept as written.

    Examples
    --------
    >>> print(reflowed('''Check files.
    ...
    ...     Prints the rows and the
    ...     metrics present.
    ...     '''))
    Check files.
    <BLANKLINE>
    Prints the rows and the metrics present.
    """
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


class _PlainHelp:
    """``--help`` that shows flags without a type and reflowed prose (commands and groups)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = reflowed(self.help)

    def get_params(self, ctx):
        return _plain_flags(super().get_params(ctx))


class _Command(_PlainHelp, typer.core.TyperCommand):
    """A command with the help of :class:`_PlainHelp` that refuses an option of one
    value given twice (click keeps the last one silently: ``plot --at A --at B``
    plotted B alone, ``-o x -o y`` wrote y) and a path given empty."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            if not reader_left():  # another pipe (a program record runs): an error, said
                fail(f"a pipe closed while writing ({exc.strerror or exc})")
            # the reader of the results stopped early (`| head`): it has what it asked for,
            # a success (exit 0, docs/cli.md)
            stdout_to_nowhere()
            raise typer.Exit(0) from None

    def parse_args(self, ctx, args):
        # click's own reading of the line, before any value is converted: it sees -ob.model
        # and -qo b.model as -o, and an empty path before pathlib turns it into "."
        opts, _, order = self.make_parser(ctx).parse_args(list(args))  # a copy: the parser consumes it
        refuse_repeated(order)
        refuse_empty_paths(self, opts)
        return super().parse_args(ctx, args)


def reader_left() -> bool:
    """Whether standard output is a pipe whose reading end was closed (``| head`` that
    has read its lines).

    Examples
    --------
    >>> r, w = os.pipe()
    >>> saved = os.dup(1)
    >>> _ = os.dup2(w, 1); os.close(r)  # stdout a pipe that nobody reads any more
    >>> left = reader_left()
    >>> _ = os.dup2(saved, 1); os.close(saved); os.close(w)
    >>> left
    True
    """
    import select

    if _stdout_kind() != "pipe":
        return False
    try:
        poll = select.poll()
        poll.register(1, select.POLLOUT)
        # Linux reports a pipe without readers as POLLERR, macOS and the BSDs as POLLHUP
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poll.poll(0))
    except (OSError, ValueError, AttributeError):  # no poll (Windows): not known to have left
        return False


def _stdout_kind() -> str:
    """What descriptor 1 is: "pipe" (or socket), "null" (``/dev/null``) or "other"."""
    import stat

    try:
        mode = os.fstat(1).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return "pipe"
        return "null" if os.path.samestat(os.fstat(1), os.stat(os.devnull)) else "other"
    except OSError:
        return "other"


def stdout_to_nowhere() -> None:
    """Point descriptor 1 at ``/dev/null``: what stdout still buffers can never be
    written (a full disk, a reader gone), and the interpreter's last flush must not fail.

    Examples
    --------
    >>> saved = os.dup(1)
    >>> stdout_to_nowhere(); os.path.samestat(os.fstat(1), os.stat(os.devnull))
    True
    >>> _ = os.dup2(saved, 1); os.close(saved)
    """
    with contextlib.suppress(OSError):
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)


def refuse_repeated(order) -> None:
    """A usage error (exit 2) for an option that takes one value yet appears more than
    once in ``order`` (click's parser's list of the parameters as the command line gives
    them, however spelled: ``-o x``, ``-ox``, ``--output=x``); flags and repeatable
    options may repeat.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> def option(*names, multiple=False, is_flag=False):  # the attributes a click option has
    ...     return SimpleNamespace(param_type_name="option", opts=list(names), secondary_opts=[],
    ...                            multiple=multiple, is_flag=is_flag, count=False)
    >>> at, draws, quiet = option("--at"), option("--draws", multiple=True), option("-q", is_flag=True)
    >>> refuse_repeated([draws, draws, quiet, quiet, at])
    >>> refuse_repeated([at, quiet, at])
    Traceback (most recent call last):
    ...
    typer._click.exceptions.UsageError: --at is given 2 times, but it takes one value
    """
    from typer._click.exceptions import UsageError  # typer's own click: its main turns it into one line

    for param in order:
        if getattr(param, "param_type_name", None) != "option" or param.multiple or param.is_flag or param.count:
            continue
        times = sum(p is param for p in order)
        if times > 1:
            raise UsageError(f"{'/'.join(param.opts + param.secondary_opts)} is given {times} times, "
                             "but it takes one value")


def refuse_empty_paths(command, opts) -> None:
    """A usage error (exit 2) for a path parameter of ``command`` given as the empty
    string in ``opts`` (click's parser's raw values): pathlib would read ``-o ""`` as
    ``.``, the current directory."""
    import typing
    from pathlib import Path

    from typer._click.exceptions import UsageError

    hints = typing.get_type_hints(command.callback) if command.callback else {}
    for param in command.params:
        hint = hints.get(param.name)
        if hint is not Path and Path not in typing.get_args(hint):  # Path, Optional[Path], List[Path]
            continue
        value = opts.get(param.name)
        if value == "" or (isinstance(value, (list, tuple)) and "" in value):
            name = "/".join(param.opts) if param.param_type_name == "option" else param.metavar or param.name.upper()
            raise UsageError(empty_path(name))


def empty_path(name: str) -> str:
    """The message for a path argument or option ``name`` given as the empty string."""
    return f"{name} is empty; give a path"


class _Group(_PlainHelp, typer.core.TyperGroup):
    """A command group with the help of :class:`_PlainHelp`."""


class _Typer(typer.Typer):
    """``typer.Typer`` whose commands are :class:`_Command` and groups :class:`_Group`."""

    def __init__(self, *args, cls=_Group, **kwargs):
        super().__init__(*args, cls=cls, **kwargs)

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or _Command, **kwargs)


class _OneLineErrors(_Group):
    """The command group, with every error on one stderr line and status 2.

    Click prints usage errors (an unknown option, a missing argument) as a usage
    block and typer as a box; both become one ``error:`` line. An unexpected
    exception is an internal error: one line (status 1) saying so, never a traceback
    (set ``PROBPERF_DEBUG=1`` to see it). SIGTERM stops a command as Ctrl-C does, so
    writes in progress remove their temporary files; the status says which (143, 130).
    """

    def invoke(self, ctx):
        # typer >= 0.2x turns a KeyboardInterrupt into a bare status 130 (helper-86:
        # nothing said, and 130 after SIGTERM too); as an Abort it reaches main below
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Abort() from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
            signal.signal(signal.SIGTERM, _terminate)
        if sys.stdout is None:  # started with stdout closed (`>&-`)
            _stdout_to_devnull()
        piped = _stdout_kind() == "pipe"
        try:
            with _one_line_warnings():
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:  # Ctrl-C or SIGTERM: said, not a silent exit
            err_console.print("interrupted", highlight=False)
            code = interrupted_code()
        except SystemExit as exc:  # typer's or rich's own exit on a broken pipe (help printed to `| head`)
            # (rich points stdout at /dev/null before it exits: the pipe it left is the sign)
            if not (exc.code == 1 and piped and (reader_left() or _stdout_kind() == "null")):
                raise
            stdout_to_nowhere()
            code = 0
        except typer.TyperException as exc:  # click's usage errors (typer vendors click)
            message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            if message.strip():  # a group called bare has shown its help, and its error says nothing
                err_console.print(f"[bold red]error:[/] {shown(' '.join(message.split()))}",
                                  highlight=False, soft_wrap=True)
            code = getattr(exc, "exit_code", BAD_INPUT)
        except OSError as exc:  # the system refused a read or write outside bad_input (stdout on a full disk)
            if os.environ.get("PROBPERF_DEBUG"):
                raise
            what = f"{exc.filename}: " if exc.filename else "cannot write the output: " if exc.errno == errno.ENOSPC else ""
            err_console.print(f"[bold red]error:[/] {shown(what + str(exc.strerror or exc))}",
                              highlight=False, soft_wrap=True)
            stdout_to_nowhere()
            code = BAD_INPUT
        except Exception as exc:  # noqa: BLE001 - the last resort: no traceback for users
            if os.environ.get("PROBPERF_DEBUG"):
                raise
            err_console.print(f"[bold red]internal error:[/] {shown(f'{type(exc).__name__}: {exc}')} "
                              "(please report it; PROBPERF_DEBUG=1 shows the traceback)",
                              highlight=False, soft_wrap=True)
            code = 1
        sys.exit(code if isinstance(code, int) else 0)


@contextlib.contextmanager
def _one_line_warnings():
    """Python warnings shown as :func:`warn` lines (no file, line or source), and
    numpy's floating-point warnings not at all: they come from a prediction far beyond
    the data or a table at the limits of float range, which the commands report
    themselves (a refused prediction, a refused value)."""
    said = set()  # a model's inner fits (its calibration's clones) warn of the same runs again: said once

    def show(message, *_, **__):
        line = " ".join(str(message).split())
        if line not in said:
            said.add(line)
            warn(line)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="(divide by zero|overflow|invalid value|underflow) encountered",
                                category=RuntimeWarning)
        warnings.showwarning = show
        yield


#: Whether the command started with standard output closed (``>&-``): commands whose
#: results go to stdout refuse to run (:func:`require_stdout`); the others write their
#: files and lose only their status lines.
STDOUT_CLOSED = False


def _stdout_to_devnull() -> None:
    """Give the closed descriptor 1 to ``/dev/null``: left free, the next file opened
    would take it, and a program run by ``record`` would print into that file."""
    global STDOUT_CLOSED
    fd = os.open(os.devnull, os.O_WRONLY)
    if fd != 1:
        os.dup2(fd, 1)
        os.close(fd)
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - lives as long as the process
    STDOUT_CLOSED = True


def require_stdout() -> None:
    """Refuse a command whose results go to standard output when that is closed: they
    would vanish and the command would still exit 0.

    Examples
    --------
    >>> require_stdout()  # stdout open: nothing happens
    """
    if STDOUT_CLOSED:
        fail("standard output is closed: nowhere to write the results")


#: Set by SIGTERM's handler. Why a flag as well as the exception: a signal handler
#: runs wherever the main thread is, and an exception raised while a finaliser
#: (``__del__``) or a weakref callback runs is printed and dropped, so a long loop
#: went on recording after a SIGTERM (seen once in the test suite under load, a
#: ``record --reps 1000`` that never stopped). Loops check it between steps
#: (:func:`check_terminated`).
TERMINATED = threading.Event()


def _terminate(signum, frame):
    TERMINATED.set()
    raise KeyboardInterrupt


def interrupted_code() -> int:
    """The exit status of an interrupted command, as a shell reports a signal's:
    128 + its number (143 after SIGTERM, 130 after Ctrl-C).

    Examples
    --------
    >>> interrupted_code()  # no SIGTERM came: Ctrl-C's
    130
    """
    return 128 + (signal.SIGTERM if TERMINATED.is_set() else signal.SIGINT)


def check_terminated() -> None:
    """Raise KeyboardInterrupt if SIGTERM came, even if its own exception was lost
    (:data:`TERMINATED`)."""
    if TERMINATED.is_set():
        raise KeyboardInterrupt


app = _Typer(
    name="probperf",
    help="Predict run times of task-parallel programs, with honest intervals.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_OneLineErrors,
)
sim_app = _Typer(help="Simulate task-parallel programs and generate datasets.", no_args_is_help=True)
bench_app = _Typer(help="Benchmark programs (C + OpenMP tasks).", no_args_is_help=True)
app.add_typer(sim_app, name="sim")
app.add_typer(bench_app, name="bench")

class _Console(Console):
    """A rich console that leaves a broken pipe to the command (rich's own exits 1 without
    a word): :class:`_Command` ends quietly with 0 when the reader of stdout left early."""

    def on_broken_pipe(self) -> None:
        self.quiet = True  # nothing more to write there
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


console = _Console()
err_console = _Console(stderr=True)


def _version(value: bool):
    if value:
        from importlib.metadata import version

        console.print(f"probperf {version('probperf')}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """Predict run times of task-parallel programs, with honest intervals."""

#: Exit status for bad input (docs/cli.md).
BAD_INPUT = 2

def shown(text) -> str:
    r""":func:`printable` and escaped for rich markup, so ``[s]`` is shown, not applied.

    Examples
    --------
    >>> print(shown("time [s]"))
    time \[s]
    """
    return escape(printable(text))


def fail(message: str) -> None:
    """Print ``message`` on stderr (one line, sanitized) and exit with status 2."""
    err_console.print(f"[bold red]error:[/] {shown(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(BAD_INPUT)


def say_written(output, message: str, markup: bool = True) -> None:
    """Print a line about what a command wrote to ``output``, never wrapped (a path
    stays one line to copy): on stderr when ``output`` *is* standard output
    (``-o /dev/stdout``), so the written data stays clean; on stdout otherwise.

    Examples
    --------
    >>> say_written("fit.model", "saved DirectModel to fit.model")
    saved DirectModel to fit.model
    """
    from ..outputs import is_stdout

    # (stdout redirected to the output file itself, ``-o m.model > m.model``, does not
    # count: the model file replaces that file, and the line goes to the old one)
    target = err_console if is_stdout(output) else console
    target.print(message, highlight=False, markup=markup, soft_wrap=True)


def warn(message: str) -> None:
    """Print a warning on stderr (one line, sanitized)."""
    err_console.print(f"[yellow]warning:[/] {shown(message)}", highlight=False, soft_wrap=True)


@contextlib.contextmanager
def bad_input():
    """Turn the library's input errors into an stderr message and exit status 2."""
    from ..data import MeasurementError
    from ..persist import ModelFileError

    try:
        yield
    except (MeasurementError, ModelFileError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:  # a file named by the user that cannot be read or written
        fail(f"{exc.filename or ''}: {exc.strerror or exc}" if exc.filename else str(exc))


def number(option: str, text: str, why: str = "", **limits):
    """One number typed for ``option``, read by :func:`probperf.limits.parse_expression`
    with ``limits`` (``integer``, ``low``, ``high``, ``low_open``, ``limit``); bad input
    exits with status 2 and a message naming the option, and ``why`` a limit is where it
    is not plain.

    Examples
    --------
    >>> number("--draws", "2**10", integer=True, low=1)
    1024
    """
    try:
        return parse_expression(text, **limits)
    except NumberError as exc:
        fail(f"{option}: {exc}" + (f" ({why})" if why else ""))


def parse_list(text: str, what: str, **limits) -> list:
    """``"1,4,16"`` or ``"1..8"`` (inclusive) or a mix, e.g. ``"1..4,8"``, as integers
    (:func:`probperf.limits.parse_list`); bad input exits with status 2 naming ``what``,
    as does a value given twice: the grids these lists make would hold the same runs
    twice, identical (same seeds), which a fit takes as two agreeing measurements and so
    narrows its intervals; repeated runs are what ``--reps`` asks for."""
    try:
        values = limits_parse_list(text, **limits)
    except NumberError as exc:
        fail(f"{what}: {exc}")
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        fail(f"{what} {text}: {twice[0]} is given twice; give --reps for repeated runs")
    return values


def _not_a_pair(option: str, text: str, item: str, example: str, before=(), ranges: bool = False):
    """Exit naming ``item`` of ``text`` that is not NAME=VALUE. With ``ranges`` (an option
    that takes ranges and repeats, ``predict --at``), a bare number after the pairs
    ``before`` it is read as a list of values (``c=64,256``), which a point cannot hold:
    the message says what can.

    Examples
    --------
    >>> import typer
    >>> try:
    ...     _not_a_pair("--at", "n=8,c=64,256", "256", "n=2**30,p=36", ["n=8", "c=64"], ranges=True)
    ... except typer.Exit as exc:
    ...     exc.exit_code
    2
    """
    hint = ""
    named = [p.partition("=")[0].strip() for p in before if "=" in p]
    if ranges and named and named[-1]:
        try:
            parse_expression(item)
        except NumberError:
            pass
        else:
            hint = (f" (a list of values for {named[-1]}? a point takes one: give one {option} per value, or a range "
                    f"such as {named[-1]}=2**6..2**8 or {named[-1]}=1..4)")
    fail(f"{option} {text!r}: expected NAME=VALUE pairs, e.g. {example}; got {item!r}{hint}")


def _items(text: str, option: str) -> list[str]:
    """The comma-separated items of one ``option`` value, stripped; a doubled or trailing
    comma exits with status 2, as in every list option (:func:`probperf.limits.parse_list`):
    it is a value left out by mistake more often than a separator typed twice."""
    items = [t.strip() for t in text.split(",")]
    if items == [""]:  # nothing given: said by the caller ("needs at least one")
        return []
    if not all(items):
        fail(f"{option} {text!r}: an empty item (a doubled or trailing comma)")
    return items


def parse_assignments(items, option: str, example: str = "p=4") -> dict:
    """``["n=2**20", "p=4"]`` or ``"n=2**20,p=4"`` -> ``{"n": 1048576, "p": 4}``.

    The one parser of NAME=VALUE for every command (``--param``, ``--at``): values may
    be written ``2**20``, ``2^20`` or ``1e6`` (:func:`probperf.limits.parse_expression`);
    integral values come back as ``int``. A malformed item, a repeated name or a value
    that is not a finite real number exits with status 2 and a message naming the option.

    Examples
    --------
    >>> parse_assignments("n=2**10,p=4", "--at")
    {'n': 1024, 'p': 4}
    """
    if isinstance(items, str):
        items = [items]
    out = {}
    for text in items or []:
        for item in _items(text, option):
            name, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not name:
                _not_a_pair(option, text, item, example)
            if name in out:
                fail(f"{option} {text!r}: {name} is given twice")
            # p counts workers: a whole number, and one float64 holds exactly (2**53 + 1 would
            # become 2**53 as a parameter, predicted without a word), as in measurements
            out[name] = number(f"{option} {name}", value, integer=name == "p")
    if items and not out:
        fail(f"{option} needs at least one NAME=VALUE")
    return out


def parse_points(items, option: str, example: str = "n=2**30,p=36") -> list[dict]:
    """The points of a repeatable ``option`` (``--at``): each item is NAME=VALUE pairs as
    for :func:`parse_assignments`, where a value may be a range, ``2**20..2**24`` (the
    powers between) or ``16..20`` (every integer between), and an item with ranges
    stands for every combination of their values (the first parameter varying
    slowest). At most :data:`probperf.limits.MAX_LIST_VALUES` points in all; bad input
    exits with status 2 naming the option.

    Examples
    --------
    >>> parse_points(["n=2**10..2**11,p=4..5", "n=8,p=1"], "--at")
    [{'n': 1024, 'p': 4}, {'n': 1024, 'p': 5}, {'n': 2048, 'p': 4}, {'n': 2048, 'p': 5}, {'n': 8, 'p': 1}]
    """
    import itertools
    import math

    from ..limits import MAX_LIST_VALUES

    points = []
    for text in items:
        pairs = _items(text, option)
        for i, item in enumerate(pairs):  # the shape of every pair first, each named as the user wrote the item
            name, eq, _ = (t.strip() for t in item.partition("="))
            if not eq or not name:
                _not_a_pair(option, text, item, example, pairs[:i], ranges=True)
        ranged = [t for t in pairs if ".." in t.partition("=")[2]]
        if not ranged:  # one point, read as every NAME=VALUE list is
            points.append(parse_assignments(text, option, example))
            if len(points) > MAX_LIST_VALUES:
                fail(f"{option}: more than {MAX_LIST_VALUES} points (MAX_LIST_VALUES); predict fewer at once")
            continue
        names = []
        for item in pairs:
            name = item.partition("=")[0].strip()
            if name in names:
                fail(f"{option} {text!r}: {name} is given twice")
            names.append(name)
        fixed = parse_assignments([t for t in pairs if t not in ranged], option, example)
        ranges = {}
        for item in ranged:
            name, _, value = (t.strip() for t in item.partition("="))
            try:
                ranges[name] = limits_parse_list(value)
            except NumberError as exc:  # a range steps through whole numbers or powers, never fractions
                fail(f"{option} {name}: {exc} (a range steps through whole numbers, 16..64, or powers, "
                     "2**4..2**6; give a fractional value as a point of its own)")
        count = len(points) + math.prod(len(v) for v in ranges.values())
        if count > MAX_LIST_VALUES:  # said before the combinations are made: 1000^3 would fill the memory
            fail(f"{option}: {count} points, above the limit {MAX_LIST_VALUES} (MAX_LIST_VALUES); "
                 "predict fewer at once")
        for combo in itertools.product(*ranges.values()):
            point = {**fixed, **dict(zip(ranges, combo))}
            points.append({name: point[name] for name in names})
    return points


def config_names(items) -> list[str]:
    """``--config`` values as column names: each repeatable, or a comma-separated list
    (``--config m,k`` is ``--config m --config k``; a name cannot hold a comma, since it
    is addressed as NAME=VALUE in ``--at`` lists). An empty name exits with status 2.

    Examples
    --------
    >>> config_names(["m, k", "cutoff"])
    ['m', 'k', 'cutoff']
    """
    out = []
    for text in items or []:
        names = [t.strip() for t in text.split(",")]
        if not all(names):
            fail(f"--config {text!r}: an empty name; give column names, e.g. --config m,k")
        out += names
    return out


def split_rows(m, split, verb: str):
    """The rows of ``m`` labelled ``split`` (``--split``; the rule is
    :func:`probperf.data.labelled_rows`), said on stderr as ``verb`` ("fitting on",
    "looking at"), with the rows left out for lack of a label."""
    from ..data import labelled_rows, near_labels, near_text

    chosen, unlabelled = labelled_rows(m, split, "give --split '' to use every row")
    if "split" not in m.frame:
        return chosen
    if not split:
        said = f"all {len(m)} rows (--split empty: the split labels are not used)"
    else:
        left = f"; {unlabelled} row(s) without a split label left out" if unlabelled else ""
        near = near_labels(m, split)
        if near:  # 'Train' for 'train': a typo, most likely, and the labels are matched exactly
            left += f"; {near_text(near)}"
        said = f"the {len(chosen)} rows with split={shown(repr(split))}{left}"
    err_console.print(f"{verb} {said}", highlight=False, soft_wrap=True)
    return chosen


def main() -> None:  # pragma: no cover - console entry point
    app()
    sys.exit(0)
