"""Fusion on Spark (issue 36): every method whose definitions translate gives DuckDB's fused run (the
same names, documents in the same order, scores to 1e-12); the others refused
by name before Spark reads anything; rankkit fuse --engine spark writes DuckDB's file. The suite's one
Spark session (tests/conftest.py)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

pytest.importorskip("pyspark", reason="pyspark is absent: pip install 'rankkit-duckdb[spark]'")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is absent: Spark needs a JVM (Debian: openjdk-17-jre-headless)", allow_module_level=True)

import rankkit
from rankkit.cli import main
from rankkit.errors import InputError, RankkitError

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning",
                                        "ignore::rankkit.errors.RankkitWarning")

# Three methods, the argument shapes (a constant, weights, norms that need a mean and an sd): their
# scores are one translated CASE (rankkit.fused_score, rankkit.fusion_x), and a Spark job costs ~3 s a
# method (a union of them all is slower on local[2], measured)
TRANSLATED = [("rrf", None, [2.0, 1.0, 0.5]), ("combmnz", "zmuv", None), ("wmnz", "dbsf", [0.2, 0.3, 0.5])]


@pytest.fixture(scope="module")
def runs():
    """Three runs of three queries: different depths, a document one system does not rank, a tie, a query
    one system lacks."""
    rows = {"bm25": [("q1", "a", 9.0), ("q1", "b", 7.0), ("q1", "c", 7.0), ("q1", "d", 1.5), ("q2", "a", 3.0),
                     ("q2", "e", 2.0), ("q3", "f", 0.5), ("q3", "g", 0.25)],
            "dense": [("q1", "c", 0.9), ("q1", "a", 0.8), ("q1", "e", 0.1), ("q2", "e", 0.7), ("q2", "b", 0.6),
                      ("q2", "a", 0.6)],
            "rerank": [("q1", "d", 4.0), ("q1", "b", 3.0), ("q2", "a", 5.0), ("q2", "b", 1.0), ("q2", "c", -1.0),
                       ("q3", "g", 2.0), ("q3", "f", 1.0), ("q3", "h", 0.0)]}
    return {name: pd.DataFrame(found, columns=["query_id", "doc_id", "score"]) for name, found in rows.items()}


def test_spark_fuses_as_duckdb_for_every_translated_method(spark, runs):
    frames = {name: spark.createDataFrame(run) for name, run in runs.items()}
    expected = pd.concat([rankkit.fuse(runs, method=m, norm=n, weights=w) for m, n, w in TRANSLATED])
    got = pd.concat([rankkit.fuse(frames, method=m, norm=n, weights=w, engine="spark").toPandas()
                     for m, n, w in TRANSLATED])
    assert list(dict.fromkeys(got.system)) == list(dict.fromkeys(expected.system))
    for system, duck in expected.groupby("system", sort=False):
        ours = got[got.system == system].sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
        assert list(zip(ours.query_id, ours.doc_id)) == list(zip(duck.query_id, duck.doc_id)), system
        assert ours.score.tolist() == pytest.approx(duck.score.tolist(), abs=1e-12), system


@pytest.mark.parametrize("method, norm, said", [
    ("borda", None, "Spark: borda is fused on DuckDB only: its points for the documents a system does not rank"),
    ("combsum", "borda", "Spark: the borda norm is fused on DuckDB only"),
    ("condorcet", None, "Spark: condorcet is fused on DuckDB only: its pairwise duels"),
    ("nope", None, "method must be one of rrf, isr"),  # DuckDB's own words, from the same check
])
def test_what_spark_does_not_fuse_is_refused_by_name(runs, method, norm, said):
    with pytest.raises(RankkitError, match=f"^{said}"):
        rankkit.fuse(runs, method=method, norm=norm, engine="spark")  # before Spark is asked anything


def test_a_missing_run_file_is_said_before_spark_starts(tmp_path, monkeypatch):
    from rankkit import spark

    monkeypatch.setattr(spark, "session", lambda *_: pytest.fail("Spark started for a file that is not there"))
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1.0 a\n")
    with pytest.raises(InputError, match="missing.run: no such file"):
        rankkit.fuse([str(tmp_path / "a.run"), str(tmp_path / "missing.run")], engine="spark")

def test_fuse_engine_spark_writes_duckdbs_run_and_refuses_a_duplicate(spark, runs, tmp_path, capsys):
    paths = []
    for name, run in runs.items():
        paths.append(str(tmp_path / f"{name}.parquet"))
        run.to_parquet(paths[-1])
    given = ["fuse", *paths, "--method", "wsum", "--weights", "0.5,0.3,0.2", "--norm", "zmuv"]
    assert main([*given, "-o", str(tmp_path / "duck.run")]) == 0
    assert main([*given, "--engine", "spark", "-o", str(tmp_path / "spark.run")]) == 0
    duck, ours = ((tmp_path / f"{name}.run").read_text().splitlines() for name in ("duck", "spark"))
    assert [line.split()[:4] + line.split()[5:] for line in ours] == [line.split()[:4] + line.split()[5:] for line in duck]
    assert [float(line.split()[4]) for line in ours] == pytest.approx([float(line.split()[4]) for line in duck], abs=1e-12)
    twice = pd.concat([runs["bm25"], runs["bm25"].head(1)])
    frames = {"bm25": spark.createDataFrame(twice), "dense": spark.createDataFrame(runs["dense"])}
    with pytest.raises(InputError, match="^run DataFrame bm25, run DataFrame dense: system bm25 lists document a "
                                         "twice for query q1; a document is ranked once per query$"):
        rankkit.fuse(frames, engine="spark", output=tmp_path / "twice.run")
    assert main(["fuse", *paths, "--engine", "spark", "--sweep", paths[0], "-m", "AP"]) == 2
    assert "--sweep runs on DuckDB" in capsys.readouterr().err
