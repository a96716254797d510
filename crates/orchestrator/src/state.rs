//! The state members share during a run: key-value notes (each finished
//! answer is one), shown to members briefed after it. In memory by
//! default; a front door may keep it elsewhere (the HTTP server on its
//! Redis).

use std::collections::BTreeMap;
use std::sync::Mutex;

use futures::future::BoxFuture;

/// Key-value notes shared by the members of one run.
pub trait SharedState: Send + Sync {
    /// Sets `key` to `value` (a store that fails logs it: the notes help,
    /// the run goes on without them).
    fn set<'a>(&'a self, key: &'a str, value: &'a str) -> BoxFuture<'a, ()>;
    /// Every note, by key.
    fn snapshot(&self) -> BoxFuture<'_, BTreeMap<String, String>>;
}

/// Notes kept in memory for one run.
#[derive(Debug, Default)]
pub struct InMemoryState {
    notes: Mutex<BTreeMap<String, String>>,
}

impl SharedState for InMemoryState {
    fn set<'a>(&'a self, key: &'a str, value: &'a str) -> BoxFuture<'a, ()> {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes.insert(key.to_string(), value.to_string());
        Box::pin(std::future::ready(()))
    }

    fn snapshot(&self) -> BoxFuture<'_, BTreeMap<String, String>> {
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Box::pin(std::future::ready(notes))
    }
}
