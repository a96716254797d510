// What a screen reader hears about the turn in view. The messages list is
// a log that does not speak every streamed token (aria-live off); instead
// one polite status line says what happens: a tool used, an action or a
// question waiting for the user, and the answer once it is complete.
import type { ChatEvent, TurnEnd } from './bindings';
import { messageText, type TurnState } from './chat';
import { t } from './i18n.svelte';

/** How much of a finished answer is read out (the rest is in the log). */
export const ANSWER_CHARS = 600;

/** The line to announce for `evs` (folded into `turn`), or `null` for nothing new. */
export function announceFor(evs: readonly ChatEvent[], turn: TurnState): string | null {
  let line: string | null = null;
  for (const ev of evs) {
    switch (ev.type) {
      case 'started':
        line = t('chat.announce.answering');
        break;
      case 'toolStarted':
        line = t('chat.announce.using', { tool: ev.name });
        break;
      case 'confirmationRequested':
        line = t('chat.announce.confirm', { tool: ev.tool });
        break;
      case 'subagentAsked':
        line = t('chat.announce.question', { question: ev.question });
        break;
      case 'error':
        line = t('chat.announce.error', { message: ev.message });
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
  if (reason === 'stopped') return t('chat.announce.stopped');
  if (reason === 'error') return t('chat.announce.failed');
  if (reason === 'limit') return t('chat.announce.limit');
  const text = messageText(turn.message).trim();
  if (!text) return t('chat.announce.done');
  const cut = text.length > ANSWER_CHARS ? t('chat.announce.cut', { text: text.slice(0, ANSWER_CHARS) }) : text;
  return t('chat.announce.answer', { text: cut });
}
