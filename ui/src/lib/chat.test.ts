import { describe, expect, it } from 'vitest';
import type { ChatEvent } from './bindings';
import { answerConfirmation, answerQuestion, applyEvents, assistantMessage, finishTurn, fromView, isSystemOnly, keepShown, lastIndexOfRole, messageText, prettyJson, reopenConfirmation, reopenQuestion, spokenNote, userIndex, userMessage, userOrdinals, type ChatMessage, type ConfirmPart, type QuestionPart, type TurnState, waitsForUser } from './chat';

const start = (): TurnState => ({ sessionId: null, title: null, message: assistantMessage(true), done: false });
const fold = (evs: ChatEvent[], batch = 1): TurnState => {
  let s = start();
  for (let i = 0; i < evs.length; i += batch) s = applyEvents(s, evs.slice(i, i + batch));
  return s;
};

describe('stream reducer', () => {
  const evs: ChatEvent[] = [
    { type: 'started', sessionId: 's9', title: 'Hello' },
    { type: 'textDelta', text: 'Let me ' },
    { type: 'textDelta', text: 'look.' },
    { type: 'toolStarted', id: 'c1', name: 'fs.read', arguments: '{"path":"a"}' },
    { type: 'toolStarted', id: 'c2', name: 'fs.list', arguments: '{}' },
    { type: 'toolFinished', id: 'c2', name: 'fs.list', result: '[]', isError: false, durationMs: 5, preview: 'data:image/jpeg;base64,AA' },
    { type: 'toolFinished', id: 'c1', name: 'fs.read', result: '"nope"', isError: true, durationMs: 12.5 },
    { type: 'usage', inputTokens: 100, outputTokens: 20 },
    { type: 'textDelta', text: 'Found ' },
    { type: 'textDelta', text: 'it.' },
    { type: 'usage', inputTokens: 50, outputTokens: 10 },
    { type: 'done', reason: 'answered' },
  ];

  for (const batch of [1, 3, 100]) {
    it(`folds a turn (batches of ${batch})`, () => {
      const s = fold(evs, batch);
      expect(s.sessionId).toBe('s9');
      expect(s.title).toBe('Hello');
      expect(s.done).toBe(true);
      expect(s.message.streaming).toBe(false);
      expect(s.message.reason).toBe('answered');
      expect(s.message.usage).toEqual({ input: 150, output: 30 });
      expect(s.message.parts).toEqual([
        { kind: 'text', text: 'Let me look.' },
        { kind: 'tool', id: 'c1', name: 'fs.read', arguments: '{"path":"a"}', result: '"nope"', isError: true, durationMs: 12.5, running: false, preview: null },
        { kind: 'tool', id: 'c2', name: 'fs.list', arguments: '{}', result: '[]', isError: false, durationMs: 5, running: false, preview: 'data:image/jpeg;base64,AA' },
        { kind: 'text', text: 'Found it.' },
      ]);
    });
  }

  it('shows a running tool until it finishes', () => {
    const s = fold([{ type: 'toolStarted', id: 'x', name: 'web.get', arguments: '{}' }]);
    expect(s.message.parts[0]).toMatchObject({ kind: 'tool', running: true, result: null });
    expect(s.message.streaming).toBe(true);
  });

  it('keeps a finished call without a start', () => {
    const s = fold([{ type: 'toolFinished', id: 'z', name: 'n', result: '1', isError: false, durationMs: 1 }]);
    expect(s.message.parts).toHaveLength(1);
    expect(s.message.parts[0]).toMatchObject({ id: 'z', arguments: '', running: false });
  });

  it('records errors, notes, questions and command replies', () => {
    const s = fold([
      { type: 'commandReply', text: 'Model set.' },
      { type: 'compacted', before: 40, after: 12 },
      { type: 'subagentDelegated', sessionId: 'a', task: 'Book' },
      { type: 'subagentAsked', sessionId: 'a', question: 'How many?' },
      { type: 'subagentFinished', sessionId: 'a', answered: true, elapsedMs: 2300 },
      { type: 'error', message: 'Boom' },
      { type: 'done', reason: 'error' },
    ]);
    const kinds = s.message.parts.map((p) => (p.kind === 'note' ? `note:${p.tone}` : p.kind));
    expect(kinds).toEqual(['note:system', 'note:muted', 'note:muted', 'question', 'note:muted', 'note:error']);
    expect(s.message.parts[3]).toMatchObject({ kind: 'question', state: 'closed', settled: true });
    expect(s.message.parts[4]).toEqual({ kind: 'note', tone: 'muted', text: 'Subagent finished after 2.3 s.' });
    expect(s.message.parts[5]).toEqual({ kind: 'note', tone: 'error', text: 'Boom' });
    expect(s.message.reason).toBe('error');
  });

  it('ignores events after done and closes running tools', () => {
    const s = fold([
      { type: 'toolStarted', id: 'x', name: 'n', arguments: '{}' },
      { type: 'done', reason: 'stopped' },
      { type: 'textDelta', text: 'late' },
    ]);
    expect(s.message.parts).toHaveLength(1);
    expect(s.message.parts[0]).toMatchObject({ running: false });
    expect(s.message.reason).toBe('stopped');
  });

  it('returns the same state for an empty batch and new objects otherwise', () => {
    const s0 = start();
    expect(applyEvents(s0, [])).toBe(s0);
    const s1 = applyEvents(s0, [{ type: 'textDelta', text: 'a' }]);
    expect(s1).not.toBe(s0);
    expect(s1.message).not.toBe(s0.message);
    expect(s0.message.parts).toHaveLength(0);
  });

  it('finishTurn ends a turn that got no done', () => {
    const s = finishTurn(fold([{ type: 'textDelta', text: 'half' }]), 'error', 'connection lost');
    expect(s.done).toBe(true);
    expect(s.message.parts.at(-1)).toEqual({ kind: 'note', tone: 'error', text: 'connection lost' });
    const done = fold([{ type: 'done', reason: 'answered' }]);
    expect(finishTurn(done, 'error', 'x')).toBe(done);
  });
});

