"""Measurements: validation with located errors, the identity, and the table methods."""

import warnings

import numpy as np
import pandas as pd
import pytest

import probperf as pp
from probperf.data import (
    IdentityWarning,
    Location,
    MeasurementError,
    Measurements,
    as_points,
    identity_residual,
    validate_frame,
)


def table(**cols):
    base = {"n": [10, 10, 20, 20], "p": [1, 2, 1, 2], "time": [4.0, 2.5, 8.0, 4.5]}
    base.update(cols)
    return pd.DataFrame(base)


CSV_LOC = Location("runs.csv", first_line=2, header_line=1)


# -- validation --------------------------------------------------------------------


def test_dtypes_and_views():
    m = Measurements(table(), source="runs.csv")
    assert m.params == ["n", "p"]
    assert m.metrics == ["time"]
    assert m.frame["p"].dtype == np.int64
    assert m.ranges() == {"n": (10, 20, 2), "p": (1, 2, 2)}


def test_n_is_optional_p_is_not():
    m = Measurements({"p": [4], "time": [1.0]})
    assert m.params == ["p"]
    with pytest.raises(MeasurementError) as e:
        validate_frame(pd.DataFrame({"n": [1], "time": [1.0]}), location=CSV_LOC)
    assert str(e.value) == "runs.csv, line 1, column p: required parameter column 'p' is missing"
    # the workers under another name: the columns that could be it are named
    with pytest.raises(MeasurementError) as e:
        validate_frame(pd.DataFrame({"size": [1], "threads": [2], "time": [1.0]}), location=CSV_LOC)
    assert str(e.value) == ("runs.csv, line 1, column p: required parameter column 'p' is missing (the number of "
                            "workers: name that column p; the file's other columns are size, threads)")


@pytest.mark.parametrize(
    "cols, expected",
    [
        ({"cutoff": [1, 1, 1, 1]}, "runs.csv, line 1, column cutoff: unknown column 'cutoff'"),
        # advice to declare it would be refused (bug hunt): renaming is what helps
        ({"block size ": [1, 1, 1, 1]}, "runs.csv, line 1, column block size : unknown column 'block size ', and no "
         "parameter can take that name (it goes into NAME=VALUE lists such as --at: no '=', ',' or surrounding "
         "spaces); rename the column, e.g. 'block size'"),
        ({"p ": [1, 1, 1, 1]}, "runs.csv, line 1, column p : unknown column 'p ', and no parameter can take that "
         "name (it goes into NAME=VALUE lists such as --at: no '=', ',' or surrounding spaces); rename the column"),
        ({"time": [4.0, -2.5, 8.0, 4.5]}, "runs.csv, line 3, column time: negative value -2.5"),
        ({"p": [1, 2, 2.5, 2]}, "runs.csv, line 4, column p: p must be a positive integer, got 2.5"),
        ({"p": [1, 0, 1, 2]}, "runs.csv, line 3, column p: p must be a positive integer, got 0"),
        ({"n": [10, np.nan, 20, 20]}, "runs.csv, line 3, column n: missing value (NaN)"),
        ({"time": [4.0, "fast", 8.0, 4.5]}, "runs.csv, line 3, column time: value 'fast' is not"),
        ({"time": [4.0, np.inf, 8.0, 4.5]}, "runs.csv, line 3, column time: value is infinite"),
        ({"n": [10, 0, 20, 20]}, "runs.csv, line 3, column n: problem size n must be positive"),
    ],
)
def test_bad_values_are_located(cols, expected):
    with pytest.raises(MeasurementError) as e:
        validate_frame(table(**cols), location=CSV_LOC)
    assert str(e.value).startswith(expected)


def test_config_must_be_declared_and_present():
    m = Measurements(table(cutoff=[8, 8, 16, 16]), config=["cutoff"])
    assert m.params == ["n", "p", "cutoff"]
    with pytest.raises(MeasurementError, match="column block: declared configuration"):
        Measurements(table(), config=["block"])


def test_blank_metric_cells_are_missing_values():
    m = Measurements(table(serial_time=[3.0, np.nan, 7.0, np.nan]))
    assert m.metrics == ["time", "serial_time"]
    assert not m.has("serial_time")
    with pytest.raises(MeasurementError, match="2nd row: metric 'serial_time' is needed but missing"):
        m.y("serial_time")


