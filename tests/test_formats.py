"""Readers and writers: exact values, located errors, atomic writes."""

import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import probperf as pp
from probperf.data import IdentityWarning, MeasurementError, Measurements
from probperf.formats import read_csv, read_jsonl, read_parquet

#: The values of ../shared/examples/dag_recorder_4workers.stat, read by eye.
EXAMPLE = {
    "p": 4,
    "create_task": 1048575,
    "wait_tasks": 1048575,
    "end_task": 1048576,
    "work": 1313026836,
    "delay": 9031849743,
    "no_work": 11285973,
    "critical_path": 91285263,
    "time": 2589040638,
}

STAT = """\
create_task           = {create_task}
wait_tasks            = 7
end_task              = 8
work (T1)             = {work}
delay                 = 30
no_work               = {no_work}
critical_path (T_inf) = 40
n_workers (P)         = {p}
elapsed               = {time}
T1/P                  = 1.000
end-parent edges:
 1 0
 0 1
"""


def stat_text(work=100, no_work=10, p=2, time=70, create_task=6):
    return STAT.format(work=work, no_work=no_work, p=p, time=time, create_task=create_task)


def write(path, text):
    path = Path(path)
    path.write_text(text)
    return path


def error_of(fn, *args, **kw) -> str:
    with pytest.raises(MeasurementError) as e:
        fn(*args, **kw)
    return str(e.value)


# -- DAG Recorder .stat --------------------------------------------------------------


def test_real_stat_file(shared_dir):
    path = shared_dir / "examples" / "dag_recorder_4workers.stat"
    m = pp.read_dag_recorder(path, params={"n": 2**20})
    row = m.frame.iloc[0].to_dict()
    assert {k: row[k] for k in EXAMPLE} == EXAMPLE
    assert row["n"] == 2**20
    assert m.unit == "cycles"
    assert m.identity_residual().tolist() == [0.0]
    assert m.frame["time"].dtype == np.int64


def test_real_stat_file_via_read_and_pattern(shared_dir):
    m = pp.read(shared_dir / "examples" / "dag_recorder_4workers.stat",
                pattern="dag_recorder_{p}workers.stat", clock_hz=2e9)
    assert m.params == ["p"] and m.frame["p"].tolist() == [4]
    assert m.in_seconds().frame["time"].tolist() == [2589040638 / 2e9]


def test_many_stat_files_with_pattern(tmp_path):
    for n in (8, 16):
        for p in (1, 2, 4):
            t = 10 * n
            write(tmp_path / f"sort_n{n}_p{p}_c3.stat", stat_text(work=p * t - 40, no_work=10, p=p, time=t))
    m = pp.read_dag_recorder(str(tmp_path / "sort_*.stat"), pattern="sort_n{n}_p{p}_c{cutoff}.stat")
    assert len(m) == 6
    assert m.params == ["n", "p", "cutoff"]
    f = m.frame.sort_values(["n", "p"])
    assert f["n"].tolist() == [8, 8, 8, 16, 16, 16]
    assert f["p"].tolist() == [1, 2, 4, 1, 2, 4]
    assert f["time"].tolist() == [80, 80, 80, 160, 160, 160]
    assert (m.identity_residual() == 0).all()


def test_a_pattern_written_as_an_absolute_path_or_from_dot_matches(tmp_path, monkeypatch):
    # helper-69: "$PWD/st/sort_n{n}_p{p}.stat" and "./st/..." never matched ("//tmp" against "/tmp")
    (tmp_path / "st").mkdir()
    for n in (8, 16):
        write(tmp_path / "st" / f"sort_n{n}_p2.stat", stat_text(work=2 * 10 * n - 40, no_work=10, p=2, time=10 * n))
    monkeypatch.chdir(tmp_path)
    for pattern in (f"{tmp_path}/st/sort_n{{n}}_p{{p}}.stat", "./st/sort_n{n}_p{p}.stat", "st/sort_n{n}_p{p}.stat"):
        for files in (str(tmp_path / "st" / "sort_*.stat"), "st/sort_*.stat"):
            m = pp.read_dag_recorder(files, pattern=pattern)
            assert sorted(m.frame["n"]) == [8, 16] and set(m.frame["p"]) == {2}, (pattern, files)


