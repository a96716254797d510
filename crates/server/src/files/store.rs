//! Where uploads are kept, each caller's apart: `api-files/OWNER/` in the
//! data folder (`ID.json` and `ID.bin`), or Redis beside the sessions
//! (`baton:file:ID` holds the record, `baton:file:ID:content` the bytes,
//! `baton:files:OWNER` the caller's ids by upload time). Uploads arrive
//! spooled to a temporary file, so no store holds one whole in memory
//! while it is written.

use std::path::{Path, PathBuf};

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use tokio::io::AsyncReadExt;

use super::{FileRecord, not_found};
use crate::{ApiError, Caller};

/// How much of a file is read or sent at a time.
const PIECE: usize = 1 << 20;

/// Where uploads are kept.
pub enum FileStore {
    /// `api-files/` in the data folder, a folder per caller.
    Disk(PathBuf),
    /// Redis, with uploads spooled in `scratch` first.
    Redis {
        /// The connection.
        conn: redis::aio::ConnectionManager,
        /// Where, for messages (without user name and password).
        url: String,
        /// Where uploads are spooled before they go to Redis.
        scratch: PathBuf,
    },
}

/// An upload spooled to a temporary file, removed when dropped unless kept.
pub(crate) struct Spooled {
    /// The temporary file.
    pub file: tempfile::NamedTempFile,
    /// Its size.
    pub bytes: u64,
}

fn disk_error(e: &std::io::Error) -> ApiError {
    ApiError::server(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the file store failed: {e}"),
    )
}

fn redis_error(url: &str, e: &redis::RedisError) -> ApiError {
    ApiError::server(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("the file store (Redis at {url}) cannot be reached: {e}"),
    )
}

/// A file id as Baton makes them (`file-` and 32 hex digits): anything
/// else cannot name a file (and never becomes a path).
fn checked(id: &str) -> Result<&str, ApiError> {
    let hex = id.strip_prefix("file-").unwrap_or("");
    if hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(id)
    } else {
        Err(not_found(id))
    }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

impl FileStore {
    /// Beside the sessions: on their Redis, else in `data_dir/api-files`.
    pub fn beside(sessions: &crate::Sessions, data_dir: &Path) -> Self {
        match &sessions.redis {
            Some(link) => FileStore::Redis {
                conn: link.conn.clone(),
                url: link.url.clone(),
                scratch: data_dir.join("api-uploads"),
            },
            None => FileStore::Disk(data_dir.join("api-files")),
        }
    }

    /// The folder an upload of `caller` is spooled in (on the disk store,
    /// the caller's own folder, so that keeping it is a rename).
    pub(crate) fn spool_dir(&self, caller: &Caller) -> PathBuf {
        match self {
            FileStore::Disk(dir) => dir.join(&caller.owner),
            FileStore::Redis { scratch, .. } => scratch.clone(),
        }
    }

    /// Keeps `upload` as `record` (its owner's).
    pub(crate) async fn put(&self, record: &FileRecord, upload: Spooled) -> Result<(), ApiError> {
        let meta = serde_json::to_string(record).expect("a file record serializes");
        match self {
            FileStore::Disk(dir) => {
                let dir = dir.join(&record.owner);
                let bin = dir.join(format!("{}.bin", record.id));
                let json = dir.join(format!("{}.json", record.id));
                tokio::task::spawn_blocking(move || {
                    upload.file.persist(&bin).map_err(|e| e.error)?;
                    baton_stdx::atomic_write_private(&json, meta.as_bytes())
                })
                .await
                .map_err(|e| disk_error(&std::io::Error::other(e)))?
                .map_err(|e| disk_error(&e))
            }
            FileStore::Redis { conn, url, .. } => {
                let fail = |e: redis::RedisError| redis_error(url, &e);
                let content = format!("baton:file:{}:content", record.id);
                let mut conn = conn.clone();
                // The bytes a piece at a time; the record last, so that a
                // file half sent is never listed.
                let mut file =
                    tokio::fs::File::from_std(upload.file.reopen().map_err(|e| disk_error(&e))?);
                let mut piece = vec![0u8; PIECE];
                loop {
                    let n = file.read(&mut piece).await.map_err(|e| disk_error(&e))?;
                    if n == 0 {
                        break;
                    }
                    redis::cmd("APPEND")
                        .arg(&content)
                        .arg(&piece[..n])
                        .query_async::<()>(&mut conn)
                        .await
                        .map_err(fail)?;
                }
                let key = format!("baton:file:{}", record.id);
                let at = record.expires_at.unwrap_or(i64::MAX);
                redis::pipe()
                    .atomic()
                    .hset(&key, "meta", meta)
                    .expire_at(&key, at)
                    .expire_at(&content, at)
                    .zadd(
                        format!("baton:files:{}", record.owner),
                        &record.id,
                        record.created_at,
                    )
                    .query_async::<()>(&mut conn)
                    .await
                    .map_err(fail)
            }
        }
    }

