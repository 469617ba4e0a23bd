"""The documentation is a test: every fenced code block of the README and of every page of the site
(``docs/*.md``, in the order of ``mkdocs.yml``'s nav) runs as written, in the folder ``rankkit demo``
makes; the site builds with ``mkdocs build --strict`` (every link between pages and every anchor
found).

How each block is run (a marker is an HTML comment on the line right before the opening fence:
invisible on GitHub, plain in the source):

- ```` ```sh ````: bash, stopping at the first failing command (``-e -o pipefail``), with this
  Python's ``bin`` (``rankkit``, ``duckdb``) first on PATH.
- ```` ```sql ````: the ``duckdb`` shell (the ``duckdb-cli`` dev dependency), stopping at the first
  error (``-bail``). SQL blocks are chained: each runs after every SQL block above it on its page,
  in one session, so a later block uses the tables an earlier one made.
- ```` ```python ````: one interpreter for the Python blocks of a page, chained in the page's
  order: a later block uses the names an earlier one set (``qrels``, ``run``).
- ``<!-- readme-test: skip: WHY -->``: the block is not run (WHY is required and should also be
  said in the page's prose); a skipped sh block is still parsed (``bash -n``). For what cannot
  run here: installs (``pip install``), the whole test suite, benchmarks, servers.
- ``<!-- readme-test: in-python: WHY -->`` before a sh block of ``rankkit`` commands (one a line):
  each runs as ``rankkit.cli.main`` in the page's Python interpreter, its exit status 0, so that it
  shares what that holds: a Spark session (a second JVM would start otherwise, for seconds).
- ``<!-- readme-test: synopsis -->`` before a ```` ```text ```` block: a usage synopsis; every
  command it names is a ``rankkit`` command and every option and choice it lists is in that
  command's ``--help``.
- ``<!-- readme-test: output -->``: what a command prints, shown as an example; not run.
- ``bash``/``shell`` blocks are ``sh``, ``py`` blocks ``python``.
- Any other block (another language, no language, an unknown marker) fails: give it a language or
  a marker.

Each page (the README is one) starts afresh: its own copy of the folder ``rankkit demo`` made, a new
interpreter and a new duckdb session. Its blocks run in order there (a block may read a file an
earlier one on the page wrote); a page needing what another page sets up repeats that setup, so a
page reads as it runs. Selecting one block with ``-k`` runs the blocks above it on its page first. A
failure names the block's page and line and shows its output (shell lines traced as
``+ docs/cli.md:LINE: command``; Python tracebacks carry the page's line numbers).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankkit.docs import BEYOND_END, BEYOND_START, END, START, beyond_part, measure_table
from support import ROOT

BIN = Path(sys.executable).parent
TIMEOUT = 600  # seconds for one block; the slowest (the command line tour) takes well under a minute
MARKER = re.compile(r"<!--\s*readme-test:\s*(?P<kind>[\w-]+)\s*(?::\s*(?P<why>.*?))?\s*-->")
RUN = ("sh", "sql", "python")
SAME = {"bash": "sh", "shell": "sh", "py": "python"}
MARKERS = ("skip", "synopsis", "output", "in-python")


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    marker: str | None  # one of MARKERS, or None
    why: str | None
    page: str = "README.md"  # the file, from the repository's root

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line} ({self.language or 'no language'}{', ' + self.marker if self.marker else ''})"


def readme_blocks(text: str, page: str = "README.md") -> list[Block]:
    """The fenced code blocks of a Markdown text, each with the marker on the line before it."""
    lines, blocks, at = text.splitlines(), [], None
    for number, line in enumerate(lines, 1):
        if not line.startswith("```"):
            continue
        if at is None:
            at = number
            continue
        opening = lines[at - 1]
        marked = MARKER.fullmatch(lines[at - 2].strip()) if at >= 2 else None
        language = opening[3:].strip()
        blocks.append(Block(at, SAME.get(language, language), "\n".join(lines[at:number - 1]) + "\n",
                            marked["kind"] if marked else None, marked["why"] if marked else None, page))
        at = None
    return blocks


def _env() -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


# ---- running blocks ---------------------------------------------------------------------------

PYTHON_SESSION = r'''
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__main__"}
for request in sys.stdin:
    block = json.loads(request)
    out, ok = io.StringIO(), True
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:  # blank lines before the code: tracebacks give the page's line numbers
            exec(compile("\n" * block["line"] + block["code"], block["page"], "exec"), namespace)
        except BaseException:
            ok = False
            traceback.print_exc()
    print("\x1eresult " + json.dumps({"ok": ok, "output": out.getvalue()}), flush=True)
'''


class PythonSession:
    """One interpreter that runs the Python blocks one after another, in the demo folder."""

    def __init__(self, folder: Path):
        self.process = subprocess.Popen([sys.executable, "-c", PYTHON_SESSION], cwd=folder, env=_env(), text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout] + [self.lines.put(None)],
                         daemon=True).start()

    def run(self, block: Block) -> tuple[bool, str]:
        self.process.stdin.write(json.dumps({"line": block.line, "code": block.code, "page": block.page}) + "\n")
        self.process.stdin.flush()
        stray = []  # what the interpreter wrote outside Python's sys.stdout (C code, a crash)
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                return False, "".join(stray) + f"\n(no answer in {TIMEOUT} s)"
            if line is None:
                return False, "".join(stray) + f"\n(the interpreter ended, status {self.process.wait()})"
            if line.startswith("\x1eresult "):
                answer = json.loads(line[len("\x1eresult "):])
                return answer["ok"], "".join(stray) + answer["output"]
            stray.append(line)

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Runner:
    """Runs one page's blocks in order in one folder, each once, keeping what each gave."""

    def __init__(self, blocks: list[Block], folder: Path):
        self.blocks, self.folder = blocks, folder
        self.results: dict[int, tuple[bool, str]] = {}
        self.sql_done: list[Block] = []
        self.python: PythonSession | None = None

    def result(self, block: Block) -> tuple[bool, str]:
        """The block's outcome, after running the blocks above it that have not run yet."""
        for earlier in self.blocks[: self.blocks.index(block) + 1]:
            if earlier.line not in self.results:
                self.results[earlier.line] = self._run(earlier)
        if len(self.results) == len(self.blocks) and self.python is not None:
            # the page is done: its interpreter (and a JVM it started) ends while the next pages run
            self.python.process.stdin.close()
        return self.results[block.line]

    def _run(self, block: Block) -> tuple[bool, str]:
        failed = [b for b in self.blocks[: self.blocks.index(block)]
                  if b.language == block.language and b.language in ("sql", "python")
                  and b.line in self.results and not self.results[b.line][0]]
        if failed and block.marker is None:  # chained: what it builds on failed
            return False, (f"not run: it builds on the {block.language} block at {failed[0].page}:{failed[0].line}, "
                           "which failed")
        if block.marker == "skip":
            return self._parse_only(block)
        if block.marker == "synopsis":
            return check_synopsis(block)
        if block.marker == "output":
            return True, ""
        if block.marker == "in-python":
            return self._in_python(block)
        if block.language == "sh":
            return self._sh(block)
        if block.language == "sql":
            return self._sql(block)
        return self._python(block)

    def _python(self, block: Block) -> tuple[bool, str]:
        if self.python is None:
            self.python = PythonSession(self.folder)
        return self.python.run(block)

    def _sh(self, block: Block) -> tuple[bool, str]:
        # each command traced with its page and line (the code starts on the script's second line)
        script = f'PS4="+ {block.page}:\\$((LINENO + {block.line - 1})): "; set -x\n' + block.code
        return _completed(["bash", "-e", "-o", "pipefail", "-c", script], self.folder)

    def _sql(self, block: Block) -> tuple[bool, str]:
        duckdb = shutil.which("duckdb", path=_env()["PATH"])
        if duckdb is None:
            pytest.skip("the duckdb shell is absent: install the dev dependencies (duckdb-cli)")
        # the SQL blocks above, again, silently: this block's session starts where theirs ended
        script = "".join(earlier.code for earlier in self.sql_done)
        script = (".output /dev/null\n" + script + ".output\n" if script else "") + block.code
        ok, output = _completed([str(duckdb), "-bail", "-batch", ":memory:"], self.folder, script)
        if ok:
            self.sql_done.append(block)
        return ok, output

    def _in_python(self, block: Block) -> tuple[bool, str]:
        if not block.why or block.language != "sh":
            return False, "an in-python block is a sh block and says why: <!-- readme-test: in-python: WHY -->"
        lines = []  # one statement a line: a traceback names the command's page line
        for line in block.code.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] != "rankkit":
                return False, f"an in-python block holds rankkit commands only, one a line: {line}"
            lines.append(f"assert __import__('rankkit.cli').cli.main({words[1:]!r}) == 0, 'exit status not 0'"
                         if words else "")
        return self._python(Block(block.line, "python", "\n".join(lines) + "\n", None, None, block.page))

    def _parse_only(self, block: Block) -> tuple[bool, str]:
        if not block.why:
            return False, "a skipped block says why: <!-- readme-test: skip: WHY -->"
        if block.language == "sh":
            return _completed(["bash", "-n", "-c", block.code], self.folder)
        return True, ""

    def close(self) -> None:
        if self.python is not None:
            self.python.close()


