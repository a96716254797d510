//! The team model: orchestration streamed, its notes on Redis.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_model_orchestrates_and_streams_its_stages() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start_at(&llm.url(), open(), |ws| {
        let agent = |name: &str, spec: &str| {
            json!({"name": name, "specialisations": [spec], "instructions": format!("ROLE-{name}"), "toolboxes": []})
        };
        let team = json!({"agents": [agent("planner", "planning"), agent("alpha", "alpha-work"), agent("beta", "beta-work"), agent("rita", "review"), agent("syn", "synthesis")]});
        let config = ws.parent().unwrap().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("agents.json"), team.to_string()).unwrap();
    })
    .await;
    let plan = r#"[{"task": "Part A", "specialisation": "alpha-work"}, {"task": "Part B", "specialisation": "beta-work"}]"#;
    let script = |llm: &ScriptedServer| {
        llm.reply_when("ROLE-planner", Reply::text(plan));
        llm.reply_when("ROLE-alpha", Reply::text("A done."));
        llm.reply_when("ROLE-beta", Reply::text("B done."));
        llm.reply_when("ROLE-rita", Reply::text(r#"{"approved": true}"#));
        llm.reply_when("ROLE-rita", Reply::text(r#"{"approved": true}"#));
        llm.reply_when("ROLE-syn", Reply::text("A and B, together."));
    };
    let models = get_json(format!("{}/v1/models", s.base)).await;
    assert!(
        models["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "team"),
        "{models}"
    );

    script(&llm);
    let body = json!({"model": "team", "messages": [{"role": "user", "content": "Do A and B"}]});
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "A and B, together.");
    assert_eq!(
        v["baton"]["team"]["plan"].as_array().unwrap().len(),
        2,
        "{v}"
    );
    let team = &v["baton"]["team"];
    assert_eq!(team["reviews"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(team["notes"], json!([]), "{v}");
    assert_eq!(llm.remaining(), 0);

    script(&llm);
    let body = json!({"model": "team", "stream": true, "messages": [{"role": "user", "content": "Do A and B"}]});
    let text = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let planning = text.find("\"stage\":\"planning\"").expect(&text);
    let answer = text.find("A and B, together.").expect(&text);
    assert!(
        planning < answer,
        "the stages come before the answer: {text}"
    );
    assert!(text.trim_end().ends_with("data: [DONE]"), "{text}");
    assert_eq!(llm.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_notes_are_kept_on_the_sessions_redis() {
    let redis = Redis::start_anywhere();
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
        ..open()
    };
    let s = start_at(&llm.url(), options, |ws| {
        let agent = |name: &str, spec: &str| {
            json!({"name": name, "specialisations": [spec], "instructions": format!("ROLE-{name}"), "toolboxes": []})
        };
        let team = json!({"agents": [agent("planner", "planning"), agent("alpha", "alpha-work"), agent("syn", "synthesis")]});
        let config = ws.parent().unwrap().join("config");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("agents.json"), team.to_string()).unwrap();
    })
    .await;
    let plan = r#"[{"task": "Part A", "specialisation": "alpha-work"}, {"task": "Part B", "specialisation": "alpha-work"}]"#;
    llm.reply_when("ROLE-planner", Reply::text(plan));
    llm.reply_when("ROLE-alpha", Reply::text("A done."));
    llm.reply_when("ROLE-alpha", Reply::text("B done."));
    llm.reply_when("ROLE-syn", Reply::text("Both done."));
    // alpha is the only one with work; syn reviews it (no reviewer role).
    llm.reply_when("ROLE-syn", Reply::text(r#"{"approved": true}"#));
    llm.reply_when("ROLE-syn", Reply::text(r#"{"approved": true}"#));
    let body = json!({"model": "team", "messages": [{"role": "user", "content": "Do A and B"}]});
    let v: Value = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["baton"]["team"]["success"], true, "{v}");
    let key = format!(
        "baton:team:{}",
        v["baton"]["team"]["sessionId"].as_str().unwrap()
    );
    let cli = |args: &[&str]| {
        let out = std::process::Command::new("redis-cli")
            .args(["-p", &redis.port.to_string()])
            .env("REDISCLI_AUTH", REDIS_PASSWORD)
            .args(args)
            .output()
            .expect("redis-cli is installed with redis-server");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(cli(&["HLEN", &key]), "2", "both answers are on Redis");
    let kept = cli(&["HGETALL", &key]);
    assert!(
        ["alpha: Part A", "alpha: Part B", "A done.", "B done."]
            .iter()
            .all(|w| kept.contains(w)),
        "{kept}"
    );
    let ttl: i64 = cli(&["TTL", &key]).parse().unwrap();
    assert!(
        ttl > 3600 && ttl <= 24 * 3600,
        "it expires within a day: {ttl}"
    );
}
