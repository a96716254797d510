//! Scheduled tasks ([`Engine::schedule`]): the tasks file, a task run as
//! a turn in a chat of its own, and the scheduler that runs tasks when
//! they are due while Baton runs (the desktop, or `baton daemon`).
//!
//! Nobody may be at the computer when a task runs: an action that would
//! send something off it or change something on the user's accounts is
//! not done; the run ends [`RunStatus::Waiting`] and says what waits (the
//! user allows it by asking again in the task's chat).

use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_agent::{AgentEvent, SessionId, SessionRepo, StopReason, TurnOutcome};
use baton_llm::Message;
use baton_schedule::{NewTask, RunStatus, ScheduledTask, TaskId, TaskRun, TaskStore};
use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use crate::{ConfirmMode, ConversationOptions, Engine, EngineError, UserMessage};

/// Why a scheduled run does not act on its own.
const NOBODY_TO_ASK: &str =
    "a scheduled task runs while you may be away: open the task's chat and ask again to allow it";

/// The longest the scheduler sleeps between looks at the tasks file (a
/// task made by another process, or a computer back from sleep, is seen
/// within this).
pub const LOOK_EVERY: Duration = Duration::from_secs(5);

/// The scheduled tasks of an [`Engine`] (see [`Engine::schedule`]).
pub struct Scheduled<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

/// What one run of a task came to.
#[derive(Debug, Clone)]
pub struct TaskReport {
    /// The task as it is after the run (its next run worked out).
    pub task: ScheduledTask,
    /// The run, as kept in the task's history.
    pub run: TaskRun,
    /// The answer (empty when the run failed).
    pub answer: String,
    /// The actions that wait for the user's yes.
    pub waiting: Vec<String>,
    /// The chat the run is kept in.
    pub session: SessionId,
}

/// Told of each run the scheduler makes (a notification, a line).
pub type OnRun = Arc<dyn Fn(&TaskReport) + Send + Sync>;

/// The engine to run tasks on, asked before each look at the tasks (a
/// front door whose engine is replaced when the settings change gives
/// its current one).
pub type CurrentEngine = Arc<dyn Fn() -> Arc<Engine> + Send + Sync>;

/// The scheduler running in the background; [`stop`](Self::stop) ends it.
pub struct Scheduler {
    stop: CancellationToken,
    handle: tokio::task::JoinHandle<()>,
}

impl Scheduler {
    /// Starts the scheduler on the engine `current` gives: due tasks run
    /// in the background, each run told to `on_run`, until
    /// [`stop`](Self::stop).
    pub fn start(current: CurrentEngine, on_run: OnRun) -> Scheduler {
        let stop = CancellationToken::new();
        let handle = tokio::spawn(schedule_loop(current, on_run, stop.clone()));
        Scheduler { stop, handle }
    }

    /// Stops it (a run in progress finishes first).
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.handle.await;
    }
}

