// The chat: streaming Markdown, start-up, Stop, tool calls and slash commands.
import assert from 'node:assert/strict';
import { lastAssistant, send, sel, test, waitDone } from './common.mjs';

test('chat streams Markdown, copy button, link interception', async ({ page }) => {
  await page.waitForSelector(sel('empty-state'));
  assert.match(await page.textContent(sel('empty-model')), /local.*qwen2\.5/s);
  await send(page, 'hello there');
  await page.waitForSelector(`${sel('stop')}`);
  await page.waitForSelector(`${sel('message')}[data-role="assistant"][data-streaming="true"]`);
  await waitDone(page);
  const a = page.locator(lastAssistant);
  assert.equal(await a.locator('h2').textContent(), 'Summary');
  assert.equal(await a.locator('table td').first().textContent(), 'a');
  assert.equal(await a.locator('li').count(), 2);
  assert.ok((await a.locator('code.language-python span.hljs-built_in, code.language-python span.hljs-string').count()) > 0, 'python is highlighted');
  assert.equal(await a.locator('button.copy-code').count(), 1);
  await a.locator('button.copy-code').click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'print("hello from Baton")');
  // The link opens in the system browser, not in the webview.
  const before = page.url();
  await a.locator('a', { hasText: 'the docs' }).click();
  assert.equal(page.url(), before);
  assert.deepEqual(await page.evaluate(() => window.__mock.opened), ['https://example.com/docs']);
  // Sidebar got the new session.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 3);
  assert.equal(await page.textContent(sel('chat-title')), 'hello there');
  // The user message is there, rendered as text.
  assert.equal(await page.textContent(`${sel('message')}[data-role="user"] .user-text`), 'hello there');
});

test('start-up: app-interactive mark, then the Markdown and settings chunks load', async ({ page }) => {
  await page.waitForFunction(() => performance.getEntriesByName('app-interactive').length === 1);
  await page.waitForFunction(() => {
    const names = performance.getEntriesByType('resource').map((r) => r.name);
    return names.some((n) => /\/mdpipeline-[^/]*\.js$/.test(n)) && names.some((n) => /\/SettingsPanel-[^/]*\.js$/.test(n));
  });
  const r = await page.evaluate(() => ({
    marks: performance.getEntriesByName('app-interactive').length,
    mark: performance.getEntriesByName('app-interactive')[0].startTime,
    enabled: !document.querySelector('[data-testid="composer"]').disabled,
    lazy: performance
      .getEntriesByType('resource')
      .filter((e) => /\/(mdpipeline|SettingsPanel)-[^/]*\.(js|css)$/.test(e.name))
      .map((e) => ({ name: e.name.split('/').pop(), start: e.startTime })),
  }));
  assert.equal(r.marks, 1);
  assert.ok(r.enabled, 'composer enabled');
  for (const e of r.lazy) assert.ok(e.start >= r.mark, `${e.name} fetched after first paint (${e.start} < ${r.mark})`);
  // Rendered Markdown works once loaded (and its CSS came with it).
  await send(page, 'hello there');
  await waitDone(page);
  const md = page.locator(`${lastAssistant} .md`).first();
  assert.equal(await md.getAttribute('data-md-state'), 'rendered');
  assert.equal(await md.evaluate((el) => getComputedStyle(el).overflowWrap), 'anywhere');
});

test('stop ends a streaming answer; Esc stops too', async ({ page }) => {
  await page.evaluate(() => window.__mock.streamTokens(4000, { perStep: 2, pace: 20 }));
  await send(page, 'write a lot');
  await page.waitForFunction(() => (document.querySelector('[data-testid="message"][data-role="assistant"]')?.textContent?.length ?? 0) > 200);
  await page.click(sel('stop'));
  await waitDone(page);
  const calls = await page.evaluate(() => window.__mock.calls.map((c) => c.cmd));
  assert.ok(calls.includes('stop_generation'));
  const len = (await page.locator(lastAssistant).textContent()).length;
  assert.ok(len < 15000, `stopped early (${len} chars)`);
  // Esc while streaming.
  await page.evaluate(() => window.__mock.streamTokens(4000, { perStep: 2, pace: 20 }));
  await send(page, 'again');
  await page.waitForSelector(sel('stop'));
  await page.waitForTimeout(150);
  await page.press(sel('composer'), 'Escape');
  await waitDone(page);
  assert.equal(await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'stop_generation').length), 2);
  // Regenerate is offered on the last answer; edit on every question.
  assert.equal(await page.locator(sel('regenerate')).count(), 1);
  assert.equal(await page.locator(sel('edit-message')).count(), 2);
});

