"""The GP on a law's residuals (probperf.models.residual): offsets that no smooth law
has, carried to a prediction nearby and forgotten far away."""

from __future__ import annotations

import numpy as np
import pytest

from probperf import persist
from probperf.models import LawMixture, residual

#: 20 equal tasks on p workers take ceil(20 / p) rounds: 5, 4, 4, 3, 3 on 4..8 workers,
#: a step no power of p follows (the published Rabin-Miller runs have it)
WORKERS = np.array([4.0, 5.0, 6.0, 7.0, 8.0])
SIZES = 2.0 ** np.arange(8, 14)


def rounds(n, p):
    return 1e-6 * n**2 * np.ceil(20 / p)


def fit(gp: bool):
    rng = np.random.default_rng(0)
    n, p = np.repeat(SIZES, len(WORKERS)), np.tile(WORKERS, len(SIZES))
    y = rounds(n, p) * np.exp(0.01 * rng.standard_normal(len(n)))
    return LawMixture(residual_gp=gp).fit(np.c_[n, p], y, features=["n", "p"])


@pytest.fixture(scope="module")
def with_gp():
    return fit(True)


def test_a_step_in_the_workers_is_carried_to_larger_sizes(with_gp):
    pts = {"n": [2.0**14] * 5, "p": WORKERS.tolist()}
    truth = rounds(2.0**14, WORKERS)
    err_gp = np.abs(with_gp.predict(pts, n_draws=2000).median / truth - 1)
    err_law = np.abs(fit(False).predict(pts, n_draws=2000).median / truth - 1)
    assert np.max(err_gp) < 0.03, err_gp
    assert np.max(err_law) > 2 * np.max(err_gp), (err_law, err_gp)
    assert all(law.residual is not None for law in with_gp.laws_.values())


def test_far_from_the_data_the_gp_reverts_to_the_law_and_its_prior_variance(with_gp):
    far = np.array([[2.0**200, 7.0]])  # ~110 training sds of log n: exp(-110 / 4) ~ 1e-12
    for law in with_gp.laws_.values():
        gp = law.residual
        assert abs(gp.mean(far)[0]) < 1e-9
        assert gp.variance(far)[0] == pytest.approx(gp.share, abs=1e-9)


def test_draws_follow_the_student_t_predictive(with_gp):
    """A draw's noise variance comes from the inverse gamma and its law and residual
    parts are normal given it, so the draws' marginal is the predictive Student-t:
    mean ``loc``, variance ``scale^2 df / (df - 2)``."""
    X = np.array([[2.0**12, 6.0], [2.0**14, 7.0], [2.0**16, 8.0]])
    name = max(with_gp.weights_, key=with_gp.weights_.get)
    law = with_gp.laws_[name]
    df, loc, scale = law.predictive(X, ["n", "p"])
    draws = law.draws(X, ["n", "p"], 200_000, np.random.default_rng(1), noise=True)
    assert df > 4
    np.testing.assert_allclose(draws.mean(axis=0), loc, atol=0.02 * scale.max())
    np.testing.assert_allclose(draws.var(axis=0), scale**2 * df / (df - 2), rtol=0.05)


def test_a_law_with_a_residual_gp_survives_save_and_load(with_gp, tmp_path):
    with_gp.save(tmp_path / "gp.model")
    back = persist.load(tmp_path / "gp.model")
    pts = {"n": [3000.0, 2.0**15], "p": [7.0, 8.0]}
    np.testing.assert_array_equal(back.predict(pts, seed=2).draws, with_gp.predict(pts, seed=2).draws)


def test_too_many_runs_or_no_varying_parameter_get_no_gp():
    r = np.tile([0.05, -0.05], residual.MAX_ROWS)
    X = np.c_[np.arange(1.0, len(r) + 1)]
    assert residual.fit(X, r, np.ones(len(r))) is None
    assert residual.fit(np.ones((10, 1)), r[:10], np.ones(10)) is None


def test_a_mixture_on_more_settings_than_the_cap_gives_no_law_a_gp():
    """Decided on all the runs: the splits (fewer runs each) must weigh the same laws
    that predict, so none of them gets a GP either."""
    sizes = 2.0 ** np.linspace(8, 13, 41)  # 41 sizes x 5 worker counts: 205 settings
    n, p = np.repeat(sizes, len(WORKERS)), np.tile(WORKERS, len(sizes))
    assert residual.settings(np.c_[n, p]) == 205 > residual.MAX_ROWS
    model = LawMixture(residual_gp=True).fit(np.c_[n, p], rounds(n, p), features=["n", "p"])
    assert all(law.residual is None for law in model.laws_.values())


def test_repeats_of_one_setting_share_one_gp_input():
    """7 runs of each of the 30 settings (210 runs: above the cap in runs, not in
    settings): the laws get GPs on the 30 settings, and the step in the workers is
    followed at the largest size as with one run each (a third repetition once took the
    GPs away and left laws 40 % off at measured settings)."""
    reps = residual.MAX_ROWS // (len(SIZES) * len(WORKERS)) + 1
    n = np.repeat(SIZES, len(WORKERS) * reps)
    p = np.tile(WORKERS, len(SIZES) * reps)
    assert len(n) > residual.MAX_ROWS and residual.settings(np.c_[n, p]) == 30
    y = rounds(n, p) * np.exp(0.01 * np.random.default_rng(0).standard_normal(len(n)))
    model = LawMixture(residual_gp=True).fit(np.c_[n, p], y, features=["n", "p"])
    assert all(len(law.residual.alpha_) == 30 for law in model.laws_.values())
    pts = {"n": [2.0**13] * 5, "p": WORKERS.tolist()}
    err = np.abs(model.predict(pts, n_draws=2000).median / rounds(2.0**13, WORKERS) - 1)
    assert np.max(err) < 0.02, err


def test_a_coarser_held_out_run_widens_only_the_independent_noise(with_gp):
    """Scoring a run measured with precision w (rounding, :func:`laws.noise_weights`):
    only the noise the GP leaves independent grows, by ``b/a (1 - share) (1/w - 1)``."""
    X = np.array([[2.0**13, 7.0], [2.0**15, 5.0]])
    w = np.array([0.25, 0.5])
    for law in with_gp.laws_.values():
        _, loc1, scale1 = law.predictive(X, ["n", "p"])
        _, loc2, scale2 = law.predictive(X, ["n", "p"], w)
        np.testing.assert_allclose(loc2, loc1)
        expected = law.b / law.a * law.residual.noise_share * (1 / w - 1)
        np.testing.assert_allclose(scale2**2 - scale1**2, expected, rtol=1e-9)
