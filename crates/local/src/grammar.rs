//! Tool definitions → one JSON Schema → a llama.cpp grammar.

use baton_llm::ToolDefinition;
use serde_json::{Map, Value, json};

/// The schema of a reply: a call of one of `tools` (method name as a
/// constant, that tool's parameters, required ones required, no others)
/// or a final answer.
pub fn answer_or_call_schema(tools: &[ToolDefinition]) -> Value {
    let mut options: Vec<Value> = tools
        .iter()
        .map(|t| {
            let mut props = Map::new();
            props.insert("method".into(), json!({"const": t.name}));
            let mut required = vec![json!("method")];
            if let Some(p) = t.parameters["properties"].as_object() {
                for (k, v) in p {
                    props.insert(k.clone(), any_if_true(v));
                }
            }
            if let Some(r) = t.parameters["required"].as_array() {
                required.extend(r.iter().cloned());
            }
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
        })
        .collect();
    options.push(
        json!({"type": "object", "properties": {"answer": {"type": "string"}},
                        "required": ["answer"], "additionalProperties": false}),
    );
    json!({"oneOf": options})
}

/// Drops keywords that only document (`description`, `default`, `title`,
/// `examples`) so the grammar stays small. Strings are left unbounded:
/// a `maxLength` becomes a repetition that llama.cpp's grammar sampler
/// expands (tried: 1000 characters made sampling about 9× slower), so
/// runaway strings are stopped by the token limit instead.
fn strip(schema: &Value) -> Value {
    match schema {
        Value::Object(o) => {
            let out: Map<String, Value> = o
                .iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "description" | "default" | "title" | "examples" | "format"
                    )
                })
                .map(|(k, v)| match (k.as_str(), v) {
                    // `true` (any value) is a schema llama.cpp's converter
                    // rejects as `items` (serde_json::Value parameters).
                    ("items", Value::Bool(true)) => (k.clone(), json!({})),
                    ("properties", Value::Object(p)) => (
                        k.clone(),
                        Value::Object(p.iter().map(|(n, s)| (n.clone(), any_if_true(s))).collect()),
                    ),
                    _ => (k.clone(), strip(v)),
                })
                .collect();
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// A property's schema, `{}` for the boolean schema `true`.
fn any_if_true(schema: &Value) -> Value {
    match schema {
        Value::Bool(true) => json!({}),
        other => strip(other),
    }
}

/// The GBNF grammar for [`answer_or_call_schema`].
pub fn tools_grammar(tools: &[ToolDefinition]) -> Result<String, String> {
    let schema = answer_or_call_schema(tools);
    llama_cpp_2::json_schema_to_grammar(&schema.to_string())
        .map_err(|e| format!("cannot build the tool grammar: {e}"))
}

/// The grammar of any JSON object (JSON mode without tools).
pub fn object_grammar() -> Result<String, String> {
    llama_cpp_2::json_schema_to_grammar(r#"{"type": "object"}"#).map_err(|e| e.to_string())
}

/// The tool manual put into the system prompt.
pub fn tools_manual(tools: &[ToolDefinition]) -> String {
    let mut out = String::from("You can use these tools:\n");
    for t in tools {
        let params: Vec<String> = t.parameters["properties"]
            .as_object()
            .map(|p| {
                p.iter()
                    .map(|(k, v)| {
                        let ty = v["type"].as_str().unwrap_or("value");
                        let req = t.parameters["required"]
                            .as_array()
                            .is_some_and(|r| r.iter().any(|x| x == k));
                        format!("{k} ({ty}{})", if req { "" } else { ", optional" })
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "- {}: {} Parameters: {}\n",
            t.name,
            t.description.lines().next().unwrap_or(""),
            if params.is_empty() {
                "none".into()
            } else {
                params.join(", ")
            }
        ));
    }
    out.push_str(
        "Reply with one JSON object: {\"method\": \"<tool>\", <parameters>} to use a tool, or \
         {\"answer\": \"<final answer>\"} when done.",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, params: Value) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: format!("{name} things"),
            parameters: params,
        }
    }

    #[test]
    fn tricky_schemas_compile_to_grammars() {
        let tools = vec![
            tool(
                "nested",
                json!({"type": "object", "properties": {
                "outer": {"type": "object", "properties": {"inner": {"type": "array", "items": {"type": "integer"}}},
                          "required": ["inner"]}}, "required": ["outer"]}),
            ),
            tool(
                "any_values",
                json!({"type": "object", "properties": {"value": true,
                 "values": {"type": "array", "items": {"type": "array", "items": true}}}, "required": ["values"]}),
            ),
            tool(
                "enums",
                json!({"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast", "full"]},
                 "n": {"type": ["integer", "null"]}}}),
            ),
            tool(
                "escapes",
                json!({"type": "object", "properties": {"text": {"type": "string", "description": "say \"hi\"\n\\ now"}},
                 "required": ["text"], "additionalProperties": false}),
            ),
            tool(
                "one_of",
                json!({"type": "object", "properties": {"colour": {"oneOf": [
                {"const": "red", "type": "string"}, {"const": "blue", "type": "string"}]}}}),
            ),
        ];
        let g = tools_grammar(&tools).unwrap();
        assert!(g.contains("root ::="), "{g}");
        for name in [
            "nested",
            "any_values",
            "enums",
            "escapes",
            "one_of",
            "answer",
        ] {
            assert!(g.contains(name), "{name} missing from the grammar:\n{g}");
        }
        // Required parameters are required: the object rule for `nested`
        // has `outer` without an optional marker.
        let schema = answer_or_call_schema(&tools);
        assert_eq!(schema["oneOf"][0]["required"], json!(["method", "outer"]));
        assert_eq!(
            schema["oneOf"][0]["properties"]["method"],
            json!({"const": "nested"})
        );
        assert_eq!(schema["oneOf"][5]["required"], json!(["answer"]));
        assert!(object_grammar().unwrap().contains("root"));
    }
}
