"""`import rankkit` stays light: no plotting, widgets, pandas or scipy until they are used."""

from __future__ import annotations

import json
import subprocess
import sys

from support import ROOT

HEAVY = ["matplotlib", "ipywidgets", "scipy", "pandas"]


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_rankkit_loads_no_heavy_module():
    assert loaded_after("import rankkit") == []


def test_cli_help_loads_no_heavy_module():
    code = ("from rankkit.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    assert loaded_after(code) == []


def test_public_names_are_the_functions():
    code = ("import rankkit, rankkit.evaluate, rankkit.compare\n"
            "assert callable(rankkit.evaluate) and callable(rankkit.compare) and callable(rankkit.connect)\n"
            "assert rankkit.evaluate.__module__ == 'rankkit.evaluate'")
    loaded_after(code)


def test_cli_eval_loads_no_heavy_module(tmp_path):
    # files to printed numbers without pandas: its import alone costs more than evaluating 200k rows
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq2 0 b 2\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 1.0 s\nq2 Q0 b 1 1.0 s\n")
    files = [str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), str(tmp_path / "r.txt")]
    calls = "\n".join(f"main(['eval', '-q', '--format', {fmt!r}, '-m', 'nDCG@10', '-m', 'num_ret', *{files!r}])"
                      for fmt in ("trec", "csv", "json", "markdown"))
    assert loaded_after(f"from rankkit.cli import main\n{calls}") == []
