"""The terms a law is built of, each a tuple ``(kind, parameter[, ...])`` whose values
enter ``log y`` (:func:`term_values`): ``log n``, ``log log n``, ``log (p - 1)``, a level
at one worker, a fixed size shape ``n^j log^k n``, an Amdahl speed-up, a saturation in
``p - 1``, a power of a count from 0, shifted (``log(s + c)``, or ``log(1 + c)``); and the terms every law shares, one per independent parameter
(:func:`power_terms`). The laws (:mod:`probperf.models.laws`) and the relations
between parameters (:mod:`probperf.models.points`) are made of them.
"""

from __future__ import annotations

import numpy as np

from ..selection import independent
from . import rowsets

#: term kinds that enter a law as a fixed offset of ``log y`` (coefficient 1), not a
#: fitted coefficient: a fixed size shape, the Amdahl law's speed-up
OFFSET_TERMS = ("shape", "amdahl")


def term_values(term, X: np.ndarray, names) -> np.ndarray:
    """Values of one term (a tuple ``(kind, feature[, feature])``) at the rows of ``X``.

    Examples
    --------
    >>> X = np.array([[16.0, 3.0]])
    >>> [float(term_values(t, X, ["n", "p"])[0]) for t in
    ...  [("log", "n"), ("loglog", "n"), ("logm1", "p"), ("lin", "n"), ("one", "p")]]
    [2.772588722239781, 1.3862943611198906, 0.6931471805599453, 16.0, 0.0]
    """
    if term[0] in ("amdahl", "satm1", "logshift"):  # one value per fraction, knee or shift tried: not worth keeping
        return _term_values(term, X, names)
    return rowsets.computed(X, (term, *names), lambda: _term_values(term, X, names))


def _term_values(term, X: np.ndarray, names) -> np.ndarray:
    kind, *cols = term
    x = [X[:, list(names).index(c)] for c in cols if isinstance(c, str)]
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "log":
            return np.log(x[0])
        if kind == "loglog":
            return np.log(np.log2(np.maximum(x[0], 2.0)))
        if kind == "logm1":
            # 0 at one worker, where a law with ("one", "p") has its own level
            return np.log(np.maximum(x[0] - 1.0, 1.0))
        if kind == "one":
            return (x[0] == 1.0).astype(np.float64)
        if kind == "sq":
            return np.log(x[0]) ** 2
        if kind == "cross":
            return np.log(x[0]) * np.log(x[1])
        if kind == "lin":
            return x[0].copy()
        if kind == "log1p":  # a power of 1 + c, for a count from 0 (laws.LOG1P_COUNTS)
            return np.log1p(x[0])
        if kind == "logshift":  # log(c + s), a count from 0 shifted by s (laws.SHIFTED_COUNTS)
            return np.log(x[0] + cols[1])
        if kind == "amdahl":  # log(s + (1 - s) / p), the serial fraction s fitted
            fraction = cols[1]
            return np.log(fraction + (1.0 - fraction) / x[0])
        if kind == "satm1":  # log(u / (u + k)), u = p - 1 (at least 1, as for logm1), knee k fitted
            u = np.maximum(x[0] - 1.0, 1.0)
            return np.log(u / (u + cols[1]))
        if kind == "shape":
            j, k = cols[1:]
            return j * np.log(x[0]) + k * np.log(np.log2(np.maximum(x[0], 2.0)))
    raise ValueError(f"unknown law term {term!r}")


def natural_term(X, names, c) -> tuple:
    """How the laws take parameter ``c`` of runs ``X``: its log where every value is
    positive, else its value (a code, an offset).

    Examples
    --------
    >>> natural_term(np.array([[1.0, 0.0], [2.0, 1.0]]), ["p", "code"], "p"), natural_term(
    ...     np.array([[1.0, 0.0], [2.0, 1.0]]), ["p", "code"], "code")
    (('log', 'p'), ('lin', 'code'))
    """
    return ("log", c) if np.all(X[:, list(names).index(c)] > 0) else ("lin", c)


def power_terms(X, names, distinct) -> list[tuple]:
    """The power law's terms: log (or, for a non-positive parameter, linear) in each
    varying parameter (``distinct``: name -> its number of distinct values) that is not
    a product of the others already in.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 2.0], [2.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 4.0]])
    >>> power_terms(X, ["nnodes", "ppn", "p"], {"nnodes": 3, "ppn": 3, "p": 3})
    [('log', 'p'), ('log', 'nnodes')]
    """
    # p first: when p = nnodes * ppn, keep p and one of the two
    order = sorted((c for c in names if distinct[c] >= 2), key=lambda c: c != "p")
    base, cols = [], []
    for c in order:
        term = natural_term(X, names, c)
        v = term_values(term, X, names)
        if independent(cols, v):
            base.append(term)
            cols.append(v)
    return base
