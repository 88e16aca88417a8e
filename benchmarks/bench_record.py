"""The OMPT recorder: conversion speed, tracing overhead, wait policy, tied vs untied.

1. Conversion: time to turn the trace of ``health 7 86`` (469,560 tasks, the size of
   the issue-18 report) into strands and edges, against the converter this project
   had before issue 18 (read from git, commit BEFORE; its loop cannot handle untied
   tasks at one worker, so it is timed on the tied program).
2. Tracing overhead: untraced and traced runs alternate (on a shared machine both
   see the same load); medians of the runtime's elapsed time, the process's wall and
   CPU time. Target (issue 8): overhead < 20 %.
3. Wait policy: work, delay, no_work and CPU time under libomp's default (active
   waiting, KMP_BLOCKTIME 200 ms), KMP_BLOCKTIME=0 and OMP_WAIT_POLICY=passive.
4. Tied vs untied: the bundled programs and their NAME_untied builds, same inputs:
   task counts and work. libomp runs an untied task as parts that re-queue the task,
   which costs runtime time inside the task's span; column us/task is the extra work
   per task. The inputs have tasks of 0.1 ms or more except health (BOTS-like, tasks of
   a few microseconds). Ratios are taken within each interleaved pair, so their range
   shows the run-to-run noise: a range that contains 1 is a difference within noise.
   The tool's own cost per event lies inside the task spans (section 2), and libomp
   reports more events per untied task (its parts): where tasks last microseconds,
   as in health, that tracing overhead shows as extra untied work.
   Column "untraced ratio" is the untied build's untraced elapsed time over the tied
   build's: where the untied program itself is slower, so is its work.

    python benchmarks/bench_record.py [--pairs 7] [--reps 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from probperf.record import build_benchmarks, events_to_trace, run_program, tool_path
from probperf.record import run as record_run
from probperf.record.run import _traced_result, _untraced_result
from probperf.trace import dag_metrics

#: main before issue 18 (the per-event converter)
BEFORE = "20c77be"
ROOT = Path(__file__).resolve().parents[1]
HEALTH = ["7", "86"]  # 4^7 - 1 / 3 villages, 86 steps: 469,560 tasks
med = lambda xs: float(np.median(xs))  # noqa: E731


def old_converter():
    """events_to_trace as of commit BEFORE, or None outside a git checkout."""
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{BEFORE}:probperf/record/convert.py"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader("probperf.record._convert_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "probperf.record"
    exec(compile(source, f"{BEFORE}:convert.py", "exec"), module.__dict__)
    return module.events_to_trace


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def conversion(bins: Path, reps: int) -> None:
    print("\n## 1. conversion of one trace (best of --reps; seconds)")
    old = old_converter()
    print(f"{'program':>16} {'p':>2} {'tasks':>8} {'events':>9} {'now':>7} {'before':>8} {'speed-up':>9}"
          f" {'same metrics':>12} {'identity':>9}")
    for name, p in (("health", 1), ("health", 2), ("health_untied", 1), ("health_untied", 2)):
        _, _, events = run_program([str(bins / name), *HEALTH], p)
        t_new, trace = best_time(lambda: events_to_trace(events, p), reps)
        m = dag_metrics(trace)
        ident = abs(m["work"] + m["delay"] + m["no_work"] - p * m["time"]) / (p * m["time"])
        t_old, same = float("nan"), "-"
        if old is not None and name == "health":
            t_old, before = best_time(lambda: old(events, p), 1)
            same = str(dag_metrics(before) == m)
        print(f"{name:>16} {p:>2} {int(m['create_task']):>8} {events.n_events:>9} {t_new:>7.2f} "
              f"{t_old:>8.2f} {t_old / t_new:>8.1f}x {same:>12} {ident:>9.1e}")
    if old is None:
        print(f"(not a git checkout: the converter of {BEFORE} is not available)")


def overhead(bins: Path, pairs: int) -> None:
    print("\n## 2. tracing overhead (medians of --pairs alternated untraced/traced runs)")
    print(f"{'program':>24} {'p':>2} {'tasks':>7} {'untraced s':>10} {'traced s':>9} {'overhead':>9} "
          f"{'wall ovh':>9} {'CPU ovh':>8}")
    for cmd in (["fib", "40", "18"], ["fib_untied", "40", "18"], ["health", "6", "40"],
                ["health_untied", "6", "40"]):
        cmd = [str(bins / cmd[0]), *cmd[1:]]
        for p in (1, 2):
            raw = []
            for i in range(pairs):
                a = run_program(cmd, p, events=bool(i % 2))
                b = run_program(cmd, p, events=not i % 2)
                raw.append((b, a) if i % 2 else (a, b))
            base = [_untraced_result(cmd, p, *u) for u, _ in raw]
            runs = [_traced_result(cmd, p, *t) for _, t in raw]
            u = {k: med([b[k] for b in base]) for k in ("elapsed", "wall", "cpu")}
            t = {"elapsed": med([r.metrics["time"] for r in runs]), "wall": med([r.wall for r in runs]),
                 "cpu": med([r.cpu for r in runs])}
            label = " ".join([Path(cmd[0]).name, *cmd[1:]])
            print(f"{label:>24} {p:>2} {int(runs[0].metrics['create_task']):>7} {u['elapsed']:>10.4f} "
                  f"{t['elapsed']:>9.4f} {t['elapsed'] / u['elapsed'] - 1:>+9.1%} "
                  f"{t['wall'] / u['wall'] - 1:>+9.1%} {t['cpu'] / u['cpu'] - 1:>+8.1%}")


POLICIES = {"default (active)": {}, "KMP_BLOCKTIME=0": {"KMP_BLOCKTIME": "0"},
            "passive": {"OMP_WAIT_POLICY": "passive"}}


def wait_policy(bins: Path, reps: int) -> None:
    print("\n## 3. wait policy (medians of --reps traced runs, policies interleaved; seconds)")
    print(f"{'program':>14} {'p':>2} {'policy':>17} {'time':>7} {'work':>7} {'delay':>7} "
          f"{'no_work':>7} {'CPU':>7}")
    for cmd in (["fib", "38", "16"], ["health", "6", "40"]):
        cmd = [str(bins / cmd[0]), *cmd[1:]]
        for p in (1, 2):
            runs = {name: [] for name in POLICIES}
            for _ in range(reps):
                for name, env in POLICIES.items():
                    record_run.WAIT_POLICY = env
                    runs[name].append(_traced_result(cmd, p, *run_program(cmd, p)))
            record_run.WAIT_POLICY = {}
            for name, rs in runs.items():
                m = {k: med([r.metrics[k] for r in rs]) for k in ("time", "work", "delay", "no_work")}
                print(f"{' '.join([Path(cmd[0]).name, *cmd[1:]]):>14} {p:>2} {name:>17} {m['time']:>7.4f} "
                      f"{m['work']:>7.4f} {m['delay']:>7.4f} {m['no_work']:>7.4f} "
                      f"{med([r.cpu for r in rs]):>7.4f}")


INPUTS = {"fib": ["36", "24"], "nqueens": ["11", "2"], "mergesort": ["2000000", "65536", "131072"],
          "sparselu": ["12", "64"], "strassen": ["512", "64"], "health": ["6", "30"]}


def tied_untied(bins: Path, pairs: int) -> None:
    print("\n## 4. tied vs untied (--pairs interleaved pairs of traced and of untraced runs; work in"
          " seconds, medians; ratios untied/tied per pair: median [min, max])")
    print(f"{'program':>10} {'p':>2} {'tasks tied':>10} {'untied':>7} {'waits tied':>10} {'untied':>7} "
          f"{'work tied':>9} {'untied':>7} {'work ratio':>19} {'us/task':>8} {'untraced ratio':>19} "
          f"{'events/task tied':>16} {'untied':>6}")
    span = lambda r: f"{med(r):.2f} [{min(r):.2f}, {max(r):.2f}]"  # noqa: E731
    for name, args in INPUTS.items():
        for p in (1, 2):
            kinds = (name, name + "_untied")
            runs, plain, n_events = ({kind: [] for kind in kinds} for _ in range(3))
            for _ in range(pairs):  # interleaved, so both builds of a pair see the same load
                for kind in kinds:
                    cmd = [str(bins / kind), *args]
                    wall, cpu, events = run_program(cmd, p)
                    runs[kind].append(_traced_result(cmd, p, wall, cpu, events).metrics)
                    n_events[kind].append(events.n_events)
                    plain[kind].append(_untraced_result(cmd, p, *run_program(cmd, p, events=False)))
            t, u = ({k: med([m[k] for m in runs[kind]]) for k in ("create_task", "wait_tasks", "work")}
                    for kind in kinds)
            work_ratio = [b["work"] / a["work"] for a, b in zip(*runs.values())]
            elapsed_ratio = [b["elapsed"] / a["elapsed"] for a, b in zip(*plain.values())]
            print(f"{name:>10} {p:>2} {int(t['create_task']):>10} {int(u['create_task']):>7} "
                  f"{int(t['wait_tasks']):>10} {int(u['wait_tasks']):>7} {t['work']:>9.4f} "
                  f"{u['work']:>7.4f} {span(work_ratio):>19} "
                  f"{(u['work'] - t['work']) / t['create_task'] * 1e6:>8.2f} {span(elapsed_ratio):>19} "
                  f"{med(n_events[name]) / t['create_task']:>16.1f} "
                  f"{med(n_events[name + '_untied']) / u['create_task']:>6.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    tool_path()  # build outside the timed runs
    with tempfile.TemporaryDirectory() as tmp:
        bins = Path(tmp)
        build_benchmarks(bins)
        conversion(bins, args.reps)
        overhead(bins, args.pairs)
        wait_policy(bins, args.reps)
        tied_untied(bins, args.pairs)


if __name__ == "__main__":
    from _report import report

    with report("bench_record"):
        main()
