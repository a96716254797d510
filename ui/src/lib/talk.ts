// The push-to-talk overlay's model: the talk events (the voice
// conversation's events, and `starting` while it opens) folded into the
// voice panel's state.
import type { TalkEvent } from './bindings';
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
  return { state: s.phase === 'idle' ? 'Done' : phaseLabel(s.phase, true), text };
}
