"""``rankkit explore`` on a shared machine: its URL carries a token and nothing is served without it
(page, API, websocket); a foreign Host or Origin is refused; kernels are capped; a burst of
widget-state requests leaves the server's memory bounded; a closed page's kernel ends at once; and
kill -9 of ``rankkit explore`` ends the server and its kernels and leaves no folder.

One server serves the module's tests (each page is a kernel of some 300 MB on a 2-core machine);
the last test kills it."""

from __future__ import annotations

import contextlib
import http.client
import http.cookiejar
import json
import os
import re
import signal
import socket
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

from rankkit.demo import write_sample
from test_explore_stop import PAGE_SECONDS, _alive, _kernels, _serving, _tree, _until

pytestmark = pytest.mark.slow
pytest.importorskip("voila")
psutil = pytest.importorskip("psutil")
websocket = pytest.importorskip("websocket")

CHROMIUM = os.environ.get("RANKKIT_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
MAX_PAGES = 2
# the idle cull far off: a kernel that ends here ended because its page closed, not because it idled
IDLE_SECONDS = 3600


class Server:
    def __init__(self, process, url: str, port: int, seen: dict):
        self.process, self.url, self.port, self.seen = process, url, port, seen
        self.base = f"http://127.0.0.1:{port}"
        self.token = url.split("?token=", 1)[1]

    def kernels(self) -> list:
        return _kernels(self.process, self.seen)

    def server(self) -> psutil.Process:
        return next(p for p in _tree(self.process.pid)[1:] if "voila_server" in " ".join(p.cmdline()))


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, Path]:
    return write_sample(tmp_path_factory.mktemp("sample"), queries=30)


@pytest.fixture(scope="module")
def server(sample):
    code = ("import sys; from rankkit.explore.serve import serve; "
            f"sys.exit(serve(sys.argv[1], sys.argv[2], idle_kernel_seconds={IDLE_SECONDS}, max_pages={MAX_PAGES}))")
    command = [sys.executable, "-c", code, str(sample["qrels.txt"]), str(sample["bm25.run"])]
    with _serving(command) as (process, url, port, seen):
        yield Server(process, url, port, seen)
        if process.poll() is None:  # the kill -9 test did not run: stop it as a person would, which cleans up
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)


def _get(url: str, headers: dict | None = None, opener=None) -> tuple[int, str, dict]:
    """Status, body and headers of a GET that follows no redirect."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = opener or urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=PAGE_SECONDS) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace"), dict(error.headers)


def _page(server: Server) -> tuple[str, http.cookiejar.CookieJar]:
    """Load the page with its token as a browser would: the kernel id it runs in, and its cookies."""
    jar = http.cookiejar.CookieJar()
    status, body, _ = _get(server.url, opener=urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)))
    assert status == 200, body[-2000:]
    return re.search(r'"kernelId": "([0-9a-f-]+)"', body).group(1), jar


def _cookie(jar) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def _shutdown(server: Server, kernel: str) -> None:
    """End a page's kernel, as its page asks when it unloads (one whose websocket closed may have ended)."""
    request = urllib.request.Request(f"{server.base}/voila/api/shutdown/{kernel}?token={server.token}", method="POST",
                                     data=b"")
    try:
        urllib.request.urlopen(request, timeout=60).read()
    except urllib.error.HTTPError as error:
        assert error.code == 404, error


def _channels(server: Server, kernel: str) -> str:
    return f"ws://127.0.0.1:{server.port}/api/kernels/{kernel}/channels?session_id={uuid.uuid4()}"


def _ws_status(url: str, **options) -> int:
    """The status a websocket handshake gets: 101 when it connects."""
    try:
        websocket.create_connection(url, timeout=60, **options).close()
        return 101
    except websocket.WebSocketBadStatusException as error:
        return error.status_code


