//! IMAP sessions (async-imap over tokio, TLS by rustls): connecting with
//! TLS, STARTTLS or neither, signing in with a password or XOAUTH2, and
//! each command bounded in time with the server's refusal in words.
//!
//! async-imap's fetch/store/list streams end quietly on a NO or BAD, so
//! every stream is drained whole and callers check what came back.

use std::future::Future;

use async_imap::error::Error as ImapError;
use async_imap::imap_proto::{Response, Status};
use async_imap::{Authenticator, Client};
use baton_config::{MailAuth, MailSecurity};
use futures::TryStreamExt;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::account::{COMMAND_TIMEOUT, CONNECT_TIMEOUT, ServerConfig};
use crate::{MailError, tls};

/// A plain, STARTTLS or TLS connection, as one type.
pub(crate) trait Io: AsyncRead + AsyncWrite + Unpin + Send + std::fmt::Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + std::fmt::Debug> Io for T {}

/// A signed-in IMAP session.
pub(crate) type Session = async_imap::Session<Box<dyn Io>>;

/// Connects to the IMAP server and signs in.
pub(crate) async fn open(cfg: &ServerConfig) -> Result<Session, MailError> {
    if cfg.auth == MailAuth::None {
        return Err(MailError::invalid(
            "`imap.auth` is `none`, but an IMAP server always needs a sign-in: set it to `password` or `xoauth2` (`none` is for SMTP relays)",
        ));
    }
    cfg.check_security()?;
    let secret = cfg.password()?;
    let work = async {
        let client = connect(cfg).await?;
        login(cfg, client, &secret).await
    };
    tokio::time::timeout(CONNECT_TIMEOUT, work)
        .await
        .map_err(|_| MailError::Timeout {
            server: "imap",
            what: format!("connecting to {}:{} and signing in", cfg.host, cfg.port),
            secs: CONNECT_TIMEOUT.as_secs(),
        })?
}

async fn connect(cfg: &ServerConfig) -> Result<Client<Box<dyn Io>>, MailError> {
    let tcp = TcpStream::connect((cfg.host.as_str(), cfg.port))
        .await
        .map_err(|e| MailError::Connect {
            server: "imap",
            host: cfg.host.clone(),
            port: cfg.port,
            reason: e.to_string(),
        })?;
    let mut client = match cfg.security {
        MailSecurity::None => Client::new(Box::new(tcp) as Box<dyn Io>),
        MailSecurity::Tls => Client::new(Box::new(secure(cfg, tcp).await?) as Box<dyn Io>),
        MailSecurity::Starttls => {
            let mut plain = Client::new(tcp);
            greeting(cfg, &mut plain).await?;
            plain
                .run_command_and_check_ok("STARTTLS", None)
                .await
                .map_err(|e| refused("STARTTLS", e))?;
            // No second greeting after STARTTLS.
            return Ok(Client::new(
                Box::new(secure(cfg, plain.into_inner()).await?) as Box<dyn Io>,
            ));
        }
    };
    greeting(cfg, &mut client).await?;
    Ok(client)
}

async fn secure(
    cfg: &ServerConfig,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, MailError> {
    let config = tls::client_config(tls::extra_roots("imap", cfg.ca_file.as_deref())?)?;
    let name = ServerName::try_from(cfg.host.clone())
        .map_err(|e| MailError::invalid(format!("`imap.host` {}: {e}", cfg.host)))?;
    tokio_rustls::TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| MailError::Tls {
            server: "imap",
            host: cfg.host.clone(),
            reason: tls::describe(&e),
        })
}

async fn greeting<T: Io>(cfg: &ServerConfig, c: &mut Client<T>) -> Result<(), MailError> {
    let lost = |reason: String| MailError::Connect {
        server: "imap",
        host: cfg.host.clone(),
        port: cfg.port,
        reason,
    };
    let response = c
        .read_response()
        .await
        .map_err(|e| lost(e.to_string()))?
        .ok_or_else(|| lost("it closed the connection without a greeting".into()))?;
    match response.parsed() {
        Response::Data {
            status: Status::Ok | Status::PreAuth,
            ..
        } => Ok(()),
        other => Err(lost(format!(
            "it does not greet as an IMAP server ({other:?})"
        ))),
    }
}

