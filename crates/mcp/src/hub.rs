//! The MCP servers Baton uses (`mcp.json` and the plugins), their
//! connections, and what a front door shows about them.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use baton_tools::{ToolContext, ToolError, Toolbox};
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::{Peer, RoleClient, RunningService};
use serde_json::Value;
use tokio::sync::Mutex;

use crate::config::{McpConfigError, SecretLookup, ServerDef, Source};
use crate::{McpToolbox, result_value, start_server};

/// How long a server may take to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// After a failed start, the first pause before the next; it doubles with
/// each failure in a row, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(5);
/// The longest pause between tries.
const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// A running server: its connection and its tools.
pub(crate) struct Connection {
    pub(crate) service: RunningService<RoleClient, ()>,
    pub(crate) tools: Vec<Tool>,
}

/// One server's connection, locked while it starts (so one slow server
/// never holds up another).
type Slot = Arc<Mutex<Option<Connection>>>;

/// A server that did not start, and when to try again.
#[derive(Clone)]
struct Failure {
    at: Instant,
    why: String,
    in_a_row: u32,
}

impl Failure {
    fn backoff(&self) -> Duration {
        FIRST_BACKOFF
            .saturating_mul(1 << self.in_a_row.saturating_sub(1).min(10))
            .min(MAX_BACKOFF)
    }
}

/// Where the hub reads its servers from (for [`McpHub::reload`]).
#[derive(Clone)]
struct Sources {
    config_dir: PathBuf,
    plugins_dir: PathBuf,
}

#[derive(Default)]
struct State {
    /// Every server, disabled ones too.
    defs: BTreeMap<String, ServerDef>,
    /// The tools each server listed when it last started.
    tools: HashMap<String, Vec<Tool>>,
    failed: HashMap<String, Failure>,
    /// `mcp.json` or plugins that could not be used.
    config_problems: Vec<String>,
    /// The toolboxes offered, rebuilt when `dirty`.
    started: Vec<Arc<dyn Toolbox>>,
    dirty: bool,
    /// Counts the changes to `started`.
    generation: u64,
    /// What the user trusts (see [`crate::trust`]).
    pins: crate::trust::Pins,
}

/// The MCP servers of `mcp.json` and the plugins folder, and their
/// connections.
pub struct McpHub {
    state: std::sync::Mutex<State>,
    slots: std::sync::Mutex<HashMap<String, Slot>>,
    sources: Option<Sources>,
    watcher: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
    secrets: Option<SecretLookup>,
    pub(crate) call_timeout: Duration,
}

/// What a server is doing, for the desktop's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum ServerState {
    /// Connected; its tools are offered.
    Running,
    /// Starting now.
    Starting,
    /// Not started yet (it starts with the first turn that uses tools).
    Idle,
    /// It stopped or could not start; see the problem.
    Failed,
    /// `enabled: false`.
    Disabled,
}

/// A prompt an MCP server offers (`/prompts`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptInfo {
    /// The server offering it.
    pub server: String,
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// What it asks for.
    pub arguments: Vec<PromptArg>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArg {
    /// Its name.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

impl PromptInfo {
    fn new(server: &str, p: rmcp::model::Prompt) -> Self {
        let arguments = p
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|a| PromptArg {
                name: a.name,
                description: a.description,
                required: a.required.unwrap_or(false),
            });
        Self {
            server: server.to_string(),
            name: p.name,
            description: p.description.or(p.title),
            arguments: arguments.collect(),
        }
    }
}

/// One server as a front door shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// Its name (its toolbox's).
    pub name: String,
    /// Where it was found.
    pub source: Source,
    /// What it is for.
    pub description: Option<String>,
    /// The command line, or the URL.
    pub target: String,
    /// What it is doing.
    pub state: ServerState,
    /// The tools it offers (after `includeTools`/`excludeTools`).
    pub tools: Vec<String>,
    /// Why it is not running, in words.
    pub problem: Option<String>,
    /// Whether its annotations count (the user trusts it and its tools
    /// are those it had then); `untrusted` until it has started.
    pub trust: crate::Trust,
}

impl McpHub {
    /// The servers of `servers` (disabled ones are listed, never started);
    /// calls fail after `call_timeout`.
    pub fn new(servers: BTreeMap<String, ServerDef>, call_timeout: Duration) -> Self {
        Self::build(servers, Vec::new(), None, call_timeout)
    }

