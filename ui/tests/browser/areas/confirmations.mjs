// Confirmation cards: the exact action, allowed or not, by mouse and keyboard.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { lastAssistant, send, sel, test, waitDone } from './common.mjs';

const NOTE_ARGS = '{\n  "url": "http://127.0.0.1:8080/_sink/notes",\n  "text": "Lunch moved to 1 pm"\n}';
const confirmCalls = (page) =>
  page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'answer_confirmation').map((c) => c.args));

async function askConfirmation(page, opts = {}) {
  await page.evaluate(
    (o) => window.__mock.confirmNext({ tool: 'Diagnostics.post_note', arguments: o.args, text: 'I posted the note.', deniedText: 'All right, I did not post it.', ...o.extra }),
    { args: opts.args ?? NOTE_ARGS, extra: opts },
  );
  await send(page, 'Post a note that lunch moved to 1 pm');
  const card = page.locator(`${lastAssistant} ${sel('confirmation-card')}`);
  await card.waitFor();
  return card;
}

test('confirmation: the card shows the exact action; Allow answers (id, true), then the answer follows', async ({ page, out }) => {
  const card = await askConfirmation(page, { notice: 'notes.txt was cut to 60,000 characters.' });
  const id = await card.getAttribute('data-id');
  assert.match(id, /^confirm_\d+$/);
  assert.equal(await card.getAttribute('data-state'), 'waiting');
  assert.match(await card.locator('h3').textContent(), /Baton wants to send something off this computer/);
  assert.equal(await card.locator(sel('confirm-tool')).textContent(), 'Diagnostics.post_note');
  assert.equal(await card.locator(sel('confirm-arguments')).textContent(), NOTE_ARGS);
  assert.equal(await card.locator(sel('confirm-action')).count(), 0, 'no words when the tool has none');
  // Long arguments scroll inside the card instead of stretching it.
  assert.deepEqual(await card.locator(sel('confirm-arguments')).evaluate((e) => [getComputedStyle(e).overflowY, getComputedStyle(e).maxHeight]), ['auto', '240px']);
  // The turn waits: still streaming, the tool still running, Stop offered.
  await page.waitForTimeout(300);
  assert.equal(await page.locator(lastAssistant).getAttribute('data-streaming'), 'true');
  assert.equal(await page.locator(`${lastAssistant} ${sel('tool-call')}`).getAttribute('data-status'), 'running');
  assert.equal(await page.locator(sel('stop')).count(), 1);
  assert.deepEqual(await confirmCalls(page), []);
  // The notice is a note line of its own, not part of the answer.
  assert.equal(await page.locator(`${lastAssistant} ${sel('notice')}`).textContent(), 'notes.txt was cut to 60,000 characters.');
  assert.ok(await card.locator(sel('confirm-allow')).isEnabled());
  assert.ok(await card.locator(sel('confirm-deny')).isEnabled());
  await page.screenshot({ path: join(out, 'confirmation-1280x800-light.png') });
  await card.screenshot({ path: join(tmpdir(), 'baton-confirmation-card.png') });

  await card.locator(sel('confirm-allow')).click();
  assert.deepEqual(await confirmCalls(page), [{ id, approved: true }]);
  await page.waitForSelector(`${sel('confirmation-card')}[data-state="allowed"]`);
  assert.match(await card.locator(sel('confirm-outcome')).textContent(), /^\s*Allowed\s*$/);
  assert.ok(await card.locator(sel('confirm-allow')).isDisabled());
  assert.ok(await card.locator(sel('confirm-deny')).isDisabled());
  // Focus stays in the card (on the outcome), not lost to the page.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'confirm-outcome');
  await waitDone(page);
  assert.match(await page.locator(lastAssistant).textContent(), /I posted the note\./);
  assert.equal(await page.locator(`${lastAssistant} ${sel('tool-call')}`).getAttribute('data-status'), 'ok');
  assert.equal(await card.getAttribute('data-state'), 'allowed');
  assert.ok(await card.locator(sel('confirm-allow')).isDisabled());
  await page.screenshot({ path: join(out, 'confirmation-allowed-1280x800-light.png') });
  assert.equal((await confirmCalls(page)).length, 1);
});

test("confirmation: Don't allow by keyboard answers (id, false) and shows Not allowed", async ({ page, out }) => {
  const card = await askConfirmation(page);
  const id = await card.getAttribute('data-id');
  // Reach the buttons with Tab: arguments (scrollable), Allow, Don't allow.
  await card.locator(sel('confirm-arguments')).focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'confirm-allow');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'confirm-deny');
  await page.keyboard.press('Enter');
  assert.deepEqual(await confirmCalls(page), [{ id, approved: false }]);
  await page.waitForSelector(`${sel('confirmation-card')}[data-state="denied"]`);
  assert.match(await card.locator(sel('confirm-outcome')).textContent(), /^\s*Not allowed\s*$/);
  assert.ok(await card.locator(sel('confirm-allow')).isDisabled());
  assert.ok(await card.locator(sel('confirm-deny')).isDisabled());
  await waitDone(page);
  assert.match(await page.locator(lastAssistant).textContent(), /I did not post it\./);
  assert.equal(await page.locator(`${lastAssistant} ${sel('tool-call')}`).getAttribute('data-status'), 'error');
  await page.screenshot({ path: join(out, 'confirmation-denied-1280x800-dark.png') });
}, { colorScheme: 'dark' });

