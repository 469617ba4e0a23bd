"""rankkit eval as trec_eval: nicknames, family names, parameter forms, -J, -N, -n and - for stdin,
on a small collection whose values are worked out by hand below. (test_conformance.py holds the
line-for-line proof against trec_eval's own files.)"""

from __future__ import annotations

import io
import sys

import pytest

import rankkit
from rankkit.cli import main

# q1 ranks a (1), x (unjudged), b (0), c (2); q1 also judges d (1), so R = 3 (a, c, d).
# q2 ranks e (0) and judges f (1). The tag of the last line is the runid.
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 d 1\nq2 0 e 0\nq2 0 f 1\n"
RUN = ("q1 Q0 a 1 4.0 first\nq1 Q0 x 2 3.0 first\nq1 Q0 b 3 2.0 first\nq1 Q0 c 4 1.0 first\n"
       "q2 Q0 e 1 1.0 last\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def lines(capsys, *args) -> list[list[str]]:
    assert main(["eval", *args]) == 0
    return [line.split("\t") for line in capsys.readouterr().out.splitlines()]


def test_no_measure_prints_trec_eval_official_set(capsys, files):
    got = lines(capsys, *files)
    assert [row[0].strip() for row in got][:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert got[0] == ["runid                 ", "all", "last"]  # the tag of the file's last line
    assert ["num_q                 ", "all", "2"] in got
    assert [row[0].strip() for row in got][-1] == "P_1000" and len(got) == 1 + 1 + 3 + 1 + 1 + 3 + 11 + 9


def test_per_query_lines_leave_out_what_trec_eval_prints_only_in_summary(capsys, files):
    got = lines(capsys, "-q", "-m", "all_trec", *files)
    per_query = {row[0].strip() for row in got if row[1] != "all"}
    summary = {row[0].strip() for row in got if row[1] == "all"}
    assert {"runid", "num_q", "gm_map", "gm_bpref"} & per_query == set()
    assert "relstring" in per_query and "relstring" not in summary
    assert ["relstring             ", "q1", "'1-02'"] in got
    assert len(summary) == 99  # the 99 summary lines of all_trec (relstring is per query only)


def test_family_names_and_parameter_forms(capsys, files):
    got = lines(capsys, "-m", "P.3,1,2", "-m", "unj", "-m", "iprec_at_recall..5", "-m", "set_F.0.5", *files)
    assert [row[0].strip() for row in got] == ["iprec_at_recall_0.50", "P_1", "P_2", "P_3", "set_F_0.5",
                                               "unj_5", "unj_10", "unj_20"]
    values = {row[0].strip(): row[2] for row in got}
    # q1: P_1 = 1, P_2 = 1/2, P_3 = 1/3; q2: 0 -> means 0.5, 0.25, 0.1667
    assert (values["P_1"], values["P_2"], values["P_3"]) == ("0.5000", "0.2500", "0.1667")
    # q1: one unjudged in the top 5 (of 4 retrieved): 1/5; q2: 0
    assert values["unj_5"] == "0.1000"
    # q1: round(0.5 x 3) = 2 relevant: precision 2/4 at c; q2: 0
    assert values["iprec_at_recall_0.50"] == "0.2500"


def test_judged_only_ranks_the_judged_documents_among_themselves(capsys, files):
    plain = {row[0].strip(): row[2] for row in lines(capsys, "-q", "-m", "P.2", "-m", "num_ret", *files) if row[1] == "q1"}
    judged = {row[0].strip(): row[2] for row in lines(capsys, "-q", "-J", "-m", "P.2", "-m", "num_ret", *files)
              if row[1] == "q1"}
    assert plain == {"P_2": "0.5000", "num_ret": "4"}
    assert judged == {"P_2": "0.5000", "num_ret": "3"}  # a, b: x is gone, c moves to rank 3
    judged3 = {row[0].strip(): row[2] for row in lines(capsys, "-q", "-J", "-m", "P.3", *files) if row[1] == "q1"}
    assert judged3 == {"P_3": "0.6667"}


def test_collection_size_for_utility(capsys, files):
    # coef 0,0,0,1: non-relevant documents not retrieved = N + rel_ret - ret - rel
    got = {row[1]: row[2] for row in lines(capsys, "-q", "-N", "100", "-m", "utility.0,0,0,1", *files)}
    assert got["q1"] == "95.0000" and got["q2"] == "98.0000"  # 100 + 2 - 4 - 3; 100 + 0 - 1 - 1


def test_no_summary(capsys, files):
    got = lines(capsys, "-q", "-n", "-m", "map", *files)
    assert [row[1] for row in got] == ["q1", "q2"]


def test_run_from_standard_input(capsys, files, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    from_stdin = lines(capsys, "-m", "official", files[0], "-")
    assert from_stdin == lines(capsys, "-m", "official", *files)


def test_errors_and_warnings_about_standard_input_name_it(capsys, files, monkeypatch):
    """Not the temporary file standard input is copied to, which is gone when the message is read."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 a 1 1.0 x\nq9 Q0 b 1 1.0 x\n")))
    assert main(["eval", "-m", "AP", files[0], "-"]) == 0
    assert "warning: standard input: 1 of 2 queries have no judgments" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 a 1 1.0 x\nq1 Q0 c 2 NaN x\n")))
    assert main(["eval", "-m", "AP", files[0], "-"]) == 2
    err = capsys.readouterr().err
    assert "standard input:2: the score 'NaN' is not a finite number" in err and "rankkit-stdin" not in err


def test_ir_measures_names_in_one_argument(capsys, files):
    got = lines(capsys, "-m", "nDCG@2 P@1 AP", *files)
    assert [row[0].strip() for row in got] == ["num_q", "nDCG@2", "P@1", "AP"]  # rankkit's names: the query count


@pytest.mark.parametrize("measure, message", [
    ("P.x", "trec_eval's P takes positive integers separated by commas, got 'x'"),
    ("utility.1,2", "utility takes four numbers"),
    ("ndcg.1=x", "unknown measure 'ndcg_1=x'"),
    ("nonsense", "unknown measure 'nonsense'"),
])
def test_bad_measure_is_one_line_and_status_2(capsys, files, measure, message):
    assert main(["eval", "-m", measure, *files]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_stdin_given_twice_is_refused(capsys, files):
    assert main(["eval", files[0], "-", "-"]) == 2
    assert "standard input (-) can be read once" in capsys.readouterr().err


def test_measures_lists_the_registry(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for name in ("infAP", "IPrec", "RBP", "gm_map", "relstring", "utility", "nDCG"):
        assert f"\n{name} " in out
    assert main(["measures", "rbp_resid"]) == 0
    out = capsys.readouterr().out
    assert "rbp_resid_p={p}" in out and "  better:    neither way (it describes; no best is marked)" in out
    assert main(["measures", "Gini@10"]) == 0
    assert "  better:    lower (the lowest is best)" in capsys.readouterr().out


def test_a_family_keeps_one_parameter_list():
    from rankkit.specs import measure_specs

    def read(names) -> list[str]:
        return [spec["measure"] for spec in measure_specs(None, names, text=True)]

    assert read(["all_trec", "relstring.20"]).count("relstring_20") == 1
    assert "relstring" not in read(["all_trec", "relstring.20"]) and read(["official"])[0] == "runid"
    assert read("P.5,7,3") == ["P_3", "P_5", "P_7"]
    assert read("ndcg_cut.10,20,23.4") == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]
    assert read("Rprec_mult.5.0,0.2") == ["Rprec_mult_0.20", "Rprec_mult_5.00"]
    assert "runid" not in [spec["measure"] for spec in measure_specs(None, "official")]


def test_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    from rankkit.specs import measure_specs

    given = [ir_measures.nDCG @ 10, ir_measures.RBP, ir_measures.IPrec @ 0.5, ir_measures.P(rel=2) @ 5]
    assert [spec["measure"] for spec in measure_specs(rankkit.connect(), given)] == [
        "nDCG@10", "RBP(p=0.8)", "IPrec@0.5", "P(rel=2)@5"]
