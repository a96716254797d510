//! The tasks file: `schedule.json` in Baton's data folder, each task with
//! its schedule, its next run and its last runs; written atomically under
//! a lock beside it (the desktop, `baton daemon` and the CLI all edit it).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Schedule;
use crate::plan;

/// How many runs each task keeps in its history.
pub const RUNS_KEPT: usize = 50;

/// Why a task operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The tasks file could not be read or written.
    #[error("the scheduled tasks file {path} could not be {doing}: {reason}")]
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `written`.
        doing: &'static str,
        /// The system's words.
        reason: String,
    },
    /// The tasks file is not Baton's (damaged or foreign); it is left as
    /// it is.
    #[error("the scheduled tasks file {path} is damaged ({reason}); it was left untouched")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The time could not be read.
    #[error(transparent)]
    When(#[from] crate::WhenError),
    /// The prompt is empty.
    #[error("a scheduled task needs a prompt: what Baton should do")]
    NoPrompt,
    /// No task has this id.
    #[error("no scheduled task has the id {0} (`baton schedule list` shows them)")]
    NotFound(TaskId),
}

/// A task's id: `t` and eight hexadecimal digits (`t3f9a02c1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TaskId(String);

/// Text that is not a task id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a task id (t and eight hexadecimal digits, as `baton schedule list` shows)")]
pub struct BadTaskId(pub String);

impl TaskId {
    /// A fresh id.
    pub fn new() -> TaskId {
        TaskId(baton_stdx::short_id('t'))
    }

