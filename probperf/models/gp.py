"""Exact Gaussian-process metric model (GPyTorch).

The GP works on transformed scales: inputs go to log2 where positive
(:func:`~probperf.transforms.log_mask`) and are standardised; a positive metric goes
to the natural log and is standardised. The kernel is a spec string parsed by
:func:`~probperf.models.kernels.parse_kernel`. The mean function is

* ``"constant"``;
* ``"linear"``: linear in log inputs for a log target, i.e. a power law
  ``y ~ c n^a p^b`` on the original scale, so the GP only has to model the deviation
  from a power law and extrapolation falls back to the power law;
* a :class:`~probperf.models.base.MetricModel` (normally a
  :class:`~probperf.models.BayesianBasisRegression`): the GP models the log residual
  ``log y - log m(X)`` where ``m`` is that model's posterior-predictive *median*, and a
  draw is ``m(X) * exp(GP draw)``. The mean model's own parameter uncertainty is not
  propagated (its median is treated as a fixed function); the GP's residual
  uncertainty is what widens the intervals. An unfitted model is fitted (a copy) on
  the same data first.

Hyper-parameters are fitted by type-II maximum likelihood in float64: Adam, then
L-BFGS, from ``n_restarts`` initialisations (the first spectral-mixture start uses the
data's empirical spectrum), keeping the restart with the largest final marginal
log-likelihood. A restart whose Cholesky factorisation fails despite jitter is skipped.
With more than ``screen_points`` observations the restarts are compared on a random
subset and only the winner is refined on all the data (this is what keeps an ``sm4``
fit on 1,000 points with 3 restarts well under a minute).

Predictions are joint posterior-predictive draws (observation noise included unless
``noise=False``). "Joint" means: up to ``joint_block`` points (default 1,000) are one
draw from the exact joint predictive distribution; larger sets are cut into blocks of
neighbouring points (sorted on the inputs), joint within a block and independent
between blocks. Cross-block correlations are the price of predicting 10,000 points x
1,000 draws in about a second and a half of CPU time instead of factorising a
10,000 x 10,000 covariance.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import torch
import gpytorch
from gpytorch.constraints import GreaterThan
from gpytorch.distributions import MultivariateNormal
from gpytorch.likelihoods import GaussianLikelihood
from gpytorch.means import ConstantMean, LinearMean
from gpytorch.mlls import ExactMarginalLogLikelihood

from .. import persist
from ..transforms import Standardizer, log_inputs, log_mask, log_target
from .base import MetricModel
from .kernels import (
    init_spectral_mixture,
    parse_kernel,
    randomise_lengthscales,
    seeded,
    spectral_kernels,
)

MEANS = ("constant", "linear")

#: Above this many training points GPyTorch would switch from Cholesky to CG; keep
#: exact Cholesky up to here (1,000-4,000 points is the expected range).
MAX_CHOLESKY = 6000

_DTYPE = torch.float64


class GPFitError(RuntimeError):
    """Every restart of the hyper-parameter optimisation failed.

    A :class:`RuntimeError`; the message names the kernel and each restart's failure.

    Examples
    --------
    >>> issubclass(GPFitError, RuntimeError)
    True
    >>> raise GPFitError("all 2 GP restarts failed (kernel 'rbf'): restart 0: not PD")
    Traceback (most recent call last):
    ...
    probperf.models.gp.GPFitError: all 2 GP restarts failed (kernel 'rbf'): restart 0: not PD
    """


class _ExactGP(gpytorch.models.ExactGP):
    def __init__(self, x, y, likelihood, mean_module, covar_module):
        super().__init__(x, y, likelihood)
        self.mean_module = mean_module
        self.covar_module = covar_module

    def forward(self, x):
        return MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _numerics():
    """GPyTorch settings used for fitting and prediction.

    Exact Cholesky (not CG/Lanczos) up to :data:`MAX_CHOLESKY` points, escalating
    jitter before giving up, and a CG cap for the large-N fallback.
    """
    stack = contextlib.ExitStack()
    # Jitter added by GPyTorch is expected here (and failures are handled), not news.
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore", gpytorch.utils.warnings.NumericalWarning)
    stack.enter_context(gpytorch.settings.max_cholesky_size(MAX_CHOLESKY))
    stack.enter_context(gpytorch.settings.cholesky_jitter(float_value=1e-6, double_value=1e-8))
    stack.enter_context(gpytorch.settings.cholesky_max_tries(6))
    stack.enter_context(gpytorch.settings.max_cg_iterations(2000))
    return stack


@persist.register
class GaussianProcessModel(MetricModel):
    """Exact GP regression of one metric on log scales.

    Parameters
    ----------
    kernel : str
        Kernel spec (``"sm4"``, ``"rbf"``, ``"matern52"``, ``"sm4+linear"``,
        ``"rbf*periodic+linear"``...; see :func:`~probperf.models.kernels.parse_kernel`).
    mean : {"constant", "linear"} or MetricModel
        Mean function; ``"linear"`` is a power law on the original scale. A metric model
        makes the GP model the log residual around that model's median.
    n_restarts : int
        Optimisation restarts; the best final marginal likelihood wins.
    adam_iters, lbfgs_iters : int
        Adam steps, then L-BFGS iterations (either may be 0).
    lr : float
        Adam learning rate.
    noise_floor : float
        Lower bound on the noise variance (standardised target scale).
    ard : bool
        One lengthscale per input dimension for the stationary kernels.
    seed : int
        Seed of the restarts' initialisations.
    device : str
        ``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when available).
    n_draws : int
        Default number of predictive draws.
    joint_block : int
        Up to this many prediction points are drawn jointly in one block; more points
        are split into blocks of neighbouring points (see :meth:`_predict_draws`).
    screen_points : int
        With more training points than this, restarts are compared on a random subset
        of this size and only the best is refined (L-BFGS) on all the data.
    linear_inputs : sequence of str
        Features kept on their own scale instead of log2. With the ``"linear"`` mean
        and a log target the fallback law is then exponential in them,
        ``y ~ c a^n``: the growth of fib or n-queens in their argument, which no power
        law extrapolates.

    Attributes
    ----------
    log_mask_ : ndarray of bool
        Inputs modelled on log2 scale.
    log_target_ : bool
        Whether the target is modelled on log scale (all training values positive).
    floor_ : float
        On the natural scale, the value draws are cut at: 0 for a target with zeros
        and no negative value (a metric such as the idle time); absent otherwise.
    mll_ : float
        Marginal log-likelihood of the kept model on all training data (standardised
        target scale).
    restart_mlls_ : list of float or None
        Final marginal log-likelihood per restart (``None``: the restart failed), on
        the screening subset when there is one.
    mean_model_ : MetricModel or None
        The fitted mean model when ``mean`` is a model.

    Examples
    --------
    >>> n = 2.0 ** np.arange(4, 14)
    >>> X = pd.DataFrame({"n": n, "p": 1})
    >>> gp = GaussianProcessModel("rbf", n_restarts=1, adam_iters=30, lbfgs_iters=10)
    >>> gp = gp.fit(X, 1e-6 * n * np.log2(n))
    >>> pred = gp.predict({"n": [2.0 ** 14], "p": 1}, n_draws=200)
    >>> pred.draws.shape
    (200, 1)
    >>> bool(0.8 < pred.median[0] / (1e-6 * 2**14 * 14) < 1.25)
    True
    """

    def __init__(
        self,
        kernel: str = "sm4",
        mean="linear",
        n_restarts: int = 3,
        adam_iters: int = 100,
        lbfgs_iters: int = 50,
        lr: float = 0.05,
        noise_floor: float = 1e-4,
        ard: bool = True,
        seed: int = 0,
        device: str = "cpu",
        n_draws: int = 1000,
        joint_block: int = 1000,
        screen_points: int = 300,
        linear_inputs: tuple = (),
    ):
        self.kernel = kernel
        self.mean = mean
        self.n_restarts = n_restarts
        self.adam_iters = adam_iters
        self.lr = lr
        self.lbfgs_iters = lbfgs_iters
        self.noise_floor = noise_floor
        self.ard = ard
        self.seed = seed
        self.device = device
        self.n_draws = n_draws
        self.joint_block = joint_block
        self.screen_points = screen_points
        self.linear_inputs = linear_inputs

    # -- parameters -------------------------------------------------------------

    def _check_params(self, n_dims: int) -> None:
        parse_kernel(self.kernel, n_dims, ard=self.ard)  # raises on a bad spec
        if not (isinstance(self.mean, MetricModel) or self.mean in MEANS):
            raise ValueError(
                f"mean must be one of {MEANS} or a MetricModel, got {self.mean!r}"
            )
        _check_ranges(self.get_params())
        self.device_ = _resolve_device(self.device)

    # -- fitting -----------------------------------------------------------------

    def _fit(self, X: np.ndarray, y: np.ndarray) -> None:
        self._check_params(X.shape[1])
        unknown = set(self.linear_inputs) - set(self.features_)
        if unknown:
            raise ValueError(f"linear_inputs {sorted(unknown)} are not features; features are {self.features_}")
        self.log_mask_ = log_mask(X) & ~np.isin(self.features_, list(self.linear_inputs))
        Z = log_inputs(X, self.log_mask_)
        self.x_scaler_ = Standardizer().fit(Z)
        t = self._target_scale(X, y)
        self.y_scaler_ = Standardizer().fit(t[:, None])
        x = torch.as_tensor(self.x_scaler_.transform(Z), dtype=_DTYPE, device=self.device_)
        ty = torch.as_tensor(
            self.y_scaler_.transform(t[:, None])[:, 0], dtype=_DTYPE, device=self.device_
        )
        with _threads_for(len(ty)):
            self.model_, self.mll_, self.restart_mlls_ = self._restarts().run(x, ty)
        self.model_.eval()

    def _restarts(self) -> _Restarts:
        return _Restarts(
            kernel=self.kernel, linear_mean=bool(self.mean == "linear"), ard=self.ard,
            noise_floor=float(self.noise_floor), seed=int(self.seed), n_restarts=self.n_restarts,
            adam_iters=int(self.adam_iters), lbfgs_iters=int(self.lbfgs_iters), lr=float(self.lr),
            screen_points=int(self.screen_points), device=self.device_,
        )

    def _target_scale(self, X, y) -> np.ndarray:
        """The (unstandardised) regression target: log y, its residual, or y."""
        self.mean_model_ = None
        if isinstance(self.mean, MetricModel):
            self.mean_model_ = _fitted_mean_model(self.mean, X, y, self.features_)
            self.log_target_ = True
            return log_target(y) - self._log_mean_median(X)
        self.log_target_ = bool(np.all(y > 0))
        if not self.log_target_ and np.all(np.asarray(y) >= 0):
            # a metric with zeros (see _to_original_scale); set only then, so that
            # files stay readable by older versions
            self.floor_ = 0.0
        return np.log(y) if self.log_target_ else np.asarray(y, dtype=np.float64)

    def _log_mean_median(self, X) -> np.ndarray:
        frame = pd.DataFrame(X, columns=self.features_)
        median = self.mean_model_.predict(frame, seed=0, noise=False).median
        if not np.all(np.isfinite(median) & (median > 0)):
            raise ValueError("the mean model's median must be positive to model a log residual")
        return np.log(median)

    # -- prediction --------------------------------------------------------------

    def draws_pointwise(self) -> bool:
        """False: a joint draw ``mean + L z`` mixes its deviates over the points asked
        (``L``: the Cholesky factor of their covariance).

        Examples
        --------
        >>> GaussianProcessModel().draws_pointwise()
        False
        """
        return False

    def _predict_draws(self, X: np.ndarray, n_draws: int, seed, noise: bool = True) -> np.ndarray:
        """Joint posterior-predictive draws, original scale; with observation noise
        unless ``noise=False`` (then draws of the latent function).

        Points are ordered (lexicographically on the standardised inputs, so that
        neighbours are adjacent) and cut into blocks of at most ``joint_block``; each
        block is one joint draw from the exact posterior predictive (a dense
        Cholesky of its covariance). With at most ``joint_block`` points the draws are
        fully joint; with more, the dependence between points in different blocks is
        dropped (blocks are drawn independently), which keeps 10,000 points cheap.
        """
        if len(X) == 0:
            return np.empty((n_draws, 0))
        Z = self.x_scaler_.transform(log_inputs(X, self.log_mask_))
        x = torch.as_tensor(Z, dtype=_DTYPE, device=self.device_)
        offset = np.zeros(len(X))  # log of the mean model's median, added per point
        if self.mean_model_ is not None:
            offset = self._log_mean_median(X)
        order = np.lexsort(Z.T[::-1])  # first column fastest: neighbours in n stay together
        blocks = np.array_split(order, max(1, math.ceil(len(order) / int(self.joint_block))))
        gen = _generator(seed, self.device_)
        # Filled point by point (rows), returned transposed: a row scatter is
        # contiguous, a column scatter into (draws x points) is not.
        out = np.empty((len(X), n_draws))
        model = self.model_
        model.eval()
        with _prediction_settings(min(len(X), int(self.joint_block)) + len(model.train_targets)):
            for idx in blocks:
                xb = x[torch.as_tensor(idx, device=x.device)]
                mvn = model(xb)
                out[idx] = self._to_original_scale(
                    _joint_draws(model.likelihood(mvn) if noise else mvn, n_draws, gen), offset[idx])
        return out.T

    def _to_original_scale(self, draws, offset) -> np.ndarray:
        """Undo the target standardisation (and the log, adding ``offset``) in place.
        On the natural scale (a metric with zeros, such as the idle time at one
        worker) the draws are cut at 0: no metric is negative, so the predictive puts
        the mass a Gaussian has below 0 on 0 itself (``floor_``; None for a target
        with negative values, which is no metric)."""
        draws.mul_(float(self.y_scaler_.scale_[0])).add_(float(self.y_scaler_.mean_[0]))
        if self.log_target_:
            draws.add_(torch.as_tensor(offset, dtype=_DTYPE, device=draws.device)[:, None]).exp_()
        elif getattr(self, "floor_", None) is not None:  # files written before the floor have none
            draws.clamp_(min=self.floor_)
        return draws.cpu().numpy()

    # -- persistence ---------------------------------------------------------------

    def hyperparameters(self) -> dict[str, list]:
        """Fitted hyper-parameters on their constrained (natural) scale, by name.

        Examples
        --------
        >>> n = 2.0 ** np.arange(4, 10)
        >>> gp = GaussianProcessModel("rbf", n_restarts=1, adam_iters=10, lbfgs_iters=0).fit({"n": n}, 1e-6 * n)
        >>> h = gp.hyperparameters()
        >>> for name in sorted(h):
        ...     print(name)
        covar_module.base_kernel.lengthscale
        covar_module.outputscale
        likelihood.noise_covar.noise
        mean_module.bias
        mean_module.weights
        >>> h["likelihood.noise_covar.noise"][0] >= gp.noise_floor  # a constraint, not a penalty
        True
        """
        self._check_fitted()
        out = {}
        for name, param, constraint in self.model_.named_parameters_and_constraints():
            value = constraint.transform(param) if constraint is not None else param
            out[name.replace("raw_", "")] = value.detach().cpu().numpy().tolist()
        return out

    # -- persistence (see probperf.persist) ----------------------------------------

    _fitted = ("log_mask_", "log_target_", "floor_", "x_scaler_", "y_scaler_", "mll_", "restart_mlls_",
               "mean_model_", "gp_state_")

    @property
    def gp_state_(self) -> dict:
        """Training inputs and targets (standardised) and the GP's parameters as arrays."""
        arrays = {k: v.detach().cpu().numpy() for k, v in self.model_.state_dict().items()}
        return {"train_x": self.model_.train_inputs[0].detach().cpu().numpy(),
                "train_y": self.model_.train_targets.detach().cpu().numpy(), "state": arrays}

    @gp_state_.setter
    def gp_state_(self, saved: dict) -> None:
        self.device_ = _resolve_device(self.device, strict=False)
        x = torch.as_tensor(saved["train_x"], dtype=_DTYPE, device=self.device_)
        ty = torch.as_tensor(saved["train_y"], dtype=_DTYPE, device=self.device_)
        try:
            model = _build_gp(x, ty, self.kernel, self.mean == "linear", self.ard, self.noise_floor)
            model.load_state_dict({k: torch.as_tensor(v) for k, v in saved["state"].items()}, strict=True)
        except (RuntimeError, ValueError, KeyError) as exc:
            raise persist.ModelFileError(f"GP state does not match kernel {self.kernel!r}: {exc}") from exc
        self.model_ = model.eval()

    def _loaded(self) -> None:
        self.log_mask_ = np.asarray(self.log_mask_, dtype=bool)
        self.log_target_ = bool(self.log_target_)


