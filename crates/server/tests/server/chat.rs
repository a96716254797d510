//! Completions (whole and streamed), models, health, readiness, a client
//! that goes away, an action held back, and stopping.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_completions_whole_and_streamed() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    llm.reply(Reply::text("Paris is the capital of France."));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .header("x-request-id", "req-42")
        .json(&json!({"model": "assistant", "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Capital of France?"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-request-id"], "req-42");
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "assistant");
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "Paris is the capital of France."
    );
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    // The system message reached the model as instructions; the question last.
    let sent = llm.requests().last().unwrap().json();
    let text = sent["messages"].to_string();
    assert!(
        text.contains("Answer briefly.") && text.contains("Capital of France?"),
        "{text}"
    );

    // Streamed, with the earlier exchange as history and usage at the end.
    llm.reply(Reply::text("It has about two million people."));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(
            &json!({"model": "baton", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "user", "content": "Capital of France?"},
                {"role": "assistant", "content": "Paris."},
                {"role": "user", "content": [{"type": "text", "text": "How big is it?"}]}]}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    assert!(res.headers().contains_key("x-request-id"));
    let body = res.text().await.unwrap();
    let data: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{body}");
    let chunks: Vec<Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "It has about two million people.");
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );
    assert!(
        chunks
            .iter()
            .any(|c| c["choices"][0]["finish_reason"] == "stop")
    );
    assert!(
        chunks.last().unwrap()["usage"]["total_tokens"].is_number(),
        "{body}"
    );
    let history = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        history.contains("Paris.") && history.contains("How big is it?"),
        "{history}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_health_ready_and_errors_in_openai_shape() {
    let llm = ScriptedServer::start().await.unwrap();
    let mut s = start(&llm).await;
    let v: Value = get_json(format!("{}/v1/models", s.base)).await;
    let ids: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"assistant") && ids.contains(&"provider/scripted"),
        "{ids:?}"
    );
    let v: Value = get_json(format!("{}/health", s.base)).await;
    assert_eq!(v["status"], "ok");
    let v: Value = get_json(format!("{}/ready", s.base)).await;
    assert_eq!(
        (v["status"].as_str(), v["provider"]["name"].as_str()),
        (Some("ready"), Some("scripted")),
        "{v}"
    );
    assert_eq!(v["index"]["state"], "not refreshed at start", "{v}");

    let post = |body: String| {
        client()
            .post(format!("{}/v1/chat/completions", s.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let cases = [
        ("{not json".to_string(), 400, None),
        (json!({"model": "assistant", "messages": "hi"}).to_string(), 400, None),
        (json!({"model": "nobody", "messages": [{"role": "user", "content": "hi"}]}).to_string(), 404, Some("model_not_found")),
        (json!({"model": "assistant", "messages": []}).to_string(), 400, None),
        (json!({"model": "assistant", "messages": [{"role": "assistant", "content": "hi"}]}).to_string(), 400, None),
        (json!({"model": "assistant", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}).to_string(), 400, None),
        ("x".repeat(baton_server::BODY_LIMIT + 10), 413, None),
    ];
    for (body, status, code) in cases {
        let res = post(body.chars().take(80).collect::<String>() + &body[body.len().min(80)..])
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), status);
        let v: Value = res.json().await.unwrap_or(Value::Null);
        if status != 413 {
            assert!(
                v["error"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty()),
                "{v}"
            );
            assert!(v["error"]["type"].is_string(), "{v}");
        }
        if let Some(c) = code {
            assert_eq!(v["error"]["code"], c, "{v}");
        }
    }
    let res = client()
        .get(format!("{}/v1/nothing", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    // Still serving after all that.
    llm.reply(Reply::text("fine"));
    let res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "provider/scripted", "messages": [{"role": "user", "content": "ok?"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // Graceful shutdown ends the server task.
    s.stop.take().unwrap().send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), s.task)
        .await
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_stops_the_turn() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    llm.reply(Reply::tool_call("block_for", json!({"seconds": 3})));
    llm.reply(Reply::text("Blocked, then answered."));
    let mut res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": true,
            "messages": [{"role": "user", "content": "Block for 3 s."}]}))
        .send()
        .await
        .unwrap();
    // Tool activity arrives as SSE comments while the tool runs.
    let mut seen = String::new();
    while !seen.contains(": tool block_for started") {
        let chunk = res.chunk().await.unwrap().expect("the stream goes on");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(res);
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let calls = llm
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert_eq!(calls, 1, "the turn went on after the client left");
}

