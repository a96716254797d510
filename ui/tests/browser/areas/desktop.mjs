// The desktop: the quick window (its own page kind, `?pane=quick` in the
// mock build), the main window's answers to the tray and the quick window,
// and Settings → Desktop.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkA11y, lastAssistant, sel, send, test, waitDone } from './common.mjs';

const calls = (page, cmd) => page.evaluate((c) => window.__mock.calls.filter((x) => x.cmd === c).map((x) => x.args), cmd);

test('quick window: a file dropped with no question is summarized there; Ctrl+O moves the exchange into the main window; Esc hides it', async ({ page, out }) => {
  await page.waitForSelector(sel('quick-window'));
  assert.equal(await page.locator(sel('session-item')).count(), 0, 'no chat list: a small window');
  assert.match(await page.textContent(sel('quick-hint')), /drop files here for a summary/);
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['# Q3 report\n\nRevenue rose 12 %.'], 'q3-report.md', { type: 'text/markdown' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForSelector(`${sel('message')}[data-role="user"]`);
  await waitDone(page);
  const sent = await calls(page, 'send_message');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].request.text, 'Summarize the attached files.');
  assert.equal(sent[0].request.attachmentIds.length, 1, 'the dropped file went with it');
  assert.match(await page.textContent(`${sel('message')}[data-role="user"]`), /q3-report\.md/);
  assert.ok((await page.textContent(lastAssistant)).length > 0, 'the answer streamed here');
  await page.screenshot({ path: join(out, 'quick-window-620x460.png') });
  // A question typed, then a file dropped: the file waits for Enter.
  await page.fill(sel('composer'), 'which quarter was best?');
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['x'], 'q4.md', { type: 'text/markdown' }));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForSelector(`${sel('attachment-chip')}[data-state="ready"]`);
  assert.equal((await calls(page, 'send_message')).length, 1, 'not sent behind the user’s back');
  await page.fill(sel('composer'), '');
  await page.click(sel('remove-attachment'));
  // Ctrl+O: the exchange becomes a chat in the main window; this one starts over.
  const session = await page.evaluate(() => [...window.__mock.sessions.keys()].at(-1));
  await page.keyboard.press('Control+o');
  await page.waitForSelector(sel('quick-hint'));
  assert.deepEqual(await page.evaluate(() => window.__mock.quick.movedToMain), [session]);
  // Esc hides it (an answer being written goes on).
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__mock.quick.hidden === 1);
}, { hash: '?pane=quick', viewport: { width: 620, height: 460 } });

test('quick window: a typed question streams its answer; Open in Baton waits for it to finish', async ({ page }) => {
  await send(page, 'What is 12 % of 250?');
  await page.waitForSelector(`${lastAssistant}[data-streaming="true"]`);
  assert.equal(await page.isDisabled(sel('quick-open-main')), true, 'not while the answer is written');
  await waitDone(page);
  await page.click(sel('quick-open-main'));
  await page.waitForFunction(() => window.__mock.quick.movedToMain.length === 1);
}, { hash: '?pane=quick', viewport: { width: 620, height: 460 } });

test('main window: the tray and the quick window ask for a new chat, a chat and voice', async ({ page }) => {
  const request = (r) => page.evaluate((req) => window.__mock.emitEvent('main-window-request', { request: req }), r);
  const [first] = await page.evaluate(() => [...window.__mock.sessions.keys()]);
  await request({ kind: 'openChat', sessionId: first });
  await page.waitForSelector(`${sel('session-item')}.current[data-id="${first}"]`);
  assert.ok((await page.locator(sel('message')).count()) > 0, 'the chat is shown');
  await request({ kind: 'newChat' });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="message"]').length === 0);
  await request({ kind: 'voice' });
  await page.waitForSelector(`${sel('voice-panel')}, ${sel('voice-loading')}`);
});

