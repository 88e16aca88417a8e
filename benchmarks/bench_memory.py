"""Memory left behind by repeated DagModel fits in one process (long sweeps, notebooks).

Usage: python benchmarks/bench_memory.py [--fits 5]
       python benchmarks/bench_memory.py --csv-mb 200

Fits the default DagModel (fast inference) on the same small simulated fib table
``--fits`` times, deleting each model, and prints the resident memory after each fit
and the growth per fit. Pyro's JIT-traced SVI registers every trace in torch's
process-wide TorchScript compilation unit, which is never freed; ``_run_svi`` turns off
the optimising executor so that only the bare graphs stay (see its comment). The
experiment runner also restarts its workers every ``RESTART_EVERY`` tasks.

With ``--csv-mb N`` it instead writes a CSV table of about N MB (DAG metrics of
simulated-looking runs, 9 columns) and reports the peak resident memory of
``probperf validate`` on it, run as a separate process (issue 16: a 200 MB CSV needed
2.9 GB when the reader held the text, the cells as strings and the values at once; it
now reads chunks of ``formats.CSV_CHUNK_ROWS`` rows; the target is under 1 GB).
"""

import argparse
import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from probperf.dag import DagModel
from probperf.sim import generate


def resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def write_csv(path: Path, mb: float) -> int:
    """A CSV of about ``mb`` MB in the layout ``sim run`` writes; returns its rows."""
    rng = np.random.default_rng(0)
    header = "n,p,time,work,delay,no_work,create_task,wait_tasks,end_task\n"
    rows = 0
    with open(path, "w") as f:
        f.write(header)
        while f.tell() < mb * 2**20:
            k = 100_000
            n = rng.integers(2**10, 2**24, k)
            p = rng.integers(1, 37, k)
            time_ = rng.lognormal(0, 1, k)
            work, delay, no_work = time_ * p * 0.9, time_ * p * 0.07, time_ * p * 0.03
            tasks = n // 64
            block = np.column_stack([n, p, time_, work, delay, no_work, tasks, tasks, tasks + 1])
            np.savetxt(f, block, delimiter=",", fmt=["%d", "%d", "%.17g", "%.17g", "%.17g", "%.17g", "%d", "%d", "%d"])
            rows += k
    return rows


def validate_memory(mb: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        rows = write_csv(path, mb)
        size = path.stat().st_size / 2**20
        started = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "probperf", "validate", str(path)],
                             capture_output=True, text=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**10  # kB -> MB
    print(f"CSV of {size:.0f} MB, {rows} rows, 9 columns: probperf validate exit {res.returncode}, "
          f"{seconds:.0f} s, peak resident {peak:.0f} MB ({peak / size:.1f}x the file)")
    if res.returncode:
        print(res.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=5)
    ap.add_argument("--csv-mb", type=float, default=None,
                    help="Measure probperf validate on a CSV of this size instead.")
    args = ap.parse_args()
    if args.csv_mb is not None:
        validate_memory(args.csv_mb)
        return
    runs = generate("fib", [18, 19, 20, 21], [1, 2, 4, 8], config={"cutoff": 6}, seed=0)
    sizes = []
    for i in range(args.fits):
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = DagModel(effort="quick", n_draws=300, seed=i).fit(runs)
        del model
        gc.collect()
        sizes.append(resident_mb())
        print(f"fit {i + 1}: {time.perf_counter() - started:5.1f} s, resident {sizes[-1]:7.0f} MB")
    if len(sizes) > 1:
        # the first fit also loads libraries: growth is measured from its end
        print(f"growth per fit after the first: {(sizes[-1] - sizes[0]) / (len(sizes) - 1):.0f} MB")


if __name__ == "__main__":
    from _report import report

    with report("bench_memory_csv" if "--csv-mb" in sys.argv else "bench_memory"):
        main()
