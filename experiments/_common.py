"""What the experiment scripts share: datasets on disk, result tables, figures, Markdown.

The per-fit work runs on Dask workers and lives in :mod:`probperf.experiment_tasks`;
this module runs in the client only (the script's process).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
#: Simulated datasets are cached here (deterministic, so safe to delete).
SIM_CACHE = DATA / "sim"
RESULTS = HERE / "results"

#: The real published cases (Lobachev et al.), copied from the shared data with their
#: README so the experiments do not depend on anything outside this repository.
PUBLISHED = ("gauss_n_p8", "karatsuba_uniform_p8", "karatsuba_nonuniform_p8", "rabin_miller_p8")

#: Simulated programs, in the order tables list them.
APPS = ("sort", "sparselu", "fft", "strassen", "fib", "nqueens", "farm")


# -- command line ----------------------------------------------------------------


def experiment_parser(doc: str, name: str, seeds: str, simulated: bool = True) -> argparse.ArgumentParser:
    """The parser every experiment script starts from: the grid flags of
    :func:`probperf.runner.add_cli_options` (results in ``results/NAME.parquet``), then
    the flags all scripts share (progress, effort, re-running), and ``--data`` where the
    script reads simulated datasets."""
    from probperf.runner import add_cli_options

    # no abbreviations: a script that checks whether a flag was given (compare_models'
    # --seeds under --quick) would not see --see=7
    parser = argparse.ArgumentParser(description=doc.splitlines()[0], allow_abbrev=False)
    add_cli_options(parser, out=str(RESULTS / f"{name}.parquet"), seeds=seeds)
    if simulated:
        parser.add_argument("--data", default=str(SIM_CACHE),
                            help="cache directory of the simulated datasets (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--effort", choices=("full", "thorough"), default="full",
                        help="inference settings (probperf.experiment_tasks.EFFORT); --quick overrides")
    parser.add_argument("--report-only", action="store_true",
                        help="run no fit: write the tables and figures from the fits already stored")
    parser.add_argument("--rerun-errors", action="store_true", help="run again the fits recorded as failed")
    return parser


def fail(message: str) -> None:
    """Bad input on a script's command line: one line on stderr, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def names(option: str, text: str, allowed=None, check=None) -> tuple:
    """The comma-separated names given to ``option``: refused (:func:`fail`) when none
    or when one is not in ``allowed`` (or ``check(name)`` raises ``ValueError``),
    before any data are simulated or fits run (they were run and stored as failed)."""
    given = tuple(t.strip() for t in str(text).split(",") if t.strip())
    if not given:
        fail(f"{option} {text!r} names nothing")
    unknown = [t for t in given if allowed is not None and t not in allowed]
    if unknown:
        fail(f"{option}: unknown {', '.join(map(repr, unknown))}; choose from {', '.join(allowed)}")
    for t in given if check else ():
        try:
            check(t)
        except ValueError as exc:
            fail(f"{option} {t!r}: {exc}")
    return given


def check_out(path: str) -> None:
    """``--out`` must name a Parquet file that is not a directory or another kind of
    file, in a folder this process can write (made if missing, as the results' folder
    is): checked before any fit runs (helper-77: a read-only folder failed after the
    first fit, with a traceback)."""
    from probperf.outputs import OutputError, check_output

    out = Path(path)
    if out.suffix.lower() != ".parquet":
        fail(f"--out {path}: give a .parquet file")
    if out.is_dir():
        fail(f"--out {path}: is a directory")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"--out {path}: cannot make its folder {out.parent} ({exc.strerror or exc})")
    try:
        check_output(out, "--out")
    except OutputError as exc:
        fail(str(exc))


# -- datasets ----------------------------------------------------------------------


