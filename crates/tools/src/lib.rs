//! Deterministic tool calling.
//!
//! A toolbox is a Rust type whose `pub` methods are tools, registered by
//! `#[toolbox]` (see `baton-tools-macros`). From the registered toolboxes
//! the [`Catalog`] renders everything the model and the user see — the
//! Markdown manual, native tool definitions, CLI help, a JSON listing —
//! and dispatches what the model sends: [`repair`] turns raw output into
//! JSON, names are matched whatever their casing, [`validate`] checks and
//! coerces arguments against the schema, and the method runs. A failure is
//! a [`ToolOutcome::Err`] the model reads, never a panic.
//!
//! [`Sandbox`] maps the agent's `/…` paths into the workspace folder and
//! is the only way a tool touches files.

mod catalog;
pub mod cli;
mod context;
mod dispatch;
mod place;
pub mod repair;
mod sandbox;
mod sources;
mod spec;
mod toolbox;
pub mod validate;

pub use baton_tools_macros::toolbox;
pub use catalog::{Catalog, CatalogError, NativeTool, ToolFilter, normalize};
pub use context::{Effect, PendingCall, Pictures, ToolContext, ToolImage};
pub use dispatch::{ToolCallRecord, ToolOutcome, split_call};
pub use place::Place;
pub use sandbox::{Sandbox, SandboxError};
pub use sources::{Citation, Cited, Source, Sources, map_citations};
pub use spec::{MethodSpec, ParamSpec, ToolboxDoc, ToolboxSpec};
pub use tokio_util::sync::CancellationToken;
pub use toolbox::{ToolError, Toolbox, ToolboxId};

/// Items the `#[toolbox]` macro's generated code refers to.
#[doc(hidden)]
pub mod __private {
    pub use futures::future::BoxFuture;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    /// A method's `Result<T, E>` as the dispatcher's result.
    pub fn into_outcome<T: serde::Serialize, E: std::fmt::Display>(
        r: Result<T, E>,
    ) -> Result<serde_json::Value, crate::ToolError> {
        match r {
            Ok(v) => serde_json::to_value(v)
                .map_err(|e| crate::ToolError::Failed(format!("result could not be encoded: {e}"))),
            Err(e) => Err(crate::ToolError::Failed(e.to_string())),
        }
    }
}
