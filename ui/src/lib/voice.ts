// The voice panel's model and the reducer that folds streamed VoiceEvents
// into it. Pure functions; no DOM.
import type { Full } from './api';
import type { IpcError, TurnTiming, VoiceEvent, VoiceSettingsView, VoiceStarted } from './bindings';
import { formatNumber, t, type MessageKey } from './i18n.svelte';

/** What the conversation is doing, as the panel labels it. */
export type VoicePhase = 'idle' | 'starting' | 'listening' | 'hearing' | 'thinking' | 'speaking';

export interface VoiceTurn {
  key: number;
  role: 'user' | 'assistant';
  text: string;
  /** An answer still arriving. */
  streaming: boolean;
  /** An answer cut short (barge-in or Stop). */
  interrupted: boolean;
  /** Latency parts of an answer, when the engine measured them. */
  timing: TurnTiming | null;
}

export interface VoiceState {
  phase: VoicePhase;
  /** Microphone level (RMS, 0–1), the last one reported. */
  level: number;
  /** Draft transcript of what is being said now. */
  partial: string;
  /** The sentence being spoken now. */
  sentence: string | null;
  /** The conversation so far (you / Baton). */
  turns: VoiceTurn[];
  /** The last failure reported by the conversation (it goes on listening). */
  error: string | null;
  /** What the running conversation uses (after `voiceStart` resolved). */
  started: VoiceStarted | null;
  /** Utterances begun (`speechStarted`) without their transcript yet. */
  open: number;
  /** Questions transcribed whose answer has not ended yet. */
  awaiting: number;
}

/** Turns kept in the panel (older ones drop off). */
export const MAX_TURNS = 200;

let nextKey = 1;

export function idleVoice(): VoiceState {
  return { phase: 'idle', level: 0, partial: '', sentence: null, turns: [], error: null, started: null, open: 0, awaiting: 0 };
}

/** `voiceStart` was called: keep the turns of an earlier conversation, clear the rest. */
export function voiceStarting(s: VoiceState): VoiceState {
  return { ...idleVoice(), turns: s.turns, phase: 'starting' };
}

/** `voiceStart` resolved. */
export function voiceStarted(s: VoiceState, info: VoiceStarted): VoiceState {
  if (s.phase === 'idle') return s; // stopped already
  return { ...s, started: info, phase: s.phase === 'starting' ? 'listening' : s.phase };
}

/** `voiceStart` was rejected: nothing runs. */
export function voiceFailed(s: VoiceState): VoiceState {
  return finishStreaming({ ...s, phase: 'idle', level: 0, partial: '', sentence: null, started: null, open: 0, awaiting: 0 });
}

function finishStreaming(s: VoiceState): VoiceState {
  if (!s.turns.some((turn) => turn.streaming)) return s;
  return { ...s, turns: s.turns.map((turn) => (turn.streaming ? { ...turn, streaming: false } : turn)) };
}

function lastStreamingAnswer(turns: readonly VoiceTurn[]): number {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'assistant' && turn.streaming) return i;
  }
  return -1;
}

/** Where to go when an answer (or an utterance) is over. */
function settle(turns: readonly VoiceTurn[], open: number, awaiting: number): VoicePhase {
  if (open > 0) return 'hearing';
  if (awaiting > 0 || lastStreamingAnswer(turns) >= 0) return 'thinking';
  return 'listening';
}

/**
 * Fold a batch of events into the panel state. Returns a new object when
 * anything changed; the turns array is copied at most once per batch.
 */
