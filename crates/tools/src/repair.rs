//! From what a model actually sends to a JSON value.
//!
//! A strict parse runs first, so well-formed output costs nothing more.
//! Then Baton's own passes for what the repair crate does not cover —
//! code fences, prose around the JSON, doubly-encoded JSON, Python
//! literals — and finally `llm_json` (a port of the widely used
//! `json_repair`), which fixes quotes, commas, comments, unquoted keys,
//! unescaped newlines and missing brackets.

use serde_json::Value;

/// Why no JSON could be recovered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no JSON object could be read from the reply: {0}")]
pub struct RepairError(pub String);

/// Parses `raw` into JSON, repairing what models commonly get wrong. A
/// JSON string that itself holds JSON (doubly encoded) is unwrapped.
pub fn repair_json(raw: &str) -> Result<Value, RepairError> {
    let text = raw.trim().trim_start_matches('\u{feff}');
    if text.is_empty() {
        return Err(RepairError("the reply is empty".into()));
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok(unwrap_encoded(v));
    }
    let inner = strip_fences(text);
    let inner = extract_json_span(inner).unwrap_or(inner);
    if let Ok(v) = serde_json::from_str::<Value>(inner) {
        return Ok(unwrap_encoded(v));
    }
    let opts = llm_json::RepairOptions {
        ensure_ascii: false,
        ..Default::default()
    };
    let cleaned = python_literals(&sanitize(inner));
    if let Ok(v) = serde_json::from_str::<Value>(&cleaned) {
        return Ok(unwrap_encoded(v));
    }
    let pythonic = cleaned;
    match llm_json::loads(&pythonic, &opts) {
        Ok(v) if !(v.is_null() || v.is_string()) => Ok(unwrap_encoded(v)),
        Ok(_) => Err(RepairError(excerpt(raw))),
        Err(e) => Err(RepairError(format!("{e}: {}", excerpt(raw)))),
    }
}

fn excerpt(s: &str) -> String {
    baton_stdx::excerpt(s, 120)
}

/// `"{\"a\":1}"` → `{"a":1}` (once or twice).
fn unwrap_encoded(v: Value) -> Value {
    let mut v = v;
    for _ in 0..2 {
        match &v {
            Value::String(s) if s.trim_start().starts_with(['{', '[']) => {
                match serde_json::from_str::<Value>(s) {
                    Ok(inner) => v = inner,
                    Err(_) => break,
                }
            }
            _ => break,
        }
    }
    v
}

/// The body of the first Markdown code fence, if any.
fn strip_fences(text: &str) -> &str {
    let Some(start) = text.find("```") else {
        return text;
    };
    let after = &text[start + 3..];
    let body_start = after.find('\n').map(|i| i + 1).unwrap_or(0);
    let body = &after[body_start..];
    match body.find("```") {
        Some(end) => body[..end].trim(),
        None => body.trim(),
    }
}

/// From the first `{` or `[` to its matching close (string-aware), or to
/// the end when it never closes (the repair pass closes it).
fn extract_json_span(text: &str) -> Option<&str> {
    let start = text.find(['{', '['])?;
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut in_str: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == q {
                in_str = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' => in_str = Some(b),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    Some(&text[start..])
}

/// Escapes raw control characters inside strings (models write real
/// newlines and tabs in long text) and drops empty list elements (`,,`)
/// outside strings.
fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    let mut last_sig: Option<char> = None;
    for c in text.chars() {
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
                out.push(c);
                continue;
            }
            match c {
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => {
                    if c == q {
                        in_str = None;
                    }
                    out.push(c);
                }
            }
            continue;
        }
        if c == ',' && matches!(last_sig, Some(',') | Some('[') | Some('{')) {
            continue;
        }
        if c == '"' || c == '\'' {
            in_str = Some(c);
        }
        if !c.is_whitespace() {
            last_sig = Some(c);
        }
        out.push(c);
    }
    out
}

/// Python's `True`, `False`, `None` outside strings → JSON literals.
fn python_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "True" => "true",
            "False" => "false",
            "None" => "null",
            w => w,
        });
        word.clear();
    };
    for c in text.chars() {
        if let Some(q) = in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                in_str = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        if c == '"' || c == '\'' {
            in_str = Some(c);
        }
        out.push(c);
    }
    flush(&mut word, &mut out);
    out
}
