"""Shared fixtures. CI clones the repository with ``shared/`` beside it
(/work/main and /work/shared), so tests find real data there."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The ``shared`` directory next to the repository (skips only if it is absent)."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (CI clones it beside the repository)")
    return SHARED