def _check_ranges(params: dict) -> None:
    """Raise on constructor parameters out of range (counts, learning rate, noise floor)."""
    for name in ("n_restarts", "joint_block", "n_draws", "screen_points"):
        if int(params[name]) < 1:
            raise ValueError(f"{name} must be >= 1, got {params[name]!r}")
    for name in ("adam_iters", "lbfgs_iters"):
        if int(params[name]) < 0:
            raise ValueError(f"{name} must be >= 0, got {params[name]!r}")
    if not params["lr"] > 0:
        raise ValueError(f"lr must be positive, got {params['lr']!r}")
    if not params["noise_floor"] > 0:
        raise ValueError(f"noise_floor must be positive, got {params['noise_floor']!r}")


def _fitted_mean_model(mean: MetricModel, X, y, features) -> MetricModel:
    """``mean`` if fitted (on features the GP has), else a fitted copy of it."""
    if hasattr(mean, "features_"):
        missing = [f for f in mean.features_ if f not in features]
        if missing:
            raise ValueError(
                f"the mean model needs parameter(s) {missing} the GP is not fitted on"
            )
        return mean
    # Fit a copy: constructor parameters stay untouched (scikit-learn convention).
    model = copy.deepcopy(mean)
    return model.fit(pd.DataFrame(X, columns=features), y)


