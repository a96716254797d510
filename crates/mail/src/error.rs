//! What goes wrong with mail, in words the user (and the model) can act on.

use thiserror::Error;

/// A mail failure.
#[derive(Debug, Error)]
pub enum MailError {
    /// The server's settings are missing.
    #[error(
        "{server} is not set up: set `{server}.host` and `{server}.username` (`baton config set {server}.host mail.example.com`) and store the password with `baton secret set {server}`"
    )]
    NotConfigured {
        /// `imap` or `smtp`.
        server: &'static str,
    },
    /// No password (or token) in the keychain.
    #[error(
        "no password for {server}: store it in the keychain with `baton secret set {server}` (or set BATON_{upper}_PASSWORD)", upper = .server.to_ascii_uppercase()
    )]
    NoPassword {
        /// `imap` or `smtp`.
        server: &'static str,
    },
    /// The keychain could not be read.
    #[error("the {server} password could not be read from the keychain: {reason}")]
    Keychain {
        /// `imap` or `smtp`.
        server: &'static str,
        /// Why.
        reason: String,
    },
    /// The server could not be reached.
    #[error("could not reach the {server} server {host}:{port}: {reason}")]
    Connect {
        /// `imap` or `smtp`.
        server: &'static str,
        /// Host name.
        host: String,
        /// Port.
        port: u16,
        /// Why.
        reason: String,
    },
    /// The secure connection failed.
    #[error("the secure connection to {server} server {host} failed: {reason}")]
    Tls {
        /// `imap` or `smtp`.
        server: &'static str,
        /// Host name.
        host: String,
        /// Why.
        reason: String,
    },
    /// The server refused the user name and password.
    #[error(
        "the {server} server refused the sign-in of `{user}`: {reason}. Check `{server}.username` and the password (`baton secret set {server}`)"
    )]
    Login {
        /// `imap` or `smtp`.
        server: &'static str,
        /// The user name.
        user: String,
        /// What the server said.
        reason: String,
    },
    /// The server did not answer in time.
    #[error("the {server} server did not answer within {secs} s ({what})")]
    Timeout {
        /// `imap` or `smtp`.
        server: &'static str,
        /// What was waited for.
        what: String,
        /// The limit.
        secs: u64,
    },
    /// The server answered a command with an error.
    #[error("the {server} server refused {what}: {reason}")]
    Refused {
        /// `imap` or `smtp`.
        server: &'static str,
        /// The command, in words.
        what: String,
        /// What it said.
        reason: String,
    },
    /// A message id that names no message.
    #[error("no message `{id}`: {reason}")]
    NoMessage {
        /// The id given.
        id: String,
        /// Why.
        reason: String,
    },
    /// A folder that does not exist.
    #[error("no folder `{name}`; folders: {known}")]
    NoFolder {
        /// The folder given.
        name: String,
        /// The folders there are.
        known: String,
    },
    /// Something in the call was wrong (an address, an attachment, …).
    #[error("{0}")]
    Invalid(String),
    /// The turn was stopped.
    #[error("cancelled: the user stopped the turn")]
    Cancelled,
}

impl MailError {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Self::Invalid(msg.into())
    }
}
