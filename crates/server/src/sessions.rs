//! Server-side conversations for clients that send `x-baton-session: ID`:
//! the history lives on the server (slash commands and compaction work as
//! in `baton chat`), kept in memory or in the engine's session files.
//! Without the header the API is stateless, as OpenAI's is.

use std::collections::HashMap;

use baton_engine::api::{Session, SessionError, SessionStore};
use tokio::sync::Mutex;

use crate::ApiError;
use axum::http::StatusCode;

/// Where `x-baton-session` conversations are kept.
pub enum Sessions {
    /// In this process (gone when it stops).
    Memory(Mutex<HashMap<String, Session>>),
    /// The engine's session files (what `baton chat --session` and the
    /// desktop use).
    File(SessionStore),
    /// A Redis server several instances share; each session expires
    /// `ttl` seconds after its last use.
    Redis {
        /// The connection (reconnects by itself).
        conn: redis::aio::ConnectionManager,
        /// Where, for messages.
        url: String,
        /// Sliding expiry, in seconds.
        ttl: u64,
    },
}

/// Which store `baton serve --sessions` names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionKind {
    /// In memory.
    #[default]
    Memory,
    /// On disk.
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
                "`{other}` is not a session store: memory, file or redis://HOST:PORT"
            )),
        }
    }
}

fn redis_error(url: &str, e: &redis::RedisError) -> ApiError {
    ApiError::server(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the session store (Redis at {url}) cannot be reached: {e}"),
    )
}

fn key(id: &str) -> String {
    format!("baton:session:{id}")
}

impl Sessions {
    /// The store `kind` names; Redis is connected now (an unreachable
    /// server is told at start).
    pub async fn open(
        kind: &SessionKind,
        engine: &std::sync::Arc<baton_engine::Engine>,
    ) -> Result<Self, String> {
        Ok(match kind {
            SessionKind::Memory => Self::Memory(Mutex::default()),
            SessionKind::File => Self::File(engine.conversations().store()),
            SessionKind::Redis { url, ttl_days } => {
                let fail = |e: redis::RedisError| format!("Redis at {url} cannot be reached: {e}");
                let client = redis::Client::open(url.as_str()).map_err(fail)?;
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(std::time::Duration::from_secs(5)))
                    .set_response_timeout(Some(std::time::Duration::from_secs(5)))
                    .set_number_of_retries(2);
                let conn = client
                    .get_connection_manager_with_config(config)
                    .await
                    .map_err(fail)?;
                Self::Redis {
                    conn,
                    url: url.clone(),
                    ttl: u64::from(*ttl_days) * 86_400,
                }
            }
        })
    }
}

fn store_error(e: SessionError) -> ApiError {
    ApiError::server(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the session store failed: {e}"),
    )
}

/// Checks a client's session id (it becomes a file name).
pub(crate) fn valid_id(id: &str) -> Result<&str, ApiError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c));
    if ok {
        Ok(id)
    } else {
        Err(ApiError::invalid(
            "`x-baton-session` is 1 to 64 letters, digits, `-` or `_`",
            None,
        ))
    }
}

impl Sessions {
    /// The session `id`, or a new one by that id.
    pub(crate) async fn load(&self, id: &str) -> Result<Session, ApiError> {
        let found = match self {
            Sessions::Memory(m) => m.lock().await.get(id).cloned(),
            Sessions::File(store) => match store.load(id) {
                Ok(s) => Some(s),
                Err(SessionError::NotFound(_)) => None,
                Err(e) => return Err(store_error(e)),
            },
            Sessions::Redis { conn, url, ttl } => {
                // GETEX: read it and slide its expiry.
                let json: Option<String> = redis::cmd("GETEX")
                    .arg(key(id))
                    .arg("EX")
                    .arg(*ttl)
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))?;
                match json {
                    Some(j) => Some(serde_json::from_str(&j).map_err(|e| {
                        ApiError::server(
                            StatusCode::INTERNAL_SERVER_ERROR,
                            format!("session `{id}` in Redis is damaged: {e}"),
                        )
                    })?),
                    None => None,
                }
            }
        };
        Ok(found.unwrap_or_else(|| Session {
            id: id.to_string(),
            ..Session::new()
        }))
    }

    /// Keeps `session` (after a turn or a command).
    pub(crate) async fn save(&self, session: Session) -> Result<(), ApiError> {
        match self {
            Sessions::Memory(m) => {
                m.lock().await.insert(session.id.clone(), session);
                Ok(())
            }
            Sessions::File(store) => store.save(&session).map(drop).map_err(store_error),
            Sessions::Redis { conn, url, ttl } => {
                let json = serde_json::to_string(&session).expect("a session serializes");
                redis::cmd("SET")
                    .arg(key(&session.id))
                    .arg(json)
                    .arg("EX")
                    .arg(*ttl)
                    .query_async::<()>(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))
            }
        }
    }
}