def test_the_url_without_its_token_is_refused(server):
    # the token is in no command line, which every local user can read (ps)
    assert not [p.pid for p in _tree(server.process.pid) if server.token in " ".join(p.cmdline())]
    before = len(server.kernels())
    for url in (server.base + "/", server.base + "/?token=" + "x" * len(server.token)):
        status, body, headers = _get(url)
        assert status in (302, 403), (url, status)  # Jupyter's answer: its login page, or refused
        assert status == 403 or headers["Location"].startswith("/login"), headers
        assert "rankkit" not in body
    assert len(server.kernels()) == before, "a page without the token started a kernel"
    kernel, jar = _page(server)
    try:
        assert _get(f"{server.base}/api/kernels/{kernel}")[0] == 403
        assert _get(f"{server.base}/api/kernels/{kernel}?token={server.token}")[0] == 200
        # the notebook names the runs' paths: the files route serves nothing of its folder, token or not
        assert _get(f"{server.base}/voila/files/rankkit-explorer.ipynb?token={server.token}")[0] == 403
        assert _ws_status(_channels(server, kernel)) == 403
        assert _ws_status(_channels(server, kernel), cookie=_cookie(jar)) == 101  # the page's own way in
        # the page's cookie without its xsrf token does not shut a kernel down (a cross-site form could)
        request = urllib.request.Request(f"{server.base}/voila/api/shutdown/{kernel}", method="POST", data=b"",
                                         headers={"Cookie": "; ".join(f"{c.name}={c.value}" for c in jar
                                                                       if c.name != "_xsrf")})
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(request, timeout=60)
        # what the page sends as it unloads (its cookies, and the xsrf cookie's value as a form field,
        # which the page now gets: the request was refused for the lack of it) ends the kernel
        xsrf = next(c.value for c in jar if c.name == "_xsrf")
        request = urllib.request.Request(f"{server.base}/voila/api/shutdown/{kernel}", method="POST",
                                         data=urllib.parse.urlencode({"_xsrf": xsrf}).encode(),
                                         headers={"Cookie": _cookie(jar), "Origin": server.base})
        assert urllib.request.urlopen(request, timeout=60).status == 204
        assert kernel not in " ".join(" ".join(k.cmdline()) for k in server.kernels())
    finally:
        _shutdown(server, kernel)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}", "10.0.0.1:{port}"])
def test_a_foreign_host_is_refused(server, host):
    """A DNS-rebinding page reaches 127.0.0.1 under its own name: refused even with the token."""
    before = len(server.kernels())
    status, body, _ = _get(server.url, headers={"Host": host.format(port=server.port)})
    assert status == 403 and "the Host header" in body, (status, body[:300])
    assert len(server.kernels()) == before


def test_a_foreign_origin_is_refused(server):
    before = len(server.kernels())
    for origin in ("http://evil.example", f"http://evil.example:{server.port}", "null"):
        status, body, _ = _get(server.url, headers={"Origin": origin})
        assert status == 403 and "another origin" in body, (origin, status)
    assert len(server.kernels()) == before
    kernel, jar = _page(server)
    try:
        url = _channels(server, kernel) + f"&token={server.token}"
        assert _ws_status(url, origin="http://evil.example") == 403
        assert _ws_status(url, origin=f"http://127.0.0.1:{server.port}") == 101
    finally:
        _shutdown(server, kernel)


def test_kernels_are_capped(server):
    """MAX_PAGES pages at once; one more gets a 503 page that says why and what to do."""
    pages = []
    try:
        while len(server.kernels()) < MAX_PAGES:
            pages.append(_page(server)[0])
        status, body, _ = _get(server.url)
        assert status == 503, status
        assert f"{MAX_PAGES} pages open, the most this server runs at once (--max-pages)" in body
        assert len(server.kernels()) == MAX_PAGES
    finally:
        for kernel in pages:
            _shutdown(server, kernel)


def _message(kind: str, content: dict, metadata: dict | None = None) -> str:
    header = {"msg_id": str(uuid.uuid4()), "msg_type": kind, "session": "burst", "username": "", "version": "5.3",
              "date": ""}
    return json.dumps({"header": header, "parent_header": {}, "metadata": metadata or {}, "content": content,
                       "channel": "shell", "buffers": []})


