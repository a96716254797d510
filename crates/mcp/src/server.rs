//! Baton's own toolboxes served over MCP (`baton mcp`): over stdio, or
//! streamable HTTP with a bearer key required for other computers. Each
//! MCP session gets a catalog of its own (a toolbox holds state: an open
//! workbook, a browser tab), so other agents use Baton's tools inside the
//! same sandbox, validated and repaired as Baton's own agents' calls are.
//!
//! Over HTTP, a tool that sends data off the computer or changes the
//! user's accounts (its effect asks for a card in Baton) runs only when
//! the server was started to allow it, or when the client shows the user
//! the action (an MCP elicitation) and the user accepts. Over stdio the
//! client is the program that started Baton, and the tools' annotations
//! tell it which to confirm.

use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine as _;
use baton_stdx::HostNames;
use baton_tools::{Catalog, Effect, MethodSpec, ToolContext, ToolOutcome};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Makes a fresh catalog of the toolboxes to serve (one per session).
pub type CatalogFactory = Arc<dyn Fn() -> Catalog + Send + Sync>;

/// Says whether a bearer key is accepted.
pub type KeyCheck = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Which calls run without the user's word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acting {
    /// Every call runs (stdio, or `--allow-acting`).
    Allowed,
    /// Calls that send data off the computer or change the user's
    /// accounts run only once the user accepts them through the client.
    AskTheUser,
}

/// One MCP session over one catalog.
#[derive(Clone)]
pub struct CatalogServer {
    catalog: Arc<Catalog>,
    tools: Arc<Vec<Tool>>,
    acting: Acting,
}

impl CatalogServer {
    /// Serves `catalog`'s methods as MCP tools, every call allowed.
    pub fn new(catalog: Catalog) -> Self {
        Self::with_acting(catalog, Acting::Allowed)
    }

    /// Serves `catalog`'s methods as MCP tools, acting as `acting` says.
    pub fn with_acting(catalog: Catalog, acting: Acting) -> Self {
        let tools = catalog
            .specs()
            .flat_map(|s| s.methods.iter().map(|m| mcp_tool(&s.name, m)))
            .collect();
        Self {
            catalog: Arc::new(catalog),
            tools: Arc::new(tools),
            acting,
        }
    }

    /// Why call `name` with `args` may not run, if it may not: it acts
    /// for the user and the user, asked through the client, did not
    /// accept (or the client cannot ask).
    async fn refusal(
        &self,
        name: &str,
        args: &Value,
        peer: &rmcp::Peer<RoleServer>,
    ) -> Option<String> {
        if self.acting == Acting::Allowed {
            return None;
        }
        let (label, shown) = self.catalog.confirmation(name, args, &[])?;
        let action = match self.catalog.describe(name, args, "").await {
            Some(words) => words,
            None => format!("{label} {shown}"),
        };
        let can_ask = peer
            .supported_elicitation_modes()
            .contains(&rmcp::service::ElicitationMode::Form);
        if !can_ask {
            return Some(format!(
                "{label} was not run: it sends data off the user's computer or changes their accounts, and this client cannot ask the user (MCP elicitation). Start Baton's MCP server with `--allow-acting` to let it run such tools without asking."
            ));
        }
        let question = rmcp::model::ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!("Baton is asked to do this for you:\n\n{action}\n\nAllow it?"),
            requested_schema: rmcp::model::ElicitationSchema::builder()
                .required_bool("allow")
                .build()
                .expect("a one-field schema"),
        };
        let answer = match peer.create_elicitation(question).await {
            Ok(a) => a,
            Err(e) => {
                return Some(format!(
                    "{label} was not run: the user could not be asked ({e}). Start Baton's MCP server with `--allow-acting` to let it run such tools without asking."
                ));
            }
        };
        let allowed = answer.action == rmcp::model::ElicitationAction::Accept
            && answer
                .content
                .as_ref()
                .and_then(|c| c.get("allow"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
        (!allowed).then(|| format!("{label} was not run: the user did not allow it"))
    }

    /// Closes the toolboxes (an open workbook, a browser tab).
    pub async fn close(&self) {
        for t in self.catalog.toolboxes() {
            t.close().await;
        }
    }
}

/// A method as an MCP tool: its schema, and hints from its effect.
fn mcp_tool(toolbox: &str, m: &MethodSpec) -> Tool {
    let schema = match &m.schema {
        Value::Object(o) => o.clone(),
        _ => serde_json::Map::new(),
    };
    let mut hints = ToolAnnotations::new();
    hints.read_only_hint = Some(m.effect == Effect::Read);
    hints.destructive_hint = Some(matches!(m.effect, Effect::Write | Effect::Change));
    hints.open_world_hint = Some(matches!(m.effect, Effect::Change | Effect::External));
    Tool::new(m.name.clone(), m.description.clone(), schema)
        .with_title(format!("{toolbox}.{}", m.name))
        .with_annotations(hints)
}

impl ServerHandler for CatalogServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("baton", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Baton's toolboxes: files of the user's workspace (paths start at its root, `/`), spreadsheets, the browser, documents and e-mail.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        if let Some(why) = self.refusal(&request.name, &args, &context.peer).await {
            tracing::info!(tool = %request.name, "refused: {why}");
            return Ok(CallToolResult::error(vec![ContentBlock::text(why)]).into());
        }
        let ctx = ToolContext::new(context.ct.clone());
        let span = tracing::info_span!("mcp_call", tool = %request.name);
        let _enter = span.enter();
        let record = self.catalog.dispatch_with(&request.name, args, &ctx).await;
        let text = match &record.outcome {
            ToolOutcome::Err(e) => e.clone(),
            ok => ok.to_model_text(),
        };
        let mut content = vec![ContentBlock::text(text)];
        for image in &record.pictures.for_model {
            let data = base64::engine::general_purpose::STANDARD.encode(&image.bytes);
            content.push(ContentBlock::image(data, image.mime_type.clone()));
        }
        Ok(match record.outcome {
            ToolOutcome::Ok(v @ Value::Object(_)) => {
                let mut result = CallToolResult::success(content);
                result.structured_content = Some(v);
                result
            }
            ToolOutcome::Ok(_) => CallToolResult::success(content),
            ToolOutcome::Err(_) => CallToolResult::error(content),
        }
        .into())
    }
}

