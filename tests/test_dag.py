"""DagModel: identity per draw, joint draws, work/span laws, the paper's structure,
accuracy on data that follows the paper's equations exactly, persistence."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import nnls

from probperf import dag as dag_module, persist
from probperf.dag import DISCREPANCY, DagModel, ZeroMetric, component_seeds, delay_design
from probperf.registry import fit
from probperf.data import Measurements, MeasurementError


def paper_table(seed=0, ns=(2**10, 2**11, 2**12, 2**13, 2**14), ps=(1, 2, 4, 8), reps=2, noise=0.02,
                tasks=True, serial_noise=0.0, serial_law=lambda n: 3.0 * n * np.log2(n)):
    """Runs whose metrics follow equations (10)-(15) of the 2016 paper, with 2 % noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        for p in ps:
            for _ in range(reps):
                def jitter(x):
                    return x * np.exp(rng.normal(0.0, noise))

                serial = serial_law(n) * np.exp(rng.normal(0.0, serial_noise))
                work = jitter(serial * (1 + 0.05 * (p - 1) / p + 0.01 * (p - 1)))
                create = wait = n / 64 if tasks else 0.0
                delay = jitter(create * (40 + 10 * (p - 1)) + wait * (20 + 5 * (p - 1))) if tasks else 0.0
                no_work = jitter(0.5 * n * (p - 1) ** 2) if p > 1 else 0.0
                span = 200.0 * np.log2(n) ** 2
                rows.append(dict(n=n, p=p, work=work, delay=delay, no_work=no_work, create_task=create,
                                 wait_tasks=wait, critical_path=span, serial_work=serial,
                                 time=(work + delay + no_work) / p))
    return Measurements(pd.DataFrame(rows))


def truth(n, p):
    serial = 3.0 * n * np.log2(n)
    work = serial * (1 + 0.05 * (p - 1) / p + 0.01 * (p - 1))
    delay = n / 64 * (60 + 15 * (p - 1))
    return (work + delay + 0.5 * n * (p - 1) ** 2) / p


@pytest.fixture(scope="module")
def fitted():
    # The paper's regressions everywhere (the structure under test); calibrate=False
    # keeps the suite fast; the discrepancy floor (opt-in since the law mixtures became
    # the default) is set so that its factors can be tested.
    return DagModel(kernel="basis", effort="quick", seed=1, calibrate=False, discrepancy=DISCREPANCY).fit(paper_table())


@pytest.fixture(scope="module")
def far(fitted):
    points = pd.DataFrame({"n": [2**16, 2**16, 2**12], "p": [16, 32, 8]})
    return fitted.predict(points, n_draws=2000, seed=3)


def test_identity_holds_per_draw(far):
    c = far.components
    total = c["work"].draws + c["delay"].draws + c["no_work"].draws
    np.testing.assert_allclose(total, far.draws * far.p, rtol=1e-12)


def test_work_and_span_laws_per_draw(far):
    c = far.components
    assert np.all(far.draws >= c["work"].draws / far.p * (1 - 1e-12))
    assert np.all(far.draws >= c["critical_path"].draws * (1 - 1e-12))


def test_delay_draw_is_built_from_the_same_count_draws(fitted):
    # White-box: draw s of delay is the delay model applied to draw s of the counts.
    # (Points inside the data, where no discrepancy factor applies.)
    near = fitted.predict(pd.DataFrame({"n": [2**12, 2**13], "p": [8, 6]}), n_draws=500, seed=3)
    c = near.components
    n = near.points["n"].to_numpy()
    design = delay_design(c["create_task"].draws, c["wait_tasks"].draws, near.p, n, c["critical_path"].draws)
    again = fitted.components_["delay"].predict_design(design, n_draws=near.n_draws, seed=component_seeds(3)["delay"])
    np.testing.assert_allclose(again, c["delay"].draws, rtol=1e-10)


def test_draws_are_joint_statistically():
    # work = T1' x inflation: with T1' uncertain (noisy serial runs at 3 sizes), draws
    # of work must move with draws of T1'. Independent sampling gives correlation ~0.
    # (The default law mixtures: what users get, and a second, not a half-minute, fit.)
    m = paper_table(ns=(2**10, 2**11, 2**12), serial_noise=0.15, noise=0.01, seed=2)
    model = DagModel(seed=2)
    pred = model.fit(m).predict(n=2**16, p=16, n_draws=2000)
    c = pred.components
    r = np.corrcoef(np.log(c["serial_work"].draws[:, 0]), np.log(c["work"].draws[:, 0]))[0, 1]
    assert r > 0.8


def test_accuracy_and_coverage_far_outside_training(far):
    true = np.array([truth(2**16, 16), truth(2**16, 32), truth(2**12, 8)])
    err = np.abs(far.median - true) / true
    assert np.all(err < 0.15), err
    lo, hi = far.interval(0.9)
    assert np.all((lo <= true) & (true <= hi)), (lo, true, hi)


def test_intervals_widen_with_extrapolation_distance(fitted):
    # Same n, p inside vs 16x beyond the data (4 doublings): the discrepancy factors
    # alone (one deviate, on the work and on the overhead; both at the floor here)
    # widen the log-scale 90 % interval by 2 x 1.645 x rate x 4.
    pred = fitted.predict(pd.DataFrame({"n": [2**14, 2**14], "p": [8, 128]}), n_draws=4000, seed=5)
    lo, hi = pred.interval(0.9)
    width = np.log(hi / lo)
    assert fitted.discrepancy_learnt_ == {"work": 0.0, "overhead": 0.0}  # calibrate=False
    assert fitted.discrepancy_ == {"work": DISCREPANCY, "overhead": DISCREPANCY}
    assert width[1] - width[0] > 0.9 * 2 * 1.645 * DISCREPANCY * 4


def test_discrepancy_factors_on_work_and_overhead(fitted):
    # Beyond the data (p: 4 doublings), work gets one factor and delay and no_work
    # share another, both driven by one deviate per draw.
    points = pd.DataFrame({"n": [2**14], "p": [128]})
    d = 4

    def with_rates(work, overhead):
        model = copy.copy(fitted)
        model.discrepancy_ = {"work": work, "overhead": overhead}
        model.monotone_beyond_ = False  # the factors alone, not held at the edge values after them
        return model.predict(points, n_draws=2000, seed=5)

    plain, wide, same = with_rates(0.0, 0.0), with_rates(0.0, 0.1), with_rates(0.1, 0.1)  # 0.1: no span-law lift

    def log_ratio(pred, top, bottom):
        return np.log(pred.components[top].draws / pred.components[bottom].draws)[:, 0]

    # the overhead factor leaves delay/no_work alone and spreads no_work/work by 0.1 d
    np.testing.assert_allclose(log_ratio(wide, "delay", "no_work"), log_ratio(plain, "delay", "no_work"), rtol=1e-9)
    shift = log_ratio(wide, "no_work", "work") - log_ratio(plain, "no_work", "work")
    assert np.std(shift) == pytest.approx(0.1 * d, rel=0.05)
    # equal rates: the same factor on all three terms, so on time, whose median stays
    factor = same.draws[:, 0] / plain.draws[:, 0]
    for term in ("work", "delay", "no_work"):
        np.testing.assert_allclose(same.components[term].draws[:, 0] / plain.components[term].draws[:, 0], factor)
    np.testing.assert_allclose(np.log(factor), shift, rtol=1e-9)
    assert same.median[0] == pytest.approx(plain.median[0], rel=0.02)


def test_default_law_mixtures_extrapolate_the_paper_equations():
    # the default components (stacked law mixtures) on runs that follow eqs. (10)-(15):
    # 4x the size on 2-4x the workers, medians within 15 % and inside the 90 % intervals.
    # Without the fixture's span: its idle time 0.5 n (p-1)^2 is 20 times Graham's bound
    # (p-1) * 200 log2(n)^2 at the far point, and the idle-time model predicts the ratio
    # to that bound (components.IDLE_PER_SPAN); without a span it is per other worker.
    model = DagModel(seed=1).fit(Measurements(paper_table().frame.drop(columns="critical_path")))
    assert set(model.specs_.values()) == {"laws"}
    points = pd.DataFrame({"n": [2**16, 2**16, 2**12], "p": [16, 32, 8]})
    pred = model.predict(points, n_draws=2000, seed=3)
    true = np.array([truth(2**16, 16), truth(2**16, 32), truth(2**12, 8)])
    assert np.all(np.abs(pred.median / true - 1) < 0.15), pred.median / true
    lo, hi = pred.interval(0.9)
    assert np.all((lo <= true) & (true <= hi)), (lo / true, hi / true)
    c = pred.components
    np.testing.assert_allclose(c["work"].draws + c["delay"].draws + c["no_work"].draws, pred.draws * pred.p)


