// The chat message model and the reducer that folds streamed ChatEvents into
// it. Pure functions; no DOM. The notes it adds (a subagent delegated, history
// compacted) are worded in the language of the moment they arrive.
import type { BranchView, ChatEvent, Citation, MessageView, SpokenView, TurnEnd } from './bindings';
import { formatNumber, t } from './i18n.svelte';

/** Milliseconds as seconds with one decimal (`2.3`), in the current language. */
function seconds(ms: number): string {
  return formatNumber(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export type ToolPart = {
  kind: 'tool';
  id: string;
  name: string;
  arguments: string;
  result: string | null;
  isError: boolean;
  durationMs: number | null;
  running: boolean;
  /** A thumbnail of the step (`data:` URL): the browser page after it. */
  preview?: string | null;
};
/**
 * An external action waiting for the user's yes or no: `waiting` until
 * answered here or resolved by the Rust side (Stop resolves it as denied).
 */
export type ConfirmState = 'waiting' | 'allowed' | 'denied';
export type ConfirmPart = {
  kind: 'confirm';
  id: string;
  tool: string;
  /** The exact arguments, as sent (pretty JSON text). */
  arguments: string;
  /** What will really happen, in words, when the tool can tell (the element a click lands on…). */
  action: string | null;
  state: ConfirmState;
  /** The Rust side confirmed `state` (or the turn ended): it no longer changes. */
  settled: boolean;
};
/**
 * A subagent's question, waiting inside its turn for the user's answer
 * (`answerQuestion`). `answered` carries the answer; `declined` left it to
 * the delegating agent; `closed`: the turn ended (Stop) without an answer.
 */
export type QuestionState = 'waiting' | 'answered' | 'declined' | 'closed';
export type QuestionPart = {
  kind: 'question';
  /** The subagent's session id: the question's id for `answerQuestion`. */
  sessionId: string;
  question: string;
  state: QuestionState;
  answer: string | null;
  /** The Rust side confirmed the answer (or the turn ended): it no longer changes. */
  settled: boolean;
};
export type Part =
  | { kind: 'text'; text: string }
  | ToolPart
  | ConfirmPart
  | QuestionPart
  | { kind: 'note'; tone: 'muted' | 'system' | 'error'; text: string }
  | { kind: 'notice'; text: string };

export type Role = 'user' | 'assistant';

export interface ChatMessage {
  key: number;
  role: Role;
  parts: Part[];
  attachments: string[];
  /** Still receiving events. */
  streaming: boolean;
  /** Why the turn ended (assistant messages). */
  reason: TurnEnd | null;
  usage: { input: number; output: number } | null;
  /** Said aloud in a voice conversation (user messages). */
  spoken?: SpokenView | null;
  /** The workspace passages the answer cites as `[n]` (assistant messages). */
  citations?: Citation[];
  /** Citations to passages the model was never given, taken out of the answer. */
  droppedCitations?: number;
  /** Where an earlier version of it was edited (user messages): the branch in view, of how many. */
  branch?: BranchView | null;
}

let nextKey = 1;
export function newKey(): number {
  return nextKey++;
}

export function userMessage(text: string, attachments: string[] = []): ChatMessage {
  return { key: newKey(), role: 'user', parts: [{ kind: 'text', text }], attachments, streaming: false, reason: null, usage: null };
}

export function assistantMessage(streaming = true): ChatMessage {
  return { key: newKey(), role: 'assistant', parts: [], attachments: [], streaming, reason: null, usage: null };
}

/** A message as stored, in the chat model (tool calls come before the answer text). */
/** How a spoken message reads under it: "spoken · answer heard after 0.6 s · interrupted". */
export function spokenNote(s: SpokenView): string {
  const parts = [t('cards.chat.spoken')];
  if (s.firstAudioMs !== null) parts.push(t('cards.chat.heardAfter', { seconds: seconds(s.firstAudioMs) }));
  if (s.interrupted) parts.push(t('cards.chat.interrupted'));
  return parts.join(' · ');
}

export function fromView(v: MessageView): ChatMessage {
  const parts: Part[] = v.toolCalls.map((t) => ({
    kind: 'tool' as const,
    id: t.id,
    name: t.name,
    arguments: t.arguments,
    result: t.result,
    isError: t.isError,
    durationMs: null,
    running: false,
  }));
  if (v.text) parts.push({ kind: 'text', text: v.text });
  return {
    key: newKey(),
    role: v.role === 'user' ? 'user' : 'assistant',
    parts,
    attachments: v.attachments,
    streaming: false,
    reason: null,
    usage: null,
    spoken: v.spoken,
    citations: v.citations.length ? v.citations : undefined,
    branch: v.branch ?? null,
  };
}

/** The message's plain text (for copy / edit). */
export function messageText(m: ChatMessage): string {
  return m.parts
    .filter((p): p is { kind: 'text'; text: string } => p.kind === 'text')
    .map((p) => p.text)
    .join('\n\n');
}

export interface TurnState {
  sessionId: string | null;
  title: string | null;
  message: ChatMessage;
  done: boolean;
}

/** Whether the turn waits for the user: a confirmation or a question not yet answered. */
export function waitsForUser(state: TurnState): boolean {
  return (
    !state.done &&
    state.message.parts.some((p) => (p.kind === 'confirm' || p.kind === 'question') && p.state === 'waiting' && !p.settled)
  );
}

/**
 * Fold a batch of events into the turn. Returns a new state object (and a new
 * message object) when anything changed, so keyed views re-render only this
 * message; the parts array is copied once per batch, not once per event.
 */
export function applyEvents(state: TurnState, evs: readonly ChatEvent[]): TurnState {
  if (evs.length === 0) return state;
  const parts = state.message.parts.slice();
  let { sessionId, title, done } = state;
  let reason = state.message.reason;
  let usage = state.message.usage;
  let citations = state.message.citations;
  let droppedCitations = state.message.droppedCitations;
  let pendingText = '';

  const flushText = () => {
    if (!pendingText) return;
    const last = parts[parts.length - 1];
    if (last && last.kind === 'text') parts[parts.length - 1] = { kind: 'text', text: last.text + pendingText };
    else parts.push({ kind: 'text', text: pendingText });
    pendingText = '';
  };

  for (const ev of evs) {
    if (done) break; // nothing after `done` counts
    if (ev.type === 'textDelta') {
      pendingText += ev.text;
      continue;
    }
    flushText();
    switch (ev.type) {
      case 'started':
        sessionId = ev.sessionId;
        title = ev.title;
        break;
      case 'toolStarted':
        parts.push({ kind: 'tool', id: ev.id, name: ev.name, arguments: ev.arguments, result: null, isError: false, durationMs: null, running: true });
        break;
      case 'toolFinished': {
        let idx = -1;
        for (let i = parts.length - 1; i >= 0; i--) {
          const p = parts[i]!;
          if (p.kind === 'tool' && p.id === ev.id) {
            idx = i;
            break;
          }
        }
        const finished: ToolPart = {
          kind: 'tool',
          id: ev.id,
          name: ev.name,
          arguments: idx >= 0 ? (parts[idx] as ToolPart).arguments : '',
          result: ev.result,
          isError: ev.isError,
          durationMs: ev.durationMs,
          running: false,
          preview: ev.preview ?? null,
        };
        if (idx >= 0) parts[idx] = finished;
        else parts.push(finished);
        break;
      }
      case 'subagentDelegated':
        parts.push({ kind: 'note', tone: 'muted', text: t('cards.chat.delegated', { task: ev.task }) });
        break;
      case 'subagentAsked':
        parts.push({ kind: 'question', sessionId: ev.sessionId, question: ev.question, state: 'waiting', answer: null, settled: false });
        break;
      case 'subagentAnswered': {
        const i = findQuestion(parts, ev.sessionId);
        if (i >= 0) parts[i] = { ...(parts[i] as QuestionPart), state: 'answered', answer: ev.answer, settled: true };
        break;
      }
      case 'subagentFinished':
        parts.push({
          kind: 'note',
          tone: 'muted',
          text: t(ev.answered ? 'cards.chat.subagentFinished' : 'cards.chat.subagentStopped', { seconds: seconds(ev.elapsedMs) }),
        });
        break;
      case 'compacted':
        parts.push({
          kind: 'note',
          tone: 'muted',
          text: t('cards.chat.compacted', { count: ev.after, before: formatNumber(ev.before), n: formatNumber(ev.after) }),
        });
        break;
      case 'confirmationRequested': {
        const i = findConfirm(parts, ev.id);
        const part: ConfirmPart = { kind: 'confirm', id: ev.id, tool: ev.tool, arguments: ev.arguments, action: ev.action, state: 'waiting', settled: false };
        if (i >= 0) parts[i] = part;
        else parts.push(part);
        break;
      }
      case 'confirmationResolved': {
        const i = findConfirm(parts, ev.id);
        if (i >= 0) parts[i] = { ...(parts[i] as ConfirmPart), state: ev.approved ? 'allowed' : 'denied', settled: true };
        break;
      }
      case 'notice':
        parts.push({ kind: 'notice', text: ev.message });
        break;
      case 'usage':
        usage = { input: (usage?.input ?? 0) + ev.inputTokens, output: (usage?.output ?? 0) + ev.outputTokens };
        break;
      case 'commandReply':
        parts.push({ kind: 'note', tone: 'system', text: ev.text });
        break;
      case 'error':
        parts.push({ kind: 'note', tone: 'error', text: ev.message });
        break;
      case 'cited':
        flushText();
        citations = ev.citations;
        droppedCitations = ev.dropped;
        if (ev.answer !== null) replaceAnswer(parts, ev.answer);
        break;
      case 'done':
        done = true;
        reason = ev.reason;
        break;
    }
  }
  flushText();
  if (done) {
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.kind === 'tool' && p.running) parts[i] = { ...p, running: false };
      // Nothing waits once the turn is over: an unanswered action did not run.
      else if (p.kind === 'confirm' && !p.settled) parts[i] = { ...p, state: p.state === 'allowed' ? 'allowed' : 'denied', settled: true };
      // A question nobody answered (Stop) is closed; a given answer stays.
      else if (p.kind === 'question' && !p.settled) parts[i] = { ...p, state: p.state === 'waiting' ? 'closed' : p.state, settled: true };
    }
  }
  return {
    sessionId,
    title,
    done,
    message: { ...state.message, parts, reason, usage, citations, droppedCitations, streaming: !done },
  };
}

