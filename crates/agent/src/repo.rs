//! Where conversations are kept: one [`SessionRepo`] trait, with the
//! engine's session files ([`SessionStore`]) and a process's memory
//! ([`MemorySessions`]) here; a shared server (the HTTP API's Redis) is
//! another implementation in the crate that talks to it. A conversation
//! saves through its repo after each turn and command; nothing else saves
//! by hand.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;

use crate::ids::SessionId;
use crate::session::{Session, SessionError, SessionInfo, SessionStore};

/// A place that keeps conversations by id.
#[async_trait]
pub trait SessionRepo: Send + Sync {
    /// Session `id`; [`SessionError::NotFound`] when it has none.
    async fn load(&self, id: &SessionId) -> Result<Session, SessionError>;
    /// Keeps `session` under its id, replacing what was there.
    async fn save(&self, session: &Session) -> Result<(), SessionError>;
    /// Forgets session `id`; whether there was one.
    async fn delete(&self, id: &SessionId) -> Result<bool, SessionError>;
    /// The sessions kept, newest first.
    async fn list(&self) -> Result<Vec<SessionInfo>, SessionError>;
    /// Where, in words (`/session info`, messages).
    fn place(&self) -> String;

    /// Session `id`, or a new, empty one by that id.
    async fn load_or_new(&self, id: &SessionId) -> Result<Session, SessionError> {
        match self.load(id).await {
            Err(SessionError::NotFound(_)) => Ok(Session::with_id(id.clone())),
            other => other,
        }
    }
}

/// Runs a blocking store call off the async runtime.
async fn blocking<T: Send + 'static>(
    store: &SessionStore,
    call: impl FnOnce(&SessionStore) -> Result<T, SessionError> + Send + 'static,
) -> Result<T, SessionError> {
    let place = store_place(store);
    let store = store.clone();
    tokio::task::spawn_blocking(move || call(&store))
        .await
        .map_err(|e| SessionError::Unavailable {
            place,
            reason: e.to_string(),
        })?
}

fn store_place(store: &SessionStore) -> String {
    store.dir().display().to_string()
}

#[async_trait]
impl SessionRepo for SessionStore {
    async fn load(&self, id: &SessionId) -> Result<Session, SessionError> {
        let id = id.clone();
        blocking(self, move |s| s.load(&id)).await
    }

    async fn save(&self, session: &Session) -> Result<(), SessionError> {
        let session = session.clone();
        blocking(self, move |s| s.save(&session).map(drop)).await
    }

    async fn delete(&self, id: &SessionId) -> Result<bool, SessionError> {
        let id = id.clone();
        blocking(self, move |s| s.delete(&id)).await
    }

    async fn list(&self) -> Result<Vec<SessionInfo>, SessionError> {
        blocking(self, |s| Ok(s.summaries())).await
    }

    fn place(&self) -> String {
        store_place(self)
    }
}

/// Sessions kept in this process only (gone when it ends): the HTTP API's
/// default, and tests. [`MemorySessions::keeping`] bounds how many and how
/// much.
#[derive(Debug, Default, Clone)]
pub struct MemorySessions {
    kept: Arc<tokio::sync::Mutex<HashMap<SessionId, Kept>>>,
    /// The most kept at once, in sessions and in bytes (`None`: no bound).
    most: Option<(usize, usize)>,
}

/// A session in memory, when it was saved and its size as JSON.
#[derive(Debug, Clone)]
struct Kept {
    session: Session,
    saved: std::time::SystemTime,
    bytes: usize,
}

impl MemorySessions {
    /// Keeps at most `sessions` sessions of at most `bytes` in all (as
    /// JSON): saving one more forgets those saved longest ago until both
    /// hold again (the session just saved stays, however large).
    pub fn keeping(sessions: usize, bytes: usize) -> Self {
        Self {
            most: Some((sessions.max(1), bytes)),
            ..Self::default()
        }
    }

    /// Forgets the sessions saved longest ago, other than `keep`, while
    /// there are more or larger than the bounds allow.
    fn evict(&self, kept: &mut HashMap<SessionId, Kept>, keep: &SessionId) {
        let Some((sessions, bytes)) = self.most else {
            return;
        };
        let mut total: usize = kept.values().map(|k| k.bytes).sum();
        while kept.len() > sessions || (total > bytes && kept.len() > 1) {
            let Some(oldest) = kept
                .iter()
                .filter(|(id, _)| *id != keep)
                .min_by_key(|(_, k)| k.saved)
                .map(|(id, _)| id.clone())
            else {
                return;
            };
            total -= kept.remove(&oldest).map_or(0, |k| k.bytes);
        }
    }
}