@pytest.fixture(scope="module")
def spanned():
    """Runs that follow eqs. (10)-(15) with a physical span, and the default DagModel on them."""
    frame = paper_table(ps=(1, 2, 3, 4, 6, 8)).frame
    frame["critical_path"] = 2.0 * np.log2(frame["n"]) ** 2
    return frame, DagModel(seed=1).fit(Measurements(frame))


def test_the_papers_per_worker_law_is_weighed_in_the_work_and_delay_parts_only(spanned):
    # dag.PART_INFLATION_LAW: the delay per task here is the paper's 60 + 15 (p - 1)
    # (eq. 12 with equal create and wait counts), which that law is: it carries the delay
    # part; the idle ratio and the span are no per-worker ratios and do not weigh it
    _, model = spanned
    law = "c+(p-1)/p+(p-1)"
    assert {name: law in model.components_[name].scores_ for name in ("work", "delay", "no_work", "critical_path")} \
        == {"work": True, "delay": True, "no_work": False, "critical_path": False}
    assert model.components_["delay"].weights_[law] > 0.5


def test_discrepancy_scale_favours_no_widening_when_the_parts_follow_their_laws(spanned):
    # Runs that follow eqs. (10)-(15) with a physical span (p * span far below the work):
    # the copy fitted below the forward cuts predicts the held-out times well, so
    # widening the parts lowers their log score: the posterior over the factor peaks at
    # a factor of at most 1/4 and decreases from there along the grid
    # (selection.discrepancy_scale). (Not at exactly 0: the idle time's ratio to
    # Graham's bound, n (p-1) / (4 log2(n)^2) here, is not one of the candidate laws.)
    from probperf.selection import SCALE_GRID

    frame, model = spanned
    grid, weights = model.discrepancy_scales_.T
    assert grid.tolist() == list(SCALE_GRID) and weights.sum() == pytest.approx(1.0)
    mode = int(np.argmax(weights))
    assert grid[mode] <= 0.25 and np.all(np.diff(weights[mode:]) < 0), weights
    # (4x: the parts' spread grows as the square of the spans, dag.PART_GROWTH, so within
    # the forward cuts, less than a span beyond, a factor widens less and is told apart
    # less sharply than under the linear growth, where this was 5x; measured 4.4x)
    assert weights[grid <= 0.25].sum() > 4 * weights[grid >= 1].sum()
    # off: every part keeps its own rate (one factor 1); a re-fit keeps no scores of the scale
    assert model.scale_scores_ is not None
    off = copy.deepcopy(model)
    off.scale_discrepancy = False
    off.fit(Measurements(frame))
    assert off.discrepancy_scales_.tolist() == [[1.0, 1.0]] and not hasattr(off, "scale_scores_")


def test_the_scale_factors_reuse_the_laws_draws_and_score_the_same(spanned, monkeypatch):
    # selection.factor_log_scores predicts each forward sub-model once per factor of the
    # grid from the same seeds; inside mixture.law_draws_kept the laws' draws are made
    # once per sub-model and points and only the discrepancy term moves with the
    # factor: the scores are the same to the bit, and
    # the laws draw at least len(SCALE_GRID) times less (more where one prediction asks
    # a part twice at the same points)
    import contextlib

    from probperf.models import laws, mixture
    from probperf.dag import component_seeds
    from probperf.selection import SCALE_GRID, factor_log_scores, forward_subfits

    frame, model = spanned
    seed = component_seeds(model.seed)["calibration"]  # the fit's (DagModel._fit_scale)
    subs = forward_subfits(model, Measurements(frame), seed)
    calls = []
    for cls in (laws._Law, laws._AffineLaw):
        def counted(self, *args, _draws=cls.draws, **kwargs):
            calls.append(1)
            return _draws(self, *args, **kwargs)
        monkeypatch.setattr(cls, "draws", counted)
    kept = factor_log_scores(subs, model.features_, seed)
    n_kept = len(calls)
    monkeypatch.setattr(mixture, "law_draws_kept", contextlib.nullcontext)
    plain = factor_log_scores(subs, model.features_, seed)
    n_plain = len(calls) - n_kept
    assert n_plain % len(SCALE_GRID) == 0 and 0 < n_kept <= n_plain // len(SCALE_GRID)
    assert all(np.array_equal(a, b) for a, b in zip(kept, plain)) and len(kept) == len(plain) == 3


def test_calibration_learns_the_excess_error_growth_rate():
    # sqrt(max(r^2 - s^2, 0)) = kappa_w w d + kappa_o o d, non-negative least squares
    # over the held-out runs (selection.discrepancy_rates); the default law mixtures (closed forms,
    # fast) with the parts' scale off: only the calibration is under test
    model = DagModel(seed=4, discrepancy=0.0, calibrate=True, scale_discrepancy=False).fit(
        paper_table(ps=(1, 2, 3, 4, 6, 8)))
    cal = model.calibration_
    assert set(cal["p"]) >= {6, 8} and (cal["distance"] > 0).any()
    assert cal["overhead_share"].between(0, 1).all()
    share = cal.groupby(["n", "p"])["overhead_share"].mean()  # the runs' repetitions have their own draws
    assert share.groupby(level="n").apply(lambda s: s.is_monotonic_increasing).all()  # grows with p
    excess = np.sqrt(np.maximum(cal["log_error"] ** 2 - cal["log_variance"], 0.0)).to_numpy()
    o, d = cal["overhead_share"], cal["distance"]
    expected, _ = nnls(np.column_stack([(1 - o) * d, o * d]), excess)
    learnt = np.array([model.discrepancy_learnt_["work"], model.discrepancy_learnt_["overhead"]])
    np.testing.assert_allclose(learnt, expected, rtol=1e-9)
    assert model.discrepancy_ == model.discrepancy_learnt_  # no floor
    # re-fitted without the calibration, the same object keeps nothing of it
    model.calibrate = False
    again = model.fit(paper_table())
    assert again.discrepancy_ == {"work": 0.0, "overhead": 0.0} == again.discrepancy_learnt_
    assert not hasattr(again, "calibration_")


def test_calibration_is_on_by_default_only_for_parts_that_do_not_widen(fitted):
    # GPs (as the paper's basis regressions) carry no growth beyond the data of their
    # own: the default (calibrate=None) learns the rates there, and the interval far out
    # widens. (A GP, not the basis regression: the same rule, dag.widens, in about 7 s
    # against 51 s; the basis-regression model of the fixture `fitted`, asked off, stays off)
    table = paper_table(ps=(1, 2, 3, 4, 6, 8))
    model = DagModel(kernel="matern52", effort="quick", seed=1, scale_discrepancy=False).fit(table)
    assert model.calibrate is None and model.calibrates()
    assert max(model.discrepancy_learnt_.values()) > 0 and hasattr(model, "calibration_")
    fixed = copy.deepcopy(model)
    fixed.discrepancy_ = {"work": 0.0, "overhead": 0.0}
    far = {"n": 2**17, "p": 32}
    lo, hi = model.predict(**far, n_draws=800, seed=0).interval(0.9)
    lo0, hi0 = fixed.predict(**far, n_draws=800, seed=0).interval(0.9)
    assert hi[0] / lo[0] > hi0[0] / lo0[0]
    assert model.widens_beyond() and not fixed.widens_beyond()  # what predict warns about
    # the law mixtures widen by themselves: no calibration unless asked
    laws = DagModel(effort="quick", scale_discrepancy=False).fit(table)
    assert not laws.calibrates() and laws.discrepancy_learnt_ == {"work": 0.0, "overhead": 0.0}
    assert fitted.calibrate is False and not fitted.calibrates()  # asked off: off


@pytest.mark.parametrize("law, expected", [
    (lambda n: 3.0 * n * np.log2(n), "basis"),         # the paper's n^j log^k n family
    (lambda n: 1e3 * 1.618**n, "exp:matern52"),         # fib: exponential in its argument
])
def test_auto_choice_of_the_serial_work_law(law, expected):
    ns = (2**10, 2**11, 2**12, 2**13, 2**14) if expected == "basis" else (20, 22, 24, 26, 28)
    table = paper_table(ns=ns, serial_law=law, seed=5)
    # the other components: default law mixtures (closed forms), no calibration or scale sub-fit
    model = DagModel(models={"serial_work": "auto"}, effort="quick", calibrate=False,
                     scale_discrepancy=False).fit(table)
    assert model.specs_["serial_work"] == expected, model.selection_
    assert set(model.selection_["serial_work"]) == {"basis", "matern52", "exp:matern52"}
    far = 4 * ns[-1] if expected == "basis" else ns[-1] + 4
    serial = model.predict(n=far, p=1, n_draws=400)["serial_work"].median[0]
    assert serial == pytest.approx(law(far), rel=0.1)


