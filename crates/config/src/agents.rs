//! Named agents (`agents.json`): who the user can talk to, each with a
//! provider entry and model, instructions, toolboxes with tool filters,
//! a compaction window, limits, and whether other agents may delegate to
//! it. The user's file in the config folder goes over the shipped
//! defaults by name (an entry with the same name replaces the shipped one;
//! `"enabled": false` hides it).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The file's name, in the config folder and beside the executable.
pub const AGENTS_FILE: &str = "agents.json";

/// The shipped agents, compiled in.
pub const FACTORY_AGENTS_JSON: &str = include_str!("../../../agents.json");

/// The agent conversations use when neither the front door nor the `agent`
/// setting names one (and it exists).
pub const DEFAULT_AGENT: &str = "assistant";

/// One toolbox an agent is offered, with its tool filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolboxRef {
    /// The toolbox (`FileTool`).
    pub name: String,
    /// Only these tools (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tools: Option<Vec<String>>,
    /// Never these tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
}

/// One named agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentDef {
    /// Unique name (any casing finds it).
    pub name: String,
    /// What it is for, for people and for agents choosing a delegate.
    #[serde(default)]
    pub description: String,
    /// What it is good at (`research`, `spreadsheets`), for orchestration.
    #[serde(
        default,
        alias = "specializations",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub specialisations: Vec<String>,
    /// The provider entry (default: the `provider` setting, else the
    /// providers file's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model, instead of the entry's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Instructions added to the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// A file of instructions (relative to the config folder), added after
    /// `instructions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions_file: Option<PathBuf>,
    /// The toolboxes it is offered (default: every built-in toolbox; `[]`
    /// for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolboxes: Option<Vec<ToolboxRef>>,
    /// Compact the history past this many messages (0: never compact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<u32>,
    /// Model calls per turn at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Tokens per turn at most, its subagents included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Whether it can be used at all.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Whether other agents are offered it as a subagent.
    #[serde(default)]
    pub delegable: bool,
    /// Whether it is offered subagents (one per toolbox in API mode, and
    /// every delegable agent); default: yes whenever its tools are on, a
    /// coordinator without toolboxes and CLI mode included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<bool>,
}

fn yes() -> bool {
    true
}

/// What is wrong with an agents file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentsError {
    /// The file could not be read.
    #[error("{file}: cannot be read: {reason}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// The file is not the expected JSON shape.
    #[error("{file}: {reason}")]
    Shape {
        /// The file.
        file: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// One agent's entry is wrong.
    #[error("{file}: agent `{agent}`: {reason}")]
    Agent {
        /// The file.
        file: String,
        /// The agent's name (or `#N` when it has none).
        agent: String,
        /// What is wrong: the field and the problem.
        reason: String,
    },
}

impl AgentDef {
    /// The agent's instructions: the inline text, then the file's
    /// (relative to `config_dir`), joined; `None` when it has neither.
    pub fn instructions_text(&self, config_dir: &Path) -> Result<Option<String>, AgentsError> {
        let mut parts: Vec<String> = self.instructions.iter().cloned().collect();
        if let Some(file) = &self.instructions_file {
            let path = config_dir.join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| AgentsError::Agent {
                file: AGENTS_FILE.into(),
                agent: self.name.clone(),
                reason: format!("`instructionsFile` {} cannot be read: {e}", path.display()),
            })?;
            parts.push(text);
        }
        let joined = parts
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n");
        Ok((!joined.is_empty()).then_some(joined))
    }
}

/// Reads the agents of one file's text; `file` names it in errors.
pub fn parse_agents(text: &str, file: &str) -> Result<Vec<AgentDef>, AgentsError> {
    let shape = |reason: String| AgentsError::Shape {
        file: file.to_string(),
        reason,
    };
    let doc: Value = serde_json::from_str(text).map_err(|e| shape(format!("not JSON: {e}")))?;
    let Value::Object(mut root) = doc else {
        return Err(shape(
            "expected an object like {\"agents\": [ … ]}".to_string(),
        ));
    };
    if let Some(extra) = root.keys().find(|k| k.as_str() != "agents") {
        return Err(shape(format!(
            "unknown field `{extra}` at the top level (expected `agents`)"
        )));
    }
    let list = match root.remove("agents") {
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(shape(format!(
                "`agents` must be a list, not {}",
                kind(&other)
            )));
        }
        None => return Err(shape("missing the `agents` list".to_string())),
    };
    let mut agents: Vec<AgentDef> = Vec::with_capacity(list.len());
    for (i, entry) in list.into_iter().enumerate() {
        let agent = parse_agent(entry, i, file)?;
        if agents
            .iter()
            .any(|a| a.name.eq_ignore_ascii_case(&agent.name))
        {
            return Err(AgentsError::Agent {
                file: file.to_string(),
                agent: agent.name,
                reason: "the name is used twice".into(),
            });
        }
        agents.push(agent);
    }
    Ok(agents)
}

