"""Helpers the tests share: where the reference material is, and skipping when it is absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


def duckdb_shell() -> str:
    """The plain duckdb shell (the duckdb-cli package's, beside the interpreter, or on PATH), or a skip."""
    shell = Path(sys.executable).parent / "duckdb"
    found = str(shell) if shell.exists() else shutil.which("duckdb")
    if not found:
        pytest.skip("no duckdb shell beside the interpreter or on PATH: pip install duckdb-cli")
    return found


def in_duckdb_shell(folder: Path, commands: str) -> str:
    """What the plain duckdb shell prints (CSV) for ``commands`` after reading the macro script, as an
    analyst loads it (``.read rankkit.sql``)."""
    from rankkit.macros import script

    shell = duckdb_shell()
    (folder / "rankkit.sql").write_text(script())
    out = subprocess.run([shell, "-batch"], input=f".read {folder / 'rankkit.sql'}\n.mode csv\n{commands}",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout
