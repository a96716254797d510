//! The original (.NET) system's `setup.json` key names (`SmtpServer`,
//! `ImapUser`, `AgentInteractionMode`, …), read as Baton's: a pass over the
//! file's JSON before serde sees it, as `providers.json` has. Each name
//! read (or ignored) leaves a one-line notice.

use serde_json::{Map, Value};

/// The original system's key and where Baton keeps the same setting
/// (`section.key` for nested ones).
const ALIASES: [(&str, &str); 9] = [
    ("SmtpServer", "smtp.host"),
    ("SmtpPort", "smtp.port"),
    ("SmtpUser", "smtp.username"),
    ("ImapServer", "imap.host"),
    ("ImapPort", "imap.port"),
    ("ImapUser", "imap.username"),
    ("Email", "email.address"),
    ("AgentInteractionMode", "interactionMode"),
    ("ProviderName", "provider"),
];

/// The original system's password keys and the keychain secret each
/// belongs in instead.
const PASSWORDS: [(&str, &str); 2] = [("SmtpPassword", "smtp"), ("ImapPassword", "imap")];

/// Rewrites the original system's keys in `doc` (a whole `setup.json`)
/// into Baton's, pushing one notice per key onto `notices`. A Baton key
/// already set wins; passwords are never read from the file.
pub(crate) fn normalize(doc: &mut Value, notices: &mut Vec<String>) {
    let Value::Object(obj) = doc else {
        return;
    };
    for (seed, secret) in PASSWORDS {
        if obj.remove(seed).is_some() {
            notices.push(format!(
                "setup.json: `{seed}` is ignored — Baton keeps passwords in the keychain (`baton secret set {secret}`), never in a file; remove it from setup.json"
            ));
        }
    }
    for (seed, baton) in ALIASES {
        let Some(value) = obj.remove(seed) else {
            continue;
        };
        let notice = if place(obj, baton, seed_value(baton, value)) {
            format!(
                "setup.json: `{seed}` is the original system's name for `{baton}`; read as `{baton}`"
            )
        } else {
            format!(
                "setup.json: `{seed}` is the original system's name for `{baton}`; both are set, so `{baton}` wins and `{seed}` is ignored"
            )
        };
        notices.push(notice);
    }
}

/// Puts `value` at the dotted `key` of `obj` unless something is there;
/// whether it was put.
fn place(obj: &mut Map<String, Value>, key: &str, value: Value) -> bool {
    let (slot, leaf) = match key.split_once('.') {
        Some((section, leaf)) => {
            let section = obj
                .entry(section)
                .or_insert_with(|| Value::Object(Map::new()));
            match section {
                Value::Object(inner) => (inner, leaf),
                _ => return false,
            }
        }
        None => (obj, key),
    };
    if slot.get(leaf).is_some_and(|v| !v.is_null()) {
        return false;
    }
    slot.insert(leaf.to_string(), value);
    true
}

/// The original system's spelling of a value, in Baton's.
fn seed_value(baton: &str, value: Value) -> Value {
    match (
        baton,
        value.as_str().map(str::to_ascii_lowercase).as_deref(),
    ) {
        ("interactionMode", Some("api")) => Value::String("API".into()),
        ("interactionMode", Some("cli")) => Value::String("CLI".into()),
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_seeds_setup_keys_are_read_as_batons() {
        let mut doc = json!({
            "ImapServer": "imap.example.com", "ImapPort": 993, "ImapUser": "me@example.com",
            "ImapPassword": "app-password", "SmtpServer": "smtp.example.com", "SmtpPort": 587,
            "SmtpUser": "me@example.com", "SmtpPassword": "app-password", "Email": "me@example.com",
            "AgentInteractionMode": "Cli", "ProviderName": "deepseek",
            "smtp": {"port": 465}
        });
        let mut notices = Vec::new();
        normalize(&mut doc, &mut notices);
        assert_eq!(
            doc,
            json!({
                "imap": {"host": "imap.example.com", "port": 993, "username": "me@example.com"},
                "smtp": {"host": "smtp.example.com", "port": 465, "username": "me@example.com"},
                "email": {"address": "me@example.com"},
                "interactionMode": "CLI", "provider": "deepseek"
            })
        );
        assert_eq!(notices.len(), 11, "{notices:#?}");
        assert!(
            notices
                .iter()
                .any(|n| n.contains("`SmtpPort`") && n.contains("`smtp.port` wins"))
        );
        assert!(notices.iter().any(
            |n| n.contains("`ImapPassword` is ignored") && n.contains("baton secret set imap")
        ));
        assert!(!doc.to_string().contains("app-password"));
    }

    #[test]
    fn a_seed_style_file_loads_with_its_notices() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("setup.json");
        std::fs::write(
            &path,
            r#"{"SmtpServer": "smtp.example.com", "SmtpPort": 587, "AgentInteractionMode": "API"}"#,
        )
        .unwrap();
        let loaded = crate::Settings::load(&path);
        assert_eq!(
            loaded.settings.smtp.host.as_deref(),
            Some("smtp.example.com")
        );
        assert_eq!(loaded.settings.smtp.port, Some(587));
        assert_eq!(
            loaded.settings.interaction_mode,
            Some(crate::InteractionMode::Api)
        );
        assert_eq!(loaded.warnings.len(), 3, "{:?}", loaded.warnings);
        assert!(path.exists(), "the file is not moved aside");
    }
}
