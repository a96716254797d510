//! `baton serve`: the HTTP API on the printed loopback address, other
//! hosts refused, and `serve keys add|list|revoke`.

use std::process::Stdio;
use std::time::Duration;

use baton_scripted_llm::ScriptedServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn serve_answers_on_the_printed_address_and_refuses_other_hosts() {
    use tokio::io::AsyncReadExt;
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    // Without a key, only when asked.
    let mut c = env.scripted(&server);
    c.args(["serve", "--port", "0"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(
        o.stderr.contains("no API key yet") && o.stderr.contains("--no-auth"),
        "{}",
        o.stderr
    );
    let mut c = env.scripted(&server);
    c.args(["serve", "--no-auth", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .expect("the address is printed");
    let addr = url.strip_prefix("http://").unwrap();
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let get = format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    tcp.write_all(get.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tcp.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains(r#"{"status":"ok"}"#) && answer.contains("x-request-id"),
        "{answer}"
    );
    child.kill().await.unwrap();

    let mut c = env.scripted(&server);
    c.args(["serve", "--no-auth", "--host", "0.0.0.0", "--port", "0"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("this computer only"), "{}", o.stderr);

    // Keys: made (printed once), listed by name and prefix, revoked.
    let mut c = env.cmd();
    c.args(["serve", "keys", "add", "editor"]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let key = o.stdout.trim().to_string();
    assert!(key.starts_with("bk-"), "{key}");
    let mut c = env.cmd();
    c.args(["serve", "keys", "list"]);
    let o = run(c, None).await;
    assert!(
        o.stdout.starts_with(&format!("editor\t{}…", &key[..10])),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains(&key));
    let mut c = env.cmd();
    c.args(["serve", "keys", "revoke", "nobody"]);
    let o = run(c, None).await;
    assert_ne!(o.code, 0);
    assert!(o.stderr.contains("no key named `nobody`"), "{}", o.stderr);
    let mut c = env.cmd();
    c.args(["serve", "keys", "revoke", "editor"]);
    assert_eq!(run(c, None).await.code, 0);
    let mut c = env.cmd();
    c.args(["serve", "keys", "list"]);
    assert_eq!(run(c, None).await.stdout, "");
}