def _state(connection, model: str, check) -> dict:
    """A widget's state, asked for over the websocket (Jupyter's legacy protocol: JSON text, or
    binary where the message has buffers)."""
    from jupyter_server.services.kernels.connection.base import deserialize_binary_message

    connection.send(_message("comm_msg", {"comm_id": model, "data": {"method": "request_state"}}))
    for _ in range(PAGE_SECONDS):  # one-second waits: a server stuck growing is caught by check()
        try:
            raw = connection.recv()
        except (websocket.WebSocketTimeoutException, TimeoutError):
            check()
            continue
        check()
        message = deserialize_binary_message(raw) if isinstance(raw, bytes) else json.loads(raw)
        content = message.get("content", {})
        if message["header"]["msg_type"] == "comm_msg" and content.get("comm_id") == model:
            return content["data"]["state"]
    raise AssertionError(f"no state of widget {model} within {PAGE_SECONDS} s")


def _image(connection, root: str, check) -> str:
    """The id of an image widget (whose state has a buffer: the PNG) under the widget ``root``."""
    seen, queue = set(), [root]
    while queue:
        model = queue.pop(0)
        state = _state(connection, model, check)
        if state.get("_model_name") == "ImageModel":
            return model
        found = re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state))
        queue += [m for m in found if m not in seen]
        seen.update(found)
    raise AssertionError("no image widget in the explorer")


def test_a_burst_of_widget_state_requests_leaves_memory_bounded(server):
    """Thousands of requests for an image widget's state (its reply a binary message in Jupyter's
    legacy protocol, which Voila misread as v1: a list of billions of offsets) on one websocket:
    the server stays within a generous bound of where it started, however long it is watched."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    status, body, _ = _get(server.url, opener=opener)
    kernel = re.search(r'"kernelId": "([0-9a-f-]+)"', body).group(1)
    root = re.search(r'"model_id": "([0-9a-f]+)"', body).group(1)
    process = server.server()
    start = process.memory_info().rss
    bound = start + 400 * 2**20
    highest = [start]

    def check():
        highest.append(process.memory_info().rss)
        assert max(highest) < bound, f"the server grew from {start >> 20} MB to {max(highest) >> 20} MB"

    connection = websocket.create_connection(_channels(server, kernel), cookie=_cookie(jar),
                                             origin=server.base, timeout=1)
    try:
        image = _image(connection, root, check)
        with contextlib.suppress(OSError, websocket.WebSocketException):
            for _ in range(3000):
                connection.send(_message("comm_msg", {"comm_id": image, "data": {"method": "request_state"}}))
                check()
        # what the server took in it answers, or it closed the connection: watch until it is quiet
        connection.settimeout(10)
        with contextlib.suppress(OSError, websocket.WebSocketException):
            while connection.recv() is not None:
                check()
    finally:
        connection.close()
        _shutdown(server, kernel)
    check()


def test_message_parts_bounds_what_it_reads():
    """Legacy binary messages read in their own protocol; a count no message can hold read as nothing."""
    from jupyter_server.services.kernels.connection.base import serialize_binary_message

    from rankkit.explore.voila_server import message_parts

    header = {"msg_id": "m1", "msg_type": "comm_msg"}
    legacy = serialize_binary_message({"header": header, "parent_header": {"msg_id": "p"}, "channel": "iopub",
                                       "content": {}, "metadata": {}, "buffers": [b"\x89PNG" + b"\0" * 5000]})
    assert int.from_bytes(legacy[:8], "little") > 10**9  # what Voila took for a count of offsets
    assert message_parts(legacy, v1=False) == ("iopub", header, {"msg_id": "p"})
    assert message_parts(legacy, v1=True) == (None, None, None)
    assert message_parts(b"\xff" * 16, v1=False) == (None, None, None)


def test_a_closed_page_ends_its_kernel_at_once(server, tmp_path):
    """Closed as a person closes a tab: its kernel ends (the page's shutdown request carries the
    xsrf cookie it is now given), long before the idle cull (an hour here) could end it."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            before = len(server.kernels())
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(server.url, timeout=PAGE_SECONDS * 1000)
            sync_api.expect(page.locator(".rankkit-explorer h3").first).to_contain_text(
                "rankkit explorer", timeout=PAGE_SECONDS * 1000)
            sync_api.expect(page.locator(".rankkit-explorer img").first).to_be_visible(timeout=PAGE_SECONDS * 1000)
            page.screenshot(path=str(tmp_path / "explorer.png"))
            if os.environ.get("RANKKIT_SCREENSHOT"):
                page.screenshot(path=os.environ["RANKKIT_SCREENSHOT"])
            assert len(server.kernels()) == before + 1
            page.close(run_before_unload=True)
            _until(lambda: len(server.kernels()) == before, 60, "the closed page's kernel did not end")
        finally:
            browser.close()


