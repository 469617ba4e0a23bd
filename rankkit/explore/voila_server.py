"""The Voila server behind ``rankkit explore``, run as ``python -m rankkit.explore.voila_server``.

Voila on a shared machine, guarded: a token (read from stdin, never on the command line, which every
local user can read) that every page, API call and websocket needs, as Jupyter asks for its own;
Host and Origin checked on every request; a cap on kernels (each page runs one); a bound on what a
websocket may leave unsent; its kernels and folders gone when it stops, and it stops when its parent
(``rankkit explore``) dies, which closes stdin. One process per explorer, so no state is shared."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import tornado.ioloop
import tornado.iostream
import tornado.web
from traitlets.config import Config
from jupyter_core.utils import ensure_async, run_sync
from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

# The only names a request may give in its Host header: the server listens on 127.0.0.1 alone, and a
# page from any other name (DNS rebinding: evil.example resolving to 127.0.0.1) is refused
LOCAL_HOSTS = ("127.0.0.1", "localhost")
# What one websocket may leave unsent (a client asking for widget state without reading the
# replies); past it the connection is closed rather than the server growing without bound
WEBSOCKET_BUFFER_BYTES = 64 * 1024 * 1024
# Requests one websocket may have awaiting their answer: a page's widgets have one each at most
# (ipywidgets waits for an answer before it sends a widget's next change)
MAX_WAITING = 64
# How long a kernel whose page closed (its last websocket) waits for the page to connect again
CLOSED_PAGE_SECONDS = 5
# How long the kernels have to end on a stop before they are killed
KERNEL_STOP_SECONDS = 10
# The page's template (Voila's lab one, every asset from this server), found before Voila's own
PAGE_TEMPLATE = Path(__file__).with_name("page")
# The JupyterLab extensions the page loads: the widget manager, and Voila's, which needs it. Any other
# installed extension is for JupyterLab or Notebook and was built against their version, not Voila's
# (Notebook 7's failed to load, an error in the console of every page)
PAGE_EXTENSIONS = ["@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8"]


class Refused(tornado.web.RequestHandler):
    """Every method answers ``status`` with one readable line: what was refused and why."""

    def initialize(self, status: int, message: str) -> None:
        self.status, self.message = status, message

    def prepare(self) -> None:
        self.set_status(self.status)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(self.message + "\n")

    def check_xsrf_cookie(self) -> None:  # the request is refused anyway
        pass


class GuardedApplication(tornado.web.Application):
    """Checks Host and Origin on every request (page, API, websocket, static file) before any
    handler runs: Jupyter's own checks skip the Origin of GET requests and of token-authenticated ones."""

    def find_handler(self, request, **kwargs):
        refusal = refused(request)
        if refusal is not None:
            return self.get_handler_delegate(request, Refused, {"status": 403, "message": refusal})
        return super().find_handler(request, **kwargs)


def refused(request) -> str | None:
    """Why ``request`` is refused (its Host or Origin is not this server's), or None."""
    host = request.headers.get("Host", "")
    match = re.fullmatch(r"(.*?)(:\d+)?", host)
    if match is None or match.group(1).lower() not in LOCAL_HOSTS:
        return f"rankkit explore: refused: the Host header is not {' or '.join(LOCAL_HOSTS)}"
    # a websocket handshake of an old protocol names its origin Sec-WebSocket-Origin
    origin = request.headers.get("Origin", request.headers.get("Sec-WebSocket-Origin"))
    if origin is not None and origin.lower() != f"http://{host.lower()}":
        return "rankkit explore: refused: a request from another origin (the page is served only to itself)"
    return None


class PageHandler(TornadoVoilaHandler):
    """Voila's page, which also sets the xsrf cookie: the page sends it when it unloads, in its
    request that its kernel be shut down, which is refused without it (so the kernel lived on)."""

    async def prepare(self, *args, **kwargs):
        await super().prepare(*args, **kwargs)  # authenticates, or redirects to the login page
        if not self._finished:
            self.xsrf_token  # sets the _xsrf cookie on the response


