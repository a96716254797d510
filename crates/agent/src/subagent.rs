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

/// The toolbox name delegation has on CLI mode's command line:
/// `Subagents launch AGENT TASK…` and `Subagents answer INPUT…`.
pub const CLI_TOOLBOX: &str = "Subagents";

/// The commands of [`CLI_TOOLBOX`] in the `cli` tool's pattern.
pub const CLI_PATTERN: &str = "Subagents (launch|answer)";

/// The line of [`CLI_TOOLBOX`] in CLI mode's command list.
pub const CLI_LINE: &str =
    "- Subagents {launch|answer}: delegate a task to a sub-agent; answer a sub-agent's question";

/// A CLI-mode command line for delegation, as the call it stands for (a
/// delegation tool's name and its arguments); `None` when the line is not
/// one. `Subagents launch AGENT TASK…` (or `--agent`, `--task`) and
/// `Subagents answer INPUT…` (or `--input`, `--session_id`).
pub fn from_command_line(
    line: &str,
    specs: &[SubagentSpec],
) -> Option<Result<(&'static str, Value), String>> {
    let first = line.split_whitespace().next()?;
    if baton_tools::normalize(first) != baton_tools::normalize(CLI_TOOLBOX) {
        return None;
    }
    let rest = line.trim_start()[first.len()..].trim_start();
    // A task with an apostrophe is no shell quoting: then plain words.
    let tokens = shell_words::split(rest)
        .unwrap_or_else(|_| rest.split_whitespace().map(String::from).collect());
    let Some((command, args)) = tokens.split_first() else {
        return Some(Err(usage(specs)));
    };
    let (named, loose) = flags(args);
    let parsed = match which(command).or(match String::as_str(command) {
        "launch" => Some(LAUNCH),
        "answer" => Some(PROVIDE),
        _ => None,
    }) {
        Some(LAUNCH) => launch_args(named, loose, specs),
        Some(_) => answer_args(named, loose),
        None => Err(usage(specs)),
    };
    Some(parsed)
}

/// `--name value` pairs and the other words, in order.
fn flags(args: &[String]) -> (Vec<(String, String)>, Vec<String>) {
    let (mut named, mut loose) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.strip_prefix("--") {
            Some(name) if !name.is_empty() => {
                let value = it.next().cloned().unwrap_or_default();
                named.push((name.replace('-', "_"), value));
            }
            _ => loose.push(a.clone()),
        }
    }
    (named, loose)
}

fn launch_args(
    named: Vec<(String, String)>,
    mut loose: Vec<String>,
    specs: &[SubagentSpec],
) -> Result<(&'static str, Value), String> {
    let mut args = serde_json::Map::new();
    for (k, v) in named {
        args.insert(k, Value::String(v));
    }
    if !args.contains_key("agent")
        && let Some(first) = loose.first()
        && specs.iter().any(|s| s.name.eq_ignore_ascii_case(first))
    {
        args.insert("agent".into(), Value::String(loose.remove(0)));
    }
    if !args.contains_key("task") && !loose.is_empty() {
        args.insert("task".into(), Value::String(loose.join(" ")));
    }
    if !args.contains_key("task") {
        return Err(usage(specs));
    }
    Ok((LAUNCH, Value::Object(args)))
}

fn answer_args(
    named: Vec<(String, String)>,
    loose: Vec<String>,
) -> Result<(&'static str, Value), String> {
    let mut args = serde_json::Map::new();
    for (k, v) in named {
        args.insert(k, Value::String(v));
    }
    if !args.contains_key("input") && !loose.is_empty() {
        args.insert("input".into(), Value::String(loose.join(" ")));
    }
    if !args.contains_key("input") {
        return Err("`Subagents answer` needs the answer: `Subagents answer YOUR ANSWER`".into());
    }
    Ok((PROVIDE, Value::Object(args)))
}

/// How delegation is written on the command line.
fn usage(specs: &[SubagentSpec]) -> String {
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    format!(
        "write `Subagents launch AGENT TASK` (AGENT one of: {}) to delegate, or `Subagents answer YOUR ANSWER` to answer a sub-agent's question",
        names.join(", ")
    )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<SubagentSpec> {
        ["researcher", "document-preparer"]
            .iter()
            .map(|name| SubagentSpec {
                name: name.to_string(),
                summary: String::new(),
                factory: Arc::new(|| panic!("no sub-agent is launched when a line is read")),
            })
            .collect()
    }

    #[test]
    fn a_delegation_on_the_command_line_is_the_call_it_stands_for() {
        let read = |line: &str| from_command_line(line, &specs());
        assert_eq!(read("FileTool read_text_file /a.txt"), None);
        let (tool, args) = read("Subagents launch Researcher Read /q1.txt and say what it holds")
            .unwrap()
            .unwrap();
        assert_eq!(tool, LAUNCH);
        assert_eq!(
            args,
            json!({"agent": "Researcher", "task": "Read /q1.txt and say what it holds"})
        );
        // Flags, quotes, and a task whose apostrophe is no quoting.
        let (_, args) = read("subagents launch --agent researcher --task 'Read /q1.txt'")
            .unwrap()
            .unwrap();
        assert_eq!(args, json!({"agent": "researcher", "task": "Read /q1.txt"}));
        let (_, args) = read("Subagents launch Find what's new").unwrap().unwrap();
        assert_eq!(args, json!({"task": "Find what's new"}));
        let (tool, args) = read("Subagents answer The budget is 1200 EUR")
            .unwrap()
            .unwrap();
        assert_eq!(tool, PROVIDE);
        assert_eq!(args, json!({"input": "The budget is 1200 EUR"}));
        let (tool, _) = read("Subagents launch_subagent --task x").unwrap().unwrap();
        assert_eq!(tool, LAUNCH);
        for bad in [
            "Subagents",
            "Subagents launch",
            "Subagents answer",
            "Subagents fly away",
        ] {
            let e = read(bad).unwrap().unwrap_err();
            assert!(
                e.contains("Subagents launch AGENT TASK") || e.contains("Subagents answer"),
                "{bad}: {e}"
            );
        }
    }
}
