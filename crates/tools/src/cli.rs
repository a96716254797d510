//! CLI mode: the model sends one command line (`FileTool list_directory
//! --path /reports`) instead of JSON. The parser takes positional and
//! `--name value` arguments, `--flag` booleans, quoting, JSON or
//! comma-separated arrays, and `-h`, `--help`, `-help`, `?` at toolbox
//! and command level, all generated from the same catalog.

use serde_json::{Map, Value};

use crate::catalog::{Catalog, normalize};
use crate::spec::type_label;

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum CliCommand {
    /// Run a method with these (still unvalidated) arguments.
    Call {
        /// Method name.
        method: String,
        /// Arguments by name.
        args: Value,
    },
    /// Show this help text.
    Help(String),
}

fn is_help(t: &str) -> bool {
    matches!(t, "-h" | "--help" | "-help" | "?" | "help")
}

/// Parses one command line against the catalog.
pub fn parse(catalog: &Catalog, line: &str) -> Result<CliCommand, String> {
    let tokens = shell_words::split(line.trim())
        .map_err(|e| format!("cannot read the command line: {e} (check the quotes)"))?;
    let Some(first) = tokens.first() else {
        return Ok(CliCommand::Help(catalog.cli_help()));
    };
    if is_help(first) {
        return Ok(CliCommand::Help(catalog.cli_help()));
    }
    let spec = match catalog
        .specs()
        .find(|s| normalize(&s.name) == normalize(first))
    {
        Some(s) => s,
        None => {
            // `list_directory --path /` without the toolbox is unambiguous.
            if let Ok((tb, _)) = catalog.resolve(first) {
                let name = tb.spec().name.clone();
                let mut with = vec![name];
                with.extend(tokens.iter().cloned());
                return parse(catalog, &shell_words::join(with));
            }
            let names: Vec<&str> = catalog.specs().map(|s| s.name.as_str()).collect();
            return Err(format!(
                "unknown toolbox `{first}`; toolboxes: {}",
                names.join(", ")
            ));
        }
    };
    let Some(cmd) = tokens.get(1) else {
        return Ok(CliCommand::Help(
            catalog.cli_toolbox_help(&spec.name).unwrap_or_default(),
        ));
    };
    if is_help(cmd) {
        return Ok(CliCommand::Help(
            catalog.cli_toolbox_help(&spec.name).unwrap_or_default(),
        ));
    }
    let Some(method) = spec
        .methods
        .iter()
        .find(|m| normalize(&m.name) == normalize(cmd))
    else {
        let cmds: Vec<&str> = spec.methods.iter().map(|m| m.name.as_str()).collect();
        return Err(format!(
            "unknown command `{cmd}` for {}; commands: {}",
            spec.name,
            cmds.join(", ")
        ));
    };
    let rest = &tokens[2..];
    if rest.iter().any(|t| is_help(t)) {
        return Ok(CliCommand::Help(
            catalog.cli_command_help(&spec.name, method),
        ));
    }
    let mut args = Map::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let tok = &rest[i];
        if let Some(flag) = tok.strip_prefix("--").filter(|f| !f.is_empty()) {
            let (key, inline) = match flag.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (flag, None),
            };
            let Some(param) = method
                .params
                .iter()
                .find(|p| normalize(&p.name) == normalize(key))
            else {
                let names: Vec<String> = method
                    .params
                    .iter()
                    .map(|p| format!("--{}", p.name))
                    .collect();
                return Err(format!(
                    "unknown argument `--{key}` for {} {}; arguments: {}",
                    spec.name,
                    method.name,
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            };
            let is_bool = type_label(&param.schema) == "boolean";
            let value = match inline {
                Some(v) => v,
                None if is_bool => match rest.get(i + 1).map(|s| s.to_ascii_lowercase()) {
                    Some(v) if v == "true" || v == "false" => {
                        i += 1;
                        v
                    }
                    _ => "true".to_string(),
                },
                None => {
                    i += 1;
                    rest.get(i)
                        .cloned()
                        .ok_or_else(|| format!("argument `--{}` needs a value", param.name))?
                }
            };
            args.insert(param.name.clone(), typed(&param.schema, &value));
        } else {
            positional.push(tok);
        }
        i += 1;
    }
    let named: Vec<String> = args.keys().cloned().collect();
    let mut free = method.params.iter().filter(|p| !named.contains(&p.name));
    for value in positional {
        let Some(param) = free.next() else {
            return Err(format!(
                "too many arguments for {} {}: `{value}` has no parameter left (see `{} {} --help`)",
                spec.name, method.name, spec.name, method.name
            ));
        };
        args.insert(param.name.clone(), typed(&param.schema, value));
    }
    Ok(CliCommand::Call {
        method: method.name.clone(),
        args: Value::Object(args),
    })
}

/// Command-line text → JSON shaped for the parameter (arrays from JSON or
/// commas, objects from JSON); scalars stay text and are coerced by the
/// validator.
fn typed(schema: &Value, value: &str) -> Value {
    let label = type_label(schema);
    if label.starts_with("array") {
        if value.trim_start().starts_with('[')
            && let Ok(v) = serde_json::from_str::<Value>(value)
        {
            return v;
        }
        return Value::Array(
            value
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_string()))
                .collect(),
        );
    }
    if label == "object"
        && let Ok(v) = serde_json::from_str::<Value>(value)
    {
        return v;
    }
    Value::String(value.to_string())
}
