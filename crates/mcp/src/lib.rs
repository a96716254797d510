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

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_tools::{Effect, MethodSpec, ParamSpec, ToolContext, ToolError, Toolbox, ToolboxSpec};
use futures::future::BoxFuture;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::Value;
use tokio::sync::Mutex;

pub use config::{MCP_FILE, McpConfigError, ServerDef};

/// How long a server may take to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// After a failed start, the pause before the next try.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// A running server: its connection and its tools.
struct Connection {
    service: RunningService<RoleClient, ()>,
    tools: Vec<Tool>,
}

/// The servers of `mcp.json` and their connections.
pub struct McpHub {
    servers: BTreeMap<String, ServerDef>,
    running: Mutex<HashMap<String, Connection>>,
    failed: std::sync::Mutex<HashMap<String, (Instant, String)>>,
    /// The toolboxes of the servers started by [`McpHub::start`].
    started: std::sync::RwLock<Vec<Arc<dyn Toolbox>>>,
    call_timeout: Duration,
}

impl McpHub {
    /// The enabled servers of `servers`; calls fail after `call_timeout`.
    pub fn new(servers: BTreeMap<String, ServerDef>, call_timeout: Duration) -> Self {
        Self {
            servers: servers
                .into_iter()
                .filter(|(_, d)| d.is_enabled())
                .collect(),
            running: Mutex::default(),
            failed: std::sync::Mutex::default(),
            started: std::sync::RwLock::default(),
            call_timeout,
        }
    }

    /// The enabled servers' names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// The toolboxes of the servers [`McpHub::start`] started.
    pub fn started(&self) -> Vec<Arc<dyn Toolbox>> {
        self.started
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Starts every server not running yet (in parallel) and returns one
    /// toolbox per running server. This runs before every turn, so it is
    /// quick when nothing is new: a server that could not start is not
    /// tried again here (it is left out, with a warning and its reason in
    /// [`McpHub::problems`], until the settings are reloaded).
    pub async fn start(self: &Arc<Self>) -> Vec<Arc<dyn Toolbox>> {
        let new: Vec<&String> = {
            let running = self.running.lock().await;
            let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            self.servers
                .keys()
                .filter(|n| !running.contains_key(*n) && !failed.contains_key(*n))
                .collect()
        };
        if new.is_empty() {
            return self.started();
        }
        let starts = new.into_iter().map(|name| async move {
            if let Err(e) = self.peer(name).await {
                tracing::warn!(server = %name, "MCP server left out: {e}");
            }
        });
        futures::future::join_all(starts).await;
        let running = self.running.lock().await;
        let mut out: Vec<Arc<dyn Toolbox>> = Vec::new();
        for (name, conn) in running.iter() {
            out.push(Arc::new(McpToolbox::new(
                name,
                &self.servers[name],
                &conn.tools,
                self,
            )));
        }
        *self.started.write().unwrap_or_else(|e| e.into_inner()) = out.clone();
        out
    }

    /// Servers that could not be started, with why.
    pub fn problems(&self) -> Vec<(String, String)> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed
            .iter()
            .map(|(n, (_, why))| (n.clone(), why.clone()))
            .collect()
    }

    /// The connection to `name`, started when it is not running.
    async fn peer(&self, name: &str) -> Result<Peer<RoleClient>, String> {
        let mut running = self.running.lock().await;
        if let Some(c) = running.get(name) {
            if !c.service.is_closed() {
                return Ok(c.service.peer().clone());
            }
            tracing::warn!(server = %name, "MCP server stopped; starting it again");
            running.remove(name);
        }
        if let Some((at, why)) = self.failed_recently(name) {
            return Err(format!(
                "{why} (tried {} s ago; trying again shortly)",
                at.elapsed().as_secs()
            ));
        }
        let def = self.servers.get(name).ok_or("no such MCP server")?;
        match tokio::time::timeout(START_TIMEOUT, start(name, def)).await {
            Ok(Ok(conn)) => {
                let peer = conn.service.peer().clone();
                running.insert(name.to_string(), conn);
                Ok(peer)
            }
            Ok(Err(why)) => Err(self.remember_failure(name, why)),
            Err(_) => Err(self.remember_failure(
                name,
                format!("did not start within {} s", START_TIMEOUT.as_secs()),
            )),
        }
    }

    fn failed_recently(&self, name: &str) -> Option<(Instant, String)> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed
            .get(name)
            .filter(|(at, _)| at.elapsed() < RETRY_AFTER)
            .cloned()
    }

    fn remember_failure(&self, name: &str, why: String) -> String {
        let why = format!("the MCP server `{name}` {why}");
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.insert(name.to_string(), (Instant::now(), why.clone()));
        why
    }

    /// Calls `tool` of `server`, within the timeout, stopping when `ctx`
    /// is cancelled.
    async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        let peer = self.peer(server).await.map_err(ToolError::Failed)?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        let call = tokio::time::timeout(self.call_timeout, peer.call_tool(params));
        let result = tokio::select! {
            r = call => r,
            _ = ctx.cancel_token().cancelled() => return Err(ToolError::Cancelled),
        };
        match result {
            Err(_) => Err(ToolError::Failed(format!(
                "the MCP server `{server}` did not answer `{tool}` within {} s",
                self.call_timeout.as_secs()
            ))),
            Ok(Err(ServiceError::TransportClosed)) => {
                // Gone: the next call starts it again (dropping the
                // connection stops what is left of it).
                drop(self.running.lock().await.remove(server));
                Err(ToolError::Failed(format!(
                    "the MCP server `{server}` stopped while running `{tool}`; it is started again on the next call"
                )))
            }
            Ok(Err(e)) => Err(ToolError::Failed(format!(
                "the MCP server `{server}` refused `{tool}`: {e}"
            ))),
            Ok(Ok(r)) => result_value(server, tool, r),
        }
    }

    /// Stops every server.
    pub async fn close(&self) {
        let running: Vec<Connection> = self.running.lock().await.drain().map(|(_, c)| c).collect();
        for c in running {
            let _ = c.service.cancel().await;
        }
    }
}

/// Starts `def` and lists its tools.
async fn start(name: &str, def: &ServerDef) -> Result<Connection, String> {
    let service = if let Some(command) = &def.command {
        let cmd = tokio::process::Command::new(command).configure(|c| {
            c.args(&def.args).envs(&def.env);
        });
        let transport =
            TokioChildProcess::new(cmd).map_err(|e| format!("cannot run `{command}`: {e}"))?;
        ().serve(transport).await
    } else {
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
fn result_value(server: &str, tool: &str, r: CallToolResult) -> Result<Value, ToolError> {
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
    fn new(server: &str, def: &ServerDef, tools: &[Tool], hub: &Arc<McpHub>) -> Self {
        let offered = |t: &&Tool| {
            let named = |list: &[String]| list.iter().any(|n| n == t.name.as_ref());
            def.include_tools.as_deref().is_none_or(named) && !named(&def.exclude_tools)
        };
        let methods = tools.iter().filter(offered).map(method_spec).collect();
        Self {
            server: server.to_string(),
            spec: ToolboxSpec {
                name: server.to_string(),
                summary: format!("Tools of the MCP server `{server}`."),
                methods,
            },
            hub: Arc::clone(hub),
        }
    }
}

/// A tool's spec from its MCP description: the schema as given, the
/// parameters from its properties, the effect from its annotations.
fn method_spec(t: &Tool) -> MethodSpec {
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
    let hints = t.annotations.as_ref();
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
