// A notebook run and its widget outputs shown the way VS Code's Jupyter extension shows them, in a
// plain browser page: the kernel is a @jupyterlab/services KernelConnection (VS Code's webview gets a
// proxy of one, kept in its extension host), the widgets are drawn by the WidgetManager of
// @vscode/jupyter-ipywidgets8, the renderer VS Code ships for ipywidgets 8. The steps follow
// vscode-jupyter's src/kernels/kernel.ts (the ipywidgets version probe) and
// src/webviews/webview-side/ipywidgets/kernel/{index,manager}.ts (load, renderWidget).
// tests/test_vscode.py bundles this file with esbuild and drives the page with Playwright.
import { KernelAPI, KernelConnection, ServerConnection } from '@jupyterlab/services';
import { activate } from '@vscode/jupyter-ipywidgets8';

const WIDGET_MIMETYPE = 'application/vnd.jupyter.widget-view+json';
const WIDGET_MODULES = ['@jupyter-widgets/base', '@jupyter-widgets/controls', '@jupyter-widgets/output'];
// VS Code runs the same probe silently and loads its ipywidgets 8 renderer only when the printed
// version starts with "8." (7 gets the ipywidgets 7 renderer, anything else no widget renderer).
const VERSION_PROBE = 'import ipywidgets as _probe\nprint(_probe.__version__)\ndel _probe';

const state = { status: 'starting', errors: [], commOpens: [], ipywidgets: null, bundled: null };

function fail(message) {
    state.errors.push(String(message));
    console.error(`harness: ${message}`);
}

function show(status) {
    state.status = status;
    document.body.dataset.harness = status;
}

async function connect(token) {
    const serverSettings = ServerConnection.makeSettings({
        baseUrl: `${location.origin}/`,
        wsUrl: `ws://${location.host}/`,
        token,
        appendToken: true
    });
    const model = await KernelAPI.startNew({ name: 'python3' }, serverSettings);
    const kernel = new KernelConnection({ model, serverSettings });
    kernel.statusChanged.connect((_, status) => (document.body.dataset.kernel = status));
    // what each widget asked for, checked by the test against the versions bundled in the renderer
    kernel.iopubMessage.connect((_, msg) => {
        if (msg.header.msg_type === 'comm_open' && msg.content.target_name === 'jupyter.widget') {
            const s = msg.content.data.state || {};
            state.commOpens.push({
                protocol: (msg.metadata || {}).version || '',
                model: [s._model_module, s._model_module_version, s._model_name],
                view: [s._view_module, s._view_module_version, s._view_name]
            });
        }
    });
    return kernel;
}

async function execute(kernel, code, onOutput) {
    const future = kernel.requestExecute({ code, stop_on_error: true });
    future.onIOPub = (msg) => onOutput(msg);
    const reply = await future.done;
    if (reply.content.status !== 'ok') {
        fail(`cell failed: ${reply.content.ename}: ${reply.content.evalue}`);
    }
}

async function ipywidgetsVersion(kernel) {
    let printed = '';
    await execute(kernel, VERSION_PROBE, (msg) => {
        if (msg.header.msg_type === 'stream') printed += msg.content.text;
    });
    return printed.trim();
}

function bundledVersions() {
    // load() defines the renderer's own widget modules in requirejs, where its WidgetManager finds them
    return new Promise((resolve, reject) =>
        window.requirejs(WIDGET_MODULES, (base, controls, output) => resolve({
            protocol: base.PROTOCOL_VERSION,
            '@jupyter-widgets/base': base.JUPYTER_WIDGETS_VERSION,
            '@jupyter-widgets/controls': controls.JUPYTER_CONTROLS_VERSION,
            '@jupyter-widgets/output': output.OUTPUT_WIDGET_VERSION
        }), reject));
}

