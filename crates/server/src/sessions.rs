//! Server-side conversations for clients that send `x-baton-session: ID`:
//! the history lives on the server (slash commands and compaction work as
//! in `baton chat`), kept in a [`SessionRepo`]: memory, session files of
//! the API's own (never the desktop's), or Redis (here). Each caller (API
//! key) has a namespace of its own in every store, so one key's holder
//! cannot read, overwrite or delete another's conversations. Without the
//! header the API is stateless, as OpenAI's is.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::http::StatusCode;
use baton_engine::api::{
    MemorySessions, Session, SessionError, SessionId, SessionInfo, SessionRepo, SessionStore,
};

use crate::{ApiError, Caller};

/// The most sessions one caller keeps in memory: one more forgets the
/// one used longest ago.
pub const MEMORY_SESSIONS_PER_CALLER: usize = 1_000;

/// The most bytes (as JSON) of conversations kept in memory for one
/// caller: over it, those used longest ago are forgotten first.
pub const MEMORY_BYTES_PER_CALLER: usize = 64 << 20;

/// Where `x-baton-session` conversations are kept.
pub struct Sessions {
    store: Store,
    /// The Redis server, when sessions are kept there (files and the
    /// team's notes are shared beside them).
    pub(crate) redis: Option<RedisLink>,
    /// The desktop's own sessions, for keys whose owner shares them.
    desktop: SessionStore,
}

/// The store behind [`Sessions`], split by caller.
enum Store {
    /// Each caller's sessions in this process's memory, bounded.
    Memory(Mutex<HashMap<String, MemorySessions>>),
    /// `api-sessions/OWNER/` in the data folder.
    Files(PathBuf),
    /// `baton:session:OWNER:ID` on Redis.
    Redis { link: RedisLink, ttl: u64 },
}

/// A connection to the Redis server the sessions are on.
#[derive(Clone)]
pub(crate) struct RedisLink {
    /// The connection (reconnects by itself).
    pub(crate) conn: redis::aio::ConnectionManager,
    /// Where, for messages: the URL without its user name and password.
    pub(crate) url: String,
}

/// Which store `baton serve --sessions` names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionKind {
    /// In memory (at most [`MEMORY_SESSIONS_PER_CALLER`] and
    /// [`MEMORY_BYTES_PER_CALLER`] per caller).
    #[default]
    Memory,
    /// On disk, in `api-sessions/` in the data folder (apart from the
    /// desktop's and `baton chat`'s sessions).
    File,
    /// On Redis (`redis://HOST:PORT`), with the expiry in days.
    Redis {
        /// The server's address.
        url: String,
        /// Days a session is kept after its last use.
        ttl_days: u32,
    },
}

impl SessionKind {
    /// `memory`, `file` or `redis://HOST:PORT` (`rediss://` with TLS).
    pub fn parse(s: &str, ttl_days: u32) -> Result<Self, String> {
        match s {
            "memory" => Ok(Self::Memory),
            "file" => Ok(Self::File),
            url if url.starts_with("redis://") || url.starts_with("rediss://") => Ok(Self::Redis {
                url: url.to_string(),
                ttl_days: ttl_days.max(1),
            }),
            other => Err(format!(
                "`{}` is not a session store: memory, file or redis://HOST:PORT",
                baton_stdx::without_userinfo(other)
            )),
        }
    }
}

impl Sessions {
    /// The store `kind` names; Redis is connected now (an unreachable
    /// server is told at start).
    pub async fn open(
        kind: &SessionKind,
        engine: &Arc<baton_engine::Engine>,
    ) -> Result<Self, String> {
        let desktop = engine.conversations().store();
        Ok(match kind {
            SessionKind::Memory => Self {
                store: Store::Memory(Mutex::default()),
                redis: None,
                desktop,
            },
            SessionKind::File => Self {
                store: Store::Files(engine.paths().data_dir.join("api-sessions")),
                redis: None,
                desktop,
            },
            SessionKind::Redis { url, ttl_days } => {
                let link = RedisLink::connect(url).await?;
                Self {
                    store: Store::Redis {
                        link: link.clone(),
                        ttl: u64::from(*ttl_days) * 86_400,
                    },
                    redis: Some(link),
                    desktop,
                }
            }
        })
    }

    /// The sessions of `caller`, apart from every other caller's; the
    /// desktop's own when the key's owner chose to share them.
    pub(crate) fn repo_for(&self, caller: &Caller) -> Arc<dyn SessionRepo> {
        if caller.shares_sessions {
            return Arc::new(self.desktop.clone());
        }
        match &self.store {
            Store::Memory(each) => {
                let mut each = each.lock().unwrap_or_else(|p| p.into_inner());
                let mine = each.entry(caller.owner.clone()).or_insert_with(|| {
                    MemorySessions::keeping(MEMORY_SESSIONS_PER_CALLER, MEMORY_BYTES_PER_CALLER)
                });
                Arc::new(mine.clone())
            }
            Store::Files(dir) => Arc::new(SessionStore::new(dir.join(&caller.owner))),
            Store::Redis { link, ttl } => Arc::new(RedisSessions {
                link: link.clone(),
                ttl: *ttl,
                prefix: format!("baton:session:{}:", caller.owner),
            }),
        }
    }
}

