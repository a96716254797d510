//! Baton's agent: the tool loop that turns a request into tool calls and
//! an answer, plain streaming chat, events with backpressure for front
//! doors, confirmation of external actions, subagents that can pause to
//! ask, sessions on disk, slash commands and history compaction.

mod agent;
mod branches;
mod calls;
mod commands;
mod compact;
mod confirm;
mod events;
mod ids;
mod pictures;
mod prompt;
mod reply;
mod repo;
mod session;
mod stop;
mod subagent;
mod turn;

pub use agent::{
    ActionResult, Agent, AgentConfig, DynamicContext, FileRenderer, TokenBudget, TurnContext,
};
pub use branches::{
    Branch, BranchError, Fork, branch_of, fork, shift_forks, switch, user_message_index,
    user_messages,
};
pub use commands::{
    CommandOutcome, DOCUMENT_AGENT, HELP, bypass_prompt, document_request, edit_request,
    handle_command,
};
pub use compact::{CompactionPolicy, CompactionReport, compact};
pub use confirm::{ConfirmPolicy, Confirmations, Pending, Questions};
pub use events::{AgentEvent, AgentPath, EventSink, EventStream, TurnEvent, TurnOutcome};
pub use ids::{BadSessionId, SESSION_ID_MAX, SessionId, TurnId};
pub use prompt::{BRIEF_PROMPT, DATA_NOTICE, system_prompt};
pub use reply::{ModelReply, parse_reply};
pub use repo::{MemorySessions, SessionRepo};
pub use session::{
    AgentSettings, CitedAnswer, Session, SessionError, SessionInfo, SessionStore, VoiceTurn,
};
pub use stop::StopReason;
pub use subagent::{SubagentFactory, SubagentSpec};
