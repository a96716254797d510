//! The HTTP control routes that out-of-process tests (the desktop
//! end-to-end test) use to script the server and read what it received.

use baton_scripted_llm::ScriptedServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A bare HTTP/1.0 exchange (no chunked encoding to decode).
async fn http(addr: std::net::SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|x| x.1)
        .unwrap_or("")
        .to_string();
    (status, body)
}

#[tokio::test]
async fn steps_queued_over_http_are_served_and_requests_are_listed() {
    let server = ScriptedServer::start().await.unwrap();
    let addr = server.addr();
    let (status, body) = http(
        addr,
        "POST",
        "/_control/script",
        r#"[{"kind": "reply", "text": "scripted hello", "textPieces": 2}]"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(server.remaining(), 1);
    let chat = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi there"}]}"#;
    let (status, body) = http(addr, "POST", "/v1/chat/completions", chat).await;
    assert_eq!(status, 200);
    assert!(body.contains("scripted"), "{body}");
    assert_eq!(server.remaining(), 0);
    let (_, listed) = http(addr, "GET", "/_control/requests", "").await;
    let list: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "control calls are not recorded"
    );
    assert!(list[0]["body"].as_str().unwrap().contains("hi there"));
    let (status, body) = http(addr, "POST", "/_control/script", "{\"not\": \"a list\"}").await;
    assert_eq!(status, 400);
    assert!(body.contains("not a list of steps"), "{body}");
}