test('tool call collapsed then expanded; slash command note; error line', async ({ page }) => {
  await send(page, 'use the tool please');
  await waitDone(page);
  const tc = page.locator(sel('tool-call'));
  await tc.waitFor();
  assert.equal(await tc.getAttribute('data-status'), 'ok');
  assert.equal(await tc.evaluate((d) => d.open), false);
  assert.match(await tc.locator('summary').textContent(), /workspace\.search.*✓.*184 ms/s);
  assert.equal(await page.locator(sel('tool-arguments')).count(), 0);
  await tc.locator('summary').click();
  assert.equal(await tc.evaluate((d) => d.open), true);
  assert.match(await page.textContent(sel('tool-arguments')), /"query": "lisbon"/);
  assert.match(await page.textContent(sel('tool-result')), /notes\/lisbon\.md/);

  await send(page, '/help');
  await waitDone(page);
  const note = page.locator(`${lastAssistant} ${sel('note')}[data-tone="system"]`);
  assert.match(await note.textContent(), /\/model NAME/);

  await send(page, 'this will fail');
  await waitDone(page);
  assert.match(await page.locator(`${lastAssistant} ${sel('note')}[data-tone="error"]`).textContent(), /did not answer/);
});

// A subagent's question waits inside its turn for the user's answer, given
// in its card (answerQuestion), not as the next message.

test('several chats answer at once: switching keeps each turn going, the sidebar says which works, waits or is done', async ({ page }) => {
  const row = (title) => `${sel('session-item')}:has(${sel('session-title')}:text-is("${title}"))`;
  const activity = (title) => page.locator(`${row(title)} ${sel('session-activity')}`).getAttribute('data-state', { timeout: 2000 }).catch(() => null);
  // Chat A: a long answer.
  await page.evaluate(() => window.__mock.streamTokens(700, { perStep: 2, pace: 20 }));
  await send(page, 'first long answer');
  await page.waitForFunction(() => (document.querySelector('[data-testid="message"][data-role="assistant"]')?.textContent?.length ?? 0) > 100);
  // A new chat while A answers: A goes on, the composer here is free.
  await page.click(sel('new-chat'));
  await page.waitForSelector(sel('empty-state'));
  assert.equal(await page.locator(sel('stop')).count(), 0, 'nothing runs in the new chat');
  assert.equal(await activity('first long answer'), 'working');
  // Chat B asks for a confirmation and waits.
  await page.evaluate(() => window.__mock.confirmNext());
  await send(page, 'send the lunch mail');
  await page.waitForSelector(sel('confirm-allow'));
  // Back to A: its answer is still being written here, whole so far.
  await page.click(`${row('first long answer')} button.open`);
  await page.waitForSelector(`${sel('message')}[data-role="assistant"][data-streaming="true"]`);
  assert.equal(await page.textContent(`${sel('message')}[data-role="user"] .user-text`), 'first long answer');
  assert.equal(await activity('send the lunch mail'), 'waiting');
  await waitDone(page, 30000);
  assert.ok((await page.locator(lastAssistant).textContent()).length > 1000, 'the whole answer arrived');
  assert.equal(await activity('first long answer'), null, 'an answer seen as it ends is not marked');
  // B still waits; allowed there, it answers.
  await page.click(`${row('send the lunch mail')} button.open`);
  await page.click(sel('confirm-allow'));
  await waitDone(page);
  assert.match(await page.textContent(lastAssistant), /Done: I sent the mail/);
  assert.equal(await activity('send the lunch mail'), null);
  // Stop stops only the chat in view.
  await page.evaluate(() => window.__mock.streamTokens(700, { perStep: 2, pace: 20 }));
  await send(page, 'one more long one');
  await page.waitForSelector(sel('stop'));
  await page.click(`${row('first long answer')} button.open`);
  await page.evaluate(() => window.__mock.replyWith('A short one.'));
  await send(page, 'and a short one');
  await waitDone(page);
  const stops = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'stop_generation').length);
  assert.equal(stops, 0, 'switching stops nothing');
  // The long one ended away: marked done until opened.
  await page.waitForFunction(() => document.querySelector('[data-testid="session-activity"][data-state="done"]'), null, { timeout: 30000 });
  assert.equal(await activity('send the lunch mail'), 'done');
  await page.click(`${row('send the lunch mail')} button.open`);
  await page.waitForFunction(() => !document.querySelector('[data-testid="session-activity"]'));
  await waitDone(page);
  assert.ok((await page.locator(lastAssistant).textContent()).length > 1000, 'the answer written away is all there');
});
