"""Pieces of a fit on several cores: the same results, state and warnings as in one process."""

import contextvars
import os
import subprocess
import sys
import warnings

import pytest

from probperf import parallel

SETTING = contextvars.ContextVar("test_setting", default="unset")


def piece(x):
    warnings.warn(f"piece {x}", RuntimeWarning)
    return x * x, os.getpid(), SETTING.get()


@pytest.fixture
def two_cores(monkeypatch):
    """Two workers however many cores this machine lends and however busy it is (fork is
    there on Linux)."""
    monkeypatch.setattr(parallel, "free_cores", lambda: 2)
    monkeypatch.setattr(parallel, "can_fork", lambda: True)  # torch may be loaded by other tests


def test_pieces_run_in_workers_with_the_callers_state_and_warnings(two_cores):
    token = SETTING.set("set at the call")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = parallel.starmap(piece, [(k,) for k in range(5)], rows=parallel.MIN_ROWS)
    finally:
        SETTING.reset(token)
    assert [v for v, _, _ in out] == [0, 1, 4, 9, 16]  # in order
    assert os.getpid() not in {pid for _, pid, _ in out}  # in other processes
    assert {s for _, _, s in out} == {"set at the call"}
    assert sorted(str(w.message) for w in caught) == [f"piece {k}" for k in range(5)]
    assert {(w.category, w.filename) for w in caught} == {(RuntimeWarning, __file__)}


def test_small_fits_and_serial_blocks_stay_in_this_process():
    pid = os.getpid()
    with pytest.warns(RuntimeWarning):
        assert {p for _, p, _ in parallel.starmap(piece, [(1,), (2,)], rows=parallel.MIN_ROWS - 1)} == {pid}
    with parallel.serial(), pytest.warns(RuntimeWarning):
        assert {p for _, p, _ in parallel.starmap(piece, [(1,), (2,)], rows=10**6)} == {pid}


#: a law mixture fitted in forked workers and in one process, in a fresh interpreter where
#: the workers are forked as a user's would be (no torch loaded by other tests)
PARITY = """
import numpy as np
from probperf import parallel
from probperf.models import LawMixture
parallel.free_cores = lambda: 2
rng = np.random.default_rng(3)
n, p = 2.0 ** rng.integers(6, 12, 60), rng.choice([1.0, 2, 4, 8], 60)
y = 1e-6 * n * np.log2(n) / p**0.9 * np.exp(0.03 * rng.standard_normal(60))
X, at = np.c_[n, p], np.array([[2.0**16, 64.0]])
assert parallel._workers(14, 60) == 2
several = LawMixture().fit(X, y, features=["n", "p"])
with parallel.serial():
    one = LawMixture().fit(X, y, features=["n", "p"])
assert several.weights_ == one.weights_
assert np.array_equal(several.discrepancy_, one.discrepancy_)
assert np.array_equal(several.predict(at, n_draws=200, seed=0).draws, one.predict(at, n_draws=200, seed=0).draws)
print("same")
"""


def test_a_law_mixture_fitted_on_several_cores_is_the_one_fitted_in_one():
    done = subprocess.run([sys.executable, "-c", PARITY], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["same"]
