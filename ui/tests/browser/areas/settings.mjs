// Settings: providers and keys, changes made outside the app, browser, e-mail, the HTTP API, plugins and MCP.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { send, sel, test } from './common.mjs';

test('settings changed outside the app (baton config set) show in the open panel', async ({ page }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('anonymize'));
  assert.equal(await page.isChecked(sel('anonymize')), false);
  await page.evaluate(() => window.__mock.changeSettingsElsewhere({ anonymize: true, attachmentContextChars: 12000 }));
  await page.waitForSelector(sel('settings-changed-elsewhere'));
  assert.equal(await page.isChecked(sel('anonymize')), true);
  assert.equal(await page.inputValue(sel('attachment-budget')), '12000');
});

test('settings: choose provider, save key (masked, not kept), save settings', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(`${sel('provider-option')}[data-name="openai"]`);
  await page.check(`${sel('provider-option')}[data-name="openai"] input`);
  await page.waitForSelector(sel('api-key-input'));
  await page.waitForSelector(`${sel('key-status')}:has-text("No key stored")`);
  const KEY = 'sk-test-SECRET-1234567890abcd';
  await page.fill(sel('api-key-input'), KEY);
  await page.click(sel('save-key'));
  await page.waitForSelector(`${sel('key-status')}[data-stored="true"]`);
  assert.match(await page.textContent(sel('key-status')), /sk-…abcd/);
  assert.equal(await page.inputValue(sel('api-key-input')), '');
  const leaks = await page.evaluate((k) => {
    const all = [];
    for (const s of [localStorage, sessionStorage]) for (let i = 0; i < s.length; i++) all.push(s.key(i), s.getItem(s.key(i)));
    const inputs = [...document.querySelectorAll('input, textarea')].map((e) => e.value);
    return { storage: all.join('|').includes(k), dom: document.documentElement.outerHTML.includes(k), inputs: inputs.some((v) => v.includes(k)), storageLen: localStorage.length + sessionStorage.length };
  }, KEY);
  assert.deepEqual(leaks, { storage: false, dom: false, inputs: false, storageLen: 0 });
  assert.equal(await page.evaluate(() => window.__mock.keys.get('openai')), KEY);
  // Provider became ready.
  await page.waitForSelector(`${sel('provider-option')}[data-name="openai"] ${sel('provider-status')}:has-text("ready")`);
  // Custom entry edit.
  await page.check(`${sel('provider-option')}[data-name="my-ollama"] input`);
  await page.fill(sel('provider-model'), 'qwen3:14b');
  await page.click(sel('apply-provider'));
  await page.waitForFunction(() => window.__mock.providers.find((p) => p.name === 'my-ollama').model === 'qwen3:14b');
  await page.check(`${sel('provider-option')}[data-name="openai"] input`);
  // Other settings.
  await page.click('button:has-text("Choose…")');
  await page.waitForFunction(() => document.querySelector('[data-testid="workspace"]').value === '/home/ada/Projects/new-workspace');
  await page.selectOption(sel('interaction-mode'), 'api');
  await page.check(sel('anonymize'));
  await page.fill(sel('anonymize-terms'), 'Ada Lovelace, ACME\nProject X');
  await page.fill(sel('attachment-budget'), '20000');
  await page.check(sel('skip-indexing'));
  await page.screenshot({ path: join(out, 'settings-1280x800-light.png') });
  await page.click(sel('save-settings'));
  await page.waitForSelector(sel('settings-saved'));
  const s = await page.evaluate(() => window.__mock.settings);
  assert.deepEqual(s, {
    provider: 'openai',
    workspace: '/home/ada/Projects/new-workspace',
    interactionMode: 'api',
    anonymize: true,
    anonymizeTerms: ['Ada Lovelace', 'ACME', 'Project X'],
    attachmentContextChars: 20000,
    skipIndexingOnStartup: true,
    memory: true,
    ocrProvider: null,
  });
  // Index rebuild shows progress from index-progress events.
  await page.click(sel('rebuild-index'));
  await page.waitForSelector(sel('index-progress'));
  await page.waitForSelector(`${sel('index-status')}[data-state="idle"]`, { timeout: 10000 });
  // Errors show inline.
  await page.fill(sel('workspace'), '   ');
  await page.click(sel('save-settings'));
  await page.waitForSelector(`${sel('settings')} ${sel('error')}[data-code="config"]`);
  await page.keyboard.press('Escape');
  await page.waitForSelector(sel('api-key-input'), { state: 'detached' });
  // The header shows the new provider's model.
  await page.waitForFunction(() => document.body.textContent.includes('gpt-4.1-mini'));
  // Keyboard: Ctrl+, opens settings.
  await page.keyboard.press('Control+,');
  await page.waitForSelector(sel('save-settings'));
});