    /// The servers of `mcp.json` in `config_dir` and the plugins of
    /// `plugins_dir` (`mcp.json` wins a name both use); what cannot be
    /// used is left out and told by [`McpHub::problems`].
    pub fn open(config_dir: PathBuf, plugins_dir: PathBuf, call_timeout: Duration) -> Self {
        let sources = Sources {
            config_dir,
            plugins_dir,
        };
        let (defs, problems) = sources.load();
        Self::build(defs, problems, Some(sources), call_timeout)
    }

    fn build(
        defs: BTreeMap<String, ServerDef>,
        config_problems: Vec<String>,
        sources: Option<Sources>,
        call_timeout: Duration,
    ) -> Self {
        let pins = sources.as_ref().map(Sources::pins).unwrap_or_default();
        Self {
            state: std::sync::Mutex::new(State {
                defs,
                config_problems,
                pins,
                ..State::default()
            }),
            slots: std::sync::Mutex::default(),
            sources,
            watcher: std::sync::Mutex::default(),
            secrets: None,
            call_timeout,
        }
    }

    /// Fills `${keychain:NAME}` in headers and environments from `lookup`.
    pub fn with_secrets(mut self, lookup: SecretLookup) -> Self {
        self.secrets = Some(lookup);
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slot(&self, name: &str) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(slots.entry(name.to_string()).or_default())
    }

    /// The enabled servers' names.
    pub fn names(&self) -> Vec<String> {
        let state = self.state();
        let enabled = state.defs.iter().filter(|(_, d)| d.is_enabled());
        enabled.map(|(n, _)| n.clone()).collect()
    }

    /// The toolboxes of the servers [`McpHub::start`] started.
    pub fn started(&self) -> Vec<Arc<dyn Toolbox>> {
        self.state().started.clone()
    }

    /// Changes each time the toolboxes [`McpHub::started`] gives change
    /// (a server or plugin added, changed or removed).
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// Starts every enabled server never tried (in parallel) and returns
    /// one toolbox per server that has started. This runs before every
    /// turn, so it is quick when nothing is new: a server that could not
    /// start is not tried again here (calls to a server that stopped start
    /// it again, with a growing pause after failures) until it changes or
    /// the settings are reloaded.
    pub async fn start(self: &Arc<Self>) -> Vec<Arc<dyn Toolbox>> {
        let new: Vec<String> = {
            let state = self.state();
            let untried =
                |n: &&String| !state.tools.contains_key(*n) && !state.failed.contains_key(*n);
            let enabled = state.defs.iter().filter(|(_, d)| d.is_enabled());
            enabled.map(|(n, _)| n).filter(untried).cloned().collect()
        };
        let starts = new.iter().map(|name| async move {
            if let Err(e) = self.peer(name).await {
                tracing::warn!(server = %name, "MCP server left out: {e}");
            }
        });
        futures::future::join_all(starts).await;
        self.rebuilt_toolboxes()
    }

    /// The toolboxes again when a server started, changed or went.
    fn rebuilt_toolboxes(self: &Arc<Self>) -> Vec<Arc<dyn Toolbox>> {
        let mut state = self.state();
        if !state.dirty {
            return state.started.clone();
        }
        let mut out: Vec<Arc<dyn Toolbox>> = Vec::new();
        for (name, def) in state.defs.iter().filter(|(_, d)| d.is_enabled()) {
            if let Some(tools) = state.tools.get(name) {
                let trust = state.trust(name, def, tools);
                if trust == crate::Trust::Changed {
                    tracing::warn!(server = %name, "the MCP server's tools changed since the user trusted it: each asks again until it is trusted again");
                }
                let trusted = trust == crate::Trust::Trusted;
                out.push(Arc::new(McpToolbox::new(name, def, tools, self, trusted)));
            }
        }
        state.started = out.clone();
        state.dirty = false;
        state.generation += 1;
        out
    }

    /// What could not be used, with why: servers that did not start (by
    /// name) and, named `mcp.json` or `plugins`, files that could not be
    /// read.
    pub fn problems(&self) -> Vec<(String, String)> {
        let state = self.state();
        let config = state.config_problems.iter().map(|p| {
            let from = if p.contains(crate::MCP_FILE) {
                crate::MCP_FILE
            } else {
                "plugins"
            };
            (from.to_string(), p.clone())
        });
        let failed = state.failed.iter().map(|(n, f)| (n.clone(), f.why.clone()));
        config.chain(failed).collect()
    }