/// One entry: the name first (so every later error can name the agent),
/// then the fields, each error naming its field.
fn parse_agent(entry: Value, i: usize, file: &str) -> Result<AgentDef, AgentsError> {
    let label = match entry.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.trim().to_string(),
        _ => format!("#{}", i + 1),
    };
    let bad = |reason: String| AgentsError::Agent {
        file: file.to_string(),
        agent: label.clone(),
        reason,
    };
    match entry.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => {}
        Some(Value::String(_)) => return Err(bad("`name` is empty".into())),
        Some(other) => return Err(bad(format!("`name` must be text, not {}", kind(other)))),
        None if entry.is_object() => return Err(bad("`name` is missing".into())),
        None => return Err(bad(format!("must be an object, not {}", kind(&entry)))),
    }
    let mut agent: AgentDef = serde_path_to_error::deserialize(entry).map_err(|e| {
        let mut path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // An unknown field's path ends in the field the message names.
        if inner.starts_with("unknown field") {
            path = path
                .rsplit_once('.')
                .map_or(String::new(), |(p, _)| p.to_string());
        }
        bad(if path == "." || path.is_empty() {
            inner
        } else {
            format!("`{path}`: {inner}")
        })
    })?;
    agent.name = agent.name.trim().to_string();
    if agent.max_iterations == Some(0) {
        return Err(bad("`maxIterations` must be at least 1".into()));
    }
    if let Some(t) = agent
        .toolboxes
        .iter()
        .flatten()
        .find(|t| t.name.trim().is_empty())
    {
        return Err(bad(format!("a toolbox has an empty `name` ({t:?})")));
    }
    Ok(agent)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The agents in effect, and what went wrong reading the user's file.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedAgents {
    /// Every agent, enabled or not (shipped ones first, in file order;
    /// the user's new ones after).
    pub agents: Vec<AgentDef>,
    /// Problems, in words (the user's file is then ignored).
    pub warnings: Vec<String>,
}

/// The shipped agents, read once per process.
static SHIPPED: std::sync::LazyLock<Vec<AgentDef>> = std::sync::LazyLock::new(|| {
    parse_agents(FACTORY_AGENTS_JSON, "shipped agents.json").expect("shipped agents.json")
});

impl LoadedAgents {
    /// The shipped agents with the user's `file` over them by name. A file
    /// that does not exist is no file; one that cannot be read or is
    /// wrong is ignored with a warning naming the problem.
    pub fn load(file: &Path) -> Self {
        let mut agents = SHIPPED.clone();
        let mut warnings = Vec::new();
        match read_user_file(file) {
            Ok(Some(user)) => merge(&mut agents, user),
            Ok(None) => {}
            Err(e) => warnings.push(format!("{e}; using the shipped agents")),
        }
        Self { agents, warnings }
    }

    /// The enabled agent named `name` (any casing).
    pub fn get(&self, name: &str) -> Option<&AgentDef> {
        self.agents
            .iter()
            .find(|a| a.enabled && a.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Whether `def` is one of the shipped agents as shipped (not
    /// replaced by the user's file).
    pub fn is_shipped(def: &AgentDef) -> bool {
        SHIPPED.iter().any(|s| s == def)
    }

    /// The enabled agents.
    pub fn enabled(&self) -> impl Iterator<Item = &AgentDef> {
        self.agents.iter().filter(|a| a.enabled)
    }

    /// The agent to use when none is named: `preferred` (the setting) if
    /// it exists, else [`DEFAULT_AGENT`], else the first enabled one.
    pub fn default_agent(&self, preferred: Option<&str>) -> Option<&AgentDef> {
        preferred
            .and_then(|p| self.get(p))
            .or_else(|| self.get(DEFAULT_AGENT))
            .or_else(|| self.enabled().next())
    }
}

fn read_user_file(file: &Path) -> Result<Option<Vec<AgentDef>>, AgentsError> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(AgentsError::Read {
                file: file.display().to_string(),
                reason: e.to_string(),
            });
        }
    };
    parse_agents(&text, &file.display().to_string()).map(Some)
}

