"""Bayesian basis regression: recovery of known terms, calibration, per-draw designs,
persistence, diagnostics and bad input. Small data and short SVI/NUTS runs keep it fast."""

import warnings

import numpy as np
import pytest

from probperf.basis import BasisSet, Term, normal_form
from probperf.models.bayes import (
    BayesianBasisRegression,
    ConvergenceWarning,
    _diagnose,
    draw_index,
    nested_candidates,
)
from probperf.basis import serial_work


def truth(n):
    return 3 * n * np.log2(n) + 0.5 * n**2


def noisy(n, rel, seed):
    rng = np.random.default_rng(seed)
    return truth(n) * np.exp(rel * rng.standard_normal(n.size))


N_TRAIN = np.repeat(2.0 ** np.arange(4, 12), 5)  # 40 runs, n = 16 .. 2048


@pytest.fixture(scope="module")
def recovered():
    y = noisy(N_TRAIN, 0.03, seed=1)
    basis = normal_form(j=(0, 1, 2), k=(0, 1))  # the two true terms + 4 decoys
    model = BayesianBasisRegression(basis=basis, inference="svi", svi_steps=600, num_samples=400)
    return model.fit({"n": N_TRAIN}, y)


def test_recovers_true_terms_and_extrapolates(recovered):
    # mass = each term's share of the posterior-mean median, averaged over training points
    shares = recovered.shares_
    assert shares["n log2(n)"] + shares["n^2"] >= 0.9, shares
    assert abs(sum(shares.values()) - 1) < 1e-9
    n_far = 4 * N_TRAIN.max()
    lo, hi = recovered.predict({"n": [n_far]}).interval(0.9)
    assert lo[0] < truth(n_far) < hi[0]
    # the noise scale is learned: 3 % relative noise
    assert 0.02 < np.median(recovered.sigma_samples_) < 0.045


def test_coefficients_are_in_original_units(recovered):
    Phi = recovered.basis_.design(N_TRAIN)
    median = np.median(Phi @ recovered.coef_samples_.T, axis=1)
    # within 5 % of the noiseless truth at every training point
    np.testing.assert_allclose(median, truth(N_TRAIN), rtol=0.05)
    assert (recovered.coef_samples_ >= 0).all()


def test_loo_prefers_the_set_that_contains_the_truth():
    y = noisy(N_TRAIN, 0.03, seed=2)
    small = BasisSet([Term(1, 0), Term(1, 1)])
    right = BasisSet([Term(1, 0), Term(1, 1), Term(2, 0)])
    model = BayesianBasisRegression(
        candidates=[small, right], basis=right, inference="svi", svi_steps=300, num_samples=200, prune=0
    ).fit({"n": N_TRAIN}, y)
    assert model.basis_ == right
    assert len(model.loo_) == 2 and model.loo_["elpd_loo"].notna().all()


def test_pruning_drops_decoys_and_keeps_the_true_terms():
    # Truth 3 n log2 n + 0.5 n^2; decoys 1, n, n^3 take a small positive weight under
    # the shrinkage prior and are pruned (they never reach 1 % of the fit).
    y = noisy(N_TRAIN, 0.03, seed=4)
    basis = BasisSet([Term(0, 0), Term(1, 0), Term(1, 1), Term(2, 0), Term(3, 0)])
    model = BayesianBasisRegression(basis=basis, inference="svi", svi_steps=300, num_samples=200).fit(
        {"n": N_TRAIN}, y
    )
    assert set(model.basis_.terms) >= {Term(1, 1), Term(2, 0)}
    assert Term(3, 0) not in set(model.basis_.terms)


def test_nested_candidates_grow_with_exponents():
    sets = nested_candidates(serial_work())
    assert [len(s) for s in sets] == [4, 6, 6, 9, 8, 12]
    assert all(set(a.terms) <= set(b.terms) for a, b in [(sets[0], sets[1]), (sets[2], sets[3])])


def test_intervals_are_calibrated_over_seeds():
    # 12 cheap fits; each predicts 25 held-out runs drawn from the same process
    basis = BasisSet([Term(1, 1), Term(2, 0)])
    n_test = 2.0 ** np.random.default_rng(99).integers(4, 12, 25)
    hits = []
    for seed in range(12):
        y = noisy(N_TRAIN[::2], 0.05, seed=100 + seed)
        model = BayesianBasisRegression(
            basis=basis, inference="svi", svi_steps=200, num_samples=300, seed=seed
        ).fit({"n": N_TRAIN[::2]}, y)
        lo, hi = model.predict({"n": n_test}, n_draws=1000, seed=seed).interval(0.9)
        y_test = noisy(n_test, 0.05, seed=500 + seed)
        hits.append((lo < y_test) & (y_test < hi))
    coverage = np.mean(hits)
    assert 0.85 <= coverage <= 0.95, coverage


def test_predict_design_uses_the_per_draw_design():
    rng = np.random.default_rng(3)
    p = np.tile([1.0, 2.0, 4.0, 8.0], 8)
    create_task = rng.uniform(1e3, 1e5, p.size)
    Phi = np.column_stack([create_task, create_task * (p - 1), create_task * (p - 1) / p])
    y = Phi @ [2.0, 0.5, 1.0] * np.exp(0.02 * rng.standard_normal(p.size))
    model = BayesianBasisRegression(inference="svi", svi_steps=300, num_samples=100)
    model.fit_design(Phi, y, names=["c1", "c2", "c3"])
    S = model.coef_samples_.shape[0]
    # draw s uses posterior sample s when counts agree: exact identity
    flat = model.predict_design(Phi[:5], n_draws=S, noise=False)
    np.testing.assert_allclose(flat, model.coef_samples_ @ Phi[:5].T, rtol=1e-12)
    per_draw = np.repeat(Phi[None, :5], S, axis=0)
    per_draw[7] *= 2.0
    out = model.predict_design(per_draw, seed=4)
    base = model.predict_design(np.repeat(Phi[None, :5], S, axis=0), seed=4)
    np.testing.assert_allclose(out[7], 2 * base[7], rtol=1e-12)
    np.testing.assert_array_equal(np.delete(out, 7, axis=0), np.delete(base, 7, axis=0))
    # the fitted median reproduces the known coefficients
    np.testing.assert_allclose(model.predict_median_design(Phi), Phi @ [2.0, 0.5, 1.0], rtol=0.05)
    with pytest.raises(RuntimeError, match="predict_design"):
        model.predict({"n": [1.0]})


