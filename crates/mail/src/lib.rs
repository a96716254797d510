//! Baton's e-mail toolbox: the user's mailbox over IMAP and sending over
//! SMTP, with the settings' servers and the keychain's passwords.
//!
//! [`MailClient`] is the account with its kept IMAP session, shared by
//! every conversation; [`MailTool`] is the toolbox the model calls.

mod account;
mod client;
mod error;
mod imap;
mod message;
mod smtp;
mod structure;
mod tls;
mod tool;

pub use account::{
    COMMAND_TIMEOUT, CONNECT_TIMEOUT, MailAccount, Secret, ServerConfig, default_port, password_env,
};
pub use client::{Folder, MailClient};
pub use error::MailError;
pub use message::{AttachmentInfo, Email, Summary};
pub use tool::{Changed, Drafted, MailTool, SavedAttachment, Sent};
