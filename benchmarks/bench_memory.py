"""Memory left behind by repeated DagModel fits in one process (long sweeps, notebooks).

Usage: python benchmarks/bench_memory.py [--fits 5]

Fits the default DagModel (fast inference) on the same small simulated fib table
``--fits`` times, deleting each model, and prints the resident memory after each fit
and the growth per fit. Pyro's JIT-traced SVI registers every trace in torch's
process-wide TorchScript compilation unit, which is never freed; ``_run_svi`` turns off
the optimising executor so that only the bare graphs stay (see its comment). The
experiment runner also restarts its workers every ``RESTART_EVERY`` tasks.
"""

import argparse
import gc
import os
import time
import warnings

from probperf.dag import DagModel
from probperf.sim import generate


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=5)
    args = ap.parse_args()
    runs = generate("fib", [18, 19, 20, 21], [1, 2, 4, 8], config={"cutoff": 6}, seed=0)
    sizes = []
    for i in range(args.fits):
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = DagModel(fast=True, n_draws=300, seed=i).fit(runs)
        del model
        gc.collect()
        sizes.append(resident_mb())
        print(f"fit {i + 1}: {time.perf_counter() - started:5.1f} s, resident {sizes[-1]:7.0f} MB")
    if len(sizes) > 1:
        # the first fit also loads libraries: growth is measured from its end
        print(f"growth per fit after the first: {(sizes[-1] - sizes[0]) / (len(sizes) - 1):.0f} MB")


if __name__ == "__main__":
    from _report import report

    with report("bench_memory"):
        main()