impl Scheduled<'_> {
    /// The tasks file (`schedule.json` in the data folder).
    pub fn store(&self) -> Arc<TaskStore> {
        self.e.task_store()
    }

    /// The user's time zone, which times are read in.
    pub fn zone(&self) -> chrono_tz::Tz {
        baton_schedule::local_zone()
    }

    /// The time now, on the engine's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.e.utc_now()
    }

    /// Every task, in the order made.
    pub fn list(&self) -> Result<Vec<ScheduledTask>, EngineError> {
        Ok(self.store().list()?)
    }

    /// Makes a task; its agent must be one of the user's.
    pub fn add(&self, new: NewTask) -> Result<ScheduledTask, EngineError> {
        if let Some(agent) = &new.agent {
            self.e.agents().def(Some(agent))?;
        }
        let now = self.now().with_timezone(&self.zone());
        Ok(self.store().add(new, now)?)
    }

    /// Removes task `id`.
    pub fn remove(&self, id: &TaskId) -> Result<ScheduledTask, EngineError> {
        Ok(self.store().remove(id)?)
    }

    /// Runs task `id` now, in its chat, and keeps the run in its history.
    pub async fn run(&self, id: &TaskId) -> Result<TaskReport, EngineError> {
        let task = self.store().get(id)?;
        let session =
            SessionId::parse(&task.session_name()).map_err(baton_agent::SessionError::from)?;
        let started = self.now();
        let clock = Instant::now();
        let ended = self.turn(&task, &session).await;
        let mut ended = match ended {
            Ok((outcome, waiting)) => Ended::of(&outcome, waiting),
            Err(e) => Ended::failed(e.to_string()),
        };
        if task.email
            && ended.status != RunStatus::Failed
            && let Err(e) = self.email(&task, &ended.answer, &ended.waiting).await
        {
            let note = format!(" (the e-mail to you was not sent: {e})");
            ended.summary.push_str(&note);
        }
        let status = ended.status;
        let run = TaskRun {
            started,
            elapsed_ms: clock.elapsed().as_millis() as u64,
            status,
            summary: ended.summary,
            tokens: ended.tokens,
        };
        let task = self.store().record(id, run.clone(), self.now())?;
        if status == RunStatus::Failed {
            self.say_failed(&task, &session, &run.summary).await?;
        }
        tracing::info!(task = %task.id, status = ?status, elapsed_ms = run.elapsed_ms, "scheduled task ran");
        Ok(TaskReport {
            task,
            run,
            answer: ended.answer,
            waiting: ended.waiting,
            session,
        })
    }

    /// Runs every task that is due now, the longest waiting first.
    pub async fn run_due(&self) -> Result<Vec<TaskReport>, EngineError> {
        Ok(self.run_due_then_next().await?.0)
    }

    /// [`run_due`](Self::run_due), and when the first task runs next (the
    /// tasks file read again only when something ran).
    async fn run_due_then_next(
        &self,
    ) -> Result<(Vec<TaskReport>, Option<DateTime<Utc>>), EngineError> {
        let tasks = self.list()?;
        let due = baton_schedule::plan::due(&tasks, self.now());
        if due.is_empty() {
            return Ok((Vec::new(), baton_schedule::plan::next_wake(&tasks)));
        }
        let mut reports = Vec::with_capacity(due.len());
        for id in due {
            reports.push(self.run(&id).await?);
        }
        Ok((reports, baton_schedule::plan::next_wake(&self.list()?)))
    }

    /// Starts the scheduler on this engine (see [`Scheduler::start`]).
    pub fn start(&self, on_run: OnRun) -> Scheduler {
        let engine = Arc::clone(self.e);
        Scheduler::start(Arc::new(move || Arc::clone(&engine)), on_run)
    }

    /// The task's prompt as a turn in its chat; the turn's outcome and the
    /// actions that wait for the user.
    async fn turn(
        &self,
        task: &ScheduledTask,
        session: &SessionId,
    ) -> Result<(TurnOutcome, Vec<String>), EngineError> {
        let options = ConversationOptions {
            agent: task.agent.clone(),
            persist: true,
            confirm: ConfirmMode::Refuse(NOBODY_TO_ASK.into()),
            ..ConversationOptions::default()
        };
        let repo: Arc<dyn SessionRepo> = Arc::new(self.e.conversations().store());
        let conversation = self
            .e
            .conversations()
            .open_in(repo, session, options)
            .await?;
        conversation.ready().await?;
        let mut turn = conversation.send(UserMessage::text(task.prompt.clone()));
        let (mut outcome, mut waiting) = (None, Vec::new());
        while let Some(e) = turn.next().await {
            match e.event {
                AgentEvent::Notice { message } if message.starts_with("held back:") => {
                    waiting.push(message);
                }
                AgentEvent::Finished(o) if e.agent.depth == 0 => outcome = Some(*o),
                _ => {}
            }
        }
        let outcome = outcome.ok_or_else(|| EngineError::Agent {
            name: task.agent.clone().unwrap_or_default(),
            reason: "the run ended without a result".into(),
        })?;
        Ok((outcome, waiting))
    }

    /// E-mails a run's answer (and what waits for a yes) to the user's own
    /// address, as the task asks: the user chose this when making it.
    async fn email(
        &self,
        task: &ScheduledTask,
        answer: &str,
        waiting: &[String],
    ) -> Result<(), String> {
        let tools = self.e.tools();
        let sandbox = tools.sandbox().map_err(|e| e.to_string())?;
        let mail = baton_mail::MailTool::new(tools.mail(), sandbox);
        let subject = format!("Baton: {}", baton_stdx::excerpt(&task.prompt, 70));
        let mut body = answer.trim().to_string();
        if !waiting.is_empty() {
            body.push_str(
                "\n\nWaiting for your yes (open the task's chat in Baton to allow it):\n",
            );
            for w in waiting {
                body.push_str(&format!("- {w}\n"));
            }
        }
        let ctx = baton_tools::ToolContext::default();
        mail.email_me(subject, body, Vec::new(), &ctx)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Says in the task's chat that a run failed, why, and when it is tried
    /// again.
    async fn say_failed(
        &self,
        task: &ScheduledTask,
        session: &SessionId,
        why: &str,
    ) -> Result<(), EngineError> {
        let store = self.e.conversations().store();
        let mut chat = store.load_or_new(session).await?;
        chat.title_from(&task.prompt);
        let again = task.next_run.map_or_else(
            || "It will not be tried again.".to_string(),
            |t| {
                let t = baton_schedule::shown(t, self.zone());
                format!("It will be tried again at {t}.")
            },
        );
        chat.history.push(Message::assistant(format!(
            "This scheduled run failed: {why}. {again}"
        )));
        Ok(SessionRepo::save(&store, &chat).await?)
    }
}

