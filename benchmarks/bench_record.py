"""Tracing overhead of the OMPT recorder on fib with a cut-off (about 10^5 tasks).

Prints, per worker count, the median elapsed time of untraced and traced runs (the
OpenMP runtime's start to end, see probperf.record.run_untraced), the overhead, the
same for the process's wall and CPU time, and the time to turn a trace into DAG
metrics. Runs of the two kinds alternate, so on a shared machine both see the same
load. Target (issue 8): overhead < 20 %.

    python benchmarks/bench_record.py [--n 40] [--cutoff 18] [--pairs 5] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from probperf.record import build_benchmarks, run_program, tool_path
from probperf.record.run import _traced_result, _untraced_result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--cutoff", type=int, default=18)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    tool_path()  # build outside the timed runs
    with tempfile.TemporaryDirectory() as tmp:
        fib = build_benchmarks(tmp, ["fib"])[0]
        cmd = [str(fib), str(args.n), str(args.cutoff)]
        print(f"program: fib {args.n} {args.cutoff}; {args.pairs} untraced/traced pairs per p")
        header = ("p", "tasks", "untraced s", "traced s", "overhead", "wall ovh", "CPU ovh", "convert s")
        print("{:>3} {:>7} {:>11} {:>9} {:>9} {:>9} {:>8} {:>10}".format(*header))
        for p in [int(x) for x in args.workers.split(",")]:
            raw = []
            for i in range(args.pairs):
                a = run_program(cmd, p, events=bool(i % 2))
                b = run_program(cmd, p, events=not i % 2)
                raw.append((b, a) if i % 2 else (a, b))
            base = [_untraced_result(cmd, p, *u) for u, _ in raw]
            t0 = time.perf_counter()
            runs = [_traced_result(cmd, p, *t) for _, t in raw]
            convert = (time.perf_counter() - t0) / len(runs)
            med = lambda xs: float(np.median(xs))  # noqa: E731
            u_el, t_el = med([b["elapsed"] for b in base]), med([r.metrics["time"] for r in runs])
            u_wall, t_wall = med([b["wall"] for b in base]), med([r.wall for r in runs])
            u_cpu, t_cpu = med([b["cpu"] for b in base]), med([r.cpu for r in runs])
            print(f"{p:>3} {int(runs[0].metrics['create_task']):>7} {u_el:>11.4f} {t_el:>9.4f} "
                  f"{t_el / u_el - 1:>+9.1%} {t_wall / u_wall - 1:>+9.1%} {t_cpu / u_cpu - 1:>+8.1%} "
                  f"{convert:>10.3f}")


if __name__ == "__main__":
    from _report import report

    with report("bench_record"):
        main()
