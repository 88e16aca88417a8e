"""GaussianProcessModel and kernel specs: known signals, calibration, joint draws, files."""

import copy
import math

import gpytorch.kernels as gk
import numpy as np
import pandas as pd
import pytest
import torch

from probperf import persist
from probperf.models.base import MetricModel
from probperf.models.gp import GaussianProcessModel, GPFitError, _Restarts
from probperf.models.kernels import SpectralMixture, parse_kernel

FAST = dict(n_restarts=1, adam_iters=40, lbfgs_iters=20)


def trend_and_wave(x):
    """log metric vs log2 n: a power law (slope 0.8) times a periodic wiggle (period 3)."""
    return -3.0 + 0.8 * x + 0.3 * np.sin(2 * np.pi * x / 3.0)


@pytest.fixture(scope="module")
def wave_data():
    rng = np.random.default_rng(0)
    x_train = np.linspace(4, 16, 60)
    y_train = np.exp(trend_and_wave(x_train) + 0.02 * rng.normal(size=x_train.size))
    x_test = np.linspace(16.2, 20, 20)  # extrapolation window beyond the largest n
    return x_train, y_train, x_test


def frame(x, p=1):
    return pd.DataFrame({"n": 2.0**x, "p": p})


# -- extrapolation of a periodic + trend signal ------------------------------------------


@pytest.fixture(scope="module")
def sm_model(wave_data):
    x_train, y_train, _ = wave_data
    return GaussianProcessModel("sm4", n_restarts=2, adam_iters=60, lbfgs_iters=30).fit(
        frame(x_train), y_train, features=["n"]
    )


def test_spectral_mixture_extrapolates_a_wave_better_than_rbf(wave_data, sm_model):
    x_train, y_train, x_test = wave_data
    rbf = GaussianProcessModel("rbf", n_restarts=2, adam_iters=60, lbfgs_iters=30)
    rbf.fit(frame(x_train), y_train, features=["n"])
    truth = trend_and_wave(x_test)
    errors = {}
    for name, model in (("sm", sm_model), ("rbf", rbf)):
        median = model.predict(frame(x_test), n_draws=300, seed=1).median
        errors[name] = np.mean(np.abs(np.log(median) - truth))
    # rbf reverts to the power-law mean and misses the wave (error ~ its amplitude,
    # 0.3 * 2/pi ~ 0.19); sm continues the wave.
    assert errors["sm"] < 0.5 * errors["rbf"]
    assert errors["sm"] < 0.05
    assert errors["rbf"] > 0.1


def test_restarts_recorded_and_best_kept(sm_model):
    mlls = sm_model.restart_mlls_
    assert len(mlls) == 2 and all(m is not None for m in mlls)
    # With no screening subset (60 <= screen_points) the kept model is the best restart.
    assert sm_model.mll_ == pytest.approx(max(mlls))


# -- calibration ----------------------------------------------------------------------------


def test_ninety_percent_intervals_cover_about_ninety_percent():
    def f(x):  # smooth in log2 n; noise 0.1 on the log scale
        return 0.5 * x + np.sin(x / 1.5)

    hits = []  # 12 seeds x 40 test points: binomial sd of the coverage ~ 0.014
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        x_train = rng.uniform(0, 10, 60)
        x_test = rng.uniform(0.5, 9.5, 40)  # interpolation, in distribution
        y_train = np.exp(f(x_train) + 0.1 * rng.normal(size=60))
        y_test = np.exp(f(x_test) + 0.1 * rng.normal(size=40))
        model = GaussianProcessModel("rbf", n_restarts=1, adam_iters=40, lbfgs_iters=20)
        model.fit(frame(x_train), y_train, features=["n"])
        lo, hi = model.predict(frame(x_test), n_draws=400, seed=seed).interval(0.9)
        hits.append((y_test >= lo) & (y_test <= hi))
    coverage = np.mean(np.concatenate(hits))
    assert 0.85 <= coverage <= 0.95, coverage


# -- kernel specs -------------------------------------------------------------------------

