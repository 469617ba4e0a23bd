"""Many TREC run files in one call (evaluate(qrels, [paths]), `rankkit eval qrels runs/*.run`): read
together in one pass, with each file checked as when it is read alone, and a bad file named."""

from __future__ import annotations

import gzip

import pytest

import rankkit
from rankkit import InputError
from rankkit.cli import main
from rankkit.io import trec_text

pytestmark = pytest.mark.filterwarnings("ignore::rankkit.RankkitWarning")

QRELS = "q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq2 0 c 1\nq2 0 d 3\n"
MEASURES = ["nDCG@10", "AP", "RR", "P@2", "num_ret"]


def run_text(seed: int, tag: str = "s", sep: str = " ") -> str:
    """A small run whose ranking differs with ``seed``."""
    docs = ["a", "b", "c", "d", "e"]
    lines = []
    for query in ("q1", "q2"):
        order = docs[seed % 5:] + docs[:seed % 5]
        lines += [sep.join([query, "Q0", doc, str(rank), f"{10 - rank}.5", tag]) for rank, doc in enumerate(order, 1)]
    return "\n".join(lines) + "\n"


def write_runs(tmp_path, count: int = 5) -> list:
    paths = []
    for i in range(count):
        path = tmp_path / f"run{i}.txt"
        path.write_text(run_text(i, tag=f"t{i}"))
        paths.append(path)
    (tmp_path / "q.txt").write_text(QRELS)
    return paths


def one_by_one(qrels, paths, names=None) -> dict:
    """Each run evaluated alone: {(measure, system): value}."""
    found = {}
    for path, name in zip(paths, names or [p.name.split(".")[0] for p in paths]):
        frame = rankkit.evaluate(qrels, path, MEASURES, con=rankkit.connect())
        found.update({(m, name): v for m, v in zip(frame["measure"], frame["value"])})
    return found


def together(qrels, runs) -> dict:
    frame = rankkit.evaluate(qrels, runs, MEASURES, con=rankkit.connect())
    return {(m, s): v for m, s, v in zip(frame["measure"], frame["system"], frame["value"])}


def test_a_list_of_trec_files_is_read_in_one_pass_with_each_files_values(tmp_path, monkeypatch):
    paths = write_runs(tmp_path)
    expected = one_by_one(tmp_path / "q.txt", paths)
    reads, original = [], trec_text._read_trec
    monkeypatch.setattr(trec_text, "_read_trec", lambda *args: reads.append(args[1]) or original(*args))  # one file's
    assert together(tmp_path / "q.txt", paths) == expected  # bit for bit, every system named by its file
    assert reads == [tmp_path / "q.txt"]  # the qrels; no run was read alone


def test_systems_keep_the_names_given(tmp_path):
    paths = write_runs(tmp_path, 3)
    frame = rankkit.evaluate(tmp_path / "q.txt", {"z": paths[2], "a": paths[0], "m": paths[1]}, ["AP"],
                             con=rankkit.connect())
    assert sorted(frame["system"]) == ["a", "m", "z"]
    assert together(tmp_path / "q.txt", {"z": paths[2], "a": paths[0]}) == one_by_one(
        tmp_path / "q.txt", [paths[2], paths[0]], names=["z", "a"])


def test_a_file_listed_twice_is_two_runs_with_equal_values(tmp_path):
    paths = write_runs(tmp_path, 2)
    found = together(tmp_path / "q.txt", [paths[0], paths[1], paths[0]])
    assert sorted({s for _, s in found}) == ["run0", "run0 (2)", "run1"]
    assert all(found[(m, "run0 (2)")] == found[(m, "run0")] for m, _ in found)


@pytest.mark.parametrize("odd", ["gzip", "tabs", "comment", "extra field", "carriage return"])
def test_a_file_that_needs_reading_alone_among_many_gives_its_own_values(tmp_path, odd):
    paths = write_runs(tmp_path)
    text = run_text(2, tag="t2")
    if odd == "gzip":
        paths[2] = tmp_path / "run2.txt.gz"
        paths[2].write_bytes(gzip.compress(text.encode()))
    elif odd == "tabs":
        paths[2].write_text(text.replace(" ", "\t"))
    elif odd == "comment":
        paths[2].write_text("# made by hand\n" + text)
    elif odd == "extra field":
        paths[2].write_text(text.replace(" t2\n", " t2 extra\n"))
    else:
        paths[2].write_text(text.replace("\n", "\r\n"))
    assert together(tmp_path / "q.txt", paths) == one_by_one(tmp_path / "q.txt", paths)


