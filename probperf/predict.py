"""Predictive distributions as joint draws.

Every model's ``predict`` returns a :class:`Predictive`: a matrix of joint
posterior-predictive draws (draws x points). Keeping the draws, rather than a mean and
a variance, is what lets the DAG model push uncertainty through non-linear
combinations: the same draw index of every metric is one coherent possible world.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .limits import MAX_EXACT_INT


def level_text(level: float) -> str:
    """An interval level as a percentage, with the digits it has (0.9 is "90%", not a
    level of 0.9999999999 rounded to "100%").

    Examples
    --------
    >>> level_text(0.9), level_text(0.975), level_text(0.99999999999)
    ('90%', '97.5%', '99.999999999%')
    """
    return f"{level * 100:.15g}%"


def _quantiles(draws: np.ndarray, qs) -> np.ndarray:
    """``np.quantile`` over the draws (axis 0), with an infinite draw (an overflow far out)
    kept infinite: numpy's interpolation towards one computes ``inf - inf``, a NaN, where
    the quantile is that infinity.

    Examples
    --------
    >>> _quantiles(np.array([[1.0], [2.0], [np.inf], [np.inf]]), [0.5, 0.9]).ravel().tolist()
    [inf, inf]
    >>> _quantiles(np.array([[1.0], [2.0], [3.0], [np.inf]]), 0.5).tolist()
    [2.5]
    >>> _quantiles(np.array([[1.0], [2.0], [np.inf]]), 0.5).tolist()  # on the draw 2, beside inf
    [2.0]
    """
    with np.errstate(invalid="ignore"):
        q = np.quantile(draws, qs, axis=0)
    if not np.isnan(q).any():
        return q
    above, below = (np.quantile(draws, qs, axis=0, method=m) for m in ("higher", "lower"))
    q = np.where(np.isnan(q) & (below == above), below, q)  # on a draw, beside an infinite one: a + inf * 0
    q = np.where(np.isnan(q) & (above == np.inf), np.inf, q)
    return np.where(np.isnan(q) & (below == -np.inf), -np.inf, q)


def point_positions(n_points: int, idx) -> np.ndarray:
    """The positions ``idx`` (an int, a slice, a mask or positions) picks among
    ``n_points`` points, as an array; an ``IndexError`` that says so where it picks none
    that exists (numpy would speak of axes and valid indices).

    Examples
    --------
    >>> point_positions(4, slice(1, 3)).tolist(), point_positions(4, -1).tolist()
    ([1, 2], [3])
    >>> point_positions(4, True)
    Traceback (most recent call last):
    ...
    IndexError: a prediction at 4 points has no point True (points are indexed by position: an int, a slice or a mask)
    """
    refused = IndexError(f"a prediction at {n_points} points has no point {idx!r} (points are indexed by position: "
                         "an int, a slice or a mask)"[:300])
    if idx is None or isinstance(idx, (bool, np.bool_)):  # numpy reads them as a new axis, not a point
        raise refused
    try:
        out = np.atleast_1d(np.arange(n_points)[idx])
    except (IndexError, TypeError, ValueError):
        raise refused from None
    if out.ndim != 1:  # positions nested in lists ([[0]]): a table of points, not a choice of them
        raise refused
    return out


class Predictive:
    """Joint predictive draws at a set of points.

    Parameters
    ----------
    draws : array of shape (n_draws, n_points)
        Joint draws; row ``s`` is one possible world across all points.
    points : pandas.DataFrame, optional
        The parameters of each point (one row per column of ``draws``).
    name : str, optional
        What is predicted (``"time"``, ``"work"``...).
    unit : str, optional
        The unit of the draws (``"s"`` or ``"cycles"``; ``None`` for counts).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pred = Predictive(rng.normal(10.0, 1.0, size=(4000, 2)))
    >>> np.round(pred.median, 1)
    array([10., 10.])
    >>> lo, hi = pred.interval(0.9)
    >>> bool(np.all(lo < pred.median) and np.all(pred.median < hi))
    True
    """

    def __init__(self, draws, points: pd.DataFrame | None = None, name: str | None = None,
                 unit: str | None = None):
        try:
            draws = np.asarray(draws, dtype=np.float64)
        except (TypeError, ValueError):  # numpy would say "could not convert string to float"
            raise ValueError(f"draws must be numbers, a (draws x points) matrix; got {draws!r}"[:300]) from None
        if draws.ndim == 1:
            draws = draws[:, None]
        if draws.ndim != 2 or draws.shape[0] < 1:
            raise ValueError(f"draws must be a (draws x points) matrix, got shape {draws.shape}")
        points = None if points is None else pd.DataFrame(points).reset_index(drop=True)
        if points is not None and len(points) != draws.shape[1]:
            raise ValueError(
                f"{len(points)} points but draws have {draws.shape[1]} columns"
            )
        self.draws = draws
        self.points = points
        self.name = name
        self.unit = unit

    @property
    def n_draws(self) -> int:
        return self.draws.shape[0]

    @property
    def n_points(self) -> int:
        return self.draws.shape[1]

    @property
    def mean(self) -> np.ndarray:
        """Posterior-predictive mean per point."""
        return self.draws.mean(axis=0)

    @property
    def median(self) -> np.ndarray:
        """Posterior-predictive median per point."""
        return np.median(self.draws, axis=0)

    @property
    def std(self) -> np.ndarray:
        """Posterior-predictive standard deviation per point."""
        return self.draws.std(axis=0, ddof=1) if self.n_draws > 1 else np.zeros(self.n_points)

    def quantile(self, q) -> np.ndarray:
        """Quantile(s) per point; ``q`` scalar gives (points,), a sequence (len(q), points).

        Examples
        --------
        >>> pred = Predictive(np.arange(1.0, 102.0)[:, None] * [1.0, 2.0])  # draws 1..101, and twice them
        >>> pred.quantile(0.5).tolist()
        [51.0, 102.0]
        >>> pred.quantile([0.1, 0.9]).tolist()
        [[11.0, 22.0], [91.0, 182.0]]
        """
        try:  # text is not a number here, as for interval's level
            qs = np.array(np.nan) if isinstance(q, (str, bytes)) else np.asarray(q, dtype=np.float64)
        except (TypeError, ValueError):
            qs = np.array(np.nan)
        if not np.all((qs >= 0) & (qs <= 1)):  # NaN fails too
            raise ValueError(f"q must be a number or numbers in [0, 1], got {q!r}")
        return _quantiles(self.draws, qs)

    def interval(self, level: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
        """Central (equal-tailed) interval holding ``level`` of the predictive mass.

        Examples
        --------
        >>> pred = Predictive(np.arange(1.0, 102.0)[:, None] * [1.0, 2.0])  # draws 1..101, and twice them
        >>> lo, hi = pred.interval(0.9)  # the 5 % and 95 % quantiles
        >>> lo.round(6).tolist(), hi.round(6).tolist()
        ([6.0, 12.0], [96.0, 192.0])
        """
        level = check_level(level)
        lo, hi = _quantiles(self.draws, [(1 - level) / 2, (1 + level) / 2])
        return lo, hi

    @property
    def mean_tail_k(self) -> np.ndarray:
        """Per point, the Pareto shape k of the draws' right tail (:func:`right_tail_k`):
        above :func:`mean_k_threshold` the draws' mean is not a usable estimate of the
        predictive mean. NaN where the draws cannot tell (constant, too few, not positive)."""
        return right_tail_k(self.draws)

    @property
    def mean_reliable(self) -> np.ndarray:
        """Per point, whether :attr:`mean` can be trusted (see :attr:`mean_tail_k`); an
        infinite mean (a few draws overflowed far out) never can.

        Examples
        --------
        >>> Predictive(np.c_[np.linspace(1.0, 2.0, 200), [1.0] * 199 + [np.inf]]).mean_reliable.tolist()
        [True, False]
        """
        return ~(self.mean_tail_k > mean_k_threshold(self.n_draws)) & np.isfinite(self.mean)

    def chance_smallest(self) -> np.ndarray:
        """Per point, the share of the joint draws in which its value is the smallest of
        all the points' (a tie shared among the tied points; +inf, an overflow, is the
        slowest; draws holding a NaN left out). For points that differ in one setting, cut-offs at one n
        and p say, the chance that each is the fastest: the draws are joint, one law and
        its coefficients at every point of a draw, so this compares the settings pair by
        pair, which their intervals (overlapping by what they share) cannot.

        Examples
        --------
        >>> Predictive(np.array([[1.0, 2.0, 3.0], [2.0, 1.0, 3.0], [1.0, 3.0, 2.0], [4.0, 4.0, 1.0]])).chance_smallest()
        array([0.5 , 0.25, 0.25])
        >>> Predictive(np.array([[1.0, 2.0], [1.0, np.inf], [1.0, np.inf], [3.0, 2.0]])).chance_smallest()
        array([0.75, 0.25])
        """
        draws = self.draws[~np.isnan(self.draws).any(axis=1)]
        if not len(draws):
            return np.full(self.n_points, np.nan)
        lowest = draws == draws.min(axis=1, keepdims=True)
        return (lowest / lowest.sum(axis=1, keepdims=True)).mean(axis=0)

    def sample(self, k: int, seed: int | None = None) -> np.ndarray:
        """``k`` joint draws (k x points), resampled with replacement if k > n_draws.

        Examples
        --------
        >>> pred = Predictive(np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]))
        >>> s = pred.sample(5, seed=0)
        >>> s.shape, bool(np.all(s[:, 1] == 10 * s[:, 0]))  # whole draws: the points stay paired
        ((5, 2), True)
        """
        k = whole_number(k, "k")
        rng = np.random.default_rng(whole_number(seed, "seed", none=True))
        idx = rng.choice(self.n_draws, size=k, replace=k > self.n_draws)
        return self.draws[idx]

    def map(self, fn, name: str | None = None) -> "Predictive":
        """A new Predictive with ``fn`` applied to the draws (kept joint).

        Examples
        --------
        The speedup over the first point, draw by draw:

        >>> time = Predictive(np.array([[2.0, 4.0], [3.0, 5.0]]), name="time")
        >>> speedup = time.map(lambda d: d[:, :1] / d, name="speedup")
        >>> speedup
        Predictive(speedup: 2 draws x 2 points)
        >>> speedup.draws.tolist()
        [[1.0, 0.5], [1.0, 0.6]]
        """
        if not callable(fn):
            raise TypeError(f"map takes a function of the draws, got {fn!r}"[:200])
        return Predictive(fn(self.draws), self.points, name or self.name, self.unit)

    def __getitem__(self, idx) -> "Predictive":
        """The prediction at some of the points: a position, a slice or a mask.

        Examples
        --------
        >>> Predictive(np.ones((3, 2)))[5]
        Traceback (most recent call last):
        ...
        IndexError: a prediction at 2 points has no point 5 (points are indexed by position: an int, a slice or a mask)
        """
        idx = point_positions(self.n_points, idx)
        points = None if self.points is None else self.points.iloc[idx]
        return Predictive(self.draws[:, idx], points, self.name, self.unit)

    def summary(self, level: float = 0.9) -> pd.DataFrame:
        """One row per point: its parameters, ``mean``, ``median``, ``lower``, ``upper``.

        Examples
        --------
        >>> points = pd.DataFrame({"n": [1024, 1024], "p": [1, 2]})
        >>> pred = Predictive(np.arange(1.0, 102.0)[:, None] * [1.0, 0.5], points, name="time")
        >>> pred.summary(level=0.5)
              n  p  mean  median  lower  upper  level
        0  1024  1  51.0    51.0   26.0   76.0    0.5
        1  1024  2  25.5    25.5   13.0   38.0    0.5
        """
        lo, hi = self.interval(level)
        frame = pd.DataFrame(
            {"mean": self.mean, "median": self.median, "lower": lo, "upper": hi, "level": level}
        )
        if self.points is not None:
            frame = pd.concat([_whole_columns(self.points.reset_index(drop=True)), frame], axis=1)
        return frame

    def __repr__(self) -> str:
        return f"Predictive({self.name or 'value'}: {self.n_draws} draws x {self.n_points} points)"


def _whole_columns(points: pd.DataFrame) -> pd.DataFrame:
    """``points`` with each float column whose values are all whole numbers (within
    :data:`~probperf.limits.MAX_EXACT_INT`) as integers. Why: the models check points as
    floats, and a summary that read ``p = 4.0`` would show a worker count that is none.

    Examples
    --------
    >>> _whole_columns(pd.DataFrame({"n": [1024.0, 1536.5], "p": [4.0, 8.0]})).dtypes.tolist()
    [dtype('float64'), dtype('int64')]
    """
    out = points.copy()
    for c in out.columns:
        v = out[c].to_numpy()
        if v.dtype.kind == "f" and np.all(np.isfinite(v)) and np.all(np.abs(v) <= MAX_EXACT_INT) \
                and np.all(v == np.round(v)):
            out[c] = v.astype(np.int64)
    return out


def check_level(level) -> float:
    """``level`` as a float, or a ``ValueError`` unless it is one number in (0, 1).

    Examples
    --------
    >>> check_level(0.9)
    0.9
    >>> check_level("0.9")
    Traceback (most recent call last):
    ...
    ValueError: level must be a number in (0, 1), got '0.9'
    """
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.integer, np.floating)) \
            or not 0.0 < level < 1.0:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def whole_number(value, name: str, none: bool = False):
    """``value`` as an ``int`` >= 0 (or ``None`` where ``none``), else a ``ValueError``
    naming it: a seed or a count, which numpy would refuse in words of its own.

    Examples
    --------
    >>> whole_number(3, "seed"), whole_number(None, "seed", none=True)
    (3, None)
    >>> whole_number(-1, "seed")
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number >= 0, got -1
    """
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0{' or None' if none else ''}, got {value!r}")
    return int(value)


# -- whether a mean of draws can be trusted ------------------------------------------

def mean_k_threshold(n_draws: int) -> float:
    """Largest Pareto k of the draws' right tail at which their mean estimates the
    predictive mean usefully: ``min(1 - 1/log10(S), 0.7)`` for S draws (Vehtari,
    Simpson, Gelman, Yao & Gabry 2024, "Pareto smoothed importance sampling", JMLR
    25(72)). Beyond it the error of a Monte Carlo mean shrinks too slowly with S to be
    trusted, and at k >= 1 the distribution has no finite mean at all. Far out, the
    law mixtures' log-scale spread grows and the draws of a time can reach that: the
    median and the interval stay sound, the mean does not.

    Examples
    --------
    >>> round(float(mean_k_threshold(1000)), 3), mean_k_threshold(10**6)
    (0.667, 0.7)
    """
    return min(1.0 - 1.0 / np.log10(max(n_draws, 2)), 0.7)


def right_tail_k(draws: np.ndarray) -> np.ndarray:
    """Per column of ``draws``, the shape k of a generalized Pareto fitted to the
    draws' right tail, as PSIS does for importance weights (Vehtari et al. 2024): the
    largest ``ceil(min(S/5, 3 sqrt(S)))`` of S draws, as exceedances over the next one.
    (ArviZ's ``psislw`` computes the same k on positive finite draws; it is not called
    because importing ArviZ takes about 2 s, the whole budget of a ``probperf predict``
    run.) inf where 1 to 4 draws stand above the rest, or a draw is not finite: the
    mean rests on them. NaN where the draws cannot tell: under 25 of them, a tail of
    equal draws (their mean is exact), or no positive draw.

    Examples
    --------
    Log-normal draws have every moment (k near 0); Pareto draws of tail index 0.8 have
    no mean (k = 1/0.8):

    >>> rng = np.random.default_rng(0)
    >>> k = right_tail_k(np.c_[np.exp(rng.normal(size=4000)), rng.pareto(0.8, 4000) + 1])
    >>> bool(k[0] < 0.4), bool(k[1] > 1)
    (True, True)
    """
    draws = np.atleast_2d(np.asarray(draws, dtype=np.float64).T).T
    S = draws.shape[0]
    tail = int(np.ceil(min(0.2 * S, 3.0 * np.sqrt(S))))
    out = np.full(draws.shape[1], np.nan)
    if tail < 5 or S <= tail:  # under 25 draws: no tail to fit
        return out
    for j, x in enumerate(draws.T):
        if not np.all(np.isfinite(x)):
            out[j] = np.inf
            continue
        if not np.max(x) > 0:
            continue
        top = np.sort(x)[-tail - 1:] / np.max(x)  # the shape is scale-free
        exceed = top[1:][top[1:] > top[0]] - top[0]
        if len(exceed) > 4:
            out[j] = _gpd_shape(exceed)
        elif len(exceed):
            out[j] = np.inf
    return out


def _gpd_shape(x: np.ndarray) -> float:
    """Shape of a generalized Pareto fitted to exceedances ``x`` (ascending, > 0): the
    posterior mean of Zhang & Stephens (2009, Technometrics 51(3)) over their grid of
    ``theta = shape / scale``, each theta with the shape that maximises the likelihood
    given it, then the weakly informative prior of Vehtari et al. (2024): 10 pseudo
    observations at k = 0.5."""
    n = len(x)
    m = 30 + int(np.sqrt(n))
    quartile = x[int(n / 4 + 0.5) - 1]
    theta = (np.sqrt(m / (np.arange(1, m + 1) - 0.5)) - 1.0) / (3.0 * quartile) - 1.0 / x[-1]
    shape = np.mean(np.log1p(theta[:, None] * x), axis=1)
    loglik = n * (np.log(theta / shape) - shape - 1.0)
    with np.errstate(over="ignore"):  # a theta far less likely than another: weight 1/inf = 0
        weight = 1.0 / np.exp(loglik[None, :] - loglik[:, None]).sum(axis=1)
    shape_hat = np.mean(np.log1p(np.sum(theta * weight) * x))
    return float((n * shape_hat + 10 * 0.5) / (n + 10))


def stack_draws(predictives: Sequence[Predictive]) -> np.ndarray:
    """(len(predictives), draws, points) array; all must share draws and points.

    Examples
    --------
    >>> a, b = Predictive(np.zeros((5, 2))), Predictive(np.ones((5, 2)))
    >>> stack_draws([a, b]).shape
    (2, 5, 2)
    """
    shapes = {p.draws.shape for p in predictives}
    if len(shapes) != 1:
        raise ValueError(f"predictives have different shapes: {sorted(shapes)}")
    return np.stack([p.draws for p in predictives])


def constant_params(frame: pd.DataFrame, features: Sequence[str]) -> dict:
    """Parameters that take one value in a training table, as plain Python scalars.

    A fitted model remembers them so a prediction point may omit them (the CLI's
    ``--at`` contract).

    Examples
    --------
    >>> constant_params(pd.DataFrame({"n": [1, 2], "p": [8, 8]}), ["n", "p"])
    {'p': 8}
    """
    out = {}
    for c in features:
        if frame[c].nunique() == 1:
            v = np.asarray(frame[c].iloc[0]).item()
            out[c] = int(v) if float(v).is_integer() else float(v)
    return out


def prediction_points(X, params: dict, features: Sequence[str], defaults: dict | None = None,
                      relations: dict | None = None) -> pd.DataFrame:
    """The points a model is asked about, completed and checked.

    ``X`` is a table/mapping of points, or ``None`` with the points given as keyword
    ``params`` (``n=2**20, p=36``), never both. Missing parameters take ``defaults``
    (the values that were constant in training); one the model does not know is
    refused (:func:`point_table`); ``n`` must be positive and ``p`` a positive integer.
    A parameter the others make in every training run (``relations``, ``p = nnodes *
    ppn``) may be left out and is worked out, as the CLI's ``--at`` does
    (:func:`probperf.models.points.complete_points`).

    Examples
    --------
    >>> prediction_points(None, {"n": 1024}, ["n", "p"], {"p": 8}).to_dict("list")
    {'n': [1024.0], 'p': [8.0]}
    >>> prediction_points({"n": [1024]}, {"p": 8}, ["n", "p"])
    Traceback (most recent call last):
    ...
    ValueError: give the points either as a table or as keywords, not both (keywords given: p)
    """
    if X is not None and params:
        raise ValueError(BOTH_WAYS.format(names=", ".join(params)))
    if X is None:
        if not params:
            raise ValueError(NO_POINTS)
        _no_metric_keywords(params, features)
        X = params
    pts = point_table(X, features, defaults, relations=relations)
    if not len(pts):
        raise ValueError(NO_ROWS)
    if "p" in pts and (np.any(pts["p"] < 1) or np.any(pts["p"] != np.round(pts["p"]))):
        raise ValueError("p must be a positive integer at every prediction point")
    if "n" in pts and np.any(pts["n"] <= 0):
        raise ValueError("n must be positive at every prediction point")
    negative = [c for c in pts if np.any(pts[c] < 0)]
    if negative:  # as in measurements (probperf.data), where a parameter is never negative
        c = negative[0]
        raise ValueError(f"{c} must not be negative at a prediction point, got {pts[c][pts[c] < 0].iloc[0]:g}")
    return pts


def _no_metric_keywords(params: dict, features: Sequence[str]) -> None:
    """Refuse a metric given as a keyword (``predict(n=64, time=3)``): a table of runs
    may carry its metrics (they are left out), but a keyword is asked for on purpose, and
    a model predicts a metric, it is not told one.

    Examples
    --------
    >>> _no_metric_keywords({"n": 64, "time": 3}, ["n", "p"])
    Traceback (most recent call last):
    ...
    ValueError: time is a metric, which the model predicts, not a parameter of the points; its parameters are n, p
    """
    from .data import LABEL_COLUMNS

    given = [k for k in params if k not in features and _not_a_parameter(k)]
    if given:
        what = "a label of runs," if given[0] in LABEL_COLUMNS else "a metric, which the model predicts,"
        raise ValueError(f"{given[0]} is {what} not a parameter of the points; its parameters are {', '.join(features)}")


#: How prediction points are refused; each is said here once.
NO_POINTS = "predict needs points: predict(n=..., p=...) or a table of points"
NO_ROWS = "predict needs points: the table of points has no rows"
BOTH_WAYS = "give the points either as a table or as keywords, not both (keywords given: {names})"
UNKNOWN_PARAM = "the model has no parameter {name!r}; its parameters are {features}"
NOT_A_NUMBER = "{name} must be a finite number at every prediction point; point {row} has {name}={value}"


def point_table(X, features: Sequence[str], defaults: dict | None = None, known_only: bool = True,
                relations: dict | None = None) -> pd.DataFrame:
    """``X`` as a float table of exactly the columns ``features``, one row per point.

    ``X`` is a DataFrame (metric and label columns such as ``time`` or ``split`` are
    not parameters and are left out), a :class:`~probperf.data.Measurements` (its
    parameters that are ``features``: a model may be fitted on some of them), a
    mapping or Series of parameter -> value(s), a list of such mappings, or a 2-D array
    whose columns are ``features`` (or those not in ``defaults``). A parameter the
    model does not know, a value that is not a finite number, or columns of different
    lengths are refused by name: each would otherwise be dropped or turn into NaN
    draws without a word. Without ``known_only`` other columns are left out (a metric
    model fitted on some of a table's columns, which ``features`` then names).

    Examples
    --------
    >>> point_table([[64, 2]], ["n", "p"]).to_dict("list")
    {'n': [64.0], 'p': [2.0]}
    >>> point_table({"n": 64, "q": 1}, ["n", "p"], {"p": 8})
    Traceback (most recent call last):
    ...
    ValueError: the model has no parameter 'q'; its parameters are n, p
    """
    defaults = defaults or {}
    pts = _as_table(X, list(features), defaults)
    twice = pts.columns[pts.columns.duplicated()]
    if len(twice):  # pandas would hand a table for the column, not its values
        raise ValueError(f"the points name the column {str(twice[0])!r} twice; give each parameter once")
    unknown = [c for c in pts.columns if c not in features and not _not_a_parameter(c) and known_only]
    if unknown:
        raise ValueError(UNKNOWN_PARAM.format(name=unknown[0], features=", ".join(features)))
    for k, v in defaults.items():
        if k not in pts:
            pts[k] = v
    if relations and any(f not in pts for f in features):  # p = nnodes * ppn: a member left out, worked out
        from .models.points import complete_points

        given = pd.DataFrame({c: _finite_numbers(pts[c], c) for c in pts if c in features})  # refused as given
        pts = complete_points(given, relations)
    missing = [f for f in features if f not in pts]
    if missing:
        raise ValueError(f"prediction points lack parameter(s) {missing}")
    if "p" in features:
        _exact_workers(pts["p"])
    return pd.DataFrame({c: _finite_numbers(pts[c], c) for c in features})


def _exact_workers(column: pd.Series) -> None:
    """Refuse a worker count beyond 2**53 by its point, as measurements are refused
    (:func:`probperf.data.read`): float64 holds no exact integer there, so ``p`` would
    be rounded (2**53 + 1 to 2**53) and predicted without a word.

    Examples
    --------
    >>> _exact_workers(pd.Series([2**53 + 1]))
    Traceback (most recent call last):
    ...
    ValueError: p = 9007199254740993 at point 1 is beyond 2**53, the largest integer held exactly
    """
    if column.dtype.kind in "iuf":  # a numeric column (the usual case): compared at once, exactly
        beyond = np.flatnonzero(np.abs(column.to_numpy()) > MAX_EXACT_INT)
        points = [(i, column.iloc[i].item()) for i in beyond[:1]]
    else:  # Python ints of any size (a dict of points): each compared as it is, before float64 rounds it
        values = (v.item() if isinstance(v, np.generic) else v for v in column)
        points = [(i, v) for i, v in enumerate(values)
                  if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > MAX_EXACT_INT][:1]
    if points:
        i, v = points[0]
        shown = _value_text(v) if isinstance(v, int) else f"{v:g}"
        raise ValueError(f"p = {shown} at point {i + 1} is beyond 2**53, the largest integer held exactly")


def _not_a_parameter(column) -> bool:
    """A column of a table of runs that is no parameter (a metric, its ``_std``, a label)."""
    from .data import LABEL_COLUMNS, METRICS

    name = str(column)
    return name in METRICS or name in LABEL_COLUMNS or name.removesuffix("_std") in METRICS


def _as_table(X, features: list, defaults: dict) -> pd.DataFrame:
    from collections.abc import Mapping

    from .data import Measurements, as_points

    if isinstance(X, pd.Series):  # one point, its parameters by name
        X = X.to_dict()
    if isinstance(X, Measurements):  # its runs at the model's features (fitted on some of a table's, say)
        return X.points([f for f in features if f in X.params])
    if isinstance(X, pd.DataFrame):
        return as_points(X)
    if isinstance(X, Mapping):
        return _from_mapping(X)
    if isinstance(X, (list, tuple)) and X and all(isinstance(row, Mapping) for row in X):
        return pd.DataFrame(list(X))  # one mapping per point
    return _from_array(X, features, [f for f in features if f not in defaults])


def _from_mapping(X) -> pd.DataFrame:
    """Parameter -> scalar or 1-D values; scalars (and single values) apply to every point."""
    if not X:
        raise ValueError(NO_POINTS)
    lengths = {}
    for k, v in X.items():
        try:
            shape = np.shape(v)
        except ValueError:  # a ragged list of lists
            shape = (-1, -1)
        if len(shape) > 1:
            raise ValueError(f"{k}: give one value per point (a number or a flat list), got nested values {v!r:.60}")
        if shape and shape[0] != 1:
            lengths[k] = shape[0]
    if len(set(lengths.values())) > 1:
        raise ValueError("the parameters give different numbers of points: "
                         + ", ".join(f"{k} has {n}" for k, n in lengths.items()))
    if 0 in lengths.values():
        raise ValueError(NO_ROWS)
    length = max([1, *lengths.values()])
    return pd.DataFrame({k: np.broadcast_to(np.asarray(v, dtype=object).ravel(), (length,)) for k, v in X.items()})


def _from_array(X, features: list, varying: list) -> pd.DataFrame:
    """A 2-D array of points: its columns are the model's parameters, or those that
    varied in training (the others take their constant value). A 1-D array is refused:
    one point or one value per point, either reading may be the slip."""
    widths = f"one column per parameter ({', '.join(features)})"
    if varying != features:
        widths += f" or per parameter that varied in training ({', '.join(varying)})"
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"prediction points must be a table, a mapping or a 2-D array of numbers with {widths}; "
                        f"got {type(X).__name__} {X!r:.60}") from None
    if arr.ndim != 2 or arr.shape[1] not in (len(features), len(varying)):
        raise ValueError(f"a 2-D array of points (one row per point) needs {widths}; got shape {arr.shape}")
    return pd.DataFrame(arr, columns=features if arr.shape[1] == len(features) else varying)


def _finite_numbers(column: pd.Series, name) -> np.ndarray:
    """The column as floats, or a ``ValueError`` naming its first value that is no
    finite number (NaN or inf would give NaN draws; True is 1 to numpy, never a size; a
    date or a duration is nanoseconds to numpy, never a size either).

    Examples
    --------
    >>> _finite_numbers(pd.Series(pd.to_datetime(["2026-11-28"])), "n")
    Traceback (most recent call last):
    ...
    ValueError: n must be a finite number at every prediction point; point 1 has n=Timestamp('2026-11-28 00:00:00')
    """
    if column.dtype.kind in "iufO":  # numbers, or Python objects that may be: not bools, dates, durations
        try:
            values = column.to_numpy(dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            values = None
        if values is not None and np.all(np.isfinite(values)) and not _holds_bools(column):
            return values
    for i, v in enumerate(column):  # the first culprit, by name
        v = v.item() if isinstance(v, np.generic) else v
        try:
            ok = not isinstance(v, bool) and bool(np.isfinite(float(v)))
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise ValueError(NOT_A_NUMBER.format(name=name, row=i + 1, value=_value_text(v)))
    raise AssertionError("unreachable: a column that failed has a culprit")


def _value_text(v) -> str:
    """``repr(v)``, or, for an int of more than 20 digits, its scientific form: a message
    quoting ``10**400`` whole would be 400 digits long.

    Examples
    --------
    >>> _value_text(10**400), _value_text(-12345678901234567890123), _value_text(2**53 + 1), _value_text("x")
    ('1.000e+400', '-1.235e+22', '9007199254740993', "'x'")
    """
    from decimal import Decimal

    if isinstance(v, int) and not isinstance(v, bool) and len(str(abs(v))) > 20:
        return f"{Decimal(v):.3e}"  # exact for any int, where float() overflows
    return repr(v)


def _holds_bools(column: pd.Series) -> bool:
    return column.dtype == object and any(isinstance(v, (bool, np.bool_)) for v in column)
