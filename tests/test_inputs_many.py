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