/// Puts `user`'s agents over `base` by name.
fn merge(base: &mut Vec<AgentDef>, user: Vec<AgentDef>) {
    for agent in user {
        match base
            .iter_mut()
            .find(|a| a.name.eq_ignore_ascii_case(&agent.name))
        {
            Some(slot) => *slot = agent,
            None => base.push(agent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_agents(text, "agents.json").unwrap_err().to_string()
    }

    #[test]
    fn the_shipped_agents_parse_and_have_a_default() {
        let agents = parse_agents(FACTORY_AGENTS_JSON, "shipped").unwrap();
        assert!(agents.iter().any(|a| a.name == DEFAULT_AGENT));
        assert!(agents.iter().any(|a| a.delegable));
    }

    #[test]
    fn a_full_agent_reads_every_field() {
        let a = &parse_agents(
            r#"{"agents": [{"name": "clerk", "description": "d", "specializations": ["sheets"],
                "provider": "deepseek", "model": "m", "instructions": "Be brief.",
                "instructionsFile": "clerk.md",
                "toolboxes": [{"name": "FileTool", "includeTools": ["read_text_file"], "excludeTools": ["move_file"]}],
                "maxMessages": 0, "maxIterations": 5, "tokenBudget": 9000, "enabled": true,
                "delegable": true, "delegation": false}]}"#,
            "agents.json",
        )
        .unwrap()[0];
        assert_eq!(a.specialisations, vec!["sheets"]);
        assert_eq!(a.max_messages, Some(0));
        assert_eq!(a.token_budget, Some(9000));
        let tb = &a.toolboxes.as_ref().unwrap()[0];
        assert_eq!(
            tb.include_tools.as_deref(),
            Some(&["read_text_file".to_string()][..])
        );
        assert_eq!(tb.exclude_tools, vec!["move_file"]);
        assert_eq!(a.delegation, Some(false));
    }

    #[test]
    fn each_error_names_the_agent_and_the_field() {
        let cases = [
            (
                r#"{"agents": [{"name": "a", "colour": "red"}]}"#,
                "agent `a`: unknown field `colour`",
            ),
            (
                r#"{"agents": [{"name": "a", "maxMessages": "ten"}]}"#,
                "agent `a`: `maxMessages`: invalid type: string \"ten\"",
            ),
            (
                r#"{"agents": [{"name": "a", "toolboxes": [{"name": "FileTool", "includeTools": "read"}]}]}"#,
                "agent `a`: `toolboxes[0].includeTools`: invalid type: string",
            ),
            (
                r#"{"agents": [{"name": "a", "toolboxes": [{"name": "FileTool", "only": []}]}]}"#,
                "agent `a`: `toolboxes[0]`: unknown field `only`",
            ),
            (
                r#"{"agents": [{"name": "a", "enabled": "yes"}]}"#,
                "agent `a`: `enabled`: invalid type: string",
            ),
            (
                r#"{"agents": [{"name": "a", "maxIterations": 0}]}"#,
                "agent `a`: `maxIterations` must be at least 1",
            ),
            (
                r#"{"agents": [{"description": "no name"}]}"#,
                "agent `#1`: `name` is missing",
            ),
            (
                r#"{"agents": [{"name": 7}]}"#,
                "agent `#1`: `name` must be text, not a number",
            ),
            (
                r#"{"agents": ["assistant"]}"#,
                "agent `#1`: must be an object, not text",
            ),
            (
                r#"{"agents": [{"name": "a"}, {"name": "A"}]}"#,
                "agent `A`: the name is used twice",
            ),
            (
                r#"{"agents": {"name": "a"}}"#,
                "`agents` must be a list, not an object",
            ),
            (r#"{"agent": []}"#, "unknown field `agent` at the top level"),
            (r#"{"agents": [}"#, "not JSON"),
        ];
        for (text, want) in cases {
            let got = err(text);
            assert!(got.contains(want), "{text}\n  gave: {got}\n  want: {want}");
            assert!(got.starts_with("agents.json: "), "{got}");
        }
    }

    #[test]
    fn the_users_file_goes_over_the_shipped_one_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(AGENTS_FILE);
        std::fs::write(
            &file,
            r#"{"agents": [{"name": "Assistant", "description": "mine", "provider": "deepseek"},
                           {"name": "clerk", "description": "new"}]}"#,
        )
        .unwrap();
        let loaded = LoadedAgents::load(&file);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let a = loaded.get("assistant").unwrap();
        assert_eq!(
            (a.description.as_str(), a.provider.as_deref()),
            ("mine", Some("deepseek"))
        );
        assert!(loaded.get("clerk").is_some());
        assert_eq!(loaded.default_agent(Some("clerk")).unwrap().name, "clerk");
        assert_eq!(
            loaded.default_agent(Some("nobody")).unwrap().name,
            "Assistant"
        );
    }

    #[test]
    fn a_broken_users_file_is_ignored_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(AGENTS_FILE);
        std::fs::write(&file, r#"{"agents": [{"name": "x", "maxIterations": -1}]}"#).unwrap();
        let loaded = LoadedAgents::load(&file);
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].contains("agent `x`: `maxIterations`"),
            "{:?}",
            loaded.warnings
        );
        assert!(loaded.get(DEFAULT_AGENT).is_some());
    }

    #[test]
    fn a_disabled_agent_is_not_found_and_instructions_join_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("i.md"), "From the file.\n").unwrap();
        let agents = parse_agents(
            r#"{"agents": [{"name": "off", "enabled": false},
                           {"name": "on", "instructions": "Inline.", "instructionsFile": "i.md"},
                           {"name": "gone", "instructionsFile": "missing.md"}]}"#,
            "agents.json",
        )
        .unwrap();
        let loaded = LoadedAgents {
            agents,
            warnings: vec![],
        };
        assert!(loaded.get("off").is_none());
        let on = loaded.get("on").unwrap();
        assert_eq!(
            on.instructions_text(dir.path()).unwrap().as_deref(),
            Some("Inline.\n\nFrom the file.")
        );
        let e = loaded
            .get("gone")
            .unwrap()
            .instructions_text(dir.path())
            .unwrap_err();
        assert!(
            e.to_string().contains("agent `gone`: `instructionsFile`"),
            "{e}"
        );
    }
}