@pytest.mark.parametrize("bad, where, problem", [
    ("q1 Q0 a 1 2.0\n", ":1:", "expected 6 fields"),
    ("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 nan s\n", ":2:", "the score 'nan' is not a finite number"),
    ("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 inf s\n", ":2:", "is not a finite number"),
    ("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 high s\n", ":2:", "the score 'high' is not a finite number"),
    ("q1 Q0 a 1 2.0 s\nq1 Q0 a 2 1.0 s\n", ":2:", "duplicate document a for query q1"),
    ("", "", "the file is empty"),
    ("# only a comment\n", "", "holds only comment lines"),
])
def test_one_bad_file_among_many_is_named_with_its_line(tmp_path, bad, where, problem):
    paths = write_runs(tmp_path, 6)
    paths[4].write_text(bad)
    with pytest.raises(InputError) as caught:
        rankkit.evaluate(tmp_path / "q.txt", paths, ["AP"], con=rankkit.connect())
    assert f"{paths[4]}{where}" in str(caught.value) and problem in str(caught.value), str(caught.value)
    assert str(paths[3]) not in str(caught.value)


def test_a_failed_read_together_leaves_nothing_behind(tmp_path):
    paths = write_runs(tmp_path, 4)
    paths[1].write_text("q1 Q0 a 1 2.0 s\nq1 Q0 a 2 1.0 s\n")  # found by the checks after the read
    con = rankkit.connect()
    before = con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()
    with pytest.raises(InputError):
        rankkit.evaluate(tmp_path / "q.txt", paths, ["AP"], con=con)
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall() == before


