// The composer: edit-and-resend, regenerate, attachments.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { send, sel, test, waitDone } from './common.mjs';

test('edit-and-resend and regenerate', async ({ page }) => {
  await send(page, 'first question');
  await waitDone(page);
  await page.click(sel('edit-message'));
  assert.equal(await page.inputValue(sel('composer')), 'first question');
  await page.waitForSelector(sel('editing-banner'));
  await page.fill(sel('composer'), 'edited question');
  await page.press(sel('composer'), 'Enter');
  await waitDone(page);
  const reqs = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request));
  // Sent as an edit of user message 0 (a new branch), not as replaceLast.
  assert.equal(reqs.at(-1).replaceLast, false);
  assert.equal(reqs.at(-1).edit, 0);
  assert.equal(reqs.at(-1).text, 'edited question');
  assert.equal(await page.locator(`${sel('message')}[data-role="user"]`).count(), 1);
  await page.click(sel('regenerate'));
  await waitDone(page);
  assert.equal(await page.locator(`${sel('message')}[data-role="assistant"]`).count(), 1);
  assert.ok(await page.evaluate(() => window.__mock.calls.some((c) => c.cmd === 'regenerate')));
});

test('attachments: drop zone, converting → ready, skipped reason, remove, send ids', async ({ page, out }) => {
  // Drag highlight (DOM fallback in the mock build).
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['x'], 'a.txt', { type: 'text/plain' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
  });
  await page.waitForSelector(sel('dropzone'));
  await page.screenshot({ path: join(out, 'dropzone-1280x800-light.png') });
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['x'], 'a.txt', { type: 'text/plain' }));
    window.dispatchEvent(new DragEvent('dragleave', { dataTransfer: dt, bubbles: true }));
  });
  await page.waitForSelector(sel('dropzone'), { state: 'detached' });

  // What Rust emits after a drop.
  await page.evaluate(() =>
    window.__mock.emitAttachments([
      { id: 'x1', name: 'report.pdf', size: 245760, state: { kind: 'converting' } },
      { id: 'x2', name: 'setup.exe', size: 1048576, state: { kind: 'converting' } },
      { id: 'x3', name: 'notes.md', size: 2048, state: { kind: 'converting' } },
    ]),
  );
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="attachment-chip"][data-state="converting"]').length === 3);
  assert.equal(await page.locator(`${sel('attachment-chip')} .spinner`).count(), 3);
  assert.equal(await page.isDisabled(sel('send')), true);
  await page.evaluate(() =>
    window.__mock.emitAttachments([
      { id: 'x1', name: 'report.pdf', size: 245760, state: { kind: 'ready', format: 'PDF', chars: 5000, pages: 4 } },
      { id: 'x2', name: 'setup.exe', size: 1048576, state: { kind: 'skipped', reason: 'binary file, no text to read' } },
      { id: 'x3', name: 'notes.md', size: 2048, state: { kind: 'ready', format: 'Markdown', chars: 900, pages: null } },
    ]),
  );
  const ready = page.locator(`${sel('attachment-chip')}[data-id="x1"]`);
  await page.waitForSelector(`${sel('attachment-chip')}[data-id="x1"][data-state="ready"]`);
  assert.equal(await ready.locator(sel('attachment-detail')).textContent(), 'PDF · 240 KB · 4 pages');
  const skipped = page.locator(`${sel('attachment-chip')}[data-id="x2"]`);
  assert.equal(await skipped.getAttribute('data-state'), 'skipped');
  assert.match(await skipped.textContent(), /binary file, no text to read/);
  assert.match(await skipped.getAttribute('title'), /binary file/);
  await page.screenshot({ path: join(out, 'attachments-1280x800-light.png') });
  // Remove one.
  await page.click(`${sel('attachment-chip')}[data-id="x3"] ${sel('remove-attachment')}`);
  await page.waitForFunction(() => !document.querySelector('[data-testid="attachment-chip"][data-id="x3"]'));
  assert.ok(await page.evaluate(() => window.__mock.calls.some((c) => c.cmd === 'remove_attachment' && c.args.id === 'x3')));
  // Send carries ready + skipped ids, then the chips clear.
  await send(page, 'summarize the report');
  await waitDone(page);
  const req = await page.evaluate(() => window.__mock.calls.find((c) => c.cmd === 'send_message').args.request);
  assert.deepEqual(req.attachmentIds, ['x1', 'x2']);
  assert.equal(await page.locator(sel('attachment-chip')).count(), 0);
  assert.match(await page.textContent(`${sel('message')}[data-role="user"]`), /report\.pdf/);
  // Paperclip: dialog → attach_paths → converting → ready.
  await page.click(sel('attach'));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="attachment-chip"]').length === 2);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="attachment-chip"][data-state="ready"]').length === 2);
});
