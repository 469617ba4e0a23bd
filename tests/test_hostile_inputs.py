"""Inputs that hang, explode or mislead (issue 32): a pipe is read as trec_eval reads it, a gzip bomb and
an endless line are refused within a bounded memory, and binary, non-UTF-8 or decimal-comma input is
refused with its reason, on the command line (one line, exit 2), in Python and in the SQL readers."""

from __future__ import annotations

import gzip
import os
import re
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import rankkit
from rankkit.errors import InputError

RANKKIT = str(Path(sys.executable).parent / "rankkit")
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 tag\n1 Q0 c 2 2.5 tag\n1 Q0 x 3 1.0 tag\n2 Q0 d 1 2.0 tag\n2 Q0 e 2 1.0 tag\n"
LIMIT = 2 << 30  # the address space each refusing process gets: 2 GB


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def cli(*args, shell: str | None = None, limited: bool = False, env=None, cwd=None) -> subprocess.CompletedProcess:
    """`rankkit eval` in a process of its own (under the memory limit if ``limited``); ``shell``:
    a bash command line instead, for its process substitution ``<(...)``."""
    command = ["bash", "-c", shell] if shell is not None else [RANKKIT, "eval", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd,
                          preexec_fn=_limited if limited else None, env={**os.environ, **(env or {})})


def python(code: str, cwd) -> subprocess.CompletedProcess:
    """Python reading with rankkit under the memory limit; an InputError is printed as its message, exit 2."""
    wrapped = ("import sys, rankkit\nfrom rankkit.errors import InputError\ntry:\n"
               + "".join(f"    {line}\n" for line in code.splitlines())
               + "except InputError as error:\n    print(error, file=sys.stderr); sys.exit(2)\n")
    return subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True, timeout=120, cwd=cwd,
                          preexec_fn=_limited)


def refused(done: subprocess.CompletedProcess, *said: str) -> str:
    """The one line a refusing process printed, checked to say each of ``said``."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    for words in said:
        assert words in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path


def _expected(files) -> str:
    done = cli("-q", "-m", "map", "-m", "P.2", str(files / "qrels.txt"), str(files / "run.txt"))
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- a path opened once: FIFOs and <(...) read as trec_eval reads them ---------------------------------

def _fifo(path: Path, text: bytes) -> threading.Thread:
    os.mkfifo(path)

    def write():
        with open(path, "wb") as pipe:  # blocks until a reader opens it
            pipe.write(text)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_a_fifo_is_read_on_the_command_line(files, which):
    fifo = files / f"{which}.fifo"
    writer = _fifo(fifo, (RUN if which == "run" else QRELS).encode())
    qrels, run = (files / "qrels.txt", fifo) if which == "run" else (fifo, files / "run.txt")
    done = cli("-q", "-m", "map", "-m", "P.2", str(qrels), str(run))
    writer.join(5)
    assert done.returncode == 0, done.stderr
    expected = _expected(files)
    assert done.stdout == expected


def test_a_fifo_is_read_in_python(files):
    writer = _fifo(files / "run.fifo", gzip.compress(RUN.encode()))  # compressed, too: decompressed as read
    run = rankkit.read_run(str(files / "run.fifo"))
    writer.join(5)
    given = sorted(row[1:] for row in run.fetchall())  # (its system is its name: run.fifo)
    assert given == sorted(row[1:] for row in rankkit.read_run(str(files / "run.txt")).fetchall())
    # a value a FIFO holds is refused naming the FIFO, not the copy rankkit read it into
    writer = _fifo(files / "bad.fifo", b"1 Q0 a 1 1,5 tag\n")
    with pytest.raises(InputError, match=r"^.*bad\.fifo:1: the score '1,5' is not a finite number \(a decimal comma"):
        rankkit.read_run(files / "bad.fifo")
    writer.join(5)


def test_process_substitution_is_read_as_trec_eval_reads_it(files):
    """``<(cat run)`` is a /dev/fd/N path: reading it twice (a sniff, then the read) saw it empty the
    second time ("found 4 fields"). runid and relstring read the run again: still one reading."""
    expected = _expected(files)
    done = cli(shell=f"{RANKKIT} eval -q -m map -m P.2 <(cat qrels.txt) <(cat run.txt)", cwd=files)
    assert done.returncode == 0 and done.stdout == expected, done.stderr
    done = cli(shell=f"{RANKKIT} eval -q -m runid -m relstring -m map qrels.txt <(gzip -c run.txt)", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "runid                 \tall\ttag" in done.stdout and "relstring             \t1\t'12-'" in done.stdout
    done = cli(shell=f"{RANKKIT} eval -m map qrels.txt <(printf '1 Q0 a 1 x tag\\n')", cwd=files)
    line = refused(done, "/dev/fd/", ":1: the score 'x' is not a finite number")
    assert "rankkit-inputs" not in line


def test_a_report_of_a_pipe_is_refused_as_unverifiable(files):
    """A report records its inputs' sha256 for verify, which reads them again: a pipe cannot be (it was
    a StopIteration traceback)."""
    done = cli(shell=f"{RANKKIT} report -m map qrels.txt a=<(cat run.txt) -o report.md", cwd=files)
    refused(done, "/dev/fd/", "is a pipe: a report records each input's sha256 for rankkit verify")
    assert not (files / "report.md").exists()
    writer = _fifo(files / "run.fifo", (files / "run.txt").read_bytes())  # and from Python (a StopIteration)
    with pytest.raises(InputError, match=r"run\.fifo is a pipe or device: a report records each input's sha256"):
        rankkit.report(files / "qrels.txt", {"a": str(files / "run.fifo")}, ["map"])
    writer.join(5)


def test_subtopic_judgments_from_a_pipe_are_read_once(files):
    """The diversity measures' subtopic judgments are a path too: a pipe was "no such file"."""
    (files / "sub.txt").write_text("1 s1 a 1\n1 s2 c 1\n2 s1 d 1\n")
    expected = cli("-m", "alpha-nDCG@10", "--subtopics", str(files / "sub.txt"), str(files / "qrels.txt"),
                   str(files / "run.txt"))
    assert expected.returncode == 0, expected.stderr
    done = cli(shell=f"{RANKKIT} eval -m alpha-nDCG@10 --subtopics <(gzip -c sub.txt) qrels.txt run.txt", cwd=files)
    assert done.returncode == 0 and done.stdout == expected.stdout, done.stderr
    done = cli(shell=f"{RANKKIT} eval -m alpha-nDCG@10 --subtopics <(printf '1 s1 a x\\n') qrels.txt run.txt", cwd=files)
    refused(done, "/dev/fd/", ":1: column 4, the grade, is 'x'; expected a number")


