//! Baton's agent: the tool loop that turns a request into tool calls and
//! an answer, plain streaming chat, events for front doors, subagents
//! that can pause to ask, sessions on disk, slash commands and history
//! compaction.

mod agent;
mod commands;
mod compact;
mod events;
mod prompt;
mod reply;
mod session;
mod subagent;

pub use agent::{ActionResult, Agent, AgentConfig, StopReason};
pub use commands::{CommandOutcome, handle_command};
pub use compact::{CompactionPolicy, CompactionReport, compact};
pub use events::{AgentEvent, EventSink};
pub use prompt::system_prompt;
pub use reply::{ModelReply, parse_reply};
pub use session::{Session, SessionError, SessionInfo, SessionStore};
pub use subagent::{SubagentFactory, SubagentSpec};
