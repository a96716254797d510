//! The e-mail toolbox against real servers: Dovecot (IMAP) and Postfix
//! (SMTP, delivering into Dovecot), started per test on loopback.

use std::sync::Arc;

use baton_config::{MailAuth, MailSecurity};
use baton_mail::{MailAccount, MailClient, MailTool, Secret, ServerConfig};
use baton_test_support::mail_servers::{ANA, BOB, MailServers};
use baton_tools::{Catalog, Sandbox, ToolContext, ToolOutcome};
use mail_parser::MimeHeaders;
use serde_json::{Value, json};

fn server(
    kind: &'static str,
    port: u16,
    security: MailSecurity,
    user: (&str, &str),
    ca: &std::path::Path,
) -> ServerConfig {
    ServerConfig {
        kind,
        host: if security == MailSecurity::None {
            "127.0.0.1"
        } else {
            "localhost"
        }
        .into(),
        port,
        security,
        username: user.0.into(),
        secret: Secret::Given(user.1.into()),
        auth: MailAuth::Password,
        ca_file: Some(ca.to_path_buf()),
    }
}

/// Ana's account on `servers` (IMAP over STARTTLS, SMTP over TLS).
fn account(servers: &MailServers, user: (&str, &str)) -> MailAccount {
    let ca = servers.ca_file();
    MailAccount {
        imap: Some(server(
            "imap",
            servers.imap,
            MailSecurity::Starttls,
            user,
            &ca,
        )),
        smtp: Some(server("smtp", servers.smtps, MailSecurity::Tls, user, &ca)),
        address: Some(user.0.into()),
        name: Some("Ana Example".into()),
    }
}

struct Setup {
    catalog: Catalog,
    workspace: tempfile::TempDir,
}

fn toolbox(account: MailAccount) -> Setup {
    let workspace = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new(workspace.path()).unwrap();
    let tool = MailTool::new(Arc::new(MailClient::new(account)), sandbox);
    let mut catalog = Catalog::new();
    catalog.register(Arc::new(tool)).unwrap();
    Setup { catalog, workspace }
}

impl Setup {
    async fn call(&self, method: &str, args: Value) -> Result<Value, String> {
        let ctx = ToolContext::default();
        match self.catalog.dispatch_with(method, args, &ctx).await.outcome {
            ToolOutcome::Ok(v) => Ok(v),
            ToolOutcome::Err(e) => Err(e),
        }
    }

    async fn ok(&self, method: &str, args: Value) -> Value {
        self.call(method, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{method} {args}: {e}"))
    }
}

fn plain_message(from: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: Ana Example <ana@baton.test>\r\nSubject: {subject}\r\nDate: Mon, 4 Mar 2024 10:00:00 +0000\r\nMessage-ID: <{}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        subject.replace(' ', ".")
    )
    .into_bytes()
}

fn invoice_message() -> Vec<u8> {
    b"From: Supplier <billing@supplier.example>\r\n\
To: ana@baton.test\r\n\
Subject: Invoice March\r\n\
Date: Tue, 5 Mar 2024 09:30:00 +0100\r\n\
Message-ID: <invoice-march@supplier.example>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"XX\"\r\n\
\r\n\
--XX\r\n\
Content-Type: text/html; charset=utf-8\r\n\
\r\n\
<html><body><h1>Your invoice</h1><p>Please find the <b>March</b> invoice attached. Total: <a href=\"https://supplier.example/pay\">EUR 1,234.00</a></p></body></html>\r\n\
--XX\r\n\
Content-Type: text/csv; name=\"invoice-march.csv\"\r\n\
Content-Disposition: attachment; filename=\"invoice-march.csv\"\r\n\
Content-Transfer-Encoding: base64\r\n\
\r\n\
aXRlbSxhbW91bnQKcGFwZXIsMTIzNC4wMAo=\r\n\
--XX--\r\n"
        .to_vec()
}

