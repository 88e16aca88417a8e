"""``probperf doctor``: what a table of runs can support, with the numbers it says."""

import json
import warnings
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from probperf import Measurements
from probperf.cli import app
from probperf.cautions import far_beyond
from probperf.data import IdentityWarning, Location, MeasurementError, validate_frame
from probperf.doctor import TOLERANCE, diagnose
from probperf.formats import read as pp_read
from probperf.timemodels import DirectModel

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("│", " "))


def dag_frame(off_by=0.0, bad_row=2, workers=(1, 2, 4, 8)):
    """Traced runs on 4 sizes x the ``workers`` whose identity holds exactly, except
    ``bad_row``, where work + delay + no_work is ``1 + off_by`` times p * time."""
    n = np.repeat([1024, 2048, 4096, 8192], len(workers))
    p = np.tile(workers, 4)
    time = 1e-6 * n / p + 0.01 * p
    work = 1e-6 * n * (1 + 0.05 * (p - 1))
    delay = 0.4 * (p * time - work)
    no_work = p * time - work - delay
    no_work[bad_row] += off_by * p[bad_row] * time[bad_row]
    return pd.DataFrame({"n": n, "p": p, "time": time, "work": work, "delay": delay, "no_work": no_work,
                         "create_task": n / 64, "wait_tasks": n / 64})


def warned(frame, about: str, **point) -> list[str]:
    """The warnings about ``about`` of a time-only model of ``frame`` predicting at ``point``."""
    model = DirectModel().fit(Measurements(frame))
    with pytest.warns(UserWarning) as caught:
        model.predict(**point)
    return [str(w.message) for w in caught if about in str(w.message)]


def test_distinct_counts_ranges_and_far_limits():
    frame = dag_frame().assign(cutoff=np.repeat([8, 16, 8, 16], 4))  # both kinds at both
    report = diagnose(Measurements(frame, config=["cutoff"]))
    got = {d.name: (d.distinct, d.low, d.high, d.extrapolates, d.far) for d in report.directions}
    # 16x the largest value, or the range's own ratio where smaller (8 for n and p)
    assert got == {"n": (4, 1024, 8192, True, 8 * 8192), "p": (4, 1, 8, True, 8 * 8),
                   "cutoff": (2, 8, 16, False, None)}
    assert report.rows == 16 and report.dag_model
    assert report.problems == ["only 2 values of cutoff (8..16): cannot predict cutoff outside that range; "
                               "measure at least 3 values of cutoff"]


def test_the_far_limit_is_where_predict_starts_warning():
    report = diagnose(Measurements(dag_frame()))
    ranges = {d.name: [d.low, d.high, d.distinct] for d in report.directions}
    for d in report.directions:
        at_limit = pd.DataFrame({d.name: [d.far]})
        assert far_beyond(at_limit, ranges) == []
        just_past = pd.DataFrame({d.name: [d.far * 1.001]})
        assert len(far_beyond(just_past, ranges)) == 1
        # below the range too, at the limit its note names (none for p from one worker)
        named = re.search(r"or below ([0-9.e+-]+) \(the smallest\)", d.note)
        assert (named is None) == (d.name == "p" and d.low == 1)
        if named is None:
            continue
        low = float(named.group(1))
        assert low == d.low
        assert far_beyond(pd.DataFrame({d.name: [low]}), ranges) == []
        assert len(far_beyond(pd.DataFrame({d.name: [low * 0.999]}), ranges)) == 1


def test_a_single_worker_count_cannot_predict_other_p():
    frame = pd.DataFrame({"n": [1000, 2000, 4000, 8000], "p": 8, "time": [1.0, 2.1, 4.3, 8.9]})
    m = Measurements(frame)
    report = diagnose(m)
    p = next(d for d in report.directions if d.name == "p")
    assert (p.distinct, p.low, p.high, p.extrapolates, p.far) == (1, 8, 8, False, None)
    assert report.problems[0] == "only one worker count (8): cannot predict other p; measure at least 3 values of p"
    # ... and predict indeed refuses other p, while n may go beyond its range
    model = DirectModel(kernel="laws").fit(m)
    with pytest.raises(ValueError, match="only 1 distinct value of 'p'"):
        model.predict(n=4000, p=16)
    assert np.isfinite(model.predict(n=16000, p=8).median[0])