class _RestartFailed(Exception):
    pass


def _build_gp(x, ty, kernel: str, linear_mean: bool, ard: bool, noise_floor) -> _ExactGP:
    """An untrained exact GP on ``(x, ty)``: the kernel spec, a linear or constant mean,
    a Gaussian likelihood whose noise stays above ``noise_floor``."""
    d = x.shape[-1]
    likelihood = GaussianLikelihood(noise_constraint=GreaterThan(float(noise_floor)))
    mean_module = LinearMean(input_size=d) if linear_mean else ConstantMean()
    covar = parse_kernel(kernel, d, ard=ard)
    model = _ExactGP(x, ty, likelihood, mean_module, covar)
    return model.to(device=x.device, dtype=_DTYPE)


@dataclasses.dataclass(frozen=True)
class _Restarts:
    """Type-II maximum likelihood from ``n_restarts`` starting points (one GP fit).

    Holds the estimator's optimisation parameters (see
    :meth:`GaussianProcessModel._restarts`); :meth:`run` returns the kept model.
    """

    kernel: str
    linear_mean: bool
    ard: bool
    noise_floor: float
    seed: int
    n_restarts: int
    adam_iters: int
    lbfgs_iters: int
    lr: float
    screen_points: int
    device: torch.device

    def run(self, x, ty):
        """Run the restarts; return the kept model, its marginal log-likelihood and
        each restart's final one (None: it failed).

        With more than ``screen_points`` observations the restarts run on a random
        subset of that size (the restart comparison only needs the hyper-parameters'
        ranking, and each restart then costs ~(N/screen)^3 less); the best restart is
        then refined on all the data with L-BFGS. If its refinement fails, the next
        best is tried.
        """
        subset = self._screen_subset(len(ty))
        xs, ts = (x, ty) if subset is None else (x[subset], ty[subset])
        fitted, mlls, errors = [], [], []
        for restart in range(int(self.n_restarts)):
            try:
                model, mll = self._train_restart(xs, ts, restart)
            except _RestartFailed as exc:
                mlls.append(None)
                errors.append(f"restart {restart}: {exc}")
                continue
            mlls.append(mll)
            fitted.append((mll, restart, model))
        fitted.sort(key=lambda item: -item[0])
        if subset is None and fitted:
            return fitted[0][2], fitted[0][0], mlls
        for _, restart, model in fitted:
            try:
                return (*self._refine(model, x, ty), mlls)
            except _RestartFailed as exc:
                errors.append(f"restart {restart} on all data: {exc}")
        raise GPFitError(
            f"all {self.n_restarts} GP restarts failed (kernel {self.kernel!r}): "
            + "; ".join(errors)
        )

    def _screen_subset(self, n: int):
        if n <= self.screen_points:
            return None
        rng = np.random.default_rng(self.seed)
        idx = np.sort(rng.choice(n, size=self.screen_points, replace=False))
        return torch.as_tensor(idx, device=self.device)

    def _build(self, x, ty) -> _ExactGP:
        return _build_gp(x, ty, self.kernel, self.linear_mean, self.ard, self.noise_floor)

    def _refine(self, screened, x, ty):
        with _numerics():
            model = self._build(x, ty)
            model.load_state_dict(screened.state_dict())
            model.train()
            mll = ExactMarginalLogLikelihood(model.likelihood, model)
            if _loss_or_none(model, mll, x, ty) is None:
                raise _RestartFailed("the covariance matrix is not positive definite")
            _run_lbfgs(model, mll, x, ty, self.lbfgs_iters)
            loss = _loss_or_none(model, mll, x, ty)
            if loss is None:
                raise _RestartFailed("the refined covariance matrix is not positive definite")
        return model, -loss * len(ty)

    def _initialise(self, model, x, ty, restart: int) -> None:
        """Starting point of one restart (restart 0 is deterministic given the data)."""
        gen = torch.Generator().manual_seed(self.seed * 7919 + restart)
        with torch.no_grad():
            resid = ty
            if isinstance(model.mean_module, LinearMean):
                coef = _least_squares(x, ty)
                model.mean_module.weights.copy_(coef[:-1, None])
                model.mean_module.bias.fill_(float(coef[-1]))
                resid = ty - (x @ coef[:-1] + coef[-1])
            else:
                model.mean_module.constant.fill_(float(ty.mean()))
            noise = 0.05 if restart == 0 else float(10 ** (-3 + 2 * torch.rand(1, generator=gen)))
            model.likelihood.noise = max(noise, 2 * self.noise_floor)
            if restart > 0:
                randomise_lengthscales(model.covar_module, gen)
        # Alternate empirical-spectrum and random starts for the SM components.
        with seeded(self.seed * 7919 + restart):
            for sm in spectral_kernels(model.covar_module):
                init_spectral_mixture(sm, x, resid, empirical=restart % 2 == 0)

    def _train_restart(self, x, ty, restart: int):
        with _numerics():
            try:
                model = self._build(x, ty)
                self._initialise(model, x, ty, restart)
            except (RuntimeError, ValueError) as exc:
                raise _RestartFailed(f"initialisation failed ({exc})") from exc
            model.train()
            mll = ExactMarginalLogLikelihood(model.likelihood, model)
            loss = _loss_or_none(model, mll, x, ty)
            if loss is None:
                raise _RestartFailed("the initial covariance matrix is not positive definite")
            _run_adam(model, mll, x, ty, self.adam_iters, self.lr)
            _run_lbfgs(model, mll, x, ty, self.lbfgs_iters)
            loss = _loss_or_none(model, mll, x, ty)
            if loss is None:
                raise _RestartFailed("the optimised covariance matrix is not positive definite")
        return model, -loss * len(ty)