/// An old message with a 300 KB picture and, after it, a text file whose
/// name is RFC 2231-encoded.
fn big_message() -> Vec<u8> {
    use base64::Engine as _;
    use std::fmt::Write as _;
    let photo: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let encoded = base64::engine::general_purpose::STANDARD.encode(&photo);
    let b64 = encoded
        .as_bytes()
        .chunks(76)
        .map(|l| std::str::from_utf8(l).unwrap())
        .collect::<Vec<_>>()
        .join("\r\n");
    let mut m = String::new();
    write!(
        m,
        "From: Carol <carol@example.org>\r\nTo: ana@baton.test\r\nSubject: Holiday photos\r\nDate: Mon, 1 Jan 2024 10:00:00 +0000\r\n\
MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPhotos attached, and my notes.\r\n\
--B\r\nContent-Type: image/jpeg\r\nContent-Disposition: attachment; filename=\"photo.jpg\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{b64}\r\n\
--B\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename*=utf-8''notes%20%E2%80%93%20ao%C3%BBt.txt\r\n\r\nsee you\r\n--B--\r\n"
    )
    .unwrap();
    m.into_bytes()
}

#[tokio::test]
async fn reads_lists_searches_and_saves_attachments_over_starttls() {
    let servers = MailServers::imap_only();
    servers.deliver(ANA.0, &big_message());
    servers.deliver(
        ANA.0,
        &plain_message(
            "Bob <bob@baton.test>",
            "Lunch on Friday",
            "Shall we meet at noon?",
        ),
    );
    servers.deliver(ANA.0, &invoice_message());
    servers.deliver(
        ANA.0,
        &plain_message(
            "Zoë <zoe@example.org>",
            "Café plans",
            "Le café est fermé lundi.",
        ),
    );
    let s = toolbox(account(&servers, ANA));

    let folders = s.ok("list_folders", json!({})).await;
    let names: Vec<&str> = folders
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for want in ["INBOX", "Drafts", "Sent", "Archive", "Trash", "Entwürfe"] {
        assert!(names.contains(&want), "{folders}");
    }
    let inbox = folders
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "INBOX")
        .unwrap();
    assert_eq!(
        (inbox["messages"].as_u64(), inbox["unread"].as_u64()),
        (Some(4), Some(4)),
        "{inbox}"
    );
    assert!(
        folders
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "Sent" && f["role"] == "sent")
    );

    // A list reads the start of each message and its structure: the names
    // of attachments far into a big message are there, with the snippet.
    let all = s.ok("get_emails", json!({})).await;
    let big = all.as_array().unwrap().last().unwrap();
    assert_eq!(big["subject"], "Holiday photos", "{all}");
    assert_eq!(
        big["attachments"],
        json!(["photo.jpg", "notes – août.txt"]),
        "{big}"
    );
    assert!(
        big["snippet"]
            .as_str()
            .unwrap()
            .starts_with("Photos attached"),
        "{big}"
    );
    let big_id = big["id"].as_str().unwrap();
    let read = s.ok("read_email", json!({"id": big_id})).await;
    assert_eq!(read["attachments"][0]["bytes"], 300_000, "{read}");
    let list = s.ok("get_emails", json!({"count": 2})).await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(list[0]["subject"], "Café plans", "newest first: {list:?}");
    assert_eq!(list[1]["subject"], "Invoice March");
    assert_eq!(list[1]["attachments"], json!(["invoice-march.csv"]));
    assert!(
        list[1]["snippet"].as_str().unwrap().contains("March"),
        "{list:?}"
    );
    assert_eq!(list[1]["unread"], true);

    let id = list[1]["id"].as_str().unwrap().to_string();
    let mail = s.ok("read_email", json!({"id": id})).await;
    let body = mail["body"].as_str().unwrap();
    assert!(
        body.contains("# Your invoice") && body.contains("**March**"),
        "HTML as Markdown: {body}"
    );
    assert!(
        body.contains("[EUR 1,234.00](https://supplier.example/pay)"),
        "{body}"
    );
    assert_eq!(mail["attachments"][0]["name"], "invoice-march.csv");
    assert_eq!(mail["from"], "Supplier <billing@supplier.example>");
    assert_eq!(mail["unread"], true, "reading leaves it unread");

    let saved = s
        .ok(
            "save_attachment",
            json!({"id": id, "name": "invoice-march.csv", "path": "/invoices/march.csv"}),
        )
        .await;
    assert_eq!(saved["path"], "/invoices/march.csv");
    let on_disk = std::fs::read_to_string(s.workspace.path().join("invoices/march.csv")).unwrap();
    assert_eq!(on_disk, "item,amount\npaper,1234.00\n");
    // Saved again over the file: the old one is backed up.
    std::fs::write(s.workspace.path().join("invoices/march.csv"), "my notes").unwrap();
    let again = s
        .ok(
            "save_attachment",
            json!({"id": id, "name": "invoice-march.csv", "path": "/invoices/march.csv"}),
        )
        .await;
    let backup = again["backup"]
        .as_str()
        .expect("a backup")
        .trim_start_matches('/');
    assert_eq!(
        std::fs::read_to_string(s.workspace.path().join(backup)).unwrap(),
        "my notes"
    );
    let e = s
        .call(
            "save_attachment",
            json!({"id": id, "name": "nope.pdf", "path": "/x.pdf"}),
        )
        .await
        .unwrap_err();
    assert!(
        e.contains("no attachment `nope.pdf`") && e.contains("invoice-march.csv"),
        "{e}"
    );
    let e = s
        .call(
            "save_attachment",
            json!({"id": id, "name": "invoice-march.csv", "path": "/../escape.csv"}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("outside") || e.contains("escape"), "{e}");

    let found = s.ok("search_emails", json!({"from": "bob"})).await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["subject"], "Lunch on Friday");
    let found = s
        .ok(
            "search_emails",
            json!({"text": "invoice", "since": "2024-03-05"}),
        )
        .await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    let found = s.ok("search_emails", json!({"text": "fermé"})).await;
    assert_eq!(found[0]["subject"], "Café plans", "UTF-8 search: {found}");
    let none = s
        .ok(
            "search_emails",
            json!({"subject": "Lunch", "before": "2024-01-01"}),
        )
        .await;
    assert_eq!(none, json!([]));
    let e = s
        .call("search_emails", json!({"since": "last week"}))
        .await
        .unwrap_err();
    assert!(e.contains("2024-03-01"), "{e}");

    s.ok("mark_read", json!({"id": id})).await;
    let unread = s.ok("get_emails", json!({"unread_only": true})).await;
    assert_eq!(unread.as_array().unwrap().len(), 3, "{unread}");
    let moved = s
        .ok("move_email", json!({"id": id, "folder": "Archive"}))
        .await;
    assert_eq!(moved["done"], "moved to Archive");
    assert_eq!(servers.messages(ANA.0, "Archive").len(), 1);
    let e = s.call("read_email", json!({"id": id})).await.unwrap_err();
    assert!(e.contains("not in INBOX"), "{e}");
    // A folder named in UTF-8 (modified UTF-7 on the wire).
    s.ok("move_email", json!({"id": big_id, "folder": "Entwürfe"}))
        .await;
    assert_eq!(servers.messages(ANA.0, "Entw&APw-rfe").len(), 1);
    let moved = s.ok("get_emails", json!({"folder": "Entwürfe"})).await;
    assert_eq!(moved[0]["id"].as_str().unwrap(), "Entwürfe:1", "{moved}");
    let e = s
        .call(
            "move_email",
            json!({"id": list[0]["id"], "folder": "Nowhere"}),
        )
        .await
        .unwrap_err();
    assert!(
        e.contains("no folder `Nowhere`") && e.contains("Archive"),
        "{e}"
    );
    let e = s
        .call("get_emails", json!({"folder": "Nowhere"}))
        .await
        .unwrap_err();
    assert!(e.contains("no folder `Nowhere`"), "{e}");
    let e = s.call("read_email", json!({"id": "42"})).await.unwrap_err();
    assert!(e.contains("INBOX:42"), "{e}");
}

