"""Time reading 10,000 DAG Recorder .stat files with probperf.read_dag_recorder.

Target (issue 2): under 10 s. Writes the files into a temporary directory (removed
afterwards), then reads them with a glob and a file-name pattern, as a user would.

    python benchmarks/bench_read_stat.py [--files 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import probperf as pp

# The layout of a real file (../shared/examples/dag_recorder_4workers.stat), values
# filled in per run so that work + delay + no_work = P * elapsed holds exactly.
TEMPLATE = """\
create_task           = {create_task}
wait_tasks            = {create_task}
end_task              = {end_task}
work (T1)             = {work}
delay                 = {delay}
no_work               = {no_work}
critical_path (T_inf) = {critical_path}
n_workers (P)         = {p}
elapsed               = {elapsed}
T1/P                  = {t1p:.3f}
T1/P+T_inf            = {t1pinf:.3f}
T1/T_inf              = 14.384
greedy speedup        = 3.130
observed speedup      = 0.507
observed/greedy       = 0.162
task granularity      = 9601.938
interval granularity  = 3200.645
dag nodes             = 5242877
materialized nodes    = 351
compression ratio     = 0.000067
end-parent edges:
 266182 7 7 1
 1 253506 16 2
 0 8 280326 5
 1 4 9 248486
create-child edges:
 266204 0 0 0
 0 253527 0 0
 0 0 280342 0
 0 0 0 248502
"""


def make_files(root: Path, count: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = 2 ** (10 + i % 12)
        p = 1 + (i // 12) % 36
        rep = i // (12 * 36)
        work = int(n * rng.uniform(900, 1100))
        delay = int(n * rng.uniform(0, 50) * (p - 1))
        elapsed = -(-(work + delay) // p)  # ceil, so no_work >= 0
        no_work = p * elapsed - work - delay
        text = TEMPLATE.format(
            create_task=n - 1,
            end_task=n,
            work=work,
            delay=delay,
            no_work=no_work,
            critical_path=int(np.log2(n) * 1000),
            p=p,
            elapsed=elapsed,
            t1p=work / p,
            t1pinf=work / p + np.log2(n) * 1000,
        )
        (root / f"sort_n{n}_p{p}_r{rep}.stat").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        make_files(root, args.files)
        t_make = time.perf_counter() - t0
        t0 = time.perf_counter()
        m = pp.read_dag_recorder(str(root / "*.stat"), pattern="sort_n{n}_p{p}_r{rep}.stat")
        t_read = time.perf_counter() - t0
    assert len(m) == args.files
    print(f"generated {args.files} .stat files in {t_make:.2f} s")
    print(
        f"read_dag_recorder: {len(m)} files in {t_read:.2f} s "
        f"({1e6 * t_read / len(m):.0f} us/file; target < 10 s for 10,000)"
    )
    print(f"max |identity residual| = {np.nanmax(np.abs(m.identity_residual())):.3g}")


if __name__ == "__main__":
    from _report import report

    with report("bench_read_stat"):
        main()
