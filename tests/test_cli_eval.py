from __future__ import annotations

from rankkit.cli import main
from support import shared_path


def test_eval_matches_trec_eval_output_byte_for_byte(capsys):
    qrels = shared_path("data", "anserini-tools", "qrels.dl19-passage.txt")
    run = shared_path("data", "rank_llm", "dl19.BM25.trec_results.txt")
    expected = shared_path("data", "rank_llm", "expected", "dl19.BM25.all_trec.q.txt")
    assert main(["eval", "-q", "-m", "ndcg_cut_10", "-m", "map", str(qrels), str(run)]) == 0
    wanted = [line for line in expected.read_text().splitlines() if line.split("\t")[0].strip() in ("ndcg_cut_10", "map")]
    assert capsys.readouterr().out.splitlines() == wanted


def test_rankkit_names_print_the_query_count(capsys):
    """With a name of rankkit's own, the summary says how many queries it averages (num_q), as
    trec_eval's num_q line; with trec_eval's names alone, trec_eval's lines (num_q where it asks)."""
    qrels = shared_path("data", "anserini-tools", "qrels.dl19-passage.txt")
    run = shared_path("data", "rank_llm", "dl19.BM25.trec_results.txt")
    assert main(["eval", "-m", "nDCG@10", "-m", "map", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "num_q                 \tall\t43"


def test_unknown_measure_exits_2_with_one_line(capsys, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\n")
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 sys\n")
    assert main(["eval", "-m", "nDGC@10", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown measure 'nDGC@10'" in err[0] and "nDCG" in err[0]