fn parse(raw: &[u8]) -> mail_parser::Message<'_> {
    mail_parser::MessageParser::default()
        .parse(raw)
        .expect("a message")
}

#[tokio::test]
async fn a_relay_without_sign_in_takes_mail_with_auth_none() {
    let servers = MailServers::with_smtp();
    let mut relay = server(
        "smtp",
        servers.relay,
        MailSecurity::None,
        ("", ""),
        &servers.ca_file(),
    );
    // Signing in where the server offers no sign-in is told plainly.
    let signing_in = MailAccount {
        smtp: Some(relay.clone()),
        ..account(&servers, ANA)
    };
    let e = toolbox(signing_in)
        .call(
            "send_email",
            json!({"to": ["bob@baton.test"], "subject": "Hi", "body": "x"}),
        )
        .await
        .unwrap_err();
    assert!(
        e.contains("offers no sign-in") && e.contains("smtp.auth"),
        "{e}"
    );
    // `auth: none`: no user name, no password, the mail goes through.
    relay.auth = MailAuth::None;
    let ana = toolbox(MailAccount {
        smtp: Some(relay),
        ..account(&servers, ANA)
    });
    let sent = ana
        .ok(
            "send_email",
            json!({"to": ["bob@baton.test"], "subject": "Through the relay", "body": "No sign-in."}),
        )
        .await;
    assert_eq!(sent["sent_to"], json!(["bob@baton.test"]));
    let inbox = servers.wait_for_messages(BOB.0, "INBOX", 1);
    assert_eq!(parse(&inbox[0]).subject(), Some("Through the relay"));
}

