"""Bad input: exit status 2 and one line on stderr naming the file, line and problem."""

from __future__ import annotations

import gzip

import pytest

from rankkit.cli import main

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN = "q1 Q0 a 1 2.5 sys\nq1 Q0 b 2 1.5 sys\nq2 Q0 c 1 1.0 sys\n"


def run_cli(capsys, tmp_path, qrels=QRELS, run=RUN, args=("-m", "map")):
    q = tmp_path / "qrels.txt"
    r = tmp_path / "run.txt"
    if qrels is not None:
        q.write_text(qrels)
    if run is not None:
        r.write_text(run)
    status = main(["eval", *args, str(q), str(r)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.strip().splitlines()


def test_good_input_exits_0(capsys, tmp_path):
    status, out, err = run_cli(capsys, tmp_path)
    assert status == 0 and err == []
    assert out == "map                   \tall\t1.0000\n"  # trec_eval's names: trec_eval's lines, no num_q


@pytest.mark.parametrize(
    ("qrels", "run", "where", "problem"),
    [
        (QRELS, "q1 Q0 a 1 2.5 sys\nq1 Q0 b 2 1.5\n", "run.txt:2", "expected 6 fields"),
        ("q1 0 a 1\nq1 a 1\n", RUN, "qrels.txt:2", "expected 4 fields"),
        (QRELS, "q1 Q0 a 1 2.5 sys\nq1 Q0 b 2 high sys\n", "run.txt:2", "score 'high' is not a finite number"),
        ("q1 0 a 1\nq1 0 b yes\n", RUN, "qrels.txt:2", "relevance 'yes' is not a finite number"),
        (QRELS, "q1 Q0 a 1 2.5 sys\nq1 Q0 a 2 1.5 sys\n", "run.txt:2", "duplicate document a for query q1"),
        ("q1 0 a 1\nq1 0 a 0\n", RUN, "qrels.txt:2", "duplicate document a for query q1"),
        (QRELS, "q1 Q0 a 1 nan sys\n", "run.txt:1", "score 'nan' is not a finite number"),
        ("", RUN, "qrels.txt", "empty"),
        (QRELS, "\n", "run.txt", "the file is empty"),
        (QRELS, "# only a comment\n\n", "run.txt", "the file holds only comment lines (1 line starting with #)"),
    ],
)
def test_bad_file_names_file_line_and_problem(capsys, tmp_path, qrels, run, where, problem):
    status, out, err = run_cli(capsys, tmp_path, qrels, run)
    assert status == 2 and out == ""
    assert len(err) == 1, err
    assert where in err[0] and problem in err[0], err[0]


def test_missing_file(capsys, tmp_path):
    status, _, err = run_cli(capsys, tmp_path, run=None)
    assert status == 2 and len(err) == 1
    assert "run.txt: no such file" in err[0]


@pytest.mark.parametrize("name", ["my_run", "bm25.run", "runs/bm25.run"])
def test_missing_file_speaks_of_files_only(capsys, tmp_path, monkeypatch, name):
    """The command line reads files, never tables: a missing one is a file not found, named as given."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    status = main(["eval", "qrels.txt", name])
    err = capsys.readouterr().err
    assert status == 2 and err == f"rankkit eval: {name}: no such file\n"


@pytest.mark.parametrize(
    ("measure", "problem"),
    [
        ("nDGC@10", "unknown measure 'nDGC@10'; did you mean nDCG"),
        ("P@0", "the cutoff after @ must be a positive integer, got '0'"),
        ("P@ten", "the cutoff after @ must be a positive integer, got 'ten'"),
        ("nDCG@-3", "the cutoff after @ must be a positive integer, got '-3'"),
        ("nDCG(gain=cubic)@5", "gain must be linear or exp, got cubic"),
        ("AP(colour=red)", "unknown or empty parameter 'colour=red'"),
    ],
)
def test_bad_measure(capsys, tmp_path, measure, problem):
    status, _, err = run_cli(capsys, tmp_path, args=("-m", measure))
    assert status == 2 and len(err) == 1
    assert problem in err[0], err[0]


def test_bad_depth_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit) as exited:
        run_cli(capsys, tmp_path, args=("-m", "map", "-M", "0"))
    assert exited.value.code == 2
    assert "expected a positive integer, got '0'" in capsys.readouterr().err


def test_gzip_input_reads_like_plain(capsys, tmp_path):
    q = tmp_path / "qrels.txt.gz"
    r = tmp_path / "run.txt.gz"
    q.write_bytes(gzip.compress(QRELS.encode()))
    r.write_bytes(gzip.compress(RUN.encode()))
    assert main(["eval", "-m", "map", "-m", "P_1", str(q), str(r)]) == 0
    assert capsys.readouterr().out == ("map                   \tall\t1.0000\n"
                                       "P_1                   \tall\t1.0000\n")


@pytest.mark.parametrize("command, required", [("compare", ["-m", "AP"]), ("report", ["-m", "AP", "-o", "{tmp}/r.html"]),
                                               ("check", [])])
def test_only_eval_offers_subtopic_judgments(capsys, tmp_path, command, required):
    # these commands read no subtopic judgments: they offered --subtopics and ignored the file given
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    with pytest.raises(SystemExit) as stopped:
        main([command, str(tmp_path / "q.txt"), str(tmp_path / "r.run"), *[a.format(tmp=tmp_path) for a in required],
              "--subtopics", str(tmp_path / "q.txt")])
    assert stopped.value.code == 2 and "unrecognized arguments: --subtopics" in capsys.readouterr().err
    assert "--subtopics" in _help(capsys, "eval")


def _help(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["eval", "compare", "check", "agree"])
def test_a_name_too_long_for_the_system_is_one_line(capsys, tmp_path, monkeypatch, command):
    """A file name over 255 bytes: as a NAME=PATH run it is a name (the run is read), as a path the
    system's refusal in one line naming it, never a traceback."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    long = "x" * 300
    qrels = ["qrels.txt", "qrels.txt"] if command == "agree" else ["qrels.txt"]
    measure = ["-m", "P@2"] if command in ("compare", "agree") else []
    assert main([command, *qrels, f"{long}=run.txt", "run.txt", *measure]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main([command, *qrels, long, *measure]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"rankkit {command}: {long}: File name too long"]
