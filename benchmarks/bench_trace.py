"""Speed of the trace calculator (probperf.trace.dag_metrics) on 10^6 strands.

Prints the wall time of each part and of the whole; target: <= 2 s for 10^6 strands.
The trace is synthetic but valid: strands in time slots on W workers, each with two
edges from strands of earlier slots.

    python benchmarks/bench_trace.py [--strands 1000000] [--workers 36] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from probperf.trace import TaskTrace, critical_path, dag_metrics, profile_integrals, ready_times


def synthetic_trace(m: int, w: int, seed: int = 0) -> TaskTrace:
    rng = np.random.default_rng(seed)
    slot = np.arange(m) // w
    start = slot * 10.0 + rng.integers(0, 3, m)
    end = start + rng.integers(1, 8, m)
    dst = np.repeat(np.arange(w, m), 2)
    # a source in an earlier slot ends before the destination's slot begins
    back = rng.integers(1, 4, dst.shape[0])
    src_slot = np.maximum(slot[dst] - back, 0)
    src = np.minimum(src_slot * w + rng.integers(0, w, dst.shape[0]), m - 1)
    keep = slot[src] < slot[dst]
    return TaskTrace(start, end, np.arange(m) % w, src[keep], dst[keep], w,
                     create_task=m // 2, wait_tasks=m // 4, end_task=m // 2)


def best(fn, repeat):
    """Best of ``repeat`` runs: ((wall, cpu) seconds, result)."""
    times = []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append((time.perf_counter() - w, time.process_time() - c))
    return min(times), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strands", type=int, default=1_000_000)
    ap.add_argument("--workers", type=int, default=36)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    tr = synthetic_trace(args.strands, args.workers)
    dag_metrics(TaskTrace(tr.start[:1000], tr.end[:1000], tr.worker[:1000], [], [], args.workers))
    t_ready, ready = best(lambda: ready_times(tr), args.repeat)
    t_prof, _ = best(lambda: profile_integrals(tr.start, tr.end, ready, tr.n_workers), args.repeat)
    t_cp, _ = best(lambda: critical_path(tr), args.repeat)
    t_all, m = best(lambda: dag_metrics(tr), args.repeat)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"strands={tr.n_strands:,} edges={tr.edge_src.shape[0]:,} workers={tr.n_workers}")
    print("                     wall      cpu   (best of --repeat; cpu = process time)")
    for name, (wall, cpu) in (("ready_times", t_ready), ("profile_integrals", t_prof),
                              ("critical_path", t_cp), ("dag_metrics total", t_all)):
        print(f"{name:18s} {wall:6.3f} s {cpu:6.3f} s")
    print(f"target <= 2 s for 10^6 strands; peak RSS {rss:,.0f} MB")
    ident = m["work"] + m["delay"] + m["no_work"] - tr.n_workers * m["time"]
    print(f"identity residual  {ident!r}")


if __name__ == "__main__":
    from _report import report

    with report("bench_trace"):
        main()