/// Why Baton's MCP server stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP session could not start or failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
    /// The HTTP address could not be used.
    #[error("cannot listen on {addr}: {reason}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
}

/// Serves `catalog` over stdin/stdout until the client leaves.
pub async fn serve_stdio(catalog: Catalog) -> Result<(), ServeError> {
    let server = CatalogServer::new(catalog);
    let running = server
        .clone()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    let ended = running.waiting().await;
    server.close().await;
    ended
        .map(|_| ())
        .map_err(|e| ServeError::Session(e.to_string()))
}

/// How the MCP HTTP server guards its door and its tools.
#[derive(Clone, Default)]
pub struct HttpOptions {
    /// With keys, each request needs `Authorization: Bearer KEY` with a
    /// key it accepts; without, only loopback addresses may be used (the
    /// caller checks).
    pub keys: Option<KeyCheck>,
    /// Run tools that act for the user without asking (`--allow-acting`).
    pub allow_acting: bool,
    /// Names besides this computer's that a `Host` may give when keys are
    /// needed (IP addresses are answered then anyway; see [`HostNames`]).
    pub host_names: Vec<String>,
}

/// Serves fresh catalogs of `factory` over streamable HTTP at `/mcp` on
/// `listener` until `stop` is cancelled, guarded as `options` say.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    factory: CatalogFactory,
    options: HttpOptions,
    stop: CancellationToken,
) -> Result<(), ServeError> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let addr = listener
        .local_addr()
        .map_err(|e| ServeError::Session(e.to_string()))?;
    // A page in the user's browser (its Origin another site's) cannot call
    // the tools; programs send no Origin. The MCP specification asks
    // servers to check it.
    // `Host` is checked below, with the HTTP API's rule (rmcp's own list
    // cannot say "any IP address once keys are needed").
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop.child_token())
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .disable_allowed_hosts();
    let acting = if options.allow_acting {
        Acting::Allowed
    } else {
        Acting::AskTheUser
    };
    let service = StreamableHttpService::new(
        move || Ok(CatalogServer::with_acting(factory(), acting)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    let keyed = options.keys.is_some();
    if let Some(check) = options.keys {
        router = router.layer(axum::middleware::from_fn(move |req, next| {
            let check = Arc::clone(&check);
            authorize(req, next, check)
        }));
    }
    let hosts = Arc::new(HostNames::new(&options.host_names));
    router = router.layer(axum::middleware::from_fn(move |req, next| {
        let hosts = Arc::clone(&hosts);
        addressed_here(req, next, hosts, keyed)
    }));
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { stop.cancelled_owned().await })
        .await
        .map_err(|e| ServeError::Listen {
            addr,
            reason: e.to_string(),
        })
}

/// Refuses a request addressed (`Host`) to a name this server does not
/// answer to: a web page's own name re-pointed at this computer (DNS
/// rebinding).
async fn addressed_here(
    req: axum::extract::Request,
    next: axum::middleware::Next,
    hosts: Arc<HostNames>,
    keyed: bool,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()));
    match hosts.refusal(host, keyed) {
        None => next.run(req).await,
        Some(why) => (axum::http::StatusCode::FORBIDDEN, why).into_response(),
    }
}

/// Lets a request through when it carries an accepted bearer key.
async fn authorize(
    req: axum::extract::Request,
    next: axum::middleware::Next,
    check: KeyCheck,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let presented = req
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match presented {
        Some(key) if check(key.trim()) => next.run(req).await,
        Some(_) => (
            axum::http::StatusCode::UNAUTHORIZED,
            "that API key is not accepted (make one with `baton mcp keys add NAME`)",
        )
            .into_response(),
        None => (
            axum::http::StatusCode::UNAUTHORIZED,
            "an API key is needed: send `Authorization: Bearer KEY` (make one with `baton mcp keys add NAME`)",
        )
            .into_response(),
    }
}
