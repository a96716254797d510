import { describe, expect, it } from 'vitest';
import { applyTalk, talkLine } from './talk';
import { idleVoice } from './voice';
import type { TalkEvent } from './bindings';

const fold = (events: TalkEvent[]) => events.reduce(applyTalk, idleVoice());

describe('the push-to-talk overlay', () => {
  it('starts, listens, hears, thinks and speaks as the conversation reports', () => {
    let s = fold([{ starting: true, event: null }]);
    expect(talkLine(s).state).toBe('Starting…');
    s = applyTalk(s, { starting: false, event: { kind: 'level', rms: 0.01 } });
    expect(talkLine(s).state).toBe('Ready — hold to talk');
    s = applyTalk(s, { starting: false, event: { kind: 'speechStarted' } });
    expect(s.phase).toBe('hearing');
    s = applyTalk(s, { starting: false, event: { kind: 'transcript', text: 'What is on my calendar?', sttMs: 120 } });
    expect(talkLine(s)).toEqual({ state: 'Thinking…', text: 'What is on my calendar?' });
    s = applyTalk(s, { starting: false, event: { kind: 'speaking', sentence: 'Two meetings.' } });
    expect(talkLine(s)).toEqual({ state: 'Speaking', text: 'Two meetings.' });
  });

  it('says a failure in words', () => {
    const s = fold([{ starting: true, event: null }, { starting: false, event: { kind: 'error', message: 'push-to-talk could not start: no microphone' } }]);
    expect(talkLine(s).text).toBe('push-to-talk could not start: no microphone');
  });
});