impl RedisLink {
    /// Connects to `url`, with short timeouts and a few retries.
    async fn connect(url: &str) -> Result<Self, String> {
        let shown = baton_stdx::without_userinfo(url);
        let fail = |e: redis::RedisError| format!("Redis at {shown} cannot be reached: {e}");
        let client = redis::Client::open(url).map_err(fail)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(std::time::Duration::from_secs(5)))
            .set_response_timeout(Some(std::time::Duration::from_secs(5)))
            .set_number_of_retries(2);
        let conn = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(fail)?;
        Ok(Self { conn, url: shown })
    }

    fn unavailable(&self, e: &redis::RedisError) -> SessionError {
        SessionError::Unavailable {
            place: format!("Redis at {}", self.url),
            reason: e.to_string(),
        }
    }
}

/// One caller's sessions on a Redis server several instances share, one
/// JSON string each under `baton:session:OWNER:ID`; each expires `ttl`
/// seconds after its last use.
struct RedisSessions {
    link: RedisLink,
    ttl: u64,
    /// `baton:session:OWNER:`.
    prefix: String,
}

impl RedisSessions {
    fn key(&self, id: &SessionId) -> String {
        format!("{}{id}", self.prefix)
    }
}

#[async_trait]
impl SessionRepo for RedisSessions {
    async fn load(&self, id: &SessionId) -> Result<Session, SessionError> {
        // GETEX: read it and slide its expiry.
        let json: Option<String> = redis::cmd("GETEX")
            .arg(self.key(id))
            .arg("EX")
            .arg(self.ttl)
            .query_async(&mut self.link.conn.clone())
            .await
            .map_err(|e| self.link.unavailable(&e))?;
        let json = json.ok_or_else(|| SessionError::NotFound(id.clone()))?;
        serde_json::from_str(&json).map_err(|e| SessionError::Corrupt {
            name: id.clone(),
            reason: format!("in Redis: {e}"),
        })
    }

    async fn save(&self, session: &Session) -> Result<(), SessionError> {
        let json = serde_json::to_string(session).expect("a session serializes");
        redis::cmd("SET")
            .arg(self.key(&session.id))
            .arg(json)
            .arg("EX")
            .arg(self.ttl)
            .query_async::<()>(&mut self.link.conn.clone())
            .await
            .map_err(|e| self.link.unavailable(&e))
    }

    async fn delete(&self, id: &SessionId) -> Result<bool, SessionError> {
        let gone: u64 = redis::cmd("DEL")
            .arg(self.key(id))
            .query_async(&mut self.link.conn.clone())
            .await
            .map_err(|e| self.link.unavailable(&e))?;
        Ok(gone > 0)
    }

    async fn list(&self) -> Result<Vec<SessionInfo>, SessionError> {
        let keys = self.session_keys().await?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        // Each session and its time to live, in one round trip.
        let mut pipe = redis::pipe();
        for k in &keys {
            pipe.get(k).ttl(k);
        }
        let found: Vec<(Option<String>, i64)> = pipe
            .query_async(&mut self.link.conn.clone())
            .await
            .map_err(|e| self.link.unavailable(&e))?;
        let now = std::time::SystemTime::now();
        let mut out = Vec::new();
        for (k, (json, left)) in keys.iter().zip(found) {
            let id = k
                .strip_prefix(&self.prefix)
                .and_then(|i| SessionId::parse(i).ok());
            let session = json.and_then(|j| serde_json::from_str::<Session>(&j).ok());
            let (Some(id), Some(session)) = (id, session) else {
                continue;
            };
            // Last used: the expiry slides from there.
            let idle = self.ttl.saturating_sub(left.max(0) as u64);
            let modified = now - std::time::Duration::from_secs(idle);
            out.push(SessionInfo::of(&Session { id, ..session }, modified));
        }
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.id.cmp(&b.id)));
        Ok(out)
    }

    fn place(&self) -> String {
        format!("Redis at {}", self.link.url)
    }
}

impl RedisSessions {
    /// Every session's key, by SCAN (which, unlike KEYS, does not hold
    /// the server up while it walks).
    async fn session_keys(&self) -> Result<Vec<String>, SessionError> {
        let mut conn = self.link.conn.clone();
        let (mut cursor, mut keys) = (0u64, Vec::new());
        loop {
            let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(format!("{}*", self.prefix))
                .arg("COUNT")
                .arg(500)
                .query_async(&mut conn)
                .await
                .map_err(|e| self.link.unavailable(&e))?;
            keys.extend(batch);
            if next == 0 {
                return Ok(keys);
            }
            cursor = next;
        }
    }
}

/// A session store's failure as the API's error: 503 while the store
/// cannot be reached, 500 otherwise.
pub(crate) fn store_error(e: SessionError) -> ApiError {
    match e {
        SessionError::Unavailable { .. } => {
            ApiError::server(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        e => ApiError::server(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the session store failed: {e}"),
        ),
    }
}

/// A client's session id, checked by the one rule.
pub(crate) fn parse_id(id: &str) -> Result<SessionId, ApiError> {
    SessionId::parse(id).map_err(|_| {
        ApiError::invalid(
            "`x-baton-session` is 1 to 100 letters, digits, `-`, `_` or `.`, not starting with `.`",
            None,
        )
    })
}
