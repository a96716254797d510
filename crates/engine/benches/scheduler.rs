//! Scheduler figures (`make bench`): how late a due task starts (wake-up
//! accuracy: goal p95 under 1 s), for tasks known to the scheduler ahead
//! and for a task made by another process while it sleeps, on the
//! scripted server with zero delay; each run's time from start to end is
//! the baseline it is set against.
//!
//! `cargo bench -p baton-engine --bench scheduler`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_engine::api::schedule::{NewTask, OnRun, TaskReport};
use baton_engine::{Engine, Overrides};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_test_support::TestHome;

const TASKS: usize = 12;

fn pct(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((p / 100.0) * (values.len() - 1) as f64).round() as usize]
}

fn main() {
    baton_test_support::run_bench(measure);
}

async fn measure() {
    let server = ScriptedServer::start().await.unwrap();
    for _ in 0..TASKS * 2 {
        server.reply(Reply::text("Done."));
    }
    let home = TestHome::new();
    home.write_settings(serde_json::json!({"skipIndexingOnStartup": true}));
    let overrides = Overrides {
        providers: Some(home.write_providers(&server.url(), None)),
        workspace: Some(home.workspace()),
        ..Overrides::default()
    };
    let engine = Arc::new(Engine::load_with(home.paths(), overrides).unwrap());
    // Tasks due 2, 3, … seconds from now, known before the scheduler starts.
    for i in 0..TASKS / 2 {
        let new = NewTask {
            prompt: format!("Task {i}"),
            when: format!("in {} seconds", 2 + i),
            agent: None,
            notify: false,
            email: false,
        };
        engine.schedule().add(new).unwrap();
    }
    let reports: Arc<Mutex<Vec<TaskReport>>> = Arc::default();
    let kept = Arc::clone(&reports);
    let on_run: OnRun = Arc::new(move |r: &TaskReport| kept.lock().unwrap().push(r.clone()));
    let scheduler = engine.schedule().start(on_run);
    // Tasks made while it sleeps (as `baton schedule add` in another
    // process would).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut due = Vec::new();
    for i in TASKS / 2..TASKS {
        let new = NewTask {
            prompt: format!("Task {i}"),
            when: format!("in {} seconds", 2 + i - TASKS / 2),
            agent: None,
            notify: false,
            email: false,
        };
        due.push(engine.schedule().add(new).unwrap().id);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while reports.lock().unwrap().len() < TASKS && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    scheduler.stop().await;
    let reports = reports.lock().unwrap().clone();
    assert_eq!(reports.len(), TASKS, "every task ran");
    let tasks = engine.schedule().list().unwrap();
    let mut ahead = Vec::new();
    let mut made_later = Vec::new();
    let mut runs = Vec::new();
    for r in &reports {
        let task = tasks.iter().find(|t| t.id == r.task.id).unwrap();
        let was_due = match &task.schedule {
            baton_engine::api::schedule::Schedule::Once { at } => *at,
            other => panic!("{other:?}"),
        };
        let late = (r.run.started - was_due).num_microseconds().unwrap() as f64 / 1000.0;
        if due.contains(&r.task.id) {
            made_later.push(late);
        } else {
            ahead.push(late);
        }
        runs.push(r.run.elapsed_ms as f64);
    }
    println!(
        "scheduler wake-up: known ahead p50 {:.1} ms p95 {:.1} ms late; made by another process while it slept p50 {:.1} ms p95 {:.1} ms late (looks every {} s); a run itself (baseline) p50 {:.1} ms; goal p95 under 1000 ms",
        pct(&mut ahead.clone(), 50.0),
        pct(&mut ahead, 95.0),
        pct(&mut made_later.clone(), 50.0),
        pct(&mut made_later, 95.0),
        baton_engine::api::schedule::LOOK_EVERY.as_secs(),
        pct(&mut runs, 50.0),
    );
}
