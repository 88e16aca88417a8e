"""Accuracy metrics against closed forms, and the extrapolation splits."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from probperf.data import Measurements, MeasurementError
from probperf.evaluate import (
    ape,
    calibration_curve,
    coverage,
    crps,
    extrapolation_splits,
    interval_width,
    median_ape,
    nlpd,
    score,
    splits_of,
)
from probperf.predict import Predictive


def gaussian_crps(mu, s, y):
    """Closed form CRPS of N(mu, s^2) at y (Gneiting & Raftery 2007)."""
    z = (y - mu) / s
    return s * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))


# -- point errors ------------------------------------------------------------------


def test_ape_exact_numbers_use_the_median():
    # medians 10, 40, 3 (the mean of column 1 would be 43.3)
    pred = Predictive([[9.0, 30.0, 3.0], [11.0, 40.0, 3.0], [10.0, 60.0, 3.0]])
    np.testing.assert_allclose(ape(pred, [8.0, 50.0, 4.0]), [25.0, 20.0, 25.0])
    assert median_ape(pred, [8.0, 50.0, 4.0]) == 25.0
    assert median_ape(pred, [10.0, 40.0, 3.0]) == 0.0


def test_ape_rejects_zero_truth():
    with pytest.raises(ValueError, match="zero at index 1"):
        ape(Predictive([[1.0, 1.0]]), [1.0, 0.0])


# -- CRPS --------------------------------------------------------------------------


def test_crps_of_point_mass_is_absolute_error():
    draws = np.tile([2.0, -1.0, 7.5], (50, 1))
    np.testing.assert_allclose(crps(Predictive(draws), [5.0, -1.0, 0.5]), [3.0, 0.0, 7.0])


def test_crps_two_draws_by_hand():
    # draws {0, 2}, y = 0: E|X-y| = 1, E|X-X'| = (0 + 2 + 2 + 0)/4 = 1 -> 1 - 0.5
    assert crps(Predictive([[0.0], [2.0]]), [0.0])[0] == pytest.approx(0.5)


def test_crps_matches_quadratic_definition():
    rng = np.random.default_rng(3)
    draws = rng.gamma(2.0, 1.5, size=(60, 4))
    y = np.array([0.5, 3.0, 6.0, 20.0])
    pair = np.abs(draws[:, None, :] - draws[None, :, :]).mean(axis=(0, 1))
    slow = np.abs(draws - y).mean(axis=0) - 0.5 * pair
    np.testing.assert_allclose(crps(draws, y), slow, rtol=1e-12)


def test_crps_of_gaussian_draws_matches_closed_form():
    rng = np.random.default_rng(0)
    mu = np.array([0.0, 10.0, -3.0, 100.0])
    s = np.array([1.0, 2.0, 0.5, 30.0])
    y = np.array([0.3, 13.0, -3.1, 40.0])
    draws = rng.normal(mu, s, size=(20000, 4))
    np.testing.assert_allclose(crps(draws, y), gaussian_crps(mu, s, y), rtol=0.02)


# -- coverage and width ------------------------------------------------------------


@pytest.mark.parametrize("level", [0.5, 0.9])
def test_coverage_of_true_distribution_is_level(level):
    rng = np.random.default_rng(1)
    n_points = 4000
    mu = rng.uniform(1, 5, size=n_points)
    draws = rng.lognormal(mu, 0.3, size=(400, n_points))
    truth = rng.lognormal(mu, 0.3)
    # binomial sd of the coverage over 4000 points is <= 0.008
    assert coverage(draws, truth, level) == pytest.approx(level, abs=0.03)


def test_overconfident_model_has_low_coverage():
    rng = np.random.default_rng(2)
    truth = rng.normal(0, 1, size=2000)
    draws = rng.normal(0, 0.2, size=(400, 2000))
    # P(|Z| < 1.645 * 0.2) for Z ~ N(0, 1) is about 0.26
    assert coverage(draws, truth, 0.9) == pytest.approx(2 * norm.cdf(1.645 * 0.2) - 1, abs=0.04)


def test_interval_width_exact_on_uniform_grid():
    draws = np.tile(np.arange(101.0)[:, None], (1, 2)) + [0.0, 100.0]
    # 90 % interval of 0..100 is [5, 95]; medians 50 and 150
    assert interval_width(draws, 0.9, relative=False) == pytest.approx(90.0)
    assert interval_width(draws, 0.9) == pytest.approx((90 / 50 + 90 / 150) / 2)


def test_calibration_curve_columns_and_values():
    draws = np.tile(np.arange(101.0)[:, None], (1, 4))
    curve = calibration_curve(draws, [50.0, 30.0, 10.0, 1.0], levels=[0.5, 0.9])
    assert list(curve.columns) == ["level", "coverage", "width"]
    assert curve["coverage"].tolist() == [0.5, 0.75]
    np.testing.assert_allclose(curve["width"], [1.0, 1.8])


# -- NLPD --------------------------------------------------------------------------


def test_nlpd_of_lognormal_draws_matches_exact_density():
    rng = np.random.default_rng(4)
    n_points = 200
    mu = rng.uniform(-1, 3, size=n_points)
    sigma = 0.3
    truth = rng.lognormal(mu, sigma)
    draws = rng.lognormal(mu, sigma, size=(2000, n_points))
    exact = -(norm.logpdf(np.log(truth), mu, sigma) - np.log(truth))
    assert np.mean(nlpd(draws, truth)) == pytest.approx(np.mean(exact), abs=0.05)
    # the linear-scale KDE estimates the same density
    assert np.mean(nlpd(draws, truth, scale="linear")) == pytest.approx(np.mean(exact), abs=0.1)


def test_nlpd_log_scale_needs_positive_values():
    with pytest.raises(ValueError, match="positive draws"):
        nlpd([[1.0], [-1.0]], [1.0])
    with pytest.raises(ValueError, match="scale must be"):
        nlpd([[1.0], [2.0]], [1.0], scale="sqrt")


# -- score and bad input -----------------------------------------------------------


def test_score_holds_every_figure():
    pred = Predictive(np.tile(np.arange(1.0, 102.0)[:, None], (1, 2)))
    s = score(pred, [51.0, 61.0], levels=(0.5, 0.9))
    assert s["n_points"] == 2
    assert s["median_ape"] == pytest.approx((0 + 100 * 10 / 61) / 2)
    assert s["coverage_50"] == 1.0 and s["coverage_90"] == 1.0
    assert s["width_90"] == pytest.approx(90 / 51)
    assert s["crps"] == pytest.approx(np.mean(crps(pred, [51.0, 61.0])))
    assert np.isfinite(s["nlpd"])
    assert set(s) >= {"mean_ape", "crps_rel", "width_50"}


def test_shape_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match="3 points but y has 2 values"):
        score(Predictive(np.ones((5, 3))), [1.0, 2.0])


def test_nan_in_truth_or_draws_is_a_clear_error():
    with pytest.raises(ValueError, match=r"y holds NaN.*index 1"):
        crps(Predictive(np.ones((5, 2))), [1.0, np.nan])
    draws = np.ones((5, 3))
    draws[2, 2] = np.nan
    with pytest.raises(ValueError, match=r"draws hold NaN.*point 2"):
        coverage(draws, [1.0, 1.0, 1.0])


def test_bad_level_is_rejected():
    with pytest.raises(ValueError, match="level must be in"):
        coverage(np.ones((3, 1)), [1.0], level=90)


# -- splits ------------------------------------------------------------------------


def grid():
    n = [2**k for k in range(4, 9)]
    p = [1, 2, 4, 8, 16]
    rows = [(a, b, a / b + 0.01 * a) for a in n for b in p]
    return Measurements(pd.DataFrame(rows, columns=["n", "p", "time"]))


def test_extrapolation_splits_partition_the_table():
    splits = extrapolation_splits(grid(), n_max=64, p_max=4)
    assert list(splits) == ["train", "test1", "test2", "test3"]
    sizes = {k: len(v) for k, v in splits.items()}
    assert sizes == {"train": 9, "test1": 6, "test2": 6, "test3": 4}
    train, test1, test2, test3 = (splits[k].frame for k in splits)
    assert train["n"].max() == 64 and train["p"].max() == 4
    assert test1["n"].min() == 128 and test1["p"].max() == 4
    assert test2["n"].max() == 64 and test2["p"].min() == 8
    assert test3["n"].min() == 128 and test3["p"].min() == 8


def test_extrapolation_splits_without_worker_limit_has_only_test1():
    splits = extrapolation_splits(grid(), n_max=64)
    assert {k: len(v) for k, v in splits.items()} == {"train": 15, "test1": 10}


def test_extrapolation_splits_errors():
    with pytest.raises(MeasurementError, match="no training rows"):
        extrapolation_splits(grid(), n_max=1, p_max=4)
    with pytest.raises(MeasurementError, match="no test rows"):
        extrapolation_splits(grid(), n_max=1e9, p_max=1e9)


def test_splits_of_uses_the_split_column():
    m = Measurements(
        {"n": [1, 2, 4, 8], "p": [1, 1, 1, 1], "time": [1.0, 2.0, 4.0, 8.0],
         "split": ["train", "train", "test", "test"]}
    )
    splits = splits_of(m)
    assert list(splits) == ["train", "test"]
    assert splits["test"].frame["n"].tolist() == [4, 8]
    with pytest.raises(MeasurementError, match="no 'split' column"):
        splits_of(grid())


def test_scores_take_the_measured_runs_and_say_what_they_refuse():
    """The runs themselves as the truth (their time, converted from cycles where the
    rate is known), one level alone; a level written as text, runs in another unit and
    a table without n for the size splits are refused by name."""
    pred = Predictive([[9.0, 21.0], [11.0, 19.0], [10.0, 20.0]], unit="s")
    runs = Measurements({"n": [1, 2], "p": [1, 1], "time": [10.0, 25.0]})
    assert score(pred, runs, levels=0.9)["coverage_90"] == 0.5 and "coverage_50" not in score(pred, runs, levels=0.9)
    assert crps(pred, runs).tolist() == crps(pred, [10.0, 25.0]).tolist()
    with pytest.raises(TypeError, match="interval level must be a number in"):
        coverage(pred, runs, level="0.9")
    with pytest.raises(ValueError, match="the measurements are in cycles, the prediction in s"):
        score(pred, Measurements({"n": [1, 2], "p": [1, 1], "time": [1e10, 2e10]}, unit="cycles"))
    with pytest.raises(MeasurementError, match="parameter 'n' is needed but missing"):
        extrapolation_splits(Measurements({"p": [1, 2], "time": [1.0, 0.6]}), n_max=1)


def test_scores_refuse_slips_numpy_would_take():
    # True read as 1, "2.5" as 2.5, relative="no" as true, levels="0.5" as 0, 0.5 (chars)
    draws = np.tile(np.arange(101.0)[:, None], (1, 2))
    with pytest.raises(TypeError, match="y must be the measured values as numbers"):
        score(draws, [True, False])
    with pytest.raises(TypeError, match="y must be the measured values as numbers"):
        score(draws, ["50", "60"])
    with pytest.raises(TypeError, match="relative must be True or False, got 'no'"):
        interval_width(draws, relative="no")
    with pytest.raises(TypeError, match="interval level must be a number in \\(0, 1\\), got '0.5'"):
        calibration_curve(draws, [50, 60], levels="0.5")
    assert calibration_curve(draws, [50, 60], levels=0.5)["coverage"].tolist() == [1.0]  # 50 and 60 in 25..75