/// How a run ended, as its history and report keep it.
struct Ended {
    status: RunStatus,
    /// The answer's first words, why it failed, or what waits.
    summary: String,
    answer: String,
    waiting: Vec<String>,
    tokens: u64,
}

impl Ended {
    /// A run whose turn ended with `outcome`, `waiting` held back.
    fn of(outcome: &TurnOutcome, waiting: Vec<String>) -> Ended {
        let r = &outcome.result;
        let tokens = r
            .usage
            .iter()
            .map(|u| u64::from(u.prompt_tokens) + u64::from(u.completion_tokens))
            .sum();
        let (status, summary) = match &outcome.stop {
            StopReason::Error(why) => (RunStatus::Failed, why.clone()),
            StopReason::Cancelled => (RunStatus::Failed, "it was stopped".to_string()),
            _ if !waiting.is_empty() => (
                RunStatus::Waiting,
                format!("waits for your yes: {}", waiting.join("; ")),
            ),
            _ => (
                RunStatus::Answered,
                baton_stdx::excerpt(r.answer.trim(), 200),
            ),
        };
        Ended {
            status,
            summary,
            answer: r.answer.clone(),
            waiting,
            tokens,
        }
    }

    /// A run that could not start or finish: `why`.
    fn failed(why: String) -> Ended {
        Ended {
            status: RunStatus::Failed,
            summary: why,
            answer: String::new(),
            waiting: Vec::new(),
            tokens: 0,
        }
    }
}

/// Runs due tasks and sleeps until the next one is due (at most
/// [`LOOK_EVERY`], so that tasks made elsewhere and a wake from sleep are
/// seen), until `stop`.
async fn schedule_loop(current: CurrentEngine, on_run: OnRun, stop: CancellationToken) {
    loop {
        let engine = current();
        let next = match engine.schedule().run_due_then_next().await {
            Ok((reports, next)) => {
                reports.iter().for_each(|r| on_run(r));
                next
            }
            Err(e) => {
                // Tried again after a while, not at once.
                tracing::warn!("scheduled tasks could not run: {e}");
                None
            }
        };
        let wait = next
            .map(|at| (at - engine.utc_now()).to_std().unwrap_or_default())
            .unwrap_or(LOOK_EVERY)
            .min(LOOK_EVERY);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.cancelled() => return,
        }
    }
}
