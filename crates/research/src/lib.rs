//! Deep research: one question answered from many web sources, every
//! claim with the passage it stands on.
//!
//! [`Research::run`] goes through five stages, each told as a
//! [`ResearchEvent`]:
//! 1. **Plan**: a planner splits the question into sub-questions.
//! 2. **Search**: each sub-question goes to the user's [`Searcher`] (the
//!    browser's search page, or a search API: [`SearchApi`]).
//! 3. **Read**: the sources found (addresses from the search results
//!    only, never from pages) are read by the [`Reader`] several at a
//!    time; a reader agent lists each source's claims, each with a passage
//!    quoted from the page. A claim whose passage is not on the page, or
//!    whose passage speaks to the assistant rather than about the subject,
//!    is dropped ([`evidence`]).
//! 4. **Review**: a reviewer checks the claims against their quotes.
//! 5. **Write**: a writer turns the kept claims into a report citing its
//!    sources as `[n]`; Baton keeps only citations of real sources and
//!    links to them, and adds the numbered source list with each quote.
//!
//! Page text is data: the reader agent gets each page fenced, the
//! reviewer and writer only the claims kept, fenced too, with claims and
//! titles that speak to an AI left out; the agents of a research job have
//! no tools, so nothing a page says can make Baton open, send or change
//! anything. The crate knows nothing of models
//! or browsers: the engine gives it its agents ([`Member`]s), a reader and
//! a searcher.

mod briefs;
mod error;
pub mod evidence;
mod job;
mod parse;
mod report;
mod search;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub use baton_orchestrator::{CancellationToken, Member};
pub use error::ResearchError;
pub use job::Research;
pub use report::{Claim, Dropped, DroppedWhy, FailedPage, Report, Source, renumbered};
pub use search::{SearchApi, SearchService};

/// A page as read: its address (after redirects), title and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its visible text (Markdown).
    pub text: String,
}

/// Reads web pages (the browser, one tab per page).
pub trait Reader: Send + Sync {
    /// The page at `url`, or why it could not be read, in words.
    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Page, String>>;
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// Its title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// A snippet of its text.
    #[serde(default)]
    pub snippet: String,
}

/// Searches the web.
pub trait Searcher: Send + Sync {
    /// Up to `max` results for `query`, or why the search failed, in words.
    fn search<'a>(&'a self, query: &'a str, max: usize) -> BoxFuture<'a, Result<Vec<Hit>, String>>;
}

/// The agents of a research job (they may be the same agent); each is
/// asked without tools.
#[derive(Clone)]
pub struct Roles {
    /// Splits the question into sub-questions.
    pub planner: Arc<dyn Member>,
    /// Lists a source's claims with their quotes.
    pub reader: Arc<dyn Member>,
    /// Checks the claims against their quotes.
    pub reviewer: Arc<dyn Member>,
    /// Writes the report.
    pub writer: Arc<dyn Member>,
}

/// What the user allows a job: how many sources, how long, how many
/// tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// The most sources read.
    pub sources: usize,
    /// Sources read at once (1: one after the other).
    pub parallel: usize,
    /// The most sub-questions searched.
    pub questions: usize,
    /// Reading stops after this many seconds; the report is written from
    /// what was read by then.
    pub seconds: u64,
    /// Reading stops once the job's agents have used this many tokens
    /// (none: no limit).
    pub tokens: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            sources: 8,
            parallel: 4,
            questions: 4,
            seconds: 600,
            tokens: None,
        }
    }
}

impl Limits {
    /// The reading time limit.
    pub fn time(&self) -> Duration {
        // At most a day: a limit that large is no limit, and stays a time.
        Duration::from_secs(self.seconds.clamp(1, 86_400))
    }
}

/// A stage of a research job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename = "ResearchStage", rename_all = "camelCase")]
pub enum Stage {
    /// Splitting the question into sub-questions.
    Planning,
    /// Searching the web.
    Searching,
    /// Reading the sources.
    Reading,
    /// Checking the claims.
    Reviewing,
    /// Writing the report.
    Writing,
}

/// What a research job is doing, as it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ResearchEvent {
    /// A stage began.
    Stage {
        /// Which.
        stage: Stage,
    },
    /// The sub-questions to search.
    Planned {
        /// Them.
        questions: Vec<String>,
    },
    /// A search answered.
    Searched {
        /// What was searched.
        query: String,
        /// Results found.
        #[specta(type = u32)]
        found: usize,
        /// Why the search failed, in words (none: it answered).
        failed: Option<String>,
    },
    /// A source was read and its claims checked.
    SourceRead {
        /// Its address.
        url: String,
        /// Its title.
        title: String,
        /// Claims kept from it.
        #[specta(type = u32)]
        kept: usize,
        /// Claims dropped (no such passage on the page, or one that speaks
        /// to the assistant).
        #[specta(type = u32)]
        dropped: usize,
    },
    /// A source could not be read.
    SourceFailed {
        /// Its address.
        url: String,
        /// Why, in words.
        why: String,
    },
    /// Reading stopped before every source was read.
    Stopped {
        /// Why (the time or token limit), in words.
        why: String,
    },
    /// The reviewer's verdict.
    Reviewed {
        /// Claims kept.
        #[specta(type = u32)]
        kept: usize,
        /// Claims the reviewer found unsupported by their quotes.
        #[specta(type = u32)]
        dropped: usize,
    },
}