function widgetManager(kernel) {
    // VS Code's script loader fetches third-party widget code from the kernel's environment or a
    // CDN; rankkit's explorer is built from ipywidgets' own widgets, which the renderer bundles
    const scriptLoader = {
        widgetsRegisteredInRequireJs: new Set(),
        successHandler: () => {},
        errorHandler: (className, moduleName, moduleVersion, error) =>
            fail(`could not load ${moduleName}@${moduleVersion} ${className}: ${error}`),
        loadWidgetScript: async (moduleName, moduleVersion) =>
            fail(`no script source for the third-party widget ${moduleName}@${moduleVersion}`)
    };
    const { WidgetManager } = window.vscIPyWidgets;
    // no container of its own and no saved widget state, as in VS Code: each view goes into its output
    return new WidgetManager(kernel, undefined, scriptLoader, (message) => console.debug(message), undefined);
}

// vscode-jupyter's renderWidget: the output element, then the model's view attached into it
async function renderWidget(manager, data, container) {
    if (data.version_major !== 2) {
        throw new Error(`widget view version_major ${data.version_major}: VS Code draws 2 only`);
    }
    const element = document.createElement('div');
    element.className = 'cell-output-ipywidget-background';
    element.appendChild(Object.assign(document.createElement('div'), { className: 'cell-output' }));
    container.appendChild(element);
    const modelPromise = manager.get_model(data.model_id);
    if (!modelPromise) {
        throw new Error(`no widget model ${data.model_id} in the kernel's state`);
    }
    const model = await modelPromise;
    const view = await manager.create_view(model, { el: element });
    return manager.display_view(data, view, { node: element });
}

// VS Code's own renderers for the other output types, reduced to what the notebooks here print
function renderOutput(manager, msg, container, rendering) {
    const type = msg.header.msg_type;
    if (type === 'stream') {
        container.appendChild(Object.assign(document.createElement('pre'), { textContent: msg.content.text }));
    } else if (type === 'error') {
        fail(`${msg.content.ename}: ${msg.content.evalue}`);
        const text = msg.content.traceback.join('\n').replace(/\x1b\[[0-9;]*m/g, '');
        container.appendChild(Object.assign(document.createElement('pre'), { textContent: text }));
    } else if (type === 'display_data' || type === 'execute_result') {
        const data = msg.content.data;
        if (data[WIDGET_MIMETYPE]) {
            rendering.push(renderWidget(manager, data[WIDGET_MIMETYPE], container).catch(fail));
        } else if (data['image/png']) {
            container.appendChild(Object.assign(document.createElement('img'), { src: `data:image/png;base64,${data['image/png']}` }));
        } else if (data['text/html']) {
            container.appendChild(Object.assign(document.createElement('div'), { innerHTML: data['text/html'] }));
        } else if (data['text/plain']) {
            container.appendChild(Object.assign(document.createElement('pre'), { textContent: data['text/plain'] }));
        }
    }
}

function cellElements(code) {
    const cell = document.createElement('section');
    cell.className = 'cell';
    cell.appendChild(Object.assign(document.createElement('pre'), { className: 'cell-editor', textContent: code }));
    const output = document.createElement('div');
    output.className = 'cell-outputs';
    cell.appendChild(output);
    document.getElementById('notebook').appendChild(cell);
    return output;
}

async function run(token, cells) {
    const kernel = await connect(token);
    state.ipywidgets = await ipywidgetsVersion(kernel);
    if (!state.ipywidgets.startsWith('8.')) {
        throw new Error(`the kernel has ipywidgets ${state.ipywidgets || '(none)'}: VS Code loads its ipywidgets 8 renderer for 8.x only`);
    }
    activate();
    window.vscIPyWidgets8.load();
    state.bundled = await bundledVersions();
    const manager = widgetManager(kernel);
    const rendering = [];
    for (const code of cells) {
        const output = cellElements(code);
        await execute(kernel, code, (msg) => renderOutput(manager, msg, output, rendering));
    }
    await Promise.all(rendering);
}

window.rankkitHarness = {
    state,
    // starts the run and returns at once: the page shows its progress in body[data-harness]
    start(token, cells) {
        show('running');
        run(token, cells).then(() => show(state.errors.length ? 'failed' : 'done'), (error) => {
            fail(error && error.stack ? error.stack : error);
            show('failed');
        });
    }
};
