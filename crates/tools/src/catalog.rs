//! The registered toolboxes and every rendering generated from them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::spec::{MethodSpec, ToolboxSpec, type_label};
use crate::toolbox::Toolbox;

/// A tool definition for a provider's native tool calling.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NativeTool {
    /// Method name.
    pub name: String,
    /// Description (toolbox summary + method doc).
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// Problems registering toolboxes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// Two methods would answer to the same name.
    #[error("tool name `{name}` is used by both {first} and {second}")]
    DuplicateName {
        /// The (normalized) name.
        name: String,
        /// First owner (`Toolbox.method`).
        first: String,
        /// Second owner.
        second: String,
    },
    /// A filter names a tool the toolbox does not have.
    #[error("{0}")]
    UnknownTool(String),
}

/// Lower-case without `_` and `-`: `fill_fields`, `FillFields`,
/// `fillFields` and `fill-fields` all become `fillfields`.
pub fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-' && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Which of a toolbox's tools an agent is offered (configuration's
/// `includeTools` / `excludeTools`; names in any casing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// Only these tools (all when `None`).
    pub include: Option<Vec<String>>,
    /// Never these tools.
    pub exclude: Vec<String>,
}

impl ToolFilter {
    /// Whether the filter offers every tool.
    pub fn is_all(&self) -> bool {
        self.include.is_none() && self.exclude.is_empty()
    }

    /// `spec` with only the tools the filter lets through; `Err` names a
    /// tool the filter mentions that the toolbox does not have.
    pub fn apply(&self, spec: &ToolboxSpec) -> Result<ToolboxSpec, String> {
        let known = |n: &String| {
            spec.methods
                .iter()
                .any(|m| normalize(&m.name) == normalize(n))
        };
        let listed = self.include.iter().flatten().chain(&self.exclude);
        if let Some(bad) = listed.into_iter().find(|n| !known(n)) {
            let names: Vec<&str> = spec.methods.iter().map(|m| m.name.as_str()).collect();
            return Err(format!(
                "{} has no tool `{bad}`; its tools: {}",
                spec.name,
                names.join(", ")
            ));
        }
        let has = |list: &[String], m: &MethodSpec| {
            list.iter().any(|n| normalize(n) == normalize(&m.name))
        };
        let methods = spec
            .methods
            .iter()
            .filter(|m| self.include.as_deref().is_none_or(|inc| has(inc, m)))
            .filter(|m| !has(&self.exclude, m))
            .cloned()
            .collect();
        Ok(ToolboxSpec {
            methods,
            ..spec.clone()
        })
    }
}

