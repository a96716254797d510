//! The [`Toolbox`] trait the `#[toolbox]` macro implements.

use futures::future::BoxFuture;
use serde_json::Value;

use crate::context::ToolContext;
use crate::spec::ToolboxSpec;

/// Why a tool call did not produce a result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// No method of that name.
    #[error("unknown method `{0}`")]
    UnknownMethod(String),
    /// Arguments did not fit the method.
    #[error("invalid arguments: {0}")]
    InvalidArgs(String),
    /// The method ran and failed; its own message.
    #[error("{0}")]
    Failed(String),
    /// The user stopped the turn while the method ran.
    #[error("cancelled: the user stopped this call before it finished")]
    Cancelled,
}

impl ToolError {
    /// From a serde error while reading arguments.
    pub fn from_args(e: serde_json::Error) -> Self {
        ToolError::InvalidArgs(e.to_string())
    }
}

/// A set of tools (a type's `pub` methods). Implemented by `#[toolbox]`.
pub trait Toolbox: Send + Sync {
    /// Names, docs and schemas of the methods, in source order.
    fn spec(&self) -> &ToolboxSpec;

    /// Calls `method` with `args` (already validated against its schema);
    /// `ctx` carries the call's cancellation.
    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>>;

    /// Releases what the toolbox holds (an open workbook, a browser) when
    /// its agent finishes.
    fn close<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
