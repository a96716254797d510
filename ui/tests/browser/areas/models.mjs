// Models: first run, the embedded model loading, the catalog.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { lastAssistant, send, sel, test, waitDone } from './common.mjs';

test('model load: progress in the streaming placeholder and next to the provider in settings', async ({ page, out }) => {
  // Select the embedded (`local`) provider and save.
  await page.click(sel('open-settings'));
  await page.check(`${sel('provider-option')}[data-name="local"] input`);
  await page.click(sel('save-settings'));
  await page.waitForSelector(sel('settings-saved'));
  await page.click(sel('close-settings'));
  // (`null` = the providers file's default, which is `local` here.)
  assert.equal(await page.evaluate(() => window.__mock.providers.find((p) => p.selected).name), 'local');
  // Its model is not in memory yet: the first answer loads it (0→100 over ~600 ms).
  await page.evaluate(() => {
    window.__mock.simulateModelLoad(600);
    window.__seen = [];
    new MutationObserver(() => {
      const v = document.querySelector('[data-testid="model-load"]')?.getAttribute('aria-valuenow');
      if (v != null && window.__seen.at(-1) !== Number(v)) window.__seen.push(Number(v));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
  });
  await send(page, 'hello local model');
  const bar = page.locator(`${lastAssistant} ${sel('model-load')}`);
  await bar.waitFor();
  assert.equal(await bar.getAttribute('role'), 'progressbar');
  assert.match(await page.textContent(`${lastAssistant} .model-load`), /Loading the local model… \d+ %/);
  await page.screenshot({ path: join(out, 'model-load-chat.png') });
  await waitDone(page);
  const seen = await page.evaluate(() => window.__seen);
  assert.ok(seen.length >= 3, `several progress values seen: ${seen}`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `rising: ${seen}`);
  assert.ok(seen.every((v) => v >= 0 && v < 100), `0–99 while loading: ${seen}`);
  // Then the answer, and no progress line left.
  assert.equal(await page.locator(lastAssistant).locator('h2').textContent(), 'Summary');
  assert.equal(await page.locator(sel('model-load')).count(), 0);
  const loads = await page.evaluate(() => window.__mock.modelLoads);
  assert.ok(loads.every((l) => l.provider === 'local'));
  assert.deepEqual([loads[0].percent, loads.at(-1).percent], [0, 100]);
  // Already loaded: the next answer does not load again.
  await send(page, 'and again');
  await waitDone(page);
  assert.equal(await page.evaluate(() => window.__mock.modelLoads.length), loads.length);

  // Settings shows the load next to the entry named in the event.
  await page.click(sel('open-settings'));
  await page.waitForSelector(`${sel('provider-option')}[data-name="local"]`);
  const hint = page.locator(`${sel('provider-option')}[data-name="local"] ${sel('model-load-settings')}`);
  // The load above may still say "loaded" for a moment; then it goes.
  await hint.waitFor({ state: 'detached', timeout: 4000 });
  await page.evaluate(() => window.__mock.emitModelLoad('local', 42.4));
  await page.waitForFunction(() => document.querySelector('[data-testid="model-load-settings"]')?.textContent === 'loading 42 %');
  assert.equal(await page.locator(sel('model-load-settings')).count(), 1);
  await page.screenshot({ path: join(out, 'model-load-settings.png') });
  // Not streaming: nothing in the chat.
  assert.equal(await page.locator(sel('model-load')).count(), 0);
  await page.evaluate(() => window.__mock.emitModelLoad('local', 100));
  await page.waitForFunction(() => document.querySelector('[data-testid="model-load-settings"]')?.textContent === 'loaded');
  await hint.waitFor({ state: 'detached', timeout: 4000 });

  // Another dialect: no load at all.
  await page.check(`${sel('provider-option')}[data-name="my-ollama"] input`);
  await page.click(sel('save-settings'));
  await page.waitForSelector(sel('settings-saved'));
  await page.click(sel('close-settings'));
  const before = await page.evaluate(() => {
    window.__mock.simulateModelLoad(600);
    return window.__mock.modelLoads.length;
  });
  await send(page, 'hello ollama');
  await waitDone(page);
  assert.equal(await page.evaluate(() => window.__mock.modelLoads.length), before);
});

test('first run: the card says which provider Baton picked and why, opens settings, and stays dismissed', async ({ page, out }) => {
  await page.waitForSelector(sel('onboarding'));
  assert.match(await page.textContent(sel('onboarding')), /Baton picked local because no API key, model server or downloaded model was found/);
  await page.screenshot({ path: join(out, 'onboarding-1280x800-light.png') });
  await page.click(sel('onboarding-settings'));
  await page.waitForSelector(sel('models-settings'));
  await page.click(sel('close-settings'));
  await page.click(sel('onboarding-dismiss'));
  assert.equal(await page.locator(sel('onboarding')).count(), 0);
  await page.reload();
  await page.waitForSelector(sel('empty-state'));
  assert.equal(await page.locator(sel('onboarding')).count(), 0, 'dismissed for good');
});

test('models: the catalog with fit hints, a download with progress, Stop then Resume, Use and Delete; servers found here', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('catalog-model'));
  const item = (name) => `${sel('catalog-model')}[data-name="${name}"]`;
  assert.match(await page.textContent(sel('models-hardware')), /16\.0 GB memory · 8 cores · no GPU/);
  assert.match(await page.textContent(sel('local-server')), /ollama.*127\.0\.0\.1:11434.*ollama-llama3\.2:latest/);
  assert.equal(await page.textContent(`${item('big-one')} ${sel('model-fit')}`), 'Too big');
  assert.match(await page.textContent(`${item('big-one')}`), /No published SHA-256/);
  assert.equal((await page.textContent(`${item('qwen2.5-7b')} ${sel('model-pull')}`)).trim(), 'Resume (37%)');
  // A download shows its progress, and Stop keeps what arrived.
  await page.evaluate(() => { window.__mock.pullStepMs = 150; });
  await page.click(`${item('qwen2.5-1.5b')} ${sel('model-pull')}`);
  await page.waitForSelector(`${item('qwen2.5-1.5b')} ${sel('pull-progress')}`);
  await page.waitForFunction(() => Number(document.querySelector('[data-name="qwen2.5-1.5b"] [role="progressbar"]')?.getAttribute('aria-valuenow')) >= 20);
  await page.locator(sel('models-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-models-pulling.png') });
  await page.click(`${item('qwen2.5-1.5b')} ${sel('pull-stop')}`);
  await page.waitForSelector(`${item('qwen2.5-1.5b')} ${sel('model-problem')}`);
  assert.match(await page.textContent(`${item('qwen2.5-1.5b')} ${sel('model-problem')}`), /stopped at .* run it again to resume/);
  assert.match(await page.textContent(`${item('qwen2.5-1.5b')} ${sel('model-pull')}`), /Resume \(\d+%\)/);
  // Resumed to the end: a provider to use.
  await page.evaluate(() => { window.__mock.pullStepMs = 20; });
  await page.click(`${item('qwen2.5-1.5b')} ${sel('model-pull')}`);
  await page.waitForSelector(`${item('qwen2.5-1.5b')} ${sel('model-pulled')}`);
  const pulls = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'pull_model').length);
  assert.equal(pulls, 2);
  await page.click(`${item('qwen2.5-1.5b')} ${sel('model-use')}`);
  await page.waitForFunction(() => window.__mock.settings.provider === 'qwen2.5-1.5b');
  await page.waitForFunction(() => /In use: qwen2\.5-1\.5b/.test(document.querySelector('[data-testid="models-hardware"]')?.textContent ?? ''));
  assert.equal(await page.locator(`${item('qwen2.5-1.5b')} ${sel('model-use')}`).count(), 0, 'the one in use has no Use button');
  // Delete removes it (and its provider).
  await page.click(`${item('qwen2.5-1.5b')} ${sel('model-delete')}`);
  await page.waitForSelector(`${item('qwen2.5-1.5b')} ${sel('model-pull')}`);
  assert.equal(await page.evaluate(() => window.__mock.providers.some((p) => p.name === 'qwen2.5-1.5b')), false);
  assert.equal(await page.evaluate(() => window.__mock.settings.provider), null, 'the deleted provider is no longer the setting');
  // A failed download says why.
  await page.evaluate(() => { window.__mock.pullError = { code: 'download', message: 'qwen2.5-7b-instruct-q4_k_m.gguf arrived with SHA-256 00ff, not the published 65b8: the download is corrupt', details: null }; });
  await page.click(`${item('qwen2.5-7b')} ${sel('model-pull')}`);
  await page.waitForSelector(`${item('qwen2.5-7b')} ${sel('model-problem')}`);
  assert.match(await page.textContent(`${item('qwen2.5-7b')} ${sel('model-problem')}`), /not the published/);
  await page.locator(sel('models-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-models.png') });
});