describe('confirmations and notices', () => {
  const args = '{\n  "url": "http://x/_sink/notes",\n  "text": "Lunch moved to 1 pm"\n}';
  const asked: ChatEvent[] = [
    { type: 'toolStarted', id: 'c1', name: 'post_note', arguments: args },
    { type: 'confirmationRequested', id: 'confirm_1', tool: 'Diagnostics.post_note', arguments: args, action: null },
  ];
  const card = (s: TurnState): ConfirmPart => s.message.parts.find((p): p is ConfirmPart => p.kind === 'confirm')!;

  it('a request shows a waiting card after the tool, with the exact arguments', () => {
    const s = fold(asked);
    expect(s.message.parts.map((p) => p.kind)).toEqual(['tool', 'confirm']);
    expect(card(s)).toEqual({ kind: 'confirm', id: 'confirm_1', tool: 'Diagnostics.post_note', arguments: args, action: null, state: 'waiting', settled: false });
    expect(s.message.streaming).toBe(true);
  });

  for (const approved of [true, false]) {
    it(`the Rust side's answer settles it (${approved ? 'allowed' : 'denied'})`, () => {
      const s = fold([...asked, { type: 'confirmationResolved', id: 'confirm_1', approved }]);
      expect(card(s)).toMatchObject({ state: approved ? 'allowed' : 'denied', settled: true });
    });
  }

  it('a turn waits for the user while a card waits, not once it is answered or the turn ends', () => {
    expect(waitsForUser(fold([{ type: 'textDelta', text: 'working' }]))).toBe(false);
    const s = fold(asked);
    expect(waitsForUser(s)).toBe(true);
    expect(waitsForUser(answerConfirmation(s, 'confirm_1', true))).toBe(false);
    expect(waitsForUser(finishTurn(s, 'stopped'))).toBe(false);
    const question = fold([{ type: 'subagentAsked', sessionId: 'sub-1', question: 'Which file?' }]);
    expect(waitsForUser(question)).toBe(true);
    expect(waitsForUser(answerQuestion(question, 'sub-1', 'a.txt'))).toBe(false);
  });

  it('answering here shows the answer at once; the resolution confirms it', () => {
    const s0 = fold(asked);
    const s1 = answerConfirmation(s0, 'confirm_1', true);
    expect(s1).not.toBe(s0);
    expect(s1.message).not.toBe(s0.message);
    expect(card(s1)).toMatchObject({ state: 'allowed', settled: false });
    expect(card(s0).state).toBe('waiting');
    // A second click (or the other button) changes nothing.
    expect(answerConfirmation(s1, 'confirm_1', false)).toBe(s1);
    const s2 = applyEvents(s1, [{ type: 'confirmationResolved', id: 'confirm_1', approved: true }]);
    expect(card(s2)).toMatchObject({ state: 'allowed', settled: true });
    // Settled: an undo of the local answer no longer applies.
    expect(reopenConfirmation(s2, 'confirm_1', true)).toBe(s2);
  });

  it('an answer that could not be delivered asks again', () => {
    const s1 = answerConfirmation(fold(asked), 'confirm_1', false);
    expect(card(s1).state).toBe('denied');
    const s2 = reopenConfirmation(s1, 'confirm_1', false);
    expect(card(s2)).toMatchObject({ state: 'waiting', settled: false });
    expect(reopenConfirmation(s2, 'confirm_1', false)).toBe(s2);
  });

  it('Stop resolves it as not allowed; unknown ids and finished turns are left alone', () => {
    const s = fold([
      ...asked,
      { type: 'confirmationResolved', id: 'nope', approved: true },
      { type: 'confirmationResolved', id: 'confirm_1', approved: false },
      { type: 'done', reason: 'stopped' },
    ]);
    expect(s.message.parts).toHaveLength(2);
    expect(card(s)).toMatchObject({ state: 'denied', settled: true });
    expect(s.message.reason).toBe('stopped');
    expect(answerConfirmation(s, 'confirm_1', true)).toBe(s);
    expect(answerConfirmation(fold(asked), 'other', true).message.parts).toHaveLength(2);
  });

  it('a turn that ends while waiting leaves the action not run', () => {
    const s = finishTurn(fold(asked), 'error', 'connection lost');
    expect(card(s)).toMatchObject({ state: 'denied', settled: true });
    const allowedHere = finishTurn(answerConfirmation(fold(asked), 'confirm_1', true), 'error');
    expect(card(allowedHere)).toMatchObject({ state: 'allowed', settled: true });
  });

  it('a repeated request replaces its card instead of adding one', () => {
    const s = fold([...asked, asked[1]!]);
    expect(s.message.parts.filter((p) => p.kind === 'confirm')).toHaveLength(1);
  });

  it('notices are their own parts, in order, and not part of the text', () => {
    const s = fold([
      { type: 'notice', message: 'report.pdf was cut to 60,000 characters.' },
      { type: 'textDelta', text: 'Summary' },
      { type: 'notice', message: 'photo.heic could not be read.' },
    ]);
    expect(s.message.parts).toEqual([
      { kind: 'notice', text: 'report.pdf was cut to 60,000 characters.' },
      { kind: 'text', text: 'Summary' },
      { kind: 'notice', text: 'photo.heic could not be read.' },
    ]);
    expect(messageText(s.message)).toBe('Summary');
    expect(isSystemOnly(s.message)).toBe(false);
  });
});

