//! Documents: attachments to `ask` and `chat`, `baton convert` (Markdown
//! or JSON, with reasons), OCR by a vision provider or Tesseract, and
//! damaged PDFs.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

/// The text of the last user message in the server's `n`th request.
/// The last user message of request `n`, without the per-call context
/// (the time) the engine appends.
fn last_user_text(server: &ScriptedServer, n: usize) -> String {
    let req = server.requests()[n].json();
    said(&req["messages"].as_array().unwrap().last().unwrap()["content"])
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_with_attachments_sends_them_converted_before_the_question() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("North grew fastest."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(ws(&env))
        .args(["ask", "--no-tools", "--json", "--attach"])
        .arg(fixture("report.docx"))
        .arg("-a")
        .arg(fixture("encrypted.pdf"))
        .arg("Which region grew fastest?");
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["text"], "North grew fastest.");
    assert_eq!(v["attachments"][0]["name"], "report.docx");
    assert_eq!(v["attachments"][0]["format"], "Word document");
    assert!(
        v["attachments"][1]["error"]
            .as_str()
            .unwrap()
            .contains("password protected")
    );
    let user = last_user_text(&server, 0);
    assert!(
        user.starts_with("<attachment name=\"report.docx\" format=\"Word document\""),
        "{user}"
    );
    assert!(user.contains("| North | 120 | 135 | 150 |"), "{user}");
    assert!(
        user.contains("<attachment name=\"encrypted.pdf\""),
        "{user}"
    );
    assert!(
        user.contains("This file could not be read: the PDF file is password protected"),
        "{user}"
    );
    assert!(
        user.ends_with("</attachment>\n\nWhich region grew fastest?"),
        "{user}"
    );

    // A missing attachment is a clear error before anything is sent.
    let mut c = env.scripted(&server);
    c.args(["ask", "--no-tools", "--attach", "/nonexistent/x.pdf", "hi"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr
            .contains("cannot read the attachment /nonexistent/x.pdf"),
        "{}",
        o.stderr
    );
    assert_eq!(server.requests().len(), 1);
}

/// A 300-page PDF is far beyond the attachment budget: instead of its
/// first pages, the passages that bear on the question go to the model,
/// each with its page, and the page that answers a question worded unlike
/// it (page 212) is among them.
#[tokio::test(flavor = "multi_thread")]
async fn a_question_about_a_300_page_pdf_gets_the_page_that_answers_it() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("0.42 EUR a tonne."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(ws(&env))
        .args(["ask", "--no-tools", "--json", "--attach"])
        .arg(fixture("handbook300.pdf"))
        .arg("How much do large ships pay the harbour pilots for each ton?");
    let o = run_for(c, None, std::time::Duration::from_secs(120)).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    let item = &v["attachments"][0];
    assert_eq!(item["pages"], 300, "{item}");
    let (shown, total) = (
        item["passages"]["shown"].as_u64().unwrap(),
        item["passages"]["total"].as_u64().unwrap(),
    );
    assert!(shown > 0 && total >= 300 && shown < total / 4, "{item}");
    let user = last_user_text(&server, 0);
    assert!(user.contains("[page 212"), "{user}");
    assert!(
        user.contains("pilotage dues of 0.42 EUR per tonne"),
        "{user}"
    );
    assert!(
        user.contains(&format!(
            "{shown} of {total} passages shown, chosen for the question"
        )),
        "{user}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_attach_adds_files_to_the_next_message_only() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("North grew fastest."));
    server.reply(Reply::text("You are welcome."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(ws(&env))
        .args(["chat", "--no-tools"]);
    let script = format!(
        "/attach '{}' {}\n/attach\nWhich region grew fastest?\nThanks\n/exit\n",
        fixture("report.docx").display(),
        fixture("encrypted.pdf").display()
    );
    let o = run(c, Some(&script)).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("attached report.docx (Word document, "),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("attached encrypted.pdf — it cannot be read and will be sent as a note: the PDF file is password protected"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("attached to the next message: report.docx, encrypted.pdf"),
        "{}",
        o.stdout
    );
    let user = last_user_text(&server, 0);
    assert!(
        user.starts_with("<attachment name=\"report.docx\""),
        "{user}"
    );
    assert!(user.ends_with("Which region grew fastest?"), "{user}");
    assert_eq!(
        last_user_text(&server, 1),
        "Thanks",
        "attachments go with one message only"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn convert_prints_markdown_or_json_with_reasons() {
    let env = Env::new();
    let mut c = env.cmd();
    c.args(["convert", "--json", "--no-ocr"])
        .arg(fixture("deck.pptx"))
        .arg(fixture("zipbomb.docx"))
        .arg(fixture("budget.ods"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v[0]["format"], "pptx");
    assert_eq!(v[0]["pages"], 3);
    assert!(
        v[0]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Slide 2: Roadmap")
    );
    assert!(
        v[1]["error"].as_str().unwrap().contains("zip bomb"),
        "{}",
        v[1]
    );
    assert!(
        v[2]["markdown"]
            .as_str()
            .unwrap()
            .contains("| Cables | 10 | 45.5 | 455 | 2024-03-28 |")
    );

    let mut c = env.cmd();
    c.arg("convert")
        .arg(fixture("data.tsv"))
        .arg(fixture("random.bin"));
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "a failed file fails the command");
    assert!(o.stdout.contains("| id | name |"), "{}", o.stdout);
    assert!(
        o.stderr
            .contains("random.bin: a binary `.bin` file cannot be converted to text"),
        "{}",
        o.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn images_are_read_by_a_vision_provider_when_one_is_ready() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("INVOICE 2024-117\n\nTotal due: 1,234.56 EUR"));
    let env = Env::new();
    let file = env.path().join("providers-ocr.json");
    let doc = json!({"default": "vision", "providers": [
        {"name": "vision", "dialect": "openai", "endpoint": format!("{}/v1", server.url()),
         "model": "ocr-model", "apiKeyEnv": "BATON_TEST_VISION_KEY", "ocr": true}
    ]});
    std::fs::write(&file, doc.to_string()).unwrap();
    let mut c = env.cmd();
    c.env("BATON_TEST_VISION_KEY", "k")
        .arg("--providers")
        .arg(&file)
        .arg("convert")
        .arg(fixture("invoice.png"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "INVOICE 2024-117\n\nTotal due: 1,234.56 EUR\n");
    assert!(
        o.stderr.contains("text read by OCR (vision"),
        "{}",
        o.stderr
    );
    let req = server.requests()[0].json();
    assert_eq!(req["model"], "ocr-model");
    let parts = req["messages"][0]["content"].as_array().unwrap();
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Transcribe all text")
    );
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{}",
        &url[..40]
    );

    // Without its key the entry is not ready: local Tesseract reads the image.
    let mut c = env.cmd();
    c.arg("--providers")
        .arg(&file)
        .arg("convert")
        .arg(fixture("invoice.png"));
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("Total due: 1,234.56 EUR"), "{}", o.stdout);
    assert!(o.stderr.contains("tesseract"), "{}", o.stderr);
    assert_eq!(server.requests().len(), 1);
}

/// A damaged PDF gets Baton's one clear line, without the PDF library's own
/// WARN/ERROR log lines (those come back with `-v`).
#[tokio::test(flavor = "multi_thread")]
async fn damaged_pdfs_print_no_library_log_lines_unless_verbose() {
    let env = Env::new();
    let report = std::fs::read(fixture("report.pdf")).unwrap();
    let truncated = env.path().join("truncated.pdf");
    std::fs::write(&truncated, &report[..3000]).unwrap();
    let mut c = env.cmd();
    c.env_remove("BATON_LOG")
        .args(["convert", "--no-ocr"])
        .arg(&truncated)
        .arg(fixture("corrupt.pdf"));
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("truncated.pdf: the PDF file is damaged or incomplete"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("corrupt.pdf: "), "{}", o.stderr);
    assert!(
        !o.stderr.contains("WARN") && !o.stderr.contains("ERROR") && !o.stderr.contains("xref"),
        "library log lines leaked: {}",
        o.stderr
    );

    let mut c = env.cmd();
    c.env_remove("BATON_LOG")
        .args(["-v", "convert", "--no-ocr"])
        .arg(&truncated);
    let o = run(c, None).await;
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("WARN"), "-v shows them: {}", o.stderr);
}
