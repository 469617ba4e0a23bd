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


# What `rankkit eval` has no use for: each costs a fresh process its import (pandas alone 0.4 s).
NOT_FOR_EVAL = ["pandas", "numpy", "pyarrow", "polars", "matplotlib", "jinja2", "scipy", "ipywidgets",
                "rankkit.report", "rankkit.plot", "rankkit.explore", "rankkit.compare", "rankkit.stats",
                "rankkit.tracing", "rankkit.table", "rankkit.check", "rankkit.demo", "rankkit.docs"]


def test_cli_eval_imports_nothing_it_does_not_use(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 s\n")
    probe = (f"import sys, json\nfrom rankkit.cli import main\nmain(['eval', {str(tmp_path / 'q.txt')!r}, "
             f"{str(tmp_path / 'r.txt')!r}])\nprint(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert [m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_EVAL)] == []
    assert "rankkit.evaluate" in loaded  # the probe did evaluate


def test_cli_eval_runs_on_duckdb_s_engine_alone(tmp_path):
    # duckdb's package is its engine (_duckdb) under a Python relation layer whose import is 60 of the
    # 95 ms `import duckdb` takes; eval's statements need the engine only (rankkit/_engine.py)
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq2 0 b 2\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 1.0 s\nq2 Q0 b 1 1.0 s\n")
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\nq1,a,2.0\nq2,b,1.0\n")
    calls = [["eval", "q.txt", "r.txt"],  # bare names in the working folder: a table or a file?
             ["eval", "-q", "--format", "csv", "-m", "nDCG@10", "-m", "relstring", "q.txt", "r.txt", "r.csv"],
             ["eval", "-c", "-J", "-M", "1", "--format", "json", "q.txt", "s=r.txt"],
             ["eval", "-m", "P@1", "-o", "out.csv", "q.txt", str(tmp_path / "r.txt")]]
    probe = ("import sys, json\nfrom rankkit.cli import main\n"
             + "".join(f"assert main({call!r}) == 0\n" for call in calls)
             + "print(json.dumps(sorted(m for m in sys.modules if 'duckdb' in m)))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert "_duckdb" in loaded and [m for m in loaded if m.split(".")[0] == "duckdb"] == []
    assert (tmp_path / "out.csv").read_text().startswith("measure,")


def test_a_connection_and_a_read_for_the_user_have_relations(tmp_path):
    # the relation methods are set on the connection class by duckdb's package: rankkit imports it for
    # the connections and relations it hands out, though the caller never imported duckdb
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq2 0 b 2\n")
    loaded_after("import rankkit\ncon = rankkit.connect()\nassert con.sql('SELECT 41 + 1').fetchall() == [(42,)]\n"
                 f"qrels = rankkit.read_qrels({str(tmp_path / 'q.txt')!r})\n"
                 "assert qrels.aggregate('count(*)').fetchall() == [(2,)]")


def _fresh_eval(tmp_path, *options: str, queries: int = 1, docs: int = 2) -> subprocess.CompletedProcess:
    """`rankkit eval` as its own process (the console script's main()), on a run of ``queries`` x
    ``docs``; the temporary files DuckDB holds as the command ends are said on stderr."""
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 a 1\n" for i in range(queries)))
    (tmp_path / "r.txt").write_text("".join(f"q{i} Q0 {'a' if j == 0 else f'd{j}'} {j + 1} {100 - j} s\n"
                                            for i in range(queries) for j in range(docs)))
    probe = ("import sys\nfrom rankkit import cli\n"
             "import atexit\natexit.register(lambda: sys.stderr.write('python teardown ran'))\n"
             "leave = cli._leave\n"
             "def said(code, opened):\n"
             "    for con in opened:\n"
             "        n = con.execute('SELECT count(*) FROM duckdb_temporary_files()').fetchall()[0][0]\n"
             "        sys.stderr.write(f'temporary files {n}\\n')\n"
             "    leave(code, opened)\n"
             "cli._leave = said\n"
             f"sys.argv = ['rankkit', 'eval', *{list(options)!r}, {str(tmp_path / 'q.txt')!r}, {str(tmp_path / 'r.txt')!r}]\n"
             "sys.exit(cli.main())")
    return subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})


def test_the_command_line_leaves_its_process_to_the_os_with_its_output_whole(tmp_path):
    # Python's teardown (DuckDB closed, its threads joined, every object of the imports collected) cost
    # 20-30 ms of `rankkit eval`; the process ends without it, its output flushed first
    out = _fresh_eval(tmp_path, "-q", "-m", "P@1", queries=5000)
    assert out.returncode == 0, out.stderr
    assert "python teardown ran" not in out.stderr
    rows = [line.split() for line in out.stdout.splitlines()]
    assert len([row for row in rows if row[1] != "all"]) == 5000 and ["P@1", "all", "1.0000"] in rows
    assert out.stdout.endswith("\n")


def test_a_command_that_spilled_to_disk_leaves_no_temporary_file(tmp_path):
    spill = tmp_path / "spill"
    out = _fresh_eval(tmp_path, "--memory-limit", "32MB", "--temp-directory", str(spill), "-q", "-m", "P@1",
                      queries=8000, docs=40)
    # near its limit DuckDB may also run out of memory: the command then fails, as its spilled files end
    assert out.returncode in (0, 2), out.stderr
    assert int(out.stderr.split("temporary files ")[1].split()[0]) > 0  # it did spill: DuckDB held files at the end
    assert not spill.exists() or list(spill.iterdir()) == []


def test_main_called_with_arguments_returns_and_lets_its_connections_go(tmp_path):
    # a notebook or test calling main([...]) goes on: nothing of the command is kept
    import gc
    import weakref

    from rankkit import cli
    from rankkit.cli import common, eval as command

    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 s\n")
    made = []
    connect = command.connect
    command.connect = lambda *given, **options: made.append(con := connect(*given, **options)) or con
    try:
        assert cli.main(["eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 0
    finally:
        command.connect = connect
    assert made and common.connections == []
    gone = weakref.ref(made.pop())
    gc.collect()
    assert gone() is None
