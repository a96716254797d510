import { describe, expect, it } from 'vitest';
import type { ChatEvent } from './bindings';
import { announceFor, ANSWER_CHARS } from './announce';
import { applyEvents, assistantMessage, type TurnState } from './chat';

const start = (): TurnState => ({ sessionId: null, title: null, message: assistantMessage(true), done: false });
const say = (evs: ChatEvent[], turn = start()) => announceFor(evs, applyEvents(turn, evs));

describe('announcements', () => {
  it('streamed text alone says nothing new; the finished answer is read out', () => {
    expect(say([{ type: 'textDelta', text: 'Hel' }])).toBeNull();
    const turn = applyEvents(start(), [{ type: 'textDelta', text: 'Hello there.' }]);
    expect(say([{ type: 'done', reason: 'answered' }], turn)).toBe('Answer: Hello there.');
  });

  it('tools, confirmations and questions are said as they come, the latest winning', () => {
    expect(say([{ type: 'toolStarted', id: 't1', name: 'search_files', arguments: '{}' }])).toBe('Using search_files.');
    expect(
      say([
        { type: 'toolStarted', id: 't1', name: 'send_mail', arguments: '{}' },
        { type: 'confirmationRequested', id: 'c1', tool: 'Mail.send_mail', arguments: '{}', action: null },
      ]),
    ).toBe('Baton asks before it runs Mail.send_mail: allow or deny.');
    expect(say([{ type: 'subagentAsked', sessionId: 's1', question: 'Which file?' }])).toBe('A question for you: Which file?');
  });

  it('a long answer is cut; stops and errors are said in words', () => {
    const long = 'word '.repeat(400);
    const turn = applyEvents(start(), [{ type: 'textDelta', text: long }]);
    const line = say([{ type: 'done', reason: 'answered' }], turn)!;
    expect(line.length).toBeLessThan(ANSWER_CHARS + 60);
    expect(line).toMatch(/continued in the conversation\)$/);
    expect(say([{ type: 'done', reason: 'stopped' }])).toBe('Stopped.');
    expect(say([{ type: 'error', message: 'the provider timed out' }])).toBe('Error: the provider timed out');
  });
});
