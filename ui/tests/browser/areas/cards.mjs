// Tool cards: diagrams, browser steps, workbook edits and their restore.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { lastAssistant, send, sel, test, waitDone } from './common.mjs';

const restoreCalls = (page) =>
  page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'restore_backup').map((c) => c.args));
const focused = (page) => page.evaluate(() => document.activeElement?.dataset.testid);

async function editWorkbook(page) {
  await page.evaluate(() => window.__mock.sheetEditNext());
  await send(page, 'Add shipping, tax and total columns to my budget');
  await waitDone(page);
  // The only save in the chat: it stays the same card while later answers come.
  return page.locator(sel('restore'));
}

test('diagrams: a mermaid block in an answer is drawn (source one click away); a broken one shows its source and the error', async ({ page, out }) => {
  await page.evaluate(() => {
    window.__mock.replyWith(
      'Here is the process:\n\n```mermaid\nflowchart LR\n  A[Order received] --> B[Ship parcel]\n```\n\nAnd this one is wrong:\n\n```mermaid\nflowchart LR\n  A[Start] -->\n```\n',
    );
  });
  await send(page, 'Draw the order process');
  await waitDone(page);
  const a = page.locator(lastAssistant);
  const figure = a.locator(sel('diagram'));
  await figure.waitFor({ timeout: 20000 });
  assert.equal(await figure.count(), 1);
  const labels = await figure.locator('svg').textContent();
  assert.ok(labels.includes('Order received') && labels.includes('Ship parcel'), labels);
  const box = await figure.locator('svg').boundingBox();
  assert.ok(box.width > 100 && box.height > 20, JSON.stringify(box));
  // The drawn diagram's source is hidden until asked for.
  const code = a.locator('.code-block').first();
  assert.equal(await code.isVisible(), false);
  const toggle = a.locator(sel('diagram-source'));
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  assert.equal(await code.isVisible(), true);
  assert.ok((await code.textContent()).includes('A[Order received]'));
  assert.equal(await toggle.textContent(), 'Hide source');
  // The broken one: its error, and its source still in view.
  const error = a.locator(sel('diagram-error'));
  assert.equal(await error.count(), 1);
  assert.match(await error.textContent(), /^This diagram could not be drawn: /);
  assert.equal(await a.locator('.code-block').nth(1).isVisible(), true);
  await a.screenshot({ path: join(out, 'diagrams.png') });
});

test('browser steps: each card shows the page it reached, what it did there, and a thumbnail of the page', async ({ page, out }) => {
  await page.evaluate(() => {
    const j = (v) => JSON.stringify(v, null, 2);
    // A thumbnail as the browser toolbox makes it: a small JPEG of the page.
    const c = document.createElement('canvas');
    c.width = 320;
    c.height = 200;
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, 320, 200);
    g.fillStyle = '#1a56db';
    g.fillRect(20, 120, 120, 36);
    g.fillStyle = '#111';
    g.font = 'bold 28px sans-serif';
    g.fillText('Sign up', 20, 60);
    const preview = c.toDataURL('image/jpeg', 0.6);
    window.__mock.replyWith('You are signed up for the newsletter.', [
      { type: 'toolStarted', id: 'web-1', name: 'navigate', arguments: j({ url: 'https://news.example.com/signup' }) },
      { type: 'toolFinished', id: 'web-1', name: 'navigate', result: j({ url: 'https://news.example.com/signup', title: 'Sign up', loaded: true }), isError: false, durationMs: 420, preview },
      { type: 'toolStarted', id: 'web-2', name: 'click', arguments: j({ target: 'e2' }) },
      { type: 'toolFinished', id: 'web-2', name: 'click', result: j({ target: 'e2', done: 'clicked "Sign up"', url: 'https://news.example.com/done', navigated: true }), isError: false, durationMs: 300 },
    ]);
  });
  await send(page, 'Sign me up for the newsletter');
  await waitDone(page);
  const steps = page.locator(`${lastAssistant} ${sel('tool-page')}`);
  assert.equal(await steps.count(), 2);
  assert.equal((await steps.nth(0).textContent()).trim(), 'Sign up');
  assert.equal(await steps.nth(0).getAttribute('title'), 'https://news.example.com/signup');
  assert.equal((await steps.nth(1).textContent()).trim(), 'clicked "Sign up" · https://news.example.com/done');
  // The step with a thumbnail shows it (the other has none); a click shows it larger.
  const thumbs = page.locator(`${lastAssistant} ${sel('tool-preview')}`);
  assert.equal(await thumbs.count(), 1);
  const img = thumbs.locator('img');
  assert.equal(await img.getAttribute('alt'), 'The page after navigate');
  assert.ok(await img.evaluate((i) => i.complete && i.naturalWidth === 320), 'the thumbnail is drawn');
  assert.equal(Math.round((await img.boundingBox()).width), 160);
  await thumbs.click();
  assert.equal(await thumbs.getAttribute('aria-pressed'), 'true');
  assert.equal(Math.round((await img.boundingBox()).width), 320);
  await page.locator(lastAssistant).screenshot({ path: join(out, 'browser-steps.png') });
});