def test_a_12_percent_identity_error_is_reported_as_12_percent():
    with pytest.warns(IdentityWarning, match=r"\+12\.000%"):  # the reader warns too
        m = Measurements(dag_frame(off_by=0.12, bad_row=5))
    report = diagnose(m)
    assert report.identity.worst == pytest.approx(0.12, rel=1e-9)
    assert report.identity.row == 5 and not report.identity.ok
    assert report.problems == [
        "identity work + delay + no_work = p * time off by 12 % in run 6 of 16 (tolerance 0.1 %): "
        "was the tracer on for the whole run, and are time and the DAG metrics from the same run?"]


def test_a_critical_path_longer_than_its_run_is_warned_refused_when_strict_and_reported():
    # helper-71: one row's critical path 1e6 s lifted a DAG model's 90 % interval at 36
    # workers from 0.11 s to 78 s, with not a word from validate, doctor or fit
    frame = dag_frame().assign(critical_path=lambda f: 0.5 * np.minimum(f["time"], f["work"]))
    frame.loc[5, "critical_path"] = 3.0 * frame.loc[5, "time"]  # 3x the time, and above the work
    assert frame.loc[5, "critical_path"] > frame.loc[5, "work"]
    with pytest.warns(IdentityWarning, match=r"line 7, column critical_path: the critical path is 3x the run time"):
        validate_frame(frame, location=Location("r.csv", first_line=2))
    with pytest.raises(MeasurementError, match=r"r.csv, line 7, column critical_path: the critical path is 3x"):
        validate_frame(frame, location=Location("r.csv", first_line=2), strict=True)
    with pytest.warns(IdentityWarning):
        report = diagnose(Measurements(frame))
    ratio = frame.loc[5, "critical_path"] / frame.loc[5, "work"]
    assert report.problems == [
        "critical path longer than the run time in 1 of 16 runs, 3x in run 6 of 16: are time and the DAG "
        "metrics from the same run, in one unit?",
        f"critical path longer than the work in 1 of 16 runs, {ratio:.3g}x in run 6 of 16: are time and the "
        "DAG metrics from the same run, in one unit?"]
    with warnings.catch_warnings():  # a path within its run and its work: not a word
        warnings.simplefilter("error")
        within = dag_frame().assign(critical_path=lambda f: np.minimum(f["time"], f["work"]))
        assert diagnose(Measurements(within)).problems == []


def test_a_broken_run_is_named_by_its_line_after_the_split(tmp_path):
    # helper-71: "run 6 of 12" counted the training rows only; the file's line is named too
    frame = dag_frame(off_by=0.12, bad_row=9).assign(split=["test"] * 4 + ["train"] * 12)
    frame.to_csv(tmp_path / "runs.csv", index=False)
    res = run("doctor", tmp_path / "runs.csv")
    assert res.exit_code == 0, res.output
    assert f"off by 12 % in run 6 of 12 ({tmp_path / 'runs.csv'}, line 11; tolerance 0.1 %)" in one_line(res.stdout)


def test_rounding_to_4_significant_digits_stays_within_the_tolerance():
    frame = dag_frame()
    cols = ["time", "work", "delay", "no_work"]
    rounded = frame.assign(**{c: [float(f"{v:.4g}") for v in frame[c]] for c in cols})
    report = diagnose(Measurements(rounded))
    assert 0 < report.identity.worst <= TOLERANCE == 1e-3
    assert report.identity.ok and report.problems == []


def test_without_the_dag_metrics_it_says_what_the_dag_model_needs():
    frame = dag_frame()[["n", "p", "time", "work"]]
    report = diagnose(Measurements(frame))
    assert not report.dag_model and report.identity.worst is None
    assert report.problems == ["the DAG model cannot be used: it needs metric delay, metric no_work, "
                               "metric create_task, metric wait_tasks; fit uses a direct model of the "
                               "time instead"]
    no_baseline = diagnose(Measurements(dag_frame().query("p > 1")))
    assert not no_baseline.dag_model
    assert no_baseline.problems[-1] == ("the DAG model cannot be used: it needs the sequential baseline "
                                        "(runs with p=1 or a serial_work column); fit uses a direct model "
                                        "of the time instead")


