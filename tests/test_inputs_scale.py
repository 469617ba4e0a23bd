"""Runs larger than the memory limit: DuckDB spills to the temp directory and the numbers hold.

Also the progress-bar plumbing (without timing assertions: a fake clock-free source of progress).
"""

from __future__ import annotations

import threading

import duckdb
import pandas as pd
import pytest

import rankkit
from rankkit.progress import Progress

ROWS = 5_000_000
MEASURES = ["nDCG@10", "AP", "P@10", "RR", "bpref"]


def generate(folder) -> tuple[str, str]:
    """5M run rows (5000 queries x 1000 documents) and 250k judgments, written by DuckDB itself."""
    run, qrels = str(folder / "run.parquet"), str(folder / "qrels.parquet")
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"COPY (SELECT 'q' || (i // 1000) AS qid, 'd' || i AS docno, ((hash(i * 7) % 100000) / 8.0)::DOUBLE "
                f"AS sim FROM range({ROWS}) t(i)) TO '{run}'")
    con.execute(f"COPY (SELECT 'q' || (i // 1000) AS query_id, 'd' || i AS doc_id, (hash(i) % 4)::INTEGER AS rel "
                f"FROM range({ROWS}) t(i) WHERE hash(i * 3) % 20 = 0) TO '{qrels}'")
    return qrels, run


class Watcher:
    """Samples the bytes in DuckDB's temporary files from a second cursor while evaluation runs."""

    def __init__(self, con):
        self.cursor, self.sizes, self.done = con.cursor(), [0], threading.Event()
        self.thread = threading.Thread(target=self.poll, daemon=True)

    def poll(self):
        while not self.done.is_set():
            self.sizes.append(self.cursor.execute(
                "SELECT coalesce(sum(size), 0) FROM duckdb_temporary_files()").fetchall()[0][0])
            self.done.wait(0.1)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


@pytest.mark.slow
def test_five_million_rows_under_300mb_spill_and_agree_with_the_unlimited_run(tmp_path):
    qrels, run = generate(tmp_path)
    spill = tmp_path / "spill"
    limited = rankkit.connect(memory_limit="300MB", temp_directory=str(spill), threads=2)
    with Watcher(limited) as watcher:
        small = rankkit.evaluate(qrels, run, MEASURES, con=limited, progress=False)
    # DuckDB wrote temporary files (it spilled) and still finished: more than the limit went to disk.
    assert max(watcher.sizes) > 0, "no temporary files seen: the test no longer exercises spilling"
    big = rankkit.evaluate(qrels, run, MEASURES, con=rankkit.connect(threads=2), progress=False)
    assert small["queries"].tolist() == [5000] * len(MEASURES)
    pd.testing.assert_frame_equal(small, big, check_exact=False, rtol=1e-12)


# ---- progress ---------------------------------------------------------------------------------

class FakeConnection:
    """Reports progress 10, 20, ... 100; no DuckDB, no clock."""

    def __init__(self):
        self.values = iter(range(10, 101, 10))
        self.settings = []

    def execute(self, sql):
        self.settings.append(sql)

    def query_progress(self):
        return float(next(self.values, 100))


class Recorder:
    def __init__(self, label):
        self.label, self.n, self.updates, self.closed = label, 0, [], False

    def update(self, step):
        self.n += step
        self.updates.append(self.n)

    def refresh(self):
        pass

    def close(self):
        self.closed = True


def test_progress_feeds_the_bar_from_query_progress_and_closes_it():
    bars = []
    con = FakeConnection()
    with Progress(con, "evaluating", enabled=True, delay=0, interval=0.001,
                  bar=lambda label: bars.append(Recorder(label)) or bars[-1]):
        while not bars or bars[0].n < 100:
            threading.Event().wait(0.001)
    assert "SET enable_progress_bar_print = false" in con.settings
    (bar,) = bars
    assert bar.label == "evaluating" and bar.closed
    assert bar.updates == sorted(bar.updates) and bar.n == 100


def test_progress_is_off_when_not_enabled_and_quiet_for_short_steps():
    made = []
    with Progress(FakeConnection(), "x", enabled=False, delay=0, bar=made.append):
        pass
    with Progress(FakeConnection(), "y", enabled=True, delay=60, bar=made.append):
        pass  # leaves long before the delay: no bar
    assert made == []


def test_progress_is_off_when_stderr_is_not_a_terminal(capsys):
    from rankkit.progress import interactive

    assert interactive() is False  # pytest captures stderr: not a terminal, not a notebook


def test_evaluate_runs_with_a_real_bar_enabled(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1.0 s\n")
    got = rankkit.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", ["AP"], con=rankkit.connect(), progress=True)
    assert got["value"].tolist() == [1.0]