#: Below this many points one thread is faster: the matrices are too small to split,
#: and on a shared machine extra OpenMP threads mostly wait.
_SINGLE_THREAD_BELOW = 500


@contextlib.contextmanager
def _threads_for(n: int):
    before = torch.get_num_threads()
    if n < _SINGLE_THREAD_BELOW and before > 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def _resolve_device(device: str, strict: bool = True) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"unknown device {device!r}; use 'cpu', 'cuda' or 'auto'") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        if strict:
            raise ValueError("device='cuda' but CUDA is not available; use 'cpu' or 'auto'")
        return torch.device("cpu")  # a model fitted on a GPU still loads on a CPU box
    return dev


def _generator(seed, device) -> torch.Generator:
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    return torch.Generator(device=device).manual_seed(int(seed))


def _least_squares(x, ty) -> torch.Tensor:
    """Coefficients (slopes..., intercept) of an ordinary least-squares fit."""
    A = torch.cat([x, torch.ones_like(ty)[:, None]], dim=1)
    return torch.linalg.lstsq(A.cpu(), ty.cpu()[:, None]).solution[:, 0].to(x)


_FAILURES = (RuntimeError, ValueError)  # NotPSDError is a RuntimeError


def _loss_or_none(model, mll, x, ty):
    try:
        with torch.no_grad():
            loss = -mll(model(x), ty)
    except _FAILURES:
        return None
    loss = float(loss)
    return loss if math.isfinite(loss) else None


