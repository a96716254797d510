//! Who may call: no key only when asked and for this computer only, web
//! pages refused, keys required once made, limits per minute and at once.

use crate::support::*;

#[tokio::test]
async fn without_a_key_it_starts_only_when_asked_and_for_this_computer_only() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        Arc::new(Engine::load_with(BatonPaths::under(dir.path()), Overrides::default()).unwrap());
    let refused = |addr: &str, options| {
        baton_server::serve(
            Arc::clone(&engine),
            addr.parse().unwrap(),
            options,
            |_, _| {},
            async {},
        )
    };
    let e = refused("127.0.0.1:0", baton_server::ServeOptions::default())
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("no API key yet") && e.to_string().contains("--no-auth"),
        "{e}"
    );
    let e = refused("0.0.0.0:0", open()).await.unwrap_err();
    assert!(e.to_string().contains("this computer only"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_page_cannot_drive_the_api() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let get = |headers: Vec<(&'static str, String)>| {
        let mut r = client().get(format!("{}/v1/models", s.base));
        for (k, v) in headers {
            r = r.header(k, v);
        }
        async move { r.send().await.unwrap() }
    };
    // A page in the user's browser (it sends its Origin).
    let page = get(vec![("origin", "https://evil.example".into())]).await;
    assert_eq!(page.status(), 403);
    let body = page.text().await.unwrap();
    assert!(body.contains("web pages"), "{body}");
    // A page's own name re-pointed at 127.0.0.1 (DNS rebinding).
    let rebound = get(vec![("host", format!("evil.example:{port}"))]).await;
    assert_eq!(rebound.status(), 403);
    assert!(rebound.text().await.unwrap().contains("not this computer"));
    // Programs on this computer, and pages served from it, are answered.
    for ok in [
        vec![],
        vec![("host", format!("localhost:{port}"))],
        vec![("origin", "http://localhost:5173".into())],
        vec![("host", format!("[::1]:{port}"))],
    ] {
        let r = get(ok.clone()).await;
        assert_eq!(r.status(), 200, "{ok:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_key_a_rebound_name_is_still_refused_and_configured_names_answered() {
    let llm = ScriptedServer::start().await.unwrap();
    let options = baton_server::ServeOptions {
        host_names: vec!["Baton.LAN".into()],
        ..no_indexing()
    };
    let s = start_with(&llm, options).await;
    let key = KeyStore::new(&s.dir.paths().data_dir)
        .add("lan", Door::Serve)
        .unwrap();
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let models = |host: String| {
        client()
            .get(format!("{}/v1/models", s.base))
            .bearer_auth(&key)
            .header("host", host)
            .send()
    };
    // A page's own name re-pointed here is refused even to a key's holder
    // (a page cannot have the key, but nothing should rest on one check).
    let rebound = models(format!("rebind.example:{port}")).await.unwrap();
    assert_eq!(rebound.status(), 403);
    let body = rebound.text().await.unwrap();
    assert!(body.contains("--host-name"), "{body}");
    // The configured name, any address and this computer's names are
    // answered.
    for host in [
        format!("baton.lan:{port}"),
        format!("BATON.LAN.:{port}"),
        format!("192.168.1.5:{port}"),
        format!("[fe80::1]:{port}"),
        format!("localhost:{port}"),
    ] {
        assert_eq!(models(host.clone()).await.unwrap().status(), 200, "{host}");
    }
    // A cross-site Origin stays refused with the key too.
    let page = client()
        .get(format!("{}/v1/models", s.base))
        .bearer_auth(&key)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_keys_are_required_once_made_and_revoking_one_counts_at_once() {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    let store = KeyStore::new(&s.dir.paths().data_dir);
    let models = |key: Option<&str>| {
        let mut r = client().get(format!("{}/v1/models", s.base));
        if let Some(k) = key {
            r = r.bearer_auth(k);
        }
        r.send()
    };
    // No key made: open (on loopback).
    assert_eq!(models(None).await.unwrap().status(), 200);
    let key = store.add("ci-bot", Door::Serve).unwrap();
    assert!(key.starts_with("bk-") && key.len() > 60);
    let stored = std::fs::read_to_string(
        s.dir
            .paths()
            .data_dir
            .join(baton_engine::api::keys::KEYS_FILE),
    )
    .unwrap();
    assert!(!stored.contains(&key), "only the hash is kept");
    // From the next request on, a key is needed.
    let res = models(None).await.unwrap();
    assert_eq!(res.status(), 401);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["error"]["code"], "invalid_api_key", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer")
    );
    assert_eq!(models(Some("bk-wrong")).await.unwrap().status(), 401);
    assert_eq!(models(Some(&key)).await.unwrap().status(), 200);
    // Health stays open for load balancers.
    assert_eq!(
        client()
            .get(format!("{}/health", s.base))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert!(matches!(
        store.add("ci-bot", Door::Serve),
        Err(baton_engine::api::keys::KeyError::Exists(_))
    ));
    assert!(matches!(
        store.add("bad name", Door::Serve),
        Err(baton_engine::api::keys::KeyError::BadName(_))
    ));
    store.revoke("ci-bot", Door::Serve).unwrap();
    assert!(store.list().unwrap().is_empty());
    assert_eq!(
        models(Some(&key)).await.unwrap().status(),
        200,
        "no key left: open again on loopback"
    );

    // With a key, another host may be served; revoking every key then
    // closes the server instead of opening it.
    let other = store.add("lan", Door::Serve).unwrap();
    let engine = Arc::new(
        Engine::load_with(
            s.dir.paths(),
            Overrides {
                providers: Some(s.dir.root().join("providers.json")),
                ..Overrides::default()
            },
        )
        .unwrap(),
    );
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(baton_server::serve(
        engine,
        "0.0.0.0:0".parse().unwrap(),
        open(),
        move |a, with_keys| {
            let _ = bound_tx.send((a, with_keys));
        },
        std::future::pending(),
    ));
    let (addr, with_keys) = bound_rx.await.unwrap();
    assert!(with_keys);
    let lan = format!("http://127.0.0.1:{}/v1/models", addr.port());
    assert_eq!(
        client()
            .get(&lan)
            .bearer_auth(&other)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    store.revoke("lan", Door::Serve).unwrap();
    assert_eq!(
        client()
            .get(&lan)
            .bearer_auth(&other)
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    assert_eq!(client().get(&lan).send().await.unwrap().status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_at_once_or_per_minute_is_429_with_retry_after() {
    let llm = ScriptedServer::start().await.unwrap();
    let limits = baton_server::Limits {
        max_concurrent: 1,
        per_minute: 3,
        ..Default::default()
    };
    let options = baton_server::ServeOptions { limits, ..open() };
    let s = start_with(&llm, options).await;
    // One slow answer holds the only place while it streams.
    llm.reply(Reply::paced("one two three four five six", 200));
    let body = |content: &str| {
        json!({"model": "assistant", "stream": true,
        "messages": [{"role": "user", "content": content}]})
    };
    let mut first = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body("slow"))
        .send()
        .await
        .unwrap();
    let _ = first.chunk().await.unwrap();
    let second = client()
        .post(format!("{}/v1/chat/completions", s.base))
        .json(&body("meanwhile"))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 429);
    assert_eq!(second.headers()["retry-after"], "1");
    let v: Value = second.json().await.unwrap();
    assert_eq!(v["error"]["code"], "rate_limit_exceeded", "{v}");
    while first.chunk().await.unwrap().is_some() {}
    // Two requests made so far this minute (the refused one counts): the
    // third passes, the fourth not.
    assert_eq!(
        client()
            .get(format!("{}/v1/models", s.base))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let fourth = client()
        .get(format!("{}/v1/models", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(fourth.status(), 429);
    let wait: u64 = fourth.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
}
