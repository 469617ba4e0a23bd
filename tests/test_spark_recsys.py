"""Recommender inputs on Spark (issue 35): a run of one row per user holding a list of items, as Spark
MLlib keeps its top-k, read as ranked lists (position = rank) as the DuckDB reader reads it, and refused
in its words. The suite's one Spark session (tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil

import duckdb
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

MEASURES = ["nDCG@10", "AP"]


@pytest.fixture(scope="module")
def lists(tmp_path_factory):
    """Interactions and top-6 item lists (BIGINT[], item 1 first) as Parquet."""
    folder = tmp_path_factory.mktemp("lists")
    con = duckdb.connect()
    paths = {"inter": str(folder / "inter.parquet"), "lists": str(folder / "lists.parquet")}
    con.execute("COPY (SELECT u AS user_id, (u * 7 + i * 3) % 20 AS item_id, 1 + (u + i) % 5 AS rating "
                f"FROM range(1, 6) a(u), range(4) b(i)) TO '{paths['inter']}'")
    con.execute("COPY (SELECT u AS user_id, list((u * 5 + r * 2) % 20 ORDER BY r) AS items "
                f"FROM range(1, 6) a(u), range(6) b(r) GROUP BY u) TO '{paths['lists']}'")
    return paths


def test_a_run_of_item_lists_reads_as_ranked_lists_on_spark(spark, lists, capsys):
    from rankkit.spark import evaluate

    duck = rankkit.evaluate(lists["inter"], lists["lists"], MEASURES)
    frames = [spark.read.parquet(lists[name]) for name in ("inter", "lists")]
    got = evaluate(spark, *frames, MEASURES).toPandas()
    assert dict(zip(got["measure"], got["value"])) == pytest.approx(dict(zip(duck["measure"], duck["value"])), abs=1e-12)
    given = ["eval", "-q", "-m", "map", "-m", "P.5", lists["inter"], lists["lists"]]
    assert main(given) == 0
    expected = capsys.readouterr()
    assert main([given[0], "--engine", "spark", *given[1:]]) == 0
    assert capsys.readouterr() == expected and expected.out.count("\n") > 5


@pytest.mark.parametrize("rows, said", [
    ({"user_id": [1], "items": [[1.5, 2.5]]}, "column items (the run's lists of doc_id) is DOUBLE[]; expected a list"),
    ({"user_id": [1], "items": [["a", "b"]], "score": [0.5]}, "the column score beside it would rank them again"),
    ({"user_id": [1, 2], "items": [[1, 2], None]}, "column items (doc_id) is NULL for query 2"),
])
def test_bad_item_lists_are_refused_in_the_duckdb_readers_words_on_spark(spark, lists, tmp_path, capsys, rows, said):
    from rankkit.spark import collected, evaluate

    pd.DataFrame(rows).to_parquet(tmp_path / "bad.parquet")
    assert main(["eval", lists["inter"], str(tmp_path / "bad.parquet")]) == 2
    duck = capsys.readouterr().err
    assert main(["eval", "--engine", "spark", lists["inter"], str(tmp_path / "bad.parquet")]) == 2
    assert capsys.readouterr().err == duck and said in duck
    # a DataFrame's rows fail the statement that reads them, in the same words
    with pytest.raises(InputError, match=f"^run DataFrame: .*{re.escape(said)}"):
        collected(evaluate(spark, spark.read.parquet(lists["inter"]), spark.read.parquet(str(tmp_path / "bad.parquet")),
                           ["AP"]))


def test_compare_on_spark_under_the_torchmetrics_pack_prints_what_duckdb_prints(spark, lists, tmp_path, capsys):
    """Issue 35: rankkit compare --engine spark, with a pack of queries='run' (user 6 is in the runs alone)."""
    ranked = pd.read_parquet(lists["lists"])
    extra = pd.DataFrame({"user_id": [6], "items": [[1, 2, 3]]})
    pd.concat([ranked, extra], ignore_index=True).to_parquet(tmp_path / "a.parquet")
    pd.concat([ranked.assign(items=ranked["items"].map(lambda items: items[::-1])), extra],
              ignore_index=True).to_parquet(tmp_path / "b.parquet")
    given = ["compare", "--conventions", "torchmetrics", "-m", "nDCG@5", "--format", "csv", lists["inter"],
             str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")]
    assert main(given) == 0
    expected = capsys.readouterr()
    assert main([given[0], "--engine", "spark", *given[1:]]) == 0
    assert capsys.readouterr() == expected
    # the pack's nDCG, over the 6 users of the runs (W/T/L and queries), its conventions recorded
    assert re.search(r"^nDCG\(ideal=run\)@5,b,a,.*,5,1,0,6,higher,t,.*,torchmetrics$", expected.out, re.MULTILINE)


NOT_ON_SPARK = "which run on DuckDB only: leave out --engine spark"


@pytest.mark.parametrize("command, measure, side, said", [
    ("eval", "Novelty@10", "--interactions", "Spark: Novelty@10 is computed by its table macro rankkit.novelty over "
                                             "the run's top k and the interactions table"),
    ("compare", "Gini@10", "--items", "Spark: Gini@10 is computed by its table macro rankkit.gini"),
    ("report", "ILD@10", "--items", "Spark: ILD@10 is computed by its table macro rankkit.ild_features, "
                                    "rankkit.ild_category or rankkit.ild_cooccurrence"),
    ("eval", "nDCG@10", "--items", f"--items is read by the beyond-accuracy measures (Coverage@10, Novelty@10 ...), "
                                   f"{NOT_ON_SPARK}"),
    ("compare", "nDCG@10", "--interactions", f"--interactions is read by the beyond-accuracy measures "
                                             f"(Coverage@10, Novelty@10 ...), {NOT_ON_SPARK}"),
])
def test_beyond_accuracy_measures_are_refused_by_name_before_spark_starts(lists, tmp_path, capsys, monkeypatch,
                                                                          command, measure, side, said):
    from rankkit import spark

    monkeypatch.setattr(spark, "session", lambda *args, **kwargs: pytest.fail("Spark started"))
    output = ["-o", str(tmp_path / "report.html")] if command == "report" else []
    runs = [lists["lists"]] * (1 if command == "eval" else 2)
    assert main([command, "--engine", "spark", "-m", measure, side, lists["inter"], *output, lists["inter"],
                 *runs]) == 2
    assert said in capsys.readouterr().err
    if measure != "nDCG@10":  # Python's Spark engine, in the same words
        with pytest.raises(RankkitError, match=re.escape(said)):
            spark.evaluate(None, "qrels", "run", ["AP", measure])
