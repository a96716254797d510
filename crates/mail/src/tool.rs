//! `MailTool`: the e-mail toolbox the model calls. Reading changes
//! nothing on the server (a message stays unread until mark_read);
//! sending is declared external, so it waits for the user's yes.

use std::future::Future;
use std::sync::Arc;

use baton_tools::{Sandbox, ToolContext, toolbox};
use chrono::NaiveDate;
use serde::Serialize;

use crate::MailError;
use crate::client::{Folder, MailClient};
use crate::message::{self, Attachment, Email, Outgoing, Summary};

/// The most bytes of attachments one message may carry.
const MAX_ATTACHMENTS: usize = 25 * 1024 * 1024;

/// Your e-mail (IMAP and SMTP): list folders and messages, read them as Markdown, search, save attachments into the workspace, move messages and mark them read, keep drafts, and send mail and replies with workspace files attached (sending asks the user first).
#[toolbox]
pub struct MailTool {
    client: Arc<MailClient>,
    sandbox: Sandbox,
}

/// A message sent.
#[derive(Debug, Serialize)]
pub struct Sent {
    /// Who it went to.
    pub sent_to: Vec<String>,
    /// Its subject.
    pub subject: String,
    /// Its Message-ID.
    pub message_id: String,
    /// The files attached.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
    /// The folder a copy was kept in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_in: Option<String>,
}

/// A draft stored.
#[derive(Debug, Serialize)]
pub struct Drafted {
    /// The drafts folder.
    pub folder: String,
    /// Its subject.
    pub subject: String,
    /// Its recipients.
    pub to: Vec<String>,
}

/// An attachment saved into the workspace.
#[derive(Debug, Serialize)]
pub struct SavedAttachment {
    /// The workspace path.
    pub path: String,
    /// Its size.
    pub bytes: usize,
    /// Where the file it replaced was backed up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

/// What a change to a message did.
#[derive(Debug, Serialize)]
pub struct Changed {
    /// The message.
    pub id: String,
    /// What happened.
    pub done: String,
}

/// Runs `work` unless the turn is stopped first.
async fn stoppable<T>(
    ctx: &ToolContext,
    work: impl Future<Output = Result<T, MailError>>,
) -> Result<T, MailError> {
    tokio::select! {
        r = work => r,
        _ = ctx.cancel_token().cancelled() => Err(MailError::Cancelled),
    }
}

/// `2024-03-01` as an IMAP date (`1-Mar-2024`).
fn imap_date(field: &str, s: &str) -> Result<String, MailError> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map(|d| d.format("%-d-%b-%Y").to_string())
        .map_err(|_| {
            MailError::invalid(format!(
                "`{field}` must be a date like 2024-03-01, not `{s}`"
            ))
        })
}

/// IMAP SEARCH criteria from the search fields (`ALL` when none).
fn criteria(fields: &[(&str, Option<&str>)], unread_only: bool) -> Result<String, MailError> {
    let mut parts = Vec::new();
    for (key, value) in fields {
        let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            continue;
        };
        parts.push(match *key {
            "SINCE" => format!("SINCE {}", imap_date("since", v)?),
            "BEFORE" => format!("BEFORE {}", imap_date("before", v)?),
            k => format!("{k} {}", crate::imap::quote(v)),
        });
    }
    if unread_only {
        parts.push("UNSEEN".into());
    }
    let query = if parts.is_empty() {
        "ALL".to_string()
    } else {
        parts.join(" ")
    };
    Ok(if query.is_ascii() {
        query
    } else {
        format!("CHARSET UTF-8 {query}")
    })
}

impl MailTool {
    /// A toolbox over `client`, attachments read from and saved into
    /// `sandbox`.
    pub fn new(client: Arc<MailClient>, sandbox: Sandbox) -> Self {
        Self { client, sandbox }
    }

