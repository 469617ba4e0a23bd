"""The wheel carries the SQL, the report templates and the explorer's page, and the plain DuckDB shell (1.5, from
duckdb-cli) runs what ``rankkit macros`` prints: the shell path and DuckDB 1.5 compatibility in one go."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from rankkit._paths import sql_dir
from support import ROOT, duckdb_shell, shared_path


def test_wheel_holds_every_sql_file_and_the_report_templates(tmp_path):
    pytest.importorskip("hatchling", reason="building offline needs the build backend: pip install hatchling")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    wheels = list(tmp_path.glob("*.whl"))
    assert len(wheels) == 1
    inside = set(zipfile.ZipFile(wheels[0]).namelist())
    wanted = {f"rankkit/sql/{p.relative_to(sql_dir()).as_posix()}" for p in sql_dir().rglob("*.sql")}
    assert len(wanted) > 20 and any(w.startswith("rankkit/sql/lists/") for w in wanted)
    assert wanted <= inside, f"missing from the wheel: {sorted(wanted - inside)}"
    templates = ROOT / "rankkit" / "report" / "templates"
    shipped = {f"rankkit/report/templates/{p.name}" for p in templates.glob("*.j2")}
    assert len(shipped) >= 3 and shipped <= inside, f"report templates missing: {sorted(shipped - inside)}"
    assert "rankkit/explore/page/index.html.j2" in inside  # rankkit explore's page


def macros_script() -> str:
    """What ``rankkit macros`` prints, run as a command (this checkout's copy)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-m", "rankkit.cli", "macros"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def shell(commands: str) -> list[list[str]]:
    """Rows of CSV output of the DuckDB shell fed the macros and then ``commands``."""
    out = subprocess.run([duckdb_shell(), "-batch", "-csv", "-noheader"], input=macros_script() + "\n" + commands,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Error" not in out.stderr, out.stderr
    return [line.split(",") for line in out.stdout.split()]


def test_duckdb_shell_runs_the_macros(tmp_path):
    (tmp_path / "qrels.csv").write_text("query_id,doc_id,relevance\nq1,a,3\nq1,b,2\nq1,c,3\nq1,d,0\nq1,e,1\nq1,f,2\nq1,g,3\nq1,h,2\n007,x,1\n")
    (tmp_path / "run.csv").write_text("query_id,doc_id,score\nq1,a,6\nq1,b,5\nq1,c,4\nq1,d,3\nq1,e,2\nq1,f,1\n007,y,2\n007,x,1\n")
    rows = shell(f"""
SELECT version();
CREATE TABLE qrels AS FROM read_csv('{tmp_path / 'qrels.csv'}', types = {{'query_id': 'VARCHAR', 'doc_id': 'VARCHAR'}});
CREATE TABLE run AS FROM read_csv('{tmp_path / 'run.csv'}', types = {{'query_id': 'VARCHAR', 'doc_id': 'VARCHAR'}});
SELECT round(rankkit.dcg([3, 2, 3, 0, 1, 2], 6), 5), round(rankkit.ndcg([3, 2, 3, 0, 1, 2], 6, ideal := [3, 2, 3, 0, 1, 2, 3, 2]), 5);
SELECT measure, round(value, 5), queries FROM rankkit.evaluate('qrels', 'run', ['nDCG@6', 'RR', 'P@2', 'NumRet']);
SELECT query_id, round(value, 5) FROM rankkit.ndcg('qrels', 'run', k := 6);
""")
    assert rows[0][0].startswith("v1.5"), rows[0]
    assert rows[1] == ["6.86113", "0.785"]
    # q1 is DESIGN's example 1 (nDCG@6 0.785); 007 finds its one relevant document at rank 2
    assert rows[2:6] == [["nDCG@6", str(round((0.785002371969948 + 1 / 1.584962500721156) / 2, 5)), "2"],
                         ["RR", "0.75", "2"], ["P@2", "0.75", "2"], ["NumRet", "8.0", "2"]]
    assert rows[6:] == [["007", "0.63093"], ["q1", "0.785"]]


def test_duckdb_shell_gives_trec_eval_numbers_on_dl19_bm25():
    """Issue 2's proof: after ``rankkit macros`` the shell prints trec_eval's DL19 BM25 values."""
    qrels = shared_path("data", "anserini-tools", "qrels.dl19-passage.txt")
    run = shared_path("data", "rank_llm", "dl19.BM25.trec_results.txt")
    rows = shell(f"""
CREATE TABLE qrels AS SELECT query_id, doc_id, relevance FROM read_csv('{qrels}', delim = ' ', header = false,
    columns = {{'query_id': 'VARCHAR', 'it': 'VARCHAR', 'doc_id': 'VARCHAR', 'relevance': 'INTEGER'}});
CREATE TABLE run AS SELECT query_id, doc_id, score FROM read_csv('{run}', delim = ' ', header = false,
    columns = {{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', 'rank': 'INTEGER', 'score': 'DOUBLE', 'tag': 'VARCHAR'}});
SELECT measure, printf('%.17g', value) FROM rankkit.evaluate('qrels', 'run', ['ndcg_cut_10', 'map']);
""")
    # trec_eval 10.0 printing %.17g: ndcg_cut_10 0.50583100243990731, map 0.29928357160323238
    assert [r[0] for r in rows] == ["ndcg_cut_10", "map"]
    assert float(rows[0][1]) == pytest.approx(0.50583100243990731, abs=1e-12)
    assert float(rows[1][1]) == pytest.approx(0.29928357160323238, abs=1e-12)


def test_no_merge_left_its_conflict_markers():
    # a merge once left bench/README.md with both sides and their markers, which no other test reads
    skip = {".git", ".venv", "node_modules", "__pycache__", ".pytest_cache"}
    found = []
    for path in ROOT.rglob("*"):
        if skip & set(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        if path.suffix not in {".md", ".py", ".sql", ".toml", ".txt", ".html", ".js", ".css", ".json", ".ipynb"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if line.startswith(("<<<<<<< ", ">>>>>>> ")) or line == "=======" and path.suffix != ".txt":
                found.append(f"{path.relative_to(ROOT)}:{number}: {line}")
    assert not found, "\n".join(found)
