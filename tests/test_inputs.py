"""Every input kind gives the numbers the TREC-text path gives on the same data."""

from __future__ import annotations

import gzip
import random
import warnings
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import rankkit
from rankkit.cli import main

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "bpref", "ERR@10", "Rprec", "R@20", "NumRet", "NumRelRet"]


def sample(seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Small qrels and run with ties, zero and negative grades, ids that look like numbers."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 16):
        qid = f"{q:03d}" if q % 3 else str(q)
        docs = [f"d{rng.randrange(60)}" for _ in range(40)]
        for doc in dict.fromkeys(docs[:25]):
            qrels.append((qid, doc, rng.choice([-1, 0, 0, 1, 2, 3])))
        for doc in dict.fromkeys(docs[10:]):
            run.append((qid, doc, rng.randrange(16) / 8))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]).assign(system="sys"))


def write_trec(qrels: pd.DataFrame, run: pd.DataFrame, folder: Path) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False)))
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s} {t}\n"
                                for i, (q, d, s, t) in enumerate(run.itertuples(index=False), 1)))
    return qrels_path, run_path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    qrels, run = sample()
    qrels_path, run_path = write_trec(qrels, run, folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        expected = rankkit.evaluate(qrels_path, run_path, MEASURES, per_query=True, con=rankkit.connect())
    return {"folder": folder, "qrels": qrels, "run": run, "qrels_path": qrels_path, "run_path": run_path,
            "expected": expected}


def same(data, qrels, run, con=None, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        got = rankkit.evaluate(qrels, run, MEASURES, per_query=True, con=con or rankkit.connect(), **options)
    # the values, not the system's name: a file's stem, a table's system column, None for a frame without one
    # 1e-12, not bit-equality: DuckDB's parallel sums may add in another order
    pd.testing.assert_frame_equal(got.drop(columns="system"), values(data), check_exact=False, rtol=1e-12,
                                  atol=1e-15)


def values(data) -> pd.DataFrame:
    """The expected per-query values without the system's name."""
    return data["expected"].drop(columns="system")


def test_trec_gzip_comments_and_mixed_whitespace(data):
    folder = data["folder"]
    qrels_lines = data["qrels_path"].read_text().splitlines()
    run_lines = data["run_path"].read_text().splitlines()
    mixed = ["# judged by hand", ""] + [line.replace(" ", "\t", 1).replace(" ", "   ", 1) + " " for line in qrels_lines]
    with gzip.open(folder / "qrels.mixed.gz", "wt") as out:
        out.write("\n".join(mixed) + "\n")
    (folder / "run.mixed.txt").write_text("\r\n".join(["# a comment"] + [line.replace(" ", " \t ") for line in run_lines]))
    same(data, folder / "qrels.mixed.gz", folder / "run.mixed.txt")


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_a_gzip_run_and_qrels_take_the_fast_read(tmp_path, monkeypatch, separator):
    # a gzip run took the tolerant path every time (its check for stray whitespace was put to the
    # rank, a number, and the statement failed to bind): 0.47 s instead of 0.03 for 100,000 lines
    from rankkit.io import trec_text

    monkeypatch.setattr(trec_text, "_load_trec_lines", lambda *args: pytest.fail("the tolerant path"))
    (tmp_path / "q.gz").write_bytes(gzip.compress(separator.join(["q1", "0", "a", "1"]).encode() + b"\n"))
    lines = [separator.join(["q1", "Q0", doc, str(rank), score, "bm25"]) for rank, (doc, score) in
             enumerate([("a", "2.5"), ("b", "1.0")], start=1)]
    (tmp_path / "r.gz").write_bytes(gzip.compress("\n".join(lines).encode() + b"\n"))
    con = rankkit.connect()
    run = rankkit.read_run(tmp_path / "r.gz", con=con)
    assert run.df()[["system", "doc_id", "rank", "score"]].values.tolist() == [["r", "a", 1, 2.5],
                                                                             ["r", "b", 2, 1.0]]
    assert rankkit.evaluate(tmp_path / "q.gz", run, "AP", con=con)["value"].tolist() == [1.0]


def test_a_tab_inside_a_space_separated_line_splits_as_trec_eval_splits(tmp_path):
    # DuckDB's reader, told the separator is a space, would keep "tag\textra" as the tag
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 tag\textra\nq1 Q0 b 2 1.0 tag\n")
    run = rankkit.read_run(tmp_path / "r.txt", con=rankkit.connect(), split_by_tag=True)
    assert run.df()["system"].tolist() == ["tag", "tag"]


def test_a_run_split_by_tag_has_a_system_per_tag(tmp_path):
    # the first line's tag is a guess (most runs have one tag); a line with another is read again
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 x\nq1 Q0 b 2 1.0 x\nq1 Q0 a 1 3.0 y\n")
    run = rankkit.read_run(tmp_path / "r.txt", con=rankkit.connect(), split_by_tag=True)
    assert run.df()[["system", "doc_id"]].values.tolist() == [["x", "a"], ["x", "b"], ["y", "a"]]


def test_a_run_of_several_systems_is_parsed_once_when_its_last_tag_differs(tmp_path, monkeypatch):
    # the guess would fail on the second system's rows and the file be parsed again
    from rankkit.io import trec_text

    reads = []
    original = trec_text._read_trec
    monkeypatch.setattr(trec_text, "_read_trec", lambda *args: reads.append(args[-1]) or original(*args))
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 x\nq1 Q0 b 2 1.0 x\nq1 Q0 a 1 3.0 y\n\n")
    run = rankkit.read_run(tmp_path / "r.txt", con=rankkit.connect(), split_by_tag=True)
    assert run.df()["system"].tolist() == ["x", "x", "y"]
    assert reads == [None]


def test_a_tag_in_the_middle_only_is_found_when_the_first_and_last_agree(tmp_path):
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 x\nq1 Q0 a 1 3.0 y\nq1 Q0 b 2 1.0 x\n")
    run = rankkit.read_run(tmp_path / "r.txt", con=rankkit.connect(), split_by_tag=True)
    assert run.df()[["system", "doc_id"]].values.tolist() == [["x", "a"], ["y", "a"], ["x", "b"]]


def test_a_run_read_under_another_name_keeps_no_tag(tmp_path):
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 2.0 x\nq1 Q0 b 2 1.0 y\n")
    run = rankkit.read_run(tmp_path / "r.txt", system="mine", con=rankkit.connect())
    assert run.df()[["system", "doc_id", "rank", "score"]].values.tolist() == [["mine", "a", 1, 2.0], ["mine", "b", 2, 1.0]]


def test_csv_and_tsv_with_common_column_names(data):
    folder = data["folder"]
    data["qrels"].rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "rel"}).to_csv(
        folder / "qrels.csv", index=False)
    data["run"].rename(columns={"query_id": "topic", "doc_id": "docid", "score": "sim", "system": "run_id"}).to_csv(
        folder / "run.tsv", index=False, sep="\t")
    same(data, folder / "qrels.csv", folder / "run.tsv")
    with gzip.open(folder / "run.csv.gz", "wt") as out:
        data["run"].to_csv(out, index=False)
    same(data, folder / "qrels.csv", folder / "run.csv.gz")


