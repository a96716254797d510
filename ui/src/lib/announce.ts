// What a screen reader hears about the turn in view. The messages list is
// a log that does not speak every streamed token (aria-live off); instead
// one polite status line says what happens: a tool used, an action or a
// question waiting for the user, and the answer once it is complete.
import type { ChatEvent, TurnEnd } from './bindings';
import { messageText, type TurnState } from './chat';

/** How much of a finished answer is read out (the rest is in the log). */
export const ANSWER_CHARS = 600;

/** The line to announce for `evs` (folded into `turn`), or `null` for nothing new. */
export function announceFor(evs: readonly ChatEvent[], turn: TurnState): string | null {
  let line: string | null = null;
  for (const ev of evs) {
    switch (ev.type) {
      case 'started':
        line = 'Baton is answering.';
        break;
      case 'toolStarted':
        line = `Using ${ev.name}.`;
        break;
      case 'confirmationRequested':
        line = `Baton asks before it runs ${ev.tool}: allow or deny.`;
        break;
      case 'subagentAsked':
        line = `A question for you: ${ev.question}`;
        break;
      case 'error':
        line = `Error: ${ev.message}`;
        break;
      case 'done':
        line = endLine(ev.reason, turn);
        break;
      default:
        break;
    }
  }
  return line;
}

function endLine(reason: TurnEnd, turn: TurnState): string {
  if (reason === 'stopped') return 'Stopped.';
  if (reason === 'error') return 'The answer stopped with an error.';
  if (reason === 'limit') return 'The answer stopped at a limit.';
  const text = messageText(turn.message).trim();
  if (!text) return 'Done.';
  const cut = text.length > ANSWER_CHARS ? `${text.slice(0, ANSWER_CHARS)}… (continued in the conversation)` : text;
  return `Answer: ${cut}`;
}