describe("subagents' questions", () => {
  const asked: ChatEvent[] = [
    { type: 'subagentDelegated', sessionId: 'sub_1', task: 'Find the budget file' },
    { type: 'subagentAsked', sessionId: 'sub_1', question: "Which year's budget do you mean?" },
  ];
  const card = (s: TurnState): QuestionPart => s.message.parts.find((p): p is QuestionPart => p.kind === 'question')!;

  it('a question waits in its turn', () => {
    const s = fold(asked);
    expect(card(s)).toEqual({ kind: 'question', sessionId: 'sub_1', question: "Which year's budget do you mean?", state: 'waiting', answer: null, settled: false });
    expect(s.message.streaming).toBe(true);
  });

  it('answering here shows the answer at once; subagentAnswered settles it', () => {
    const s0 = fold(asked);
    const s1 = answerQuestion(s0, 'sub_1', '2026');
    expect(card(s1)).toMatchObject({ state: 'answered', answer: '2026', settled: false });
    expect(card(s0).state).toBe('waiting');
    // A second answer (or a decline) changes nothing.
    expect(answerQuestion(s1, 'sub_1', '2025')).toBe(s1);
    expect(answerQuestion(s1, 'sub_1', null)).toBe(s1);
    const s2 = applyEvents(s1, [{ type: 'subagentAnswered', sessionId: 'sub_1', answer: '2026' }]);
    expect(card(s2)).toMatchObject({ state: 'answered', answer: '2026', settled: true });
    expect(reopenQuestion(s2, 'sub_1')).toBe(s2);
  });

  it("the Rust side's answer has the last word", () => {
    const s = fold([...asked, { type: 'subagentAnswered', sessionId: 'sub_1', answer: 'the 2026 one' }, { type: 'done', reason: 'answered' }]);
    expect(card(s)).toMatchObject({ state: 'answered', answer: 'the 2026 one', settled: true });
  });

  it('declining leaves it to the delegating agent and stays declined when the turn ends', () => {
    const s1 = answerQuestion(fold(asked), 'sub_1', null);
    expect(card(s1)).toMatchObject({ state: 'declined', answer: null });
    const s2 = applyEvents(s1, [{ type: 'textDelta', text: 'Which year?' }, { type: 'done', reason: 'answered' }]);
    expect(card(s2)).toMatchObject({ state: 'declined', settled: true });
  });

  it('an answer that could not be delivered asks again', () => {
    const s1 = answerQuestion(fold(asked), 'sub_1', '2026');
    const s2 = reopenQuestion(s1, 'sub_1');
    expect(card(s2)).toMatchObject({ state: 'waiting', answer: null, settled: false });
    expect(reopenQuestion(s2, 'sub_1')).toBe(s2);
  });

  it('Stop closes an unanswered question; finished turns and unknown ids are left alone', () => {
    const s = fold([...asked, { type: 'done', reason: 'stopped' }]);
    expect(card(s)).toMatchObject({ state: 'closed', settled: true });
    expect(answerQuestion(s, 'sub_1', '2026')).toBe(s);
    const live = fold(asked);
    expect(answerQuestion(live, 'sub_9', '2026')).toBe(live);
  });

  it('a subagent that asks again gets a new card; the answer goes to the latest', () => {
    const s = fold([
      ...asked,
      { type: 'subagentAnswered', sessionId: 'sub_1', answer: '2026' },
      { type: 'subagentAsked', sessionId: 'sub_1', question: 'The draft or the final one?' },
    ]);
    const qs = s.message.parts.filter((p): p is QuestionPart => p.kind === 'question');
    expect(qs.map((q) => q.state)).toEqual(['answered', 'waiting']);
    const s2 = answerQuestion(s, 'sub_1', 'final');
    const qs2 = s2.message.parts.filter((p): p is QuestionPart => p.kind === 'question');
    expect(qs2.map((q) => q.answer)).toEqual(['2026', 'final']);
  });
});