    /// Reads an id as the user typed it.
    pub fn parse(text: &str) -> Result<TaskId, BadTaskId> {
        let t = text.trim();
        baton_stdx::is_short_id(t, 't')
            .then(|| TaskId(t.to_string()))
            .ok_or_else(|| BadTaskId(text.to_string()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for TaskId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for TaskId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for TaskId {
    type Err = BadTaskId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TaskId::parse(s)
    }
}

impl TryFrom<String> for TaskId {
    type Error = BadTaskId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        TaskId::parse(&s)
    }
}

impl From<TaskId> for String {
    fn from(id: TaskId) -> String {
        id.0
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum RunStatus {
    /// The agent answered; nothing waited for the user.
    Answered,
    /// The agent answered but an action waited for the user's yes (it was
    /// not done: the user is told).
    Waiting,
    /// The run failed (the model could not be reached, …); tried again on
    /// the stated rule ([`plan::RETRY_AFTER`]).
    Failed,
}

/// One run of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskRun {
    /// When it started.
    #[specta(type = String)]
    pub started: DateTime<Utc>,
    /// How long it took, in milliseconds.
    #[specta(type = u32)]
    pub elapsed_ms: u64,
    /// How it ended.
    pub status: RunStatus,
    /// The answer's first words, why it failed, or what waits for a yes.
    pub summary: String,
    /// Tokens the model read and wrote (its cost).
    #[specta(type = u32)]
    pub tokens: u64,
}

/// A task: what to ask, of whom, when, and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ScheduledTask {
    /// Its id.
    #[specta(type = String)]
    pub id: TaskId,
    /// What Baton is asked, as the user would type it.
    pub prompt: String,
    /// When, as the user wrote it (`every weekday at 8:00`).
    pub when: String,
    /// When, as read.
    pub schedule: Schedule,
    /// The named agent it runs with (`None`: the default one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Whether a notification says when a run ends (the desktop; `baton
    /// daemon` prints a line).
    #[serde(default = "yes")]
    pub notify: bool,
    /// Whether each run's answer is e-mailed to the user (their own
    /// address, as `email_me` sends).
    #[serde(default)]
    pub email: bool,
    /// When it was made.
    #[specta(type = String)]
    pub created: DateTime<Utc>,
    /// When it runs next (`None`: not again, a one-time task that ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[specta(type = Option<String>)]
    pub next_run: Option<DateTime<Utc>>,
    /// Its last runs, oldest first (at most [`RUNS_KEPT`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<TaskRun>,
}

fn yes() -> bool {
    true
}

impl ScheduledTask {
    /// The conversation its runs are kept in (`scheduled-` and its id).
    pub fn session_name(&self) -> String {
        format!("scheduled-{}", self.id)
    }

    /// Its last run, if it ran.
    pub fn last_run(&self) -> Option<&TaskRun> {
        self.runs.last()
    }
}

/// A task to make.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewTask {
    /// What to ask.
    pub prompt: String,
    /// When, in the user's words or as a cron pattern.
    pub when: String,
    /// The agent (`None`: the default).
    pub agent: Option<String>,
    /// A notification when a run ends.
    pub notify: bool,
    /// Each run's answer e-mailed to the user.
    pub email: bool,
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TasksFile {
    version: u32,
    tasks: Vec<ScheduledTask>,
}

baton_stdx::from_json_file_error!(ScheduleError);

/// The scheduled tasks of one Baton data folder.
#[derive(Debug)]
pub struct TaskStore {
    file: baton_stdx::JsonFile,
}

impl TaskStore {
    /// The tasks kept in `data_dir` (`schedule.json`; made with the first).
    pub fn in_dir(data_dir: &Path) -> TaskStore {
        TaskStore {
            file: baton_stdx::JsonFile::new(data_dir.join("schedule.json")),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Every task, in the order made.
    pub fn list(&self) -> Result<Vec<ScheduledTask>, ScheduleError> {
        self.read()
    }

    /// Task `id`.
    pub fn get(&self, id: &TaskId) -> Result<ScheduledTask, ScheduleError> {
        self.read()?
            .into_iter()
            .find(|t| &t.id == id)
            .ok_or_else(|| ScheduleError::NotFound(id.clone()))
    }

    /// Makes a task from `new`, its time read at `now` in `zone`.
    pub fn add(
        &self,
        new: NewTask,
        now: DateTime<chrono_tz::Tz>,
    ) -> Result<ScheduledTask, ScheduleError> {
        let prompt = new.prompt.trim().to_string();
        if prompt.is_empty() {
            return Err(ScheduleError::NoPrompt);
        }
        let schedule = Schedule::parse(&new.when, now)?;
        let created = now.with_timezone(&Utc);
        let task = ScheduledTask {
            id: TaskId::new(),
            prompt,
            when: new.when.trim().to_string(),
            next_run: schedule.next_after(created),
            schedule,
            agent: new.agent.filter(|a| !a.trim().is_empty()),
            notify: new.notify,
            email: new.email,
            created,
            runs: Vec::new(),
        };
        self.edit(|tasks| {
            tasks.push(task.clone());
            Ok(task)
        })
    }

    /// Removes task `id`.
    pub fn remove(&self, id: &TaskId) -> Result<ScheduledTask, ScheduleError> {
        self.edit(|tasks| {
            let at = tasks
                .iter()
                .position(|t| &t.id == id)
                .ok_or_else(|| ScheduleError::NotFound(id.clone()))?;
            Ok(tasks.remove(at))
        })
    }

    /// Keeps `run` in task `id`'s history and works out its next run
    /// ([`plan::next_run`]) from when the run ended, `now`.
    pub fn record(
        &self,
        id: &TaskId,
        run: TaskRun,
        now: DateTime<Utc>,
    ) -> Result<ScheduledTask, ScheduleError> {
        self.edit(|tasks| {
            let task = tasks
                .iter_mut()
                .find(|t| &t.id == id)
                .ok_or_else(|| ScheduleError::NotFound(id.clone()))?;
            task.runs.push(run);
            if task.runs.len() > RUNS_KEPT {
                let extra = task.runs.len() - RUNS_KEPT;
                task.runs.drain(..extra);
            }
            task.next_run = plan::next_run(task, now);
            Ok(task.clone())
        })
    }

    /// Reads, changes and writes the list under the lock beside the file.
    fn edit<T>(
        &self,
        change: impl FnOnce(&mut Vec<ScheduledTask>) -> Result<T, ScheduleError>,
    ) -> Result<T, ScheduleError> {
        self.file.edit(|f: &mut TasksFile| {
            f.version = 1;
            change(&mut f.tasks)
        })
    }

    /// The tasks in the file (none when there is no file yet).
    fn read(&self) -> Result<Vec<ScheduledTask>, ScheduleError> {
        Ok(self.file.read::<TasksFile>()?.tasks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<chrono_tz::Tz> {
        chrono_tz::Europe::Warsaw
            .with_ymd_and_hms(2026, 12, 4, 10, 15, 0)
            .unwrap()
    }

    fn run(status: RunStatus, at: DateTime<Utc>) -> TaskRun {
        TaskRun {
            started: at,
            elapsed_ms: 1200,
            status,
            summary: "done".into(),
            tokens: 42,
        }
    }

    #[test]
    fn tasks_are_made_listed_run_and_removed_across_stores() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::in_dir(dir.path());
        assert!(store.list().unwrap().is_empty());
        let new = NewTask {
            prompt: " Summarise my unread mail ".into(),
            when: "every weekday at 8:00".into(),
            agent: Some("assistant".into()),
            notify: true,
            email: false,
        };
        let task = store.add(new, now()).unwrap();
        assert_eq!(task.prompt, "Summarise my unread mail");
        let monday = chrono_tz::Europe::Warsaw
            .with_ymd_and_hms(2026, 12, 7, 8, 0, 0)
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(task.next_run, Some(monday));
        let again = TaskStore::in_dir(dir.path());
        assert_eq!(again.get(&task.id).unwrap(), task);
        let ran = again
            .record(&task.id, run(RunStatus::Answered, monday), monday)
            .unwrap();
        assert_eq!(ran.runs.len(), 1);
        assert_eq!(ran.next_run, Some(monday + chrono::Duration::days(1)));
        assert_eq!(store.remove(&task.id).unwrap().id, task.id);
        assert!(matches!(
            store.get(&task.id),
            Err(ScheduleError::NotFound(_))
        ));
    }

    #[test]
    fn bad_input_is_refused_and_a_damaged_file_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::in_dir(dir.path());
        let empty = NewTask {
            prompt: "  ".into(),
            when: "in 2 hours".into(),
            ..NewTask::default()
        };
        assert!(matches!(
            store.add(empty, now()),
            Err(ScheduleError::NoPrompt)
        ));
        let never = NewTask {
            prompt: "x".into(),
            when: "when the moon is blue".into(),
            ..NewTask::default()
        };
        assert!(matches!(
            store.add(never, now()),
            Err(ScheduleError::When(_))
        ));
        std::fs::write(store.path(), "{ not json").unwrap();
        let e = store.list().unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
        let new = NewTask {
            prompt: "x".into(),
            when: "in 2 hours".into(),
            ..NewTask::default()
        };
        assert!(store.add(new, now()).is_err());
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "{ not json");
        assert!(TaskId::parse("t3f9a02c1").is_ok());
        assert!(TaskId::parse("../x").is_err());
    }

    #[test]
    fn the_history_keeps_the_last_runs() {
        let dir = tempfile::tempdir().unwrap();
        let store = TaskStore::in_dir(dir.path());
        let new = NewTask {
            prompt: "x".into(),
            when: "every 15 minutes".into(),
            ..NewTask::default()
        };
        let task = store.add(new, now()).unwrap();
        let mut at = now().with_timezone(&Utc);
        for _ in 0..(RUNS_KEPT + 5) {
            at += chrono::Duration::minutes(15);
            store
                .record(&task.id, run(RunStatus::Answered, at), at)
                .unwrap();
        }
        let kept = store.get(&task.id).unwrap().runs;
        assert_eq!(kept.len(), RUNS_KEPT);
        assert_eq!(kept.last().unwrap().started, at);
    }
}
