//! Named agents made real: an `agents.json` entry resolved against the
//! providers and the built-in toolboxes, with its tool filters, limits,
//! compaction window and subagents (one per toolbox it has, and every
//! delegable agent).

use std::sync::Arc;

use baton_agent::{Agent, CompactionPolicy, DynamicContext, SubagentSpec};
use baton_config::AgentDef;
use baton_convert::ConvertOptions;
use baton_docs::{ConversionCache, FileTool};
use baton_index::WorkspaceIndex;
use baton_llm::{InteractionMode, Provider, ProviderConfig};
use baton_tools::{Catalog, Sandbox, ToolFilter, Toolbox, normalize};

use crate::{Engine, EngineError};

/// The named agents of an [`Engine`] (see [`Engine::agents`]).
pub struct Agents<'a> {
    pub(crate) e: &'a Engine,
}

/// What the built-in toolboxes are made from. Each agent and subagent
/// gets toolboxes of its own (a toolbox holds state: an open workbook, a
/// browser tab), made fresh from these parts.
#[derive(Clone)]
pub struct Toolkit {
    pub(crate) sandbox: Sandbox,
    pub(crate) cache: Arc<ConversionCache>,
    pub(crate) convert: ConvertOptions,
    pub(crate) index: Option<Arc<WorkspaceIndex>>,
    pub(crate) diagnostics: bool,
    pub(crate) browser: Arc<baton_web::BrowserHub>,
    pub(crate) printer: Arc<baton_publish::Printer>,
    pub(crate) mail: Arc<baton_mail::MailClient>,
    /// The toolboxes of the MCP servers running.
    pub(crate) mcp: Vec<Arc<dyn Toolbox>>,
    /// What the user asked to remember (`None`: memory is off).
    pub(crate) memory: Option<Arc<baton_memory::MemoryStore>>,
    /// The user's scheduled tasks (`None`: not offered).
    pub(crate) schedule: Option<ScheduleParts>,
    /// The engine deep research runs on (`None`: not offered).
    pub(crate) research: Option<std::sync::Weak<Engine>>,
}

/// What the scheduled-tasks toolbox is made from.
#[derive(Clone)]
pub(crate) struct ScheduleParts {
    pub(crate) store: Arc<baton_schedule::TaskStore>,
    pub(crate) clock: baton_schedule::UtcClock,
}

impl Toolkit {
    /// The same kit without the memory toolbox (the `memory` setting is
    /// off).
    pub fn without_memory(mut self) -> Self {
        self.memory = None;
        self
    }

    /// The same kit without what is the user's alone, their memory and
    /// their scheduled tasks (for callers that are not the user: other
    /// agents over MCP, API keys).
    pub fn for_others(mut self) -> Self {
        self.memory = None;
        self.schedule = None;
        self.research = None;
        self
    }

    /// The same kit with deep research on `engine` (the user's own chats:
    /// a job reads with the user's browser and agents).
    pub(crate) fn with_research(mut self, engine: &Arc<Engine>) -> Self {
        self.research = Some(Arc::downgrade(engine));
        self
    }

    /// Every built-in toolbox, new.
    pub fn toolboxes(&self) -> Vec<Arc<dyn Toolbox>> {
        let mut files = FileTool::new(self.sandbox.clone())
            .with_cache(Arc::clone(&self.cache))
            .with_convert_options(self.convert.clone());
        if let Some(index) = &self.index {
            files = files.with_index(Arc::clone(index));
        }
        let sheets = baton_sheet::SpreadsheetTool::new(self.sandbox.clone());
        let web = baton_web::WebTool::new(Arc::clone(&self.browser), self.sandbox.clone());
        let documents =
            baton_publish::DocumentTool::new(self.sandbox.clone(), Arc::clone(&self.printer));
        let mail = baton_mail::MailTool::new(Arc::clone(&self.mail), self.sandbox.clone());
        let mut all: Vec<Arc<dyn Toolbox>> = vec![
            Arc::new(files),
            Arc::new(sheets),
            Arc::new(web),
            Arc::new(documents),
            Arc::new(mail),
        ];
        if let Some(store) = &self.memory {
            all.push(Arc::new(baton_memory::MemoryTool::new(Arc::clone(store))));
        }
        if let Some(parts) = &self.schedule {
            all.push(Arc::new(baton_schedule::ScheduleTool::new(
                Arc::clone(&parts.store),
                baton_schedule::local_zone(),
                Arc::clone(&parts.clock),
            )));
        }
        if let Some(engine) = &self.research {
            all.push(Arc::new(crate::research::ResearchTool::new(engine.clone())));
        }
        if self.diagnostics {
            all.push(Arc::new(crate::Diagnostics::default()));
        }
        all.extend(self.mcp.iter().cloned());
        all
    }

