//! Tools from MCP servers, through the official `rmcp` SDK.
//!
//! The servers of `mcp.json` ([`config`]) are started on first use (a
//! child process over stdio, or a streamable HTTP connection), their tools
//! listed and offered as one Baton [`Toolbox`] per server, filtered by
//! `includeTools`/`excludeTools`. A call that outlasts the timeout fails
//! as a result the model sees; a server that crashed is started again on
//! the next use (after a pause when it keeps failing), and nothing else in
//! Baton notices.

pub mod config;
mod hub;
pub mod plugins;
pub mod server;
mod trust;

use std::collections::HashMap;
use std::sync::Arc;

use baton_tools::{Effect, MethodSpec, ParamSpec, ToolContext, ToolError, Toolbox, ToolboxSpec};
use futures::future::BoxFuture;
use rmcp::ServiceExt;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;

pub use config::{MCP_FILE, McpConfigError, ServerDef, Source};
use hub::Connection;
pub use hub::{McpHub, PromptArg, PromptInfo, ServerState, ServerStatus};
pub use trust::{TRUST_FILE, Trust};

/// Starts `def` and lists its tools.
async fn start_server(name: &str, def: &ServerDef) -> Result<Connection, String> {
    let service = if let Some(command) = &def.command {
        let cmd = tokio::process::Command::new(command).configure(|c| {
            c.args(&def.args).envs(&def.env);
            if let Source::Plugin { dir } = &def.source {
                c.current_dir(dir);
            }
        });
        let transport =
            TokioChildProcess::new(cmd).map_err(|e| format!("cannot run `{command}`: {e}"))?;
        ().serve(transport).await
    } else {
        // reqwest's TLS needs a process-wide provider (ring, as everywhere
        // in Baton); installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let url = def.url.clone().unwrap_or_default();
        ().serve(StreamableHttpClientTransport::from_config(http_config(
            &url, def,
        )?))
        .await
    }
    .map_err(|e| format!("did not start: {e}"))?;
    let tools = service
        .list_all_tools()
        .await
        .map_err(|e| format!("did not list its tools: {e}"))?;
    tracing::info!(server = %name, tools = tools.len(), "MCP server started");
    Ok(Connection { service, tools })
}

/// The HTTP transport's settings: the address and the headers.
fn http_config(
    url: &str,
    def: &ServerDef,
) -> Result<rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig, String> {
    let mut headers = HashMap::new();
    let mut config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url);
    for (k, v) in &def.headers {
        if k.eq_ignore_ascii_case("authorization") {
            let token = v.strip_prefix("Bearer ").unwrap_or(v);
            config = config.auth_header(token.to_string());
            continue;
        }
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("the header name `{k}` is not valid"))?;
        let value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|_| format!("the value of header `{k}` is not valid"))?;
        headers.insert(name, value);
    }
    Ok(config.custom_headers(headers))
}

/// A tool result as the model sees it: the text parts (pictures named),
/// or the structured content; a tool's own error as a failure.
pub(crate) fn result_value(
    server: &str,
    tool: &str,
    r: CallToolResult,
) -> Result<Value, ToolError> {
    let mut parts = Vec::new();
    for c in &r.content {
        match c {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(i) => parts.push(format!("[an image, {}]", i.mime_type)),
            _ => parts.push("[content Baton does not show]".into()),
        }
    }
    let text = parts.join("\n");
    if r.is_error.unwrap_or(false) {
        return Err(ToolError::Failed(format!(
            "`{tool}` of the MCP server `{server}` failed: {text}"
        )));
    }
    Ok(match (text.is_empty(), r.structured_content) {
        (true, Some(v)) => v,
        _ => Value::String(text),
    })
}

/// One MCP server's tools as a Baton toolbox.
pub struct McpToolbox {
    server: String,
    spec: ToolboxSpec,
    hub: Arc<McpHub>,
}

impl McpToolbox {
    /// The tools `def` offers; their annotations count only when the user
    /// `trusted` the server (otherwise every tool asks before it runs).
    fn new(
        server: &str,
        def: &ServerDef,
        tools: &[Tool],
        hub: &Arc<McpHub>,
        trusted: bool,
    ) -> Self {
        let methods = tools
            .iter()
            .filter(|t| is_offered(def, t))
            .map(|t| method_spec(t, trusted))
            .collect();
        let summary = match &def.description {
            Some(d) if !d.trim().is_empty() => d.trim().to_string(),
            _ => format!("Tools of the MCP server `{server}`."),
        };
        Self {
            server: server.to_string(),
            spec: ToolboxSpec {
                name: server.to_string(),
                summary,
                methods,
            },
            hub: Arc::clone(hub),
        }
    }
}

/// Whether `def`'s `includeTools`/`excludeTools` let `tool` through.
pub(crate) fn is_offered(def: &ServerDef, tool: &Tool) -> bool {
    let named = |list: &[String]| list.iter().any(|n| n == tool.name.as_ref());
    def.include_tools.as_deref().is_none_or(named) && !named(&def.exclude_tools)
}

/// The names of the tools of `tools` that `def` offers.
pub(crate) fn offered(def: &ServerDef, tools: &[Tool]) -> Vec<String> {
    let offered = tools.iter().filter(|t| is_offered(def, t));
    offered.map(|t| t.name.to_string()).collect()
}

/// A tool's spec from its MCP description: the schema as given, the
/// parameters from its properties, the effect from its annotations when
/// the server is `trusted` (a server's word about itself counts only then).
fn method_spec(t: &Tool, trusted: bool) -> MethodSpec {
    let schema = Value::Object((*t.input_schema).clone());
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params = schema["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .map(|(name, s)| ParamSpec {
                    name: name.clone(),
                    description: s["description"].as_str().unwrap_or("").to_string(),
                    required: required.contains(&name.as_str()),
                    schema: s.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let hints = t.annotations.as_ref().filter(|_| trusted);
    let effect = match hints {
        Some(a) if a.read_only_hint == Some(true) => Effect::Read,
        Some(a) if a.open_world_hint == Some(false) => Effect::Write,
        // MCP's default: a tool may change things and reach the world.
        _ => Effect::External,
    };
    MethodSpec {
        name: t.name.to_string(),
        description: t.description.as_deref().unwrap_or("").to_string(),
        params,
        schema,
        effect,
        blocking: false,
    }
}

impl Toolbox for McpToolbox {
    fn spec(&self) -> &ToolboxSpec {
        &self.spec
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async move { self.hub.call(&self.server, method, args, &ctx).await })
    }
}
