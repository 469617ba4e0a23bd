"""One answer everywhere (issue 10): the same input gives the same numbers on every run, through the
command line, Python and SQL, or a clear error. One test per reproduction in the issue; each failed
on the main branch it was reported against."""

from __future__ import annotations

import pandas as pd
import pytest

import rankkit
from rankkit.cli import main
from support import shared_path

pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")


def cli(capsys, *args: str) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---- 1. the same numbers on every run ------------------------------------------------------------

def test_a_mean_prints_trec_evals_digit_on_every_run(capsys):
    """P.200 on robust03/humR03dc printed 0.0673 in 14 of 20 runs and 0.0674 (trec_eval's) in 6."""
    folder = shared_path("data", "trectools")
    printed = set()
    for threads in (1, 2, 4, 4, 4, 4, 8, 8):
        status, out, _ = cli(capsys, "eval", "--threads", threads, "-m", "P.200",
                             folder / "robust03_qrels.txt.gz", folder / "input.humR03dc.gz")
        assert status == 0
        printed.add(out)
    assert printed == {"P_200                 \tall\t0.0674\n"}


def test_compare_with_a_seed_repeats_to_the_bit():
    """Two calls of compare(..., test="permutation", seed=7) on the same frames differed in diff, the
    interval and the effect size (about 1e-17) in roughly half the tries."""
    folder = shared_path("data", "trectools")
    con = rankkit.connect(threads=4)
    qrels = rankkit.read_qrels(folder / "robust03_qrels.txt.gz", con=con).df()
    runs = {name: rankkit.read_run(folder / f"input.{name}.gz", con=con).df()
            for name in ("humR03dc", "pircRBa1", "UIUC03Rd1")}
    results = [rankkit.compare(qrels, runs, ["AP", "nDCG@10", "P@200"], baseline="humR03dc",
                               test="permutation", seed=7, resamples=2000, con=con) for _ in range(6)]
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other, check_exact=True)
    means = rankkit.evaluate(qrels, runs, ["AP", "nDCG@10", "P@200"], con=con)
    for row in results[0].itertuples():  # compare's means are evaluate's, to the bit
        assert row.mean == means.query("measure == @row.measure and system == @row.system")["value"].item()
