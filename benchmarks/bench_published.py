"""Accuracy on the four published cases, probperf models side by side with Extra-P.

The cases are the real measurements in ``/work/shared/datasets/published/`` (see its
README): each model is fitted on the ``train`` rows and predicts the ``test`` rows,
extrapolating in ``n``. For every test point the script prints each model's median
prediction, its absolute percentage error and whether its 90 % interval covers the
measured time; Extra-P (the fair competitor named in that README) is run in the same
script on the same rows and gives a point prediction only.

Extra-P
-------
Extra-P runs through :class:`probperf.models.extrap.ExtraP` (installed by ``make
install``; without it the report says so): a text-format experiment (one ``PARAMETER``
per varying parameter), ``ModelGenerator(modeler="default")`` with the
single-parameter modeler's ``allow_negative_exponents`` on, then the fitted function
is evaluated at the test points.

Cases
-----
``rabin_miller_p8`` is the README's case "n: 9689 -> 11213 (p=8)": the ``p = 8`` rows
only. ``rabin_miller_all_p`` additionally fits all worker counts (1, 7, 8) at once,
with ``n`` and ``p`` as parameters, and predicts the three test rows.

Run (from the repository root)::

    python benchmarks/bench_published.py [--out benchmarks/results/published.md]
        [--models bayes,bayes-small,gp,direct,penalty] [--draws 2000] [--effort quick|default|thorough]

With ``--effort thorough`` (NUTS) the basis models take minutes per fit on a busy 2-core
machine; the default is SVI (:data:`probperf.models.specs.EFFORTS`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from probperf.data import Measurements
from probperf.evaluate import ape, crps, interval_width, markdown_table, splits_of

DATA = Path("/work/shared/datasets/published")
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "published.md"
LEVEL = 0.9

#: Extra-P's median absolute error per case as stated in the data's README (2026-11-21).
EXTRAP_README = {
    "gauss_n_p8": 2.05,
    "karatsuba_uniform_p8": 5.87,
    "karatsuba_nonuniform_p8": 2.10,
    "rabin_miller_p8": 0.69,
}

@dataclass
class Case:
    name: str
    file: str
    only_p: int | None = None  # keep only the runs with this worker count


CASES = [
    Case("gauss_n_p8", "gauss_n_p8.csv"),
    Case("karatsuba_uniform_p8", "karatsuba_uniform_p8.csv"),
    Case("karatsuba_nonuniform_p8", "karatsuba_nonuniform_p8.csv"),
    Case("rabin_miller_p8", "rabin_miller_p8.csv", only_p=8),
    Case("rabin_miller_all_p", "rabin_miller_p8.csv"),
]


def load_case(case: Case) -> tuple[Measurements, Measurements]:
    """(train, test) tables of a case, from the file's split column."""
    m = Measurements(pd.read_csv(DATA / case.file), source=case.file)
    if case.only_p is not None:
        m = m.select(p=case.only_p)
    splits = splits_of(m)
    return splits["train"], splits["test"]


# -- probperf models ---------------------------------------------------------------


#: Set by --effort (probperf.models.specs.EFFORTS).
EFFORT = {"level": "default"}


def _options(family: str) -> dict:
    from probperf.models.specs import effort_options

    return effort_options(family, EFFORT["level"])


def _bayes(module, **kwargs):
    return module.BayesianBasisRegression(**_options("basis"), **kwargs)


def _small_basis(module, train: Measurements):
    """Bayes with a basis small enough for these tables (the default has 12+ terms).

    ``1, n, n^2, n^3``, times ``1/p`` and ``1`` when the table has several worker
    counts: 4 (or 8) terms, fewer than the 6 training points of the smallest case.
    """
    from probperf.basis import normal_form

    workers = ("1/p", "1") if train.frame["p"].nunique() > 1 else ("1",)
    return _bayes(module, basis=normal_form(j=(0, 1, 2, 3), k=(0,), worker=workers))


#: label -> (module, how to build the model from it and the training table, how to fit it)
PROBPERF_MODELS = {
    "bayes": ("probperf.models.bayes", lambda mod, train: _bayes(mod), "metric"),
    "bayes-small": ("probperf.models.bayes", _small_basis, "metric"),
    "gp": ("probperf.models.gp",
           lambda mod, train: mod.GaussianProcessModel(**_options("gp")), "metric"),
    "direct": ("probperf.timemodels",
               lambda mod, train: mod.DirectModel(kernel="basis", effort=EFFORT["level"]), "table"),
    "penalty": ("probperf.timemodels",
                lambda mod, train: mod.PenaltyModel(kernel="basis", effort=EFFORT["level"]), "table"),
}

