//! The state members share during a run: key-value notes (each finished
//! answer is one), shown to members briefed after it.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Key-value notes shared by the members of one run.
pub trait SharedState: Send + Sync {
    /// Sets `key` to `value`.
    fn set(&self, key: &str, value: &str);
    /// Every note, by key.
    fn snapshot(&self) -> BTreeMap<String, String>;
}

/// Notes kept in memory for one run.
#[derive(Debug, Default)]
pub struct InMemoryState {
    notes: Mutex<BTreeMap<String, String>>,
}

impl SharedState for InMemoryState {
    fn set(&self, key: &str, value: &str) {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes.insert(key.to_string(), value.to_string());
    }

    fn snapshot(&self) -> BTreeMap<String, String> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