def test_side_table(tmp_path):
    write(tmp_path / "a.stat", stat_text())
    write(tmp_path / "b.stat", stat_text(create_task=9))
    side = write(tmp_path / "params.csv", "file,n,block\nruns/a.stat,100,4\nb.stat,200,8\n")
    m = pp.read_dag_recorder(str(tmp_path / "*.stat"), side_table=side)
    assert m.params == ["n", "p", "block"]
    assert m.frame[["n", "block", "create_task"]].values.tolist() == [[100, 4, 6], [200, 8, 9]]
    write(tmp_path / "c.stat", stat_text())
    assert error_of(pp.read_dag_recorder, str(tmp_path / "*.stat"), side_table=side).startswith(
        f"{tmp_path / 'c.stat'}: no row for this file in the side table"
    )
    # helper-69: two runs of one name in two folders took the same row, without a word
    (tmp_path / "p8").mkdir()
    write(tmp_path / "p8" / "a.stat", stat_text(create_task=7))
    assert error_of(pp.read_dag_recorder, [str(tmp_path / "a.stat"), str(tmp_path / "p8" / "a.stat")],
                    side_table=side) == (
        f"{tmp_path / 'p8' / 'a.stat'}: the files {tmp_path / 'a.stat'} and {tmp_path / 'p8' / 'a.stat'} share the "
        f"name 'a.stat', and the side table {side} names files by their names alone; give the runs distinct file "
        "names, or read each folder with its own side table")
    # a metric in the side table is named with the side table (it was "column time: ..." of no file)
    timed = write(tmp_path / "timed.csv", "file,n,time\na.stat,100,1\nb.stat,200,1\nc.stat,300,1\n")
    assert error_of(pp.read_dag_recorder, str(tmp_path / "*.stat"), side_table=timed) == (
        f"{timed}, line 1, column time: 'time' is a metric, measured in each .stat file: a side table gives the "
        "files' parameters (n, p, configuration)")
    # a split column labels the files' runs, as a CSV's does (it was 'not a number'), and is no parameter
    labelled = write(tmp_path / "labelled.csv", "file,n,split\na.stat,100,train\nb.stat,200,train\nc.stat,300,test\n")
    m = pp.read_dag_recorder(str(tmp_path / "*.stat"), side_table=labelled)
    assert m.params == ["n", "p"] and m.frame["split"].tolist() == ["train", "train", "test"]
    assert m.select(split="train").frame["n"].tolist() == [100, 200]
    # a row naming no file read (a typo: d.stat for c.stat) is said, not passed over
    typo = write(tmp_path / "typo.csv", "file,n\na.stat,100\nb.stat,200\nc.stat,300\nd.stat,400\n")
    with pytest.warns(UserWarning, match=rf"^the side table {re.escape(str(typo))} has 1 row\(s\) for files not "
                                         r"read: d\.stat \(a misspelt file name\?\)$"):
        assert pp.read_dag_recorder(str(tmp_path / "*.stat"), side_table=typo).frame["n"].tolist() == [100, 200, 300]


def test_stat_p_must_agree(tmp_path):
    path = write(tmp_path / "run.stat", stat_text())
    assert error_of(pp.read_dag_recorder, path, params={"p": 3}) == (
        f"{path}, line 8, column p: n_workers (P) is 2 but the parameters give p=3"
    )


def test_stat_truncated(tmp_path):
    # six lines: the error names the last, not a seventh that is not there
    path = write(tmp_path / "run.stat", "".join(stat_text().splitlines(True)[:6]))
    assert error_of(pp.read_dag_recorder, path) == (
        f"{path}, line 6, column critical_path: the file is truncated or not a DAG Recorder "
        f".stat file: field 'critical_path (T_inf)' is missing (and 2 more)"
    )


def test_stat_field_not_a_number(tmp_path):
    path = write(tmp_path / "run.stat", stat_text().replace("= 30", "= 3O"))
    assert error_of(pp.read_dag_recorder, path) == (
        f"{path}, line 5, column delay: field 'delay': value '3O' is not a number"
    )
    path = write(tmp_path / "run.stat", stat_text().replace("= 70", "="))
    assert "line 9, column time: field 'elapsed': no value" in error_of(pp.read_dag_recorder, path)


def test_stat_negative_and_identity_are_located(tmp_path):
    path = write(tmp_path / "run.stat", stat_text(no_work=-10))
    assert error_of(pp.read_dag_recorder, path) == f"{path}, line 6, column no_work: negative value -10"
    path = write(tmp_path / "run.stat", stat_text(no_work=12))
    with pytest.warns(IdentityWarning, match=f"{path}, line 9, column time"):
        pp.read_dag_recorder(path)
    assert error_of(pp.read_dag_recorder, path, strict=True).startswith(f"{path}, line 9, column time:")


