"""The explorer in a real browser: Voila, JupyterLab 4 and Notebook 7 serve it on 127.0.0.1, headless
Chromium (Debian's package, through Playwright) changes the measure and the query and sees the plots
and the drill-down change. tests/test_vscode.py does the same with VS Code's widget renderer.

Screenshots go to the test's temporary folder. With RANKKIT_SCREENSHOT=path the explorer
notebook's view in Voila is also saved there (docs/explorer.png, on the explorer page, is made so)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from rankkit.demo import write_sample
from support import ROOT

CHROMIUM = os.environ.get("RANKKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STARTUP = 240_000  # ms: Voila starts a kernel, which runs the notebook, on a shared machine
STEP = 180_000  # ms: one control change or query click, redrawn by the kernel; CI machines are shared and loaded

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (Debian: apt install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("voila")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server stopped (exit {process.returncode})"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise AssertionError(f"nothing answered on 127.0.0.1:{port} within {seconds} s")


@contextlib.contextmanager
def _stopping(process: subprocess.Popen, sig=signal.SIGTERM):
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def _browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 2400})
        finally:
            browser.close()


def _drive(page, folder: Path, measure: str, prefix: str, settled=lambda: None):
    """On a page showing the explorer (or about to), change the measure and the query; return the
    explorer's locator and the query chosen. ``settled()`` waits, where the page can tell, until the
    kernel has sent all a change redraws, so that a screenshot shows all of it."""
    explorer = page.locator(".rankkit-explorer")
    title = explorer.locator("h3").first
    sync_api.expect(title).to_contain_text("rankkit explorer", timeout=STARTUP)
    title.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / f"{prefix}-1-opened.png"))
    distribution = explorer.locator("img").first
    before = distribution.get_attribute("src")

    explorer.locator("select").first.select_option(label=measure)
    # the name as evaluate reads it: AP (or RR) over the whole list, whatever the cutoff before
    sync_api.expect(title).to_contain_text(f"explorer: {measure}, ", timeout=STEP)
    # and the cutoff control says so: its first option, "whole list"
    cutoff = explorer.locator("select").nth(1)
    sync_api.expect(cutoff).to_have_js_property("selectedIndex", 0, timeout=STEP)
    sync_api.expect(distribution).not_to_have_attribute("src", before, timeout=STEP)
    # then the cutoff control: the measure at 10 (and a drill-down of ten ranks, which the screenshot holds)
    cutoff.select_option(label="10")
    sync_api.expect(title).to_contain_text(f"explorer: {measure}@10, ", timeout=STEP)
    if explorer.locator("h3").filter(has_text=re.compile(r"^query ")).count():
        # a query is open (the notebook opened one): its drill-down is redrawn last, after the table
        drill_line = explorer.locator("p").filter(has_text=re.compile(rf"^{re.escape(measure)}@10: "))
        sync_api.expect(drill_line).to_be_visible(timeout=STEP)
    settled()
    title.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / f"{prefix}-2-measure.png"))

    # a query whose row is not marked (button_style "info"): not the one already open, if any
    query_buttons = explorer.locator("button:not(.mod-info)").filter(has_text=re.compile(r"^q\d{3}$"))
    query_id = query_buttons.nth(2).inner_text().strip()
    chosen = explorer.get_by_role("button", name=query_id, exact=True)  # the same query if the table is redrawn
    plots = [explorer.locator("img").nth(i) for i in range(3)]  # distribution, scatter, differences
    unmarked = [image.get_attribute("src") for image in plots]
    chosen.click()
    drill = explorer.locator("h3").filter(has_text=f"query {query_id}")
    sync_api.expect(drill).to_be_visible(timeout=STEP)
    # the drill-down shows the columns the measure's header names (trace:), what each rank adds among them
    sync_api.expect(explorer.locator("table").first).to_contain_text(f"+{measure}", timeout=STEP)
    for image, before_mark in zip(plots, unmarked):  # the query is marked in all three
        sync_api.expect(image).not_to_have_attribute("src", before_mark, timeout=STEP)
    settled()
    drill.evaluate("element => element.scrollIntoView()")  # the drill-down at the top of the screenshot
    page.screenshot(path=str(folder / f"{prefix}-3-query.png"))
    return explorer, query_id


def test_explorer_notebook_served_by_voila(tmp_path):
    shutil.copy(ROOT / "notebooks" / "explorer.ipynb", tmp_path / "explorer.ipynb")
    port = _free_port()
    log = (tmp_path / "voila.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "voila", "explorer.ipynb", "--no-browser", "--Voila.ip=127.0.0.1",
                               f"--port={port}"], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    with _stopping(server), _browser() as page:
        _wait_for_port(port, server)
        page.goto(f"http://127.0.0.1:{port}/", timeout=STARTUP)
        explorer, query_id = _drive(page, tmp_path, "AP", "notebook")
        text = explorer.inner_text()
        assert "judged documents no system retrieved" in text and "rank in dense" in text
        explorer.screenshot(path=str(tmp_path / "explorer.png"))
        if os.environ.get("RANKKIT_SCREENSHOT"):
            shutil.copy(tmp_path / "explorer.png", os.environ["RANKKIT_SCREENSHOT"])
    assert (tmp_path / "explorer.png").stat().st_size > 50_000


# What the console of rankkit explore's page may hold besides logs: Voila 0.5's page is built on
# JupyterLab 4.2.5, and the widget managers it needs (jupyterlab_widgets', and Voila's own
# widgets-manager8) were built against JupyterLab 4.5 and 4.6. webpack warns that the page's copy of a
# shared module is older than their range, then uses it (a singleton) or their own copy (outputarea);
# the widgets work, as this test shows by driving them. Only a Voila built on a newer JupyterLab ends them.
HARMLESS_WARNINGS = re.compile(
    r"Unsatisfied version [\d.]+ from _JUPYTERLAB\.CORE_OUTPUT of shared singleton module @jupyterlab/[\w-]+ "
    r"\(required \^[\d.]+\)"
    r"|No satisfying version \(\^[\d.]+\) of shared module @jupyterlab/outputarea found in shared scope default\.\n"
    r"Available versions: [\d.]+ from _JUPYTERLAB\.CORE_OUTPUT")


def _recording(page) -> dict[str, list[str]]:
    """Every address the page asks for (requests and websockets) and every console message that is a
    problem: an error, an uncaught exception, or a warning not in HARMLESS_WARNINGS."""
    seen = {"addresses": [], "problems": []}
    page.on("request", lambda request: seen["addresses"].append(request.url))
    page.on("websocket", lambda socket: seen["addresses"].append(socket.url))
    page.on("pageerror", lambda error: seen["problems"].append(f"uncaught: {error}"))

    def console(message):
        harmless = message.type == "warning" and HARMLESS_WARNINGS.fullmatch(message.text)
        if message.type in ("error", "warning") and not harmless:
            seen["problems"].append(f"{message.type}: {message.text}")

    page.on("console", console)
    return seen


def _elsewhere(addresses: list[str], port: str) -> list[str]:
    """The addresses not on the local server (a blob: address names its origin after the colon)."""
    def local(address: str) -> bool:
        parts = urlsplit(address.removeprefix("blob:"))
        return parts.scheme == "data" or (parts.hostname == "127.0.0.1" and str(parts.port) == port)

    return [address for address in addresses if not local(address)]


def _icon(page, explorer, folder: Path) -> dict:
    """An icon drawn as ipywidgets draws one (Button(icon="check")), added to the explorer: its font
    and the FontAwesome faces the page loaded for it; saved as icon.png."""
    explorer.evaluate("element => element.insertAdjacentHTML('afterbegin', "
                      "'<p id=\"rankkit-icon\" style=\"font-size: 48px\"><i class=\"fa fa-check\"></i></p>')")
    icon = page.locator("#rankkit-icon i")
    drawn = icon.evaluate("""async icon => {
        const faces = await document.fonts.load('900 48px "Font Awesome 5 Free"', '\\uf00c');
        return {font: getComputedStyle(icon).fontFamily, glyph: getComputedStyle(icon, '::before').content,
                faces: faces.map(face => face.family + ' ' + face.status)};
    }""")
    icon.screenshot(path=str(folder / "icon.png"))
    return drawn


def test_rankkit_explore_command_in_the_browser(tmp_path):
    """Driven as the other pages are; also: every asset comes from the local server (no CDN: the
    machine may be offline), icons are drawn in FontAwesome, and the console holds no error."""
    paths = write_sample(tmp_path / "sample", queries=80)
    command = [str(Path(sys.executable).parent / "rankkit"), "explore", str(paths["qrels.txt"]),
               str(paths["bm25.run"]), str(paths["dense.run"])]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with _stopping(server, signal.SIGINT), _browser() as page:
        line = server.stdout.readline()
        match = re.fullmatch(r"rankkit explore: serving (http://127\.0\.0\.1:(\d+)/\?token=[\w-]+) \(Ctrl\+C stops\)\n", line)
        assert match, line
        seen = _recording(page)
        page.goto(match.group(1), timeout=STARTUP)
        explorer, query_id = _drive(page, tmp_path, "RR", "command")
        assert "bm25" in explorer.inner_text() and "dense" in explorer.inner_text()
        drawn = _icon(page, explorer, tmp_path)
    assert server.returncode == 0
    assert len(seen["addresses"]) > 20 and _elsewhere(seen["addresses"], match.group(2)) == []
    assert seen["problems"] == []
    assert drawn == {"font": '"Font Awesome 5 Free"', "glyph": '"\uf00c"', "faces": ["Font Awesome 5 Free loaded"]}


# JupyterLab 4 and Notebook 7: the same notebook opened as a person opens it, all cells run from the
# Run menu. Each server gets a Jupyter home of its own under the test's folder, so the developer's
# settings, kernels and workspaces stay out; its python3 kernel is the test's own Python.
FRONT_ENDS = {"jupyterlab": "lab/tree/explorer.ipynb", "notebook": "notebooks/explorer.ipynb"}
# every Jupyter server here loads JupyterLab's server extension: no news feed, no update check, no extension index
QUIET = ["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly"]
# the frontend plugin asking to fetch Jupyter news (a pop-up over the page); the server side is off above
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
RUN_ALL_TRIES = 3


def _jupyter_home(folder: Path) -> dict[str, str]:
    """The environment of a Jupyter server whose config, data, runtime and kernel dirs are under folder."""
    home = folder / "jupyter"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_PATH": str(home / "prefix" / "share" / "jupyter"),
           "IPYTHONDIR": str(home / "ipython")}
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(home / "prefix")],
                   env=env, check=True, capture_output=True)
    (home / "config" / "labconfig").mkdir(parents=True)
    (home / "config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {NEWS_PLUGIN: True}}), encoding="utf-8")
    return env


def _kernel_idle(page, timeout: int = STEP) -> None:
    """Jupyter's kernel indicator shows idle: the kernel has handled every message sent to it."""
    kernel = page.locator(".jp-Notebook-ExecutionIndicator")
    sync_api.expect(kernel).to_have_attribute("data-status", "idle", timeout=timeout)