def test_it_does_not_promise_a_fit_that_fit_refuses():
    """Too few runs for any model: said so, where it once said "DAG model: usable" or
    "fit uses a direct model" and fit then refused."""
    frame = dag_frame()
    one = diagnose(Measurements(frame.iloc[:1]))
    assert not one.dag_model
    assert one.problems[-1] == ("the DAG model cannot be used: it needs at least 3 runs with p > 1, where idle "
                                "time is modelled (0 here); nor can time be modelled directly: 1 run is too few "
                                "to fit any law of time: fit refuses these runs")
    two = diagnose(Measurements({"n": [10, 20], "p": [1, 1], "time": [1.0, 2.0]}))
    assert two.problems[-1].endswith("nor can time be modelled directly: 2 runs are too few to fit any law of "
                                     "time: fit refuses these runs")
    no_n = diagnose(Measurements({"p": [1, 2, 4], "time": [4.0, 2.1, 1.2]}))
    assert no_n.problems[-1].endswith("nor can time be modelled directly: there is no problem size n: fit refuses "
                                      "these runs")

def test_time_missing_in_some_runs_is_counted_and_located(tmp_path):
    """A blank time in some rows (no DAG metrics to make it) is said as such, with the
    line fit will refuse; a table with no time at all is said differently, and traced
    runs, whose time the DAG model does not need, differently again."""
    path = tmp_path / "holes.csv"
    path.write_text("n,p,time\n1000,1,0.1\n2000,2,\n4000,3,0.3\n8000,4,\n")
    res = run("doctor", path)
    assert res.exit_code == 0
    assert ("time is missing in 2 of 4 runs (the first at line 3) and there is no DAG model to make it: "
            "fit refuses these runs; drop them or fill them in") in " ".join(res.stdout.split())
    assert run("fit", path, "-o", tmp_path / "x.model").stderr.strip() == (
        f"error: {path}, line 3, column time: metric 'time' is needed but missing")
    report = diagnose(Measurements({"n": [1, 2, 4], "p": [1, 2, 4], "work": [4.0, 2.1, 1.2]}))
    assert report.problems[-1].endswith(  # one sentence, not also "fit uses a direct model of the time" (helper-88)
        "; and no run has a time: run times cannot be predicted (fit --target NAME models a metric the runs have)")
    assert not any("direct model" in line for line in report.problems)
    # without n too, the missing time is what is said, not the missing n (helper-90)
    report = diagnose(Measurements({"p": [1, 2, 4], "work": [4.0, 2.1, 1.2]}))
    assert report.problems[-1].endswith("; and no run has a time: run times cannot be predicted (fit --target NAME "
                                        "models a metric the runs have)")
    # time missing in some runs and no DAG model: fit refuses them, said without "fit uses a direct model"
    more = tmp_path / "more_holes.csv"
    more.write_text("n,p,time\n" + "".join(f"{n},{q},{'' if (n, q) == (2000, 2) else 1e-4 * n / q}\n"
                                           for n in (1000, 2000, 4000, 8000) for q in (1, 2, 4)))
    holes = diagnose(pp_read(more))
    assert not any("direct model" in line for line in holes.problems)
    assert any(line.endswith("nor can time be modelled directly while some runs lack it (below)")
               for line in holes.problems)
    # traced runs: the DAG model makes the time, so validate's pointer here is answered
    traced = tmp_path / "traced.csv"
    dag_frame().assign(time=lambda f: f["time"].where(f.index != 4)).to_csv(traced, index=False)
    res = run("doctor", traced)
    assert res.exit_code == 0 and "nothing missing" not in res.stdout
    assert ("time is missing in 1 of 16 runs (the first at line 6): the DAG model does not need it (its time is "
            "(work + delay + no_work) / p), so fit keeps these runs; a model of time alone (--model direct) "
            "refuses them") in " ".join(res.stdout.split())


