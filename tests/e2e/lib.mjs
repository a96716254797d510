// Helpers for driving the real desktop app: child processes, polling,
// a virtual display, tauri-driver and a minimal WebDriver client (plain
// fetch; no Selenium package needed for the dozen endpoints used).
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const t0 = Date.now();
export const log = (...m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...m);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `--key value` pairs of the command line. */
export function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) if (argv[i].startsWith('--')) out[argv[i].slice(2)] = argv[i + 1];
  return out;
}

/** Child processes started here, stopped by `stopAll`. */
export const children = [];

/** Starts a program, keeping its output for failure reports. */
export function start(cmd, argv, env = {}, name = cmd) {
  const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.label = name;
  child.output = '';
  child.stdout.on('data', (d) => (child.output += d));
  child.stderr.on('data', (d) => (child.output += d));
  children.push(child);
  return child;
}

export function stopAll() {
  for (const c of children.splice(0).reverse()) c.kill('SIGTERM');
}

/** Polls `fn` until it returns something truthy. */
export async function until(what, fn, timeout = 30000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what} (last: ${last})`);
}

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The display to use: $DISPLAY, else a fresh Xvfb. */
export async function ensureDisplay() {
  if (process.env.DISPLAY) return process.env.DISPLAY;
  const display = `:${100 + Math.floor(Math.random() * 800)}`;
  start('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {}, 'Xvfb');
  await sleep(500);
  return display;
}

/** Starts tauri-driver with `env` (inherited by the app it launches). */
export async function startDriver(env) {
  const port = await freePort();
  const driver = start('tauri-driver', ['--port', String(port)], env, 'tauri-driver');
  const url = `http://127.0.0.1:${port}`;
  await until('tauri-driver', async () => (await fetch(`${url}/status`)).ok, 20000);
  return { driver, url };
}

/** One WebDriver session on a Tauri app. */
export class App {
  constructor(driverUrl, application) {
    this.url = driverUrl;
    this.application = application;
  }

  async wd(method, url, body) {
    const r = await fetch(`${this.url}${url}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (!r.ok) throw new Error(`${method} ${url}: ${JSON.stringify(json.value ?? json).slice(0, 400)}`);
    return json.value;
  }

  /** Launches the app (with command-line `args`); resolves when `readyScript` returns true. */
  async open(readyScript, timeout = 60000, args = []) {
    const v = await this.wd('POST', '/session', {
      capabilities: { alwaysMatch: { browserName: 'wry', 'tauri:options': { application: this.application, args } } },
    });
    this.session = v.sessionId;
    await until('the app to be ready', () => this.js(readyScript), timeout);
  }

  async close() {
    if (!this.session) return;
    const s = this.session;
    this.session = undefined;
    await this.wd('DELETE', `/session/${s}`).catch(() => {});
  }

  js(script, ...args) {
    return this.wd('POST', `/session/${this.session}/execute/sync`, { script, args });
  }

  jsAsync(script, ...args) {
    return this.wd('POST', `/session/${this.session}/execute/async`, { script, args });
  }

  async find(css) {
    const v = await this.wd('POST', `/session/${this.session}/element`, { using: 'css selector', value: css });
    return Object.values(v)[0];
  }

  async click(css) {
    const el = await this.find(css);
    // Bring it out from under sticky headers and footers first.
    await this.js(`document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })`, css);
    return this.wd('POST', `/session/${this.session}/element/${el}/click`, {});
  }

  /** Empties an input field. */
  async clear(css) {
    return this.wd('POST', `/session/${this.session}/element/${await this.find(css)}/clear`, {});
  }

  async type(css, text) {
    return this.wd('POST', `/session/${this.session}/element/${await this.find(css)}/value`, { text });
  }

  async screenshot(dir, name) {
    const png = await this.wd('GET', `/session/${this.session}/screenshot`);
    writeFileSync(path.join(dir, `${name}.png`), Buffer.from(png, 'base64'));
    log(`screenshot ${name}.png`);
  }
}

/** Runs xdotool on `display`; its output. */
export function xdo(display, ...argv) {
  return execFileSync('xdotool', argv, { env: { ...process.env, DISPLAY: display } }).toString().trim();
}

/**
 * Watches the top-level windows of `display` being mapped and unmapped
 * (`xev` on the root window, line-buffered): `waitMap(id, since)` resolves
 * with the time (performance.now) window `id` was next mapped after `since`.
 */
export function watchMaps(display) {
  const xev = spawn('stdbuf', ['-oL', 'xev', '-root', '-event', 'substructure'], { env: { ...process.env, DISPLAY: display } });
  children.push(xev);
  xev.label = 'xev';
  const seen = [];
  const waiters = [];
  let buf = '';
  xev.stdout.on('data', (d) => {
    const at = performance.now();
    buf += d;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const l of lines) {
      const m = /^(MapNotify|UnmapNotify) event/.exec(l);
      if (m) seen.push({ kind: m[1], at, window: null });
      const w = /^\s+event 0x[0-9a-f]+, window (0x[0-9a-f]+)/.exec(l);
      if (w && seen.length && seen[seen.length - 1].window === null) seen[seen.length - 1].window = Number(w[1]);
    }
    for (const f of waiters.splice(0)) f();
  });
  const find = (kind, id, since) => seen.find((e) => e.kind === kind && e.window === id && e.at >= since);
  /** The first window mapped after `since` whose name matches `name`. */
  const firstNamed = (name, since) => {
    for (const e of seen) {
      if (e.kind !== 'MapNotify' || e.at < since || e.window === null) continue;
      try {
        if (name.test(execFileSync('xdotool', ['getwindowname', String(e.window)], { env: { ...process.env, DISPLAY: display } }).toString().trim())) return e;
      } catch {}
    }
    return null;
  };
  const wait = (kind, id, since, timeout) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`window ${id} was not ${kind === 'MapNotify' ? 'shown' : 'hidden'} within ${timeout} ms`)), timeout);
      const check = () => {
        const e = find(kind, id, since);
        if (e) {
          clearTimeout(timer);
          resolve(e.at);
        } else waiters.push(check);
      };
      check();
    });
  return {
    /** The first window named like regex `name` shown after `since`: `{ at, window }` (the window is found by its name after the fact). */
    waitNamed: (name, since, timeout = 10000) => until(`a window named ${name}`, () => firstNamed(name, since), timeout),
    waitMap: (id, since, timeout = 5000) => wait('MapNotify', id, since, timeout),
    waitUnmap: (id, since, timeout = 5000) => wait('UnmapNotify', id, since, timeout),
    stop: () => xev.kill('SIGTERM'),
  };
}

/**
 * Key press → window shown, `runs` times: presses `keys` with xdotool
 * (not waited for, so the clock starts before its process does) and waits
 * for window `id` to be mapped; `hide()` hides it again between runs.
 * Milliseconds, sorted.
 */
export async function pressToShown(display, maps, id, keys, hide, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawn('xdotool', ['key', keys], { env: { ...process.env, DISPLAY: display }, stdio: 'ignore' });
    times.push((await maps.waitMap(id, t0)) - t0);
    const t1 = performance.now();
    await hide();
    await maps.waitUnmap(id, t1);
    await sleep(150);
  }
  return times.sort((a, b) => a - b);
}

/** The `q` quantile (0–1) of sorted `xs`. */
export const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
