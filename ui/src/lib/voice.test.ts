import { describe, expect, it } from 'vitest';
import type { Full } from './api';
import type { TurnTiming, VoiceEvent, VoiceSettingsView } from './bindings';
import {
  answering,
  applyVoiceEvents,
  idleVoice,
  meterFraction,
  phaseLabel,
  timingNote,
  validateVoiceSettings,
  voiceFailed,
  voiceProblem,
  voiceSettingsToSave,
  voiceStarted,
  voiceStarting,
  type VoiceState,
} from './voice';

const info = { stt: 'whisper tiny.en', tts: 'espeak', microphone: 'USB mic', pushToTalk: false, sessionId: 'v1' };
const timing: TurnTiming = { vadTailMs: 600, sttMs: 120, firstSentenceMs: 300, ttsMs: 40, firstAudioMs: 1080 };
const running = (): VoiceState => voiceStarted(voiceStarting(idleVoice()), info);
const fold = (evs: VoiceEvent[], batch = 1, s: VoiceState = running()): VoiceState => {
  for (let i = 0; i < evs.length; i += batch) s = applyVoiceEvents(s, evs.slice(i, i + batch));
  return s;
};
const turns = (s: VoiceState) => s.turns.map((t) => [t.role, t.text, t.streaming, t.interrupted]);

const conversation: VoiceEvent[] = [
  { kind: 'level', rms: 0.01 },
  { kind: 'speechStarted' },
  { kind: 'level', rms: 0.2 },
  { kind: 'partial', text: 'what is' },
  { kind: 'partial', text: 'what is the weather' },
  { kind: 'transcript', text: 'What is the weather?', sttMs: 120 },
  { kind: 'answerText', text: 'Sunny ' },
  { kind: 'speaking', sentence: 'Sunny and warm.' },
  { kind: 'answerText', text: 'and warm.' },
  { kind: 'answerDone', interrupted: false, timing },
];

describe('voice reducer', () => {
  it('starting → listening once started', () => {
    const s = voiceStarting(idleVoice());
    expect(s.phase).toBe('starting');
    expect(voiceStarted(s, info)).toMatchObject({ phase: 'listening', started: info });
  });

  it('an early event (before voiceStart resolves) means it is listening', () => {
    const s = applyVoiceEvents(voiceStarting(idleVoice()), [{ kind: 'level', rms: 0.05 }]);
    expect(s.phase).toBe('listening');
    expect(voiceStarted(s, info).phase).toBe('listening');
  });

  for (const batch of [1, 3, 100]) {
    it(`folds a whole exchange (batches of ${batch})`, () => {
      const s = fold(conversation, batch);
      expect(s.phase).toBe('listening');
      expect(s.partial).toBe('');
      expect(s.sentence).toBeNull();
      expect(s.level).toBe(0.2);
      expect(turns(s)).toEqual([
        ['user', 'What is the weather?', false, false],
        ['assistant', 'Sunny and warm.', false, false],
      ]);
      expect(s.turns[1]!.timing).toEqual(timing);
    });
  }

  it('walks through the phases', () => {
    const phases: string[] = [];
    let s = running();
    for (const ev of conversation) {
      s = applyVoiceEvents(s, [ev]);
      phases.push(s.phase);
    }
    expect(phases).toEqual(['listening', 'hearing', 'hearing', 'hearing', 'hearing', 'thinking', 'thinking', 'speaking', 'speaking', 'listening']);
  });

  it('shows the draft, then replaces it with the final transcript', () => {
    let s = fold(conversation.slice(0, 5));
    expect(s.partial).toBe('what is the weather');
    expect(s.turns).toHaveLength(0);
    s = fold([conversation[5]!], 1, s);
    expect(s.partial).toBe('');
    expect(turns(s)).toEqual([['user', 'What is the weather?', false, false]]);
  });

  it('Stop or barge-in: the answer is marked interrupted, barge-in goes to hearing', () => {
    const stopped = fold([...conversation.slice(0, 8), { kind: 'answerDone', interrupted: true, timing: null }]);
    expect(stopped.phase).toBe('listening');
    expect(stopped.turns.at(-1)).toMatchObject({ text: 'Sunny ', interrupted: true, streaming: false });
    expect(answering(stopped)).toBe(false);

    const barged = fold([...conversation.slice(0, 8), { kind: 'bargeIn', silencedMs: 30, speechMs: 250 }, { kind: 'speechStarted' }, { kind: 'answerDone', interrupted: true, timing: null }]);
    expect(barged.phase).toBe('hearing');
    expect(barged.sentence).toBeNull();
    expect(barged.turns.at(-1)).toMatchObject({ interrupted: true, streaming: false });
  });

  it('a late answerDone of an old answer leaves the new question thinking', () => {
    const s = fold([
      ...conversation.slice(0, 8),
      { kind: 'bargeIn', silencedMs: 30, speechMs: 250 },
      { kind: 'speechStarted' },
      { kind: 'transcript', text: 'Actually, tomorrow?', sttMs: 100 },
      { kind: 'answerDone', interrupted: true, timing: null },
    ]);
    expect(s.phase).toBe('thinking');
    s.turns.forEach((t) => expect(t.streaming).toBe(false));
    const next = fold([{ kind: 'answerText', text: 'Rain.' }, { kind: 'answerDone', interrupted: false, timing: null }], 1, s);
    expect(turns(next).at(-1)).toEqual(['assistant', 'Rain.', false, false]);
    expect(next.phase).toBe('listening');
  });

  it('an answer that fails without text does not leave it thinking', () => {
    const s = fold([
      { kind: 'speechStarted' },
      { kind: 'transcript', text: 'hello', sttMs: 100 },
      { kind: 'error', message: 'The provider did not answer.' },
      { kind: 'answerDone', interrupted: true, timing: null },
    ]);
    expect(s.phase).toBe('listening');
    expect(s.error).toBe('The provider did not answer.');
    expect(s.turns).toHaveLength(1);
  });

  it('an empty transcript adds no turn and goes back to listening', () => {
    const s = fold([{ kind: 'speechStarted' }, { kind: 'partial', text: 'uh' }, { kind: 'transcript', text: '  ', sttMs: 100 }]);
    expect(s.turns).toHaveLength(0);
    expect(s.phase).toBe('listening');
  });

  it('a transcript arriving while the next utterance is spoken stays hearing', () => {
    const s = fold([{ kind: 'speechStarted' }, { kind: 'speechStarted' }, { kind: 'transcript', text: 'one', sttMs: 100 }]);
    expect(s.phase).toBe('hearing');
    expect(fold([{ kind: 'transcript', text: 'two', sttMs: 100 }], 1, s).phase).toBe('thinking');
  });

  it('a failed transcription ends its utterance', () => {
    const s = fold([{ kind: 'speechStarted' }, { kind: 'error', message: 'speech-to-text failed' }]);
    expect(s.phase).toBe('listening');
    expect(s.error).toBe('speech-to-text failed');
  });

  it('stopped returns to idle and keeps the turns; nothing after it counts', () => {
    const s = fold([...conversation.slice(0, 7), { kind: 'stopped' }, { kind: 'answerText', text: 'late' }]);
    expect(s.phase).toBe('idle');
    expect(s.level).toBe(0);
    expect(s.started).toBeNull();
    expect(turns(s)).toEqual([
      ['user', 'What is the weather?', false, false],
      ['assistant', 'Sunny ', false, false],
    ]);
    // A new conversation keeps the earlier turns on screen.
    expect(voiceStarting(s).turns).toBe(s.turns);
  });

  it('a failed start goes back to idle', () => {
    const s = voiceFailed(voiceStarting(idleVoice()));
    expect(s.phase).toBe('idle');
    expect(voiceStarted(s, info).phase).toBe('idle');
  });

  it('levels alone change only the level; identical batches return the same object', () => {
    const s = running();
    const a = applyVoiceEvents(s, [{ kind: 'level', rms: 0.1 }, { kind: 'level', rms: 0.3 }]);
    expect(a.level).toBe(0.3);
    expect(a.turns).toBe(s.turns);
    expect(applyVoiceEvents(a, [{ kind: 'level', rms: 0.3 }])).toBe(a);
    expect(applyVoiceEvents(a, [{ kind: 'level', rms: Number.NaN }]).level).toBe(0);
  });
});