def test_draw_index_thins_and_cycles():
    assert draw_index(4, 4).tolist() == [0, 1, 2, 3]
    assert draw_index(2, 10).tolist() == [0, 5]
    assert draw_index(5, 2).tolist() == [0, 1, 0, 1, 0]


def test_save_load_round_trip(recovered, tmp_path):
    path = tmp_path / "bayes.safetensors"
    recovered.save(path)
    again = BayesianBasisRegression.load(path)
    X = {"n": [100.0, 5000.0, 1e5]}
    np.testing.assert_array_equal(
        recovered.predict(X, seed=7).draws, again.predict(X, seed=7).draws
    )
    assert again.basis_ == recovered.basis_ and again.shares_ == recovered.shares_
    assert list(again.loo_.index) == list(recovered.loo_.index)

def test_nuts_pruning_screens_with_a_short_run_then_runs_in_full():
    # With NUTS the first (pruning) run is short; the reported posterior is the full
    # run on the kept terms, with its diagnostics, and it recovers the truth. (One fit
    # for both: NUTS is the opt-in thorough mode, and each fit costs about 25 s here.)
    y = noisy(N_TRAIN, 0.03, seed=4)
    basis = BasisSet([Term(1, 1), Term(2, 0), Term(3, 0)])
    model = BayesianBasisRegression(basis=basis, inference="nuts", num_samples=130, warmup=130)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit({"n": N_TRAIN}, y)
    assert set(model.basis_.terms) == {Term(1, 1), Term(2, 0)}
    assert model.diagnostics_["num_samples"] == 130 and model.coef_samples_.shape == (130, 2)
    d = model.diagnostics_
    assert d["inference"] == "nuts"
    assert np.isfinite(d["r_hat_max"]) and np.isfinite(d["ess_bulk_min"])
    np.testing.assert_allclose(model.predict({"n": [4096.0]}).median, [truth(4096.0)], rtol=0.05)


def test_bad_chains_warn():
    rng = np.random.default_rng(0)
    # two chains stuck at different places: r_hat far above 1
    chains = [{"sigma": rng.normal(m, 0.01, 200), "beta": rng.normal(m, 0.01, (200, 2))} for m in (1.0, 2.0)]
    with pytest.warns(ConvergenceWarning, match="r_hat") as caught:
        diag = _diagnose(chains, divergences=3)
    assert {w.filename for w in caught} == {__file__}  # the caller's line, however deep the call
    assert diag["r_hat_max"] > 1.5 and diag["divergences"] == 3


def test_heteroscedastic_noise_grows_with_workers():
    rng = np.random.default_rng(6)
    n = np.repeat(2.0 ** np.arange(6, 12), 8)
    p = np.tile([1.0, 2.0, 4.0, 16.0], 12)
    sd = 0.01 * np.exp(1.5 * np.log2(p) / 4)  # 1 % at p=1, 4.5 % at p=16
    y = 3 * n * np.log2(n) * np.exp(sd * rng.standard_normal(n.size))
    model = BayesianBasisRegression(
        basis=BasisSet([Term(1, 1, "1"), Term(2, 0, "1")]), heteroscedastic=True,
        inference="svi", svi_steps=600, num_samples=300,
    ).fit({"n": n, "p": p}, y)
    pred = model.predict({"n": [1024.0, 1024.0], "p": [1.0, 16.0]})
    lo, hi = pred.interval(0.9)
    width = (hi - lo) / pred.median
    assert width[1] > 2 * width[0]
    assert np.median(model.gamma_samples_) > 0.5


def test_bad_input_gives_clear_errors():
    n = N_TRAIN
    y = truth(n)
    model = BayesianBasisRegression(basis=serial_work(), inference="svi", svi_steps=10)
    with pytest.raises(ValueError, match=r"y must be positive.*index 3 is -1.0"):
        model.fit({"n": n}, np.where(np.arange(n.size) == 3, -1.0, y))
    with pytest.raises(ValueError, match="y contains NaN"):
        model.fit({"n": n}, np.where(np.arange(n.size) == 0, np.nan, y))
    with pytest.raises(ValueError, match="2 points are too few"):
        model.fit({"n": n[:2]}, y[:2])
    with pytest.raises(ValueError, match="needs an 'n' column"):
        model.fit({"size": n}, y)
    with pytest.raises(ValueError, match=r"non-negative; row 1, b is -2.0"):
        model.fit_design(np.array([[1.0, 1.0], [1.0, -2.0], [1.0, 3.0]]), [1.0, 2.0, 3.0], names=["a", "b"])
    with pytest.raises(ValueError, match="inference must be"):
        BayesianBasisRegression(basis=BasisSet([Term(1, 0)]), inference="mcmc").fit({"n": n}, y)
    with pytest.raises(RuntimeError, match="not fitted"):
        BayesianBasisRegression().predict_design(np.ones((2, 2)))
