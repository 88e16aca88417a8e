"""The Pyro model of the basis regression: a plain function of unit-scaled data.

``log y_i ~ Normal(log(Phi_i . beta), sigma * exp(gamma * u_i))`` with non-negative
coefficients under a horseshoe-like (or half-normal) prior; see
:mod:`probperf.models.bayes` for the model, its priors and its scaling. This module
also holds what the model needs around it: a starting point for inference
(:func:`nnls_start`, :func:`model_inputs`) and its pointwise log-likelihood in NumPy
(:func:`lognormal_loglik`, for PSIS-LOO). The inference itself is chosen separately
(:mod:`probperf.models.inference`).

torch and Pyro are imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import math

import numpy as np

#: Global prior scale of the coefficients on the unit-scaled problem.
TAU0 = 0.01
#: Smallest scaled median allowed (keeps log() finite when every beta is ~0).
_TINY = 1e-300


def _horseshoe_like():
    """The HorseshoeLike distribution class (built lazily: it needs torch/pyro)."""
    import torch
    import pyro.distributions as dist
    from torch.distributions import constraints

    class HorseshoeLike(dist.TorchDistribution):
        """``p(b) = log(1 + (scale/b)^2) / (pi scale)`` on ``b > 0``."""

        arg_constraints = {"scale": constraints.positive}
        support = constraints.positive

        def __init__(self, scale, validate_args=None):
            self.scale = torch.as_tensor(scale, dtype=torch.float64)
            super().__init__(self.scale.shape, validate_args=validate_args)

        def expand(self, batch_shape, _instance=None):
            return HorseshoeLike(self.scale.expand(batch_shape))

        def log_prob(self, value):
            r = value / self.scale
            return torch.log(torch.log1p(r.pow(-2))) - math.log(math.pi) - torch.log(self.scale)

        def sample(self, sample_shape=torch.Size()):
            # Inverse CDF by bisection on log b; F(x) = (x log(1 + 1/x^2) + 2 atan x) / pi.
            shape = self._extended_shape(sample_shape)
            u = torch.rand(shape, dtype=torch.float64)
            lo = torch.full(shape, -40.0, dtype=torch.float64)
            hi = torch.full(shape, 40.0, dtype=torch.float64)
            for _ in range(60):
                mid = (lo + hi) / 2
                x = mid.exp()
                below = (x * torch.log1p(x.pow(-2)) + 2 * torch.atan(x)) / math.pi < u
                lo, hi = torch.where(below, mid, lo), torch.where(below, hi, mid)
            return ((lo + hi) / 2).exp() * self.scale

    return HorseshoeLike


def basis_model(Phi, y=None, u=None, tau0=TAU0, prior="horseshoe", heteroscedastic=False):
    """Pyro model of unit-scaled data: ``y ~ LogNormal(log(Phi @ beta), scale)``.

    ``Phi`` (N x K) and ``y`` (N,) are float64 tensors, ``u`` (N,) the heteroscedastic
    covariate. A plain function of the data; the inference is chosen separately.

    Examples
    --------
    Trace one forward run to see the sample sites (``beta`` has one value per term):

    >>> import torch, pyro
    >>> Phi = torch.tensor([[1.0, 2.0], [1.0, 4.0]], dtype=torch.float64)
    >>> y = torch.tensor([3.0, 5.0], dtype=torch.float64)
    >>> trace = pyro.poutine.trace(basis_model).get_trace(Phi, y, prior="halfnormal")
    >>> [name for name, site in trace.nodes.items() if site["type"] == "sample"]
    ['terms', 'beta', 'sigma', 'data', 'y']
    >>> tuple(trace.nodes["beta"]["value"].shape)
    (2,)
    """
    import torch
    import pyro
    import pyro.distributions as dist

    _ensure_model_classes()  # the horseshoe-like distribution class is built lazily
    one = torch.ones((), dtype=torch.float64)
    with pyro.plate("terms", Phi.shape[1]):
        if prior == "horseshoe":
            beta = pyro.sample("beta", _HORSESHOE_LIKE[0](tau0 * one))
        else:  # "halfnormal": a ridge-like prior, no sparsity
            beta = pyro.sample("beta", dist.HalfNormal(one))
    sigma = pyro.sample("sigma", dist.HalfNormal(one))
    scale = sigma
    if heteroscedastic:
        gamma = pyro.sample("gamma", dist.HalfNormal(one))
        scale = sigma * torch.exp(gamma * u)
    median = (Phi @ beta).clamp_min(_TINY)
    with pyro.plate("data", Phi.shape[0]):
        pyro.sample("y", dist.LogNormal(median.log(), scale), obs=y)


_HORSESHOE_LIKE: list = []


def _ensure_model_classes():
    if not _HORSESHOE_LIKE:
        _HORSESHOE_LIKE.append(_horseshoe_like())


def nnls_start(Ps: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, float]:
    """Non-negative least squares on relative errors: a starting point for inference.

    Returns the coefficients (zeros raised to a small positive value, since the
    sampler works on their log) and the log-scale noise of the fit.

    Examples
    --------
    >>> Ps = np.array([[1.0, 0.0], [1.0, 0.5], [1.0, 1.0]])
    >>> beta, sigma = nnls_start(Ps, np.array([1.0, 1.5, 2.0]))
    >>> beta.round(3).tolist(), sigma
    ([1.0, 1.0], 0.001)
    """
    from scipy.optimize import nnls

    beta, _ = nnls(Ps / ys[:, None], np.ones(len(ys)), maxiter=50 * Ps.shape[1])
    fit = Ps @ beta
    # zero coefficients start small but positive (their log must be finite)
    beta = np.maximum(beta, 1e-3 * TAU0)
    resid = np.log(ys) - np.log(np.maximum(fit, _TINY))
    sigma = float(np.clip(np.std(resid), 1e-3, 1.0)) if np.all(fit > 0) else 0.5
    return beta, sigma


def model_inputs(Ps, ys, u, prior="horseshoe", heteroscedastic=False):
    """Arguments of :func:`basis_model` for unit-scaled arrays, and a starting point.

    Returns ``(args, kwargs, init)``: positional tensors ``(Phi, y, u)``, keyword
    arguments, and initial values by site (:func:`nnls_start`; ``gamma`` starts at 0.1).

    Examples
    --------
    >>> Ps = np.array([[1.0, 0.0], [1.0, 0.5], [1.0, 1.0]])
    >>> args, kwargs, init = model_inputs(Ps, np.array([1.0, 1.5, 2.0]), np.zeros(3))
    >>> len(args), kwargs["prior"], sorted(init)
    (3, 'horseshoe', ['beta', 'sigma'])
    """
    import torch

    _ensure_model_classes()
    args = (torch.as_tensor(Ps), torch.as_tensor(ys), torch.as_tensor(u))
    kwargs = {"tau0": TAU0, "prior": prior, "heteroscedastic": bool(heteroscedastic)}
    beta0, sigma0 = nnls_start(Ps, ys)
    init = {"beta": torch.as_tensor(beta0), "sigma": torch.tensor(sigma0)}
    if heteroscedastic:
        init["gamma"] = torch.tensor(0.1)
    return args, kwargs, init


def lognormal_loglik(y, median, scale):
    """Pointwise log density of ``y`` (draws x points) under LogNormal(log median, scale).

    Examples
    --------
    >>> float(lognormal_loglik(np.array([1.0]), np.array([[1.0]]), 1.0)[0, 0]) == -0.5 * math.log(2 * math.pi)
    True
    """
    z = (np.log(y)[None, :] - np.log(np.maximum(median, _TINY))) / scale
    return -0.5 * z**2 - np.log(scale) - 0.5 * math.log(2 * math.pi) - np.log(y)[None, :]
