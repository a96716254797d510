// Browser tests of the mock build (dist-mock/) in Debian's Chromium via
// playwright-core. Usage: node tests/browser/run.mjs [name-filter]
// Exit code 1 if any test fails. Screenshots go to test-results/.
import { chromium } from 'playwright-core';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { serve } from './server.mjs';
import { tests } from './tests.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const uiDir = join(here, '..', '..');
const dist = join(uiDir, 'dist-mock');
const out = join(uiDir, 'test-results');
const filter = process.argv[2] ?? '';

if (!existsSync(join(dist, 'mock.html'))) {
  console.error('dist-mock/ is missing: run `npm run build:mock` first.');
  process.exit(2);
}
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`Chromium not found at ${executablePath} (apt-get install -y chromium).`);
  process.exit(2);
}
await mkdir(out, { recursive: true });
// Failure screenshots of earlier runs would mislead: only this run's stay.
for (const f of await readdir(out)) if (f.startsWith('FAILED-')) await rm(join(out, f));

const server = await serve(dist);
const browser = await chromium.launch({
  executablePath,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

let failed = 0;
let passed = 0;
const t0 = Date.now();
/** Runs test `t` once; whether it passed. `retry` marks a first try that
 * will be repeated, so its failure is reported as such. */
async function runOnce(t, retry) {
  const context = await browser.newContext({
    viewport: t.viewport ?? { width: 1280, height: 800 },
    colorScheme: t.colorScheme ?? 'light',
    locale: t.locale ?? 'en-US',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  // The webview has no network: fail on any request that leaves the test server.
  const external = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(server.url) || u.startsWith('data:')) return route.continue();
    external.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const started = Date.now();
  try {
    await page.goto(server.url + (t.hash ?? ''));
    // Every page kind has a composer but the push-to-talk overlay.
    await page.waitForSelector(t.ready ?? '[data-testid="composer"]');
    await t.run({ page, out, url: server.url });
    if (external.length) throw new Error(`requests left the app: ${external.join(', ')}`);
    const bad = errors.filter((e) => !t.allowErrors?.some((re) => re.test(e)));
    if (bad.length) throw new Error(`page errors: ${bad.join(' | ')}`);
    console.log(`✓ ${t.name} (${Date.now() - started} ms)`);
    return true;
  } catch (e) {
    const mark = retry ? '↻' : '✗';
    console.log(`${mark} ${t.name} (${Date.now() - started} ms)\n    ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n    ')}`);
    if (retry) {
      console.log('    (a performance figure on this noisy machine: measured once more)');
      return false;
    }
    try {
      await page.screenshot({ path: join(out, `FAILED-${t.name.replace(/\W+/g, '_')}.png`) });
    } catch {}
  } finally {
    await context.close();
  }
  return false;
}

for (const t of tests) {
  if (filter && !t.name.includes(filter)) continue;
  // Performance tests get a second try: a real regression fails both, a
  // burst of noise from this 2-core machine does not.
  let ok = await runOnce(t, t.name.startsWith('perf:'));
  if (!ok && t.name.startsWith('perf:')) ok = await runOnce(t, false);
  if (ok) passed++;
  else failed++;
}
await browser.close();
await server.close();
console.log(`\nbrowser tests: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(failed ? 1 : 0);
