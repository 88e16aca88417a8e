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

Code layout. The Pyro model is :mod:`probperf.models.basis_model`, the inference
engines :mod:`probperf.models.inference`, the candidate sets, LOO comparison and
pruning rule :mod:`probperf.models.basis_selection`; this module scales a design, runs
them (``_BasisFitter``) and keeps the chosen posterior (the estimator).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from .. import persist, userwarn
from ..basis import BasisSet
from ..limits import draw_count
from .base import MetricModel
from .basis_model import basis_model, model_inputs
# nested_candidates is re-exported: it was public here before the modules were split
from .basis_selection import candidate_sets, loo_table, nested_candidates, relevant_terms, resolve_basis  # noqa: F401
from .inference import ConvergenceWarning, mcmc_diagnostics, mcmc_problems, one_thread, run_nuts, run_svi

#: ``inference="auto"`` uses NUTS up to this many training points, SVI above.
NUTS_MAX_POINTS = 200
#: NUTS target acceptance probability of the reported runs.
TARGET_ACCEPT = 0.95
#: Warm-up steps and kept draws of the short NUTS run that decides which terms to prune.
SCREEN_WARMUP = 150
SCREEN_SAMPLES = 100

#: Fewest data points a fit accepts.
MIN_POINTS = 3

# The estimator's parameters that say how one design is fitted (see _BasisFitter).
_FIT_PARAMS = ("inference", "num_samples", "warmup", "num_chains", "prior", "heteroscedastic",
               "seed", "svi_steps", "prune")


# ---- input checks ---------------------------------------------------------------------


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


def _diagnose(chains, divergences, report=True) -> dict:
    """NUTS diagnostics of ``chains``; warns (:class:`ConvergenceWarning`) if poor and ``report``."""
    diag = mcmc_diagnostics(chains, divergences)
    problems = mcmc_problems(diag)
    if problems and report:
        userwarn.warn(
            "BayesianBasisRegression NUTS diagnostics are poor (" + "; ".join(problems)
            + "); increase warmup/num_samples, use more chains, or a smaller basis",
            ConvergenceWarning,
        )
    return diag


