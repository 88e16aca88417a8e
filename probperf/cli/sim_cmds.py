"""``probperf sim run`` and ``probperf sim datasets``: simulated measurement tables."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ._app import bad_input, console, eval_number, fail, parse_list, sim_app

__all__: list[str] = []

_SUFFIXES = (".csv", ".parquet", ".jsonl")


def _check_output(path: Path) -> None:
    if path.suffix.lower() not in _SUFFIXES:
        fail(f"output {str(path)!r}: use a .csv, .parquet or .jsonl file name")


def _parse_config(items: Optional[List[str]], app: str) -> dict:
    from ..sim import APPS

    out = {}
    for item in items or []:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name:
            fail(f"--set {item!r}: expected NAME=VALUES, e.g. merge_cutoff=512,1024")
        if name not in APPS[app].config:
            fail(f"--set {item!r}: {app} has no configuration parameter {name!r}; "
                 f"it takes {', '.join(APPS[app].config) or 'none'}")
        out[name] = parse_list(text, f"--set {name}")
    return out


def _machine(steal_latency: Optional[float], create_overhead: Optional[float]):
    from ..sim import Machine

    changes = {}
    if steal_latency is not None:
        changes["steal_latency"] = steal_latency
    if create_overhead is not None:
        changes["create_overhead"] = create_overhead
    return Machine(**changes)


def _write(measurements, path: Path) -> None:
    from ..formats import write

    path.parent.mkdir(parents=True, exist_ok=True)
    write(measurements, path)


@sim_app.command("run")
def run(
    app: str = typer.Option(..., "--app", help="Program: fib, nqueens, sort, fft, sparselu, strassen, farm."),
    n: str = typer.Option(..., "--n", help="Problem sizes, e.g. 65536,262144 or 2**16,2**18 or 20..24."),
    p: str = typer.Option("1,4,16,36", "--p", help="Worker counts, e.g. 1,4,16,36 or 1..8."),
    reps: int = typer.Option(1, "--reps", min=1, help="Repetitions per setting."),
    seed: int = typer.Option(0, "--seed", help="Seed; the same seed reproduces the table."),
    config: Optional[List[str]] = typer.Option(
        None, "--set", help="Configuration values NAME=V1,V2 (repeatable; a grid)."
    ),
    scheduler: str = typer.Option("ws", "--scheduler", help="ws (work stealing) or greedy."),
    steal_latency: Optional[float] = typer.Option(None, "--steal-latency", help="Cycles per steal."),
    create_overhead: Optional[float] = typer.Option(None, "--create-overhead", help="Cycles per task creation."),
    output: Path = typer.Option(..., "-o", "--output", help="Output table (.csv, .parquet, .jsonl)."),
) -> None:
    """Simulate runs of one program over a grid of sizes, workers and configurations."""
    from ..sim import APPS, SCHEDULERS, generate

    if app not in APPS:
        fail(f"--app {app!r}: unknown program; choose from {', '.join(APPS)}")
    if scheduler not in SCHEDULERS:
        fail(f"--scheduler {scheduler!r}: choose from {', '.join(SCHEDULERS)}")
    _check_output(output)
    sizes = parse_list(n, "--n")
    workers = parse_list(p, "--p")
    if any(w < 1 for w in workers):
        fail("--p: worker counts must be >= 1")
    if any(s < 1 for s in sizes):
        fail("--n: problem sizes must be >= 1")
    cfg = _parse_config(config, app)
    with bad_input():
        machine = _machine(steal_latency, create_overhead)
        m = generate(app, sizes, workers, config=cfg, reps=reps, seed=seed, machine=machine,
                     scheduler=scheduler, progress=True)
        _write(m, output)
    console.print(f"wrote {len(m)} runs of {app} to {output}", highlight=False)


@sim_app.command("datasets")
def datasets(
    output: Path = typer.Option(..., "-o", "--output", help="Directory for the tables."),
    apps: Optional[str] = typer.Option(
        None, "--apps", help="Comma-separated programs (default: sort,sparselu,fft,strassen,fib,nqueens)."
    ),
    quick: bool = typer.Option(False, "--quick", help="Smaller sizes (scale 1/4), for a fast look."),
    scale: Optional[str] = typer.Option(None, "--scale", help="Size multiplier (overrides --quick)."),
    seed: int = typer.Option(0, "--seed", help="Seed; the same seed reproduces the tables."),
    reps: int = typer.Option(1, "--reps", min=1, help="Repetitions per setting."),
    fmt: str = typer.Option("csv", "--format", help="csv, parquet or jsonl."),
) -> None:
    """Write the thesis's Dataset A and B for each program: DIR/<app>_A.<fmt>, DIR/<app>_B.<fmt>."""
    from ..sim import PROTOCOL, dataset

    names = ["sort", "sparselu", "fft", "strassen", "fib", "nqueens"]
    if apps:
        names = [a.strip() for a in apps.split(",") if a.strip()]
    unknown = [a for a in names if a not in PROTOCOL]
    if unknown or not names:
        fail(f"--apps: unknown program(s) {unknown}; choose from {', '.join(PROTOCOL)}")
    if fmt not in ("csv", "parquet", "jsonl"):
        fail(f"--format {fmt!r}: choose csv, parquet or jsonl")
    try:
        factor = eval_number(scale) if scale is not None else (0.25 if quick else 1.0)
    except ValueError:
        fail(f"--scale {scale!r}: not a number")
    if not factor > 0:
        fail("--scale must be positive")
    if output.exists() and not output.is_dir():
        fail(f"-o {str(output)!r} exists and is not a directory")
    with bad_input():
        # simulate everything first so a failure leaves no partial set of files
        tables = {}
        for app in names:
            for which in ("A", "B"):
                console.print(f"[bold]{app}[/] dataset {which}", highlight=False)
                tables[app, which] = dataset(app, which, scale=factor, seed=seed, reps=reps,
                                             progress=True)
        output.mkdir(parents=True, exist_ok=True)
        for (app, which), m in tables.items():
            _write(m, output / f"{app}_{which}.{fmt}")
    console.print(f"wrote {len(tables)} tables to {output}", highlight=False)
