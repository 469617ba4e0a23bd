"""``rankkit explore``: the explorer as a web page, a one-cell notebook served by Voila on 127.0.0.1
(through ``rankkit.explore.voila_server``, which guards it for a shared machine)."""

from __future__ import annotations

import importlib.util
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Mapping, Sequence

from rankkit._files import write_text
from rankkit.errors import RankkitError

__all__ = ["notebook", "serve", "MISSING_VOILA"]

MISSING_VOILA = "rankkit explore serves the explorer with Voila, which is not installed: pip install 'rankkit-duckdb[app]'"
STARTUP_SECONDS = 120
# Voila stops its kernels and removes its folder on SIGTERM; one that has not within this long is killed
STOP_SECONDS = 30
# A page's kernel ends when the page closes (Voila's page asks for it as it unloads); a kernel no page
# is connected to (a page that crashed, lost its connection, or never ran its script) ends once idle this long
IDLE_KERNEL_SECONDS = 300
# Pages (each a kernel, some 300 MB) served at once; a page beyond gets a 503 that says so
MAX_PAGES = 4


def notebook(qrels: str, runs: str | Sequence[str] | Mapping[str, str], measures: Sequence[str] | None = None,
             queries: str | None = None, docs: str | None = None, split_by_tag: bool = False,
             second_qrels: str | None = None) -> dict:
    """A notebook (nbformat 4, as a dict) whose one code cell builds and shows the explorer. ``runs``
    as the command line gives them: one path, a list, or ``{name: path}`` (NAME=PATH)."""
    args = [repr(str(Path(qrels).resolve())), repr(_resolved(runs))]
    if measures:
        args.append(repr(list(measures)))
    for name, value in (("queries", queries), ("docs", docs), ("second_qrels", second_qrels)):
        if value is not None:
            args.append(f"{name}={str(Path(value).resolve())!r}")
    if split_by_tag:
        args.append("split_by_tag=True")
    source = f"import rankkit\n\nrankkit.explore({', '.join(args)})"
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": "explorer", "metadata": {}, "outputs": [],
                   "source": source}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _resolved(runs: str | Sequence[str] | Mapping[str, str]) -> str | list[str] | dict[str, str]:
    """The runs with absolute paths (the served notebook runs in a temporary folder)."""
    if isinstance(runs, Mapping):
        return {name: str(Path(path).resolve()) for name, path in runs.items()}
    if isinstance(runs, str):
        return str(Path(runs).resolve())
    return [str(Path(path).resolve()) for path in runs]


def _paths(runs: str | Sequence[str] | Mapping[str, str]) -> list[str]:
    return [runs] if isinstance(runs, str) else list(runs.values()) if isinstance(runs, Mapping) else list(runs)


def serve(qrels: str, runs: str | Sequence[str] | Mapping[str, str], *, measures: Sequence[str] | None = None,
          queries: str | None = None, docs: str | None = None, port: int | None = None, split_by_tag: bool = False,
          second_qrels: str | None = None, out: IO[str] = sys.stdout, ready=None, idle_kernel_seconds: int = IDLE_KERNEL_SECONDS,
          max_pages: int = MAX_PAGES) -> int:
    """Serve the explorer until interrupted (Ctrl+C, SIGTERM, SIGHUP) or until Voila stops; print its
    address once it answers. Stopping stops Voila, its kernels and their temporary folders.

    ``ready(url, process)`` is called once the page answers (tests stop the server there). The URL
    carries a random token (see ``rankkit.explore.voila_server`` for what is checked); at most
    ``max_pages`` pages (kernels) run at once. A kernel no page is connected to ends after
    ``idle_kernel_seconds`` idle."""
    if importlib.util.find_spec("voila") is None:
        raise RankkitError(MISSING_VOILA)
    for path in [qrels, *_paths(runs), *(p for p in (queries, docs, second_qrels) if p is not None)]:
        if not Path(path).exists():
            raise RankkitError(f"{path}: no such file")
    port = port or _free_port()
    token = secrets.token_urlsafe(32)
    # the handlers outlive the folder: a SIGTERM while it is removed still leaves nothing behind; the
    # server removes the folder too (after its kernels), which is all that is left if this process is killed
    with _signals_interrupt(), tempfile.TemporaryDirectory(prefix="rankkit-explore-", ignore_cleanup_errors=True) as folder:
        page = Path(folder) / "rankkit-explorer.ipynb"
        write_text(page, json.dumps(notebook(qrels, runs, measures, queries, docs, split_by_tag, second_qrels), indent=1))
        log = (Path(folder) / "voila.log").open("w+", encoding="utf-8")
        command = [sys.executable, "-m", "rankkit.explore.voila_server", str(page), f"--port={port}",
                   f"--max-kernels={max_pages}", f"--idle-kernel-seconds={idle_kernel_seconds}"]
        # a session of its own: a Ctrl+C in the terminal reaches this process alone, which stops
        # Voila once, in order, rather than interrupting its shutdown with a second signal. Its stdin
        # is its lifeline: the token, then nothing until this process ends (by any signal) and it closes
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                                   start_new_session=True, preexec_fn=_dies_with_parent())
        try:
            process.stdin.write(f"{token}\n".encode())
            process.stdin.flush()
            url = f"http://127.0.0.1:{port}/?token={token}"
            _wait(process, port, log)
            print(f"rankkit explore: serving {url} (Ctrl+C stops)", file=out, flush=True)
            if ready is not None:
                ready(url, process)
            return process.wait()
        except KeyboardInterrupt:
            return 0
        finally:
            _stop(process)
            log.close()


def _dies_with_parent():
    """On Linux, a function the server runs before it starts: the kernel sends it SIGTERM when this
    process dies, kill -9 included. Elsewhere None: the server watches its stdin, which the system
    closes when this process dies."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl  # loaded here: the forked child only calls it
    parent = os.getpid()
    PR_SET_PDEATHSIG = 1

    def die_with_parent():
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the call
            os.kill(os.getpid(), signal.SIGTERM)

    return die_with_parent


@contextlib.contextmanager
def _signals_interrupt():
    """SIGTERM and SIGHUP (a closed terminal) stop the server as Ctrl+C does, so that the cleanup runs:
    Python's default for them ends the process at once, leaving Voila, its kernels and folders behind."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]  # Windows has no SIGHUP
    previous = {name: signal.getsignal(getattr(signal, name)) for name in names}

    def interrupt(number, frame):
        raise KeyboardInterrupt

    for name in names:
        signal.signal(getattr(signal, name), interrupt)
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def _stop(process: subprocess.Popen) -> None:
    """Stop Voila: on SIGTERM (or its stdin closing) it shuts its kernels down and removes its folder.
    One that has not stopped within STOP_SECONDS, or when asked again (a second Ctrl+C), is killed;
    its kernels watch their parent process and end with it, and the folder goes with this one's."""
    with contextlib.suppress(OSError):
        process.stdin.close()  # its lifeline: the server stops on this alone where signals are not delivered
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_SECONDS)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        process.kill()
        process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(process: subprocess.Popen, port: int, log) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            tail = " ".join(log.read().split()[-40:])
            raise RankkitError(f"Voila stopped before serving (exit {process.returncode}): {tail}")
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RankkitError(f"Voila did not answer on 127.0.0.1:{port} within {STARTUP_SECONDS} s")
