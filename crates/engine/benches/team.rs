//! Orchestration figures (`make bench`), each against a baseline in the
//! same run, on the scripted server:
//! - the overhead of a team of 5 agents beyond its model calls: a whole
//!   run one assignment after the other (plan, 2 answers, 2 reviews, the
//!   synthesis: 6 calls) against the same 6 calls as plain turns of the
//!   conversation API, with zero delay;
//! - parallel against sequential wall time with 200 ms per model call.
//!
//! `cargo bench -p baton-engine --bench team`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_engine::{ConfirmMode, ConversationOptions, Engine, Overrides, UserMessage};
use baton_orchestrator::{CancellationToken, Options};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_test_support::TestHome;
use serde_json::json;

const RUNS: usize = 15;

fn reply(text: &str, delay_ms: u64) -> Reply {
    Reply {
        delay_ms,
        ..Reply::text(text)
    }
}

/// Queues one run's replies, each `delay_ms` late.
fn script(server: &ScriptedServer, delay_ms: u64) {
    let plan = r#"[{"task": "Part A", "specialisation": "alpha-work"}, {"task": "Part B", "specialisation": "beta-work"}]"#;
    server.reply_when("ROLE-planner", reply(plan, delay_ms));
    server.reply_when("ROLE-alpha", reply("A done.", delay_ms));
    server.reply_when("ROLE-beta", reply("B done.", delay_ms));
    server.reply_when("ROLE-rita", reply(r#"{"approved": true}"#, delay_ms));
    server.reply_when("ROLE-rita", reply(r#"{"approved": true}"#, delay_ms));
    server.reply_when("ROLE-syn", reply("A and B.", delay_ms));
}

fn engine(home: &TestHome, server: &ScriptedServer) -> Arc<Engine> {
    let providers = home.write_providers(&server.url(), None);
    let agent = |name: &str, spec: &str| json!({"name": name, "specialisations": [spec], "instructions": format!("ROLE-{name}"), "toolboxes": []});
    let team = json!({"agents": [agent("planner", "planning"), agent("alpha", "alpha-work"),
        agent("beta", "beta-work"), agent("rita", "review"), agent("syn", "synthesis")]});
    let paths = home.paths();
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(paths.user_agents_file(), team.to_string()).unwrap();
    let overrides = Overrides {
        providers: Some(providers),
        workspace: Some(home.workspace()),
        ..Overrides::default()
    };
    Arc::new(Engine::load_with(paths, overrides).unwrap())
}

const TEAM: [&str; 5] = ["planner", "alpha", "beta", "rita", "syn"];

async fn orchestrated(
    engine: &Arc<Engine>,
    server: &ScriptedServer,
    sequential: bool,
    delay_ms: u64,
) -> Duration {
    script(server, delay_ms);
    let names: Vec<String> = TEAM.iter().map(|s| s.to_string()).collect();
    let options = Options {
        sequential,
        ..Options::default()
    };
    let orch = engine
        .team()
        .orchestrator(Some(&names), ConfirmMode::Allow, options)
        .unwrap();
    let started = Instant::now();
    let r = orch
        .orchestrate("Do A and B", &[], CancellationToken::new())
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(r.success && r.final_response == "A and B.", "{r:?}");
    took
}

/// The same six calls as plain turns, one after the other.
async fn plain_turns(engine: &Arc<Engine>, server: &ScriptedServer) -> Duration {
    script(server, 0);
    let started = Instant::now();
    for agent in ["planner", "alpha", "rita", "beta", "rita", "syn"] {
        let options = ConversationOptions {
            agent: Some(agent.into()),
            persist: false,
            ..ConversationOptions::default()
        };
        let c = engine
            .conversations()
            .open_with(baton_agent::Session::new(), options);
        c.send(UserMessage::text("Do A and B"))
            .finish()
            .await
            .unwrap();
    }
    started.elapsed()
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    baton_test_support::run_bench(|| async {
        let server = ScriptedServer::start().await.unwrap();
        let home = TestHome::new();
        let engine = engine(&home, &server);
        let (mut team, mut plain) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            team.push(orchestrated(&engine, &server, true, 0).await);
            plain.push(plain_turns(&engine, &server).await);
        }
        let (team, plain) = (median(team), median(plain));
        println!(
            "orchestration of 5 agents, 6 model calls, zero delay, median of {RUNS}: {team:.1} ms, the same calls as plain turns {plain:.1} ms: {:.2} ms of orchestration ({:.2}×)",
            team - plain,
            team / plain
        );
        let (mut par, mut seq) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            par.push(orchestrated(&engine, &server, false, 200).await);
            seq.push(orchestrated(&engine, &server, true, 200).await);
        }
        let (par, seq) = (median(par), median(seq));
        println!(
            "200 ms per model call, median of 3: parallel {par:.0} ms, sequential {seq:.0} ms ({:.2}× faster in parallel)",
            seq / par
        );
    });
}
