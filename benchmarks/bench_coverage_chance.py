"""How often bench_accuracy.py's coverage windows hold if probperf's prediction were the truth.

For every case of ``bench_accuracy.py`` (real measurements and the simulator's Dataset A
``test`` and B ``test3``) this fits probperf's default on the training rows, as that
script does, and then takes the truth to be one more joint draw of the model's own
predictive distribution at the held-out points (an independent prediction with another
seed, run-to-run noise included). Per pseudo-truth: the share of held-out points inside
the central 90 % interval, pooled as bench_accuracy pools them (the real sets together;
each simulated program's A test and B test3 together, weighted by their points).

What it tells: the chance that a pooled coverage lands in [0.80, 0.95] when the world
is exactly as probperf's prediction says, with the errors it shares between points: a
draw keeps one law, one set of coefficients and one discrepancy deviate at every point
of a case, so the points are covered or missed together far more than independent
points would be. What it does not tell: whether the prediction is right, or whether
real errors are as strongly shared (a world with less shared errors would land in the
windows more often). No test truth is read.

Run from the repository root (``../shared`` beside it)::

    python benchmarks/bench_coverage_chance.py [--truths 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import probperf as pp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402
from bench_accuracy import APPS, DRAWS, WINDOW, inside, program, sim_cases, table_cases  # noqa: E402


def covered(train, test, truths: int) -> np.ndarray:
    """Per pseudo-truth (rows), which held-out points (columns) its 90 % interval covers."""
    model = pp.fit(train, target="time", model="auto")
    points = test[train.params]
    lo, hi = model.predict(points, n_draws=DRAWS, seed=0).interval(0.9)
    truth = model.predict(points, n_draws=truths, seed=1).draws
    return (lo <= truth) & (truth <= hi)


def spread(coverage: np.ndarray) -> str:
    """How a coverage is distributed over the pseudo-truths."""
    return (f"mean {coverage.mean():.2f} (0.90 if the intervals are exact), median {np.median(coverage):.2f}, "
            f"P(all covered) {np.mean(coverage == 1):.2f}, P(below 0.5) {np.mean(coverage < 0.5):.2f}, "
            f"P(in [{WINDOW[0]:.2f}, {WINDOW[1]:.2f}]) {np.mean(inside(coverage)):.2f}")


def at_least(probs, k: int) -> float:
    """Probability that at least ``k`` of independent events of probabilities ``probs`` happen."""
    dist = np.array([1.0])
    for q in probs:
        dist = np.convolve(dist, [1 - q, q])
    return float(dist[k:].sum())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--truths", type=int, default=1000, help="pseudo-truths per case")
    ap.add_argument("--apps", default=APPS)
    args = ap.parse_args(argv)

    print("## (b) real measurements, each and pooled (the 80-95 % window of the target is for the pooled coverage)")
    hits = []
    for name, train, test in table_cases("real"):
        hits.append(covered(train, test, args.truths))
        print(f"{name:26s} {hits[-1].shape[1]:5d} points: {spread(hits[-1].mean(axis=1))}")
    print(f"{'pooled':26s} {sum(h.shape[1] for h in hits):5d} points: {spread(np.concatenate(hits, axis=1).mean(axis=1))}")

    print("\n## (c) simulator: per program, A test and B test3 pooled")
    programs = {}
    for name, train, test in sim_cases(args.apps.split(",")):
        programs.setdefault(program(name), []).append(covered(train, test, args.truths))
    probs = []
    for app, parts in programs.items():
        coverage = np.concatenate(parts, axis=1).mean(axis=1)
        probs.append(float(np.mean(inside(coverage))))
        print(f"{app:10s} {sum(p.shape[1] for p in parts):3d} points: {spread(coverage)}")
    print(f"expected programs in the window {sum(probs):.1f} of {len(probs)}; "
          f"P(at least 5 of {len(probs)}) {at_least(probs, 5):.3f} (programs independent)")


if __name__ == "__main__":
    with report("bench_coverage_chance"):
        main()
