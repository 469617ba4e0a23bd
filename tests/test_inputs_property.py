"""Randomly corrupted TREC and CSV files: a correct result or a clear error, never a wrong number.

The oracle is a plain reading of the formats (below, in a few lines of Python): when it reads a
file, rankkit must give the numbers it gives for the same rows as a DataFrame, or refuse with a
RankkitError; when it refuses, rankkit must refuse too. A file only re-spaced or commented must
be read. On the command line every outcome is exit 0, or exit 2 with one line on stderr.
"""

from __future__ import annotations

import functools
import math
import tempfile
from unittest import mock
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.cli import main

MEASURES = ["AP", "nDCG@5", "P@3", "NumRet"]
GARBAGE = ["", "abc", "nan", "inf", "-inf", "1e400", "0x1F", "1,5", "#", "\x00", "é", "NULL", "1.", "+2", "-0",
           "3.25", "１", '"', "a b", "\t", "007"]
BENIGN = ("none", "spaces", "comment", "blank")


class Refused(Exception):
    pass


@functools.cache
def shared():
    return rankkit.connect()


# ---- the oracle -------------------------------------------------------------------------------

def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise Refused(text) from None
    if not math.isfinite(value):
        raise Refused(text)
    return value


def reference_trec(data: bytes, kind: str) -> pd.DataFrame:
    rows = []
    for line in data.decode("utf-8").splitlines():
        fields = line.split()
        if not fields or line.strip().startswith("#"):
            continue
        if kind == "qrels":
            if len(fields) != 4:
                raise Refused(line)
            rows.append((fields[0], fields[2], number(fields[3])))
        else:
            if len(fields) < 6:
                raise Refused(line)
            # a TREC file is one run named by its file stem (check() writes run.txt), whatever its tags
            rows.append(("run", fields[0], fields[2], number(fields[4])))
    return frame(rows, kind)


def reference_csv(data: bytes, kind: str) -> pd.DataFrame:
    lines = [line for line in data.decode("utf-8").splitlines() if line != ""]
    if not lines or '"' in data.decode("utf-8"):
        raise Refused("empty or quoted")  # quoting is CSV's own business: rankkit may read or refuse
    header = lines[0].split(",")
    wanted = ("qid", "docno", "rel") if kind == "qrels" else ("qid", "docno", "score", "system")
    if sorted(header) != sorted(wanted):
        raise Refused("header")  # a missing or unknown column, or one named twice
    rows = []
    for line in lines[1:]:
        fields = line.split(",")
        if len(fields) != len(header):
            raise Refused(line)
        record = dict(zip(header, fields))
        if any(record[c] == "" for c in header if c in ("qid", "docno", "system")):
            raise Refused(line)
        if kind == "qrels":
            rows.append((record["qid"], record["docno"], number(record["rel"])))
        else:
            rows.append((record["system"], record["qid"], record["docno"], number(record["score"])))
    return frame(rows, kind)


def frame(rows, kind: str) -> pd.DataFrame:
    names = ["query_id", "doc_id", "relevance"] if kind == "qrels" else ["system", "query_id", "doc_id", "score"]
    table = pd.DataFrame(rows, columns=names, dtype=object)
    number_column = names[-1]
    table[number_column] = table[number_column].astype(float)
    keys = names[:-1]
    if table.duplicated(keys).any():
        raise Refused("duplicate")
    if table.empty:
        raise Refused("empty")
    return table


# ---- corrupted files --------------------------------------------------------------------------

QRELS_ROWS = [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2), ("q2", "a", 1), ("q2", "d", 0), ("q3", "e", 3)]
RUN_ROWS = [("q1", "a", 2.5), ("q1", "c", 1.0), ("q1", "x", 0.5), ("q2", "d", 3.0), ("q2", "a", 3.0),
            ("q3", "b", 1.0), ("q4", "e", 2.0)]


def records(kind: str, fmt: str) -> list[list[str]]:
    if kind == "qrels":
        body = [[q, "0", d, str(r)] if fmt == "trec" else [q, d, str(r)] for q, d, r in QRELS_ROWS]
        return body if fmt == "trec" else [["qid", "docno", "rel"]] + body
    body = [[q, "Q0", d, str(i), repr(s), "sys"] if fmt == "trec" else [q, d, repr(s), "sys"]
            for i, (q, d, s) in enumerate(RUN_ROWS, 1)]
    return body if fmt == "trec" else [["qid", "docno", "score", "system"]] + body