def test_no_metric_and_no_rows():
    with pytest.raises(MeasurementError, match="no metric column"):
        Measurements({"n": [1], "p": [1]})
    with pytest.raises(MeasurementError, match="no rows"):
        Measurements(pd.DataFrame({"n": [], "p": [], "time": []}))


def test_location_variants():
    assert str(Location("a.csv", row_lines=[2, 5]).error("bad", 1, "n")) == "a.csv, line 5, column n: bad"
    assert str(Location("a.parquet").error("bad", 3, "n")) == "a.parquet, column n: 4th row: bad"
    many = Location(row_sources=["x.stat", "y.stat"], column_lines={"time": [9, 9]})
    assert str(many.error("bad", 1, "time")) == "y.stat, line 9, column time: bad"
    assert str(many.error("bad", 1, "n")) == "y.stat, column n: bad"


# -- the identity work + delay + no_work = p * time --------------------------------


def dag_table(**over):
    cols = {"p": [4], "time": [2589040638], "work": [1313026836], "delay": [9031849743],
            "no_work": [11285973]}
    cols.update(over)
    return pd.DataFrame(cols)


def test_identity_exact_on_real_counts():
    assert identity_residual(dag_table()).tolist() == [0.0]


def test_identity_exact_beyond_float_precision():
    # work = 2**53 + 1 is not a float; summing as floats would give -2 / 2**53.
    df = dag_table(p=[1], time=[2**53 + 2], work=[2**53 + 1], delay=[1], no_work=[0])
    assert identity_residual(df).tolist() == [0.0]
    df = dag_table(p=[1], time=[2**53 + 2], work=[2**53 + 1], delay=[2], no_work=[0])
    assert identity_residual(df).tolist() == [1 / (2**53 + 2)]


