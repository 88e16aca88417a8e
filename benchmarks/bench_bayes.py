"""Speed of BayesianBasisRegression (printed, never asserted).

Targets: ~30 candidate terms on 500 points, NUTS 500+500 draws <= 60 s, SVI <= 10 s;
predicting 10,000 points x 1,000 draws <= 2 s.

Run: ``python benchmarks/bench_bayes.py [--skip-nuts]``
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import torch

from probperf.basis import no_work, normal_form
from probperf.models.bayes import BayesianBasisRegression


def data(n_points=500, seed=0):
    rng = np.random.default_rng(seed)
    n = 2.0 ** rng.integers(8, 20, n_points)
    p = rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], n_points)
    y = (3 * n * np.log2(n) + 0.5 * n**1 * (p - 1)) * np.exp(0.05 * rng.standard_normal(n_points))
    return n, p, y


def timed(label, fn):
    t = time.perf_counter()
    out = fn()
    print(f"{label:<46s} {time.perf_counter() - t:8.2f} s", flush=True)
    return out


def main(skip_nuts=False):
    torch.set_num_threads(1)
    n, p, y = data()
    # 12 n-terms x {1, p-1} + the 12 no_work terms (duplicates dropped): 30 terms
    basis = normal_form(j=(0, 1, 2, 3), k=(0, 1, 2), worker=("1", "p-1")) + no_work()
    print(f"{len(basis)} terms, {len(y)} points")
    X = {"n": n, "p": p}
    svi = BayesianBasisRegression(basis=basis, inference="svi", svi_steps=1500, num_samples=1000)
    timed("SVI fit (1500 steps, 1000 draws)", lambda: svi.fit(X, y))
    if not skip_nuts:
        nuts = BayesianBasisRegression(basis=basis, inference="nuts", num_samples=500, warmup=500)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            timed("NUTS fit (500 warmup + 500 draws, 1 chain)", lambda: nuts.fit(X, y))
        print("  diagnostics:", nuts.diagnostics_)
        for w in caught:
            print("  warning:", w.message)
    rng = np.random.default_rng(1)
    Xp = {"n": 2.0 ** rng.uniform(8, 24, 10_000), "p": rng.choice([1.0, 8.0, 64.0], 10_000)}
    timed("predict 10,000 points x 1,000 draws", lambda: svi.predict(Xp, n_draws=1000))
    Phi = svi.basis_.design(Xp["n"], Xp["p"])  # the basis after pruning
    timed("predict_design 10,000 x 1,000 (design given)", lambda: svi.predict_design(Phi, n_draws=1000))


if __name__ == "__main__":
    from _report import report

    with report("bench_bayes"):
        main(skip_nuts="--skip-nuts" in sys.argv)