def _completed(command: list[str], folder: Path, stdin: str | None = None) -> tuple[bool, str]:
    try:
        done = subprocess.run(command, cwd=folder, env=_env(), input=stdin, text=True, timeout=TIMEOUT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except subprocess.TimeoutExpired as timeout:
        return False, f"{timeout.output or ''}\n(still running after {TIMEOUT} s)"
    return done.returncode == 0, done.stdout + ("" if done.returncode == 0 else f"\n(exit status {done.returncode})")


def check_synopsis(block: Block) -> tuple[bool, str]:
    """Every command of the synopsis is rankkit's, and every option and choice it lists is in its --help."""
    if block.language != "text":
        return False, "a synopsis is a ```text block (it is not run)"
    problems, helps = [], {}
    for command, text in _synopsis_commands(block.code):
        if command not in helps:
            done = subprocess.run(["rankkit", command, "--help"], env=_env(), text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            helps[command] = done.stdout if done.returncode == 0 else None
        help_text = helps[command]
        if help_text is None:
            problems.append(f"rankkit {command}: no such command")
            continue
        for option in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text):
            if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text):
                problems.append(f"rankkit {command}: {option} is not in --help")
        for choices in re.findall(r"\w+(?:\|\w+)+", text):
            missing = [word for word in choices.split("|") if not re.search(rf"\b{re.escape(word)}\b", help_text)]
            if missing:
                problems.append(f"rankkit {command}: {', '.join(missing)} (of {choices}) not in --help")
    return not problems, "\n".join(problems)