# ---- fitting one design ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _BasisFitter:
    """Fits the basis model to one design matrix: checks, unit scaling, inference, pruning.

    Holds the estimator's parameters that say *how* to fit (:data:`_FIT_PARAMS`), not
    what was fitted: a fit is returned as a dict (see
    :mod:`probperf.models.basis_selection`) and the estimator keeps the chosen one.
    """

    inference: str
    num_samples: int
    warmup: int
    num_chains: int
    prior: str
    heteroscedastic: bool
    seed: int
    svi_steps: int
    prune: float

    def method(self, N: int) -> str:
        if self.inference == "auto":
            return "nuts" if N <= NUTS_MAX_POINTS else "svi"
        if self.inference not in ("nuts", "svi"):
            raise ValueError(f"inference must be 'auto', 'nuts' or 'svi', got {self.inference!r}")
        return self.inference

    def fit_pruned(self, Phi, y, p, names) -> tuple[dict, np.ndarray]:
        """Fit, drop the terms below the pruning threshold, refit the rest.

        Returns the final fit (on the kept columns only) and the mask of kept columns.
        With NUTS the first fit only decides what to keep, so it is a short run
        (:data:`SCREEN_WARMUP` + :data:`SCREEN_SAMPLES`, diagnostics not reported):
        the decision needs posterior means, not a converged posterior, and a full
        first run doubled the cost. If nothing is pruned the full run is on all terms.
        """
        everything = np.ones(Phi.shape[1], bool)
        if self.prune <= 0:
            return self.fit(Phi, y, p, names), everything
        screening = self.method(Phi.shape[0]) == "nuts"
        first = self.fit(Phi, y, p, names, screening=screening)
        keep = relevant_terms(first, self.prune)
        if keep.all() and not screening:
            return first, keep
        kept = [nm for nm, k in zip(names, keep) if k]
        return self.fit(Phi[:, keep], y, p, kept), keep

    def fit(self, Phi, y, p, names, screening=False) -> dict:
        """Validate, scale, run inference; posterior samples in original units.

        ``screening``: a short NUTS run whose diagnostics are not reported (see
        :meth:`fit_pruned`).
        """
        Phi = _check_design(Phi, names)
        y = _check_target(y, Phi.shape[0])
        self._check_size_and_prior(Phi.shape[0])
        col_scale, live = _column_scales(Phi, names)
        y_scale = float(y.max())
        p = np.asarray(p, dtype=np.float64)
        p_ref = float(np.log2(p.max())) if p.max() > 1 else 1.0
        u = np.log2(p) / p_ref
        # unit-scaled problem: the priors are unit-scale whatever the data's units
        with one_thread():
            beta_s, sigma, gamma, diag = self._sample(Phi[:, live] / col_scale[live], y / y_scale, u, screening)
        coef = np.zeros((beta_s.shape[0], Phi.shape[1]))
        coef[:, live] = beta_s * y_scale / col_scale[live]
        return {"coef": coef, "sigma": sigma, "gamma": gamma, "p_ref": p_ref, "diag": diag,
                "Phi": Phi, "u": u, "names": list(names), "chains": diag.get("chains", 1)}

    def _check_size_and_prior(self, N: int) -> None:
        # The sparsity prior is what makes more terms than points well-posed (the
        # usual case: 5 problem sizes, 12 candidate terms); the noise scale still
        # needs a few points to be learned at all.
        if N < MIN_POINTS:
            raise ValueError(
                f"{N} points are too few to fit a basis regression; need at least {MIN_POINTS}"
            )
        if self.prior not in ("horseshoe", "halfnormal"):
            raise ValueError(f"prior must be 'horseshoe' or 'halfnormal', got {self.prior!r}")

    def _sample(self, Ps, ys, u, screening):
        """Posterior draws of beta, sigma, gamma (zeros if homoscedastic) and diagnostics."""
        args, kwargs, init = model_inputs(Ps, ys, u, self.prior, self.heteroscedastic)
        if self.method(len(ys)) == "nuts":
            samples, diag = self._nuts(args, kwargs, init, screening)
        else:
            samples, diag = run_svi(basis_model, args, kwargs, init, seed=self.seed,
                                    steps=self.svi_steps, num_samples=self.num_samples)
        gamma = samples.get("gamma", np.zeros(len(samples["sigma"])))
        return samples["beta"], samples["sigma"], gamma, diag

    def _nuts(self, args, kwargs, init, screening):
        warmup, samples, n_chains = int(self.warmup), int(self.num_samples), int(self.num_chains)
        if screening:
            warmup, samples, n_chains = min(warmup, SCREEN_WARMUP), min(samples, SCREEN_SAMPLES), 1
        chains, divergences = run_nuts(
            basis_model, args, kwargs, init, seed=self.seed, warmup=warmup, num_samples=samples,
            num_chains=n_chains,
            # the default 0.8 left r_hat 1.3 and ESS 5 on a term near 0 that is
            # correlated with another (n log n vs n log^2 n): the spike of the
            # horseshoe-like prior needs smaller steps there
            target_accept=0.8 if screening else TARGET_ACCEPT,
        )
        diag = _diagnose(chains, divergences, report=not screening)
        return {k: np.concatenate([ch[k] for ch in chains]) for k in chains[0]}, diag


def _column_scales(Phi, names):
    """Each column's largest training value, and which columns are not all zero."""
    col_scale = Phi.max(axis=0)
    live = col_scale > 0
    if not live.all():
        dead = [names[k] for k in np.flatnonzero(~live)]
        userwarn.warn(
            f"term(s) {dead} are zero at every training point; their coefficients are "
            "fixed at 0 (measure where they vary, e.g. more than one worker count)",
        )
    return col_scale, live


