"""The explorer in a real browser: Voila serves it on 127.0.0.1, headless Chromium (Debian's package,
through Playwright) changes the measure and the query and sees the plots and the drill-down change.

Screenshots go to the test's temporary folder. With RANKKIT_SCREENSHOT=path the explorer
notebook's view is also saved there (the README's docs/explorer.png is made so)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

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


def _drive(page, url: str, folder: Path, measure: str, prefix: str):
    """Open the explorer, change the measure and the query; return the explorer's locator."""
    page.goto(url, timeout=STARTUP)
    explorer = page.locator(".rankkit-explorer")
    title = explorer.locator("h3").first
    sync_api.expect(title).to_contain_text("rankkit explorer", timeout=STARTUP)
    page.screenshot(path=str(folder / f"{prefix}-1-opened.png"))
    distribution = explorer.locator("img").first
    before = distribution.get_attribute("src")

    explorer.locator("select").first.select_option(label=measure)
    sync_api.expect(title).to_contain_text(f"{measure}@10", timeout=STEP)
    sync_api.expect(distribution).not_to_have_attribute("src", before, timeout=STEP)
    page.screenshot(path=str(folder / f"{prefix}-2-measure.png"))

    query_buttons = explorer.locator("button").filter(has_text=re.compile(r"^q\d{3}$"))
    chosen = query_buttons.nth(2)
    query_id = chosen.inner_text().strip()
    plots = [explorer.locator("img").nth(i) for i in range(3)]  # distribution, scatter, differences
    unmarked = [image.get_attribute("src") for image in plots]
    chosen.click()
    drill = explorer.locator("h3").filter(has_text=f"query {query_id}")
    sync_api.expect(drill).to_be_visible(timeout=STEP)
    sync_api.expect(explorer.locator("table").first).to_contain_text("log2(r+1)", timeout=STEP)
    for image, before_mark in zip(plots, unmarked):  # the query is marked in all three
        sync_api.expect(image).not_to_have_attribute("src", before_mark, timeout=STEP)
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
        explorer, query_id = _drive(page, f"http://127.0.0.1:{port}/", tmp_path, "AP", "notebook")
        text = explorer.inner_text()
        assert "judged documents no system retrieved" in text and "rank in dense" in text
        explorer.screenshot(path=str(tmp_path / "explorer.png"))
        if os.environ.get("RANKKIT_SCREENSHOT"):
            shutil.copy(tmp_path / "explorer.png", os.environ["RANKKIT_SCREENSHOT"])
    assert (tmp_path / "explorer.png").stat().st_size > 50_000


def test_rankkit_explore_command_in_the_browser(tmp_path):
    paths = write_sample(tmp_path / "sample", queries=80)
    command = [str(Path(sys.executable).parent / "rankkit"), "explore", str(paths["qrels.txt"]),
               str(paths["bm25.run"]), str(paths["dense.run"])]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with _stopping(server, signal.SIGINT), _browser() as page:
        line = server.stdout.readline()
        match = re.fullmatch(r"rankkit explore: serving (http://127\.0\.0\.1:(\d+)/) \(Ctrl\+C stops\)\n", line)
        assert match, line
        explorer, query_id = _drive(page, match.group(1), tmp_path, "RR", "command")
        assert "bm25" in explorer.inner_text() and "dense" in explorer.inner_text()
    assert server.returncode == 0