test('workbook edit: the card shows the changed range as a labelled table (not saved yet, or saved by a later call); restore asks, then restores', async ({ page, out }) => {
  await page.evaluate(() => window.__mock.sheetEditNext({ save: false }));
  await send(page, 'Add shipping, tax and total columns to my budget');
  await waitDone(page);
  const a = page.locator(lastAssistant);
  // The edit's card: a table of the preview, visible with the card closed.
  const change = a.locator(sel('sheet-change'));
  assert.equal(await change.count(), 1);
  assert.equal(await a.locator(sel('tool-call')).evaluate((d) => d.open), false);
  assert.ok(await change.locator(sel('sheet-preview')).isVisible());
  assert.equal(await change.locator(sel('sheet-changed')).textContent(), 'Sales · F1:H4');
  assert.equal(await change.locator(sel('sheet-unsaved')).textContent(), 'not saved yet');
  const table = await change.locator(sel('sheet-preview')).evaluate((t) => ({
    head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
    rowHeaders: [...t.querySelectorAll('tbody th[scope="row"]')].length,
  }));
  assert.deepEqual(table.head, ['', 'F', 'G', 'H']);
  assert.deepEqual(table.rows, [
    ['1', 'Shipping', 'Tax', 'Total'],
    ['2', '4.5', '0.9', '=B2+F2+G2'],
    ['3', '3', '0.6', '=B3+F3+G3'],
    ['4', '12', '2.4', '=B4+F4+G4'],
  ]);
  assert.equal(table.rowHeaders, 4);
  assert.equal(await page.locator(sel('restore')).count(), 0, 'nothing was saved over');
  await a.screenshot({ path: join(out, 'workbook-unsaved-card.png') });

  // Edited and saved in one answer: the edit is marked saved; the save offers a restore.
  await page.evaluate(() => window.__mock.sheetEditNext());
  await send(page, 'Do it again and save it');
  await waitDone(page);
  assert.equal(await a.locator(sel('tool-call')).count(), 2);
  assert.equal(await a.locator(sel('sheet-unsaved')).count(), 0);
  assert.equal(await a.locator(sel('sheet-saved')).textContent(), 'saved');
  const restore = page.locator(sel('restore'));
  assert.equal(await restore.count(), 1, 'only the save that replaced a file offers a restore');
  assert.equal(await a.locator(sel('restore')).count(), 1);
  assert.match(await restore.textContent(), /Restore previous version.*budget\.xlsx\.001\.bak/s);
  await restore.locator(sel('restore-backup')).click();
  const confirm = restore.locator(sel('restore-confirm'));
  assert.equal((await confirm.textContent()).trim(), 'Restore — the current version is kept as a backup');
  assert.equal(await focused(page), 'restore-confirm');
  assert.deepEqual(await restoreCalls(page), [], 'nothing restored before the second click');
  await page.screenshot({ path: join(out, 'workbook-change-1280x800-light.png') });
  await a.screenshot({ path: join(out, 'workbook-change-card.png') });
  await confirm.click();
  await page.waitForSelector(`${lastAssistant} ${sel('restore')}[data-phase="done"]`);
  assert.deepEqual(await restoreCalls(page), [{ path: '/budget.xlsx', backup: '/budget.xlsx.001.bak' }]);
  assert.equal(
    (await restore.locator(sel('restore-outcome')).textContent()).replace(/\s+/g, ' ').trim(),
    'Restored /budget.xlsx from /budget.xlsx.001.bak. The version it replaced is kept as /budget.xlsx.002.bak.',
  );
  assert.equal(await focused(page), 'restore-outcome');
  assert.equal(await restore.locator('button').count(), 0, 'restored once: no button left');
  await a.screenshot({ path: join(out, 'workbook-restored-card.png') });
});

