"""Predictions from Python: whether the mean of a prediction's draws can be trusted
(the Pareto k of their right tail, checked against ArviZ's PSIS and against tails of
known index), and how points, levels and seeds are checked."""

import json
import re
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest

import probperf as pp
from probperf.outputs import OutputError
from probperf.predict import Predictive, mean_k_threshold, prediction_points, right_tail_k


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
    from probperf.models.base import TableModel

    class HeavyFarOut(TableModel):  # a model predict takes (one fit makes)
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
    # the rows say which means to trust; the table shows none where the warning applies
    res = CliRunner().invoke(app, ["predict", "any.model", "--at", "n=64,p=2", "--at", "n=4096,p=2", "--format", "json"])
    assert [row["mean_reliable"] for row in json.loads(res.stdout)] == [True, False]
    res = CliRunner().invoke(app, ["predict", "any.model", "--at", "n=64,p=2", "--at", "n=4096,p=2"])
    rows = [line for line in res.stdout.splitlines() if line.startswith(("│   64", "│ 2^12"))]
    means = [line.split("│")[3].strip() for line in rows]  # n, p, then the mean
    assert means[1] == "-" and float(means[0]) == pytest.approx(1.0, abs=0.05)
    assert "-: the mean rests on a few extreme draws (see the warning); read the median" in " ".join(res.stdout.split())


# -- points, levels and seeds from Python: refused by name, never NaN or a dropped parameter --



@pytest.fixture(scope="module")
def direct():
    n = np.array([10, 20, 40, 80, 160] * 3, dtype=np.int64)
    p = np.repeat([1, 2, 4], 5)
    time = 0.01 * n / p * np.exp(np.random.default_rng(0).normal(0.0, 0.02, 15))
    return pp.DirectModel().fit(pp.Measurements({"n": n, "p": p, "time": time}))


@pytest.mark.parametrize("X, params, message", [
    (None, {"n": np.nan, "p": 2}, "n must be a finite number at every prediction point; point 1 has n=nan"),
    (None, {"n": [10, np.inf], "p": 2}, "point 2 has n=inf"),
    (None, {"n": None, "p": 2}, "point 1 has n=None"),
    (None, {"n": "abc", "p": 2}, "point 1 has n='abc'"),
    (None, {"n": True, "p": 2}, "point 1 has n=True"),
    (None, {"n": 10, "p": 2, "q": 3}, "the model has no parameter 'q'; its parameters are n, p"),
    ({"n": [10]}, {"p": 2}, "give the points either as a table or as keywords, not both (keywords given: p)"),
    ({}, {}, "predict needs points: predict(n=..., p=...) or a table of points"),
    (pd.DataFrame({"n": [], "p": []}), {}, "predict needs points: the table of points has no rows"),
    (None, {"n": [], "p": 2}, "the table of points has no rows"),
    (None, {"n": [10, 20], "p": [1, 2, 4]}, "the parameters give different numbers of points: n has 2, p has 3"),
    (None, {"n": [[10, 20]], "p": 2}, "n: give one value per point (a number or a flat list)"),
    (np.array([10.0, 2.0]), {}, "a 2-D array of points (one row per point) needs one column per parameter (n, p); "
                                "got shape (2,)"),
    ("n=10", {}, "prediction points must be a table, a mapping or a 2-D array of numbers"),
])
def test_bad_prediction_points_are_refused_by_name(X, params, message):
    with pytest.raises(ValueError if not isinstance(X, str) else TypeError) as caught:
        prediction_points(X, params, ["n", "p"])
    assert message in str(caught.value)


def test_points_come_in_every_shape_alike(direct):
    by_name = direct.predict(n=[320, 640], p=4, n_draws=200).median
    same = [direct.predict({"n": [320, 640], "p": [4, 4]}, n_draws=200),
            direct.predict(pd.DataFrame({"n": [320, 640], "p": [4, 4], "time": [1.0, 2.0], "split": "test"}),
                           n_draws=200),  # a table of runs: its metric and label are not parameters
            direct.predict(np.array([[320, 4], [640, 4]], dtype=np.int32), n_draws=200),
            direct.predict([{"n": 320, "p": 4}, {"n": 640, "p": 4}], n_draws=200),
            direct.predict(n=pd.Series([320, 640]), p=np.int64(4), n_draws=200)]
    for pred in same:
        np.testing.assert_array_equal(pred.median, by_name)
    one = direct.predict(n=320, p=4, n_draws=200).median
    assert direct.predict(pd.Series({"n": 320, "p": 4}), n_draws=200).median == one  # a Series is one point