    /// Every server with what it is doing, in name order.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let state = self.state();
        state
            .defs
            .iter()
            .map(|(name, def)| {
                let connected = slots.get(name).map(|s| match s.try_lock() {
                    Ok(c) => c.as_ref().is_some_and(|c| !c.service.is_closed()),
                    Err(_) => false,
                });
                let starting = slots.get(name).is_some_and(|s| s.try_lock().is_err());
                let failure = state.failed.get(name);
                let server_state = if !def.is_enabled() {
                    ServerState::Disabled
                } else if connected == Some(true) {
                    ServerState::Running
                } else if starting {
                    ServerState::Starting
                } else if failure.is_some() || state.tools.contains_key(name) {
                    ServerState::Failed
                } else {
                    ServerState::Idle
                };
                let trust = state
                    .tools
                    .get(name)
                    .map_or(crate::Trust::Untrusted, |t| state.trust(name, def, t));
                let tools = state.tools.get(name).map(|t| crate::offered(def, t));
                ServerStatus {
                    trust,
                    name: name.clone(),
                    source: def.source.clone(),
                    description: def.description.clone(),
                    target: def.target(),
                    state: server_state,
                    tools: tools.unwrap_or_default(),
                    problem: failure.map(|f| f.why.clone()).or_else(|| {
                        (server_state == ServerState::Failed)
                            .then(|| "it stopped; the next call starts it again".to_string())
                    }),
                }
            })
            .collect()
    }

    /// The connection to `name`, started when it is not running (not
    /// while the pause after a failed start lasts).
    async fn peer(&self, name: &str) -> Result<Peer<RoleClient>, String> {
        let slot = self.slot(name);
        let mut conn = slot.lock().await;
        if let Some(c) = conn.as_ref() {
            if !c.service.is_closed() {
                return Ok(c.service.peer().clone());
            }
            tracing::warn!(server = %name, "MCP server stopped; starting it again");
            *conn = None;
        }
        if let Some(f) = self.backing_off(name) {
            let wait = f.backoff().saturating_sub(f.at.elapsed()).as_secs() + 1;
            return Err(format!("{} (trying again in {wait} s)", f.why));
        }
        let def = {
            let state = self.state();
            state.defs.get(name).filter(|d| d.is_enabled()).cloned()
        };
        let def = def.ok_or_else(|| format!("the MCP server `{name}` is no longer configured"))?;
        let def = crate::config::expand_secrets(&def, self.secrets.as_ref())
            .map_err(|why| self.remember_failure(name, why))?;
        match tokio::time::timeout(START_TIMEOUT, start_server(name, &def)).await {
            Ok(Ok(c)) => {
                let peer = c.service.peer().clone();
                self.started_ok(name, &c.tools);
                *conn = Some(c);
                Ok(peer)
            }
            Ok(Err(why)) => Err(self.remember_failure(name, why)),
            Err(_) => Err(self.remember_failure(
                name,
                format!("did not start within {} s", START_TIMEOUT.as_secs()),
            )),
        }
    }

    fn started_ok(&self, name: &str, tools: &[Tool]) {
        let mut state = self.state();
        state.failed.remove(name);
        if state.tools.get(name).map(Vec::as_slice) != Some(tools) {
            state.tools.insert(name.to_string(), tools.to_vec());
            state.dirty = true;
        }
    }

    fn backing_off(&self, name: &str) -> Option<Failure> {
        let state = self.state();
        let f = state.failed.get(name)?;
        (f.at.elapsed() < f.backoff()).then(|| f.clone())
    }

    fn remember_failure(&self, name: &str, why: String) -> String {
        let why = format!("the MCP server `{name}` {why}");
        let mut state = self.state();
        let in_a_row = state.failed.get(name).map_or(0, |f| f.in_a_row) + 1;
        let failure = Failure {
            at: Instant::now(),
            why: why.clone(),
            in_a_row,
        };
        state.failed.insert(name.to_string(), failure);
        why
    }

    /// Calls `tool` of `server`, within the timeout, stopping when `ctx`
    /// is cancelled.
    pub(crate) async fn call(
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
                drop(self.slot(server).lock().await.take());
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

    /// The prompts of every running server that offers prompts (servers
    /// are started first), by server then name.
    pub async fn prompts(self: &Arc<Self>) -> Vec<PromptInfo> {
        self.start().await;
        let names = self.names();
        let lists = names.iter().map(|server| async move {
            let peer = self.peer(server).await.ok()?;
            let offers = peer
                .peer_info()
                .is_some_and(|i| i.capabilities.prompts.is_some());
            if !offers {
                return None;
            }
            match peer.list_all_prompts().await {
                Ok(list) => Some(
                    list.into_iter()
                        .map(|p| PromptInfo::new(server, p))
                        .collect(),
                ),
                Err(e) => {
                    tracing::warn!(%server, "MCP prompts not listed: {e}");
                    None
                }
            }
        });
        let lists: Vec<Option<Vec<PromptInfo>>> = futures::future::join_all(lists).await;
        lists.into_iter().flatten().flatten().collect()
    }

    /// The text of the prompt `name` of `server` with `args` filled in:
    /// its messages' text, one paragraph each.
    pub async fn prompt_text(
        &self,
        server: &str,
        name: &str,
        args: BTreeMap<String, String>,
    ) -> Result<String, String> {
        let peer = self.peer(server).await?;
        let mut params = rmcp::model::GetPromptRequestParams::new(name);
        let map: serde_json::Map<String, Value> = args
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        params.arguments = Some(map);
        let got = tokio::time::timeout(self.call_timeout, peer.get_prompt(params))
            .await
            .map_err(|_| {
                format!("the MCP server `{server}` did not give the prompt `{name}` in time")
            })?
            .map_err(|e| {
                format!("the MCP server `{server}` did not give the prompt `{name}`: {e}")
            })?;
        let texts: Vec<String> = got
            .messages
            .iter()
            .filter_map(|m| m.content.as_text().map(|t| t.text.clone()))
            .collect();
        if texts.is_empty() {
            return Err(format!("the prompt `{name}` of `{server}` has no text"));
        }
        Ok(texts.join("\n\n"))
    }

    /// Reads `mcp.json` and the plugins folder again: servers added are
    /// started with the next turn, those changed or removed are stopped
    /// (a changed one starts again as it is now).
    pub async fn reload(&self) {
        let Some(sources) = &self.sources else {
            return;
        };
        let (defs, problems) = sources.load();
        let pins = sources.pins();
        {
            let mut state = self.state();
            if state.pins != pins {
                state.pins = pins;
                state.dirty = true;
            }
        }
        let gone = self.replace(defs, problems);
        for slot in gone {
            if let Some(c) = slot.lock().await.take() {
                let _ = c.service.cancel().await;
            }
        }
    }

    /// Trusts server or plugin `name` as it is now (started first, to see
    /// its tools: their annotations count from now on, until they change),
    /// or stops trusting it (`on: false`: every tool asks again). Kept in
    /// `mcp-trust.json` for a hub made by [`McpHub::open`].
    pub async fn set_trusted(&self, name: &str, on: bool) -> Result<crate::Trust, McpConfigError> {
        let def = self.state().defs.get(name).cloned();
        let def = def.ok_or_else(|| McpConfigError::Unknown(name.to_string()))?;
        let pin = if on {
            self.peer(name).await.map_err(McpConfigError::NotStarted)?;
            let state = self.state();
            let tools = state.tools.get(name).map(Vec::as_slice).unwrap_or_default();
            Some(offered_pin(&def, tools))
        } else {
            None
        };
        let mut state = self.state();
        match pin {
            Some(p) => state.pins.insert(name.to_string(), p),
            None => state.pins.remove(name),
        };
        state.dirty = true;
        if let Some(sources) = &self.sources {
            crate::trust::save(&sources.config_dir.join(crate::TRUST_FILE), &state.pins)?;
        }
        Ok(if on {
            crate::Trust::Trusted
        } else {
            crate::Trust::Untrusted
        })
    }

    /// Turns the server or plugin `name` on or off in its file
    /// (`mcp.json` or its `plugin.json`), and reloads.
    pub async fn set_enabled(&self, name: &str, on: bool) -> Result<(), McpConfigError> {
        let source = self.state().defs.get(name).map(|d| d.source.clone());
        let unknown = || McpConfigError::Unknown(name.to_string());
        let (Some(source), Some(sources)) = (source, &self.sources) else {
            return Err(unknown());
        };
        match source {
            Source::McpJson => {
                let path = sources.config_dir.join(crate::MCP_FILE);
                crate::config::edit_json(&path, |doc| {
                    let server = doc
                        .get_mut("mcpServers")
                        .and_then(|s| s.get_mut(name))
                        .and_then(Value::as_object_mut)
                        .ok_or("the server is no longer in the file")?;
                    server.insert("enabled".into(), Value::Bool(on));
                    Ok(())
                })?;
            }
            Source::Plugin { dir } => {
                let path = dir.join(crate::plugins::PLUGIN_FILE);
                crate::config::edit_json(&path, |doc| {
                    doc.insert("enabled".into(), Value::Bool(on));
                    Ok(())
                })?;
            }
        }
        self.reload().await;
        Ok(())
    }

    /// Adds the server `name` (`{command, args, env}` or `{url, headers}`)
    /// to `mcp.json`, and reloads.
    pub async fn add_server(&self, name: &str, def: Value) -> Result<(), McpConfigError> {
        let Some(sources) = &self.sources else {
            return Err(McpConfigError::Unknown(name.to_string()));
        };
        crate::config::add_server(&sources.config_dir, name, def)?;
        self.reload().await;
        Ok(())
    }

    /// Puts `defs` in place; the slots of servers changed or removed.
    fn replace(&self, defs: BTreeMap<String, ServerDef>, problems: Vec<String>) -> Vec<Slot> {
        let mut state = self.state();
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let names: std::collections::BTreeSet<String> =
            state.defs.keys().chain(defs.keys()).cloned().collect();
        let mut gone = Vec::new();
        for name in names {
            if state.defs.get(&name) == defs.get(&name) {
                continue;
            }
            tracing::info!(server = %name, "MCP server added, changed or removed");
            state.tools.remove(&name);
            state.failed.remove(&name);
            gone.extend(slots.remove(&name));
            state.dirty = true;
        }
        state.defs = defs;
        state.config_problems = problems;
        gone
    }

    /// Watches the plugins folder and `mcp.json` (for a hub made by
    /// [`McpHub::open`]) and reloads `debounce` after a change; stops with
    /// the hub. Needs a Tokio runtime.
    pub fn watch(self: &Arc<Self>, debounce: Duration) -> Result<(), String> {
        let Some(sources) = &self.sources else {
            return Ok(());
        };
        let runtime = tokio::runtime::Handle::try_current().map_err(|e| e.to_string())?;
        let hub: Weak<Self> = Arc::downgrade(self);
        let on_change = move || {
            if let Some(hub) = hub.upgrade() {
                runtime.spawn(async move { hub.reload().await });
            }
        };
        let watcher = crate::plugins::watch(
            &sources.plugins_dir,
            &sources.config_dir,
            debounce,
            on_change,
        )?;
        *self.watcher.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(watcher));
        Ok(())
    }

    /// Stops every server.
    pub async fn close(&self) {
        let slots: Vec<Slot> = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.drain().map(|(_, s)| s).collect()
        };
        for slot in slots {
            if let Some(c) = slot.lock().await.take() {
                let _ = c.service.cancel().await;
            }
        }
    }
}

