// Team mode.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sel, test } from './common.mjs';

test('team mode: the plan, each part, a review sent back and a revision, then the answer; stop ends a run', async ({ page, out }) => {
  await page.click(sel('team-open'));
  await page.waitForSelector(sel('team-panel'));
  await page.fill(sel('team-prompt'), 'Compare reports A and B and recommend one');
  await page.click(sel('team-start'));
  await page.waitForSelector(sel('team-part'));
  assert.equal(await page.locator(sel('team-part')).count(), 2);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=team-part-status]')].some((e) => e.textContent.includes('revising')));
  await page.waitForSelector(sel('team-answer'));
  const reviews = await page.locator(sel('team-review')).allTextContents();
  assert.deepEqual(reviews.slice(0, 2), ['assistant asks for changes: Give the figure.', 'assistant approved: Good.']);
  assert.match(await page.textContent(sel('team-answer')), /Recommendation:/);
  assert.equal(await page.textContent(sel('team-tokens')), '1,234 tokens');
  await page.screenshot({ path: join(out, 'team-mode.png') });
  // A second run, stopped: the panel says so.
  await page.click(sel('team-start'));
  await page.waitForSelector(sel('team-stop'));
  await page.click(sel('team-stop'));
  await page.waitForSelector(sel('team-error'));
  assert.equal(await page.textContent(sel('team-error')), 'cancelled');
  await page.click(sel('team-close'));
  await page.waitForSelector(sel('composer'));
});
