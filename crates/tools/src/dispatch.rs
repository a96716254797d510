//! From a model's tool call to a result the model reads.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::context::{Pictures, ToolContext};
use crate::repair::repair_json;
use crate::spec::MethodSpec;
use crate::toolbox::{ToolError, Toolbox};
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
    /// Pictures the call made (a screenshot for the model, a thumbnail).
    #[serde(skip)]
    pub pictures: Pictures,
}

impl ToolCallRecord {
    /// A record without pictures.
    pub fn new(
        name: impl Into<String>,
        arguments: Value,
        outcome: ToolOutcome,
        duration: Duration,
    ) -> Self {
        Self {
            name: name.into(),
            arguments,
            outcome,
            duration,
            pictures: Pictures::default(),
        }
    }
}

mod millis {
    use serde::Serializer;
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}

impl Catalog {
    /// Resolves, validates and runs one call with a context that is never
    /// cancelled. Never panics; every failure is a [`ToolOutcome::Err`].
    pub async fn dispatch(&self, name: &str, args: Value) -> ToolCallRecord {
        self.dispatch_with(name, args, &ToolContext::default())
            .await
    }

    /// Resolves, validates and runs one call. Synchronous methods run on a
    /// blocking thread; when `ctx` is cancelled the call is abandoned at
    /// once and reported as cancelled (a synchronous method still running
    /// finishes in the background, its result dropped).
    pub async fn dispatch_with(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> ToolCallRecord {
        let started = Instant::now();
        let (toolbox, method) = match self.resolve(name) {
            Ok(r) => r,
            Err(msg) => {
                return ToolCallRecord::new(name, args, ToolOutcome::Err(msg), started.elapsed());
            }
        };
        let args = match args {
            Value::String(raw) if !raw.trim().is_empty() => match repair_json(&raw) {
                Ok(v) => v,
                Err(e) => Value::String(e.0),
            },
            other => other,
        };
        let ctx = ctx.for_call();
        let (arguments, outcome) = match validate(&method.schema, args.clone()) {
            Err(e) => (args, ToolOutcome::Err(format!("{}: {e}", method.name))),
            Ok(valid) => {
                let outcome = run_method(toolbox, method, valid.clone(), &ctx).await;
                (valid, outcome)
            }
        };
        tracing::debug!(method = %method.name, ok = !outcome.is_err(), "tool call");
        let mut record = ToolCallRecord::new(&method.name, arguments, outcome, started.elapsed());
        record.pictures = ctx.take_pictures();
        record
    }

    /// Repairs raw model output `{"method": "...", ...args}` (also with
    /// `name`/`tool` for the method and `arguments`/`args`/`parameters`
    /// holding the arguments) and dispatches it.
    pub async fn dispatch_raw(&self, raw: &str) -> ToolCallRecord {
        match split_call(raw) {
            Ok((name, args)) => self.dispatch(&name, args).await,
            Err(e) => ToolCallRecord::new(
                "",
                Value::String(raw.to_string()),
                ToolOutcome::Err(e),
                Duration::ZERO,
            ),
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

/// Runs a validated call, off the runtime when the method is synchronous,
/// racing the cancellation token.
async fn run_method(
    toolbox: &Arc<dyn Toolbox>,
    method: &MethodSpec,
    args: Value,
    ctx: &ToolContext,
) -> ToolOutcome {
    let call = call_method(toolbox, method, args, ctx);
    let result = tokio::select! {
        biased;
        _ = ctx.cancel_token().cancelled() => Ok(Err(ToolError::Cancelled)),
        r = call => r,
    };
    match result {
        Ok(Ok(v)) => ToolOutcome::Ok(v),
        Ok(Err(ToolError::InvalidArgs(e))) => ToolOutcome::Err(format!("{}: {e}", method.name)),
        Ok(Err(e)) => ToolOutcome::Err(e.to_string()),
        Err(panic) => ToolOutcome::Err(format!("{} failed unexpectedly: {panic}", method.name)),
    }
}

/// The call itself; `Err` holds a panic's message.
async fn call_method(
    toolbox: &Arc<dyn Toolbox>,
    method: &MethodSpec,
    args: Value,
    ctx: &ToolContext,
) -> Result<Result<Value, ToolError>, String> {
    if method.blocking
        && let Ok(rt) = tokio::runtime::Handle::try_current()
    {
        let (toolbox, ctx) = (Arc::clone(toolbox), ctx.clone());
        let name = method.name.clone();
        return rt
            .spawn_blocking(move || futures::executor::block_on(toolbox.call(&name, args, ctx)))
            .await
            .map_err(|e| match e.try_into_panic() {
                Ok(p) => panic_message(p),
                Err(e) => e.to_string(),
            });
    }
    let call = toolbox.call(&method.name, args, ctx.clone());
    futures::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(call))
        .await
        .map_err(panic_message)
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
