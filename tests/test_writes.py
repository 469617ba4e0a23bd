"""Every file rankkit writes appears whole or not at all: killed while writing, a writer leaves the old
file or nothing under the final name, never a part of a file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from rankkit._files import PARTIAL, replacing, write_text
from rankkit.demo import write_sample
from rankkit.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
RANKKIT = [sys.executable, "-c", "import sys; from rankkit.cli import main; sys.exit(main())"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict[str, Path]:
    """A sample large enough that writing all_trec per query takes a second or more."""
    return write_sample(tmp_path_factory.mktemp("big"), queries=2000)


def _files(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_size for path in folder.iterdir()}


def _kill_when_written(command: list[str], folder: Path, timeout: float = 60) -> None:
    """Run ``command``; SIGKILL it as soon as a file in ``folder`` shows or changes size."""
    before = _files(folder)
    process = subprocess.Popen(command, env=_env(), cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                changed = _files(folder) != before
            except FileNotFoundError:  # a file went between listing and stat: a change too
                changed = True
            if changed:
                process.send_signal(signal.SIGKILL)
                process.wait()
                return
            if process.poll() is not None:
                pytest.fail(f"the writer ended (exit {process.returncode}) before a file showed: "
                            f"{process.stderr.read().decode()}")
            time.sleep(0.005)
        pytest.fail("no file showed while the writer ran")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_cli_output_killed_while_writing_leaves_no_part(big, tmp_path, existing):
    target = tmp_path / "pq.csv"
    if existing:
        target.write_text("the old results\n")
    command = RANKKIT + ["eval", "-q", "-o", str(target), "-m", "all_trec", str(big["qrels.txt"]),
                         str(big["bm25.run"])]
    _kill_when_written(command, tmp_path)
    if existing:
        assert target.read_text() == "the old results\n"
    else:
        assert not target.exists(), f"a killed writer left {target.stat().st_size} bytes under the final name"


# Report.save computes its text, then writes it in a moment: a slow disk, played by a write_text that
# stops halfway, gives the kill its window
SLOW_SAVE = """
import pathlib, sys, time
import pandas as pd
from rankkit.report.model import Report

def slow_write_text(self, data, encoding=None, errors=None, newline=None):
    with open(self, "w", encoding=encoding) as out:
        out.write(data[: len(data) // 2])
        out.flush()
        time.sleep(60)
        out.write(data[len(data) // 2:])

pathlib.Path.write_text = slow_write_text
aggregate = pd.DataFrame({"measure": ["AP"], "system": ["a"], "value": [0.5], "queries": [1]})
Report(title="t", record={"systems": ["a"], "measures": []}, aggregate=aggregate).save(sys.argv[1])
"""


@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_report_save_killed_while_writing_leaves_no_part(tmp_path, existing):
    target = tmp_path / "report.json"
    if existing:
        target.write_text("the old report\n")
    script = tmp_path / "save.py"
    script.write_text(textwrap.dedent(SLOW_SAVE))
    _kill_when_written([sys.executable, str(script), str(target)], tmp_path)
    if existing:
        assert target.read_text() == "the old report\n"
    else:
        assert not target.exists(), f"a killed save left {target.stat().st_size} bytes under the final name"


def test_a_whole_write_is_unchanged(tmp_path):
    """The same bytes as a plain write, the temporary file gone, an existing file replaced."""
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    assert write_text(target, "één\nzwei\n") == target
    assert target.read_bytes() == "één\nzwei\n".encode()
    assert [path.name for path in tmp_path.iterdir()] == ["out.txt"]


def test_cli_output_is_the_same_as_before(big, tmp_path):
    """The streamed result's per-query rows are what evaluate returns (the summary rows, query 'all',
    follow them), and only the result is left in the folder."""
    import rankkit

    target = tmp_path / "pq.csv"
    subprocess.run(RANKKIT + ["eval", "-q", "-o", str(target), "-m", "AP", "-m", "P@10", str(big["qrels.txt"]),
                              str(big["bm25.run"])], env=_env(), check=True)
    written = pd.read_csv(target, dtype={"query_id": str, "system": str})
    per_query = written[written["query_id"] != "all"].drop(columns="queries").reset_index(drop=True)
    expected = rankkit.evaluate(str(big["qrels.txt"]), str(big["bm25.run"]), ["AP", "P@10"], per_query=True)
    pd.testing.assert_frame_equal(per_query, expected.reset_index(drop=True), check_dtype=False)
    assert sorted(written.loc[written["query_id"] == "all", "measure"]) == ["AP", "P@10"]
    assert [path.name for path in tmp_path.iterdir()] == ["pq.csv"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with replacing(target) as partial:
            partial.write_text("half")
            raise RuntimeError("the writer failed")
    assert target.read_text() == "old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["out.txt"]


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(InputError, match=r"nope[/\\]out.txt: cannot write the file: the folder .*nope does not exist"):
        write_text(tmp_path / "nope" / "out.txt", "x")


def test_an_error_names_the_target_not_the_temporary(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(InputError) as raised:
        with replacing(target) as partial:
            raise OSError(f"cannot open {partial}")
    assert str(raised.value) == f"cannot open {target}" and PARTIAL not in str(raised.value)


def test_a_figure_is_saved_whole(tmp_path):
    """rankkit's figures save through the same helper; a name without a suffix gets matplotlib's."""
    from rankkit import plot

    per_query = pd.DataFrame({"measure": "AP", "system": "a", "query_id": ["1", "2", "3"], "value": [0.1, 0.5, 0.9]})
    figure = plot.distribution(per_query, measure="AP")
    figure.savefig(tmp_path / "plot.png")
    figure.savefig(str(tmp_path / "plain"))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["plain.png", "plot.png"]
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"


def test_a_replaced_file_keeps_its_mode_and_a_link_is_written_through(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_text(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("command", [["macros"], ["eval", "-q"], ["report", "-m", "AP"]], ids=lambda c: c[0])
def test_cli_output_in_a_missing_folder_is_one_clear_line(tmp_path, capsys, command):
    """Before, macros and report ended in a traceback, eval in DuckDB's words."""
    from rankkit.cli import main

    sample = write_sample(tmp_path / "sample", queries=3)
    inputs = [] if command == ["macros"] else [str(sample["qrels.txt"]), str(sample["bm25.run"])]
    target = tmp_path / "nope" / ("out.html" if command[0] == "report" else "out.csv")
    assert main([*command, *inputs, "-o", str(target)]) == 2
    assert capsys.readouterr().err == (f"rankkit {command[0]}: {target}: cannot write the file: "
                                       f"the folder {target.parent} does not exist\n")
