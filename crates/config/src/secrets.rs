//! Secrets (API keys, mail passwords) in the OS keychain, with environment
//! variables taking precedence. There is deliberately no plain-text
//! fallback: without a keychain, users are told to use environment
//! variables.

use std::sync::{Arc, OnceLock};

use keyring_core::{CredentialStore, Entry};

/// Keychain service name under which Baton stores its secrets.
pub const KEYCHAIN_SERVICE: &str = "baton";

/// Which secret: each kind has its own namespace in the keychain, so a
/// provider entry named `smtp` never gets the SMTP password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretName {
    /// A provider's API key: `provider:NAME`.
    Provider(String),
    /// The IMAP password: `mail:imap`.
    Imap,
    /// The SMTP password: `mail:smtp`.
    Smtp,
    /// Any other secret, under the name given (`${keychain:NAME}` in MCP
    /// headers, `server-key:NAME`, `plugin:FOLDER:NAME`).
    Named(String),
}

impl SecretName {
    /// The mail server's password for `kind` (`imap` or `smtp`).
    pub fn mail(kind: &str) -> Option<Self> {
        match kind.trim().to_ascii_lowercase().as_str() {
            "imap" => Some(Self::Imap),
            "smtp" => Some(Self::Smtp),
            _ => None,
        }
    }

    /// The entry's name in the keychain.
    pub fn entry(&self) -> String {
        match self {
            Self::Provider(name) => format!("provider:{}", normalize(name)),
            Self::Imap => "mail:imap".into(),
            Self::Smtp => "mail:smtp".into(),
            Self::Named(name) => normalize(name),
        }
    }

    /// The name the entry had before secrets were namespaced (moved on
    /// first read). A provider named like a mail server has none: that
    /// old entry is the mail password.
    fn legacy(&self) -> Option<String> {
        match self {
            Self::Provider(name) if Self::mail(name).is_none() => Some(normalize(name)),
            Self::Imap => Some("imap".into()),
            Self::Smtp => Some("smtp".into()),
            _ => None,
        }
    }
}

impl std::fmt::Display for SecretName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.entry())
    }
}

/// Where a key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// An environment variable (its name).
    Env(String),
    /// The OS keychain.
    Keychain,
}

/// A key found for a provider.
#[derive(Clone, PartialEq, Eq)]
pub struct ResolvedKey {
    /// The secret itself.
    pub value: String,
    /// Where it was found.
    pub source: KeySource,
}

impl std::fmt::Debug for ResolvedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedKey")
            .field("value", &"***")
            .field("source", &self.source)
            .finish()
    }
}

/// Keychain failures, in words a user can act on.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum SecretError {
    /// No keychain service could be reached. The words name no variable:
    /// each provider entry has its own (`apiKeyEnv`), which callers that
    /// know the entry add (see `baton_llm::provider`).
    #[error(
        "no keychain is available ({reason}); Baton never stores secrets in plain text, so put \
         the key in its environment variable instead"
    )]
    NoKeychain {
        /// What the platform said.
        reason: String,
    },
    /// The keychain is there but refused access (locked, denied).
    #[error("the keychain refused access ({reason}); unlock it and try again")]
    Locked {
        /// What the platform said.
        reason: String,
    },
    /// Any other keychain failure.
    #[error("keychain error for `{name}`: {reason}")]
    Other {
        /// The secret's name.
        name: String,
        /// What the platform said.
        reason: String,
    },
    /// An empty secret was given.
    #[error("refusing to store an empty secret for `{0}`")]
    Empty(String),
}

/// Access to Baton's secrets. The keychain connection is opened on first
/// use, so commands that need no secret never touch it.
#[derive(Default, Clone)]
pub struct Secrets {
    store: OnceLock<Result<Arc<CredentialStore>, SecretError>>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secrets")
    }
}

/// The environment variable conventionally holding `name`'s API key:
/// `DEEPSEEK_API_KEY` for `deepseek`, `Z_AI_API_KEY` for `z.ai`.
pub fn conventional_env(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    s.push_str("_API_KEY");
    s
}

impl Secrets {
    /// A handle; nothing is opened yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A handle with no keychain behind it, as on a headless machine:
    /// every keychain call fails with [`SecretError::NoKeychain`] and only
    /// environment variables count (tests; front doors that must not touch
    /// the keychain).
    pub fn without_keychain(reason: impl Into<String>) -> Self {
        Self {
            store: OnceLock::from(Err(SecretError::NoKeychain {
                reason: reason.into(),
            })),
        }
    }

