//! E-mail: `baton ask` reads mail over IMAP and sends over SMTP only when
//! allowed, against the real Dovecot and Postfix of the shared test support.

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

use baton_test_support::mail_servers;

#[tokio::test(flavor = "multi_thread")]
async fn ask_reads_mail_and_sends_only_when_allowed() {
    let servers = mail_servers::MailServers::with_smtp();
    servers.deliver(
        mail_servers::ANA.0,
        b"From: Bob <bob@baton.test>\r\nTo: ana@baton.test\r\nSubject: Budget\r\nMessage-ID: <budget@baton.test>\r\n\r\nThe budget is 1200 EUR.\r\n",
    );
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    std::fs::create_dir_all(env.path().join("config")).unwrap();
    let ca = servers.ca_file();
    let settings = json!({"skipIndexingOnStartup": true,
        "email": {"address": "ana@baton.test", "name": "Ana"},
        "imap": {"host": "localhost", "port": servers.imap, "tls": "starttls", "caFile": ca},
        "smtp": {"host": "localhost", "port": servers.smtps, "tls": "tls", "caFile": ca}});
    std::fs::write(env.path().join("config/setup.json"), settings.to_string()).unwrap();
    let script = |server: &ScriptedServer| {
        server.reply(Reply::tool_call("get_emails", json!({})));
        server.reply(Reply::tool_call("read_email", json!({"id": "INBOX:1"})));
        server.reply(Reply::tool_call(
            "send_email",
            json!({"to": ["bob@baton.test"], "subject": "Re: Budget", "body": "Noted: **1200 EUR**."}),
        ));
        server.reply(Reply::text("Done."));
    };
    // The passwords from the environment (a server without a keychain).
    let password = mail_servers::ANA.1;
    let ask = |server: &ScriptedServer| {
        let mut c = env.scripted(server);
        c.env("BATON_IMAP_PASSWORD", password)
            .env("BATON_SMTP_PASSWORD", password);
        c.arg("--workspace").arg(&dir).args([
            "ask",
            "--mode",
            "api",
            "--json",
            "Answer Bob's mail",
        ]);
        c
    };
    // Nobody to confirm: reading works, sending is refused.
    script(&server);
    let o = run(ask(&server), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(
        v["toolCalls"][0]["outcome"]["ok"][0]["subject"], "Budget",
        "{v}"
    );
    let body = v["toolCalls"][1]["outcome"]["ok"]["body"]
        .as_str()
        .unwrap_or_default();
    assert!(body.contains("1200 EUR"), "{v}");
    let refused = v["toolCalls"][2]["outcome"]["err"]
        .as_str()
        .unwrap_or_default();
    assert!(refused.contains("--yes"), "{v}");
    assert!(servers.messages(mail_servers::BOB.0, "INBOX").is_empty());

    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args([
        "tools",
        "call",
        r#"{"method": "send_email", "to": ["bob@baton.test"], "subject": "x", "body": "y"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 1);
    assert!(
        o.stdout.contains("MailTool.send_email") && o.stdout.contains("--yes"),
        "{}",
        o.stdout
    );

    // The user allowed sending in the settings: it goes.
    let mut c = env.cmd();
    c.args(["config", "set", "email.confirmSend", "false"]);
    assert_eq!(run(c, None).await.code, 0);
    script(&server);
    let o = run(ask(&server), None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(
        v["toolCalls"][2]["outcome"]["ok"]["sent_to"],
        json!(["bob@baton.test"]),
        "{v}"
    );
    let got = servers.wait_for_messages(mail_servers::BOB.0, "INBOX", 1);
    let text = String::from_utf8_lossy(&got[0]);
    assert!(text.contains("Subject: Re: Budget"), "{text}");
    assert!(
        text.contains("<ana@baton.test>"),
        "sent from the user's address: {text}"
    );
}