test('settings: browser mode, sites (a page address is refused), the one-time attach step, test connection', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('browser-found'));
  assert.match(await page.textContent(sel('browser-attach-status')), /edge:\/\/inspect/);
  await page.check(`${sel('browser-mode')}[data-mode="profile"]`);
  await page.fill(sel('browser-allowed'), 'https://portal.example.com/\nexample.com/login');
  await page.waitForSelector(sel('browser-problem'));
  assert.equal(await page.isDisabled(sel('browser-save')), true);
  await page.fill(sel('browser-allowed'), 'https://portal.example.com/\nshop.example.org');
  await page.fill(sel('browser-blocked'), 'ads.example.com');
  await page.check(sel('browser-other-schemes'));
  await page.click(sel('browser-save'));
  await page.waitForSelector(sel('browser-saved'));
  const b = await page.evaluate(() => window.__mock.browser);
  assert.deepEqual(
    { mode: b.mode, path: b.path, allowedSites: b.allowedSites, blockedSites: b.blockedSites, allowOtherSchemes: b.allowOtherSchemes },
    { mode: 'profile', path: null, allowedSites: ['portal.example.com', 'shop.example.org'], blockedSites: ['ads.example.com'], allowOtherSchemes: true },
  );
  assert.equal(await page.inputValue(sel('browser-allowed')), 'portal.example.com\nshop.example.org');
  // A program that is not there is refused by the back end, in words.
  await page.fill(sel('browser-path'), 'msedge.exe');
  await page.click(sel('browser-save'));
  await page.waitForSelector(`${sel('browser-settings')} ${sel('error')}`);
  await page.fill(sel('browser-path'), '');
  await page.click(sel('browser-test'));
  await page.waitForSelector(`${sel('browser-test-result')}.ok`);
  assert.match(await page.textContent(sel('browser-test-result')), /Connected to Chrome/);
  await page.evaluate(() => {
    window.__mock.browserTest = { ok: false, mode: null, message: 'no browser: no Edge, Chrome or Chromium was found' };
  });
  await page.click(sel('browser-test'));
  await page.waitForSelector(`${sel('browser-test-result')}:not(.ok)`);
  await page.locator(sel('browser-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-browser.png') });
});