export function applyVoiceEvents(state: VoiceState, evs: readonly VoiceEvent[]): VoiceState {
  if (evs.length === 0 || state.phase === 'idle') return state;
  let phase: VoicePhase = state.phase;
  let { level, partial, sentence, error, open, awaiting } = state;
  let turns = state.turns;
  let copied = false;
  const mut = (): VoiceTurn[] => {
    if (!copied) {
      turns = turns.slice();
      copied = true;
    }
    return turns;
  };

  for (const ev of evs) {
    if (phase === 'idle') break; // nothing after `stopped` counts
    if (phase === 'starting' && ev.kind !== 'stopped') phase = 'listening';
    switch (ev.kind) {
      case 'level':
        level = ev.rms !== null && Number.isFinite(ev.rms) ? Math.max(0, ev.rms) : 0;
        break;
      case 'speechStarted':
        open++;
        partial = '';
        phase = 'hearing';
        break;
      case 'partial':
        partial = ev.text;
        phase = 'hearing';
        if (open === 0) open = 1;
        break;
      case 'transcript': {
        open = Math.max(0, open - 1);
        partial = '';
        const text = ev.text.trim();
        if (text) {
          mut().push({ key: nextKey++, role: 'user', text, streaming: false, interrupted: false, timing: null });
          // The engine answers only when no newer utterance has begun.
          if (open === 0) awaiting++;
        }
        if (open > 0) phase = 'hearing';
        else if (text) phase = 'thinking';
        else phase = sentence ? 'speaking' : settle(turns, 0, awaiting);
        break;
      }
      case 'answerText': {
        const i = lastStreamingAnswer(turns);
        if (i >= 0 && i === turns.length - 1) {
          mut()[i] = { ...turns[i]!, text: turns[i]!.text + ev.text };
        } else {
          mut().push({ key: nextKey++, role: 'assistant', text: ev.text, streaming: true, interrupted: false, timing: null });
        }
        if (phase === 'listening') phase = 'thinking';
        break;
      }
      case 'speaking':
        sentence = ev.sentence;
        if (phase === 'listening' || phase === 'thinking') phase = 'speaking';
        break;
      case 'answerDone': {
        const i = lastStreamingAnswer(turns);
        // An answer with no text (stopped at once) has nothing to show.
        if (i >= 0) mut()[i] = { ...turns[i]!, streaming: false, interrupted: ev.interrupted, timing: ev.timing };
        sentence = null;
        awaiting = Math.max(0, awaiting - 1);
        if (phase !== 'hearing') phase = settle(turns, open, awaiting);
        break;
      }
      case 'bargeIn': {
        sentence = null;
        const i = lastStreamingAnswer(turns);
        if (i >= 0) mut()[i] = { ...turns[i]!, interrupted: true };
        phase = 'hearing';
        break;
      }
      case 'error':
        error = ev.message;
        // A failed transcription ends its utterance.
        if (phase === 'hearing' && open > 0) {
          open--;
          phase = settle(turns, open, awaiting);
        }
        break;
      case 'stopped':
        phase = 'idle';
        level = 0;
        partial = '';
        sentence = null;
        open = 0;
        awaiting = 0;
        if (lastStreamingAnswer(turns) >= 0) turns = turns.map((turn) => (turn.streaming ? { ...turn, streaming: false } : turn));
        break;
    }
  }
  if (turns.length > MAX_TURNS) turns = turns.slice(turns.length - MAX_TURNS);
  if (
    phase === state.phase &&
    level === state.level &&
    partial === state.partial &&
    sentence === state.sentence &&
    error === state.error &&
    open === state.open &&
    awaiting === state.awaiting &&
    turns === state.turns
  )
    return state;
  return { ...state, phase, level, partial, sentence, error, open, awaiting, turns, started: phase === 'idle' ? null : state.started };
}

/** Whether an answer is in progress (thinking or being spoken): Stop applies. */
export function answering(s: VoiceState): boolean {
  return s.phase === 'speaking' || s.phase === 'thinking';
}

/** Whether a conversation runs (or is starting). */
export function active(s: VoiceState): boolean {
  return s.phase !== 'idle';
}

/** Each phase's label (its catalog key). */
export const PHASE_LABEL = {
  idle: 'voice.phase.idle',
  starting: 'voice.phase.starting',
  listening: 'voice.phase.listening',
  hearing: 'voice.phase.hearing',
  thinking: 'voice.phase.thinking',
  speaking: 'voice.phase.speaking',
} as const satisfies Record<VoicePhase, MessageKey>;