def test_an_array_may_leave_out_the_parameters_constant_in_training():
    # p was 8 in every run: a one-column array is n alone, a two-column one (n, p)
    pts = prediction_points(np.array([[64.0], [128.0]]), {}, ["n", "p"], {"p": 8})
    assert pts.to_dict("list") == {"n": [64.0, 128.0], "p": [8.0, 8.0]}
    with pytest.raises(ValueError, match=r"or per parameter that varied in training \(n\); got shape \(1, 3\)"):
        prediction_points(np.array([[64.0, 8.0, 1.0]]), {}, ["n", "p"], {"p": 8})


def test_a_model_refuses_an_unknown_parameter_and_nan(direct):
    with pytest.raises(ValueError, match="the model has no parameter 'cutoff'; its parameters are n, p"):
        direct.predict(n=320, p=4, cutoff=64)
    with pytest.raises(ValueError, match="the model has no parameter 'cutoff'"):
        direct.explain(n=320, p=4, cutoff=64)
    with pytest.raises(ValueError, match="point 1 has n=nan"):
        direct.model_.predict({"n": [np.nan], "p": [4]})  # the law mixture itself too


def test_a_metric_model_predicts_at_a_table_fitted_on_some_of_its_parameters():
    runs = pp.Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4, "cutoff": [8] * 8,
                            "time": [1.0, 2.0, 4.1, 8.0, 0.5, 1.0, 2.0, 4.1]}, config=["cutoff"])
    mix = pp.LawMixture().fit(runs, target="time", features=["n", "p"])
    assert mix.predict(runs, n_draws=50).points.columns.tolist() == ["n", "p"]


def test_levels_quantiles_samples_and_seeds_are_checked(direct):
    pred = direct.predict(n=[320, 640], p=4, n_draws=100)
    for level in ("0.9", np.array([0.5, 0.9]), 90, 0, np.nan, True):
        with pytest.raises(ValueError, match=r"level must be a number in \(0, 1\), got "):
            pred.interval(level)
    with pytest.raises(ValueError, match=r"level must be a number in \(0, 1\), got 2"):
        direct.explain(n=320, p=4, level=2)
    with pytest.raises(ValueError, match=r"q must be a number or numbers in \[0, 1\], got \[0.5, 2\]"):
        pred.quantile([0.5, 2])
    with pytest.raises(ValueError, match="k must be a whole number >= 0, got -1"):
        pred.sample(-1)
    for seed in (-1, "a", 1.5):
        with pytest.raises(ValueError, match=f"seed must be a whole number >= 0 or None, got {seed!r}"):
            direct.predict(n=320, p=4, seed=seed)
    assert pred.summary(np.float64(0.5))["level"].tolist() == [0.5, 0.5]


def test_a_prediction_of_time_carries_its_unit(direct):
    pred = direct.predict(n=[320, 640], p=4, n_draws=50)
    assert (pred.unit, pred[1].unit, pred.map(np.log).unit) == ("s", "s", "s")


@pytest.mark.parametrize("make", [pp.DirectModel, pp.DagModel, pp.TwoStepLasso, lambda: pp.fit])
def test_every_fit_refuses_a_table_without_rows(make):
    """A table cut to no rows (m.rows(mask)) is refused by name, where numpy once said
    'zero-size array to reduction operation minimum which has no identity'."""
    m = pp.Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2]})
    empty = m.rows(np.zeros(4, dtype=bool))
    model = make()
    fit = model if callable(model) and not hasattr(model, "fit") else model.fit
    with pytest.raises(ValueError, match=r"(fit|\.fit): the table has no rows: nothing to fit$"):
        fit(empty)


