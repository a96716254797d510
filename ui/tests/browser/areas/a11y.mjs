// Accessibility: axe-core over every screen and state, in light and dark,
// with no serious or critical violation; and a keyboard-only journey.
import assert from 'node:assert/strict';
import { checkA11y, lastAssistant, send, sel, test, waitDone } from './common.mjs';

async function screens(page, scheme) {
  await checkA11y(page, `the empty chat (${scheme})`);
  await send(page, 'Show me a table and some code');
  await waitDone(page);
  await checkA11y(page, `an answer with Markdown (${scheme})`);
  await page.evaluate(() =>
    window.__mock.confirmNext({ tool: 'Diagnostics.post_note', arguments: '{"text":"hi"}', text: 'Posted.', deniedText: 'Not posted.' }),
  );
  await send(page, 'Post a note');
  await page.locator(`${lastAssistant} ${sel('confirmation-card')}`).waitFor();
  await checkA11y(page, `a confirmation card (${scheme})`);
  await page.click(`${lastAssistant} ${sel('confirm-deny')}`);
  await waitDone(page);
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('desktop-settings'));
  await checkA11y(page, `the settings (${scheme})`);
  await page.click(sel('close-settings'));
  await page.click(sel('team-open'));
  await checkA11y(page, `the team panel (${scheme})`);
  await page.click(sel('research-open'));
  await checkA11y(page, `the research panel (${scheme})`);
  await page.click(sel('research-close'));
  await page.click(sel('voice-open'));
  await page.waitForSelector(`${sel('voice-panel')}[data-phase="listening"]`, { timeout: 8000 });
  await checkA11y(page, `the voice panel (${scheme})`);
  await page.click(sel('voice-close'));
}

test('a11y: no serious or critical axe violation on the chat, cards, settings, team and research (light)', async ({ page }) => {
  await screens(page, 'light');
});

test('a11y: no serious or critical axe violation on the chat, cards, settings, team and research (dark)', async ({ page }) => {
  await screens(page, 'dark');
}, { colorScheme: 'dark' });

test('a11y: the quick window has no serious or critical axe violation', async ({ page }) => {
  await checkA11y(page, 'the empty quick window');
  await send(page, 'Hello');
  await waitDone(page);
  await checkA11y(page, 'the quick window with an answer');
}, { hash: '?pane=quick', viewport: { width: 620, height: 460 } });

/** The focused element, and whether its focus can be seen (an outline or a ring). */
const focused = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    // The ring may be on the field's frame (a text box inside its frame).
    const ring = (e) => {
      const css = e ? getComputedStyle(e) : null;
      return !!css && ((css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) > 0) || css.boxShadow !== 'none');
    };
    const visible = ring(el) || ring(el?.parentElement) || ring(el?.parentElement?.parentElement);
    return { id: el?.dataset?.testid ?? el?.tagName ?? null, visible };
  });

/** Presses `key` until the element with test id `id` has the focus, each stop's focus visible. */
async function tabTo(page, id, key = 'Tab', most = 60) {
  for (let i = 0; i < most; i++) {
    const f = await focused(page);
    if (f.id === id) return;
    if (f.id !== 'BODY') assert.ok(f.visible, `the focus on ${f.id} cannot be seen`);
    await page.keyboard.press(key);
  }
  throw new Error(`${id} is not reachable with ${key}`);
}

test('a11y: a keyboard-only journey sends a message, allows a confirmation and opens settings; the screen reader hears each step', async ({ page }) => {
  await page.waitForSelector(sel('composer'));
  await page.evaluate(() => document.activeElement?.blur());
  await tabTo(page, 'composer');
  await page.evaluate(() => window.__mock.confirmNext({ tool: 'Mail.send_mail', text: 'Done: I sent the mail.' }));
  await page.keyboard.type('Send Ada the lunch note');
  await page.keyboard.press('Enter');
  await page.locator(sel('confirm-allow')).waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=announcer]').textContent.includes('Baton asks before it runs Mail.send_mail'));
  // Back from the composer to the card's Allow.
  await tabTo(page, 'confirm-allow', 'Shift+Tab');
  await page.keyboard.press('Enter');
  await waitDone(page);
  assert.match(await page.textContent(lastAssistant), /Done: I sent the mail/);
  await page.waitForFunction(() => document.querySelector('[data-testid=announcer]').textContent === 'Answer: Done: I sent the mail.');
  // Settings by its shortcut; the focus moves into the dialog; Esc closes it.
  await page.keyboard.press('Control+Comma');
  await page.waitForSelector(sel('desktop-settings'));
  assert.ok(await page.evaluate(() => !!document.activeElement?.closest('dialog[open], [role=dialog]')), 'the focus is in the settings dialog');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('[data-testid=desktop-settings]'));
});
