/**
 * The e-mail a confirmation is about, read from the mail toolbox's call
 * (`MailTool.send_email`, `reply`, `email_me`), so the card can show it as a
 * message: recipients, subject, body, attachments. `null` for any other
 * tool, or arguments that are not a message.
 */
export interface MailDraft {
  /** What is being done: a new message, a reply, a note to oneself. */
  kind: 'send' | 'reply' | 'self';
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  attachments: string[];
  /** The message replied to (`INBOX:42`). */
  replyTo: string | null;
  replyAll: boolean;
}

const KINDS: Record<string, MailDraft['kind']> = { send_email: 'send', reply: 'reply', email_me: 'self' };

function strings(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function mailDraft(tool: string, args: string): MailDraft | null {
  const [box, method] = tool.split('.');
  if (box?.toLowerCase() !== 'mailtool' || !method) return null;
  const kind = KINDS[method.toLowerCase()];
  if (!kind) return null;
  let v: unknown;
  try {
    v = JSON.parse(args);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const a = v as Record<string, unknown>;
  return {
    kind,
    to: strings(a.to),
    cc: strings(a.cc),
    subject: typeof a.subject === 'string' ? a.subject : '',
    body: typeof a.body === 'string' ? a.body : '',
    attachments: strings(a.attachments),
    replyTo: typeof a.id === 'string' ? a.id : null,
    replyAll: a.reply_all === true,
  };
}
