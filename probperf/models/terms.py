"""The terms a law is built of, each a tuple ``(kind, parameter[, ...])`` whose values
enter ``log y`` (:func:`term_values`): ``log n``, ``log log n``, ``log (p - 1)``, a level
at one worker, a fixed size shape ``n^j log^k n``, an Amdahl speed-up, a saturation in
``p - 1``; and the terms every law shares, one per independent parameter
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
    if term[0] in ("amdahl", "satm1"):  # one value per fraction or knee tried: not worth keeping
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


#: term kinds curved on the log scale (a square, a product of two logs): what
#: :func:`tangent_beyond` continues along a tangent past the training range
CURVED_TERMS = ("sq", "cross")


def log_edges(terms, X: np.ndarray, names) -> np.ndarray:
    """Per term, the training range of the logs a curved term is made of, ``[lo_a, hi_a,
    lo_b, hi_b]`` (NaN where a term has no such parameter, or is not curved).

    Examples
    --------
    >>> X = np.array([[2.0, 1.0], [8.0, 4.0]])
    >>> np.exp(log_edges([("log", "n"), ("sq", "p"), ("cross", "n", "p")], X, ["n", "p"])).round(6).tolist()
    [[nan, nan, nan, nan], [1.0, 4.0, nan, nan], [2.0, 8.0, 1.0, 4.0]]
    """
    edges = np.full((len(terms), 4), np.nan)
    with np.errstate(divide="ignore"):
        for i, (kind, *cols) in enumerate(terms):
            if kind in CURVED_TERMS:
                for j, c in enumerate(cols[:2]):
                    logs = np.log(X[:, list(names).index(c)])
                    edges[i, 2 * j:2 * j + 2] = logs.min(), logs.max()
    return edges


def tangent_beyond(Z: np.ndarray, terms, edges: np.ndarray, X: np.ndarray, names) -> np.ndarray:
    """The term values ``Z`` at ``X`` with each curved term continued along its tangent
    beyond its training range ``edges`` (:func:`log_edges`): with ``u`` a log clipped
    to that range, ``l^2`` is ``u^2 + 2 u (l - u)`` and ``l_a l_b`` is
    ``u_a u_b + u_b (l_a - u_a) + u_a (l_b - u_b)``, a first-order expansion at the
    edge (``probperf.models.laws.CURVE_TANGENT`` says why). Inside the range: ``Z``.

    Examples
    --------
    Fitted on p = 1..8, the square of log p grows linearly in log p beyond 8:

    >>> X = np.array([[4.0], [64.0]])
    >>> terms = [("sq", "p")]
    >>> Z = np.column_stack([np.log(X[:, 0]) ** 2])
    >>> out = tangent_beyond(Z, terms, np.array([[0.0, np.log(8.0), np.nan, np.nan]]), X, ["p"])
    >>> bool(out[0, 0] == Z[0, 0]), bool(np.isclose(out[1, 0], np.log(8) ** 2 + 2 * np.log(8) * np.log(8)))
    (True, True)
    """
    out = Z
    for i, (kind, *cols) in enumerate(terms):
        if kind not in CURVED_TERMS or np.isnan(edges[i, 0]):
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = [np.log(X[:, list(names).index(c)]) for c in cols[:2]]
        clipped = [np.clip(v, edges[i, 2 * j], edges[i, 2 * j + 1]) for j, v in enumerate(logs)]
        if all(np.array_equal(v, u) for v, u in zip(logs, clipped)):
            continue
        if out is Z:
            out = Z.copy()
        if kind == "sq":
            (l,), (u,) = logs, clipped
            out[:, i] = u * u + 2.0 * u * (l - u)
        else:
            (la, lb), (ua, ub) = logs, clipped
            out[:, i] = ua * ub + ub * (la - ua) + ua * (lb - ub)
    return out


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