    fn store(&self) -> Result<&Arc<CredentialStore>, SecretError> {
        self.store
            .get_or_init(open_platform_store)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Whether a keychain can be reached (`Err` explains why not).
    pub fn status(&self) -> Result<(), SecretError> {
        self.store().map(|_| ())
    }

    fn entry(&self, name: &str) -> Result<Entry, SecretError> {
        let store = self.store()?;
        Entry::new_in_store(store, KEYCHAIN_SERVICE, &normalize(name)).map_err(|e| map_err(name, e))
    }

    /// Reads a secret from the keychain; `Ok(None)` when there is none.
    pub fn get(&self, name: &str) -> Result<Option<String>, SecretError> {
        match self.entry(name)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(map_err(name, e)),
        }
    }

    /// Stores a secret in the keychain (replacing an older one).
    pub fn set(&self, name: &str, value: &str) -> Result<(), SecretError> {
        if value.trim().is_empty() {
            return Err(SecretError::Empty(name.to_string()));
        }
        self.entry(name)?
            .set_password(value)
            .map_err(|e| map_err(name, e))
    }

    /// Deletes a secret; `Ok(false)` when there was none.
    pub fn delete(&self, name: &str) -> Result<bool, SecretError> {
        match self.entry(name)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring_core::Error::NoEntry) => Ok(false),
            Err(e) => Err(map_err(name, e)),
        }
    }

    /// Reads secret `name` from its namespaced entry; one kept under its
    /// old flat name is moved there first (and the old entry deleted).
    pub fn read(&self, name: &SecretName) -> Result<Option<String>, SecretError> {
        let entry = name.entry();
        if let Some(value) = self.get(&entry)? {
            return Ok(Some(value));
        }
        let Some(old) = name.legacy() else {
            return Ok(None);
        };
        let Some(value) = self.get(&old)? else {
            return Ok(None);
        };
        self.set(&entry, &value)?;
        if let Err(e) = self.delete(&old) {
            tracing::warn!(secret = %entry, "the old keychain entry could not be removed: {e}");
        }
        tracing::info!(secret = %entry, from = %old, "keychain entry moved to its namespace");
        Ok(Some(value))
    }

    /// Stores secret `name` under its namespaced entry (an old flat entry
    /// of the same secret is removed).
    pub fn write(&self, name: &SecretName, value: &str) -> Result<(), SecretError> {
        self.set(&name.entry(), value)?;
        if let Some(old) = name.legacy() {
            self.delete(&old)?;
        }
        Ok(())
    }

    /// Deletes secret `name` (and an old flat entry of it); `Ok(false)`
    /// when there was none.
    pub fn remove(&self, name: &SecretName) -> Result<bool, SecretError> {
        let now = self.delete(&name.entry())?;
        let old = match name.legacy() {
            Some(old) => self.delete(&old)?,
            None => false,
        };
        Ok(now || old)
    }

    /// Finds the API key of provider `name`: the entry's declared
    /// environment variable first, then the conventional one
    /// (`NAME_API_KEY`), then the keychain, then the original system's
    /// variable for that provider (`DeepSeekApiKey`, `GeminiApiKey`,
    /// `ZaiApiKey`, chosen by a word in `name`: `deepseek`; `gemini` or
    /// `google`; `zai`, `z.ai`, `glm` or `bigmodel`). `Ok(None)` when none is set;
    /// `Err` only when the keychain itself failed and no variable was set.
    pub fn api_key(
        &self,
        name: &str,
        declared_env: Option<&str>,
    ) -> Result<Option<ResolvedKey>, SecretError> {
        self.api_key_with(name, declared_env, |var| std::env::var(var).ok())
    }

    /// [`Secrets::api_key`] with environment variables read by `lookup`.
    fn api_key_with(
        &self,
        name: &str,
        declared_env: Option<&str>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ResolvedKey>, SecretError> {
        let from_env = |var: &str| {
            lookup(var)
                .filter(|v| !v.trim().is_empty())
                .map(|v| ResolvedKey {
                    value: v.trim().to_string(),
                    source: KeySource::Env(var.to_string()),
                })
        };
        let conventional = conventional_env(name);
        if let Some(k) = declared_env
            .into_iter()
            .chain([conventional.as_str()])
            .find_map(from_env)
        {
            return Ok(Some(k));
        }
        let keychain = self.read(&SecretName::Provider(name.to_string()));
        if let Ok(Some(value)) = keychain {
            return Ok(Some(ResolvedKey {
                value,
                source: KeySource::Keychain,
            }));
        }
        if let Some(k) = seed_key_env(name).and_then(from_env) {
            return Ok(Some(k));
        }
        keychain.map(|_| None)
    }
}