ALL_SPECS = ["sm2", "rbf", "matern12", "matern32", "matern52", "rq", "linear", "poly2",
             "periodic", "sm2+linear", "rbf*periodic+linear"]


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_every_kernel_spec_fits_a_power_law(spec):
    rng = np.random.default_rng(3)
    n = np.repeat(2.0 ** np.arange(8, 14), 4)
    p = np.tile([1, 2, 4, 8], 6)
    y = 1e-6 * n / p**0.8 * np.exp(0.05 * rng.normal(size=n.size))
    model = GaussianProcessModel(spec, n_restarts=1, adam_iters=10, lbfgs_iters=5)
    model.fit(pd.DataFrame({"n": n, "p": p}), y)
    pred = model.predict(pd.DataFrame({"n": n, "p": p}), n_draws=200)
    assert pred.draws.shape == (200, n.size)
    assert np.all(np.isfinite(pred.draws)) and np.all(pred.draws > 0)
    # The linear mean in log-log space is the power law itself.
    truth = 1e-6 * n / p**0.8
    assert np.median(np.abs(pred.median / truth - 1)) < 0.1


@pytest.mark.parametrize(
    "spec, token",
    [("rbf+cubic", "'cubic'"), ("sm0", "'sm0'"), ("rbf-linear", "'-'"), ("matern42", "'matern42'")],
)
def test_unknown_spec_names_the_token(spec, token):
    with pytest.raises(ValueError, match=token):
        parse_kernel(spec, 2)


@pytest.mark.parametrize("spec, what", [("rbf+", "ends"), ("(rbf", r"missing '\)'"),
                                        ("rbf**rq", r"unexpected '\*'"), ("", "empty")])
def test_malformed_spec_says_what_is_wrong(spec, what):
    with pytest.raises(ValueError, match=what):
        parse_kernel(spec, 2)


def test_model_rejects_unknown_kernel_before_fitting():
    with pytest.raises(ValueError, match="'wavelet'"):
        GaussianProcessModel("rbf+wavelet").fit(frame(np.arange(4.0, 10)), np.ones(6))


def test_composition_precedence_and_types():
    k = parse_kernel("rbf*periodic+linear", 2)
    assert isinstance(k, gk.AdditiveKernel)
    product, linear = k.kernels
    assert isinstance(linear, gk.LinearKernel)
    assert isinstance(product, gk.ScaleKernel) and isinstance(product.base_kernel, gk.ProductKernel)
    assert [type(f) for f in product.base_kernel.kernels] == [gk.RBFKernel, gk.PeriodicKernel]

    k = parse_kernel("linear+rbf*periodic", 2)  # * binds tighter on either side
    assert isinstance(k.kernels[0], gk.LinearKernel)
    assert isinstance(k.kernels[1].base_kernel, gk.ProductKernel)

    k = parse_kernel("(rbf+linear)*periodic", 2)
    assert isinstance(k, gk.ProductKernel)
    inner, periodic = k.kernels
    assert isinstance(inner, gk.AdditiveKernel) and isinstance(periodic, gk.PeriodicKernel)

    k = parse_kernel("sm4+linear", 3)
    sm, linear = k.kernels
    assert isinstance(sm, gk.SpectralMixtureKernel) and sm.num_mixtures == 4
    assert isinstance(linear, gk.LinearKernel)

    assert isinstance(parse_kernel("rq", 2).base_kernel, gk.RQKernel)
    assert isinstance(parse_kernel("poly3", 2).base_kernel, gk.PolynomialKernel)
    assert parse_kernel("poly3", 2).base_kernel.power == 3
    assert [parse_kernel(f"matern{v}", 2).base_kernel.nu for v in (12, 32, 52)] == [0.5, 1.5, 2.5]
    assert isinstance(parse_kernel("matern52", 2).base_kernel, gk.MaternKernel)


