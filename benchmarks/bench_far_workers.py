"""How far in workers do the DAG model's predictions hold? Trained on 1-8 workers, asked at
64, 256 and 1024: the question of a user booking a large machine from laptop runs.

Per program of the simulator: the DAG model that ``probperf fit --model auto`` builds,
fitted on the ``train`` rows of its Dataset A (seed 0: sizes of the protocol, p = 1..8),
predicts the first ``test`` size of that dataset at p = 64, 256 and 1024, where the
simulator also runs the program (REPS repetitions, seed 1, so no training run is
reused). Reported per point: the median simulated time, probperf's median and 90 %
interval, the ratio median / truth, and whether the interval holds every repetition.

A report, never a tuning target: nothing in probperf was chosen by these rows (the
model's choices are made by nested forward validation on training rows,
benchmarks/choose_laws.py). The simulator's idle time, steal latency and contention at
1024 workers are its own assumptions; a real machine adds memory bandwidth and network
effects that no run on 8 workers shows.

Run from the repository root::

    python benchmarks/bench_far_workers.py [--apps sort,fib]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import probperf as pp
from probperf.sim.datasets import PROTOCOL, dataset, generate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402

#: the far worker counts: 8x, 32x and 128x the largest training count
FAR_P = (64, 256, 1024)
#: simulated runs per far point (their spread is the simulator's run-to-run noise)
REPS = 2


def far_case(app: str) -> tuple[float, list[tuple]]:
    """The size predicted and rows (p, truth median, predicted median, lower, upper, all
    reps inside) of one program."""
    data = dataset(app, "A", seed=0)
    frame = data.frame
    train = pp.Measurements(frame[frame["split"] == "train"].drop(columns="split"), config=data.config,
                            unit=data.unit)
    n = float(frame.loc[frame["split"] == "test", "n"].min())
    config = {c: frame[c].iloc[0] for c in data.config}
    truth = generate(app, [n], list(FAR_P), config=config, reps=REPS, seed=1).frame
    model = pp.fit(train, target="time", model="auto")
    points = truth.drop_duplicates("p")[model.features_]
    with warnings.catch_warnings():  # far beyond the data, by design: the report says how far
        warnings.simplefilter("ignore")
        pred = model.predict(points, n_draws=2000, seed=0)
    lo, hi = pred.interval(0.9)
    rows = []
    for i, p in enumerate(points["p"]):
        times = truth.loc[truth["p"] == p, "time"].to_numpy()
        inside = bool(np.all((lo[i] <= times) & (times <= hi[i])))
        rows.append((int(p), float(np.median(times)), float(pred.median[i]), float(lo[i]), float(hi[i]), inside))
    return n, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", default=",".join(PROTOCOL), help="comma-separated programs")
    args = parser.parse_args(argv)
    apps = [a.strip() for a in args.apps.split(",") if a.strip()]
    print(f"DAG model trained on Dataset A's train rows (p = 1..8), predicted at p = {', '.join(map(str, FAR_P))}")
    print(f"{'program':10s} {'n':>9s} {'p':>5s} {'truth':>10s} {'median':>10s} {'ratio':>6s} "
          f"{'90 % interval':>23s} covers")
    ratios, covers = [], []
    for app in apps:
        started = time.time()
        n, rows = far_case(app)
        for p, truth, median, lo, hi, inside in rows:
            ratios.append(median / truth)
            covers.append(inside)
            print(f"{app:10s} {n:9.0f} {p:5d} {truth:10.3g} {median:10.3g} {median / truth:6.2f} "
                  f"[{lo:9.3g}, {hi:9.3g}] {'yes' if inside else 'NO'}")
        print(f"{'':10s} ({time.time() - started:.0f} s)")
    ratios = np.array(ratios)
    print(f"{len(ratios)} points: 90 % intervals holding every repetition {np.mean(covers):.2f}; "
          f"median |log ratio| {np.median(np.abs(np.log(ratios))):.2f} "
          f"(a factor {np.exp(np.median(np.abs(np.log(ratios)))):.2f}); "
          f"within a factor 1.5: {np.mean(np.abs(np.log(ratios)) <= np.log(1.5)):.2f}")


if __name__ == "__main__":
    with report("bench_far_workers"):
        main()