def test_glob_matching_nothing(tmp_path):
    pattern = str(tmp_path / "*.stat")
    assert error_of(pp.read_dag_recorder, pattern) == f"{pattern}: no files match this pattern"
    assert error_of(pp.read, str(tmp_path / "*.csv")).endswith("no files match this pattern")


def test_pattern_mismatch(tmp_path):
    path = write(tmp_path / "run.stat", stat_text())
    assert "does not match the pattern" in error_of(pp.read_dag_recorder, path, pattern="sort_n{n}.stat")


def test_a_pattern_with_a_brace_outside_a_field_is_refused(tmp_path):
    """{} and {n:d} are no fields: they could only never match, said as 'does not match'."""
    path = write(tmp_path / "sort_n64_p2.stat", stat_text())
    for pattern in ("sort_n{}_p{p}.stat", "sort_n{n:d}_p{p}.stat", "sort_n{n}_p{p}.stat{"):
        assert error_of(pp.read_dag_recorder, path, pattern=pattern) == (
            f"the pattern {pattern!r} has a brace outside a field: a field is {{name}}, a name of letters, digits and _")
    assert len(pp.read_dag_recorder(path, pattern="sort_n{n}_p{p}.stat")) == 1


def test_a_pattern_field_n_in_capitals_is_refused_where_no_size_is_given(tmp_path):
    # {N} would make a parameter N, and the missing n would surface only at fit; an N
    # beside an n given otherwise is a parameter of its own (a node count), and {P} is
    # harmless (p is the file's n_workers)
    path = write(tmp_path / "sort_n64_p2.stat", stat_text())
    assert error_of(pp.read_dag_recorder, path, pattern="sort_n{N}_p{p}.stat") == (
        "field {N} of the pattern 'sort_n{N}_p{p}.stat' gives no size n (names are case-sensitive): write {n}, "
        "or give n with params")
    nodes = pp.read_dag_recorder(path, pattern="sort_n{N}_p{p}.stat", params={"n": 1000}, config=["N"]).frame
    assert nodes[["n", "N"]].values.tolist() == [[1000, 64]]
    assert pp.read_dag_recorder(path, pattern="sort_n{n}_p{P}.stat").frame[["n", "p"]].values.tolist() == [[64, 2]]


# -- CSV -------------------------------------------------------------------------------

TRICKY = [5e-324, 2.2250738585072014e-308, 0.1 + 0.2, 1 / 3, 1.7976931348623157e308, 123456789.0]


def test_csv_round_trip_is_bit_exact(tmp_path):
    m = Measurements({"n": [2**40 + 1] * 6, "p": [1, 2, 3, 4, 5, 6], "time": TRICKY,
                      "serial_time": [1.0, None, 3.0, None, None, 2.5]})
    out = pp.write(m, tmp_path / "m.csv")
    back = pp.read(out)
    assert back.frame["time"].tolist() == TRICKY
    assert back.frame["n"].tolist() == [2**40 + 1] * 6
    assert back.frame["serial_time"].isna().tolist() == [False, True, False, True, True, False]
    lines = (tmp_path / "m.csv").read_text().splitlines()
    assert lines[:3] == ["n,p,time,serial_time", "1099511627777,1,5e-324,1.0",
                         "1099511627777,2,2.2250738585072014e-308,"]


def test_csv_line_numbers_count_blank_lines(tmp_path):
    path = write(tmp_path / "r.csv", "n,p,time\n10,1,1.0\n\n20,1,-2.0\n")
    assert error_of(read_csv, path) == f"{path}, line 4, column time: negative value -2.0"


