"""Accuracy a user can trust: probperf's default against the baselines a user would try.

For every case the model sees only the ``train`` rows and predicts the held-out rows
(extrapolations in size and/or workers). Per case: median absolute percentage error
(MdAPE) of the median prediction, and the share of held-out truths inside the 50 % and
90 % central intervals.

* probperf: what ``probperf fit --model auto`` fits (time only: the stacked law
  mixture; with DAG metrics: the DAG model), predictions with 2000 joint draws.
* log-log: least squares of ``log time`` on 1 and the logs of every varying parameter
  (a parameter with a value <= 0, a code such as AMG's solver types, as it is), except
  ``p`` where it is a product of others (the real data's README); its naive band is
  +-z residual sd on the log scale.
* Extra-P on the published cases: the figures its README states (modeler ``default``,
  measured 2026-11-21), not re-run here.

Cases: (a) the four published cases of ``shared/datasets/published``, (b) the real
MPI/QR measurements of ``shared/datasets/real``, (b2) further real measurements kept
in this repository (``benchmarks/data/real``: ExaFMM and AMG, MPI applications with
configuration parameters, and a threaded matrix product on 1-64 threads, from the same
source; see its README), (c) the simulator's Dataset A
(``test``) and B (``test3``) of the seven programs (seed 0), where the DAG metrics are
available. Nothing in probperf was tuned on these test rows.

Run from the repository root (``../shared`` beside it)::

    python benchmarks/bench_accuracy.py [--only published,real,extra,sim] [--apps sort,fib]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import probperf as pp
from probperf.data import Measurements

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
#: further real cases kept in the repository (benchmarks/data/real/README.md)
EXTRA = Path(__file__).resolve().parent / "data" / "real"
EXTRAP = {"gauss_n_p8": 2.05, "karatsuba_uniform_p8": 5.87, "karatsuba_nonuniform_p8": 2.10, "rabin_miller_p8": 0.69}
DRAWS = 2000
#: the simulated programs (probperf.sim.datasets.PROTOCOL), in the report's order
APPS = "sort,sparselu,fft,strassen,fib,nqueens,farm"


def loglog_baseline(train: pd.DataFrame, test: pd.DataFrame, params: list[str]):
    """Median, (50 %, 90 %) bands and log-scale residual sd of the plain log-log
    least-squares fit."""
    cols = [c for c in params if train[c].nunique() > 1]
    # a code with a 0 (AMG's solver types) enters as is, where it is not positive everywhere
    logged = [c for c in cols if (train[c] > 0).all() and (test[c] > 0).all()]

    def terms(frame, columns):
        return np.column_stack([np.ones(len(frame)), *(np.log(frame[c]) if c in logged else frame[c]
                                                       for c in columns)]).astype(float)

    others = [c for c in cols if c != "p"]
    if "p" in cols and np.linalg.matrix_rank(terms(train, others)) == np.linalg.matrix_rank(terms(train, cols)):
        cols = others  # p = nnodes * ppn (a product of others): the README's baseline leaves it out
    A = terms(train, cols)
    coef, *_ = np.linalg.lstsq(A, np.log(train["time"].to_numpy()), rcond=None)
    sd = np.std(np.log(train["time"].to_numpy()) - A @ coef, ddof=min(len(coef), len(train) - 1))
    mu = terms(test, cols) @ coef
    bands = {lvl: (np.exp(mu - stats.norm.ppf(0.5 + lvl / 2) * sd), np.exp(mu + stats.norm.ppf(0.5 + lvl / 2) * sd))
             for lvl in (0.5, 0.9)}
    return np.exp(mu), bands, sd


def scores(median, bands, y) -> dict:
    out = {"mdape": float(np.median(np.abs(median / y - 1)) * 100)}
    for lvl, (lo, hi) in bands.items():
        out[f"cov{int(lvl * 100)}"] = float(np.mean((lo <= y) & (y <= hi)))
    return out


def evaluate(name: str, train: Measurements, test: pd.DataFrame, rows: list):
    t0 = time.perf_counter()
    model = pp.fit(train, target="time", model="auto")
    fit_s = time.perf_counter() - t0
    pred = model.predict(test[train.params], n_draws=DRAWS, seed=0)
    y = test["time"].to_numpy()
    ours = scores(pred.median, {lvl: pred.interval(lvl) for lvl in (0.5, 0.9)}, y)
    base = scores(*loglog_baseline(train.frame, test, train.params)[:2], y)
    rows.append({"case": name, "model": type(model).__name__, "n_test": len(test), "fit_s": fit_s,
                 **{f"probperf_{k}": v for k, v in ours.items()}, **{f"loglog_{k}": v for k, v in base.items()}})
    print(f"{name:32s} {type(model).__name__:11s} n={len(test):5d}  probperf {ours['mdape']:7.2f} % "
          f"cov50 {ours['cov50']:.2f} cov90 {ours['cov90']:.2f} | log-log {base['mdape']:7.2f} % "
          f"cov90 {base['cov90']:.2f}" + (f" | Extra-P {EXTRAP[name]:.2f} %" if name in EXTRAP else "")
          + f"  (fit {fit_s:.1f} s)", flush=True)


def table_cases(folder: str):
    """``(name, training Measurements, test rows)`` of every CSV of a case folder:
    ``published``, ``real`` (in ``shared/datasets``) or ``extra`` (:data:`EXTRA`)."""
    for path in sorted((EXTRA if folder == "extra" else SHARED / folder).glob("*.csv")):
        frame = pd.read_csv(path).drop(columns=["serial_time"], errors="ignore")
        if path.stem == "rabin_miller_p8":  # the README's case is the p = 8 column
            frame = frame[frame["p"] == 8]
        train = frame[frame["split"] == "train"].drop(columns="split")
        test = frame[frame["split"] != "train"]
        config = [c for c in train.columns if c not in ("n", "p", "time")]
        yield path.stem, Measurements(train.reset_index(drop=True), config=config, source=str(path)), test


def sim_cases(apps):
    from probperf.sim.datasets import dataset

    for app in apps:
        for which, split in (("A", "test"), ("B", "test3")):
            m = dataset(app, which, seed=0)
            frame = m.frame
            train = m.select(split="train")
            yield f"sim {app}/{which} {split}", train, frame[frame["split"] == split]


def pooled(rows: list, prefix: str) -> str:
    df = pd.DataFrame(rows)
    w = df["n_test"]
    return (f"{prefix}: pooled 90 % coverage probperf {np.average(df['probperf_cov90'], weights=w):.3f}, "
            f"log-log {np.average(df['loglog_cov90'], weights=w):.2f}; geometric mean MdAPE probperf "
            f"{np.exp(np.mean(np.log(df['probperf_mdape']))):.1f} %, log-log {np.exp(np.mean(np.log(df['loglog_mdape']))):.1f} %; "
            f"probperf better on {int((df['probperf_mdape'] < df['loglog_mdape']).sum())}/{len(df)} cases")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="published,real,extra,sim")
    ap.add_argument("--apps", default=APPS)
    args = ap.parse_args(argv)
    parts = args.only.split(",")
    for folder, title in (("published", "(a) published cases (Lobachev et al.), time only"),
                          ("real", "(b) real measurements (Stampede2), time only"),
                          ("extra", "(b2) further real measurements (Stampede2, benchmarks/data/real), time only")):
        if folder in parts:
            print(f"\n## {title}")
            rows = []
            for case in table_cases(folder):
                evaluate(*case, rows)
            print(pooled(rows, folder))
    if "sim" in parts:
        print("\n## (c) simulator, Dataset A (test) and B (test3), DAG metrics")
        rows = []
        for case in sim_cases(args.apps.split(",")):
            evaluate(*case, rows)
        print(pooled(rows, "simulator"))
        print(window(pd.DataFrame(rows)))


#: the issue's window for a 90 % interval's coverage
WINDOW = (0.80, 0.95)


def inside(coverage):
    """Whether a coverage lies in :data:`WINDOW`."""
    return (coverage >= WINDOW[0]) & (coverage <= WINDOW[1])


def program(case: str) -> str:
    """The simulated program of a case name of :func:`sim_cases` ("sim sort/A test": sort)."""
    return case.split()[1].split("/")[0]


def window(df: pd.DataFrame) -> str:
    """How many cases, and how many programs (A test and B test3 pooled, weighted by
    their test points), have a 90 % coverage in [0.80, 0.95]. The issue's "on at
    least 5 of 7 programs" is read per program: a case of 6-18 test points cannot
    resolve coverage finer than 1/6-1/18, and even an exact 90 % interval puts a
    9-point case inside the window only with probability 0.39 (8 of 9 covered, were
    the points independent; bench_coverage_chance.py takes their shared errors in)."""
    program_of = df["case"].map(program)
    covered = (df["probperf_cov90"] * df["n_test"]).groupby(program_of).sum() / df["n_test"].groupby(program_of).sum()
    listing = ", ".join(f"{k} {v:.2f}" for k, v in covered.items())
    span = f"[{WINDOW[0]:.2f}, {WINDOW[1]:.2f}]"
    return (f"cases with 90 % coverage in {span}: {int(inside(df['probperf_cov90']).sum())}/{len(df)}\n"
            f"programs (A test + B test3 pooled) with 90 % coverage in {span}: "
            f"{int(inside(covered).sum())}/{len(covered)} ({listing})")


if __name__ == "__main__":
    with report("bench_accuracy"):
        main()