def _synopsis_commands(code: str) -> list[tuple[str, str]]:
    """(command, its text) for each ``rankkit COMMAND ...`` of a synopsis; indented lines continue it."""
    found: list[tuple[str, str]] = []
    for line in code.splitlines():
        if line.startswith("rankkit "):
            found.append((line.split()[1], line))
        elif line.strip() and found:
            found[-1] = (found[-1][0], found[-1][1] + " " + line.strip())
    return found


# ---- the tests --------------------------------------------------------------------------------

README = ROOT / "README.md"
MKDOCS = ROOT / "mkdocs.yml"
MEASURES_PAGE = ROOT / "docs" / "measures.md"


def nav_pages() -> list[str]:
    """The site's pages in the order of mkdocs.yml's nav, as paths under docs/."""
    import yaml  # mkdocs's own dependency

    found: list[str] = []

    def walk(entry):
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict):
            [walk(value) for value in entry.values()]
        elif isinstance(entry, list):
            [walk(item) for item in entry]

    walk(yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))["nav"])
    return found


PAGES = ["README.md", *(f"docs/{page}" for page in nav_pages())]
BLOCKS = [block for page in PAGES for block in readme_blocks((ROOT / page).read_text(encoding="utf-8"), page)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The folder `rankkit demo` and `rankkit demo --recsys` make (run as a user runs them), which each page
    gets a copy of."""
    here = tmp_path_factory.mktemp("demo")
    ok, output = _completed(["rankkit", "demo", "--queries", "60"], here)  # smaller: every block runs faster
    assert ok, f"rankkit demo failed:\n{output}"
    ok, output = _completed(["rankkit", "demo", "--recsys"], here)  # recsys/: the recommender quick start
    assert ok, f"rankkit demo --recsys failed:\n{output}"
    return here / "rankkit-demo"


@pytest.fixture(scope="module")
def runners(demo, tmp_path_factory):
    """One runner per page, made when its first block runs, in its own copy of the demo folder."""
    made: dict[str, Runner] = {}

    def runner(page: str) -> Runner:
        if page not in made:
            folder = tmp_path_factory.mktemp(Path(page).stem) / "rankkit-demo"
            shutil.copytree(demo, folder)
            made[page] = Runner([block for block in BLOCKS if block.page == page], folder)
        return made[page]

    yield runner
    for each in made.values():
        each.close()


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:line{b.line}-{b.language or 'none'}" for b in BLOCKS])
def test_readme_block_runs_as_written(block, runners):
    if block.marker not in (None, *MARKERS):
        pytest.fail(f"{block.name}: unknown marker {block.marker!r}: readme-test: skip: WHY, in-python: WHY, "
                    "synopsis or output")
    if block.marker is None and block.language not in RUN:
        pytest.fail(f"{block.name}: a block runs as {', '.join(RUN)}, or is marked skip (saying why), synopsis "
                    "or output")
    ok, output = runners(block.page).result(block)
    assert ok, f"{block.name} failed:\n{block.code}\n--- output ---\n{_tail(output)}"


def _tail(output: str, lines: int = 200) -> str:
    """The end of a long output, where the failure is (-q -m all_trec prints thousands of lines)."""
    kept = output.splitlines()
    return "\n".join(([f"({len(kept) - lines} lines before left out)"] if len(kept) > lines else []) + kept[-lines:])


def test_the_runner_names_a_broken_block_and_shows_its_output(tmp_path):
    """A broken block of each language fails, naming its README line, with what it printed."""
    text = ("intro\n\n```sh\necho fine\nrankkit no-such-command\n```\n\n```python\nx = 1\n```\n\n"
            "```python\nprint('before'); x.missing\n```\n\n```python\nprint('chained')\n```\n\n"
            "```sql\nCREATE TABLE t AS SELECT 1 AS a;\n```\n\n```sql\nSELECT b FROM t;\n```\n\n"
            "<!-- readme-test: synopsis -->\n```text\nrankkit eval QRELS RUN [--no-such-option]\n```\n\n"
            "<!-- readme-test: output -->\n```\nnot run\n```\n\n```bash\ntest -f qrels.txt\n```\n")
    blocks = readme_blocks(text)
    made = Runner(blocks, tmp_path)
    try:
        outcomes = {block.line: made.result(block) for block in blocks}
    finally:
        made.close()
    assert [block.line for block in blocks] == [3, 8, 12, 16, 20, 24, 29, 34, 38]
    assert {block.page for block in blocks} == {"README.md"}
    assert not outcomes[3][0] and "+ README.md:5: rankkit no-such-command" in outcomes[3][1]
    assert outcomes[8][0]
    assert not outcomes[12][0] and "before" in outcomes[12][1] and 'File "README.md", line 13' in outcomes[12][1]
    assert not outcomes[16][0] and "builds on the python block at README.md:12" in outcomes[16][1]
    assert outcomes[20][0]
    assert not outcomes[24][0] and '"b" not found' in outcomes[24][1]
    assert not outcomes[29][0] and "--no-such-option is not in --help" in outcomes[29][1]
    assert outcomes[34] == (True, "")
    assert blocks[-1].language == "sh" and not outcomes[38][0] and "+ README.md:39: test -f qrels.txt" in outcomes[38][1]


def test_the_runner_names_a_page_in_what_it_reports(tmp_path):
    """A page's failing shell line, its Python traceback and its chained block name the page."""
    text = "```sh\ntrue\nfalse\n```\n\n```python\n\nraise ValueError('here')\n```\n\n```python\nx = 1\n```\n"
    blocks = readme_blocks(text, "docs/page.md")
    made = Runner(blocks, tmp_path)
    try:
        outcomes = [made.result(block) for block in blocks]
    finally:
        made.close()
    assert "+ docs/page.md:3: false" in outcomes[0][1]
    assert 'File "docs/page.md", line 8' in outcomes[1][1]
    assert "builds on the python block at docs/page.md:6" in outcomes[2][1]


def test_an_in_python_block_runs_its_commands_in_the_pages_interpreter(tmp_path):
    """Each rankkit command of an in-python block runs in the page's Python interpreter, a failing one
    named by its page line; a block holding anything else, or saying no why, fails."""
    text = ("<!-- readme-test: in-python: one process -->\n```sh\nrankkit measures  # every measure\n```\n\n"
            "```python\nimport sys\nprint('rankkit.cli' in sys.modules)\n```\n\n"
            "<!-- readme-test: in-python: one process -->\n```sh\nrankkit measures\n\n"
            "rankkit eval no.qrels no.run\n```\n\n"
            "<!-- readme-test: in-python: one process -->\n```sh\nls\n```\n\n"
            "<!-- readme-test: in-python -->\n```sh\nrankkit measures\n```\n")
    blocks = readme_blocks(text, "docs/page.md")
    made = Runner(blocks, tmp_path)
    try:
        outcomes = [made.result(block) for block in blocks]
    finally:
        made.close()
    assert outcomes[0][0] and "nDCG" in outcomes[0][1]
    assert outcomes[1] == (True, "True\n")  # the commands ran in the interpreter the Python blocks run in
    assert not outcomes[2][0] and 'File "docs/page.md", line 15' in outcomes[2][1] and "no.qrels" in outcomes[2][1]
    assert not outcomes[3][0] and "rankkit commands only, one a line: ls" in outcomes[3][1]
    assert not outcomes[4][0] and "says why" in outcomes[4][1]


def test_measure_table_is_generated_from_the_registry():
    text = MEASURES_PAGE.read_text(encoding="utf-8")
    table = text.split(START, 1)[1].split(END, 1)[0]
    assert table.strip() == measure_table().strip(), "run: python -m rankkit.docs"


def test_the_beyond_accuracy_table_is_generated_from_their_declarations():
    """docs/beyond-accuracy.md shows the beyond-accuracy rows of the measures reference, written by the
    same code from sql/metrics/beyond/*.sql, not a table of its own (issue 34)."""
    text = (ROOT / "docs" / "beyond-accuracy.md").read_text(encoding="utf-8")
    assert BEYOND_START in text, "docs/beyond-accuracy.md lacks its generated table"
    table = text.split(BEYOND_START, 1)[1].split(BEYOND_END, 1)[0]
    assert table.strip() == beyond_part().strip(), "run: python -m rankkit.docs"
    assert all(row in measure_table() for row in beyond_part().splitlines() if row.startswith("| `"))


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page():
    pages = {path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").rglob("*.md")}
    assert sorted(pages) == sorted(nav_pages()), "docs/*.md and mkdocs.yml's nav name the same pages"


def test_the_readme_links_only_to_files_that_exist():
    """The README links into the site's Markdown (readable on GitHub as it is): each target is there."""
    text = README.read_text(encoding="utf-8")
    targets = [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]
    assert any(target.startswith("docs/") for target in targets), "the README links into docs/"
    missing = [target for target in targets if not (ROOT / target.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_site_builds_strictly(tmp_path):
    """mkdocs build --strict: a broken link or anchor, a page missing from the nav, bad Markdown fail it."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=dict(_env(), NO_MKDOCS_2_WARNING="1"), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout
    assert (tmp_path / "site" / "measures.html").exists() and (tmp_path / "site" / "explorer.png").exists()
