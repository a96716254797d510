//! Sending over SMTP with lettre (tokio, rustls): TLS from the first byte,
//! STARTTLS required, or a plain connection; a password, an XOAUTH2
//! token or no sign-in (a relay); the whole exchange bounded in time.

use std::time::Duration;

use baton_config::{MailAuth, MailSecurity};
use lettre::address::Envelope;
use lettre::transport::smtp::Error as SmtpError;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use crate::account::{CONNECT_TIMEOUT, ServerConfig};
use crate::{MailError, tls};

/// How long one message may take to send.
const SEND_TIMEOUT: Duration = Duration::from_secs(120);

fn transport(cfg: &ServerConfig) -> Result<AsyncSmtpTransport<Tokio1Executor>, MailError> {
    cfg.check_security()?;
    let mut params = TlsParameters::builder(cfg.host.clone());
    for der in tls::extra_roots("smtp", cfg.ca_file.as_deref())? {
        params = params
            .add_root_certificate(Certificate::from_der(der.to_vec()).map_err(|e| {
                MailError::invalid(format!("`smtp.caFile` could not be used: {e}"))
            })?);
    }
    let params = params
        .build()
        .map_err(|e| MailError::invalid(format!("TLS could not be set up: {e}")))?;
    let security = match cfg.security {
        MailSecurity::Tls => Tls::Wrapper(params),
        MailSecurity::Starttls => Tls::Required(params),
        MailSecurity::None => Tls::None,
    };
    let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(cfg.host.clone())
        .port(cfg.port)
        .tls(security)
        .timeout(Some(CONNECT_TIMEOUT));
    // A relay (`auth: none`) gets no AUTH at all.
    if cfg.auth != MailAuth::None {
        b = b.credentials(Credentials::new(cfg.username.clone(), cfg.password()?));
    }
    if cfg.auth == MailAuth::Xoauth2 {
        b = b.authentication(vec![Mechanism::Xoauth2]);
    }
    Ok(b.build())
}

/// Sends `raw` from `from` to `recipients`.
pub(crate) async fn send(
    cfg: &ServerConfig,
    from: &str,
    recipients: &[String],
    raw: &[u8],
) -> Result<(), MailError> {
    let bad = |e: String| MailError::invalid(e);
    let from = from
        .parse()
        .map_err(|e| bad(format!("the sender `{from}` is not an address: {e}")))?;
    let to = recipients
        .iter()
        .map(|r| {
            r.parse()
                .map_err(|e| bad(format!("`{r}` is not an address: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let envelope = Envelope::new(Some(from), to).map_err(|e| bad(e.to_string()))?;
    let transport = transport(cfg)?;
    match tokio::time::timeout(SEND_TIMEOUT, transport.send_raw(&envelope, raw)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(explain(cfg, &e)),
        Err(_) => Err(MailError::Timeout {
            server: "smtp",
            what: "sending the message".into(),
            secs: SEND_TIMEOUT.as_secs(),
        }),
    }
}

/// Connects and signs in without sending (the connection test).
pub(crate) async fn check(cfg: &ServerConfig) -> Result<(), MailError> {
    let transport = transport(cfg)?;
    match tokio::time::timeout(CONNECT_TIMEOUT * 2, transport.test_connection()).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(explain(cfg, &e)),
        Err(_) => Err(MailError::Timeout {
            server: "smtp",
            what: format!("connecting to {}:{}", cfg.host, cfg.port),
            secs: (CONNECT_TIMEOUT * 2).as_secs(),
        }),
    }
}

/// lettre's error in words: a refused sign-in, a refused message, an
/// unreachable server, an untrusted certificate.
fn explain(cfg: &ServerConfig, e: &SmtpError) -> MailError {
    // lettre's words when the server offers no AUTH at all (a relay).
    if e.is_client()
        && e.to_string()
            .contains("No compatible authentication mechanism")
    {
        return MailError::invalid(format!(
            "the SMTP server {}:{} offers no sign-in: if it is a relay that takes mail without one, set `smtp.auth` to `none` (`baton config set smtp.auth none`)",
            cfg.host, cfg.port
        ));
    }
    if let Some(code) = e.status() {
        let code = u16::from(code);
        if matches!(code, 530 | 534 | 535 | 538) {
            return MailError::Login {
                server: "smtp",
                user: cfg.username.clone(),
                reason: e.to_string(),
            };
        }
        return MailError::Refused {
            server: "smtp",
            what: "the message".into(),
            reason: e.to_string(),
        };
    }
    if e.is_timeout() {
        return MailError::Timeout {
            server: "smtp",
            what: format!("connecting to {}:{}", cfg.host, cfg.port),
            secs: CONNECT_TIMEOUT.as_secs(),
        };
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.get_ref().is_some_and(|i| i.is::<rustls::Error>()) {
                return MailError::Tls {
                    server: "smtp",
                    host: cfg.host.clone(),
                    reason: tls::describe(io),
                };
            }
            return MailError::Connect {
                server: "smtp",
                host: cfg.host.clone(),
                port: cfg.port,
                reason: io.to_string(),
            };
        }
        source = s.source();
    }
    MailError::Refused {
        server: "smtp",
        what: "the message".into(),
        reason: e.to_string(),
    }
}
