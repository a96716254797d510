//! The user's mailbox, shared by every conversation: one IMAP session
//! kept open between calls (checked with NOOP after a quiet minute,
//! dropped after any failure or a stopped call, so the next call starts
//! clean), and the commands the toolbox is made of.

use std::time::{Duration, Instant};

use async_imap::types::{Flag, NameAttribute};
use futures::TryStreamExt;
use serde::Serialize;
use tokio::sync::{Mutex, MutexGuard};

use crate::account::MailAccount;
use crate::imap::{self, Session, timed};
use crate::message::{self, Summary};
use crate::{MailError, smtp, structure};

/// What a message list fetches of each message: its flags, its structure
/// and its first 16 KB.
const LIST_ITEMS: &str = "(UID FLAGS BODYSTRUCTURE BODY.PEEK[]<0.16384>)";

/// How long a kept session may take to answer NOOP (a laptop that slept
/// leaves a connection that never answers).
const NOOP_TIMEOUT: Duration = Duration::from_secs(10);

/// After this long unused, a kept session is checked before use.
const IDLE_CHECK: Duration = Duration::from_secs(60);

/// A mail folder.
#[derive(Debug, Clone, Serialize)]
pub struct Folder {
    /// Its name, as the other methods take it (`INBOX`, `Archive/2024`).
    pub name: String,
    /// What it is for, when the server says (`drafts`, `sent`, `trash`,
    /// `junk`, `archive`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    /// Messages in it.
    pub messages: u32,
    /// Messages not read yet.
    pub unread: u32,
}

struct Kept {
    session: Session,
    used: Instant,
}

/// The user's mail account with its kept IMAP session.
pub struct MailClient {
    account: MailAccount,
    kept: Mutex<Option<Kept>>,
}

impl std::fmt::Debug for MailClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailClient")
            .field("account", &self.account)
            .finish_non_exhaustive()
    }
}

/// A session in use; unless [`Imap::done`] is called it is dropped (a
/// failed or stopped command leaves it in an unknown state).
pub(crate) struct Imap<'a> {
    guard: MutexGuard<'a, Option<Kept>>,
    ok: bool,
}

impl Imap<'_> {
    fn s(&mut self) -> &mut Session {
        &mut self
            .guard
            .as_mut()
            .expect("a session is there while in use")
            .session
    }

    /// Ends the use with `e`: a clean refusal (no such folder or
    /// message) keeps the session, anything else drops it.
    fn settle(self, e: MailError) -> MailError {
        if matches!(e, MailError::NoFolder { .. } | MailError::NoMessage { .. }) {
            self.done();
        }
        e
    }

    /// The commands went well: keep the session for the next call.
    pub(crate) fn done(mut self) {
        self.ok = true;
        if let Some(k) = self.guard.as_mut() {
            k.used = Instant::now();
        }
    }
}

impl Drop for Imap<'_> {
    fn drop(&mut self) {
        if !self.ok {
            *self.guard = None;
        }
    }
}

/// `FOLDER:UID` → (folder, uid).
pub(crate) fn split_id(id: &str) -> Result<(String, u32), MailError> {
    id.rsplit_once(':')
        .and_then(|(f, u)| Some((f.to_string(), u.trim().parse().ok()?)))
        .filter(|(f, _)| !f.is_empty())
        .ok_or_else(|| MailError::NoMessage {
            id: id.to_string(),
            reason: "ids look like `INBOX:42` (from get_emails or search_emails)".into(),
        })
}

