"""``probperf sim run`` and ``probperf sim datasets``: simulated measurement tables."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..limits import MAX_SIM_OVERHEAD, MAX_SIM_RUNS, MAX_SIM_SCALE, MAX_SIM_SEED, MAX_SIM_WORKERS
from ..cautions import counted
from ._app import _items, bad_input, console, fail, number, parse_list, say_written, shown, sim_app

__all__: list[str] = []

def _check_output(path: Path) -> None:
    from ..formats import TABLE_FORMATS, output_format
    from ..outputs import check_output

    with bad_input():
        output_format(path, "-o", TABLE_FORMATS)
        check_output(path, "-o")  # a missing directory is refused, as by every -o FILE


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
        if name in out:
            fail(f"--set {name} is given twice; give all its values once: --set {name}=V1,V2")
        out[name] = parse_list(text, f"--set {name}")
    return out


def _machine(steal_latency: Optional[str], create_overhead: Optional[str]):
    from ..sim import Machine

    changes = {}
    for option, value in (("--steal-latency", steal_latency), ("--create-overhead", create_overhead)):
        if value is not None:
            changes[option[2:].replace("-", "_")] = float(number(option, value, low=0, high=MAX_SIM_OVERHEAD,
                                                                 limit="MAX_SIM_OVERHEAD"))
    return Machine(**changes)


def _write(measurements, path: Path) -> None:
    from ..formats import write

    write(measurements, path)


@sim_app.command("run")
def run(
    app: str = typer.Option(..., "--app", help="Program: fib, nqueens, sort, fft, sparselu, strassen, farm."),
    n: str = typer.Option(..., "--n", help="Problem sizes, e.g. 65536,262144, or 2**16..2**18 (powers: 2^16, 2^17, 2^18), or 20..24 (every integer)."),
    p: str = typer.Option("1,4,16,36", "--p", help="Worker counts, e.g. 1,4,16,36 or 1..8."),
    reps: str = typer.Option("1", "--reps", metavar="INTEGER", help="Repetitions per setting."),
    seed: str = typer.Option("0", "--seed", metavar="INTEGER", help="Seed; the same seed reproduces the table."),
    config: Optional[List[str]] = typer.Option(
        None, "--set", help="Configuration values NAME=V1,V2 (repeatable; a grid)."
    ),
    scheduler: str = typer.Option("ws", "--scheduler", help="ws (work stealing) or greedy."),
    steal_latency: Optional[str] = typer.Option(None, "--steal-latency", metavar="CYCLES", help="Cycles per steal."),
    create_overhead: Optional[str] = typer.Option(None, "--create-overhead", metavar="CYCLES", help="Cycles per task creation."),
    output: Path = typer.Option(..., "-o", "--output", help="Output table (.csv, .parquet, .jsonl)."),
) -> None:
    """Simulate runs of one program over a grid of sizes, workers and configurations."""
    from ..sim import APPS, SCHEDULERS, generate
    from ..sim.apps import ParameterError

    if app not in APPS:
        fail(f"--app {app!r}: unknown program; choose from {', '.join(APPS)}")
    if scheduler not in SCHEDULERS:
        fail(f"--scheduler {scheduler!r}: choose from {', '.join(SCHEDULERS)}")
    overheads = [o for o, v in (("--steal-latency", steal_latency), ("--create-overhead", create_overhead)) if v]
    if scheduler == "greedy" and overheads:  # it ignores the runtime's overheads: never dropped without a word
        fail(f"{' and '.join(overheads)}: the greedy scheduler has no runtime overheads (no steals, task "
             "creation free); they apply to --scheduler ws")
    from ..sim.datasets import max_size

    sizes = parse_list(n, "--n", high=max_size(app), limit=f"MAX_SIM_SCALE = {MAX_SIM_SCALE:g}x "
                       f"the work of the largest {app} test size")
    workers = parse_list(p, "--p", high=MAX_SIM_WORKERS, limit="MAX_SIM_WORKERS")
    if any(w < 1 for w in workers):
        fail("--p: worker counts must be >= 1")
    if any(s < 1 for s in sizes):
        fail("--n: problem sizes must be >= 1")
    repeats = number("--reps", reps, integer=True, low=1, high=MAX_SIM_RUNS, limit="MAX_SIM_RUNS")
    seed = number("--seed", seed, integer=True, low=0, high=MAX_SIM_SEED)
    cfg = _parse_config(config, app)
    runs = len(sizes) * len(workers) * repeats
    for values in cfg.values():
        runs *= len(values)
    if runs > MAX_SIM_RUNS:
        fail(f"the grid holds {runs} runs, above the limit {MAX_SIM_RUNS} (MAX_SIM_RUNS)")
    machine = _machine(steal_latency, create_overhead)
    _check_output(output)
    with bad_input():
        try:
            m = generate(app, sizes, workers, config=cfg, reps=repeats, seed=seed, machine=machine,
                         scheduler=scheduler, progress=True)
        except ParameterError as exc:  # the program's own range: name the option that set the value
            option = "--n" if exc.name == "n" else f"--set {exc.name}={exc.value}"
            raise ValueError(f"{option}: {exc}") from None
        _write(m, output)
    say_written(output, f"wrote {counted(len(m), 'run')} of {shown(app)} to {shown(output)}")


@sim_app.command("datasets")
def datasets(
    output: Path = typer.Option(..., "-o", "--output", help="Directory for the tables."),
    apps: Optional[str] = typer.Option(
        None, "--apps", help="Comma-separated programs (default: the thesis's six, sort,sparselu,fft,strassen,fib,"
                             "nqueens; farm, the seventh, when named)."
    ),
    quick: bool = typer.Option(False, "--quick", help="Smaller sizes (scale 1/4), for a fast look."),
    scale: Optional[str] = typer.Option(None, "--scale", help="Size multiplier (overrides --quick)."),
    seed: str = typer.Option("0", "--seed", metavar="INTEGER", help="Seed; the same seed reproduces the tables."),
    reps: str = typer.Option("1", "--reps", metavar="INTEGER", help="Repetitions per setting."),
    fmt: str = typer.Option("csv", "--format", help="csv, parquet or jsonl."),
) -> None:
    """Write the thesis's Dataset A and B for each program of --apps: DIR/<app>_A.<fmt>, DIR/<app>_B.<fmt>."""
    from ..outputs import check_output_dir
    from ..sim import PROTOCOL, dataset
    from ..sim.datasets import dataset_points

    names = ["sort", "sparselu", "fft", "strassen", "fib", "nqueens"]
    if apps is not None:  # given empty, it names no program (not the default set)
        # a program named twice is one set of tables, simulated once
        names = list(dict.fromkeys(_items(apps, "--apps")))
    unknown = [a for a in names if a not in PROTOCOL]
    if unknown or not names:
        fail(f"--apps {apps!r}: " + (f"unknown program(s) {', '.join(unknown)}" if unknown else "no program named")
             + f"; choose from {', '.join(PROTOCOL)}")
    if fmt not in ("csv", "parquet", "jsonl"):
        fail(f"--format {fmt!r}: choose csv, parquet or jsonl")
    factor = 0.25 if quick else 1.0
    if scale is not None:
        factor = number("--scale", scale, low=0, low_open=True, high=MAX_SIM_SCALE, limit="MAX_SIM_SCALE")
    seed = number("--seed", seed, integer=True, low=0, high=MAX_SIM_SEED)
    reps = number("--reps", reps, integer=True, low=1, high=MAX_SIM_RUNS, limit="MAX_SIM_RUNS")
    with bad_input():
        # every target checked and everything simulated before the first file is
        # written, so a failure leaves no partial set of files
        check_output_dir(output, [f"{a}_{w}.{fmt}" for a in names for w in ("A", "B")], "-o")
        try:
            runs = reps * sum(len(dataset_points(a, w, factor)) for a in names for w in ("A", "B"))
        except ValueError as exc:  # the only refusal here: a scale that merges sizes (or --quick's)
            raise ValueError(f"{'--scale' if scale is not None else '--quick'}: {exc}") from None
        if runs > MAX_SIM_RUNS:  # counted as sim run counts its grid, before any run
            fail(f"the datasets hold {runs} runs ({reps} per setting), above the limit {MAX_SIM_RUNS} "
                 "(MAX_SIM_RUNS); give fewer --reps or --apps")
        tables = {}
        for app in names:
            for which in ("A", "B"):
                console.print(f"[bold]{app}[/] dataset {which}", highlight=False)
                tables[app, which] = dataset(app, which, scale=factor, seed=seed, reps=reps,
                                             progress=True)
        output.mkdir(parents=True, exist_ok=True)
        for (app, which), m in tables.items():
            _write(m, output / f"{app}_{which}.{fmt}")
    console.print(f"wrote {len(tables)} tables to {shown(output)}", highlight=False)