/// The toolboxes an agent may use, each with the tools it is offered.
#[derive(Clone, Default)]
pub struct Catalog {
    toolboxes: Vec<Arc<dyn Toolbox>>,
    /// What each toolbox offers here (its spec, or a filtered copy).
    specs: Vec<Arc<ToolboxSpec>>,
    /// normalized method name → (toolbox index, method index)
    index: HashMap<String, (usize, usize)>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.specs().map(|s| &s.name))
            .finish()
    }
}

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a toolbox; method names must be unique across toolboxes.
    pub fn register(&mut self, toolbox: Arc<dyn Toolbox>) -> Result<(), CatalogError> {
        let spec = toolbox.spec().clone();
        self.register_offering(toolbox, spec)
    }

    /// Registers a toolbox offering only the tools `filter` lets through.
    pub fn register_filtered(
        &mut self,
        toolbox: Arc<dyn Toolbox>,
        filter: &ToolFilter,
    ) -> Result<(), CatalogError> {
        let spec = filter
            .apply(toolbox.spec())
            .map_err(CatalogError::UnknownTool)?;
        self.register_offering(toolbox, spec)
    }

    fn register_offering(
        &mut self,
        toolbox: Arc<dyn Toolbox>,
        spec: ToolboxSpec,
    ) -> Result<(), CatalogError> {
        let t = self.toolboxes.len();
        let mut added = Vec::new();
        for (m, method) in spec.methods.iter().enumerate() {
            let key = normalize(&method.name);
            if let Some(&(t0, m0)) = self.index.get(&key) {
                let other = &self.specs[t0];
                for k in added {
                    self.index.remove(&k);
                }
                return Err(CatalogError::DuplicateName {
                    name: method.name.clone(),
                    first: format!("{}.{}", other.name, other.methods[m0].name),
                    second: format!("{}.{}", spec.name, method.name),
                });
            }
            self.index.insert(key.clone(), (t, m));
            added.push(key);
        }
        self.toolboxes.push(toolbox);
        self.specs.push(Arc::new(spec));
        Ok(())
    }

    /// Builder form of [`Catalog::register`].
    pub fn with(mut self, toolbox: Arc<dyn Toolbox>) -> Result<Self, CatalogError> {
        self.register(toolbox)?;
        Ok(self)
    }

    /// What each toolbox offers here (filtered), in registration order.
    pub fn specs(&self) -> impl Iterator<Item = &ToolboxSpec> + '_ {
        self.specs.iter().map(|s| &**s)
    }

    /// The toolboxes.
    pub fn toolboxes(&self) -> &[Arc<dyn Toolbox>] {
        &self.toolboxes
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Every method name, in registration order.
    pub fn method_names(&self) -> Vec<&str> {
        self.specs()
            .flat_map(|s| s.methods.iter().map(|m| m.name.as_str()))
            .collect()
    }

    /// What the user must confirm before call `name` runs: the
    /// `Toolbox.method` and the arguments as they will run (validated, keys
    /// renamed to the schema's, so nothing hides behind a `CC`), when the
    /// method changes state elsewhere or sends something off the machine
    /// and its toolbox is not one
    /// of the built-in toolboxes in `exempt` (allowed in the settings; a
    /// toolbox that only takes such a name is not). `None` for every other
    /// call, unknown names included (dispatch reports those).
    pub fn confirmation(
        &self,
        name: &str,
        args: &Value,
        exempt: &[crate::ToolboxId],
    ) -> Option<(String, Value)> {
        let (toolbox, method) = self.resolve(name).ok()?;
        let spec = toolbox.spec();
        if !method.effect.asks() || exempt.iter().any(|id| id.is(&**toolbox)) {
            return None;
        }
        let shown = crate::validate::validate(&method.schema, args.clone())
            .unwrap_or_else(|_| args.clone());
        Some((format!("{}.{}", spec.name, method.name), shown))
    }

    /// Whether call `name` with `args` must wait for the user's card, when
    /// [`confirmation`](Self::confirmation) says it asks: its toolbox may
    /// know this call only goes where the user went or asked to go.
    pub async fn card_needed(&self, name: &str, args: &Value, user_words: &str) -> bool {
        match self.pending(name, args, user_words) {
            Some((toolbox, call)) => toolbox.card_needed(call).await,
            None => true,
        }
    }

    /// What call `name` with `args` will really do, in words for the
    /// user's card, when its toolbox can tell more than the arguments.
    pub async fn describe(&self, name: &str, args: &Value, user_words: &str) -> Option<String> {
        let (toolbox, call) = self.pending(name, args, user_words)?;
        toolbox.describe(call).await
    }

    /// Call `name` as its toolbox is asked about it before it runs.
    fn pending<'a>(
        &'a self,
        name: &str,
        args: &'a Value,
        user_words: &'a str,
    ) -> Option<(&'a Arc<dyn Toolbox>, crate::PendingCall<'a>)> {
        let (toolbox, method) = self.resolve(name).ok()?;
        let call = crate::PendingCall {
            method: &method.name,
            args,
            user_words,
        };
        Some((toolbox, call))
    }

    /// Finds a method by any casing, or as `Toolbox.method`.
    pub fn resolve(&self, name: &str) -> Result<(&Arc<dyn Toolbox>, &MethodSpec), String> {
        let trimmed = name.trim();
        let (toolbox_part, method_part) = match trimmed.rsplit_once('.') {
            Some((t, m)) => (Some(t), m),
            None => (None, trimmed),
        };
        if let Some(&(t, m)) = self.index.get(&normalize(method_part)) {
            let (tb, spec) = (&self.toolboxes[t], &self.specs[t]);
            let ok = toolbox_part.is_none_or(|tp| normalize(tp) == normalize(&spec.name));
            if ok {
                return Ok((tb, &spec.methods[m]));
            }
        }
        Err(self.unknown_method_message(name))
    }

    /// "unknown method `x`; did you mean …? Available: …"
    pub fn unknown_method_message(&self, name: &str) -> String {
        let wanted = normalize(name.rsplit('.').next().unwrap_or(name));
        let mut scored: Vec<(f64, &str)> = self
            .method_names()
            .into_iter()
            .map(|m| (strsim::jaro_winkler(&wanted, &normalize(m)), m))
            .filter(|(s, _)| *s >= 0.75)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let near: Vec<String> = scored
            .iter()
            .take(3)
            .map(|(_, m)| format!("`{m}`"))
            .collect();
        let mut msg = format!("unknown method `{name}`");
        if !near.is_empty() {
            let _ = write!(msg, "; did you mean {}?", near.join(" or "));
        }
        let _ = write!(
            msg,
            " Available methods: {}.",
            self.method_names().join(", ")
        );
        msg
    }

    /// The manual the model reads: toolbox summaries, then each method
    /// with its parameters, in registration order.
    pub fn markdown(&self) -> String {
        let mut out = String::from("## Toolboxes\n\n");
        for s in self.specs() {
            let _ = writeln!(out, "- **{}**: {}", s.name, s.summary);
        }
        out.push_str("\n## Methods\n");
        for s in self.specs() {
            for m in &s.methods {
                let _ = write!(out, "\n### {}\n\n{}\n", m.name, m.description);
                if m.params.is_empty() {
                    out.push_str("\nNo parameters.\n");
                    continue;
                }
                out.push_str("\nParameters:\n");
                for p in &m.params {
                    let mut line = format!("- `{}` ({}", p.name, type_label(&p.schema));
                    if p.required {
                        line.push_str(", required");
                    } else if let Some(d) = p.schema.get("default") {
                        let _ = write!(line, ", default {d}");
                    } else {
                        line.push_str(", optional");
                    }
                    line.push(')');
                    if !p.description.is_empty() {
                        let _ = write!(line, ": {}", p.description);
                    }
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
        out
    }

    /// Native tool definitions (one per method).
    pub fn native_tools(&self) -> Vec<NativeTool> {
        self.specs()
            .flat_map(|s| {
                s.methods.iter().map(move |m| NativeTool {
                    name: m.name.clone(),
                    description: m.description.clone(),
                    parameters: m.schema.clone(),
                })
            })
            .collect()
    }

    /// A JSON listing of toolboxes, methods and schemas.
    pub fn json_listing(&self) -> Value {
        Value::Array(
            self.specs()
                .map(|s| {
                    json!({"toolbox": s.name, "summary": s.summary, "methods": s.methods.iter().map(|m| json!({
                        "name": m.name, "description": m.description, "parameters": m.schema
                    })).collect::<Vec<_>>()})
                })
                .collect(),
        )
    }

    /// CLI help: every toolbox with its summary.
    pub fn cli_help(&self) -> String {
        let mut out = String::from(
            "Usage: <Toolbox> <command> [arguments]   (add --help to any of them)\n\nToolboxes:\n",
        );
        for s in self.specs() {
            let _ = writeln!(out, "  {:<16} {}", s.name, s.summary);
        }
        out
    }

    /// The one-line command list of each toolbox, for the CLI-mode prompt.
    pub fn cli_command_list(&self) -> String {
        let mut out = String::new();
        for s in self.specs() {
            let cmds: Vec<&str> = s.methods.iter().map(|m| m.name.as_str()).collect();
            let _ = writeln!(out, "- {} {{{}}}: {}", s.name, cmds.join("|"), s.summary);
        }
        out
    }

    /// CLI help of one toolbox: its commands.
    pub fn cli_toolbox_help(&self, toolbox: &str) -> Option<String> {
        let s = self
            .specs()
            .find(|s| normalize(&s.name) == normalize(toolbox))?;
        let mut out = format!("{} — {}\n\nCommands:\n", s.name, s.summary);
        for m in &s.methods {
            let first = m.description.lines().next().unwrap_or("");
            let _ = writeln!(out, "  {:<20} {}", m.name, first);
        }
        let _ = write!(
            out,
            "\n`{} <command> --help` shows a command's arguments.\n",
            s.name
        );
        Some(out)
    }

    /// CLI help of one command: usage and arguments.
    pub fn cli_command_help(&self, toolbox: &str, method: &MethodSpec) -> String {
        let mut usage = format!("{toolbox} {}", method.name);
        for p in &method.params {
            let arg = if type_label(&p.schema) == "boolean" {
                format!("--{}", p.name)
            } else {
                format!("--{} <{}>", p.name, type_label(&p.schema))
            };
            if p.required {
                let _ = write!(usage, " {arg}");
            } else {
                let _ = write!(usage, " [{arg}]");
            }
        }
        let mut out = format!("Usage: {usage}\n\n{}\n", method.description);
        if !method.params.is_empty() {
            out.push_str("\nArguments (by name, or positionally in this order):\n");
            for p in &method.params {
                let mut line = format!("  --{:<18} {}", p.name, p.description);
                if let Some(d) = p.schema.get("default") {
                    let _ = write!(line, " (default {d})");
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out
    }
}
