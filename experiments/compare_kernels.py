"""Compare GP kernels (and the Bayesian basis regression) as metric models.

For every metric (``time``, ``work``, ``delay``, ``no_work``) and every dataset (simulated
Dataset A/B per program; the real published cases, ``time`` only), each model is fitted
on the ``train`` rows and predicts every test split (``test`` for A and the published
cases, ``test1``/``test2``/``test3`` for B). Recorded per fit and split: median APE,
50 %/90 % coverage, mean relative 90 % interval width, CRPS (relative to the truth),
NLPD, fit time. Each fit is one task of :func:`probperf.runner.run_grid` (Dask; resumable;
results stream to Parquet).

Outputs (next to ``--out``): the Parquet of fits, ``<stem>.md`` (summary tables, the
command and its wall time) and ``figures/<stem>_*.png`` (kernel ranking heat map, error
box plots per split, calibration curves, actual-vs-predicted).

Run from the repository root::

    python experiments/compare_kernels.py             # the full grid (see FULL)
    python experiments/compare_kernels.py --quick     # a small grid for CI (< 5 min)
    python experiments/compare_kernels.py --scheduler tcp://HOST:8786
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import _common as C
from probperf.evaluate import markdown_table
from probperf.experiment_tasks import METRIC_TARGETS, fit_metric_task
from probperf.registry import check_kernel

KERNELS = ("sm1", "sm2", "sm3", "sm4", "sm5", "sm6", "sm7", "sm8", "rbf", "matern52", "rq",
           "linear", "poly2", "sm4+linear", "rbf+linear")
MODELS = (*KERNELS, "basis")

#: The full grid: Dataset A and B of every simulated program plus the published cases.
FULL = dict(datasets=[(app, which) for app in C.APPS for which in ("A", "B")],
            models=MODELS, targets=METRIC_TARGETS, published=True, scale=1.0)
#: The CI smoke grid.
QUICK = dict(datasets=[("nqueens", "A")], models=("sm2", "rbf", "linear", "basis"),
             targets=METRIC_TARGETS, published=True, scale=1.0)

NAME = "compare_kernels"
METRICS_SHOWN = ["median_ape", "coverage_50", "coverage_90", "width_90", "crps_rel", "nlpd", "fit_seconds"]


def parse_args(argv=None):
    parser = C.experiment_parser(__doc__, NAME, seeds="1")
    parser.add_argument("--models", default=None, help="comma-separated kernel specs and/or 'basis'")
    parser.add_argument("--datasets", default=None, help="comma-separated app:A|B, e.g. sort:A,fib:B")
    parser.add_argument("--targets", default=None, help=f"comma-separated subset of {','.join(METRIC_TARGETS)}")
    parser.add_argument("--no-published", action="store_true", help="leave out the published cases")
    return parser.parse_args(argv)


def grid(args) -> tuple[list[dict], dict]:
    spec = dict(QUICK if args.quick else FULL)
    if args.models is not None:
        spec["models"] = C.names("--models", args.models, check=check_kernel)
    if args.datasets is not None:
        pairs = [f"{a}:{w}" for a in C.APPS for w in ("A", "B")]
        spec["datasets"] = [tuple(d.split(":")) for d in C.names("--datasets", args.datasets, pairs)]
    if args.targets is not None:
        spec["targets"] = C.names("--targets", args.targets, METRIC_TARGETS)
    if args.no_published:
        spec["published"] = False
    effort = "quick" if args.quick else args.effort
    data_dir = Path(args.data)
    cases = []
    for app, which in spec["datasets"]:
        cases += C.sim_cases([app], [which], spec["scale"], [0], data_dir)
    if spec["published"]:
        cases += C.published_cases()
    tasks = []
    for case in cases:
        targets = ("time",) if case["dataset"] == "published" else spec["targets"]
        for target in targets:
            for model in spec["models"]:
                for seed in args.seeds:
                    tasks.append({**case, "target": target, "model": model, "seed": seed, "effort": effort})
    return tasks, spec


# -- summaries ---------------------------------------------------------------------


def ranks(long: pd.DataFrame, value: str = "median_ape") -> pd.DataFrame:
    """Rank of each model within each (target, case, split, seed): 1 = lowest ``value``."""
    ok = long.dropna(subset=[value]).copy()
    ok["rank"] = ok.groupby(["target", "case", "split", "seed"])[value].rank(method="average")
    return ok


def summary_per_target(long: pd.DataFrame, ranked: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (target, model), g in long.groupby(["target", "model"], sort=False):
        r = ranked[(ranked["target"] == target) & (ranked["model"] == model)]
        best = ranked[(ranked["target"] == target)]
        wins = (best.loc[best.groupby(["case", "split", "seed"])["median_ape"].idxmin(), "model"] == model).sum()
        rows.append({
            "target": target, "model": model, "fits": int(g["key"].nunique()),
            "mean_rank": r["rank"].mean(), "wins": int(wins),
            "median_ape": g["median_ape"].median(),
            "coverage_50": g["coverage_50"].mean(), "coverage_90": g["coverage_90"].mean(),
            "width_90": g["width_90"].median(), "crps_rel": g["crps_rel"].median(),
            "nlpd": g["nlpd"].median(), "fit_seconds": g["fit_seconds"].median(),
        })
    out = pd.DataFrame(rows)
    return out.sort_values(["target", "mean_rank"]).reset_index(drop=True)


def winners(long: pd.DataFrame) -> pd.DataFrame:
    """Per (target, case, split): the best model by median APE and by CRPS, and where sm4 ranks."""
    rows = []
    for (target, case, split), g in long.groupby(["target", "case", "split"], sort=False):
        g = g.groupby("model")[["median_ape", "crps_rel", "coverage_90"]].mean()
        ape_rank = g["median_ape"].rank()
        best_ape, best_crps = g["median_ape"].idxmin(), g["crps_rel"].idxmin()
        best_sm = g.loc[[m for m in g.index if m.startswith("sm") and "+" not in m], "median_ape"]
        rows.append({
            "target": target, "case": case, "split": split,
            "best (APE)": best_ape, "APE %": g.at[best_ape, "median_ape"],
            "best (CRPS)": best_crps,
            "best sm": best_sm.idxmin() if len(best_sm) else "-",
            "best sm APE %": best_sm.min() if len(best_sm) else np.nan,
            "sm4 rank": ape_rank.get("sm4", np.nan), "of": len(g),
            "basis APE %": g["median_ape"].get("basis", np.nan),
        })
    return pd.DataFrame(rows)


def heat_matrix(ranked: pd.DataFrame, models) -> pd.DataFrame:
    ranked = ranked.assign(row=ranked["target"] + " | " + ranked["case"] + " " + ranked["split"])
    m = ranked.pivot_table(index="row", columns="model", values="rank", aggfunc="mean")
    return m[[c for c in models if c in m.columns]]


def write_outputs(table: pd.DataFrame, spec: dict, args, minutes: float) -> Path:
    out, figs, long, models, ok = C.report_parts(table, spec, args.out)
    stem = out.stem
    lines = C.run_header(
        "Kernel comparison: GP kernels and the basis regression as metric models",
        C.command_line(), minutes, args,
        [
            f"Grid: {C.grid_size(table)} fits = datasets {', '.join(f'{a}/{w}' for a, w in spec['datasets'])}"
            f"{' + published cases (time only)' if spec['published'] else ''} x targets "
            f"{', '.join(spec['targets'])} x models {', '.join(spec['models'])} x seeds {args.seeds}; "
            f"effort `{'quick' if args.quick else args.effort}` (see `probperf.experiment_tasks.EFFORT`).",
            "",
            "Each fit: train rows -> every test split. `median_ape`: median absolute % error of the "
            "median prediction; `coverage_50/90`: share of test points inside the central 50/90 % "
            "interval; `width_90`: mean 90 % interval width / median; `crps_rel`: mean CRPS / "
            "truth; `nlpd`: mean negative log predictive density (log-scale KDE). GPs use the "
            "power-law (log-linear) mean, so kernels differ only in the residual they model. "
            "Rows with a non-positive target (e.g. `no_work` at p = 1) are left out of fit and test.",
        ],
        table=table,
    )
    if len(ok):
        ranked = ranks(ok)
        summary = summary_per_target(ok, ranked)
        lines += ["## Per target: models by mean rank of median APE", "",
                  "`mean_rank` over (case, split); `wins`: (case, split) cells where the model has the "
                  "lowest median APE; other columns: median (coverage: mean) over cells.", ""]
        for target, g in summary.groupby("target", sort=False):
            lines += [f"### {target}", "", markdown_table(g.drop(columns="target"), {
                "mean_rank": ".2f", "median_ape": ".2f", "coverage_50": ".2f", "coverage_90": ".2f",
                "width_90": ".3f", "crps_rel": ".4f", "nlpd": ".2f", "fit_seconds": ".1f"}), ""]
        win = winners(ok)
        lines += ["## Winner per target, case and split", "", markdown_table(win, {
            "APE %": ".2f", "best sm APE %": ".2f", "sm4 rank": ".1f", "basis APE %": ".2f"}), ""]
        heat = heat_matrix(ranked, models)
        C.plot_heatmap(heat, figs / f"{stem}_rank_heatmap.png",
                       "rank of median APE (1 = best) per target | case split")
        C.plot_error_boxes(ok, models, figs / f"{stem}_error_boxes.png",
                           "median APE per (target, case), by test split")
        pts = C.points_long(table, ["case", "target", "model", "seed"])
        C.plot_calibration(pts, models, figs / f"{stem}_calibration.png",
                           "calibration, all targets and cases pooled")
        figures = [("rank_heatmap", "rank heat map"), ("error_boxes", "error box plots per split"),
                   ("calibration", "calibration curves")]
        timed = pts[pts["target"] == "time"]
        if len(timed):  # a grid without time (--targets work) has no such figure (helper-77: it failed)
            C.plot_actual_vs_predicted(timed, "model", figs / f"{stem}_actual_vs_predicted.png",
                                       "time: predicted median / measured, 90 % intervals")
            figures.append(("actual_vs_predicted", "actual vs predicted (time)"))
        lines += ["## Figures", ""]
        for name, what in figures:
            lines.append(f"- {what}: `figures/{stem}_{name}.png`")
        lines.append("")
    return C.write_report(out, lines, table, ["case", "target", "model", "seed"])


def main(argv=None):
    return C.run_experiment(parse_args(argv), grid, fit_metric_task, write_outputs)


if __name__ == "__main__":
    main()