def test_means_of_repetitions_are_a_problem_it_names():
    runs = Measurements({"n": [8, 16, 32, 8], "p": [1, 2, 4, 4], "time": [1.0, 1.1, 1.2, 0.5], "reps": [3, 3, 2, 3]})
    assert diagnose(runs).problems[-1] == (
        "the rows are means of 2..3 runs each (column reps): no model reads those columns, each row is taken as "
        "one run, so the spread of a single run is underestimated and the intervals are too narrow for one; "
        "give every run as a row")
    single = Measurements({"n": [8, 16, 32], "p": [1, 2, 4], "time": [1.0, 1.1, 1.2], "reps": [1, 1, 1]})
    assert not any("means of" in line for line in diagnose(single).problems)


def test_a_choice_coded_0_1_2_in_one_column_is_pointed_out(tmp_path):
    path = tmp_path / "solver.csv"
    rows = [(n, p, s, 1e-6 * n / p * (1.0, 0.6, 1.4)[s]) for n in (1e3, 2e3, 4e3) for p in (1, 2, 4) for s in (0, 1, 2)]
    pd.DataFrame(rows, columns=["n", "p", "solver", "time"]).to_csv(path, index=False)
    res = run("doctor", path, "--config", "solver")
    assert res.exit_code == 0
    assert ("solver takes only the values 0, 1, 2: if they name choices (an algorithm) rather than amounts, give "
            "one 0/1 column per choice but one (the laws read one column as an amount: solver=1 between 0 and 2, "
            "and solver=3 as one more step along it)") in " ".join(res.stdout.split())
    blocks = pd.read_csv(path).assign(solver=lambda f: 32 * 2 ** f["solver"])  # 32, 64, 128: an amount
    assert not any("takes only the values" in line
                   for line in diagnose(Measurements(blocks, config=["solver"])).problems)


def test_without_n_it_says_how_to_give_it():
    report = diagnose(Measurements({"p": [1, 2, 4], "time": [4.0, 2.1, 1.2]}))
    assert [d.name for d in report.directions] == ["p"]
    assert report.problems[1].startswith("no problem size: parameter 'n' is needed but missing "
                                         "(give it as a column; the commands that read runs, and 'probperf "
                                         "record', take --param n=VALUE")


def test_cli_table_and_json(tmp_path):
    path = tmp_path / "runs.csv"
    dag_frame(off_by=0.12, bad_row=5, workers=(8, 8, 8)).to_csv(path, index=False)
    res = run("doctor", path)
    assert res.exit_code == 0, res.output
    out = one_line(res.stdout)
    # far limit 8192 x 8: the range's own ratio, smaller than 16
    assert "n 4 1024 .. 8192 yes 65536" in out and "p 1 8 no refused" in out
    assert "largest residual 12 % (tolerance 0.1 %) too large" in out
    assert "- only one worker count (8): cannot predict other p" in out
    assert res.stderr == ""  # the identity is reported once, on stdout, not also as a warning
    data = json.loads(run("doctor", path, "--format", "json").stdout)
    assert data["identity"]["worst"] == pytest.approx(0.12) and data["identity"]["ok"] is False
    assert [(d["name"], d["distinct"], d["far"]) for d in data["directions"]] == [("n", 4, 65536.0), ("p", 1, None)]


def test_cli_looks_at_the_training_rows_like_fit(tmp_path):
    path = tmp_path / "runs.csv"
    frame = dag_frame().assign(split=["train"] * 12 + ["test"] * 4)  # n = 8192 is the test
    frame.to_csv(path, index=False)
    data = json.loads(run("doctor", path, "--format", "json").stdout)
    assert data["rows"] == 12 and data["directions"][0]["high"] == 4096
    everything = json.loads(run("doctor", path, "--format", "json", "--split", "").stdout)
    assert everything["rows"] == 16