    /// The built-in toolboxes only (not those of MCP servers), new, in one
    /// catalog: what `baton mcp` serves to other agents.
    pub fn builtin_catalog(&self) -> Result<Catalog, EngineError> {
        let mut catalog = Catalog::new();
        let all = self.toolboxes();
        let builtin = all.len() - self.mcp.len();
        for t in all.into_iter().take(builtin) {
            catalog.register(t)?;
        }
        Ok(catalog)
    }

    /// Every built-in toolbox, unfiltered, in one catalog.
    pub fn catalog(&self) -> Result<Catalog, EngineError> {
        let mut catalog = Catalog::new();
        let all = self.toolboxes();
        let builtin = all.len() - self.mcp.len();
        for (i, t) in all.into_iter().enumerate() {
            match catalog.register(t) {
                // An MCP server whose tool names clash is left out, not
                // every tool with it.
                Err(e) if i >= builtin => tracing::warn!("an MCP server is left out: {e}"),
                r => r?,
            }
        }
        Ok(catalog)
    }

    /// The catalog `agent` is offered: its toolboxes with their filters
    /// (every built-in toolbox when it names none).
    pub fn catalog_for(&self, agent: &AgentDef) -> Result<Catalog, EngineError> {
        let Some(refs) = &agent.toolboxes else {
            return self.catalog();
        };
        let all = self.toolboxes();
        let mut catalog = Catalog::new();
        for r in refs {
            let Some(t) = all
                .iter()
                .find(|t| normalize(&t.spec().name) == normalize(&r.name))
            else {
                let names: Vec<&str> = all.iter().map(|t| t.spec().name.as_str()).collect();
                return Err(agent_error(
                    agent,
                    format!(
                        "unknown toolbox `{}`; toolboxes: {}",
                        r.name,
                        names.join(", ")
                    ),
                ));
            };
            let filter = ToolFilter {
                include: r.include_tools.clone(),
                exclude: r.exclude_tools.clone(),
            };
            catalog
                .register_filtered(Arc::clone(t), &filter)
                .map_err(|e| agent_error(agent, e.to_string()))?;
        }
        Ok(catalog)
    }
}

fn agent_error(agent: &AgentDef, reason: String) -> EngineError {
    EngineError::Agent {
        name: agent.name.clone(),
        reason,
    }
}

/// The compaction an agent's `maxMessages` asks for: past that many
/// messages the history is compacted to about half (so the cached prefix
/// survives several turns between compactions); 0 never compacts.
pub fn compaction_for(max_messages: Option<u32>) -> CompactionPolicy {
    match max_messages {
        None => CompactionPolicy::default(),
        Some(0) => CompactionPolicy {
            max_messages: usize::MAX,
            max_context_share: f32::INFINITY,
            ..CompactionPolicy::default()
        },
        Some(n) => CompactionPolicy {
            max_messages: n as usize,
            keep_exchanges: (n as usize / 4).max(1),
            ..CompactionPolicy::default()
        },
    }
}

/// What an agent (or a subagent) is built from, besides its catalog.
#[derive(Clone)]
pub(crate) struct Blueprint {
    pub(crate) def: AgentDef,
    pub(crate) cfg: ProviderConfig,
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) mode: Option<InteractionMode>,
    pub(crate) instructions: Option<String>,
    pub(crate) dynamic: Option<Arc<dyn DynamicContext>>,
    /// Its answer is one JSON object (a team's plan or review).
    pub(crate) answer_json: bool,
    pub(crate) own_citations: bool,
}

