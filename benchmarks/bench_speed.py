"""Speed of the default path (issue "Predictions that hold up far from the data", item 2).

Targets (2 cores, reported here, never asserted in tests):

* a time-only fit on <= 100 rows: < 5 s (``gauss_n_p8.csv``, 10 rows; 100 rows of
  the real Allreduce training data; and 100 rows of a synthetic matrix product with
  three size parameters; 100 rows with 5 and with 6 size parameters, where the
  candidate laws multiply);
* a DAG model fit on 500 simulated runs: < 30 s;
* ``probperf predict`` of 100 points: < 2 s including the interpreter's start-up.

Each case reports the median of :data:`REPEATS` runs and their range (the first fit,
which includes the imports, runs once). Run from the repository root, on a quiet
machine::

    python benchmarks/bench_speed.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import report  # noqa: E402

import probperf as pp  # noqa: E402
from probperf.data import Measurements  # noqa: E402
from probperf.sim import generate  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


#: Times of each case: the median of this many runs is reported, with the range. Why:
#: the same fit on this machine, quiet, measured 4.5 to 6.3 s in runs minutes apart
#: (session 41), more than the margin to a target; one run would report the noise.
REPEATS = 3


def timed(label, fn, target, repeats=REPEATS):
    """``fn()``'s result; its time (median of ``repeats`` runs, and their range) printed
    against ``target`` seconds."""
    import statistics

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    s = statistics.median(times)
    spread = f" [{min(times):.2f}-{max(times):.2f}]" if repeats > 1 else " " * 12
    print(f"{label:58s} {s:7.2f} s{spread}   (target < {target} s: {'met' if s < target else 'NOT met'})",
          flush=True)
    return out


def _matrix_product(rows: int) -> Measurements:
    """A threaded matrix product's times, ``2e-10 m n k / p^0.95 + 2e-4 p`` s with 3 %
    noise, at random sizes 2^7..2^11 and 1..8 workers: four parameters."""
    import numpy as np

    rng = np.random.default_rng(1)
    m, n, k = (np.round(2 ** rng.uniform(7, 11, rows)) for _ in range(3))
    p = rng.choice([1, 2, 4, 8], rows)
    time = (2e-10 * m * n * k / p**0.95 + 2e-4 * p) * np.exp(0.03 * rng.standard_normal(rows))
    return Measurements({"n": n, "m": m, "k": k, "p": p, "time": time}, config=["m", "k"])


def _many_sizes(rows: int, sizes: int) -> Measurements:
    """Times ``2e-10 (s1 s2 ... s_k)^(3/k) / p^0.95`` with 3 % noise at random sizes
    2^7..2^11 on 1..8 workers: ``sizes`` size parameters (n and configuration columns)
    and p, where the candidate laws multiply."""
    import numpy as np

    rng = np.random.default_rng(sizes)
    values = {("n" if i == 0 else f"s{i}"): np.round(2 ** rng.uniform(7, 11, rows)) for i in range(sizes)}
    p = rng.choice([1, 2, 4, 8], rows)
    work = np.prod(list(values.values()), axis=0) ** (3 / sizes)
    time = 2e-10 * work / p**0.95 * np.exp(0.03 * rng.standard_normal(rows))
    return Measurements({**values, "p": p, "time": time}, config=[c for c in values if c != "n"])


def main():
    gauss = pd.read_csv(SHARED / "published" / "gauss_n_p8.csv")
    gauss = Measurements(gauss[gauss.split == "train"][["n", "p", "time"]].reset_index(drop=True))
    # the first fit imports the model modules (torch, gpytorch, pyro): part of a user's first fit
    timed("time-only fit, gauss_n_p8 (10 rows, first fit: imports included)", lambda: pp.fit(gauss, model="auto"), 5,
          repeats=1)
    allreduce = pd.read_csv(SHARED / "real" / "mpi_allreduce_stampede2.csv")
    rows = allreduce[allreduce.split == "train"].drop(columns="split").head(100).reset_index(drop=True)
    m100 = Measurements(rows, config=["nnodes", "ppn"])
    timed("time-only fit, allreduce (100 rows)", lambda: pp.fit(m100, model="auto"), 5)
    gemm = _matrix_product(100)
    timed("time-only fit, matrix product n, m, k, p (100 rows)", lambda: pp.fit(gemm, model="auto"), 5)
    for sizes in (5, 6):  # where the 5 s target starts to bind
        table = _many_sizes(100, sizes)
        timed(f"time-only fit, {sizes} size parameters and p (100 rows)", lambda: pp.fit(table, model="auto"), 5)

    runs = generate("sort", [2**k for k in range(10, 20)], [1, 2, 3, 4, 6, 8, 10, 12, 14, 16], reps=5, seed=0)
    assert len(runs) == 500
    model = timed(f"DAG model fit, sort, {len(runs)} simulated runs", lambda: pp.fit(runs, model="auto"), 30)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sort.model"
        model.save(path)
        at = [arg for k in range(100) for arg in ("--at", f"n={2 ** (20 + k % 5)},p={16 + k}")]
        cmd = [str(Path(sys.executable).parent / "probperf"), "predict", str(path), *at, "--format", "json"]
        res = timed("probperf predict, 100 points (new process, start-up included)",
                    lambda: subprocess.run(cmd, capture_output=True, text=True), 2)
        if res.returncode != 0:
            print("predict failed:", res.stderr.strip())


if __name__ == "__main__":
    with report("bench_speed"):
        main()