def test_cli_names_the_bad_run_among_many(capsys, tmp_path):
    paths = write_runs(tmp_path, 5)
    paths[3].write_text("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 two s\n")
    status = main(["eval", "-m", "map", str(tmp_path / "q.txt"), *map(str, paths)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and f"{paths[3]}:2:" in err[0], err


def printed(capsys) -> list[tuple[str, ...]]:
    return [tuple(field.strip() for field in line.split("\t")) for line in capsys.readouterr().out.splitlines()]


def test_cli_prints_each_run_of_many_as_alone(capsys, tmp_path):
    paths = write_runs(tmp_path, 4)
    assert main(["eval", "-m", "map", "-m", "P.2", str(tmp_path / "q.txt"), *map(str, paths)]) == 0
    together_out = printed(capsys)
    alone = []
    for path in paths:
        assert main(["eval", "-m", "map", "-m", "P.2", str(tmp_path / "q.txt"), str(path)]) == 0
        alone += [(path.stem, *line) for line in printed(capsys)]
    assert together_out == alone


# ---- a glob of TREC run files: its files, sorted, each a run as if listed (as SQL's read_trec_run) ----

def glob_folder(tmp_path):
    """runs/ holding three runs (one gzipped), the qrels beside it."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (tmp_path / "q.txt").write_text(QRELS)
    (folder / "b.run").write_text(run_text(1))
    (folder / "a.run.gz").write_bytes(gzip.compress(run_text(2).encode()))
    (folder / "c.run").write_text(run_text(3))
    return folder, [folder / "a.run.gz", folder / "b.run", folder / "c.run"]


def test_a_glob_of_trec_files_is_its_files_sorted_each_a_run(tmp_path, capsys):
    folder, files = glob_folder(tmp_path)
    qrels, con = tmp_path / "q.txt", rankkit.connect()

    def values(runs):
        frame = rankkit.evaluate(qrels, runs, MEASURES, con=con)
        return frame[["measure", "system", "value"]].values.tolist()

    expected = values(files)  # each file evaluated as when listed (test above: as when alone)
    assert values(str(folder / "*.run*")) == expected
    assert values([str(folder / "[bc].run"), files[0]]) == values(files[1:] + files[:1])  # in its place in a list
    sql = con.execute(f"SELECT DISTINCT system FROM rankkit.read_trec_run('{folder}/*.run*') ORDER BY 1").fetchall()
    assert [name for name, in sql] == ["a", "b", "c"]  # the names SQL gives the same glob
    assert rankkit.compare(qrels, str(folder / "*"), "AP", baseline="a", con=con)["system"].tolist() == ["b", "c"]
    assert main(["eval", "-m", "map", str(qrels), str(folder / "*")]) == 0
    by_glob = printed(capsys)
    assert main(["eval", "-m", "map", str(qrels), *map(str, files)]) == 0
    assert by_glob == printed(capsys)


def test_a_glob_matching_no_run_file_is_refused_naming_the_file(tmp_path, capsys):
    folder, files = glob_folder(tmp_path)
    qrels = tmp_path / "q.txt"
    (folder / "q.txt").write_text(QRELS)
    (folder / "t.csv").write_text("query_id,doc_id,score\nq1,a,1\n")
    for pattern, said in ((folder / "*.none", f"{folder}/*.none: no file matches the glob"),
                          (folder / "*.txt", f"{folder}/q.txt (matched by {folder}/*.txt): its first line has 4 "
                                             f"fields, as TREC qrels do"),
                          (folder / "t*", f"{folder}/t.csv (matched by {folder}/t*): is a table (Parquet, or CSV")):
        with pytest.raises(InputError) as raised:
            rankkit.evaluate(qrels, str(pattern), "AP")
        assert said in str(raised.value)
        assert main(["compare", "-m", "AP", str(qrels), str(pattern), str(files[1])]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and said in err[0], err
    with pytest.raises(InputError, match="is a glob of TREC run files, each a run named by its file"):
        rankkit.evaluate(qrels, {"mine": str(folder / "*.run")}, "AP")


def test_a_glob_s_files_are_guarded_and_read_each_as_it_needs(tmp_path, capsys):
    """-o onto a file the glob matches is refused; a FIFO among them is read once, by its own reading."""
    import os
    import threading

    folder, files = glob_folder(tmp_path)
    (folder / "d.txt").write_text(run_text(4))
    before = (folder / "d.txt").read_bytes()
    assert main(["compare", "-m", "AP", str(tmp_path / "q.txt"), str(folder / "*"), "-o", str(folder / "d.txt")]) == 2
    assert "is the same file as the run" in capsys.readouterr().err and (folder / "d.txt").read_bytes() == before
    os.mkfifo(folder / "e.run")
    writer = threading.Thread(target=lambda: (folder / "e.run").write_text(run_text(4)), daemon=True)
    writer.start()
    found = together(tmp_path / "q.txt", str(folder / "*.run"))
    writer.join(5)
    assert {system for _, system in found} == {"b", "c", "e"}
    assert {(m, "d"): v for (m, s), v in found.items() if s == "e"} == one_by_one(tmp_path / "q.txt", [folder / "d.txt"])


def test_a_report_of_a_glob_records_its_files_and_verifies(tmp_path, capsys):
    """The call a report records names the files the glob matched: verify reads them, not what the
    folder holds later."""
    folder, files = glob_folder(tmp_path)
    made = rankkit.report(tmp_path / "q.txt", str(folder / "*.run*"), "AP", ci=None, resamples=200)
    assert repr([str(file) for file in files]) in made.record["call"]
    assert [item["name"] for item in made.record["inputs"] if item["role"] == "run"] == ["a", "b", "c"]
    assert main(["report", "-m", "AP", "--ci", "0", str(tmp_path / "q.txt"), str(folder / "[ab].run*"),
                 "-o", str(tmp_path / "cli.json")]) == 0
    (folder / "aa.run").write_text(run_text(4))  # matched by the glob now: not by the report's call
    assert main(["verify", str(tmp_path / "cli.json")]) == 0, capsys.readouterr()
    assert f"q.txt {files[0]} {files[1]} -m AP" in rankkit.Report.load(tmp_path / "cli.json").record["call"]