def test_kill_9_of_the_parent_ends_server_and_kernels_and_leaves_no_folder(server):
    """Last: it kills the module's server. kill -9 while a page is loading (its kernel busy running the
    notebook): the server is told by the system (Linux) or by its closed stdin, stops its kernels
    and removes its folder, which holds Voila's connection files too."""
    def load():
        with contextlib.suppress(OSError, http.client.HTTPException):  # its server is killed mid-page
            _get(server.url)

    loading = threading.Thread(target=load, daemon=True)
    loading.start()
    kernels = _until(server.kernels, 60, "no kernel started for the page")
    tree = _tree(server.process.pid)
    voila = server.server()
    folder = Path(next(arg for arg in voila.cmdline() if arg.endswith(".ipynb"))).parent
    connection = Path(kernels[0].cmdline()[kernels[0].cmdline().index("-f") + 1]).parent
    assert folder.is_dir() and connection.parent == folder, (folder, connection)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)
    _until(lambda: not any(_alive(p) for p in tree), 60, "the server or a kernel outlived its parent")
    assert not folder.exists(), sorted(p.name for p in folder.rglob("*"))
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", server.port)) != 0, f"port {server.port} still open"


def test_the_server_ends_when_its_stdin_closes(sample, tmp_path):
    """Where there is no parent-death signal (not Linux), the server's stdin is its lifeline: a parent
    that dies by any signal closes it. Here a parent without that signal is killed with -9."""
    from rankkit.explore.serve import _free_port, notebook

    folder = tmp_path / "explore"
    folder.mkdir()
    page = folder / "rankkit-explorer.ipynb"
    page.write_text(json.dumps(notebook(str(sample["qrels.txt"]), str(sample["bm25.run"]))), encoding="utf-8")
    port = _free_port()
    parent_code = ("import subprocess, sys, time; "
                   "server = subprocess.Popen([sys.executable, '-m', 'rankkit.explore.voila_server'] + sys.argv[1:], "
                   "stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
                   "server.stdin.write(b'a-token\\n'); server.stdin.flush(); time.sleep(600)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    parent = psutil.Popen([sys.executable, "-c", parent_code, str(page), f"--port={port}", "--max-kernels=1",
                           f"--idle-kernel-seconds={IDLE_SECONDS}"], env=env)
    try:
        def answering():
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0

        _until(answering, 120, "the server did not answer")
        assert _get(f"http://127.0.0.1:{port}/?token=a-token")[0] == 200  # a page: a kernel to end too
        tree = _tree(parent.pid)
        assert len(tree) == 3, [" ".join(p.cmdline()[:3]) for p in tree]
        parent.kill()
        parent.wait(timeout=10)
        _until(lambda: not any(_alive(p) for p in tree[1:]), 60, "the server or its kernel outlived its parent")
        assert not folder.exists()
    finally:
        for process in _tree(parent.pid):
            with contextlib.suppress(psutil.Error):
                process.kill()
