//! Provider layer against the scripted server: every dialect's wire
//! format, streaming, retries, cancellation, bad input and cache layout.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baton_llm::wire::{self, WireError};
use baton_llm::{
    Anonymizer, AnonymizingProvider, CallOptions, ChatRequest, Completion, CompletionBuilder,
    ContentPart, Dialect, FinishReason, HttpProvider, Image, LlmError, LlmEvent, Message, Provider,
    ProviderConfig, RetryPolicy, ToolCall, ToolDefinition, Usage,
};
use baton_scripted_llm::{Reply, ScriptedServer, Step, WireDialect, render_reply};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const DIALECTS: [Dialect; 4] = [
    Dialect::Openai,
    Dialect::Anthropic,
    Dialect::Ollama,
    Dialect::Gemini,
];

fn wire_of(d: Dialect) -> WireDialect {
    match d {
        Dialect::Openai => WireDialect::Openai,
        Dialect::Anthropic => WireDialect::Anthropic,
        Dialect::Ollama => WireDialect::Ollama,
        Dialect::Gemini => WireDialect::Gemini,
        Dialect::Azure => WireDialect::Openai,
        Dialect::Local => unreachable!(),
    }
}

fn endpoint(d: Dialect, base: &str) -> String {
    match d {
        Dialect::Openai | Dialect::Anthropic => format!("{base}/v1"),
        Dialect::Gemini => format!("{base}/v1beta"),
        _ => base.to_string(),
    }
}

fn cfg(d: Dialect, base: &str, extra: Value) -> ProviderConfig {
    let mut v = json!({"name": format!("test-{}", d.as_str()), "dialect": d.as_str(),
        "endpoint": endpoint(d, base), "model": "m1", "temperature": 0.2, "maxOutputTokens": 100,
        "contextWindow": 200000});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::from_value(v).unwrap()
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        min_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(5),
    }
}

fn provider(d: Dialect, server: &ScriptedServer, extra: Value) -> HttpProvider {
    HttpProvider::new(cfg(d, &server.url(), extra), Some("sk-test".into()))
        .unwrap()
        .with_retry(fast_retry())
}

fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "list_directory".into(),
            description: "Lists a folder.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        ToolDefinition {
            name: "read_text_file".into(),
            description: "Reads a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        },
    ]
}

async fn collect(
    p: &dyn Provider,
    req: ChatRequest,
) -> Result<(Vec<LlmEvent>, Completion), LlmError> {
    let mut s = p.stream(req, CancellationToken::new()).await?;
    let mut events = Vec::new();
    let mut b = CompletionBuilder::default();
    while let Some(e) = s.next().await {
        let e = e?;
        b.push(e.clone());
        events.push(e);
    }
    Ok((events, b.finish()))
}

#[tokio::test]
async fn every_dialect_streams_text_with_usage() {
    let server = ScriptedServer::start().await.unwrap();
    for d in DIALECTS {
        server.reply(
            Reply {
                cached_tokens: Some(4),
                ..Reply::text("Hello there, friend!")
            }
            .chunked(7),
        );
        let p = provider(d, &server, json!({}));
        let req = ChatRequest::new(vec![Message::system("Be brief."), Message::user("Hi")]);
        let (events, c) = collect(&p, req).await.unwrap();
        assert_eq!(c.text, "Hello there, friend!", "{d:?}");
        let deltas = events
            .iter()
            .filter(|e| matches!(e, LlmEvent::TextDelta(_)))
            .count();
        assert!(
            deltas >= 3,
            "{d:?}: text must stream in pieces, got {deltas}"
        );
        assert_eq!(c.usage.prompt_tokens, 11, "{d:?}");
        assert_eq!(c.usage.completion_tokens, 7, "{d:?}");
        // Ollama reports no cache figures.
        let cached = if d == Dialect::Ollama { None } else { Some(4) };
        assert_eq!(c.usage.cached_tokens, cached, "{d:?}");
        assert_eq!(c.finish, Some(FinishReason::Stop), "{d:?}");
    }
}

