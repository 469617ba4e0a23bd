"""Helpers the tests share: where the reference material is, and skipping when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent



def _find_shared() -> Path:
    """$RANKKIT_SHARED, else the nearest ``shared`` folder beside the checkout or one of its parents
    (a git worktree such as ``/work/wt/<name>`` sits one level deeper than the main checkout)."""
    if os.environ.get("RANKKIT_SHARED"):
        return Path(os.environ["RANKKIT_SHARED"])
    for parent in ROOT.parents:
        if (parent / "shared").is_dir():
            return parent / "shared"
    return ROOT.parent / "shared"


SHARED = _find_shared()


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a skip that says why when it is absent."""
    path = SHARED.joinpath(*parts)
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the trec_eval reference material lives there")
    if not path.exists():
        pytest.skip(f"{path} is absent from the reference material")
    return path