@pytest.mark.parametrize("content, message", [
    ("n,p,time\n10,1,1.0\n20,1,fast\n", "runs.csv, line 3, column time"),
    ("n,time\n10,1.0\n", "runs.csv, line 1, column p: required parameter column 'p' is missing"),
])
def test_cli_bad_file_is_one_line_and_exit_2(tmp_path, content, message):
    path = tmp_path / "runs.csv"
    path.write_text(content)
    res = run("doctor", path)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert len(res.stderr.strip().splitlines()) == 1 and message in res.stderr
    assert "Traceback" not in res.output


def test_cli_missing_file_and_bad_format(tmp_path):
    res = run("doctor", tmp_path / "nope.csv")
    assert res.exit_code == 2 and "nope.csv" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    path = tmp_path / "runs.csv"
    dag_frame().to_csv(path, index=False)
    res = run("doctor", path, "--format", "yaml")
    assert res.exit_code == 2 and "--format must be json or table" in res.stderr


def test_a_relation_broken_by_one_run_is_pointed_out_and_a_free_parameter_is_not():
    # p = nnodes * ppn in every run but one (p typed 64 for 16): a slip that turned the
    # relation off is named with the run; three free parameters give no such sentence
    rng = np.random.default_rng(0)
    nnodes, ppn = rng.choice([1, 2, 4, 8], 120), rng.choice([1, 2, 4, 8], 120)
    n = rng.choice([2**10, 2**12, 2**14], 120)
    p = nnodes * ppn
    p[7] = 4 * p[7] if p[7] != 16 else 32
    frame = {"n": n, "p": p, "nnodes": nnodes, "ppn": ppn, "time": 1e-6 * n / p}
    problems = diagnose(Measurements(frame, config=["nnodes", "ppn"])).problems
    broken = [line for line in problems if "a typo?" in line]
    assert broken == [f"ppn = p / nnodes in 119 of 120 runs, but not at n=2^{int(np.log2(n[7]))},p={p[7]},nnodes={nnodes[7]},"
                      f"ppn={ppn[7]}: a typo? Kept in every run, the relation would let predict check points "
                      "against it"], problems
    free = {"n": n, "p": rng.choice([1, 2, 4, 8, 16], 120), "nnodes": nnodes, "ppn": ppn, "time": 1e-6 * n}
    assert not [line for line in diagnose(Measurements(free, config=["nnodes", "ppn"])).problems if "typo" in line]



def test_a_run_100x_off_its_repeats_is_reported_and_a_2x_spread_is_not():
    """A run in ms among runs in s: every model would take it as noise. Doctor names the
    setting; repeats within a factor 2 (ordinary noise) pass."""
    n = np.repeat([1000.0, 2000, 4000, 8000], 2)
    time = 1e-3 * n * np.array([1.0, 1.3] * 4)
    problems = diagnose(Measurements({"n": n, "p": np.ones(8), "time": time})).problems
    assert not any("differ by" in s for s in problems)
    time[5] /= 1000  # n = 4000, the second run: 4 s against 5.2 ms, 4 / 0.0052 = 769
    problems = diagnose(Measurements({"n": n, "p": np.ones(8), "time": time})).problems
    said = [s for s in problems if "differ by" in s]
    assert len(said) == 1 and said[0].startswith("runs of one setting differ by up to 769x in time "
                                                 "(0.0052 and 4 s at n=4000, p=1; 1 of 4 settings with repeats)")


def test_fit_repeats_doctors_caution_about_a_run_far_off_its_repeats():
    import probperf as pp

    n = np.repeat([1000.0, 2000, 4000, 8000], 2)
    time = 1e-3 * n * np.array([1.0, 1.3] * 4)
    time[5] /= 1000
    with pytest.warns(UserWarning, match=r"runs of one setting differ by up to 769x in time \(0.0052 and 4 s"):
        pp.fit(Measurements({"n": n, "p": np.ones(8), "time": time}))


def _repeated(noise, seed=0):
    """32 settings (8 sizes x 4 worker counts), 3 runs each, of 1e-8 n / p s with
    log-normal noise of sd ``noise``."""
    n = np.repeat(2.0 ** np.arange(16, 24), 12)
    p = np.tile(np.repeat([1.0, 2, 4, 8], 3), 8)
    return {"n": n, "p": p, "time": 1e-8 * n / p * np.exp(np.random.default_rng(seed).normal(0, noise, len(n)))}