@st.composite
def corrupted(draw, kind: str, fmt: str) -> tuple[bytes, str]:
    rows = records(kind, fmt)
    how = draw(st.sampled_from(["none", "spaces", "comment", "blank", "field", "drop_field", "extra_field",
                                "duplicate", "drop_line", "swap", "truncate", "bytes"]))
    line = draw(st.integers(0, len(rows) - 1))
    column = draw(st.integers(0, len(rows[line]) - 1))
    if how == "field":
        rows[line][column] = draw(st.sampled_from(GARBAGE))
    elif how == "drop_field":
        del rows[line][column]
    elif how == "extra_field":
        rows[line].insert(column, draw(st.sampled_from(GARBAGE[1:])))
    elif how == "duplicate":
        rows.insert(line, list(rows[line]))
    elif how == "drop_line":
        del rows[line]
    elif how == "swap":
        other = draw(st.integers(0, len(rows[line]) - 1))
        rows[line][column], rows[line][other] = rows[line][other], rows[line][column]
    separator = "," if fmt == "csv" else " "
    lines = [separator.join(r) for r in rows]
    if how == "spaces" and fmt == "trec":
        lines = [line.replace(" ", draw(st.sampled_from(["\t", "  ", " \t "]))) + draw(st.sampled_from(["", " ", "\r"]))
                 for line in lines]
    if how == "comment" and fmt == "trec":
        lines.insert(line, "# " + draw(st.sampled_from(GARBAGE)))
    if how == "blank":
        lines.insert(line + 1, "")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if how == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    if how == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\x1f\x8b"])) + data[at:]
    return data, how


def check(qrels: tuple[bytes, str], run: tuple[bytes, str], fmt: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        suffix = ".csv" if fmt == "csv" else ".txt"
        q, r = Path(folder, "qrels" + suffix), Path(folder, "run" + suffix)
        q.write_bytes(qrels[0])
        r.write_bytes(run[0])
        reader = reference_csv if fmt == "csv" else reference_trec
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankkit.RankkitWarning)
            try:
                expected = rankkit.evaluate(reader(qrels[0], "qrels"), reader(run[0], "run"), MEASURES,
                                            per_query=True, con=shared())
            except (Refused, UnicodeDecodeError, rankkit.RankkitError):
                expected = None
            try:
                got = rankkit.evaluate(q, r, MEASURES, per_query=True, con=shared())
            except rankkit.RankkitError as error:
                message = str(error)
                assert "\n" not in message.strip() and message.strip(), message
                benign = qrels[1] in BENIGN and run[1] in BENIGN
                assert expected is None or not benign, f"a readable file was refused: {message}"
                got = None
        if got is not None:
            assert expected is not None, "rankkit read a file the formats do not allow"
            pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)
        cli(q, r)


def cli(q: Path, r: Path) -> None:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    # One connection for every example: loading the macros is the slow part of a tiny evaluation.
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            mock.patch.object(rankkit, "connect", lambda **settings: shared()):
        status = main(["eval", "-m", "AP", str(q), str(r)])
    lines = [line for line in err.getvalue().splitlines() if "warning:" not in line]
    assert status in (0, 2)
    if status == 2:
        assert len(lines) == 1 and lines[0].startswith("rankkit eval: "), err.getvalue()
    assert "Traceback" not in err.getvalue()


SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(corrupted("qrels", "trec"), corrupted("run", "trec"))
def test_corrupted_trec_files(qrels, run):
    check(qrels, run, "trec")


@SETTINGS
@given(corrupted("qrels", "csv"), corrupted("run", "csv"))
def test_corrupted_csv_files(qrels, run):
    check(qrels, run, "csv")


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_the_clean_files_are_read(fmt):
    clean = lambda kind: ("\n".join((" " if fmt == "trec" else ",").join(r) for r in records(kind, fmt)) + "\n").encode()
    check((clean("qrels"), "none"), (clean("run"), "none"), fmt)