class WebsocketHandler(VoilaKernelWebsocketHandler):
    """Voila's kernel websocket, bounded. Voila reads each outgoing binary message as Jupyter's v1
    protocol even on a connection that speaks the legacy one, where its first 8 bytes are no count:
    a widget update with buffers (an image) then built a list of billions of offsets, and the
    server grew until it stopped answering. Here each message is read in its connection's protocol.
    Also at most MAX_WAITING requests awaiting their answer (a burst would queue that many replies)
    and at most WEBSOCKET_BUFFER_BYTES unsent to a client that does not read; past either, the
    connection is closed (a page reconnects)."""

    waiting: set | None = None
    watching: dict[str, set] = {}  # kernel id: its open websockets (the pages showing it)

    async def open(self, kernel_id):
        self.watching.setdefault(kernel_id, set()).add(self)
        return await super().open(kernel_id)

    def on_close(self):
        """A kernel no page watches any more ends CLOSED_PAGE_SECONDS later, unless a page connects
        again by then (a dropped connection): a page that closes asks for its kernel's end as it
        unloads, but a browser may not send that request (a crash, a lost network, a headless one)."""
        kernel_id = getattr(self, "kernel_id", None)
        watching = self.watching.get(kernel_id, set())
        watching.discard(self)
        super().on_close()
        if kernel_id is not None and not watching:
            manager = self.kernel_manager
            tornado.ioloop.IOLoop.current().call_later(CLOSED_PAGE_SECONDS, _end_unwatched, manager, kernel_id)

    def on_message(self, ws_message):
        if self.ws_connection is None:  # closed while its messages were still being read
            return None
        if self.waiting is None:
            self.waiting = set()
        channel, header, _ = self._parts(ws_message)
        if channel in ("shell", "control") and header is not None:
            if len(self.waiting) >= MAX_WAITING:
                self.log.warning("rankkit explore: closing a websocket with %d requests awaiting replies", MAX_WAITING)
                self.close(1008, "too many requests awaiting a reply")
                return None
            self.waiting.add(header.get("msg_id"))
        return super().on_message(ws_message)

    def write_message(self, message, binary=False):
        _, header, parent = self._parts(message)
        kind = header.get("msg_type") if header is not None else None
        if kind == "execute_input":
            return None  # as Voila: the page shows no code
        if kind == "status" and parent is not None and self.waiting:
            self.waiting.discard(parent.get("msg_id"))  # the kernel is idle again after a request: answered
        stream = getattr(self.ws_connection, "stream", None)
        if stream is not None and stream.max_write_buffer_size is None:
            stream.max_write_buffer_size = WEBSOCKET_BUFFER_BYTES
        try:
            # past Voila's write_message, which misreads legacy binary messages
            return super(VoilaKernelWebsocketHandler, self).write_message(message, binary)
        except tornado.iostream.StreamBufferFullError:
            self.log.warning("rankkit explore: closing a websocket that left %d bytes unread", WEBSOCKET_BUFFER_BYTES)
            stream.close()  # drops the buffer at once; a polite close would queue behind it
            return None

    def _parts(self, message) -> tuple[str | None, dict | None, dict | None]:
        v1 = self.ws_connection is not None and self.selected_subprotocol == V1_PROTOCOL
        return message_parts(message, v1)


V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"


def message_parts(message, v1: bool) -> tuple[str | None, dict | None, dict | None]:
    """A websocket message's channel, header and parent header, or Nones where it is none of
    Jupyter's forms: a dict, JSON text, or bytes in the v1 protocol (``v1``) or the legacy one."""
    try:
        if isinstance(message, dict):
            parsed = message
        elif isinstance(message, str):
            parsed = json.loads(message)
        elif v1:
            # v1: a count (8 bytes, little-endian), that many offsets, then channel, header, parent header, ...
            count = int.from_bytes(message[:8], "little")
            if not 4 <= count <= len(message) // 8:
                return None, None, None
            channel, parts = deserialize_msg_from_ws_v1(message)
            return channel, json.loads(parts[0]), json.loads(parts[1])
        else:
            # legacy: a count (4 bytes, big-endian), that many offsets, then the message as JSON, then its buffers
            count = int.from_bytes(message[:4], "big")
            if not 1 <= count <= len(message) // 4:
                return None, None, None
            ends = [int.from_bytes(message[4 * i:4 * i + 4], "big") for i in (1, 2)] if count > 1 else \
                   [int.from_bytes(message[4:8], "big"), len(message)]
            parsed = json.loads(message[ends[0]:ends[1]])
        return parsed.get("channel"), parsed.get("header"), parsed.get("parent_header")
    except (ValueError, TypeError, AttributeError, IndexError, UnicodeDecodeError):
        return None, None, None


