// Languages: the UI follows the system's language, is switched in
// Settings → Desktop, and in German and French no text is clipped or runs
// out of its box on the main screens (screenshots kept for a look).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkA11y, lastAssistant, send, sel, test, waitDone } from './common.mjs';

/** Elements whose text does not fit: wider than their box where the box clips, or past the window's edge. */
const overflowing = (page) =>
  page.evaluate(() => {
    const out = [];
    const all = document.querySelectorAll('button, label, h1, h2, h3, h4, legend, th, [role="tab"], .btn, .chip, .badge, option');
    for (const el of all) {
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1 || el.closest('.sr-only')) continue; // hidden, or for screen readers only
      const css = getComputedStyle(el);
      const clips = css.overflow !== 'visible' || css.textOverflow === 'ellipsis';
      const nowrap = css.whiteSpace === 'nowrap' || css.whiteSpace === 'pre';
      const cut = (clips || nowrap) && el.scrollWidth > el.clientWidth + 1 && css.textOverflow !== 'ellipsis';
      const outside = box.right > window.innerWidth + 1;
      if (cut || outside) out.push(`${el.tagName.toLowerCase()}[${el.dataset.testid ?? ''}] “${el.textContent.trim().slice(0, 60)}”`);
    }
    // A drop-down shows its chosen option in its own box (20 px for the arrow).
    const ruler = document.createElement('canvas').getContext('2d');
    for (const el of document.querySelectorAll('select')) {
      const box = el.getBoundingClientRect();
      const chosen = el.options[el.selectedIndex]?.text ?? '';
      if (box.width <= 1 || !chosen || el.closest('.sr-only')) continue;
      const css = getComputedStyle(el);
      ruler.font = `${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
      const room = el.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight) - 20;
      if (ruler.measureText(chosen).width > room) out.push(`select[${el.dataset.testid ?? ''}] “${chosen.slice(0, 60)}”`);
    }
    return out;
  });

async function noClipping(page, what) {
  assert.deepEqual(await overflowing(page), [], `text clipped on ${what}`);
}

/** The main screens in the page's language: each checked and photographed. */
async function screens(page, out, lang) {
  const shot = (name) => page.screenshot({ path: join(out, `lang-${lang}-${name}.png`) });
  await noClipping(page, `the empty chat (${lang})`);
  await shot('empty');
  await send(page, 'Show me a table and some code');
  await waitDone(page);
  await page.evaluate(() =>
    window.__mock.confirmNext({ tool: 'Diagnostics.post_note', arguments: '{"text":"hi"}', text: 'Posted.', deniedText: 'Not posted.' }),
  );
  await send(page, 'Post a note');
  await page.locator(`${lastAssistant} ${sel('confirmation-card')}`).waitFor();
  await noClipping(page, `a confirmation card (${lang})`);
  await shot('confirmation');
  await page.click(`${lastAssistant} ${sel('confirm-deny')}`);
  await waitDone(page);
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('desktop-settings'));
  await noClipping(page, `the settings (${lang})`);
  await shot('settings');
  await page.locator(sel('desktop-settings')).scrollIntoViewIfNeeded();
  await shot('settings-desktop');
  await page.click(sel('close-settings'));
  await page.click(sel('team-open'));
  await noClipping(page, `the team panel (${lang})`);
  await shot('team');
  await page.click(sel('research-open'));
  await noClipping(page, `the research panel (${lang})`);
  await shot('research');
  await page.click(sel('research-close'));
  await page.click(sel('voice-open'));
  await page.waitForSelector(`${sel('voice-panel')}[data-phase="listening"]`, { timeout: 8000 });
  await noClipping(page, `the voice panel (${lang})`);
  await shot('voice');
  await page.click(sel('voice-close'));
}

test('languages: German from the system locale; Settings → Desktop switches to French at once, and back to the system', async ({ page }) => {
  const text = (id) => page.textContent(sel(id));
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('desktop-save'));
  assert.equal((await text('desktop-save')).trim(), 'Desktop-Einstellungen speichern');
  // "As the system (Deutsch)" is chosen: no language saved.
  assert.equal(await page.inputValue(sel('app-language')), '');
  assert.match(await page.textContent(`${sel('app-language')} option:first-child`), /Deutsch/);
  await page.selectOption(sel('app-language'), 'fr');
  await page.click(sel('desktop-save'));
  await page.waitForFunction(() => document.documentElement.lang === 'fr');
  assert.equal((await text('desktop-save')).trim(), 'Enregistrer les paramètres du bureau');
  const saved = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'save_desktop_settings').at(-1).args.settings.language);
  assert.equal(saved, 'fr');
  // Dates and numbers follow: a French date in the schedule's format.
  assert.equal(await page.evaluate(() => new Intl.NumberFormat(document.documentElement.lang).format(1234.5)), '1\u202f234,5');
  await page.selectOption(sel('app-language'), { index: 0 });
  await page.click(sel('desktop-save'));
  await page.waitForFunction(() => document.documentElement.lang === 'de');
  assert.equal((await text('desktop-save')).trim(), 'Desktop-Einstellungen speichern');
}, { locale: 'de-DE' });

test('languages: German — nothing clipped on the main screens, no serious axe violation', async ({ page, out }) => {
  await screens(page, out, 'de');
  await checkA11y(page, 'the empty chat in German');
}, { locale: 'de-DE' });

test('languages: French — nothing clipped on the main screens', async ({ page, out }) => {
  await screens(page, out, 'fr');
}, { locale: 'fr-FR' });

test('languages: Spanish — nothing clipped on the main screens', async ({ page, out }) => {
  await screens(page, out, 'es');
}, { locale: 'es-ES' });

test('languages: the quick window in German fits its small window', async ({ page, out }) => {
  await noClipping(page, 'the quick window (de)');
  await send(page, 'Hallo');
  await waitDone(page);
  await page.screenshot({ path: join(out, 'lang-de-quick.png') });
  await noClipping(page, 'the quick window with an answer (de)');
}, { locale: 'de-DE', hash: '?pane=quick', viewport: { width: 620, height: 460 } });