def test_a_run_4x_off_repeats_3_percent_apart_is_reported_and_fit_says_it():
    """Session 47's hunt: a 4x run among repeats 3 % apart was not flagged (the 10x
    check is meant for units) and widened the intervals 3x. Measured by the table's own
    repeat spread it lies some 40 sds out; doctor and fit name it, and the setting."""
    import probperf as pp

    runs = _repeated(0.03)
    assert not [s for s in diagnose(Measurements(runs)).problems if "far from" in s]
    runs["time"][40] *= 4  # n = 2^19, p = 2, its second run
    said = [s for s in diagnose(Measurements(runs)).problems if "far from" in s]
    others = np.exp(np.log(runs["time"][[39, 41]]).mean())
    assert len(said) == 1 and said[0].startswith(
        f"a run is far from the other runs of its setting ({runs['time'][40]:.6g} s at n=524288, p=2 against "
        f"{others:.3g} s for the others, {runs['time'][40] / others:.2g}x, where two runs of one setting in this "
        "table typically differ by"), said
    assert said[0].endswith("1 of 32 settings with repeats): a disturbed run (another job, a frequency change)? every "
                            "model takes the spread as noise, which pulls the fit and distorts the intervals everywhere "
                            "(wider or narrower); check or drop such runs")
    with pytest.warns(UserWarning, match=r"a run is far from the other runs of its setting \(\S+ s at n=524288, p=2"):
        pp.fit(Measurements(runs))


def test_a_run_2_5x_off_is_within_the_noise_of_a_table_whose_repeats_spread_widely():
    # repeats 30 % apart (sd 0.3 on the log scale): 2.5x is 0.92 / (0.3 * 1.22) = 2.5 sds
    # from its setting's others, inside the Bonferroni bound over 96 runs (3.9 sds)
    runs = _repeated(0.3)
    runs["time"][40] = 2.5 * np.exp(np.log(runs["time"][[39, 41]]).mean())
    assert not [s for s in diagnose(Measurements(runs)).problems if "far from" in s]


def test_rounded_repeats_are_far_only_beyond_their_rounding():
    # times to 0.01 s: 0.03 against 0.01 and 0.01 may be 0.025 against 0.015 (1.7x, not
    # beyond 2x), but 0.05 cannot be less than 0.045 / 0.015 = 3x
    n = np.repeat([1.0, 2, 3, 4, 5, 6], 3)
    time = np.full(18, 0.01)
    time[2] = 0.03
    assert not [s for s in diagnose(Measurements({"n": n, "p": np.ones(18), "time": time})).problems if "far" in s]
    time[2] = 0.05
    said = [s for s in diagnose(Measurements({"n": n, "p": np.ones(18), "time": time})).problems if "far from" in s]
    assert said and said[0].startswith("a run is far from the other runs of its setting (0.05 s at n=1, p=1 against "
                                       "0.01 s for the others, 5x, where two runs of one setting in this table "
                                       "typically differ by 0 %; 1 of 6 settings with repeats)")


def test_values_that_fit_refuses_are_said_before_the_fit():
    # fit's laws refuse positive values beyond VALUE_RANGE (1e-150..1e150); validate said
    # so, doctor now lists it among what limits the predictions
    n = [10, 20, 40, 80]
    report = diagnose(Measurements({"n": n * 4, "p": [1] * 4 + [2] * 4 + [4] * 4 + [8] * 4,
                                    "time": [1e-200] + [x / p for p in (4, 2, 3, 5) for x in n][1:]}))
    assert report.problems[1:] == ["time has values beyond 1e-150..1e+150 (1e-200 .. 40), which the laws of fit refuse; "
                               "give them in another unit"]


def test_json_says_an_unchecked_identity_is_neither_held_nor_broken(tmp_path):
    # time alone: the table says n/a, and JSON said "ok": true
    path = tmp_path / "time.csv"
    pd.DataFrame({"n": [64, 128, 256], "p": [1, 2, 4], "time": [1.0, 1.1, 1.3]}).to_csv(path, index=False)
    data = json.loads(run("doctor", path, "--format", "json").stdout)
    assert data["identity"] == {"worst": None, "row": None, "tolerance": 0.001, "ok": None}