#[tokio::test]
async fn openai_request_wire_format() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(
        Dialect::Openai,
        &server,
        json!({"jsonMode": true, "reasoningEffort": "low",
        "headers": {"x-extra": "1"}}),
    );
    let req = ChatRequest {
        messages: vec![
            Message::system("sys"),
            Message::user("list /"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_9".into(),
                    name: "list_directory".into(),
                    arguments: json!({"path": "/"}),
                }],
            },
            Message::tool("call_9", "list_directory", "[\"a.txt\"]", false),
        ],
        tools: tools(),
        options: CallOptions {
            json_mode: true,
            ..Default::default()
        },
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-extra"), Some("1"));
    let b = r.json();
    assert_eq!(b["model"], "m1");
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"]["include_usage"], true);
    assert_eq!(b["temperature"], 0.2);
    assert_eq!(b["max_tokens"], 100);
    assert_eq!(b["response_format"], json!({"type": "json_object"}));
    assert_eq!(b["reasoning_effort"], "low");
    assert_eq!(
        b["tools"][0],
        json!({"type": "function", "function": {"name": "list_directory",
        "description": "Lists a folder.", "parameters": tools()[0].parameters}})
    );
    assert_eq!(
        b["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "list /"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function",
                "function": {"name": "list_directory", "arguments": "{\"path\":\"/\"}"}}]},
            {"role": "tool", "tool_call_id": "call_9", "content": "[\"a.txt\"]"}
        ])
    );
}

#[tokio::test]
async fn anthropic_request_wire_format() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(
        Dialect::Anthropic,
        &server,
        json!({"cacheType": "noCacheSupported"}),
    );
    let req = ChatRequest {
        messages: vec![
            Message::system("sys"),
            Message::User {
                content: vec![
                    ContentPart::Text { text: "see".into() },
                    ContentPart::Attachment {
                        name: "a.md".into(),
                        markdown: "# A".into(),
                    },
                ],
            },
            Message::Assistant {
                content: "looking".into(),
                tool_calls: vec![ToolCall {
                    id: "toolu_1".into(),
                    name: "read_text_file".into(),
                    arguments: json!({"path": "/a.md"}),
                }],
            },
            Message::tool("toolu_1", "read_text_file", "# A", true),
            Message::user("and?"),
        ],
        tools: tools(),
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("sk-test"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    let b = r.json();
    assert_eq!(b["max_tokens"], 100);
    assert_eq!(b["system"], json!([{"type": "text", "text": "sys"}]));
    assert_eq!(
        b["tools"][1],
        json!({"name": "read_text_file", "description": "Reads a file.",
        "input_schema": tools()[1].parameters})
    );
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "see"},
                {"type": "text", "text": "<attachment name=\"a.md\">\n# A\n</attachment>"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "looking"},
                {"type": "tool_use", "id": "toolu_1", "name": "read_text_file", "input": {"path": "/a.md"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "# A", "is_error": true},
                {"type": "text", "text": "and?"}]}
        ])
    );
    assert!(
        !r.body.windows(13).any(|w| w == b"cache_control"),
        "no breakpoints without AnthropicCache"
    );
}

#[tokio::test]
async fn ollama_request_wire_format() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(
        Dialect::Ollama,
        &server,
        json!({"jsonMode": true, "contextWindow": 32768}),
    );
    let req = ChatRequest {
        messages: vec![
            Message::user("list"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_0".into(),
                    name: "list_directory".into(),
                    arguments: json!({"path": "/"}),
                }],
            },
            Message::tool("call_0", "list_directory", "[]", false),
        ],
        tools: tools(),
        options: CallOptions {
            json_mode: true,
            ..Default::default()
        },
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.path, "/api/chat");
    let b = r.json();
    assert_eq!(b["stream"], true);
    assert_eq!(b["format"], "json");
    assert_eq!(
        b["options"],
        json!({"num_ctx": 32768, "temperature": 0.2, "num_predict": 100})
    );
    assert_eq!(b["tools"][0]["function"]["name"], "list_directory");
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": "list"},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "list_directory", "arguments": {"path": "/"}}}]},
            {"role": "tool", "content": "[]", "tool_name": "list_directory"}
        ])
    );
}