def test_ard_gives_one_lengthscale_per_input():
    assert parse_kernel("rbf", 3).base_kernel.lengthscale.shape == (1, 3)
    assert parse_kernel("rbf", 3, ard=False).base_kernel.lengthscale.shape == (1, 1)
    assert parse_kernel("periodic", 3).base_kernel.period_length.shape == (1, 3)
    assert parse_kernel("sm4", 3).mixture_means.shape == (4, 1, 3)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_spectral_mixture_matches_the_closed_form(d):
    """k(t) = sum_q w_q prod_d exp(-2 pi^2 t_d^2 s_qd^2) cos(2 pi t_d mu_qd), term by term."""
    g = torch.Generator().manual_seed(d)
    k = SpectralMixture(num_mixtures=3, ard_num_dims=d).double()
    scales = torch.rand(3, 1, d, generator=g, dtype=torch.float64)
    means = 2 * torch.rand(3, 1, d, generator=g, dtype=torch.float64)
    weights = torch.rand(3, generator=g, dtype=torch.float64)
    k.mixture_scales, k.mixture_means, k.mixture_weights = scales, means, weights
    x1 = torch.randn(6, d, generator=g, dtype=torch.float64)
    x2 = torch.randn(5, d, generator=g, dtype=torch.float64)
    expected = np.zeros((6, 5))
    for i in range(6):
        for j in range(5):
            t = (x1[i] - x2[j]).numpy()
            for q in range(3):
                s, mu = scales[q, 0].numpy(), means[q, 0].numpy()
                expected[i, j] += weights[q].item() * np.prod(
                    np.exp(-2 * math.pi**2 * t**2 * s**2) * np.cos(2 * math.pi * t * mu)
                )
    # both the differentiable (training) path and the in-place (prediction) path
    np.testing.assert_allclose(k(x1, x2).to_dense().detach().numpy(), expected, atol=1e-12)
    with torch.no_grad():
        np.testing.assert_allclose(k(x1, x2).to_dense().numpy(), expected, atol=1e-12)
    with torch.no_grad():
        diag = k(x1, x1, diag=True).numpy()
    np.testing.assert_allclose(diag, weights.sum().item())  # k(0) = total weight


# -- joint draws ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def extrapolating_rbf():
    rng = np.random.default_rng(5)
    x = np.linspace(4, 12, 30)
    y = np.exp(0.5 * x + np.sin(x) + 0.01 * rng.normal(size=x.size))
    return GaussianProcessModel("rbf", mean="constant", **FAST).fit(frame(x), y, features=["n"])


def test_draws_are_joint_across_nearby_points(extrapolating_rbf):
    # Beyond the data the latent function dominates the predictive variance, and two
    # close points share it: their draws move together.
    pred = extrapolating_rbf.predict(frame(np.array([14.0, 14.1])), n_draws=2000, seed=0)
    r = np.corrcoef(np.log(pred.draws.T))[0, 1]
    assert r > 0.9
    # Marginal sampling of the same two points would give independent columns.
    assert pred.std[0] > 0.05  # the test is not vacuous: there is spread to correlate


def test_points_in_different_blocks_are_drawn_independently(extrapolating_rbf):
    model = copy.copy(extrapolating_rbf)  # shares the fitted GP
    model.joint_block = 1
    pred = model.predict(frame(np.array([14.0, 14.1])), n_draws=2000, seed=0)
    r = np.corrcoef(np.log(pred.draws.T))[0, 1]
    assert abs(r) < 0.1


def test_noise_free_draws_lack_exactly_the_noise_variance(extrapolating_rbf):
    model = extrapolating_rbf
    at = frame(np.array([6.0, 9.0]))  # inside the data: noise is a visible share
    noisy = np.log(model.predict(at, n_draws=20000, seed=1).draws)
    latent = np.log(model.predict(at, n_draws=20000, seed=1, noise=False).draws)
    noise_var = model.model_.likelihood.noise.item() * model.y_scaler_.scale_[0] ** 2
    np.testing.assert_allclose(noisy.var(axis=0) - latent.var(axis=0), noise_var, rtol=0.1)
    assert np.all(latent.var(axis=0) < noisy.var(axis=0))


