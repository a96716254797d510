//! What an orchestration is asked and what it gives back.

use serde::{Deserialize, Serialize};

/// How an orchestration runs (seed 001's `OrchestratorOptions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// Raise events for each stage.
    pub enable_events: bool,
    /// Members may search the internet (the browser toolbox's `web_search`).
    pub enable_internet_search: bool,
    /// Each answer is reviewed by another member, and revised until approved.
    pub enable_peer_review: bool,
    /// Revisions per assignment at most; then the answer is final.
    pub max_revise_attempts: u32,
    /// Tokens across all members at most (`None`: no limit). Past it the
    /// run stops with what it has and a budget error.
    pub max_tokens: Option<u64>,
    /// Run the assignments one after the other (each sees the earlier
    /// answers in the shared state) instead of all at once.
    pub sequential: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            enable_events: true,
            enable_internet_search: false,
            enable_peer_review: true,
            max_revise_attempts: 5,
            max_tokens: None,
            sequential: false,
        }
    }
}

/// One piece of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Assignment {
    /// What to do.
    pub task: String,
    /// Who should do it.
    #[serde(alias = "specialization")]
    pub specialisation: String,
}

/// A member's final answer to its assignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentResponse {
    /// The member.
    pub agent: String,
    /// Its assignment.
    pub assignment: Assignment,
    /// Its final answer.
    pub response: String,
    /// Revisions made after reviews.
    pub revisions: u32,
    /// Tokens it used (revisions included).
    #[specta(type = u32)]
    pub tokens: u64,
}

/// A review of one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ReviewResult {
    /// Who reviewed.
    pub reviewer: String,
    /// Whose answer.
    pub author: String,
    /// Whether it was approved.
    pub approved: bool,
    /// What to change (or why it is good).
    pub feedback: String,
    /// Which review of this answer (1 for the first).
    pub round: u32,
}

/// The outcome (seed 001's `OrchestrationResult`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OrchestrationResult {
    /// The run's id, in every event and span.
    pub session_id: String,
    /// The answer: the synthesis, or the single member's answer.
    pub final_response: String,
    /// The plan the members worked on.
    pub plan: Vec<Assignment>,
    /// Each member's final answer.
    pub agent_responses: Vec<AgentResponse>,
    /// Every review.
    pub reviews: Vec<ReviewResult>,
    /// One assignment: no review, no synthesis.
    pub short_circuited: bool,
    /// Stopped by the caller.
    pub cancelled: bool,
    /// Tokens used across all members.
    #[specta(type = u32)]
    pub total_tokens: u64,
    /// Whether it finished.
    pub success: bool,
    /// Why it did not, in words.
    pub error: Option<String>,
    /// What Baton did differently from the configuration (a built-in
    /// planner, a plan that could not be read, no reviewer), in words.
    pub notes: Vec<String>,
    /// How long the whole run took, in milliseconds.
    #[specta(type = u32)]
    pub elapsed_ms: u64,
    /// How long each stage took, in the order they ended.
    pub stages: Vec<StageTiming>,
}

/// How long one stage of a run took: planning, a member's briefing, work,
/// review or revision of one assignment, the synthesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StageTiming {
    /// The stage.
    pub stage: crate::Stage,
    /// The member at work.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub agent: Option<String>,
    /// Which assignment (from 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional, type = Option<u32>)]
    pub assignment: Option<usize>,
    /// The review round or revision (from 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub round: Option<u32>,
    /// Milliseconds.
    #[specta(type = u32)]
    pub elapsed_ms: u64,
}