test('workbook restore: Cancel and Esc back out; a failure and a running turn are told in the card; a saved chat still shows it', async ({ page, out }) => {
  const restore = await editWorkbook(page);
  await restore.locator(sel('restore-backup')).click();
  await restore.locator(sel('restore-cancel')).click();
  assert.equal(await focused(page), 'restore-backup');
  await page.keyboard.press('Enter');
  assert.equal(await focused(page), 'restore-confirm');
  await page.keyboard.press('Escape');
  assert.equal(await restore.getAttribute('data-phase'), 'idle');
  assert.equal(await focused(page), 'restore-backup');
  assert.deepEqual(await restoreCalls(page), []);
  // A failure: said in plain words in the card; it can be tried again.
  await page.evaluate(() => {
    window.__mock.restoreError = { code: 'io', message: 'cannot restore `/budget.xlsx`: Permission denied (os error 13)', details: null };
  });
  await restore.locator(sel('restore-backup')).click();
  await restore.locator(sel('restore-confirm')).click();
  const error = restore.locator(sel('restore-error'));
  await error.waitFor();
  assert.equal((await error.textContent()).trim(), 'Could not restore: cannot restore `/budget.xlsx`: Permission denied (os error 13)');
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.equal(await restore.getAttribute('data-phase'), 'idle');
  await page.screenshot({ path: join(out, 'workbook-restore-failed-1280x800-dark.png') });
  // While another answer is being written, the file is not touched.
  await page.evaluate(() => window.__mock.streamTokens(4000, { perStep: 2, pace: 20 }));
  await send(page, 'write a lot');
  await page.waitForSelector(sel('stop'));
  await restore.locator(sel('restore-backup')).click();
  await restore.locator(sel('restore-confirm')).click();
  await page.waitForFunction(() => /still being written/.test(document.querySelector('[data-testid="restore-error"]')?.textContent ?? ''));
  await page.click(sel('stop'));
  await waitDone(page);
  await restore.locator(sel('restore-backup')).click();
  await restore.locator(sel('restore-confirm')).click();
  await page.waitForSelector(`${sel('restore')}[data-phase="done"]`);
  assert.equal(await restore.locator(sel('restore-error')).count(), 0, 'the old failure is gone');
  assert.equal((await restoreCalls(page)).length, 3);
  // The saved conversation shows the preview and the restore again.
  await page.locator(sel('session-item'), { hasText: 'Rust ownership' }).locator('button.open').click();
  await page.waitForSelector(`${sel('message')}:has-text("single owner")`);
  await page.locator(sel('session-item'), { hasText: 'Add shipping' }).locator('button.open').click();
  await page.waitForSelector(sel('sheet-preview'));
  assert.equal(await page.locator(`${sel('sheet-preview')} tbody tr`).count(), 4);
  assert.equal(await page.locator(sel('restore-backup')).count(), 1);
}, { colorScheme: 'dark' });

test('citations: an answer from the workspace shows its sources as chips; a chip opens the passage and the file', async ({ page, out }) => {
  await send(page, 'What did we pay the harbour pilots?');
  await waitDone(page);
  const a = page.locator(lastAssistant);
  const chips = a.locator(sel('citation-chip'));
  assert.equal(await chips.count(), 1);
  assert.match(await chips.first().textContent(), /1\s*harbour\.pdf\s*· page 3 · Costs/);
  // The citation to a passage never given was taken out of the answer, and said so.
  assert.doesNotMatch(await a.textContent(), /\[4\]/);
  assert.match(await a.locator(sel('citations-dropped')).textContent(), /One citation to a passage the model was never given was taken out/);
  await chips.first().click();
  const preview = a.locator(sel('citation-preview'));
  assert.match(await preview.locator('mark').textContent(), /Pilotage fees for March came to 4,200 EUR/);
  assert.equal(await chips.first().getAttribute('aria-expanded'), 'true');
  await page.screenshot({ path: join(out, 'citations.png') });
  await preview.locator(sel('citation-open')).click();
  const opened = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'open_workspace_file').map((c) => c.args));
  assert.deepEqual(opened, [{ path: '/harbour.pdf' }]);
  // Reopened later, the answer still shows where it came from.
  await page.locator(sel('session-item'), { hasText: 'Rust ownership' }).locator('button.open').click();
  await page.locator(sel('session-item'), { hasText: 'harbour pilots' }).locator('button.open').click();
  const reopened = page.locator(lastAssistant).locator(sel('citation-chip'));
  await reopened.first().waitFor();
  assert.match(await reopened.first().textContent(), /1\s*harbour\.pdf\s*· page 3 · Costs/);
});

test('memory: a fact the model kept is said under its call, and Undo forgets it', async ({ page, out }) => {
  await send(page, 'Please remember that I prefer metric units.');
  await waitDone(page);
  const line = page.locator(lastAssistant).locator(sel('remembered'));
  assert.match(await line.textContent(), /Remembered for later chats: “Prefers metric units”/);
  assert.ok(await page.evaluate(() => window.__mock.memories.some((m) => m.id === 'm0badc0de')));
  await page.screenshot({ path: join(out, 'remembered.png') });
  await line.locator(sel('remembered-undo')).click();
  await line.locator('text=Forgotten').waitFor();
  assert.ok(!(await page.evaluate(() => window.__mock.memories.some((m) => m.id === 'm0badc0de'))));
});
