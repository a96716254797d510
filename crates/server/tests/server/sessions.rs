//! `x-baton-session`: history kept in memory, files and Redis, each key
//! apart from the others, and shared with the desktop on purpose.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_baton_session_keeps_the_history_on_the_server() {
    for kind in [
        baton_server::SessionKind::Memory,
        baton_server::SessionKind::File,
    ] {
        let llm = ScriptedServer::start().await.unwrap();
        let options = baton_server::ServeOptions {
            sessions: kind.clone(),
            ..open()
        };
        let s = start_with(&llm, options).await;
        let ask = |content: &str, session: &str| {
            client()
                .post(format!("{}/v1/chat/completions", s.base))
                .header("x-baton-session", session)
                .json(&json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}))
                .send()
        };
        llm.reply(Reply::text("Noted: your name is Ada."));
        assert_eq!(
            ask("My name is Ada.", "team-7").await.unwrap().status(),
            200
        );
        llm.reply(Reply::text("You are Ada."));
        let v: Value = ask("Who am I?", "team-7")
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "You are Ada.");
        // Only the new message was posted; the server brought the rest.
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(
            sent.contains("My name is Ada.") && sent.contains("Noted: your name is Ada."),
            "{sent}"
        );
        // Another session knows nothing of it.
        llm.reply(Reply::text("I do not know."));
        ask("Who am I?", "team-8").await.unwrap();
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(!sent.contains("Ada"), "{sent}");
        // Slash commands work on a kept session, without the model.
        let before = llm.requests().len();
        let v: Value = ask("/help", "team-7").await.unwrap().json().await.unwrap();
        assert!(
            !v["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .is_empty(),
            "{v}"
        );
        assert_eq!(llm.requests().len(), before);
        let e = ask("hi", "../etc").await.unwrap();
        assert_eq!(e.status(), 400);
        // Kept apart from the desktop's sessions, in the API's own folder.
        let file = s
            .dir
            .paths()
            .data_dir
            .join("api-sessions/local/team-7.json");
        assert_eq!(
            file.exists(),
            kind == baton_server::SessionKind::File,
            "{kind:?}"
        );
        assert!(!s.dir.paths().data_dir.join("sessions/team-7.json").exists());
        // Commands reaching beyond the one session are refused.
        for command in [
            "/session list",
            "/session load team-8",
            "/session delete team-8",
            "/session save copy",
        ] {
            let res = ask(command, "team-7").await.unwrap();
            assert_eq!(res.status(), 400, "{command}");
            let v: Value = res.json().await.unwrap();
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("not available over the HTTP API"),
                "{v}"
            );
        }
        // A command that changes the session is kept: after a reset the
        // next question comes without the history.
        let v: Value = ask("/session reset", "team-7")
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let said = v["choices"][0]["message"]["content"].as_str().unwrap();
        assert!(said.contains("conversation cleared"), "{v}");
        llm.reply(Reply::text("I do not know you yet."));
        ask("Who am I?", "team-7").await.unwrap();
        let sent = llm.requests().last().unwrap().json()["messages"].to_string();
        assert!(!sent.contains("Ada"), "{kind:?}: {sent}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_sessions_on_redis_and_say_so_when_it_is_down() {
    let mut redis = Redis::start_anywhere();
    let port = redis.port;
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
        ..open()
    };
    let a = start_with(&llm, options.clone()).await;
    let b = start_with(&llm, options).await;
    let ask = |base: &str, content: &str, session: Option<&str>| {
        let mut r = client().post(format!("{base}/v1/chat/completions")).json(
            &json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}),
        );
        if let Some(s) = session {
            r = r.header("x-baton-session", s);
        }
        r.send()
    };
    llm.reply(Reply::text("Noted, Ada."));
    assert_eq!(
        ask(&a.base, "My name is Ada.", Some("shared"))
            .await
            .unwrap()
            .status(),
        200
    );
    llm.reply(Reply::text("You are Ada."));
    assert_eq!(
        ask(&b.base, "Who am I?", Some("shared"))
            .await
            .unwrap()
            .status(),
        200
    );
    let sent = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        sent.contains("My name is Ada.") && sent.contains("Noted, Ada."),
        "the other server continued it: {sent}"
    );

    // A file uploaded to one server is there on the other.
    let form = reqwest::multipart::Form::new()
        .text("purpose", "assistants")
        .part(
            "file",
            reqwest::multipart::Part::bytes(b"Shared notes: the password hint is heron.".to_vec())
                .file_name("notes.txt"),
        );
    let up: Value = client()
        .post(format!("{}/v1/files", a.base))
        .multipart(form)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = up["id"].as_str().unwrap();
    let on_b = client()
        .get(format!("{}/v1/files/{id}/content", b.base))
        .send()
        .await
        .unwrap();
    assert_eq!(on_b.status(), 200);
    assert_eq!(
        on_b.text().await.unwrap(),
        "Shared notes: the password hint is heron."
    );
    let listed: Value = get_json(format!("{}/v1/files", b.base)).await;
    assert_eq!(listed["data"][0]["id"], id, "{listed}");

    // Redis goes away: a clear error for kept sessions; stateless requests go on.
    redis.stop();
    let res = ask(&a.base, "Still there?", Some("shared")).await.unwrap();
    assert_eq!(res.status(), 503);
    let v: Value = res.json().await.unwrap();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("Redis at redis://127.0.0.1") && msg.contains("cannot be reached"),
        "{msg}"
    );
    assert!(
        !msg.contains(REDIS_PASSWORD),
        "the password is shown: {msg}"
    );
    llm.reply(Reply::text("Stateless still works."));
    assert_eq!(ask(&a.base, "Hello?", None).await.unwrap().status(), 200);

    // Back again: the servers recover by themselves.
    let _redis = Redis::start(port);
    let mut ok = false;
    for _ in 0..40 {
        llm.reply(Reply::text("Back."));
        if ask(&b.base, "Back?", Some("shared"))
            .await
            .unwrap()
            .status()
            == 200
        {
            ok = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(ok, "no recovery after Redis came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_key_sees_only_its_own_sessions_and_files() {
    let redis = Redis::start_anywhere();
    let kinds = [
        baton_server::SessionKind::Memory,
        baton_server::SessionKind::File,
        baton_server::SessionKind::parse(&redis.url(), 30).unwrap(),
    ];
    for kind in kinds {
        let llm = ScriptedServer::start().await.unwrap();
        let options = baton_server::ServeOptions {
            sessions: kind.clone(),
            ..no_indexing()
        };
        let s = start_with(&llm, options).await;
        let store = KeyStore::new(&s.dir.paths().data_dir);
        let alice = store.add("alice", Door::Serve).unwrap();
        let bob = store.add("bob", Door::Serve).unwrap();
        let ask = |key: &str, content: &str| {
            client()
                .post(format!("{}/v1/chat/completions", s.base))
                .bearer_auth(key)
                .header("x-baton-session", "same-name")
                .json(&json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}))
                .send()
        };
        let last_sent = || llm.requests().last().unwrap().json()["messages"].to_string();
        llm.reply(Reply::text("Noted."));
        assert_eq!(ask(&alice, "My PIN is 4711.").await.unwrap().status(), 200);
        // Bob, with the same session name, gets a conversation of his own,
        // and neither his turn nor his reset touches Alice's.
        llm.reply(Reply::text("I do not know it."));
        assert_eq!(ask(&bob, "What is my PIN?").await.unwrap().status(), 200);
        assert!(!last_sent().contains("4711"), "{kind:?}: {}", last_sent());
        let reset = ask(&bob, "/session reset").await.unwrap();
        assert_eq!(reset.status(), 200, "{kind:?}");
        llm.reply(Reply::text("It is 4711."));
        ask(&alice, "What is my PIN?").await.unwrap();
        let sent = last_sent();
        assert!(
            sent.contains("My PIN is 4711.") && !sent.contains("I do not know it."),
            "{kind:?}: {sent}"
        );

        // Files: Bob can neither list, read, delete nor attach Alice's.
        let up: Value = client()
            .post(format!("{}/v1/files", s.base))
            .bearer_auth(&alice)
            .multipart(one_file("pin.txt", "Alice's PIN is 4711."))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = up["id"].as_str().unwrap().to_string();
        let as_bob = |method: reqwest::Method, path: String| {
            client()
                .request(method, format!("{}{path}", s.base))
                .bearer_auth(&bob)
                .send()
        };
        let listed: Value = as_bob(reqwest::Method::GET, "/v1/files".into())
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(listed["data"], json!([]), "{kind:?}");
        for (method, path) in [
            (reqwest::Method::GET, format!("/v1/files/{id}")),
            (reqwest::Method::GET, format!("/v1/files/{id}/content")),
            (reqwest::Method::DELETE, format!("/v1/files/{id}")),
        ] {
            let res = as_bob(method.clone(), path.clone()).await.unwrap();
            assert_eq!(res.status(), 404, "{kind:?}: {method} {path}");
        }
        let attach = client()
            .post(format!("{}/v1/chat/completions", s.base))
            .bearer_auth(&bob)
            .json(
                &json!({"model": "assistant", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Read it."},
                {"type": "file", "file": {"file_id": id}}]}]}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(attach.status(), 404, "{kind:?}");
        let mine = client()
            .get(format!("{}/v1/files/{id}/content", s.base))
            .bearer_auth(&alice)
            .send()
            .await
            .unwrap();
        assert_eq!(mine.text().await.unwrap(), "Alice's PIN is 4711.");

        // Readiness: the status to anyone, the details to a key's holder.
        let ready = |key: Option<&str>| {
            let mut r = client().get(format!("{}/ready", s.base));
            if let Some(k) = key {
                r = r.bearer_auth(k);
            }
            async move { r.send().await.unwrap().json::<Value>().await.unwrap() }
        };
        let plain = ready(None).await;
        assert_eq!(
            plain.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["status"],
            "{plain}"
        );
        let full = ready(Some(&alice)).await;
        assert_eq!(full["agent"], "assistant", "{full}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_whose_owner_shares_its_sessions_adds_them_to_the_desktops_history() {
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        sessions: baton_server::SessionKind::File,
        ..no_indexing()
    };
    let s = start_with(&llm, options).await;
    let store = KeyStore::new(&s.dir.paths().data_dir);
    let phone = store.add("phone", Door::Serve).unwrap();
    let script = store.add("script", Door::Serve).unwrap();
    store.share_sessions("phone", Door::Serve, true).unwrap();
    let ask = |key: &str, session: &str, content: &str| {
        llm.reply(Reply::text("Noted."));
        client()
            .post(format!("{}/v1/chat/completions", s.base))
            .bearer_auth(key)
            .header("x-baton-session", session)
            .json(
                &json!({"model": "assistant", "messages": [{"role": "user", "content": content}]}),
            )
            .send()
    };
    assert_eq!(
        ask(&phone, "groceries", "Buy milk.")
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        ask(&script, "plans", "The plan.").await.unwrap().status(),
        200
    );
    let desktop = s.dir.paths().data_dir.join("sessions");
    let kept = std::fs::read_to_string(desktop.join("groceries.json")).unwrap();
    assert!(kept.contains("Buy milk."), "{kept}");
    assert!(
        !desktop.join("plans.json").exists(),
        "a key that does not share stays apart"
    );
    // Sharing does not let the holder browse the desktop's conversations.
    let listed = ask(&phone, "groceries", "/session list").await.unwrap();
    assert_eq!(listed.status(), 400);
    // Apart again: its next conversation is not the desktop's.
    store.share_sessions("phone", Door::Serve, false).unwrap();
    assert_eq!(
        ask(&phone, "later", "Call Ann.").await.unwrap().status(),
        200
    );
    assert!(!desktop.join("later.json").exists());
    let e = store
        .share_sessions("nobody", Door::Serve, true)
        .unwrap_err();
    assert!(e.to_string().contains("nobody"), "{e}");
}