def test_identity_warns_by_default_and_raises_when_strict():
    # 1 % too much delay: residual 0.09031849743 / 10.35616... relative
    bad = dag_table(delay=[9031849743 + 103561625])
    with pytest.warns(IdentityWarning, match=r"line 3, column time: .*\+1\.000%") as caught:
        validate_frame(bad, location=Location("r.csv", first_line=3))
    assert {w.filename for w in caught} == {__file__}  # the caller's line, not data.py's
    with pytest.warns(IdentityWarning) as caught:
        Measurements(bad)  # through the constructor: still this file
    assert {w.filename for w in caught} == {__file__}
    with pytest.raises(MeasurementError, match=r"r.csv, line 3, column time: .*\+1\.000%"):
        validate_frame(bad, location=Location("r.csv", first_line=3), strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate_frame(dag_table(delay=[9031849743 + 1000]))  # 1e-7 relative: within tolerance


# -- table methods -------------------------------------------------------------------


def test_select_by_split_and_ranges():
    m = Measurements(table(split=["train", "train", "test", "test"]))
    assert m.select(split="test").frame["time"].tolist() == [8.0, 4.5]
    assert m.select(n=(None, 10)).frame["p"].tolist() == [1, 2]
    assert m.select(p=[2], n=(15, None)).frame["time"].tolist() == [4.5]
    with pytest.raises(MeasurementError, match="no rows match"):
        m.select(n=(30, None))
    with pytest.raises(MeasurementError, match="column 'cutoff'"):
        m.select(cutoff=3)


def test_aggregate_keeps_the_spread():
    m = Measurements({"n": [10, 10, 10, 20], "p": [1, 1, 1, 1], "time": [1.0, 2.0, 6.0, 5.0]})
    mean = m.aggregate("mean").frame
    assert mean["time"].tolist() == [3.0, 5.0]
    assert mean["reps"].tolist() == [3, 1]
    assert mean["time_std"].tolist() == [np.sqrt(7.0), 0.0]  # (4 + 1 + 9) / 2
    assert m.aggregate("median").frame["time"].tolist() == [2.0, 5.0]
    assert m.aggregate("min").frame["time"].tolist() == [1.0, 5.0]
    with pytest.raises(ValueError):
        m.aggregate("max")


def test_in_seconds_and_concat():
    m = Measurements(dag_table(n=[100]), unit="cycles", clock_hz=2e9)
    s = m.in_seconds()
    assert s.unit == "s" and s.frame["time"].tolist() == [2589040638 / 2e9]
    assert s.frame["create_task" if "create_task" in s.frame else "p"].tolist() == [4]
    with pytest.raises(MeasurementError, match="no clock_hz"):
        Measurements(dag_table(), unit="cycles").in_seconds()
    both = m.concat(m)
    assert len(both) == 2
    with pytest.raises(MeasurementError, match="its times are in s, those of .* in cycles: tables read together must have the same unit"):
        m.concat(s)


def test_times_below_one_cycle_are_said_to_look_like_seconds(tmp_path):
    # no run takes less than a clock cycle: times of 1e-4 "cycles" are seconds read with --unit cycles
    path = tmp_path / "runs.csv"
    path.write_text("n,p,time\n100,1,2.5e9\n200,1,1.2e-4\n400,1,2.4e-4\n")
    with pytest.warns(UserWarning) as caught:
        pp.read(path, unit="cycles")
    assert [str(w.message) for w in caught] == [
        f"{path}, line 3, column time: time is 0.00012 cycles, less than one clock cycle, in 2 of 3 runs: are the "
        "times in seconds? (then the unit is s, not cycles)"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pp.read(path)  # in seconds: nothing to say
        Measurements({"n": [1], "p": [1], "time": [2e9]}, unit="cycles")


def test_arrays_for_models():
    m = Measurements(table())
    assert m.X().tolist() == [[10, 1], [10, 2], [20, 1], [20, 2]]
    assert m.y("time").dtype == np.float64
    X, y = m.to_torch("time", ["p"])
    assert X.shape == (4, 1) and y.tolist() == [4.0, 2.5, 8.0, 4.5]
    assert m.points().columns.tolist() == ["n", "p"]
    w = m.with_columns(work=[4.0, 5.0, 8.0, 9.0])
    assert w.metrics == ["time", "work"]
    with pytest.raises(MeasurementError, match="negative"):
        m.with_columns(work=[-1.0, 5.0, 8.0, 9.0])
    with pytest.raises(ValueError, match="^with_columns: work has 1 values for 4 runs$"):
        m.with_columns(work=[4.0])
    assert m.with_columns(work=2.0).y("work").tolist() == [2.0] * 4  # a scalar is every run's
    with pytest.raises(TypeError, match="^config takes the names of the configuration columns .*, got 5$"):
        Measurements(table(), config=5)
    with pytest.raises(MeasurementError, match="column 'n'"):
        Measurements({"p": [1], "time": [1.0]}).X(["n", "p"])


def test_as_points():
    assert as_points({"n": [1, 2], "p": 3}).values.tolist() == [[1, 3], [2, 3]]
    assert as_points([[1, 2]]).columns.tolist() == ["n", "p"]
    with pytest.raises(ValueError, match="lack"):
        as_points({"n": 1}, features=["n", "p"])


def test_a_mapping_of_columns_is_checked_as_a_table_of_runs():
    with pytest.raises(MeasurementError, match="every column is a single value; give each as a list"):
        Measurements({"n": 10, "p": 1, "time": 1.0})
    with pytest.raises(MeasurementError, match=r"different lengths \(n: 2, p: 1, time: 2\)"):
        Measurements({"n": [1, 2], "p": [1], "time": [1.0, 2.0]})
    # one name is one configuration parameter, not one per letter
    m = Measurements({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0], "sched": [0, 0]}, config="sched")
    assert m.config == ["sched"]


@pytest.mark.parametrize("name", ["level", "median", "target", "unit", "beyond"])
def test_a_parameter_cannot_take_the_name_of_a_prediction_column(name, tmp_path):
    # a prediction's row holds its point's parameters and mean, median, lower, upper,
    # level, unit: a parameter of one of those names made two columns of one name
    frame = {"n": [1, 2, 4], "p": [1, 1, 1], name: [3, 3, 4], "time": [1.0, 2.0, 4.0]}
    message = f"a parameter cannot be named {name!r}: a prediction's row has a column of that name"
    with pytest.raises(MeasurementError, match=message):
        Measurements(frame, config=[name])
    path = tmp_path / "runs.csv"
    pd.DataFrame(frame).to_csv(path, index=False)
    with pytest.raises(MeasurementError, match=f"runs.csv, line 1, column {name}: " + message):
        pp.read(path, config=[name])



def test_tables_from_python_as_a_user_builds_them():
    """What a pandas user hands over: nullable columns (pd.NA is missing), a named
    index (a column set aside), a Series with its own index (taken by position); and
    what is refused: a path, a clock rate that is no positive number, tables whose
    clock rates differ. Configuration columns in another order are the same table."""
    nullable = pd.DataFrame({"n": pd.array([10, 20, 40], dtype="Int64"), "p": [1, 1, 1],
                             "time": pd.array([1.0, pd.NA, 4.0], dtype="Float64"),
                             "work": pd.array([1.0, 0.0, pd.NA], dtype="Float64")})
    m = Measurements(nullable)
    assert m.frame["time"].dtype == np.float64 and np.isnan(m.frame["time"][1]) and m.frame["work"][1] == 0.0
    indexed = Measurements(pd.DataFrame({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]}).set_index("n"))
    assert indexed.params == ["n", "p"] and indexed.frame["n"].tolist() == [1, 2]
    two = Measurements({"n": [1, 2], "p": [1, 1], "time": [1.0, 2.0]})
    assert two.with_columns(work=pd.Series([1.5, 2.5], index=[10, 11])).frame["work"].tolist() == [1.5, 2.5]
    with pytest.raises(TypeError, match="got the path 'runs.csv': read a file with pp.read"):
        Measurements("runs.csv")
    for bad in (float("inf"), True, "3e9", -1.0):
        with pytest.raises(MeasurementError, match="clock_hz must be"):
            Measurements({"p": [1], "time": [2e9]}, unit="cycles", clock_hz=bad)
    # a rate beside times in seconds would be kept and never used: refused, as the CLI refuses --clock-hz
    with pytest.raises(MeasurementError, match=r"^clock_hz applies to times in cycles \(unit='cycles'\), but unit is 's'$"):
        Measurements({"p": [1], "time": [2.0]}, clock_hz=2e9)
    a = Measurements({"n": [1], "p": [1], "time": [2e9]}, unit="cycles", clock_hz=2e9)
    with pytest.raises(MeasurementError, match=r"its clock rate \(4000000000.0 Hz\) is not that of the first table"):
        a.concat(Measurements({"n": [1], "p": [1], "time": [4e9]}, unit="cycles", clock_hz=4e9))
    ab = Measurements({"n": [1], "p": [1], "a": [1], "b": [2], "time": [1.0]}, config=["a", "b"])
    ba = Measurements({"n": [1], "p": [1], "a": [3], "b": [4], "time": [1.0]}, config=["b", "a"])
    assert ab.concat(ba).frame[["a", "b"]].values.tolist() == [[1, 2], [3, 4]]


