// The memory figure of a long session: proportional memory (PSS) of the
// desktop app and its WebKit processes idle right after start, against idle
// after MINUTES of use (new chats answered with streamed Markdown, chats
// switched, settings opened, the quick window used), the window shown both
// times and left alone for a minute before each reading. Goal: ≤ 1.2×.
//
//   node tests/e2e/soak.mjs --app PATH --scripted PATH [--minutes 60] [--pause-seconds 20] [--idle-seconds 60]
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, ensureDisplay, freePort, log, parseArgs, sleep, start, startDriver, stopAll, until } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const APP = path.resolve(args.app);
const minutes = Number(args.minutes ?? 60);
const IDLE_MS = Number(args['idle-seconds'] ?? 60) * 1000;
// Between rounds, as a person reads the answer.
const PAUSE_MS = Number(args['pause-seconds'] ?? 20) * 1000;
const READY = `return !!document.querySelector('[data-testid=composer]')`;

const tmp = mkdtempSync(path.join(tmpdir(), 'baton-soak-'));
const llmPort = await freePort();
start(path.resolve(args.scripted), ['--port', String(llmPort)], {}, 'scripted-llm');
const LLM = `http://127.0.0.1:${llmPort}`;
await until('the scripted server', async () => (await fetch(`${LLM}/v1/models`)).ok);
const config = path.join(tmp, 'config');
for (const d of [config, path.join(tmp, 'data'), path.join(tmp, 'home'), path.join(tmp, 'workspace')]) mkdirSync(d, { recursive: true });
writeFileSync(
  path.join(config, 'providers.json'),
  JSON.stringify({ default: 'scripted', providers: [{ name: 'scripted', dialect: 'openai', endpoint: `${LLM}/v1`, model: 'scripted-model' }] }),
);
writeFileSync(path.join(config, 'setup.json'), JSON.stringify({ provider: 'scripted', workspace: path.join(tmp, 'workspace'), skipIndexingOnStartup: true }));
const env = {
  DISPLAY: await ensureDisplay(),
  BATON_CONFIG_DIR: config,
  BATON_DATA_DIR: path.join(tmp, 'data'),
  HOME: path.join(tmp, 'home'),
  XDG_CONFIG_HOME: path.join(tmp, 'home', '.config'),
};
const { url } = await startDriver(env);
const app = new App(url, APP);
const js = (s, ...a) => app.js(s, ...a);

/** Proportional memory (MiB) of the processes running `bin` and their descendants, in all and by program. */
function pss(bin) {
  const procs = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
        return [{ pid, ppid: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1], exe }];
      } catch {
        return [];
      }
    });
  const tree = new Set(procs.filter((p) => p.exe === bin).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) (tree.add(p.pid), (grew = true));
  }
  let kib = 0;
  const parts = [];
  for (const pid of tree) {
    try {
      const k = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      kib += k;
      parts.push(`${path.basename(procs.find((p) => p.pid === pid).exe)} ${(k / 1024).toFixed(0)}`);
    } catch {}
  }
  return { mib: kib / 1024, parts: parts.join(', ') };
}
const pssMiB = (bin) => {
  const m = pss(bin);
  log(`PSS ${m.mib.toFixed(0)} MiB: ${m.parts}`);
  return m.mib;
};

const ANSWER = (i) =>
  `## Answer ${i}\n\nHere is what I found, with a table and some code.\n\n| Item | Value |\n|---|---|\n| a | ${i} |\n| b | ${i * 2} |\n\n` +
  '```python\nfor n in range(10):\n    print(n * n)\n```\n\n' +
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(12);

/** One round of use: a new chat answered, sometimes settings, the quick window, an older chat. */
async function use(i) {
  await fetch(`${LLM}/_control/script`, { method: 'POST', body: JSON.stringify([{ kind: 'reply', text: ANSWER(i), textPieces: 24, eventDelayMs: 15 }]) });
  await app.click('[data-testid=new-chat]');
  await app.type('[data-testid=composer]', `Question ${i}: summarise the numbers`);
  await app.click('[data-testid=send]');
  await until('the answer', () => js(`return [...document.querySelectorAll('[data-testid=message][data-role=assistant]')].some(m => m.textContent.includes('Answer ${i}'))`), 30000);
  await until('the turn to end', () => js(`return !document.querySelector('[data-testid=stop]')`), 30000);
  if (i % 5 === 0) {
    await app.click('[data-testid=open-settings]');
    await sleep(300);
    await app.click('[data-testid=close-settings]');
  }
  if (i % 3 === 0) {
    await js(`return window.__TAURI_INTERNALS__.invoke('show_quick_window')`);
    await sleep(200);
    await js(`return window.__TAURI_INTERNALS__.invoke('hide_quick_window')`);
  }
  if (i > 2) await js(`document.querySelectorAll('[data-testid=session-item]')[2]?.click()`);
  await sleep(PAUSE_MS);
}

try {
  await app.open(READY, 60000);
  await sleep(IDLE_MS);
  const before = pssMiB(APP);
  log(`right after start, idle: PSS ${before.toFixed(0)} MiB`);
  const end = Date.now() + minutes * 60_000;
  let rounds = 0;
  while (Date.now() < end) {
    await use(++rounds);
    if (rounds % 20 === 0) log(`${rounds} rounds: PSS ${pssMiB(APP).toFixed(0)} MiB`);
  }
  await app.click('[data-testid=new-chat]');
  await sleep(IDLE_MS);
  const after = pssMiB(APP);
  log(`after ${minutes} min of use (${rounds} chats answered), idle: PSS ${after.toFixed(0)} MiB`);
  console.log(
    `memory after ${minutes} min of use against right after start (PSS of app + WebKit, idle ${IDLE_MS / 1000} s): ` +
      `${after.toFixed(0)} MiB vs ${before.toFixed(0)} MiB → ${(after / before).toFixed(2)}× (goal ≤ 1.2×; ${rounds} chats)`,
  );
  await app.close();
} finally {
  stopAll();
  rmSync(tmp, { recursive: true, force: true });
}
