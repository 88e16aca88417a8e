"""``probperf validate`` and ``probperf convert``: summaries, round trips, exit code 2."""

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import probperf as pp
from probperf.cli import app

runner = CliRunner()

DAG_METRICS = ("time", "work", "delay", "no_work", "create_task", "wait_tasks", "end_task",
               "critical_path")


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(text: str) -> str:
    # rich wraps table cells; join the lines to search them
    return re.sub(r"\s+", " ", text.replace("│", " "))


@pytest.mark.parametrize("how", [["--param", "p=4"], ["--pattern", "dag_recorder_{p}workers.stat"]])
def test_validate_real_stat_file(shared_dir, how):
    r = run("validate", shared_dir / "examples" / "dag_recorder_4workers.stat", *how)
    assert r.exit_code == 0, r.stderr
    out = one_line(r.stdout)
    metrics = re.search(r"metrics (.*?) metric time", out).group(1).replace(",", " ").split()
    assert sorted(metrics) == sorted(DAG_METRICS)
    # each metric's value, as the file holds it (clock cycles)
    assert "metric time 2.58904e+09 metric work 1.31303e+09" in out
    assert "parameter p 4 (1 distinct)" in out
    assert "rows 1 " in out
    assert "identity residual 0 (max abs relative)" in out
    # a valid file of runs without a size: said, since fit refuses it (exit 0 all the same)
    assert one_line(r.stderr).startswith("warning: no problem size: parameter 'n' is needed but missing")
    assert one_line(r.stderr).strip().endswith("; fit needs it")


def test_validate_published_csv(shared_dir):
    r = run("validate", shared_dir / "datasets" / "published" / "gauss_n_p8.csv")
    assert r.exit_code == 0, r.stderr
    out = one_line(r.stdout)
    assert "rows 12" in out and "parameter n 10 .. 150 (12 distinct)" in out
    assert "split train 10, test 2 (fit and doctor use train)" in out
    assert "metric time 0.02 .. 10.55" in out  # the file's smallest and largest times
    assert "identity residual n/a" in out


def test_convert_stat_to_csv_keeps_counts(shared_dir, tmp_path):
    out = tmp_path / "run.csv"
    r = run("convert", shared_dir / "examples" / "dag_recorder_4workers.stat", out,
            "--param", "n=2**20", "--param", "p=4")
    assert r.exit_code == 0, r.stderr
    assert out.read_text().splitlines() == [
        "n,p,create_task,wait_tasks,end_task,work,delay,no_work,critical_path,time",
        "1048576,4,1048575,1048575,1048576,1313026836,9031849743,11285973,91285263,2589040638",
    ]