def test_extrap_text_takes_a_tab_after_a_keyword_and_writes_only_what_it_reads_back(tmp_path):
    # helper-69: "PARAMETER\tn" was an unknown keyword; a region with a carriage return
    # was written into a file that could not be read back
    path = write(tmp_path / "e.txt", "PARAMETER\tp\nPOINTS\t1 2 4\nREGION\tr\nMETRIC\ttime\nDATA\t4.0\nDATA 2.0\nDATA 1.0\n")
    assert pp.read_extrap(path).frame.values.tolist() == [[1, 4.0], [2, 2.0], [4, 1.0]]
    m = pp.Measurements({"n": [1, 2, 4], "p": [1, 1, 1], "time": [1.0, 2.0, 4.0]})
    for region in ("main\rDATA 1", "main\u2028x"):
        assert error_of(pp.write_extrap, m, tmp_path / "out.txt", region=region) == (
            f"{tmp_path / 'out.txt'}: region and metric names must be non-empty single lines")
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("n,p,time,n\n1,1,1.0,1\n", "line 1, column n: duplicate column 'n' in the header"),
        ("n,time\n1,1.0\n", "line 1, column p: required parameter column 'p' is missing"),
        ("n,p,time,speed\n1,1,1.0,2\n", "line 1, column speed: unknown column 'speed'"),
        ("n,p,time\n1,1,1.0\n2,1,nan\n", "line 3, column time: value is NaN (leave the cell empty for a missing value)"),
        ("n,p,time\n1,1,1.0\n2,1,inf\n", "line 3, column time: value is infinite"),
        ("n,p,time\n1,1,1.0\n2,x,2.0\n", "line 3, column p: value 'x' is not a number"),
        ("n,p,time\n1,1.5,1.0\n", "line 2, column p: p must be a positive integer, got 1.5"),
        ("n,p,time\n1,1,1.0\n2,1\n", "line 3: 2 fields, but the header has 3"),
        ("n,p,time\n", "line 2: no data rows after the header"),
        ("", "line 1: the file is empty"),
    ],
)
def test_csv_errors(tmp_path, text, expected):
    path = write(tmp_path / "r.csv", text)
    assert error_of(read_csv, path).startswith(f"{path}, {expected}")


def test_csv_config_and_params(tmp_path):
    path = write(tmp_path / "r.csv", "n,cutoff,time\n1,8,1.0\n")
    m = read_csv(path, config=["cutoff"], params={"p": 4})
    assert m.params == ["n", "p", "cutoff"]
    assert m.frame["p"].tolist() == [4]
    assert "also a column" in error_of(read_csv, write(tmp_path / "s.csv", "n,p,time\n1,1,1\n"), params={"p": 4})
    # one name alone is one parameter, as Measurements takes it (helper-77: pp.read split
    # "cutoff" into letters and failed with an internal TypeError)
    path = write(tmp_path / "c.csv", "n,p,cutoff,time\n1,1,8,1.0\n")
    for reader in (read_csv, pp.read):
        assert reader(path, config="cutoff").params == ["n", "p", "cutoff"]
    with pytest.raises(TypeError, match="config takes the names of the configuration columns"):
        pp.read(path, config=8)


# -- JSON lines and Parquet --------------------------------------------------------


def test_jsonl_round_trip_and_errors(tmp_path):
    m = Measurements({"n": [3, 5], "p": [1, 2], "time": [TRICKY[0], TRICKY[4]],
                      "work": [1.5, None], "split": ["train", "test"]})
    back = read_jsonl(pp.write(m, tmp_path / "m.jsonl"))
    assert back.frame["time"].tolist() == [TRICKY[0], TRICKY[4]]
    assert back.frame["split"].tolist() == ["train", "test"]
    assert math.isnan(back.frame["work"].iloc[1])
    cases = [
        ('{"n": 1, "p": 1, "time": 1.0}\n{"n": 2, "p": 1, "time": NaN}\n', "line 2, column time: value is NaN (write null for a missing value)"),
        ('{"n": 1, "p": 1, "time": 1.0, "p": 2}\n', "line 1, column p: duplicate key 'p'"),
        ('{"n": 1, "p": true, "time": 1.0}\n', "line 1, column p: value is a boolean (true or false), not a number"),
        # an object or array in a cell, as the file spells it (not Python's {'s': 1})
        ('{"n": 1, "p": 1, "time": {"s": 1}}\n', 'line 1, column time: value {"s": 1} is a JSON object, not a number'),
        ('{"n": 1, "p": [1, "x"], "time": 1.0}\n', 'line 1, column p: value [1, "x"] is a JSON array, not a number'),
        ('{"n": 1, "p": 1, "time": 1.0}\n\n[1]\n', "line 3: expected a JSON object"),
        ('{"n": 1, "time": 1.0}\n', "line 1, column p: required parameter column 'p' is missing"),
        ('{"n": 1, "p": 1, "time": 1.0}\n{"n": 1, "time": 1.0}\n', "line 2, column p: missing value (NaN)"),
        # a key first seen on a later record is named there, not at line 1 (which lacks it)
        ('{"n": 1, "p": 1, "time": 1.0}\n\n{"n": 2, "p": 1, "time": 2.0, "blocks": 4}\n',
         "line 3, column blocks: unknown column 'blocks'"),
    ]
    for text, expected in cases:
        path = write(tmp_path / "bad.jsonl", text)
        assert error_of(read_jsonl, path).startswith(f"{path}, {expected}")


