//! Which model answers: the embedded model out of the box, `baton models
//! catalog|pull|rm`, and a running Ollama found without any setup.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn the_embedded_model_answers_out_of_the_box() {
    // No providers file, no key, no server: the factory default is the
    // embedded model that `make setup` fetched into BATON_MODELS_DIR.
    let env = Env::new();
    let mut c = env.cmd();
    c.args([
        "ask",
        "--no-tools",
        "--json",
        "What is the capital of France?",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["provider"], "local");
    assert!(
        v["text"].as_str().unwrap().to_lowercase().contains("paris"),
        "{v}"
    );
    assert!(v["usage"]["completionTokens"].as_u64().unwrap() > 0);

    let mut c = env.cmd();
    c.args(["models", "--json"]);
    let v: Value = serde_json::from_str(&run(c, None).await.stdout).unwrap();
    let m = &v["models"][0];
    assert_eq!(m["architecture"], "llama");
    assert_eq!(m["contextLength"], 8192);
    assert_eq!(m["usedBy"], json!(["local"]));
    // The speech models are listed too, the one voice uses marked.
    let speech = v["speechModels"].as_array().unwrap();
    let used: Vec<_> = speech.iter().filter(|m| m["usedByVoice"] == true).collect();
    assert_eq!(used.len(), 1, "{speech:?}");
    assert!(
        used[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("ggml-tiny.en-q8_0.bin")
    );

    // A missing model file is named, with the command that fetches it.
    let mut c = env.cmd();
    c.env("BATON_MODELS_DIR", env.path().join("empty"))
        .args(["ask", "--no-tools", "hi"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("SmolLM2-135M-Instruct.Q4_1.gguf is missing")
            && o.stderr.contains("make setup"),
        "{}",
        o.stderr
    );
}

/// `baton models catalog|pull|rm` against a loopback server serving the
/// embedded model's file as a catalog entry of the user's; the pulled
/// model is then the provider a first run picks, and answers.
#[tokio::test(flavor = "multi_thread")]
async fn models_are_listed_pulled_used_and_removed() {
    use baton_test_support::{
        FileServerOptions, embedded_catalog_entry, embedded_model, serve_file,
    };
    let env = Env::new();
    let data = bytes::Bytes::from(std::fs::read(embedded_model()).unwrap());
    let size = data.len();
    let server = serve_file("smol-test.gguf", data, FileServerOptions::default()).await;
    let config = env.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let entry = embedded_catalog_entry("smol-test", "Smol test", &server.url);
    std::fs::write(
        config.join("models-catalog.json"),
        json!({"models": [entry]}).to_string(),
    )
    .unwrap();
    // No model server is looked for (the usual ports may be in use here).
    std::fs::write(
        config.join("setup.json"),
        json!({"localServers": []}).to_string(),
    )
    .unwrap();
    let models = env.path().join("models");
    let baton = |args: &[&str]| {
        let mut c = env.cmd();
        c.env("BATON_MODELS_DIR", &models).args(args);
        c
    };

    let o = run(baton(&["models", "catalog", "--json"]), None).await;
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["hardware"]["ramBytes"].as_u64().unwrap() > 0, "{v}");
    let listed: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"qwen2.5-3b") && listed.contains(&"smol-test"),
        "{listed:?}"
    );
    let o = run(baton(&["models", "catalog"]), None).await;
    assert!(
        o.stdout.contains("fits this computer") && o.stdout.contains("Qwen2.5 3B Instruct"),
        "{}",
        o.stdout
    );

    let o = run(baton(&["models", "pull", "nope"]), None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no model named `nope`") && o.stderr.contains("smol-test"),
        "{}",
        o.stderr
    );
    let o = run(baton(&["models", "pull", "smol-test"]), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("matches the published one") && o.stdout.contains("provider `smol-test`"),
        "{}",
        o.stdout
    );
    assert_eq!(
        std::fs::metadata(models.join("smol-test.gguf"))
            .unwrap()
            .len(),
        size as u64
    );

    // No provider chosen: the downloaded model is picked, said on stderr.
    let o = run(
        baton(&[
            "-v",
            "ask",
            "--no-tools",
            "--json",
            "What is the capital of France?",
        ]),
        None,
    )
    .await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["provider"], "smol-test");
    assert!(
        o.stderr.contains("Using `smol-test`") && o.stderr.contains("largest model you downloaded"),
        "{}",
        o.stderr
    );

    let o = run(baton(&["models", "rm", "smol-test"]), None).await;
    assert!(o.stdout.contains("deleted Smol test"), "{}", o.stdout);
    assert!(!models.join("smol-test.gguf").exists());
    let user = std::fs::read_to_string(config.join("providers.json")).unwrap();
    assert!(!user.contains("smol-test"), "{user}");
}

/// A model server running on this computer (the scripted server speaking
/// Ollama's API) is found and used when no provider is chosen.
#[tokio::test(flavor = "multi_thread")]
async fn a_running_ollama_is_found_and_answers_without_any_setup() {
    let server = ScriptedServer::start().await.unwrap();
    server.serve_models(&["qwen2.5:3b"]);
    server.reply(Reply::text("Paris."));
    let env = Env::new();
    let config = env.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let settings = json!({"localServers": [{"kind": "ollama", "endpoint": server.url()}]});
    std::fs::write(config.join("setup.json"), settings.to_string()).unwrap();
    let mut c = env.cmd();
    c.args(["-v", "ask", "--no-tools", "Capital of France?"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.trim(), "Paris.");
    assert!(
        o.stderr
            .contains("Using `ollama-qwen2.5:3b`: ollama runs on this computer"),
        "{}",
        o.stderr
    );
    let mut c = env.cmd();
    c.args(["providers", "--json"]);
    let o = run(c, None).await;
    assert!(o.stdout.contains("ollama-qwen2.5:3b"), "{}", o.stdout);
}