def test_runs_at_one_setting_are_refused_by_the_dag_model_and_modelled_alone_by_auto():
    # five traced runs at n=2^12, p=4: the DAG model's parts would be constants, an
    # interval of no width whatever the runs' spread; auto models their time alone
    one = paper_table(seed=3, ns=(2**12,), ps=(4,), reps=5, noise=0.05)
    with pytest.raises(ValueError, match=r"^every run is at n=4096,p=4: the DAG model needs more than one setting"):
        DagModel().fit(one)
    with pytest.warns(UserWarning, match="every run is at one setting"):
        model = fit(one)
    assert type(model).__name__ == "DirectModel"
    lo, hi = model.predict(n=2**12, p=4, n_draws=2000, seed=0).interval(0.9)
    times = one.frame["time"]
    assert lo[0] < times.min() and times.max() < hi[0]  # the five runs spread about 5 %


def test_zero_delay_when_programs_create_no_tasks():
    model = DagModel(effort="quick", calibrate=False).fit(paper_table(tasks=False))
    assert isinstance(model.components_["delay"], ZeroMetric)
    pred = model.predict(n=2**15, p=16, n_draws=100)
    assert np.all(pred["delay"].draws == 0.0)
    assert np.all(pred["create_task"].draws == 0.0)


def test_a_part_positive_in_too_few_runs_is_refused_not_zeroed():
    """Two runs (p = 1, 2) whose work is all of their time: the work was once modelled
    as 0 in every run and the time came back a quarter of the measured one with an
    interval of no width. Refused, naming the part; auto models time alone instead."""
    two = paper_table(ns=(2**10,), ps=(1, 2), reps=1)
    with pytest.raises(ValueError, match=r"^DagModel: work is positive in 2 of 2 runs, too few for a law of it "
                                         r"\(at least 3\)"):
        DagModel(effort="quick").fit(two)
    four = paper_table(ns=(2**10, 2**11), ps=(1, 2), reps=1)  # idle time in two runs on 2 workers
    with pytest.raises(ValueError, match=r"^DagModel: no_work is positive in 2 of 2 runs"):
        DagModel(effort="quick").fit(four)
    with pytest.warns(UserWarning, match=r"at least 3 runs with p > 1, where idle time is modelled \(2 here\)"):
        assert type(fit(four)).__name__ == "DirectModel"