def test_csv_without_a_csv_suffix_is_recognised_by_its_header(data):
    folder = data["folder"]
    data["run"].to_csv(folder / "run.data", index=False)
    same(data, data["qrels_path"], folder / "run.data")


def test_parquet_file_glob_and_folder(data):
    folder = data["folder"]
    data["qrels"].to_parquet(folder / "qrels.parquet")
    parts = folder / "parts"
    parts.mkdir()
    run = data["run"]
    half = len(run) // 2
    run.iloc[:half].to_parquet(parts / "a.parquet")
    run.iloc[half:].to_parquet(parts / "b.parquet")
    same(data, folder / "qrels.parquet", parts / "*.parquet")
    same(data, folder / "qrels.parquet", parts)


def test_dataframe_relation_table_and_view(data):
    con = rankkit.connect()
    same(data, data["qrels"], data["run"], con=con)
    con.register("frame_qrels", data["qrels"])
    con.execute("CREATE TABLE my_qrels AS SELECT * FROM frame_qrels")
    con.register("frame_run", data["run"])
    con.execute("CREATE TABLE my_run AS SELECT * FROM frame_run")
    con.execute("CREATE VIEW my_run_view AS SELECT query_id AS qid, doc_id AS docno, score AS sim FROM my_run")
    same(data, "my_qrels", "my_run", con=con)
    same(data, con.table("my_qrels"), con.sql("SELECT * FROM my_run"), con=con)
    same(data, "my_qrels", "my_run_view", con=con)