def test_convert_takes_its_output_as_OUT_or_with_o(shared_dir, tmp_path):
    """``-o`` names the output as OUT does (the other commands write with -o); both
    naming different files, or neither, is refused before anything is written."""
    source = shared_dir / "datasets" / "published" / "gauss_n_p8.csv"
    r = run("convert", source, "-o", tmp_path / "g.jsonl")
    assert r.exit_code == 0, r.stderr
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 12
    r = run("convert", source, tmp_path / "a.csv", "-o", tmp_path / "b.csv")
    assert r.exit_code == 2 and "two output files" in r.stderr
    r = run("convert", source)
    assert r.exit_code == 2 and r.stderr.strip() == "error: missing output file: give OUT or -o <path>"
    r = run("convert", source, "-o", tmp_path / "none" / "g.csv")  # named as given
    assert r.exit_code == 2 and r.stderr.startswith(f"error: -o {tmp_path / 'none' / 'g.csv'}: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]


def test_convert_refuses_to_write_over_its_input(tmp_path):
    (tmp_path / "a.csv").write_text("n,p,time\n1,1,1.0\n")
    (tmp_path / "b.csv").write_text("n,p,time\n2,1,2.0\n")
    r = run("convert", str(tmp_path / "*.csv"), "-o", tmp_path / "a.csv")
    assert r.exit_code == 2 and r.stderr.strip() == (
        f"error: -o {tmp_path / 'a.csv'}: it is one of the input files; write the conversion elsewhere")
    assert (tmp_path / "a.csv").read_text() == "n,p,time\n1,1,1.0\n"


# -- every bad input: exit 2, located message on stderr, nothing written ----------------

STAT_OK = """\
create_task           = 6
wait_tasks            = 7
end_task              = 8
work (T1)             = 100
delay                 = 30
no_work               = 10
critical_path (T_inf) = 40
n_workers (P)         = 2
elapsed               = 70
T1/P                  = 50.000
"""

BAD_INPUTS = {
    # name: (file name, content, extra args, expected "line N, column X" or None)
    "missing column": ("r.csv", "n,time\n1,1.0\n", [], "line 1, column p"),
    "unknown column": ("r.csv", "n,p,time,speed\n1,1,1.0,3\n", [], "line 1, column speed"),
    "not a number": ("r.csv", "n,p,time\n1,1,1.0\n2,1,fast\n", [], "line 3, column time"),
    "negative": ("r.csv", "n,p,time\n1,1,1.0\n2,1,1.0\n3,1,-1.0\n", [], "line 4, column time"),
    "p not integer": ("r.csv", "n,p,time\n1,2.5,1.0\n", [], "line 2, column p"),
    "p zero": ("r.csv", "n,p,time\n1,1,1.0\n1,0,1.0\n", [], "line 3, column p"),
    "NaN": ("r.csv", "n,p,time\n1,1,NaN\n", [], "line 2, column time"),
    "NaN in jsonl": ("r.jsonl", '{"n": 1, "p": 1, "time": NaN}\n', [], "line 1, column time"),
    "duplicate header": ("r.csv", "n,p,time,time\n1,1,1.0,2.0\n", [], "line 1, column time"),
    "duplicate key": ("r.jsonl", '{"n": 1, "p": 1, "p": 1, "time": 1.0}\n', [], "line 1, column p"),
    "empty file": ("r.csv", "", [], "line 1"),
    "empty stat": ("r.stat", "", [], "line 1, column create_task"),
    "stat truncated": ("r.stat", "".join(STAT_OK.splitlines(True)[:7]), [], "line 7, column p"),  # its last line
    "stat not a number": ("r.stat", STAT_OK.replace("= 30", "= 3e"), [], "line 5, column delay"),
    "identity strict": ("r.stat", STAT_OK.replace("= 10\n", "= 11\n"), ["--strict"], "line 9, column time"),
    "identity strict csv": (
        "r.csv", "n,p,time,work,delay,no_work\n1,2,5.0,8.0,1.0,1.0\n1,2,5.0,8.0,1.0,2.0\n",
        ["--strict"], "line 3, column time"),
    "p conflicts with --param": ("r.stat", STAT_OK, ["--param", "p=3"], "line 8, column p"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
@pytest.mark.parametrize("command", ["validate", "convert"])
def test_bad_input_exits_2_with_location(tmp_path, case, command):
    name, content, extra, where = BAD_INPUTS[case]
    path = tmp_path / name
    path.write_text(content)
    out = tmp_path / "out.csv"
    args = [command, path] + ([out] if command == "convert" else []) + extra
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    assert r.stderr.startswith(f"error: {path}, {where}:"), r.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("command", ["validate", "convert"])
def test_glob_matching_nothing_exits_2(tmp_path, command):
    pattern = str(tmp_path / "runs" / "*.stat")
    out = tmp_path / "out.csv"
    r = run(command, pattern, *([out] if command == "convert" else []))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: {pattern}: no files match this pattern"
    assert not out.exists()


def test_identity_is_a_warning_without_strict(tmp_path):
    path = tmp_path / "r.stat"
    path.write_text(STAT_OK.replace("= 10\n", "= 11\n"))  # 141 vs 140: +0.714 %
    out = tmp_path / "out.jsonl"
    r = run("convert", path, out)
    assert r.exit_code == 0
    assert f"warning: {path}, line 9, column time: work + delay + no_work differs from p * time " \
           f"by +0.714%" in r.stderr
    with pytest.warns(pp.data.IdentityWarning, match=f"{out}, line 1, column time"):
        assert pp.read(out).frame["no_work"].tolist() == [11]


def test_extrap_output_that_would_lose_metrics_writes_nothing(tmp_path):
    path = tmp_path / "r.stat"
    path.write_text(STAT_OK)
    out = tmp_path / "out.txt"
    r = run("convert", path, out)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"error: OUT {out}: Extra-P text holds the parameters and one metric; this "
                                         "table also has create_task, wait_tasks, end_task, work, delay")
    assert "give --metric NAME (e.g. --metric time) to write one and leave the rest out" in one_line(r.stderr)
    assert not out.exists()
    # --metric picks the one to write, and says what was left out (the CLI had no way to)
    r = run("convert", path, out, "--metric", "work")
    assert r.exit_code == 0, r.stderr
    assert "METRIC work" in out.read_text() and "note: left out of the Extra-P text: create_task, wait_tasks, end_task, delay" in one_line(r.stderr)
    assert pp.read(out, metric="work").frame["work"].tolist() == pp.read(path).frame["work"].tolist()
    r = run("convert", path, tmp_path / "out.csv", "--metric", "work")  # every other format keeps every column
    assert r.exit_code == 2 and "--metric work: it picks the one metric of Extra-P output" in one_line(r.stderr)
    out.unlink()
    r = run("convert", path, out, "--metric", "wrok")  # a misspelt metric is named first (helper-88)
    assert r.exit_code == 2 and one_line(r.stderr).strip() == f"error: {path}, column wrok: metric 'wrok' is needed but missing"
    assert not out.exists()


def test_bad_param_option(tmp_path):
    path = tmp_path / "r.stat"
    path.write_text(STAT_OK)
    r = run("validate", path, "--param", "p4")
    assert r.exit_code == 2 and "expected NAME=VALUE" in r.stderr
    # a list of values: --param takes one value and no range, so no hint to give one
    # --param per value or a range (predict --at's hint)
    r = run("validate", path, "--param", "x=4,8")
    assert r.exit_code == 2 and r.stderr.strip() == "error: --param 'x=4,8': expected NAME=VALUE pairs, e.g. p=4; got '8'"


# -- round trip CSV -> Parquet -> JSON lines -> Extra-P -> CSV --------------------------

positive_floats = st.floats(min_value=0.0, exclude_min=True, allow_nan=False,
                            allow_infinity=False, allow_subnormal=True)
points = st.tuples(st.integers(1, 2**50), st.integers(1, 1024), st.integers(1, 64))


@st.composite
def tables(draw):
    pts = draw(st.lists(points, min_size=1, max_size=5, unique=True))
    # repetitions: several rows per point, interleaved
    idx = draw(st.lists(st.integers(0, len(pts) - 1), min_size=1, max_size=12))
    rows = [(*pts[i], draw(positive_floats)) for i in idx]
    with_config = draw(st.booleans())
    return rows, with_config


@settings(max_examples=30, deadline=None)
@given(tables())
def test_convert_round_trip_changes_no_value(data):
    rows, with_config = data
    cols = {"n": [r[0] for r in rows], "p": [r[1] for r in rows], "time": [r[3] for r in rows]}
    config = []
    if with_config:
        cols["cutoff"] = [r[2] for r in rows]
        config = ["--config", "cutoff"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pp.write(pp.Measurements(cols, config=["cutoff"] if with_config else []), tmp / "a.csv")
        legs = [("a.csv", "b.parquet", config), ("b.parquet", "c.jsonl", []),
                ("c.jsonl", "d.txt", config), ("d.txt", "e.csv", [])]
        for src, dst, extra in legs:
            r = run("convert", tmp / src, tmp / dst, *extra)
            assert r.exit_code == 0, r.output
        back = pp.read(tmp / "e.csv", config=["cutoff"] if with_config else [])
        first = (tmp / "a.csv").read_text().splitlines()
        last = (tmp / "e.csv").read_text().splitlines()
    names = ["n", "p", "cutoff", "time"] if with_config else ["n", "p", "time"]
    expected = [tuple(cols[c][i] for c in names) for i in range(len(rows))]
    got = [tuple(row) for row in back.frame[names].itertuples(index=False)]
    # Extra-P groups repetitions by point, so compare as multisets, value for value.
    assert sorted(got) == sorted(expected)
    assert [type(v) for v in got[0]] == [int] * (len(names) - 1) + [float]
    assert first[0] == last[0] and sorted(first) == sorted(last)


def test_validate_many_stat_files_and_a_quoted_glob(tmp_path):
    for p in (1, 2, 4):
        t = 100
        (tmp_path / f"fib_n30_p{p}.stat").write_text(
            STAT_OK.replace("= 100\n", f"= {p * t - 40}\n").replace("= 2\n", f"= {p}\n")
            .replace("= 70\n", f"= {t}\n"))
    files = sorted(tmp_path.glob("*.stat"))
    for args in (files, [str(tmp_path / "fib_*.stat")]):
        r = run("validate", *args, "--pattern", "fib_n{n}_p{p}.stat")
        assert r.exit_code == 0, r.stderr
        out = one_line(r.stdout)
        assert "rows 3 " in out and "parameter p 1 .. 4 (3 distinct)" in out
        assert "parameter n 30 (1 distinct)" in out
        assert "identity residual 0 (max abs relative)" in out


def test_fit_reads_stat_files_as_validate_does(tmp_path):
    # the reading options are declared once for every command that reads runs: fit
    # takes the file-name --pattern too (before, its help named .stat globs it could
    # not give an n); elapsed 70 n / p cycles
    for n, p in [(n, p) for n in (10, 20, 40, 80) for p in (1, 2, 4)]:
        t = 70 * n // p
        (tmp_path / f"fib_n{n}_p{p}.stat").write_text(
            STAT_OK.replace("= 100\n", f"= {p * t - 40}\n").replace("= 2\n", f"= {p}\n")
            .replace("= 70\n", f"= {t}\n"))
    out = tmp_path / "fib.model"
    r = run("fit", str(tmp_path / "fib_*.stat"), "--pattern", "fib_n{n}_p{p}.stat", "--clock-hz", "1e3",
            "-o", out, "-q")
    assert r.exit_code == 0, r.stderr
    pred = pp.load(out).predict({"n": [160], "p": [2]})  # n came from the file names
    # the clock rate given, the model is in seconds: 70 n / p cycles at 1 kHz
    assert pred.median[0] == pytest.approx(70 * 160 / 2 / 1e3, rel=0.05) and pred.unit == "s"
    r = run("predict", out, "--at", "n=160,p=2", "--format", "json")  # the JSON rows say their unit
    assert r.exit_code == 0, r.stderr
    assert [row["unit"] for row in json.loads(r.stdout)] == ["s"]



def test_a_csv_of_cycle_counts_is_read_with_unit_cycles(tmp_path):
    # a CSV says nothing of its unit: --unit cycles (with --clock-hz) reads a tracer's
    # counts; --clock-hz alone on seconds is refused with the way out, a unit not known too
    path = tmp_path / "cycles.csv"
    path.write_text("n,p,time\n1000,1,2500000\n2000,1,5100000\n4000,1,9900000\n")
    out = tmp_path / "cycles.parquet"
    res = run("convert", str(path), str(out), "--unit", "cycles", "--clock-hz", "2.5e9")
    assert res.exit_code == 0, res.output
    back = pp.read(out)
    assert back.unit == "cycles" and back.clock_hz == 2.5e9 and back.frame["time"].tolist() == [2.5e6, 5.1e6, 9.9e6]
    res = run("validate", str(path), "--clock-hz", "2.5e9")
    assert res.exit_code == 2 and res.stderr.strip() == (
        "error: --clock-hz applies to runs measured in cycles, but these are in seconds (--unit cycles says a CSV or "
        "JSON file is in cycles)")
    res = run("validate", str(out), "--unit", "s")  # a Parquet file records its unit: not overridden
    assert res.exit_code == 2 and res.stderr.strip() == (
        f"error: {out}: the file records its times in cycles; they cannot be read as s (a clock rate converts "
        "cycles to seconds)")
    res = run("validate", str(path), "--unit", "ms")
    assert res.exit_code == 2 and res.stderr.strip() == "error: --unit 'ms': choose s or cycles"


def test_unit_on_stat_files_is_their_own_or_refused(tmp_path):
    """.stat files count cycles: --unit cycles says what they are (accepted), --unit s
    is refused with the way to seconds, true of every command (convert keeps cycles: the
    advice "give --clock-hz to have them in seconds" was fit's alone)."""
    (tmp_path / "fib_n10_p2.stat").write_text(STAT_OK)
    args = ["validate", str(tmp_path / "fib_*.stat"), "--pattern", "fib_n{n}_p{p}.stat"]
    res = run(*args, "--unit", "cycles")
    assert res.exit_code == 0, res.stderr
    res = run(*args, "--unit", "s")
    assert res.exit_code == 2 and res.stderr.strip() == (
        "error: --unit s: DAG Recorder .stat files count clock cycles, whatever --unit says; leave it out "
        "(--clock-hz HZ is the rate that turns cycles into seconds where a command needs them)")


def test_validate_names_rows_without_a_split_label(tmp_path):
    """A blank split cell is counted as '(no label)', not shown as nothing."""
    path = tmp_path / "runs.csv"
    path.write_text("n,p,time,split\n10,1,1.0,train\n20,1,2.0,\n40,1,4.1,test\n")
    r = run("validate", str(path))
    assert r.exit_code == 0, r.stderr
    assert "split train 1, (no label) 1, test 1 (fit and doctor use train)" in one_line(r.stdout)
    # JSON's null was left out of the count (helper-69: 2 rows of 3 counted); with a blank, one entry
    path = tmp_path / "runs.jsonl"
    path.write_text('{"n": 10, "p": 1, "time": 1.0, "split": "train"}\n{"n": 20, "p": 1, "time": 2.0, "split": null}\n'
                    '{"n": 40, "p": 1, "time": 4.1, "split": ""}\n')
    r = run("validate", str(path))
    assert r.exit_code == 0, r.stderr
    assert "split train 1, (no label) 2 (fit and doctor use train)" in one_line(r.stdout)


def test_validate_counts_empty_metric_cells(tmp_path):
    """An empty time cell reads (a run without that metric), but fit refuses it: validate
    says how many there are instead of passing them in silence."""
    path = tmp_path / "runs.csv"
    path.write_text("n,p,time\n10,1,1.0\n20,1,\n40,1,4.1\n80,1,\n")
    r = run("validate", str(path))
    assert r.exit_code == 0, r.stderr
    assert "missing values time in 2 of 4 runs (probperf doctor says what fit makes of them)" in one_line(r.stdout)


def test_validate_says_which_metrics_fit_would_refuse_as_out_of_range(tmp_path):
    """Times 1e300 times too large pass validate's checks but not fit's laws (values
    beyond 1e-150..1e150): validate names them and their range, fit refuses them."""
    path = tmp_path / "runs.csv"
    path.write_text("n,p,time\n10,1,1e300\n20,1,2e300\n40,1,4.1e300\n")
    r = run("validate", str(path))
    assert r.exit_code == 0, r.stderr
    assert ("out of range time has values beyond 1e-150..1e+150 (1e+300 .. 4.1e+300), which the laws of fit refuse; "
            "give them in another unit") in one_line(r.stdout)
    r = run("fit", str(path), "-o", str(tmp_path / "m.model"))
    assert r.exit_code == 2 and "time has values beyond 1e-150..1e+150" in r.stderr
    # a parameter far beyond any real one (helper-63: one n of 1e40 among sizes up to
    # 80 left a DAG model with NaN weights, and fit -o then removed the model it replaced)
    path.write_text("n,p,time\n10,1,1e-3\n20,1,2e-3\n40,1,4.1e-3\n80,1,8e-3\n1e40,1,9e-3\n")
    assert ("out of range n has values beyond 1e+30 (10 .. 1e+40), which the laws of fit refuse; give them in "
            "another unit") in one_line(run("validate", str(path)).stdout)
    r = run("fit", str(path), "-o", str(tmp_path / "m.model"))
    assert r.exit_code == 2 and r.stderr.strip() == (
        f"error: {path}: fit: n has values beyond 1e+30 (10 .. 1e+40), which the laws of fit refuse; give them in "
        "another unit")
    assert not (tmp_path / "m.model").exists()
    path.write_text("n,p,time\n10,1,1e-3\n20,1,2e-3\n40,1,4.1e-3\n")
    assert "out of range" not in one_line(run("validate", str(path)).stdout)
