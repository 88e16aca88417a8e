"""Run-to-run noise whose spread depends on the parameters (a noise profile).

A law mixture's laws share one noise scale per law, relative to per-run precision
weights. Measured times are not equally noisy everywhere: an MPI broadcast of a few
bytes on few ranks varies by a third from run to run, one of megabytes on many ranks by
a seventh (the shared Stampede2 sets' training rows: the residual spread falls from 0.33
to 0.14 across the quartiles of ranks per node). One scale for all runs then claims the
average noise everywhere, too wide where the runs are steady and too narrow where not.

The profile is a log-linear variance, ``log var = g0 + g . log2 x`` over the parameters
that the distance beyond the data counts, fitted by maximum likelihood to the residuals
of a least-squares reference (a quadratic in the logs of every parameter, codes as they are: flexible
enough that what is left is noise, not a law's misfit), and kept only when it earns its
slopes by the Bayesian information criterion (Schwarz 1978: twice the gain in log
likelihood above ``k log N``). Why not more: a handful of runs cannot tell a noise
profile from chance, and BIC is the standard large-sample guard, not a tuned constant.

Beyond the data the profile is not extrapolated: a point takes the variance of the
nearest point of the training box (each parameter clipped to its range). Nothing was
measured about the noise there, and a log-linear variance carried out far would shrink
or blow up the interval by a law nobody checked.
"""

from __future__ import annotations

import numpy as np

from .. import persist

#: Relative residuals below this are taken as this (a tenth of a percent): below it the
#: run-to-run spread of a timed run is not resolved, and an exact residual would let the
#: likelihood put zero variance on it.
RESIDUAL_FLOOR = 1e-3


@persist.register
class NoiseProfile:
    """Precision weights of runs from their parameters: ``exp(-g . (log2 x - c))``,
    ``x`` clipped to the training box ``[low, high]``; ``c`` centres the training runs
    (their weights' geometric mean is 1, so the laws' own noise scale keeps its meaning).

    Examples
    --------
    >>> prof = NoiseProfile(columns=[0], slopes=[-1.0], low=[1.0], high=[8.0], center=[1.5])
    >>> prof.weights(np.array([[1.0], [8.0], [64.0]])).round(3).tolist()  # exp(-1.5), exp(1.5); 64 -> 8
    [0.223, 4.482, 4.482]
    """

    def __init__(self, columns=(), slopes=(), low=(), high=(), center=()):
        self.columns = [int(c) for c in columns]
        self.slopes = [float(s) for s in slopes]
        self.low = [float(v) for v in low]
        self.high = [float(v) for v in high]
        self.center = [float(v) for v in center]

    def weights(self, X) -> np.ndarray:
        """Precision of ``log y`` at the rows of ``X``, relative to the training runs'.

        Examples
        --------
        >>> prof = NoiseProfile(columns=[0], slopes=[-1.0], low=[1.0], high=[8.0], center=[1.5])
        >>> prof.weights(np.array([[2.0**1.5], [0.5]])).round(3).tolist()  # the centre; 0.5 clipped to 1
        [1.0, 0.223]
        """
        x = np.clip(np.asarray(X, dtype=np.float64)[:, self.columns], self.low, self.high)
        return np.exp(-(np.log2(x) - np.asarray(self.center)) @ np.asarray(self.slopes))

    def get_params(self) -> dict:
        """Constructor parameters (what a model file stores).

        Examples
        --------
        >>> prof = NoiseProfile(columns=[0], slopes=[-1.0], low=[1.0], high=[8.0], center=[1.5])
        >>> prof.get_params()
        {'columns': [0], 'slopes': [-1.0], 'low': [1.0], 'high': [8.0], 'center': [1.5]}
        >>> NoiseProfile(**prof.get_params()).get_params() == prof.get_params()  # a round trip
        True
        """
        return {"columns": self.columns, "slopes": self.slopes, "low": self.low, "high": self.high,
                "center": self.center}

    _fitted = ()


def _reference_residuals(L: np.ndarray, logy: np.ndarray) -> np.ndarray | None:
    """Residuals of ``log y`` from a least-squares quadratic in the columns ``L`` (the
    logs of the positive parameters, the standardised values of the others; linear when
    the runs are too few for it; None when too few even for that): at least twice as
    many runs as coefficients, so that the residuals keep half the noise's freedom."""
    d = L.shape[1]
    quad = [L[:, i] * L[:, j] for i in range(d) for j in range(i, d)]
    for cols in ([np.ones(len(L)), *L.T, *quad], [np.ones(len(L)), *L.T]):
        A = np.column_stack(cols)
        if len(logy) >= 2 * A.shape[1]:
            beta = np.linalg.lstsq(A, logy, rcond=None)[0]
            return logy - A @ beta
    return None


