"""A progress bar for long DuckDB steps, fed from ``query_progress()`` polled in a thread.

Nothing shows for a step that finishes within ``delay`` seconds, nor when stderr is not a terminal
(outside a notebook): pipes and CI logs stay clean.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable

__all__ = ["Progress", "interactive"]


def interactive() -> bool:
    """True in a terminal (stderr is a tty) or a Jupyter kernel."""
    try:
        if sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    shell = sys.modules.get("IPython")
    ipython = getattr(shell, "get_ipython", lambda: None)() if shell else None
    return ipython is not None and type(ipython).__name__ == "ZMQInteractiveShell"


def _tqdm(label: str):
    from tqdm.auto import tqdm

    from rankkit.safe.terminal import visible

    return tqdm(total=100, desc=visible(label), unit="%", leave=False, file=sys.stderr,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")


class Progress:
    """``with Progress(con, "evaluating"): con.execute(...)`` shows a bar if the step runs long.

    ``bar`` makes the bar (tqdm.auto by default; tests pass a recorder); ``delay`` is how long a
    step runs before a bar appears; ``interval`` how often DuckDB's progress is read.
    """

    def __init__(self, con, label: str, *, enabled: bool | None = None, delay: float = 2.0,
                 interval: float = 0.2, bar: Callable | None = None):
        self.con, self.label = con, label
        self.enabled = interactive() if enabled is None else enabled
        self.delay, self.interval = delay, interval
        self.make_bar = bar or _tqdm
        self.bar = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        if self.enabled:
            # DuckDB's own bar would print over ours; its progress numbers are what we want.
            self.con.execute("SET enable_progress_bar = true")
            self.con.execute("SET enable_progress_bar_print = false")
            self._thread = threading.Thread(target=self._poll, name="rankkit-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        if self.bar is not None:
            if exc[0] is None:
                self.bar.update(100 - self.bar.n)
            self.bar.close()

    def _poll(self) -> None:
        if self._done.wait(self.delay):
            return
        self.bar = self.make_bar(self.label)
        while not self._done.is_set():
            try:
                done = self.con.query_progress()
            except Exception:  # the connection is busy closing or gone: the bar is only a courtesy
                return
            step = int(min(done, 100.0)) - self.bar.n if done is not None and done >= 0 else 0
            if step > 0:
                self.bar.update(step)
            else:
                # DuckDB's estimate stays at 0 through window-heavy plans: the clock still ticks
                self.bar.refresh()
            self._done.wait(self.interval)