/** The answer's last text part becomes `answer` (citations that pointed nowhere taken out). */
function replaceAnswer(parts: Part[], answer: string): void {
  for (let i = parts.length - 1; i >= 0; i--) {
    if (parts[i]!.kind === 'text') {
      parts[i] = { kind: 'text', text: answer };
      return;
    }
  }
  parts.push({ kind: 'text', text: answer });
}

function findConfirm(parts: readonly Part[], id: string): number {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.kind === 'confirm' && p.id === id) return i;
  }
  return -1;
}

/**
 * The user answered confirmation `id` here: show the answer at once (the
 * Rust side's `confirmationResolved` follows and has the last word). Only a
 * waiting request of a turn in progress changes; otherwise `state` is
 * returned as it is.
 */
export function answerConfirmation(state: TurnState, id: string, approved: boolean): TurnState {
  return setConfirmation(state, id, 'waiting', approved ? 'allowed' : 'denied');
}

/** Undo `answerConfirmation` (the answer could not be delivered): ask again. */
export function reopenConfirmation(state: TurnState, id: string, answered: boolean): TurnState {
  return setConfirmation(state, id, answered ? 'allowed' : 'denied', 'waiting');
}

function setConfirmation(state: TurnState, id: string, from: ConfirmState, to: ConfirmState): TurnState {
  if (state.done) return state;
  const i = findConfirm(state.message.parts, id);
  const p = state.message.parts[i];
  if (!p || p.kind !== 'confirm' || p.settled || p.state !== from) return state;
  const parts = state.message.parts.slice();
  parts[i] = { ...p, state: to };
  return { ...state, message: { ...state.message, parts } };
}