impl State {
    /// Whether server `name` (defined by `def`, offering `tools`) is
    /// trusted as it is now.
    fn trust(&self, name: &str, def: &ServerDef, tools: &[Tool]) -> crate::Trust {
        crate::trust::trust_of(&self.pins, name, &offered_pin(def, tools))
    }
}

/// The pin of the tools of `tools` that `def` offers (what the model sees).
fn offered_pin(def: &ServerDef, tools: &[Tool]) -> String {
    crate::trust::pin(tools.iter().filter(|t| crate::is_offered(def, t)))
}

impl Sources {
    /// What the user trusts (`mcp-trust.json` beside `mcp.json`).
    fn pins(&self) -> crate::trust::Pins {
        crate::trust::load(&self.config_dir.join(crate::TRUST_FILE))
    }

    /// `mcp.json`'s servers and the plugins, with what could not be used.
    fn load(&self) -> (BTreeMap<String, ServerDef>, Vec<String>) {
        let (mut defs, mut problems) = match crate::config::load(&self.config_dir) {
            Ok(d) => (d, Vec::new()),
            Err(e) => (BTreeMap::new(), vec![e.to_string()]),
        };
        let (plugins, plugin_problems) = crate::plugins::scan(&self.plugins_dir);
        problems.extend(plugin_problems);
        for (name, def) in plugins {
            match defs.entry(name) {
                std::collections::btree_map::Entry::Occupied(e) => problems.push(format!(
                    "the plugin `{}` is left out: mcp.json has a server of that name",
                    e.key()
                )),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(def);
                }
            }
        }
        (defs, problems)
    }
}