#[tokio::test]
async fn gemini_request_wire_format() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(Dialect::Gemini, &server, json!({"jsonMode": true}));
    let req = ChatRequest {
        messages: vec![
            Message::system("sys"),
            Message::user("list"),
            Message::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_0".into(),
                    name: "list_directory".into(),
                    arguments: json!({"path": "/"}),
                }],
            },
            Message::tool("call_0", "list_directory", "[\"x\"]", false),
        ],
        tools: tools(),
        options: CallOptions {
            json_mode: true,
            ..Default::default()
        },
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1beta/models/m1:streamGenerateContent");
    assert_eq!(r.query.as_deref(), Some("alt=sse"));
    assert_eq!(r.header("x-goog-api-key"), Some("sk-test"));
    let b = r.json();
    assert_eq!(b["systemInstruction"], json!({"parts": [{"text": "sys"}]}));
    assert_eq!(
        b["generationConfig"],
        json!({"temperature": 0.2, "maxOutputTokens": 100,
        "responseMimeType": "application/json"})
    );
    assert_eq!(
        b["tools"][0]["functionDeclarations"][0]["name"],
        "list_directory"
    );
    assert_eq!(
        b["contents"],
        json!([
            {"role": "user", "parts": [{"text": "list"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "list_directory", "args": {"path": "/"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "list_directory", "response": {"result": "[\"x\"]"}}}]}
        ])
    );
}

/// A screenshot in a tool result, as each dialect sends it: inside the
/// result where the wire allows pictures there, else (OpenAI) as a user
/// message after the run of results.
#[tokio::test]
async fn pictures_in_tool_results_reach_every_dialect() {
    let shot = |id: &str, images: Vec<Image>| Message::Tool {
        call_id: id.into(),
        name: "screenshot".into(),
        content: "{\"path\":\"/s.png\"}".into(),
        is_error: false,
        images,
    };
    let png = Image {
        mime_type: "image/png".into(),
        data: "iVBORw0K".into(),
    };
    for d in DIALECTS {
        let server = ScriptedServer::start().await.unwrap();
        server.reply(Reply::text("ok"));
        let p = provider(d, &server, json!({}));
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "screenshot".into(),
            arguments: json!({}),
        };
        let req = ChatRequest {
            messages: vec![
                Message::user("look"),
                Message::Assistant {
                    content: String::new(),
                    tool_calls: vec![call("c1"), call("c2")],
                },
                shot("c1", vec![png.clone()]),
                shot("c2", Vec::new()),
            ],
            ..Default::default()
        };
        collect(&p, req).await.unwrap();
        let b = server.requests()[0].json();
        match d {
            Dialect::Openai => {
                let m = b["messages"].as_array().unwrap();
                assert_eq!(
                    (m[2]["role"].as_str(), m[3]["role"].as_str()),
                    (Some("tool"), Some("tool"))
                );
                assert_eq!(m[4]["role"], "user", "{b}");
                assert_eq!(
                    m[4]["content"][1]["image_url"]["url"],
                    "data:image/png;base64,iVBORw0K"
                );
                assert_eq!(m.len(), 5);
            }
            Dialect::Anthropic => {
                let result = &b["messages"][2]["content"][0];
                assert_eq!(result["type"], "tool_result", "{b}");
                assert_eq!(result["content"][1]["source"]["data"], "iVBORw0K");
                assert_eq!(
                    b["messages"][2]["content"][1]["content"],
                    "{\"path\":\"/s.png\"}"
                );
            }
            Dialect::Gemini => {
                let parts = &b["contents"][2]["parts"];
                assert_eq!(parts[1]["inlineData"]["data"], "iVBORw0K", "{b}");
                assert!(parts[2]["functionResponse"].is_object(), "{b}");
            }
            _ => {
                assert_eq!(b["messages"][2]["images"], json!(["iVBORw0K"]), "{b}");
                assert!(b["messages"][3].get("images").is_none(), "{b}");
            }
        }
    }
}