/// The original (.NET) system's environment variable for provider `name`'s
/// key, read last: `DeepSeekApiKey` (names containing `deepseek`),
/// `GeminiApiKey` (`gemini`, `google`), `ZaiApiKey` (`zai`, `z.ai`, `glm`,
/// `bigmodel`); case-insensitive. `None` for other providers.
fn seed_key_env(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if has(&["deepseek"]) {
        Some("DeepSeekApiKey")
    } else if has(&["gemini", "google"]) {
        Some("GeminiApiKey")
    } else if has(&["zai", "z.ai", "glm", "bigmodel"]) {
        Some("ZaiApiKey")
    } else {
        None
    }
}

fn normalize(name: &str) -> String {
    name.trim().to_lowercase()
}

fn map_err(name: &str, e: keyring_core::Error) -> SecretError {
    match e {
        keyring_core::Error::NoStorageAccess(p) => SecretError::Locked {
            reason: p.to_string(),
        },
        keyring_core::Error::NoDefaultStore => SecretError::NoKeychain {
            reason: "no credential store".into(),
        },
        other => SecretError::Other {
            name: name.to_string(),
            reason: other.to_string(),
        },
    }
}

fn open_platform_store() -> Result<Arc<CredentialStore>, SecretError> {
    let no = |e: keyring_core::Error| SecretError::NoKeychain {
        reason: e
            .to_string()
            .replace("Platform failure: ", "")
            .replace("zbus error: ", ""),
    };
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ))]
    let store: Arc<CredentialStore> =
        zbus_secret_service_keyring_store::Store::new().map_err(no)?;
    #[cfg(target_os = "macos")]
    let store: Arc<CredentialStore> =
        apple_native_keyring_store::keychain::Store::new().map_err(no)?;
    #[cfg(target_os = "windows")]
    let store: Arc<CredentialStore> = windows_native_keyring_store::Store::new().map_err(no)?;
    #[cfg(not(any(unix, windows)))]
    let store: Arc<CredentialStore> = return Err(SecretError::NoKeychain {
        reason: "this platform has no supported keychain".into(),
    });
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real keychain when this run has one (`make test` starts a
    /// Secret Service and sets BATON_REQUIRE_KEYCHAIN=1, failing instead
    /// of skipping).
    fn keychain() -> Option<Secrets> {
        let secrets = Secrets::new();
        match secrets.status() {
            Ok(()) => Some(secrets),
            Err(e) if std::env::var("BATON_REQUIRE_KEYCHAIN").is_ok_and(|v| v == "1") => {
                panic!("BATON_REQUIRE_KEYCHAIN=1 but the keychain is unavailable: {e}")
            }
            Err(_) => None,
        }
    }

    #[test]
    fn each_kind_of_secret_has_its_own_entry() {
        assert_eq!(
            SecretName::Provider("OpenAI".into()).entry(),
            "provider:openai"
        );
        assert_eq!(SecretName::Imap.entry(), "mail:imap");
        assert_eq!(SecretName::mail("SMTP"), Some(SecretName::Smtp));
        assert_eq!(
            SecretName::Named("server-key:desk".into()).entry(),
            "server-key:desk"
        );
        assert_eq!(SecretName::Provider("smtp".into()).legacy(), None);
    }

    #[test]
    fn old_flat_entries_move_to_their_namespace_and_a_provider_named_smtp_gets_no_mail_password() {
        let Some(secrets) = keychain() else { return };
        let provider = format!("migrating-{}", std::process::id());
        secrets.set(&provider, "sk-old-flat").unwrap();
        let name = SecretName::Provider(provider.clone());
        assert_eq!(secrets.read(&name).unwrap().as_deref(), Some("sk-old-flat"));
        assert_eq!(
            secrets.get(&provider).unwrap(),
            None,
            "the flat entry is gone"
        );
        assert_eq!(
            secrets
                .get(&format!("provider:{provider}"))
                .unwrap()
                .as_deref(),
            Some("sk-old-flat")
        );
        assert!(secrets.remove(&name).unwrap());
        assert_eq!(secrets.read(&name).unwrap(), None);

        // The SMTP password kept flat, as before namespaces: a provider
        // entry called `smtp` does not get it; the mail account does.
        secrets.set("smtp", "mail-password").unwrap();
        let smtp_provider = SecretName::Provider("smtp".into());
        assert_eq!(secrets.read(&smtp_provider).unwrap(), None);
        assert_eq!(secrets.api_key_with("smtp", None, |_| None).unwrap(), None);
        assert_eq!(
            secrets.read(&SecretName::Smtp).unwrap().as_deref(),
            Some("mail-password")
        );
        assert!(secrets.remove(&SecretName::Smtp).unwrap());
        assert_eq!(secrets.get("smtp").unwrap(), None);
    }

    #[test]
    fn conventional_env_names() {
        assert_eq!(conventional_env("deepseek"), "DEEPSEEK_API_KEY");
        assert_eq!(conventional_env("z.ai"), "Z_AI_API_KEY");
        assert_eq!(conventional_env("my-server"), "MY_SERVER_API_KEY");
    }

    #[test]
    fn no_keychain_names_no_particular_provider() {
        let msg = SecretError::NoKeychain {
            reason: "no D-Bus".into(),
        }
        .to_string();
        assert!(
            msg.contains("no D-Bus") && msg.contains("plain text"),
            "{msg}"
        );
        assert!(!msg.contains("_API_KEY"), "{msg}");
    }

    #[test]
    fn seed_key_env_names() {
        assert_eq!(seed_key_env("deepseek"), Some("DeepSeekApiKey"));
        assert_eq!(seed_key_env("My-DeepSeek-R1"), Some("DeepSeekApiKey"));
        assert_eq!(seed_key_env("gemini"), Some("GeminiApiKey"));
        assert_eq!(seed_key_env("Google-AI"), Some("GeminiApiKey"));
        assert_eq!(seed_key_env("zai"), Some("ZaiApiKey"));
        assert_eq!(seed_key_env("Z.AI"), Some("ZaiApiKey"));
        assert_eq!(seed_key_env("glm-4"), Some("ZaiApiKey"));
        assert_eq!(seed_key_env("bigmodel"), Some("ZaiApiKey"));
        assert_eq!(seed_key_env("openai"), None);
        assert_eq!(seed_key_env("azure"), None);
    }

    /// Environment read through a map (no process-wide variables, so no
    /// races with other tests).
    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |var| vars.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone())
    }

    #[test]
    fn seed_variable_is_read_last_and_named_as_the_source() {
        let s = Secrets::without_keychain("test");
        let key = |name: &str, declared: Option<&str>, vars: &[(&str, &str)]| {
            s.api_key_with(name, declared, lookup(vars))
        };
        let k = key(
            "deepseek",
            Some("DS_KEY"),
            &[("DeepSeekApiKey", " sk-seed ")],
        )
        .unwrap()
        .unwrap();
        assert_eq!(k.value, "sk-seed");
        assert_eq!(k.source, KeySource::Env("DeepSeekApiKey".into()));
        let both = [("DeepSeekApiKey", "sk-seed"), ("DS_KEY", "sk-declared")];
        let k = key("deepseek", Some("DS_KEY"), &both).unwrap().unwrap();
        assert_eq!(k.source, KeySource::Env("DS_KEY".into()));
        let both = [("ZaiApiKey", "sk-seed"), ("Z_AI_API_KEY", "sk-conv")];
        let k = key("z.ai", None, &both).unwrap().unwrap();
        assert_eq!(k.source, KeySource::Env("Z_AI_API_KEY".into()));
        let k = key("gemini", None, &[("GeminiApiKey", "g")])
            .unwrap()
            .unwrap();
        assert_eq!(k.source, KeySource::Env("GeminiApiKey".into()));
        // Blank seed values do not count; the keychain's failure is reported.
        let e = key("gemini", None, &[("GeminiApiKey", "  ")]).unwrap_err();
        assert!(matches!(e, SecretError::NoKeychain { .. }), "{e:?}");
        // Another provider never picks up a seed variable.
        assert!(key("openai", None, &[("DeepSeekApiKey", "x")]).is_err());
    }

    #[test]
    fn debug_never_shows_the_key() {
        let k = ResolvedKey {
            value: "sk-secret".into(),
            source: KeySource::Keychain,
        };
        assert!(!format!("{k:?}").contains("sk-secret"));
    }
}
