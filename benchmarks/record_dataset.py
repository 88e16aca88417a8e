"""Record the real dataset probperf/examples/omp_recorded.parquet on this machine.

Program: the mergesort benchmark (probperf/record/bench/mergesort.c) with sort cut-off
2048 and merge cut-off 8192, built with clang -fopenmp -O2. For each n in 2^15 .. 2^22
it runs once untraced and 3 times traced with 1 and with 2 workers; every traced run is
one row with n, p, time and the DAG metrics (work, delay, no_work, critical_path,
create_task, wait_tasks, end_task, serial_work), times in seconds.

    python benchmarks/record_dataset.py [-o probperf/examples/omp_recorded.parquet]

Equivalent by hand, per n:

    probperf bench build -o bin --only mergesort
    probperf record --workers 1,2 --reps 3 --param n=$N -o runs.parquet -- bin/mergesort $N 2048 8192
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from probperf.formats import write
from probperf.record import build_benchmarks, record, tool_path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "probperf" / "examples" / "omp_recorded.parquet"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--log2n", default="15..22", help="range of log2 n, inclusive (default 15..22)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.log2n.split(".."))
    tool_path()
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_benchmarks(tmp, ["mergesort"])[0]
        tables = []
        for k in range(lo, hi + 1):
            n = 2**k
            rec = record([str(exe), str(n), "2048", "8192"], [1, 2], {"n": n}, reps=args.reps)
            tables.append(rec.measurements)
            for row in rec.overhead.itertuples():
                print(f"n=2^{k} p={row.p}: untraced {row.untraced:.4f} s, traced {row.traced:.4f} s "
                      f"({row.overhead:+.1%})", flush=True)
    m = tables[0].concat(*tables[1:])
    m.source = f"mergesort (cut-offs 2048/8192), {os.uname().nodename}"
    write(m, args.output)
    print(f"wrote {len(m)} rows to {args.output}")


if __name__ == "__main__":
    main()
