//! What a toolbox declares: names, docs and JSON Schemas.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;

use crate::context::Effect;

/// Type-level docs of a toolbox (from its struct's doc comment).
pub trait ToolboxDoc {
    /// The type's name (`FileTool`).
    const NAME: &'static str;
    /// The first line of the type's doc comment.
    const SUMMARY: &'static str;
}

/// One parameter of a method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamSpec {
    /// Name.
    pub name: String,
    /// Description from the `- name: text` doc line.
    pub description: String,
    /// Must be given.
    pub required: bool,
    /// Its JSON Schema.
    pub schema: Value,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSpec {
    /// Method name (snake_case).
    pub name: String,
    /// What it does (the doc comment without parameter lines).
    pub description: String,
    /// Parameters in declaration order.
    pub params: Vec<ParamSpec>,
    /// The arguments' JSON Schema (an object schema, subschemas inlined).
    pub schema: Value,
    /// What it does to the world (`#[effect(…)]`; read by default).
    pub effect: Effect,
    /// A synchronous method: dispatch runs it on a blocking thread, off
    /// the async runtime.
    #[serde(skip)]
    pub blocking: bool,
}

impl MethodSpec {
    /// Builds the spec from the generated arguments type `A`.
    pub fn new<A: JsonSchema>(name: &str, description: &str, docs: &[(&str, &str)]) -> Self {
        let generator = SchemaSettings::draft07()
            .with(|s| {
                s.inline_subschemas = true;
                s.meta_schema = None;
            })
            .for_deserialize()
            .into_generator();
        let mut schema = generator.into_root_schema_for::<A>().to_value();
        if let Some(o) = schema.as_object_mut() {
            o.remove("title");
            o.remove("$schema");
            o.remove("definitions");
            o.remove("$defs");
            if !o.contains_key("properties") {
                o.insert("properties".into(), Value::Object(Default::default()));
            }
        }
        let required: Vec<String> = schema["required"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut params = Vec::new();
        if let Some(props) = schema["properties"].as_object() {
            for (n, s) in props {
                params.push(ParamSpec {
                    name: n.clone(),
                    description: docs
                        .iter()
                        .find(|(d, _)| d == n)
                        .map(|(_, t)| t.to_string())
                        .unwrap_or_default(),
                    required: required.contains(n),
                    schema: s.clone(),
                });
            }
        }
        // Keep declaration order (the schema's map may be sorted).
        let order: Vec<&str> = docs.iter().map(|(n, _)| *n).collect();
        params.sort_by_key(|p| {
            order
                .iter()
                .position(|n| *n == p.name)
                .unwrap_or(usize::MAX)
        });
        Self {
            name: name.to_string(),
            description: description.to_string(),
            params,
            schema,
            effect: Effect::Read,
            blocking: false,
        }
    }

    /// The same spec declaring `effect`.
    pub fn with_effect(mut self, effect: Effect) -> Self {
        self.effect = effect;
        self
    }

    /// The same spec marked synchronous (run on a blocking thread).
    pub fn blocking(mut self, blocking: bool) -> Self {
        self.blocking = blocking;
        self
    }

    /// The parameter named `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// A toolbox: its name, summary and methods in source order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolboxSpec {
    /// Type name.
    pub name: String,
    /// One-line summary.
    pub summary: String,
    /// Its tools.
    pub methods: Vec<MethodSpec>,
}

/// A short human rendering of a schema's type (`string`, `integer`,
/// `array of string`, `one of "a", "b"`).
pub fn type_label(schema: &Value) -> String {
    if let Some(e) = schema["enum"].as_array() {
        return format!(
            "one of {}",
            e.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let t = match &schema["type"] {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str())
            .filter(|s| *s != "null")
            .collect::<Vec<_>>()
            .join("|"),
        _ => {
            if let Some(any) = schema["anyOf"].as_array() {
                return any
                    .iter()
                    .filter(|s| s["type"] != "null")
                    .map(type_label)
                    .collect::<Vec<_>>()
                    .join("|");
            }
            "any".into()
        }
    };
    if t == "array" {
        return format!("array of {}", type_label(&schema["items"]));
    }
    t
}
