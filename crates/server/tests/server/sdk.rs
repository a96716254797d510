//! The official OpenAI SDKs (Python and JavaScript) as clients.

use crate::support::*;

/// Runs an official SDK's client script against a server whose scripted
/// model gives the three answers it asks for, and checks its report.
async fn sdk_journey(program: std::path::PathBuf, script: &str) {
    let llm = ScriptedServer::start().await.unwrap();
    let s = start(&llm).await;
    // As a user would run it: with a key.
    let key = KeyStore::new(&s.dir.paths().data_dir)
        .add("sdk", Door::Serve)
        .unwrap();
    llm.reply(Reply::text("Paris."));
    llm.reply(Reply::text("Madrid, since 1561."));
    llm.reply(Reply::text("Revenue grew by 12 percent."));
    let script = format!("{}/tests/clients/{script}", manifest_dir());
    let out = tokio::process::Command::new(program)
        .arg(script)
        .arg(&s.base)
        .arg(docx())
        .arg(&key)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let models: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        models.contains(&"assistant") && models.contains(&"provider/scripted"),
        "{v}"
    );
    assert_eq!(v["whole"]["text"], "Paris.");
    assert_eq!(v["whole"]["finish"], "stop");
    assert_eq!(v["whole"]["object"], "chat.completion");
    assert!(v["whole"]["usage"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["streamed"]["text"], "Madrid, since 1561.");
    assert_eq!(v["streamed"]["finish"], "stop");
    assert!(v["streamed"]["usage"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["unknown"]["status"], 404, "{v}");
    assert_eq!(v["unknown"]["code"], "model_not_found", "{v}");
    check_files_journey(&v["files"], &llm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_python_sdk_is_a_client() {
    sdk_journey(venv_python(), "openai_sdk.py").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_openai_javascript_sdk_is_a_client() {
    let modules = format!("{}/tests/clients/node_modules/openai", manifest_dir());
    assert!(
        std::path::Path::new(&modules).exists(),
        "{modules} is missing: run scripts/make-fixtures.sh --tools-only (make test does)"
    );
    sdk_journey("node".into(), "openai_sdk.mjs").await;
}

/// The Word document the SDK clients upload.
fn docx() -> String {
    format!("{}/../../tests/fixtures/docs/report.docx", manifest_dir())
}

/// This crate's folder, as cargo gives it to the running test (not as
/// compiled in: one build serves every clone that shares the target dir).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
}

/// What an SDK client reported of the files journey, and what reached the
/// model: the uploaded document converted to text in the message.
fn check_files_journey(files: &Value, llm: &ScriptedServer) {
    let size = std::fs::metadata(docx()).unwrap().len();
    assert!(
        files["id"].as_str().unwrap().starts_with("file-"),
        "{files}"
    );
    assert_eq!(files["object"], "file", "{files}");
    assert_eq!(files["bytes"], size, "{files}");
    assert_eq!(files["filename"], "report.docx", "{files}");
    assert_eq!(files["purpose"], "user_data", "{files}");
    assert_eq!(files["listed"], true, "{files}");
    assert_eq!(files["same_content"], true, "{files}");
    assert_eq!(files["answer"], "Revenue grew by 12 percent.", "{files}");
    assert_eq!(files["deleted"], true, "{files}");
    assert_eq!(files["after_delete"], 404, "{files}");
    let sent = llm.requests().last().unwrap().json()["messages"].to_string();
    assert!(
        sent.contains("Revenue grew by 12 percent compared with the previous quarter")
            && sent.contains("report.docx")
            && sent.contains("Summarise the attached report."),
        "the document reached the model converted: {sent}"
    );
}
