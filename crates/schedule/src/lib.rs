//! Baton's scheduled tasks: a prompt for an agent that Baton runs on its
//! own on a schedule and reports back in a chat of the task's own.
//!
//! - [`Schedule`] (when.rs): when a task runs, read from what the user
//!   writes (a cron pattern, plain words for a repeat, or one time) in the
//!   user's time zone.
//! - [`TaskStore`] (store.rs): the tasks file, `schedule.json` in the data
//!   folder, each task with its next run and its last runs.
//! - [`plan`]: the rules for when a task is due (a run missed while the
//!   computer slept runs once, failures are tried again on a stated rule).
//! - [`ScheduleTool`] (tool.rs): `schedule_task` and friends for chats.
//!
//! Running a task is the engine's (`Engine::schedule`): it owns the
//! agents, the conversations and the clock.

pub mod plan;
mod store;
mod tool;
mod when;

pub use store::{
    BadTaskId, NewTask, RUNS_KEPT, RunStatus, ScheduleError, ScheduledTask, TaskId, TaskRun,
    TaskStore,
};
pub use tool::{ScheduleTool, TaskLine, UtcClock};
pub use when::{Schedule, WhenError, local_zone, shown, zone};
