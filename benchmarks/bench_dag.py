"""DagModel accuracy on the simulated thesis protocol, per app and split (quick look).

Usage: python benchmarks/bench_dag.py [--apps sort,fib] [--which A] [--scale 1.0] [--kernel SPEC]

Prints the median absolute % error and 90 % coverage of the time prediction per split,
and the fit time. The full comparison with every baseline is
``experiments/compare_models.py``; this script is for iterating on the DAG model.
"""

import argparse
import time

from probperf.dag import DagModel
from probperf.evaluate import coverage, median_ape
from probperf.sim import dataset


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", default="sort,sparselu,fft,strassen,fib,nqueens")
    ap.add_argument("--which", default="A")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--kernel", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"{'app':9s} {'split':6s} {'points':>6s} {'MdAPE %':>8s} {'cov90':>6s} {'fit s':>6s}")
    for app in args.apps.split(","):
        m = dataset(app, args.which, scale=args.scale, seed=args.seed, reps=2)
        train = m.select(split="train")
        started = time.perf_counter()
        model = DagModel(kernel=args.kernel, seed=args.seed).fit(train)
        fit_s = time.perf_counter() - started
        for split in sorted(set(m.frame["split"]) - {"train"}):
            test = m.select(split=split)
            pred = model.predict(test.points(model.features_), n_draws=1000)
            y = test.y("time")
            print(f"{app:9s} {split:6s} {len(test):6d} {median_ape(pred, y):8.1f} "
                  f"{100 * coverage(pred, y, 0.9):6.0f} {fit_s:6.1f}")


if __name__ == "__main__":
    from _report import report

    with report("bench_dag"):
        main()