def test_a_direct_model_refuses_a_target_that_is_no_metric():
    m = pp.Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2]})
    with pytest.raises(ValueError, match=r"^DirectModel\(target='n'\): a parameter, not a metric"):
        pp.DirectModel(target="n").fit(m)  # it once fitted n, and predict printed "predicted n [s]"

def test_fit_refuses_a_bare_table_and_a_bad_seed():
    frame = pd.DataFrame({"n": [10, 20, 40], "p": [1, 1, 1], "time": [1.0, 2.0, 4.0]})
    with pytest.raises(TypeError, match=r"DirectModel.fit expects a probperf Measurements table .* got DataFrame"):
        pp.DirectModel().fit(frame)
    with pytest.raises(TypeError, match=r"PenaltyModel.fit expects a probperf Measurements table .* got dict"):
        pp.PenaltyModel().fit(frame.to_dict("list"))
    with pytest.raises(ValueError, match="seed must be a whole number >= 0, got None"):
        pp.DirectModel(seed=None).fit(pp.Measurements(frame))
    with pytest.raises(ValueError, match=r"y must be numbers, one per row of X; got \['a', 'b'\]"):
        pp.LawMixture().fit(np.array([[1.0, 2.0], [2.0, 2.0]]), ["a", "b"])


def test_save_names_a_directory_or_a_missing_folder(direct, tmp_path):
    with pytest.raises(OutputError, match=f"model file {tmp_path}: is a directory; give a file name"):
        direct.save(tmp_path)
    with pytest.raises(OutputError, match=f"directory {tmp_path / 'none'} does not exist"):
        direct.save(tmp_path / "none" / "x.model")
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind


def test_a_prediction_that_overflows_says_so(direct):
    from probperf.cautions import ExtrapolationWarning

    with pytest.warns(ExtrapolationWarning, match=r"the prediction at n=1e\+300,p=4 is not finite in \d+ of its "
                                                  r"100 draws \(overflow far beyond the data\)"):
        direct.predict(n=1e300, p=4, n_draws=100)


def test_plots_refuse_what_they_cannot_draw(direct):
    from probperf.plot import plot_actual_vs_predicted, plot_band

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # beyond the data, on purpose
        fig = plot_band(direct, vs="p", at={"n": 320}, levels=(0.5, 0.8, 0.9, 0.95), n_draws=50)
        assert len(fig.axes[0].collections) == 4  # every level shaded, not the first three
        assert plot_band(direct, vs="p", at={"n": 320}, levels=0.9, n_draws=50)
    with pytest.raises(RuntimeError, match="DirectModel is not fitted; call fit"):
        plot_band(pp.DirectModel(), vs="p", at={"n": 320})
    with pytest.raises(ValueError, match="point 1 has n='abc'"):
        plot_band(direct, vs="p", at={"n": "abc"})
    with pytest.raises(ValueError, match="the model has no parameter 'q'"):
        plot_band(direct, vs="p", at={"n": 320, "q": 1}, n_draws=50)
    with pytest.raises(TypeError, match="data must be a probperf Measurements table"):
        plot_band(direct, vs="p", at={"n": 320}, data=pd.DataFrame({"n": [10], "p": [1], "time": [1.0]}))
    pred = direct.predict(n=[40, 80], p=2, n_draws=50)
    with pytest.raises(ValueError, match="3 measured values for 2 predicted points"):
        plot_actual_vs_predicted([1.0, 2.0, 3.0], pred)
    with pytest.raises(ValueError, match="actual .on log axes. must be positive and finite; index 0 is -1.0"):
        plot_actual_vs_predicted([-1.0, 2.0], pred)
    with pytest.raises(TypeError, match="pred must be a Predictive"):
        plot_actual_vs_predicted([1.0, 2.0], pred.draws)


def test_fit_by_name_refuses_a_dataframe_before_choosing_a_model():
    import probperf as pp

    with pytest.raises(TypeError, match="fit expects a probperf Measurements table .* got DataFrame"):
        pp.fit(pd.DataFrame({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]}))