test('confirmation: Stop while it waits ends the turn and the card shows Not allowed', async ({ page }) => {
  const card = await askConfirmation(page);
  await page.click(sel('stop'));
  await waitDone(page);
  assert.equal(await card.getAttribute('data-state'), 'denied');
  assert.match(await card.locator(sel('confirm-outcome')).textContent(), /Not allowed/);
  assert.ok(await card.locator(sel('confirm-allow')).isDisabled());
  assert.deepEqual(await confirmCalls(page), []);
  assert.doesNotMatch(await page.locator(lastAssistant).textContent(), /I posted the note|did not post it/);
});

test('confirmation: an e-mail is shown as the message with Send and Don\'t send', async ({ page, out }) => {
  const args = JSON.stringify({ to: ['Bob <bob@example.org>'], cc: ['carol@example.org'], subject: 'Q1 report', body: 'Hi Bob,\n\nthe report is attached.', attachments: ['/reports/q1.pdf'] }, null, 2);
  const card = await askConfirmation(page, { tool: 'MailTool.send_email', args, text: 'Sent it to Bob.' });
  assert.equal(await card.locator('h3').textContent(), 'Baton wants to send this e-mail');
  assert.equal(await card.locator(sel('mail-to')).textContent(), 'Bob <bob@example.org>');
  assert.equal(await card.locator(sel('mail-cc')).textContent(), 'carol@example.org');
  assert.equal(await card.locator(sel('mail-subject')).textContent(), 'Q1 report');
  assert.equal(await card.locator(sel('mail-attachments')).textContent(), '/reports/q1.pdf');
  assert.equal(await card.locator(sel('mail-body')).textContent(), 'Hi Bob,\n\nthe report is attached.');
  assert.equal(await card.locator(sel('confirm-allow')).textContent(), 'Send');
  assert.equal(await card.locator(sel('confirm-deny')).textContent(), "Don't send");
  // The exact call is one click away.
  assert.ok(!(await card.locator(sel('confirm-arguments')).isVisible()));
  await card.locator('summary').click();
  assert.equal(await card.locator(sel('confirm-arguments')).textContent(), args);
  await card.screenshot({ path: join(out, 'confirmation-mail.png') });
  const id = await card.getAttribute('data-id');
  await card.locator(sel('confirm-allow')).click();
  assert.deepEqual(await confirmCalls(page), [{ id, approved: true }]);
  await page.waitForSelector(`${sel('confirmation-card')}[data-state="allowed"]`);
  assert.match(await card.locator(sel('confirm-outcome')).textContent(), /Send allowed/);
  await waitDone(page);
  assert.match(await page.locator(lastAssistant).textContent(), /Sent it to Bob\./);
});

// A tool result that changed a workbook previews the changed range in its
// card; a save that replaced a file offers "Restore previous version",
// confirmed in the card, through restore_backup.

test('confirmation: a click is shown as what it will really do, with the exact call below', async ({ page, out }) => {
  const action = 'Click the button "Delete account" on https://shop.example/settings\nIt sends the form to https://shop.example/account/delete (POST)';
  const card = await askConfirmation(page, { tool: 'WebTool.click', args: '{\n  "target": "e7"\n}', action });
  assert.equal(await card.locator(sel('confirm-action')).textContent(), action);
  assert.equal(await card.locator(sel('confirm-tool')).textContent(), 'WebTool.click');
  await card.screenshot({ path: join(out, 'confirmation-click.png') });
  await card.locator(sel('confirm-deny')).click();
  await waitDone(page);
});

test('confirmation: a reply says whom it really goes to, and warns when Reply-To is not the sender', async ({ page, out }) => {
  const args = JSON.stringify({ id: 'INBOX:42', body: 'Here it is.', reply_all: false }, null, 2);
  const action = 'Reply to thief@evil.example\nWarning: the message is from ana@example.org, but it asks for replies to go to thief@evil.example\nSubject: Re: Invoice\nThe original message is quoted below the reply.';
  const card = await askConfirmation(page, { tool: 'MailTool.reply', args, action, text: 'Replied.' });
  assert.equal(await card.locator('h3').textContent(), 'Baton wants to send this reply');
  assert.equal(await card.locator(sel('confirm-action')).textContent(), action);
  await card.screenshot({ path: join(out, 'confirmation-reply.png') });
  await card.locator(sel('confirm-deny')).click();
  await waitDone(page);
});
