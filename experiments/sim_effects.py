"""The qualitative effects the papers report, in simulated data: one PNG per effect.

1. ``work_inflation.png``: work(n, p) / serial_work(n) grows with p (contention);
2. ``no_work_quadratic.png``: no_work of inputs with little parallelism (sparselu at
   small n) against p - 1, with least-squares fits of ``c (p-1)^2`` (the 2016 paper's
   eq. 15) and ``c (p-1)`` (Graham's bound), fitted on the workers up to the input's
   average parallelism ``T1' / T_inf`` and on all of them (the errors are printed);
3. ``delay_vs_create.png``: delay grows with the tasks created and, per task, with the
   workers while a growing share of the continuations is stolen (runtime overheads and
   steals), though slower than in proportion to p; it levels off, then falls somewhat,
   once nearly every continuation is stolen (sparselu): the slope of
   log(delay / create_task) against log p is printed per program.

Also prints the numbers behind each figure.

    python experiments/sim_effects.py -o figures/sim [--seed 0] [--quick]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from probperf import sim  # noqa: E402
from probperf.limits import MAX_SIM_SEED  # noqa: E402

P = [1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36]

CASES = {
    # (app, n, config) chosen to simulate in seconds
    "sort": ("sort", 2**17, {}),
    "fft": ("fft", 2**14, {}),
    "fib": ("fib", 28, {"cutoff": 10}),
    "strassen": ("strassen", 512, {"cutoff": 64}),
    "sparselu": ("sparselu", 12, {"block": 30}),
}
LOW_PARALLELISM = {
    "sparselu n=10": ("sparselu", 10, {"block": 30}),
    "sparselu n=14": ("sparselu", 14, {"block": 30}),
    "sparselu n=20": ("sparselu", 20, {"block": 30}),
}


def frames(cases, seed, quick):
    out = {}
    ps = P[::2] if quick else P
    for label, (app, n, cfg) in cases.items():
        out[label] = sim.generate(app, [n], ps, config=cfg, seed=seed).frame
    return out


def work_inflation(data, path):
    fig, ax = plt.subplots(figsize=(6, 4))
    print(f"work / serial_work at p = {_at_p(data)}")
    for label, f in data.items():
        ratio = f["work"] / f["serial_work"]
        ax.plot(f["p"], ratio, marker="o", label=label)
        print(f"  {label:10s}", " ".join(f"{r:.3f}" for r in ratio))
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("workers p")
    ax.set_ylabel("work(n, p) / serial_work(n)")
    ax.set_title("Work inflation with workers")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _fit(x, y):
    """Least-squares c for y = c x (through the origin)."""
    return float(x @ y / (x @ x))


def _fit_errors(q, y):
    """Relative RMS errors of the least-squares fits ``c (p-1)^2`` and ``c (p-1)``."""
    return [np.sqrt(np.mean((_fit(q**k, y) * q**k - y) ** 2)) / np.mean(y) for k in (2, 1)]


def no_work_quadratic(data, path):
    fig, axes = plt.subplots(1, len(data), figsize=(4 * len(data), 3.6))
    print("no_work vs p: relative RMS error of c (p-1)^2 and c (p-1) fits, "
          "on the workers up to the average parallelism and on all")
    for ax, (label, f) in zip(np.atleast_1d(axes), data.items()):
        q = (f["p"] - 1).to_numpy(dtype=float)
        y = f["no_work"].to_numpy()
        parallelism = float(f["serial_work"].iloc[0] / f["critical_path"].iloc[0])
        below = f["p"].to_numpy() <= parallelism
        ax.plot(q, y * 1e3, "o", label="simulated")
        ax.axvline(parallelism - 1, color="grey", lw=0.8, label="T1'/T_inf - 1")
        grid = np.linspace(0, q.max(), 100)
        for power, style in ((2, "-"), (1, "--")):
            ax.plot(grid, _fit(q**power, y) * grid**power * 1e3, style, label=f"c (p-1)^{power}")
        up_to, every = _fit_errors(q[below], y[below]), _fit_errors(q, y)
        print(f"  {label:15s} parallelism {parallelism:4.1f}: up to it quadratic {up_to[0]:.3f} "
              f"linear {up_to[1]:.3f}; all p quadratic {every[0]:.3f} linear {every[1]:.3f}")
        ax.set_title(label)
        ax.set_xlabel("p - 1")
        ax.set_ylabel("no_work (ms)")
        ax.legend(fontsize=8)
    fig.suptitle("no_work when parallelism is low: steeper below it, slower beyond")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def delay_vs_create(data, clock_hz, path):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    print(f"delay / create_task (cycles) at p = {_at_p(data)}")
    for label, f in data.items():
        per_task = f["delay"] * clock_hz / f["create_task"]
        axes[0].plot(f["p"], per_task, marker="o", label=label)
        axes[1].loglog(f["create_task"] * f["p"], f["delay"], "o", label=label)
        slope = np.polyfit(np.log(f["p"]), np.log(per_task), 1)[0]  # 1 would be "in proportion to p"
        print(f"  {label:10s}", " ".join(f"{v:.0f}" for v in per_task), f"(log-log slope in p {slope:.2f})")
    axes[0].set_xlabel("workers p")
    axes[0].set_ylabel("delay / create_task (cycles)")
    axes[0].set_title("Delay per created task against p")
    axes[1].set_xlabel("create_task * p")
    axes[1].set_ylabel("delay (s)")
    axes[1].set_title("delay against create_task * p")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _seed(text: str) -> int:
    """``--seed``: a whole number the simulator takes (probperf.limits.MAX_SIM_SEED)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed <= MAX_SIM_SEED:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to {MAX_SIM_SEED}")
    return seed


def _at_p(data) -> str:
    """The worker counts of the tables, as the printed numbers' header says them."""
    return ", ".join(str(int(p)) for p in next(iter(data.values()))["p"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True, type=Path, help="directory for the PNGs")
    ap.add_argument("--seed", type=_seed, default=0, help=f"simulator seed, 0 to {MAX_SIM_SEED}")
    ap.add_argument("--quick", action="store_true", help="every other worker count")
    args = ap.parse_args(argv)
    if args.output.exists() and not args.output.is_dir():
        ap.error(f"-o {args.output}: is a file; give a directory for the PNGs")
    args.output.mkdir(parents=True, exist_ok=True)
    data = frames(CASES, args.seed, args.quick)
    low = frames(LOW_PARALLELISM, args.seed, args.quick)
    work_inflation(data, args.output / "work_inflation.png")
    no_work_quadratic(low, args.output / "no_work_quadratic.png")
    delay_vs_create(data, sim.Machine().clock_hz, args.output / "delay_vs_create.png")
    print(f"wrote 3 figures to {args.output}")


if __name__ == "__main__":
    main()