#[async_trait]
impl SessionRepo for MemorySessions {
    async fn load(&self, id: &SessionId) -> Result<Session, SessionError> {
        let kept = self.kept.lock().await;
        kept.get(id)
            .map(|k| k.session.clone())
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    async fn save(&self, session: &Session) -> Result<(), SessionError> {
        let bytes = serde_json::to_vec(session).map_or(0, |json| json.len());
        let kept_now = Kept {
            session: session.clone(),
            saved: std::time::SystemTime::now(),
            bytes,
        };
        let mut kept = self.kept.lock().await;
        kept.insert(session.id.clone(), kept_now);
        self.evict(&mut kept, &session.id);
        Ok(())
    }

    async fn delete(&self, id: &SessionId) -> Result<bool, SessionError> {
        Ok(self.kept.lock().await.remove(id).is_some())
    }

    async fn list(&self) -> Result<Vec<SessionInfo>, SessionError> {
        let kept = self.kept.lock().await;
        let mut out: Vec<SessionInfo> = kept
            .values()
            .map(|k| SessionInfo::of(&k.session, k.saved))
            .collect();
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    fn place(&self) -> String {
        "this process's memory".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_llm::Message;

    async fn keeps_loads_lists_and_deletes(repo: &dyn SessionRepo) {
        let id = SessionId::parse("colours").unwrap();
        let fresh = repo.load_or_new(&id).await.unwrap();
        assert_eq!((fresh.id.as_str(), fresh.history.len()), ("colours", 0));
        assert!(matches!(
            repo.load(&id).await,
            Err(SessionError::NotFound(_))
        ));
        let mut s = fresh;
        s.title_from("my favourite colour");
        s.history.push(Message::user("my favourite colour is teal"));
        repo.save(&s).await.unwrap();
        assert_eq!(repo.load(&id).await.unwrap(), s);
        let listed = repo.list().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!((listed[0].id.as_str(), listed[0].messages), ("colours", 1));
        assert!(repo.delete(&id).await.unwrap());
        assert!(!repo.delete(&id).await.unwrap());
        assert!(repo.list().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn files_and_memory_keep_sessions_alike() {
        let dir = tempfile::tempdir().unwrap();
        let files = SessionStore::new(dir.path());
        keeps_loads_lists_and_deletes(&files).await;
        keeps_loads_lists_and_deletes(&MemorySessions::default()).await;
        assert_eq!(files.place(), dir.path().display().to_string());
    }

    #[tokio::test]
    async fn a_bounded_memory_forgets_the_session_saved_longest_ago() {
        let repo = MemorySessions::keeping(2, usize::MAX);
        for name in ["a", "b", "c"] {
            let s = Session::with_id(SessionId::parse(name).unwrap());
            repo.save(&s).await.unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(listed(&repo).await, ["c", "b"]);
    }

    /// The ids `repo` lists, newest first.
    async fn listed(repo: &MemorySessions) -> Vec<String> {
        let listed = repo.list().await.unwrap();
        listed.iter().map(|i| i.id.to_string()).collect()
    }

    #[tokio::test]
    async fn a_memory_over_its_bytes_forgets_the_oldest_but_keeps_the_one_saved() {
        let long = |name: &str, chars: usize| {
            let mut s = Session::with_id(SessionId::parse(name).unwrap());
            s.history.push(Message::user("x".repeat(chars)));
            s
        };
        let repo = MemorySessions::keeping(100, 25_000);
        for name in ["a", "b", "c"] {
            repo.save(&long(name, 10_000)).await.unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(listed(&repo).await, ["c", "b"]);
        // One conversation larger than the whole bound stays, alone.
        repo.save(&long("d", 40_000)).await.unwrap();
        assert_eq!(listed(&repo).await, ["d"]);
        assert_eq!(
            repo.load(&SessionId::parse("d").unwrap()).await.unwrap(),
            long("d", 40_000)
        );
    }

    #[tokio::test]
    async fn a_damaged_file_is_named_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let files = SessionStore::new(dir.path());
        std::fs::write(dir.path().join("broken.json"), b"{ not json").unwrap();
        let id = SessionId::parse("broken").unwrap();
        let e = files.load_or_new(&id).await.unwrap_err();
        assert!(e.to_string().contains("`broken` is damaged"), "{e}");
        assert_eq!(
            std::fs::read(dir.path().join("broken.json")).unwrap(),
            b"{ not json"
        );
    }
}