def test_parquet_keeps_unit_clock_and_config(tmp_path):
    m = Measurements({"n": [1, 2], "p": [1, 1], "cutoff": [4, 8], "time": [10, 20]},
                     config=["cutoff"], unit="cycles", clock_hz=3e9)
    back = read_parquet(pp.write(m, tmp_path / "m.parquet"))
    assert (back.unit, back.clock_hz, back.config) == ("cycles", 3e9, ["cutoff"])
    pd.testing.assert_frame_equal(back.frame, m.frame)
    assert read_parquet(tmp_path / "m.parquet", config=[]).config == ["cutoff"]
    # a rate given wins over the recorded one, but with a word (a slip rescales every time)
    with pytest.warns(UserWarning, match=r"m\.parquet: the file records a clock rate of 3e\+09 Hz; the rate given, "
                                         r"2e\+09 Hz, replaces it$"):
        assert read_parquet(tmp_path / "m.parquet", clock_hz=2e9).in_seconds().frame["time"].tolist() == [5e-9, 1e-8]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same rate again says nothing
        assert read_parquet(tmp_path / "m.parquet", clock_hz=3e9).clock_hz == 3e9


def test_parquet_nan_is_an_error_null_is_missing(tmp_path):
    path = tmp_path / "m.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    # pandas would store NaN as null; write a real IEEE NaN with pyarrow.
    time = pa.array([1.0, float("nan"), None], type=pa.float64())
    pq.write_table(pa.table({"n": [1, 2, 3], "p": [1, 1, 1], "time": time}), path)
    assert error_of(read_parquet, path) == f"{path}, column time: 2nd row: value is NaN (write null for a missing value)"
    pq.write_table(pa.table({"n": [1, 3], "p": [1, 1], "time": pa.array([1.0, None])}), path)
    assert read_parquet(path).frame["time"].isna().tolist() == [False, True]
    write(path, "")
    assert error_of(read_parquet, path) == f"{path}: the file is empty"


# -- Extra-P text ------------------------------------------------------------------


def test_read_extrap_two_parameters(tmp_path):
    path = write(tmp_path / "e.txt", (
        "# comment\n"
        "PARAMETER n\nPARAMETER p\n\n"
        "POINTS ( 64 2 ) ( 128 4 )\n"
        "REGION main\nMETRIC time\n"
        "DATA 1.5 1.25 1.75\nDATA 3.0 2.5\n"
    ))
    m = pp.read_extrap(path)
    assert m.frame.values.tolist() == [[64, 2, 1.5], [64, 2, 1.25], [64, 2, 1.75], [128, 4, 3.0], [128, 4, 2.5]]


def test_read_extrap_one_parameter_chooses_time(tmp_path):
    path = write(tmp_path / "e.txt", (
        "PARAMETER p\nPOINTS 1 2 4\nREGION r\nMETRIC visits\nDATA 5\nDATA 5\nDATA 5\n"
        "METRIC time\nDATA 4.0\nDATA 2.0\nDATA 1.0\n"
    ))
    # the block left out is said (convert wrote the time alone without a word: bug hunt)
    with pytest.warns(UserWarning, match=r"e\.txt: read metric 'time'; the file's other block is left out "
                                         r"\(region 'r' metric 'visits'\): keep one metric per file"):
        m = pp.read_extrap(path)
    assert m.frame.values.tolist() == [[1, 4.0], [2, 2.0], [4, 1.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a block chosen by name: nothing left out unasked
        assert pp.read_extrap(path, metric="visits").frame["time"].tolist() == [5, 5, 5]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("PARAMETER p\nPOINTS 1 2\nMETRIC time\nDATA 1.0\n", "line 4, column time: 1 DATA lines for 2 POINTS"),
        ("PARAMETER p\nPOINTS 1\nMETRIC time\nDATA 1.0 x\n", "line 4, column time: value 'x' is not a number"),
        ("PARAMETER p\nPOINTS 1\nMETRIC time\nDATA -1.0\n", "line 4, column time: negative value -1.0"),
        # a parameter's value is named at its POINTS line, its name at its PARAMETER line (they
        # were named at the DATA line and at the first PARAMETER line: bug hunt)
        ("PARAMETER p\nPOINTS 1.5\nMETRIC time\nDATA 1.0\n", "line 2, column p: p must be a positive"),
        ("PARAMETER n\nPARAMETER p\nPOINTS (8 1)\nPOINTS (8 0)\nMETRIC time\nDATA 1.0\nDATA 2.0\n",
         "line 4, column p: p must be a positive integer, got 0"),
        ("PARAMETER n\nPARAMETER p\n\nPARAMETER level\nPOINTS (8 1 1)\nMETRIC time\nDATA 1.0\n",
         "line 4, column level: a parameter cannot be named 'level'"),
        ("PARAMETER n\nPOINTS 1\nMETRIC time\nDATA 1.0\n", "line 1, column p: required parameter"),
        ("PARAMETER p\nPOINTS 1\nMETRIK time\n", "line 3: unknown keyword 'METRIK'"),
        ("PARAMETER n p\nPOINTS 1 2\n", "line 2: POINTS: 2 parameters need (x y ...) groups"),
    ],
)
def test_extrap_errors(tmp_path, text, expected):
    path = write(tmp_path / "e.txt", text)
    assert error_of(pp.read_extrap, path).startswith(f"{path}, {expected}")