fn role(attrs: &[NameAttribute<'_>]) -> Option<&'static str> {
    attrs.iter().find_map(|a| match a {
        NameAttribute::Drafts => Some("drafts"),
        NameAttribute::Sent => Some("sent"),
        NameAttribute::Trash => Some("trash"),
        NameAttribute::Junk => Some("junk"),
        NameAttribute::Archive => Some("archive"),
        _ => None,
    })
}

impl MailClient {
    /// A client for `account`; nothing connects until the first call.
    pub fn new(account: MailAccount) -> Self {
        Self {
            account,
            kept: Mutex::new(None),
        }
    }

    /// The account.
    pub fn account(&self) -> &MailAccount {
        &self.account
    }

    /// The kept session, checked, or a new one.
    pub(crate) async fn imap(&self) -> Result<Imap<'_>, MailError> {
        let cfg = self.account.imap()?;
        let mut guard = self.kept.lock().await;
        if guard
            .as_ref()
            .is_some_and(|k| k.used.elapsed() > IDLE_CHECK)
            && let Some(mut k) = guard.take()
        {
            // Taken out while checked: a stopped call leaves nothing behind.
            let alive = tokio::time::timeout(NOOP_TIMEOUT, k.session.noop()).await;
            if matches!(alive, Ok(Ok(()))) {
                *guard = Some(k);
            }
        }
        if guard.is_none() {
            *guard = Some(Kept {
                session: imap::open(cfg).await?,
                used: Instant::now(),
            });
        }
        Ok(Imap { guard, ok: false })
    }

    /// Every selectable folder with its counts.
    pub(crate) async fn folders(&self) -> Result<Vec<Folder>, MailError> {
        let mut imap = self.imap().await?;
        let folders = folders_in(&mut imap).await?;
        imap.done();
        Ok(folders)
    }

    /// The folder with `role` (`drafts`, `sent`), by the server's marks,
    /// else by its usual names.
    pub(crate) async fn folder_for(&self, role: &str) -> Result<Option<String>, MailError> {
        // Names and marks only: no STATUS per folder for each mail sent.
        let mut imap = self.imap().await?;
        let folders = names_in(&mut imap).await?;
        imap.done();
        if let Some(f) = folders.iter().find(|f| f.role == Some(role)) {
            return Ok(Some(f.name.clone()));
        }
        let usual: &[&str] = match role {
            "drafts" => &["Drafts", "Draft"],
            "sent" => &["Sent", "Sent Items", "Sent Messages", "Sent Mail"],
            _ => &[],
        };
        Ok(folders
            .into_iter()
            .find(|f| usual.iter().any(|u| f.name.eq_ignore_ascii_case(u)))
            .map(|f| f.name))
    }

    /// The newest `count` messages of `folder` matching the IMAP SEARCH
    /// `criteria`, newest first.
    pub(crate) async fn list(
        &self,
        folder: &str,
        criteria: &str,
        count: usize,
    ) -> Result<Vec<Summary>, MailError> {
        let mut imap = self.open_at(folder, false).await?;
        let mut uids: Vec<u32> = timed("searching", imap.s().uid_search(criteria))
            .await?
            .into_iter()
            .collect();
        uids.sort_unstable_by(|a, b| b.cmp(a));
        uids.truncate(count);
        if uids.is_empty() {
            imap.done();
            return Ok(Vec::new());
        }
        // The start of each message (headers, the text) and its structure
        // (the attachments' names): not the attachments themselves.
        let fetched = imap::fetch(imap.s(), &uids, LIST_ITEMS).await?;
        imap.done();
        let mut out: Vec<(u32, Summary)> = fetched
            .iter()
            .filter_map(|f| {
                let uid = f.uid?;
                let unread = !f.flags().any(|fl| fl == Flag::Seen);
                Some((
                    uid,
                    message::summary(
                        format!("{folder}:{uid}"),
                        f.body().unwrap_or_default(),
                        f.bodystructure().map(structure::attachment_names),
                        unread,
                    ),
                ))
            })
            .collect();
        out.sort_by_key(|(uid, _)| std::cmp::Reverse(*uid));
        Ok(out.into_iter().map(|(_, s)| s).collect())
    }

    /// A message's raw bytes and whether it is unread.
    pub(crate) async fn raw(&self, id: &str) -> Result<(Vec<u8>, bool), MailError> {
        let (folder, uid) = split_id(id)?;
        let mut imap = self.open_at(&folder, false).await?;
        let fetched = imap::fetch(imap.s(), &[uid], "(UID FLAGS BODY.PEEK[])").await?;
        let Some(f) = fetched.iter().find(|f| f.uid == Some(uid)) else {
            return Err(imap.settle(not_there(id, &folder)));
        };
        imap.done();
        let unread = !f.flags().any(|fl| fl == Flag::Seen);
        Ok((f.body().unwrap_or_default().to_vec(), unread))
    }

    /// `folder` opened in a kept (or new) session.
    async fn open_at(&self, folder: &str, write: bool) -> Result<Imap<'_>, MailError> {
        let mut imap = self.imap().await?;
        match open_folder(&mut imap, folder, write).await {
            Ok(()) => Ok(imap),
            Err(e) => Err(imap.settle(e)),
        }
    }

    /// `folder` opened for changes, with message `uid` checked to be there
    /// (its UID only is fetched).
    async fn open_with(&self, id: &str) -> Result<(Imap<'_>, u32), MailError> {
        let (folder, uid) = split_id(id)?;
        let mut imap = self.open_at(&folder, true).await?;
        let fetched = imap::fetch(imap.s(), &[uid], "(UID)").await?;
        if fetched.iter().any(|f| f.uid == Some(uid)) {
            Ok((imap, uid))
        } else {
            Err(imap.settle(not_there(id, &folder)))
        }
    }

    /// Marks a message read or unread.
    pub(crate) async fn set_read(&self, id: &str, read: bool) -> Result<(), MailError> {
        let (mut imap, uid) = self.open_with(id).await?;
        let op = if read {
            "+FLAGS.SILENT (\\Seen)"
        } else {
            "-FLAGS.SILENT (\\Seen)"
        };
        timed("marking the message", async {
            imap.s()
                .uid_store(uid.to_string(), op)
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await?;
        imap.done();
        Ok(())
    }

    /// Moves a message to `to`.
    pub(crate) async fn move_to(&self, id: &str, to: &str) -> Result<(), MailError> {
        let (mut imap, uid) = self.open_with(id).await?;
        if !names_in(&mut imap).await?.iter().any(|f| f.name == to) {
            let e = no_folder(&mut imap, to).await;
            return Err(imap.settle(e));
        }
        let caps = timed("reading capabilities", imap.s().capabilities()).await?;
        let (can_move, uidplus) = (caps.has_str("MOVE"), caps.has_str("UIDPLUS"));
        let set = uid.to_string();
        if can_move {
            timed("moving the message", imap.s().uid_mv(&set, imap::wire(to))).await?;
        } else {
            timed(
                "copying the message",
                imap.s().uid_copy(&set, imap::wire(to)),
            )
            .await?;
            // Only this message is expunged (UID EXPUNGE); without UIDPLUS
            // a plain EXPUNGE would also remove whatever else is marked
            // deleted, so the original stays, marked deleted.
            timed("removing the original", async {
                imap.s()
                    .uid_store(&set, "+FLAGS.SILENT (\\Deleted)")
                    .await?
                    .try_collect::<Vec<_>>()
                    .await?;
                if uidplus {
                    imap.s()
                        .uid_expunge(&set)
                        .await?
                        .try_collect::<Vec<_>>()
                        .await?;
                }
                Ok(())
            })
            .await?;
        }
        imap.done();
        Ok(())
    }

    /// Stores a message in `folder` with `flags` (`(\\Seen)`).
    pub(crate) async fn append(
        &self,
        folder: &str,
        flags: &str,
        raw: &[u8],
    ) -> Result<(), MailError> {
        let mut imap = self.imap().await?;
        timed(
            &format!("storing the message in {folder}"),
            imap.s().append(imap::wire(folder), Some(flags), None, raw),
        )
        .await?;
        imap.done();
        Ok(())
    }

    /// Signs in to the IMAP server and counts its folders (the settings'
    /// connection test).
    pub async fn check_imap(&self) -> Result<usize, MailError> {
        Ok(self.folders().await?.len())
    }

    /// Connects and signs in to the SMTP server without sending anything.
    pub async fn check_smtp(&self) -> Result<(), MailError> {
        smtp::check(self.account.smtp()?).await
    }

    /// Sends a message over SMTP.
    pub(crate) async fn send(
        &self,
        from: &str,
        recipients: &[String],
        raw: &[u8],
    ) -> Result<(), MailError> {
        smtp::send(self.account.smtp()?, from, recipients, raw).await
    }
}

/// Every selectable folder's name and role (counts left at 0), on a
/// session in use: one LIST.
async fn names_in(imap: &mut Imap<'_>) -> Result<Vec<Folder>, MailError> {
    let names = timed("listing folders", async {
        imap.s()
            .list(Some(""), Some("*"))
            .await?
            .try_collect::<Vec<_>>()
            .await
    })
    .await?;
    Ok(names
        .iter()
        .filter(|n| !n.attributes().contains(&NameAttribute::NoSelect))
        .map(|n| Folder {
            name: imap::readable(n.name()),
            role: role(n.attributes()),
            messages: 0,
            unread: 0,
        })
        .collect())
}

/// Every selectable folder with its counts (a STATUS each).
async fn folders_in(imap: &mut Imap<'_>) -> Result<Vec<Folder>, MailError> {
    let mut out = names_in(imap).await?;
    for f in &mut out {
        let status = timed(
            "reading a folder's counts",
            imap.s().status(imap::wire(&f.name), "(MESSAGES UNSEEN)"),
        )
        .await?;
        f.messages = status.exists;
        f.unread = status.unseen.unwrap_or(0);
    }
    Ok(out)
}

/// The error for a message that is not (or no longer) in `folder`.
fn not_there(id: &str, folder: &str) -> MailError {
    MailError::NoMessage {
        id: id.to_string(),
        reason: format!("it is not in {folder} (moved or deleted?)"),
    }
}

/// The error for a folder that is not there, naming those that are (or
/// the error that kept them from being listed).
async fn no_folder(imap: &mut Imap<'_>, name: &str) -> MailError {
    match names_in(imap).await {
        Ok(f) => MailError::NoFolder {
            name: name.to_string(),
            known: f.into_iter().map(|f| f.name).collect::<Vec<_>>().join(", "),
        },
        Err(e) => e,
    }
}

/// Opens `folder` (read-only unless `write`). Only the server's NO means
/// there is no such folder; a lost connection is told as one.
async fn open_folder(imap: &mut Imap<'_>, folder: &str, write: bool) -> Result<(), MailError> {
    let name = imap::wire(folder);
    let opened = async {
        if write {
            imap.s().select(&name).await.map(drop)
        } else {
            imap.s().examine(&name).await.map(drop)
        }
    };
    match tokio::time::timeout(crate::COMMAND_TIMEOUT, opened).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(async_imap::error::Error::No(_))) => Err(no_folder(imap, folder).await),
        Ok(Err(e)) => Err(imap::refused("opening the folder", e)),
        Err(_) => Err(MailError::Timeout {
            server: "imap",
            what: format!("opening {folder}"),
            secs: crate::COMMAND_TIMEOUT.as_secs(),
        }),
    }
}