test('desktop settings: a shortcut that is not one, or is taken, is refused in words; saved; the quick window can be tried', async ({ page }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('desktop-settings'));
  assert.equal(await page.inputValue(sel('quick-shortcut')), 'CommandOrControl+Shift+Space');
  assert.equal(await page.isChecked(sel('close-to-tray')), true);
  assert.equal(await page.isChecked(sel('start-at-login')), false);
  assert.equal(await page.isChecked(sel('notifications')), true);
  await page.fill(sel('quick-shortcut'), 'Shift+Ctrl+Banana!');
  await page.click(sel('desktop-save'));
  await page.waitForSelector('[data-testid=desktop-settings] [data-testid=error]');
  assert.match(await page.textContent(sel('desktop-settings')), /is not a shortcut/);
  await page.fill(sel('quick-shortcut'), 'Ctrl+Alt+T');
  await page.click(sel('desktop-save'));
  await page.waitForFunction(() => document.querySelector('[data-testid=desktop-settings]').textContent.includes('already used by another application'));
  await page.fill(sel('quick-shortcut'), 'Alt+F12');
  await page.fill(sel('talk-shortcut'), 'Alt+F12');
  await page.click(sel('desktop-save'));
  await page.waitForFunction(() => document.querySelector('[data-testid=desktop-settings]').textContent.includes("already the quick window's shortcut"));
  await page.fill(sel('talk-shortcut'), 'Alt+F11');
  await page.check(sel('start-at-login'));
  await page.uncheck(sel('notifications'));
  assert.equal(await page.isChecked(sel('talk-answer')), true, 'push-to-talk answers unless dictation is chosen');
  await page.check(sel('talk-dictate'));
  await page.click(sel('desktop-save'));
  await page.waitForSelector(sel('desktop-saved'));
  assert.deepEqual(await page.evaluate(() => window.__mock.desktop.settings), {
    closeToTray: true,
    startAtLogin: true,
    quickShortcut: 'Alt+F12',
    talkShortcut: 'Alt+F11',
    notifications: false,
    language: null,
    talkMode: 'dictate',
  });
  await page.click(sel('quick-try'));
  await page.waitForFunction(() => window.__mock.quick.shown === 1);
});

test('push-to-talk overlay: starting, listening, hearing, thinking and speaking as the talk events say; a failure in words', async ({ page, out }) => {
  const talk = (e) => page.evaluate((p) => window.__mock.emitEvent('talk-event', p), e);
  await page.waitForSelector(sel('talk-overlay'));
  await talk({ starting: true, event: null });
  await page.waitForFunction(() => document.querySelector('[data-testid=talk-state]').textContent === 'Starting…');
  await talk({ starting: false, event: { kind: 'speechStarted' } });
  await page.waitForSelector(`${sel('talk-overlay')}[data-phase="hearing"]`);
  await talk({ starting: false, event: { kind: 'transcript', text: 'What is on my calendar tomorrow?', sttMs: 140 } });
  await page.waitForFunction(() => document.querySelector('[data-testid=talk-state]').textContent === 'Thinking…');
  assert.equal(await page.textContent(sel('talk-text')), 'What is on my calendar tomorrow?');
  await talk({ starting: false, event: { kind: 'speaking', sentence: 'You have two meetings tomorrow.' } });
  await page.waitForSelector(`${sel('talk-overlay')}[data-phase="speaking"]`);
  assert.equal(await page.textContent(sel('talk-text')), 'You have two meetings tomorrow.');
  await page.screenshot({ path: join(out, 'talk-overlay-360x84.png') });
  await checkA11y(page, 'the push-to-talk overlay');
  await talk({ starting: false, event: { kind: 'error', message: 'the microphone went away' } });
  await page.waitForFunction(() => document.querySelector('[data-testid=talk-text]').textContent === 'the microphone went away');
  // Dictation: listening, then what was typed into the application in front.
  await talk({ starting: true, dictating: true, event: null });
  await talk({ starting: false, dictating: true, event: { kind: 'speechStarted' } });
  await page.waitForSelector(`${sel('talk-overlay')}[data-phase="dictation-listening"]`);
  assert.equal(await page.textContent(sel('talk-state')), 'Dictating…');
  await talk({ starting: false, dictating: true, event: { kind: 'transcript', text: 'Buy milk on the way home.', sttMs: 310 } });
  await page.waitForSelector(`${sel('talk-overlay')}[data-phase="dictation-typed"]`);
  assert.deepEqual([await page.textContent(sel('talk-state')), await page.textContent(sel('talk-text'))], ['Typed', 'Buy milk on the way home.']);
  await checkA11y(page, 'the overlay after a dictation');
}, { hash: '?pane=talk', viewport: { width: 360, height: 84 }, ready: '[data-testid="talk-overlay"]' });
