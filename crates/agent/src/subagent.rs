//! Subagents: agents a parent delegates to through two tools,
//! `launch_subagent(task, agent?)` and `provide_subagent_input(session_id?,
//! input)`. Each has its own provider client, toolboxes and history;
//! nothing leaks into the parent's context but the final result.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::agent::Agent;

/// Builds a fresh subagent (own provider client and toolboxes).
pub type SubagentFactory = Arc<dyn Fn() -> Agent + Send + Sync>;

/// A kind of subagent the parent may launch.
#[derive(Clone)]
pub struct SubagentSpec {
    /// Name the parent passes as `agent`.
    pub name: String,
    /// What it does (its toolbox summary), shown in the delegation line.
    pub summary: String,
    /// Makes one.
    pub factory: SubagentFactory,
}

impl std::fmt::Debug for SubagentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubagentSpec")
            .field("name", &self.name)
            .field("summary", &self.summary)
            .finish()
    }
}

/// Tool name: delegate a task.
pub const LAUNCH: &str = "launch_subagent";
/// Tool name: answer a subagent's question.
pub const PROVIDE: &str = "provide_subagent_input";

/// Native definitions of the two delegation tools.
pub fn tool_definitions(specs: &[SubagentSpec]) -> Vec<baton_llm::ToolDefinition> {
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    vec![
        baton_llm::ToolDefinition {
            name: LAUNCH.into(),
            description: "Delegates a task to a sub-agent and returns its result, or its question."
                .into(),
            parameters: json!({"type": "object", "properties": {
                "task": {"type": "string", "description": "the complete task"},
                "agent": {"type": "string", "enum": names, "description": "which sub-agent"}
            }, "required": ["task"], "additionalProperties": false}),
        },
        baton_llm::ToolDefinition {
            name: PROVIDE.into(),
            description: "Answers the question a sub-agent asked; it resumes where it stopped."
                .into(),
            parameters: json!({"type": "object", "properties": {
                "input": {"type": "string", "description": "the answer"},
                "session_id": {"type": "string", "description": "the sub-agent's session id (optional with one open)"}
            }, "required": ["input"], "additionalProperties": false}),
        },
    ]
}

/// Whether `name` is one of the delegation tools (any casing).
pub fn which(name: &str) -> Option<&'static str> {
    let n = baton_tools::normalize(name.rsplit('.').next().unwrap_or(name));
    if n == "launchsubagent" {
        Some(LAUNCH)
    } else if n == "providesubagentinput" {
        Some(PROVIDE)
    } else {
        None
    }
}

/// Reads a string argument, tolerating a JSON-string-encoded object.
pub fn arg(args: &Value, key: &str) -> Option<String> {
    match args.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    }
}
