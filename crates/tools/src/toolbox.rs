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

/// A built-in toolbox's identity: its Rust type, which nothing else (an
/// MCP server, a plugin) can take, whatever name it gives itself. Rights
/// granted in the settings (`email.confirmSend: false`) go by identity,
/// never by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolboxId {
    type_id: std::any::TypeId,
    name: &'static str,
}

impl ToolboxId {
    /// The identity of toolbox type `T`.
    pub fn of<T: Toolbox + crate::ToolboxDoc + 'static>() -> Self {
        Self {
            type_id: std::any::TypeId::of::<T>(),
            name: T::NAME,
        }
    }

    /// The type's name (`MailTool`), for messages.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether `toolbox` is of this type.
    pub fn is(&self, toolbox: &dyn Toolbox) -> bool {
        let any: &dyn std::any::Any = toolbox;
        any.type_id() == self.type_id
    }
}

/// A set of tools (a type's `pub` methods). Implemented by `#[toolbox]`.
pub trait Toolbox: std::any::Any + Send + Sync {
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

    /// Whether `call`, of a method that asks (`Change` or `External`),
    /// must wait for the user's card. A toolbox that can tell a call that
    /// only goes where the user already went or asked to go in this
    /// conversation, carrying nothing the model composed, answers `false`
    /// for it (`#[toolbox]` maps a private `async fn card_needed(&self,
    /// call: PendingCall<'_>) -> bool` here). By default every such call
    /// asks.
    fn card_needed<'a>(&'a self, call: crate::PendingCall<'a>) -> BoxFuture<'a, bool> {
        let _ = call;
        Box::pin(async { true })
    }

    /// What `call` will really do, in words for the user's card, worked
    /// out before asking (the element a click lands on and where it leads,
    /// the data an address carries); `None` when the arguments say it
    /// (`#[toolbox]` maps a private `async fn describe(&self, call:
    /// PendingCall<'_>) -> Option<String>` here).
    fn describe<'a>(&'a self, call: crate::PendingCall<'a>) -> BoxFuture<'a, Option<String>> {
        let _ = call;
        Box::pin(async { None })
    }
}
