//! OpenAI's Files API: `POST /v1/files` (multipart: `file`, `purpose`),
//! `GET /v1/files`, `GET /v1/files/{id}`, `GET /v1/files/{id}/content`,
//! `DELETE /v1/files/{id}`, in OpenAI's shapes. A chat message refers to
//! an uploaded file with a `{"type": "file", "file": {"file_id": …}}` part
//! and the engine converts it like a dropped attachment.
//!
//! Files are kept in the data folder (`api-files/`), or on Redis when the
//! sessions are, so every server behind a load balancer has them.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{ApiError, App};

/// What an upload is for (OpenAI's upload purposes; Baton treats them
/// alike: a file a chat message can refer to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Purpose {
    /// `assistants`.
    #[serde(rename = "assistants")]
    Assistants,
    /// `batch`.
    #[serde(rename = "batch")]
    Batch,
    /// `fine-tune`.
    #[serde(rename = "fine-tune")]
    FineTune,
    /// `vision`.
    #[serde(rename = "vision")]
    Vision,
    /// `user_data`.
    #[serde(rename = "user_data")]
    UserData,
    /// `evals`.
    #[serde(rename = "evals")]
    Evals,
}

/// An uploaded file's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// `file-…`.
    pub id: String,
    /// Its size.
    pub bytes: u64,
    /// Unix seconds.
    pub created_at: i64,
    /// The name it was uploaded with.
    pub filename: String,
    /// What for.
    pub purpose: Purpose,
}

impl FileRecord {
    /// OpenAI's `file` object.
    fn to_json(&self) -> Value {
        json!({
            "id": self.id, "object": "file", "bytes": self.bytes,
            "created_at": self.created_at, "expires_at": null,
            "filename": self.filename, "purpose": self.purpose,
            "status": "processed", "status_details": null,
        })
    }
}

/// The two things kept of an upload.
#[derive(Clone, Copy)]
enum Part {
    /// Its record.
    Meta,
    /// Its bytes.
    Content,
}

/// Where uploads are kept.
pub enum FileStore {
    /// `api-files/` in the data folder: `ID.json` and `ID.bin`.
    Disk(PathBuf),
    /// Redis: the hash `baton:file:ID` (`meta`, `content`) and the sorted
    /// set `baton:files` (by upload time).
    Redis {
        /// The connection.
        conn: redis::aio::ConnectionManager,
        /// Where, for messages.
        url: String,
    },
}

fn not_found(id: &str) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: Some("not_found"),
        ..ApiError::invalid(format!("No such File object: {id}"), Some("file_id"))
    }
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

impl FileStore {
    /// Beside the sessions: on their Redis, else in `data_dir/api-files`.
    pub fn beside(sessions: &crate::Sessions, data_dir: &std::path::Path) -> Self {
        match &sessions.redis {
            Some(link) => FileStore::Redis {
                conn: link.conn.clone(),
                url: link.url.clone(),
            },
            None => FileStore::Disk(data_dir.join("api-files")),
        }
    }

    async fn put(&self, record: &FileRecord, content: &[u8]) -> Result<(), ApiError> {
        let meta = serde_json::to_string(record).expect("a file record serializes");
        match self {
            FileStore::Disk(dir) => {
                let write = |name: String, bytes: &[u8]| {
                    baton_stdx::atomic_write_private(&dir.join(name), bytes)
                        .map_err(|e| disk_error(&e))
                };
                write(format!("{}.bin", record.id), content)?;
                write(format!("{}.json", record.id), meta.as_bytes())
            }
            FileStore::Redis { conn, url } => redis::pipe()
                .atomic()
                .hset_multiple(
                    format!("baton:file:{}", record.id),
                    &[("meta", meta.as_bytes()), ("content", content)],
                )
                .zadd("baton:files", &record.id, record.created_at)
                .query_async::<()>(&mut conn.clone())
                .await
                .map_err(|e| redis_error(url, &e)),
        }
    }

    /// One stored part of `id`: its record (`meta`, `ID.json` on disk) or
    /// its bytes (`content`, `ID.bin`).
    async fn part(&self, id: &str, part: Part) -> Result<Vec<u8>, ApiError> {
        let id = checked(id)?;
        let (field, ext) = match part {
            Part::Meta => ("meta", "json"),
            Part::Content => ("content", "bin"),
        };
        let found: Option<Vec<u8>> = match self {
            FileStore::Disk(dir) => tokio::fs::read(dir.join(format!("{id}.{ext}"))).await.ok(),
            FileStore::Redis { conn, url } => redis::cmd("HGET")
                .arg(format!("baton:file:{id}"))
                .arg(field)
                .query_async(&mut conn.clone())
                .await
                .map_err(|e| redis_error(url, &e))?,
        };
        found.ok_or_else(|| not_found(id))
    }

    /// The record of `id`.
    pub(crate) async fn get(&self, id: &str) -> Result<FileRecord, ApiError> {
        let meta = self.part(id, Part::Meta).await?;
        serde_json::from_slice(&meta).map_err(|e| {
            ApiError::server(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the record of {id} is damaged: {e}"),
            )
        })
    }

    /// The bytes of `id`.
    pub(crate) async fn content(&self, id: &str) -> Result<Vec<u8>, ApiError> {
        self.part(id, Part::Content).await
    }