# --- bounded memory: a gzip bomb and an endless line, refused under a 2 GB address space -----------------

@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """3.2 GB of run lines in a gzip file of a few MB: one 16 MiB member, repeated (a valid gzip file)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.run.gz"
    member = gzip.compress(b"1 Q0 a 1 1.0 tag\n" * (1 << 20), compresslevel=9)
    with open(path, "wb") as out:
        for _ in range(200):
            out.write(member)
    yield path
    path.unlink()


@pytest.fixture(scope="module")
def long_line(tmp_path_factory) -> Path:
    """A TREC run file of one 2 GB line."""
    path = tmp_path_factory.mktemp("long") / "long.run"
    block = b"a" * (64 << 20)
    with open(path, "wb") as out:
        out.write(b"1 Q0 ")
        for _ in range(32):
            out.write(block)
        out.write(b" 1 1.0 tag\n")
    yield path
    path.unlink()  # pytest keeps the last runs' folders: 2 GB each


def test_a_gzip_bomb_is_refused_within_bounded_memory(files, bomb):
    done = cli("-m", "map", str(files / "qrels.txt"), str(bomb), limited=True)
    refused(done, f"{bomb}: expands to more than 100 times its compressed size", "RANKKIT_MAX_GZIP_RATIO")
    done = python(f"rankkit.read_run({str(bomb)!r})", files)
    refused(done, f"{bomb}: expands to more than 100 times", "RANKKIT_MAX_GZIP_RATIO")
    # as qrels, and from a pipe
    done = cli(shell=f"{RANKKIT} eval -m map <(cat {bomb}) run.txt", cwd=files, limited=True)
    refused(done, "/dev/fd/", "expands to more than 100 times")


def test_the_gzip_bound_is_raised_by_its_variable(files, tmp_path):
    dense = tmp_path / "dense.run.gz"  # 68 MiB of two lines repeated: 1000 times smaller compressed
    dense.write_bytes(gzip.compress(b"1 Q0 a 1 1.0 tag\n" * (4 << 20)))
    refused(cli("-m", "map", str(files / "qrels.txt"), str(dense)), "expands to more than 100 times")
    done = cli("-m", "map", str(files / "qrels.txt"), str(dense), env={"RANKKIT_MAX_GZIP_RATIO": "100000"})
    refused(done, "duplicate document a for query 1")  # read: its lines are what is wrong
    refused(cli("-m", "map", str(files / "qrels.txt"), str(dense), env={"RANKKIT_MAX_GZIP_RATIO": "lots"}),
            "RANKKIT_MAX_GZIP_RATIO must be a positive whole number, got 'lots'")


def test_a_2_gb_line_is_refused_within_bounded_memory(files, long_line):
    done = cli("-m", "map", str(files / "qrels.txt"), str(long_line), limited=True)
    refused(done, f"{long_line}:1: the line is longer than the limit of 2 MiB", "RANKKIT_MAX_LINE_BYTES")
    done = python(f"rankkit.read_qrels({str(long_line)!r})", files)
    refused(done, f"{long_line}:1: the line is longer than the limit of 2 MiB")
    # an endless line from a pipe is refused as it comes, not first copied whole
    endless = "python3 -c 'import sys\nwhile True: sys.stdout.write(\"a\" * 65536)'"
    done = cli(shell=f"{RANKKIT} eval -m map qrels.txt <({endless} 2>/dev/null)", cwd=files, limited=True)
    refused(done, "/dev/fd/", ":1: the line is longer than the limit of 2 MiB")


@pytest.mark.parametrize("name", ["long.run", "long.csv", "long.run.gz"])
def test_a_3_mb_line_says_so(files, name):
    if name.endswith(".csv"):
        text = "query_id,doc_id,score\n1,a,1.0\n2," + "d" * 3_000_000 + ",2.0\n"
    else:
        text = "1 Q0 a 1 1.0 tag\n2 Q0 " + "d" * 3_000_000 + " 1 2.0 tag\n"
    data = text.encode()
    path = files / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    row = 3 if name.endswith(".csv") else 2  # (the header is line 1)
    refused(cli("-m", "map", str(files / "qrels.txt"), str(path)), f"{path}:{row}: the line is longer than the limit")
    with pytest.raises(InputError, match=rf"^{path}:{row}: the line is longer than the limit of 2 MiB"):
        rankkit.read_run(path)
    done = cli("-m", "map", str(files / "qrels.txt"), str(path), env={"RANKKIT_MAX_LINE_BYTES": "4000000"})
    assert done.returncode == 0, done.stderr  # raised: the line is read


# --- reasons, not parser codes ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bin.run", "bin.csv", "bin.tsv", "bin.run.gz"])
def test_binary_input_is_said_to_be_binary(files, name):
    data = b"PK\x03\x04\x14\x00\x00\x00query_id,doc_id,score\x00\xff\xfe" * 50
    path = files / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    line = refused(cli("-m", "map", str(files / "qrels.txt"), str(path)),
                   f"{path}: looks binary (a NUL byte at byte 6)")
    assert "query_id" not in line  # no garbage as column names
    with pytest.raises(InputError, match=r"looks binary \(a NUL byte at byte 6\)"):
        rankkit.read_qrels(path)


def test_utf16_is_said_to_be_utf16(files):
    path = files / "run.txt16"
    path.write_bytes(RUN.encode("utf-16"))
    refused(cli("-m", "map", str(files / "qrels.txt"), str(path)), "UTF-16 text", "rankkit reads UTF-8")


@pytest.mark.parametrize("name, text, column", [
    ("latin.run", b"1 Q0 a 1 3.0 tag\n1 Q0 caf\xe9 2 2.0 tag\n", 9),
    ("latin.csv", b"query_id,doc_id,score\n1,a,3.0\n1,caf\xe9,2.0\n", 6),
    ("latin.tsv", b"query_id\tdoc_id\tscore\n1\ta\t3.0\n1\tcaf\xe9\t2.0\n", 6),
])
def test_latin1_is_said_to_be_not_utf8(files, name, text, column):
    path = files / name
    path.write_bytes(text)
    row = 2 if name.endswith(".run") else 3
    said = f"{path}:{row}: the line is not UTF-8 (byte 0xE9 at column {column}): rankkit reads UTF-8"
    refused(cli("-m", "map", str(files / "qrels.txt"), str(path)), said)
    with pytest.raises(InputError, match=r"is not UTF-8 \(byte 0xE9"):
        rankkit.read_run(path)


@pytest.mark.parametrize("name, text, row", [
    ("comma.run", "1 Q0 a 1 1,5 tag\n", 1),  # its comma once made it a CSV header: "missing column query_id"
    ("comma2.run", "1 Q0 a 1 3.0 tag\n1 Q0 b 2 1,5 tag\n", 2),
    ("comma.csv", 'query_id,doc_id,score\n1,a,3.0\n1,b,"1,5"\n', 3),
    ("comma.tsv", "query_id\tdoc_id\tscore\n1\ta\t3.0\n1\tb\t1,5\n", 3),
])
def test_a_decimal_comma_is_said_to_be_one(files, name, text, row):
    path = files / name
    path.write_text(text)
    said = f"{path}:{row}: the score '1,5' is not a"
    refused(cli("-m", "map", str(files / "qrels.txt"), str(path)), said, "(a decimal comma? numbers are written")
    with pytest.raises(InputError, match=r"'1,5' is not a (finite )?number \(a decimal comma\?"):
        rankkit.read_run(path)
    if name.endswith(".run"):  # the SQL reader says the same
        con = rankkit.connect()
        with pytest.raises(Exception, match=rf"rankkit: {path}:{row}: the score '1,5' is not a finite number \(a decimal"):
            con.execute(f"FROM rankkit.read_trec_run('{path}')").fetchall()


def test_a_bad_line_bound_is_refused(files):
    refused(cli("-m", "map", str(files / "qrels.txt"), str(files / "run.txt"), env={"RANKKIT_MAX_LINE_BYTES": "0"}),
            "RANKKIT_MAX_LINE_BYTES must be a positive whole number, got '0'")


def test_a_truncated_gzip_file_says_so(files):
    path = files / "cut.run.gz"
    path.write_bytes(gzip.compress(RUN.encode() * 100)[:-20])
    refused(cli("-m", "map", str(files / "qrels.txt"), str(path)), f"{path}: ends inside its gzip data (truncated?)")


# --- numbers past what a double or a BIGINT holds: refused in the SQL definitions, so on every surface ----

def _grades(con, top: float) -> None:
    con.execute(f"CREATE OR REPLACE TABLE qrels AS SELECT * FROM (VALUES ('1', 'a', {top}), ('1', 'b', 1.0)) "
                f"t(query_id, doc_id, relevance)")
    con.execute("CREATE OR REPLACE TABLE run AS SELECT * FROM (VALUES ('1', 'a', 2.0), ('1', 'b', 1.0)) t(query_id, doc_id, score)")


GRADE = "grade 1024.0 is too large for exponential gain (2^grade - 1): up to 1000"


def test_a_grade_past_exponential_gain_is_refused_everywhere(files):
    """2^1024 is inf: the mean was NaN (inf / inf), silently."""
    con = rankkit.connect()
    _grades(con, 1024)
    with pytest.raises(rankkit.RankkitError, match=re.escape(GRADE)):
        rankkit.evaluate("qrels", "run", ["nDCG(gain=exp)@5"], con=con)
    for sql in ("FROM rankkit.evaluate('qrels', 'run', ['ndcg_burges'])", "FROM rankkit.ndcg('qrels', 'run', gain := 'exp')",
                "FROM rankkit.dcg('qrels', 'run', gain := 'exp', k := 10)"):
        with pytest.raises(Exception, match=re.escape("rankkit: " + GRADE)):
            con.execute(sql).fetchall()
    (files / "big.qrels").write_text("1 0 a 1024\n2 0 d 1\n")
    refused(cli("-m", "ndcg_burges", str(files / "big.qrels"), str(files / "run.txt")), GRADE)
    # linear gain reads it; 1000 is the top exponential grade, and its values are numbers
    _grades(con, 1000)
    value = con.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['nDCG(gain=exp)@5', 'nDCG@5'])").fetchall()
    assert [v for (v,) in value] == [1.0, 1.0]
    with pytest.raises(Exception, match=r"max must be a positive number up to 1000"):
        rankkit.evaluate("qrels", "run", ["ERR(max=1024)@5"], con=con)


@pytest.mark.parametrize("measure, shown", [("P@9223372036854775808", "P@9223372036854775808"),
                                            ("ndcg_cut.9223372036854775808", "ndcg_cut_9223372036854775808")])
def test_a_cutoff_past_bigint_is_refused_everywhere(files, measure, shown):
    said = f"measure '{shown}': the cutoff {shown.split('@')[-1].split('_')[-1]} is too large; a cutoff must be"
    con = rankkit.connect()
    _grades(con, 1)
    with pytest.raises(rankkit.RankkitError, match=re.escape(said)):
        rankkit.evaluate("qrels", "run", [measure], con=con)
    with pytest.raises(Exception, match=re.escape("rankkit: " + said)):
        con.execute(f"FROM rankkit.evaluate('qrels', 'run', ['{shown}'])").fetchall()
    with pytest.raises(Exception, match=r"rankkit: measure nDCG: the cutoff must be a positive integer below 2\^63 - 1, got 1e\+30"):
        con.execute("FROM rankkit.ndcg('qrels', 'run', k := 1e30)").fetchall()
    refused(cli("-m", measure, str(files / "qrels.txt"), str(files / "run.txt")), said)


# --- Spark reads CSV as DuckDB does ----------------------------------------------------------------------

def test_spark_reads_csv_quoting_as_duckdb_does(spark, tmp_path, capsys):
    """RFC 4180 as DuckDB reads it: "a""b" is a"b (Spark's default escape, a backslash, kept "a""b"), and a
    quoted field may hold a newline (Spark read it as two rows)."""
    from rankkit.cli import main
    from rankkit.spark_read import read_qrels, read_runs

    (tmp_path / "qrels.csv").write_text('query_id,doc_id,relevance\n"q""1",a,1\n"q""1","b\nc",2\nq2,"d,e",1\n')
    (tmp_path / "run.csv").write_text('query_id,doc_id,score\n"q""1","b\nc",2.0\n"q""1",a,1.0\nq2,"d,e",1.0\n')
    for path, spark_read, duck_read in ((tmp_path / "qrels.csv", read_qrels, rankkit.read_qrels),
                                        (tmp_path / "run.csv", read_runs, rankkit.read_run)):
        duck = sorted(duck_read(str(path)).fetchall())
        assert any('q"1' in row and "b\nc" in row for row in duck)
        assert sorted(tuple(row) for row in spark_read(spark, str(path)).frame.collect()) == duck
    given = ["eval", "-q", "-m", "ndcg_cut.10", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv")]
    assert main(given) == 0
    duck = capsys.readouterr().out
    assert main([*given[:1], "--engine", "spark", *given[1:]]) == 0
    assert capsys.readouterr().out == duck
    # the grade and cutoff bounds hold on Spark too: the same definitions, Spark's raise_error
    (tmp_path / "big.qrels").write_text("q1 0 a 1024\nq2 0 d 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 2.0 t\nq2 Q0 d 1 1.0 t\n")
    for measure, said in (("ndcg_burges", GRADE), ("P@9223372036854775808", "the cutoff 9223372036854775808 is too large")):
        given = ["eval", "-m", measure, str(tmp_path / "big.qrels"), str(tmp_path / "run.txt")]
        assert main(given) == 2
        duck = capsys.readouterr().err
        assert main([*given[:1], "--engine", "spark", *given[1:]]) == 2
        assert capsys.readouterr().err == duck and said in duck


def test_spark_refuses_a_glob_of_no_file_before_spark_reads_it(tmp_path):
    """A run path with a glob character that matches no file (x[1.parquet, an escape sequence's '[') is
    refused naming it, as on DuckDB, before Spark is asked: its reader threw a Java trace (rankkit compare
    --engine spark printed it with the escape sequence raw)."""
    from rankkit.spark_read import read_runs

    for name in ("x[1.parquet", "x\x1b[31m.parquet", "none*.csv"):
        with pytest.raises(InputError, match="no file matches the glob"):
            read_runs(None, str(tmp_path / name))  # None: no Spark session is reached


@pytest.mark.parametrize("name, said", [("Gini(\n)@10", "unknown or empty parameter"),
                                        ("P(a=\n1)@10", "P takes rel")])
def test_a_measure_name_with_a_newline_is_refused_in_full(name, said):
    """The SQL name parser's refusal of a name holding a newline was cut at it (measure 'Gini(' and no
    more: the beyond refusal and the parameter check alike), so it said nothing of what is wrong."""
    from rankkit.errors import MeasureError
    from rankkit.specs import measure_specs

    with pytest.raises(MeasureError, match=said):
        measure_specs(None, [name])


def test_spark_refuses_a_file_named_parquet_that_is_not_before_spark_reads_it(tmp_path):
    """A run named .parquet holding text is refused naming it, as on DuckDB, before Spark is asked: Spark's
    reader threw a Java trace of 200 lines (rankkit compare --engine spark printed it)."""
    from rankkit.spark_read import read_runs

    (tmp_path / "bad.parquet").write_text("hello\n")
    with pytest.raises(InputError, match="bad.parquet: cannot be read: not a Parquet file"):
        read_runs(None, str(tmp_path / "bad.parquet"))  # None: no Spark session is reached
