//! Where the user's mail is: the `imap`, `smtp` and `email` settings and
//! the passwords in the keychain, read when a connection is made (a
//! password stored after Baton started is picked up).

use std::path::PathBuf;
use std::time::Duration;

use baton_config::{MailAuth, MailSecurity, MailServer, SecretName, Secrets, Settings};

use crate::MailError;

/// How long to wait for a server to accept a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long to wait for one command's answer.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// Where a password (or OAuth2 token) comes from.
#[derive(Clone)]
pub enum Secret {
    /// Given directly (tests, scripts).
    Given(String),
    /// The environment variable `BATON_IMAP_PASSWORD` (`…SMTP…`) when
    /// set (a server without a keychain), else the keychain entry of this
    /// name (`imap`, `smtp`).
    Keychain(Secrets, &'static str),
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Secret::Given(_) => f.write_str("Secret::Given(****)"),
            Secret::Keychain(_, name) => write!(f, "Secret::Keychain({name})"),
        }
    }
}

/// One mail server, ready to connect to.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `imap` or `smtp`, for messages.
    pub kind: &'static str,
    /// Host name.
    pub host: String,
    /// Port.
    pub port: u16,
    /// How the connection is secured.
    pub security: MailSecurity,
    /// User name.
    pub username: String,
    /// Password or token.
    pub secret: Secret,
    /// Password, or XOAUTH2 with a token.
    pub auth: MailAuth,
    /// An extra certificate authority (PEM) to trust.
    pub ca_file: Option<PathBuf>,
}

impl ServerConfig {
    /// From a settings block; `None` when it names no host.
    pub fn from_settings(
        kind: &'static str,
        s: &MailServer,
        secrets: &Secrets,
        fallback_user: Option<&str>,
    ) -> Option<Self> {
        let host = s.host.clone().filter(|h| !h.trim().is_empty())?;
        let port = s.port.unwrap_or(default_port(kind, s.tls));
        let username = match s.username.clone().or(fallback_user.map(str::to_string)) {
            Some(user) => user,
            // A relay without sign-in needs no user name.
            None if s.auth == MailAuth::None => String::new(),
            None => return None,
        };
        Some(Self {
            kind,
            host,
            port,
            security: s.tls,
            username,
            secret: Secret::Keychain(secrets.clone(), kind),
            auth: s.auth,
            ca_file: s.ca_file.clone(),
        })
    }

    /// Refuses an unencrypted connection to another computer (the
    /// password would cross the network in clear); without a sign-in
    /// (`auth: none`, a relay) there is no password to protect.
    pub fn check_security(&self) -> Result<(), MailError> {
        if self.auth == MailAuth::None {
            return Ok(());
        }
        let local = self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if self.security == MailSecurity::None && !local {
            return Err(MailError::invalid(format!(
                "`{kind}.tls` is `none`, which sends the password in clear: it is allowed for a server on this computer only; use `tls` or `starttls` for {host}",
                kind = self.kind,
                host = self.host
            )));
        }
        Ok(())
    }

    /// The password or token.
    pub fn password(&self) -> Result<String, MailError> {
        match &self.secret {
            Secret::Given(p) => Ok(p.clone()),
            Secret::Keychain(secrets, name) => match std::env::var(password_env(name))
                .ok()
                .filter(|p| !p.is_empty())
                .map(|p| Ok(Some(p)))
                .unwrap_or_else(|| match SecretName::mail(name) {
                    Some(secret) => secrets.read(&secret),
                    None => Ok(None),
                }) {
                Ok(Some(p)) => Ok(p),
                Ok(None) => Err(MailError::NoPassword { server: self.kind }),
                Err(e) => Err(MailError::Keychain {
                    server: self.kind,
                    reason: e.to_string(),
                }),
            },
        }
    }
}

/// The environment variable that overrides the keychain for `kind`
/// (`BATON_IMAP_PASSWORD`, `BATON_SMTP_PASSWORD`).
pub fn password_env(kind: &str) -> String {
    format!("BATON_{}_PASSWORD", kind.to_ascii_uppercase())
}

/// The standard port of a server kind with this security.
pub fn default_port(kind: &str, security: MailSecurity) -> u16 {
    match (kind, security) {
        ("imap", MailSecurity::Tls) => 993,
        ("imap", _) => 143,
        (_, MailSecurity::Tls) => 465,
        (_, MailSecurity::Starttls) => 587,
        (_, MailSecurity::None) => 25,
    }
}

/// The user's mail: incoming, outgoing and their own address.
#[derive(Debug, Clone, Default)]
pub struct MailAccount {
    /// Incoming mail (IMAP).
    pub imap: Option<ServerConfig>,
    /// Outgoing mail (SMTP).
    pub smtp: Option<ServerConfig>,
    /// The user's own address (the sender; "e-mail me").
    pub address: Option<String>,
    /// The name shown beside it.
    pub name: Option<String>,
}

impl MailAccount {
    /// From the settings, passwords from the keychain. The user name
    /// defaults to the user's address.
    pub fn from_settings(settings: &Settings, secrets: &Secrets) -> Self {
        let address = settings.email.address.clone();
        let user = address.as_deref();
        Self {
            imap: ServerConfig::from_settings("imap", &settings.imap, secrets, user),
            smtp: ServerConfig::from_settings("smtp", &settings.smtp, secrets, user),
            name: settings.email.name.clone(),
            address: address.or_else(|| settings.smtp.username.clone().filter(|u| u.contains('@'))),
        }
    }

    /// The IMAP server, or why there is none.
    pub fn imap(&self) -> Result<&ServerConfig, MailError> {
        self.imap
            .as_ref()
            .ok_or(MailError::NotConfigured { server: "imap" })
    }

    /// The SMTP server, or why there is none.
    pub fn smtp(&self) -> Result<&ServerConfig, MailError> {
        self.smtp
            .as_ref()
            .ok_or(MailError::NotConfigured { server: "smtp" })
    }

    /// The sender address, or why there is none.
    pub fn sender(&self) -> Result<&str, MailError> {
        self.address.as_deref().ok_or_else(|| {
            MailError::invalid(
                "your own e-mail address is not set: `baton config set email.address you@example.com`",
            )
        })
    }
}
