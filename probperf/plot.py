"""Figures: prediction bands against measured points, actual-vs-predicted.

Matplotlib with the Agg backend (no screen needed); every function draws on an ``ax``
it is given or creates one, and returns the figure.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .data import Measurements


def _axes(ax):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    return ax.figure, ax


def sweep(model, vs: str, at: Mapping, lo: float | None = None, hi: float | None = None, num: int = 40) -> pd.DataFrame:
    """Points along ``vs`` (log-spaced for ``n``, every integer for ``p`` up to 64 values),
    other parameters fixed at ``at`` (or the model's constant defaults)."""
    ranges = getattr(model, "train_ranges_", {})
    lo = lo if lo is not None else ranges.get(vs, [1, 1])[0]
    hi = hi if hi is not None else max(float(at.get(vs, lo)), ranges.get(vs, [lo, lo])[1])
    if vs == "p":
        grid = np.unique(np.round(np.geomspace(max(lo, 1), max(hi, 1), num=min(num, int(hi - lo) + 1))))
    else:
        grid = np.geomspace(lo, hi, num=num)
    points = {k: v for k, v in at.items() if k != vs}
    for k, v in getattr(model, "defaults_", {}).items():
        points.setdefault(k, v)
    points[vs] = grid
    return pd.DataFrame({k: np.broadcast_to(np.asarray(v, dtype=float), grid.shape) for k, v in points.items()})


def plot_band(model, vs: str = "n", at: Mapping | None = None, data: Measurements | None = None,
              levels=(0.5, 0.9), n_draws: int = 500, ax=None, title: str | None = None):
    """Median and central bands of predicted time along ``n`` or ``p``.

    Parameters
    ----------
    model : fitted DagModel, DirectModel or PenaltyModel
    vs : {"n", "p"}
        The axis to sweep; other parameters are fixed at ``at``.
    at : mapping
        Values of the other parameters (and the sweep's end, if beyond training).
    data : Measurements, optional
        Measured runs to draw as points (those matching ``at`` on the fixed parameters).
    levels : tuple of float
        Interval levels to shade.

    Examples
    --------
    >>> import probperf.plot as pl                             # doctest: +SKIP
    >>> fig = pl.plot_band(model, vs="p", at={"n": 2**22, "p": 36})  # doctest: +SKIP
    """
    if vs not in ("n", "p"):
        raise ValueError(f"vs must be 'n' or 'p', got {vs!r}")
    at = dict(at or {})
    pts = sweep(model, vs, at)
    pred = model.predict(pts, n_draws=n_draws)
    fig, ax = _axes(ax)
    x = pts[vs].to_numpy()
    for level, alpha in zip(sorted(levels, reverse=True), (0.18, 0.35, 0.5)):
        lo, hi = pred.interval(level)
        ax.fill_between(x, lo, hi, color="C0", alpha=alpha, lw=0, label=f"{level:.0%} interval")
    ax.plot(x, pred.median, color="C0", lw=2, label="median")
    if data is not None:
        _measured(ax, data, vs, pts.iloc[0].to_dict())
    ranges = getattr(model, "train_ranges_", {})
    if vs in ranges:
        ax.axvline(ranges[vs][1], color="gray", ls=":", lw=1, label="largest training value")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(vs)
    unit = getattr(model, "unit_", "s")
    ax.set_ylabel(f"time [{unit}]")
    fixed = ", ".join(f"{k}={_fmt(v)}" for k, v in pts.iloc[0].items() if k != vs)
    ax.set_title(title or f"predicted time vs {vs} ({fixed})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _measured(ax, data: Measurements, vs: str, fixed: Mapping):
    frame = data.frame
    mask = np.ones(len(frame), dtype=bool)
    for k, v in fixed.items():
        if k != vs and k in frame:
            mask &= np.isclose(frame[k].to_numpy(dtype=float), float(v))
    if mask.any() and "time" in frame:
        sub = frame[mask]
        ax.scatter(sub[vs], sub["time"], color="k", s=14, zorder=3, label="measured")


def plot_actual_vs_predicted(actual, pred, level: float = 0.9, ax=None, label: str | None = None):
    """Predicted median with ``level`` error bars against measured values (log-log)."""
    fig, ax = _axes(ax)
    actual = np.asarray(actual, dtype=float)
    lo, hi = pred.interval(level)
    med = pred.median
    ax.errorbar(actual, med, yerr=[med - lo, hi - med], fmt="o", ms=3, alpha=0.7, label=label)
    lim = [min(actual.min(), lo.min()), max(actual.max(), hi.max())]
    ax.plot(lim, lim, "k--", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured")
    ax.set_ylabel(f"predicted (median, {level:.0%} interval)")
    if label:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _fmt(v) -> str:
    v = float(v)
    if v.is_integer() and v >= 1024 and (int(v) & (int(v) - 1)) == 0:
        return f"2^{int(np.log2(v))}"
    return f"{v:g}"
