"""The typer application and the error handling every command shares.

Commands live in sibling modules by topic (data, sim, models, record) and register on
:data:`app`; :mod:`probperf.cli` imports them all.
"""

from __future__ import annotations

import contextlib
import sys

import typer
from rich.console import Console

app = typer.Typer(
    name="probperf",
    help="Predict run times of task-parallel programs, with honest intervals.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
sim_app = typer.Typer(help="Simulate task-parallel programs and generate datasets.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmark programs (C + OpenMP tasks).", no_args_is_help=True)
app.add_typer(sim_app, name="sim")
app.add_typer(bench_app, name="bench")

console = Console()
err_console = Console(stderr=True)


def _version(value: bool):
    if value:
        from importlib.metadata import version

        console.print(f"probperf {version('probperf')}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """Predict run times of task-parallel programs, with honest intervals."""

#: Exit status for bad input (DESIGN.md, "Contracts").
BAD_INPUT = 2


def fail(message: str) -> None:
    """Print ``message`` on stderr and exit with status 2."""
    from rich.markup import escape

    # escape: paths and values may contain [brackets] that rich would read as markup
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(BAD_INPUT)


@contextlib.contextmanager
def bad_input():
    """Turn the library's input errors into an stderr message and exit status 2."""
    from ..data import MeasurementError
    from ..persist import ModelFileError

    try:
        yield
    except (MeasurementError, ModelFileError, ValueError, FileNotFoundError) as exc:
        fail(str(exc))


def parse_list(text: str, what: str, cast=int) -> list:
    """Parse ``"1,4,16"`` or ``"1..8"`` (inclusive) or a mix, e.g. ``"1..4,8"``."""
    values = []
    for part in filter(None, (t.strip() for t in text.split(","))):
        try:
            if ".." in part:
                lo, hi = part.split("..", 1)
                values.extend(range(int(lo), int(hi) + 1))
            else:
                values.append(cast(eval_number(part)))
        except ValueError:
            fail(f"{what}: cannot read {part!r} as a number or range")
    if not values:
        fail(f"{what}: empty list")
    return values


def parse_assignments(items, option: str, example: str = "p=4") -> dict:
    """``["n=2**20", "p=4"]`` or ``"n=2**20,p=4"`` -> ``{"n": 1048576, "p": 4}``.

    The one parser of NAME=VALUE for every command (``--param``, ``--at``): values may
    be written ``2**20``, ``2^20`` or ``1e6``; integral values come back as ``int``. A
    malformed item, a repeated name or a value that is not a finite number exits with
    status 2 and a message naming the option.

    Examples
    --------
    >>> parse_assignments("n=2**10,p=4", "--at")
    {'n': 1024, 'p': 4}
    """
    if isinstance(items, str):
        items = [items]
    out = {}
    for text in items or []:
        for item in filter(None, (t.strip() for t in text.split(","))):
            name, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not name:
                fail(f"{option} {text!r}: expected NAME=VALUE pairs, e.g. {example}; got {item!r}")
            if name in out:
                fail(f"{option} {text!r}: {name} is given twice")
            try:
                number = eval_number(value)
            except ValueError:
                fail(f"{option} {text!r}: {name} = {value!r} is not a number")
            if number != number or number in (float("inf"), float("-inf")):
                fail(f"{option} {text!r}: {name} is not finite")
            out[name] = int(number) if float(number).is_integer() and abs(number) < 2**53 else number
    if items and not out:
        fail(f"{option} needs at least one NAME=VALUE")
    return out


def eval_number(text: str) -> float:
    """A number written as ``65536``, ``2**16``, ``1e6`` or ``2^16``."""
    text = text.strip().replace("^", "**")
    if "**" in text:
        base, exp = text.split("**", 1)
        return float(base) ** float(exp)
    return float(text)


def main() -> None:  # pragma: no cover - console entry point
    app()
    sys.exit(0)
