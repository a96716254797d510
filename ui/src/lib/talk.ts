// The push-to-talk overlay's model: the talk events (the voice
// conversation's events, and `starting` while it opens) folded into the
// voice panel's state.
import type { TalkEvent } from './bindings';
import { t } from './i18n.svelte';
import { applyVoiceEvents, phaseLabel, voiceStarting, type VoiceState } from './voice';

/** The overlay's state after `e`. */
export function applyTalk(s: VoiceState, e: TalkEvent): VoiceState {
  if (e.starting) return voiceStarting(s);
  if (!e.event) return s;
  // The first event means it is open and listening.
  const open = s.phase === 'starting' && e.event.kind !== 'stopped' ? { ...s, phase: 'listening' as const } : s;
  return applyVoiceEvents(open, [e.event]);
}

/** The overlay's one line: what it does, and what was heard or is said. */
export function talkLine(s: VoiceState): { state: string; text: string } {
  const heard = s.partial || [...s.turns].reverse().find((t) => t.role === 'user')?.text || '';
  const text = s.error ?? (s.phase === 'speaking' ? (s.sentence ?? '') : heard);
  return { state: s.phase === 'idle' ? t('talk.done') : phaseLabel(s.phase, true), text };
}

/** A dictation as the overlay shows it: opening, listening, being written down, typed (what), or failed (why). */
export type DictationState = { phase: 'starting' | 'listening' | 'writing' | 'typed' | 'failed'; text: string };

/** The dictation's state after `e` (one of its events, `dictating` set). */
export function applyDictation(d: DictationState | null, e: TalkEvent): DictationState {
  if (e.starting) return { phase: 'starting', text: '' };
  // No event: the key came up, what was said is being written down.
  if (!e.event) return { phase: 'writing', text: '' };
  switch (e.event.kind) {
    case 'transcript':
      return { phase: 'typed', text: e.event.text };
    case 'error':
      return { phase: 'failed', text: e.event.message };
    default:
      return d && d.phase !== 'starting' ? d : { phase: 'listening', text: '' };
  }
}

/** The overlay's line for a dictation. */
export function dictationLine(d: DictationState): { state: string; text: string } {
  switch (d.phase) {
    case 'starting':
      return { state: phaseLabel('starting', true), text: '' };
    case 'listening':
      return { state: t('talk.dictating'), text: t('talk.releaseToType') };
    case 'writing':
      return { state: t('talk.writing'), text: '' };
    case 'typed':
      return d.text ? { state: t('talk.typed'), text: d.text } : { state: t('talk.nothingHeard'), text: '' };
    case 'failed':
      return { state: t('talk.failed'), text: d.text };
  }
}