/** The label, with the push-to-talk hint when nothing is said yet. */
export function phaseLabel(phase: VoicePhase, pushToTalk: boolean): string {
  if (phase === 'listening' && pushToTalk) return t('voice.phase.ready');
  return t(PHASE_LABEL[phase]);
}

/** A microphone RMS level as a meter fraction (0–1): −60 dBFS … −6 dBFS. */
export function meterFraction(rms: number): number {
  if (!Number.isFinite(rms) || rms <= 0) return 0;
  const db = 20 * Math.log10(rms);
  return Math.min(1, Math.max(0, (db + 60) / 54));
}

/** The user-facing sentence for a failed voice command (the message stays available as details). */
export function voiceProblem(e: IpcError): { title: string; message: string; details: string | null } {
  const m = e.message;
  let key: MessageKey;
  if (e.code === 'audio') {
    if (/speech[- ]to[- ]text model|whisper|speech model/i.test(m)) key = 'voice.problem.noSttModel';
    else if (/microphone|input device|capture|no input/i.test(m)) key = 'voice.problem.microphone';
    else if (/speaker|output device|playback/i.test(m)) key = 'voice.problem.speaker';
    else key = 'voice.problem.audio';
  } else if (e.code === 'busy') key = 'voice.problem.busy';
  else if (e.code === 'provider' || e.code === 'keychain') key = 'voice.problem.provider';
  else if (e.code === 'config' || e.code === 'invalid_input') key = 'voice.problem.config';
  else key = 'voice.problem.start';
  const title = t(key);
  const details = [m, e.details].filter((x): x is string => !!x).join('\n\n') || null;
  return { title, message: m, details };
}

/** Field-level problems in voice settings (same bounds as the Rust side). */
export function validateVoiceSettings(v: Full<VoiceSettingsView>): Partial<Record<'ttsRate' | 'endSilenceMs' | 'ttsEngine', string>> {
  const out: Partial<Record<'ttsRate' | 'endSilenceMs' | 'ttsEngine', string>> = {};
  if (!Number.isInteger(v.ttsRate) || v.ttsRate < 80 || v.ttsRate > 450) out.ttsRate = t('voice.invalid.ttsRate');
  if (!Number.isInteger(v.endSilenceMs) || v.endSilenceMs < 200 || v.endSilenceMs > 5000)
    out.endSilenceMs = t('voice.invalid.endSilence');
  if (v.ttsEngines && !v.ttsEngines.includes(v.ttsEngine)) out.ttsEngine = t('voice.invalid.ttsEngine');
  return out;
}

/** What is sent to `saveVoiceSettings`: empty text is "default" (null); read-only lists left out. */
export function voiceSettingsToSave(v: Full<VoiceSettingsView>): VoiceSettingsView {
  const { ttsEngines: _engines, sttModels: _models, languages: _languages, ...settings } = v;
  const voice = v.ttsVoice?.trim() ?? '';
  return {
    ...settings,
    inputDevice: v.inputDevice || null,
    outputDevice: v.outputDevice || null,
    ttsVoice: voice ? voice : null,
    sttModel: v.sttModel || null,
  };
}

/** "first audio in 840 ms" for an answer's timing. */
export function timingNote(timing: TurnTiming | null): string | null {
  if (!timing || timing.firstAudioMs === null || !Number.isFinite(timing.firstAudioMs)) return null;
  return t('voice.timing.note', { ms: formatNumber(Math.round(timing.firstAudioMs)) });
}

/** A part of the latency in the UI's way (one the engine did not measure: `null`). */
const part = (ms: number | null): string => (ms === null || !Number.isFinite(ms) ? String(ms) : formatNumber(ms));

/** The parts of the latency, for a tooltip. */
export function timingDetail(timing: TurnTiming): string {
  return t('voice.timing.detail', {
    vad: part(timing.vadTailMs),
    stt: part(timing.sttMs),
    sentence: part(timing.firstSentenceMs),
    tts: part(timing.ttsMs),
  });
}
