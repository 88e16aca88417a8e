"""The experiment scripts and their per-fit task functions (issue 6)."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from probperf.data import Measurements
from probperf.experiment_tasks import (
    _PerConfig,
    central_level,
    fit_metric_task,
    fit_time_task,
    load_data,
    score_split,
)
from probperf.models.extrap import extrap_text
from probperf.predict import Predictive

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"
sys.path.insert(0, str(EXPERIMENTS))
import _common as C  # noqa: E402  (the scripts' shared module, found through sys.path)


# -- pieces with known answers -------------------------------------------------------


def test_central_level_gives_the_calibration_curve():
    draws = np.arange(1.0, 101.0)[:, None] * np.ones(4)  # 1..100 at every point
    y = np.array([50.5, 25.5, 3.0, 1000.0])
    levels = central_level(draws, y)
    # 50.5: half the draws below -> 0; 25.5: 25 % below -> |0.5 - 1| = 0.5;
    # 3.0: 2 below + half of 1 tie = 2.5 % -> 0.95; above every draw -> 1.
    assert levels.tolist() == pytest.approx([0.0, 0.5, 0.95, 1.0])
    # the coverage at level L is the share of points with central level <= L
    assert np.mean(levels <= 0.5) == 0.5


def test_score_split_blanks_intervals_of_point_predictions():
    pred = Predictive(np.array([[10.0, 30.0]]))
    s = score_split(pred, np.array([8.0, 40.0]), point=True)
    assert s["median_ape"] == pytest.approx(25.0)  # 25 % and 25 %
    assert s["crps"] == pytest.approx((2.0 + 10.0) / 2)  # a point mass scores |x - y|
    assert math.isnan(s["coverage_90"]) and math.isnan(s["width_90"]) and math.isnan(s["nlpd"])


def test_score_split_survives_a_zero_median():
    draws = np.array([[0.0, 9.0], [0.0, 11.0], [0.0, 10.0]])
    s = score_split(Predictive(draws), np.array([2.0, 10.0]))
    assert s["median_ape"] == pytest.approx(50.0)  # 100 % and 0 %
    assert s["coverage_90"] == 0.5
    # width from the non-zero point only: (10.9 - 9.1) / 10
    assert s["width_90"] == pytest.approx(0.18)


def test_extrap_text_two_parameters():
    frame = pd.DataFrame({"n": [2, 2, 4], "p": [1, 1, 2], "time": [1.0, 1.5, 3.0]})
    assert extrap_text(frame, ["n", "p"]).splitlines() == [
        "PARAMETER n p", "POINTS (2 1) (4 2)", "REGION main", "METRIC time", "DATA 1 1.5", "DATA 3"]


class _Constant:
    """A 'model' predicting the mean training time of its configuration."""

    def fit(self, m):
        self.value = float(m.frame["time"].mean())
        return self

    def predict(self, points, n_draws, seed):
        return Predictive(np.full((1, len(points)), self.value), points)


def test_per_config_routes_every_point_to_its_own_configuration():
    m = Measurements({"n": [1, 2, 1, 2], "p": [1, 1, 1, 1], "cutoff": [4, 4, 8, 8],
                      "time": [1.0, 3.0, 10.0, 30.0]}, config=["cutoff"])
    model = _PerConfig(_Constant, ["cutoff"]).fit(m)
    pts = pd.DataFrame({"n": [5, 5, 5], "p": [1, 1, 1], "cutoff": [8, 4, 8]})
    assert model.predict(pts, 1, 0).draws.tolist() == [[20.0, 2.0, 20.0]]
    with pytest.raises(ValueError, match="no training rows for configuration"):
        model.predict(pts.assign(cutoff=16), 1, 0)


def test_t_interval_matches_the_t_quantile():
    mean, half, n = C.t_interval([1.0, 2.0, 3.0])
    # sd = 1, n = 3: half-width = t_{0.975, 2} / sqrt(3) = 4.302653 / 1.732051
    assert (mean, n) == (2.0, 3) and half == pytest.approx(2.484138, rel=1e-5)
    assert math.isnan(C.t_interval([4.0])[1])


def _power_law_file(tmp_path):
    n = np.repeat(2.0 ** np.arange(6, 14), 2)
    p = np.tile([1, 2], 8)
    frame = pd.DataFrame({"n": n, "p": p, "time": 1e-6 * n / p, "split": np.where(n <= 2**11, "train", "test")})
    path = tmp_path / "law.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_fit_metric_task_extrapolates_an_exact_power_law(tmp_path):
    task = {"data": _power_law_file(tmp_path), "target": "time", "model": "linear", "seed": 0, "effort": "quick"}
    out = fit_metric_task(task)
    (s,) = out["scores"]
    assert s["split"] == "test" and s["n_points"] == 4 and out["n_train"] == 12
    # time = 1e-6 n / p is linear in (log n, log p): the power-law mean is exact
    assert s["median_ape"] < 1.0
    assert len(out["points"]) == 4 and {pt["n"] for pt in out["points"]} == {2.0**12, 2.0**13}


def test_tasks_reject_bad_input(tmp_path):
    data = _power_law_file(tmp_path)
    with pytest.raises(ValueError, match="target must be one of"):
        fit_metric_task({"data": data, "target": "speed", "model": "rbf", "seed": 0})
    with pytest.raises(ValueError, match="unknown model 'lasso'"):
        fit_time_task({"data": data, "model": "lasso", "seed": 0})
    with pytest.raises(ValueError, match="effort must be one of"):
        fit_time_task({"data": data, "model": "direct_sm4", "seed": 0, "effort": "huge"})
    nosplit = tmp_path / "nosplit.csv"
    pd.DataFrame({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]}).to_csv(nosplit, index=False)
    with pytest.raises(ValueError, match="needs a 'split' column"):
        load_data(str(nosplit))


def test_stored_fits_are_found_from_a_clone_elsewhere(tmp_path):
    """A task names its dataset relative to experiments/ (its directory, ``_root``, is no
    part of the key): a clone at another path reports the fits stored here, where it
    found none of them and would have run them all again."""
    import shutil

    clone = tmp_path / "elsewhere" / "experiments"
    shutil.copytree(EXPERIMENTS, clone, ignore=shutil.ignore_patterns("figures", "*.md", "sim", "__pycache__"))
    stored = pd.read_parquet(clone / "results" / "published.parquet")
    assert not stored["data"].str.startswith("/").any() and not stored["task"].str.contains("_root").any()
    done = subprocess.run([sys.executable, str(clone / "published.py"), "--report-only", "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    md = (clone / "results" / "published.md").read_text()
    assert "were not run" not in md and "The 20 fits' own run times" in md
    case = C.published_cases()[0]
    assert case["data"] == "data/published/gauss_n_p8.csv" and case["_root"] == str(EXPERIMENTS)


def test_scripts_refuse_bad_grids_before_any_fit(capsys):
    """Unknown names, empty lists and models that cannot fit the data: one line, exit 2
    (they gave tracebacks, or ran every fit and stored it as failed with exit 0)."""
    import compare_kernels
    import compare_models
    import published

    def refused(module, argv):
        with pytest.raises(SystemExit) as exit_:
            module.grid(module.parse_args(["--report-only", *argv]))
        assert exit_.value.code == 2
        return capsys.readouterr().err.strip()

    assert refused(compare_models, ["--apps", "nosuch"]) == (
        "error: --apps: unknown 'nosuch'; choose from sort, sparselu, fft, strassen, fib, nqueens, farm")
    assert refused(compare_models, ["--datasets", "C"]) == "error: --datasets: unknown 'C'; choose from A, B"
    assert refused(compare_models, ["--models", ","]) == "error: --models ',' names nothing"
    assert refused(compare_kernels, ["--targets", "nonsense"]) == (
        "error: --targets: unknown 'nonsense'; choose from time, work, delay, no_work")
    assert refused(compare_kernels, ["--datasets", "fib"]).startswith(
        "error: --datasets: unknown 'fib'; choose from sort:A, sort:B,")
    assert refused(compare_kernels, ["--models", "sm2,bogus"]).startswith("error: --models 'bogus': unknown kernel")
    assert refused(published, ["--models", "dag,extrap"]) == (
        "error: --models: dag model(s) the DAG metrics of traced runs; the published cases are times alone")
    # --quick has its own seeds unless --seeds is given, as a flag (not text inside a path)
    assert compare_models.parse_args(["--quick", "--seeds", "5"]).seeds == [0, 1, 2, 3, 4]
    assert compare_models.parse_args(["--quick", "--out", "/tmp/--seeds/x.parquet"]).seeds == [0, 1]
    with pytest.raises(SystemExit):  # no abbreviations: --see=7 was --seeds 7, then replaced by --quick's
        compare_models.parse_args(["--quick", "--see=7"])
    with pytest.raises(SystemExit) as exit_:
        C.check_out(str(EXPERIMENTS))
    assert exit_.value.code == 2 and capsys.readouterr().err.strip().endswith("give a .parquet file")


def test_report_only_without_any_stored_fit_is_refused_and_writes_nothing(tmp_path, capsys):
    """A mistyped --out under --report-only wrote a report of 0 fits ("Models: .") and an
    empty figures directory, exit 0."""
    import published

    with pytest.raises(SystemExit) as exit_:
        published.main(["--report-only", "--no-progress", "--out", str(tmp_path / "typo.parquet")])
    assert exit_.value.code == 2 and capsys.readouterr().err.strip().endswith(
        f"error: --report-only: no stored fit of this grid in {tmp_path / 'typo.parquet'} (or its parts); "
        "run the script without --report-only first")
    assert list(tmp_path.iterdir()) == []


def test_sim_effects_refuses_a_file_as_its_directory_and_a_seed_the_simulator_cannot_take(tmp_path, capsys):
    import sim_effects

    (tmp_path / "t.sh").write_text("")
    for argv, said in ((["-o", str(tmp_path / "t.sh")], "is a file; give a directory for the PNGs"),
                       (["-o", str(tmp_path), "--seed", "-1"], "'-1' is not a whole number from 0 to 4294967295")):
        with pytest.raises(SystemExit) as exit_:
            sim_effects.main(argv)
        assert exit_.value.code == 2 and capsys.readouterr().err.strip().endswith(said)


# -- the scripts, end to end ---------------------------------------------------------


def _run(script, tmp_path, *extra, where=("--workers", "2")):
    out = tmp_path / f"{script}.parquet"
    cmd = [sys.executable, str(EXPERIMENTS / f"{script}.py"), "--quick", "--out", str(out),
           "--no-progress", *where, *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _finite(frame, columns):
    return np.isfinite(frame[columns].to_numpy(dtype=float)).all()


@pytest.mark.slow
def test_compare_kernels_quick(tmp_path):
    # in one process: its fits are single-threaded, so two Dask workers beside the
    # suite's other process would only contend (compare_models runs on Dask)
    out = _run("compare_kernels", tmp_path, "--data", str(tmp_path / "sim"), where=("--scheduler", "inline"))
    table = pd.read_parquet(out)
    # nqueens/A x 4 targets x 4 models + 4 published cases x time x 4 models
    assert len(table) == 4 * 4 + 4 * 4
    assert (table["status"] == "ok").all(), table.loc[table["status"] != "ok", "error"].tolist()
    long = C.scores_long(table)
    assert set(long["split"]) == {"test"}
    assert set(long["model"]) == {"sm2", "rbf", "linear", "basis"}
    assert set(long["target"]) == {"time", "work", "delay", "no_work"}
    assert _finite(long, ["median_ape", "coverage_50", "coverage_90", "width_90", "crps_rel", "fit_seconds"])
    assert ((long["coverage_90"] >= 0) & (long["coverage_90"] <= 1)).all()
    md = out.with_suffix(".md").read_text()
    for header in ("### time", "### no_work", "## Winner per target, case and split", "wall time"):
        assert header in md
    for fig in ("rank_heatmap", "error_boxes", "calibration", "actual_vs_predicted"):
        assert (tmp_path / "figures" / f"compare_kernels_{fig}.png").stat().st_size > 1000


@pytest.mark.slow
def test_compare_models_quick(tmp_path):
    out = _run("compare_models", tmp_path, "--data", str(tmp_path / "sim"))
    table = pd.read_parquet(out)
    models = {"dag", "dag_sm4", "direct_sm4", "twostep_lasso", "direct_nn", "cilkview", "extrap"}
    assert len(table) == len(models) * 2  # two seeds
    assert (table["status"] == "ok").all(), table.loc[table["status"] != "ok", "error"].tolist()
    long = C.scores_long(table)
    assert set(long["split"]) == {"test1", "test2", "test3"} and set(long["model"]) == models
    assert _finite(long, ["median_ape", "crps_rel"])
    assert _finite(long[long["model"] != "extrap"], ["coverage_90", "width_90"])
    md = out.with_suffix(".md").read_text()
    test3 = md.split("## Dataset B test3: larger n and 32/36 workers: median absolute % error")[1].split("##")[0]
    header = test3.strip().splitlines()[0]
    assert all(m in header for m in models)
    row = [line for line in test3.splitlines() if line.startswith("| nqueens")]
    cells = [c.strip() for c in row[0].split("|")[2:-1]]
    assert len(row) == 1 and len(cells) == len(models) and "-" not in cells
    assert "Targets on test3" in md
    for fig in ("error_boxes", "calibration", "actual_vs_predicted"):
        assert (tmp_path / "figures" / f"compare_models_{fig}.png").stat().st_size > 1000
    # a re-run finds every fit done and submits nothing
    again = subprocess.run([sys.executable, str(EXPERIMENTS / "compare_models.py"), "--quick", "--out", str(out),
                            "--no-progress", "--scheduler", "inline", "--data", str(tmp_path / "sim")],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert pd.read_parquet(out).equals(table)
    # the run log lists the one run that fitted something, with its fit count
    runs = [json.loads(line) for line in out.with_suffix(".runs.jsonl").read_text().splitlines()]
    assert [r["fits_run"] for r in runs] == [len(table)]
    assert "compare_models.py --quick" in runs[0]["command"]


def _stop_at_two(task):
    if task["i"] == 2:
        raise KeyboardInterrupt  # the user's Ctrl-C in the middle of a sweep
    return {"y": task["i"] ** 2}


def test_a_sweep_cut_short_is_still_listed_with_the_fits_it_stored(tmp_path):
    # helper-67: a run that crashed after storing 16 fits was missing from the report's
    # list of "every run that added fits"
    import argparse

    out = tmp_path / "grid.parquet"
    args = argparse.Namespace(report_only=False, no_progress=True, rerun_errors=False, out=out,
                              scheduler="inline", workers=None)
    with pytest.raises(SystemExit) as exit_:  # Ctrl-C: a line and 130, not a traceback (helper-77)
        C.execute([{"i": i} for i in range(4)], _stop_at_two, args, C.Stopwatch())
    assert exit_.value.code == 130
    runs = [json.loads(line) for line in out.with_suffix(".runs.jsonl").read_text().splitlines()]
    assert [r["fits_run"] for r in runs] == [2] and runs[0]["command"].endswith(" (stopped)")


def test_an_unusable_out_or_scheduler_is_refused_in_a_line_before_any_fit(tmp_path, capsys):
    # helper-77: an --out folder that cannot be written failed after the first fit, and
    # a --scheduler address with nothing behind it in Dask's traceback
    import argparse

    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as exit_:
        C.check_out(str(tmp_path / "file" / "grid.parquet"))
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (f"error: --out {tmp_path / 'file' / 'grid.parquet'}: cannot make its "
                                               f"folder {tmp_path / 'file'} (File exists)")
    C.check_out(str(tmp_path / "new" / "grid.parquet"))  # a missing folder is made, as the results' is
    assert (tmp_path / "new").is_dir()
    args = argparse.Namespace(report_only=False, no_progress=True, rerun_errors=False, out=tmp_path / "g.parquet",
                              scheduler="nonsense", workers=None)
    with pytest.raises(SystemExit) as exit_:
        C.execute([{"i": 1}], _stop_at_two, args, C.Stopwatch())
    assert exit_.value.code == 2 and capsys.readouterr().err.strip().endswith(
        "error: cannot connect to the Dask scheduler 'nonsense': missing port number in address 'nonsense'")


def test_compare_kernels_without_time_writes_its_report_without_the_time_figure(tmp_path):
    # helper-77: --targets work failed on the time figure, after its fits, with no report
    sim = tmp_path / "sim"
    sim.mkdir()
    shutil.copy(EXPERIMENTS / "data" / "sim" / "nqueens_A_scale1_seed0.csv", sim)
    out = _run("compare_kernels", tmp_path, "--models", "linear", "--targets", "work", "--datasets", "nqueens:A",
               "--no-published", "--data", str(sim), where=("--scheduler", "inline"))
    md = out.with_suffix(".md").read_text()
    assert "calibration curves" in md and "actual vs predicted" not in md
    assert sorted(f.name for f in (tmp_path / "figures").iterdir()) == [
        f"compare_kernels_{name}.png" for name in ("calibration", "error_boxes", "rank_heatmap")]