#[tokio::test]
async fn every_dialect_parses_native_tool_calls() {
    let server = ScriptedServer::start().await.unwrap();
    for d in DIALECTS {
        server.reply(
            Reply {
                text: "Let me look.".into(),
                text_pieces: 2,
                tool_calls: vec![
                    ("list_directory".into(), json!({"path": "/reports"})),
                    ("read_text_file".into(), json!({"path": "/a \"b\".txt"})),
                ],
                ..Reply::default()
            }
            .chunked(5),
        );
        let p = provider(d, &server, json!({}));
        let req = ChatRequest {
            messages: vec![Message::user("go")],
            tools: tools(),
            ..Default::default()
        };
        let (_, c) = collect(&p, req).await.unwrap();
        assert_eq!(c.text, "Let me look.", "{d:?}");
        assert_eq!(c.finish, Some(FinishReason::ToolCalls), "{d:?}");
        let calls: Vec<(&str, &Value)> = c
            .tool_calls
            .iter()
            .map(|t| (t.name.as_str(), &t.arguments))
            .collect();
        assert_eq!(
            calls,
            vec![
                ("list_directory", &json!({"path": "/reports"})),
                ("read_text_file", &json!({"path": "/a \"b\".txt"}))
            ],
            "{d:?}"
        );
        assert!(c.tool_calls.iter().all(|t| !t.id.is_empty()), "{d:?}");
        assert_ne!(c.tool_calls[0].id, c.tool_calls[1].id, "{d:?}");
    }
}

/// Decodes `bytes` cut at the given points, the way the HTTP path does.
async fn decode_split(d: Dialect, bytes: &[u8], cuts: &[usize]) -> Result<Completion, WireError> {
    let mut chunks = Vec::new();
    let mut last = 0;
    for &c in cuts {
        chunks.push(Ok::<_, std::io::Error>(bytes::Bytes::copy_from_slice(
            &bytes[last..c],
        )));
        last = c;
    }
    chunks.push(Ok(bytes::Bytes::copy_from_slice(&bytes[last..])));
    let mut s = Box::pin(wire::decode(d, futures::stream::iter(chunks)));
    let mut b = CompletionBuilder::default();
    while let Some(e) = s.next().await {
        b.push(e?);
    }
    Ok(b.finish())
}

#[tokio::test]
async fn streams_split_at_every_byte_boundary_decode_identically() {
    for d in DIALECTS {
        let reply = Reply {
            text: "Zürich — “quoted” \\ text\nline two 🎉".into(),
            text_pieces: 4,
            tool_calls: vec![("read_text_file".into(), json!({"path": "/ä b.txt", "n": 3}))],
            prompt_tokens: 21,
            completion_tokens: 9,
            ..Reply::default()
        };
        let bytes = render_reply(wire_of(d), &reply);
        let whole = decode_split(d, &bytes, &[]).await.unwrap();
        assert_eq!(whole.text, reply.text);
        assert_eq!(
            whole.tool_calls[0].arguments,
            json!({"path": "/ä b.txt", "n": 3})
        );
        assert_eq!(
            whole.usage,
            Usage {
                prompt_tokens: 21,
                completion_tokens: 9,
                cached_tokens: None
            }
        );
        for cut in 1..bytes.len() {
            let got = decode_split(d, &bytes, &[cut]).await.unwrap();
            assert_eq!(got, whole, "{d:?} split at byte {cut}");
        }
        // and every byte on its own
        let all: Vec<usize> = (1..bytes.len()).collect();
        assert_eq!(
            decode_split(d, &bytes, &all).await.unwrap(),
            whole,
            "{d:?} one byte per chunk"
        );
    }
}

#[tokio::test]
async fn truncated_streams_are_reported_for_every_dialect() {
    for d in DIALECTS {
        let bytes = render_reply(wire_of(d), &Reply::text("some words here"));
        // Cut before the end marker (the last frame).
        let cut = match d {
            Dialect::Ollama => {
                bytes[..bytes.len() - 1]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .unwrap()
                    + 1
            }
            Dialect::Gemini => 10,
            _ => bytes.len() - 20,
        };
        let e = decode_split(d, &bytes[..cut], &[]).await.unwrap_err();
        assert_eq!(e, WireError::Truncated, "{d:?}");
    }
}

