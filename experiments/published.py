"""The real published cases end to end: every time-only model on the same rows, one table.

Data: ``experiments/data/published/`` (measurements published by Lobachev, Guthe and
Loogen, "Estimating Parallel Performance"; see the README there). Each case: fit on the
``train`` rows, predict the ``test`` rows (extrapolation in ``n``). The cases hold run
times only (no DAG metrics), so the models are the time-only ones: direct GP (``sm4``),
direct basis regression, the penalty model ``T(n)/p + A(n,p)``, DirectNN and Extra-P.
``rabin_miller_p8`` is fitted on all its worker counts (1, 7, 8) with ``n`` and ``p`` as
parameters.

Outputs (next to ``--out``): the Parquet of fits and ``<stem>.md``: one row per model and
test point with the median prediction, its error, its 90 % interval and whether that
covers the measured time, and a per-case summary.

Run from the repository root::

    python experiments/published.py [--seeds 1] [--scheduler tcp://HOST:8786]
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import _common as C
from probperf.evaluate import markdown_table
from probperf.experiment_tasks import fit_time_task
from probperf.registry import MODELS as TIME_MODELS

MODELS = ("direct_sm4", "direct_basis", "penalty", "direct_nn", "extrap")
NAME = "published"


def parse_args(argv=None):
    parser = C.experiment_parser(__doc__, NAME, seeds="1", simulated=False)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated time models")
    return parser.parse_args(argv)


def point_table(table: pd.DataFrame) -> pd.DataFrame:
    pts = C.points_long(table, ["app", "model", "seed"])
    if pts.empty:
        return pts
    out = pts.groupby(["app", "n", "p", "model"], sort=False).agg(
        time=("y", "first"), prediction=("median", "mean"), lo90=("lo90", "mean"), hi90=("hi90", "mean"),
        seeds=("seed", "nunique")).reset_index()
    out["error_%"] = 100 * (out["prediction"] - out["time"]) / out["time"]
    point = out["model"] == "extrap"
    out["interval_90"] = [("-" if pt else f"[{lo:.4g}, {hi:.4g}]")
                          for pt, lo, hi in zip(point, out["lo90"], out["hi90"])]
    out["covers"] = [("-" if pt else ("yes" if lo <= t <= hi else "NO"))
                     for pt, lo, hi, t in zip(point, out["lo90"], out["hi90"], out["time"])]
    return out.rename(columns={"app": "case"})[
        ["case", "n", "p", "time", "model", "prediction", "error_%", "interval_90", "covers"]]


def write_outputs(table: pd.DataFrame, models, args, minutes: float) -> Path:
    out = Path(args.out)
    lines = C.run_header(
        "Published cases: every time-only model on the real measurements",
        C.command_line(), minutes, args,
        [
            "Cases: " + ", ".join(C.PUBLISHED) + " (Lobachev, Guthe & Loogen, *Estimating "
            "Parallel Performance*; data and attribution in `experiments/data/published/`). "
            "Fit on the `train` rows, predict the `test` rows. `error_%`: signed error of the "
            "median prediction (Extra-P: of its point prediction); `covers`: the measured time "
            f"lies inside the central 90 % interval. Seeds {args.seeds} (predictions averaged over seeds).",
            "",
            "Models: " + "; ".join(f"`{m}` = {TIME_MODELS[m].description}" for m in models) + ".",
        ],
        table=table,
    )
    points = point_table(table)
    if len(points):
        summary = points.assign(abs_err=points["error_%"].abs()).groupby(["case", "model"], sort=False).agg(
            median_abs_error=("abs_err", "median"), covered=("covers", lambda c: f"{(c == 'yes').sum()}/{len(c)}"
                                                            if (c != "-").all() else "-")).reset_index()
        overall = summary.groupby("model", sort=False)["median_abs_error"].mean().rename(
            "mean over cases of median |error| %").reset_index()
        lines += ["## Summary per model (mean over the four cases)", "",
                  markdown_table(overall, {"mean over cases of median |error| %": ".2f"}), "",
                  "## Per case", "", markdown_table(summary, {"median_abs_error": ".2f"}), "",
                  "## Every test point", "",
                  markdown_table(points, {"time": ".4g", "prediction": ".4g", "error_%": "+.2f"}), ""]
    pts = C.points_long(table, ["app", "model", "seed"])
    if len(pts):
        figs = out.parent / "figures"
        figs.mkdir(parents=True, exist_ok=True)
        C.plot_actual_vs_predicted(pts.assign(split=pts["app"]), "model",
                                   figs / f"{out.stem}_actual_vs_predicted.png",
                                   "published cases: predicted median (90 % interval) vs measured")
        lines += [f"Figure: `figures/{out.stem}_actual_vs_predicted.png` (colours: cases).", ""]
    return C.write_report(out, lines, table, ["case", "model", "seed"])


def grid(args) -> tuple[list[dict], list[str]]:
    """Every published case x model x seed; returns the tasks and the models."""
    models = list(C.names("--models", args.models, list(TIME_MODELS)))
    traced = [m for m in models if TIME_MODELS[m].needs_dag]
    if traced:  # they were run, and stored as failed
        C.fail(f"--models: {', '.join(traced)} model(s) the DAG metrics of traced runs; the published cases "
               "are times alone")
    effort = "quick" if args.quick else args.effort
    tasks = [{**case, "model": m, "seed": s, "effort": effort}
             for case in C.published_cases() for m in models for s in args.seeds]
    return tasks, models


def main(argv=None):
    return C.run_experiment(parse_args(argv), grid, fit_time_task, write_outputs)


if __name__ == "__main__":
    main()
