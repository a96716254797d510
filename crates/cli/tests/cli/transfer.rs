//! `baton export` and `baton import`: Baton's JSON goes out and comes back
//! byte for byte, a second import adds nothing, ChatGPT's export comes in
//! with its title, date and branches (the one last shown in view), and a
//! damaged file imports nothing.

use baton_scripted_llm::{Reply, ScriptedServer};

use crate::support::*;

fn baton(env: &Env, server: &ScriptedServer) -> tokio::process::Command {
    let mut c = env.scripted(server);
    c.arg("--workspace").arg(env.path().join("ws"));
    c
}

async fn ok(mut c: tokio::process::Command, args: &[&str]) -> String {
    c.args(args);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    o.stdout
}

/// One exchange in `baton chat`, continuing `session` when given (a new
/// conversation otherwise).
async fn chat(
    env: &Env,
    server: &ScriptedServer,
    session: Option<&str>,
    question: &str,
    answer: &str,
) {
    server.reply(Reply::text(answer));
    let mut c = baton(env, server);
    c.arg("chat");
    if let Some(id) = session {
        c.args(["--session", id]);
    }
    let o = run(c, Some(&format!("{question}\n/exit\n"))).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
}

fn sessions_dir(env: &Env) -> std::path::PathBuf {
    env.path().join("data").join("sessions")
}

#[tokio::test(flavor = "multi_thread")]
async fn conversations_go_out_and_come_back_byte_for_byte_and_twice_adds_nothing() {
    let server = ScriptedServer::start().await.unwrap();
    let a = Env::new();
    chat(&a, &server, None, "What is 2 + 2?", "Four.").await;
    chat(&a, &server, None, "Capital of France?", "Paris.").await;
    let out = a.path().join("out");
    let said = ok(
        baton(&a, &server),
        &["export", "--out", out.to_str().unwrap()],
    )
    .await;
    assert_eq!(
        said,
        format!("Exported 2 conversations to {}\n", out.display())
    );
    let file = out.join("baton-conversations.json");
    let first = std::fs::read(&file).unwrap();

    let b = Env::new();
    let said = ok(baton(&b, &server), &["import", file.to_str().unwrap()]).await;
    assert_eq!(
        said,
        "Baton export: 2 conversations imported, 0 already here\n"
    );
    let said = ok(baton(&b, &server), &["import", file.to_str().unwrap()]).await;
    assert_eq!(
        said,
        "Baton export: 0 conversations imported, 2 already here\n"
    );
    let again = b.path().join("out");
    ok(
        baton(&b, &server),
        &["export", "--out", again.to_str().unwrap()],
    )
    .await;
    let second = std::fs::read(again.join("baton-conversations.json")).unwrap();
    assert_eq!(
        String::from_utf8(second).unwrap(),
        String::from_utf8(first).unwrap()
    );

    // The conversation about sums, by its id, as Markdown.
    let sums = std::fs::read_dir(sessions_dir(&b))
        .unwrap()
        .flatten()
        .find(|e| std::fs::read_to_string(e.path()).unwrap().contains("2 + 2"))
        .unwrap();
    let id = sums
        .file_name()
        .to_string_lossy()
        .trim_end_matches(".json")
        .to_string();
    let md = b.path().join("md");
    let args = [
        "export",
        "--format",
        "markdown",
        "--session",
        &id,
        "--out",
        md.to_str().unwrap(),
    ];
    ok(baton(&b, &server), &args).await;
    let text = std::fs::read_to_string(md.join(format!("{id}.md"))).unwrap();
    assert!(
        text.contains("## You\n\nWhat is 2 + 2?\n\n## Baton\n\nFour.\n"),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&md).unwrap().count(), 1);
    // And as a PDF, printed by headless Chromium.
    let pdf = b.path().join("pdf");
    let args = [
        "export",
        "--format",
        "pdf",
        "--session",
        &id,
        "--out",
        pdf.to_str().unwrap(),
    ];
    ok(baton(&b, &server), &args).await;
    let bytes = std::fs::read(pdf.join(format!("{id}.pdf"))).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "not a PDF");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chatgpt_export_comes_in_with_its_branch_and_date_and_a_damaged_file_brings_nothing() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let export = env.path().join("conversations.json");
    std::fs::write(
        &export,
        include_str!("../../../../tests/fixtures/export/chatgpt-conversations.json"),
    )
    .unwrap();
    let said = ok(baton(&env, &server), &["import", export.to_str().unwrap()]).await;
    assert!(
        said.starts_with("ChatGPT export: 1 conversation imported, 0 already here\n"),
        "{said}"
    );
    assert!(!said.contains("left out"), "{said}");
    let id = "chatgpt-6f1c2a7e-0000-4000-8000-1234567890ab";
    let file = sessions_dir(&env).join(format!("{id}.json"));
    // The first version of the edited question is kept as a branch.
    let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(kept["forks"][0]["at"], 1, "{kept}");
    assert!(
        kept["forks"][0]["branches"][1]
            .to_string()
            .contains("And in the rain?"),
        "{kept}"
    );
    assert!(
        !kept["history"].to_string().contains("And in the rain?"),
        "{kept}"
    );
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert_eq!(secs, 1_700_086_400, "the conversation keeps its date");
    // It goes on like any chat: the model sees the branch that was shown.
    chat(&env, &server, Some(id), "And for dinner?", "Try a tasca.").await;
    let told = server.requests().last().unwrap().json().to_string();
    assert!(
        told.contains("Where should I eat?") && !told.contains("And in the rain?"),
        "{told}"
    );

    let before = std::fs::read_dir(sessions_dir(&env)).unwrap().count();
    let broken = env.path().join("broken.json");
    std::fs::write(
        &broken,
        b"[{\"mapping\": {}, \"current_node\": \"x\", \"id\": \"c1\"}]",
    )
    .unwrap();
    let mut c = baton(&env, &server);
    c.arg("import").arg(&broken);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("ChatGPT export is damaged") && o.stderr.contains("nothing was imported"),
        "{}",
        o.stderr
    );
    assert_eq!(
        std::fs::read_dir(sessions_dir(&env)).unwrap().count(),
        before
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_markdown_export_puts_the_attached_files_beside_it_and_links_them() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let notes = env.path().join("tug-notes.md");
    let bytes = b"# Tugs\n\nHector waits at quay 4.\n";
    std::fs::write(&notes, bytes).unwrap();
    chat(
        &env,
        &server,
        None,
        &format!("/attach {}\nWhere is Hector?", notes.display()),
        "At quay 4.",
    )
    .await;
    let md = env.path().join("md");
    ok(
        baton(&env, &server),
        &[
            "export",
            "--format",
            "markdown",
            "--out",
            md.to_str().unwrap(),
        ],
    )
    .await;
    let page = std::fs::read_dir(&md)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "md"))
        .unwrap();
    let text = std::fs::read_to_string(page.path()).unwrap();
    assert!(
        text.contains("## You\n\nWhere is Hector?\n\n- Attached: [tug-notes.md]("),
        "{text}"
    );
    let link = text
        .split("- Attached: [tug-notes.md](")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap();
    let copy = md.join(link.replace("%20", " "));
    assert_eq!(std::fs::read(&copy).unwrap(), bytes, "{}", copy.display());
}
