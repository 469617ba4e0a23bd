"""Shared fixtures: a fresh connection, and the reference material beside the project."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankkit

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def con():
    return rankkit.connect()


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a skip that says why when the folder is absent."""
    path = SHARED.joinpath(*parts)
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the trec_eval reference material lives there")
    if not path.exists():
        pytest.skip(f"{path} is absent from the reference material")
    return path
