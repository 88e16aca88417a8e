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

    def __init__(self, draws, points: pd.DataFrame | None = None, name: str | None = None):
        draws = np.asarray(draws, dtype=np.float64)
        if draws.ndim == 1:
            draws = draws[:, None]
        if draws.ndim != 2 or draws.shape[0] < 1:
            raise ValueError(f"draws must be a (draws x points) matrix, got shape {draws.shape}")
        if points is not None and len(points) != draws.shape[1]:
            raise ValueError(
                f"{len(points)} points but draws have {draws.shape[1]} columns"
            )
        self.draws = draws
        self.points = None if points is None else points.reset_index(drop=True)
        self.name = name

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
        """Quantile(s) per point; ``q`` scalar gives (points,), a sequence (len(q), points)."""
        return np.quantile(self.draws, q, axis=0)

    def interval(self, level: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
        """Central (equal-tailed) interval holding ``level`` of the predictive mass."""
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        lo, hi = np.quantile(self.draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return lo, hi

    def sample(self, k: int, seed: int | None = None) -> np.ndarray:
        """``k`` joint draws (k x points), resampled with replacement if k > n_draws."""
        rng = np.random.default_rng(seed)
        idx = rng.choice(self.n_draws, size=k, replace=k > self.n_draws)
        return self.draws[idx]

    def map(self, fn, name: str | None = None) -> "Predictive":
        """A new Predictive with ``fn`` applied to the draws (kept joint)."""
        return Predictive(fn(self.draws), self.points, name or self.name)

    def __getitem__(self, idx) -> "Predictive":
        idx = np.atleast_1d(np.arange(self.n_points)[idx])
        points = None if self.points is None else self.points.iloc[idx]
        return Predictive(self.draws[:, idx], points, self.name)

    def summary(self, level: float = 0.9) -> pd.DataFrame:
        """One row per point: its parameters, ``mean``, ``median``, ``lower``, ``upper``."""
        lo, hi = self.interval(level)
        frame = pd.DataFrame(
            {"mean": self.mean, "median": self.median, "lower": lo, "upper": hi, "level": level}
        )
        if self.points is not None:
            frame = pd.concat([self.points.reset_index(drop=True), frame], axis=1)
        return frame

    def __repr__(self) -> str:
        return f"Predictive({self.name or 'value'}: {self.n_draws} draws x {self.n_points} points)"


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


def prediction_points(X, params: dict, features: Sequence[str], defaults: dict | None = None) -> pd.DataFrame:
    """The points a model is asked about, completed and checked.

    ``X`` is a table/mapping of points, or ``None`` with the points given as keyword
    ``params`` (``n=2**20, p=36``). Missing parameters take ``defaults`` (the values
    that were constant in training); ``n`` must be positive and ``p`` a positive integer.

    Examples
    --------
    >>> prediction_points(None, {"n": 1024}, ["n", "p"], {"p": 8}).to_dict("list")
    {'n': [1024.0], 'p': [8.0]}
    """
    from .data import as_points

    if X is None:
        if not params:
            raise ValueError("predict needs points: predict(n=..., p=...) or a table of points")
        X = params
    pts = as_points(X)
    for k, v in (defaults or {}).items():
        if k not in pts:
            pts[k] = v
    missing = [f for f in features if f not in pts]
    if missing:
        raise ValueError(f"prediction points lack parameter(s) {missing}")
    pts = pts[list(features)].astype(np.float64).reset_index(drop=True)
    if "p" in pts and (np.any(pts["p"] < 1) or np.any(pts["p"] != np.round(pts["p"]))):
        raise ValueError("p must be a positive integer at every prediction point")
    if "n" in pts and np.any(pts["n"] <= 0):
        raise ValueError("n must be positive at every prediction point")
    return pts
