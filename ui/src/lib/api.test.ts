// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { api, ApiError, toIpcError } from './api';

afterEach(() => clearMocks());

describe('api', () => {
  it('passes snake_case command names and camelCase args, returns data', async () => {
    const seen: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === 'update_provider') return { name: 'x' };
      if (cmd === 'attach_bytes') return [];
      if (cmd === 'list_agents') return [];
      if (cmd === 'restore_backup') return { path: '/b.xlsx', restoredFrom: '/b.xlsx.001.bak', savedCurrent: '/b.xlsx.002.bak' };
      return null;
    });
    await api.updateProvider('x', null, 'm');
    await api.attachBytes('a.png', 'AAAA');
    await api.answerConfirmation('confirm_1', true);
    await api.answerQuestion('sub_1', '2026');
    await api.answerQuestion('sub_1', null);
    await api.listAgents();
    expect(await api.restoreBackup('/b.xlsx', '/b.xlsx.001.bak')).toEqual({ path: '/b.xlsx', restoredFrom: '/b.xlsx.001.bak', savedCurrent: '/b.xlsx.002.bak' });
    await api.restoreBackup('/b.xlsx', null);
    expect(seen).toEqual([
      ['update_provider', { name: 'x', endpoint: null, model: 'm' }],
      ['attach_bytes', { name: 'a.png', dataBase64: 'AAAA' }],
      ['answer_confirmation', { id: 'confirm_1', approved: true }],
      ['answer_question', { questionId: 'sub_1', answer: '2026' }],
      ['answer_question', { questionId: 'sub_1', answer: null }],
      ['list_agents', {}],
      ['restore_backup', { path: '/b.xlsx', backup: '/b.xlsx.001.bak' }],
      ['restore_backup', { path: '/b.xlsx', backup: null }],
    ]);
  });

  it('the project commands: names and arguments as the Rust side takes them', async () => {
    const seen: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === 'list_projects') return [];
      if (cmd === 'delete_project') return ['s1'];
      if (cmd === 'move_session') return null;
      return { id: 'p00000001', name: 'Port', folder: '/srv/port', created: 1 };
    });
    const np = { name: 'Port', folder: '/srv/port', instructions: '', agent: null, provider: null };
    await api.listProjects();
    await api.createProject(np);
    await api.updateProject('p00000001', np);
    expect(await api.deleteProject('p00000001')).toEqual(['s1']);
    await api.moveSession('s2', 'p00000001');
    await api.moveSession('s2', null);
    expect(seen).toEqual([
      ['list_projects', {}],
      ['create_project', { project: np }],
      ['update_project', { id: 'p00000001', project: np }],
      ['delete_project', { id: 'p00000001' }],
      ['move_session', { id: 's2', project: 'p00000001' }],
      ['move_session', { id: 's2', project: null }],
    ]);
  });

  it('switchBranch: the command name and arguments as the Rust side takes them; the conversation back', async () => {
    const seen: [string, unknown][] = [];
    const view = { id: 's1', title: 'T', agent: null, project: null, messages: [] };
    mockIPC((cmd, args) => {
      seen.push([cmd, args]);
      return view;
    });
    expect(await api.switchBranch('s1', 2, 0)).toEqual(view);
    expect(seen).toEqual([['switch_branch', { id: 's1', at: 2, to: 0 }]]);
  });

  it('turns {status:"error"} into ApiError with code, message and details', async () => {
    mockIPC(() => {
      throw { code: 'keychain', message: 'The keychain is locked.', details: 'org.freedesktop.Secret: locked' };
    });
    const err = await api.setApiKey('openai', 'sk-x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(toIpcError(err)).toEqual({ code: 'keychain', message: 'The keychain is locked.', details: 'org.freedesktop.Secret: locked' });
  });

  it('maps unknown failures to internal', () => {
    expect(toIpcError(new Error('x')).code).toBe('internal');
    expect(toIpcError('plain')).toEqual({ code: 'internal', message: 'plain', details: null });
    expect(toIpcError({ code: 'weird', message: 'm' }).code).toBe('internal');
  });

  it('sends a channel with send_message and delivers its events in order', async () => {
    mockIPC((cmd, args) => {
      if (cmd !== 'send_message') return;
      const a = args as { request: { text: string }; onEvent: { id: number } };
      const run = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, d: unknown) => void } }).__TAURI_INTERNALS__.runCallback;
      // out of order on the wire: the channel reorders by index
      run(a.onEvent.id, { index: 1, message: { type: 'textDelta', text: a.request.text } });
      run(a.onEvent.id, { index: 0, message: { type: 'started', sessionId: 's1', title: 't' } });
      run(a.onEvent.id, { index: 2, message: { type: 'done', reason: 'answered' } });
      return { sessionId: 's1', title: 't', reason: 'answered' };
    });
    const got: string[] = [];
    const res = await api.sendMessage({ sessionId: null, text: 'hi', attachmentIds: [], replaceLast: false, agent: null }, (e) => got.push(e.type));
    expect(res.sessionId).toBe('s1');
    expect(got).toEqual(['started', 'textDelta', 'done']);
  });

  it('never writes to web storage', async () => {
    mockIPC((cmd) => (cmd === 'set_api_key' ? { provider: 'p', stored: true, masked: 'sk-…1234', source: 'keychain' } : null));
    await api.setApiKey('p', 'sk-secret-1234');
    expect(localStorage.length + sessionStorage.length).toBe(0);
  });
});