# ---- predictive draws -----------------------------------------------------------------


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

    # -- fitting -----------------------------------------------------------------------

    def _fitter(self) -> _BasisFitter:
        return _BasisFitter(**{name: getattr(self, name) for name in _FIT_PARAMS})

    def _fit(self, X, y):
        n, p = _n_and_p(X, self.features_)
        candidates = candidate_sets(self.candidates, resolve_basis(self.basis, p))
        fitter = self._fitter()
        if len(candidates) == 1:
            chosen = candidates[0]
            result, keep = fitter.fit_pruned(chosen.design(n, p), y, p, chosen.names)
            self._select([(chosen, result)], y)
        else:
            fits = [(c, fitter.fit(c.design(n, p), y, p, c.names)) for c in candidates]
            chosen = self._select(fits, y)
            keep = relevant_terms(next(res for c, res in fits if c is chosen), self.prune)
            if not keep.all():
                comparison = self.loo_  # keep the candidates' LOO table, not the refit's
                kept = BasisSet([t for t, k in zip(chosen, keep) if k])
                self._select([(kept, fitter.fit(kept.design(n, p), y, p, kept.names))], y)
                self.loo_ = comparison
        chosen = BasisSet([t for t, k in zip(chosen, keep) if k])
        self.basis_ = chosen
        self._store_shares(chosen.design(n, p))
        return self

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

        Examples
        --------
        A delay of a constant plus a cost per extra worker, ``2 + 0.5 (p - 1)``:

        >>> p = np.array([1.0, 2.0, 4.0, 8.0])
        >>> Phi = np.c_[np.ones(4), p - 1]
        >>> model = BayesianBasisRegression(inference="svi", svi_steps=50, num_samples=100)
        >>> model = model.fit_design(Phi, 2 + 0.5 * (p - 1), names=["1", "p-1"])
        >>> model.term_names_, model.coef_samples_.mean(axis=0).round(1).tolist()
        (['1', 'p-1'], [2.0, 0.5])
        """
        with self._fitting():
            Phi, names, p = _design_inputs(Phi, names, p, self.heteroscedastic)
            self.features_ = ["design"]
            self.target_ = None
            y = _check_target(y, Phi.shape[0])
            result, keep = self._fitter().fit_pruned(Phi, y, p, names)
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

    def _select(self, fits, y) -> BasisSet | None:
        """Keep the LOO-chosen fit's posterior (and the table); return its candidate."""
        self.loo_, chosen = loo_table(fits, y)
        cand, res = fits[chosen]
        self.coef_samples_ = res["coef"]
        self.sigma_samples_ = res["sigma"]
        self.gamma_samples_ = res["gamma"]
        self.p_ref_ = res["p_ref"]
        self.term_names_ = res["names"]
        self.diagnostics_ = res["diag"]
        return cand

    def _store_shares(self, Phi):
        self.shares_ = dict(zip(self.term_names_, self.term_shares(Phi).tolist()))

    # -- prediction --------------------------------------------------------------------

    def term_shares(self, Phi) -> np.ndarray:
        """Each term's share of the fitted median, averaged over the rows of ``Phi``.

        For point ``x`` the share of term ``k`` is ``E[beta_k] Phi_k(x) / sum_i E[beta_i]
        Phi_i(x)`` (posterior means); the result is its mean over the points, so every
        point counts equally whatever its size (the noise is relative, too). Shares sum
        to 1.

        Examples
        --------
        >>> p = np.array([1.0, 2.0, 4.0, 8.0])
        >>> Phi = np.c_[np.ones(4), p - 1]
        >>> model = BayesianBasisRegression(inference="svi", svi_steps=50, num_samples=100)
        >>> model = model.fit_design(Phi, 2 + 0.5 * (p - 1))
        >>> model.term_shares(Phi).round(1).tolist()
        [0.7, 0.3]
        >>> model.term_shares(Phi[:1]).tolist()  # one worker: no cost per extra worker
        [1.0, 0.0]
        """
        self._check_posterior()
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

        Examples
        --------
        >>> p = np.array([1.0, 2.0, 4.0, 8.0])
        >>> model = BayesianBasisRegression(inference="svi", svi_steps=50, num_samples=100).fit_design(
        ...     np.c_[np.ones(4), p - 1], 2 + 0.5 * (p - 1))
        >>> draws = model.predict_design(np.array([[1.0, 14.0]]), n_draws=100, seed=0)  # at p = 15
        >>> draws.shape, round(float(np.median(draws)))
        ((100, 1), 9)
        """
        self._check_posterior()
        Phi, n_draws = _design_and_draws(Phi, n_draws, self.coef_samples_.shape[1])
        idx = draw_index(draw_count(n_draws, self.n_draws), self.coef_samples_.shape[0])
        beta = self.coef_samples_[idx]
        median = beta @ Phi.T if Phi.ndim == 2 else np.einsum("snk,sk->sn", Phi, beta)
        if not noise:
            return median
        N = median.shape[1]
        p = np.ones(N) if p is None else np.broadcast_to(np.asarray(p, dtype=np.float64), (N,))
        return _times_noise(median, self.sigma_samples_[idx], self.gamma_samples_[idx], p, self.p_ref_, seed)

    def predict_median_design(self, Phi) -> np.ndarray:
        """Posterior median of the fitted median ``Phi @ beta`` per row of ``Phi`` (N,).

        Examples
        --------
        >>> p = np.array([1.0, 2.0, 4.0, 8.0])
        >>> model = BayesianBasisRegression(inference="svi", svi_steps=50, num_samples=100).fit_design(
        ...     np.c_[np.ones(4), p - 1], 2 + 0.5 * (p - 1))
        >>> model.predict_median_design(np.array([[1.0, 0.0], [1.0, 14.0]])).round().tolist()
        [2.0, 9.0]
        """
        return np.median(self.predict_design(Phi, n_draws=self.coef_samples_.shape[0], noise=False), axis=0)

    def _check_posterior(self):
        if not hasattr(self, "coef_samples_"):
            raise RuntimeError("BayesianBasisRegression is not fitted; call fit() or fit_design() first")

    def predict(self, X, n_draws=None, seed=0, noise=True):
        """Joint posterior-predictive draws at points ``X`` (columns ``n`` and maybe ``p``).

        Examples
        --------
        >>> n = np.array([16.0, 32.0, 64.0, 128.0, 256.0])
        >>> model = BayesianBasisRegression(basis="serial_work", inference="svi", svi_steps=50, num_samples=100)
        >>> model = model.fit({"n": n}, 5 * n)
        >>> model.basis_  # the terms the data need, of the 12 in serial_work
        BasisSet([n])
        >>> pred = model.predict({"n": [512.0, 1024.0]}, n_draws=200)
        >>> pred.draws.shape, (pred.median / [2560.0, 5120.0]).round(1).tolist()
        ((200, 2), [1.0, 1.0])
        """
        self._check_posterior()
        self._check_basis()
        return super().predict(X, n_draws=n_draws, seed=seed, noise=noise)

    def _predict_draws(self, X, n_draws, seed, noise=True):
        self._check_basis()
        n, p = _n_and_p(X, self.features_)
        Phi = self.basis_.design(n, p)
        return self.predict_design(Phi, n_draws=n_draws, seed=seed, noise=noise, p=p)

    def _check_basis(self):
        if self.basis_ is None:
            raise RuntimeError("this model was fitted with fit_design(); predict with predict_design(Phi)")

    # -- persistence -------------------------------------------------------------------

    _fitted = ("basis_", "term_names_", "p_ref_", "diagnostics_", "shares_", "loo_",
               "coef_samples_", "sigma_samples_", "gamma_samples_")

    def _loaded(self) -> None:
        for f in ("coef_samples_", "sigma_samples_", "gamma_samples_"):
            setattr(self, f, np.asarray(getattr(self, f), dtype=np.float64))
        self.p_ref_ = float(self.p_ref_)


def _n_and_p(X: np.ndarray, features) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` and ``p`` columns of ``X`` (``p`` is 1 if absent)."""
    if "n" not in features:
        raise ValueError(f"BayesianBasisRegression needs an 'n' column; features are {features}")
    # Its terms see n and p only: a configuration parameter that varies would be
    # silently ignored (two cut-offs, one prediction), so it is refused instead.
    ignored = [c for i, c in enumerate(features)
               if c not in ("n", "p") and len(np.unique(X[:, i])) > 1]
    if ignored:
        raise ValueError(f"the basis regression models n and p only and cannot use the varying "
                         f"parameter(s) {ignored}; use the 'laws' model or a GP kernel")
    n = X[:, features.index("n")]
    p = X[:, features.index("p")] if "p" in features else np.ones(len(n))
    return n, p