describe('voice helpers', () => {
  it('labels', () => {
    expect(phaseLabel('listening', false)).toBe('Listening');
    expect(phaseLabel('listening', true)).toBe('Ready — hold to talk');
    expect(phaseLabel('hearing', true)).toBe('Hearing you…');
    expect(phaseLabel('starting', false)).toBe('Starting…');
  });

  it('meter maps RMS on a dB scale', () => {
    expect(meterFraction(0)).toBe(0);
    expect(meterFraction(-1)).toBe(0);
    expect(meterFraction(0.001)).toBe(0);
    expect(meterFraction(1)).toBe(1);
    const quiet = meterFraction(0.01);
    const loud = meterFraction(0.2);
    expect(quiet).toBeGreaterThan(0);
    expect(loud).toBeGreaterThan(quiet);
    expect(loud).toBeLessThan(1);
  });

  it('plain words for failures, details kept', () => {
    const noMic = voiceProblem({ code: 'audio', message: 'No microphone was found.', details: 'cpal: no default input device' });
    expect(noMic.title).toBe('Baton could not use a microphone.');
    expect(noMic.details).toContain('cpal');
    expect(voiceProblem({ code: 'audio', message: 'no speech-to-text model found in /m', details: null }).title).toBe('No speech recognition model is installed.');
    expect(voiceProblem({ code: 'busy', message: 'x', details: null }).title).toMatch(/already running/);
    expect(voiceProblem({ code: 'internal', message: 'x', details: null }).title).toBe('Voice mode could not start.');
  });

  const settings = {
    sttModel: '',
    language: 'en',
    threads: null,
    beamSize: 1,
    ttsEngine: 'espeak',
    ttsVoice: '  ',
    ttsRate: 175,
    inputDevice: '',
    outputDevice: 'hw:1',
    pushToTalk: false,
    endSilenceMs: 700,
    partialEveryMs: 1000,
    echoCancellation: true,
    noiseSuppression: false,
    speculateAfterMs: 300,
  };
  const view: Full<VoiceSettingsView> = {
    ...settings,
    ttsEngines: ['espeak', 'openai'],
    sttModels: ['ggml-tiny.en.bin'],
    languages: [{ code: 'en', name: 'English', available: true }],
  };

  it('validates the bounds the Rust side checks', () => {
    expect(validateVoiceSettings(view)).toEqual({});
    expect(Object.keys(validateVoiceSettings({ ...view, ttsRate: 500, endSilenceMs: 100 }))).toEqual(['ttsRate', 'endSilenceMs']);
    expect(validateVoiceSettings({ ...view, ttsRate: null as unknown as number }).ttsRate).toBeTruthy();
    expect(validateVoiceSettings({ ...view, ttsEngine: 'nope' }).ttsEngine).toBeTruthy();
  });

  it('saves empty choices as null (defaults) and leaves out the read-only lists', () => {
    expect(voiceSettingsToSave(view)).toEqual({ ...settings, inputDevice: null, ttsVoice: null, sttModel: null });
  });

  it('timing note', () => {
    expect(timingNote(timing)).toBe('first audio in 1,080 ms');
    expect(timingNote(null)).toBeNull();
  });
});
