"""Bayesian basis-function regression (Pyro): ``y = (Phi beta) * exp(eps)``.

The model
---------
For training runs ``i`` with design row ``Phi_i`` (non-negative basis terms, see
:mod:`probperf.basis`)::

    beta_k  ~ HorseshoeLike(scale=tau0),   beta_k >= 0
    sigma   ~ HalfNormal(1)                       (noise on the log scale)
    gamma   ~ HalfNormal(1)                       (only if heteroscedastic)
    log y_i ~ Normal(log(Phi_i . beta), sigma * exp(gamma * u_i)),  u_i = log2 p_i / log2 p_max

so ``Phi . beta`` is the *median* of ``y`` and the noise is multiplicative (a run is
``x %`` slower, not ``x`` seconds slower), which is how timing noise behaves.

Prior choice. The horseshoe's job here is to switch most of the ~12-36 candidate terms
off and leave a few on at whatever size the data need. We use the closed-form
"horseshoe-like" density ``p(b) = log(1 + (tau/b)^2) / (pi tau)`` on ``b >= 0``
(Bhadra et al., 2019): like the horseshoe it has an infinite spike at zero (strong
shrinkage of unneeded terms) and Cauchy tails (no shrinkage of needed ones), but it is a
proper density of ``beta`` itself, with no auxiliary local scales. In trials the usual
non-centred horseshoe (``beta = tau * lambda * z`` with HalfCauchy ``lambda``, ``tau``)
made NUTS hit its maximum tree depth on nearly every step (funnels between ``tau``,
``lambda`` and ``z``); the closed form halves the dimension and removes those funnels.
The global scale is fixed (``tau0 = 0.01`` of the largest ``y``) for the same reason;
with unit-scaled columns a term needed by the data has ``beta`` of order 0.01-1 there.

Scaling. ``y`` is divided by its largest value and each design column by its largest
training value, so the priors are unit-scale whether the data are 1e9 cycles or 1e-3 s;
all stored samples (``coef_samples_``) are converted back to the original units.

Inference. NUTS (``pyro.infer.NUTS``, jit-compiled, started at a non-negative least
squares solution) for small data; SVI with a full-rank multivariate-normal guide on the
same model for large data (``inference="auto"`` switches at :data:`NUTS_MAX_POINTS`).
NUTS runs ``num_chains`` chains one after another and ArviZ computes ``r_hat``, bulk
ESS and counts divergences; bad values are reported with :func:`warnings.warn`.

Basis selection. With ``candidates`` (a list of :class:`~probperf.basis.BasisSet` or
``"auto"`` for nested subsets of ``basis`` ordered by the largest exponents), every
candidate is fitted and compared by PSIS-LOO (``az.compare``); the smallest set whose
expected log predictive density is within one standard error of the best one wins
(fewer terms extrapolate more safely). ``loo_`` holds the comparison table.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from .. import persist
from ..basis import BasisSet, preset, serial_work, strong_scaling
from ..limits import draw_count
from .base import MetricModel

#: ``inference="auto"`` uses NUTS up to this many training points, SVI above.
NUTS_MAX_POINTS = 200
#: Warn when the largest r_hat exceeds this.
RHAT_MAX = 1.05
#: Global prior scale of the coefficients on the unit-scaled problem.
TAU0 = 0.01
#: Smallest scaled median allowed (keeps log() finite when every beta is ~0).
_TINY = 1e-300
JIT_SVI = True
#: Adam step size of SVI (decayed 100x over the run).
SVI_LR = 0.05


#: NUTS target acceptance probability of the reported runs.
TARGET_ACCEPT = 0.95
#: Warm-up steps and kept draws of the short NUTS run that decides which terms to prune.
SCREEN_WARMUP = 150
SCREEN_SAMPLES = 100

#: Fewest data points a fit accepts.
MIN_POINTS = 3


class ConvergenceWarning(UserWarning):
    """MCMC diagnostics (r_hat, ESS, divergences) say the posterior may be unreliable.

    A :class:`UserWarning`, so the usual :mod:`warnings` filters apply; tests and
    scripts can turn it into an error or collect it.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("r_hat 1.200 > 1.05", ConvergenceWarning)
    >>> caught[0].category.__name__, str(caught[0].message)
    ('ConvergenceWarning', 'r_hat 1.200 > 1.05')
    """


# ---- the Pyro model -------------------------------------------------------------------


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


# ---- helpers --------------------------------------------------------------------------


def _check_design(Phi, names=None) -> np.ndarray:
    Phi = np.asarray(Phi, dtype=np.float64)
    if Phi.ndim != 2:
        raise ValueError(f"design matrix must be 2-D (points x terms), got shape {Phi.shape}")
    bad = ~np.isfinite(Phi) | (Phi < 0)
    if bad.any():
        i, k = (int(v) for v in np.argwhere(bad)[0])
        term = names[k] if names is not None and k < len(names) else f"column {k}"
        raise ValueError(
            f"design matrix must be finite and non-negative; row {i}, {term} is {float(Phi[i, k])!r}"
        )
    return Phi


def _check_target(y, n_rows: int) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64).ravel()
    if len(y) != n_rows:
        raise ValueError(f"design has {n_rows} rows but y has {len(y)} values")
    bad = ~np.isfinite(y) | (y <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"y must be positive and finite (the model is multiplicative); index {i} is {float(y[i])!r}"
        )
    return y


def _nnls_start(Ps: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, float]:
    """Non-negative least squares on relative errors: a starting point for inference."""
    from scipy.optimize import nnls

    beta, _ = nnls(Ps / ys[:, None], np.ones(len(ys)), maxiter=50 * Ps.shape[1])
    fit = Ps @ beta
    # zero coefficients start small but positive (their log must be finite)
    beta = np.maximum(beta, 1e-3 * TAU0)
    resid = np.log(ys) - np.log(np.maximum(fit, _TINY))
    sigma = float(np.clip(np.std(resid), 1e-3, 1.0)) if np.all(fit > 0) else 0.5
    return beta, sigma


def draw_index(n_draws: int, n_samples: int) -> np.ndarray:
    """Which posterior sample feeds predictive draw ``s``.

    Draw ``s`` uses sample ``s`` when the counts agree; fewer draws thin the samples
    evenly (so a whole chain is used), more draws cycle through them.

    Examples
    --------
    >>> draw_index(3, 6).tolist(), draw_index(4, 3).tolist()
    ([0, 2, 4], [0, 1, 2, 0])
    """
    if n_draws <= n_samples:
        return (np.arange(n_draws) * n_samples) // n_draws
    return np.arange(n_draws) % n_samples


def _lognormal_loglik(y, median, scale):
    """Pointwise log density of ``y`` (draws x points) under LogNormal(log median, scale)."""
    z = (np.log(y)[None, :] - np.log(np.maximum(median, _TINY))) / scale
    return -0.5 * z**2 - np.log(scale) - 0.5 * math.log(2 * math.pi) - np.log(y)[None, :]


class _one_thread:
    """Run torch single-threaded inside: the tensors are tiny (points x terms), and on a
    loaded machine intra-op threads made a 13x13 ``tril`` take 20 ms instead of 5 us."""

    def __enter__(self):
        import torch

        self._saved = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        import torch

        torch.set_num_threads(self._saved)


def _import_arviz():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        import arviz as az
    return az


# ---- the estimator --------------------------------------------------------------------


@persist.register
class BayesianBasisRegression(MetricModel):
    """Bayesian regression on non-negative basis terms ``n^j log2(n)^k x worker(p)``.

    Parameters
    ----------
    basis : "auto", str or BasisSet
        The terms. ``"auto"``: :func:`~probperf.basis.serial_work` if the training data
        have one worker count, :func:`~probperf.basis.strong_scaling` otherwise; a str
        names a preset of :data:`probperf.basis.PRESETS`.
    inference : {"auto", "nuts", "svi"}
        NUTS (exact up to Monte-Carlo error, slower) or SVI (fast, approximate).
        ``"auto"`` takes NUTS up to :data:`NUTS_MAX_POINTS` points.
    num_samples, warmup, num_chains : int
        NUTS draws kept per chain, warm-up steps per chain, chains (run one after another).
    prior : {"horseshoe", "halfnormal"}
        Coefficient prior (see the module docstring).
    heteroscedastic : bool
        Let the noise scale grow with the worker count (``sigma * exp(gamma u)``).
    candidates : None, "auto" or list of BasisSet
        Basis sets to compare by LOO; the chosen one becomes ``basis_``.
    seed : int
        Seed of the inference.
    n_draws : int
        Default number of predictive draws.
    svi_steps : int
        Optimisation steps of SVI; SVI then keeps ``num_samples`` draws from the guide.
    prune : float
        After the fit, terms that contribute less than this share of the fitted
        median at *every* training point are dropped and the rest refitted (0 turns
        it off). Why: with non-negative coefficients a continuous shrinkage prior
        leaves every irrelevant term a small positive weight; at 4x the largest
        training size an ``n^3`` term holding 0.1 % of the fit holds 6 %, always
        upwards. Below the measurement noise a term is not identifiable anyway.

    Attributes
    ----------
    basis_ : BasisSet or None
        The fitted basis (None after :meth:`fit_design`).
    term_names_ : list of str
    coef_samples_ : ndarray (S x K)
        Posterior draws of ``beta`` in the original units of ``y``.
    sigma_samples_, gamma_samples_ : ndarray (S,)
        Log-scale noise and its growth with ``log2 p`` (zeros when homoscedastic).
    shares_ : dict
        Term -> share of the fitted median over the training points (see
        :meth:`term_shares`).
    diagnostics_ : dict
        ``inference``, and for NUTS ``r_hat_max``, ``ess_bulk_min``, ``divergences``.
    loo_ : pandas.DataFrame
        PSIS-LOO table (``az.compare`` when several candidates were fitted).

    Examples
    --------
    >>> n = np.repeat(2.0 ** np.arange(4, 10), 4)
    >>> y = 5 * n * np.exp(np.random.default_rng(0).normal(0, 0.02, n.size))
    >>> m = BayesianBasisRegression(basis=BasisSet([(1, 0), (2, 0)]),
    ...                             inference="svi", svi_steps=500).fit({"n": n}, y)
    >>> lo, hi = m.predict({"n": 2.0**10}).interval(0.9)
    >>> bool(lo[0] < 5 * 2**10 < hi[0])
    True
    >>> m.shares_["n"] > 0.9
    True
    """

    def __init__(
        self,
        basis="auto",
        inference="auto",
        num_samples=500,
        warmup=500,
        num_chains=1,
        prior="horseshoe",
        heteroscedastic=False,
        candidates=None,
        seed=0,
        n_draws=1000,
        svi_steps=1500,
        prune=0.01,
    ):
        self.basis = basis
        self.inference = inference
        self.num_samples = num_samples
        self.warmup = warmup
        self.num_chains = num_chains
        self.prior = prior
        self.heteroscedastic = heteroscedastic
        self.candidates = candidates
        self.seed = seed
        self.n_draws = n_draws
        self.svi_steps = svi_steps
        self.prune = prune

    # -- fitting on (n, p) features ----------------------------------------------------

    def _split_features(self, X: np.ndarray):
        if "n" not in self.features_:
            raise ValueError(f"BayesianBasisRegression needs an 'n' column; features are {self.features_}")
        # Its terms see n and p only: a configuration parameter that varies would be
        # silently ignored (two cut-offs, one prediction), so it is refused instead.
        ignored = [c for i, c in enumerate(self.features_)
                   if c not in ("n", "p") and len(np.unique(X[:, i])) > 1]
        if ignored:
            raise ValueError(f"the basis regression models n and p only and cannot use the varying "
                             f"parameter(s) {ignored}; use the 'laws' model or a GP kernel")
        n = X[:, self.features_.index("n")]
        p = X[:, self.features_.index("p")] if "p" in self.features_ else np.ones(len(n))
        return n, p

    def _resolve_basis(self, p) -> BasisSet:
        if isinstance(self.basis, BasisSet):
            return self.basis
        if self.basis == "auto":
            return strong_scaling() if len(np.unique(p)) > 1 else serial_work()
        if isinstance(self.basis, str):
            return preset(self.basis)
        raise ValueError(f"basis must be 'auto', a preset name or a BasisSet, got {self.basis!r}")

    def _candidate_sets(self, basis: BasisSet) -> list[BasisSet]:
        if self.candidates is None:
            return [basis]
        if isinstance(self.candidates, str):
            if self.candidates != "auto":
                raise ValueError(f"candidates must be None, 'auto' or a list of BasisSet, got {self.candidates!r}")
            return nested_candidates(basis)
        sets = [c if isinstance(c, BasisSet) else BasisSet(c) for c in self.candidates]
        if not sets:
            raise ValueError("candidates is an empty list")
        return sets

    def _fit(self, X, y):
        n, p = self._split_features(X)
        basis = self._resolve_basis(p)
        candidates = self._candidate_sets(basis)
        if len(candidates) == 1:
            chosen = candidates[0]
            result, keep = self._fit_pruned(chosen.design(n, p), y, p, chosen.names)
            self._select([(chosen, result)], y)
        else:
            fits = [(c, self._fit_core(c.design(n, p), y, p, c.names)) for c in candidates]
            chosen = self._select(fits, y)
            keep = self._relevant(next(res for c, res in fits if c is chosen))
            if not keep.all():
                comparison = self.loo_  # keep the candidates' LOO table, not the refit's
                kept = BasisSet([t for t, k in zip(chosen, keep) if k])
                self._select([(kept, self._fit_core(kept.design(n, p), y, p, kept.names))], y)
                self.loo_ = comparison
        chosen = BasisSet([t for t, k in zip(chosen, keep) if k])
        self.basis_ = chosen
        self._store_shares(chosen.design(n, p))
        return self

    def _fit_pruned(self, Phi, y, p, names) -> tuple[dict, np.ndarray]:
        """Fit, drop the terms below the pruning threshold, refit the rest.

        Returns the final fit (on the kept columns only) and the mask of kept columns.
        With NUTS the first fit only decides what to keep, so it is a short run
        (:data:`SCREEN_WARMUP` + :data:`SCREEN_SAMPLES`, diagnostics not reported):
        the decision needs posterior means, not a converged posterior, and a full
        first run doubled the cost. If nothing is pruned the full run is on all terms.
        """
        everything = np.ones(Phi.shape[1], bool)
        if self.prune <= 0:
            return self._fit_core(Phi, y, p, names), everything
        screening = self._method(Phi.shape[0]) == "nuts"
        first = self._fit_core(Phi, y, p, names, screening=screening)
        keep = self._relevant(first)
        if keep.all() and not screening:
            return first, keep
        kept = [nm for nm, k in zip(names, keep) if k]
        return self._fit_core(Phi[:, keep], y, p, kept), keep

    def _relevant(self, res) -> np.ndarray:
        """Mask of terms whose share of the fitted median reaches the pruning threshold
        at some training point (at least the largest term is kept) in fit ``res``.

        The threshold is :attr:`prune`, or two standard errors of the log-scale noise,
        ``2 sigma / sqrt(N)``, when that is larger: on noisy metrics (``no_work``) a term
        whose share stays below that is fit to noise, and it is the terms growing
        fastest in ``n`` that then dominate an extrapolation.
        """
        Phi = np.asarray(res["Phi"], dtype=np.float64)
        contrib = Phi * res["coef"].mean(axis=0)
        total = contrib.sum(axis=1, keepdims=True)
        peak = (contrib / np.where(total > 0, total, 1.0)).max(axis=0)
        resolution = 2.0 * float(np.median(res["sigma"])) / np.sqrt(Phi.shape[0])
        keep = peak >= max(float(self.prune), resolution) if self.prune > 0 else np.ones(len(peak), bool)
        keep[np.argmax(peak)] = True
        return keep

    def fit_design(self, Phi, y, names=None, p=None):
        """Fit with a given non-negative design matrix (N x K) instead of a basis.

        Parameters
        ----------
        Phi : array (N x K)
            Non-negative regressors, e.g. ``create_task * [1, p-1, (p-1)/p]``.
        y : array (N,)
            Positive targets.
        names : list of str, optional
            Column names (default ``x0, x1, ...``).
        p : array (N,), optional
            Worker counts; needed only when ``heteroscedastic``.

        Returns
        -------
        self
        """
        Phi = _check_design(Phi, names)
        names = list(names) if names is not None else [f"x{k}" for k in range(Phi.shape[1])]
        if len(names) != Phi.shape[1]:
            raise ValueError(f"{len(names)} names for {Phi.shape[1]} design columns")
        if self.heteroscedastic and p is None:
            raise ValueError("heteroscedastic=True needs the worker counts: fit_design(Phi, y, p=...)")
        p = np.ones(Phi.shape[0]) if p is None else np.asarray(p, dtype=np.float64).ravel()
        self.features_ = ["design"]
        self.target_ = None
        y = _check_target(y, Phi.shape[0])
        result, keep = self._fit_pruned(Phi, y, p, names)
        # dropped columns keep a coefficient of 0 so the design stays K wide for
        # predict_design
        coef = np.zeros((result["coef"].shape[0], Phi.shape[1]))
        coef[:, keep] = result["coef"]
        result.update(coef=coef, Phi=Phi, names=names)
        self._select([(None, result)], y)
        self.basis_ = None
        self.term_names_ = names
        self._store_shares(Phi)
        return self

    def _fit_core(self, Phi, y, p, names, screening=False) -> dict:
        """Validate, scale, run inference; posterior samples in original units.

        ``screening``: a short NUTS run whose diagnostics are not reported (see
        :meth:`_fit_pruned`).
        """
        Phi = _check_design(Phi, names)
        y = _check_target(y, Phi.shape[0])
        N, K = Phi.shape
        # The sparsity prior is what makes more terms than points well-posed (the
        # usual case: 5 problem sizes, 12 candidate terms); the noise scale still
        # needs a few points to be learned at all.
        if N < MIN_POINTS:
            raise ValueError(
                f"{N} points are too few to fit a basis regression; need at least {MIN_POINTS}"
            )
        if self.prior not in ("horseshoe", "halfnormal"):
            raise ValueError(f"prior must be 'horseshoe' or 'halfnormal', got {self.prior!r}")
        col_scale = Phi.max(axis=0)
        live = col_scale > 0
        if not live.all():
            dead = [names[k] for k in np.flatnonzero(~live)]
            warnings.warn(
                f"term(s) {dead} are zero at every training point; their coefficients are "
                "fixed at 0 (measure where they vary, e.g. more than one worker count)",
                UserWarning,
                stacklevel=4,
            )
        y_scale = float(y.max())
        Ps = Phi[:, live] / col_scale[live]
        ys = y / y_scale
        p = np.asarray(p, dtype=np.float64)
        p_ref = float(np.log2(p.max())) if p.max() > 1 else 1.0
        u = np.log2(p) / p_ref
        method = self._method(N)
        with _one_thread():
            if method == "nuts":
                beta_s, sigma, gamma, diag = self._run_nuts(Ps, ys, u, screening)
            else:
                beta_s, sigma, gamma, diag = self._run_svi(Ps, ys, u)
        coef = np.zeros((beta_s.shape[0], K))
        coef[:, live] = beta_s * y_scale / col_scale[live]
        return {
            "coef": coef,
            "sigma": sigma,
            "gamma": gamma,
            "p_ref": p_ref,
            "diag": diag,
            "Phi": Phi,
            "u": u,
            "names": list(names),
            "chains": diag.get("chains", 1),
        }

    def _method(self, N: int) -> str:
        if self.inference == "auto":
            return "nuts" if N <= NUTS_MAX_POINTS else "svi"
        if self.inference not in ("nuts", "svi"):
            raise ValueError(f"inference must be 'auto', 'nuts' or 'svi', got {self.inference!r}")
        return self.inference

    def _init_values(self, Ps, ys):
        import torch

        beta0, sigma0 = _nnls_start(Ps, ys)
        init = {"beta": torch.as_tensor(beta0), "sigma": torch.tensor(sigma0)}
        if self.heteroscedastic:
            init["gamma"] = torch.tensor(0.1)
        return init

    def _model_args(self, Ps, ys, u):
        import torch

        _ensure_model_classes()
        args = (torch.as_tensor(Ps), torch.as_tensor(ys), torch.as_tensor(u))
        kwargs = {"tau0": TAU0, "prior": self.prior, "heteroscedastic": bool(self.heteroscedastic)}
        return args, kwargs

    def _run_nuts(self, Ps, ys, u, screening=False):
        import pyro
        import torch
        from pyro.infer import MCMC, NUTS
        from pyro.infer.autoguide import init_to_value

        args, kwargs = self._model_args(Ps, ys, u)
        init = self._init_values(Ps, ys)
        chains, divergences = [], 0
        warmup, samples, n_chains = int(self.warmup), int(self.num_samples), int(self.num_chains)
        if screening:
            warmup, samples, n_chains = min(warmup, SCREEN_WARMUP), min(samples, SCREEN_SAMPLES), 1
        for c in range(n_chains):
            pyro.set_rng_seed(int(self.seed) + c)
            # jitter the start per chain so r_hat can see disagreement
            start = {k: v * torch.exp(0.1 * torch.randn_like(v)) for k, v in init.items()} if c else init
            kernel = NUTS(
                basis_model,
                jit_compile=True,
                ignore_jit_warnings=True,
                init_strategy=init_to_value(values=start),
                max_tree_depth=8,
                # the default 0.8 left r_hat 1.3 and ESS 5 on a term near 0 that is
                # correlated with another (n log n vs n log^2 n): the spike of the
                # horseshoe-like prior needs smaller steps there
                target_accept_prob=0.8 if screening else TARGET_ACCEPT,
            )
            mcmc = MCMC(kernel, num_samples=samples, warmup_steps=warmup, disable_progbar=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mcmc.run(*args, **kwargs)
            s = mcmc.get_samples()
            chains.append({k: v.detach().numpy() for k, v in s.items()})
            divergences += int(sum(len(d) for d in mcmc.diagnostics().get("divergences", {}).values()))
        diag = self._mcmc_diagnostics(chains, divergences, report=not screening)
        stack = {k: np.concatenate([ch[k] for ch in chains]) for k in chains[0]}
        gamma = stack.get("gamma", np.zeros(len(stack["sigma"])))
        return stack["beta"], stack["sigma"], gamma, diag

    def _mcmc_diagnostics(self, chains, divergences, report=True) -> dict:
        az = _import_arviz()
        posterior = {k: np.stack([ch[k] for ch in chains]) for k in chains[0]}
        if len(chains) == 1:
            # ArviZ needs two chains for r_hat; split-R-hat compares the two halves anyway
            half = len(chains[0]["sigma"]) // 2
            posterior = {k: np.stack([v[0, :half], v[0, half : 2 * half]]) for k, v in posterior.items()}
        idata = az.from_dict(posterior=posterior)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rhat = az.rhat(idata)
            ess = az.ess(idata, method="bulk")
        r_hat_max = float(max(np.nanmax(rhat[v].values) for v in rhat.data_vars))
        ess_min = float(min(np.nanmin(ess[v].values) for v in ess.data_vars))
        total = sum(len(ch["sigma"]) for ch in chains)
        diag = {
            "inference": "nuts",
            "chains": len(chains),
            "num_samples": total,
            "r_hat_max": r_hat_max,
            "ess_bulk_min": ess_min,
            "divergences": divergences,
        }
        problems = []
        if r_hat_max > RHAT_MAX:
            problems.append(f"r_hat {r_hat_max:.3f} > {RHAT_MAX}")
        # 100 effective draws is the usual floor; short test runs are judged on 1/4 of S
        ess_floor = min(100.0, 0.25 * total)
        if ess_min < ess_floor:
            problems.append(f"bulk ESS {ess_min:.0f} < {ess_floor:.0f}")
        if divergences:
            problems.append(f"{divergences} divergent transitions")
        if problems and report:
            warnings.warn(
                "BayesianBasisRegression NUTS diagnostics are poor (" + "; ".join(problems)
                + "); increase warmup/num_samples, use more chains, or a smaller basis",
                ConvergenceWarning,
                stacklevel=6,
            )
        return diag

    def _run_svi(self, Ps, ys, u):
        import pyro
        import torch
        from pyro.infer import JitTrace_ELBO, SVI, Trace_ELBO
        from pyro.infer.autoguide import AutoMultivariateNormal, init_to_value
        from pyro.optim import ClippedAdam

        args, kwargs = self._model_args(Ps, ys, u)
        pyro.set_rng_seed(int(self.seed))
        pyro.clear_param_store()
        guide = AutoMultivariateNormal(basis_model, init_loc_fn=init_to_value(values=self._init_values(Ps, ys)),
                                       init_scale=0.01)
        steps = int(self.svi_steps)
        # decay the learning rate 100x over the run so the end is not noisy
        optim = ClippedAdam({"lr": SVI_LR, "lrd": 0.01 ** (1.0 / max(steps, 1))})
        elbo = JitTrace_ELBO(ignore_jit_warnings=True) if JIT_SVI else Trace_ELBO()
        svi = SVI(basis_model, guide, optim, elbo)
        losses = []
        # Each JitTrace_ELBO trace is registered in torch's process-wide TorchScript
        # compilation unit and never freed; with the optimising executor's plans that
        # is ~16 MB a run, 28 SVI runs a DagModel fit: +450 MB a fit. Without executor
        # optimisation only the bare graph stays (~2.5 MB a run: +72 MB a fit), and
        # these short runs are no slower for it (benchmarks/bench_memory.py).
        with warnings.catch_warnings(), torch.jit.optimized_execution(False):
            warnings.simplefilter("ignore")
            for _ in range(steps):
                losses.append(svi.step(*args, **kwargs))
        S = int(self.num_samples)
        with torch.no_grad():
            draws = [guide(*args, **kwargs) for _ in range(S)]
        beta = np.stack([d["beta"].numpy() for d in draws])
        sigma = np.array([float(d["sigma"]) for d in draws])
        gamma = np.array([float(d["gamma"]) for d in draws]) if self.heteroscedastic else np.zeros(S)
        diag = {"inference": "svi", "chains": 1, "num_samples": S, "steps": steps,
                "final_loss": float(np.mean(losses[-50:]))}
        return beta, sigma, gamma, diag

    # -- LOO selection -----------------------------------------------------------------

    def _select(self, fits, y) -> BasisSet | None:
        az = _import_arviz()
        idatas = {}
        for i, (cand, res) in enumerate(fits):
            median = res["coef"] @ res["Phi"].T
            scale = res["sigma"][:, None] * np.exp(res["gamma"][:, None] * res["u"][None, :])
            ll = _lognormal_loglik(y, median, scale)
            chains = res["chains"]
            label = _label(cand, res["names"], i)
            idatas[label] = az.from_dict(
                posterior={"sigma": res["sigma"].reshape(chains, -1)},
                log_likelihood={"y": ll.reshape(chains, -1, ll.shape[1])},
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if len(idatas) == 1:
                (label, idata), = idatas.items()
                loo = az.loo(idata)
                table = pd.DataFrame(
                    {"rank": [0], "elpd_loo": [loo.elpd_loo], "p_loo": [loo.p_loo],
                     "elpd_diff": [0.0], "se": [loo.se], "dse": [0.0],
                     "warning": [bool(loo.warning)]}, index=[label])
            else:
                table = az.compare(idatas, ic="loo")
        table = table.assign(terms=[len(fits[list(idatas).index(lab)][1]["names"]) for lab in table.index])
        pick = _one_se_choice(table)
        self.loo_ = table
        cand, res = fits[list(idatas).index(pick)]
        self._set_posterior(res)
        return cand

    def _set_posterior(self, res):
        self.coef_samples_ = res["coef"]
        self.sigma_samples_ = res["sigma"]
        self.gamma_samples_ = res["gamma"]
        self.p_ref_ = res["p_ref"]
        self.term_names_ = res["names"]
        self.diagnostics_ = res["diag"]

    def _store_shares(self, Phi):
        self.shares_ = dict(zip(self.term_names_, self.term_shares(Phi).tolist()))

    # -- prediction --------------------------------------------------------------------

    def term_shares(self, Phi) -> np.ndarray:
        """Each term's share of the fitted median, averaged over the rows of ``Phi``.

        For point ``x`` the share of term ``k`` is ``E[beta_k] Phi_k(x) / sum_i E[beta_i]
        Phi_i(x)`` (posterior means); the result is its mean over the points, so every
        point counts equally whatever its size (the noise is relative, too). Shares sum
        to 1.
        """
        contrib = np.asarray(Phi, dtype=np.float64) * self.coef_samples_.mean(axis=0)
        total = contrib.sum(axis=1, keepdims=True)
        return np.mean(contrib / np.where(total > 0, total, 1.0), axis=0)

    def predict_design(self, Phi, n_draws=None, seed=0, noise=True, p=None) -> np.ndarray:
        """Posterior-predictive draws (n_draws x N) for a design matrix.

        Parameters
        ----------
        Phi : array (N x K) or (n_draws x N x K)
            One design for all draws, or one per draw (draw ``s`` of an upstream model
            feeding draw ``s`` here).
        n_draws : int, optional
            Default: ``Phi.shape[0]`` for a per-draw design, else :attr:`n_draws`.
        seed : int, optional
            Seed of the observation noise.
        noise : bool
            Include the multiplicative observation noise (False: draws of the median).
        p : array (N,), optional
            Worker counts, for the heteroscedastic noise (default 1).
        """
        self._check_posterior()
        Phi = np.asarray(Phi, dtype=np.float64)
        K = self.coef_samples_.shape[1]
        if Phi.ndim not in (2, 3) or Phi.shape[-1] != K:
            raise ValueError(f"design must be (N x {K}) or (draws x N x {K}), got shape {Phi.shape}")
        if Phi.ndim == 3:
            if n_draws is not None and int(n_draws) != Phi.shape[0]:
                raise ValueError(f"per-draw design has {Phi.shape[0]} draws but n_draws={n_draws}")
            n_draws = Phi.shape[0]
        n_draws = draw_count(n_draws, self.n_draws)
        idx = draw_index(n_draws, self.coef_samples_.shape[0])
        beta = self.coef_samples_[idx]
        if Phi.ndim == 2:
            median = beta @ Phi.T
        else:
            median = np.einsum("snk,sk->sn", Phi, beta)
        if not noise:
            return median
        N = median.shape[1]
        p = np.ones(N) if p is None else np.broadcast_to(np.asarray(p, dtype=np.float64), (N,))
        rng = np.random.default_rng(seed)
        # in place: 10,000 points x 1,000 draws is 80 MB per temporary
        eps = rng.standard_normal((n_draws, N))
        eps *= self.sigma_samples_[idx][:, None]
        gamma = self.gamma_samples_[idx]
        if np.any(gamma != 0):
            eps *= np.exp(gamma[:, None] * (np.log2(p) / self.p_ref_)[None, :])
        np.exp(eps, out=eps)
        eps *= median
        return eps

    def predict_median_design(self, Phi) -> np.ndarray:
        """Posterior median of the fitted median ``Phi @ beta`` per row of ``Phi`` (N,)."""
        return np.median(self.predict_design(Phi, n_draws=self.coef_samples_.shape[0], noise=False), axis=0)

    def _check_posterior(self):
        if not hasattr(self, "coef_samples_"):
            raise RuntimeError("BayesianBasisRegression is not fitted; call fit() or fit_design() first")

    def predict(self, X, n_draws=None, seed=0, noise=True):
        """Joint posterior-predictive draws at points ``X`` (columns ``n`` and maybe ``p``)."""
        self._check_posterior()
        if self.basis_ is None:
            raise RuntimeError("this model was fitted with fit_design(); predict with predict_design(Phi)")
        return super().predict(X, n_draws=n_draws, seed=seed, noise=noise)

    def _predict_draws(self, X, n_draws, seed, noise=True):
        if self.basis_ is None:
            raise RuntimeError("this model was fitted with fit_design(); predict with predict_design(Phi)")
        n, p = self._split_features(X)
        Phi = self.basis_.design(n, p)
        return self.predict_design(Phi, n_draws=n_draws, seed=seed, noise=noise, p=p)

    # -- persistence -------------------------------------------------------------------

    _fitted = ("basis_", "term_names_", "p_ref_", "diagnostics_", "shares_", "loo_",
               "coef_samples_", "sigma_samples_", "gamma_samples_")

    def _loaded(self) -> None:
        for f in ("coef_samples_", "sigma_samples_", "gamma_samples_"):
            setattr(self, f, np.asarray(getattr(self, f), dtype=np.float64))
        self.p_ref_ = float(self.p_ref_)


def _label(cand, names, i) -> str:
    if cand is None:
        return "design"
    js = max(t.j for t in cand)
    ks = max(t.k for t in cand)
    return f"{len(names)} terms (j<={js:g}, k<={ks})#{i}"


def _one_se_choice(table: pd.DataFrame) -> str:
    """Fewest terms whose elpd is within one standard error (dse) of the best."""
    best = table["elpd_loo"].max()
    ok = table[table["elpd_loo"] >= best - table["dse"].fillna(0.0)]
    return ok.sort_values(["terms", "elpd_loo"], ascending=[True, False]).index[0]


def nested_candidates(basis: BasisSet) -> list[BasisSet]:
    """Nested subsets of ``basis`` by largest n-exponent ``j`` and log power ``k``.

    For each ``J`` among the basis' exponents >= 1 (or all, if none is), the terms with
    ``j <= J`` and ``k <= 1``, then with ``k <= max k``; duplicates dropped. For
    :func:`~probperf.basis.serial_work` this gives 6 sets of 4 to 12 terms.

    Examples
    --------
    >>> [len(b) for b in nested_candidates(serial_work())]
    [4, 6, 6, 9, 8, 12]
    """
    js = sorted({t.j for t in basis})
    js = [j for j in js if j >= 1] or js
    kmax = max(t.k for t in basis)
    out: list[BasisSet] = []
    for J in js:
        for K in sorted({min(1, kmax), kmax}):
            terms = [t for t in basis if t.j <= J and t.k <= K]
            if terms and BasisSet(terms) not in out:
                out.append(BasisSet(terms))
    return out
