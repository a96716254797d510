//! Reading a model's text reply in prompt-based modes.

use serde_json::Value;

/// What a text reply asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelReply {
    /// The final answer.
    Answer(String),
    /// A question for the requester (subagents pause on it).
    Question(String),
    /// A tool call.
    Call {
        /// Method name as written.
        name: String,
        /// Arguments.
        args: Value,
    },
    /// A CLI-mode command line.
    Cli(String),
}

const ANSWER_METHODS: [&str; 4] = ["answer", "final_answer", "finalanswer", "final"];

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Interprets a reply. Text that is not a JSON object is the answer
/// itself (the fast path for trivial questions).
pub fn parse_reply(text: &str, toolbox_names: &[&str]) -> ModelReply {
    let t = text.trim();
    let looks_json = t.starts_with('{')
        || t.starts_with("```")
        || t.contains("\"method\"")
        || t.contains("'method'");
    if looks_json && let Ok(Value::Object(mut o)) = baton_tools::repair::repair_json(t) {
        let method = ["method", "name", "tool"].iter().find_map(|k| {
            o.get(*k)
                .and_then(Value::as_str)
                .map(|s| (k.to_string(), s.to_string()))
        });
        match method {
            Some((key, m)) if m.eq_ignore_ascii_case("cli") => {
                o.remove(&key);
                let cmd = ["command", "cmd", "line"]
                    .iter()
                    .find_map(|k| o.get(*k))
                    .map(text_of)
                    .unwrap_or_default();
                return ModelReply::Cli(cmd);
            }
            Some((_, m)) if ANSWER_METHODS.contains(&m.to_ascii_lowercase().as_str()) => {
                let a = ["answer", "text", "content", "result"]
                    .iter()
                    .find_map(|k| o.get(*k))
                    .map(text_of);
                return ModelReply::Answer(a.unwrap_or_default());
            }
            Some((_, _)) => {
                return match baton_tools::split_call(t) {
                    Ok((name, args)) => ModelReply::Call { name, args },
                    Err(_) => ModelReply::Answer(text.to_string()),
                };
            }
            None => {}
        }
        if let Some(q) = o.get("question").filter(|q| q.is_string()) {
            return ModelReply::Question(text_of(q));
        }
        if let Some(a) = o.get("answer").or_else(|| o.get("final_answer")) {
            return ModelReply::Answer(text_of(a));
        }
    }
    // CLI mode: small models often write the command line bare.
    if let Some(first) = t.split_whitespace().next()
        && toolbox_names.iter().any(|n| n.eq_ignore_ascii_case(first))
        && !t.contains('\n')
    {
        return ModelReply::Cli(t.to_string());
    }
    ModelReply::Answer(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replies() {
        let tb = ["FileTool"];
        assert_eq!(
            parse_reply("Hello! How can I help?", &tb),
            ModelReply::Answer("Hello! How can I help?".into())
        );
        assert_eq!(
            parse_reply("{\"answer\": \"42\"}", &tb),
            ModelReply::Answer("42".into())
        );
        assert_eq!(
            parse_reply("{\"method\": \"final_answer\", \"answer\": \"done\"}", &tb),
            ModelReply::Answer("done".into())
        );
        assert_eq!(
            parse_reply("{\"question\": \"Which sheet?\"}", &tb),
            ModelReply::Question("Which sheet?".into())
        );
        assert_eq!(
            parse_reply(
                "```json\n{'method': 'read_text_file', path: '/a.txt',}\n```",
                &tb
            ),
            ModelReply::Call {
                name: "read_text_file".into(),
                args: json!({"path": "/a.txt"})
            }
        );
        assert_eq!(
            parse_reply(
                "{\"method\":\"cli\",\"command\":\"FileTool list_directory --path /\"}",
                &tb
            ),
            ModelReply::Cli("FileTool list_directory --path /".into())
        );
        assert_eq!(
            parse_reply("FileTool list_directory /", &tb),
            ModelReply::Cli("FileTool list_directory /".into())
        );
        assert_eq!(
            parse_reply("Use {braces} in code", &tb),
            ModelReply::Answer("Use {braces} in code".into())
        );
    }
}