test('settings: e-mail address, servers, passwords into the keychain (never shown again), ask before sending, test sign-in', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('mail-settings'));
  await page.fill(sel('mail-address'), 'ana at example');
  await page.click(sel('mail-save'));
  await page.waitForSelector(`${sel('mail-settings')} ${sel('error')}`);
  assert.match(await page.textContent(`${sel('mail-settings')} ${sel('error')}`), /not an e-mail address/);
  await page.fill(sel('mail-address'), 'ana@example.org');
  await page.fill(sel('mail-name'), 'Ana Example');
  await page.fill(sel('mail-imap-host'), 'imap.example.org');
  await page.selectOption(sel('mail-smtp-security'), 'starttls');
  // The port hint follows the security; empty means the standard port.
  assert.equal(await page.getAttribute(sel('mail-smtp-port'), 'placeholder'), '587');
  assert.equal(await page.getAttribute(sel('mail-imap-port'), 'placeholder'), '993');
  await page.fill(sel('mail-smtp-host'), 'smtp.example.org');
  await page.fill(sel('mail-imap-password'), 'hunter2');
  await page.uncheck(sel('mail-confirm-send'));
  await page.click(sel('mail-save'));
  await page.waitForSelector(sel('mail-saved'));
  const m = await page.evaluate(() => ({ mail: window.__mock.mail, pw: window.__mock.mailPasswords }));
  assert.deepEqual(
    { address: m.mail.address, name: m.mail.name, confirm: m.mail.confirmSend, imap: m.mail.imap.host, smtp: [m.mail.smtp.host, m.mail.smtp.tls, m.mail.smtp.port] },
    { address: 'ana@example.org', name: 'Ana Example', confirm: false, imap: 'imap.example.org', smtp: ['smtp.example.org', 'starttls', null] },
  );
  assert.deepEqual(m.pw, { imap: 'hunter2' });
  // The password field is emptied; the keychain holds it.
  assert.equal(await page.inputValue(sel('mail-imap-password')), '');
  await page.waitForSelector(sel('mail-imap-password-set'));
  assert.equal(await page.locator(sel('mail-smtp-password-set')).count(), 0);
  await page.click(sel('mail-test'));
  await page.waitForSelector(sel('mail-test-smtp'));
  assert.match(await page.textContent(sel('mail-test-imap')), /Signed in; 5 folders/);
  assert.match(await page.textContent(sel('mail-test-smtp')), /refused the sign-in/);
  assert.equal(await page.locator(`${sel('mail-test-smtp')}.ok`).count(), 0);
  await page.locator(sel('mail-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-mail.png') });
});

test('settings: the HTTP API starts and stops from the settings, says why it could not start, and saves its address and port', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('server-stopped'));
  await page.fill(sel('server-host'), 'localhost');
  await page.click(sel('server-save'));
  await page.waitForSelector(`${sel('server-settings')} ${sel('error')}`);
  assert.match(await page.textContent(`${sel('server-settings')} ${sel('error')}`), /not an IP address/);
  await page.fill(sel('server-host'), '127.0.0.1');
  // A port another program holds: the reason, in words.
  await page.fill(sel('server-port'), '8081');
  await page.click(sel('server-save'));
  await page.waitForSelector(sel('server-saved'));
  await page.click(sel('server-start'));
  await page.waitForSelector(sel('server-error'));
  assert.match(await page.textContent(sel('server-error')), /Address already in use/);
  await page.fill(sel('server-port'), '9090');
  // The names other computers reach it by, split at commas and spaces.
  await page.fill(sel('server-host-names'), 'baton.lan, office-pc');
  await page.check(sel('server-start-with-app'));
  await page.click(sel('server-save'));
  await page.click(sel('server-start'));
  await page.waitForSelector(sel('server-running'));
  assert.match(await page.textContent(sel('server-running')), /http:\/\/127\.0\.0\.1:9090\/v1.*API key required/);
  // The app's own key, to copy into a client.
  await page.click(sel('server-show-key'));
  assert.match(await page.textContent(sel('server-key')), /^bk-\w{60,}$/);
  const saved = await page.evaluate(() => window.__mock.server.settings);
  assert.deepEqual(saved, { startWithApp: true, host: '127.0.0.1', port: 9090, sessions: 'memory', sessionTtlDays: 30, hostNames: ['baton.lan', 'office-pc'] });
  await page.locator(sel('server-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-server.png') });
  await page.click(sel('server-stop'));
  await page.waitForSelector(sel('server-stopped'));
});