def _run_all_cells(page, code_cells: int) -> None:
    """Run > Run All Cells, once the kernel is idle and every code cell is on the page. JupyterLab
    still dropped the command now and then on this shared machine (every cell stayed unrun, the
    kernel idle): then it is chosen again. Running the notebook twice changes nothing it shows."""
    _kernel_idle(page, STARTUP)
    prompts = page.locator(".jp-CodeCell .jp-InputPrompt")
    sync_api.expect(prompts).to_have_count(code_cells, timeout=STARTUP)
    for attempt in range(RUN_ALL_TRIES):
        _accept_dialog(page)
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:not(.lm-mod-disabled)", has_text=re.compile(r"^Run All Cells")).click()
        try:
            sync_api.expect(prompts.first).to_have_text(re.compile(r"\[\d+\]"), timeout=STEP // 3)
            break
        except AssertionError:
            if prompts.filter(has_text="[*]").count():  # running, only slowly: wait for it below
                break
    # every code cell numbered: none waiting ([ ]) or running ([*]), so the explorer is as the notebook left it
    pending = prompts.filter(has_text=re.compile(r"\[[^0-9]*\]"))
    sync_api.expect(pending).to_have_count(0, timeout=STARTUP)


def _accept_dialog(page) -> None:
    """A dialog JupyterLab opened over the page (seen on a loaded machine after a Run All Cells it
    dropped, which then covered the Run menu until the click timed out): its default button, as a
    user would press Enter, the dialog's words printed for the test's log."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count():
        print("JupyterLab's dialog:", " ".join(dialog.first.inner_text().split()))
        dialog.first.locator(".jp-mod-accept").first.click()
        sync_api.expect(dialog).to_have_count(0, timeout=STEP // 3)


@contextlib.contextmanager
def _jupyter_server(app: str, folder: Path, *options: str):
    """``python -m app`` (jupyterlab, notebook, jupyter_server) serving folder on 127.0.0.1 with a
    Jupyter home of its own under folder, and further command-line options; yields its address and
    token once it answers."""
    env, port, token = _jupyter_home(folder), _free_port(), secrets.token_hex(16)
    log = (folder / f"{app}.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", app, "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", "--ServerApp.allow_root=True",
         f"--ServerApp.root_dir={folder}", *QUIET, *options],
        cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    with _stopping(server):
        _wait_for_port(port, server)
        yield f"http://127.0.0.1:{port}", token


@pytest.mark.parametrize("front_end", sorted(FRONT_ENDS))
def test_explorer_notebook_in_jupyter(front_end, tmp_path):
    shutil.copy(ROOT / "notebooks" / "explorer.ipynb", tmp_path / "explorer.ipynb")
    cells = json.loads((tmp_path / "explorer.ipynb").read_text(encoding="utf-8"))["cells"]
    with _jupyter_server(front_end, tmp_path) as (address, token), _browser() as page:
        page.goto(f"{address}/{FRONT_ENDS[front_end]}?token={token}", timeout=STARTUP)
        _run_all_cells(page, sum(cell["cell_type"] == "code" for cell in cells))
        explorer, query_id = _drive(page, tmp_path, "AP", front_end, settled=lambda: _kernel_idle(page))
        sync_api.expect(explorer).to_have_count(1)
        notebook = page.locator(".jp-Notebook")
        for failure in ("Error displaying widget", "Loading widget", "Traceback"):
            sync_api.expect(notebook).not_to_contain_text(failure)
        text = explorer.inner_text()
        assert "judged documents no system retrieved" in text and "rank in dense" in text


def test_explorer_under_two_judgment_tables(tmp_path):
    """rankkit explore --second-qrels: a query's drill-down shows each system's ranks with both labels,
    the documents labelled differently tinted; saved as second-qrels.png (looked at when changed)."""
    import numpy as np
    import pandas as pd

    paths = write_sample(tmp_path / "sample", queries=40)
    qrels = pd.read_csv(paths["qrels.txt"], sep=" ", header=None, names=["query_id", "q0", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    moved = np.random.default_rng(1).random(len(qrels)) < 0.2
    second = qrels.assign(relevance=np.where(moved, (qrels["relevance"] + 1) % 3, qrels["relevance"]))
    second[["query_id", "doc_id", "relevance"]].to_csv(tmp_path / "llm.csv", index=False)
    command = [str(Path(sys.executable).parent / "rankkit"), "explore", str(paths["qrels.txt"]),
               str(paths["bm25.run"]), str(paths["dense.run"]), "-m", "nDCG@10", "--second-qrels", str(tmp_path / "llm.csv")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with _stopping(server, signal.SIGINT), _browser() as page:
        line = server.stdout.readline()
        match = re.fullmatch(r"rankkit explore: serving (http://127\.0\.0\.1:(\d+)/\?token=[\w-]+) \(Ctrl\+C stops\)\n", line)
        assert match, line
        page.goto(match.group(1), timeout=STARTUP)
        explorer = page.locator(".rankkit-explorer")
        sync_api.expect(explorer.locator("h3").first).to_contain_text("rankkit explorer", timeout=STARTUP)
        sync_api.expect(explorer).to_contain_text("under B, mean nDCG@10", timeout=STEP)
        explorer.get_by_role("button", name="q004", exact=True).click()
        drill = explorer.locator("h3").filter(has_text="query q004")
        sync_api.expect(drill).to_be_visible(timeout=STEP)
        tables = explorer.locator("table").filter(has_text="grade B")
        sync_api.expect(tables).to_have_count(2, timeout=STEP)
        assert explorer.locator("tr[style*='background']").filter(has_text="≠").count() > 0
        page.set_viewport_size({"width": 1400, "height": 1100})
        drill.evaluate("element => element.scrollIntoView()")
        page.screenshot(path=str(tmp_path / "second-qrels.png"))
        explorer.locator("img").first.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "second-qrels-plots.png"))
    assert (tmp_path / "second-qrels.png").stat().st_size > 30_000
