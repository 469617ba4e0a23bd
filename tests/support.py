"""Helpers the tests share: where the reference material is, and skipping when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a skip that says why when it is absent."""
    path = SHARED.joinpath(*parts)
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the trec_eval reference material lives there")
    if not path.exists():
        pytest.skip(f"{path} is absent from the reference material")
    return path
