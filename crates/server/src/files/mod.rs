//! OpenAI's Files API: `POST /v1/files` (multipart: `file`, `purpose`,
//! optionally `expires_after[anchor]=created_at` and
//! `expires_after[seconds]`), `GET /v1/files`, `GET /v1/files/{id}`,
//! `GET /v1/files/{id}/content`, `DELETE /v1/files/{id}`, in OpenAI's
//! shapes. A chat message refers to an uploaded file with a
//! `{"type": "file", "file": {"file_id": …}}` part and the engine converts
//! it like a dropped attachment.
//!
//! Each caller (API key) sees only its own files. An upload is streamed to
//! disk as it arrives (never held whole in memory), takes a place among
//! the requests running at once, counts against the caller's quota and
//! expires (after [`Limits::file_days`](crate::Limits) days unless it asks
//! for less). Files are kept in the data folder, or on Redis when the
//! sessions are, so every server behind a load balancer has them.

mod store;

use std::sync::Arc;

use axum::Json;
use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

pub use store::FileStore;
use store::Spooled;

use crate::{ApiError, App, Caller};

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
    /// When it is removed (Unix seconds).
    #[serde(default)]
    pub expires_at: Option<i64>,
    /// The name it was uploaded with.
    pub filename: String,
    /// What for.
    pub purpose: Purpose,
    /// The caller it belongs to ([`Caller::owner`]).
    #[serde(default)]
    pub owner: String,
}

impl FileRecord {
    /// OpenAI's `file` object.
    fn to_json(&self) -> Value {
        json!({
            "id": self.id, "object": "file", "bytes": self.bytes,
            "created_at": self.created_at, "expires_at": self.expires_at,
            "filename": self.filename, "purpose": self.purpose,
            "status": "processed", "status_details": null,
        })
    }
}

pub(crate) fn not_found(id: &str) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        code: Some("not_found"),
        ..ApiError::invalid(format!("No such File object: {id}"), Some("file_id"))
    }
}

/// What an upload asked for besides its bytes.
struct UploadForm {
    filename: String,
    purpose: Purpose,
    /// `expires_after[seconds]`.
    expires_after: Option<i64>,
    upload: Spooled,
}

/// How much one upload may take: the largest file and what is left of the
/// caller's quota, whichever is less.
#[derive(Clone, Copy)]
struct Room {
    file: u64,
    quota_left: u64,
    quota: u64,
}

impl Room {
    fn most(self) -> u64 {
        self.file.min(self.quota_left)
    }

    /// 413: the upload is past what it may take.
    fn refusal(self) -> ApiError {
        let mb = |b: u64| b as f64 / f64::from(1u32 << 20);
        let message = if self.quota_left < self.file {
            format!(
                "this API key's files take {:.1} MB of its {:.1} MB: delete some (DELETE /v1/files/ID) or wait for them to expire",
                mb(self.quota - self.quota_left),
                mb(self.quota)
            )
        } else {
            format!(
                "the file is larger than this server takes ({} MB)",
                self.file >> 20
            )
        };
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: Some(if self.quota_left < self.file {
                "quota_exceeded"
            } else {
                "file_too_large"
            }),
            ..ApiError::invalid(message, Some("file"))
        }
    }
}

fn bad_form(e: axum::extract::multipart::MultipartError) -> ApiError {
    ApiError {
        status: e.status(),
        ..ApiError::invalid(
            format!("the upload could not be read: {}", e.body_text()),
            Some("file"),
        )
    }
}

/// Writes the `file` field to a temporary file in `dir` as it arrives,
/// refusing it once it is past `room`.
async fn spool(
    mut field: Field<'_>,
    dir: &std::path::Path,
    room: Room,
) -> Result<Spooled, ApiError> {
    let io = |e: std::io::Error| {
        ApiError::server(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the upload could not be kept: {e}"),
        )
    };
    tokio::fs::create_dir_all(dir).await.map_err(io)?;
    let dir = dir.to_path_buf();
    let file = tokio::task::spawn_blocking(move || {
        tempfile::Builder::new().prefix(".upload-").tempfile_in(dir)
    })
    .await
    .map_err(|e| io(std::io::Error::other(e)))?
    .map_err(io)?;
    let mut out = tokio::fs::File::from_std(file.reopen().map_err(io)?);
    let mut bytes = 0u64;
    while let Some(chunk) = field.chunk().await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            room.refusal()
        } else {
            bad_form(e)
        }
    })? {
        bytes += chunk.len() as u64;
        if bytes > room.most() {
            return Err(room.refusal());
        }
        out.write_all(&chunk).await.map_err(io)?;
    }
    out.flush().await.map_err(io)?;
    Ok(Spooled { file, bytes })
}

