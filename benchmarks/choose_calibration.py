"""Should the DAG model's extra discrepancy calibration be on by default? Decided on
*training rows only*.

For every simulated program (Datasets A and B, seed 0) only the ``train`` rows are used.
Inside them, a forward split (``probperf.selection.forward_cuts``: all sizes but the largest,
worker counts up to the middle one) gives an inner training set and held-out runs beyond
it; the DAG model with law-mixture components is fitted on the inner set with and without
``calibrate`` (no floor in either) and scored on the held-out runs: mean log predictive
density of log time (a normal fitted to the log draws) and coverage of the 90 % interval.
The default is the variant with the higher mean log score over the cases. No test row of
any dataset is read.

    python benchmarks/choose_calibration.py
    python benchmarks/choose_calibration.py --kernel sm4     # every component a GP sm4 (dag_sm4)
    python benchmarks/choose_calibration.py --kernel basis   # the paper's basis regressions (dag_basis)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402

from probperf.dag import DagModel  # noqa: E402
from probperf.selection import forward_cuts  # noqa: E402
from probperf.sim.datasets import PROTOCOL, dataset  # noqa: E402


def score(model, held):
    pred = model.predict(held[model.features_], n_draws=2000, seed=0)
    logd = np.log(pred.draws)
    logy = np.log(held["time"].to_numpy())
    ld = stats.norm.logpdf(logy, logd.mean(axis=0), logd.std(axis=0))
    lo, hi = pred.interval(0.9)
    y = held["time"].to_numpy()
    return float(np.mean(ld)), float(np.mean((lo <= y) & (y <= hi)))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", help="every component's model (DagModel's kernel, e.g. sm4, basis); "
                    "default: the law mixtures")
    return ap.parse_args(argv)


def main(kernel=None):
    totals = {False: [], True: []}
    for app in PROTOCOL:
        for which in ("A", "B"):
            train = dataset(app, which, seed=0).select(split="train")
            frame = train.frame
            n_cut, p_cut = forward_cuts(np.unique(frame["n"]), np.unique(frame["p"]))
            inner = train.select(n=(None, n_cut), p=(None, p_cut))
            held = frame[(frame["n"] > n_cut) | (frame["p"] > p_cut)]
            line = f"{app:9s} {which}  held-out training runs {len(held):3d}"
            try:
                scores = {c: score(DagModel(kernel=kernel, calibrate=c, discrepancy=0.0).fit(inner), held)
                          for c in (False, True)}
            except ValueError as exc:  # e.g. the basis regressions refuse a varying cut-off: left out of both
                print(f"{line} | not fitted: {exc}", flush=True)
                continue
            for calibrate, (ld, cov) in scores.items():
                totals[calibrate].append(ld)
                line += f" | calibrate={calibrate!s:5s} log score {ld:7.3f} cov90 {cov:.2f}"
            print(line, flush=True)
    for calibrate, lds in totals.items():
        print(f"calibrate={calibrate}: mean log score {np.mean(lds):.3f} over {len(lds)} cases")
    best = max(totals, key=lambda k: np.mean(totals[k]))
    print(f"default chosen: calibrate={best}")


if __name__ == "__main__":
    kernel = parse_args().kernel  # before the report: a bad line writes none
    with report(f"choose_calibration_{kernel}" if kernel else "choose_calibration"):
        main(kernel)