/** The latest question of subagent `sessionId` (a subagent may ask more than once). */
function findQuestion(parts: readonly Part[], sessionId: string): number {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!;
    if (p.kind === 'question' && p.sessionId === sessionId) return i;
  }
  return -1;
}

/**
 * The user answered subagent question `sessionId` here (`null`: let the
 * delegating agent answer it): show it at once (`subagentAnswered` follows
 * and has the last word). Only a waiting question of a turn in progress
 * changes; otherwise `state` is returned as it is.
 */
export function answerQuestion(state: TurnState, sessionId: string, answer: string | null): TurnState {
  if (state.done) return state;
  const i = findQuestion(state.message.parts, sessionId);
  const p = state.message.parts[i];
  if (!p || p.kind !== 'question' || p.settled || p.state !== 'waiting') return state;
  const parts = state.message.parts.slice();
  parts[i] = answer === null ? { ...p, state: 'declined', answer: null } : { ...p, state: 'answered', answer };
  return { ...state, message: { ...state.message, parts } };
}

/** Undo `answerQuestion` (the answer could not be delivered): ask again. */
export function reopenQuestion(state: TurnState, sessionId: string): TurnState {
  if (state.done) return state;
  const i = findQuestion(state.message.parts, sessionId);
  const p = state.message.parts[i];
  if (!p || p.kind !== 'question' || p.settled || p.state === 'waiting') return state;
  const parts = state.message.parts.slice();
  parts[i] = { ...p, state: 'waiting', answer: null };
  return { ...state, message: { ...state.message, parts } };
}