    /// Reads the workspace files to attach.
    fn read_attachments(&self, paths: &[String]) -> Result<Vec<Attachment>, MailError> {
        let mut out = Vec::new();
        let mut total = 0;
        for p in paths {
            let place = self
                .sandbox
                .place(p, false)
                .map_err(|e| MailError::invalid(format!("attachment `{p}`: {e}")))?;
            let host = place.host();
            let bytes = place.read(&self.sandbox).map_err(|e| {
                MailError::invalid(format!("attachment `{p}` could not be read: {e}"))
            })?;
            total += bytes.len();
            if total > MAX_ATTACHMENTS {
                return Err(MailError::invalid(format!(
                    "the attachments come to more than {} MB, more than most mail servers accept",
                    MAX_ATTACHMENTS / (1024 * 1024)
                )));
            }
            let name = host
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.clone());
            out.push(Attachment { name, bytes });
        }
        Ok(out)
    }

    /// The sender (the user's address and name).
    fn sender(&self) -> Result<(Option<String>, String), MailError> {
        let account = self.client.account();
        Ok((account.name.clone(), account.sender()?.to_string()))
    }

    /// Sends `out` and keeps a copy in the sent folder.
    async fn deliver(&self, mut out: Outgoing) -> Result<Sent, MailError> {
        let (name, from) = self.sender()?;
        out.from = Some((name, from.clone()));
        let recipients = out.recipients()?;
        let domain = from
            .rsplit_once('@')
            .map(|(_, d)| d)
            .unwrap_or("baton.local");
        let message_id = format!(
            "{}.{}@{domain}",
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default(),
            std::process::id()
        );
        let raw = out.build(&message_id)?;
        self.client.send(&from, &recipients, &raw).await?;
        // The copy is a courtesy: the mail has gone whatever happens here.
        let copy_in = match self.client.account().imap() {
            Ok(_) => match self.client.folder_for("sent").await {
                Ok(Some(sent)) => self
                    .client
                    .append(&sent, "(\\Seen)", &raw)
                    .await
                    .ok()
                    .map(|_| sent),
                _ => None,
            },
            Err(_) => None,
        };
        Ok(Sent {
            sent_to: recipients,
            subject: out.subject,
            message_id,
            attachments: out.attachments.into_iter().map(|a| a.name).collect(),
            copy_in,
        })
    }
}

