"""Speed and memory of the scheduler simulation on a 10^6-task DAG.

Default: fib(36) with task cut-off depth 19 (1,048,575 tasks, ~2.6 million strands),
work stealing on 36 workers of the default Machine. Prints build, simulation and
metric times and the peak resident memory; target: simulation <= 10 s, <= 2 GB.

    python benchmarks/bench_sim.py [--app fib --n 36 --set cutoff=19] [--p 36] [--scheduler ws]
"""

from __future__ import annotations

import argparse
import resource
import time

from probperf.sim import Machine, build, simulate
from probperf.trace import dag_metrics


def timed(fn):
    """((wall, cpu) seconds, result)."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - w, time.process_time() - c), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app", default="fib")
    ap.add_argument("--n", type=int, default=36)
    ap.add_argument("--set", action="append", default=None, help="NAME=VALUE config")
    ap.add_argument("--p", type=int, default=36)
    ap.add_argument("--scheduler", default="ws")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    config = dict(s.split("=", 1) for s in (args.set or (["cutoff=19"] if args.app == "fib" else [])))
    config = {k: int(v) for k, v in config.items()}
    t_build, dag = timed(lambda: build(args.app, args.n, **config))
    t_sim, trace = timed(lambda: simulate(dag, args.p, Machine(), args.scheduler, seed=args.seed))
    t_metrics, m = timed(lambda: dag_metrics(trace))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.app} n={args.n} {config} tasks={dag.n_tasks:,} strands={dag.n_segments:,} "
          f"p={args.p} scheduler={args.scheduler}")
    print("                wall      cpu  (cpu = process time; wall suffers on a shared machine)")
    print(f"build DAG       {t_build[0]:6.2f} s {t_build[1]:6.2f} s")
    print(f"simulate        {t_sim[0]:6.2f} s {t_sim[1]:6.2f} s   (target <= 10 s)")
    print(f"dag_metrics     {t_metrics[0]:6.2f} s {t_metrics[1]:6.2f} s")
    print(f"peak RSS        {rss:7.0f} MB  (target <= 2048 MB)")
    print("metrics (cycles): " + ", ".join(f"{k}={v:.4g}" for k, v in m.items()))


if __name__ == "__main__":
    from _report import report

    with report("bench_sim"):
        main()
