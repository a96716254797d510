// Scheduled tasks: made in Settings → Scheduled tasks (a time Baton cannot
// read is refused in words), run now, the run told in a toast with Open,
// its chat listed under "Scheduled" in the sidebar, then removed.
import assert from 'node:assert/strict';
import { sel, test } from './common.mjs';

test('scheduled tasks: make one, run it now, open its chat, remove it', async ({ page }) => {
  await page.click(sel('open-settings'));
  const section = page.locator(sel('schedule-settings'));
  await section.locator(sel('tasks-empty')).waitFor();
  await section.locator(sel('task-new-prompt')).fill('Summarise the harbour news');
  await section.locator(sel('task-new-when')).fill('whenever');
  await section.locator(sel('task-add')).click();
  await section.locator(`${sel('error')}:has-text("not a time Baton understands")`).waitFor();
  assert.equal(await section.locator(sel('task-item')).count(), 0);

  // Enter in the form makes the task (and does not save the settings).
  await section.locator(sel('task-new-when')).fill('in 2 hours');
  await section.locator(sel('task-new-email')).check();
  await section.locator(sel('task-new-when')).press('Enter');
  await section.locator(`${sel('task-item')}:has-text("Summarise the harbour news")`).waitFor();
  assert.equal(await section.locator(sel('task-when')).textContent(), 'in 2 hours');
  assert.equal(await section.locator(sel('task-last')).textContent(), 'never ran');
  assert.equal(await section.locator(sel('task-new-prompt')).inputValue(), '', 'the form is cleared');
  assert.equal(await page.evaluate(() => window.__mock.calls.some((c) => c.cmd === 'save_settings')), false);
  assert.equal(await page.evaluate(() => window.__mock.tasks[0].email), true, 'each answer e-mailed');
  assert.match(await section.locator(sel('task-item')).textContent(), /e-mailed to you/);

  // Run now: the result is said here, and the task shows it ran.
  await section.locator(sel('task-run')).click();
  await section.locator(`${sel('task-ran')}:has-text("Answered: Two ships came in")`).waitFor();
  assert.match(await section.locator(sel('task-last')).textContent(), /answered$/);
  assert.equal(await section.locator(sel('task-next')).textContent(), 'not again', 'a one-time task ran');

  // Its chat is in the sidebar's Scheduled group.
  await page.click(sel('close-settings'));
  const chat = page.locator(`${sel('scheduled-sessions')} ${sel('session-item')}`);
  await chat.waitFor();
  assert.match(await chat.textContent(), /Summarise the harbour news/);
  assert.equal(await page.locator(`${sel('sessions')} ${sel('session-item')}:has-text("Summarise the harbour news")`).count(), 0, 'not among the other chats');

  // A run the scheduler makes on its own is told in a toast that opens its chat.
  await page.evaluate(() => window.__mock.scheduledRun(window.__mock.tasks[0].id));
  await page.locator(`${sel('toast')}:has-text("Scheduled task “Summarise the harbour news” answered")`).waitFor();
  await page.locator(`${sel('toast')}:has-text("Scheduled task") ${sel('toast-action')}`).click();
  await page.locator(`${sel('message')}[data-role="assistant"]:has-text("the ferry is late")`).last().waitFor();

  // A run that waits for a yes is said so; then the task is removed.
  await page.evaluate(() => (window.__mock.nextTaskRun = { status: 'waiting', summary: 'waits for your yes: held back: post_note' }));
  await page.click(sel('open-settings'));
  await section.locator(sel('task-run')).click();
  await section.locator(`${sel('task-ran')}:has-text("Waits for your yes")`).waitFor();
  await section.locator(sel('task-remove')).click();
  await section.locator(sel('tasks-empty')).waitFor();
  assert.deepEqual(await page.evaluate(() => window.__mock.tasks), []);
});
