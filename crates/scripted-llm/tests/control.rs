//! The HTTP control routes that out-of-process tests (the desktop
//! end-to-end test) use to script the server and read what it received.

use baton_scripted_llm::ScriptedServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A bare HTTP/1.0 exchange (no chunked encoding to decode).
async fn http(addr: std::net::SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    exchange(addr, method, path, body, "").await
}

/// A POST with extra header lines (`Name: value\r\n` each).
async fn http_with(
    addr: std::net::SocketAddr,
    path: &str,
    body: &str,
    extra: &str,
) -> (u16, String) {
    exchange(addr, "POST", path, body, extra).await
}

async fn exchange(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    extra: &str,
) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.0\r\nHost: x\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
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

/// Azure paths speak the OpenAI format behind Azure's key and
/// api-version checks, and the control listing shows query and headers.
#[tokio::test]
async fn azure_requests_need_an_api_key_and_are_listed_with_query_and_headers() {
    let server = ScriptedServer::start().await.unwrap();
    let addr = server.addr();
    let chat = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let path = "/openai/deployments/d1/chat/completions?api-version=2024-10-21";
    let (status, body) = http(addr, "POST", path, chat).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body.contains(r#""code":"401""#) && body.contains("Access denied"),
        "{body}"
    );
    let (status, body) = http_with(addr, path, chat, "api-key: k1\r\n").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.starts_with("data: {\"choices\":[],") && body.contains("prompt_filter_results"),
        "{body}"
    );
    let (status, body) = http_with(
        addr,
        "/openai/deployments/d1/chat/completions",
        chat,
        "api-key: k1\r\n",
    )
    .await;
    assert_eq!(status, 404, "{body}");
    let (_, listed) = http(addr, "GET", "/_control/requests", "").await;
    let list: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(list[1]["query"], "api-version=2024-10-21");
    assert_eq!(list[1]["headers"]["api-key"], "k1");
    let rec = &server.requests()[1];
    assert_eq!(rec.path, "/openai/deployments/d1/chat/completions");
    assert_eq!(rec.header("api-key"), Some("k1"));
}
