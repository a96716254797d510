// Subagents asking the user, and the agent picker.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { lastAssistant, send, sel, test, waitDone } from './common.mjs';

const questionCalls = (page) =>
  page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'answer_question').map((c) => c.args));
const sentTexts = (page) =>
  page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request.text));

async function askQuestion(page) {
  await page.evaluate(() =>
    window.__mock.askNext({
      task: 'Find the budget file the user means',
      question: "Which year's budget do you mean?",
      text: (a) => `Your ${a} budget is in budget-${a}.xlsx.`,
      declinedText: 'I found budgets for 2025 and 2026: which year do you mean?',
    }),
  );
  await send(page, 'Where is my budget file?');
  const card = page.locator(`${lastAssistant} ${sel('subagent-question')}`);
  await card.waitFor();
  return card;
}

test('subagent question: answered in its card by typing + Enter; the card shows the answer', async ({ page, out }) => {
  const card = await askQuestion(page);
  const id = await card.getAttribute('data-id');
  assert.match(id, /^sub_\d+$/);
  assert.equal(await card.getAttribute('data-state'), 'waiting');
  assert.equal(await card.locator(sel('subagent-question-text')).textContent(), "Which year's budget do you mean?");
  // The turn waits: still streaming, Stop offered, nothing answered yet.
  await page.waitForTimeout(300);
  assert.equal(await page.locator(lastAssistant).getAttribute('data-streaming'), 'true');
  assert.equal(await page.locator(sel('stop')).count(), 1);
  assert.deepEqual(await questionCalls(page), []);
  // The answer field has a label and takes the keyboard (the composer was empty).
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'subagent-answer');
  assert.equal(await card.getByLabel('Your answer to the subagent').count(), 1);
  assert.ok(await card.locator(sel('question-submit')).isDisabled());
  await page.screenshot({ path: join(out, 'subagent-question-1280x800-light.png') });

  await page.keyboard.type('2026');
  await page.keyboard.press('Enter');
  assert.deepEqual(await questionCalls(page), [{ questionId: id, answer: '2026' }]);
  await page.waitForSelector(`${sel('subagent-question')}[data-state="answered"]`);
  assert.equal(await card.locator(sel('question-answer')).textContent(), '2026');
  assert.equal(await card.locator(sel('subagent-answer')).count(), 0, 'no longer editable');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'question-outcome');
  await waitDone(page);
  assert.match(await page.locator(lastAssistant).textContent(), /Your 2026 budget is in budget-2026\.xlsx\./);
  assert.equal(await card.getAttribute('data-state'), 'answered');
  assert.equal(await card.locator(sel('question-answer')).textContent(), '2026');
  // It was not sent as a message of its own.
  assert.deepEqual(await sentTexts(page), ['Where is my budget file?']);
  await page.screenshot({ path: join(out, 'subagent-answered-1280x800-light.png') });
});

test('subagent question: "Let the assistant answer" by keyboard declines (answerQuestion null)', async ({ page, out }) => {
  const card = await askQuestion(page);
  const id = await card.getAttribute('data-id');
  // From the answer field: Answer is disabled while empty, so Tab reaches the decline button.
  await card.locator(sel('subagent-answer')).focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'question-decline');
  assert.match(await card.locator(sel('question-decline')).textContent(), /Let the assistant answer/);
  await page.keyboard.press('Enter');
  assert.deepEqual(await questionCalls(page), [{ questionId: id, answer: null }]);
  await page.waitForSelector(`${sel('subagent-question')}[data-state="declined"]`);
  assert.equal(await card.locator(sel('subagent-answer')).count(), 0);
  await waitDone(page);
  assert.match(await page.locator(lastAssistant).textContent(), /which year do you mean\?/);
  assert.equal(await card.getAttribute('data-state'), 'declined');
  assert.match(await card.locator(sel('question-outcome')).textContent(), /Left to the assistant/);
  await page.screenshot({ path: join(out, 'subagent-declined-1280x800-dark.png') });
}, { colorScheme: 'dark' });

test('subagent question: Stop while it waits ends the turn and closes the card', async ({ page }) => {
  const card = await askQuestion(page);
  await page.click(sel('stop'));
  await waitDone(page);
  assert.equal(await card.getAttribute('data-state'), 'closed');
  assert.equal(await card.locator(sel('subagent-answer')).count(), 0);
  assert.deepEqual(await questionCalls(page), []);
  assert.doesNotMatch(await page.locator(lastAssistant).textContent(), /budget-2026|which year do you mean/);
});

test('agent picker: lists the agents (default marked, descriptions as hints); the picked one is sent; a saved chat shows its own', async ({ page, out }) => {
  const picker = page.locator(sel('agent-picker'));
  await picker.waitFor();
  const options = await page.locator(sel('agent-option')).evaluateAll((os) =>
    os.map((o) => ({ name: o.dataset.name, label: o.textContent.trim(), hint: o.title, isDefault: o.dataset.default === 'true' })),
  );
  assert.deepEqual(options.map((o) => o.name), ['assistant', 'researcher']);
  assert.deepEqual(options.map((o) => o.isDefault), [true, false]);
  assert.equal(options[0].label, 'assistant (default)');
  assert.match(options[1].hint, /never changes a file/);
  assert.equal(await picker.inputValue(), 'assistant');
  assert.equal(await page.getByLabel('Agent', { exact: true }).count(), 1);
  // Keyboard: Tab reaches it from the chat title bar, arrows change it.
  await page.locator(sel('toggle-sidebar')).focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'agent-picker');
  await page.keyboard.press('ArrowDown');
  assert.equal(await picker.inputValue(), 'researcher');
  assert.match(await picker.getAttribute('title'), /never changes a file/);

  const sent = () => page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request));
  await send(page, 'hello researcher');
  assert.ok(await picker.isDisabled(), 'fixed while the turn runs');
  await waitDone(page);
  await send(page, 'and again');
  await waitDone(page);
  const reqs = await sent();
  assert.deepEqual(reqs.map((r) => r.agent), ['researcher', 'researcher']);
  assert.equal(reqs[1].sessionId, await page.evaluate(() => [...window.__mock.sessions.values()].at(-1).id));
  await page.screenshot({ path: join(out, 'agent-picker-1280x800-light.png') });

  // A saved chat shows its own agent (in the list too); a new chat keeps the last pick.
  assert.equal(await page.textContent(`${sel('session-item')}[data-id="s2"] ${sel('session-agent')}`), 'researcher');
  assert.equal(await page.locator(`${sel('session-item')}[data-id="s1"] ${sel('session-agent')}`).count(), 0);
  await page.click(`${sel('session-item')}[data-id="s1"] button.open`);
  await page.waitForFunction(() => document.querySelector('[data-testid="chat-title"]')?.textContent === 'Rust ownership basics');
  assert.equal(await picker.inputValue(), 'assistant');
  await page.click(`${sel('session-item')}[data-id="s2"] button.open`);
  await page.waitForFunction(() => document.querySelector('[data-testid="chat-title"]')?.textContent === 'Trip planning: Lisbon');
  assert.equal(await picker.inputValue(), 'researcher');
  await picker.selectOption('assistant');
  await send(page, 'switch back');
  await waitDone(page);
  assert.deepEqual((await sent()).at(-1), { sessionId: 's2', text: 'switch back', attachmentIds: [], replaceLast: false, agent: 'assistant' });
  assert.equal(await page.evaluate(() => window.__mock.sessions.get('s2').agent), 'assistant');
});

// An external action waits for the user: the card shows the exact action and
// nothing is sent (in the mock: the tool does not finish) until Allow.
