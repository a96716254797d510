// Research mode.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sel, test } from './common.mjs';

test('research mode: the search questions, each source as it is read, the cited report, saved as Word; stop ends a job', async ({ page, out }) => {
  await page.click(sel('research-open'));
  await page.waitForSelector(sel('research-panel'));
  assert.equal(await page.isDisabled(sel('research-start')), true, 'no question, no job');
  await page.fill(sel('research-question'), 'How long is the Velmar river and when was its city founded?');
  await page.click(sel('research-start'));
  await page.waitForSelector(sel('research-questions'));
  await page.waitForSelector(sel('research-report'));
  const sources = await page.locator(sel('research-source')).allTextContents();
  assert.equal(sources.length, 3);
  assert.match(sources[0], /The Velmar river at a glance\s+2 kept, 1 left out/);
  assert.match(sources[1], /ERR_NAME_NOT_RESOLVED/);
  assert.match(await page.textContent(sel('research-panel')), /Search “When was Velmar city founded\?” failed: SearXNG answered 502/);
  assert.match(await page.textContent(sel('research-report')), /412 km long and rises in the Ostra hills \[1\]/);
  assert.match(await page.textContent(sel('research-report')), /Sources/);
  assert.equal(await page.textContent(sel('research-summary')), '2 sources cited of 2 read · 3 claims kept, 1 left out · 5,120 tokens');
  await page.screenshot({ path: join(out, 'research-mode.png') });
  await page.click(sel('research-save-docx'));
  await page.waitForSelector(sel('research-saved'));
  assert.equal(
    await page.textContent(sel('research-saved')),
    'Saved to /home/user/Documents/Research/how-long-is-the-velmar-river-and-when.docx',
  );
  // A second job, stopped: said in words.
  await page.click(sel('research-start'));
  await page.waitForSelector(sel('research-stop'));
  await page.click(sel('research-stop'));
  await page.waitForSelector('[data-testid=research-panel] [data-testid=error]');
  assert.match(await page.textContent(sel('research-panel')), /the research was stopped/);
  await page.click(sel('research-close'));
  await page.waitForSelector(sel('composer'));
});

test('research settings: SearXNG needs its address, an API its key, both said in words; saved', async ({ page }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('research-settings'));
  await page.selectOption(sel('research-search'), 'searxng');
  await page.click(sel('research-settings-save'));
  await page.waitForSelector('[data-testid=research-settings] [data-testid=error]');
  assert.match(await page.textContent(sel('research-settings')), /SearXNG needs its address/);
  await page.fill(sel('research-searxng'), 'http://localhost:8888/');
  await page.click(sel('research-settings-save'));
  await page.waitForSelector(sel('research-settings-saved'));
  assert.equal(await page.inputValue(sel('research-searxng')), 'http://localhost:8888');
  await page.selectOption(sel('research-search'), 'brave');
  await page.click(sel('research-settings-save'));
  await page.waitForFunction(() => document.querySelector('[data-testid=research-settings]').textContent.includes('needs its API key'));
  await page.fill(sel('research-key'), 'BSA-test-key');
  await page.click(sel('research-settings-save'));
  await page.waitForSelector(sel('research-settings-saved'));
  assert.match(await page.textContent(sel('research-settings')), /set; paste a new one to replace it/);
  assert.equal(await page.inputValue(sel('research-key')), '', 'a key is never shown again');
});