def test_doctor_names_what_predict_warns_of_at_two_multi_worker_counts():
    # p = 1, 4, 16: three values of p, so p extrapolates, but the overheads that only
    # several workers show rest on two counts; doctor says it before predict does
    frame = dag_frame(workers=(1, 4, 16))
    report = diagnose(Measurements(frame))
    few = ("the runs with more than one worker had only 2 worker counts (4, 16): how the overheads grow with the "
           "workers is fitted to them without a check; measure at least 3 worker counts above one")
    assert report.problems == [few]
    model = DirectModel().fit(Measurements(frame))
    with pytest.warns(UserWarning) as caught:
        model.predict(n=4096, p=32)
    assert f"p=32 is beyond the measured workers, and {few}" in [str(w.message) for w in caught]
    # with 1, 2, 4, 8 nothing of the kind is said
    assert diagnose(Measurements(dag_frame())).problems == []


def test_doctor_and_predict_say_when_the_parallel_runs_stop_short_of_the_serial_ones():
    # session 46's hunt: serial runs at 4 sizes, runs with p > 1 at the smallest only;
    # at p > 1 the overheads' growth with n is the serial runs' carried over
    frame = dag_frame()
    frame = frame[(frame.n == 1024) | (frame.p == 1)]
    report = diagnose(Measurements(frame))
    assert report.problems == [
        "the runs with p > 1 reach n=2^10 only, the table n=2^13: with p > 1 predict warns above n=2^10, where how "
        "the overheads grow with n is carried over from the runs with p = 1; measure runs with p > 1 at larger n"]
    assert warned(frame, "value with p > 1", n=[4096, 4096], p=[1, 4]) == [
        "n=2^12 is 4x the largest value with p > 1 (1024), the only one measured: the interval there rests on the "
        "model's form (its laws or kernel), not on validated predictions; the runs with p = 1 reach n=2^13, but how "
        "the overheads grow with n shows only in runs with p > 1: measure some at larger n"]


def test_doctor_says_when_fit_models_time_directly_though_the_dag_model_is_usable(tmp_path):
    # one size, traced: fit (auto) models time directly (registry.SINGLE_SIZE_DIRECT);
    # doctor said "DAG model: usable" and no more
    frame = dag_frame().query("n == 4096")
    report = diagnose(Measurements(frame))
    assert report.dag_model and report.auto_direct == (
        "only p varies (one size), where time modelled directly with its laws of the workers predicts better "
        "(fit --model dag for the decomposition)")
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    assert "DAG model: usable, but fit (auto) models time directly: only p varies (one size)" in one_line(
        run("doctor", path).stdout)
    assert diagnose(Measurements(dag_frame())).auto_direct == ""  # several sizes: the DAG model it is


def test_doctor_names_the_clock_rate_of_times_in_cycles_as_validate_does(tmp_path):
    from probperf.formats import write_parquet

    path = write_parquet(Measurements({"n": [1e3, 2e3, 4e3], "p": [1, 2, 4], "time": [3e9, 2e9, 1e9]},
                                      unit="cycles", clock_hz=2e9), tmp_path / "c.parquet")
    assert "3 runs, times in cycles at 2e+09 Hz" in one_line(run("doctor", path).stdout)  # the title wraps by path length
    assert "cycles at 2e+09 Hz" in one_line(run("validate", path).stdout)
    assert json.loads(run("doctor", path, "--format", "json").stdout)["clock_hz"] == 2e9