def test_same_seed_same_draws_other_seed_other_draws(extrapolating_rbf):
    at = frame(np.array([5.0, 9.0, 13.0]))
    a = extrapolating_rbf.predict(at, n_draws=50, seed=3).draws
    b = extrapolating_rbf.predict(at, n_draws=50, seed=3).draws
    c = extrapolating_rbf.predict(at, n_draws=50, seed=4).draws
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_large_prediction_sets_are_split_into_blocks_in_order(extrapolating_rbf):
    at = frame(np.linspace(4, 14, 25))
    model = copy.copy(extrapolating_rbf)
    model.joint_block = 7
    pred = model.predict(at, n_draws=400, seed=0)
    full = extrapolating_rbf.predict(at, n_draws=400, seed=0)
    # Blocks change which draws are joint, not the marginal distribution of a point.
    np.testing.assert_allclose(np.log(pred.median), np.log(full.median), atol=0.05)
    assert pred.draws.shape == (400, 25)


# -- mean functions ----------------------------------------------------------------------


@persist.register
class KnownPowerLaw(MetricModel):
    """A stub mean model whose every draw is exactly 2e-6 * n^1.1 (so its median is too)."""

    def __init__(self, scale: float = 2e-6, power: float = 1.1):
        self.scale = scale
        self.power = power

    def _fit(self, X, y):
        self.fitted_rows_ = len(y)

    def _predict_draws(self, X, n_draws, seed, noise=True):
        return np.tile(self.scale * X[:, 0] ** self.power, (n_draws, 1))


def residual_data():
    x = np.linspace(6, 16, 40)
    n = 2.0**x
    y = 2e-6 * n**1.1 * np.exp(0.2 * np.sin(x))
    return n, y


def test_gp_on_the_residual_of_a_mean_model():
    n, y = residual_data()
    base = KnownPowerLaw()
    model = GaussianProcessModel("rbf", mean=base, **FAST).fit({"n": n}, y, features=["n"])
    assert not hasattr(base, "features_")  # the constructor argument stays unfitted
    assert model.mean_model_.fitted_rows_ == len(y)
    # In the data range the GP adds the residual wiggle back.
    inside = model.predict({"n": n}, n_draws=300).median
    np.testing.assert_allclose(np.log(inside), np.log(y), atol=0.03)
    # Far out, the residual GP reverts to its constant mean (~ average residual, near 0),
    # so the prediction follows the mean model's power law.
    far = 2.0**24
    median = model.predict({"n": [far]}, n_draws=1000).median[0]
    assert abs(np.log(median / (2e-6 * far**1.1))) < 0.25


def test_mean_model_state_is_nested_in_the_model_file(tmp_path):
    n, y = residual_data()
    model = GaussianProcessModel("rbf", mean=KnownPowerLaw(3e-6), **FAST)
    model.fit({"n": n}, y, features=["n"])
    path = tmp_path / "gp.safetensors"
    model.save(path)
    loaded = GaussianProcessModel.load(path)
    assert isinstance(loaded.mean_model_, KnownPowerLaw) and loaded.mean_model_.scale == 3e-6
    at = {"n": [2.0**10, 2.0**20]}
    np.testing.assert_array_equal(model.predict(at, seed=2).draws, loaded.predict(at, seed=2).draws)


def test_linear_mean_is_a_power_law_far_out():
    x = np.linspace(4, 12, 20)
    y = 3e-5 * (2.0**x) ** 1.5
    model = GaussianProcessModel("rbf", mean="linear", **FAST).fit(frame(x), y, features=["n"])
    median = model.predict(frame(np.array([24.0])), n_draws=500).median[0]
    assert median / (3e-5 * 2.0**36) == pytest.approx(1.0, rel=0.05)


def test_non_positive_metric_is_modelled_on_its_own_scale():
    x = np.linspace(4, 12, 20)
    y = np.where(x < 6, 0.0, x - 6)  # no_work at p = 1 is zero, say
    model = GaussianProcessModel("rbf", **FAST).fit(frame(x), y, features=["n"])
    assert model.log_target_ is False
    assert np.all(np.isfinite(model.predict(frame(x), n_draws=50).draws))


