//! When tasks run, as rules over a given time (so that tests drive them
//! with a clock of their own):
//! - a task is due once its next run has come; one missed while the
//!   computer slept (or Baton was closed) runs once when it is back, then
//!   the next run is the first time after that moment: never a burst of
//!   the runs that were missed;
//! - a failed run is tried again after 1, then 5, then 30 minutes; after
//!   three failed tries the task waits for its next time (a one-time task
//!   is then given up, its failure kept in its history);
//! - a one-time task that ran (at its time, or when the user ran it now)
//!   is done.

use chrono::{DateTime, Duration, Utc};

use crate::{RunStatus, ScheduledTask, TaskId};

/// The waits before each try again of a failed run.
pub const RETRY_AFTER: [Duration; 3] = [
    Duration::minutes(1),
    Duration::minutes(5),
    Duration::minutes(30),
];

/// The tasks due at `now`, the longest waiting first.
pub fn due(tasks: &[ScheduledTask], now: DateTime<Utc>) -> Vec<TaskId> {
    let mut due: Vec<&ScheduledTask> = tasks
        .iter()
        .filter(|t| t.next_run.is_some_and(|at| at <= now))
        .collect();
    due.sort_by_key(|t| t.next_run);
    due.into_iter().map(|t| t.id.clone()).collect()
}

/// When the first of `tasks` runs next (`None`: none will).
pub fn next_wake(tasks: &[ScheduledTask]) -> Option<DateTime<Utc>> {
    tasks.iter().filter_map(|t| t.next_run).min()
}

/// The next run of `task` after its last run (the last of its runs)
/// ended at `now`: a try again after a failure while tries are left,
/// else its schedule's first time after `now`.
pub fn next_run(task: &ScheduledTask, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    // A one-time task that ran (at its time, or earlier when asked to run
    // now) is done.
    let ran = task
        .runs
        .last()
        .is_some_and(|r| r.status != RunStatus::Failed);
    if ran && matches!(task.schedule, crate::Schedule::Once { .. }) {
        return None;
    }
    let failures = task
        .runs
        .iter()
        .rev()
        .take_while(|r| r.status == RunStatus::Failed)
        .count();
    if failures > 0 && failures <= RETRY_AFTER.len() {
        return Some(now + RETRY_AFTER[failures - 1]);
    }
    task.schedule.next_after(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Schedule, TaskRun};
    use chrono::TimeZone;

    fn at(d: u32, h: u32, m: u32) -> DateTime<Utc> {
        chrono_tz::Europe::Warsaw
            .with_ymd_and_hms(2026, 12, d, h, m, 0)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn task(when: &str) -> ScheduledTask {
        let now = at(4, 10, 15).with_timezone(&chrono_tz::Europe::Warsaw);
        let schedule = Schedule::parse(when, now).unwrap();
        ScheduledTask {
            id: TaskId::new(),
            prompt: "Summarise my mail".into(),
            when: when.into(),
            next_run: schedule.next_after(now.with_timezone(&Utc)),
            schedule,
            agent: None,
            notify: true,
            email: false,
            created: now.with_timezone(&Utc),
            runs: Vec::new(),
        }
    }

    fn ran(t: &mut ScheduledTask, status: RunStatus, now: DateTime<Utc>) {
        t.runs.push(TaskRun {
            started: now,
            elapsed_ms: 10,
            status,
            summary: String::new(),
            tokens: 0,
        });
        t.next_run = next_run(t, now);
    }

    #[test]
    fn a_task_is_due_when_its_time_comes_and_not_before() {
        let t = task("every weekday at 8:00");
        let monday = at(7, 8, 0);
        assert_eq!(t.next_run, Some(monday));
        let tasks = [t.clone()];
        assert!(due(&tasks, monday - Duration::seconds(1)).is_empty());
        assert_eq!(due(&tasks, monday), std::slice::from_ref(&t.id));
        assert_eq!(next_wake(&tasks), Some(monday));
    }

    #[test]
    fn runs_missed_while_asleep_run_once_at_wake_never_in_a_burst() {
        let mut t = task("every 15 minutes");
        // The computer slept from 10:20 to 14:05: fifteen runs were missed.
        let wake = at(4, 14, 5);
        assert_eq!(due(std::slice::from_ref(&t), wake), [t.id.clone()]);
        ran(&mut t, RunStatus::Answered, wake + Duration::seconds(20));
        assert_eq!(
            t.next_run,
            Some(at(4, 14, 15)),
            "the next time after the run"
        );
        assert!(due(std::slice::from_ref(&t), wake + Duration::seconds(21)).is_empty());
    }

    #[test]
    fn a_failed_run_is_tried_again_three_times_then_waits_for_its_next_time() {
        let mut t = task("every day at 8:00");
        let mut now = at(5, 8, 0);
        ran(&mut t, RunStatus::Failed, now);
        assert_eq!(t.next_run, Some(now + Duration::minutes(1)));
        now += Duration::minutes(1);
        ran(&mut t, RunStatus::Failed, now);
        assert_eq!(t.next_run, Some(now + Duration::minutes(5)));
        now += Duration::minutes(5);
        ran(&mut t, RunStatus::Failed, now);
        assert_eq!(t.next_run, Some(now + Duration::minutes(30)));
        now += Duration::minutes(30);
        ran(&mut t, RunStatus::Failed, now);
        assert_eq!(t.next_run, Some(at(6, 8, 0)), "no more tries: tomorrow");
        // A success resets the count.
        ran(&mut t, RunStatus::Answered, at(6, 8, 1));
        ran(&mut t, RunStatus::Failed, at(7, 8, 1));
        assert_eq!(t.next_run, Some(at(7, 8, 2)));
    }

    #[test]
    fn a_one_time_task_runs_once_and_a_run_waiting_for_a_yes_is_not_retried() {
        let mut t = task("in 2 hours");
        let when = at(4, 12, 15);
        assert_eq!(t.next_run, Some(when));
        ran(&mut t, RunStatus::Waiting, when);
        assert_eq!(t.next_run, None);
        // Run now, before its time: done, not run again at its time.
        let mut t = task("in 2 hours");
        ran(&mut t, RunStatus::Answered, at(4, 10, 30));
        assert_eq!(t.next_run, None);
        let mut t = task("in 2 hours");
        for i in 0..4 {
            ran(&mut t, RunStatus::Failed, when + Duration::hours(i));
        }
        assert_eq!(t.next_run, None, "given up after three tries again");
    }
}
