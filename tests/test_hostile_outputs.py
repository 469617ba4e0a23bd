"""Nothing lost (issue 32): no output replaces an input, the demo never overwrites a file a user
changed, a writer killed outright leaves nothing behind once the next write comes, and every write
error (a full disk, a file too large, no permission, a read-only disk, a folder in the way) is one
line naming the file, exit 2, no temporary file left."""

from __future__ import annotations

import errno
import gzip
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

import rankkit
from rankkit import _files
from rankkit._files import PARTIAL, remove_abandoned, write_text
from rankkit.cli import main
from rankkit.demo import MANIFEST, write_sample
from rankkit.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
RANKKIT = [sys.executable, "-c", "import sys; from rankkit.cli import main; sys.exit(main())"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (links as their target's name), by path: what must not change."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        seen[name] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes() if path.is_file() else b"/"
    return seen


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    """The demo's sample, with the same runs as tables (CSV, Parquet, a Parquet folder), the qrels as
    CSV and gzip, a second judgment table: every kind of input a command reads."""
    folder = tmp_path_factory.mktemp("sample")
    paths = write_sample(folder, queries=12)
    con = duckdb.connect()
    runs = f"read_csv('{paths['bm25.run']}', delim=' ', header=false, " \
           "names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'system'])"
    con.execute(f"COPY (SELECT system, query_id, doc_id, rank, score FROM {runs}) TO '{folder / 'run.csv'}'")
    con.execute(f"COPY (SELECT system, query_id, doc_id, rank, score FROM {runs}) TO '{folder / 'run.parquet'}'")
    (folder / "runs").mkdir()
    shutil.copy(folder / "run.parquet", folder / "runs" / "part.parquet")
    qrels = f"read_csv('{paths['qrels.txt']}', delim=' ', header=false, names=['query_id', 'it', 'doc_id', 'relevance'])"
    con.execute(f"COPY (SELECT query_id, doc_id, relevance FROM {qrels}) TO '{folder / 'qrels.csv'}'")
    con.execute(f"COPY (SELECT query_id, 1 AS subtopic, doc_id, relevance FROM {qrels}) TO '{folder / 'subtopics.csv'}'")
    (folder / "qrels.csv.gz").write_bytes(gzip.compress((folder / "qrels.csv").read_bytes()))
    shutil.copy(folder / "qrels.txt", folder / "second.txt")
    # a run table whose name is one report -o out.csv writes beside itself with a second judgment table
    shutil.copy(folder / "run.csv", folder / "out.label-agreement.csv")
    con.close()
    rankkit.connect()  # the macro cache built here: the subprocesses below write nothing but their output
    return folder


# ---- an output that is an input -------------------------------------------------------------------------

# (command with {out} for the output and {input} for the input it names, the input's file)
COMMANDS = {
    "eval run csv": (["eval", "-q", "-o", "{out}", "qrels.txt", "{input}"], "run.csv"),
    "eval NAME=run": (["eval", "-o", "{out}", "qrels.txt", "mine={input}", "bm25.run"], "run.csv"),
    "eval run parquet": (["eval", "-q", "-o", "{out}", "qrels.txt", "{input}"], "run.parquet"),
    "eval qrels csv": (["eval", "-o", "{out}", "{input}", "bm25.run"], "qrels.csv"),
    "eval subtopics": (["eval", "-m", "alpha-nDCG@10", "--subtopics", "{input}", "-o", "{out}", "qrels.txt", "bm25.run"],
                       "subtopics.csv"),
    "fuse run csv": (["fuse", "-o", "{out}", "{input}", "bm25.run"], "run.csv"),
    "report run csv": (["report", "-m", "AP", "-o", "{out}", "qrels.txt", "{input}"], "run.csv"),
    "report run parquet": (["report", "-m", "AP", "-o", "{out}", "qrels.txt", "{input}"], "run.parquet"),
    "report qrels csv": (["report", "-m", "AP", "-o", "{out}", "{input}", "bm25.run"], "qrels.csv"),
    "report queries": (["report", "-m", "AP", "--by", "category", "--queries", "{input}", "-o", "{out}", "qrels.txt",
                        "bm25.run"], "topics.csv"),
    "report second qrels": (["report", "-m", "AP", "--second-qrels", "{input}", "-o", "{out}", "qrels.txt",
                             "bm25.run"], "qrels.csv"),
    "report items": (["report", "-m", "Coverage@10", "--items", "{input}", "-o", "{out}", "qrels.txt", "bm25.run"],
                     "run.csv"),
}


def _spellings(folder: Path, name: str) -> dict[str, tuple[str, str]]:
    """(output, input argument) for each way of naming the input ``name`` as the output."""
    suffix = Path(name).suffix
    return {
        "same path": (name, name),
        "dot": (f"./{name}", name),
        "absolute": (str(folder / name), name),
        "through ..": (f"../{folder.name}/{name}", name),
        "relative input, absolute output": (str(folder / name), f"./{name}"),
        "symlink": (f"link{suffix}", name),
        "hard link": (f"hard{suffix}", name),
        "glob": (name, f"[{name[0]}]{name[1:]}"),
    }


@pytest.fixture
def work(sample, tmp_path, monkeypatch) -> Path:
    """A copy of the sample to run in (links and hard links made per test), as the current folder."""
    folder = tmp_path / "work"
    shutil.copytree(sample, folder, symlinks=True)
    monkeypatch.chdir(folder)
    return folder


def _refused(capsys, argv: list[str]) -> str:
    assert main(argv) == 2, f"{argv} did not refuse"
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("spelling", list(_spellings(Path("x"), "a.csv")))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_that_is_an_input_is_refused_in_every_spelling(work, capsys, command, spelling):
    """Before: the input was replaced by the results and the command exited 0."""
    argv, name = COMMANDS[command]
    out, given = _spellings(work, name)[spelling]
    if spelling == "symlink":
        (work / out).symlink_to(name)
    if spelling == "hard link":
        os.link(work / name, work / out)
    before = _snapshot(work)
    err = _refused(capsys, [word.format(out=out, input=given) for word in argv])
    assert err.startswith(f"rankkit {argv[0]}: -o {out}: is the same file as the ") and name in err, err
    assert "writing there would replace it" in err
    assert _snapshot(work) == before


@pytest.mark.parametrize("command", ["eval", "report"])
def test_a_file_of_an_input_folder_is_refused(work, capsys, command):
    """A Parquet folder is read whole: -o naming one of its files would replace a part of the input."""
    measure = ["-m", "AP"] if command == "report" else []
    before = _snapshot(work)
    err = _refused(capsys, [command, *measure, "-o", "runs/part.parquet", "qrels.txt", "runs"])
    assert "runs/part.parquet" in err and "the run runs" in err
    assert _snapshot(work) == before


def test_a_gzip_input_behind_a_link_is_refused(work, capsys):
    (work / "q.csv").symlink_to("qrels.csv.gz")
    before = _snapshot(work)
    err = _refused(capsys, ["eval", "-o", "q.csv", "qrels.csv.gz", "bm25.run"])
    assert "-o q.csv: is the same file as the qrels qrels.csv.gz" in err
    assert _snapshot(work) == before


def test_a_file_the_report_writes_beside_its_own_is_checked_too(work, capsys):
    """With a second judgment table, report -o out.csv also writes out.label-agreement.csv ..."""
    before = _snapshot(work)
    err = _refused(capsys, ["report", "-m", "AP", "--second-qrels", "second.txt", "-o", "out.csv", "qrels.txt",
                            "out.label-agreement.csv"])
    assert "-o out.label-agreement.csv: is the same file as the run out.label-agreement.csv" in err
    assert _snapshot(work) == before


def test_the_refusal_comes_before_anything_is_read(work, capsys):
    """The qrels are not even TREC text: the refusal is what is said, not the reader's complaint."""
    (work / "broken.txt").write_text("not qrels at all\n")
    err = _refused(capsys, ["eval", "-o", "run.csv", "broken.txt", "run.csv"])
    assert "is the same file as the run run.csv" in err


def test_an_output_beside_the_inputs_is_written(work, capsys):
    """The check refuses only the inputs: a new file, or one no input names, is written as before."""
    assert main(["eval", "-q", "-o", "new.csv", "qrels.txt", "run.csv"]) == 0
    assert main(["eval", "-q", "-o", "new.csv", "qrels.txt", "run.csv"]) == 0  # and replaced
    assert main(["report", "-m", "AP", "-o", "new.parquet", "qrels.txt", "[r]un.csv"]) == 0
    assert (work / "new.csv").stat().st_size > 0 and (work / "new.parquet").stat().st_size > 0
    assert not [name for name in os.listdir(work) if name.startswith(PARTIAL)]


def test_python_writers_refuse_their_inputs(work):
    from rankkit.evaluate import evaluate_file

    before = _snapshot(work)
    with pytest.raises(InputError, match=r"output run\.csv: is the same file as the run run\.csv"):
        evaluate_file("qrels.txt", {"a": "run.csv"}, ["AP"], "./run.csv")
    with pytest.raises(InputError, match=r"output .*qrels\.csv: is the same file as the qrels qrels\.csv"):
        evaluate_file("qrels.csv", ["bm25.run", "dense.run"], ["AP"], work / "qrels.csv")
    report = rankkit.report("qrels.txt", {"a": "run.csv"}, ["AP"])
    with pytest.raises(InputError, match=r"the report's file run\.csv: is the same file as the run "):
        report.save("run.csv")
    with pytest.raises(InputError, match=r"the report's file run\.parquet: is the same file as the run "):
        rankkit.report("qrels.txt", {"a": "run.parquet"}, ["AP"]).to_parquet("run.parquet")
    loaded = report.save("kept.json")  # and one loaded back from JSON, which records its inputs
    with pytest.raises(InputError, match="the report's file .*qrels.txt"):
        rankkit.Report.load(loaded).save(work / "qrels.txt")
    assert {k: v for k, v in _snapshot(work).items() if k != "kept.json"} == before


# ---- the demo ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("demo") / "rankkit-demo"
    assert main(["demo", "--queries", "6", "-o", str(folder)]) == 0
    return folder


@pytest.fixture
def again(demo, tmp_path) -> Path:
    """A copy of a demo folder as the demo left it, to run the demo in again."""
    folder = tmp_path / "rankkit-demo"
    shutil.copytree(demo, folder)
    return folder


def test_the_demo_runs_again_over_its_own_untouched_folder(again, capsys):
    assert main(["demo", "--queries", "6", "-o", str(again)]) == 0
    out = capsys.readouterr().out
    assert "written again" in out.splitlines()[0]
    assert main(["demo", "--queries", "7", "-o", str(again)]) == 0  # another sample over the files: its own
    assert "rankkit demo: 7 queries" in capsys.readouterr().out


@pytest.mark.parametrize("edited", ["qrels.txt", "bm25.run", "run.parquet", "report.html", "rankkit.sql"])
def test_the_demo_never_overwrites_a_file_a_user_changed(again, capsys, edited):
    """Before: rankkit demo wrote over every file of its folder, whatever had been done to it."""
    with open(again / edited, "ab") as file:
        file.write(b"\n-- my own notes\n")
    before = _snapshot(again)
    err = _refused(capsys, ["demo", "--queries", "6", "-o", str(again)])
    assert err == (f"rankkit demo: {again}: {edited} changed since rankkit demo wrote it (or was not written by it): "
                   f"nothing overwritten; move it away, or give -o another folder\n")
    assert _snapshot(again) == before


def test_the_demo_does_not_write_over_files_it_did_not_write(tmp_path, capsys):
    """A folder of the user's own that happens to hold the demo's names (or one from before the demo kept
    its record): nothing of it is the demo's to replace."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "qrels.txt").write_text("1 0 d1 1\n")
    (folder / "run.csv").write_text("query_id,doc_id,score\n")
    (folder / "notes.md").write_text("mine\n")
    before = _snapshot(folder)
    err = _refused(capsys, ["demo", "--queries", "6", "-o", str(folder)])
    assert "qrels.txt, run.csv changed since rankkit demo wrote them (or were not written by it)" in err
    assert _snapshot(folder) == before


def test_the_demo_does_not_write_through_a_link_to_a_users_file(again, tmp_path, capsys):
    precious = tmp_path / "precious.txt"
    precious.write_text("my judgments\n")
    (again / "qrels.txt").unlink()
    (again / "qrels.txt").symlink_to(precious)
    err = _refused(capsys, ["demo", "--queries", "6", "-o", str(again)])
    assert "qrels.txt changed since rankkit demo wrote it" in err
    assert precious.read_text() == "my judgments\n"


def test_a_file_the_user_added_beside_the_demos_is_left_alone(again, capsys):
    (again / "notes.md").write_text("mine\n")
    assert main(["demo", "--queries", "6", "-o", str(again)]) == 0
    assert (again / "notes.md").read_text() == "mine\n"


def test_the_demo_into_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "taken").write_text("mine\n")
    err = _refused(capsys, ["demo", "-o", str(tmp_path / "taken")])
    assert "is a file, not a folder for the demo" in err
    err = _refused(capsys, ["demo", "-o", str(tmp_path / "taken" / "below")])
    assert f"rankkit demo: {tmp_path / 'taken' / 'below'}: cannot make the folder: Not a directory" in err
    assert (tmp_path / "taken").read_text() == "mine\n"


def test_the_demo_keeps_its_record_beside_its_files(demo):
    import json

    written = json.loads((demo / MANIFEST).read_text())
    assert sorted(written) == sorted(["qrels.txt", "bm25.run", "dense.run", "topics.csv", "per_query.csv", "run.csv",
                                      "run.parquet", "rankkit.sql", "report.html"])


# ---- a writer killed outright ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict[str, Path]:
    """A sample large enough that writing all_trec per query takes a second or more."""
    return write_sample(tmp_path_factory.mktemp("big"), queries=2000)


def _partials(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(PARTIAL))


def _kill_when_partial(command: list[str], folder: Path, timeout: float = 120) -> None:
    """Run ``command``; SIGKILL it as soon as its temporary file shows in ``folder``."""
    process = subprocess.Popen(command, env=_env(), cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _partials(folder):
                process.send_signal(signal.SIGKILL)
                process.wait()
                return
            if process.poll() is not None:
                pytest.fail(f"the writer ended (exit {process.returncode}) before its temporary file showed: "
                            f"{process.stderr.read().decode()}")
            time.sleep(0.002)
        pytest.fail("no temporary file showed while the writer ran")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("next_write", ["eval -o", "macros -o", "write_text"])
def test_a_killed_writers_temporary_file_goes_with_the_next_write(big, tmp_path, next_write):
    """Before: kill -9 left a hidden .partial-* file in the folder for ever."""
    _kill_when_partial(RANKKIT + ["eval", "-q", "-o", "pq.csv", "-m", "all_trec", str(big["qrels.txt"]),
                                  str(big["bm25.run"])], tmp_path)
    left = _partials(tmp_path)
    assert len(left) == 1 and not (tmp_path / "pq.csv").exists()
    if next_write == "eval -o":
        assert main(["eval", "-o", str(tmp_path / "small.csv"), str(big["qrels.txt"]), str(big["dense.run"])]) == 0
    elif next_write == "macros -o":
        assert main(["macros", "-o", str(tmp_path / "rankkit.sql")]) == 0
    else:
        write_text(tmp_path / "note.txt", "x")
    assert _partials(tmp_path) == []


def test_a_killed_report_save_leaves_nothing_after_the_next_write(tmp_path):
    """Report.save stopped halfway by kill -9 (a slow disk, played by a write that stops halfway)."""
    script = tmp_path / "save.py"
    script.write_text(
        "import pathlib, sys, time\n"
        "import pandas as pd\n"
        "from rankkit.report.model import Report\n"
        "def slow(self, data, encoding=None, errors=None, newline=None):\n"
        "    with open(self, 'w', encoding=encoding) as out:\n"
        "        out.write(data[: len(data) // 2]); out.flush(); time.sleep(60)\n"
        "pathlib.Path.write_text = slow\n"
        "aggregate = pd.DataFrame({'measure': ['AP'], 'system': ['a'], 'value': [0.5], 'queries': [1]})\n"
        "Report(title='t', record={'systems': ['a'], 'measures': []}, aggregate=aggregate).save(sys.argv[1])\n")
    _kill_when_partial([sys.executable, str(script), "report.json"], tmp_path)
    assert len(_partials(tmp_path)) == 1 and not (tmp_path / "report.json").exists()
    write_text(tmp_path / "report.json", "{}\n")
    assert _partials(tmp_path) == [] and (tmp_path / "report.json").read_text() == "{}\n"


def _partial(folder: Path, host: str, pid: int, started: int, name: str = "out.csv") -> Path:
    path = folder / f"{PARTIAL}{host}-{pid}-{started}-0123abcd.{name}"
    path.write_text("half")
    return path


def test_only_the_temporary_files_of_ended_writers_are_removed(tmp_path):
    host, me = _files._host(), os.getpid()
    mine = _partial(tmp_path, host, me, _files._started(me))  # this process, writing now
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alive = _partial(tmp_path, host, sleeper.pid, _files._started(sleeper.pid))
        reused = _partial(tmp_path, host, sleeper.pid, _files._started(sleeper.pid) + 1)  # its pid, another start
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        dead = _partial(tmp_path, host, ended.pid, 12345)
        duckdb_own = _partial(tmp_path, host, ended.pid, 12345, "out.csv.tmp")
        elsewhere = _partial(tmp_path, "00000000" if host != "00000000" else "11111111", ended.pid, 12345)
        old_style = tmp_path / f"{PARTIAL}0123456789ab.out.csv"  # rankkit's names before the owner was in them
        old_style.write_text("half")
        os.utime(old_style, (time.time() - 2 * 24 * 3600,) * 2)
        recent_old_style = tmp_path / f"{PARTIAL}ba9876543210.out.csv"
        recent_old_style.write_text("half")
        stranger = tmp_path / f"{PARTIAL}notes.txt"  # not a name rankkit gives
        stranger.write_text("mine")
        assert sorted(remove_abandoned(tmp_path)) == sorted([reused, dead, duckdb_own, old_style])
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            p.name for p in [mine, alive, elsewhere, recent_old_style, stranger])
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_temporary_name_says_whose_it_is_and_keeps_the_suffix(tmp_path):
    with _files.replacing(tmp_path / ("x" * 240 + ".parquet")) as partial:
        owned = re.match(_files._OWNED, partial.name)
        assert owned and int(owned.group(2)) == os.getpid() and partial.name.endswith(".parquet")
        assert len(os.fsencode(partial.name)) <= 251
        partial.write_text("whole")
    assert (tmp_path / ("x" * 240 + ".parquet")).read_text() == "whole"


# ---- write errors ---------------------------------------------------------------------------------------

# each command writing a file: (argv with {out}, the output's suffix)
WRITERS = {
    "macros -o": (["macros", "-o", "{out}"], ".sql"),
    "report -o html": (["report", "-m", "AP", "-m", "nDCG@10", "-o", "{out}", "{qrels}", "{bm25}", "{dense}"], ".html"),
    "report -o parquet": (["report", "-m", "AP", "-m", "nDCG@10", "-o", "{out}", "{qrels}", "{bm25}", "{dense}"],
                          ".parquet"),
    "eval -o csv": (["eval", "-q", "-m", "all_trec", "-o", "{out}", "{qrels}", "{bm25}"], ".csv"),
}


def _argv(writer: str, out: Path, sample: Path) -> list[str]:
    argv, _ = WRITERS[writer]
    names = dict(out=str(out), qrels=str(sample / "qrels.txt"), bm25=str(sample / "bm25.run"),
                 dense=str(sample / "dense.run"))
    return [word.format(**names) for word in argv]


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_file_too_large_is_one_line_and_nothing_left(sample, tmp_path, writer):
    """A real EFBIG: the file size limit (ulimit -f) of a subprocess, below what it writes. Before: a
    traceback for report and macros, DuckDB's JSON for eval."""
    out = tmp_path / f"out{WRITERS[writer][1]}"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    result = subprocess.run(RANKKIT + _argv(writer, out, sample), env=_env(), cwd=tmp_path, preexec_fn=limit,
                            capture_output=True, text=True, timeout=300)
    assert _one_line(result) == f"rankkit {writer.split()[0]}: {out}: cannot write the file: File too large\n"
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def full_device(tmp_path) -> Path:
    """A device like /dev/full (every write: no space left), made in the test's folder: a writer that
    renamed over it would replace this one, not the system's."""
    device = tmp_path / "full"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:  # not root: the system's, which a writer cannot rename over without root either
        return Path("/dev/full")
    return device


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_full_disk_is_one_line_and_nothing_left(sample, tmp_path, full_device, writer):
    """A real ENOSPC: the output a link to a full device, written in place (there is no renaming over a
    device). Before: a traceback for report and macros, DuckDB's words for eval."""
    folder = tmp_path / "out"
    folder.mkdir()
    link = folder / f"link{WRITERS[writer][1]}"
    link.symlink_to(full_device)
    result = subprocess.run(RANKKIT + _argv(writer, link, sample), env=_env(), cwd=folder, capture_output=True,
                            text=True, timeout=300)
    assert _one_line(result) == (f"rankkit {writer.split()[0]}: {link}: cannot write the file: "
                                 f"No space left on device\n")
    assert os.listdir(folder) == [link.name] and stat.S_ISCHR(os.stat(full_device).st_mode)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EIO])