def sim_file(app: str, which: str, scale: float, seed: int, data_dir: Path) -> Path:
    """The CSV of a simulated Dataset A/B, simulated once and then read from disk.

    The simulation is deterministic in ``(app, which, scale, seed)``, so the file is a
    cache: deleting it and re-running gives the same table, under the simulator that
    wrote it. The stored results were computed on the stored tables: every table was
    written before the work-stealing fix of 2026-11-29 (the first idle thief to probe a
    pushed continuation takes it, :mod:`probperf.sim.schedule`), and nqueens' before
    session 32 conserved its search across cut-offs (:func:`probperf.sim.apps.nqueens`),
    so deleting them re-simulates other tables.
    """
    from probperf.sim import dataset

    path = Path(data_dir) / f"{app}_{which}_scale{scale:g}_seed{seed}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        frame = dataset(app, which, scale=scale, seed=seed).frame
        tmp = path.with_suffix(".tmp")
        frame.to_csv(tmp, index=False)
        tmp.replace(path)
    return path


def published_file(name: str) -> Path:
    path = DATA / "published" / f"{name}.csv"
    if not path.exists():
        fail(f"missing published dataset {path}; it ships with the repository")
    return path


def sim_cases(apps, whiches, scale: float, seeds, data_dir: Path, progress: bool = True) -> list[dict]:
    """One case dict per (app, A/B, data seed): ``case``, ``app``, ``dataset``, ``data_seed``, ``data``."""
    cases = []
    todo = [(a, w, s) for a in apps for w in whiches for s in seeds]
    for i, (app, which, seed) in enumerate(todo):
        if progress:
            print(f"[data {i + 1}/{len(todo)}] {app} dataset {which} seed {seed}", file=sys.stderr, flush=True)
        path = sim_file(app, which, scale, seed, data_dir)
        cases.append({"case": f"{app}/{which}", "app": app, "dataset": which, "data_seed": seed, **data_ref(path)})
    return cases


def published_cases() -> list[dict]:
    return [{"case": f"published/{name}", "app": name, "dataset": "published", "data_seed": 0,
             **data_ref(published_file(name))} for name in PUBLISHED]


def data_ref(path) -> dict:
    """A task's ``data`` field for a dataset file: relative to this directory where the
    file is in it, with ``_root`` saying where that is (not part of the task's key,
    probperf.runner.task_key): the fits stored by one clone are found in another. A
    file elsewhere (``--data`` outside) is named by its absolute path."""
    path = Path(path).resolve()
    if path.is_relative_to(HERE):
        return {"data": str(path.relative_to(HERE)), "_root": str(HERE)}
    return {"data": str(path)}


# -- result tables -------------------------------------------------------------------


def stored(tasks, out) -> pd.DataFrame:
    """The rows already stored for ``tasks`` (final file and parts), in task order.

    For ``--report-only``: a grid cut short (or still running) is reported as it is;
    the Markdown says how many fits are missing.
    """
    from probperf.runner import ResultStore, task_key

    table = ResultStore(out).read()
    keys = [task_key(t) for t in tasks]
    have = table.set_index("key", drop=False)
    table = have.loc[[k for k in dict.fromkeys(keys) if k in have.index]].reset_index(drop=True)
    table.attrs["missing"] = len(dict.fromkeys(keys)) - len(table)
    return table


def grid_size(table: pd.DataFrame) -> int:
    """The fits of the grid: those stored and, under ``--report-only``, those not run yet."""
    return len(table) + table.attrs.get("missing", 0)


def _json(value):
    if isinstance(value, str):
        return json.loads(value)
    return value if value is not None else []


def report_parts(table: pd.DataFrame, spec: dict, out: str):
    """What a comparison's report is written from: the result path, its figures
    directory (created), the scores in long form, the spec's models that have scores
    (in the spec's order) and the successful fits' rows."""
    out = Path(out)
    figs = out.parent / "figures"
    figs.mkdir(parents=True, exist_ok=True)
    long = scores_long(table)
    models = [m for m in spec["models"] if m in set(long.get("model", []))]
    ok = long[long["status"] == "ok"] if "split" in long else long.iloc[0:0]
    return out, figs, long, models, ok


