//! Memory across chats: short facts and preferences about the user ("prefers
//! metric units", "the invoice folder is /Finance") that Baton keeps in one
//! file the user can list, edit and clear, and recalls into each turn.
//!
//! Nothing is remembered behind the user's back: an entry comes from the
//! user (`baton memory add`, the desktop's Memory page) or from the model's
//! `remember` tool ([`MemoryTool`]), which runs without a card only when the
//! fact is in the user's own words; anything else (a fact taken from an
//! attachment, a page or a mail) waits for the user's yes.
//!
//! Recall ([`MemoryContext::recall`]) keeps within a character budget:
//! when everything fits, everything is given (a preference such as "metric
//! units" shares no word with the questions it matters for); otherwise the
//! entries that share the question's words and, with the local embedding
//! model ([`MemoryVectors`]), those alike in meaning ("my pet's name" finds
//! "the dog is called Rex"), then the newest.

mod meaning;
mod recall;
mod store;
mod tool;

pub use meaning::MemoryVectors;
pub use recall::{MemoryContext, render};
pub use store::{BadMemoryId, Memory, MemoryError, MemoryId, MemorySource, MemoryStore};
pub use tool::MemoryTool;

/// Characters of memory recalled into one turn at most.
pub const RECALL_CHARS: usize = 1500;

/// Characters one entry may hold.
pub const MAX_ENTRY_CHARS: usize = 500;