#[tokio::test]
async fn sends_replies_and_drafts_through_postfix_into_the_mailbox() {
    let servers = MailServers::with_smtp();
    let ana = toolbox(account(&servers, ANA));
    std::fs::write(
        ana.workspace.path().join("report.csv"),
        "month,sales\nJan,10\n",
    )
    .unwrap();

    let sent = ana
        .ok(
            "send_email",
            json!({"to": ["Bob <bob@baton.test>"], "subject": "Q1 report", "body": "Hi Bob,\n\nthe **report** is attached:\n\n- January\n- February", "attachments": ["/report.csv"]}),
        )
        .await;
    assert_eq!(sent["sent_to"], json!(["bob@baton.test"]));
    assert_eq!(sent["copy_in"], "Sent");
    let inbox = servers.wait_for_messages(BOB.0, "INBOX", 1);
    let got = parse(&inbox[0]);
    assert_eq!(got.subject(), Some("Q1 report"));
    assert_eq!(got.from().unwrap().first().unwrap().address(), Some(ANA.0));
    assert_eq!(
        got.from().unwrap().first().unwrap().name(),
        Some("Ana Example")
    );
    assert!(
        got.body_text(0)
            .unwrap()
            .contains("the **report** is attached")
    );
    let html = got.body_html(0).unwrap();
    assert!(
        html.contains("<strong>report</strong>") && html.contains("<li>January</li>"),
        "{html}"
    );
    let att = got.attachments().next().expect("the attachment arrived");
    assert_eq!(att.attachment_name(), Some("report.csv"));
    assert_eq!(att.contents(), b"month,sales\nJan,10\n");
    assert_eq!(servers.messages(ANA.0, "Sent").len(), 1, "a copy in Sent");

    // Bob replies to all; Ana gets it, threaded, with her text quoted.
    let bob = toolbox(account(&servers, BOB));
    let list = bob.ok("get_emails", json!({})).await;
    let id = list[0]["id"].as_str().unwrap();
    let replied = bob
        .ok("reply", json!({"id": id, "body": "Thanks, looks good."}))
        .await;
    assert_eq!(replied["subject"], "Re: Q1 report");
    assert_eq!(replied["sent_to"], json!([ANA.0]));
    let ana_inbox = servers.wait_for_messages(ANA.0, "INBOX", 1);
    let reply = parse(&ana_inbox[0]);
    assert_eq!(reply.in_reply_to().as_text(), got.message_id());
    let text = reply.body_text(0).unwrap();
    assert!(
        text.starts_with("Thanks, looks good.") && text.contains("> Hi Bob,"),
        "{text}"
    );

    ana.ok(
        "email_me",
        json!({"subject": "Summary", "body": "Done: 3 files."}),
    )
    .await;
    servers.wait_for_messages(ANA.0, "INBOX", 2);

    // A subject that decodes to a line break cannot add a header to the
    // reply; a reply to one's own sent mail goes to its recipients.
    servers.deliver(
        BOB.0,
        b"From: ana@baton.test\r\nTo: bob@baton.test\r\nSubject: =?utf-8?Q?Hi=0D=0ABcc:_x@evil.test?=\r\nMessage-ID: <inj@baton.test>\r\n\r\nhello\r\n",
    );
    let bob_list = bob.ok("get_emails", json!({"count": 1})).await;
    let replied = bob
        .ok("reply", json!({"id": bob_list[0]["id"], "body": "Sure."}))
        .await;
    assert_eq!(replied["sent_to"], json!([ANA.0]));
    let raw = servers.wait_for_messages(ANA.0, "INBOX", 3);
    let injected = raw
        .iter()
        .find(|m| String::from_utf8_lossy(m).contains("Sure."))
        .expect("the reply arrived");
    let text = String::from_utf8_lossy(injected);
    assert!(!text.to_ascii_lowercase().contains("\nbcc:"), "{text}");
    assert_eq!(parse(injected).subject(), Some("Re: Hi  Bcc: x@evil.test"));
    let sent = ana
        .ok("search_emails", json!({"folder": "Sent", "subject": "Q1"}))
        .await;
    let own = ana
        .ok(
            "reply",
            json!({"id": sent[0]["id"], "body": "One more thing."}),
        )
        .await;
    assert_eq!(own["sent_to"], json!([BOB.0]), "{own}");
    servers.wait_for_messages(BOB.0, "INBOX", 3);

    let drafted = ana
        .ok(
            "draft_email",
            json!({"to": ["bob@baton.test"], "subject": "Draft only", "body": "Not yet."}),
        )
        .await;
    assert_eq!(drafted["folder"], "Drafts");
    let drafts = servers.messages(ANA.0, "Drafts");
    assert_eq!(drafts.len(), 1);
    assert_eq!(parse(&drafts[0]).subject(), Some("Draft only"));
    assert_eq!(
        servers.messages(BOB.0, "INBOX").len(),
        3,
        "a draft is not sent"
    );

    for (args, want) in [
        (
            json!({"to": ["not an address"], "subject": "x", "body": "y"}),
            "not an e-mail address",
        ),
        (
            json!({"to": [], "subject": "x", "body": "y"}),
            "no recipient",
        ),
        (
            json!({"to": ["bob@baton.test"], "subject": "x", "body": "y", "attachments": ["/missing.pdf"]}),
            "missing.pdf",
        ),
    ] {
        let e = ana.call("send_email", args).await.unwrap_err();
        assert!(e.contains(want), "{e}");
    }

    // The card of a reply follows Reply-To before asking, and says when it
    // is not the sender.
    servers.deliver(
        BOB.0,
        b"From: ana@baton.test\r\nReply-To: thief@evil.test\r\nTo: bob@baton.test\r\nSubject: Invoice\r\nMessage-ID: <rt@baton.test>\r\n\r\nPlease reply with the account number.\r\n",
    );
    let bob_list = bob.ok("get_emails", json!({"count": 1})).await;
    let card = bob
        .catalog
        .describe(
            "reply",
            &json!({"id": bob_list[0]["id"], "body": "Here it is.", "attachments": ["q1.pdf"]}),
            "",
        )
        .await
        .expect("a reply is described");
    assert_eq!(
        card,
        "Reply to thief@evil.test\nWarning: the message is from ana@baton.test, but it asks for replies to go to thief@evil.test\nSubject: Re: Invoice\nAttached: q1.pdf\nQuoted below the reply, from the original: \u{201c}Please reply with the account number.\u{201d}"
    );
}