@pytest.mark.parametrize("writer", ["macros -o", "report -o md"])
def test_a_failing_write_is_one_line_and_nothing_left(sample, tmp_path, monkeypatch, capsys, code, writer):
    """Each reason a write fails, raised halfway through writing (a disk that fills, a quota, a
    permission or a read-only disk, as root's tests cannot make them): one line, no temporary file."""
    import pathlib

    def failing(self, data, encoding=None, errors=None, newline=None):
        with open(self, "w", encoding=encoding) as out:
            out.write(data[: len(data) // 2])
        raise OSError(code, os.strerror(code), str(self))

    monkeypatch.setattr(pathlib.Path, "write_text", failing)
    out = tmp_path / ("out.sql" if writer == "macros -o" else "out.md")
    argv = ["macros", "-o", str(out)] if writer == "macros -o" else \
        ["report", "-m", "AP", "-o", str(out), str(sample / "qrels.txt"), str(sample / "bm25.run")]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"rankkit {argv[0]}: {out}: cannot write the file: {os.strerror(code)}\n"
    assert list(tmp_path.iterdir()) == []


def _without_override() -> list[str]:
    """A prefix that runs a command subject to file permissions: nothing for a user, for root setpriv
    without the capabilities that pass them by (or a skip, where there is no setpriv)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root writes into a folder without write permission, and there is no setpriv to drop that")
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}"]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_folder_without_permission_is_one_line(sample, tmp_path, writer):
    """A real EACCES. Before: a traceback for report and macros, DuckDB's words for eval."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        out = folder / f"out{WRITERS[writer][1]}"
        result = subprocess.run(_without_override() + RANKKIT + _argv(writer, out, sample), env=_env(),
                                capture_output=True, text=True, timeout=300)
        assert _one_line(result) == f"rankkit {writer.split()[0]}: {out}: cannot write the file: Permission denied\n"
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_folder_in_the_way_or_a_file_for_a_folder_is_one_line(sample, tmp_path, capsys, writer):
    suffix = WRITERS[writer][1]
    (tmp_path / f"taken{suffix}").mkdir()
    (tmp_path / "file").write_text("mine\n")
    for out, reason in ((tmp_path / f"taken{suffix}", "it is a folder"),
                        (tmp_path / "file" / f"out{suffix}", f"{tmp_path / 'file'} is not a folder")):
        assert main(_argv(writer, out, sample)) == 2
        assert capsys.readouterr().err == f"rankkit {writer.split()[0]}: {out}: cannot write the file: {reason}\n"
    assert (tmp_path / "file").read_text() == "mine\n" and sorted(os.listdir(tmp_path)) == ["file", f"taken{suffix}"]


def test_a_name_too_long_is_one_line(capsys, tmp_path):
    out = tmp_path / ("x" * 300 + ".sql")
    assert main(["macros", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"rankkit macros: {out}: cannot write the file: File name too long\n"


def test_evaluate_output_refuses_its_inputs(work):
    before = _snapshot(work)
    with pytest.raises(InputError, match=r"output run\.parquet: is the same file as the run run\.parquet"):
        rankkit.evaluate("qrels.txt", "run.parquet", ["AP"], per_query=True, output="run.parquet")
    with pytest.raises(InputError, match=r"output topics\.csv: is the same file as the query_table topics\.csv"):
        rankkit.evaluate("qrels.txt", "bm25.run", ["AP"], per_query=True, by="category", query_table="topics.csv",
                         output="topics.csv")
    assert _snapshot(work) == before


def test_standard_input_redirected_from_the_output_is_refused(work):
    """`rankkit eval -o run.csv qrels.txt - < run.csv`: the run read whole, then replaced by the results."""
    before = _snapshot(work)
    with open(work / "run.csv", "rb") as stdin:
        result = subprocess.run(RANKKIT + ["eval", "-q", "-o", "run.csv", "qrels.txt", "-"], stdin=stdin, env=_env(),
                                cwd=work, capture_output=True, text=True)
    assert _one_line(result) == ("rankkit eval: -o run.csv: is the same file as the standard input /dev/stdin, which "
                                 "this command reads: writing there would replace it; give another file\n")
    assert _snapshot(work) == before


def test_standard_output_as_the_output_is_written_in_place(tmp_path):
    """`rankkit macros -o /dev/stdout | ...`: the link leads to a pipe, which has no name to write beside.
    Before: 'No such file or directory' about /proc/<pid>/fd/pipe:[...]."""
    result = subprocess.run(RANKKIT + ["macros", "-o", "/dev/stdout"], env=_env(), cwd=tmp_path, capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == subprocess.run(RANKKIT + ["macros"], env=_env(), capture_output=True).stdout
