"""The package's floors hold (the contracts of [tool.importlinter] in pyproject.toml, run by
import-linter): no import circle, no import reaching up a floor, the Spark engine reached only from
the command line. And the macro database's key covers every module the macro script is made by."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp

from rankkit import _sql
from support import ROOT

LINT = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]


def lint(root: Path) -> subprocess.CompletedProcess:
    """lint-imports over the package ``rankkit`` found in ``root``, with the contracts of root/pyproject.toml."""
    return subprocess.run(LINT, cwd=root, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)})


def test_the_import_contracts_hold():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout


# (module, line added to it, the import lint-imports names)
BREAKS = [
    # the registry reaching up to the composer, which imports it: a circle
    ("measures.py", "from rankkit import compose", "rankkit.measures -> rankkit.compose"),
    # the escapes reaching up to the exceptions, which use them
    ("safe/csv.py", "from rankkit.errors import RankkitError", "rankkit.safe.csv -> rankkit.errors"),
    # a function-level import counts as much as one at the top
    ("_sql.py", "def later():\n    from rankkit.evaluate import evaluate", "rankkit._sql -> rankkit.evaluate"),
    # the Spark engine from a report
    ("report/render.py", "from rankkit.spark import session", "rankkit.report.render -> rankkit.spark"),
    # verify reads a report's command line with rankkit.arguments' parser, never reaching up to the commands
    ("report/call.py", "from rankkit.cli import main", "rankkit.report.call -> rankkit.cli"),
]


def copy_of_rankkit(folder: Path) -> Path:
    shutil.copytree(ROOT / "rankkit", folder / "rankkit", ignore=shutil.ignore_patterns("__pycache__", "sql"))
    shutil.copy(ROOT / "pyproject.toml", folder)
    return folder / "rankkit"


def test_the_contracts_refuse_imports_that_break_the_floors(tmp_path):
    package = copy_of_rankkit(tmp_path)
    for module, line, _ in BREAKS:
        with open(package / module, "a", encoding="utf-8") as file:
            file.write(f"\n{line}\n")
    done = lint(tmp_path)
    assert done.returncode == 1, done.stdout
    assert [said for _, _, said in BREAKS if said not in done.stdout] == [], done.stdout


def test_a_new_module_needs_a_floor(tmp_path):
    (copy_of_rankkit(tmp_path) / "helpers.py").write_text("X = 1\n", encoding="utf-8")
    done = lint(tmp_path)
    assert done.returncode == 1 and "rankkit.helpers" in done.stdout, done.stdout


def test_the_macro_key_covers_every_module_the_script_is_made_by():
    """_sql.SCRIPT_MODULES: a change in any of them makes a new macro database (test_macro_cache.py)."""
    graph = grimp.build_graph("rankkit", cache_dir=None)
    made_by = {"rankkit.macros", *graph.find_upstream_modules("rankkit.macros")}
    files = {str(Path(*name.split(".")[1:])) + ".py" for name in made_by}
    assert files == set(_sql.SCRIPT_MODULES) - {"_sql.py"}
