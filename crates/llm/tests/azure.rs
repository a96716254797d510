//! The `azure` dialect against the scripted server: both URL forms
//! (Azure OpenAI deployments, Azure AI Foundry models), the `api-key`
//! header, the `api-version` query, and the errors without a key.

use std::time::Duration;

use baton_llm::{
    ChatRequest, Dialect, HttpProvider, LlmError, LlmEvent, Message, Provider, ProviderConfig,
    ProvidersFile, RetryPolicy,
};
use baton_scripted_llm::{Reply, ScriptedServer};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn azure_cfg(endpoint: String, extra: Value) -> ProviderConfig {
    let mut v = json!({"name": "my-azure", "dialect": "azure", "endpoint": endpoint,
        "model": "gpt-4o-deploy", "contextWindow": 128000});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

fn provider(cfg: ProviderConfig, key: Option<&str>) -> HttpProvider {
    HttpProvider::new(cfg, key.map(str::to_string))
        .unwrap()
        .with_retry(RetryPolicy {
            max_retries: 0,
            min_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(10),
            max_retry_after: Duration::from_secs(1),
        })
}

/// Streams one reply; the text deltas and the whole text.
async fn stream_text(p: &HttpProvider) -> Result<(usize, String), LlmError> {
    let req = ChatRequest::new(vec![Message::system("Be brief."), Message::user("Hi")]);
    let mut s = p.stream(req, CancellationToken::new()).await?;
    let (mut deltas, mut text) = (0, String::new());
    while let Some(ev) = s.next().await {
        if let LlmEvent::TextDelta(t) = ev? {
            deltas += 1;
            text.push_str(&t);
        }
    }
    Ok((deltas, text))
}

#[tokio::test]
async fn azure_openai_deployment_streams_with_api_key_and_version() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Hello from Azure!").chunked(9));
    let p = provider(azure_cfg(server.url(), json!({})), Some("az-key"));
    let (deltas, text) = stream_text(&p).await.unwrap();
    assert_eq!(text, "Hello from Azure!");
    assert!(deltas >= 3, "the reply must stream, got {deltas} deltas");
    let r = &server.requests()[0];
    assert_eq!(r.path, "/openai/deployments/gpt-4o-deploy/chat/completions");
    assert_eq!(r.query.as_deref(), Some("api-version=2024-10-21"));
    assert_eq!(r.header("api-key"), Some("az-key"));
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Hi"})
    );
}

#[tokio::test]
async fn azure_foundry_models_endpoint_names_the_model_in_the_body() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Foundry says hi"));
    let cfg = azure_cfg(
        format!("{}/models", server.url()),
        json!({"model": "Phi-4", "apiVersion": "2024-05-01-preview"}),
    );
    let (_, text) = stream_text(&provider(cfg, Some("f-key"))).await.unwrap();
    assert_eq!(text, "Foundry says hi");
    let r = &server.requests()[0];
    assert_eq!(r.path, "/models/chat/completions");
    assert_eq!(r.query.as_deref(), Some("api-version=2024-05-01-preview"));
    assert_eq!(r.header("api-key"), Some("f-key"));
    assert_eq!(r.json()["model"], "Phi-4");
}

#[tokio::test]
async fn azure_deployment_endpoint_is_used_as_given_with_its_version() {
    let server = ScriptedServer::start().await.unwrap();
    let cfg = azure_cfg(
        format!("{}/openai/deployments/d7/", server.url()),
        json!({"apiVersion": "2025-01-01-preview"}),
    );
    let (_, text) = stream_text(&provider(cfg, Some("k"))).await.unwrap();
    assert_eq!(text, "echo: Hi");
    let r = &server.requests()[0];
    assert_eq!(r.path, "/openai/deployments/d7/chat/completions");
    assert_eq!(r.query.as_deref(), Some("api-version=2025-01-01-preview"));
}

#[tokio::test]
async fn azure_without_a_key_is_refused_in_azures_words() {
    let server = ScriptedServer::start().await.unwrap();
    let p = provider(azure_cfg(server.url(), json!({})), None);
    let err = stream_text(&p).await.unwrap_err();
    assert!(matches!(err, LlmError::Auth { status: 401, .. }), "{err:?}");
    assert!(err.to_string().contains("Access denied"), "{err}");
    assert_eq!(server.requests()[0].header("api-key"), None);
}

/// An `azure` entry always needs a key, even without `apiKeyEnv`: building
/// it without one names the entry's variable.
#[tokio::test]
async fn azure_entry_without_a_key_is_a_missing_key_error() {
    let secrets = baton_config::Secrets::without_keychain("no D-Bus session");
    let cfg = azure_cfg(
        "http://127.0.0.1:9".into(),
        json!({"name": "baton-test-unset-azure"}),
    );
    assert!(cfg.needs_key());
    let err = match baton_llm::build_provider(&cfg, &secrets) {
        Ok(_) => panic!("an azure entry was built without a key"),
        Err(e) => e,
    };
    assert!(matches!(err, LlmError::MissingKey { .. }), "{err:?}");
    assert!(
        err.to_string().contains("BATON_TEST_UNSET_AZURE_API_KEY"),
        "{err}"
    );
}

#[test]
fn azure_entry_without_endpoint_is_refused_naming_the_entry() {
    let e = ProvidersFile::parse(
        r#"{"default":"az","providers":[{"name":"az","dialect":"azure","model":"d"}]}"#,
        "providers.json",
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("entry `az`") && e.contains("endpoint") && e.contains("openai.azure.com"),
        "{e}"
    );
    let cfg: ProviderConfig =
        serde_json::from_value(json!({"name": "az", "dialect": "azure", "model": "d"})).unwrap();
    let e = HttpProvider::new(cfg, Some("k".into()))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("`az`") && e.contains("endpoint"), "{e}");
}

#[test]
fn seed_type_azure_openai_parses_to_the_azure_dialect_with_a_notice() {
    let text = r#"{"default": "corp", "providers": [{"name": "corp", "Type": "AzureOpenAI",
        "Endpoint": "https://corp.openai.azure.com", "ModelName": "gpt-4o",
        "CacheType": "PrefixCache", "AgentInteractionMode": "API"}]}"#;
    let (file, notices) = ProvidersFile::parse_with_notices(text, "providers.json", true).unwrap();
    let corp = file.require("corp").unwrap();
    assert_eq!(corp.dialect, Dialect::Azure);
    assert_eq!(corp.model.as_deref(), Some("gpt-4o"));
    assert_eq!(corp.api_version, None);
    assert!(
        notices.contains(
            &"providers.json: entry `corp`: `Type` is the original system's name for `dialect`; read as `dialect`"
                .to_string()
        ),
        "{notices:?}"
    );
    assert_eq!(notices.len(), 5, "{notices:?}");
}