/// Asks for the lunch note with a model that posts it (`post_note`, which
/// sends it off the machine), then says "Done.".
async fn lunch_note(llm: &ScriptedServer, s: &Running, stream: bool) -> reqwest::Response {
    let sink = format!("{}/_sink/notes", llm.url());
    llm.reply(Reply::tool_call(
        "post_note",
        json!({"url": sink, "text": "Lunch moved to 1 pm"}),
    ));
    llm.reply(Reply::text("Done."));
    client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": stream,
            "messages": [{"role": "user", "content": "Tell the team lunch moved"}]}))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_held_back_is_told_to_the_caller() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let v: Value = lunch_note(&llm, &s, false).await.json().await.unwrap();
    let notices = v["baton"]["notices"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        notices.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.starts_with("held back: Diagnostics.post_note"))),
        "the caller hears it, whatever the model says: {v}"
    );
    assert_eq!(v["baton"]["tool_calls"][0]["ok"], false, "{v}");
    assert!(
        !llm.requests().iter().any(|r| r.path == "/_sink/notes"),
        "nothing was sent"
    );
    // Streamed, it is a comment beside the text.
    let streamed = lunch_note(&llm, &s, true).await.text().await.unwrap();
    assert!(
        streamed.contains(": notice held back: Diagnostics.post_note"),
        "{streamed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_waits_for_the_first_index_scan_and_says_when_the_provider_is_gone() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start_at(&llm.url(), open(), |ws| {
        for i in 0..300 {
            std::fs::write(
                ws.join(format!("note{i}.md")),
                format!("# Note {i}\nThe heron count is {i}."),
            )
            .unwrap();
        }
    })
    .await;
    let ready = || async {
        let res = client()
            .get(format!("{}/ready", s.base))
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json::<Value>().await.unwrap())
    };
    let started = std::time::Instant::now();
    let mut states = Vec::new();
    let v = loop {
        let (status, v) = ready().await;
        states.push((
            status,
            v["index"]["state"].as_str().unwrap_or_default().to_string(),
        ));
        if status == 200 {
            break v;
        }
        assert_eq!(v["status"], "not ready", "{v}");
        assert!(started.elapsed().as_secs() < 60, "never ready: {states:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(v["index"]["state"], "ready", "{v} after {states:?}");
    assert_eq!(v["index"]["documents"], 300, "{v}");
    assert_eq!(
        states.first(),
        Some(&(503, "indexing".to_string())),
        "not ready while the first scan runs: {states:?}"
    );

    // A provider nobody answers for: 503 and why.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let gone = start_at(&format!("http://{closed}"), no_indexing(), |_| {}).await;
    let res = client()
        .get(format!("{}/ready", gone.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["provider"]["ready"], false, "{v}");
    assert!(
        v["provider"]["detail"]
            .as_str()
            .unwrap()
            .contains("no server answering"),
        "{v}"
    );
    // Liveness is another matter.
    let res = client()
        .get(format!("{}/health", gone.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_finishes_the_answers_in_flight_and_takes_no_new_ones() {
    let llm = ScriptedServer::start().await.unwrap();
    let mut s = start(&llm).await;
    // About a second of answer, a word every 50 ms.
    let words = "one two three four five six seven eight nine ten ".repeat(2);
    llm.reply(Reply::paced(words.clone(), 50).chunked(4));
    let mut res = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&json!({"model": "assistant", "stream": true,
            "messages": [{"role": "user", "content": "Count."}]}))
        .send()
        .await
        .unwrap();
    let first = res.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("chat.completion.chunk"));
    // Ctrl-C (the shutdown signal) while it streams.
    s.stop.take().unwrap().send(()).unwrap();
    let mut body = String::from_utf8_lossy(&first).into_owned();
    while let Some(chunk) = res.chunk().await.unwrap() {
        body.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
    let text: String = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(text, words, "the whole answer arrived");
    tokio::time::timeout(std::time::Duration::from_secs(5), &mut s.task)
        .await
        .expect("the server stopped once the answer was done")
        .unwrap();
    let refused = client().get(format!("{}/health", s.base)).send().await;
    assert!(refused.is_err(), "a stopped server takes no new requests");
}

/// An answer that cites the workspace passages `search_documents` gave
/// has them under `baton.citations`, whole and streamed; a citation to a
/// passage never given is taken out of the text and counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn citations_come_in_the_baton_field() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start_at(&llm.url(), open(), |ws| {
        std::fs::write(
            ws.join("harbour.md"),
            "# Harbour costs\n\nPilotage fees for March came to 4,200 EUR.\n",
        )
        .unwrap();
    })
    .await;
    let ask = |stream: bool| {
        llm.reply(Reply::tool_call(
            "search_documents",
            json!({"query": "pilotage fees"}),
        ));
        llm.reply(Reply::text("Paid 4,200 EUR [1]. Tugs cost more [3]."));
        client()
            .post(format!("{}/v1/chat/completions", s.base))
            .json(&json!({"model": "assistant", "stream": stream,
                "messages": [{"role": "user", "content": "What did we pay the pilots?"}]}))
            .send()
    };
    // The index is built in the background after start: ask until it is.
    let started = std::time::Instant::now();
    let v: Value = loop {
        let v: Value = ask(false).await.unwrap().json().await.unwrap();
        if v["baton"]["citations"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
        {
            break v;
        }
        assert!(started.elapsed().as_secs() < 30, "never cited: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    assert_eq!(v["baton"]["citations"][0]["path"], "/harbour.md", "{v}");
    assert_eq!(v["baton"]["citations"][0]["number"], 1);
    assert_eq!(v["baton"]["dropped_citations"], 1);
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "Paid 4,200 EUR [1]. Tugs cost more."
    );
    let streamed = ask(true).await.unwrap().text().await.unwrap();
    let last = streamed
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .rfind(|l| *l != "[DONE]")
        .unwrap();
    let last: Value = serde_json::from_str(last).unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        last["baton"]["citations"][0]["path"], "/harbour.md",
        "{last}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_owners_memory_is_neither_told_to_nor_written_by_an_api_caller() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let memory = baton_engine::api::memory::MemoryStore::in_dir(&s.dir.paths().data_dir);
    memory
        .add(
            "The owner's bank is North Bank",
            baton_engine::api::memory::MemorySource::User,
            None,
        )
        .unwrap();
    llm.reply(Reply::tool_call(
        "remember",
        json!({"fact": "I prefer tea"}),
    ));
    llm.reply(Reply::text("Noted."));
    let ask = "Remember that I prefer tea. Which bank do I use?";
    let body = json!({"model": "assistant", "messages": [{"role": "user", "content": ask}]});
    let v = post_json(format!("{}/v1/chat/completions", s.base), &body).await;
    let first = llm
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/chat/completions"))
        .unwrap()
        .json();
    let told = first.to_string();
    assert!(!told.contains("North Bank"), "{told}");
    // No `remember` tool is offered: the call is an unknown method.
    assert!(
        !first["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["function"]["name"] == "remember"),
        "{told}"
    );
    assert_eq!(v["choices"][0]["message"]["content"], "Noted.", "{v}");
    let kept: Vec<String> = memory.list().unwrap().into_iter().map(|m| m.text).collect();
    assert_eq!(kept, ["The owner's bank is North Bank"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn x_baton_project_answers_in_the_projects_folder_with_its_instructions() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let folder = s.dir.root().join("harbour-project");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("tugs.md"),
        "# Tugs\n\nThe tug Hector is at quay 4.\n",
    )
    .unwrap();
    let engine = std::sync::Arc::new(
        baton_engine::Engine::load_with(s.dir.paths(), baton_engine::Overrides::default()).unwrap(),
    );
    engine
        .projects()
        .create(baton_engine::api::projects::NewProject {
            name: "Harbour".into(),
            folder: folder.clone(),
            instructions: "Answer as the harbour master.".into(),
            ..Default::default()
        })
        .unwrap();
    llm.reply(Reply::tool_call(
        "read_text_file",
        json!({"path": "/tugs.md"}),
    ));
    llm.reply(Reply::text("Hector is at quay 4."));
    let body = json!({"model": "assistant", "messages": [{"role": "user", "content": "Where is Hector?"}]});
    let r = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .header("x-baton-project", "harbour")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let told = llm.requests().last().unwrap().json();
    let system = told["messages"][0]["content"].to_string();
    assert!(system.contains("Answer as the harbour master."), "{system}");
    assert!(
        told.to_string().contains("quay 4"),
        "the project's file was read: {told}"
    );

    // An unknown project is the request's fault, said plainly.
    let r = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .header("x-baton-project", "Nowhere")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no project named 'Nowhere'"),
        "{v}"
    );
}
