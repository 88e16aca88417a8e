"""How accuracy is judged: extrapolation splits, error and calibration metrics.

Every metric takes a :class:`~probperf.predict.Predictive` (joint draws x points) and
the true values at its points, and is vectorised over points. The conventions:

* point errors use the **median** of the draws (robust to heavy right tails);
* percentages are in percent (``ape`` of 2.0 means 2 %);
* an interval at ``level`` is the central, equal-tailed one of
  :meth:`Predictive.interval`, boundaries included;
* CRPS is in the metric's own unit; :func:`score` also reports it relative to the truth
  so that cases of very different magnitude can be averaged.

Splits follow the thesis: train on small ``n`` and few workers; ``test1`` = larger ``n``,
``test2`` = more workers, ``test3`` = both.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .data import Measurements, MeasurementError
from .predict import Predictive, _quantiles

#: Interval levels of :func:`calibration_curve` when none are given.
DEFAULT_CURVE_LEVELS: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)

SPLIT_NAMES: tuple[str, ...] = ("train", "test1", "test2", "test3")


# -- input checks ------------------------------------------------------------------


def _draws(pred) -> np.ndarray:
    """The (draws x points) matrix of a Predictive (or of a raw array), NaN-free."""
    if isinstance(pred, Measurements):  # score(runs, pred): the arguments swapped
        raise TypeError("the prediction comes first: score(pred, y), with y the measured runs or values")
    draws = pred.draws if isinstance(pred, Predictive) else Predictive(pred).draws
    if not np.all(np.isfinite(draws)):
        point = int(np.flatnonzero(~np.all(np.isfinite(draws), axis=0))[0])
        raise ValueError(f"the predictive draws hold NaN or infinite values (point {point})")
    return draws


def _truth(y, n_points: int) -> np.ndarray:
    """True values as a float vector with one value per predicted point; booleans and
    text are refused (numpy would read True as 1 and "2.5" as 2.5)."""
    raw = np.asarray(y)
    if raw.dtype.kind in "bUS" or (raw.dtype.kind == "O" and any(
            isinstance(v, (bool, np.bool_, str, bytes)) for v in raw.ravel())):
        raise TypeError(f"y must be the measured values as numbers (or the runs, a Measurements), got {y!r:.60}")
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.shape[0] != n_points:
        raise ValueError(
            f"shape mismatch: the prediction has {n_points} points but y has {y.shape[0]} values"
        )
    bad = ~np.isfinite(y)
    if bad.any():
        raise ValueError(f"y holds NaN or infinite values (index {int(np.flatnonzero(bad)[0])})")
    return y


def _pair(pred, y) -> tuple[np.ndarray, np.ndarray]:
    draws = _draws(pred)
    if isinstance(y, Measurements):  # the measured runs: their values of the predicted metric, in its unit
        unit = getattr(pred, "unit", None)
        y = y.in_unit(unit) if unit is not None else y
        if unit is not None and y.unit != unit:
            raise ValueError(f"the measurements are in {y.unit}, the prediction in {unit}: give them in one unit")
        y = y.y(getattr(pred, "name", None) or "time")
    return draws, _truth(y, draws.shape[1])


def _levels(levels) -> list[float]:
    """Interval levels, each checked; one level may be given alone (a string is one
    level, refused, not the levels of its characters)."""
    one = np.ndim(levels) == 0 or isinstance(levels, (str, bytes))
    return [_check_level(level) for level in ([levels] if one else levels)]


def _check_level(level: float) -> float:
    if isinstance(level, (str, bool)):  # "0.9" or True is a slip, as Predictive.interval says
        raise TypeError(f"interval level must be a number in (0, 1), got {level!r}")
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"interval level must be in (0, 1), got {level!r}")
    return level


def _interval(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    level = _check_level(level)
    lo, hi = _quantiles(draws, [(1 - level) / 2, (1 + level) / 2])  # as Predictive.interval
    return lo, hi


# -- point error -------------------------------------------------------------------


def ape(pred, y) -> np.ndarray:
    """Absolute percentage error of the median prediction, per point.

    ``100 * |median - y| / |y|``.

    Parameters
    ----------
    pred : Predictive or array of shape (draws, points)
    y : array-like of shape (points,)
        True values; must be non-zero.

    Returns
    -------
    numpy.ndarray of shape (points,), in percent.

    Examples
    --------
    >>> pred = Predictive([[9.0, 30.0], [11.0, 50.0], [10.0, 40.0]])
    >>> ape(pred, [8.0, 50.0]).tolist()
    [25.0, 20.0]
    """
    draws, y = _pair(pred, y)
    if np.any(y == 0):
        raise ValueError(f"y is zero at index {int(np.flatnonzero(y == 0)[0])}; APE is undefined")
    return 100.0 * np.abs(np.median(draws, axis=0) - y) / np.abs(y)


def median_ape(pred, y) -> float:
    """Median over points of :func:`ape` (percent).

    Examples
    --------
    >>> median_ape(Predictive([[9.0, 30.0, 1.0]]), [10.0, 40.0, 1.0])
    10.0
    """
    return float(np.median(ape(pred, y)))


# -- intervals ---------------------------------------------------------------------


def coverage(pred, y, level: float = 0.9) -> float:
    """Fraction of true values inside the central ``level`` interval (ends included).

    A calibrated model has coverage close to ``level``; much lower means overconfident.

    Examples
    --------
    >>> draws = np.tile(np.arange(101.0)[:, None], (1, 3))   # uniform on 0..100
    >>> coverage(draws, [50.0, 96.0, 4.0], level=0.9)
    0.3333333333333333
    """
    draws, y = _pair(pred, y)
    lo, hi = _interval(draws, level)
    return float(np.mean((y >= lo) & (y <= hi)))


def interval_width(pred, level: float = 0.9, relative: bool = True) -> float:
    """Mean width of the central ``level`` interval.

    With ``relative`` (default) each width is divided by the point's predicted median,
    so the figure is comparable across problem sizes (0.2 = the interval spans 20 % of
    the prediction). Points whose median is zero make the relative width undefined.

    Examples
    --------
    >>> draws = np.tile(np.arange(101.0)[:, None], (1, 2)) + [0.0, 50.0]
    >>> interval_width(draws, 0.5, relative=False)
    50.0
    >>> interval_width(draws, 0.5)                          # 50/50 and 50/100
    0.75
    """
    if not isinstance(relative, (bool, np.bool_)):  # "no" is truthy
        raise TypeError(f"relative must be True or False, got {relative!r}")
    draws = _draws(pred)
    lo, hi = _interval(draws, level)
    width = hi - lo
    if not relative:
        return float(np.mean(width))
    median = np.median(draws, axis=0)
    if np.any(median == 0):
        raise ValueError("a predicted median is zero; use relative=False")
    return float(np.mean(width / np.abs(median)))


def calibration_curve(pred, y, levels: Sequence[float] = DEFAULT_CURVE_LEVELS) -> pd.DataFrame:
    """Empirical coverage against nominal level, one row per level.

    Columns: ``level``, ``coverage`` (fraction of truths inside), ``width`` (mean
    relative width, see :func:`interval_width`). A calibrated model lies on the
    diagonal ``coverage == level``.

    Examples
    --------
    >>> draws = np.tile(np.arange(101.0)[:, None], (1, 4))
    >>> calibration_curve(draws, [50, 30, 10, 1], levels=[0.5, 0.9])["coverage"].tolist()
    [0.5, 0.75]
    """
    draws, y = _pair(pred, y)
    rows = []
    median = np.median(draws, axis=0)
    for level in _levels(levels):
        lo, hi = _interval(draws, level)
        with np.errstate(divide="ignore", invalid="ignore"):
            width = float(np.mean((hi - lo) / np.abs(median)))
        rows.append(
            {"level": float(level), "coverage": float(np.mean((y >= lo) & (y <= hi))), "width": width}
        )
    return pd.DataFrame(rows, columns=["level", "coverage", "width"])


# -- proper scores -----------------------------------------------------------------


def crps(pred, y) -> np.ndarray:
    """Continuous ranked probability score of the draws' empirical distribution, per point.

    ``CRPS = E|X - y| - E|X - X'| / 2`` with ``X, X'`` independent draws. The second
    term is computed from the sorted draws ``x_(1) <= ... <= x_(S)`` as
    ``E|X - X'| = 2 / S**2 * sum_i (2i - S - 1) x_(i)``, so the cost per point is
    ``O(S log S)`` rather than ``O(S**2)``. It is the exact CRPS of the empirical
    distribution (pairs of the same draw included), so a point mass at ``x`` scores
    exactly ``|x - y|``. Lower is better; the unit is that of ``y``.

    Examples
    --------
    >>> crps(Predictive([[3.0, 1.0]]), [5.0, 1.0]).tolist()
    [2.0, 0.0]
    >>> float(crps(Predictive([[0.0], [1.0]]), [0.0])[0])   # 0.5 - 0.5 * 0.5
    0.25
    """
    draws, y = _pair(pred, y)
    n = draws.shape[0]
    to_truth = np.mean(np.abs(draws - y), axis=0)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    weights = (2.0 * ranks - n - 1.0)[:, None]
    spread = 2.0 / n**2 * np.sum(weights * np.sort(draws, axis=0), axis=0)
    return to_truth - 0.5 * spread


def nlpd(pred, y, scale: str = "log") -> np.ndarray:
    """Negative log predictive density of the truths, per point (nats).

    The density is a Gaussian kernel density estimate of the draws (Silverman's
    bandwidth, ``0.9 min(sd, IQR/1.34) S**(-1/5)``). With ``scale="log"`` (the default;
    performance metrics are positive and right-skewed) the KDE is built on the log of
    the draws and carried back with the Jacobian: ``-log p(y) = -log p_log(log y) +
    log y``, so values are comparable with densities on the original scale. Use
    ``scale="linear"`` for quantities that can be zero or negative.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> draws = rng.lognormal(0.0, 0.25, size=(4000, 1))
    >>> exact = 0.5 * np.log(2 * np.pi * 0.25**2)          # at y = 1, log y = 0
    >>> bool(abs(nlpd(draws, [1.0])[0] - exact) < 0.05)
    True
    """
    draws, y = _pair(pred, y)
    if scale not in ("log", "linear"):
        raise ValueError(f"scale must be 'log' or 'linear', got {scale!r}")
    jacobian = np.zeros_like(y)
    if scale == "log":
        if np.any(draws <= 0):
            raise ValueError("nlpd(scale='log') needs positive draws; use scale='linear'")
        if np.any(y <= 0):
            raise ValueError("nlpd(scale='log') needs positive true values; use scale='linear'")
        draws, jacobian, y = np.log(draws), np.log(y), np.log(y)
    n = draws.shape[0]
    sd = draws.std(axis=0, ddof=1) if n > 1 else np.zeros(draws.shape[1])
    q75, q25 = np.quantile(draws, [0.75, 0.25], axis=0)
    spread = np.minimum(sd, (q75 - q25) / 1.34)
    spread = np.where(spread > 0, spread, sd)
    # A degenerate (point-mass) predictive still needs a finite bandwidth; a tiny one
    # makes the score huge unless the truth sits on the mass, which is the right verdict.
    floor = 1e-9 * np.maximum(1.0, np.abs(np.median(draws, axis=0)))
    h = np.maximum(0.9 * spread * n ** (-0.2), floor)
    z = (y - draws) / h
    log_kernel = -0.5 * z**2
    peak = log_kernel.max(axis=0)
    log_mean = peak + np.log(np.mean(np.exp(log_kernel - peak), axis=0))
    log_density = log_mean - np.log(h) - 0.5 * np.log(2 * np.pi)
    return -(log_density - jacobian)


def score(pred, y, levels: Sequence[float] = (0.5, 0.9)) -> dict:
    """All the accuracy figures of docs/concepts.md for one prediction, as a flat dict.

    Keys: ``n_points``, ``median_ape`` (percent), ``mean_ape`` (percent), ``crps``
    (mean, unit of ``y``), ``crps_rel`` (mean of ``crps / |y|``), ``nlpd`` (mean, log
    scale KDE; NaN if draws or truths are not all positive), and per level ``L``
    ``coverage_<100L>`` and ``width_<100L>`` (e.g. ``coverage_90``).

    Examples
    --------
    >>> s = score(Predictive([[9.0, 21.0], [11.0, 19.0], [10.0, 20.0]]), [10.0, 25.0])
    >>> s["median_ape"], s["coverage_90"]
    (10.0, 0.5)

    ``y`` may be the measured runs themselves (a :class:`Measurements` table, its
    values of the predicted metric; cycle counts with a clock rate are converted for
    a prediction in seconds, other units refused):

    >>> runs = Measurements({"n": [1, 2], "p": [1, 1], "time": [2e10, 5e10]}, unit="cycles", clock_hz=2e9)
    >>> score(Predictive([[9.0, 21.0], [11.0, 19.0], [10.0, 20.0]], unit="s"), runs, levels=0.9)["coverage_90"]
    0.5
    """
    draws, y = _pair(pred, y)
    levels = _levels(levels)
    apes = ape(draws, y)
    point_crps = crps(draws, y)
    out = {
        "n_points": int(y.shape[0]),
        "median_ape": float(np.median(apes)),
        "mean_ape": float(np.mean(apes)),
        "crps": float(np.mean(point_crps)),
        "crps_rel": float(np.mean(point_crps / np.abs(y))),
    }
    positive = np.all(draws > 0) and np.all(y > 0)
    out["nlpd"] = float(np.mean(nlpd(draws, y))) if positive else float("nan")
    for level in levels:
        tag = _level_tag(level)
        out[f"coverage_{tag}"] = coverage(draws, y, level)
        out[f"width_{tag}"] = interval_width(draws, level)
    return out


def _level_tag(level: float) -> str:
    """0.9 -> '90', 0.975 -> '97.5'."""
    return f"{100 * _check_level(level):.10g}"


# -- splits ------------------------------------------------------------------------


def extrapolation_splits(
    measurements: Measurements, n_max: float, p_max: float | None = None
) -> dict[str, Measurements]:
    """Split a table with no split column into train and the three extrapolation tests.

    ``train``: ``n <= n_max`` and ``p <= p_max``; ``test1``: larger ``n``, few workers;
    ``test2``: small ``n``, more workers; ``test3``: larger ``n`` and more workers.
    ``p_max=None`` puts every worker count on the "few" side (no test2/test3). Test
    splits that would be empty are left out of the result.

    Raises
    ------
    MeasurementError
        If the training split or every test split is empty.

    Examples
    --------
    >>> m = Measurements({"n": [1, 1, 2, 2], "p": [1, 4, 1, 4], "time": [1., .4, 2., .7]})
    >>> {k: len(v) for k, v in extrapolation_splits(m, n_max=1, p_max=2).items()}
    {'train': 1, 'test1': 1, 'test2': 1, 'test3': 1}
    """
    measurements.require("n")  # the splits are by size: a table read without one says how to give it
    frame = measurements.frame
    small_n = frame["n"].to_numpy() <= n_max
    few_p = np.ones(len(frame), dtype=bool) if p_max is None else frame["p"].to_numpy() <= p_max
    limits = f"n <= {n_max}" + ("" if p_max is None else f" and p <= {p_max}")
    if not (small_n & few_p).any():
        raise MeasurementError(f"no training rows: no run has {limits}", measurements.source)
    n_values = {True: frame["n"][small_n].unique(), False: frame["n"][~small_n].unique()}
    p_values = {True: frame["p"][few_p].unique(), False: frame["p"][~few_p].unique()}
    sides = [(True, True), (False, True), (True, False), (False, False)]
    out = {}
    for name, (n_side, p_side) in zip(SPLIT_NAMES, sides):
        # Each split is a rectangle in (n, p), so selecting on the two value sets gives
        # exactly its rows.
        mask = (small_n == n_side) & (few_p == p_side)
        if mask.any():
            out[name] = measurements.select(
                n=sorted(n_values[n_side]), p=sorted(p_values[p_side])
            )
    if len(out) == 1:
        raise MeasurementError(f"no test rows: every run has {limits}", measurements.source)
    return out


def splits_of(measurements: Measurements) -> dict[str, Measurements]:
    """The groups of the table's ``split`` column, ``train`` first, others sorted.

    Raises
    ------
    MeasurementError
        If the table has no ``split`` column or no ``train`` rows.

    Examples
    --------
    >>> m = Measurements({"n": [1, 2, 4], "p": [1, 1, 1], "time": [1., 2., 4.],
    ...                   "split": ["train", "train", "test"]})
    >>> {k: len(v) for k, v in splits_of(m).items()}
    {'train': 2, 'test': 1}
    """
    frame = measurements.frame
    if "split" not in frame:
        raise MeasurementError(
            "the table has no 'split' column; use extrapolation_splits(m, n_max, p_max)",
            measurements.source,
            column="split",
        )
    labels = sorted(frame["split"].unique())
    if "train" not in labels:
        raise MeasurementError(
            f"the 'split' column has no 'train' rows (labels: {labels})",
            measurements.source,
            column="split",
        )
    ordered = ["train"] + [label for label in labels if label != "train"]
    return {label: measurements.select(split=label) for label in ordered}


# -- reports ------------------------------------------------------------------------


def markdown_table(frame: pd.DataFrame, formats: dict | None = None) -> str:
    """``frame`` as a Markdown pipe table (the benchmarks' and experiments' reports);
    ``formats`` maps a column to the format spec of its numbers; a value that is not
    finite is written ``-``; a ``|`` in a header or cell is escaped (it would end the cell).

    Examples
    --------
    >>> print(markdown_table(pd.DataFrame({"case": ["gauss", "fib"], "|ape|": [2.049, np.nan]}), {"|ape|": ".1f"}))
    | case | \\|ape\\| |
    |---|---|
    | gauss | 2.0 |
    | fib | - |
    """
    formats = formats or {}
    cell = lambda v: str(v).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |", "|" + "|".join("---" for _ in frame.columns) + "|"]
    for _, row in frame.iterrows():
        cells = []
        for c in frame.columns:
            v = row[c]
            if isinstance(v, (float, np.floating)) and not np.isfinite(v):
                cells.append("-")
            elif c in formats and isinstance(v, (int, float, np.number)):
                cells.append(format(v, formats[c]))
            else:
                cells.append(cell(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