class GuardedVoila(Voila):
    """Voila with the guards above, a cap on its kernels, and a stop that leaves nothing behind."""

    max_kernels = 4
    stopping = threading.Event()

    def setup_template_dirs(self):
        super().setup_template_dirs()
        self.template_paths = [str(PAGE_TEMPLATE), *self.template_paths]

    def init_settings(self):
        settings = super().init_settings()
        settings["allow_remote_access"] = False  # Voila turns Jupyter's Host check off; turn it on
        settings["local_hostnames"] = ["localhost"]
        _cap(settings["kernel_manager"], self.max_kernels)
        return settings

    def init_handlers(self):
        swap = {TornadoVoilaHandler: PageHandler, VoilaKernelWebsocketHandler: WebsocketHandler}
        return [(pattern, swap.get(handler, handler), *rest) for pattern, handler, *rest in super().init_handlers()]

    def start(self):
        # Voila.start with the guarded application, its settings over any tornado_settings
        self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
        settings = self.init_settings()
        self.app = GuardedApplication(**{**self.tornado_settings, **settings})
        self.app.add_handlers(".*$", self.init_handlers())
        if not self.stopping.is_set():  # a stop asked for while starting
            self.listen()

    def _handle_signal_stop(self, sig, frame):
        self.stopping.set()
        loop = getattr(self, "ioloop", None)
        if loop is not None:
            loop.add_callback_from_signal(loop.stop)

    def stop(self):
        """Kernels first (each asked, then killed), then the folders: a folder removed first could
        be written again by a kernel still starting."""
        try:
            run_sync(_shutdown_all)(self.kernel_manager)
        finally:
            shutil.rmtree(self.connection_dir, ignore_errors=True)


async def _end_unwatched(manager, kernel_id: str) -> None:
    if not WebsocketHandler.watching.get(kernel_id) and kernel_id in manager:
        WebsocketHandler.watching.pop(kernel_id, None)
        asyncio.ensure_future(ensure_async(manager.shutdown_kernel(kernel_id)))


async def _shutdown_all(manager) -> None:
    ids = list(manager.list_kernel_ids())
    try:
        await asyncio.wait_for(asyncio.gather(*(ensure_async(manager.shutdown_kernel(k)) for k in ids),
                                              return_exceptions=True), KERNEL_STOP_SECONDS)
    except asyncio.TimeoutError:
        pass
    for kernel_id in list(manager.list_kernel_ids()):
        with contextlib.suppress(Exception):
            await ensure_async(manager.shutdown_kernel(kernel_id, now=True))


def _cap(manager, most: int) -> None:
    """At most ``most`` kernels at once, counting those still starting: beyond, a page gets a 503
    that says so (each kernel holds the runs and judgments, some 300 MB)."""
    start = manager.start_kernel
    starting: set[str] = set()

    async def start_kernel(*args, kernel_id=None, **kwargs):
        kernel_id = kernel_id or str(uuid.uuid4())
        if len(set(manager.list_kernel_ids()) | starting) >= most:
            raise tornado.web.HTTPError(
                503, reason=f"rankkit explore: {most} pages open, the most this server runs at once "
                            f"(--max-pages); close one and load this page again")
        starting.add(kernel_id)
        try:
            return await ensure_async(start(*args, kernel_id=kernel_id, **kwargs))
        finally:
            starting.discard(kernel_id)

    manager.start_kernel = start_kernel


def _watch_parent(app: GuardedVoila) -> None:
    """Stop when stdin ends: the parent closes it as it stops, and the system closes it when the
    parent dies by any signal (kill -9 included), where no other word would come."""
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        app._handle_signal_stop(signal.SIGTERM, None)
        if getattr(app, "ioloop", None) is None:  # still starting: end now, the cleanup still runs
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=watch, name="rankkit-parent", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rankkit.explore.voila_server")
    parser.add_argument("notebook")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-kernels", type=int, required=True)
    parser.add_argument("--idle-kernel-seconds", type=int, required=True)
    args = parser.parse_args(argv)
    token = sys.stdin.readline().strip()  # the first line; the pipe then stays open while the parent lives
    if not token:
        print("rankkit explore: no token on stdin", file=sys.stderr)
        return 2
    notebook = Path(args.notebook).resolve()
    GuardedVoila.max_kernels = args.max_kernels
    # Voila's connection files in rankkit's folder: one folder to remove, by whichever process is left
    voila_args = [str(notebook), "--no-browser", "--Voila.ip=127.0.0.1", f"--port={args.port}",
                  "--Voila.port_retries=0", f"--Voila.connection_dir_root={notebook.parent}",
                  "--VoilaConfiguration.show_tracebacks=True",
                  f"--MappingKernelManager.cull_idle_timeout={args.idle_kernel_seconds}",
                  f"--MappingKernelManager.cull_interval={max(1, min(60, args.idle_kernel_seconds // 2))}"]
    # /voila/files serves nothing of the folder (the notebook names the runs' paths)
    app = GuardedVoila.instance(token=token, config=Config({"VoilaConfiguration": {"file_allowlist": [], "extension_allowlist": PAGE_EXTENSIONS}}))
    _watch_parent(app)
    try:
        app.initialize(voila_args)
        app.start()
    except KeyboardInterrupt:
        pass
    finally:
        shutil.rmtree(notebook.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