def test_three_sizes_extrapolate_unchecked_and_both_doctor_and_predict_say_so():
    # helper-60's hunt: sort on 3 sizes, 2-4x beyond them (inside the far limit), missed
    # 7 of 14 points without a word; a forward split needs 4 sizes (3 to fit, 1 held out)
    frame = dag_frame().query("n <= 4096")
    report = diagnose(Measurements(frame))
    assert report.problems == [
        "only 3 problem sizes (1024..4096): n may be extrapolated, but no forward validation checks it (one needs 4: "
        "3 to fit on, one held out), and predict warns beyond 4096; measure at least 4 values of n"]
    assert warned(frame, "no forward validation", n=[2048, 8192], p=[2, 2]) == [
        "n=2^13 is beyond the measured values of n (2x the largest, 2^12), and the runs had only 3 of them: no forward "
        "validation held the largest out (it needs 4), so neither the laws' weights nor the interval's widening "
        "were checked past them; measure at least 4 values of n"]
    assert not any("no forward validation" in line for line in diagnose(Measurements(dag_frame())).problems)


def test_an_identity_whose_budget_overflows_is_reported_not_passed(tmp_path):
    # helper-63: time = 1e308 at p = 4 made p * time inf and the residual NaN, which
    # counted as held ("largest residual 2e-14 %"); each part is divided instead
    frame = dag_frame()
    frame.loc[3, "time"] = 1e308
    with pytest.warns(IdentityWarning, match=r"4th row: work \+ delay \+ no_work differs from p \* time by -100\.000%"):
        report = diagnose(Measurements(frame))
    assert report.identity.ok is False and report.identity.row == 3 and report.identity.worst == pytest.approx(1.0)
    assert "time has values beyond 1e-150..1e+150" in " ".join(report.problems)


def test_doctor_json_is_strict_json_when_a_far_limit_passes_float64(tmp_path):
    # 16 x 1e308 is inf: written as Infinity, which no strict JSON reader takes
    path = tmp_path / "runs.csv"
    pd.DataFrame({"n": [10, 20, 40, 1e308], "p": [1, 1, 1, 1], "time": [1.0, 2.0, 4.0, 8.0]}).to_csv(path, index=False)
    res = CliRunner().invoke(app, ["doctor", str(path), "--format", "json"])
    assert res.exit_code == 0, res.output

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    data = json.loads(res.stdout, parse_constant=refuse)
    assert data["directions"][0]["far"] == "inf"
    assert "n has values beyond 1e+30 (10 .. 1e+308), which the laws of fit refuse; give them in another unit" in \
        data["problems"]


def test_a_metric_that_time_modelled_directly_leaves_alone_is_not_refused():
    # helper-64: a work column with one value of 1e-200 (beyond what a law fits) made
    # every fit refuse the table, though time modelled directly never reads it
    runs = Measurements({"n": [10, 20, 40, 80] * 2, "p": [1] * 4 + [2] * 4,
                         "time": [1.0, 2.1, 3.9, 8.2, 0.6, 1.1, 2.0, 4.2], "work": [1e-200] + [1.0] * 7})
    assert "work has values beyond 1e-150..1e+150" in " ".join(diagnose(runs).problems)
    assert DirectModel().fit(runs).predict(n=160, p=2).median[0] > 0


def test_three_sizes_say_the_near_warning_in_the_table_note_as_in_the_problems():
    # helper-84: the note named only the far warning (1600, 4x), the problems line the
    # near one (400): predict warns just past 400, three values leaving none to hold out
    from probperf.doctor import diagnose

    m = Measurements({"n": [100, 200, 400] * 3, "p": [1] * 3 + [2] * 3 + [4] * 3,
                      "time": [1.0, 2.0, 4.0, 0.5, 1.0, 2.0, 0.3, 0.6, 1.1]})
    report = diagnose(m)
    n = report.directions[0]
    assert n.far == 1600
    assert n.note.startswith("3 problem sizes: can be extrapolated; predict warns beyond 400 (unchecked: no forward "
                             "validation) and again beyond 1600 (4x the largest)")
    assert any("predict warns beyond 400;" in line for line in report.problems)
    # p = 1, 2, 4: two counts above one, which predict warns of just past 4 (helper-85)
    p = report.directions[1]
    assert p.note.startswith("3 worker counts: can be extrapolated; predict warns beyond 4 (unchecked")
    assert any(line.startswith("the runs with more than one worker had only 2 worker counts (2, 4)")
               for line in report.problems)