def scores_long(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (fit, test split): the task's fields plus that split's scores."""
    rows = []
    keep = [c for c in table.columns if c not in ("scores", "points", "task")]
    for _, fit in table.iterrows():
        base = {c: fit[c] for c in keep}
        if fit["status"] != "ok":
            rows.append(base)
            continue
        for s in _json(fit["scores"]):
            rows.append({**base, **s})
    return pd.DataFrame(rows)


def points_long(table: pd.DataFrame, fields) -> pd.DataFrame:
    """One row per predicted test point, with the given task fields."""
    rows = []
    for _, fit in table[table["status"] == "ok"].iterrows():
        base = {c: fit[c] for c in fields}
        rows += [{**base, **pt} for pt in _json(fit["points"])]
    return pd.DataFrame(rows)


def t_interval(values, level: float = 0.95) -> tuple[float, float, int]:
    """Mean and half-width of a Student-t interval over seeds; half-width NaN for < 2."""
    from scipy import stats

    v = np.asarray([x for x in values if np.isfinite(x)], dtype=float)
    if len(v) == 0:
        return math.nan, math.nan, 0
    if len(v) < 2:
        return float(v[0]), math.nan, 1
    half = stats.t.ppf(0.5 + level / 2, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(v.mean()), float(half), len(v)


def over_seeds(long: pd.DataFrame, by, columns) -> pd.DataFrame:
    """Mean and 95 % t-interval half-width over seeds of each column, per group."""
    rows = []
    for key, group in long.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        for c in columns:
            mean, half, n = t_interval(group[c]) if c in group else (math.nan, math.nan, 0)
            row[c], row[f"{c}_ci"] = mean, half
        row["n_seeds"] = int(group["seed"].nunique()) if "seed" in group else 1
        rows.append(row)
    return pd.DataFrame(rows)


def fmt_ci(mean: float, half: float, spec: str = ".1f") -> str:
    if not np.isfinite(mean):
        return "-"
    if not np.isfinite(half):
        return format(mean, spec)
    return f"{format(mean, spec)} ± {format(half, spec)}"


def command_line() -> str:
    return "python " + " ".join(shlex.quote(a) for a in [Path(sys.argv[0]).as_posix(), *sys.argv[1:]])


class Stopwatch:
    def __init__(self):
        self.start = time.perf_counter()

    def minutes(self) -> float:
        return (time.perf_counter() - self.start) / 60.0


def run_header(title: str, command: str, minutes: float, args, extra: list[str],
               table: pd.DataFrame | None = None) -> list[str]:
    import os

    from probperf.runner import default_workers

    if args.scheduler == "inline":
        where = "in one process, without Dask"
    elif args.scheduler:
        where = f"on the Dask cluster at {args.scheduler}"
    else:
        where = f"on {args.workers or default_workers()} local Dask worker processes"
    if getattr(args, "report_only", False):
        made = (f"Tables and figures written by `{command}` from the stored fits "
                f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}); the fits were run as listed below.")
    else:
        made = (f"Generated by `{command}` in {minutes:.1f} min wall time, {where} "
                f"(machine: {os.cpu_count()} cores shared with other jobs; finished "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}).")
    return [
        f"# {title}",
        "",
        made,
        *([] if table is None or "seconds" not in table else [
            "",
            f"The {len(table)} fits' own run times add up to {table['seconds'].sum() / 60:.1f} worker-minutes. "
            "A re-run reuses the fits already stored, so the wall time above covers only the fits "
            "this command ran; every run that added fits is listed here:",
            "",
            *runs_lines(args.out),
        ]),
        "",
        *extra,
        "",
    ]


def _runs_file(out) -> Path:
    return Path(out).with_suffix(".runs.jsonl")


def log_run(out, command: str, minutes: float, fits_run: int) -> None:
    """Append this run (command, wall time, fits it ran) to ``<out stem>.runs.jsonl``."""
    if fits_run <= 0:
        return
    entry = {"command": command, "minutes": round(minutes, 2), "fits_run": int(fits_run),
             "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with open(_runs_file(out), "a") as f:
        f.write(json.dumps(entry) + "\n")


def runs_lines(out) -> list[str]:
    path = _runs_file(out)
    if not path.exists():
        return ["- (no run log)"]
    lines = []
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            lines.append(f"- `{r['command']}`: {r['fits_run']} fits in {r['minutes']:.1f} min wall time "
                         f"(finished {r['finished']})")
    return lines


def errors_section(table: pd.DataFrame, fields) -> list[str]:
    missing = table.attrs.get("missing", 0)
    head = [f"**{missing} fits of the grid were not run** (the run was cut short; re-running the "
            "command finishes them and skips the fits already stored).", ""] if missing else []
    bad = table[table["status"] != "ok"]
    if bad.empty:
        return [*head, "All fits that ran succeeded."]
    lines = [*head, f"{len(bad)} of {len(table)} fits failed (recorded, not retried):", ""]
    for _, row in bad.iterrows():
        what = ", ".join(f"{f}={row[f]}" for f in fields if f in row)
        lines.append(f"- {what}: `{str(row['error'])[:200]}`")
    return lines


# -- figures -------------------------------------------------------------------------


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _grid(n: int, width: float = 3.2, height: float = 3.0, cols: int = 4):
    plt = _plt()
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plot_actual_vs_predicted(points: pd.DataFrame, by: str, path: Path, title: str) -> None:
    """One panel per ``by`` value: predicted median (90 % interval bars) vs measured, log-log."""
    plt = _plt()
    groups = list(dict.fromkeys(points[by]))
    fig, axes = _grid(len(groups))
    splits = sorted(points["split"].unique())
    colors = dict(zip(splits, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for ax, g in zip(axes, groups):
        sub = points[points[by] == g]
        # relative to the truth, so programs of very different run time share an axis
        for split, s in sub.groupby("split"):
            ax.errorbar(s["y"], s["median"], yerr=[s["median"] - s["lo90"], s["hi90"] - s["median"]],
                        fmt="o", ms=3, lw=0.6, alpha=0.6, color=colors[split], label=split)
        lo = np.nanmin([sub["y"].min(), sub["lo90"].clip(lower=1e-300).min()])
        hi = np.nanmax([sub["y"].max(), sub["hi90"].max()])
        ax.plot([lo, hi], [lo, hi], color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(str(g), fontsize=9)
        ax.set_xlabel("measured")
        ax.set_ylabel("predicted median (90 % interval)")
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_error_boxes(long: pd.DataFrame, models, path: Path, title: str, value: str = "median_ape") -> None:
    """Box plot of per-(case, seed) median APE per model, one panel per split (thesis fig. 7.x)."""
    plt = _plt()
    splits = [s for s in ("test", "test1", "test2", "test3") if s in set(long["split"])]
    fig, axes = _grid(len(splits), width=max(4.0, 0.55 * len(models) + 1.5), height=3.6, cols=2)
    for ax, split in zip(axes, splits):
        sub = long[long["split"] == split]
        data = [sub.loc[sub["model"] == m, value].dropna().to_numpy() for m in models]
        ax.boxplot([d if len(d) else [np.nan] for d in data], showfliers=True)
        ax.set_xticks(range(1, len(models) + 1))
        ax.set_xticklabels(models, rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("median APE (%)")
        ax.set_title(split)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_calibration(points: pd.DataFrame, models, path: Path, title: str) -> None:
    """Empirical coverage vs nominal level, every test point of every case pooled."""
    plt = _plt()
    levels = np.linspace(0.0, 0.98, 50)  # at level 1 every point is "inside" by definition
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    ax.plot([0, 1], [0, 1], color="k", lw=0.8, ls="--", label="calibrated")
    for m in models:
        lv = points.loc[points["model"] == m, "level"].dropna().to_numpy()
        if len(lv):
            ax.plot(levels, [np.mean(lv <= x) for x in levels], label=f"{m} ({len(lv)} pts)")
    ax.set_xlabel("nominal level of the central interval")
    ax.set_ylabel("share of test points inside")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def plot_heatmap(matrix: pd.DataFrame, path: Path, title: str, fmt: str = ".1f", cmap: str = "viridis_r") -> None:
    """Cells coloured by value, numbers printed (e.g. mean rank of kernel per case)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * matrix.shape[1], 1.2 + 0.32 * matrix.shape[0]))
    im = ax.imshow(matrix.to_numpy(dtype=float), cmap=cmap, aspect="auto")
    ax.set_xticks(range(matrix.shape[1]))
    ax.set_xticklabels(matrix.columns, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(matrix.shape[0]))
    ax.set_yticklabels(matrix.index, fontsize=7)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            v = matrix.iat[i, j]
            if np.isfinite(v):
                ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=6, color="w")
    fig.colorbar(im, ax=ax, fraction=0.03)
    ax.set_title(title, fontsize=10)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def execute(tasks, fn, args, watch):
    """Run (or, with ``--report-only``, just collect) the grid's fits; returns the table.

    Shared by every experiment script: stored fits are reused, a run that adds fits
    is logged with its command line and wall time.
    """
    from probperf.runner import SchedulerUnreachable, grid_options, run_grid

    if args.report_only:
        table = stored(tasks, args.out)
        if table.empty:  # nothing to report (a mistyped --out): no report of 0 fits
            fail(f"--report-only: no stored fit of this grid in {args.out} (or its parts); "
                 "run the script without --report-only first")
        print(f"{len(tasks)} fits -> {args.out}", file=sys.stderr)
        return table
    print(f"{len(tasks)} fits -> {args.out}", file=sys.stderr)
    before = _pending(stored(tasks, args.out), args.rerun_errors)
    try:
        table = run_grid(tasks, fn, progress=not args.no_progress,
                         rerun_errors=args.rerun_errors, **grid_options(args))
    except SchedulerUnreachable as exc:  # --scheduler: no fit ran
        fail(str(exc))
    except BaseException as exc:  # a run cut short still added the fits it stored: the report lists it
        log_run(args.out, command_line() + " (stopped)", watch.minutes(),
                before - _pending(stored(tasks, args.out), args.rerun_errors))
        if isinstance(exc, KeyboardInterrupt):  # Ctrl-C: said in a line, not a traceback
            print(f"interrupted; the fits finished so far are kept with {args.out}: run the same command "
                  "again to go on", file=sys.stderr)
            raise SystemExit(130) from None
        raise
    log_run(args.out, command_line(), watch.minutes(), before - _pending(stored(tasks, args.out), args.rerun_errors))
    return table


