"""Where the SQL files are: inside the installed package, or beside it in a source checkout."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def sql_dir() -> Path:
    for candidate in (_HERE / "sql", _HERE.parent / "sql"):
        if (candidate / "00_prelude.sql").is_file():
            return candidate
    raise FileNotFoundError(f"rankkit: the SQL macros are missing (looked in {_HERE / 'sql'})")
