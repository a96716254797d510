// Sessions and sanitizing.
import assert from 'node:assert/strict';
import { send, sel, test, waitDone } from './common.mjs';

test('sessions: switch, search, rename, delete + undo, new chat', async ({ page }) => {
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 2);
  const items = page.locator(sel('session-item'));
  assert.equal(await items.first().locator(sel('session-title')).textContent(), 'Rust ownership basics');
  await items.first().locator('button.open').click();
  await page.waitForSelector(`${sel('message')}:has-text("single owner")`);
  assert.equal(await page.textContent(sel('chat-title')), 'Rust ownership basics');
  await items.nth(1).locator('button.open').click();
  await page.waitForSelector(`${sel('message')}:has-text("Alfama")`);
  assert.equal(await page.locator(`${sel('message')}:has-text("single owner")`).count(), 0);
  assert.equal(await page.locator(sel('tool-call')).count(), 1);
  // Search.
  await page.fill(sel('session-search'), 'lisbon');
  assert.equal(await items.count(), 1);
  await page.fill(sel('session-search'), '');
  // Rename (button).
  await items.first().hover();
  await items.first().locator(sel('rename-session')).click();
  await page.fill(sel('rename-input'), 'Ownership, renamed');
  await page.press(sel('rename-input'), 'Enter');
  await page.waitForSelector(`${sel('session-title')}:has-text("Ownership, renamed")`);
  assert.equal(await page.evaluate(() => window.__mock.sessions.get('s1').title), 'Ownership, renamed');
  // Rename (double-click).
  await items.nth(1).locator('button.open').dblclick();
  await page.fill(sel('rename-input'), 'Lisbon');
  await page.press(sel('rename-input'), 'Enter');
  await page.waitForSelector(`${sel('session-title')}:has-text("Lisbon")`);
  assert.equal(await page.textContent(sel('chat-title')), 'Lisbon');
  // Delete + undo.
  await items.first().hover();
  await items.first().locator(sel('delete-session')).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 1);
  await page.click(sel('toast-action'));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 2);
  assert.equal(await page.evaluate(() => window.__mock.sessions.get('s1').deleted), false);
  // New chat (button and Ctrl+N).
  await page.click(sel('new-chat'));
  await page.waitForSelector(sel('empty-state'));
  await items.first().locator('button.open').click();
  await page.waitForSelector(`${sel('message')}`);
  await page.keyboard.press('Control+n');
  await page.waitForSelector(sel('empty-state'));
});

test('sanitizing end to end: streamed HTML never executes', async ({ page }) => {
  await send(page, 'xss test');
  await waitDone(page);
  await page.waitForTimeout(200);
  const r = await page.evaluate(() => {
    const m = document.querySelector('[data-testid="messages"]');
    return {
      xss: window.__xss ?? null,
      imgs: m.querySelectorAll('img').length,
      scripts: m.querySelectorAll('script').length,
      iframes: m.querySelectorAll('iframe').length,
      handlers: [...m.querySelectorAll('*')].some((e) => [...e.attributes].some((a) => a.name.startsWith('on'))),
      jsLinks: [...m.querySelectorAll('a')].filter((a) => /javascript:/i.test(a.getAttribute('href') ?? '')).length,
      text: m.textContent,
    };
  });
  assert.equal(r.xss, null);
  assert.equal(r.imgs, 0);
  assert.equal(r.scripts, 0);
  assert.equal(r.iframes, 0);
  assert.equal(r.handlers, false);
  assert.equal(r.jsLinks, 0);
  assert.match(r.text, /click me/);
  // Clicking the neutralized link does nothing.
  await page.click('a:has-text("click me")');
  assert.equal(await page.evaluate(() => window.__xss ?? null), null);
});

// ------------------------------------------------------------------ voice