def test_spectral_mixture_on_a_flat_metric_falls_back_and_predicts_the_constant():
    # No spectrum to initialise from: the empirical start falls back to a random one.
    x = np.linspace(4, 14, 30)
    model = GaussianProcessModel("sm4", n_restarts=1, adam_iters=20, lbfgs_iters=10)
    model.fit(frame(x), np.full(30, 3.0), features=["n"])
    median = model.predict(frame(np.array([8.0, 20.0])), n_draws=100).median
    np.testing.assert_allclose(median, 3.0, rtol=1e-3)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"mean": "quadratic"}, "mean must be one of"), ({"n_restarts": 0}, "n_restarts"),
     ({"noise_floor": 0}, "noise_floor"), ({"lr": -1}, "lr"), ({"adam_iters": -1}, "adam_iters")],
)
def test_bad_parameters_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GaussianProcessModel("rbf", **kwargs).fit(frame(np.arange(4.0, 10)), np.ones(6))


def test_cuda_request_without_cuda_is_an_error():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; the error path cannot happen")
    with pytest.raises(ValueError, match="CUDA is not available"):
        GaussianProcessModel("rbf", device="cuda").fit(frame(np.arange(4.0, 10)), np.ones(6))


# -- failures during fitting ----------------------------------------------------------------


def test_failed_restarts_are_skipped(monkeypatch):
    real = _Restarts._initialise

    def fail_first(self, model, x, ty, restart):
        if restart == 0:
            raise RuntimeError("cholesky_cpu: the leading minor of order 3 is not positive")
        real(self, model, x, ty, restart)

    monkeypatch.setattr(_Restarts, "_initialise", fail_first)
    x = np.linspace(4, 12, 20)
    model = GaussianProcessModel("rbf", n_restarts=2, adam_iters=10, lbfgs_iters=5)
    model.fit(frame(x), np.exp(0.5 * x), features=["n"])
    assert model.restart_mlls_[0] is None and model.restart_mlls_[1] is not None


def test_all_restarts_failing_is_a_clear_error(monkeypatch):
    def always_fail(self, model, x, ty, restart):
        raise RuntimeError("not positive definite")

    monkeypatch.setattr(_Restarts, "_initialise", always_fail)
    with pytest.raises(GPFitError, match="all 2 GP restarts failed.*restart 0.*restart 1"):
        GaussianProcessModel("rbf", n_restarts=2).fit(frame(np.arange(4.0, 10)), np.ones(6))


def test_screening_subset_then_refinement_on_all_data():
    rng = np.random.default_rng(7)
    x = rng.uniform(4, 14, 90)
    y = np.exp(0.7 * x + 0.2 * np.sin(x) + 0.02 * rng.normal(size=x.size))
    model = GaussianProcessModel(
        "rbf", n_restarts=2, adam_iters=20, lbfgs_iters=10, screen_points=40
    )
    model.fit(frame(x), y, features=["n"])
    assert len(model.model_.train_targets) == 90  # the kept model is on all the data
    assert len(model.restart_mlls_) == 2
    # mll_ is on 90 points, the restarts' on 40: per point they are comparable.
    assert model.mll_ / 90 == pytest.approx(max(model.restart_mlls_) / 40, abs=0.5)


# -- persistence --------------------------------------------------------------------------


