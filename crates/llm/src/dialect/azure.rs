//! Azure OpenAI and Azure AI Foundry: the OpenAI chat-completions body and
//! stream (see [`super::openai`]), sent with an `api-key` header to an
//! Azure URL carrying an `api-version` query:
//!
//! - resource endpoint `https://NAME.openai.azure.com` →
//!   `{endpoint}/openai/deployments/{model}/chat/completions?api-version=…`
//!   (the entry's `model` is the deployment name);
//! - deployment endpoint (already holding `/openai/deployments/`) → used as
//!   given, `/chat/completions` added when missing;
//! - models endpoint (`https://NAME.services.ai.azure.com/models`, any path
//!   ending in `/models`) → `{endpoint}/chat/completions?api-version=…`,
//!   the model named in the body.

use super::{WireRequest, model, openai};
use crate::cache::Prepared;
use crate::config::{AZURE_FOUNDRY_API_VERSION, AZURE_OPENAI_API_VERSION, ProviderConfig};
use crate::request::ChatRequest;

pub(crate) fn build(
    cfg: &ProviderConfig,
    prepared: &Prepared,
    req: &ChatRequest,
    key: Option<&str>,
) -> WireRequest {
    let mut wire = openai::build(cfg, prepared, req, None);
    wire.url = url(
        cfg.endpoint.as_deref().unwrap_or(""),
        model(cfg, req),
        cfg.api_version.as_deref(),
    );
    if let Some(k) = key {
        wire.headers.push(("api-key".into(), k.to_string()));
    }
    wire
}

/// The chat-completions URL for `endpoint`, deployment `model` and
/// `api_version` (the form's default when `None`). An `api-version`
/// already in the endpoint's query is kept.
pub(crate) fn url(endpoint: &str, model: &str, api_version: Option<&str>) -> String {
    let (base, query) = match endpoint.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (endpoint, None),
    };
    let base = base.trim_end_matches('/');
    let (path, default_version) = if base.contains("/openai/deployments/") {
        (with_suffix(base), AZURE_OPENAI_API_VERSION)
    } else if is_models_endpoint(base) {
        (with_suffix(base), AZURE_FOUNDRY_API_VERSION)
    } else {
        let resource = base.strip_suffix("/openai").unwrap_or(base);
        (
            format!("{resource}/openai/deployments/{model}/chat/completions"),
            AZURE_OPENAI_API_VERSION,
        )
    };
    let mut params: Vec<String> = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    if !params.iter().any(|p| p.starts_with("api-version=")) {
        params.push(format!(
            "api-version={}",
            api_version.unwrap_or(default_version)
        ));
    }
    format!("{path}?{}", params.join("&"))
}

/// `base` ending in `/chat/completions`.
fn with_suffix(base: &str) -> String {
    if base.ends_with("/chat/completions") {
        base.to_string()
    } else {
        format!("{base}/chat/completions")
    }
}

/// Whether `base` (no query, no trailing slash) is an Azure AI Foundry
/// models endpoint: its path ends in `/models` (or `/models/chat/completions`).
fn is_models_endpoint(base: &str) -> bool {
    let path = base
        .split_once("://")
        .map_or(base, |(_, rest)| rest)
        .split_once('/')
        .map_or("", |(_, path)| path);
    let path = path.strip_suffix("/chat/completions").unwrap_or(path);
    path == "models" || path.ends_with("/models")
}

#[cfg(test)]
mod tests {
    use super::url;

    #[test]
    fn resource_endpoint_names_the_deployment() {
        assert_eq!(
            url("https://r.openai.azure.com/", "gpt-4o", None),
            "https://r.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
        );
        assert_eq!(
            url(
                "https://r.openai.azure.com/openai",
                "d",
                Some("2025-01-01-preview")
            ),
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2025-01-01-preview"
        );
    }

    #[test]
    fn models_endpoint_keeps_the_model_in_the_body() {
        assert_eq!(
            url("https://f.services.ai.azure.com/models", "m", None),
            "https://f.services.ai.azure.com/models/chat/completions?api-version=2024-05-01-preview"
        );
        assert_eq!(
            url(
                "https://f.services.ai.azure.com/models/chat/completions",
                "m",
                Some("v")
            ),
            "https://f.services.ai.azure.com/models/chat/completions?api-version=v"
        );
    }

    #[test]
    fn deployment_endpoint_is_used_as_given() {
        assert_eq!(
            url(
                "https://r.openai.azure.com/openai/deployments/d1",
                "other",
                None
            ),
            "https://r.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-10-21"
        );
        assert_eq!(
            url(
                "https://r.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-02-01",
                "other",
                Some("ignored")
            ),
            "https://r.openai.azure.com/openai/deployments/d1/chat/completions?api-version=2024-02-01"
        );
    }
}
