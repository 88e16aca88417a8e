"""How often the coverage windows of bench_accuracy.py hold for a model that is exactly right.

For every case of ``bench_accuracy.py`` (real measurements and the simulator's Dataset A
``test`` and B ``test3``) this fits probperf's default on the training rows, as that
script does, and then pretends the truth is one more joint draw of the model's own
predictive distribution at the held-out points (an independent prediction with another
seed, run-to-run noise included). Such a truth is, by construction, what a perfectly
calibrated model would face. Per pseudo-truth: the share of held-out points inside the
central 90 % interval, pooled as bench_accuracy pools them (the real sets together;
each simulated program's A test and B test3 together, weighted by their points).

What it tells: the chance that a pooled coverage lands in [0.80, 0.95] when the model
is right. A prediction's error far from the data is one smooth error shared by all the
points of a case (the laws' discrepancy is one deviate per draw), so a case's points
are covered or missed together, and a window 15 points wide is hit far less often than
independent points would suggest. What it does not tell: whether the model is right.
No test truth is read.

Run from the repository root (``../shared`` beside it)::

    python benchmarks/bench_coverage_chance.py [--truths 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import probperf as pp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402
from bench_accuracy import DRAWS, sim_cases, table_cases  # noqa: E402

#: the windows of the issue "Predictions that hold up far from the data"
WINDOW = (0.80, 0.95)


def covered(train, test, truths: int) -> np.ndarray:
    """Per pseudo-truth (rows), which held-out points (columns) its 90 % interval covers."""
    model = pp.fit(train, target="time", model="auto")
    points = test[train.params]
    lo, hi = model.predict(points, n_draws=DRAWS, seed=0).interval(0.9)
    truth = model.predict(points, n_draws=truths, seed=1).draws
    return (lo <= truth) & (truth <= hi)


def inside(coverage: np.ndarray) -> np.ndarray:
    return (coverage >= WINDOW[0]) & (coverage <= WINDOW[1])


def at_least(probs, k: int) -> float:
    """Probability that at least ``k`` of independent events of probabilities ``probs`` happen."""
    dist = np.array([1.0])
    for q in probs:
        dist = np.convolve(dist, [1 - q, q])
    return float(dist[k:].sum())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--truths", type=int, default=1000, help="pseudo-truths per case")
    ap.add_argument("--apps", default="sort,sparselu,fft,strassen,fib,nqueens,farm")
    args = ap.parse_args(argv)

    print("## (b) real measurements: pooled 90 % coverage over the three sets")
    hits = [covered(train, test, args.truths) for _, train, test in table_cases("real")]
    pooled = np.concatenate(hits, axis=1).mean(axis=1)
    print(f"pooled coverage of a right model: mean {pooled.mean():.3f} (0.90 if the intervals are exact), median "
          f"{np.median(pooled):.3f}, 5-95 % {np.quantile(pooled, 0.05):.3f}"
          f"-{np.quantile(pooled, 0.95):.3f}; P(in [{WINDOW[0]:.2f}, {WINDOW[1]:.2f}]) {inside(pooled).mean():.2f}")

    print("\n## (c) simulator: per program, A test and B test3 pooled")
    programs = {}
    for name, train, test in sim_cases(args.apps.split(",")):
        programs.setdefault(name.split()[1].split("/")[0], []).append(covered(train, test, args.truths))
    probs = []
    for app, parts in programs.items():
        coverage = np.concatenate(parts, axis=1).mean(axis=1)
        probs.append(inside(coverage).mean())
        print(f"{app:10s} {sum(p.shape[1] for p in parts):3d} points: coverage of a right model mean "
              f"{coverage.mean():.2f}, median {np.median(coverage):.2f}, P(exactly 1.00) {np.mean(coverage == 1):.2f}, "
              f"P(in window) {probs[-1]:.2f}")
    print(f"expected programs in the window {sum(probs):.1f} of {len(probs)}; "
          f"P(at least 5 of {len(probs)}) {at_least(probs, 5):.3f} (programs independent)")


if __name__ == "__main__":
    with report("bench_coverage_chance"):
        main()