def test_save_load_round_trip_gives_identical_draws(tmp_path, sm_model, wave_data):
    path = tmp_path / "sm.safetensors"
    sm_model.save(path)
    loaded = GaussianProcessModel.load(path)
    at = frame(np.concatenate([wave_data[0][::7], wave_data[2]]))
    a = sm_model.predict(at, n_draws=100, seed=11).draws
    b = loaded.predict(at, n_draws=100, seed=11).draws
    np.testing.assert_array_equal(a, b)
    assert loaded.kernel == "sm4" and loaded.restart_mlls_ == sm_model.restart_mlls_
    kind, config, tensors = persist.load_state(path)
    assert kind == "GaussianProcessModel"
    config = config["state"]  # persist.save wraps the model's declared state
    assert config["params"]["kernel"] == "sm4"
    assert config["fitted"]["log_mask_"] == {"$tensor": "log_mask_"}
    assert tensors["log_mask_"].tolist() == [True]
    noise = loaded.hyperparameters()["likelihood.noise_covar.noise"]
    assert noise[0] == pytest.approx(sm_model.model_.likelihood.noise.item())
    assert tensors["gp_state_.train_x"].shape == (60, 1)


def test_truncated_model_file_is_rejected(tmp_path, sm_model):
    path = tmp_path / "sm.safetensors"
    sm_model.save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 100])
    with pytest.raises(persist.ModelFileError):
        GaussianProcessModel.load(path)


def test_edited_model_file_is_rejected(tmp_path, sm_model):
    path = tmp_path / "sm.safetensors"
    sm_model.save(path)
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01  # flip a bit inside the tensor data
    path.write_bytes(bytes(data))
    with pytest.raises(persist.ModelFileError, match="checksum"):
        GaussianProcessModel.load(path)


def test_state_for_another_kernel_is_rejected(sm_model):
    tensors = {}
    config = persist.state(sm_model, "", tensors)
    config["params"]["kernel"] = "rbf"
    with pytest.raises(persist.ModelFileError, match="does not match kernel 'rbf'"):
        persist.rebuild(GaussianProcessModel, config, tensors)


def test_a_metric_with_zeros_is_never_predicted_negative():
    # idle time: 0 at one worker, (p - 1) * 1e-3 * n beyond; modelled on its own scale
    # (a zero has no log), the draws are cut at 0 (floor_): at p = 1 the GP's mean is
    # about 0, so about half its Gaussian mass, which lay below 0, sits on 0 itself
    n = np.repeat([64.0, 128.0, 256.0, 512.0], 4)
    p = np.tile([1.0, 2.0, 3.0, 4.0], 4)
    y = (p - 1) * 1e-3 * n
    model = GaussianProcessModel("rbf", n_restarts=1, adam_iters=60, lbfgs_iters=30).fit(
        pd.DataFrame({"n": n, "p": p}), y, features=["n", "p"])
    assert model.floor_ == 0.0 and not model.log_target_
    draws = model.predict(pd.DataFrame({"n": [256.0], "p": [1.0]}), n_draws=2000, seed=0).draws  # a training run
    assert draws.min() == 0.0 and 0.2 < np.mean(draws == 0.0) < 0.8
    # a target with negative values is no metric: nothing is cut
    negative = GaussianProcessModel("rbf", n_restarts=1, adam_iters=60, lbfgs_iters=30).fit(
        pd.DataFrame({"n": n, "p": p}), y - 0.05, features=["n", "p"])
    assert not hasattr(negative, "floor_")


@pytest.mark.parametrize("empirical", [True, False])
def test_a_target_of_no_spread_starts_the_spectral_mixture_with_finite_weights(empirical):
    # helper-86: fib's wait_tasks, fitted exactly by its mean, left residuals of 0; the
    # weights started at their sd, 0, i.e. raw -inf, and the saved model could not predict
    from gpytorch.kernels import SpectralMixtureKernel

    from probperf.models.kernels import init_spectral_mixture

    sm = SpectralMixtureKernel(num_mixtures=4, ard_num_dims=2).double()
    x = torch.tensor([[1.0, 1.0], [2.0, 1.0], [3.0, 2.0], [4.0, 4.0]], dtype=torch.float64)
    init_spectral_mixture(sm, x, torch.zeros(4, dtype=torch.float64), empirical=empirical)
    assert torch.isfinite(sm.raw_mixture_weights).all() and (sm.mixture_weights > 0).all()
    assert torch.isfinite(sm(x, x).to_dense()).all()