def test_an_interval_reaching_overflowed_draws_is_infinite_not_nan():
    # 20 of 100 draws overflowed: the 90 % interval's upper end and the 0.85 quantile lie
    # among them (numpy's interpolation there is inf - inf = NaN); the median is a number
    draws = np.r_[np.arange(1.0, 81.0), np.full(20, np.inf)][:, None]
    pred = Predictive(draws)
    lo, hi = pred.interval(0.9)
    assert lo.tolist() == [pytest.approx(5.95)] and hi.tolist() == [np.inf]
    assert pred.quantile([0.5, 0.85]).ravel().tolist() == [50.5, np.inf] and pred.median.tolist() == [50.5]


def test_a_quantile_on_a_finite_draw_beside_an_overflowed_one_is_that_draw():
    # 1001 draws, 50 inf: the 95 % quantile falls exactly on draw 951 (finite, 951.0),
    # beside the first inf, where numpy computes 951 + inf * 0 = NaN
    pred = Predictive(np.r_[np.arange(1.0, 952.0), np.full(50, np.inf)][:, None])
    lo, hi = pred.interval(0.9)
    assert lo.tolist() == [pytest.approx(51.0)] and hi.tolist() == [951.0]


def test_the_api_says_what_is_wrong_in_its_own_words():
    """Misuses that once surfaced as pandas' or numpy's errors from deep inside."""
    m = pp.Measurements({"n": [10, 20], "p": [1, 1], "time": [1.0, 2.0]})
    with pytest.raises(TypeError, match="got a Measurements: use it as it is"):
        pp.Measurements(m)  # pandas: "DataFrame constructor not properly called!"
    with pytest.raises(ValueError, match=r"^points: these runs have no column 'q'; they have n, p, time$"):
        m.points(["q"])  # pandas: KeyError
    pred = pp.Predictive(np.ones((3, 2)))
    with pytest.raises(IndexError, match=r"^a prediction at 2 points has no point 5 "):
        pred[5]
    with pytest.raises(IndexError, match=r"^a prediction at 2 points has no point 'n' "):
        pred["n"]
    for odd in (True, None, [[0]]):  # numpy read them as an axis or a table (helper-74: pandas' words)
        with pytest.raises(IndexError, match=rf"^a prediction at 2 points has no point {re.escape(repr(odd))} "):
            pred[odd]
    assert pred[1].n_points == 1 and pred[[True, False]].n_points == 1
    with pytest.raises(ValueError, match=r"^draws must be numbers"):
        pp.Predictive("a")
    with pytest.raises(TypeError, match=r"^map takes a function of the draws, got None"):
        pred.map(None)
    with pytest.raises(ValueError, match=r"^q must be a number or numbers in \[0, 1\], got '0.5'"):
        pred.quantile("0.5")  # as interval("0.9") is refused
    with pytest.raises(TypeError, match=r"^a model file is named by a path \(a str or a pathlib.Path\), got None"):
        pp.load(None)


def test_the_api_refuses_an_empty_kernel_spec_as_the_cli_does():
    m = pp.Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2]})
    with pytest.raises(ValueError, match=r"^kernel '': a model spec must be 'laws', 'basis' or a kernel spec"):
        pp.fit(m, kernel="")  # it once fitted the default laws without a word
    with pytest.raises(ValueError, match=r"^kernel 'sm0'"):
        pp.fit(m, kernel="sm0")


def test_save_checks_its_path_as_fit_o_does(tmp_path):
    """model.save wrote a model named runs.csv (fit -o refuses it) and answered None or
    an empty path with pathlib's words."""
    m = pp.Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2]})
    model = pp.fit(m)
    with pytest.raises(ValueError, match=r"runs.csv: a model file cannot have the measurements suffix '.csv'"):
        model.save(tmp_path / "runs.csv")
    with pytest.raises(ValueError, match=r"^model file: the path is empty"):
        model.save("")
    with pytest.raises(TypeError, match=r"^a model file is named by a path \(a str or a pathlib.Path\), got None"):
        model.save(None)
    assert list(tmp_path.iterdir()) == []
    model.save(tmp_path / "fit.model")
    assert pp.load(tmp_path / "fit.model").predict(n=160, p=1).median[0] == pytest.approx(
        model.predict(n=160, p=1).median[0])
    # helper-69: a model name that links to the runs wrote the model over them
    (tmp_path / "runs.csv").write_text("n,p,time\n10,1,1.0\n")
    (tmp_path / "link.model").symlink_to(tmp_path / "runs.csv")
    with pytest.raises(ValueError, match=r"link.model: it is a link to .*runs.csv, which a model file would overwrite"):
        model.save(tmp_path / "link.model")
    assert (tmp_path / "runs.csv").read_text() == "n,p,time\n10,1,1.0\n"