#[tokio::test]
async fn truncated_and_invalid_streams_over_http() {
    let server = ScriptedServer::start().await.unwrap();
    let p = provider(Dialect::Openai, &server, json!({}));
    server.push(Step::Raw {
        content_type: "text/event-stream".into(),
        body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n".into(),
        chunk_size: None,
        chunk_delay_ms: 0,
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, LlmError::Malformed { detail, .. } if detail.contains("ended before")),
        "{e}"
    );

    server.push(Step::Raw { content_type: "text/event-stream".into(),
        body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {not json\n\n".into(),
        chunk_size: Some(3), chunk_delay_ms: 0 });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, LlmError::Malformed { detail, .. } if detail.contains("invalid JSON")),
        "{e}"
    );
    assert!(
        e.to_string().contains("test-openai"),
        "errors name the provider: {e}"
    );

    server.push(Step::Raw {
        content_type: "text/event-stream".into(),
        body: "data: {\"error\":{\"message\":\"model overloaded\"}}\n\n".into(),
        chunk_size: None,
        chunk_delay_ms: 0,
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, LlmError::Remote { detail, .. } if detail.contains("overloaded")),
        "{e}"
    );

    let po = provider(Dialect::Ollama, &server, json!({}));
    server.push(Step::Raw { content_type: "application/x-ndjson".into(),
        body: "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"model 'x' not found\"}\n".into(),
        chunk_size: None, chunk_delay_ms: 0 });
    let e = collect(&po, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not found"), "{e}");
}