/** End a turn that never got a `done` (the call failed or was cut off). */
export function finishTurn(state: TurnState, reason: TurnEnd, error?: string): TurnState {
  if (state.done) return state;
  const evs: ChatEvent[] = [];
  if (error) evs.push({ type: 'error', message: error });
  evs.push({ type: 'done', reason });
  return applyEvents(state, evs);
}

/** Whether a message has nothing but system notes (slash-command replies). */
export function isSystemOnly(m: ChatMessage): boolean {
  return m.parts.length > 0 && m.parts.every((p) => p.kind === 'note' && p.tone === 'system');
}

/** Index of the last message with `role`, or -1. */
export function lastIndexOfRole(ms: readonly ChatMessage[], role: Role): number {
  for (let i = ms.length - 1; i >= 0; i--) if (ms[i]!.role === role) return i;
  return -1;
}

/**
 * Each message's number among the user messages as the engine counts them
 * (0: the first), for editing one and switching its branches; `-1` for
 * answers and for slash commands (answered by a system note, they are not
 * kept in the conversation).
 */
export function userOrdinals(ms: readonly ChatMessage[]): number[] {
  const out: number[] = new Array<number>(ms.length);
  let n = 0;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]!;
    const next = ms[i + 1];
    out[i] = m.role === 'user' && !(next && next.role === 'assistant' && isSystemOnly(next)) ? n++ : -1;
  }
  return out;
}

/** Where user message number `n` (as `userOrdinals` counts) is in `ms`, or -1. */
export function userIndex(ms: readonly ChatMessage[], n: number): number {
  return userOrdinals(ms).indexOf(n);
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return (
    a.role === b.role &&
    messageText(a) === messageText(b) &&
    a.attachments.join('\n') === b.attachments.join('\n') &&
    (a.branch?.index ?? -1) === (b.branch?.index ?? -1) &&
    (a.branch?.count ?? 0) === (b.branch?.count ?? 0)
  );
}

/**
 * A reloaded conversation (`next`, the same one as `shown`) with the
 * messages at its start that did not change kept as shown (the same
 * objects: their views stay as they are), and the first user message that
 * did (an edited or switched one in the same place) keeping its key, so the
 * list updates in place instead of starting over at the bottom.
 */
export function keepShown(shown: readonly ChatMessage[], next: readonly ChatMessage[]): ChatMessage[] {
  const out = next.slice();
  let i = 0;
  while (i < shown.length && i < out.length && sameMessage(shown[i]!, out[i]!)) {
    out[i] = shown[i]!;
    i++;
  }
  const was = shown[i];
  const now = out[i];
  if (was && now && was.role === 'user' && now.role === 'user') out[i] = { ...now, key: was.key };
  return out;
}

/** Pretty-print JSON text; unchanged if it is not JSON. */
export function prettyJson(s: string | null): string {
  if (s === null) return '';
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}
