//! Model servers running on this computer (the scripted server speaking
//! Ollama's and OpenAI's model lists), catalog downloads from a loopback
//! server, and the provider a first run picks for each combination.

use std::time::{Duration, Instant};

use baton_config::BatonPaths;
use baton_engine::{ChoiceReason, ConversationOptions, Engine, Overrides, UserMessage};
use baton_models::{ServerKind, ServerTarget, probe};
use baton_scripted_llm::{Reply, ScriptedServer};
use baton_test_support::{
    EMBEDDED_MODEL_SHA256, FileServerOptions, embedded_catalog_entry, embedded_model, serve_file,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn target(kind: ServerKind, endpoint: &str) -> ServerTarget {
    ServerTarget {
        kind,
        endpoint: endpoint.to_string(),
    }
}

fn closed_port_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", l.local_addr().unwrap())
}

#[tokio::test]
async fn probes_find_ollama_and_openai_servers_and_skip_the_rest_quickly() {
    let nothing: Vec<ServerTarget> = (0..4)
        .map(|_| target(ServerKind::LlamaCpp, &closed_port_url()))
        .collect();
    let started = Instant::now();
    assert!(probe(&nothing, Duration::from_millis(400)).await.is_empty());
    assert!(
        started.elapsed() < Duration::from_millis(50),
        "{:?}",
        started.elapsed()
    );

    let ollama = ScriptedServer::start().await.unwrap();
    ollama.serve_models(&["llama3.2:latest", "qwen2.5:3b"]);
    let lmstudio = ScriptedServer::start().await.unwrap();
    lmstudio.serve_models(&["qwen2.5-7b-instruct"]);
    let not_a_model_server =
        serve_file("x", bytes::Bytes::new(), FileServerOptions::default()).await;
    let other = not_a_model_server.url.trim_end_matches("/x").to_string();
    let found = probe(
        &[
            target(ServerKind::Ollama, &ollama.url()),
            target(ServerKind::LmStudio, &lmstudio.url()),
            target(ServerKind::Vllm, &other),
            target(ServerKind::LlamaCpp, &closed_port_url()),
        ],
        Duration::from_millis(400),
    )
    .await;
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].models, vec!["llama3.2:latest", "qwen2.5:3b"]);
    assert_eq!(found[0].provider_endpoint(), ollama.url());
    assert_eq!(
        found[1].provider_endpoint(),
        format!("{}/v1", lmstudio.url())
    );
    let paths: Vec<String> = ollama.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, vec!["/api/tags"]);
    assert_eq!(lmstudio.requests()[0].path, "/v1/models");
}

/// A Baton home under a temp dir with `settings`.
fn home(settings: Value) -> (tempfile::TempDir, BatonPaths) {
    let dir = tempfile::tempdir().unwrap();
    let paths = BatonPaths::under(dir.path());
    std::fs::create_dir_all(&paths.config_dir).unwrap();
    std::fs::write(paths.settings_file(), settings.to_string()).unwrap();
    (dir, paths)
}

async fn engine(paths: &BatonPaths) -> Engine {
    Engine::load_with(paths.clone(), Overrides::default())
        .unwrap()
        .discover(Duration::from_millis(400))
        .await
}

/// A user catalog entry for the embedded model's file, served on loopback.
fn catalog_entry(url: &str) -> Value {
    embedded_catalog_entry("smol-test", "Smol test", url)
}

