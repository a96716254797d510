//! The e-mail section of the settings: the user's address, the IMAP and
//! SMTP servers, passwords into the keychain, whether sending asks, and a
//! connection test that signs in to both servers.

use baton_engine::api::settings::{MailServer, SecretName, Secrets, Settings};
use tauri::State;

use crate::dto::{IpcError, MailCheck, MailServerView, MailSettingsView, MailTest};
use crate::error::IpcResult;
use crate::state::AppState;

fn to_view(kind: &str, s: &MailServer, secrets: &Secrets) -> MailServerView {
    MailServerView {
        server: s.clone(),
        password_set: SecretName::mail(kind)
            .is_some_and(|secret| matches!(secrets.read(&secret), Ok(Some(_)))),
    }
}

fn apply(kind: &str, view: &MailServer, into: &mut MailServer) -> IpcResult<()> {
    let clean = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let host = clean(&view.host);
    if host.as_deref().is_some_and(|h| h.contains([' ', '/', ':'])) {
        return Err(IpcError::invalid(format!(
            "the {kind} server `{}` is not a host name such as mail.example.com",
            host.unwrap_or_default()
        )));
    }
    into.host = host;
    into.port = view.port.filter(|p| *p != 0);
    into.username = clean(&view.username);
    into.tls = view.tls;
    Ok(())
}

/// The e-mail settings.
#[tauri::command]
#[specta::specta]
pub fn mail_settings(state: State<'_, AppState>) -> IpcResult<MailSettingsView> {
    let engine = state.engine();
    let s = engine.settings();
    Ok(MailSettingsView {
        email: s.email.clone(),
        imap: to_view("imap", &s.imap, engine.secrets()),
        smtp: to_view("smtp", &s.smtp, engine.secrets()),
    })
}

fn updated(current: &Settings, view: &MailSettingsView) -> IpcResult<Settings> {
    let mut s = current.clone();
    let address = view
        .email
        .address
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty());
    if let Some(a) = address
        && (!a.contains('@') || a.contains(' '))
    {
        return Err(IpcError::invalid(format!(
            "`{a}` is not an e-mail address such as ana@example.org"
        )));
    }
    s.email.address = address.map(str::to_string);
    s.email.name = view
        .email
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    s.email.confirm_send = view.email.confirm_send;
    apply("incoming (IMAP)", &view.imap.server, &mut s.imap)?;
    apply("outgoing (SMTP)", &view.smtp.server, &mut s.smtp)?;
    Ok(s)
}

/// Validates and saves the e-mail settings (atomically); a password given
/// goes into the keychain (an empty one keeps the stored one).
#[tauri::command]
#[specta::specta]
pub async fn save_mail_settings(
    state: State<'_, AppState>,
    settings: MailSettingsView,
    imap_password: Option<String>,
    smtp_password: Option<String>,
) -> IpcResult<MailSettingsView> {
    let engine = state.engine();
    let s = updated(engine.settings(), &settings)?;
    for (name, password) in [("imap", imap_password), ("smtp", smtp_password)] {
        if let Some(p) = password.filter(|p| !p.is_empty())
            && let Some(secret) = SecretName::mail(name)
        {
            engine.secrets().write(&secret, &p)?;
        }
    }
    state
        .update_settings(|now| {
            (now.email, now.imap, now.smtp) = (s.email, s.imap, s.smtp);
            Ok(())
        })
        .await?;
    mail_settings(state)
}

/// Signs in to both servers as the tools would (nothing is sent).
#[tauri::command]
#[specta::specta]
pub async fn test_mail(state: State<'_, AppState>) -> IpcResult<MailTest> {
    let mail = state.engine().tools().mail();
    let (imap, smtp) = tokio::join!(mail.check_imap(), mail.check_smtp());
    Ok(MailTest {
        imap: match imap {
            Ok(n) => MailCheck {
                ok: true,
                message: format!("Signed in; {n} folders."),
            },
            Err(e) => MailCheck {
                ok: false,
                message: e.to_string(),
            },
        },
        smtp: match smtp {
            Ok(()) => MailCheck {
                ok: true,
                message: "Signed in; ready to send.".into(),
            },
            Err(e) => MailCheck {
                ok: false,
                message: e.to_string(),
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_engine::api::settings::{EmailSettings, MailSecurity};

    fn view() -> MailSettingsView {
        let server = |host: &str, port, username| MailServerView {
            server: MailServer {
                host: Some(host.into()),
                port,
                username,
                tls: MailSecurity::Starttls,
                ..MailServer::default()
            },
            password_set: false,
        };
        MailSettingsView {
            email: EmailSettings {
                address: Some(" ana@example.org ".into()),
                name: Some("Ana".into()),
                confirm_send: false,
            },
            imap: server("imap.example.org", None, Some(String::new())),
            smtp: server("smtp.example.org", Some(587), None),
        }
    }

    #[test]
    fn settings_are_cleaned_and_checked() {
        let s = updated(&Settings::default(), &view()).unwrap();
        assert_eq!(s.email.address.as_deref(), Some("ana@example.org"));
        assert!(!s.email.confirm_send);
        assert_eq!(s.imap.tls, MailSecurity::Starttls);
        assert_eq!(s.imap.username, None, "empty means the address");
        assert_eq!(s.smtp.port, Some(587));

        let mut bad = view();
        bad.email.address = Some("ana at example".into());
        let e = updated(&Settings::default(), &bad).unwrap_err();
        assert!(e.message.contains("not an e-mail address"), "{}", e.message);
        let mut bad = view();
        bad.smtp.server.host = Some("https://smtp.example.org".into());
        let e = updated(&Settings::default(), &bad).unwrap_err();
        assert!(e.message.contains("not a host name"), "{}", e.message);
    }
}
