//! From a model's tool call to a result the model reads.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::catalog::Catalog;
use crate::repair::repair_json;
use crate::toolbox::ToolError;
use crate::validate::validate;

/// The result of one call, as the model will see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolOutcome {
    /// The method's result.
    Ok(Value),
    /// What went wrong, in words the model can act on.
    Err(String),
}

impl ToolOutcome {
    /// The text put in the tool-result message.
    pub fn to_model_text(&self) -> String {
        match self {
            ToolOutcome::Ok(Value::String(s)) => s.clone(),
            ToolOutcome::Ok(v) => v.to_string(),
            ToolOutcome::Err(e) => serde_json::json!({ "error": e }).to_string(),
        }
    }

    /// Whether it failed.
    pub fn is_err(&self) -> bool {
        matches!(self, ToolOutcome::Err(_))
    }
}

/// One dispatched call, for results and logs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// Method name as resolved (or as the model wrote it when unknown).
    pub name: String,
    /// Arguments after repair, coercion and defaults.
    pub arguments: Value,
    /// Result or error.
    pub outcome: ToolOutcome,
    /// Time spent.
    #[serde(with = "millis")]
    pub duration: Duration,
}

mod millis {
    use serde::Serializer;
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}

impl Catalog {
    /// Resolves, validates and runs one call. Never panics; every failure
    /// is a [`ToolOutcome::Err`].
    pub async fn dispatch(&self, name: &str, args: Value) -> ToolCallRecord {
        let started = Instant::now();
        let (toolbox, method) = match self.resolve(name) {
            Ok(r) => r,
            Err(msg) => {
                return ToolCallRecord {
                    name: name.to_string(),
                    arguments: args,
                    outcome: ToolOutcome::Err(msg),
                    duration: started.elapsed(),
                };
            }
        };
        let args = match args {
            Value::String(raw) if !raw.trim().is_empty() => match repair_json(&raw) {
                Ok(v) => v,
                Err(e) => Value::String(e.0),
            },
            other => other,
        };
        let (arguments, outcome) = match validate(&method.schema, args.clone()) {
            Err(e) => (args, ToolOutcome::Err(format!("{}: {e}", method.name))),
            Ok(valid) => {
                let call = toolbox.call(&method.name, valid.clone());
                let outcome =
                    match futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(call))
                        .await
                        .map_err(panic_message)
                    {
                        Ok(Ok(v)) => ToolOutcome::Ok(v),
                        Ok(Err(ToolError::InvalidArgs(e))) => {
                            ToolOutcome::Err(format!("{}: {e}", method.name))
                        }
                        Ok(Err(e)) => ToolOutcome::Err(e.to_string()),
                        Err(panic) => ToolOutcome::Err(format!(
                            "{} failed unexpectedly: {panic}",
                            method.name
                        )),
                    };
                (valid, outcome)
            }
        };
        tracing::debug!(method = %method.name, ok = !outcome.is_err(), "tool call");
        ToolCallRecord {
            name: method.name.clone(),
            arguments,
            outcome,
            duration: started.elapsed(),
        }
    }

    /// Repairs raw model output `{"method": "...", ...args}` (also with
    /// `name`/`tool` for the method and `arguments`/`args`/`parameters`
    /// holding the arguments) and dispatches it.
    pub async fn dispatch_raw(&self, raw: &str) -> ToolCallRecord {
        match split_call(raw) {
            Ok((name, args)) => self.dispatch(&name, args).await,
            Err(e) => ToolCallRecord {
                name: String::new(),
                arguments: Value::String(raw.to_string()),
                outcome: ToolOutcome::Err(e),
                duration: Duration::ZERO,
            },
        }
    }
}

/// Splits a repaired call object into method name and arguments.
pub fn split_call(raw: &str) -> Result<(String, Value), String> {
    let v = repair_json(raw).map_err(|e| e.to_string())?;
    let Value::Object(mut map) = v else {
        return Err("expected a JSON object like {\"method\": \"name\", …arguments}".into());
    };
    let name = ["method", "name", "tool", "function"]
        .iter()
        .find_map(|k| match map.get(*k) {
            Some(Value::String(s)) => Some((*k, s.clone())),
            _ => None,
        });
    let Some((key, name)) = name else {
        return Err("the object has no \"method\" field naming the tool to call".into());
    };
    map.remove(key);
    for k in ["arguments", "args", "parameters", "params"] {
        if map.len() == 1
            && let Some(inner) = map.get(k)
        {
            let inner = match inner {
                Value::String(s) => repair_json(s).unwrap_or(Value::String(s.clone())),
                other => other.clone(),
            };
            return Ok((name, inner));
        }
    }
    Ok((name, Value::Object(map.into_iter().collect::<Map<_, _>>())))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