#[toolbox]
impl MailTool {
    /// What a reply will really do, for the user's card: whom it goes to
    /// once the original's Reply-To is followed (with a warning when that
    /// is not the sender), its subject, attachments and quote.
    async fn describe(&self, call: baton_tools::PendingCall<'_>) -> Option<String> {
        if call.method != "reply" {
            return None;
        }
        let id = call.args.get("id")?.as_str()?;
        let all = call
            .args
            .get("reply_all")
            .and_then(serde_json::Value::as_bool);
        let (raw, _) = self.client.raw(id).await.ok()?;
        let original = message::parse(id, &raw).ok()?;
        let out = self
            .reply_to(&original, "", all.unwrap_or(false), Vec::new())
            .ok()?;
        let files = call
            .args
            .get("attachments")
            .and_then(serde_json::Value::as_array);
        let files: Vec<&str> = files
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str())
            .collect();
        Some(reply_words(&out, &original, &files))
    }

    /// Lists the mail folders with how many messages each holds and how many are unread.
    pub async fn list_folders(&self, ctx: &ToolContext) -> Result<Vec<Folder>, MailError> {
        stoppable(ctx, self.client.folders()).await
    }

    /// Lists the newest messages of a folder (id, from, to, date, subject, a snippet, attachment names), newest first.
    /// - folder: the folder, e.g. `INBOX` (see list_folders)
    /// - count: how many messages
    /// - unread_only: only messages not read yet
    /// - since: only messages from this day on, e.g. `2024-03-01`
    pub async fn get_emails(
        &self,
        #[default("INBOX".to_string())] folder: String,
        #[default(10usize)] count: usize,
        #[default(false)] unread_only: bool,
        since: Option<String>,
        ctx: &ToolContext,
    ) -> Result<Vec<Summary>, MailError> {
        let query = criteria(&[("SINCE", since.as_deref())], unread_only)?;
        stoppable(ctx, self.client.list(&folder, &query, count.clamp(1, 50))).await
    }

    /// Reads one message whole: headers, the body as Markdown (HTML mail converted) and its attachments' names. It stays unread (see mark_read).
    /// - id: the message's id from get_emails or search_emails, e.g. `INBOX:42`
    pub async fn read_email(&self, id: String, ctx: &ToolContext) -> Result<Email, MailError> {
        stoppable(ctx, async {
            let (raw, unread) = self.client.raw(&id).await?;
            message::email(id.clone(), &raw, unread)
        })
        .await
    }

    /// Searches a folder by sender, recipient, subject, words anywhere in the message and dates; every field given must match. Newest first.
    /// - text: words anywhere in the message
    /// - from: words in the sender
    /// - to: words in the recipients
    /// - subject: words in the subject
    /// - since: from this day on, e.g. `2024-03-01`
    /// - before: before this day, e.g. `2024-04-01`
    /// - folder: the folder to search
    /// - count: the most messages to list
    #[allow(clippy::too_many_arguments)]
    pub async fn search_emails(
        &self,
        text: Option<String>,
        from: Option<String>,
        to: Option<String>,
        subject: Option<String>,
        since: Option<String>,
        before: Option<String>,
        #[default("INBOX".to_string())] folder: String,
        #[default(20usize)] count: usize,
        ctx: &ToolContext,
    ) -> Result<Vec<Summary>, MailError> {
        let query = criteria(
            &[
                ("TEXT", text.as_deref()),
                ("FROM", from.as_deref()),
                ("TO", to.as_deref()),
                ("SUBJECT", subject.as_deref()),
                ("SINCE", since.as_deref()),
                ("BEFORE", before.as_deref()),
            ],
            false,
        )?;
        stoppable(ctx, self.client.list(&folder, &query, count.clamp(1, 100))).await
    }

    /// Saves an attachment of a message as a file in the workspace (a file already there is backed up first).
    /// - id: the message's id
    /// - name: the attachment's file name, as read_email lists it
    /// - path: where to save it in the workspace, e.g. `/invoices/march.pdf`
    #[effect(write)]
    pub async fn save_attachment(
        &self,
        id: String,
        name: String,
        path: String,
        ctx: &ToolContext,
    ) -> Result<SavedAttachment, MailError> {
        let (raw, _) = stoppable(ctx, self.client.raw(&id)).await?;
        let msg = message::parse(&id, &raw)?;
        let names: Vec<String> = message::attachments(&msg)
            .into_iter()
            .map(|a| a.name)
            .collect();
        let part = msg
            .attachments()
            .enumerate()
            .find(|(i, a)| message::attachment_name(a, *i) == name)
            .map(|(_, a)| a)
            .ok_or_else(|| {
                MailError::invalid(format!(
                    "message {id} has no attachment `{name}`; its attachments: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            })?;
        let place = self
            .sandbox
            .place(&path, true)
            .map_err(|e| MailError::invalid(e.to_string()))?;
        let agent = self.sandbox.agent_path(place.host()).unwrap_or(path);
        let backup = baton_stdx::replace_with_backup(place.io(), part.contents())
            .map_err(|e| MailError::invalid(format!("{agent}: {e}")))?
            .and_then(|b| self.sandbox.agent_path(&place.shown(&b)));
        Ok(SavedAttachment {
            path: agent,
            bytes: part.contents().len(),
            backup,
        })
    }

    /// Writes a message into the drafts folder without sending it (the user can finish and send it from their mail program).
    /// - to: the recipients' addresses, e.g. `["ana@example.org"]`
    /// - cc: addresses to copy
    /// - subject: the subject
    /// - body: the text, in Markdown (sent as text and as HTML)
    /// - attachments: workspace files to attach, e.g. `["/reports/q1.pdf"]`
    #[effect(change)]
    pub async fn draft_email(
        &self,
        to: Vec<String>,
        #[default(Vec::new())] cc: Vec<String>,
        subject: String,
        body: String,
        #[default(Vec::new())] attachments: Vec<String>,
        ctx: &ToolContext,
    ) -> Result<Drafted, MailError> {
        let out = Outgoing {
            from: self.sender().ok(),
            to: to.clone(),
            cc,
            subject: subject.clone(),
            body,
            attachments: self.read_attachments(&attachments)?,
            ..Outgoing::default()
        };
        let raw = out.build(&format!(
            "draft.{}@baton.local",
            chrono::Utc::now().timestamp_millis()
        ))?;
        stoppable(ctx, async {
            let folder = self
                .client
                .folder_for("drafts")
                .await?
                .unwrap_or_else(|| "Drafts".to_string());
            self.client
                .append(&folder, "(\\Draft \\Seen)", &raw)
                .await?;
            Ok(Drafted {
                folder,
                subject,
                to,
            })
        })
        .await
    }

    /// Sends an e-mail from the user's address (the user confirms first); a copy is kept in the sent folder.
    /// - to: the recipients' addresses, e.g. `["ana@example.org"]`
    /// - cc: addresses to copy
    /// - subject: the subject
    /// - body: the text, in Markdown (sent as text and as HTML)
    /// - attachments: workspace files to attach, e.g. `["/reports/q1.pdf"]`
    #[effect(external)]
    pub async fn send_email(
        &self,
        to: Vec<String>,
        #[default(Vec::new())] cc: Vec<String>,
        subject: String,
        body: String,
        #[default(Vec::new())] attachments: Vec<String>,
        ctx: &ToolContext,
    ) -> Result<Sent, MailError> {
        let out = Outgoing {
            to,
            cc,
            subject,
            body,
            attachments: self.read_attachments(&attachments)?,
            ..Outgoing::default()
        };
        stoppable(ctx, self.deliver(out)).await
    }

    /// Replies to a message (the user confirms first): to its sender, or to everyone on it; the original is quoted below.
    /// - id: the message's id
    /// - body: the reply, in Markdown
    /// - reply_all: also to the other recipients
    /// - attachments: workspace files to attach
    #[effect(external)]
    pub async fn reply(
        &self,
        id: String,
        body: String,
        #[default(false)] reply_all: bool,
        #[default(Vec::new())] attachments: Vec<String>,
        ctx: &ToolContext,
    ) -> Result<Sent, MailError> {
        let files = self.read_attachments(&attachments)?;
        stoppable(ctx, async {
            let (raw, _) = self.client.raw(&id).await?;
            let original = message::parse(&id, &raw)?;
            let out = self.reply_to(&original, &body, reply_all, files)?;
            self.deliver(out).await
        })
        .await
    }

    /// E-mails the user themself (a summary, a reminder, a finished report), from and to their own address.
    /// - subject: the subject
    /// - body: the text, in Markdown
    /// - attachments: workspace files to attach
    #[effect(external)]
    pub async fn email_me(
        &self,
        subject: String,
        body: String,
        #[default(Vec::new())] attachments: Vec<String>,
        ctx: &ToolContext,
    ) -> Result<Sent, MailError> {
        let me = self.sender()?.1;
        self.send_email(vec![me], Vec::new(), subject, body, attachments, ctx)
            .await
    }

    /// Moves a message to another folder (e.g. `Archive`, `Trash`).
    /// - id: the message's id
    /// - folder: the folder to move it to
    #[effect(change)]
    pub async fn move_email(
        &self,
        id: String,
        folder: String,
        ctx: &ToolContext,
    ) -> Result<Changed, MailError> {
        stoppable(ctx, self.client.move_to(&id, &folder)).await?;
        Ok(Changed {
            done: format!("moved to {folder}"),
            id,
        })
    }

    /// Marks a message read (or unread again).
    /// - id: the message's id
    /// - read: true for read, false for unread
    #[effect(change)]
    pub async fn mark_read(
        &self,
        id: String,
        #[default(true)] read: bool,
        ctx: &ToolContext,
    ) -> Result<Changed, MailError> {
        stoppable(ctx, self.client.set_read(&id, read)).await?;
        Ok(Changed {
            done: if read { "marked read" } else { "marked unread" }.into(),
            id,
        })
    }
}

/// How much of the quoted original a reply's card shows.
const QUOTED_SHOWN: usize = 300;

/// A reply as the user's card says it.
fn reply_words(out: &Outgoing, original: &mail_parser::Message<'_>, files: &[&str]) -> String {
    let mut lines = vec![format!("Reply to {}", out.to.join(", "))];
    if !out.cc.is_empty() {
        lines.push(format!("Cc {}", out.cc.join(", ")));
    }
    let from = message::bare_addresses(original.from());
    let reply_to = message::bare_addresses(original.reply_to());
    let lower =
        |l: &[String]| -> Vec<String> { l.iter().map(|a| a.to_ascii_lowercase()).collect() };
    if !reply_to.is_empty() && lower(&reply_to) != lower(&from) {
        lines.push(format!(
            "Warning: the message is from {}, but it asks for replies to go to {}",
            from.join(", "),
            reply_to.join(", ")
        ));
    }
    lines.push(format!("Subject: {}", out.subject));
    if !files.is_empty() {
        lines.push(format!("Attached: {}", files.join(", ")));
    }
    // What goes out besides the reply's own words: the original, quoted.
    let quoted = original
        .body_text(0)
        .map(|t| baton_stdx::excerpt(&t, QUOTED_SHOWN))
        .unwrap_or_default();
    lines.push(if quoted.is_empty() {
        "The original message (it has no text) is quoted below the reply.".into()
    } else {
        format!("Quoted below the reply, from the original: \u{201c}{quoted}\u{201d}")
    });
    lines.join("\n")
}

impl MailTool {
    /// The reply to `original`: its sender (or Reply-To), everyone else
    /// on it too with `all` (not the user), the thread's headers.
    fn reply_to(
        &self,
        original: &mail_parser::Message<'_>,
        body: &str,
        all: bool,
        attachments: Vec<Attachment>,
    ) -> Result<Outgoing, MailError> {
        let me = self.sender()?.1.to_ascii_lowercase();
        let reply_to = message::bare_addresses(original.reply_to());
        let mut to = if reply_to.is_empty() {
            message::bare_addresses(original.from())
        } else {
            reply_to
        };
        let mut cc = Vec::new();
        if all {
            to.extend(message::bare_addresses(original.to()));
            cc = message::bare_addresses(original.cc());
        }
        let mut seen = std::collections::HashSet::from([me]);
        to.retain(|a| seen.insert(a.to_ascii_lowercase()));
        cc.retain(|a| seen.insert(a.to_ascii_lowercase()));
        if to.is_empty() {
            // A reply to one's own message goes to whom it was sent.
            to = message::bare_addresses(original.to());
            to.retain(|a| seen.insert(a.to_ascii_lowercase()));
        }
        if to.is_empty() {
            return Err(MailError::invalid("the message has no one to reply to"));
        }
        let mut references: Vec<String> = original
            .references()
            .as_text_list()
            .map(|l| l.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        let parent = original.message_id().map(str::to_string);
        references.extend(parent.clone());
        Ok(Outgoing {
            to,
            cc,
            subject: message::reply_subject(original.subject().unwrap_or("")),
            body: message::quoted(body, original),
            attachments,
            in_reply_to: parent,
            references,
            ..Outgoing::default()
        })
    }
}
