//! Errors in OpenAI's shape (`{"error": {"message", "type", "param",
//! "code"}}`) with the status codes OpenAI's clients expect.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered to the client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// One plain sentence.
    pub message: String,
    /// OpenAI's error type (`invalid_request_error`, …).
    pub kind: &'static str,
    /// The request field at fault.
    pub param: Option<&'static str>,
    /// A stable code (`model_not_found`, …).
    pub code: Option<&'static str>,
}

impl ApiError {
    /// 400: the request is wrong.
    pub fn invalid(message: impl Into<String>, param: Option<&'static str>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
            kind: "invalid_request_error",
            param,
            code: None,
        }
    }

    /// 404: no agent or provider entry by that name.
    pub fn model_not_found(model: &str, known: &[String]) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "The model `{model}` does not exist: models are Baton's agents and `provider/NAME` entries ({})",
                known.join(", ")
            ),
            kind: "invalid_request_error",
            param: Some("model"),
            code: Some("model_not_found"),
        }
    }

    /// 500 or 503: Baton could not answer.
    pub fn server(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            kind: "server_error",
            param: None,
            code: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {
            "message": self.message,
            "type": self.kind,
            "param": self.param,
            "code": self.code,
        }});
        (self.status, Json(body)).into_response()
    }
}