def test_extrap_round_trip_with_config(tmp_path):
    m = Measurements({"n": [8, 8, 16, 8], "p": [1, 1, 2, 1], "cutoff": [4, 4, 4, 4],
                      "time": TRICKY[:4]}, config=["cutoff"])
    back = pp.read(pp.write(m, tmp_path / "m.extrap"))
    assert back.params == ["n", "p", "cutoff"]
    # Extra-P groups repetitions by point: rows 0, 1, 3 then row 2.
    assert back.frame.values.tolist() == m.frame.iloc[[0, 1, 3, 2]].values.tolist()


def test_extrap_writer_refuses_to_lose_data(tmp_path):
    m = Measurements({"n": [1], "p": [1], "time": [1.0], "work": [1.0]})
    assert "also has work" in error_of(pp.write, m, tmp_path / "m.txt")
    assert list(tmp_path.iterdir()) == []
    wide = Measurements({"n": [1], "p": [1], "a": [1], "b": [1], "c": [1], "time": [1.0]},
                        config=["a", "b", "c"])
    assert "at most 4 parameters" in error_of(pp.write_extrap, wide, tmp_path / "m.txt")
    pp.write_extrap(m, tmp_path / "w.txt", metric="work")
    assert pp.read(tmp_path / "w.txt").frame["work"].tolist() == [1.0]


# -- dispatch and atomic writes ---------------------------------------------------------


def test_unknown_suffix(tmp_path):
    assert error_of(pp.read, tmp_path / "m.xlsx").endswith("unknown file type '.xlsx'; use one of "
                                                             ".csv, .parquet, .jsonl, .stat, .txt, .extrap")