#[tokio::test]
async fn html_pages_get_a_clear_message() {
    let server = ScriptedServer::start().await.unwrap();
    let p = provider(Dialect::Openai, &server, json!({}));
    server.push(Step::Http {
        status: 404,
        headers: vec![],
        content_type: "text/html".into(),
        body: "<!DOCTYPE html><html><head><title>Not Found</title></head></html>".into(),
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("HTML page") && e.contains("Not Found") && e.contains("endpoint"),
        "{e}"
    );
    server.push(Step::Raw {
        content_type: "text/html; charset=utf-8".into(),
        body: "<html><body>login portal</body></html>".into(),
        chunk_size: None,
        chunk_delay_ms: 0,
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("HTML page came back instead of a reply stream"),
        "{e}"
    );
}

#[tokio::test]
async fn transient_errors_are_retried_then_succeed() {
    let server = ScriptedServer::start().await.unwrap();
    server.error(503, r#"{"error":{"message":"busy"}}"#);
    server.error(500, "oops");
    server.reply(Reply::text("finally"));
    let p = provider(Dialect::Anthropic, &server, json!({}));
    let (_, c) = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap();
    assert_eq!(c.text, "finally");
    assert_eq!(server.requests().len(), 3);
    // The same bytes are sent on every attempt.
    let r = server.requests();
    assert_eq!(r[0].body, r[2].body);
}

#[tokio::test]
async fn retries_give_up_with_the_last_error() {
    let server = ScriptedServer::start().await.unwrap();
    for _ in 0..3 {
        server.error(502, r#"{"error":{"message":"bad gateway"}}"#);
    }
    let p = provider(Dialect::Openai, &server, json!({}));
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Server { status: 502, .. }), "{e}");
    assert_eq!(server.requests().len(), 3, "1 try + 2 retries");
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let server = ScriptedServer::start().await.unwrap();
    server.push(Step::Http {
        status: 429,
        headers: vec![("retry-after".into(), "1".into())],
        content_type: "application/json".into(),
        body: r#"{"error":{"message":"slow down"}}"#.into(),
    });
    server.reply(Reply::text("ok"));
    let p = provider(Dialect::Openai, &server, json!({}));
    let t = Instant::now();
    collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "waited only {:?}",
        t.elapsed()
    );
    let r = server.requests();
    assert!(r[1].at.duration_since(r[0].at) >= Duration::from_millis(950));
}

#[tokio::test]
async fn auth_and_overflow_are_not_retried_and_say_what_to_do() {
    let server = ScriptedServer::start().await.unwrap();
    server.error(401, r#"{"error":{"message":"Invalid API key"}}"#);
    let p = provider(Dialect::Openai, &server, json!({}));
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Auth { status: 401, .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("Invalid API key") && msg.contains("baton secret set test-openai"),
        "{msg}"
    );
    server.error(400, r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#);
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::ContextOverflow { .. }), "{e}");
    assert!(e.to_string().contains("/session compact"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn unreachable_server_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let c = cfg(
        Dialect::Ollama,
        &format!("http://127.0.0.1:{port}"),
        json!({}),
    );
    let p = HttpProvider::new(c, None).unwrap().with_retry(RetryPolicy {
        max_retries: 1,
        ..fast_retry()
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Connect { .. }), "{e}");
    assert!(e.to_string().contains("is the server running"), "{e}");
}

#[tokio::test]
async fn an_endpoints_password_is_never_told() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let c = cfg(
        Dialect::Openai,
        &format!("http://proxy-user:pr0xy-s3cret@127.0.0.1:{port}"),
        json!({}),
    );
    assert!(!c.shown_url().contains("s3cret"), "{}", c.shown_url());
    let p = HttpProvider::new(c, None).unwrap().with_retry(RetryPolicy {
        max_retries: 0,
        ..fast_retry()
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    let told = format!("{e} {e:?}");
    assert!(told.contains(&format!("127.0.0.1:{port}")), "{told}");
    assert!(
        !told.contains("pr0xy-s3cret") && !told.contains("proxy-user"),
        "{told}"
    );
}

#[tokio::test]
async fn slow_provider_times_out() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply {
        delay_ms: 3000,
        ..Reply::text("late")
    });
    let p = provider(Dialect::Openai, &server, json!({"timeoutSecs": 1})).with_retry(RetryPolicy {
        max_retries: 0,
        ..fast_retry()
    });
    let t = Instant::now();
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Timeout { secs: 1, .. }), "{e}");
    assert!(t.elapsed() < Duration::from_millis(2500));
    // A stalled stream (idle between chunks) times out too.
    server.reply(Reply {
        chunk_size: Some(40),
        chunk_delay_ms: 2500,
        ..Reply::text("a b c d e f")
    });
    let e = collect(&p, ChatRequest::new(vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert!(matches!(e, LlmError::Timeout { .. }), "{e}");
}

#[tokio::test]
async fn cancellation_before_and_during_the_stream() {
    let server = ScriptedServer::start().await.unwrap();
    let p = provider(Dialect::Openai, &server, json!({}));
    // Before the response headers.
    server.reply(Reply {
        delay_ms: 5000,
        ..Reply::text("never")
    });
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let t = Instant::now();
    let e = p
        .stream(ChatRequest::new(vec![Message::user("x")]), cancel)
        .await
        .err()
        .unwrap();
    assert!(matches!(e, LlmError::Cancelled { .. }), "{e}");
    assert!(t.elapsed() < Duration::from_millis(1000));

    // Mid-stream: one chunk per 300 ms.
    server.reply(Reply {
        text_pieces: 10,
        chunk_size: Some(60),
        chunk_delay_ms: 300,
        ..Reply::text("one two three four five six seven eight nine ten")
    });
    let cancel = CancellationToken::new();
    let mut s = p
        .stream(ChatRequest::new(vec![Message::user("x")]), cancel.clone())
        .await
        .unwrap();
    let first = s.next().await.unwrap().unwrap();
    assert!(matches!(first, LlmEvent::TextDelta(_)), "{first:?}");
    let t = Instant::now();
    cancel.cancel();
    let mut last = None;
    while let Some(e) = s.next().await {
        last = Some(e);
    }
    assert!(
        matches!(last, Some(Err(LlmError::Cancelled { .. }))),
        "{last:?}"
    );
    assert!(
        t.elapsed() < Duration::from_millis(200),
        "cancel took {:?}",
        t.elapsed()
    );
}

fn body_text(r: &baton_scripted_llm::Recorded) -> String {
    String::from_utf8(r.body.to_vec()).unwrap()
}

#[tokio::test]
async fn prefix_cache_keeps_request_prefixes_byte_identical_across_three_turns() {
    let server = ScriptedServer::start().await.unwrap();
    let p = provider(
        Dialect::Openai,
        &server,
        json!({"cacheType": "PrefixCache"}),
    );
    let mut history = vec![Message::system("You are Baton.")];
    let mut bodies = Vec::new();
    for turn in 1..=3 {
        server.reply(Reply::text(format!("answer {turn}")));
        history.push(Message::user(format!("question {turn}")));
        let req = ChatRequest {
            messages: history.clone(),
            tools: tools(),
            dynamic_context: Some(format!(
                "DYNAMIC-CONTEXT turn {turn}: today's table of contents"
            )),
            ..Default::default()
        };
        let (_, c) = collect(&p, req).await.unwrap();
        history.push(Message::assistant(c.text));
        bodies.push(body_text(server.requests().last().unwrap()));
    }
    for (k, pair) in bodies.windows(2).enumerate() {
        // The dynamic context (and its separator) starts right after the
        // stored text of the last user message.
        let stored = format!("question {}", k + 1);
        let cut = pair[0].find(&stored).unwrap() + stored.len();
        assert!(pair[0][cut..].starts_with("\\n\\nDYNAMIC-CONTEXT"));
        // Up to the dynamic context the bytes are identical…
        assert_eq!(
            &pair[1].as_bytes()[..cut],
            &pair[0].as_bytes()[..cut],
            "turn {} vs {}",
            k + 1,
            k + 2
        );
        // …and the earlier turn's dynamic context is not in the later request.
        assert!(!pair[1].contains(&format!("DYNAMIC-CONTEXT turn {}", k + 1)));
    }
    // Dynamic context was never stored.
    assert!(history.iter().all(|m| !m.text().contains("DYNAMIC")));
    // It went at the end of the last user message.
    let last = serde_json::from_str::<Value>(&bodies[2]).unwrap();
    let msgs = last["messages"].as_array().unwrap();
    assert!(
        msgs.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .ends_with("table of contents")
    );
}

#[tokio::test]
async fn no_cache_puts_dynamic_context_at_the_start() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(
        Dialect::Openai,
        &server,
        json!({"cacheType": "noCacheSupported"}),
    );
    let req = ChatRequest {
        messages: vec![Message::system("sys"), Message::user("q")],
        dynamic_context: Some("DYN".into()),
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let b = server.requests()[0].json();
    assert_eq!(
        b["messages"][0],
        json!({"role": "system", "content": "DYN\n\nsys"})
    );
    assert_eq!(b["messages"][1], json!({"role": "user", "content": "q"}));
}

#[tokio::test]
async fn anthropic_cache_breakpoints_on_last_system_block_and_last_tool() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("ok"));
    let p = provider(
        Dialect::Anthropic,
        &server,
        json!({"cacheType": "AnthropicCache"}),
    );
    let req = ChatRequest {
        messages: vec![
            Message::system("rules"),
            Message::system("manual"),
            Message::user("q1"),
            Message::assistant("a1"),
            Message::user("q2"),
        ],
        tools: tools(),
        dynamic_context: Some("DYN".into()),
        ..Default::default()
    };
    collect(&p, req).await.unwrap();
    let r = &server.requests()[0];
    let text = body_text(r);
    assert_eq!(text.matches("cache_control").count(), 2);
    assert!(text.matches("cache_control").count() <= baton_llm::cache::MAX_ANTHROPIC_BREAKPOINTS);
    let b = r.json();
    assert_eq!(
        b["system"],
        json!([{"type": "text", "text": "rules"},
        {"type": "text", "text": "manual", "cache_control": {"type": "ephemeral"}}])
    );
    assert!(b["tools"][0].get("cache_control").is_none());
    assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
    // Dynamic context comes after both breakpoints: in the last user turn.
    let msgs = b["messages"].as_array().unwrap();
    assert_eq!(
        msgs.last().unwrap()["content"],
        json!([{"type": "text", "text": "q2"}, {"type": "text", "text": "DYN"}])
    );
}