/// XOAUTH2: the token first; an empty answer to the error challenge lets
/// the server send its refusal.
struct Xoauth2 {
    user: String,
    token: String,
    sent: bool,
}

impl Authenticator for Xoauth2 {
    type Response = String;
    fn process(&mut self, _challenge: &[u8]) -> String {
        if std::mem::replace(&mut self.sent, true) {
            String::new()
        } else {
            format!("user={}\x01auth=Bearer {}\x01\x01", self.user, self.token)
        }
    }
}

async fn login(
    cfg: &ServerConfig,
    client: Client<Box<dyn Io>>,
    secret: &str,
) -> Result<Session, MailError> {
    let result = match cfg.auth {
        MailAuth::Password | MailAuth::None => client.login(&cfg.username, secret).await,
        MailAuth::Xoauth2 => {
            let auth = Xoauth2 {
                user: cfg.username.clone(),
                token: secret.to_string(),
                sent: false,
            };
            client.authenticate("XOAUTH2", auth).await
        }
    };
    result.map_err(|(e, _)| MailError::Login {
        server: "imap",
        user: cfg.username.clone(),
        reason: said(&e),
    })
}

/// What the server said, without async-imap's wrapping.
pub(crate) fn said(e: &ImapError) -> String {
    let text = match e {
        ImapError::No(s) | ImapError::Bad(s) => s.clone(),
        ImapError::ConnectionLost => "the connection was lost".into(),
        other => other.to_string(),
    };
    // "code: Some(..), info: Some(\"Authentication failed.\")"
    match text.split_once("info: Some(\"") {
        Some((_, rest)) => rest.trim_end_matches("\")").to_string(),
        None => text,
    }
}

/// A command's refusal as a [`MailError`].
pub(crate) fn refused(what: &str, e: ImapError) -> MailError {
    MailError::Refused {
        server: "imap",
        what: what.to_string(),
        reason: said(&e),
    }
}

/// Runs one command within [`COMMAND_TIMEOUT`].
pub(crate) async fn timed<T>(
    what: &str,
    fut: impl Future<Output = Result<T, ImapError>>,
) -> Result<T, MailError> {
    match tokio::time::timeout(COMMAND_TIMEOUT, fut).await {
        Ok(r) => r.map_err(|e| refused(what, e)),
        Err(_) => Err(MailError::Timeout {
            server: "imap",
            what: what.to_string(),
            secs: COMMAND_TIMEOUT.as_secs(),
        }),
    }
}

/// Fetches `items` of the messages `uids` (a non-empty set) in the
/// selected folder.
pub(crate) async fn fetch(
    s: &mut Session,
    uids: &[u32],
    items: &str,
) -> Result<Vec<async_imap::types::Fetch>, MailError> {
    let set = uid_set(uids);
    timed("fetching messages", async {
        s.uid_fetch(&set, items).await?.try_collect().await
    })
    .await
}

/// `1,5,7` for UID commands.
pub(crate) fn uid_set(uids: &[u32]) -> String {
    uids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A string argument for SEARCH: quoted, `"` and `\` escaped, line
/// breaks dropped.
pub(crate) fn quote(s: &str) -> String {
    let clean: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    format!("\"{}\"", clean.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A folder name as the server wants it (modified UTF-7: `Entwürfe` →
/// `Entw&APw-rfe`).
pub(crate) fn wire(name: &str) -> String {
    utf7_imap::encode_utf7_imap(name.to_string())
}

/// A folder name as the server sent it, for people.
pub(crate) fn readable(name: &str) -> String {
    if name.contains('&') {
        // A malformed name must not take Baton down: it is shown as sent.
        std::panic::catch_unwind(|| utf7_imap::decode_utf7_imap(name.to_string()))
            .unwrap_or_else(|_| name.to_string())
    } else {
        name.to_string()
    }
}