def test_column_mapping_and_a_click_column_as_the_grade(data):
    qrels = data["qrels"].rename(columns={"query_id": "q", "doc_id": "item", "relevance": "judge_says"})
    run = data["run"].rename(columns={"query_id": "q", "doc_id": "item", "score": "model_output"})
    mapping = {"q": "query_id", "item": "doc_id", "judge_says": "relevance", "model_output": "score"}
    same(data, qrels, run, columns=mapping)
    clicks = data["qrels"].rename(columns={"relevance": "clicks"}).assign(purchases=0)
    con = rankkit.connect()
    relation = rankkit.read_qrels(clicks, relevance="clicks", columns={"purchases": None}, con=con)
    same(data, relation, data["run"], con=con)


def test_read_functions_return_rankkits_columns_with_string_ids(tmp_path):
    (tmp_path / "q.csv").write_text("qid,docno,rel\n007,0042,1\n7,42,2\n")
    relation = rankkit.read_qrels(tmp_path / "q.csv")
    assert relation.columns == ["query_id", "doc_id", "relevance"]
    assert sorted(relation.fetchall()) == [("007", "0042", 1.0), ("7", "42", 2.0)]
    run = rankkit.read_run(pd.DataFrame({"qid": [1], "docno": ["a"], "sim": [0.5], "rank": [1]}))
    assert run.columns == ["system", "query_id", "doc_id", "rank", "score"]
    assert run.fetchall() == [(None, "1", "a", 1, 0.5)]
    (tmp_path / "r.txt").write_text("007 Q0 0042 1 0.5 bm25\n")
    run = rankkit.read_run(tmp_path / "r.txt")  # parsed text keeps a join key for the engine, out of sight
    assert run.columns == ["system", "query_id", "doc_id", "rank", "score"]
    assert run.fetchall() == [("r", "007", "0042", 1, 0.5)]  # a TREC file is one run, named by its stem
    assert rankkit.read_run(tmp_path / "r.txt", split_by_tag=True).fetchall() == [("bm25", "007", "0042", 1, 0.5)]


def test_ids_are_strings_so_007_is_not_7(tmp_path):
    (tmp_path / "q.csv").write_text("query_id,doc_id,relevance\n7,007,1\n7,8,1\n")
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\n7,7,2\n7,8,1\n")
    got = rankkit.evaluate(tmp_path / "q.csv", tmp_path / "r.csv", ["NumRelRet"])
    assert got["value"].tolist() == [1.0]


def test_a_system_column_holds_several_systems_and_a_dict_names_runs(data):
    run = data["run"]
    other = run.assign(score=-run["score"], system="other")
    both = pd.concat([run, other], ignore_index=True)
    con = rankkit.connect()
    together = rankkit.evaluate(data["qrels"], both, MEASURES, con=con)
    apart = rankkit.evaluate(data["qrels"], {"sys": run, "other": other}, MEASURES, con=con)
    key = ["measure", "system"]
    pd.testing.assert_frame_equal(together.sort_values(key, ignore_index=True), apart.sort_values(key, ignore_index=True))
    assert set(together["system"]) == {"sys", "other"}


def test_a_list_of_run_files_is_named_by_stem(data):
    folder = data["folder"]
    copy = folder / "bm25.txt"
    copy.write_text(data["run_path"].read_text())
    got = rankkit.evaluate(data["qrels_path"], [data["run_path"], copy], ["AP"])
    assert sorted(got["system"]) == ["bm25", "run"]
    assert got["value"].iloc[0] == pytest.approx(got["value"].iloc[1], rel=1e-12)