def test_a_model_saved_twice_is_the_same_bytes(tmp_path):
    # helper-69: safetensors wrote the metadata in a hash map's order, different at each
    # save (18 orders in 20 saves), so one model gave files of different checksums
    m = pp.Measurements({"n": [10, 20, 40, 80], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2]})
    model = pp.fit(m)
    files = [tmp_path / f"{i}.model" for i in range(8)]
    for f in files:
        model.save(f)
    assert len({f.read_bytes() for f in files}) == 1
    assert pp.load(files[0]).predict(n=160, p=1).median[0] == model.predict(n=160, p=1).median[0]


@pytest.mark.parametrize("p", [2**53 + 1, 1e19, np.int64(2**62)])
def test_a_worker_count_float64_cannot_hold_is_refused(p):
    # as 2**53 + 1 it would reach the model as 2**53; a file's p is refused alike (probperf.data)
    from probperf.predict import point_table

    with pytest.raises(ValueError, match=r"^p = .* at point 2 is beyond 2\*\*53, the largest integer held exactly$"):
        point_table({"n": [64, 64], "p": [2, p]}, ["n", "p"])
    assert point_table({"n": [64], "p": [2**53]}, ["n", "p"])["p"].tolist() == [2.0**53]


def test_a_time_only_models_seed_reaches_its_draws():
    # seed=None at predict is the constructor's seed, as in DagModel: two models that
    # differ only by seed draw differently, and the same seed draws the same
    runs = pp.Measurements({"n": np.repeat([10.0, 20, 40, 80, 160], 3), "p": np.tile([1.0, 2, 4], 5),
                            "time": [1.0, 0.52, 0.27, 2.1, 1.1, 0.56, 3.9, 2.0, 1.05, 8.2, 4.2, 2.2, 16.5, 8.3, 4.3]})
    for make in (lambda s: pp.DirectModel(seed=s), lambda s: pp.PenaltyModel(kernel="laws", seed=s)):
        one, two = make(1).fit(runs), make(2).fit(runs)
        d1 = one.predict(n=320, p=8, n_draws=50).draws
        assert np.array_equal(d1, one.predict(n=320, p=8, n_draws=50, seed=1).draws)
        assert not np.array_equal(d1, one.predict(n=320, p=8, n_draws=50, seed=2).draws)
        assert not np.array_equal(d1, two.predict(n=320, p=8, n_draws=50).draws)


def test_a_metric_keyword_or_a_date_is_refused_at_prediction(direct):
    # time=3 was dropped without a word, and a date taken as its nanoseconds (1.6e18)
    with pytest.raises(ValueError, match="time is a metric, which the model predicts, not a parameter of the points; "
                                         "its parameters are n, p"):
        direct.predict(n=320, p=4, time=3)
    with pytest.raises(ValueError, match=r"n must be a finite number at every prediction point; point 1 has n=Timestamp"):
        direct.predict(n=pd.Timestamp("2026-11-28"), p=4)
    # a table of runs keeps its metric columns (left out), as before
    assert direct.predict(pd.DataFrame({"n": [320], "p": [4], "time": [3.0]})).n_points == 1


def test_a_band_is_fixed_only_at_the_models_parameters_and_passes_through_measured_workers(direct):
    from probperf.plot import plot_band, sweep

    with pytest.raises(ValueError, match="at: the model has no parameter 'time'; its parameters are n, p"):
        plot_band(direct, vs="p", at={"n": 320, "time": 3})
    with pytest.raises(TypeError, match="at must be a mapping of parameter -> value"):
        plot_band(direct, vs="p", at=pd.DataFrame({"n": [320]}))
    # p measured at 1, 6, 7: a geometric grid of 5 over 1..7 rounds to 1, 2, 3, 4, 7,
    # which skipped the measured 6
    class Fitted:
        train_ranges_ = {"n": [10.0, 160.0], "p": [1.0, 7.0]}
        train_points_ = {"p": [1.0, 6.0, 7.0]}

    assert sweep(Fitted(), "p", {"n": 320}, num=5)["p"].tolist() == [1.0, 2.0, 3.0, 4.0, 6.0, 7.0]


