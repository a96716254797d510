import { describe, expect, it } from 'vitest';
import { applyDictation, applyTalk, dictationLine, talkLine } from './talk';
import { idleVoice } from './voice';
import type { TalkEvent } from './bindings';

const fold = (events: TalkEvent[]) => events.reduce(applyTalk, idleVoice());

describe('the push-to-talk overlay', () => {
  it('starts, listens, hears, thinks and speaks as the conversation reports', () => {
    let s = fold([{ starting: true, dictating: false, event: null }]);
    expect(talkLine(s).state).toBe('Starting…');
    s = applyTalk(s, { starting: false, dictating: false, event: { kind: 'level', rms: 0.01 } });
    expect(talkLine(s).state).toBe('Ready — hold to talk');
    s = applyTalk(s, { starting: false, dictating: false, event: { kind: 'speechStarted' } });
    expect(s.phase).toBe('hearing');
    s = applyTalk(s, { starting: false, dictating: false, event: { kind: 'transcript', text: 'What is on my calendar?', sttMs: 120 } });
    expect(talkLine(s)).toEqual({ state: 'Thinking…', text: 'What is on my calendar?' });
    s = applyTalk(s, { starting: false, dictating: false, event: { kind: 'speaking', sentence: 'Two meetings.' } });
    expect(talkLine(s)).toEqual({ state: 'Speaking', text: 'Two meetings.' });
  });

  it('says a failure in words', () => {
    const s = fold([{ starting: true, dictating: false, event: null }, { starting: false, dictating: false, event: { kind: 'error', message: 'push-to-talk could not start: no microphone' } }]);
    expect(talkLine(s).text).toBe('push-to-talk could not start: no microphone');
  });
});

describe('dictation in the overlay', () => {
  const ev = (event: TalkEvent['event'], starting = false): TalkEvent => ({ starting, dictating: true, event });
  it('opens, listens, and says what was typed (or that nothing was)', () => {
    let d = applyDictation(null, ev(null, true));
    expect(dictationLine(d).state).toBe('Starting…');
    d = applyDictation(d, ev({ kind: 'speechStarted' }));
    expect(dictationLine(d)).toEqual({ state: 'Dictating…', text: 'Release the keys to type what you said.' });
    d = applyDictation(d, ev(null));
    expect(dictationLine(d).state).toBe('Writing it down…');
    d = applyDictation(d, ev({ kind: 'transcript', text: 'Buy milk.', sttMs: 300 }));
    expect(dictationLine(d)).toEqual({ state: 'Typed', text: 'Buy milk.' });
    expect(dictationLine(applyDictation(d, ev({ kind: 'transcript', text: '', sttMs: 1 }))).state).toBe('Nothing heard, nothing typed');
    const failed = applyDictation(d, ev({ kind: 'error', message: 'dictation could not start: no microphone' }));
    expect(dictationLine(failed)).toEqual({ state: 'Dictation failed', text: 'dictation could not start: no microphone' });
  });
});
