// End-to-end test of the real desktop app: Xvfb + tauri-driver +
// WebKitWebDriver drive the built binary against the scripted LLM server
// (the one stand-in allowed: a loopback server speaking OpenAI's wire
// protocol). Run inside scripts/with-keyring.sh so the app talks to a
// private, real Secret Service.
//
//   node tests/e2e/desktop.mjs --app PATH --scripted PATH [--out DIR]
//
// Screenshots go to --out (default target/e2e-screenshots).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readdirSync, symlinkSync, writeFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, children, ensureDisplay, freePort, log, parseArgs, pressToShown, quantile, sleep, start, startDriver, stopAll, until, watchMaps, xdo } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const APP = path.resolve(args.app ?? 'target/debug/baton-desktop');
const SCRIPTED = path.resolve(args.scripted ?? 'target/debug/baton-scripted-llm');
const OUT = path.resolve(args.out ?? 'target/e2e-screenshots');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const PDF = path.join(ROOT, 'tests/fixtures/docs/report.pdf');
const PDF_PHRASE = 'Revenue grew by 12 percent compared with the previous quarter';
const READY = `return !!document.querySelector('[data-testid=composer]')`;

const tmp = mkdtempSync(path.join(tmpdir(), 'baton-e2e-'));
mkdirSync(OUT, { recursive: true });
let failures = 0;

// ---- scripted LLM server -------------------------------------------------
const llmPort = await freePort();
const llm = start(SCRIPTED, ['--port', String(llmPort)], {}, 'scripted-llm');
const LLM = `http://127.0.0.1:${llmPort}`;
await until('the scripted server', async () => (await fetch(`${LLM}/v1/models`)).ok);
const script = async (steps) => {
  const r = await fetch(`${LLM}/_control/script`, { method: 'POST', body: JSON.stringify(steps) });
  if (!r.ok) throw new Error(await r.text());
};
const received = async () => (await fetch(`${LLM}/_control/requests`)).json();
/** The chat-completion requests the server got after the first `from` requests, bodies parsed. */
const completions = async (from = 0) =>
  (await received()).slice(from).filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.parse(r.body));
/** A chat message's text (string content or text parts). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''));

// ---- a private Baton home ------------------------------------------------
const config = path.join(tmp, 'config');
const data = path.join(tmp, 'data');
const workspace = path.join(tmp, 'workspace');
for (const d of [config, data, workspace]) mkdirSync(d, { recursive: true });
writeFileSync(path.join(workspace, 'notes.txt'), 'Buy oat milk. Call the dentist on Friday.\n');
writeFileSync(
  path.join(config, 'providers.json'),
  JSON.stringify({
    default: 'scripted',
    providers: [
      // API tool mode: native tool calls, and delegation to subagents is offered.
      { name: 'scripted', dialect: 'openai', endpoint: `${LLM}/v1`, model: 'scripted-model', interactionMode: 'API' },
      { name: 'scripted-keyed', dialect: 'openai', endpoint: `${LLM}/v1`, model: 'scripted-model', apiKeyEnv: 'BATON_E2E_UNSET_KEY' },
    ],
  }),
);
// Plugins are read again 1 s after the Tools folder changes (30 s by default);
// the scripted server also plays an Ollama running on this computer.
writeFileSync(
  path.join(config, 'setup.json'),
  JSON.stringify({
    provider: 'scripted', workspace, pluginsReloadSecs: 1, localServers: [{ kind: 'ollama', endpoint: LLM }],
    // Research reads pages in Debian's Chromium, headless.
    browser: { mode: 'headless', path: '/usr/bin/chromium' },
  }),
);
await fetch(`${LLM}/_control/models`, { method: 'POST', body: JSON.stringify(['e2e-model']) });

// ---- the models folder: the real models (linked), downloads land here ----
const REAL_MODELS = process.env.BATON_MODELS_DIR ?? path.join(process.env.HOME, '.local/share/baton/models');
const models = path.join(tmp, 'models');
mkdirSync(models, { recursive: true });
for (const f of readdirSync(REAL_MODELS)) symlinkSync(path.join(REAL_MODELS, f), path.join(models, f));
// A catalog entry of the user's, served from loopback: the embedded model's file.
const EMBEDDED = readFileSync(path.join(REAL_MODELS, 'SmolLM2-135M-Instruct.Q4_1.gguf'));
const fileServer = http.createServer((req, res) => {
  if (req.url !== '/smol-e2e.gguf') {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-length': EMBEDDED.length });
  res.end(EMBEDDED);
});
await new Promise((r) => fileServer.listen(0, '127.0.0.1', r));
// A web of one page about the Velmar river, and a search over it in
// SearXNG's JSON (what Research mode reads).
const site = http.createServer((req, res) => {
  const base = `http://127.0.0.1:${site.address().port}`;
  if (req.url.startsWith('/search?')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results: [{ url: `${base}/velmar`, title: 'The Velmar river', content: 'The Velmar river is 412 km long.' }] }));
  } else if (req.url === '/velmar') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>The Velmar river</title><h1>The Velmar river</h1><p>The Velmar river is 412 km long. It rises in the Ostra hills.</p>');
  } else {
    res.writeHead(404).end();
  }
});
await new Promise((r) => site.listen(0, '127.0.0.1', r));
writeFileSync(
  path.join(config, 'models-catalog.json'),
  JSON.stringify({
    models: [{
      name: 'smol-e2e', title: 'Smol e2e', file: 'smol-e2e.gguf', url: `http://127.0.0.1:${fileServer.address().port}/smol-e2e.gguf`,
      size: EMBEDDED.length, sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53', sha256Source: 'scripts/fetch-model.sh',
      licence: 'Apache-2.0', contextLength: 8192, parameters: '135 M', ramMb: 300, tasks: ['chat'],
    }],
  }),
);
// A plugin written with the official Python MCP SDK (PyPI `mcp`, in the fixtures venv).
const VENV_PYTHON = path.join(process.env.BATON_FIXTURES_VENV ?? path.join(process.env.HOME, '.cache/baton-fixtures-venv'), 'bin/python');
const WORD_TOOLS = path.join(ROOT, 'crates/mcp/tests/servers/word_tools.py');

// ---- a private sound server: speaker `spk`, microphone `vmic` fed by `micfeed`
const pulseDir = path.join(tmp, 'pulse');
mkdirSync(path.join(pulseDir, 'xdg'), { recursive: true });
mkdirSync(path.join(pulseDir, 'home'), { recursive: true });
writeFileSync(
  path.join(pulseDir, 'pulse.pa'),
  [
    '.fail',
    `load-module module-native-protocol-unix socket=${pulseDir}/native auth-anonymous=1`,
    'load-module module-null-sink sink_name=spk norewinds=1 rate=48000 channels=2',
    'load-module module-null-sink sink_name=micfeed norewinds=1 rate=16000 channels=1',
    'load-module module-remap-source master=micfeed.monitor source_name=vmic',
    'set-default-sink spk',
    'set-default-source vmic',
    '',
  ].join('\n'),
);
start('pulseaudio', ['--daemonize=no', '--exit-idle-time=-1', '--disallow-exit', '-n', '-F', path.join(pulseDir, 'pulse.pa')],
  { XDG_RUNTIME_DIR: path.join(pulseDir, 'xdg'), HOME: path.join(pulseDir, 'home') }, 'pulseaudio');
const PULSE_SERVER = `unix:${pulseDir}/native`;
await until('the sound server', async () => {
  try {
    readFileSync(path.join(pulseDir, 'native'));
  } catch (e) {
    return e.code === 'ENXIO' || e.code === 'EOPNOTSUPP'; // a socket exists
  }
  return true;
});

// ---- display and driver --------------------------------------------------
const display = await ensureDisplay();
const appEnv = {
  DISPLAY: display,
  BATON_CONFIG_DIR: config,
  BATON_DATA_DIR: data,
  HOME: path.join(tmp, 'home'),
  // Where the system's autostart entries go (start at login).
  XDG_CONFIG_HOME: path.join(tmp, 'home', '.config'),
  BATON_LOG: 'info,pdf_oxide=warn,baton_desktop=debug',
  PULSE_SERVER,
  // The embedded model file (fetched by `make setup`), linked into a
  // models folder of this run's own.
  BATON_MODELS_DIR: models,
  // The Diagnostics toolbox: `block_for` (a slow call that ignores
  // cancellation) and `post_note` (an external action: an HTTP POST).
  BATON_DIAGNOSTIC_TOOLS: '1',
};
mkdirSync(appEnv.HOME, { recursive: true });
const { driver, url } = await startDriver(appEnv);
const app = new App(url, APP);
const js = (s, ...a) => app.js(s, ...a);
const screenshot = (name) => app.screenshot(OUT, name);
const assistantTexts = () =>
  // textContent, not innerText: a message scrolled out of view is not laid
  // out (content-visibility), and its innerText is empty.
  js(`return [...document.querySelectorAll('[data-testid=message][data-role=assistant]')].map(e => e.textContent.trim())`);
const idle = () => js(`return !document.querySelector('[data-testid=stop]')`);
async function send(text) {
  await app.type('[data-testid=composer]', text);
  await app.click('[data-testid=send]');
}

async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
    log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures++;
    log(`FAIL ${name}: ${e.stack ?? e}`);
    try {
      await screenshot(`FAILED-${name.replace(/\W+/g, '_')}`);
    } catch {}
    await settle();
  }
}

/** Ends a turn a failed step left running (or waiting for a confirmation), so the next steps start idle. */
async function settle() {
  try {
    // A failed step may leave Settings open over the chat: close it, so
    // one failure does not fail every step after it.
    await js(`document.querySelector('[data-testid=close-settings]')?.click()`);
    if (await idle()) return;
    await app.click('[data-testid=stop]');
    await until('the left-over turn to end', idle, 40000);
  } catch (e) {
    log(`could not end the left-over turn: ${e}`);
  }
}

