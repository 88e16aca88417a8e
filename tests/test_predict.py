"""Whether the mean of a prediction's draws can be trusted: the Pareto k of their right
tail, checked against ArviZ's PSIS and against tails of known index."""

import warnings

import arviz as az
import numpy as np
import pytest

from probperf.predict import Predictive, mean_k_threshold, right_tail_k


def _samples():
    rng = np.random.default_rng(3)
    yield from (np.exp(rng.normal(0.0, s, S)) for s in (0.1, 1.0, 3.0) for S in (100, 1000, 4000))
    yield from (rng.pareto(a, 2000) + 1.0 for a in (0.5, 1.0, 3.0))


@pytest.mark.parametrize("x", list(_samples()))
def test_the_tail_shape_is_psis_k(x):
    # PSIS fits the same generalized Pareto to the largest importance weights; with the
    # draws as weights its k must be ours to rounding
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArviZ warns about k > 0.7 itself
        _, k = az.psislw(np.log(x)[None, :])
    assert right_tail_k(x[:, None])[0] == pytest.approx(float(k[0]), abs=1e-12)


def test_the_tail_shape_finds_the_tail_index():
    # Pareto draws of tail index a have k = 1/a; 20000 draws pin it within about 0.1
    rng = np.random.default_rng(0)
    draws = np.column_stack([rng.pareto(a, 20000) + 1.0 for a in (0.5, 1.0, 2.0)])
    np.testing.assert_allclose(right_tail_k(draws), [2.0, 1.0, 0.5], atol=0.12)


def test_a_mean_without_a_finite_value_is_flagged():
    rng = np.random.default_rng(1)
    pred = Predictive(np.c_[np.exp(rng.normal(0.0, 0.3, 1000)), rng.pareto(0.7, 1000) + 1.0, np.ones(1000)])
    assert pred.mean_reliable.tolist() == [True, False, True]
    assert np.isnan(pred.mean_tail_k[2])  # constant draws: nothing to fit, the mean is exact
    assert mean_k_threshold(1000) == pytest.approx(1 - 1 / 3)


def test_draws_that_cannot_tell_give_nan_and_a_few_outliers_give_inf():
    rng = np.random.default_rng(2)
    assert np.isnan(right_tail_k(np.array([[1.0], [2.0], [3.0]]))).all()  # 3 draws
    assert np.isnan(right_tail_k(np.zeros((200, 1)))).all()  # no positive draw
    two_outliers = np.r_[np.ones(198), 1e6, 2e6]  # the mean is these two draws
    assert right_tail_k(np.c_[two_outliers, np.r_[np.ones(199), np.inf]]).tolist() == [np.inf, np.inf]
    # zeros below the tail do not matter: only the largest draws are fitted
    x = rng.pareto(0.7, 1000) + 1.0
    assert right_tail_k(np.r_[x[:-3], 0.0, 0.0, 0.0][:, None])[0] == pytest.approx(
        right_tail_k(np.r_[x[:-3], 0.5, 0.5, 0.5][:, None])[0])
    assert not Predictive(two_outliers[:, None]).mean_reliable[0]


def test_predict_warns_when_a_mean_rests_on_extreme_draws(monkeypatch):
    from typer.testing import CliRunner

    from probperf import cautions, persist
    from probperf.cli import app

    class HeavyFarOut:
        features_ = ["n", "p"]

        def predict(self, X, n_draws, seed):
            rng = np.random.default_rng(seed)
            light = np.exp(rng.normal(0.0, 0.1, (n_draws, 1)))
            heavy = rng.pareto(0.5, (n_draws, 1)) + 1.0
            pred = Predictive(np.where(X["n"].to_numpy() > 1000, heavy, light), X, "time")
            cautions.warn(self, X, pred)  # as every table model's predict does; the CLI prints them
            return pred

    monkeypatch.setattr(persist, "load", lambda path: HeavyFarOut())
    res = CliRunner().invoke(app, ["predict", "any.model", "--at", "n=64,p=2", "--at", "n=4096,p=2",
                                   "--at", "n=8192,p=2"])
    assert res.exit_code == 0, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("warning: the mean at n=") and "and 1 more point rests on a few extreme draws" in line
    res = CliRunner().invoke(app, ["predict", "any.model", "--at", "n=64,p=2"])
    assert res.exit_code == 0 and res.stderr == ""
