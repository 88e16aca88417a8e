"""Basis functions: values against hand-computed closed forms, presets, JSON, errors."""

import numpy as np
import pytest

from probperf.basis import (
    PRESETS,
    BasisSet,
    Term,
    no_work,
    normal_form,
    preset,
    serial_work,
    strong_scaling,
    task_counts,
    work_inflation,
    worker_terms,
)


def test_term_values_match_closed_forms():
    n = np.array([1.0, 8.0, 1024.0])
    p = np.array([1.0, 4.0, 36.0])
    assert Term(0, 0).evaluate(n).tolist() == [1.0, 1.0, 1.0]
    assert Term(1, 1).evaluate(n).tolist() == [0.0, 24.0, 10240.0]
    assert Term(2, 2).evaluate(n).tolist() == [0.0, 576.0, 1024.0**2 * 100]
    assert Term(0, 0, "p-1").evaluate(n, p).tolist() == [0.0, 3.0, 35.0]
    assert Term(0, 0, "(p-1)/p").evaluate(n, p).tolist() == [0.0, 0.75, 35 / 36]
    assert Term(1, 0, "(p-1)^2").evaluate(n, p).tolist() == [0.0, 72.0, 1024.0 * 35**2]
    assert Term(3, 0, "1/p").evaluate(n, p).tolist() == [1.0, 128.0, 1024.0**3 / 36]
    # Extra-P style fractional exponent
    np.testing.assert_allclose(Term(1 / 3, 0).evaluate([8.0, 27.0]), [2.0, 3.0])


def test_term_names():
    assert Term(2, 1, "p-1").name == "n^2 log2(n) (p-1)"
    assert Term(0, 0).name == "1"
    assert Term(1, 2).name == "n log2(n)^2"
    assert Term(0, 0, "(p-1)/p").name == "(p-1)/p"
    assert Term(0.5, 0).name == "n^(1/2)"
    assert Term(4 / 3, 1, "1/p").name == "n^(4/3) log2(n) (1/p)"


def test_term_rejects_bad_parameters():
    with pytest.raises(ValueError, match="worker term 'p'"):
        Term(1, 0, "p")
    with pytest.raises(ValueError, match="log power k"):
        Term(1, 3)
    with pytest.raises(ValueError, match="exponent j"):
        Term(-1, 0)
    with pytest.raises(ValueError, match="needs the worker count"):
        Term(1, 0, "p-1").evaluate([2.0])


def test_design_matrix_columns_are_the_terms():
    b = BasisSet([Term(1, 1), Term(2, 0), Term(0, 0, "p-1")])
    X = b.design([2.0, 4.0], p=[1, 3])
    assert X.tolist() == [[2.0, 4.0, 0.0], [8.0, 16.0, 2.0]]
    assert b.names == ["n log2(n)", "n^2", "p-1"]
    assert len(b) == 3 and [t.name for t in b] == b.names
    # a scalar p broadcasts
    assert b.design([2.0, 4.0], p=2)[:, 2].tolist() == [1.0, 1.0]


def test_design_errors_name_the_problem():
    b = serial_work()
    with pytest.raises(ValueError, match="index 1 is nan"):
        b.design([2.0, np.nan])
    with pytest.raises(ValueError, match=r">= 1 \(log2 terms\); index 0 is 0.5"):
        b.design([0.5, 2.0])
    with pytest.raises(ValueError, match="pass the worker count p"):
        no_work().design([2.0])
    with pytest.raises(ValueError, match="p must be finite and >= 1; index 1 is 0.0"):
        no_work().design([2.0, 4.0], p=[1, 0])
    # n-only basis does not need p
    assert serial_work().design([2.0]).shape == (1, 12)


def test_presets_match_the_paper_and_thesis():
    # T1'(n): 0<=j<=3, 0<=k<=2 -> 12 terms, containing eq. 11's terms
    names = serial_work().names
    assert len(names) == 12
    assert {"1", "n", "n log2(n)", "n^2", "n^2 log2(n)", "n^3"} <= set(names)
    assert work_inflation().names == ["(p-1)/p", "p-1"]
    assert {"n", "n log2(n)", "n^2", "n^3"} <= set(task_counts().names)
    # no_work: (p-1)^j n^k log^l n, 1<=j<=2, 0<=k<=2, 0<=l<=1 -> 2*3*2 terms, all zero at p=1
    nw = no_work()
    assert len(nw) == 12
    assert {"(p-1)^2", "n (p-1)^2", "n log2(n) (p-1)^2", "n^2 (p-1)^2"} <= set(nw.names)
    assert not nw.design([16.0, 64.0], p=1).any()
    assert all(t.worker in ("1/p", "1", "p-1") for t in strong_scaling())
    assert set(PRESETS) == {"serial_work", "work_inflation", "task_counts", "no_work", "strong_scaling"}
    assert preset("no_work") == nw
    with pytest.raises(ValueError, match="unknown basis preset 'bogus'"):
        preset("bogus")


def test_normal_form_is_the_product():
    b = normal_form(j=(0, 2), k=(0, 1), worker=("1", "(p-1)/p"))
    assert len(b) == 8
    assert worker_terms(("1", "1/p")).design([5.0], p=4).tolist() == [[1.0, 0.25]]


def test_json_round_trip_and_dedup():
    b = BasisSet([Term(1.5, 1, "1/p"), (2, 0, "1"), {"j": 2, "k": 0, "worker": "1"}])
    assert len(b) == 2  # the duplicate n^2 is dropped
    again = BasisSet.from_json(b.to_json())
    assert again == b and again.names == b.names
    assert (serial_work() + work_inflation()).names[-2:] == ["(p-1)/p", "p-1"]
    with pytest.raises(ValueError, match="at least one term"):
        BasisSet([])
