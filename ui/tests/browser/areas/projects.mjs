// Projects: made in Settings → Projects, a chat started in one from the
// sidebar, chats moved in and out, the project removed (its chats to the
// trash; Undo brings them back, outside any project).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { send, sel, test, waitDone } from './common.mjs';

const group = (name) => `${sel('project-group')}:has(${sel('project-name')}:text-is("${name}"))`;
const item = (id) => `${sel('session-item')}[data-id="${id}"]`;

test('projects: create in settings, chat in one, move out and in, delete + undo', async ({ page, out }) => {
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="session-item"]').length === 2);
  // No projects yet: the sidebar offers to make one, and it opens Settings there.
  assert.equal(await page.locator(sel('project-group')).count(), 0);
  assert.equal(await page.locator(sel('move-session')).count(), 0, 'nothing to move a chat to yet');
  await page.click(sel('new-project'));
  const form = page.locator(sel('new-project-form'));
  await page.waitForFunction(() => document.activeElement?.closest('[data-testid="new-project-form"]') && document.activeElement.dataset.testid === 'project-name-input');
  await page.waitForSelector(sel('projects-empty'));

  // A relative folder is refused, in plain words.
  await form.locator(sel('project-name-input')).fill('Port of Gdynia');
  await form.locator(sel('project-folder')).fill('gdynia');
  await form.locator(sel('project-create')).click();
  await page.waitForSelector(`${sel('new-project-form')} ${sel('error')}:has-text("must be an absolute path")`);
  await form.locator(sel('project-folder')).fill('/home/ada/Projects/gdynia');
  await form.locator(sel('project-instructions')).fill('Answer about berths and pilots.\nInvoices are under Finance/.');
  await form.locator(sel('project-agent')).selectOption('researcher');
  await form.locator(sel('project-create')).click();
  await page.waitForSelector(`${sel('project-item')}:has-text("Port of Gdynia")`);
  assert.equal(await form.locator(sel('error')).count(), 0);
  assert.equal(await page.textContent(`${sel('project-item')} ${sel('project-item-folder')}`), '/home/ada/Projects/gdynia');
  assert.equal(await page.textContent(`${sel('project-item')} ${sel('project-item-instructions')}`), 'Answer about berths and pilots. Invoices are under Finance/.');
  assert.equal(await form.locator(sel('project-name-input')).inputValue(), '', 'the form is cleared');

  // A taken name (whatever the case) is refused; Enter sends this form, not the settings.
  await form.locator(sel('project-name-input')).fill('port of gdynia');
  await form.locator(sel('project-folder')).fill('/home/ada/elsewhere');
  await form.locator(sel('project-folder')).press('Enter');
  await page.waitForSelector(`${sel('new-project-form')} ${sel('error')}:has-text("already exists")`);
  await form.locator(sel('project-name-input')).fill('Thesis');
  await form.locator('button:has-text("Choose…")').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="new-project-form"] [data-testid="project-folder"]').value === '/home/ada/Projects/new-workspace');
  await form.locator(sel('project-name-input')).press('Enter');
  await page.waitForSelector(`${sel('project-item')}:has-text("Thesis")`);
  const projects = await page.evaluate(() => window.__mock.projects.map((p) => ({ name: p.name, folder: p.folder, agent: p.agent ?? null, instructions: p.instructions ?? '' })));
  assert.deepEqual(projects, [
    { name: 'Port of Gdynia', folder: '/home/ada/Projects/gdynia', agent: 'researcher', instructions: 'Answer about berths and pilots.\nInvoices are under Finance/.' },
    { name: 'Thesis', folder: '/home/ada/Projects/new-workspace', agent: null, instructions: '' },
  ]);
  assert.equal(await page.evaluate(() => window.__mock.calls.some((c) => c.cmd === 'save_settings')), false, 'Enter did not save the settings');
  const gdynia = await page.evaluate(() => window.__mock.projects[0].id);
  await page.click(sel('close-settings'));

  // The sidebar groups them by name; a new chat in Port of Gdynia from its "+".
  assert.deepEqual(await page.locator(sel('project-name')).allTextContents(), ['Port of Gdynia', 'Thesis']);
  await page.locator(group('Port of Gdynia')).hover();
  await page.click(`${group('Port of Gdynia')} [aria-label="New chat in Port of Gdynia"]`);
  await page.waitForSelector(`${sel('empty-project')}:has-text("Port of Gdynia")`);
  assert.equal(await page.textContent(sel('chat-project')), 'in project Port of Gdynia');
  assert.equal(await page.inputValue(sel('agent-picker')), 'researcher', "the project's agent is picked");
  await send(page, 'When do the pilots come?');
  await waitDone(page);
  const sid = await page.evaluate(() => [...window.__mock.sessions.values()].at(-1).id);
  await page.waitForSelector(`${group('Port of Gdynia')} ${item(sid)}`);
  assert.equal(await page.evaluate((id) => window.__mock.sessions.get(id).project, sid), gdynia);
  const sent = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request));
  assert.deepEqual(sent.map((r) => r.project), [gdynia]);
  assert.equal(await page.textContent(sel('chat-project')), 'in project Port of Gdynia');
  assert.equal(await page.textContent(sel('chat-title')), 'When do the pilots come?');
  // A second message is not sent with a project (the chat is saved in it already).
  await send(page, 'And the tugs?');
  await waitDone(page);
  const sent2 = await page.evaluate(() => window.__mock.calls.filter((c) => c.cmd === 'send_message').map((c) => c.args.request));
  assert.deepEqual(sent2.map((r) => [r.sessionId, r.project ?? 'none']), [[null, gdynia], [sid, 'none']]);

  // Move "Rust ownership basics" into Thesis with the keyboard.
  await page.locator(item('s1')).hover();
  await page.locator(`${item('s1')} ${sel('move-session')}`).focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector(sel('move-menu'));
  assert.equal(await page.evaluate(() => document.activeElement?.textContent.trim()), 'No project', 'the current choice has the focus');
  await page.keyboard.press('Escape');
  assert.equal(await page.locator(sel('move-menu')).count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'move-session', 'Escape gives the focus back');
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent.trim()), 'Thesis');
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${group('Thesis')} ${item('s1')}`);
  assert.equal(await page.evaluate(() => window.__mock.sessions.get('s1').project), await page.evaluate(() => window.__mock.projects[1].id));
  await page.mouse.move(900, 400);
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(out, 'projects-sidebar-1280x800-light.png') });

  // The search filters within the groups.
  await page.fill(sel('session-search'), 'tugs');
  await page.fill(sel('session-search'), 'pilots');
  assert.equal(await page.locator(sel('project-group')).count(), 1);
  assert.equal(await page.locator(`${group('Port of Gdynia')} ${sel('session-item')}`).count(), 1);
  assert.equal(await page.locator(`${sel('sessions')} ${sel('session-item')}`).count(), 0);
  await page.fill(sel('session-search'), '');
  // Folding a project hides its chats.
  await page.click(`${group('Thesis')} ${sel('project-toggle')}`);
  assert.equal(await page.getAttribute(`${group('Thesis')} ${sel('project-toggle')}`, 'aria-expanded'), 'false');
  assert.equal(await page.locator(item('s1')).count(), 0);
  await page.click(`${group('Thesis')} ${sel('project-toggle')}`);
  await page.waitForSelector(item('s1'));

  // Move our chat to "No project": it leaves the group, the header says no project.
  await page.locator(item(sid)).hover();
  await page.click(`${item(sid)} ${sel('move-session')}`);
  await page.click(`${sel('move-menu')} ${sel('move-choice')}[data-project=""]`);
  await page.waitForSelector(`${sel('sessions')} ${item(sid)}`);
  assert.equal(await page.locator(`${group('Port of Gdynia')} ${sel('session-item')}`).count(), 0);
  assert.equal(await page.locator(sel('chat-project')).count(), 0);
  assert.equal(await page.evaluate((id) => window.__mock.sessions.get(id).project, sid), null);
  // …and back in (by mouse), so that the project has a chat to take along.
  await page.locator(item(sid)).hover();
  await page.click(`${item(sid)} ${sel('move-session')}`);
  await page.click(`${sel('move-menu')} ${sel('move-choice')}[data-project="${gdynia}"]`);
  await page.waitForSelector(`${group('Port of Gdynia')} ${item(sid)}`);
  await page.waitForSelector(`${sel('chat-project')}:has-text("Port of Gdynia")`);

  // Delete Port of Gdynia, after the confirmation says what happens.
  await page.click(sel('open-settings'));
  const card = page.locator(`${sel('project-item')}:has-text("Port of Gdynia")`);
  await card.locator(sel('project-delete')).click();
  await card.locator(sel('project-delete-confirmation')).waitFor();
  assert.match(await card.locator(sel('project-delete-confirmation')).textContent(), /Its 1 chat goes to the trash; the folder and its files stay\./);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'project-delete-cancel', 'the safe choice has the focus');
  await card.locator(sel('project-delete-cancel')).click();
  assert.equal(await card.locator(sel('project-delete-confirmation')).count(), 0);
  await card.locator(sel('project-delete')).click();
  await card.locator(sel('project-delete-confirm')).click();
  await page.waitForSelector(`${sel('project-removed')}:has-text("Project “Port of Gdynia” removed; its 1 chat is in the trash.")`);
  assert.equal(await page.locator(`${sel('project-item')}:has-text("Port of Gdynia")`).count(), 0);
  assert.equal(await page.evaluate((id) => window.__mock.sessions.get(id).deleted, sid), true);
  await page.click(sel('close-settings'));
  const toast = page.locator(sel('toast'), { hasText: 'Project “Port of Gdynia” removed; its 1 chat is in the trash.' });
  await toast.waitFor();
  assert.equal(await page.locator(group('Port of Gdynia')).count(), 0);
  assert.equal(await page.locator(item(sid)).count(), 0);
  await page.waitForSelector(sel('empty-state')); // the open chat went to the trash
  assert.equal(await page.locator(sel('chat-project')).count(), 0);
  // Undo brings the chat back, outside any project (the project stays removed).
  await toast.locator(sel('toast-action')).click();
  await page.waitForSelector(`${sel('sessions')} ${item(sid)}`);
  assert.equal(await page.evaluate((id) => window.__mock.sessions.get(id).deleted, sid), false);
  assert.deepEqual(await page.locator(sel('project-name')).allTextContents(), ['Thesis']);
  await page.click(`${item(sid)} button.open`);
  await page.waitForSelector(`${sel('message')}:has-text("When do the pilots come?")`);
  assert.equal(await page.locator(sel('chat-project')).count(), 0, 'its project is gone: shown as in none');
});

test('projects: edit one in settings; the sidebar follows', async ({ page }) => {
  await page.waitForSelector(`${group('Harbour')} ${item('s2')}`);
  await page.click(sel('open-settings'));
  const card = page.locator(`${sel('project-item')}[data-id="p0000beef"]`);
  await card.locator(sel('project-edit')).click();
  await card.locator(sel('project-name-input')).fill('Harbour of Gdynia');
  await card.locator(sel('project-instructions')).fill('Metric units.');
  await card.locator(sel('project-save')).click();
  await page.waitForSelector(`${sel('project-item')}[data-id="p0000beef"] ${sel('project-item-name')}:text-is("Harbour of Gdynia")`);
  assert.deepEqual(await page.evaluate(() => window.__mock.projects.find((p) => p.id === 'p0000beef')), {
    id: 'p0000beef', name: 'Harbour of Gdynia', folder: '/srv/harbour', instructions: 'Metric units.', created: 1765000000,
  });
  // A bad edit is refused where it was made, in words.
  await card.locator(sel('project-edit')).click();
  await card.locator(sel('project-folder')).fill('harbour');
  await card.locator(sel('project-save')).click();
  await card.locator(sel('error')).waitFor();
  assert.match(await card.locator(sel('error')).textContent(), /folder must be an absolute path, not 'harbour'/);
  await card.locator('button:has-text("Cancel")').click();
  await page.click(sel('close-settings'));
  await page.waitForSelector(`${group('Harbour of Gdynia')} ${item('s2')}`);
  await page.click(`${item('s2')} button.open`);
  await page.waitForSelector(`${sel('chat-project')}:has-text("Harbour of Gdynia")`);
}, { hash: '#projects' });
