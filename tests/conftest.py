"""Shared fixtures. CI clones the repository with ``shared/`` beside it
(/work/main and /work/shared), so tests find real data there."""

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The ``shared`` directory next to the repository (skips only if it is absent)."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (CI clones it beside the repository)")
    return SHARED


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Build caches (the OMPT tool) under pytest's tmp, never in the user's ~/.cache;
    set in the environment so the CLI subprocesses of the tests inherit it."""
    old = os.environ.get("PROBPERF_CACHE_DIR")
    os.environ["PROBPERF_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("PROBPERF_CACHE_DIR", None)
    else:
        os.environ["PROBPERF_CACHE_DIR"] = old


@pytest.fixture(autouse=True)
def _no_figures_left():
    """Close every figure a test left open: matplotlib warns once more than 20 are, and
    that warning would land in whichever later test counts its warnings (a test's
    outcome must not depend on which tests ran before it in its worker)."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:  # only where a test drew: no import for the others
        sys.modules["matplotlib.pyplot"].close("all")