def _neg_loglik(B: np.ndarray, r2: np.ndarray, g: np.ndarray) -> float:
    """Negative Gaussian log likelihood (up to a constant) of residuals whose squares
    are ``r2`` with ``log var = B g``."""
    eta = B @ g
    with np.errstate(over="ignore"):
        return float(0.5 * np.sum(eta + r2 * np.exp(-eta)))


def _max_loglik(B: np.ndarray, r2: np.ndarray) -> tuple[float, np.ndarray]:
    """Maximum Gaussian log likelihood (up to a constant) of residuals whose squares
    are ``r2`` with ``log var = B g``, and the ``g`` that reaches it: Newton's method on
    the convex negative log likelihood, each step halved until it lowers it (a full
    step from exactly repeated runs, whose residuals sit on the floor, can overshoot by
    orders of magnitude and overflow)."""
    g = np.zeros(B.shape[1])
    g[0] = np.log(np.mean(r2))
    f = _neg_loglik(B, r2, g)
    for _ in range(100):
        e = r2 * np.exp(-(B @ g))
        grad = B.T @ (1.0 - e) / 2
        hess = (B * e[:, None]).T @ B / 2
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        t = 1.0
        while t > 1e-10 and not _neg_loglik(B, r2, g - t * step) <= f:
            t /= 2
        g, f_old = g - t * step, f
        f = _neg_loglik(B, r2, g)
        if np.max(np.abs(t * step)) < 1e-10 or f_old - f < 1e-12:
            break
    return -f, g


def fit(X: np.ndarray, names, logy: np.ndarray, directions) -> NoiseProfile | None:
    """The noise profile of runs ``X`` (columns ``names``) with log values ``logy`` over
    the parameters ``directions`` (those the distance beyond the data counts), or None
    when the runs do not earn one (too few, no positive varying direction, or the BIC
    prefers one spread for all).

    Examples
    --------
    Noise whose sd halves with every doubling of p is found; a constant one is not:

    >>> rng = np.random.default_rng(0)
    >>> n, p = np.repeat(2.0 ** np.arange(8, 14), 24), np.tile(2.0 ** np.arange(6), 24)
    >>> X = np.c_[n, p]
    >>> prof = fit(X, ["n", "p"], np.log(n) + 0.2 / p * rng.standard_normal(144), ["n", "p"])
    >>> factor = np.exp(np.array(prof.slopes) / 2)  # the sd's factor per doubling of n, of p
    >>> bool(abs(factor[0] - 1) < 0.15), bool(abs(factor[1] - 0.5) < 0.1)
    (True, True)
    >>> fit(X, ["n", "p"], np.log(n) + 0.2 * rng.standard_normal(144), ["n", "p"]) is None
    True
    """
    X = np.asarray(X, dtype=np.float64)
    varying = [i for i in range(X.shape[1]) if len(np.unique(X[:, i])) > 1]
    positive = [i for i in varying if np.all(X[:, i] > 0)]
    columns = [i for i in positive if names[i] in directions]
    if not columns:
        return None
    # every varying parameter in the reference, as the laws take it: the log of a positive
    # one, the value of one with zeros or negatives (a code), standardised; left out, its
    # effect on log y would count as noise
    reference = np.column_stack([np.log2(X[:, i]) if i in positive else (X[:, i] - X[:, i].mean()) / X[:, i].std()
                                 for i in varying])
    r = _reference_residuals(reference, logy)
    if r is None:
        return None
    r2 = np.maximum(r**2, RESIDUAL_FLOOR**2)
    L = np.log2(X[:, columns])
    center = L.mean(axis=0)
    B = np.column_stack([np.ones(len(r2)), L - center])
    ll_one, _ = _max_loglik(B[:, :1], r2)
    ll_prof, g = _max_loglik(B, r2)
    if not np.all(np.isfinite(g)) or not 2 * (ll_prof - ll_one) > len(columns) * np.log(len(r2)):
        return None
    return NoiseProfile(columns=columns, slopes=g[1:], low=X[:, columns].min(axis=0),
                        high=X[:, columns].max(axis=0), center=center)
