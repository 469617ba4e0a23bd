"""``rankkit explore`` stops cleanly: SIGTERM or Ctrl+C ends its Voila server, every kernel and their
temporary folders, and a page that closes (or is lost) takes its kernel with it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rankkit.demo import write_sample
from support import ROOT

pytestmark = pytest.mark.slow
pytest.importorskip("voila")
psutil = pytest.importorskip("psutil")

CHROMIUM = os.environ.get("RANKKIT_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
PAGE_SECONDS = 240  # a page load runs the notebook in a new kernel, on a shared machine


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, Path]:
    return write_sample(tmp_path_factory.mktemp("sample"), queries=30)


@contextlib.contextmanager
def _serving(command: list[str]):
    """The server started by ``command``, and its address once it says it serves; whatever of its
    process tree is left at the end is killed (a failing test leaves nothing running either)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    seen: dict[int, psutil.Process] = {}
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"rankkit explore: serving (http://127\.0\.0\.1:(\d+)/\?token=[\w-]+) \(Ctrl\+C stops\)\n", line)
        assert match, line + process.stdout.read()
        yield process, match.group(1), int(match.group(2)), seen
    finally:
        for child in [*seen.values(), *_tree(process.pid)]:
            with contextlib.suppress(psutil.Error):
                child.kill()
        process.kill()
        process.wait()


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _kernels(process: subprocess.Popen, seen: dict) -> list[psutil.Process]:
    """The kernels under the server (Voila starts them in sessions of their own, as its children)."""
    kernels = []
    for child in _tree(process.pid):
        with contextlib.suppress(psutil.Error):
            seen[child.pid] = child
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                kernels.append(child)
    return kernels


def _kernel_id(page) -> str:
    """The id of the kernel Voila started for ``page``, from the page's configuration."""
    return re.search(r'"kernelId": "([0-9a-f-]+)"', page.content()).group(1)


def _until(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (value := condition()):
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what} within {seconds} s")


def _gone(processes, stop: str) -> None:
    """Every process of the server's tree ended: a kernel killed as the server stops can still be
    reported running for a moment after its parent exits, on a loaded machine (seen in the suite)."""
    deadline = time.monotonic() + 10
    while (left := [p.pid for p in processes if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == [], f"{stop}: still running 10 s after the server stopped: {left}"


def _alive(process: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    return False


def test_a_signal_stops_server_kernels_and_folders(sample):
    """SIGTERM and SIGINT (Ctrl+C), each to a server of its own; the two serve their page at once (each
    page's load, a kernel's start and its notebook's run, is most of the time)."""
    command = [sys.executable, "-m", "rankkit.cli", "explore", str(sample["qrels.txt"]), str(sample["bm25.run"])]
    with _serving(command) as terminated, _serving(command) as interrupted:
        served = {signal.SIGTERM: terminated, signal.SIGINT: interrupted}
        with ThreadPoolExecutor(len(served)) as pool:  # the pages: Voila runs the notebook in a kernel
            list(pool.map(lambda url: urllib.request.urlopen(url, timeout=PAGE_SECONDS).read(),
                          [url for _, url, _, _ in served.values()]))
        for stop, (process, _, port, seen) in served.items():
            _stops(stop, process, port, seen)


def _stops(stop: signal.Signals, process: subprocess.Popen, port: int, seen: dict) -> None:
    """``stop`` ends the server that has served a page, its kernel and the folders of both."""
    kernels = _until(lambda: _kernels(process, seen), 30, f"{stop.name}: no kernel started for the page")
    tree = list(seen.values())
    folders = [Path(next(arg for arg in tree[1].cmdline() if arg.endswith(".ipynb"))).parent]  # rankkit's
    folders += [Path(kernel.cmdline()[kernel.cmdline().index("-f") + 1]).parent for kernel in kernels]  # Voila's
    assert all(folder.is_dir() for folder in folders), (stop.name, folders)
    process.send_signal(stop)
    assert process.wait(timeout=60) == 0, stop.name
    _gone(tree, stop.name)
    assert [folder for folder in folders if folder.exists()] == [], stop.name
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, f"{stop.name}: port {port} still open"


# the closed-page test's idle period, and how often Voila then looks for idle kernels (as serve sets it)
IDLE_SECONDS = 5
CULL_SECONDS = max(1, IDLE_SECONDS // 2)


def test_a_closed_page_ends_its_kernel(sample):
    """Three pages: one closed as a person closes a tab (Voila's page asks for its kernel's shutdown as
    it unloads), one lost without a word (a crash: its kernel ends once idle), one open: one kernel."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    code = ("import sys; from rankkit.explore.serve import serve; "
            f"sys.exit(serve(sys.argv[1], sys.argv[2], idle_kernel_seconds={IDLE_SECONDS}))")
    command = [sys.executable, "-c", code, str(sample["qrels.txt"]), str(sample["bm25.run"])]
    with _serving(command) as (process, url, port, seen), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pages, loaded = [browser.new_page() for _ in range(3)], []
            for page in pages:  # the three loads at once: each waits on its kernel's start
                page.goto(url, wait_until="commit", timeout=PAGE_SECONDS * 1000)
            for page in pages:
                sync_api.expect(page.locator(".rankkit-explorer h3").first).to_contain_text(
                    "rankkit explorer", timeout=PAGE_SECONDS * 1000)
                loaded.append(time.monotonic())
            assert len(_kernels(process, seen)) == 3
            kept, closed, lost = pages
            closed.close(run_before_unload=True)
            lost.close()  # no beforeunload: the kernel is told nothing
            _until(lambda: len(_kernels(process, seen)) == 1, 120, "the closed pages' kernels did not end")
            # the open page's kernel idle past the period and two culls: it is connected, so it stays
            time.sleep(max(0.0, loaded[0] + IDLE_SECONDS + 2 * CULL_SECONDS + 1 - time.monotonic()))
            [left] = _kernels(process, seen)
            assert _kernel_id(kept) in " ".join(left.cmdline())
        finally:
            browser.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        _gone(seen.values(), "SIGTERM")