#[tokio::test]
async fn wrong_password_server_down_untrusted_certificate_and_broken_mail_are_told_plainly() {
    let servers = MailServers::with_smtp();
    servers.deliver(
        ANA.0,
        &plain_message("Bob <bob@baton.test>", "Fine", "A fine message."),
    );
    // A broken message: no boundary on its multipart, bytes that are no
    // UTF-8, base64 that does not decode.
    servers.deliver(
        ANA.0,
        b"From: \xff\xfe broken <x@example.org>\r\nSubject: Broken \xc3\r\nContent-Type: multipart/mixed\r\nContent-Transfer-Encoding: base64\r\n\r\n%%%% not base64 %%%%\r\n\x00\x01\x02",
    );
    let ca = servers.ca_file();

    // Over TLS (imaps) too.
    let mut good = account(&servers, ANA);
    good.imap = Some(server("imap", servers.imaps, MailSecurity::Tls, ANA, &ca));
    let s = toolbox(good);
    let list = s.ok("get_emails", json!({})).await;
    assert_eq!(
        list.as_array().unwrap().len(),
        2,
        "the broken message does not hide the others: {list}"
    );
    let broken = list
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["subject"] != "Fine")
        .unwrap();
    let read = s.ok("read_email", json!({"id": broken["id"]})).await;
    assert!(
        read["subject"].as_str().unwrap().starts_with("Broken"),
        "{read}"
    );

    let wrong = toolbox(account(&servers, (ANA.0, "wrong")));
    let e = wrong.call("get_emails", json!({})).await.unwrap_err();
    assert!(
        e.contains("imap server refused the sign-in of `ana@baton.test`")
            && e.contains("Authentication failed"),
        "{e}"
    );
    let e = wrong
        .call(
            "send_email",
            json!({"to": [BOB.0], "subject": "x", "body": "y"}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("smtp server refused the sign-in"), "{e}");

    // The settings' connection test signs in without sending.
    let checked = MailClient::new(account(&servers, ANA));
    checked.check_smtp().await.unwrap();
    assert_eq!(checked.check_imap().await.unwrap(), 6);
    let e = MailClient::new(account(&servers, (ANA.0, "wrong")))
        .check_smtp()
        .await
        .unwrap_err();
    assert!(matches!(e, baton_mail::MailError::Login { .. }), "{e}");

    let mut untrusted = account(&servers, ANA);
    untrusted.imap.as_mut().unwrap().ca_file = None;
    untrusted.smtp.as_mut().unwrap().ca_file = None;
    let u = toolbox(untrusted);
    let e = u.call("list_folders", json!({})).await.unwrap_err();
    assert!(
        e.contains("certificate is not trusted") && e.contains("caFile"),
        "{e}"
    );
    let e = u
        .call(
            "send_email",
            json!({"to": [BOB.0], "subject": "x", "body": "y"}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("certificate is not trusted"), "{e}");

    // SMTP with STARTTLS works; a plain connection to the TLS port does not hang.
    let mut starttls = account(&servers, ANA);
    starttls.smtp = Some(server(
        "smtp",
        servers.smtp,
        MailSecurity::Starttls,
        ANA,
        &ca,
    ));
    toolbox(starttls)
        .ok(
            "send_email",
            json!({"to": [BOB.0], "subject": "via 587", "body": "ok"}),
        )
        .await;
    servers.wait_for_messages(BOB.0, "INBOX", 1);

    let down = free_port_closed();
    let mut gone = account(&servers, ANA);
    gone.imap.as_mut().unwrap().port = down;
    gone.smtp.as_mut().unwrap().port = down;
    let g = toolbox(gone);
    let e = g.call("get_emails", json!({})).await.unwrap_err();
    assert!(
        e.contains(&format!("could not reach the imap server localhost:{down}")),
        "{e}"
    );
    let e = g
        .call(
            "send_email",
            json!({"to": [BOB.0], "subject": "x", "body": "y"}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("could not reach the smtp server"), "{e}");

    // No encryption is for a server on this computer only.
    let mut clear = account(&servers, ANA);
    clear.imap.as_mut().unwrap().host = "mail.example.org".into();
    clear.imap.as_mut().unwrap().security = MailSecurity::None;
    let e = toolbox(clear)
        .call("get_emails", json!({}))
        .await
        .unwrap_err();
    assert!(
        e.contains("in clear") && e.contains("mail.example.org"),
        "{e}"
    );

    let unset = toolbox(MailAccount::default());
    let e = unset.call("get_emails", json!({})).await.unwrap_err();
    assert!(
        e.contains("imap is not set up") && e.contains("baton config set imap.host"),
        "{e}"
    );

    // The good account still works after all that.
    assert_eq!(
        s.ok("get_emails", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// A port nothing listens on.
fn free_port_closed() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