test('plugins & MCP: servers and plugins with their state and tools, turned off and on, a server added; prompts in the composer', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('mcp-server'));
  const item = (name) => `${sel('mcp-server')}[data-name="${name}"]`;
  assert.equal(await page.textContent(`${item('Words')} ${sel('mcp-state')}`), 'Running');
  assert.match(await page.textContent(`${item('Words')} ${sel('mcp-tools')}`), /2 tools: count_words, reverse_words/);
  assert.equal(await page.textContent(`${item('weather')} ${sel('mcp-state')}`), 'Crashed');
  assert.match(await page.textContent(`${item('weather')} ${sel('mcp-server-problem')}`), /did not start/);
  assert.match(await page.textContent(sel('mcp-problem')), /plugin\.json cannot be used/);
  // Off and on again.
  await page.uncheck(`${item('Words')} ${sel('mcp-enabled')}`);
  await page.waitForFunction(() => document.querySelector('[data-name="Words"] [data-testid="mcp-state"]')?.textContent === 'Off');
  await page.check(`${item('Words')} ${sel('mcp-enabled')}`);
  await page.waitForFunction(() => document.querySelector('[data-name="Words"] [data-testid="mcp-state"]')?.textContent === 'Running');
  // Trust: a running server can be trusted; one that did not start says why.
  assert.equal(await page.isChecked(`${item('Words')} ${sel('mcp-trusted')}`), false);
  await page.check(`${item('Words')} ${sel('mcp-trusted')}`);
  await page.waitForFunction(() => document.querySelector('[data-name="Words"] [data-testid="mcp-trusted"]')?.checked === true);
  // A refused tick puts the box back, so click (check() would insist it stays ticked).
  await page.click(`${item('weather')} ${sel('mcp-trusted')}`);
  await page.waitForFunction(() => /did not start/.test(document.querySelector('[data-testid="mcp-settings"] [data-testid="error"]')?.textContent ?? ''));
  assert.equal(await page.isChecked(`${item('weather')} ${sel('mcp-trusted')}`), false);
  // Adding needs a command; a name in use is refused in words.
  await page.fill(sel('mcp-add-name'), 'weather');
  await page.click(sel('mcp-add'));
  await page.waitForSelector(`${sel('mcp-settings')} ${sel('error')}`);
  assert.match(await page.textContent(`${sel('mcp-settings')} ${sel('error')}`), /command or its address/);
  await page.fill(sel('mcp-add-target'), 'npx -y "@modelcontextprotocol/server-everything"');
  await page.click(sel('mcp-add'));
  await page.waitForFunction(() => /already a server named/.test(document.querySelector('[data-testid="mcp-settings"] [data-testid="error"]')?.textContent ?? ''));
  await page.fill(sel('mcp-add-name'), 'everything');
  await page.click(sel('mcp-add'));
  await page.waitForSelector(item('everything'));
  assert.equal(await page.inputValue(sel('mcp-add-name')), '', 'the form is cleared once added');
  const added = await page.evaluate(() => window.__mock.mcp.servers.find((s) => s.name === 'everything').target);
  assert.equal(added, 'npx -y @modelcontextprotocol/server-everything');
  await page.locator(sel('mcp-settings')).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'settings-mcp.png') });
  await page.click(sel('close-settings'));
  // The composer offers the servers' prompts as /prompt lines to fill in.
  await page.click(sel('prompts-open'));
  await page.waitForSelector(sel('prompt-item'));
  assert.equal(await page.locator(sel('prompt-item')).count(), 2);
  await page.screenshot({ path: join(out, 'composer-prompts.png') });
  await page.click(`${sel('prompt-item')}:first-child`);
  assert.equal(await page.inputValue(sel('composer')), '/prompt everything:args-prompt city= state=');
  assert.equal(await page.locator(sel('prompts-menu')).count(), 0, 'the menu closes');
});

