"""The scale transforms, in one place.

Inputs are modeled on log2 scales (problem sizes and worker counts span orders of
magnitude, and performance laws are close to power laws there); positive metrics on a
natural-log scale (multiplicative noise becomes additive, and predictions stay
positive). Models standardise after these transforms with :class:`Standardizer`.
"""

from __future__ import annotations

import numpy as np

from . import persist

def log_mask(X: np.ndarray) -> np.ndarray:
    """Columns to take to log2: those whose training values are all positive.

    Every probperf parameter (sizes, workers, cut-offs, block sizes) acts
    multiplicatively, so positive columns go to log2; a column holding zero (a cut-off
    depth of 0, say) stays on its own scale. Computed once at fit time and stored, so
    prediction points are transformed the same way.

    Examples
    --------
    >>> log_mask(np.array([[1.0, 0.0], [4.0, 2.0]])).tolist()
    [True, False]
    """
    return np.all(np.asarray(X, dtype=np.float64) > 0, axis=0)


def log_inputs(X: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """log2 of the columns selected by ``mask`` (see :func:`log_mask`).

    Examples
    --------
    >>> log_inputs(np.array([[1024.0, 4.0]]), np.array([True, True])).tolist()
    [[10.0, 2.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    out = X.copy()
    mask = np.asarray(mask, dtype=bool)
    if np.any(X[:, mask] <= 0):
        raise ValueError("parameters modeled on a log scale must be positive")
    out[:, mask] = np.log2(X[:, mask])
    return out


def log_target(y: np.ndarray) -> np.ndarray:
    """Natural log of a positive metric (raises on zero or negative values).

    Examples
    --------
    >>> log_target([1.0, np.e]).tolist()
    [0.0, 1.0]
    >>> log_target([2.0, 0.0])
    Traceback (most recent call last):
    ...
    ValueError: a log-scale target must be positive; index 1 is 0.0
    """
    y = np.asarray(y, dtype=np.float64)
    if np.any(~np.isfinite(y)) or np.any(y <= 0):
        i = int(np.flatnonzero(~np.isfinite(y) | (y <= 0))[0])
        raise ValueError(f"a log-scale target must be positive; index {i} is {float(y[i])!r}")
    return np.log(y)


@persist.register
class Standardizer:
    """Affine map to zero mean and unit scale, column-wise, fitted on training data.

    Examples
    --------
    >>> s = Standardizer().fit(np.array([[1.0], [3.0]]))
    >>> s.transform(np.array([[2.0]])).tolist()
    [[0.0]]
    """

    _fitted = ("mean_", "scale_")

    def fit(self, X):
        """Learn each column's mean and standard deviation (1 for a constant column).

        Examples
        --------
        >>> s = Standardizer().fit(np.array([[1.0, 4.0], [3.0, 4.0]]))
        >>> s.mean_.tolist(), s.scale_.tolist()  # the constant column keeps scale 1
        ([2.0, 4.0], [1.0, 1.0])
        """
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        # A constant column (one worker count only) keeps scale 1 so it stays finite.
        self.scale_ = np.where(scale > 0, scale, 1.0)
        return self

    def transform(self, X):
        """``(X - mean) / scale`` with the fitted columns' statistics.

        Examples
        --------
        >>> s = Standardizer().fit(np.array([[2.0], [6.0]]))  # mean 4, scale 2
        >>> s.transform(np.array([[4.0], [10.0]])).tolist()
        [[0.0], [3.0]]
        """
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_

    def inverse(self, Z):
        """Undo :meth:`transform`: back to the original scale.

        Examples
        --------
        >>> X = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> s = Standardizer().fit(X)
        >>> s.inverse(s.transform(X)).tolist() == X.tolist()
        True
        """
        return np.asarray(Z, dtype=np.float64) * self.scale_ + self.mean_