/// The multipart upload's fields, the file spooled to `dir`.
async fn read_upload(
    mut form: Multipart,
    dir: &std::path::Path,
    room: Room,
) -> Result<UploadForm, ApiError> {
    let (mut file, mut purpose, mut expires_after) = (None, None, None);
    while let Some(field) = form.next_field().await.map_err(bad_form)? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or("upload").to_string();
                file = Some((name, spool(field, dir, room).await?));
            }
            Some("purpose") => {
                let text = field.text().await.map_err(bad_form)?;
                purpose = Some(
                    serde_json::from_value::<Purpose>(Value::String(text.clone())).map_err(
                        |_| ApiError::invalid(format!("`{text}` is not a purpose: assistants, batch, fine-tune, vision, user_data or evals"), Some("purpose")),
                    )?,
                );
            }
            Some("expires_after[anchor]") => {
                let text = field.text().await.map_err(bad_form)?;
                if text != "created_at" {
                    return Err(ApiError::invalid(
                        format!("`expires_after[anchor]` is `created_at`, not `{text}`"),
                        Some("expires_after"),
                    ));
                }
            }
            Some("expires_after[seconds]") => {
                let text = field.text().await.map_err(bad_form)?;
                let seconds = text
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|s| (3600..=2_592_000).contains(s));
                expires_after = Some(seconds.ok_or_else(|| {
                    ApiError::invalid(
                        format!("`expires_after[seconds]` is 3600 to 2592000 (an hour to 30 days), not `{text}`"),
                        Some("expires_after"),
                    )
                })?);
            }
            _ => {}
        }
    }
    let (filename, upload) =
        file.ok_or_else(|| ApiError::invalid("the upload has no `file` field", Some("file")))?;
    let purpose =
        purpose.ok_or_else(|| ApiError::invalid("`purpose` is required", Some("purpose")))?;
    Ok(UploadForm {
        filename,
        purpose,
        expires_after,
        upload,
    })
}

/// `POST /v1/files`: the file streamed to disk, within the caller's quota,
/// taking a place among the requests running at once.
pub(crate) async fn upload(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    form: Result<Multipart, MultipartRejection>,
) -> Result<Response, ApiError> {
    let _place = match app.gate.enter() {
        Ok(p) => p,
        Err(too_many) => return Ok(too_many.into_response()),
    };
    let form = form.map_err(|e| ApiError::invalid(e.body_text(), Some("file")))?;
    let used: u64 = app.files.all(&caller).await?.iter().map(|r| r.bytes).sum();
    let quota = app.limits.file_quota_bytes;
    let room = Room {
        file: app.limits.max_file_bytes as u64,
        quota_left: quota.saturating_sub(used),
        quota,
    };
    let form = read_upload(form, &app.files.spool_dir(&caller), room).await?;
    let created_at = chrono::Utc::now().timestamp();
    let longest = i64::from(app.limits.file_days.max(1)) * 86_400;
    let record = FileRecord {
        id: format!("file-{}", uuid::Uuid::new_v4().simple()),
        bytes: form.upload.bytes,
        created_at,
        expires_at: Some(created_at + form.expires_after.unwrap_or(longest).min(longest)),
        filename: form.filename,
        purpose: form.purpose,
        owner: caller.owner.clone(),
    };
    app.files.put(&record, form.upload).await?;
    tracing::info!(id = %record.id, bytes = record.bytes, key = %caller.name, "file uploaded");
    Ok(Json(record.to_json()).into_response())
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
    Extension(caller): Extension<Caller>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::invalid(e.body_text(), None))?;
    let mut all = app.files.all(&caller).await?;
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
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.files.get(&caller, &id).await?.to_json()))
}

/// `GET /v1/files/{id}/content`: the bytes as uploaded.
pub(crate) async fn content(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let record = app.files.get(&caller, &id).await?;
    let mut res = app.files.body(&record).await?.into_response();
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
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if !app.files.delete(&caller, &id).await? {
        return Err(not_found(&id));
    }
    tracing::info!(id = %id, "file deleted");
    Ok(Json(json!({"id": id, "object": "file", "deleted": true})))
}
