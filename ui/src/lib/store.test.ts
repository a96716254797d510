// @vitest-environment jsdom
// The store over a fake IPC: the picked agent goes with each message, and a
// subagent's question is answered through answerQuestion inside the turn.
import { afterEach, describe, expect, it } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { Store } from './store.svelte';
import type { AgentInfo, ChatEvent, SendRequest } from './bindings';
import type { QuestionPart } from './chat';

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