def test_duplicates_first_keeps_the_first(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1 s\nq1 Q0 b 2 3 s\nq1 Q0 b 3 0.5 s\n")
    got = rankkit.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", ["RR"], duplicates="first")
    assert got["value"].tolist() == [1.0]  # b keeps score 3 and ranks first


def test_output_streams_per_query_results_to_parquet(data, tmp_path):
    con = rankkit.connect()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        path = rankkit.evaluate(data["qrels_path"], data["run_path"], MEASURES, per_query=True, con=con,
                                output=tmp_path / "per_query.parquet")
    written = duckdb.sql(f"SELECT * FROM '{path}'").df()
    pd.testing.assert_frame_equal(written, data["expected"], check_dtype=False)


@pytest.mark.parametrize("options", [{"per_query": True}, {}, {"per_query": True, "several": True}, {"by": True}])
def test_relation_result_is_the_frame_kept_in_duckdb(data, options):
    con = rankkit.connect()
    run = [data["run_path"], data["run"]] if options.pop("several", False) else data["run_path"]
    if options.pop("by", False):
        options.update(by="kind", query_table=pd.DataFrame({"query_id": ["001", "3"], "kind": ["a", "b"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        frame = rankkit.evaluate(data["qrels_path"], run, MEASURES, con=con, **options)
        kept = rankkit.evaluate(data["qrels_path"], run, MEASURES, con=con, relation=True, **options)
    assert isinstance(kept, duckdb.DuckDBPyRelation)
    pd.testing.assert_frame_equal(kept.df(), frame, check_dtype=False)
    assert con.sql(f"SELECT count(*) FROM {kept.alias}").fetchall()[0][0] == len(frame)


def test_relation_result_needs_no_pandas(data):
    import subprocess
    import sys
    code = (f"import sys, rankkit; r = rankkit.evaluate({str(data['qrels_path'])!r}, {str(data['run_path'])!r}, "
            f"['AP', 'nDCG@10'], relation=True); print(r.fetchall()); print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "False" and "'AP'" in out


def test_an_interval_needs_a_frame(data, tmp_path):
    with pytest.raises(rankkit.RankkitError, match="ci is computed in Python"):
        rankkit.evaluate(data["qrels_path"], data["run_path"], ["AP"], ci=0.95, relation=True)


def test_cli_reads_csv_and_parquet_with_memory_limit(data, tmp_path, capsys):
    data["run"].to_parquet(tmp_path / "run.parquet")
    data["qrels"].rename(columns={"relevance": "clicks"}).to_csv(tmp_path / "clicks.csv", index=False)
    args = ["-m", "AP", "--memory-limit", "200MB", "--temp-directory", str(tmp_path / "spill"), "--threads", "1"]
    assert main(["eval", *args, str(data["qrels_path"]), str(data["run_path"])]) == 0
    text_out = capsys.readouterr().out
    assert main(["eval", *args, "--column", "clicks=relevance", str(tmp_path / "clicks.csv"),
                 str(tmp_path / "run.parquet")]) == 0
    assert capsys.readouterr().out.split("\t")[1:] == text_out.split("\t")[1:]
    out = tmp_path / "out.csv"
    assert main(["eval", "-q", *args, "-o", str(out), str(data["qrels_path"]), str(data["run_path"]),
                 str(tmp_path / "run.parquet")]) == 0
    written = pd.read_csv(out, dtype={"query_id": str})
    assert set(written["system"]) == {"run", "run (2)"} and capsys.readouterr().out == ""  # stems made unique
    assert written.groupby("system")["value"].sum().nunique() == 1


def test_check_prints_the_diagnosis_without_evaluating(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 c 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1 s\nq1 Q0 b 2 1 s\nq1 Q0 x 3 0.5 s\nq3 Q0 a 1 1 s\n")
    assert main(["check", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 0
    captured = capsys.readouterr()
    assert "in common 1, run only 1, qrels only 1" in captured.out
    assert "2 queries, 4 judgments, 1 duplicate\n" in captured.out and "2 documents in 1 query share a score" in captured.out
    assert "judged@10\t0.6667" in captured.out
    assert "warning:" in captured.err and "q3" in captured.err


def test_check_counts_tied_queries_per_system(tmp_path, capsys):
    """Two systems tied on the same query were '2 queries' of a one-query run: each system's ties are its own."""
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1 s\nq1 Q0 b 2 1 s\nq1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 c 3 1 t\n")
    assert main(["check", "--split-by-tag", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 0
    assert ("ties\tper system: s 2 documents in 1 query, t 3 documents in 1 query share a score with another of "
            "their query") in capsys.readouterr().out


def test_sql_macros_recognise_common_column_names(data):
    """SQL users get the same recognition: rankkit.run_rows / qrels_rows read qid, docno, rel, sim, tag."""
    con = rankkit.connect()
    con.register("q_frame", data["qrels"].rename(columns={"query_id": "topic", "doc_id": "docno", "relevance": "rel"}))
    con.register("r_frame", data["run"].rename(columns={"query_id": "qid", "doc_id": "docid", "score": "sim",
                                                        "system": "tag"}))
    con.execute("CREATE TABLE judgments AS FROM q_frame")
    con.execute("CREATE TABLE results AS FROM r_frame")
    got = con.execute("SELECT measure, query_id, value FROM rankkit.evaluate_queries('judgments', 'results', ?)",
                      [MEASURES]).df()
    pd.testing.assert_frame_equal(got, values(data), check_exact=False, rtol=1e-12)


def test_equal_keys_of_different_documents_do_not_match():
    """A run table may carry rankkit_key, hash(query_id, doc_id), as parsed text does: with keyed := true
    the join uses it, and equal keys of different documents (here unjudged rows with a judged row's key) must
    not match. Few judgments per query, so that the engine ranks by counting, which uses the key."""
    qrels, run = sample()
    qrels = qrels.groupby("query_id").head(3)
    con = rankkit.connect()
    con.register("r_frame", run)
    con.register("q_frame", qrels)
    # a few unjudged rows per query (more would send the query to the window, which needs no key)
    con.execute("CREATE VIEW keyed AS SELECT r.*, CASE WHEN q.doc_id IS NULL AND hash(r.doc_id) % 5 = 0 "
                "THEN (SELECT hash(query_id, doc_id) FROM q_frame ORDER BY ALL LIMIT 1) "
                "ELSE hash(r.query_id, r.doc_id) END AS rankkit_key "
                "FROM r_frame r LEFT JOIN q_frame q USING (query_id, doc_id)")
    query = ("SELECT measure, query_id, value FROM rankkit.per_query('q_frame', ?, (SELECT list(spec ORDER BY spec.i) "
             "FROM rankkit.measure_specs(?)), keyed := ?) ORDER BY i, query_id")
    got, expected = (con.execute(query, [table, MEASURES, keyed]).df() for table, keyed in (("keyed", True), ("r_frame", False)))
    assert expected["value"].gt(0).any()
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)


def test_the_engine_joins_on_the_key_only_where_every_row_stores_it(data, monkeypatch):
    # a key computed on the fly has no statistics: DuckDB would misjudge the join (see 20_engine.sql)
    from rankkit import statement
    from rankkit.inputs import checked_sources
    from rankkit.specs import measure_specs

    monkeypatch.setattr(statement, "WINDOW_ROWS", 0)  # these small runs as large ones: rankkit.ranks joins
    con = rankkit.connect()
    specs = measure_specs(con, ["AP"])
    for run, keyed in ((data["run_path"], True), (data["run"], False), ([data["run_path"], data["run_path"]], True),
                       ([data["run_path"], data["run"]], False)):
        with checked_sources(con, data["qrels_path"], run, None, "error", False) as (qrels, source):
            query = statement.evaluation_query(qrels, source, specs, False, None, rankkit.Conventions())[0]
            assert f"keyed := {str(keyed).lower()}" in query, run


def test_a_list_of_runs_mixes_text_and_frames(data):
    con = rankkit.connect()
    got = rankkit.evaluate(data["qrels"], {"text": data["run_path"], "frame": data["run"]}, ["AP", "P@5"], con=con)
    pivot = got.pivot(index="measure", columns="system", values="value")
    pd.testing.assert_series_equal(pivot["text"], pivot["frame"], check_names=False, rtol=1e-12)


def test_duckdb_shell_reads_common_column_names(tmp_path):
    """The duckdb 1.5 shell, fed `rankkit macros`, evaluates a table with other column names."""
    import shutil
    import subprocess
    import sys

    shell = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(shell).exists():
        pytest.skip("the duckdb shell (duckdb-cli package) is not installed")
    from rankkit.macros import script

    (tmp_path / "rankkit.sql").write_text(script())
    commands = (f".read {tmp_path / 'rankkit.sql'}\n"
                "CREATE TABLE j AS SELECT * FROM (VALUES ('1', 'a', 1), ('1', 'b', 0), ('2', 'c', 2)) t(topic, docno, rel);\n"
                "CREATE TABLE r AS SELECT * FROM (VALUES (1, 'a', 2.0, 'bm'), (1, 'b', 3.0, 'bm'), (2, 'c', 1.0, 'bm')) "
                "t(qid, docid, sim, tag);\n"
                "SELECT measure, system, value FROM rankkit.evaluate('j', 'r', ['RR', 'NumRet']);\n")
    out = subprocess.run([shell, "-csv"], input=commands, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["measure,system,value", "RR,bm,0.75", "NumRet,bm,3.0"], out.stderr


def test_a_union_of_read_runs_is_read_again_not_mistaken_for_its_left_side(data):
    con = rankkit.connect()
    first = rankkit.read_run(data["run"], con=con, system="a")
    second = rankkit.read_run(data["run"], con=con, system="b")
    got = rankkit.evaluate(data["qrels"], first.union(second), ["AP"], con=con)
    assert got["system"].tolist() == ["a", "b"]


def temp_objects(con) -> set[str]:
    tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    views = con.execute("SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal").fetchall()
    return {row[0] for row in tables + views}


def test_evaluate_leaves_nothing_behind_but_keeps_what_read_functions_return(data, tmp_path):
    con = rankkit.connect()
    before = temp_objects(con)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        rankkit.evaluate(data["qrels"], {"a": data["run"], "b": data["run_path"]}, ["AP"], con=con)
        rankkit.evaluate(data["qrels_path"], data["run"], ["AP"], con=con, output=tmp_path / "x.parquet")
        with pytest.raises(rankkit.InputError):
            rankkit.evaluate(data["qrels"], [data["run"], tmp_path / "missing.txt"], ["AP"], con=con)
    assert temp_objects(con) == before
    run = rankkit.read_run(data["run"], con=con)
    kept = temp_objects(con)
    rankkit.evaluate(data["qrels"], run, ["AP"], con=con)
    assert temp_objects(con) == kept and run.fetchall()


def test_qrels_read_once_keep_their_query_side_until_forgotten(data):
    # a read_qrels result evaluated again and again: its query features are made once and kept, the
    # values bit for bit those of qrels read for the call alone, under every option that shapes them
    con = rankkit.connect()
    qrels, run = rankkit.read_qrels(data["qrels_path"], con=con), rankkit.read_run(data["run_path"], con=con)

    def kept() -> list:
        return con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'rankkit_qrels_features%'"
                           ).fetchall()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        for options in ({}, {"queries": "qrels"}, {"ties": "average"}, {"rel": 2}):
            measures = ["nDCG@10", "nDCG(gain=exp)@5", "DCG@3"] if options.get("ties") else MEASURES
            alone = rankkit.evaluate(data["qrels_path"], run, measures, per_query=True, con=con, **options)
            for _ in range(2):
                again = rankkit.evaluate(qrels, run, measures, per_query=True, con=con, **options)
                assert again["value"].equals(alone["value"]), options
        made = len(kept())
        assert made == 3  # one a query side (queries='qrels' shares the default's), not one a call
        rankkit.evaluate(qrels, run, MEASURES, con=con)
        assert len(kept()) == made
    rankkit.io.forget(con, qrels)
    assert kept() == []