#[tokio::test]
async fn anonymization_hides_names_and_restores_streamed_replies() {
    let server = ScriptedServer::start().await.unwrap();
    let mut anon = Anonymizer::new();
    anon.register("Alice Martin");
    anon.register("sk-live-123");
    let registry = Arc::new(Mutex::new(anon));
    // The model answers with the placeholders, cut into 1-byte chunks.
    server.reply(
        Reply {
            text: "Dear [0_PLACEHOLDER], your key [1_PLACEHOLDER] works.".into(),
            text_pieces: 9,
            tool_calls: vec![(
                "write_text_file".into(),
                json!({"text": "to [0_PLACEHOLDER]"}),
            )],
            ..Reply::default()
        }
        .chunked(1),
    );
    let inner = Arc::new(provider(Dialect::Openai, &server, json!({})));
    let p = AnonymizingProvider::new(inner, registry.clone());
    let req = ChatRequest {
        messages: vec![Message::user(
            "Write to alice martin about key sk-live-123, not to Alice Martinez.",
        )],
        ..Default::default()
    };
    let (events, c) = collect(&p, req).await.unwrap();
    let sent = body_text(&server.requests()[0]);
    assert!(!sent.to_lowercase().contains("alice martin\""), "{sent}");
    assert!(
        sent.contains("Write to [0_PLACEHOLDER] about key [1_PLACEHOLDER], not to Alice Martinez."),
        "{sent}"
    );
    assert!(!sent.contains("sk-live-123"));
    assert_eq!(c.text, "Dear Alice Martin, your key sk-live-123 works.");
    assert_eq!(
        c.tool_calls[0].arguments,
        json!({"text": "to Alice Martin"})
    );
    // No delta ever showed a piece of a placeholder.
    for e in events {
        if let LlmEvent::TextDelta(t) = e {
            assert!(!t.contains('[') && !t.contains("PLACEHOLDER"), "{t}");
        }
    }
}

