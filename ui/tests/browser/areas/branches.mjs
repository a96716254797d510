// Branches: any earlier user message can be edited and sent again; the
// old exchange stays as a branch, and the chat switches between them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sel, send, test, waitDone } from './common.mjs';

const users = `${sel('message')}[data-role="user"]`;

/** The chat's messages as [role, first line of text]. */
async function shown(page) {
  return page.locator(sel('message')).evaluateAll((ms) =>
    ms.map((m) => [m.getAttribute('data-role'), (m.querySelector('.user-text, .md')?.textContent ?? '').trim().split('\n')[0]]),
  );
}

/** Sends `text`; the answer is `answer`. */
async function exchange(page, text, answer) {
  await page.evaluate((a) => window.__mock.replyWith(a), answer);
  await send(page, text);
  await waitDone(page);
}

test('branches: edit the first message, switch back to the original exchanges and forth again', async ({ page, out }) => {
  await exchange(page, 'Which berths are free on Monday?', 'Berths 3 and 7.');
  await exchange(page, 'And on Tuesday?', 'Only berth 7.');
  await exchange(page, 'Who pilots on Tuesday?', 'Captain Nowak.');
  const original = [
    ['user', 'Which berths are free on Monday?'],
    ['assistant', 'Berths 3 and 7.'],
    ['user', 'And on Tuesday?'],
    ['assistant', 'Only berth 7.'],
    ['user', 'Who pilots on Tuesday?'],
    ['assistant', 'Captain Nowak.'],
  ];
  assert.deepEqual(await shown(page), original);
  // Every user message can be edited (no branches yet).
  assert.equal(await page.locator(`${users} ${sel('edit-message')}`).count(), 3);
  assert.equal(await page.locator(sel('branch-switcher')).count(), 0);

  // Edit the first one.
  await page.locator(users).first().locator(sel('edit-message')).click();
  assert.equal(await page.inputValue(sel('composer')), 'Which berths are free on Monday?');
  await page.waitForSelector(sel('editing-banner'));
  assert.equal(await page.locator(users).first().evaluate((m) => m.classList.contains('editing')), true);
  await page.evaluate(() => window.__mock.replyWith('Berths 2 and 5.'));
  await page.fill(sel('composer'), 'Which berths are free on Wednesday?');
  await page.press(sel('composer'), 'Enter');
  await waitDone(page);
  const req = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').at(-1).args.request);
  assert.equal(req.edit, 0);
  assert.equal(req.replaceLast, false);
  // The new answer; the later messages are gone; the first says "2 / 2".
  const edited = [
    ['user', 'Which berths are free on Wednesday?'],
    ['assistant', 'Berths 2 and 5.'],
  ];
  await page.waitForSelector(sel('branch-switcher'));
  assert.deepEqual(await shown(page), edited);
  const first = page.locator(users).first();
  const switcher = first.locator(sel('branch-switcher'));
  assert.equal(await switcher.locator(sel('branch-count')).textContent(), '2 / 2');
  await page.getByRole('group', { name: 'Branch 2 of 2' }).waitFor();
  assert.equal(await switcher.getByRole('button', { name: 'Next branch' }).isDisabled(), true);
  assert.equal(await switcher.getByRole('button', { name: 'Previous branch' }).isDisabled(), false);
  await first.hover();
  await page.locator(sel('messages')).screenshot({ path: join(out, 'branches-1280x800-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.locator(sel('messages')).screenshot({ path: join(out, 'branches-1280x800-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });

  // Back to the original branch: all three exchanges, "1 / 2".
  await switcher.getByRole('button', { name: 'Previous branch' }).click();
  await page.getByRole('group', { name: 'Branch 1 of 2' }).waitFor();
  assert.deepEqual(await shown(page), original);
  assert.equal(await page.locator(users).first().locator(sel('branch-count')).textContent(), '1 / 2');
  assert.equal(await page.locator(sel('branch-switcher')).count(), 1, 'only the edited message has branches');
  assert.equal(await page.getByRole('button', { name: 'Previous branch' }).isDisabled(), true);
  assert.deepEqual(
    await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'switch_branch').map((c) => c.args)),
    [{ id: req.sessionId, at: 0, to: 0 }],
  );

  // And forth again.
  await page.getByRole('button', { name: 'Next branch' }).click();
  await page.getByRole('group', { name: 'Branch 2 of 2' }).waitFor();
  assert.deepEqual(await shown(page), edited);

  // Reopened later, the chat shows the branch it was left on.
  await page.click(sel('new-chat'));
  await page.locator(sel('session-item'), { hasText: 'Which berths are free on Monday?' }).locator('button.open').click();
  await page.getByRole('group', { name: 'Branch 2 of 2' }).waitFor();
  assert.deepEqual(await shown(page), edited);
});

test('branches: three at the last message; the one in the middle goes both ways', async ({ page }) => {
  await exchange(page, 'q1', 'a1');
  await exchange(page, 'q2', 'a2');
  // The second (last) message edited twice: three branches there.
  for (const [text, answer] of [['q2 b', 'b2'], ['q2 c', 'c2']]) {
    await page.locator(users).nth(1).locator(sel('edit-message')).click();
    await page.evaluate((a) => window.__mock.replyWith(a), answer);
    await page.fill(sel('composer'), text);
    await page.press(sel('composer'), 'Enter');
    await waitDone(page);
  }
  await page.getByRole('group', { name: 'Branch 3 of 3' }).waitFor();
  await page.getByRole('button', { name: 'Previous branch' }).click();
  await page.getByRole('group', { name: 'Branch 2 of 3' }).waitFor();
  assert.deepEqual(await shown(page), [['user', 'q1'], ['assistant', 'a1'], ['user', 'q2 b'], ['assistant', 'b2']]);
  // Both buttons work in the middle.
  assert.equal(await page.getByRole('button', { name: 'Next branch' }).isDisabled(), false);
  assert.equal(await page.getByRole('button', { name: 'Previous branch' }).isDisabled(), false);
  const sends = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request.edit ?? null));
  assert.deepEqual(sends, [null, null, 1, 1]);
});