def _pending(table: pd.DataFrame, rerun_errors: bool) -> int:
    """The fits of a grid a run has to do: those not stored, and with ``--rerun-errors``
    those stored as failed. What a run did is this number before it less after it (a
    re-run of failed fits replaces rows: counting rows logged 122 fits as none)."""
    failed = int((table["status"] != "ok").sum()) if rerun_errors and "status" in table else 0
    return table.attrs.get("missing", 0) + failed


def write_report(out, lines: list[str], table: pd.DataFrame, fields) -> Path:
    """Close a report with its failed fits and write it next to the results file."""
    lines = [*lines, "## Failed fits", "", *errors_section(table, fields), ""]
    md = Path(out).with_suffix(".md")
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text("\n".join(lines))
    return md


def run_experiment(args, grid, fn, write) -> pd.DataFrame:
    """The main of every experiment script: build the grid (``grid(args)`` returns the
    tasks and what the report needs to know of the grid; timed with the fits, as it
    may simulate data), run it (:func:`execute`), write the report
    (``write(table, spec, args, minutes)`` returns its path)."""
    watch = Stopwatch()
    check_out(args.out)
    tasks, spec = grid(args)
    table = execute(tasks, fn, args, watch)
    md = write(table, spec, args, watch.minutes())
    print(f"wrote {md}", file=sys.stderr)
    return table