try {
  const startedAt = Date.now();
  await app.open(READY);
  log(`app interactive after ${Date.now() - startedAt} ms`);
  await screenshot('01-empty');

  await step('a message streams an answer', async () => {
    await script([{ kind: 'reply', text: 'Hello from the **scripted** model, streamed in pieces.', textPieces: 8, chunkSize: 40, chunkDelayMs: 30 }]);
    await send('Say hello');
    await until('the streamed answer', async () => (await assistantTexts()).some((t) => t.includes('Hello from the scripted model')));
    await until('the turn to end', idle);
    const html = await js(`return document.querySelector('[data-testid=message][data-role=assistant]').innerHTML`);
    if (!html.includes('<strong>scripted</strong>')) throw new Error('the Markdown was not rendered: ' + html.slice(0, 300));
    await screenshot('02-streamed-answer');
  });

  await step('a tool call and its result are shown', async () => {
    await script([
      { kind: 'reply', toolCalls: [['list_directory', { path: '/' }]] },
      { kind: 'reply', text: 'Your workspace holds notes.txt.', textPieces: 3 },
    ]);
    await send('What is in my workspace?');
    await until('the answer after the tool', async () => (await assistantTexts()).some((t) => t.includes('Your workspace holds notes.txt')));
    await until('the turn to end', idle);
    const calls = await js(`return [...document.querySelectorAll('[data-testid=tool-call]')].map(e => e.innerText)`);
    if (!calls.some((c) => c.includes('list_directory'))) throw new Error('no tool call shown: ' + JSON.stringify(calls));
    await js(`const d = [...document.querySelectorAll('[data-testid=tool-call]')].pop(); const det = d.tagName === 'DETAILS' ? d : d.querySelector('details'); if (det) det.open = true;`);
    const expanded = await js(`return [...document.querySelectorAll('[data-testid=tool-call]')].pop().innerText`);
    if (!expanded.includes('notes.txt')) throw new Error('the tool result is not shown: ' + expanded);
    await screenshot('03-tool-call');
  });

  await step('an attached PDF is summarized from its text', async () => {
    const views = await app.jsAsync(
      `const done = arguments[arguments.length - 1];
       window.__TAURI_INTERNALS__.invoke('attach_paths', { paths: [arguments[0]] }).then(done, (e) => done({ error: e }));`,
      PDF,
    );
    if (views.error) throw new Error('attach_paths failed: ' + JSON.stringify(views.error));
    await until('the chip to be ready', () => js(`const c = document.querySelector('[data-testid=attachment-chip]'); return c && c.dataset.state === 'ready'`));
    await screenshot('04-attachment-ready');
    await script([{ kind: 'reply', text: `The report says: "${PDF_PHRASE}."`, textPieces: 5 }]);
    await send('Summarize the attached report in one sentence.');
    await until('the summary', async () => (await assistantTexts()).some((t) => t.includes(PDF_PHRASE)));
    await until('the turn to end', idle);
    const bodies = (await received()).map((r) => r.body);
    const last = bodies[bodies.length - 1];
    if (!last.includes(PDF_PHRASE) || !last.includes('report.pdf'))
      throw new Error('the PDF text did not reach the model');
    await screenshot('05-pdf-summary');
  });

  await step('the global shortcut opens the quick window beside the pointer; its answer moves into the main window; a second launch hands over its file', async () => {
    const invoke = async (cmd, a = {}) => {
      const r = await app.jsAsync(
        `const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then((v) => done({ v }), (e) => done({ error: e }));`,
        cmd, a,
      );
      if (r.error) throw new Error(`${cmd} failed: ${JSON.stringify(r.error)}`);
      return r.v;
    };
    const maps = watchMaps(display);
    try {
      await sleep(500); // xev is listening
      // The first press shows it for the first time (the window is made hidden a moment after start).
      const t = performance.now();
      xdo(display, 'key', 'ctrl+shift+space');
      const first = await maps.waitNamed(/quick question/, t);
      const id = first.window;
      log(`key press → quick window shown the first time: ${(first.at - t).toFixed(1)} ms`);
      await invoke('hide_quick_window');
      await maps.waitUnmap(id, first.at);
      await sleep(200);
      const times = await pressToShown(display, maps, id, 'ctrl+shift+space', () => invoke('hide_quick_window'), 8);
      log(`key press → quick window shown: p50 ${quantile(times, 0.5).toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`);
      // Beside the pointer.
      xdo(display, 'mousemove', '300', '200');
      const t0 = performance.now();
      xdo(display, 'key', 'ctrl+shift+space');
      await maps.waitMap(id, t0);
      const where = xdo(display, 'getwindowgeometry', String(id));
      const [x, y] = /Position: (-?\d+),(-?\d+)/.exec(where).slice(1).map(Number);
      if (Math.abs(x - 312) > 40 || Math.abs(y - 212) > 40) throw new Error(`the quick window is not beside the pointer (300,200): ${where}`);
      // A question typed there (real key presses) is answered there.
      await script([{ kind: 'reply', text: 'Twelve percent of 250 is 30.', textPieces: 3 }]);
      const before = (await received()).length;
      await sleep(300); // its question box has the focus
      xdo(display, 'type', '--delay', '15', 'What is 12 percent of 250?');
      xdo(display, 'key', 'Return');
      const saved = await until('the quick exchange to be saved', async () => {
        const list = await invoke('list_sessions');
        return list.find((s) => s.title === 'What is 12 percent of 250?' && s.messageCount >= 2);
      });
      const asked = (await completions(0)).slice(-1)[0];
      if ((await received()).length === before || !textOf(asked.messages.at(-1)).includes('12 percent of 250')) throw new Error('the quick question did not reach the model');
      // Ctrl+O: the exchange opens in the main window; the quick window hides.
      const t1 = performance.now();
      xdo(display, 'key', 'ctrl+o');
      await maps.waitUnmap(id, t1);
      await until('the exchange in the main window', async () => (await assistantTexts()).some((t) => t.includes('Twelve percent of 250 is 30')));
      const current = await js(`return document.querySelector('[data-testid=session-item].current')?.dataset.id`);
      if (current !== saved.id) throw new Error(`the main window shows ${current}, not the quick exchange ${saved.id}`);
      await screenshot('04b-quick-exchange-in-main');
    } finally {
      maps.stop();
    }
    // Opening Baton again hands the file over to this instance and quits.
    const file = path.join(tmp, 'handed-over.md');
    writeFileSync(file, '# Handed over\n\nA file given to a second launch.\n');
    const second = start(APP, [file], appEnv, 'second launch');
    const code = await new Promise((resolve) => second.on('exit', resolve));
    if (code !== 0) throw new Error(`the second launch exited with ${code}: ${second.output.slice(-500)}`);
    await until('the handed-over file in the composer', () => js(`return [...document.querySelectorAll('[data-testid=attachment-chip]')].some((c) => c.textContent.includes('handed-over.md'))`));
    await invoke('remove_attachment', { id: await js(`return [...document.querySelectorAll('[data-testid=attachment-chip]')].find((c) => c.textContent.includes('handed-over.md')).dataset.id`) });
  });

  await step('start at login, set in Settings → Desktop, is an autostart entry that starts Baton in the tray; unset, it is gone', async () => {
    const entry = path.join(appEnv.XDG_CONFIG_HOME, 'autostart', 'Baton.desktop');
    const toggle = async () => {
      await app.click('[data-testid=open-settings]');
      await until('the desktop settings', () => js(`return !!document.querySelector('[data-testid=start-at-login]')`));
      await app.click('[data-testid=start-at-login]');
      await app.click('[data-testid=desktop-save]');
      await until('saved', () => js(`return !!document.querySelector('[data-testid=desktop-saved]')`));
      await app.click('[data-testid=close-settings]');
    };
    await toggle();
    const text = readFileSync(entry, 'utf8');
    if (!text.includes(APP) || !text.includes('--tray')) throw new Error(`the autostart entry does not start Baton in the tray:\n${text}`);
    const saved = JSON.parse(readFileSync(path.join(config, 'setup.json'), 'utf8'));
    if (saved.desktop?.startAtLogin !== true) throw new Error('not saved: ' + JSON.stringify(saved.desktop));
    await toggle();
    if (existsSync(entry)) throw new Error('the autostart entry is still there');
  });

  await step('two chats answer at once while the user switches; the one that ends in the background raises a notification that opens it', async () => {
    // A real notification daemon on this run's session bus and display.
    const rc = path.join(tmp, 'dunstrc');
    writeFileSync(rc, '[global]\n');
    start('dunst', ['-config', rc], { DISPLAY: display }, 'dunst');
    const dunstctl = (...a) => execFileSync('dunstctl', a, { env: { ...process.env, DISPLAY: display } }).toString().trim();
    await until('the notification daemon', () => {
      try {
        dunstctl('count', 'displayed');
        return true;
      } catch {
        return false;
      }
    });
    const ids = () => js(`return Object.fromEntries([...document.querySelectorAll('[data-testid=session-item]')].map(e => [e.querySelector('[data-testid=session-title]').textContent.trim(), { id: e.dataset.id, activity: e.querySelector('[data-testid=session-activity]')?.dataset.state ?? null }]))`);
    // A: a slow answer (about 8 s); B: a quick one.
    await script([
      { kind: 'reply', text: 'The long answer, written slowly, piece by piece, to the very end.', textPieces: 40, eventDelayMs: 200 },
      { kind: 'reply', text: 'The short answer.', textPieces: 2 },
    ]);
    await app.click('[data-testid=new-chat]');
    await send('Write the long one');
    await until('A answering', async () => (await assistantTexts()).some((t) => t.startsWith('The long')));
    await app.click('[data-testid=new-chat]');
    await send('Write the short one');
    await until('B answered while A still writes', async () => (await assistantTexts()).some((t) => t.includes('The short answer.')));
    await until('the composer free', idle);
    const rows = await ids();
    if (rows['Write the long one']?.activity !== 'working') throw new Error('A is not shown as working: ' + JSON.stringify(rows));
    // Away from the main window (the quick window has the focus) A ends:
    // a notification, and clicking it opens A.
    dunstctl('close-all');
    xdo(display, 'key', 'ctrl+shift+space');
    await until('the notification for A', () => Number(dunstctl('count', 'displayed')) >= 1, 20000);
    dunstctl('action', '0');
    const a = rows['Write the long one'].id;
    await until('A opened by the notification', () => js(`return document.querySelector('[data-testid=session-item].current')?.dataset.id === arguments[0]`, a));
    await until('its whole answer', async () => (await assistantTexts()).some((t) => t.includes('to the very end.')));
    await sleep(300);
    dunstctl('close-all');
    const history = JSON.parse(dunstctl('history')).data.flat();
    const told = history.find((n) => n.summary.data === 'Write the long one');
    if (!told || told.appname.data !== 'Baton' || !told.body.data.includes('The answer is ready.')) throw new Error('no notification for A: ' + JSON.stringify(history.map((n) => [n.appname.data, n.summary.data, n.body.data])));
    await screenshot('04c-two-chats-notification-opened');
    await js(`return window.__TAURI_INTERNALS__.invoke('hide_quick_window')`);
  });

  await step('an API key saved in Settings is in the Secret Service', async () => {
    await app.click('[data-testid=open-settings]');
    await until('the providers', () => js(`return !!document.querySelector('[data-testid=provider-option][data-name=scripted-keyed]')`));
    await app.click('[data-testid=provider-option][data-name=scripted-keyed]');
    await until('the key field', () => js(`return !!document.querySelector('[data-testid=api-key-input]')`));
    await app.type('[data-testid=api-key-input]', 'sk-e2e-secret-0042');
    await app.click('[data-testid=save-key]');
    await until('the key to be stored', () => js(`return document.querySelector('[data-testid=key-status]')?.dataset.stored === 'true'`));
    const status = await js(`return document.querySelector('[data-testid=key-status]').innerText`);
    if (status.includes('sk-e2e-secret-0042')) throw new Error('the key is shown unmasked');
    const stored = execFileSync('secret-tool', ['lookup', 'service', 'baton', 'username', 'provider:scripted-keyed']).toString().trim();
    if (stored !== 'sk-e2e-secret-0042') throw new Error(`the Secret Service holds "${stored}"`);
    const leaked = readFileSync(path.join(config, 'setup.json'), 'utf8').includes('sk-e2e') ||
      (await js(`return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)`)).includes('sk-e2e');
    if (leaked) throw new Error('the key leaked into settings or web storage');
    await screenshot('06-key-saved');
    await app.click('[data-testid=close-settings]');
  });

  await step('the HTTP API started from Settings answers an OpenAI client, and stops', async () => {
    const port = await freePort();
    await app.click('[data-testid=open-settings]');
    await until('the HTTP API section', () => js(`return !!document.querySelector('[data-testid=server-stopped]')`));
    await app.clear('[data-testid=server-port]');
    await app.type('[data-testid=server-port]', String(port));
    await app.click('[data-testid=server-save]');
    await until('the API settings to be saved', () => js(`return !!document.querySelector('[data-testid=server-saved]')`));
    await app.click('[data-testid=server-start]');
    await until('the server to run', () => js(`return !!document.querySelector('[data-testid=server-running]')`), 15000);
    const shown = await js(`return document.querySelector('[data-testid=server-running]').innerText`);
    if (!shown.includes(`127.0.0.1:${port}/v1`)) throw new Error(`the settings say: ${shown}`);
    // The app made its own key (kept in the keychain) and shows it to copy.
    await app.click('[data-testid=server-show-key]');
    await until('the key to show', () => js(`return !!document.querySelector('[data-testid=server-key]')`));
    const key = await js(`return document.querySelector('[data-testid=server-key]').innerText`);
    if (!/^bk-\w{60,}$/.test(key)) throw new Error(`the key shown is "${key}"`);
    const ask = (headers) => fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'assistant', messages: [{ role: 'user', content: 'Hello over HTTP' }] }),
    });
    const keyless = await ask({});
    if (keyless.status !== 401) throw new Error(`without the key the API answered ${keyless.status}`);
    await script([{ kind: 'reply', text: 'Served over HTTP by the desktop.', textPieces: 3 }]);
    const res = await ask({ authorization: `Bearer ${key}` });
    const body = await res.json();
    if (body.choices?.[0]?.message?.content !== 'Served over HTTP by the desktop.') throw new Error(`the API answered ${JSON.stringify(body)}`);
    await screenshot('06a-http-api');
    await app.click('[data-testid=server-stop]');
    await until('the server to stop', () => js(`return !!document.querySelector('[data-testid=server-stopped]')`), 15000);
    const refused = await fetch(`http://127.0.0.1:${port}/health`).then(() => false, () => true);
    if (!refused) throw new Error('the stopped server still answers');
    await app.click('[data-testid=close-settings]');
  });

  await step('a plugin dropped into Tools while the app runs is listed and called', async () => {
    const folder = path.join(data, 'Tools', 'Words');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'plugin.json'), JSON.stringify({ description: 'Counts and reverses words.', command: VENV_PYTHON, args: [WORD_TOOLS] }));
    await app.click('[data-testid=open-settings]');
    const words = `document.querySelector('[data-testid=mcp-server][data-name=Words]')`;
    await until('the plugin to run', async () => {
      await app.click('[data-testid=mcp-refresh]');
      await sleep(300);
      return js(`return ${words}?.querySelector('[data-testid=mcp-state]')?.innerText === 'Running'`);
    }, 20000);
    const tools = await js(`return ${words}.querySelector('[data-testid=mcp-tools]').innerText`);
    if (!tools.includes('count_words')) throw new Error(`the plugin lists: ${tools}`);
    // Its read-only claim counts once the user trusts it (else each call asks).
    await js(`${words}.querySelector('[data-testid=mcp-trusted]').click()`);
    await until('the plugin to be trusted', () => js(`return ${words}.querySelector('[data-testid=mcp-trusted]').checked`), 10000);
    await screenshot('06b-plugin');
    await app.click('[data-testid=close-settings]');
    await script([
      { kind: 'reply', toolCalls: [['count_words', { text: 'one two three four' }]] },
      { kind: 'reply', text: 'Your text has four words.', textPieces: 2 },
    ]);
    const before = (await received()).length;
    await send('How many words are in "one two three four"?');
    await until('the answer after the plugin', async () => (await assistantTexts()).some((t) => t.includes('four words')));
    await until('the turn to end', idle);
    const second = (await completions(before))[1];
    const result = second.messages.filter((m) => m.role === 'tool').pop();
    if (textOf(result) !== '4') throw new Error(`the plugin answered ${JSON.stringify(result)}`);
  });

  await step('stop ends an answer while it streams', async () => {
    await script([{ kind: 'reply', text: 'word '.repeat(400), textPieces: 400, chunkSize: 64, chunkDelayMs: 40 }]);
    await send('Write a long answer');
    await until('the answer to start', async () => (await assistantTexts()).some((t) => t.startsWith('word word')));
    await app.click('[data-testid=stop]');
    await until('the turn to end', idle, 10000);
    const last = (await assistantTexts()).pop();
    if ((last.match(/word/g) ?? []).length >= 400) throw new Error('the answer was not cut short');
    await screenshot('06b-stopped');
  });

  await step('stop ends a slow tool within a second', async () => {
    await app.click('[data-testid=new-chat]');
    await script([{ kind: 'reply', toolCalls: [['block_for', { seconds: 30 }]] }]);
    const before = (await received()).length;
    await send('Run the slow diagnostic');
    await until('the slow tool to run', () =>
      js(`return [...document.querySelectorAll('[data-testid=tool-call][data-status=running]')].some(e => e.innerText.includes('block_for'))`));
    await sleep(300); // well inside the blocking call
    const clicked = Date.now();
    await app.click('[data-testid=stop]');
    await until('the turn to end', idle, 10000);
    const ms = Date.now() - clicked;
    log(`stop during a blocking tool: the turn ended ${ms} ms after the click`);
    if (ms > 1500) throw new Error(`the turn took ${ms} ms to end after Stop (limit 1,500 ms)`);
    const running = await js(`return document.querySelectorAll('[data-testid=tool-call][data-status=running]').length`);
    if (running) throw new Error('the tool is still shown as running');
    const later = (await received()).slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    if (later.length !== 1) throw new Error(`expected one model call, got ${later.length}: the turn went on after Stop`);
    await screenshot('06c-slow-tool-stopped');
  });

  await step('an external action waits for the confirmation card', async () => {
    const NOTE = 'Lunch moved to 1 pm';
    const notes = async () => (await received()).filter((r) => r.path === '/_sink/notes');
    const card = '[data-testid=confirmation-card]';
    if ((await notes()).length) throw new Error('the sink got a note before the test');
    await app.click('[data-testid=new-chat]');
    await script([
      { kind: 'reply', toolCalls: [['post_note', { url: `${LLM}/_sink/notes`, text: NOTE }]] },
      { kind: 'reply', text: 'I posted the note.' },
    ]);
    await send('Post a note to the team that lunch moved to 1 pm');
    await until('the confirmation card', () => js(`return !!document.querySelector(arguments[0])`, card));
    const shown = await js(`return document.querySelector(arguments[0]).innerText`, card);
    if (!shown.includes('post_note') || !shown.includes(NOTE)) throw new Error('the card does not show the exact action: ' + shown);
    await sleep(500); // time enough for a post that should not happen
    if ((await notes()).length) throw new Error('the note was posted before the user allowed it');
    if (await idle()) throw new Error('the turn did not wait for the answer');
    await screenshot('06d-confirmation');
    await app.click('[data-testid=confirm-allow]');
    await until('the card to show Allowed', () => js(`return document.querySelector(arguments[0])?.dataset.state === 'allowed'`, card));
    await until('the answer after the action', async () => (await assistantTexts()).some((t) => t.includes('I posted the note.')));
    await until('the turn to end', idle);
    const posted = await notes();
    if (posted.length !== 1 || posted[0].method !== 'POST' || posted[0].body !== NOTE)
      throw new Error('the sink did not get exactly the note: ' + JSON.stringify(posted));
    const outcome = await js(`return document.querySelector(arguments[0]).innerText`, card);
    if (!outcome.includes('Allowed')) throw new Error('the card does not show the outcome: ' + outcome);
    await screenshot('06e-confirmation-allowed');
  });

  await step("a subagent's question is answered in its card", async () => {
    const QUESTION = "Which year's budget do you mean?";
    const card = '[data-testid=subagent-question]';
    await app.click('[data-testid=new-chat]');
    await script([
      { kind: 'reply', toolCalls: [['launch_subagent', { task: 'Find the budget file the user means', agent: 'FileTool' }]] },
      { kind: 'reply', text: JSON.stringify({ question: QUESTION }) },
      { kind: 'reply', text: 'The 2026 budget is budget-2026.xlsx.' },
      { kind: 'reply', text: 'Your 2026 budget is in budget-2026.xlsx.' },
    ]);
    const before = (await received()).length;
    await send('Where is my budget file?');
    await until('the question card', () => js(`return document.querySelector(arguments[0])?.dataset.state === 'waiting'`, card));
    const shown = await js(`return document.querySelector(arguments[0]).innerText`, card);
    if (!shown.includes(QUESTION)) throw new Error('the card does not show the question: ' + shown);
    await sleep(300);
    if (await idle()) throw new Error('the turn did not wait for the answer');
    const asked = await completions(before);
    if (asked.length !== 2) throw new Error(`expected 2 model calls before the answer, got ${asked.length}`);
    await screenshot('06f-subagent-question');
    await app.type('[data-testid=subagent-answer]', '2026\uE007');
    await until('the final answer', async () => (await assistantTexts()).some((t) => t.includes('Your 2026 budget is in budget-2026.xlsx.')));
    await until('the turn to end', idle);
    const calls = await completions(before);
    if (calls.length !== 4) throw new Error(`expected 4 model calls, got ${calls.length}`);
    // The engine adds its per-call context (the time, the workspace) after the user's words.
    const last = calls[2].messages[calls[2].messages.length - 1];
    if (last.role !== 'user' || textOf(last).split('\n\n')[0].trim() !== '2026')
      throw new Error("the subagent's request does not end with the answer: " + JSON.stringify(last));
    if (JSON.stringify(calls[3]).includes('budget do you mean'))
      throw new Error("the parent's request holds the question: the answer went to the parent instead of the subagent");
    const state = await js(`return document.querySelector(arguments[0]).dataset.state`, card);
    if (state !== 'answered') throw new Error(`the card is ${state}, not answered`);
    const answer = await js(`return document.querySelector('[data-testid=question-answer]')?.innerText ?? ''`);
    if (answer.trim() !== '2026') throw new Error('the card does not show the answer: ' + answer);
    if (await js(`return !!document.querySelector('[data-testid=subagent-answer]')`)) throw new Error('the card can still be answered');
    await screenshot('06g-subagent-answered');
  });

  await step('the agent picker sends the chosen agent', async () => {
    await app.click('[data-testid=new-chat]');
    await until('the agents', () => js(`return !!document.querySelector('[data-testid=agent-option][data-name=researcher]')`));
    await app.click('[data-testid=agent-option][data-name=researcher]');
    const picked = await js(`return document.querySelector('[data-testid=agent-picker]').value`);
    if (picked !== 'researcher') throw new Error(`the picker shows ${picked}`);
    await script([{ kind: 'reply', text: 'I only read files.' }]);
    const before = (await received()).length;
    await send('Which files can you change?');
    await until('the answer', async () => (await assistantTexts()).some((t) => t.includes('I only read files.')));
    await until('the turn to end', idle);
    const calls = await completions(before);
    if (calls.length !== 1) throw new Error(`expected 1 model call, got ${calls.length}`);
    const tools = (calls[0].tools ?? []).map((t) => t.function?.name ?? t.name);
    log(`researcher's tools: ${tools.join(', ')}`);
    if (!tools.includes('read_text_file')) throw new Error('read_text_file is not offered: ' + tools.join(', '));
    for (const t of ['write_text_file', 'move_file'])
      if (tools.includes(t)) throw new Error(`${t} is offered to the researcher`);
    await screenshot('06h-researcher');
    // The later steps talk to the default agent.
    await app.click('[data-testid=agent-option][data-name=assistant]');
  });

  await step('a team answers from the Team panel: planned, worked on, reviewed, synthesized', async () => {
    // The shipped team: the planner plans, the researcher and the
    // document-preparer work, the reviewer reviews, the synthesizer answers;
    // parts run at once, so paired replies are alike.
    const plan = JSON.stringify({ assignments: [{ task: 'Read the notes', specialisation: 'research' }, { task: 'Write a summary', specialisation: 'writing' }] });
    await script([
      { kind: 'reply', text: plan },
      { kind: 'reply', text: 'Part done.' },
      { kind: 'reply', text: 'Part done.' },
      { kind: 'reply', text: '{"approved": true, "feedback": "Fine."}' },
      { kind: 'reply', text: '{"approved": true, "feedback": "Fine."}' },
      { kind: 'reply', text: 'The team says: buy oat milk, call the dentist.', textPieces: 3 },
    ]);
    await app.click('[data-testid=team-open]');
    await app.type('[data-testid=team-prompt]', 'Summarise my notes');
    await app.click('[data-testid=team-start]');
    await until('the team answer', () => js(`return document.querySelector('[data-testid=team-answer]')?.textContent.includes('buy oat milk') ?? false`), 30000);
    const parts = await js(`return [...document.querySelectorAll('[data-testid=team-part]')].map(e => e.dataset.status)`);
    if (parts.join() !== 'done,done') throw new Error(`the parts ended as ${parts}`);
    await screenshot('08b-team');
    await app.click('[data-testid=team-close]');
  });

  await step('research mode: SearXNG chosen in Settings, one page read in the browser, a cited report saved as Word', async () => {
    await app.click('[data-testid=open-settings]');
    await until('the research settings', () => js(`return !!document.querySelector('[data-testid=research-search]')`));
    await js(`const s = document.querySelector('[data-testid=research-search]'); s.value = 'searxng'; s.dispatchEvent(new Event('change', { bubbles: true }));`);
    await until('the SearXNG field', () => js(`return !!document.querySelector('[data-testid=research-searxng]')`));
    await app.type('[data-testid=research-searxng]', `http://127.0.0.1:${site.address().port}`);
    await app.click('[data-testid=research-settings-save]');
    await until('the research settings saved', () => js(`return !!document.querySelector('[data-testid=research-settings-saved]')`));
    await app.click('[data-testid=close-settings]');
    // One source: the planner, the reader, the reviewer and the writer ask in turn.
    await script([
      { kind: 'reply', text: '{"questions": ["How long is the Velmar river?"]}' },
      { kind: 'reply', text: '{"claims": [{"claim": "The Velmar is 412 km long", "quote": "The Velmar river is 412 km long"}]}' },
      { kind: 'reply', text: '{"unsupported": []}' },
      { kind: 'reply', text: 'The Velmar is 412 km long [1].' },
    ]);
    await app.click('[data-testid=research-open]');
    await app.type('[data-testid=research-question]', 'How long is the Velmar river?');
    await app.click('[data-testid=research-start]');
    await until('the report', () => js(`return document.querySelector('[data-testid=research-report]')?.textContent.includes('412 km long [1]') ?? false`), 60000);
    const report = await js(`return document.querySelector('[data-testid=research-report]').textContent`);
    if (!report.includes('Sources') || !report.includes('The Velmar river is 412 km long')) throw new Error('the report lists no source with its quote: ' + report);
    await screenshot('08d-research');
    await app.click('[data-testid=research-save-docx]');
    await until('the saved report', () => js(`return !!document.querySelector('[data-testid=research-saved]')`), 60000);
    const saved = path.join(workspace, 'Research', 'how-long-is-the-velmar-river.docx');
    if (!existsSync(saved) || readFileSync(saved).subarray(0, 2).toString() !== 'PK') throw new Error('no Word report at ' + saved);
    await app.click('[data-testid=research-close]');
  });

  await step('a catalog model downloads from the Models page, becomes a provider, and is deleted', async () => {
    await app.click('[data-testid=open-settings]');
    const item = '[data-testid=catalog-model][data-name="smol-e2e"]';
    await until('the catalog', () => js(`return !!document.querySelector('${item}')`));
    const servers = await js(`return document.querySelector('[data-testid=local-servers]').textContent`);
    if (!servers.includes('ollama-e2e-model')) throw new Error('the Ollama on this computer is not listed: ' + servers);
    await app.click(`${item} [data-testid=model-pull]`);
    await until('the download', () => js(`return !!document.querySelector('${item} [data-testid=model-pulled]')`), 60000);
    const file = path.join(models, 'smol-e2e.gguf');
    if (statSync(file).size !== EMBEDDED.length) throw new Error('the downloaded file has the wrong size');
    const names = await app.jsAsync(`const done = arguments[arguments.length - 1];
      window.__TAURI_INTERNALS__.invoke('list_providers').then((ps) => done(ps.map((p) => p.name)), (e) => done([String(e)]));`);
    if (!names.includes('smol-e2e') || !names.includes('ollama-e2e-model')) throw new Error('providers: ' + names.join(', '));
    await js(`document.querySelector('${item}').scrollIntoView()`);
    await screenshot('08c-models');
    await app.click(`${item} [data-testid=model-delete]`);
    await until('the delete', () => js(`return !!document.querySelector('${item} [data-testid=model-pull]')`));
    if (existsSync(file)) throw new Error('the model file is still there');
    await app.click('[data-testid=close-settings]');
  });

  await step('a spoken question is answered aloud', async () => {
    const words = 'You have two meetings tomorrow. The first one is at nine.';
    await script([{ kind: 'reply', text: words, textPieces: 10, eventDelayMs: 20 }]);
    await app.click('[data-testid=voice-open]');
    await until('the voice panel to listen', () => js(`return document.querySelector('[data-testid=voice-panel]')?.dataset.phase === 'listening'`), 30000);
    const question = path.join(tmp, 'question.wav');
    execFileSync('espeak-ng', ['-w', question, 'What is on my calendar for tomorrow?']);
    execFileSync('paplay', ['--device=micfeed', question], { env: { ...process.env, PULSE_SERVER } });
    await until('the transcript and the spoken answer', async () => {
      const text = await js(`return document.querySelector('[data-testid=voice-turns]')?.innerText ?? ''`);
      return /calendar/i.test(text) && text.includes('The first one is at nine.');
    }, 30000);
    await until('the answer to be spoken', () => js(`return !!document.querySelector('[data-testid=voice-timing]')`), 30000);
    log('voice: ' + (await js(`return document.querySelector('[data-testid=voice-timing]').innerText`)));
    const last = (await received()).filter((r) => r.path.endsWith('/chat/completions')).pop();
    if (!/calendar/i.test(last.body)) throw new Error('the model did not get the transcript: ' + last.body.slice(0, 300));
    await screenshot('07-voice');
    await app.click('[data-testid=voice-end]');
    await until('the conversation to end', () => js(`return document.querySelector('[data-testid=voice-panel]')?.dataset.phase === 'idle'`), 10000);
    await app.click('[data-testid=voice-close]');
  });

  await step('push-to-talk from any application: held, Baton listens (its overlay shows); released, it answers aloud; the exchange is kept as a chat', async () => {
    const words = 'Your next meeting is at ten.';
    await script([{ kind: 'reply', text: words, textPieces: 6, eventDelayMs: 20 }]);
    // The talk events, as every window gets them.
    await js(`window.__talk = [];
      const id = window.__TAURI_INTERNALS__.transformCallback((e) => window.__talk.push(e.payload));
      return window.__TAURI_INTERNALS__.invoke('plugin:event|listen', { event: 'talk-event', target: { kind: 'Any' }, handler: id });`);
    const talked = (type) => js(`return window.__talk.filter(e => e.event?.kind === arguments[0]).map(e => e.event)`, type);
    const maps = watchMaps(display);
    try {
      await sleep(300);
      const t = performance.now();
      xdo(display, 'keydown', 'ctrl+alt+space');
      const shown = await maps.waitNamed(/push to talk/, t);
      log(`key down → push-to-talk overlay shown: ${(shown.at - t).toFixed(1)} ms`);
      await until('the microphone open', async () => (await talked('level')).length > 0, 30000);
      const question = path.join(tmp, 'ptt-question.wav');
      execFileSync('espeak-ng', ['-w', question, 'When is my next meeting?']);
      execFileSync('paplay', ['--device=micfeed', question], { env: { ...process.env, PULSE_SERVER } });
      await sleep(300);
      xdo(display, 'keyup', 'ctrl+alt+space');
      await until('the transcript', async () => (await talked('transcript')).some((e) => /meeting/i.test(e.text)), 30000);
      await until('the answer spoken', async () => (await talked('answerDone')).length > 0, 30000);
      const spoken = (await talked('speaking')).map((e) => e.sentence).join(' ');
      if (!spoken.includes('ten')) throw new Error('the answer was not spoken: ' + spoken);
      const last = (await received()).filter((r) => r.path.endsWith('/chat/completions')).pop();
      if (!/meeting/i.test(last.body)) throw new Error('the model did not get the transcript: ' + last.body.slice(0, 300));
      await until('the exchange kept as a voice chat', async () => {
        const list = await js(`return window.__TAURI_INTERNALS__.invoke('list_sessions')`);
        return Array.isArray(list) && list.some((x) => x.voiceTurns > 0 && /meeting/i.test(x.title));
      });
    } finally {
      xdo(display, 'keyup', 'ctrl+alt+space');
      maps.stop();
    }
  });

  await step('dictation: push-to-talk held in another application types what was said into it', async () => {
    const status = await js(`return window.__TAURI_INTERNALS__.invoke('desktop_settings')`);
    const save = (talkMode) => js(`return window.__TAURI_INTERNALS__.invoke('save_desktop_settings', { settings: arguments[0] })`, { ...status.settings, talkMode });
    await save('dictate');
    // Another application with a text box in front: Tk's, writing down what it holds.
    const typed = path.join(tmp, 'dictated.txt');
    const target = start('/usr/bin/python3', ['-c', `
import tkinter as tk
root = tk.Tk(); root.title('dictation target'); root.geometry('500x120+40+40')
box = tk.Text(root); box.pack(fill='both', expand=True)
def keep():
    open(${JSON.stringify(typed)}, 'w').write(box.get('1.0', 'end-1c')); root.after(200, keep)
root.after(200, keep); root.after(300, lambda: (root.focus_force(), box.focus_set()))
root.mainloop()`], { DISPLAY: display }, 'tk');
    try {
      await until('the text box shown', () => existsSync(typed), 15000);
      const id = xdo(display, 'search', '--name', 'dictation target').split('\n')[0];
      xdo(display, 'windowfocus', '--sync', id);
      await js(`window.__talk = [];`);
      xdo(display, 'keydown', 'ctrl+alt+space');
      const dictated = (kind) => js(`return window.__talk.filter(e => e.dictating && e.event?.kind === arguments[0]).map(e => e.event)`, kind);
      await until('listening for dictation', async () => (await dictated('speechStarted')).length > 0, 30000);
      const said = path.join(tmp, 'dictation.wav');
      execFileSync('espeak-ng', ['-w', said, 'Please buy milk and eggs on the way home.']);
      execFileSync('paplay', ['--device=micfeed', said], { env: { ...process.env, PULSE_SERVER } });
      await sleep(300);
      xdo(display, 'keyup', 'ctrl+alt+space');
      const [heard] = await until('the transcript', async () => {
        const t = await dictated('transcript');
        return t.length ? t : null;
      }, 30000);
      if (!/milk/i.test(heard.text)) throw new Error('dictation heard: ' + JSON.stringify(heard));
      await until('typed into the text box', () => readFileSync(typed, 'utf8').includes(heard.text), 10000);
      log(`dictated and typed into another application: “${readFileSync(typed, 'utf8')}” (${heard.sttMs.toFixed(0)} ms after release)`);
      const asked = (await received()).filter((r) => r.path.endsWith('/chat/completions')).some((r) => /milk/i.test(r.body));
      if (asked) throw new Error('dictation reached a model');
      await screenshot('07c-dictation');
    } finally {
      xdo(display, 'keyup', 'ctrl+alt+space');
      target.kill('SIGTERM');
      await save('answer');
    }
  });

  await step('the language chosen in Settings → Desktop shows in every window at once, and "as the system" brings the system language back', async () => {
    const status = await js(`return window.__TAURI_INTERNALS__.invoke('desktop_settings')`);
    const save = (language) => js(`return window.__TAURI_INTERNALS__.invoke('save_desktop_settings', { settings: arguments[0] })`, { ...status.settings, language });
    await save('de');
    await until('the window in German', () => js(`return document.documentElement.lang === 'de' && document.querySelector('[data-testid=open-settings]').textContent.includes('Einstellungen')`), 10000);
    if ((await js(`return window.__TAURI_INTERNALS__.invoke('app_language')`)) !== 'de') throw new Error('the shell does not say German');
    await screenshot('07d-german');
    await save(null);
    await until(`the window in the system's language (${status.systemLanguage}) again`, () => js(`return document.documentElement.lang === arguments[0]`, status.systemLanguage), 10000);
  });

  await step('a project made in Settings chats in its own folder with its instructions, and the chat can move out', async () => {
    const folder = path.join(tmp, 'port-project');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'berths.md'), 'The tug Hector waits at quay 4.\n');
    await app.click('[data-testid=open-settings]');
    const form = '[data-testid=new-project-form]';
    await app.type(`${form} [data-testid=project-name-input]`, 'Port');
    await app.type(`${form} [data-testid=project-folder]`, folder);
    await app.type(`${form} [data-testid=project-instructions]`, 'Answer as the harbour master.');
    await app.click(`${form} [data-testid=project-create]`);
    await until('the project listed', () => js(`return [...document.querySelectorAll('[data-testid=project-item-name]')].some(e => e.textContent.trim() === 'Port')`));
    await app.click('[data-testid=close-settings]');
    // The "+" shows on hover; a script click needs none.
    await js(`document.querySelector('[data-testid=project-group] [data-testid=project-new-chat]').click()`);
    await until('the empty chat in the project', () => js(`return !!document.querySelector('[data-testid=empty-project]')`));
    await script([
      { kind: 'reply', toolCalls: [['list_directory', { path: '/' }]] },
      { kind: 'reply', text: 'The project holds berths.md.' },
    ]);
    const before = (await received()).length;
    await send('What is in this project?');
    await until('the answer', async () => (await assistantTexts()).some((t) => t.includes('The project holds berths.md.')));
    await until('the turn to end', idle);
    const calls = await completions(before);
    const system = textOf(calls[0].messages[0]);
    if (!system.includes('Answer as the harbour master.')) throw new Error("the project's instructions are not in the system message: " + system.slice(-400));
    const listed = JSON.stringify(calls[1].messages.filter((m) => m.role === 'tool'));
    if (!listed.includes('berths.md') || listed.includes('notes.txt')) throw new Error('the tools did not work in the project folder: ' + listed);
    const header = await js(`return document.querySelector('[data-testid=chat-project]')?.textContent.trim() ?? ''`);
    if (header !== 'in project Port') throw new Error('the header says: ' + header);
    const grouped = await js(`return document.querySelectorAll('[data-testid=project-group] [data-testid=session-item]').length`);
    if (grouped !== 1) throw new Error(`${grouped} chats under the project`);
    await screenshot('07a-project-chat');
    // Moved out of the project: the sidebar lists it with the other chats.
    await js(`document.querySelector('[data-testid=project-group] [data-testid=session-item] [data-testid=move-session]').click()`);
    await until('the move menu', () => js(`return !!document.querySelector('[data-testid=move-menu]')`));
    await js(`document.querySelector('[data-testid=move-choice][data-project=""]').click()`);
    await until('the chat out of the project', () => js(`return document.querySelectorAll('[data-testid=project-group] [data-testid=session-item]').length === 0`));
  });

  await step("a scheduled task made in Settings is run by the app's scheduler, told in a toast and kept in its own chat", async () => {
    await app.click('[data-testid=open-settings]');
    const form = '[data-testid=new-task-form]';
    await until('the scheduled tasks listed', () => js(`return !!document.querySelector(arguments[0])`, `${form} [data-testid=task-new-prompt]`));
    await script([{ kind: 'reply', text: 'Two ships came in; the ferry is late.' }]);
    const before = (await received()).length;
    await app.type(`${form} [data-testid=task-new-prompt]`, 'Summarise the harbour news');
    await app.type(`${form} [data-testid=task-new-when]`, 'in 3 seconds');
    await app.click(`${form} [data-testid=task-add]`);
    await until('the task listed', () => js(`return [...document.querySelectorAll('[data-testid=task-prompt]')].some(e => e.textContent.trim() === 'Summarise the harbour news')`));
    await app.click('[data-testid=close-settings]');
    // The app's scheduler runs it when it is due (it looks at least every 5 s).
    await until('the toast of its run', () => js(`return [...document.querySelectorAll('[data-testid=toast]')].some(t => t.textContent.includes('Scheduled task'))`), 30000);
    const asked = (await completions(before)).pop();
    if (!textOf(asked.messages.at(-1)).includes('Summarise the harbour news')) throw new Error('the task prompt was not sent: ' + JSON.stringify(asked.messages.at(-1)).slice(0, 300));
    await screenshot('07b-scheduled-task');
    await until('its chat under Scheduled', () => js(`return document.querySelectorAll('[data-testid=scheduled-sessions] [data-testid=session-item]').length === 1`));
    await js(`[...document.querySelectorAll('[data-testid=toast]')].find(t => t.textContent.includes('Scheduled task')).querySelector('[data-testid=toast-action]').click()`);
    await until('its chat open', async () => (await assistantTexts()).some((t) => t.includes('the ferry is late')));
    await app.click('[data-testid=open-settings]');
    await until('the run in its history', () => js(`return document.querySelector('[data-testid=task-last]')?.textContent.includes('answered') ?? false`));
    await js(`document.querySelector('[data-testid=task-item] [data-testid=task-remove]').click()`);
    await until('the task removed', () => js(`return !!document.querySelector('[data-testid=tasks-empty]')`));
    await app.click('[data-testid=close-settings]');
  });

  await step('an earlier question edited is a branch, and the old one comes back whole', async () => {
    await app.click('[data-testid=new-chat]');
    for (const [q, a] of [['Which berths are free on Monday?', 'Berths 3 and 7.'], ['Who pilots on Monday?', 'Captain Nowak.']]) {
      await script([{ kind: 'reply', text: a }]);
      await send(q);
      await until(`the answer "${a}"`, async () => (await assistantTexts()).some((t) => t.includes(a)));
      await until('the turn to end', idle);
    }
    const users = `[data-testid=message][data-role=user]`;
    await js(`document.querySelector('${users} [data-testid=edit-message]').click()`);
    await until('the composer to hold the first question', () => js(`return document.querySelector('[data-testid=composer]').value === 'Which berths are free on Monday?'`));
    await app.clear('[data-testid=composer]');
    await script([{ kind: 'reply', text: 'Berths 2 and 5.' }]);
    const before = (await received()).length;
    await app.type('[data-testid=composer]', 'Which berths are free on Wednesday?');
    await app.click('[data-testid=send]');
    await until('the switcher on the first question', () => js(`return !!document.querySelector('${users} [data-testid=branch-switcher]')`));
    const asked = (await completions(before))[0].messages.filter((m) => m.role === 'user').map((m) => textOf(m).split('\n\nNow: ')[0]);
    if (JSON.stringify(asked) !== JSON.stringify(['Which berths are free on Wednesday?'])) throw new Error('the model was asked: ' + JSON.stringify(asked));
    const count = () => js(`return document.querySelector('[data-testid=branch-count]').textContent.trim()`);
    if ((await count()) !== '2 / 2') throw new Error('the switcher says ' + (await count()));
    await screenshot('07b-branch');
    await js(`document.querySelector('[data-testid=branch-prev]').click()`);
    await until('the first branch back whole', async () => (await assistantTexts()).some((t) => t.includes('Captain Nowak.')));
    if ((await count()) !== '1 / 2') throw new Error('after switching the switcher says ' + (await count()));
    if ((await assistantTexts()).some((t) => t.includes('Berths 2 and 5.'))) throw new Error('the edited branch is still shown');
  });

  await step('the embedded local model answers', async () => {
    const saved = await app.jsAsync(
      `const done = arguments[arguments.length - 1];
       const i = window.__TAURI_INTERNALS__;
       i.invoke('get_settings').then((s) => i.invoke('save_settings', { settings: { ...s, provider: 'local' } })).then(done, (e) => done({ error: e }));`,
    );
    if (saved.error) throw new Error('save_settings failed: ' + JSON.stringify(saved.error));
    await app.click('[data-testid=new-chat]');
    // Collect the model's load progress as the UI receives it.
    const listening = await app.jsAsync(`const done = arguments[arguments.length - 1];
      window.__loads = [];
      const i = window.__TAURI_INTERNALS__;
      i.invoke('plugin:event|listen', { event: 'model-load', target: { kind: 'Any' },
        handler: i.transformCallback((e) => window.__loads.push(e.payload.percent)) })
        .then(() => done(true), (e) => done({ error: String(e) }));`);
    if (listening !== true) throw new Error('cannot listen to model-load: ' + JSON.stringify(listening));
    const before = (await received()).length;
    await send('Greet me in five words.');
    await until('an answer from the local model', async () => {
      const texts = await assistantTexts();
      return texts.length > 0 && texts[texts.length - 1].trim().length > 0 && (await idle());
    }, 180000);
    if ((await received()).length !== before) throw new Error('the scripted server was called instead of the local model');
    const error = await js(`return [...document.querySelectorAll('[data-testid=message][data-role=assistant]')].pop().querySelector('[data-testid=note][data-tone=error]')?.innerText ?? ''`);
    if (error) throw new Error('the local model failed: ' + error);
    log('local model said: ' + JSON.stringify((await assistantTexts()).pop().slice(0, 200)));
    const loads = await js('return window.__loads');
    log(`model-load events: ${loads.length} (${loads.slice(0, 3).join(', ')} … ${loads.slice(-1)})`);
    if (!loads.length || loads[loads.length - 1] < 100) throw new Error('no complete load progress: ' + JSON.stringify(loads));
    if (loads.some((p, k) => k > 0 && p < loads[k - 1])) throw new Error('load progress went backwards: ' + JSON.stringify(loads));
    await screenshot('08-local-model');
  });

  await step('after a restart the conversation is there, in a window of the size it had', async () => {
    // The user made the window smaller.
    const main = xdo(display, 'search', '--name', '^Baton$').split('\n')[0];
    xdo(display, 'windowsize', main, '1000', '700');
    await until('the smaller window', async () => (await js(`return window.innerWidth`)) === 1000);
    await sleep(1000); // kept half a second after the last change
    await app.close();
    // A second launch while the first still runs hands over to it and
    // quits (single instance): wait for the first to be gone.
    const closedAt = Date.now();
    await until('the app to exit', () => {
      try {
        execFileSync('pgrep', ['-x', path.basename(APP).slice(0, 15)]);
        return false;
      } catch {
        return true;
      }
    }, 30000);
    log(`the app exited ${Date.now() - closedAt} ms after its window closed`);
    await app.open(READY);
    const size = await js(`return [window.innerWidth, window.innerHeight]`);
    if (size[0] !== 1000 || size[1] !== 700) throw new Error(`the window opened at ${size.join('×')}, not the 1000×700 it had`);
    await until('the saved conversation', () => js(`return [...document.querySelectorAll('[data-testid=session-title]')].some(e => e.textContent.trim() === 'Say hello')`));
    const id = await js(`return [...document.querySelectorAll('[data-testid=session-item]')].find(e => e.querySelector('[data-testid=session-title]')?.textContent.trim() === 'Say hello').dataset.id`);
    await app.click(`[data-testid=session-item][data-id="${id}"] button.open`);
    await until('its messages', async () => (await assistantTexts()).some((t) => t.includes('Hello from the scripted model')));
    const texts = await assistantTexts();
    if (!texts.some((t) => t.includes(PDF_PHRASE))) throw new Error('the later turns are missing: ' + JSON.stringify(texts));
    await screenshot('07-after-restart');
  });
} catch (e) {
  failures++;
  log(`FAIL setup: ${e.stack ?? e}`);
  for (const c of children) if (c.output) log(`--- ${c.label} ---\n${c.output.slice(-3000)}`);
} finally {
  await app.close();
  stopAll();
  fileServer.close();
  site.close();
  rmSync(tmp, { recursive: true, force: true });
}
if (failures) {
  log(`${failures} end-to-end step(s) failed; app log:\n${driver.output.slice(-4000)}`);
  process.exit(1);
}
log('all end-to-end steps passed');
