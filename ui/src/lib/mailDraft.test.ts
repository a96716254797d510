import { describe, expect, it } from 'vitest';
import { mailDraft } from './mailDraft';

describe('mailDraft', () => {
  it('reads a message to send', () => {
    const d = mailDraft(
      'MailTool.send_email',
      JSON.stringify({ to: ['ana@example.org', 'Bob <bob@example.org>'], cc: ['c@example.org'], subject: 'Q1', body: 'Hi **Ana**', attachments: ['/q1.pdf'] }),
    );
    expect(d).toEqual({
      kind: 'send',
      to: ['ana@example.org', 'Bob <bob@example.org>'],
      cc: ['c@example.org'],
      subject: 'Q1',
      body: 'Hi **Ana**',
      attachments: ['/q1.pdf'],
      replyTo: null,
      replyAll: false,
    });
  });

  it('reads a reply and a note to oneself', () => {
    expect(mailDraft('MailTool.reply', '{"id": "INBOX:7", "body": "Thanks", "reply_all": true}')).toMatchObject({ kind: 'reply', replyTo: 'INBOX:7', replyAll: true, to: [] });
    expect(mailDraft('MailTool.email_me', '{"subject": "Summary", "body": "Done"}')).toMatchObject({ kind: 'self', subject: 'Summary' });
    // A single address given as text still shows.
    expect(mailDraft('MailTool.send_email', '{"to": "ana@example.org"}')?.to).toEqual(['ana@example.org']);
  });

  it('is null for other tools and for arguments that are not a message', () => {
    expect(mailDraft('Diagnostics.post_note', '{"text": "x"}')).toBeNull();
    expect(mailDraft('MailTool.move_email', '{"id": "INBOX:1"}')).toBeNull();
    expect(mailDraft('MailTool.send_email', 'not json')).toBeNull();
    expect(mailDraft('MailTool.send_email', '[1, 2]')).toBeNull();
  });
});