def test_python_api_misuse_is_named_not_an_internal_error(direct):
    # each was an AttributeError or pandas' words from inside the library
    from probperf import doctor, evaluate
    from probperf.plot import plot_band

    with pytest.raises(ValueError, match="the points name the column 'n' twice; give each parameter once"):
        direct.predict(pd.DataFrame([[10, 1, 20]], columns=["n", "p", "n"]))
    with pytest.raises(TypeError, match="diagnose expects a probperf Measurements table .* got DataFrame"):
        doctor.diagnose(pd.DataFrame({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]}))
    runs = pp.Measurements({"n": [10, 20], "p": [1, 1], "time": [0.1, 0.2]})
    with pytest.raises(TypeError, match=r"the prediction comes first: score\(pred, y\)"):
        evaluate.score(runs, direct.predict(n=[10, 20], p=1))
    with pytest.raises(TypeError, match="Measurements takes a table .* got int 5"):
        pp.Measurements(5)
    with pytest.raises(TypeError, match="plot_band needs a fitted model .* got NoneType"):
        plot_band(None)
    with pytest.raises(TypeError, match=r"ax must be a matplotlib Axes \(fig, ax = plt.subplots\(\)\), got int"):
        plot_band(direct, at={"n": 320, "p": 2}, ax=3)


def test_small_slips_are_named(direct):
    from probperf.plot import plot_band

    with pytest.raises(ValueError, match=r"n_draws must be a whole number in 1\.\.100000, got '100'"):
        direct.predict(n=320, p=2, n_draws="100")  # a number's text, as the seed refuses one
    with pytest.raises(ValueError, match=r"p = 1\.000e\+400 at point 1 is beyond 2\*\*53"):  # not 401 digits
        direct.predict(n=320, p=10**400)
    with pytest.raises(ValueError, match=r"the band along n needs a value of p, which varied in training: "
                                         r"give it in at, e.g. at=\{'p': 4\}"):
        plot_band(direct)


def test_a_time_only_model_spans_the_nearest_measured_settings_where_no_run_had_its_own():
    # two switches, three of their four settings measured; tree multiplies the time by
    # 1.5, flat by 0.7. At tree=1, flat=1 the laws' product (1.05x) is a guess: the
    # interval spans the two nearest measured settings' times too (1.5x and 0.7x), each
    # about a third of the draws; at a measured setting it stays a few per cent wide
    from probperf.cautions import ExtrapolationWarning
    from probperf.timemodels import DirectModel

    rng = np.random.default_rng(1)
    rows = [dict(n=n, p=p, tree=a, flat=b, time=1e-7 * n * np.log2(n) / p * (1.5 if a else 1) * (0.7 if b else 1)
                 * np.exp(rng.normal(0, 0.02)))
            for n in 2.0 ** np.arange(10, 16) for p in (1, 2, 4, 8) for a, b in ((0, 0), (1, 0), (0, 1))]
    model = DirectModel().fit(pp.Measurements(pd.DataFrame(rows), config=["tree", "flat"]))
    base = 1e-7 * 2.0**14 * 14 / 4
    points = pd.DataFrame({"n": [2.0**14] * 2, "p": [4.0] * 2, "tree": [1.0, 0.0], "flat": [1.0, 0.0]})
    with pytest.warns(ExtrapolationWarning, match="spans the nearest measured settings too"):
        pred = model.predict(points, n_draws=3000, seed=0)
    lo, hi = pred.interval(0.9)
    assert lo[0] < 0.7 * base * 1.03 and hi[0] > 1.5 * base * 0.97, (lo[0] / base, hi[0] / base)
    shares = [np.mean(np.abs(pred.draws[:, 0] / (f * base) - 1) < 0.1) for f in (0.7, 1.05, 1.5)]
    assert all(0.25 < s < 0.42 for s in shares), shares
    assert hi[1] / lo[1] < 1.15 and lo[1] < base < hi[1]