LABELS = {
    "bayes": "BayesianBasisRegression (defaults)",
    "bayes-small": "BayesianBasisRegression (basis 1, n, n^2, n^3 [x 1/p, 1])",
    "gp": "GaussianProcessModel (defaults: sm4, linear mean)",
    "direct": "timemodels.DirectModel (basis)",
    "penalty": "timemodels.PenaltyModel (basis)",
}


def importable(names) -> tuple[dict, dict]:
    """``({label: module}, {label: why not})`` for the requested probperf models."""
    found, missing = {}, {}
    for label in names:
        module_name = PROBPERF_MODELS[label][0]
        try:
            # the time-only models build their parts through probperf.models
            importlib.import_module("probperf.models")
            found[label] = importlib.import_module(module_name)
        except Exception as exc:  # a module still being written may fail in any way
            missing[label] = f"{type(exc).__name__}: {exc}"
    return found, missing


def fit_predict(label, module, train: Measurements, test: Measurements, draws: int):
    """The Predictive of one probperf model at the test rows."""
    _, build, kind = PROBPERF_MODELS[label]
    model = build(module, train)
    if kind == "metric":
        model.fit(train, target="time", features=["n", "p"])
        return model.predict(test.points(["n", "p"]), n_draws=draws, seed=0)
    model.fit(train)
    return model.predict(test.points(), n_draws=draws, seed=0)


# -- Extra-P -----------------------------------------------------------------------


def extrap_version() -> tuple[bool, str]:
    """``(ok, version or why not)`` of the installed Extra-P."""
    from probperf.models.extrap import ExtraPMissing, extrap_version as version

    try:
        return True, version()
    except ExtraPMissing as exc:
        return False, str(exc)


def extrap_predict(train: Measurements, test: Measurements):
    """Extra-P's point predictions at the test rows and its model as text."""
    from probperf.models.extrap import ExtraP

    model = ExtraP().fit(train)
    return model.predict(test.points(train.params)).draws[0], model.formula_


# -- the run -----------------------------------------------------------------------


def run(args) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    notes = []
    wanted = [s.strip() for s in args.models.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in PROBPERF_MODELS]
    if unknown:
        raise SystemExit(f"unknown model(s) {unknown}; choose from {sorted(PROBPERF_MODELS)}")
    modules, missing = importable(wanted)
    for label, why in missing.items():
        notes.append(f"probperf model `{label}` ({LABELS[label]}) unavailable: {why}")

    has_extrap, extrap_info = extrap_version()
    notes.append(
        f"Extra-P {extrap_info}" if has_extrap else f"Extra-P unavailable: {extrap_info}"
    )

    rows, summary = [], []
    for case in CASES:
        train, test = load_case(case)
        truth = test.y("time")
        tf = test.frame
        if has_extrap:
            start = time.perf_counter()
            try:
                pred, text = extrap_predict(train, test)
                seconds = time.perf_counter() - start
                errors = 100 * np.abs(pred - truth) / truth
                for i in range(len(tf)):
                    rows.append(_row(case, tf, i, truth, "Extra-P", pred[i], errors[i], None, None))
                summary.append(
                    {"case": case.name, "model": "Extra-P", "median_ape": float(np.median(errors)),
                     "covered": "-", "width_90": np.nan, "crps_rel": np.nan, "seconds": seconds,
                     "readme": EXTRAP_README.get(case.name, np.nan)}
                )
                notes.append(f"Extra-P model for {case.name}: {text}")
            except Exception as exc:
                notes.append(f"Extra-P failed on {case.name}: {type(exc).__name__}: {exc}")
        for label, module in modules.items():
            start = time.perf_counter()
            try:
                pred = fit_predict(label, module, train, test, args.draws)
            except Exception as exc:
                notes.append(f"{label} failed on {case.name}: {type(exc).__name__}: {exc}")
                summary.append({"case": case.name, "model": label, "median_ape": np.nan,
                                "covered": "error", "width_90": np.nan, "crps_rel": np.nan,
                                "seconds": time.perf_counter() - start, "readme": np.nan})
                continue
            seconds = time.perf_counter() - start
            print(f"{case.name}: {label} fitted in {seconds:.0f} s", file=sys.stderr)
            errors = ape(pred, truth)
            lo, hi = pred.interval(LEVEL)
            inside = (truth >= lo) & (truth <= hi)
            for i in range(len(tf)):
                rows.append(_row(case, tf, i, truth, label, pred.median[i], errors[i], (lo[i], hi[i]), inside[i]))
            summary.append(
                {"case": case.name, "model": label, "median_ape": float(np.median(errors)),
                 "covered": f"{int(inside.sum())}/{len(inside)}",
                 "width_90": interval_width(pred, LEVEL),
                 "crps_rel": float(np.mean(crps(pred, truth) / truth)),
                 "seconds": seconds, "readme": np.nan}
            )
    return pd.DataFrame(rows), pd.DataFrame(summary), notes


