// Accessibility: axe-core over every screen and state, in light and dark,
// with no serious or critical violation; and a keyboard-only journey.
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