impl<'a> Agents<'a> {
    /// The named agents (shipped, with the user's `agents.json` over them).
    pub fn loaded(&self) -> &'a baton_config::LoadedAgents {
        &self.e.agents_file
    }

    /// The enabled agent `name`, or the default one (the `agent` setting,
    /// else `assistant`).
    pub fn def(&self, name: Option<&str>) -> Result<AgentDef, EngineError> {
        let found = match name {
            Some(n) => self.e.agents_file.get(n),
            None => self
                .e
                .agents_file
                .default_agent(self.e.settings.agent.as_deref()),
        };
        found.cloned().ok_or_else(|| {
            let names: Vec<&str> = self
                .e
                .agents_file
                .enabled()
                .map(|a| a.name.as_str())
                .collect();
            let mut reason = format!(
                "no such agent; agents: {}",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            );
            for w in &self.e.agents_file.warnings {
                reason.push_str(&format!(" ({w})"));
            }
            EngineError::Agent {
                name: name.unwrap_or("(default)").to_string(),
                reason,
            }
        })
    }

    /// The provider entry `agent` runs on: `provider` (a front door's
    /// choice) wins, then the agent's entry, then the setting and the
    /// default.
    pub fn provider_for(
        &self,
        agent: &AgentDef,
        provider: Option<&str>,
    ) -> Result<ProviderConfig, EngineError> {
        let mut cfg = self
            .e
            .providers()
            .config(provider.or(agent.provider.as_deref()))?;
        if let Some(m) = &agent.model {
            cfg.model = Some(m.clone());
        }
        Ok(cfg)
    }

    /// The agent of `blueprint` with `catalog`, its limits and compaction,
    /// and its subagents when it delegates: whenever `tools` are on (a
    /// coordinator without toolboxes too), in API and CLI mode alike.
    pub(crate) fn assemble(
        &self,
        bp: &Blueprint,
        catalog: Catalog,
        kit: &Toolkit,
        tools: bool,
    ) -> Agent {
        let agent = (self.subagent_builder())(bp, catalog);
        if !(tools && bp.def.delegation.unwrap_or(true)) {
            return agent;
        }
        let per_toolbox = agent.config().mode == InteractionMode::Api;
        let specs = self.subagent_specs(bp, agent.catalog(), kit, per_toolbox);
        specs.into_iter().fold(agent, Agent::with_subagent)
    }

    /// The subagents offered to the agent of `bp`: with `per_toolbox`,
    /// one per toolbox it has (same provider, same tool filters, fresh
    /// toolboxes; not in CLI mode, whose small models do better with a
    /// short command list), and every other enabled, delegable agent whose
    /// provider can be opened.
    fn subagent_specs(
        &self,
        bp: &Blueprint,
        catalog: &Catalog,
        kit: &Toolkit,
        per_toolbox: bool,
    ) -> Vec<SubagentSpec> {
        let mut specs: Vec<SubagentSpec> = catalog
            .specs()
            .filter(|_| per_toolbox)
            .map(|spec| {
                let mut def = bp.def.clone();
                def.toolboxes = Some(vec![baton_config::ToolboxRef {
                    name: spec.name.clone(),
                    include_tools: Some(spec.methods.iter().map(|m| m.name.clone()).collect()),
                    exclude_tools: Vec::new(),
                }]);
                let sub = Blueprint {
                    def,
                    instructions: None,
                    answer_json: false,
                    own_citations: false,
                    ..bp.clone()
                };
                self.subagent_spec(spec.name.clone(), spec.summary.clone(), sub, kit)
            })
            .collect();
        for def in self.e.agents_file.enabled() {
            if !def.delegable || def.name.eq_ignore_ascii_case(&bp.def.name) {
                continue;
            }
            match self.blueprint(def, None, None, bp.dynamic.clone()) {
                Ok(sub) => specs.push(self.subagent_spec(
                    def.name.clone(),
                    def.description.clone(),
                    sub,
                    kit,
                )),
                Err(e) => tracing::warn!(agent = %def.name, "not offered as a subagent: {e}"),
            }
        }
        specs
    }

    fn subagent_spec(
        &self,
        name: String,
        summary: String,
        bp: Blueprint,
        kit: &Toolkit,
    ) -> SubagentSpec {
        let kit = kit.clone();
        let build = self.subagent_builder();
        SubagentSpec {
            name,
            summary,
            factory: Arc::new(move || {
                // Checked when the parent was built; a failure now leaves
                // the subagent without tools rather than failing the call.
                let catalog = kit.catalog_for(&bp.def).unwrap_or_default();
                build(&bp, catalog)
            }),
        }
    }

    /// Toolboxes whose external calls the user allowed in the settings
    /// (`email.confirmSend: false`: the mail toolbox).
    pub fn confirm_exempt(&self) -> Vec<baton_tools::ToolboxId> {
        if self.e.settings.email.confirm_send {
            Vec::new()
        } else {
            vec![baton_tools::ToolboxId::of::<baton_mail::MailTool>()]
        }
    }

    /// Builds an agent from a blueprint without holding on to the engine
    /// (subagents are built later, when launched): the settings it needs
    /// are copied.
    fn subagent_builder(&self) -> impl Fn(&Blueprint, Catalog) -> Agent + Send + Sync + 'static {
        let mode_setting = self.e.settings.interaction_mode;
        let exempt = self.confirm_exempt();
        move |bp: &Blueprint, catalog: Catalog| {
            let mut config = baton_agent::AgentConfig::for_provider(&bp.cfg);
            config.confirm_exempt = exempt.clone();
            if let Some(m) = bp.mode.or(mode_setting) {
                config.mode = m;
            }
            apply_limits(&mut config, &bp.def);
            config.instructions = bp.instructions.clone();
            config.answer_json = bp.answer_json;
            config.own_citations = bp.own_citations;
            let mut agent = Agent::new(Arc::clone(&bp.provider), catalog, config);
            if let Some(d) = &bp.dynamic {
                agent = agent.with_dynamic_context(Arc::clone(d));
            }
            agent
        }
    }

    /// What agent `def` is built from: its provider opened (the front
    /// door's `provider`/`model` win), its instructions read.
    pub(crate) fn blueprint(
        &self,
        def: &AgentDef,
        provider: Option<&str>,
        model: Option<&str>,
        dynamic: Option<Arc<dyn DynamicContext>>,
    ) -> Result<Blueprint, EngineError> {
        let mut cfg = self.provider_for(def, provider)?;
        if let Some(m) = model {
            cfg.model = Some(m.to_string());
        }
        let provider = self.e.providers().open(&cfg)?;
        let instructions = def
            .instructions_text(&self.e.paths.config_dir)
            .map_err(|e| agent_error(def, e.to_string()))?;
        Ok(Blueprint {
            def: def.clone(),
            cfg,
            provider,
            mode: None,
            instructions,
            dynamic,
            answer_json: false,
            own_citations: false,
        })
    }
}