describe('message helpers', () => {
  it('maps stored messages (tools before text)', () => {
    const m = fromView({ role: 'assistant', text: 'Answer', toolCalls: [{ id: '1', name: 't', arguments: '{}', result: null, isError: false }], attachments: [], spoken: null, citations: [], branch: null });
    expect(m.parts.map((p) => p.kind)).toEqual(['tool', 'text']);
    expect(m.streaming).toBe(false);
    expect(m.citations).toBeUndefined();
    expect(fromView({ role: 'user', text: 'q', toolCalls: [], attachments: ['a.pdf'], spoken: null, citations: [], branch: null }).attachments).toEqual(['a.pdf']);
    const cited = { number: 1, path: '/harbour.pdf', location: 'page 3', passage: 'Pilotage fees', offset: 0 };
    expect(fromView({ role: 'assistant', text: 'Paid [1].', toolCalls: [], attachments: [], spoken: null, citations: [cited], branch: null }).citations).toEqual([cited]);
  });

  it('text, roles, system-only', () => {
    const u = userMessage('hi');
    const a = fold([{ type: 'commandReply', text: 'ok' }]).message;
    expect(messageText(u)).toBe('hi');
    expect(isSystemOnly(a)).toBe(true);
    expect(isSystemOnly(fold([{ type: 'textDelta', text: 'x' }]).message)).toBe(false);
    expect(lastIndexOfRole([u, a, u], 'assistant')).toBe(1);
    expect(lastIndexOfRole([u], 'assistant')).toBe(-1);
  });

  it('keeps the branch a stored user message is on', () => {
    const v = { role: 'user', text: 'q', toolCalls: [], attachments: [], spoken: null, citations: [] };
    expect(fromView({ ...v, branch: { index: 1, count: 3 } }).branch).toEqual({ index: 1, count: 3 });
    expect(fromView({ ...v, branch: null }).branch).toBeNull();
  });

  it("counts the user messages as the engine does: a slash command's line is not one", () => {
    const u = () => userMessage('q');
    const answer = () => fold([{ type: 'textDelta', text: 'a' }]).message;
    const command = () => fold([{ type: 'commandReply', text: 'Commands: …' }]).message;
    const ms = [u(), answer(), u(), command(), u(), answer(), u()];
    expect(userOrdinals(ms)).toEqual([0, -1, -1, -1, 1, -1, 2]);
    expect(userIndex(ms, 0)).toBe(0);
    expect(userIndex(ms, 1)).toBe(4);
    expect(userIndex(ms, 2)).toBe(6);
    expect(userIndex(ms, 3)).toBe(-1);
    expect(userOrdinals([])).toEqual([]);
  });

  it('keepShown: what did not change stays as shown; the switched user message keeps its place (key)', () => {
    const view = (role: 'user' | 'assistant', text: string, branch: { index: number; count: number } | null = null) =>
      fromView({ role, text, toolCalls: [], attachments: [], spoken: null, citations: [], branch });
    const shown: ChatMessage[] = [view('user', 'q1'), view('assistant', 'a1'), view('user', 'q2', { index: 1, count: 2 }), view('assistant', 'b2')];
    const next = [view('user', 'q1'), view('assistant', 'a1'), view('user', 'q2 old', { index: 0, count: 2 }), view('assistant', 'a2'), view('user', 'q3'), view('assistant', 'a3')];
    const out = keepShown(shown, next);
    expect(out.map(messageText)).toEqual(['q1', 'a1', 'q2 old', 'a2', 'q3', 'a3']);
    expect(out[0]).toBe(shown[0]);
    expect(out[1]).toBe(shown[1]);
    expect(out[2]!.key).toBe(shown[2]!.key);
    expect(out[2]!.branch).toEqual({ index: 0, count: 2 });
    expect(out[3]).toBe(next[3]);
    // The same words on another branch still count as a change (the counter moved).
    const same = keepShown(shown, [shown[0]!, shown[1]!, view('user', 'q2', { index: 0, count: 2 })]);
    expect(same[2]!.branch).toEqual({ index: 0, count: 2 });
    // An answer in the same place is never given the old one's key (its rendering is cached by key).
    const x = view('assistant', 'x');
    expect(keepShown([x], [view('assistant', 'y')])[0]!.key).not.toBe(x.key);
  });

  it('pretty-prints JSON and leaves other text alone', () => {
    expect(prettyJson('{"a":[1,2]}')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(prettyJson('not json')).toBe('not json');
    expect(prettyJson(null)).toBe('');
  });
});

describe('spoken messages', () => {
  it('say how fast the answer was heard and whether it was cut', () => {
    expect(spokenNote({ firstAudioMs: 640, interrupted: false })).toBe('spoken · answer heard after 0.6 s');
    expect(spokenNote({ firstAudioMs: null, interrupted: true })).toBe('spoken · interrupted');
    expect(fromView({ role: 'user', text: 'q', toolCalls: [], attachments: [], spoken: { firstAudioMs: 700, interrupted: false }, citations: [], branch: null }).spoken?.firstAudioMs).toBe(700);
  });
});

describe('citations', () => {
  const passage = { number: 1, path: '/harbour.md', location: 'Harbour costs', passage: 'Pilotage fees came to 4,200 EUR.', offset: 0 };
  it('keeps the cited passages and the answer without invented ones', () => {
    const s = fold([
      { type: 'textDelta', text: 'Paid 4,200 EUR [1]. Tugs [4].' },
      { type: 'cited', citations: [passage], dropped: 1, answer: 'Paid 4,200 EUR [1]. Tugs.' },
      { type: 'done', reason: 'answered' },
    ]);
    expect(s.message.citations).toEqual([passage]);
    expect(s.message.droppedCitations).toBe(1);
    expect(messageText(s.message)).toBe('Paid 4,200 EUR [1]. Tugs.');
  });
  it('leaves the answer as streamed when nothing was taken out', () => {
    const s = fold([
      { type: 'textDelta', text: 'Paid [1].' },
      { type: 'cited', citations: [passage], dropped: 0, answer: null },
      { type: 'done', reason: 'answered' },
    ], 3);
    expect(messageText(s.message)).toBe('Paid [1].');
    expect(s.message.citations?.length).toBe(1);
  });
});