def _row(case, tf, i, truth, model, median, error, interval, inside):
    return {
        "case": case.name,
        "n": int(tf["n"].iloc[i]),
        "p": int(tf["p"].iloc[i]),
        "time": float(truth[i]),
        "model": model,
        "prediction": float(median),
        "error_pct": float(error),
        "interval_90": "-" if interval is None else f"[{interval[0]:.4g}, {interval[1]:.4g}]",
        "covers": "-" if inside is None else ("yes" if inside else "NO"),
    }


def overall(rows: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """Per model, over the four README cases: mean of the cases' median APE, coverage."""
    readme = list(EXTRAP_README)
    out = []
    if summary.empty or rows.empty:
        return pd.DataFrame(columns=["model", "cases_fitted", "mean_median_ape", "covered_90"])
    for model, group in summary[summary["case"].isin(readme)].groupby("model", sort=False):
        points = rows[(rows["model"] == model) & rows["case"].isin(readme)]
        covers = points["covers"]
        out.append(
            {
                "model": model,
                "cases_fitted": f"{int(group['median_ape'].notna().sum())}/{len(readme)}",
                "mean_median_ape": float(group["median_ape"].mean()),
                "covered_90": "-" if model == "Extra-P" else
                f"{int((covers == 'yes').sum())}/{len(covers)}",
            }
        )
    return pd.DataFrame(out)


def report(rows, summary, notes, args) -> str:
    parts = [
        "# Published cases: probperf vs Extra-P",
        "",
        f"Command: `python benchmarks/bench_published.py --models {args.models} --draws {args.draws}"
        f" --effort {args.effort}`",
        "",
        "Train rows -> test rows of each case (extrapolation in n). `median_ape`: median over "
        "the case's test rows of the absolute % error of the median prediction (Extra-P: of "
        "its point prediction). `covered`: test rows inside the central 90 % interval. "
        "`width_90`: mean 90 % interval width relative to the median. `crps_rel`: CRPS / "
        "measured time. `readme`: Extra-P's figure stated in the data's README.",
        "",
        "## Over the four README cases",
        "",
        markdown_table(overall(rows, summary), {"mean_median_ape": ".2f"}),
        "",
        "## Per case",
        "",
        markdown_table(summary, {"median_ape": ".2f", "width_90": ".3f", "crps_rel": ".4f", "seconds": ".1f",
                           "readme": ".2f"}),
        "",
        "## Every test point",
        "",
        markdown_table(rows, {"time": ".4g", "prediction": ".4g", "error_pct": ".2f"}),
        "",
        "## Notes",
        "",
        *[f"- {note}" for note in notes],
        "",
    ]
    return "\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="markdown report path")
    parser.add_argument("--models", default=",".join(PROBPERF_MODELS),
                        help=f"comma-separated subset of {','.join(PROBPERF_MODELS)}")
    parser.add_argument("--draws", type=int, default=2000, help="predictive draws per model")
    parser.add_argument("--effort", default="default", choices=["quick", "default", "thorough"],
                        help="inference effort of the models (thorough: NUTS, 5 GP restarts)")
    args = parser.parse_args(argv)
    EFFORT["level"] = args.effort

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    logging.getLogger("extrap").setLevel(logging.ERROR)
    rows, summary, notes = run(args)
    text = report(rows, summary, notes, args)
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
