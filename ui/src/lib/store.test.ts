// @vitest-environment jsdom
// The store over a fake IPC: the picked agent goes with each message, and a
// subagent's question is answered through answerQuestion inside the turn.
import { afterEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { Store } from './store.svelte';
import type { AgentInfo, ChatEvent, MessageView, Project, SendRequest, SessionSummary, SessionView } from './bindings';
import { messageText, type QuestionPart } from './chat';

afterEach(() => clearMocks());

const agent = (name: string, isDefault: boolean): AgentInfo => ({
  name,
  description: name,
  specialisations: [],
  provider: null,
  model: null,
  toolboxes: [],
  delegable: false,
  delegates: false,
  maxMessages: null,
  maxIterations: null,
  tokenBudget: null,
  default: isDefault,
  problem: null,
});

type Run = (id: number, d: unknown) => void;
const runCallback: () => Run = () => (window as unknown as { __TAURI_INTERNALS__: { runCallback: Run } }).__TAURI_INTERNALS__.runCallback;

/** A fake Rust side: each turn runs `turn(emit)`; commands are recorded. */
function fake(turn: (emit: (e: ChatEvent) => void, answered: Promise<string | null>) => Promise<void>) {
  const calls: [string, unknown][] = [];
  let answer!: (a: string | null) => void;
  mockIPC(async (cmd, args) => {
    calls.push([cmd, cmd === 'send_message' ? (args as { request: SendRequest }).request : args]);
    switch (cmd) {
      case 'list_agents':
        return [agent('assistant', true), agent('researcher', false)];
      case 'list_sessions':
        return [];
      case 'answer_question': {
        const a = args as { questionId: string; answer: string | null };
        answer(a.answer);
        return null;
      }
      case 'send_message': {
        const ch = (args as { onEvent: { id: number } }).onEvent.id;
        let index = 0;
        const emit = (message: ChatEvent) => runCallback()(ch, { index: index++, message });
        const answered = new Promise<string | null>((r) => (answer = r));
        emit({ type: 'started', sessionId: 's1', title: 'Budget' });
        await turn(emit, answered);
        emit({ type: 'done', reason: 'answered' });
        return { sessionId: 's1', title: 'Budget', reason: 'answered' };
      }
      default:
        return null;
    }
  });
  return calls;
}

const tick = () => new Promise((r) => setTimeout(r, 30));

describe('store', () => {
  it('the default agent is picked first; the picked one is sent with every message', async () => {
    const calls = fake(async (emit) => emit({ type: 'textDelta', text: 'ok' }));
    const store = new Store();
    await store.refreshAgents();
    expect(store.agent).toBe('assistant');
    store.setAgent('nobody');
    expect(store.agent).toBe('assistant');
    store.setAgent('researcher');
    store.composerText = 'hello';
    await store.send();
    store.composerText = 'again';
    await store.send();
    const sent = calls.filter(([c]) => c === 'send_message').map(([, r]) => r as SendRequest);
    expect(sent.map((r) => [r.text, r.agent, r.sessionId])).toEqual([
      ['hello', 'researcher', null],
      ['again', 'researcher', 's1'],
    ]);
  });

  it("a subagent's question is answered through answerQuestion, inside the same turn", async () => {
    const calls = fake(async (emit, answered) => {
      emit({ type: 'subagentAsked', sessionId: 'sub_1', question: 'Which year?' });
      const a = await answered;
      if (a !== null) emit({ type: 'subagentAnswered', sessionId: 'sub_1', answer: a });
      emit({ type: 'textDelta', text: `It is budget-${a}.xlsx.` });
    });
    const store = new Store();
    store.composerText = 'Where is my budget?';
    const turn = store.send();
    await tick();
    const question = () => store.messages.at(-1)!.parts.find((p): p is QuestionPart => p.kind === 'question');
    expect(question()).toMatchObject({ state: 'waiting' });
    expect(store.streaming).toBe(true);
    await store.answerQuestion('sub_1', '2026');
    expect(question()).toMatchObject({ state: 'answered', answer: '2026' });
    await turn;
    expect(question()).toMatchObject({ state: 'answered', answer: '2026', settled: true });
    expect(calls.filter(([c]) => c === 'answer_question').map(([, a]) => a)).toEqual([{ questionId: 'sub_1', answer: '2026' }]);
    expect(calls.filter(([c]) => c === 'send_message')).toHaveLength(1);
    expect(store.messages.at(-1)!.parts.at(-1)).toEqual({ kind: 'text', text: 'It is budget-2026.xlsx.' });
  });

  it('declining sends null and the card shows it was left to the assistant', async () => {
    const calls = fake(async (emit, answered) => {
      emit({ type: 'subagentAsked', sessionId: 'sub_1', question: 'Which year?' });
      await answered;
      emit({ type: 'textDelta', text: 'Which year do you mean?' });
    });
    const store = new Store();
    store.composerText = 'Where is my budget?';
    const turn = store.send();
    await tick();
    await store.answerQuestion('sub_1', null);
    await turn;
    const q = store.messages.at(-1)!.parts.find((p): p is QuestionPart => p.kind === 'question');
    expect(q).toMatchObject({ state: 'declined', settled: true });
    expect(calls.filter(([c]) => c === 'answer_question').map(([, a]) => a)).toEqual([{ questionId: 'sub_1', answer: null }]);
  });
});

describe('store: projects', () => {
  const gdynia: Project = { id: 'p00000001', name: 'Port of Gdynia', folder: '/srv/gdynia', agent: 'researcher', created: 1 };
  const thesis: Project = { id: 'p00000002', name: 'Thesis', folder: '/srv/thesis', created: 2 };
  const summary = (id: string, project: string | null): SessionSummary => ({ id, title: `Chat ${id}`, updatedMs: 1, messageCount: 2, agent: null, voiceTurns: 0, project });

  /** A fake Rust side with two projects and three chats (two in Gdynia). */
  function fakeProjects() {
    const calls: [string, unknown][] = [];
    let trash: string[] = [];
    let next = 1;
    mockIPC(async (cmd, args) => {
      const a = args as Record<string, unknown>;
      calls.push([cmd, cmd === 'send_message' ? (a.request as SendRequest) : a]);
      switch (cmd) {
        case 'list_agents':
          return [agent('assistant', true), agent('researcher', false)];
        case 'list_projects':
          return [thesis, gdynia];
        case 'list_sessions':
          return [summary('s1', gdynia.id), summary('s2', gdynia.id), summary('s3', null)];
        case 'load_session':
          return { id: String(a.id), title: `Chat ${String(a.id)}`, agent: null, project: a.id === 's9' ? 'p0000dead' : gdynia.id, messages: [] } satisfies SessionView;
        case 'move_session':
          return null;
        case 'delete_project':
          trash = ['s1', 's2'];
          return trash;
        case 'restore_session':
          if (!trash.includes(a.id as string)) throw { code: 'not_found', message: 'not in the trash', details: null };
          trash = trash.filter((t) => t !== a.id);
          return summary(a.id as string, gdynia.id);
        case 'send_message': {
          const ch = (a.onEvent as { id: number }).id;
          const req = a.request as SendRequest;
          const id = req.sessionId ?? `n${next++}`;
          runCallback()(ch, { index: 0, message: { type: 'started', sessionId: id, title: 'New' } });
          runCallback()(ch, { index: 1, message: { type: 'done', reason: 'answered' } });
          return { sessionId: id, title: 'New', reason: 'answered' };
        }
        default:
          return null;
      }
    });
    return calls;
  }

  async function ready(): Promise<Store> {
    const store = new Store();
    await Promise.all([store.refreshAgents(), store.refreshProjects(), store.refreshSessions()]);
    return store;
  }

  it('a chat started in a project is sent with it (its first message only) and talks to its agent', async () => {
    const calls = fakeProjects();
    const store = await ready();
    expect(store.projects.map((p) => p.name)).toEqual(['Port of Gdynia', 'Thesis']);
    store.newChat(gdynia.id);
    expect(store.project?.name).toBe('Port of Gdynia');
    expect(store.agent).toBe('researcher');
    store.composerText = 'Berths for Monday?';
    await store.send();
    store.composerText = 'And Tuesday?';
    await store.send();
    expect(store.project?.name).toBe('Port of Gdynia');
    store.newChat();
    expect(store.project).toBeNull();
    store.composerText = 'Outside';
    await store.send();
    store.newChat('p0000dead'); // removed meanwhile: none
    expect(store.projectId).toBeNull();
    const sent = calls.filter(([c]) => c === 'send_message').map(([, r]) => r as SendRequest);
    expect(sent.filter((r) => 'project' in r)).toHaveLength(1); // the first only
    expect(sent.map((r) => [r.sessionId, r.project ?? null, r.agent])).toEqual([
      [null, gdynia.id, 'researcher'],
      ['n1', null, 'researcher'],
      [null, null, 'researcher'],
    ]);
  });

  it("an opened chat shows its project; one whose project is gone shows none", async () => {
    fakeProjects();
    const store = await ready();
    await store.openSession('s1');
    expect(store.project?.id).toBe(gdynia.id);
    await store.openSession('s9');
    expect(store.projectId).toBe('p0000dead');
    expect(store.project).toBeNull();
  });

  it('moving a chat changes its project in the list and in view', async () => {
    const calls = fakeProjects();
    const store = await ready();
    await store.openSession('s1');
    await store.moveSession('s1', null);
    expect(calls.filter(([c]) => c === 'move_session').map(([, a]) => a)).toEqual([{ id: 's1', project: null }]);
    expect(store.sessions.find((s) => s.id === 's1')?.project).toBeNull();
    expect(store.project).toBeNull();
    await store.moveSession('s3', thesis.id);
    expect(store.sessions.find((s) => s.id === 's3')?.project).toBe(thesis.id);
    expect(store.toasts.at(-1)?.text).toBe('Moved “Chat s3” to Thesis.');
  });

  it('deleting a project takes it and its chats off the lists; Undo brings the chats back, once', async () => {
    const calls = fakeProjects();
    const store = await ready();
    await store.openSession('s2');
    const removed = await store.deleteProject(gdynia.id);
    expect(store.projects.map((p) => p.name)).toEqual(['Thesis']);
    expect(store.sessions.map((s) => s.id)).toEqual(['s3']);
    expect(store.sessionId).toBeNull(); // the open chat went with it
    expect(store.project).toBeNull();
    const toast = store.toasts.at(-1)!;
    expect(toast.text).toBe('Project “Port of Gdynia” removed; its 2 chats are in the trash.');
    expect(removed.text).toBe(toast.text);
    toast.action!.run();
    await removed.undo!();
    await tick();
    expect(calls.filter(([c]) => c === 'restore_session').map(([, a]) => a)).toEqual([{ id: 's1' }, { id: 's2' }]);
    expect(store.sessions.map((s) => s.id).sort()).toEqual(['s1', 's2', 's3']);
    // Back outside any project: theirs is gone.
    expect(store.sessions.filter((s) => s.id !== 's3').map((s) => store.projects.some((p) => p.id === s.project))).toEqual([false, false]);
    expect(store.toasts.some((t) => t.id === toast.id)).toBe(false);
    expect(store.error).toBeNull();
  });

  it('a failed delete throws for the panel to show, and changes nothing', async () => {
    mockIPC((cmd) => {
      if (cmd === 'list_projects') return [gdynia];
      if (cmd === 'delete_project') throw { code: 'io', message: 'the projects file could not be written', details: null };
      return [];
    });
    const store = new Store();
    await store.refreshProjects();
    await expect(store.deleteProject(gdynia.id)).rejects.toMatchObject({ code: 'io' });
    expect(store.projects).toHaveLength(1);
    expect(store.toasts).toEqual([]);
  });
});

describe('store: branches', () => {
  const view = (role: 'user' | 'assistant', text: string, branch: { index: number; count: number } | null = null, attachments: string[] = []): MessageView => ({
    role,
    text,
    toolCalls: [],
    attachments,
    spoken: null,
    citations: [],
    branch,
  });
  const three = [view('user', 'q1', null, ['plan.pdf']), view('assistant', 'a1'), view('user', 'q2'), view('assistant', 'a2'), view('user', 'q3'), view('assistant', 'a3')];

  /**
   * A fake Rust side holding conversation s1 (`stored`, what load_session
   * gives); a turn's answer waits for `release` when `hold` is set.
   */
  function fakeBranches(opts: { stored: () => MessageView[]; switched?: (at: number, to: number) => MessageView[]; hold?: Promise<void> }) {
    const calls: [string, unknown][] = [];
    mockIPC(async (cmd, args) => {
      const a = args as Record<string, unknown>;
      calls.push([cmd, cmd === 'send_message' ? (a.request as SendRequest) : a]);
      switch (cmd) {
        case 'list_sessions':
          return [];
        case 'load_session':
          return { id: 's1', title: 'Harbour', agent: null, project: null, messages: opts.stored() } satisfies SessionView;
        case 'switch_branch': {
          if (!opts.switched) throw { code: 'not_found', message: 'the message has no branch number 5', details: null };
          return { id: 's1', title: 'Harbour', agent: null, project: null, messages: opts.switched(a.at as number, a.to as number) } satisfies SessionView;
        }
        case 'send_message': {
          const ch = (a.onEvent as { id: number }).id;
          runCallback()(ch, { index: 0, message: { type: 'started', sessionId: 's1', title: 'Harbour' } });
          if (opts.hold) await opts.hold;
          runCallback()(ch, { index: 1, message: { type: 'textDelta', text: 'b1' } });
          runCallback()(ch, { index: 2, message: { type: 'done', reason: 'answered' } });
          return { sessionId: 's1', title: 'Harbour', reason: 'answered' };
        }
        default:
          return null;
      }
    });
    return calls;
  }

  const texts = (store: Store) => store.messages.map((m) => messageText(m));
  const sent = (calls: [string, unknown][]) => calls.filter(([c]) => c === 'send_message').map(([, r]) => r as SendRequest);

  it('edits the first user message: sent as edit 0 (a new branch), the later messages go at once, then the branch counter shows', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let stored = three;
    const calls = fakeBranches({ stored: () => stored, hold });
    const store = new Store();
    await store.openSession('s1');
    store.startEdit(0);
    expect(store.composerText).toBe('q1');
    expect(store.editingAt).toBe(0);
    expect(store.editing).toBe(true);
    store.composerText = 'q1, but in May';
    const turn = store.send();
    await tick();
    // Optimistic: cut from the edited message on; its files stay with it.
    expect(store.editing).toBe(false);
    expect(texts(store)).toEqual(['q1, but in May', '']);
    expect(store.messages[0]!.attachments).toEqual(['plan.pdf']);
    expect(store.streaming).toBe(true);
    stored = [view('user', 'q1, but in May', { index: 1, count: 2 }, ['plan.pdf']), view('assistant', 'b1')];
    release();
    await turn;
    expect(sent(calls)).toEqual([{ sessionId: 's1', text: 'q1, but in May', attachmentIds: [], replaceLast: false, edit: 0, agent: null }]);
    // Read again after the turn: the counter is there.
    expect(calls.filter(([c]) => c === 'load_session')).toHaveLength(2);
    expect(texts(store)).toEqual(['q1, but in May', 'b1']);
    expect(store.messages[0]!.branch).toEqual({ index: 1, count: 2 });
  });

  it('the last user message (the default) is edited by its number too; a plain message sends no edit', async () => {
    const calls = fakeBranches({ stored: () => three });
    const store = new Store();
    await store.openSession('s1');
    store.startEdit();
    expect(store.composerText).toBe('q3');
    store.composerText = 'q3 again';
    await store.send();
    store.composerText = 'and then?';
    await store.send();
    const reqs = sent(calls);
    expect(reqs.map((r) => [r.text, r.edit, r.replaceLast])).toEqual([
      ['q3 again', 2, false],
      ['and then?', undefined, false],
    ]);
    expect('edit' in reqs[1]!).toBe(false);
  });

  it('only user messages can be edited, never while an answer is written; Cancel forgets the edit', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    fakeBranches({ stored: () => three, hold });
    const store = new Store();
    await store.openSession('s1');
    store.startEdit(1); // an answer
    expect(store.editingAt).toBeNull();
    store.startEdit(2);
    expect(store.editingAt).toBe(1);
    store.cancelEdit();
    expect([store.editingAt, store.composerText]).toEqual([null, '']);
    store.composerText = 'more';
    const turn = store.send();
    await tick();
    store.startEdit(0);
    expect(store.editingAt).toBeNull();
    release();
    await turn;
  });

  it('switchBranch shows the conversation the command returns; what did not change stays as shown', async () => {
    const switched = (at: number, to: number) =>
      to === 0
        ? [view('user', 'q1'), view('assistant', 'a1'), view('user', 'q2', { index: 0, count: 2 }), view('assistant', 'a2'), view('user', 'q3'), view('assistant', 'a3')]
        : [view('user', 'q1'), view('assistant', 'a1'), view('user', 'q2 edited', { index: 1, count: 2 }), view('assistant', 'b2')];
    const calls = fakeBranches({ stored: () => switched(1, 1), switched });
    const store = new Store();
    await store.openSession('s1');
    const [first, second] = store.messages;
    store.startEdit(0);
    await store.switchBranch(1, 0);
    expect(calls.filter(([c]) => c === 'switch_branch').map(([, a]) => a)).toEqual([{ id: 's1', at: 1, to: 0 }]);
    expect(texts(store)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
    expect(store.messages[2]!.branch).toEqual({ index: 0, count: 2 });
    expect(store.messages[0]).toBe(first);
    expect(store.messages[1]).toBe(second);
    expect(store.editingAt).toBeNull(); // switching ends an edit
    await store.switchBranch(1, 1);
    expect(texts(store)).toEqual(['q1', 'a1', 'q2 edited', 'b2']);
    expect(store.switching).toBe(false);
  });

  it('switchBranch: not while an answer is written; a failure is shown and the chat stays', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const calls = fakeBranches({ stored: () => three, hold });
    const store = new Store();
    await store.openSession('s1');
    store.composerText = 'more';
    const turn = store.send();
    await tick();
    await store.switchBranch(0, 0);
    expect(calls.filter(([c]) => c === 'switch_branch')).toHaveLength(0);
    release();
    await turn;
    const before = store.messages;
    await store.switchBranch(0, 5);
    expect(store.error?.code).toBe('not_found');
    expect(store.messages).toBe(before);
    // No chat open: nothing to switch.
    store.newChat();
    await store.switchBranch(0, 0);
    expect(calls.filter(([c]) => c === 'switch_branch')).toHaveLength(1);
  });
});