#[tokio::test]
async fn complete_collects_the_stream() {
    let server = ScriptedServer::start().await.unwrap();
    server.reply(Reply::text("collected answer"));
    let p = provider(Dialect::Gemini, &server, json!({}));
    let c = p
        .complete(
            ChatRequest::new(vec![Message::user("x")]),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(c.text, "collected answer");
}

#[tokio::test]
async fn images_render_in_each_dialects_own_shape() {
    let msg = Message::User {
        content: vec![
            ContentPart::Text {
                text: "Read this".into(),
            },
            ContentPart::Image {
                mime_type: "image/png".into(),
                data: "QUJD".into(),
            },
        ],
    };
    let mut bodies = Vec::new();
    for d in [
        Dialect::Openai,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Ollama,
    ] {
        let server = ScriptedServer::start().await.unwrap();
        server.reply(Reply::text("ok"));
        let p = provider(d, &server, json!({}));
        let c = p
            .complete(
                ChatRequest::new(vec![msg.clone()]),
                CancellationToken::new(),
            )
            .await
            .unwrap();
        assert_eq!(c.text, "ok");
        bodies.push(server.requests()[0].json());
    }
    assert_eq!(
        bodies[0]["messages"][0]["content"][0],
        json!({"type": "text", "text": "Read this"})
    );
    assert_eq!(
        bodies[0]["messages"][0]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}})
    );
    assert_eq!(
        bodies[1]["messages"][0]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}})
    );
    assert_eq!(
        bodies[2]["contents"][0]["parts"][1],
        json!({"inlineData": {"mimeType": "image/png", "data": "QUJD"}})
    );
    assert_eq!(bodies[3]["messages"][0]["content"], "Read this");
    assert_eq!(bodies[3]["messages"][0]["images"], json!(["QUJD"]));
}

/// Without a key, each entry's message names that entry's own variable
/// (its `apiKeyEnv`) and its keychain name — never another provider's.
#[tokio::test]
async fn missing_key_messages_name_the_entrys_own_variable() {
    let secrets = baton_config::Secrets::without_keychain("no D-Bus session");
    for (d, var) in [
        (Dialect::Openai, "BATON_TEST_UNSET_OPENAI_API_KEY"),
        (Dialect::Anthropic, "BATON_TEST_UNSET_ANTHROPIC_API_KEY"),
    ] {
        let c = cfg(d, "http://127.0.0.1:9", json!({"apiKeyEnv": var}));
        let name = c.name.clone();
        let err = match baton_llm::build_provider(&c, &secrets) {
            Ok(_) => panic!("{name} was built without a key"),
            Err(e) => e,
        };
        assert!(matches!(err, LlmError::MissingKey { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("baton secret set {name}")), "{msg}");
        assert!(
            msg.contains(var) && msg.contains("no D-Bus session"),
            "{msg}"
        );
        assert!(!msg.contains("DEEPSEEK"), "{msg}");
        let ready = baton_llm::probe_readiness(&c, &secrets, Duration::from_millis(100)).await;
        let baton_llm::Readiness::NotReady(why) = ready else {
            panic!("{name} is ready without a key: {ready:?}");
        };
        assert!(
            why.contains(var) && why.contains("no D-Bus session"),
            "{why}"
        );
        assert!(!why.contains("DEEPSEEK"), "{why}");
    }
}