    /// Every record, newest first.
    async fn all(&self) -> Result<Vec<FileRecord>, ApiError> {
        let mut records = Vec::new();
        match self {
            FileStore::Disk(dir) => {
                let Ok(mut entries) = tokio::fs::read_dir(dir).await else {
                    return Ok(records);
                };
                while let Ok(Some(e)) = entries.next_entry().await {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if let Some(id) = name.strip_suffix(".json")
                        && let Ok(r) = self.get(id).await
                    {
                        records.push(r);
                    }
                }
            }
            FileStore::Redis { conn, url } => {
                let ids: Vec<String> = redis::cmd("ZRANGE")
                    .arg("baton:files")
                    .arg(0)
                    .arg(-1)
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))?;
                for id in ids {
                    if let Ok(r) = self.get(&id).await {
                        records.push(r);
                    }
                }
            }
        }
        records.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(records)
    }

    async fn delete(&self, id: &str) -> Result<bool, ApiError> {
        let id = checked(id)?;
        match self {
            FileStore::Disk(dir) => {
                let gone = tokio::fs::remove_file(dir.join(format!("{id}.json")))
                    .await
                    .is_ok();
                let _ = tokio::fs::remove_file(dir.join(format!("{id}.bin"))).await;
                Ok(gone)
            }
            FileStore::Redis { conn, url } => {
                let (removed, _): (u32, u32) = redis::pipe()
                    .atomic()
                    .del(format!("baton:file:{id}"))
                    .zrem("baton:files", id)
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| redis_error(url, &e))?;
                Ok(removed > 0)
            }
        }
    }
}

/// The multipart upload's fields.
async fn read_upload(
    mut form: Multipart,
    limit: usize,
) -> Result<(String, Vec<u8>, Purpose), ApiError> {
    let bad = |e: axum::extract::multipart::MultipartError| ApiError {
        status: e.status(),
        ..ApiError::invalid(
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                format!(
                    "the file is larger than this server takes ({} MB)",
                    limit >> 20
                )
            } else {
                format!("the upload could not be read: {}", e.body_text())
            },
            Some("file"),
        )
    };
    let (mut file, mut purpose) = (None, None);
    while let Some(field) = form.next_field().await.map_err(bad)? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or("upload").to_string();
                file = Some((name, field.bytes().await.map_err(bad)?.to_vec()));
            }
            Some("purpose") => {
                let text = field.text().await.map_err(bad)?;
                purpose = Some(
                    serde_json::from_value::<Purpose>(Value::String(text.clone())).map_err(
                        |_| ApiError::invalid(format!("`{text}` is not a purpose: assistants, batch, fine-tune, vision, user_data or evals"), Some("purpose")),
                    )?,
                );
            }
            _ => {}
        }
    }
    let (name, bytes) =
        file.ok_or_else(|| ApiError::invalid("the upload has no `file` field", Some("file")))?;
    let purpose =
        purpose.ok_or_else(|| ApiError::invalid("`purpose` is required", Some("purpose")))?;
    Ok((name, bytes, purpose))
}

/// `POST /v1/files`.
pub(crate) async fn upload(
    State(app): State<Arc<App>>,
    form: Result<Multipart, MultipartRejection>,
) -> Result<Json<Value>, ApiError> {
    let form = form.map_err(|e| ApiError::invalid(e.body_text(), Some("file")))?;
    let (filename, bytes, purpose) = read_upload(form, app.limits.max_file_bytes).await?;
    let record = FileRecord {
        id: format!("file-{}", uuid::Uuid::new_v4().simple()),
        bytes: bytes.len() as u64,
        created_at: chrono::Utc::now().timestamp(),
        filename,
        purpose,
    };
    app.files.put(&record, &bytes).await?;
    tracing::info!(id = %record.id, bytes = record.bytes, "file uploaded");
    Ok(Json(record.to_json()))
}

/// `GET /v1/files` query.
#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    purpose: Option<Purpose>,
    limit: Option<usize>,
    order: Option<String>,
    after: Option<String>,
}

/// `GET /v1/files`: newest first (`order=asc` oldest first), `limit`
/// (1–10,000) after the cursor `after`, only `purpose` if given.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::invalid(e.body_text(), None))?;
    let mut all = app.files.all().await?;
    if q.order.as_deref() == Some("asc") {
        all.reverse();
    }
    all.retain(|r| q.purpose.is_none_or(|p| r.purpose == p));
    if let Some(after) = &q.after {
        let at = all.iter().position(|r| &r.id == after).map_or(0, |i| i + 1);
        all.drain(..at);
    }
    let limit = q.limit.unwrap_or(10_000).clamp(1, 10_000);
    let has_more = all.len() > limit;
    all.truncate(limit);
    let data: Vec<Value> = all.iter().map(FileRecord::to_json).collect();
    Ok(Json(json!({
        "object": "list", "data": data, "has_more": has_more,
        "first_id": all.first().map(|r| &r.id), "last_id": all.last().map(|r| &r.id),
    })))
}

/// `GET /v1/files/{id}`.
pub(crate) async fn retrieve(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.files.get(&id).await?.to_json()))
}

/// `GET /v1/files/{id}/content`: the bytes as uploaded.
pub(crate) async fn content(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let record = app.files.get(&id).await?;
    let bytes = app.files.content(&id).await?;
    let mut res = Body::from(bytes).into_response();
    let headers = res.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    let ascii: String = record
        .filename
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{ascii}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(res)
}

/// `DELETE /v1/files/{id}`.
pub(crate) async fn delete(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if !app.files.delete(&id).await? {
        return Err(not_found(&id));
    }
    tracing::info!(id = %id, "file deleted");
    Ok(Json(json!({"id": id, "object": "file", "deleted": true})))
}