/// An agent's `maxIterations`, `tokenBudget` and `maxMessages`.
pub(crate) fn apply_limits(config: &mut baton_agent::AgentConfig, def: &AgentDef) {
    if let Some(n) = def.max_iterations {
        config.max_iterations = n as usize;
    }
    if def.token_budget.is_some() {
        config.token_budget = def.token_budget;
    }
    config.compaction = compaction_for(def.max_messages);
}

/// A named agent as lists show it (`baton agents`, the desktop picker).
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentInfo {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// What it is good at.
    pub specialisations: Vec<String>,
    /// The provider entry it runs on (`None` when that cannot be found).
    pub provider: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// Its toolboxes and the tools each offers it (after filters).
    pub toolboxes: Vec<ToolboxInfo>,
    /// Whether other agents may delegate to it.
    pub delegable: bool,
    /// Whether it is offered subagents.
    pub delegates: bool,
    /// Compaction window (`None`: the default; 0: never).
    pub max_messages: Option<u32>,
    /// Model calls per turn at most.
    pub max_iterations: Option<u32>,
    /// Tokens per turn at most.
    #[specta(type = Option<u32>)]
    pub token_budget: Option<u64>,
    /// Whether it is the one used when none is named.
    pub default: bool,
    /// What keeps it from working as configured, in words.
    pub problem: Option<String>,
}

/// One toolbox of an agent and the tools it offers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
pub struct ToolboxInfo {
    /// The toolbox.
    pub name: String,
    /// Its tools this agent is offered.
    pub tools: Vec<String>,
}

impl Agents<'_> {
    /// Every enabled agent with what it resolves to; configuration
    /// problems (an unknown provider or toolbox, a filter naming a tool
    /// that does not exist, an unreadable instructions file) are reported
    /// per agent, without contacting any provider.
    pub fn infos(&self) -> Vec<AgentInfo> {
        let default = self
            .e
            .agents_file
            .default_agent(self.e.settings.agent.as_deref())
            .map(|a| a.name.clone());
        let kit = self.e.tools().kit(None).map_err(|e| e.to_string());
        self.e
            .agents_file
            .enabled()
            .map(|def| {
                let mut info = AgentInfo {
                    name: def.name.clone(),
                    description: def.description.clone(),
                    specialisations: def.specialisations.clone(),
                    provider: None,
                    model: None,
                    toolboxes: Vec::new(),
                    delegable: def.delegable,
                    delegates: false,
                    max_messages: def.max_messages,
                    max_iterations: def.max_iterations,
                    token_budget: def.token_budget,
                    default: default.as_deref() == Some(def.name.as_str()),
                    problem: None,
                };
                if let Err(e) = self.fill_info(def, &kit, &mut info) {
                    info.problem = Some(e);
                }
                info
            })
            .collect()
    }

    fn fill_info(
        &self,
        def: &AgentDef,
        kit: &Result<Toolkit, String>,
        info: &mut AgentInfo,
    ) -> Result<(), String> {
        let text = |e: EngineError| e.to_string();
        let cfg = self.provider_for(def, None).map_err(text)?;
        info.provider = Some(cfg.name.clone());
        info.model = Some(cfg.model_name().to_string());
        def.instructions_text(&self.e.paths.config_dir)
            .map_err(|e| e.to_string())?;
        let catalog = kit.as_ref()?.catalog_for(def).map_err(text)?;
        info.toolboxes = catalog
            .specs()
            .map(|s| ToolboxInfo {
                name: s.name.clone(),
                tools: s.methods.iter().map(|m| m.name.clone()).collect(),
            })
            .collect();
        let mode = self
            .e
            .settings
            .interaction_mode
            .unwrap_or_else(|| cfg.effective_interaction_mode());
        info.delegates = cfg.tools
            && def.delegation.unwrap_or(true)
            && mode == InteractionMode::Api
            && !catalog.is_empty();
        Ok(())
    }
}
