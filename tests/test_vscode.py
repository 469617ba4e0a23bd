"""The explorer drawn by VS Code's own ipywidgets 8 renderer, in headless Chromium.

VS Code's Jupyter extension draws widgets with ``@vscode/jupyter-ipywidgets8`` (a WidgetManager built
on ``@jupyter-widgets/jupyterlab-manager``) in a webview, over a kernel connection its extension host
keeps. ``tests/vscode/`` holds a page styled as that webview and a short script that runs the
explorer notebook's code cells on a Jupyter server's kernel through ``@jupyterlab/services`` and draws
every widget output with that renderer, as the extension does (``harness.js`` says which of its steps
it follows). The desktop application and its extension host are not run.

The harness is built with npm into ``tests/vscode/build`` when its inputs change: ``npm ci`` for
``@jupyterlab/services``, esbuild and requirejs, and ``npm pack`` for the renderer's tarball alone,
checked against the integrity its ``package.json`` pins. Where npm is absent the test is skipped;
``.ci/run`` installs it."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from support import ROOT
from test_browser import CHROMIUM, STARTUP, STEP, _browser, _drive, _jupyter_server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (Debian: apt install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api")

HARNESS = ROOT / "tests" / "vscode"
BUILD = HARNESS / "build"
RENDERER = json.loads((HARNESS / "package.json").read_text(encoding="utf-8"))["renderer"]  # its spec and integrity
NPM = shutil.which("npm")
WIDTH = 1000  # px: a VS Code window's notebook editor beside its explorer sidebar
# the outermost of the explorer's elements (itself included) that show less than their content's width
# or stand out of the output area: what a person would find cut off or scrolled sideways
CLIPPED = """explorer => {
    const edge = explorer.parentElement.getBoundingClientRect().right + 1;
    const cut = e => (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
        || e.getBoundingClientRect().right > edge;
    return [explorer, ...explorer.querySelectorAll('*')].filter(e => cut(e) && (e === explorer || !cut(e.parentElement)))
        .map(e => `${e.tagName}.${e.className}: ${e.scrollWidth} px wide, ${e.clientWidth} shown`);
}"""


def _inputs_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", "harness.js", "index.html"):
        digest.update((HARNESS / name).read_bytes())
    return digest.hexdigest()


def _npm(*args: str) -> None:
    done = subprocess.run([NPM, *args, "--no-audit", "--no-fund"], cwd=HARNESS, capture_output=True, text=True)
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


def _install_renderer() -> None:
    """The renderer's tarball into node_modules, without its dependencies (npm would install them)."""
    _npm("pack", RENDERER["spec"], "--pack-destination", str(BUILD))
    tarball = next(BUILD.glob("vscode-jupyter-ipywidgets8-*.tgz"))
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    assert integrity == RENDERER["integrity"], f"{tarball.name} is not the pinned {RENDERER['spec']}"
    target = HARNESS / "node_modules" / "@vscode" / "jupyter-ipywidgets8"
    shutil.rmtree(target, ignore_errors=True)
    with tarfile.open(tarball) as archive:
        for member in filter(tarfile.TarInfo.isfile, archive.getmembers()):
            path = target / member.name.removeprefix("package/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.extractfile(member).read())
    tarball.unlink()


@pytest.fixture(scope="session")
def harness() -> Path:
    """tests/vscode/build: the page, its bundle and requirejs, built again when their inputs changed."""
    stamp = BUILD / "inputs.sha256"
    if stamp.exists() and stamp.read_text() == _inputs_digest() and (BUILD / "harness.js").exists():
        return BUILD
    if NPM is None:
        pytest.skip("no npm to build the VS Code renderer harness (Debian: apt install nodejs npm)")
    shutil.rmtree(BUILD, ignore_errors=True)
    BUILD.mkdir()
    _npm("ci", "--ignore-scripts")  # esbuild's install script only speeds up its first start
    _install_renderer()
    esbuild = HARNESS / "node_modules" / ".bin" / "esbuild"
    subprocess.run([str(esbuild), "harness.js", "--bundle", "--format=iife", "--platform=browser",
                    f"--outfile={BUILD / 'harness.js'}", "--log-level=warning"], cwd=HARNESS, check=True)
    shutil.copy(HARNESS / "index.html", BUILD)
    shutil.copy(HARNESS / "node_modules" / "requirejs" / "require.js", BUILD)
    stamp.write_text(_inputs_digest())
    return BUILD


def _caret_compatible(bundled: str, asked: str) -> bool:
    """ipywidgets' own rule for its base and controls modules (``^asked``): same major, not older."""
    have, want = ([int(part) for part in version.split(".")] for version in (bundled, asked))
    return have[0] == want[0] and have >= want


def _check_versions(state: dict) -> None:
    """Every widget the kernel opened asks for a module version and protocol the renderer has."""
    bundled = state["bundled"]
    assert state["commOpens"], "the kernel opened no widget"
    for opened in state["commOpens"]:
        assert opened["protocol"].split(".")[0] == bundled["protocol"].split(".")[0], (opened, bundled)
        for module, version, name in (opened["model"], opened["view"]):
            if module in bundled:
                assert _caret_compatible(bundled[module], version), f"{name} asks {module} {version}; VS Code has {bundled[module]}"


def test_explorer_notebook_in_vscode_renderer(harness, tmp_path):
    notebook = json.loads((ROOT / "notebooks" / "explorer.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    # the server serves the page too (as its static files): a page from elsewhere, or one Playwright
    # fulfils, may not open a WebSocket to 127.0.0.1 (Chromium's local network access checks)
    static = f"--ServerApp.extra_static_paths={json.dumps([str(harness)])}"
    with _jupyter_server("jupyter_server", tmp_path, static) as (address, token), _browser() as page:
        page.set_viewport_size({"width": WIDTH, "height": 2400})
        problems = []
        page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
        page.on("console", lambda message: message.type == "error" and problems.append(message.text))
        page.goto(f"{address}/static/index.html", timeout=STARTUP)
        page.evaluate("([token, cells]) => window.rankkitHarness.start(token, cells)", [token, cells])
        body = page.locator("body")
        sync_api.expect(body).to_have_attribute("data-harness", re.compile("done|failed"), timeout=STARTUP)
        state = page.evaluate("window.rankkitHarness.state")
        # the harness checks that ipywidgets is 8.x; the renderer's own complaints are in the console
        assert state["status"] == "done", "\n".join(state["errors"] + problems)
        _check_versions(state)

        def idle():
            sync_api.expect(body).to_have_attribute("data-kernel", "idle", timeout=STEP)

        explorer, query_id = _drive(page, tmp_path, "AP", "vscode", settled=idle)
        sync_api.expect(explorer).to_have_count(1)
        text = explorer.inner_text()
        assert "judged documents no system retrieved" in text and "rank in dense" in text
        clipped = explorer.evaluate(CLIPPED)
        assert not clipped, f"cut off at {WIDTH} px: {clipped}"
        assert not problems, problems
        explorer.screenshot(path=str(tmp_path / "vscode-explorer.png"))