def test_select_takes_a_range_a_list_or_a_series_of_values():
    m = Measurements({"n": [1, 2, 3, 4], "p": [1, 1, 1, 1], "time": [1.0, 2.0, 3.0, 4.0]})
    assert m.select(n=(2, 3)).frame["n"].tolist() == [2, 3]
    assert m.select(n=pd.Series([1, 4], index=[7, 8])).frame["n"].tolist() == [1, 4]
    with pytest.raises(ValueError, match=r"a tuple selects a range \(low, high\); give several values as a list"):
        m.select(n=(1, 2, 3))


def test_a_bare_list_of_values_is_no_table():
    """pandas would make it one column called 0, and the error then spoke of the file's
    other columns being '0' (there was no file)."""
    with pytest.raises(TypeError, match=r"got a list of 3 values: name the columns"):
        Measurements([1, 2, 3])
    with pytest.raises(MeasurementError, match=r"name that column p; the table's other columns are threads\)$"):
        Measurements({"n": [1], "threads": [2], "time": [1.0]})
    # helper-69: a record array and a row were "a list of 3 values: name the columns", named as they were
    df = pd.DataFrame({"n": [1, 2, 3], "p": [1, 1, 2], "time": [1.0, 2.0, 3.0]})
    assert Measurements(df.to_records(index=False)).frame.equals(Measurements(df).frame)
    with pytest.raises(TypeError, match=r"got a Series of 3 values: for one run pass a one-row DataFrame \(df.iloc\[\[0\]\]\)"):
        Measurements(df.iloc[0])