test('memory: what Baton remembers is listed with where it came from, corrected, forgotten and added; turning it off says so', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.waitForSelector(sel('memory-item'));
  const texts = () => page.locator(sel('memory-text')).allTextContents();
  assert.deepEqual(await texts(), ['Prefers metric units', 'The invoice folder is /Finance/Invoices']);
  assert.match(await page.locator(sel('memory-item')).first().textContent(), /from the chat “Trip planning: Lisbon”/);
  await page.locator(sel('memory-item')).nth(1).getByRole('button', { name: /^Edit/ }).click();
  await page.fill(sel('memory-edit'), 'The invoice folder is /Finance/2026');
  await page.click(sel('memory-save'));
  await page.waitForSelector(`${sel('memory-text')}:has-text("/Finance/2026")`);
  await page.locator(sel('memory-forget')).first().click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 1);
  await page.fill(sel('memory-new'), 'Drinks tea, not coffee');
  await page.press(sel('memory-new'), 'Enter');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="memory-item"]').length === 2);
  assert.deepEqual(await texts(), ['The invoice folder is /Finance/2026', 'Drinks tea, not coffee']);
  const kept = await page.evaluate(() => window.__mock.memories.map((m) => m.text));
  assert.deepEqual(kept, ['The invoice folder is /Finance/2026', 'Drinks tea, not coffee']);
  await page.locator(sel('memory-settings')).screenshot({ path: join(out, 'memory.png') });
  await page.uncheck(sel('memory-enabled'));
  await page.waitForSelector(sel('memory-off'));
  await page.click(sel('save-settings'));
  await page.waitForSelector(sel('settings-saved'));
  assert.equal(await page.evaluate(() => window.__mock.settings.memory), false);
});

test('conversations: every chat exported as JSON or Markdown to a chosen folder; a ChatGPT export imported with what did not come over', async ({ page, out }) => {
  await page.click(sel('open-settings'));
  await page.click(sel('export-json'));
  await page.waitForSelector(sel('conversations-note'));
  assert.match(await page.textContent(sel('conversations-note')), /Exported 2 conversations to \/home\/ada\/Projects\/new-workspace\./);
  await page.click(sel('export-markdown'));
  await page.waitForFunction(() => window.__mock.exported.length === 2);
  await page.click(sel('export-pdf'));
  await page.waitForFunction(() => window.__mock.exported.length === 3);
  assert.deepEqual(await page.evaluate(() => window.__mock.exported.map((e) => e.format)), ['json', 'markdown', 'pdf']);
  await page.click(sel('import-conversations'));
  await page.waitForSelector(`${sel('conversations-note')}:has-text("ChatGPT export")`);
  assert.match(await page.textContent(sel('conversations-note')), /ChatGPT export: 1 conversation imported, 0 already here\./);
  assert.match(await page.textContent(sel('conversations-left-out')), /Left out: “Trip to Lisbon”: 1 attached file left out/);
  await page.locator(sel('conversations-settings')).screenshot({ path: join(out, 'conversations.png') });
});

test('conversations: the open chat, or one project, exported on its own', async ({ page }) => {
  const sid = await page.evaluate(() => [...window.__mock.sessions.values()][0].id);
  await page.click(`${sel('session-item')}[data-id="${sid}"] button.open`);
  await page.waitForFunction((id) => document.querySelector(`[data-testid="session-item"][data-id="${id}"]`)?.classList.contains('current'), sid);
  await page.click(sel('open-settings'));
  const project = await page.evaluate(() => window.__mock.projects[0].id);
  await page.waitForSelector(`${sel('export-scope')} option[value="project:${project}"]`, { state: 'attached' });
  const options = await page.locator(`${sel('export-scope')} option`).evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(options, ['all', 'chat', `project:${project}`]);
  await page.selectOption(sel('export-scope'), 'chat');
  await page.click(sel('export-markdown'));
  await page.waitForSelector(`${sel('conversations-note')}:has-text("Exported 1 conversation to")`);
  await page.selectOption(sel('export-scope'), `project:${project}`);
  await page.click(sel('export-json'));
  await page.waitForFunction(() => window.__mock.exported.length === 2);
  const sent = await page.evaluate(() => window.__mock.exported.map((e) => [e.format, e.session, e.project]));
  assert.deepEqual(sent, [['markdown', sid, null], ['json', null, project]]);
}, { hash: '#projects' });