    /// The record of `id`, when it is `caller`'s (expired or not).
    async fn record(&self, caller: &Caller, id: &str) -> Result<FileRecord, ApiError> {
        let id = checked(id)?;
        let meta: Option<Vec<u8>> = match self {
            FileStore::Disk(dir) => {
                tokio::fs::read(dir.join(&caller.owner).join(format!("{id}.json")))
                    .await
                    .ok()
            }
            FileStore::Redis { conn, url, .. } => redis::cmd("HGET")
                .arg(format!("baton:file:{id}"))
                .arg("meta")
                .query_async(&mut conn.clone())
                .await
                .map_err(|e| redis_error(url, &e))?,
        };
        let record: FileRecord = serde_json::from_slice(&meta.ok_or_else(|| not_found(id))?)
            .map_err(|e| {
                ApiError::server(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("the record of {id} is damaged: {e}"),
                )
            })?;
        // Someone else's file is not there for this caller.
        if record.owner != caller.owner {
            return Err(not_found(id));
        }
        Ok(record)
    }

    /// The record of `id`, when it is `caller`'s and has not expired (an
    /// expired one is removed).
    pub(crate) async fn get(&self, caller: &Caller, id: &str) -> Result<FileRecord, ApiError> {
        let record = self.record(caller, id).await?;
        if record.expires_at.is_some_and(|at| at <= now()) {
            self.delete(caller, id).await?;
            return Err(not_found(id));
        }
        Ok(record)
    }

    /// The bytes of `record` (a message's attachment: converted whole).
    pub(crate) async fn content(&self, record: &FileRecord) -> Result<Vec<u8>, ApiError> {
        match self {
            FileStore::Disk(dir) => {
                let path = dir.join(&record.owner).join(format!("{}.bin", record.id));
                tokio::fs::read(path)
                    .await
                    .map_err(|_| not_found(&record.id))
            }
            FileStore::Redis { conn, url, .. } => {
                let found: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(format!("baton:file:{}:content", record.id))
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))?;
                // An empty file is no key at all on Redis.
                Ok(found.unwrap_or_default())
            }
        }
    }

    /// The bytes of `record` as a response body: read from disk a piece at
    /// a time as they are sent.
    pub(crate) async fn body(&self, record: &FileRecord) -> Result<Body, ApiError> {
        let FileStore::Disk(dir) = self else {
            return Ok(Body::from(self.content(record).await?));
        };
        let path = dir.join(&record.owner).join(format!("{}.bin", record.id));
        let file = tokio::fs::File::open(path)
            .await
            .map_err(|_| not_found(&record.id))?;
        let pieces = futures::stream::try_unfold(file, |mut f| async move {
            let mut piece = vec![0u8; PIECE];
            let n = f.read(&mut piece).await?;
            piece.truncate(n);
            Ok::<_, std::io::Error>((n > 0).then(|| (Bytes::from(piece), f)))
        });
        Ok(Body::from_stream(pieces))
    }

    /// Every record of `caller`, newest first; expired ones are removed.
    pub(crate) async fn all(&self, caller: &Caller) -> Result<Vec<FileRecord>, ApiError> {
        let ids: Vec<String> = match self {
            FileStore::Disk(dir) => {
                let mut ids = Vec::new();
                if let Ok(mut entries) = tokio::fs::read_dir(dir.join(&caller.owner)).await {
                    while let Ok(Some(e)) = entries.next_entry().await {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if let Some(id) = name.strip_suffix(".json") {
                            ids.push(id.to_string());
                        }
                    }
                }
                ids
            }
            FileStore::Redis { conn, url, .. } => redis::cmd("ZRANGE")
                .arg(format!("baton:files:{}", caller.owner))
                .arg(0)
                .arg(-1)
                .query_async(&mut conn.clone())
                .await
                .map_err(|e| redis_error(url, &e))?,
        };
        let mut records = Vec::new();
        for id in ids {
            match self.get(caller, &id).await {
                Ok(r) => records.push(r),
                Err(e) if e.status == StatusCode::NOT_FOUND => self.forget(caller, &id).await,
                Err(e) => return Err(e),
            }
        }
        records.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(records)
    }

    /// Drops `id` from `caller`'s list on Redis (its keys expired).
    async fn forget(&self, caller: &Caller, id: &str) {
        if let FileStore::Redis { conn, .. } = self {
            let _: redis::RedisResult<()> = redis::cmd("ZREM")
                .arg(format!("baton:files:{}", caller.owner))
                .arg(id)
                .query_async(&mut conn.clone())
                .await;
        }
    }

    /// Removes `caller`'s file `id`; whether there was one.
    pub(crate) async fn delete(&self, caller: &Caller, id: &str) -> Result<bool, ApiError> {
        let id = checked(id)?;
        match self {
            FileStore::Disk(dir) => {
                let dir = dir.join(&caller.owner);
                let gone = tokio::fs::remove_file(dir.join(format!("{id}.json")))
                    .await
                    .is_ok();
                let _ = tokio::fs::remove_file(dir.join(format!("{id}.bin"))).await;
                Ok(gone)
            }
            FileStore::Redis { conn, url, .. } => {
                match self.record(caller, id).await {
                    Err(e) if e.status == StatusCode::NOT_FOUND => return Ok(false),
                    Err(e) => return Err(e),
                    Ok(_) => {}
                }
                let (removed, _, _): (u32, u32, u32) = redis::pipe()
                    .atomic()
                    .del(format!("baton:file:{id}"))
                    .del(format!("baton:file:{id}:content"))
                    .zrem(format!("baton:files:{}", caller.owner), id)
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))?;
                Ok(removed > 0)
            }
        }
    }
}
