//! `baton orchestrate`: a team plans, works in parallel, reviews, revises
//! and synthesizes; the token budget; OpenTelemetry spans; JSON mode for
//! the plan and reviews; web search only with `--internet`.

use std::path::PathBuf;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

/// A team where each agent's instructions are a marker the scripted
/// server routes by (the agents work in parallel, in any order).
fn team_file(env: &Env) -> PathBuf {
    let agent = |name: &str, spec: &str, marker: &str| json!({"name": name, "specialisations": [spec], "instructions": marker, "toolboxes": []});
    let file = env.path().join("team.json");
    let team = json!({"agents": [
        agent("planner", "planning", "ROLE-PLANNER"),
        agent("alpha", "research", "ROLE-ALPHA"),
        agent("beta", "writing", "ROLE-BETA"),
        agent("rita", "review", "ROLE-REVIEWER"),
        agent("syn", "synthesis", "ROLE-SYNTH"),
    ]});
    std::fs::write(&file, team.to_string()).unwrap();
    file
}

const TEAM_PLAN: &str = r#"{"assignments": [{"task": "Summarise report A", "specialisation": "research"}, {"task": "Summarise report B", "specialisation": "writing"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrate_plans_works_in_parallel_reviews_revises_and_synthesizes() {
    let server = ScriptedServer::start().await.unwrap();
    // The most specific markers first: a review of alpha, alpha revising.
    server.reply_when(
        "alpha's answer",
        Reply::text(r#"{"approved": false, "feedback": "Add the figures."}"#),
    );
    server.reply_when(
        "alpha's answer",
        Reply::text(r#"{"approved": true, "feedback": "Good."}"#),
    );
    server.reply_when("beta's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when(
        "A reviewer asked for changes",
        Reply::text("Report A: revenue up 12%."),
    );
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("Overall: A grew 12%, B saved."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args(["--json", "Compare reports A and B"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["finalResponse"], "Overall: A grew 12%, B saved.");
    assert_eq!(r["plan"].as_array().unwrap().len(), 2);
    let alpha = r["agentResponses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == "alpha")
        .unwrap();
    assert_eq!(
        (
            alpha["response"].as_str().unwrap(),
            alpha["revisions"].as_u64().unwrap()
        ),
        ("Report A: revenue up 12%.", 1)
    );
    let reviews = r["reviews"].as_array().unwrap();
    assert_eq!(reviews.len(), 3, "{r}");
    assert!(reviews.iter().all(|x| x["reviewer"] == "rita"));
    assert_eq!(r["totalTokens"], 8 * 18, "eight model calls of 18 tokens");
    assert_eq!(server.remaining(), 0);
    // Each member was briefed with the plan and its assignment.
    let to_alpha = server
        .requests()
        .into_iter()
        .map(|q| String::from_utf8_lossy(&q.body).into_owned())
        .find(|b| b.contains("ROLE-ALPHA") && !b.contains("A reviewer asked"))
        .unwrap();
    assert!(
        to_alpha.contains("You are alpha") && to_alpha.contains("Summarise report B"),
        "{to_alpha}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_agents_plan_work_review_and_synthesize_without_a_team_file() {
    let server = ScriptedServer::start().await.unwrap();
    // The most specific first: the reviews and the synthesis quote the
    // assignments the members' briefs carry.
    for _ in 0..2 {
        server.reply_when(
            "You review a teammate's work",
            Reply::text(r#"{"approved": true, "feedback": "Good."}"#),
        );
    }
    server.reply_when(
        "Your team answered parts of this request",
        Reply::text("Overall: A grew, B saved."),
    );
    server.reply_when("You plan work for a team", Reply::text(TEAM_PLAN));
    server.reply_when("Summarise report A  ← yours", Reply::text("A grew."));
    server.reply_when("Summarise report B  ← yours", Reply::text("B saved."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(env.path().join("ws")).args([
        "orchestrate",
        "--json",
        "Compare reports A and B",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(r["finalResponse"], "Overall: A grew, B saved.");
    // No fallback: each role had its shipped agent.
    assert_eq!(r["notes"], json!([]), "{r}");
    let by = |key: &str, field: &str| -> Vec<String> {
        let mut v: Vec<String> = r[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x[field].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        by("agentResponses", "agent"),
        ["document-preparer", "researcher"]
    );
    assert_eq!(by("reviews", "reviewer"), ["reviewer", "reviewer"]);
    let stages: Vec<&str> = r["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert!(
        stages.contains(&"planning") && stages.contains(&"synthesis"),
        "{stages:?}"
    );
    assert!(r["elapsedMs"].as_u64().is_some(), "{r}");
    assert_eq!(server.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrate_stops_at_the_token_budget_and_says_so() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("never asked"));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args([
        "--no-review",
        "--max-tokens",
        "40",
        "Compare reports A and B",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("plan: 2 parts") && o.stderr.contains("alpha is working (part 1)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("error: the token budget of 40 ran out (54 tokens used)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stdout.contains("Report A: revenue up.") && o.stdout.contains("Report B: costs down."),
        "the partial answer: {}",
        o.stdout
    );
    assert_eq!(server.remaining(), 1, "the synthesizer was never asked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestration_spans_go_to_an_opentelemetry_collector_when_one_is_named() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("Report A: revenue up."));
    server.reply_when("ROLE-BETA", Reply::text("Report B: costs down."));
    server.reply_when("ROLE-SYNTH", Reply::text("Overall."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    // The scripted server stands in for the collector: it records what
    // is posted to /v1/traces (OTLP/HTTP, protobuf).
    c.env("OTEL_EXPORTER_OTLP_ENDPOINT", server.url());
    c.arg("--workspace")
        .arg(env.path().join("ws"))
        .arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env));
    c.args(["--no-review", "--json", "Compare reports A and B"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    let session = r["sessionId"].as_str().unwrap();
    let traces: Vec<Vec<u8>> = server
        .requests()
        .into_iter()
        .filter(|q| q.path == "/v1/traces")
        .map(|q| q.body.to_vec())
        .collect();
    assert!(!traces.is_empty(), "no traces were posted");
    let all = String::from_utf8_lossy(&traces.concat()).into_owned();
    for name in [
        "orchestrator.orchestrate",
        "orchestrator.plan",
        "orchestrator.synthesize",
        "orchestrator.session_id",
        "orchestrator.assignments_count",
        "orchestrator.tokens_consumed",
        session,
    ] {
        assert!(all.contains(name), "{name} is not in the exported spans");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_and_reviews_are_asked_for_as_json_where_the_provider_can() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply_when("alpha's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when("beta's answer", Reply::text(r#"{"approved": true}"#));
    server.reply_when("ROLE-PLANNER", Reply::text(TEAM_PLAN));
    server.reply_when("ROLE-ALPHA", Reply::text("A."));
    server.reply_when("ROLE-BETA", Reply::text("B."));
    server.reply_when("ROLE-SYNTH", Reply::text("A and B."));
    let env = Env::new();
    let providers = env.path().join("json-providers.json");
    let doc = json!({"default": "scripted", "providers": [
        {"name": "scripted", "dialect": "openai", "endpoint": format!("{}/v1", server.url()), "model": "m", "jsonMode": true}
    ]});
    std::fs::write(&providers, doc.to_string()).unwrap();
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&providers)
        .arg("--workspace")
        .arg(env.path().join("ws"));
    c.arg("orchestrate")
        .arg("--agents")
        .arg(team_file(&env))
        .args(["--json", "Compare"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let bodies: Vec<String> = server
        .requests()
        .into_iter()
        .map(|q| String::from_utf8_lossy(&q.body).into_owned())
        .collect();
    let asks_json = |marker: &str| {
        let body = bodies.iter().find(|b| b.contains(marker)).unwrap();
        body.contains(r#""response_format":{"type":"json_object"}"#)
    };
    assert!(
        asks_json("ROLE-PLANNER") && asks_json("ROLE-REVIEWER"),
        "the plan and the reviews"
    );
    assert!(
        !asks_json("ROLE-ALPHA") && !asks_json("ROLE-SYNTH"),
        "not the work or the answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_searches_the_internet_only_when_allowed() {
    let env = Env::new();
    let file = env.path().join("web-team.json");
    let team = json!({"agents": [
        {"name": "solo", "specialisations": ["general"], "instructions": "ROLE-SOLO", "toolboxes": [{"name": "WebTool"}]}
    ]});
    std::fs::write(&file, team.to_string()).unwrap();
    for (internet, offered) in [(false, false), (true, true)] {
        let server = ScriptedServer::start().await.unwrap();
        server.reply_when(
            "You plan work",
            Reply::text(r#"[{"task": "Look it up", "specialisation": "general"}]"#),
        );
        server.reply_when("ROLE-SOLO", Reply::text("Found it."));
        let mut c = env.scripted(&server);
        c.arg("--workspace")
            .arg(env.path().join("ws"))
            .arg("orchestrate")
            .arg("--agents")
            .arg(&file);
        if internet {
            c.arg("--internet");
        }
        c.args(["--json", "Look it up"]);
        let o = run(c, None).await;
        assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
        let work = server
            .requests()
            .into_iter()
            .map(|q| String::from_utf8_lossy(&q.body).into_owned())
            .find(|b| b.contains("Look it up  ← yours"))
            .expect("the member's request");
        assert!(work.contains("navigate"), "the browser's other tools stay");
        assert_eq!(
            work.contains("web_search"),
            offered,
            "--internet {internet}"
        );
    }
}