def _design_inputs(Phi, names, p, heteroscedastic):
    """``fit_design``'s design, column names (default ``x0, x1, ...``) and worker counts."""
    Phi = _check_design(Phi, names)
    names = list(names) if names is not None else [f"x{k}" for k in range(Phi.shape[1])]
    if len(names) != Phi.shape[1]:
        raise ValueError(f"{len(names)} names for {Phi.shape[1]} design columns")
    if heteroscedastic and p is None:
        raise ValueError("heteroscedastic=True needs the worker counts: fit_design(Phi, y, p=...)")
    p = np.ones(Phi.shape[0]) if p is None else np.asarray(p, dtype=np.float64).ravel()
    return Phi, names, p


def _design_and_draws(Phi, n_draws, K):
    """``Phi`` as a float array of a valid shape, and the draw count a per-draw design fixes."""
    Phi = np.asarray(Phi, dtype=np.float64)
    if Phi.ndim not in (2, 3) or Phi.shape[-1] != K:
        raise ValueError(f"design must be (N x {K}) or (draws x N x {K}), got shape {Phi.shape}")
    if Phi.ndim == 3:
        if n_draws is not None and int(n_draws) != Phi.shape[0]:
            raise ValueError(f"per-draw design has {Phi.shape[0]} draws but n_draws={n_draws}")
        n_draws = Phi.shape[0]
    return Phi, n_draws


def _times_noise(median, sigma, gamma, p, p_ref, seed) -> np.ndarray:
    """``median`` (draws x N) times LogNormal(0, sigma exp(gamma log2(p) / p_ref)) noise,
    with one sigma and gamma per draw."""
    rng = np.random.default_rng(seed)
    # in place: 10,000 points x 1,000 draws is 80 MB per temporary
    eps = rng.standard_normal(median.shape)
    eps *= sigma[:, None]
    if np.any(gamma != 0):
        eps *= np.exp(gamma[:, None] * (np.log2(p) / p_ref)[None, :])
    np.exp(eps, out=eps)
    eps *= median
    return eps
