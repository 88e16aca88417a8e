"""Speed of the GP metric model (printed, never asserted).

Targets (issue 4): an ``sm4`` GP on 1,000 points with 3 restarts fits in <= 60 s;
predicting 10,000 points x 1,000 joint draws takes <= 2 s.

Run: ``python benchmarks/bench_gp.py [--threads N] [--points 1000] [--restarts 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
import torch


def synthetic(n_points: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """A time-like metric on an (n, p) grid: n log n work / p plus overhead and a wiggle."""
    rng = np.random.default_rng(seed)
    workers = np.arange(1, 21)
    sizes = 2.0 ** np.linspace(10, 24, max(2, n_points // len(workers)))
    n, p = (a.ravel() for a in np.meshgrid(sizes, workers))
    x = np.log2(n)
    time_s = 1e-8 * n * x / p * (1 + 0.05 * (p - 1)) * np.exp(0.1 * np.sin(2 * np.pi * x / 4))
    return pd.DataFrame({"n": n, "p": p}), time_s * np.exp(0.03 * rng.normal(size=n.size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--kernel", default="sm4")
    parser.add_argument("--predict-points", type=int, default=10_000)
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from probperf.models.gp import GaussianProcessModel

    X, y = synthetic(args.points)
    model = GaussianProcessModel(kernel=args.kernel, n_restarts=args.restarts)
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(X, y)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"fit   {args.kernel} on {len(y)} points, {args.restarts} restarts "
          f"(adam {model.adam_iters} + lbfgs {model.lbfgs_iters} iters, screening on "
          f"{min(len(y), model.screen_points)} points): {fit_s:.1f} s wall, {fit_cpu:.1f} s CPU "
          f"[target <= 60 s]")
    mlls = [None if m is None else round(m, 1) for m in model.restart_mlls_]
    print(f"      restart mlls (screening subset): {mlls}; kept, on all data: {model.mll_:.1f}")

    rng = np.random.default_rng(1)
    at = pd.DataFrame({
        "n": 2.0 ** rng.uniform(10, 28, args.predict_points),
        "p": rng.integers(1, 65, args.predict_points),
    })
    model.predict(at.iloc[:10], n_draws=10)  # builds the prediction caches once
    # On a shared machine wall time includes waiting for a core; CPU time does not.
    for block in (model.joint_block, 500):
        model.joint_block = block
        t0, c0 = time.perf_counter(), time.process_time()
        pred = model.predict(at, n_draws=args.draws, seed=0)
        print(f"predict {args.predict_points} points x {args.draws} draws "
              f"(joint blocks of {block}): {time.perf_counter() - t0:.2f} s wall, "
              f"{time.process_time() - c0:.2f} s CPU [target <= 2 s]  draws {pred.draws.shape}")


if __name__ == "__main__":
    from _report import report

    with report("bench_gp"):
        main()
