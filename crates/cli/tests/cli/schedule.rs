//! Scheduled tasks: a task made in a chat (after the user's yes) is
//! listed with its next run and runs in a chat of its own; `baton daemon`
//! runs a due task on time; a run whose action needs the user's yes does
//! not act but waits and says so; a failed run says why in its chat and
//! is tried again in a minute.

use std::process::Stdio;
use std::time::{Duration, Instant};

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::*;

fn baton(env: &Env, server: &ScriptedServer) -> tokio::process::Command {
    let mut c = env.scripted(server);
    c.env(baton_engine::DIAGNOSTIC_TOOLS_ENV, "1")
        .arg("--workspace")
        .arg(env.path().join("ws"));
    c
}

async fn tasks(env: &Env, server: &ScriptedServer) -> Vec<Value> {
    let mut c = baton(env, server);
    c.args(["schedule", "list", "--json"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout))
}

fn next_run(task: &Value) -> chrono::DateTime<chrono::Utc> {
    let at = task["nextRun"].as_str().expect("an RFC 3339 nextRun");
    chrono::DateTime::parse_from_rfc3339(at)
        .unwrap()
        .with_timezone(&chrono::Utc)
}

/// The chat a task's runs are kept in.
fn chat(env: &Env, id: &str) -> Value {
    let path = env
        .path()
        .join(format!("data/sessions/scheduled-{id}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_made_in_a_chat_is_listed_and_runs_in_a_chat_of_its_own() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let call = json!({"prompt": "Summarise the harbour news", "when": "in 2 hours"});
    // Without the user's yes the task is not made.
    server.reply(Reply::tool_call("schedule_task", call.clone()));
    server.reply(Reply::text("I would have scheduled it."));
    let mut c = baton(&env, &server);
    c.args(["ask", "In two hours, summarise the harbour news"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("held back:") && o.stderr.contains("schedule_task"),
        "{}",
        o.stderr
    );
    assert!(tasks(&env, &server).await.is_empty());

    // With it, the task is kept, its first run two hours from now.
    server.reply(Reply::tool_call("schedule_task", call));
    server.reply(Reply::text("Scheduled."));
    let mut c = baton(&env, &server);
    c.args(["ask", "--yes", "In two hours, summarise the harbour news"]);
    let made = chrono::Utc::now();
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let listed = tasks(&env, &server).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let task = &listed[0];
    assert_eq!(task["prompt"], "Summarise the harbour news");
    let wait = next_run(task) - made;
    assert!(
        (wait - chrono::Duration::hours(2)).num_seconds().abs() < 60,
        "{wait}"
    );

    // Run now: the answer is printed and kept in the task's chat.
    let id = task["id"].as_str().unwrap();
    server.reply(Reply::text("Two ships came in; the ferry is late."));
    let mut c = baton(&env, &server);
    c.args(["schedule", "run", id]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("Two ships came in"), "{}", o.stdout);
    let asked = server.requests().last().unwrap().json();
    let last = asked["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(said(&last["content"]), "Summarise the harbour news");
    let after = &tasks(&env, &server).await[0];
    assert_eq!(after["runs"][0]["status"], "answered", "{after}");
    assert!(after["nextRun"].is_null(), "a one-time task ran: {after}");
    let history = &chat(&env, id)["history"];
    assert!(
        history.to_string().contains("the ferry is late"),
        "{history}"
    );

    let mut c = baton(&env, &server);
    c.args(["schedule", "rm", id]);
    assert_eq!(run(c, None).await.code, 0);
    assert!(tasks(&env, &server).await.is_empty());
    let mut c = baton(&env, &server);
    c.args(["schedule", "add", "--when", "whenever", "x"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("not a time Baton understands"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_daemon_runs_due_tasks_on_time_and_a_run_needing_a_yes_waits() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    // The task's run wants to send a note off the computer: nobody is
    // there to say yes, so it is not sent.
    server.reply_when(
        "Post the figures",
        Reply::tool_call(
            "post_note",
            json!({"url": "http://127.0.0.1:9/notes", "text": "figures"}),
        ),
    );
    server.reply_when("Post the figures", Reply::text("I could not post it."));
    let mut c = baton(&env, &server);
    c.args([
        "schedule",
        "add",
        "--when",
        "in 3 seconds",
        "Post the figures",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let task = tasks(&env, &server).await[0].clone();
    let due = next_run(&task);
    let id = task["id"].as_str().unwrap().to_string();

    let mut daemon = baton(&env, &server);
    daemon
        .arg("daemon")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = daemon.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started = Instant::now();
    let line = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains(&id) {
                return line;
            }
        }
        panic!("the daemon ended without running the task")
    })
    .await
    .expect("the task ran within 30 s");
    let ran_at = chrono::Utc::now();
    assert!(line.contains("waiting for your yes"), "{line}");
    let late = (ran_at - due).num_milliseconds();
    assert!(
        late < 5_000,
        "ran {late} ms after it was due ({:?} after start)",
        started.elapsed()
    );
    std::process::Command::new("kill")
        .args(["-INT", &child.id().unwrap().to_string()])
        .status()
        .unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(15), child.wait())
        .await
        .expect("the daemon ends on Ctrl-C")
        .unwrap();
    assert!(ended.success(), "{ended:?}");

    let after = &tasks(&env, &server).await[0];
    let run = &after["runs"][0];
    assert_eq!(run["status"], "waiting", "{after}");
    assert!(
        run["summary"].as_str().unwrap().contains("post_note"),
        "{run}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_run_says_why_in_its_chat_and_is_tried_again_in_a_minute() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    // Down for the first try and the provider's three tries again.
    for _ in 0..4 {
        server.error(500, "the model is down");
    }
    let mut c = baton(&env, &server);
    c.args([
        "schedule",
        "add",
        "--when",
        "every day at 8:00",
        "Summarise my notes",
    ]);
    assert_eq!(run(c, None).await.code, 0);
    let id = tasks(&env, &server).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut c = baton(&env, &server);
    c.args(["schedule", "run", &id]);
    let ran = chrono::Utc::now();
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    let after = &tasks(&env, &server).await[0];
    assert_eq!(after["runs"][0]["status"], "failed", "{after}");
    let retry = next_run(after) - ran;
    assert!(
        (retry - chrono::Duration::minutes(1)).num_seconds().abs() < 30,
        "{retry}"
    );
    let history = chat(&env, &id)["history"].to_string();
    assert!(
        history.contains("This scheduled run failed") && history.contains("tried again"),
        "{history}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_that_emails_its_answer_sends_it_to_the_users_own_address() {
    let server = ScriptedServer::start().await.unwrap();
    let mail = baton_test_support::mail_servers::MailServers::with_smtp();
    let env = Env::new();
    let ca = mail.ca_file();
    let settings = json!({"skipIndexingOnStartup": true,
        "email": {"address": "ana@baton.test", "name": "Ana"},
        "smtp": {"host": "localhost", "port": mail.smtps, "tls": "tls", "caFile": ca}});
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(env.path().join("config/setup.json"), settings.to_string()).unwrap();
    let mut c = baton(&env, &server);
    c.args([
        "schedule",
        "add",
        "--email",
        "--when",
        "every day at 7:00",
        "Summarise the harbour news",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let id = tasks(&env, &server).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.reply(Reply::text("Two ships came in; the ferry is late."));
    let mut c = baton(&env, &server);
    c.env(
        "BATON_SMTP_PASSWORD",
        baton_test_support::mail_servers::ANA.1,
    )
    .args(["schedule", "run", &id]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let got = mail.wait_for_messages(baton_test_support::mail_servers::ANA.0, "INBOX", 1);
    let text = String::from_utf8_lossy(&got[0]).to_string();
    assert!(
        text.contains("Subject: Baton: Summarise the harbour news")
            && text.contains("the ferry is late"),
        "{text}"
    );
}
