//! Typed identifiers: a conversation's [`SessionId`] (one rule, checked
//! once, wherever the id comes from: a new session, a saved file, a CLI
//! flag, an HTTP header or an IPC call) and a running turn's [`TurnId`].

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The longest session id, in bytes.
pub const SESSION_ID_MAX: usize = 100;

/// A conversation's id: also its file name and its key in a shared store,
/// so 1 to [`SESSION_ID_MAX`] bytes of letters, digits, `-`, `_` and `.`,
/// not starting with `.`. Made by [`SessionId::new`] or [`SessionId::parse`]
/// only; anything else is refused with a [`BadSessionId`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SessionId(String);

/// A string that is not a session id, with the rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a usable session name (1 to 100 letters, digits, `-`, `_` and `.`, not starting with `.`)"
)]
pub struct BadSessionId(pub String);

impl SessionId {
    /// A fresh, random id (12 hexadecimal digits).
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string()[..12].to_string())
    }

    /// `text` as a session id, if it keeps the rule.
    pub fn parse(text: &str) -> Result<Self, BadSessionId> {
        let ok = !text.is_empty()
            && text.len() <= SESSION_ID_MAX
            && !text.starts_with('.')
            && text
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if ok {
            Ok(Self(text.to_string()))
        } else {
            Err(BadSessionId(text.to_string()))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for SessionId {
    type Err = BadSessionId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for SessionId {
    type Error = BadSessionId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> String {
        id.0
    }
}

impl PartialEq<str> for SessionId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for SessionId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A running turn's id: every event of the turn carries it. Cheap to
/// clone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(transparent)]
pub struct TurnId(Arc<str>);

impl TurnId {
    /// A fresh, random id (12 hexadecimal digits).
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string()[..12].into())
    }

    /// A turn id with a name of the caller's (a voice turn's, a team
    /// member's).
    pub fn named(name: &str) -> Self {
        Self(name.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for TurnId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for TurnId {
    fn from(name: &str) -> Self {
        Self::named(name)
    }
}

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_every_session_id() {
        for good in ["team-7", "a", "work_2026.12", "café", &"x".repeat(100)] {
            assert_eq!(SessionId::parse(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            ".hidden",
            "../x",
            "a/b",
            "a b",
            "a\\b",
            &"x".repeat(101),
        ] {
            let e = SessionId::parse(bad).unwrap_err();
            assert!(e.to_string().contains("not a usable session name"), "{e}");
        }
        let fresh = SessionId::new();
        assert_eq!(SessionId::parse(fresh.as_str()).unwrap(), fresh);
        assert_ne!(SessionId::new(), fresh);
    }

    #[test]
    fn ids_read_from_json_keep_the_rule() {
        let id: SessionId = serde_json::from_str("\"colours\"").unwrap();
        assert_eq!(id, "colours");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"colours\"");
        assert!(serde_json::from_str::<SessionId>("\"../etc/passwd\"").is_err());
        let turn = TurnId::named("voice-3");
        assert_eq!(serde_json::to_string(&turn).unwrap(), "\"voice-3\"");
        assert_ne!(TurnId::new(), TurnId::new());
    }
}
