//! `baton chat`: history kept between turns, slash commands and saved
//! sessions.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn chat_keeps_history_between_turns() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Hello Ada."));
    server.reply(Reply::text("Your name is Ada."));
    let env = Env::new();
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(env.path().join("ws")).arg("chat");
    let o = run(c, Some("I am Ada\nWhat is my name?\n/exit\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "Hello Ada.\nYour name is Ada.\n");
    let second = server.requests()[1].json();
    let msgs = second["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    // The stored exchange exactly; the new message carries the time too.
    assert_eq!(
        &msgs[1..3],
        &[
            json!({"role": "user", "content": "I am Ada"}),
            json!({"role": "assistant", "content": "Hello Ada."}),
        ]
    );
    assert_eq!(
        (msgs.len(), said(&msgs[3]["content"])),
        (4, "What is my name?".into())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_slash_commands_and_saved_sessions() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("Noted."));
    server.reply(Reply::text("You said the sky is green."));
    let env = Env::new();
    let dir = ws(&env);
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(&dir).arg("chat");
    let o = run(c, Some("The sky is green.\n/session save colours\n/session info\n/model other-model\n/instructions Be brief.\nWhat did I say?\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("saved as `colours`"), "{}", o.stdout);
    assert!(
        o.stdout.contains("model set to other-model"),
        "{}",
        o.stdout
    );
    let second = server.requests()[1].json();
    assert_eq!(second["model"], "other-model");
    assert!(
        second["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Be brief.")
    );
    // The saved session continues later.
    server.reply(Reply::text("Green, you said."));
    let mut c = env.scripted(&server);
    c.arg("--workspace")
        .arg(&dir)
        .args(["chat", "--session", "colours"]);
    let o = run(c, Some("Remind me?\n")).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let third = server.requests()[2].json();
    let texts: Vec<String> = third["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| said(&m["content"]))
        .collect();
    assert!(
        texts.contains(&"The sky is green.".to_string()),
        "{texts:?}"
    );
    assert_eq!(texts.last().unwrap(), "Remind me?");
    assert!(env.path().join("data/sessions/colours.json").exists());
}
