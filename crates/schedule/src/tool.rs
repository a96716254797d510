//! `ScheduleTool`: how a chat makes, lists and cancels scheduled tasks.
//! Making or cancelling one changes what Baton will do on its own later,
//! so it waits for the user's yes on a card that says the task, when it
//! runs first and how it repeats.

use std::sync::Arc;

use baton_tools::toolbox;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::{NewTask, Schedule, TaskId, TaskStore};

/// The time now, as the tool sees it (a test gives its own).
pub type UtcClock = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// Scheduled tasks: prompts Baton runs on its own later or again and again (every weekday at 8:00, in 2 hours), reporting back in a chat of their own.
#[toolbox]
pub struct ScheduleTool {
    store: Arc<TaskStore>,
    zone: Tz,
    clock: UtcClock,
}

impl std::fmt::Debug for ScheduleTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScheduleTool")
            .field("zone", &self.zone)
            .finish_non_exhaustive()
    }
}

impl ScheduleTool {
    /// The tool over `store`, reading times in `zone` at `clock`'s time.
    pub fn new(store: Arc<TaskStore>, zone: Tz, clock: UtcClock) -> ScheduleTool {
        ScheduleTool { store, zone, clock }
    }

    fn now(&self) -> DateTime<Tz> {
        (self.clock)().with_timezone(&self.zone)
    }

    /// A time in the user's zone, for people.
    fn shown(&self, at: DateTime<Utc>) -> String {
        crate::shown(at, self.zone)
    }
}

/// A task as the model sees it.
#[derive(Debug, Serialize)]
pub struct TaskLine {
    /// Its id.
    pub id: String,
    /// What it asks.
    pub prompt: String,
    /// When, as written.
    pub when: String,
    /// Its next run in the user's time zone (`none`: not again).
    pub next_run: String,
    /// The agent it runs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

#[toolbox]
impl ScheduleTool {
    /// The card says what will run, when first and how often.
    async fn describe(&self, call: baton_tools::PendingCall<'_>) -> Option<String> {
        match call.method {
            "schedule_task" => {
                let prompt = call.args.get("prompt")?.as_str()?;
                let when = call.args.get("when")?.as_str()?;
                let mailed = call
                    .args
                    .get("email_me")
                    .and_then(serde_json::Value::as_bool)
                    == Some(true);
                let plan = match Schedule::parse(when, self.now()) {
                    Ok(s) => {
                        let first = s
                            .next_after((self.clock)())
                            .map_or_else(|| "never".into(), |t| self.shown(t));
                        format!("{}; first run {first}", s.describe(self.zone))
                    }
                    Err(e) => e.to_string(),
                };
                let mailed = if mailed {
                    " Each answer is also e-mailed to you."
                } else {
                    ""
                };
                Some(format!(
                    "Schedule a task that Baton runs on its own: \u{201c}{prompt}\u{201d} \u{2014} {when} ({plan}). Its runs report in a chat of their own;{mailed} an action that sends or changes something still waits for your yes."
                ))
            }
            "cancel_scheduled_task" => {
                let id = TaskId::parse(call.args.get("id")?.as_str()?).ok()?;
                let task = self.store.get(&id).ok()?;
                Some(format!(
                    "Cancel the scheduled task {id}: \u{201c}{}\u{201d} ({})",
                    task.prompt, task.when
                ))
            }
            _ => None,
        }
    }

    /// Schedules a prompt for Baton to run on its own later, once or again and again; its runs report in a chat of their own. Use it when the user asks for something at a time or on a schedule.
    /// - prompt: what to do, as the user would ask it, e.g. `Summarise my unread mail`
    /// - when: when, in plain words or as a cron pattern, e.g. `every weekday at 8:00`, `in 2 hours`, `tomorrow at 9`, `on the first of the month`
    /// - agent: the named agent to run it with (the default one when not given)
    /// - email_me: also e-mail each answer to the user
    #[effect(change)]
    pub fn schedule_task(
        &self,
        prompt: String,
        when: String,
        agent: Option<String>,
        #[default(false)] email_me: bool,
    ) -> Result<TaskLine, String> {
        let new = NewTask {
            prompt,
            when,
            agent,
            notify: true,
            email: email_me,
        };
        let task = self.store.add(new, self.now()).map_err(|e| e.to_string())?;
        Ok(self.line(&task))
    }

    /// Lists the scheduled tasks: id, prompt, when and next run.
    pub fn list_scheduled_tasks(&self) -> Result<Vec<TaskLine>, String> {
        let tasks = self.store.list().map_err(|e| e.to_string())?;
        Ok(tasks.iter().map(|t| self.line(t)).collect())
    }

    /// Cancels a scheduled task: it will not run again.
    /// - id: the task's id from list_scheduled_tasks, e.g. `t3f9a02c1`
    #[effect(change)]
    pub fn cancel_scheduled_task(&self, id: String) -> Result<TaskLine, String> {
        let id = TaskId::parse(&id).map_err(|e| e.to_string())?;
        let task = self.store.remove(&id).map_err(|e| e.to_string())?;
        Ok(self.line(&task))
    }
}

impl ScheduleTool {
    fn line(&self, t: &crate::ScheduledTask) -> TaskLine {
        TaskLine {
            id: t.id.to_string(),
            prompt: t.prompt.clone(),
            when: t.when.clone(),
            next_run: t.next_run.map_or_else(|| "none".into(), |n| self.shown(n)),
            agent: t.agent.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_tools::Catalog;
    use chrono::TimeZone;
    use serde_json::json;

    #[tokio::test]
    async fn a_task_made_in_a_chat_asks_first_and_is_then_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(TaskStore::in_dir(dir.path()));
        let friday = chrono_tz::Europe::Warsaw
            .with_ymd_and_hms(2026, 12, 4, 10, 15, 0)
            .unwrap()
            .with_timezone(&Utc);
        let tool = Arc::new(ScheduleTool::new(
            Arc::clone(&store),
            chrono_tz::Europe::Warsaw,
            Arc::new(move || friday),
        ));
        let c = Catalog::new().with(Arc::clone(&tool) as _).unwrap();
        let args = json!({"prompt": "Summarise my unread mail", "when": "every weekday at 8:00"});
        let said = "Every weekday at 8 summarise my unread mail";
        assert!(c.card_needed("schedule_task", &args, said).await);
        let card = c.describe("schedule_task", &args, said).await.unwrap();
        assert!(
            card.contains("Summarise my unread mail") && card.contains("2026-12-07 08:00 CET"),
            "{card}"
        );
        let line = tool
            .schedule_task(
                "Summarise my unread mail".into(),
                "every weekday at 8:00".into(),
                None,
                false,
            )
            .unwrap();
        assert_eq!(line.next_run, "2026-12-07 08:00 CET");
        assert_eq!(store.list().unwrap().len(), 1);
        let bad = tool.schedule_task("x".into(), "whenever".into(), None, false);
        assert!(bad.unwrap_err().contains("not a time Baton understands"));
        let listed = tool.list_scheduled_tasks().unwrap();
        assert_eq!(listed[0].id, line.id);
        let cancel = json!({"id": line.id});
        let card = c
            .describe("cancel_scheduled_task", &cancel, said)
            .await
            .unwrap();
        assert!(card.contains("Summarise my unread mail"), "{card}");
        tool.cancel_scheduled_task(line.id.clone()).unwrap();
        assert!(store.list().unwrap().is_empty());
    }
}