def test_a_part_positive_in_a_run_or_two_of_many_is_zero_and_says_so(tmp_path):
    """Idle time measured in one run of twelve on several workers (at the timer's
    resolution, say): zero, with the count kept in the model file and said by fit."""
    from probperf.cli import app
    from typer.testing import CliRunner

    table = paper_table(ns=(2**10, 2**11, 2**12, 2**13), ps=(1, 2, 4, 8), reps=1)
    frame = table.frame.copy()
    parallel = np.flatnonzero(frame["p"] > 1)
    frame.loc[parallel[1:], "no_work"] = 0.0
    frame["time"] = (frame["work"] + frame["delay"] + frame["no_work"]) / frame["p"]
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "m.model"
    res = CliRunner().invoke(app, ["fit", str(path), "--model", "dag", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "no_work=laws(0: positive in only 1 of 12 runs, too few for a law)" in res.output.replace("\n", "")
    loaded = persist.load(out).components_["no_work"]
    assert isinstance(loaded, ZeroMetric) and (loaded.positive, loaded.runs) == (1, 12)

def test_a_span_law_carried_far_never_exceeds_the_work():
    """T_inf <= T_1 per draw. Spans growing as n^2 (below the work in every run) carried
    to 64x the sizes would pass the work 4x; they once lifted a one-worker time (and the
    idle time the span scales) by as much."""
    table = paper_table(ns=(2**10, 2**11, 2**12, 2**13, 2**14), ps=(1, 2, 4), reps=1, noise=0.01)
    frame = table.frame
    frame["critical_path"] = 1e-3 * frame["n"].astype(float) ** 2
    assert (frame["critical_path"] < frame["work"]).all()
    steep = Measurements(frame)
    pred = DagModel(effort="quick", calibrate=False).fit(steep).predict(n=2**20, p=[1, 4], n_draws=400, seed=0)
    assert np.all(pred["critical_path"].draws <= pred["serial_work"].draws)
    serial = 3.0 * 2**20 * 20  # the paper table's serial work law at n = 2^20
    assert pred.median[0] < 2 * serial  # time at one worker: about the work, not the n^2 span (4.3x it)

def test_no_work_is_zero_on_one_worker(fitted):
    pred = fitted.predict(pd.DataFrame({"n": [2**13, 2**15], "p": [1, 1]}), n_draws=200)
    assert np.all(pred["no_work"].draws == 0.0)


def test_a_delay_measured_zero_on_one_worker_is_predicted_zero_there(fitted, tmp_path):
    # helper-71: a tracer that counts no delay on one worker; the law fitted to the
    # positive runs gave one worker 2.6 % of its time as delay, the time 2-2.7 % high
    frame = paper_table().frame
    one = frame["p"] == 1
    frame.loc[one, "delay"] = 0.0
    frame.loc[one, "time"] = frame.loc[one, "work"]
    model = DagModel(kernel="basis", effort="quick", seed=1, calibrate=False).fit(Measurements(frame))
    assert model.zero_at_one_ == ["delay"] and fitted.zero_at_one_ == []  # the paper's runs have delay at p = 1
    points = pd.DataFrame({"n": [2**12, 2**12], "p": [1, 2]})
    pred = model.predict(points, n_draws=400, seed=0)
    assert np.all(pred["delay"].draws[:, 0] == 0.0) and np.all(pred["delay"].draws[:, 1] > 0.0)
    serial = 3.0 * 2**12 * 12  # the work of one worker: the time there
    assert abs(np.median(pred.draws[:, 0]) / serial - 1) < 0.02
    assert np.all(fitted.predict(points, n_draws=50, seed=0)["delay"].draws[:, 0] > 0.0)
    model.save(tmp_path / "m.model")  # saved with the model (file version 17 on)
    again = persist.load(tmp_path / "m.model")
    assert again.zero_at_one_ == ["delay"]
    np.testing.assert_array_equal(again.predict(points, n_draws=50, seed=0).draws,
                                  model.predict(points, n_draws=50, seed=0).draws)
    del again.zero_at_one_  # a version 16 file: the delay's law at p = 1, as written
    again._loaded()
    assert again.zero_at_one_ == [] and np.all(again.predict(points, n_draws=50, seed=0)["delay"].draws[:, 0] > 0)


def test_the_delay_per_task_is_held_beyond_the_nodes_where_p_is_nodes_times_ranks(monkeypatch):
    # helper-73's made-up hybrid code: delay per task 3e-7 (1 + 0.3 log2 p) plus remote
    # steals 3e-6 (nnodes - 1) / nnodes, which levels off; trained on 1-4 nodes. Without
    # the hold its "quadratic" law fell 400x from 4 to 32 nodes and time came out 3x fast.
    rng = np.random.default_rng(6)
    rows = []
    for n in (2**12, 2**14, 2**16):
        for nodes in (1, 2, 4):
            for ppn in (1, 2, 4, 8):
                p = nodes * ppn
                serial = 2e-9 * n * np.log2(n)
                work = serial * (1 + 0.004 * (ppn - 1)) * np.exp(rng.normal(0, 0.03))
                per_task = 0.0 if p == 1 else 3e-7 * (1 + 0.3 * np.log2(p)) + 3e-6 * (nodes - 1) / nodes
                delay = n / 32 * per_task * np.exp(rng.normal(0, 0.04))
                span = 2e-9 * 8 * np.log2(n) ** 2
                no_work = 0.5 * (p - 1) * span
                rows.append(dict(n=n, p=p, nnodes=nodes, ppn=ppn, time=(work + delay + no_work) / p, work=work,
                                 delay=delay, no_work=no_work, critical_path=span, create_task=n / 32,
                                 wait_tasks=n / 64, serial_work=serial))
    model = DagModel(effort="quick", seed=1, calibrate=False).fit(Measurements(pd.DataFrame(rows),
                                                                               config=["nnodes", "ppn"]))
    point = pd.DataFrame({"n": [2.0**16] * 2, "p": [32.0, 256.0], "nnodes": [4.0, 32.0], "ppn": [8.0, 8.0]})
    tasks = 2**16 * 1.5 / 32
    truth = 3e-7 * (1 + 0.3 * np.log2(256)) + 3e-6 * 31 / 32
    assert dag_module.MONOTONE_TIED  # the default
    held = model.predict(point, n_draws=400, seed=0)["delay"].draws / tasks
    monkeypatch.setattr(dag_module, "MONOTONE_TIED", False)
    free = model.predict(point, n_draws=400, seed=0)["delay"].draws / tasks
    edge = np.median(held[:, 0])  # 4 nodes, the training top, as drawn
    # held at the edge (the truth, still rising as log p, is 2x above: a floor, not a law)
    assert edge <= np.median(held[:, 1]) <= truth and abs(np.median(held[:, 1]) / edge - 1) < 0.01
    assert np.median(free[:, 1]) < edge / 100  # the fall it guards against
    np.testing.assert_array_equal(free[:, 0], held[:, 0])  # inside the nodes: the same


def test_an_idle_time_of_floating_point_residue_is_fitted_as_zero():
    # helper-73: idle time found as p * time - work - delay left 1e-20 s beside 1e-2 s
    # in some runs; the idle part's log-scale fit spanned 15 decades and its 90 %
    # interval at a measured point reached 3e5 s. A residue predicts as an exact 0 does.
    frame = paper_table().frame
    rows = frame.index[frame["p"] == 2][:6]
    zeros = frame.assign(no_work=frame["no_work"].where(~frame.index.isin(rows), 0.0))
    zeros["time"] = (zeros["work"] + zeros["delay"] + zeros["no_work"]) / zeros["p"]
    residues = zeros.copy()
    residues.loc[rows, "no_work"] = 1e-17 * (zeros.loc[rows, "work"] + zeros.loc[rows, "delay"])
    points = pd.DataFrame({"n": [2**14, 2**16], "p": [2, 32]})
    fits = [DagModel(effort="quick", seed=1, calibrate=False).fit(Measurements(t)) for t in (zeros, residues)]
    np.testing.assert_array_equal(*(f.predict(points, n_draws=200, seed=0).draws for f in fits))


def test_a_decomposition_with_overflowed_draws_has_shares_not_nan():
    # helper-74: 4 of 1000 draws inf far out made every work share NaN (inf / inf), and
    # predict --explain printed "nan%" with exit 0; an infinite term is all the budget
    from probperf.dag import Prediction

    inf, pts = np.inf, pd.DataFrame({"n": [600.0], "p": [4.0]})
    comps = {"work": np.array([[8.0], [8.0], [inf]]), "delay": np.array([[1.0], [1.0], [2.0]]),
             "no_work": np.array([[1.0], [1.0], [3.0]]), "serial_work": np.full((3, 1), 8.0)}
    table = Prediction(comps, pts).decomposition(level=0.5)
    work = table[table["term"] == "work"].iloc[0]
    assert (work["share"], work["median"], work["upper"]) == (0.8, 8.0, inf)  # draws 0.8, 0.8, 1.0
    assert table[["share", "share_lower", "share_upper"]].notna().all().all()
    assert table["p"].dtype.kind == "i" and table["p"].iloc[0] == 4  # as the summary shows it


def test_decomposition_shares_sum_to_one(far):
    d = far.decomposition(0.9)
    sums = d.groupby(["n", "p"])["share"].sum()
    # medians of shares need not sum to exactly 1, but the mean shares do per draw
    assert np.all(np.abs(sums - 1) < 0.05)
    assert set(d["term"]) == {"work", "delay", "no_work"}


def test_speedup_efficiency_and_karp_flatt(far):
    s = far.speedup.draws
    np.testing.assert_allclose(far.efficiency.draws, s / far.p, rtol=1e-12)
    e = far.karp_flatt.draws
    np.testing.assert_allclose(e, (1 / s - 1 / far.p) / (1 - 1 / far.p), rtol=1e-12)
    np.testing.assert_allclose(far.penalty.draws, far.draws - far["serial_work"].draws / far.p, rtol=1e-12)


def test_save_load_gives_identical_predictions(fitted, tmp_path):
    path = tmp_path / "dag.model"
    fitted.save(path)
    again = DagModel.load(path)
    a = fitted.predict(n=2**15, p=12, n_draws=50, seed=9)
    b = again.predict(n=2**15, p=12, n_draws=50, seed=9)
    np.testing.assert_array_equal(a.draws, b.draws)


def test_missing_metric_and_serial_work_are_named(fitted):
    m = paper_table()
    refit = copy.deepcopy(fitted)
    with pytest.raises(MeasurementError, match="delay"):
        refit.fit(Measurements(m.frame.drop(columns=["delay"])))
    with pytest.raises(RuntimeError, match="DagModel is not fitted"):  # a failed re-fit leaves no fit
        refit.predict(n=2**16, p=8)
    no_serial = m.frame.drop(columns=["serial_work"])
    no_serial = no_serial[no_serial["p"] > 1]
    with pytest.raises(MeasurementError, match="serial_work"):
        DagModel().fit(Measurements(no_serial))


def test_auto_picks_dag_with_metrics_and_direct_without():
    m = paper_table(ns=(2**10, 2**12, 2**14), ps=(1, 4), reps=1)
    assert type(fit(m, effort="quick")).__name__ == "DagModel"
    time_only = Measurements(m.frame[["n", "p", "time"]])
    assert type(fit(time_only, effort="quick")).__name__ == "DirectModel"


def test_delay_design_without_per_task_growth_drops_the_count_times_workers_columns():
    full = delay_design(np.array([10.0]), np.array([4.0]), np.array([3]), np.array([4.0]))
    steal = delay_design(np.array([10.0]), np.array([4.0]), np.array([3]), np.array([4.0]), per_task_growth=False)
    # columns create*(p-1) = 20 and wait*(p-1) = 8 are gone; everything else is kept
    np.testing.assert_allclose(steal, np.delete(full, [1, 4], axis=-1))
    assert steal.shape[-1] == full.shape[-1] - 2


def test_steal_design_is_only_for_delay():
    with pytest.raises(ValueError, match="'basis-steal' is a delay design; it cannot model work"):
        DagModel(models={"work": "basis-steal"}).fit(paper_table())


def test_wiring_draws_every_parent_before_its_child():
    from probperf.components import WIRING

    order = [c.name for c in WIRING]
    for comp in WIRING:
        for parent in comp.parents:
            assert order.index(parent) < order.index(comp.name), (comp.name, parent)
    assert sorted(order) == sorted(["serial_work", "create_task", "wait_tasks", "critical_path",
                                    "work", "delay", "no_work"])
    from probperf.dag import SEEDED

    assert sorted(SEEDED) == sorted(order)  # every component has a seed, spawned in a fixed order


def test_a_component_model_object_is_cloned_fitted_and_saved(tmp_path):
    from probperf.models import LawMixture

    mine = LawMixture(guard=False, seed=7)
    model = DagModel(models={"no_work": mine}, effort="quick").fit(paper_table(ns=(2**10, 2**12, 2**14), reps=1))
    used = model.components_["no_work"]
    # a clone with the same parameters is fitted; the object given stays untouched
    assert isinstance(used, LawMixture) and used is not mine and used.seed == 7
    assert not hasattr(mine, "features_")
    model.save(tmp_path / "m.model")
    back = DagModel.load(tmp_path / "m.model")
    assert back.models["no_work"].seed == 7
    at = pd.DataFrame({"n": [2**16], "p": [16]})
    np.testing.assert_array_equal(back.predict(at, seed=1).draws, model.predict(at, seed=1).draws)


def test_a_model_file_of_the_previous_format_asks_for_a_refit(tmp_path):
    # files written before persistence was declared per class (format version 1)
    from safetensors.numpy import save_file

    config = '{"extras": {}, "state": {"params": {"kernel": "laws"}, "parts": {}}}'
    meta = {"format": persist.FORMAT, "version": "1", "kind": "DirectModel", "config": config,
            "sha256": persist._digest(config, {})}
    save_file({}, str(tmp_path / "old.model"), metadata=meta)
    with pytest.raises(persist.ModelFileError, match=r"version 1 was written by another probperf .*re-fit"):
        persist.load(tmp_path / "old.model")


def test_a_version_9_model_file_is_still_read_and_predicts_as_written(tmp_path, monkeypatch):
    # version 10 added the saturating law and the mixtures' saturating/bounded_in_size;
    # a version 9 file has none of them and must load and predict as before
    import json

    from safetensors.numpy import save_file

    model = DagModel(seed=2).fit(paper_table(ps=(1, 2, 3, 4, 6, 8)))
    model.save(tmp_path / "new.model")
    kind, config, tensors = persist.load_state(tmp_path / "new.model")
    text = json.dumps(config)
    assert '"saturating"' in text and '"bounded_in_size"' in text
    old = json.loads(text.replace(', "saturating": true', "").replace(', "saturating": null', "")
                     .replace(', "bounded_in_size": false', "").replace(', "bounded_in_size": true', ""))
    for later in ("monotone_beyond_", "span_inflated_"):
        old["state"]["fitted"].pop(later)
    old = json.dumps(old)
    assert '"saturating"' not in old and '"bounded_in_size"' not in old and "monotone_beyond_" not in old
    meta = {"format": persist.FORMAT, "version": "9", "kind": kind, "config": old,
            "sha256": persist._digest(old, tensors)}
    save_file(tensors, str(tmp_path / "v9.model"), metadata=meta)
    at = pd.DataFrame({"n": [2**16], "p": [16]})  # beyond the workers: a v9 file holds nothing there
    back = persist.load(tmp_path / "v9.model")
    assert not hasattr(back, "monotone_beyond_") and not hasattr(back, "span_inflated_")
    assert model.monotone_beyond_  # the default holds beyond the workers; a version 9 file does not
    plain = copy.copy(model)
    plain.monotone_beyond_ = False
    assert not np.array_equal(plain.predict(at, seed=1).draws, model.predict(at, seed=1).draws)
    np.testing.assert_array_equal(back.predict(at, seed=1).draws, plain.predict(at, seed=1).draws)
    monkeypatch.setattr(persist, "READS", ("11",))  # a reader of 11 alone names what it reads
    with pytest.raises(persist.ModelFileError, match=r"version 9 was written by another probperf \(this one reads "
                                                     r"versions 11\); re-fit"):
        persist.load(tmp_path / "v9.model")


def test_a_version_10_file_that_held_in_the_twin_form_asks_for_a_refit(fitted, tmp_path):
    # version 10 (session 30) held work and delay beyond the workers by twin columns of
    # their own noise, which this code no longer has; without the hold it still loads
    import json

    from safetensors.numpy import save_file

    model = copy.deepcopy(fitted)  # a copy: the hold is switched off below (a fit of its own took 40 s)
    model.save(tmp_path / "new.model")
    kind, config, tensors = persist.load_state(tmp_path / "new.model")
    for held in (True, False):
        old = copy.deepcopy(config)
        old["state"]["fitted"].pop("span_inflated_")
        old["state"]["fitted"]["monotone_beyond_"] = held
        text = json.dumps(old)
        meta = {"format": persist.FORMAT, "version": "10", "kind": kind, "config": text,
                "sha256": persist._digest(text, tensors)}
        save_file(tensors, str(tmp_path / f"v10_{held}.model"), metadata=meta)
    with pytest.raises(persist.ModelFileError, match=r"v10_True.model: this DAG model holds work and delay beyond "
                                                     r"the measured workers in an earlier form; re-fit"):
        persist.load(tmp_path / "v10_True.model")
    back = persist.load(tmp_path / "v10_False.model")
    at = pd.DataFrame({"n": [2**16], "p": [16]})
    model.monotone_beyond_ = False
    np.testing.assert_array_equal(back.predict(at, seed=1).draws, model.predict(at, seed=1).draws)


def test_top_level_fit_is_the_registry_fit():
    import probperf as pp
    from probperf import registry

    assert pp.fit is registry.fit


def test_the_top_level_fit_takes_the_train_rows_as_the_cli_does():
    import probperf as pp

    frame = pd.DataFrame({"n": [10, 20, 40, 80, 160], "p": 1, "time": [1.0, 2.1, 4.0, 8.2, 16.1],
                          "split": ["train", "train", "train", None, "test"]})
    with pytest.warns(UserWarning, match=r"1 row\(s\) without a split label are left out of the fit on "
                                         r"split='train'; pass split=None to fit every row"):
        assert pp.fit(Measurements(frame), effort="quick").train_points_["n"] == [10.0, 20.0, 40.0]
    for every in (None, ""):
        assert pp.fit(Measurements(frame), effort="quick", split=every).train_points_["n"] == [10, 20, 40, 80, 160]
    with pytest.raises(MeasurementError, match=r"no rows match split='train' \(its split labels: 'test'\); pass "
                                               r"split=None to fit every row"):
        pp.fit(Measurements(frame.assign(split="test")), effort="quick")
    # a table without labels cannot hold the test rows asked for: refused, as the CLI does
    with pytest.raises(MeasurementError, match=r"no split column to pick split='test' from; pass split=None"):
        pp.fit(Measurements(frame.drop(columns="split")), effort="quick", split="test")
    assert len(pp.fit(Measurements(frame.drop(columns="split")), effort="quick").train_points_["n"]) == 5


def test_idle_time_is_modelled_per_other_worker_and_span():
    # idle time 0.3 (p - 1) T_inf (Graham's bound with a factor 0.3): the idle-time
    # model's target is that ratio, so it predicts 0.3 far from the data, and the
    # metric is the ratio times (p - 1) times the drawn span
    from probperf.components import BY_NAME

    frame = paper_table(ps=(1, 2, 3, 4, 6, 8)).frame
    rng = np.random.default_rng(5)
    frame["critical_path"] = 50.0 * np.sqrt(frame["n"])
    idle = 0.3 * (frame["p"] - 1) * frame["critical_path"] * np.exp(0.02 * rng.standard_normal(len(frame)))
    frame["no_work"] = np.where(frame["p"] > 1, idle, 0.0)
    frame["time"] = (frame["work"] + frame["delay"] + frame["no_work"]) / frame["p"]
    model = DagModel(seed=1).fit(Measurements(frame))
    far = pd.DataFrame({"n": [2.0**16], "p": [32.0]})
    ratio = model.components_["no_work"].predict(far, n_draws=2000, seed=0)
    assert ratio.median[0] == pytest.approx(0.3, rel=0.1)  # 4x beyond in n and p
    inputs, unit = BY_NAME["no_work"].inputs("laws", far, {"critical_path": np.array([[2.0], [3.0]])}, ["n", "p"])
    np.testing.assert_array_equal(unit, [[62.0], [93.0]])
    pred = model.predict(far, n_draws=2000, seed=0)
    true = 0.3 * 31 * 50.0 * 2.0**8
    lo, hi = pred["no_work"].interval(0.9)
    assert abs(pred["no_work"].median[0] / true - 1) < 0.1 and lo[0] < true < hi[0]


def test_parts_fitted_on_some_runs_do_not_refuse_the_points_of_the_others():
    # one-worker runs at two cut-offs, the others at n/64 only: in the idle-time part
    # (runs with p > 1) cutoff = n / 64 always holds, but a one-worker point need not
    # keep it (review): the parts leave such checks to the whole model
    f = paper_table(reps=1).frame
    ser, par = f[f.p == 1], f[f.p > 1]
    frame = pd.concat([ser.assign(cutoff=ser.n / 64), ser.assign(cutoff=ser.n / 32), par.assign(cutoff=par.n / 64)],
                      ignore_index=True)
    model = DagModel(kernel="laws", effort="quick", calibrate=False, scale_discrepancy=False).fit(
        Measurements(frame, config=["cutoff"]))
    assert "cutoff" in model.components_["no_work"].relations_
    truth = frame[(frame.n == 2**12) & (frame.p == 1) & (frame.cutoff == 2**12 / 32)]["time"].iloc[0]
    pred = model.predict(pd.DataFrame([{"n": 2**12, "p": 1, "cutoff": 2**12 / 32}]), n_draws=200)
    assert abs(pred.median[0] / truth - 1) < 0.1


def test_the_whole_model_refuses_a_point_that_breaks_a_relation_of_all_its_runs():
    # every run at cutoff = n / 64: the parts take cutoff from n, so a point at n / 32
    # would be predicted as if at n / 64; the model (not its parts) refuses it
    f = paper_table(reps=1).frame
    model = DagModel(kernel="laws", effort="quick", calibrate=False, scale_discrepancy=False).fit(
        Measurements(f.assign(cutoff=f.n / 64), config=["cutoff"]))
    model.predict(pd.DataFrame([{"n": 2**15, "p": 16, "cutoff": 2**15 / 64}]), n_draws=100)  # keeps it
    with pytest.raises(ValueError, match=r"cutoff=1024 breaks a relation of every training run \(cutoff = 0.01562 \* n"):
        model.predict(pd.DataFrame([{"n": 2**15, "p": 16, "cutoff": 2**15 / 32}]), n_draws=100)


def test_decomposition_level_and_seed_are_checked_by_name(fitted, far):
    with pytest.raises(ValueError, match=r"level must be a number in \(0, 1\), got 2"):
        far.decomposition(2)
    with pytest.raises(ValueError, match="seed must be a whole number >= 0, got -1"):
        fitted.predict(n=2**12, p=8, seed=-1)


def worker_table(inflation=lambda p: 1.0, per_task=lambda p: 400 * p**-1.5, noise=0.02):
    """Runs at sizes 2^10..2^14 on 1-8 workers, two each: work = serial work x
    ``inflation(p)``, delay = tasks x ``per_task(p)`` (by default falling like p^-1.5),
    idle time 0.5 (p - 1) serial / 64, each with log-normal ``noise``."""
    rng = np.random.default_rng(1)
    n = np.repeat(2.0 ** np.arange(10, 15), 16)
    p = np.tile(np.repeat(np.arange(1.0, 9.0), 2), 5)
    serial = 3.0 * n * np.log2(n)
    jitter = lambda: np.exp(rng.normal(0.0, noise, len(n)))  # noqa: E731
    work, delay = serial * inflation(p) * jitter(), n / 64 * per_task(p) * jitter()
    no_work = np.where(p > 1, 0.5 * (p - 1) * serial / 64 * jitter(), 0.0)
    return Measurements(pd.DataFrame(dict(
        n=n, p=p, work=work, delay=delay, no_work=no_work, create_task=n / 64, wait_tasks=n / 64,
        critical_path=serial / 64, serial_work=serial, time=(work + delay + no_work) / p)))


#: The hold beyond the workers acts on the draws at predict time, whatever widens them:
#: the tests of the hold leave out the calibration and the rate-scale sub-fits (which
#: cost those two fits most of their 20 s each).
HOLD_ONLY = dict(calibrate=False, scale_discrepancy=False)


def test_a_gp_part_is_not_held_beyond_the_workers():
    # a GP's joint draw mixes its deviates over the points asked, so an edge drawn apart
    # would not share the point's noise: the GP part is left as drawn, the law part held
    model = DagModel(models={"delay": "matern52"}, seed=1, **HOLD_ONLY).fit(worker_table())
    assert not model.components_["delay"].draws_pointwise() and model.components_["work"].draws_pointwise()
    points = pd.DataFrame({"n": [2.0**14, 2.0**14], "p": [8.0, 1024.0]})
    held = model.predict(points, n_draws=500, seed=0)
    model.monotone_beyond_ = False
    free = model.predict(points, n_draws=500, seed=0)
    np.testing.assert_array_equal(held["delay"].draws, free["delay"].draws)
    assert np.mean(held["work"].draws[:, 1] > free["work"].draws[:, 1]) > 0.05  # a law's falling draws held


def test_work_and_delay_do_not_fall_beyond_the_measured_workers():
    # a per-task delay falling like p^-1.5 on 1-8 workers: its law goes on falling beyond
    # them, which more workers (more steals, more contention) cannot do; predict holds
    # each draw's delay at least at its value at 8 workers (MONOTONE_BEYOND)
    model = DagModel(seed=1, **HOLD_ONLY).fit(worker_table())
    assert model.monotone_beyond_
    points = pd.DataFrame({"n": [2.0**14, 2.0**14], "p": [8.0, 1024.0]})
    held = np.median(model.predict(points, n_draws=1000, seed=0)["delay"].draws, axis=0)
    model.monotone_beyond_ = False
    free = np.median(model.predict(points, n_draws=1000, seed=0)["delay"].draws, axis=0)
    assert free[1] < 0.05 * free[0]  # the law alone: 128^-1.5 of the delay at 8 workers
    assert held[1] == pytest.approx(held[0], rel=0.05)  # held at the edge
    assert held[0] == pytest.approx(free[0], rel=0.02)  # inside the data nothing moves


def test_the_hold_beyond_the_workers_leaves_a_rising_law_and_its_noise_alone():
    # work inflation 1 + 0.03 (p - 1) with 5 % run-to-run noise: past 8 workers the law
    # rises, so the hold changes only the draws whose own curve falls (its coefficients'
    # uncertainty), never a draw by its noise: the edge shares the draw's noise. A max of
    # two independently noisy draws would change about 9 % of the draws at p = 12
    # (P(z > 0.094 / (0.05 sqrt 2))) and lift the median.
    model = DagModel(seed=1, **HOLD_ONLY).fit(worker_table(lambda p: 1 + 0.03 * (p - 1), lambda p: 400 * (1 + 0.1 * (p - 1)),
                                                           0.05))
    points = pd.DataFrame({"n": [2.0**14] * 2, "p": [9.0, 12.0]})
    held = model.predict(points, n_draws=2000, seed=0)["work"].draws
    model.monotone_beyond_ = False
    free = model.predict(points, n_draws=2000, seed=0)["work"].draws
    assert np.mean(held == free, axis=0).min() > 0.98
    assert np.median(held, axis=0) == pytest.approx(np.median(free, axis=0), rel=1e-3)


def inflated_table() -> Measurements:
    """Runs whose work and span are a per-size value times the run's inflation
    1 + 0.02 (p - 1) (1 % noise), on 1-8 workers; the span per size is 3 n log2 n / 64."""
    rng = np.random.default_rng(2)
    n = np.repeat(2.0 ** np.arange(10, 15), 16)
    p = np.tile(np.repeat(np.arange(1.0, 9.0), 2), 5)
    serial = 3.0 * n * np.log2(n)
    inflation = (1 + 0.02 * (p - 1)) * np.exp(rng.normal(0.0, 0.01, len(n)))
    work, delay = serial * inflation, n / 64 * (50 + 10 * (p - 1))
    no_work = np.where(p > 1, 0.5 * (p - 1) * serial / 64, 0.0)
    return Measurements(pd.DataFrame(dict(
        n=n, p=p, work=work, delay=delay, no_work=no_work, create_task=n / 64, wait_tasks=n / 64,
        critical_path=serial / 64 * inflation, serial_work=serial, time=(work + delay + no_work) / p)))


def test_a_span_inflated_as_the_work_grows_with_the_workers_as_the_work_does(monkeypatch, fitted):
    # with SPAN_INFLATED the span drawn is, per draw, a per-size span times the work
    # drawn there per serial work; without (the default), one span per size whatever p
    # (the latent span: each point's own run-to-run noise, SPAN_RUN_NOISE, is left out)
    import probperf.dag as dag

    table = inflated_table()
    points = pd.DataFrame({"n": [2.0**14] * 3, "p": [1.0, 8.0, 64.0]})
    monkeypatch.setattr(dag, "SPAN_RUN_NOISE", False)
    monkeypatch.setattr(dag, "SPAN_INFLATED", True)
    model = DagModel(seed=1, calibrate=False).fit(table)  # the default law mixtures
    assert model.span_inflated_
    pred = model.predict(points, n_draws=1000, seed=0)
    span = pred["critical_path"].draws
    per_size = span / (pred["work"].draws / pred["serial_work"].draws)
    np.testing.assert_allclose(per_size, per_size[:, :1] * np.ones(3), rtol=1e-12)
    # inside the measured workers the inflation is recovered (1 + 0.02 * 7 at p = 8);
    # beyond them the span follows whatever the work's model draws
    base = 3.0 * 2**14 * 14 / 64
    assert np.median(span[:, :2], axis=0) / base == pytest.approx([1.0, 1.14], rel=0.03)
    # the module's model, fitted without: one span per size
    assert not fitted.span_inflated_
    plain = fitted.predict(points, n_draws=1000, seed=0)["critical_path"].draws
    assert (plain == plain[:, :1]).all()


def test_a_time_lifted_to_the_critical_path_is_said_to_rest_on_it(tmp_path):
    # runs whose idle time is 0.3 (p - 1) T_inf: far beyond the parallelism (T1 / T_inf =
    # 64) the parts' time per worker, about 0.3 T_inf, falls below the span; the span
    # law lifts those draws to it, and predict says the interval is then the span's
    import warnings

    from probperf.cautions import ExtrapolationWarning

    rng = np.random.default_rng(0)
    n = np.repeat(2.0 ** np.arange(10, 15), 12)
    p = np.tile(np.repeat([1.0, 2, 3, 4, 6, 8], 2), 5)
    serial = 3.0 * n * np.log2(n)
    span = serial / 64
    jitter = lambda: np.exp(rng.normal(0.0, 0.02, len(n)))  # noqa: E731
    work, delay = serial * jitter(), n / 64 * 40 * jitter()
    no_work = np.where(p > 1, 0.3 * (p - 1) * span * jitter(), 0.0)
    model = DagModel(seed=1).fit(Measurements(pd.DataFrame(dict(
        n=n, p=p, work=work, delay=delay, no_work=no_work, create_task=n / 64, wait_tasks=n / 64,
        critical_path=span, serial_work=serial, time=(work + delay + no_work) / p))))
    points = pd.DataFrame({"n": [2.0**12, 2.0**12], "p": [2.0**16, 4]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred = model.predict(points, n_draws=1000, seed=0)
    lifted = pred.on_span()
    assert lifted[0] > 0.5 and lifted[1] == 0.0
    span, time = pred["critical_path"].draws[:, 0], pred.draws[:, 0]
    assert np.all(time >= span * (1 - 1e-12))  # the span law, per draw
    assert pred.median[0] == pytest.approx(3.0 * 2**12 * 12 / 64, rel=0.05)  # the span itself
    said = [str(w.message) for w in caught if issubclass(w.category, ExtrapolationWarning)
            and "the time is the critical path" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"at n=2^12,p=2^16 the time is the critical path in "
                                                 f"{int(round(lifted[0] * 1000))} of its 1000 draws")
    # and predict's rows carry the share, for a script that plans from the JSON
    import json

    from typer.testing import CliRunner

    from probperf.cli import app

    model.save(tmp_path / "m.model")
    res = CliRunner().invoke(app, ["predict", str(tmp_path / "m.model"), "--at", "n=2**12,p=2**16", "--at",
                                   "n=2**12,p=4", "--format", "json"])
    rows = json.loads(res.stdout)
    assert rows[0]["on_span"] == pytest.approx(lifted[0], abs=0.05) and rows[1]["on_span"] == 0.0


def test_predict_rows_carry_on_span_only_where_a_span_was_traced(tmp_path):
    # without a traced critical path there is no span law, so no share resting on it
    import json

    from typer.testing import CliRunner

    from probperf.cli import app

    model = DagModel(seed=1).fit(Measurements(paper_table().frame.drop(columns="critical_path")))
    model.save(tmp_path / "m.model")
    res = CliRunner().invoke(app, ["predict", str(tmp_path / "m.model"), "--at", "n=2**14,p=16", "--format", "json"])
    (row,) = json.loads(res.stdout)
    assert "on_span" not in row and row["beyond"] == 2.0  # p=16 is twice the largest measured 8


def test_workers_beyond_two_multi_worker_counts_are_cautioned():
    # runs on 1, 2 and 8 workers: the overheads seen only with several workers rest on
    # two counts, so predicting past 8 says so (inside them it does not)
    model = DagModel(seed=1, calibrate=False).fit(paper_table(ps=(1, 2, 8)))
    with pytest.warns(UserWarning, match=r"p=32 is beyond the measured workers, and the runs with more than one "
                                         r"worker had only 2 worker counts \(2, 8\)"):
        model.predict(pd.DataFrame({"n": [2**14, 2**14], "p": [4, 32]}), n_draws=200)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(pd.DataFrame({"n": [2**14], "p": [4]}), n_draws=200)


@pytest.mark.parametrize("sizes", [[2.0**14], [2.0**13, 2.0**14]])
def test_a_strong_scaling_study_at_one_or_two_sizes_predicts_more_workers(tmp_path, sizes):
    # traced runs at one size (or two) on 1-4 workers, asked at 8: the serial work was a
    # structural zero (fewer than MIN_POSITIVE distinct values), so work = 0 and the time
    # the critical path alone, 10x low. Closed forms: work = serial (1 + 0.02 (p - 1)),
    # delay = tasks 50 (1 + 0.1 (p - 1)), idle 0.5 (p - 1) serial / 64, time their sum / p
    from probperf.dag import ConstantMetric

    def runs(n, p):
        serial = 3.0 * n * np.log2(n)
        work, delay = serial * (1 + 0.02 * (p - 1)), n / 64 * 50 * (1 + 0.1 * (p - 1))
        no_work = 0.5 * (p - 1) * serial / 64
        return pd.DataFrame(dict(n=n, p=p, work=work, delay=delay, no_work=no_work, create_task=n / 64,
                                 wait_tasks=n / 64, critical_path=serial / 64, serial_work=serial,
                                 time=(work + delay + no_work) / p))

    rng = np.random.default_rng(3)
    n, p = (a.ravel() for a in np.meshgrid(sizes, np.repeat([1.0, 2.0, 3.0, 4.0], 2)))
    table = runs(n, p)
    table[["work", "delay", "no_work"]] *= np.exp(rng.normal(0.0, 0.01, (len(table), 3)))
    table["time"] = table[["work", "delay", "no_work"]].sum(axis=1) / table["p"]
    model = DagModel(seed=1).fit(Measurements(table))
    assert isinstance(model.components_["serial_work"], ConstantMetric) == (len(sizes) == 1)
    truth = runs(np.array([2.0**14]), np.array([8.0]))
    pred = model.predict(truth[["n", "p"]], n_draws=1000, seed=0)
    assert pred["serial_work"].median[0] == pytest.approx(truth["serial_work"][0], rel=1e-3)
    assert pred.median[0] == pytest.approx(truth["time"][0], rel=0.1)
    if len(sizes) == 1:  # the constant is the value at that size only: another size is refused
        with pytest.raises(ValueError, match=r"only 1 distinct value of 'n' in the training data"):
            model.predict(n=2.0**15, p=4)
    model.save(tmp_path / "one.model")
    back = DagModel.load(tmp_path / "one.model")
    np.testing.assert_array_equal(back.predict(truth[["n", "p"]], n_draws=200, seed=1).draws,
                                  model.predict(truth[["n", "p"]], n_draws=200, seed=1).draws)


def test_auto_models_time_directly_where_only_the_workers_vary():
    # SINGLE_SIZE_DIRECT: traced runs at one size are fitted as time directly, and fit
    # says why; at two sizes the DAG model stays the choice
    from probperf import registry

    def traced(sizes):
        n, p = (a.ravel() for a in np.meshgrid(sizes, [1.0, 2.0, 4.0, 8.0]))
        serial = 3.0 * n * np.log2(n)
        frame = pd.DataFrame(dict(n=n, p=p, work=serial, delay=n / 64 * 50 * p, no_work=(p - 1) * serial / 64,
                                  create_task=n / 64, wait_tasks=n / 64, critical_path=serial / 64))
        return Measurements(frame.assign(time=(frame.work + frame.delay + frame.no_work) / p))

    one, two = traced([2.0**14]), traced([2.0**13, 2.0**14])
    assert registry.choose(one) == "direct" and registry.choose(two) == "dag"
    assert registry.why_not_dag(one).startswith("only p varies (one size)") and registry.why_not_dag(two) == ""
    with pytest.warns(registry.ModelChoiceWarning, match=r"time is modelled alone: only p varies \(one size\)"):
        assert type(fit(one)).__name__ == "DirectModel"
    assert type(fit(one, model="dag")).__name__ == "DagModel"


def test_the_work_part_bounded_in_size_has_no_law_that_grows_like_a_power_of_n(monkeypatch):
    # WORK_BOUNDED: the work per serial work leaves out the shapes n^j (j > 0) and the
    # affine laws of n; the other parts keep theirs
    import probperf.dag as dag

    monkeypatch.setattr(dag, "WORK_BOUNDED", True)
    model = DagModel(seed=1).fit(worker_table(lambda p: 1 + 0.02 * (p - 1)))
    work, delay = model.components_["work"], model.components_["delay"]
    assert work.bounded_in_size and not delay.bounded_in_size
    def grows(laws):  # the candidates weighed (scores_ names every one)
        return [k for k in laws if k.startswith("c+n^") or (k.startswith("n^") and not k.startswith("n^0 "))]

    assert grows(work.scores_) == [] and grows(delay.scores_) != []


def test_fit_says_what_the_cli_says_of_averaged_rows_and_takes_one_split_label():
    """pp.fit warns of rows that are means of repetitions as fit on the command line
    does (the intervals would be those of a mean), and refuses a split that is not one
    label."""
    m = Measurements({"n": [8, 16, 32, 64], "p": [1, 1, 1, 1], "time": [1.0, 2.1, 4.0, 8.2],
                      "time_std": [0.1, 0.1, 0.1, 0.1], "reps": [3, 3, 3, 3]})
    with pytest.warns(UserWarning, match="the rows are means of 3 runs each"):
        fit(m)
    for bad in (["train"], 1):
        with pytest.raises(TypeError, match=r"split is one label \(a str, or None for every row\)"):
            fit(m, split=bad)


def test_a_draw_that_overflows_far_out_is_unbounded_not_nan():
    """Far beyond the sizes (n = 2^200 from 2^13), draws overflow; inf - inf made one of
    them NaN and with it every summary. It is an unbounded draw: inf, which the median
    and interval can order, never NaN."""
    import warnings

    from probperf import sim

    runs = sim.generate("sort", n=[2**10, 2**11, 2**12, 2**13], p=[1, 2, 3, 4], seed=0)
    model = fit(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # far out by design; the cautions are tested elsewhere
        pred = model.predict(n=2.0**200, p=16)
    lo, hi = pred.interval(0.9)
    # how many draws overflow depends on the laws' weights (since the simulator's steal
    # fix more than half: the median too is inf, which `predict` refuses, exit 2)
    assert np.isinf(pred.draws).any() and not np.isnan(pred.draws).any()
    assert not np.isnan([lo[0], pred.median[0], hi[0]]).any() and lo[0] <= pred.median[0] <= hi[0]


def test_constructor_options_are_checked_at_fit():
    """A truthy string is no True, a negative or NaN floor no rate, 0 draws no count."""
    runs = paper_table(ns=(2**10, 2**11, 2**12), ps=(1, 2, 4), reps=1)
    for options, message in [({"calibrate": "no"}, "calibrate must be True, False or None"),
                             ({"discrepancy": -1.0}, "discrepancy must be a number >= 0"),
                             ({"discrepancy": float("nan")}, "discrepancy must be a number >= 0"),
                             ({"discrepancy": "0.1"}, "discrepancy must be a number >= 0"),
                             ({"n_draws": 0}, "n_draws must be a whole number in 1.."),
                             ({"seed": -1}, "seed must be a whole number >= 0"),
                             ({"models": ["laws"]}, "models maps a component to its spec")]:
        with pytest.raises((ValueError, TypeError), match=message):
            DagModel(**options).fit(runs)


def test_a_model_file_whose_scale_factors_are_transposed_is_refused(fitted, tmp_path):
    # (factor, weight) rows read transposed would swap the fields without a word
    fitted.save(tmp_path / "m.model")
    kind, config, tensors = persist.load_state(tmp_path / "m.model")
    scales = tensors["discrepancy_scales_"]
    assert scales.ndim == 2 and scales.shape[1] == 2
    for bad in (scales.T.copy(), scales[:, :1].copy(), -scales):
        persist.save_state(tmp_path / "bad.model", kind, config, {**tensors, "discrepancy_scales_": bad})
        with pytest.raises(persist.ModelFileError, match=r"discrepancy_scales_ of shape .* is not rows of "
                                                         r"\(factor >= 0, weight >= 0\); re-fit the model"):
            persist.load(tmp_path / "bad.model")
    persist.save_state(tmp_path / "good.model", kind, config, tensors)  # the file as written loads
    assert np.array_equal(persist.load(tmp_path / "good.model").discrepancy_scales_, fitted.discrepancy_scales_)


def test_a_cut_off_varied_only_at_the_largest_size_is_fitted(tmp_path):
    # session 46's hunt: the forward validations' sub-fit, on the sizes below the
    # largest, saw one cut-off, and its held-out runs at other cut-offs made the whole
    # fit fail ("only 1 distinct value of 'quick_cutoff' ... cannot predict 128"); those
    # runs test nothing of the sub-fit and are left out of it
    from probperf.models.points import unreachable
    from probperf.sim import generate

    base = generate("sort", [2**10, 2**11, 2**12, 2**13], [1, 2, 3, 4], seed=0).frame
    varied = generate("sort", [2**13], [1, 2, 3, 4], config={"quick_cutoff": [128, 256, 1024]}, seed=1).frame
    runs = Measurements(pd.concat([base, varied], ignore_index=True),
                        config=["quick_cutoff", "merge_cutoff", "insertion_cutoff"])
    model = DagModel(seed=0).fit(runs)
    truth = generate("sort", [2**14], [4], config={"quick_cutoff": [128, 512]}, reps=2, seed=2)
    pred = model.predict(truth.frame[model.features_], n_draws=500)
    # the cut-off's interaction with n is seen at one size only: the delay at the finer
    # cut-off comes out a quarter high, and the 90 % interval's lower end sat 2.5 % below
    # one truth before the simulator's steal fix (2026-11-29) and 0.6 % above it after;
    # asserted: medians within the README flow's factor 1.5, 4 truths in the 95 % interval
    lo, hi = pred.interval(0.95)
    assert np.all((lo < truth.y("time")) & (truth.y("time") < hi))
    assert np.all(np.abs(np.log(pred.median / truth.y("time"))) < np.log(1.5))
    # the rows left out are exactly those check_extrapolation refuses
    assert unreachable(np.array([[2.0**13, 128.0], [2.0**12, 512.0]]), ["n", "quick_cutoff"],
                       {"n": [2.0**10, 2.0**12, 3], "quick_cutoff": [512.0, 512.0, 1]}).tolist() == [True, False]


def test_a_combination_of_cut_offs_no_run_had_spans_the_nearest_measured_ones():
    # two cut-offs at two values each, three of the four pairs measured: the laws'
    # product of the two effects at the fourth is a guess, so every joint draw there
    # comes from the pair asked or from one nearest measured pair (unmeasured.py),
    # all components from the same one: the identity holds per draw, and the
    # interval holds the simulated runs of both nearest pairs at that size and count
    from probperf.cautions import ExtrapolationWarning
    from probperf.sim import generate

    pairs = [(256, 256), (1024, 256), (256, 1024)]
    frame = pd.concat([generate("sort", [2**11, 2**12, 2**13, 2**14], [1, 2, 3, 4, 6],
                                config={"quick_cutoff": q, "merge_cutoff": m}, seed=0).frame for q, m in pairs],
                      ignore_index=True)
    model = DagModel(effort="quick", seed=0).fit(
        Measurements(frame, config=["quick_cutoff", "merge_cutoff", "insertion_cutoff"]))
    with pytest.warns(ExtrapolationWarning, match=r"spans the nearest measured settings too \(quick_cutoff=256, "
                      r"merge_cutoff=2\^10; quick_cutoff=2\^10, merge_cutoff=256\)"):
        pred = model.predict(n=2**14, p=6, quick_cutoff=1024, merge_cutoff=1024, n_draws=1000)
    parts = pred["work"].draws + pred["delay"].draws + pred["no_work"].draws
    assert np.allclose(parts, pred.p * pred.draws)
    lo, hi = pred.interval(0.9)
    for q, m in pairs[1:]:
        runs = generate("sort", [2**14], [6], config={"quick_cutoff": q, "merge_cutoff": m}, reps=2, seed=1).y("time")
        assert np.all((lo < runs) & (runs < hi)), (q, m, runs, lo, hi)


def test_a_scale_validation_that_no_factor_survives_takes_the_widest_factor(monkeypatch):
    # held-out times whose draws overflowed (a size far off the rest) score -inf under
    # every factor: the weights were NaN, and every prediction failed later with
    # "probabilities contain NaN"; no evidence for a narrow factor: the widest, alone
    from probperf import selection

    monkeypatch.setattr(selection, "forward_subfits", lambda *a, **k: ["sub"])
    monkeypatch.setattr(selection, "factor_log_scores",
                        lambda *a, **k: [np.full((3, len(selection.SCALE_GRID)), -np.inf)])
    factors, _ = selection.discrepancy_scale(None, None, ["n", "p"])
    assert factors[factors[:, 1] > 0].tolist() == [[max(selection.SCALE_GRID), 1.0]]


def test_the_span_of_a_run_is_drawn_with_its_run_to_run_noise(monkeypatch):
    # helper-63: spans of one setting differ from run to run (a tracer measures each on
    # the run's own task times), and drawn latent the span's 90 % interval at the
    # training settings held 17-39 % of the training runs; with the noise, about 90 %
    import probperf.dag as dag

    frame = inflated_table().frame
    frame["critical_path"] *= np.exp(np.random.default_rng(5).normal(0.0, 0.05, len(frame)))
    model = DagModel(seed=1, calibrate=False).fit(Measurements(frame))
    settings = frame[["n", "p"]].drop_duplicates().reset_index(drop=True)
    runs = frame.merge(settings.reset_index(), on=["n", "p"])

    def held(noise):
        monkeypatch.setattr(dag, "SPAN_RUN_NOISE", noise)
        lo, hi = model.predict(settings, n_draws=2000, seed=0)["critical_path"].interval(0.9)
        i = runs["index"].to_numpy()
        return float(np.mean((lo[i] <= runs["critical_path"]) & (runs["critical_path"] <= hi[i])))

    assert 0.8 <= held(True) <= 0.98
    assert held(False) < 0.6  # the fault: the latent span's band is far narrower than its runs


def test_time_below_the_sizes_is_no_larger_than_at_the_smallest_size(monkeypatch):
    # helper-78: fib fitted on n = 20..25 predicted n = 3 at 0.18 s (upper end 1.6e14 s,
    # the truth 1.4e-6 s): the parts' laws (an exponential idle ratio) rise below the
    # data; each draw is held at its own value at the smallest training size
    # (laws.SMALLER_NO_SLOWER), its parts scaled together so the identity holds
    from probperf.models import laws
    from probperf.sim import generate

    model = DagModel(seed=0).fit(generate("fib", [20, 21, 22, 23, 24], [1, 2, 4, 8], config={"cutoff": 12}, seed=0))
    # the last point also beyond the workers (held there by MONOTONE_BEYOND first)
    points = pd.DataFrame({"n": [20.0, 10.0, 3.0, 3.0], "p": [2.0, 2.0, 2.0, 32.0], "cutoff": [12.0] * 4})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # below the measured range: said, and not the subject here
        held = model.predict(points, n_draws=1000, seed=0)
        monkeypatch.setattr(laws, "SMALLER_NO_SLOWER", False)
        free = model.predict(points, n_draws=1000, seed=0)
    assert free.interval(0.9)[1][2] > 1e3 * free.median[0]  # the rise it guards against
    assert held.interval(0.9)[1][2] < 1.1 * held.interval(0.9)[1][0]  # no draw above n = 20's, its noise apart
    parts = held["work"].draws + held["delay"].draws + held["no_work"].draws
    np.testing.assert_allclose(parts, held.draws * held.p)  # the identity, scaled draws too
    assert np.all(held["critical_path"].draws <= held.draws * (1 + 1e-9))
    assert np.all(held["critical_path"].draws <= held["serial_work"].draws)  # T_inf <= T_1' (helper-81)
    np.testing.assert_array_equal(held.draws[:, 0], free.draws[:, 0])  # inside the data: untouched