def test_one_column_name_is_one_column_and_a_failed_select_says_what_was_asked():
    m = Measurements({"n": [10, 20], "p": [1, 1], "time": [1.0, 2.0]})
    assert m.X("n").tolist() == [[10.0], [20.0]]  # was the columns 'n' of list("n"); "time" failed on 't'
    assert m.points("time")["time"].tolist() == [1.0, 2.0]
    with pytest.raises(MeasurementError, match=r"^no rows match n=5 and p=\[1, 2\]$"):  # was "split=None and {...}"
        m.select(n=5, p=[1, 2])


def test_a_measurement_error_escapes_control_characters_of_the_file():
    # a column named with an OSC 52 sequence (a clipboard write) reached the terminal raw
    # when Python showed the error; the command line escaped it already
    with pytest.raises(MeasurementError) as caught:
        Measurements({"n": [1, 2], "p": [1, 1], "time\x1b]52;c;aGk=\x07": ["a", "b"]})
    assert "\x1b" not in str(caught.value) and "\\x1b]52;c;aGk=\\x07" in str(caught.value)


def test_a_serial_work_column_with_gaps_fills_a_size_from_its_runs_and_a_gap_is_named_by_its_line(tmp_path):
    # helper-71: a column blank at one size was set aside unsaid where p = 1 runs were
    # there, and named as missing ("a 'serial_work' column or runs with p=1") where not
    from probperf.data import one_worker_baseline

    frame = pd.DataFrame({"n": [8, 8, 16, 16], "p": [1, 2, 1, 2], "work": [4.0, 5.0, 9.0, 10.0],
                          "serial_work": [3.0, None, None, 8.5]})
    # one value per size is enough: a size's other runs share it
    assert one_worker_baseline(frame, ["n"], ["serial_work"], "work").tolist() == [3.0, 3.0, 8.5, 8.5]
    # a size with no value: the p = 1 runs' work for every run (one source), said
    blank = frame.assign(serial_work=[3.0, 3.0, None, None])
    with pytest.warns(UserWarning, match=r"3rd row: no 'serial_work' value at this size/configuration: the p=1 "
                                         r"runs' work is the sequential baseline of every run, not serial_work"):
        assert one_worker_baseline(blank, ["n"], ["serial_work"], "work").tolist() == [4.0, 4.0, 9.0, 9.0]
    path = tmp_path / "runs.csv"
    blank.query("p > 1").assign(time=[2.5, 5.0]).to_csv(path, index=False)
    runs = pp.read(path)
    with pytest.raises(MeasurementError, match=r"runs.csv, line 3, column serial_work: no 'serial_work' value at "
                                               r"this size/configuration and no p=1 run there, .*add its serial_work "
                                               r"or p=1 runs$"):
        one_worker_baseline(runs.frame, ["n"], ["serial_work"], "work", runs.source, runs=runs)


@pytest.mark.parametrize("header, expected", [
    ("N,P,Time", "required parameter column 'p' is missing: the file has 'P' (column names are case-sensitive: "
                 "rename it p)"),
    ("N,p,time", "unknown column 'N' (column names are case-sensitive: 'n'?); declare"),
])
def test_a_column_named_in_other_case_is_said_so_in_csv_and_parquet(tmp_path, header, expected):
    """helper-88: 'P' in a CSV file got no hint where the same Parquet file had one."""
    csv = tmp_path / "runs.csv"
    csv.write_text(f"{header}\n1000,1,0.1\n2000,2,0.2\n4000,4,0.4\n")
    pd.read_csv(csv).to_parquet(tmp_path / "runs.parquet")
    for path in (csv, tmp_path / "runs.parquet"):
        with pytest.raises(MeasurementError) as exc:
            pp.read(path)
        assert expected in str(exc.value)
