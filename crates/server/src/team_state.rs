//! A team's shared notes on the sessions' Redis (`--sessions redis://…`),
//! so they outlive the process and other servers can read them: a hash
//! `baton:team:RUN` that expires a day after its last change.

use std::collections::BTreeMap;
use std::sync::Arc;

use baton_engine::api::team::{SharedState, StateFactory};
use futures::future::BoxFuture;

/// How long a run's notes are kept after their last change.
const TTL_SECS: i64 = 24 * 3600;

struct RedisState {
    conn: redis::aio::ConnectionManager,
    key: String,
}

impl SharedState for RedisState {
    fn set<'a>(&'a self, key: &'a str, value: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let done: redis::RedisResult<()> = redis::pipe()
                .hset(&self.key, key, value)
                .ignore()
                .expire(&self.key, TTL_SECS)
                .ignore()
                .query_async(&mut conn)
                .await;
            if let Err(e) = done {
                tracing::warn!(key = %self.key, "a team note was not kept on Redis: {e}");
            }
        })
    }

    fn snapshot(&self) -> BoxFuture<'_, BTreeMap<String, String>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("HGETALL")
                .arg(&self.key)
                .query_async(&mut conn)
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(key = %self.key, "the team's notes could not be read from Redis: {e}");
                    BTreeMap::new()
                })
        })
    }
}

/// Each run's notes on `conn`, under `baton:team:RUN`.
pub(crate) fn on_redis(conn: redis::aio::ConnectionManager) -> StateFactory {
    Arc::new(move |run: &str| {
        Arc::new(RedisState {
            conn: conn.clone(),
            key: format!("baton:team:{run}"),
        }) as Arc<dyn SharedState>
    })
}