def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    target = write(tmp_path / "m.csv", "old\n")
    m = Measurements({"n": [1], "p": [1], "time": [1.0]})

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr("probperf.formats.os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        pp.write(m, target)
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["m.csv"]


def test_read_many_csv_files_concatenates(tmp_path):
    write(tmp_path / "a.csv", "n,p,time\n1,1,1.0\n")
    write(tmp_path / "b.csv", "n,p,time\n2,1,2.0\n")
    assert pp.read(str(tmp_path / "*.csv")).frame["time"].tolist() == [1.0, 2.0]


def test_options_that_do_not_apply_are_rejected(tmp_path):
    path = write(tmp_path / "a.csv", "n,p,time\n1,1,1.0\n")
    assert error_of(pp.read, path, pattern="a{n}.csv") == (
        f"{path}: option 'pattern' does not apply to csv files "
        f"(it takes clock_hz, config, params, strict, unit)"
    )


def test_underscored_numbers_are_not_numbers(tmp_path):
    path = write(tmp_path / "a.csv", "n,p,time\n1_000,1,1.0\n")
    assert error_of(pp.read, path) == f"{path}, line 2, column n: value '1_000' is not a number"


def test_parquet_decimal_columns_are_numbers(tmp_path):
    """A database's or Spark's export stores DECIMAL columns: whole ones are read as
    integers, the others as floats, and checked as any number."""
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "m.parquet"
    D = decimal.Decimal
    pq.write_table(pa.table({
        "n": pa.array([D(10), D(20)], pa.decimal128(10, 0)), "p": [1, 1],
        "time": pa.array([D("1.50"), None], pa.decimal128(5, 2)),
    }), path)
    frame = read_parquet(path).frame
    assert frame["n"].tolist() == [10, 20] and frame["n"].dtype == np.int64
    assert frame["time"].tolist()[0] == 1.5 and math.isnan(frame["time"].tolist()[1])
    pq.write_table(pa.table({"n": [10], "p": [1], "time": pa.array([D("-1.5")], pa.decimal128(5, 2))}), path)
    assert error_of(read_parquet, path) == f"{path}, column time: 1st row: negative value -1.5"


def test_a_file_not_in_utf8_names_the_line_of_its_first_such_byte(tmp_path):
    # past the first 64 KiB the decoder reads, so the line is counted over chunks
    path = tmp_path / "a.csv"
    path.write_bytes(b"n,p,time\n" + b"1,1,1.0\n" * 20000 + b"2,1,2.0 \xe9\n")
    assert error_of(pp.read, path) == f"{path}, line 20002: not UTF-8 text (byte 0xe9); save the file as UTF-8"
    # a character cut short at the end of the file
    path.write_bytes(b"n,p,time\n1,1,1.0\n\xe2\x82")
    assert error_of(pp.read, path) == f"{path}, line 3: not UTF-8 text (byte 0xe2); save the file as UTF-8"
    # lines end at \r too (an old Mac's files), as the reader counts them; a \r\n cut by
    # the 64 KiB chunk edge is one line end, a lone \r there is one too
    path.write_bytes(b"n,p,time\r1,1,1.0\r2,1,\xb5\r")
    assert error_of(pp.read, path) == f"{path}, line 3: not UTF-8 text (byte 0xb5); save the file as UTF-8"
    for edge in (b"\r\n", b"\r"):
        path.write_bytes(b"a" * ((1 << 16) - 1) + edge + b"b\xb5")
        assert error_of(pp.read, path) == f"{path}, line 2: not UTF-8 text (byte 0xb5); save the file as UTF-8"


def test_a_directory_is_named_as_one_whatever_its_name(tmp_path):
    (tmp_path / "runs").mkdir()
    assert error_of(pp.read, tmp_path / "runs") == f"{tmp_path / 'runs'}: is a directory, not a file"


def test_a_file_given_twice_is_refused(tmp_path):
    path = write(tmp_path / "a.csv", "n,p,time\n1,1,1.0\n")
    write(tmp_path / "b.csv", "n,p,time\n2,1,2.0\n")
    assert error_of(pp.read, [str(tmp_path / "*.csv"), path]) == (
        f"{path}: the file is given twice; give each file once")
    other = f"{tmp_path}/./a.csv"  # one file by two paths
    assert error_of(pp.read, [path, other]) == f"{other}: the file is given twice (as {path}); give each file once"


def test_a_bad_constant_parameter_is_named_as_given_not_as_a_line(tmp_path):
    """n=0 or p=1.5 given as a constant is in no line of the file: the error says so."""
    path = tmp_path / "runs.csv"
    write(path, "p,time\n1,1.0\n2,0.6\n")
    assert error_of(read_csv, path, params={"n": 0}) == (
        f"{path}: n=0 given as a constant (--param, params=): problem size n must be positive")
    write(path, "n,time\n10,1.0\n20,0.6\n")
    assert error_of(read_csv, path, params={"p": 1.5}) == (
        f"{path}: p=1.5 given as a constant (--param, params=): p must be a positive integer, got 1.5")
    write(path, "n,p,time\n10,1,1.0\n20,2,0.6\n")
    assert error_of(read_csv, path, params={"work": 3}) == (
        f"{path}: work=3 given as a constant (--param, params=): work is a metric, measured per run, not a parameter")


def test_a_table_whose_metrics_are_all_empty_is_refused(tmp_path):
    """Headers without a single measured value: refused at the header line (validate
    passed it, and doctor then said there was no time column)."""
    path = tmp_path / "runs.csv"
    write(path, "n,p,time\n10,1,\n20,1,\n")
    assert error_of(read_csv, path) == (
        f"{path}, line 1, column time: no run has a value in the metric column time: nothing was measured")


def test_read_and_write_say_what_they_take_and_what_a_format_loses(tmp_path):
    """A DataFrame handed to read or write is named as such; a table of cycle counts
    written where no unit is recorded says so (read back, it would pass for seconds)."""
    frame = pd.DataFrame({"n": [1], "p": [1], "time": [2e9]})
    with pytest.raises(TypeError, match="got DataFrame: a table in memory is pp.Measurements"):
        pp.read(frame)
    with pytest.raises(TypeError, match="write takes a probperf Measurements table, got DataFrame"):
        pp.write(frame, tmp_path / "x.csv")
    cycles = Measurements(frame, unit="cycles", clock_hz=2e9)
    with pytest.warns(UserWarning, match=r"times are in clock cycles; this format does not record the unit or the "
                                         r"clock rate \(Parquet does\): read it back with unit='cycles', "
                                         r"clock_hz=2e\+09 \(--unit cycles --clock-hz 2e\+09\)$"):
        pp.write(cycles, tmp_path / "c.csv")
    # a declared configuration column: read back undeclared, it would be refused as unknown
    hosts = Measurements({"n": [1], "p": [1], "nnodes": [2], "time": [1.0]}, config=["nnodes"])
    with pytest.warns(UserWarning, match=r"^this format does not record the configuration parameters \(Parquet "
                                         r"does\): read it back with config=\['nnodes'\] \(--config nnodes\)$"):
        pp.write(hosts, tmp_path / "h.jsonl")
    assert pp.read(tmp_path / "h.jsonl", config=["nnodes"]).params == ["n", "p", "nnodes"]
    spaced = Measurements({"n": [1], "p": [1], "ranks per node": [2], "time": [1.0]}, config=["ranks per node"])
    with pytest.warns(UserWarning, match=r"\(--config 'ranks per node'\)$"):  # one word to a shell
        pp.write(spaced, tmp_path / "s.jsonl")
    with warnings.catch_warnings():  # a simulated program's parameters read back undeclared
        warnings.simplefilter("error")
        pp.write(Measurements({"n": [1], "p": [1], "cutoff": [4], "time": [1.0]}, config=["cutoff"]),
                 tmp_path / "sim.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pp.write(cycles, tmp_path / "c.parquet")
    assert pp.read(tmp_path / "c.parquet").unit == "cycles"


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_missing_split_label_is_written_back_missing(tmp_path, suffix):
    """A null label was written back as the text 'nan' (then a label of its own) or
    refused by JSON ('Out of range float values')."""
    src = tmp_path / "in.jsonl"
    src.write_text('{"n":1,"p":1,"time":1,"split":null}\n{"n":2,"p":1,"time":1,"split":"train"}\n')
    out = tmp_path / f"out{suffix}"
    pp.write(pp.read(src), out)
    first, second = pp.read(out).frame["split"]
    assert (pd.isna(first) or first == "") and second == "train"  # a CSV's empty cell reads as ''

    assert "nan" not in out.read_text()


def test_pandas_row_labels_saved_in_parquet_are_not_a_column(tmp_path):
    """df[df.p > 1].to_parquet(path) saves the row labels as '__index_level_0__', once
    refused as an unknown column; a named index (set_index('n')) is data and kept."""
    frame = pd.DataFrame({"n": [10, 20, 40, 80], "p": [1, 2, 2, 2], "time": [1.0, 1.1, 2.0, 4.1]})
    frame[frame.p > 1].to_parquet(tmp_path / "cut.parquet")
    cut = pp.read(tmp_path / "cut.parquet")
    assert cut.frame.columns.tolist() == ["n", "p", "time"] and cut.frame["n"].tolist() == [20, 40, 80]
    frame.set_index("n").to_parquet(tmp_path / "named.parquet")
    assert pp.read(tmp_path / "named.parquet").frame["n"].tolist() == [10, 20, 40, 80]


def test_extrap_text_is_split_at_newlines_only(tmp_path):
    """A comment holding U+2028 (a line separator to str.splitlines) once made its rest
    a line of its own: 'line 2: DATA before any METRIC line', of a valid file."""
    path = tmp_path / "runs.txt"
    path.write_text("# comment \u2028 DATA 5\nPARAMETER n\nPARAMETER p\nPOINTS (1 1) (2 1) (4 2)\nREGION main\n"
                    "METRIC time\nDATA 1\nDATA 2\nDATA 3\n", encoding="utf-8")
    assert pp.read(path).frame[["n", "p", "time"]].values.tolist() == [[1, 1, 1], [2, 1, 2], [4, 2, 3]]