#[tokio::test]
async fn the_first_run_picks_key_then_server_then_pulled_then_embedded() {
    let ollama = ScriptedServer::start().await.unwrap();
    // An embedding model listed first is not one to chat with.
    ollama.serve_models(&["nomic-embed-text:latest", "llama3.2:latest"]);
    let closed = closed_port_url();
    let (_dir, paths) = home(json!({"localServers": [{"kind": "ollama", "endpoint": closed}]}));

    // Nothing: the embedded model, said in words.
    let e = engine(&paths).await;
    let choice = e.providers().first_run_choice().unwrap().clone();
    assert_eq!(
        (choice.provider.as_str(), choice.reason),
        ("local", ChoiceReason::Embedded)
    );
    assert!(
        choice
            .why
            .contains("no API key, model server or downloaded model"),
        "{}",
        choice.why
    );

    // A catalog model downloaded: it is picked, and it is a provider.
    let data = bytes::Bytes::from(std::fs::read(embedded_model()).unwrap());
    let files = serve_file("smol-test.gguf", data, FileServerOptions::default()).await;
    let catalog = json!({"models": [catalog_entry(&files.url)]});
    std::fs::write(
        paths.config_dir.join("models-catalog.json"),
        catalog.to_string(),
    )
    .unwrap();
    let pulled = e
        .models()
        .pull("smol-test", CancellationToken::new(), |_| {})
        .await
        .unwrap();
    assert_eq!(pulled.sha256, EMBEDDED_MODEL_SHA256);
    let e = e.reload().unwrap();
    let choice = e.providers().first_run_choice().unwrap();
    assert_eq!(
        (choice.provider.as_str(), choice.reason),
        ("smol-test", ChoiceReason::PulledModel)
    );
    assert_eq!(e.providers().selected(), "smol-test");

    // A model server running here wins over a downloaded model.
    std::fs::write(
        paths.settings_file(),
        json!({"localServers": [{"kind": "ollama", "endpoint": ollama.url()}]}).to_string(),
    )
    .unwrap();
    let e = engine(&paths).await;
    let choice = e.providers().first_run_choice().unwrap();
    assert_eq!(choice.reason, ChoiceReason::LocalServer);
    assert_eq!(choice.provider, "ollama-llama3.2:latest");
    assert!(choice.why.contains(&ollama.url()), "{}", choice.why);

    // A cloud entry with a key wins over all.
    // Any variable that is set stands in for the key (setting one here
    // would need unsafe code, which the workspace denies).
    let var = "HOME";
    let user = json!({"providers": [{"name": "cloud", "dialect": "openai", "endpoint": "https://api.example.invalid/v1",
                                     "model": "m", "apiKeyEnv": var}]});
    std::fs::write(paths.user_providers_file(), user.to_string()).unwrap();
    let e = engine(&paths).await;
    let choice = e.providers().first_run_choice().unwrap();
    assert_eq!(
        (choice.provider.as_str(), choice.reason),
        ("cloud", ChoiceReason::KeyedCloud)
    );
    assert!(choice.why.contains("$HOME"), "{}", choice.why);

    // Chosen by the user: nothing is picked, the servers are still listed.
    let settings = json!({"provider": "local", "localServers": [{"kind": "ollama", "endpoint": ollama.url()}]});
    std::fs::write(paths.settings_file(), settings.to_string()).unwrap();
    let e = engine(&paths).await;
    assert!(e.providers().first_run_choice().is_none());
    assert_eq!(e.providers().selected(), "local");
    assert!(e.providers().file().get("ollama-llama3.2:latest").is_some());

    // Probing off: no server is asked.
    let before = ollama.requests().len();
    let settings = json!({"probeLocalServers": false, "localServers": [{"kind": "ollama", "endpoint": ollama.url()}]});
    std::fs::write(paths.settings_file(), settings.to_string()).unwrap();
    let e = engine(&paths).await;
    assert_eq!(ollama.requests().len(), before);
    assert!(e.providers().local_servers().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_found_server_answers_a_turn_and_a_removed_model_is_gone() {
    let ollama = ScriptedServer::start().await.unwrap();
    ollama.serve_models(&["qwen2.5:3b"]);
    ollama.reply(Reply::text("Four."));
    let (_dir, paths) =
        home(json!({"localServers": [{"kind": "ollama", "endpoint": ollama.url()}]}));
    let e = std::sync::Arc::new(engine(&paths).await);
    let options = ConversationOptions {
        tools: false,
        persist: false,
        ..ConversationOptions::default()
    };
    let conversation = e.conversations().open(None, options).unwrap();
    let mut turn = conversation.send(UserMessage::text("What is two plus two?"));
    let mut text = String::new();
    while let Some(ev) = turn.next().await {
        if let baton_agent::AgentEvent::TextDelta { text: t } = ev.event {
            text.push_str(&t);
        }
    }
    assert_eq!(text, "Four.");
    let chat = ollama
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/chat")
        .unwrap();
    let body: Value = serde_json::from_slice(&chat.body).unwrap();
    assert_eq!(body["model"], "qwen2.5:3b");

    // rm of a model never pulled: nothing there, said so.
    let catalog = json!({"models": [catalog_entry("http://127.0.0.1:9/smol-test.gguf")]});
    std::fs::write(
        paths.config_dir.join("models-catalog.json"),
        catalog.to_string(),
    )
    .unwrap();
    std::fs::write(paths.models_dir.join("smol-test.gguf.part"), b"partial").unwrap_or_else(|_| {
        std::fs::create_dir_all(&paths.models_dir).unwrap();
        std::fs::write(paths.models_dir.join("smol-test.gguf.part"), b"partial").unwrap();
    });
    // The provider in use is deleted: the setting is cleared, not left
    // naming an entry that is gone.
    let settings = json!({"provider": "smol-test", "localServers": []});
    std::fs::write(paths.settings_file(), settings.to_string()).unwrap();
    let e = Engine::load_with(paths.clone(), Overrides::default()).unwrap();
    assert!(
        e.models().remove("smol-test").unwrap(),
        "the part file counts"
    );
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(paths.settings_file()).unwrap()).unwrap();
    assert_eq!(saved["provider"], Value::Null);
    assert!(!paths.models_dir.join("smol-test.gguf.part").exists());
    assert!(!e.models().remove("smol-test").unwrap());

    // A provider of the user's own with a catalog model's name is left
    // alone: the download is refused, and rm does not delete the entry.
    let user = json!({"providers": [{"name": "smol-test", "dialect": "openai", "endpoint": "http://127.0.0.1:9/v1", "model": "m"}]});
    std::fs::write(paths.user_providers_file(), user.to_string()).unwrap();
    let e = Engine::load_with(paths.clone(), Overrides::default()).unwrap();
    let err = e
        .models()
        .pull("smol-test", CancellationToken::new(), |_| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("of your own"), "{err}");
    e.models().remove("smol-test").unwrap();
    assert!(
        std::fs::read_to_string(paths.user_providers_file())
            .unwrap()
            .contains("smol-test")
    );
    assert!(
        e.models()
            .remove("nope")
            .unwrap_err()
            .to_string()
            .contains("known models")
    );
}