def _run_adam(model, mll, x, ty, iters: int, lr: float) -> None:
    """Adam steps; on a numerical failure, go back to the last good point and stop."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    good = _snapshot(model)
    for _ in range(iters):
        opt.zero_grad()
        try:
            loss = -mll(model(x), ty)
            if not torch.isfinite(loss):
                raise RuntimeError("non-finite marginal likelihood")
            loss.backward()
        except _FAILURES:
            model.load_state_dict(good)
            return
        good = _snapshot(model)
        opt.step()
    if _loss_or_none(model, mll, x, ty) is None:
        model.load_state_dict(good)


def _run_lbfgs(model, mll, x, ty, iters: int) -> None:
    """L-BFGS with a strong-Wolfe line search; kept only if it improves the loss."""
    if iters <= 0:
        return
    before = _loss_or_none(model, mll, x, ty)
    good = _snapshot(model)
    opt = torch.optim.LBFGS(
        model.parameters(), lr=1.0, max_iter=iters, line_search_fn="strong_wolfe"
    )

    def closure():
        opt.zero_grad()
        loss = -mll(model(x), ty)
        if not torch.isfinite(loss):
            raise RuntimeError("non-finite marginal likelihood")
        loss.backward()
        return loss

    try:
        opt.step(closure)
    except _FAILURES:
        model.load_state_dict(good)
        return
    after = _loss_or_none(model, mll, x, ty)
    if after is None or (before is not None and after > before):
        model.load_state_dict(good)


def _snapshot(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _prediction_settings(n_points: int) -> contextlib.ExitStack:
    """Settings of posterior draws for ``n_points`` at a time (training plus block).

    :func:`_numerics`, no gradients, the thread count for that size, and
    ``fast_pred_var`` with Cholesky roots: it caches a root of (K + s^2 I)^-1 once, and
    with root decomposition forced to Cholesky that root is exact, not a Lanczos
    approximation.
    """
    with contextlib.ExitStack() as stack:
        stack.enter_context(_numerics())
        stack.enter_context(torch.no_grad())
        stack.enter_context(warnings.catch_warnings())
        stack.enter_context(_threads_for(n_points))
        stack.enter_context(gpytorch.settings.fast_pred_var())
        stack.enter_context(gpytorch.settings.fast_computations(covar_root_decomposition=False))
        warnings.simplefilter("ignore", gpytorch.utils.warnings.GPInputWarning)
        return stack.pop_all()


def _joint_draws(mvn, n_draws: int, gen) -> torch.Tensor:
    """(points x draws) joint draws of a multivariate normal (standardised scale)."""
    mean = mvn.mean
    L = _safe_cholesky(mvn.covariance_matrix)
    z = torch.randn((n_draws, len(mean)), generator=gen, dtype=_DTYPE, device=gen.device)
    return torch.addmm(mean[:, None], L, z.to(mean.device).T)


def _safe_cholesky(cov: torch.Tensor) -> torch.Tensor:
    """Cholesky factor with escalating jitter; eigen-decomposition as a last resort."""
    scale = float(cov.diagonal().abs().mean()) or 1.0
    eye = torch.eye(len(cov), dtype=cov.dtype, device=cov.device)
    for rel in (0.0, 1e-10, 1e-8, 1e-6):
        L, info = torch.linalg.cholesky_ex(cov + rel * scale * eye)
        if int(info) == 0:
            return L
    vals, vecs = torch.linalg.eigh(cov)
    return vecs * vals.clamp_min(0).sqrt()
