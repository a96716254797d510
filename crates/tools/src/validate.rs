//! Checks arguments against a method's JSON Schema, applying only
//! unambiguous coercions ("5" → 5, "true" → true, a JSON string holding an
//! object or array, a single value where an array is expected, a number
//! where text is expected) and filling defaults. Errors name the
//! parameter and say what was expected and what came.
//!
//! Written here rather than with a general JSON Schema validator: the
//! coercions need the schema walk anyway, the messages are for a model to
//! act on, and the schemas are the small subset schemars generates.

use serde_json::{Map, Value};

/// Validates and coerces `args` (an object) against `schema`.
pub fn validate(schema: &Value, args: Value) -> Result<Value, String> {
    let args = match args {
        Value::Null => Value::Object(Map::new()),
        Value::String(s) if s.trim().is_empty() => Value::Object(Map::new()),
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Err(format!(
                    "arguments must be a JSON object, got the text {}",
                    quote(&s)
                ));
            }
        },
        other => other,
    };
    check(schema, args, "")
}

fn quote(s: &str) -> String {
    let short: String = s.chars().take(60).collect();
    serde_json::to_string(&short).unwrap_or_default()
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        other => other.to_string(),
    }
}

fn name(path: &str) -> String {
    if path.is_empty() {
        "arguments".into()
    } else {
        format!("parameter `{path}`")
    }
}

fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn article(t: &str) -> &'static str {
    if t.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The allowed values when a schema is an enum, written either as
/// `enum: [...]` or as `oneOf`/`anyOf` of `const`s (schemars does the
/// latter for documented enum variants).
fn enum_values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(e) = schema["enum"].as_array() {
        return Some(e.clone());
    }
    let options = schema["oneOf"]
        .as_array()
        .or_else(|| schema["anyOf"].as_array())?;
    options.iter().map(|o| o.get("const").cloned()).collect()
}

fn check(schema: &Value, value: Value, path: &str) -> Result<Value, String> {
    if let Some(options) = enum_values(schema) {
        if options.contains(&value) {
            return Ok(value);
        }
        // Case-insensitive match for text is unambiguous.
        if let Value::String(s) = &value
            && let Some(hit) = options
                .iter()
                .find(|o| o.as_str().is_some_and(|o| o.eq_ignore_ascii_case(s.trim())))
        {
            return Ok(hit.clone());
        }
        if value.is_null() && types(schema).contains(&"null") {
            return Ok(value);
        }
        let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        return Err(format!(
            "{} must be one of {}, got {}",
            name(path),
            list.join(", "),
            show(&value)
        ));
    }
    if let Some(options) = schema["anyOf"]
        .as_array()
        .or_else(|| schema["oneOf"].as_array())
    {
        let mut first_err = None;
        for s in options {
            match check(s, value.clone(), path) {
                Ok(v) => return Ok(v),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        return Err(first_err
            .unwrap_or_else(|| format!("{} matches none of the allowed forms", name(path))));
    }
    let allowed = types(schema);
    if value.is_null() && (allowed.contains(&"null") || allowed.is_empty()) {
        return Ok(value);
    }
    let value = if allowed.is_empty() {
        value
    } else {
        let mut last = None;
        let mut ok = None;
        for t in allowed.iter().filter(|t| **t != "null") {
            match coerce(t, schema, value.clone(), path) {
                Ok(v) => {
                    ok = Some(v);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        match ok {
            Some(v) => v,
            None => return Err(last.unwrap_or_else(|| format!("{} must not be null", name(path)))),
        }
    };
    Ok(value)
}

fn coerce(t: &str, schema: &Value, value: Value, path: &str) -> Result<Value, String> {
    let wrong = |v: &Value| format!("{} must be {} {t}, got {}", name(path), article(t), show(v));
    match (t, value) {
        ("string", Value::String(s)) => Ok(Value::String(s)),
        ("string", v @ (Value::Number(_) | Value::Bool(_))) => Ok(Value::String(v.to_string())),
        ("integer", Value::Number(n)) if n.is_i64() || n.is_u64() => {
            range(schema, Value::Number(n), path)
        }
        ("integer", Value::Number(n)) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                range(schema, Value::from(f as i64), path)
            }
            _ => Err(wrong(&Value::Number(n))),
        },
        ("integer", Value::String(s)) => match s.trim().parse::<i64>() {
            Ok(i) => range(schema, Value::from(i), path),
            Err(_) => Err(wrong(&Value::String(s))),
        },
        ("number", Value::Number(n)) => range(schema, Value::Number(n), path),
        ("number", Value::String(s)) => match s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
        {
            Some(n) => range(schema, Value::Number(n), path),
            None => Err(wrong(&Value::String(s))),
        },
        ("boolean", Value::Bool(b)) => Ok(Value::Bool(b)),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(wrong(&Value::String(s))),
        },
        ("array", Value::String(s)) if s.trim_start().starts_with('[') => {
            match serde_json::from_str(&s) {
                Ok(v @ Value::Array(_)) => coerce("array", schema, v, path),
                _ => Err(wrong(&Value::String(s))),
            }
        }
        ("array", Value::Array(items)) => {
            let item_schema = &schema["items"];
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(check(item_schema, item, &format!("{path}[{i}]"))?);
            }
            if let Some(min) = schema["minItems"].as_u64()
                && (out.len() as u64) < min
            {
                return Err(format!(
                    "{} needs at least {min} items, got {}",
                    name(path),
                    out.len()
                ));
            }
            Ok(Value::Array(out))
        }
        ("array", single) if !single.is_null() && !single.is_object() => {
            coerce("array", schema, Value::Array(vec![single]), path)
        }
        ("object", Value::String(s)) if s.trim_start().starts_with('{') => {
            match serde_json::from_str(&s) {
                Ok(v @ Value::Object(_)) => coerce("object", schema, v, path),
                _ => Err(wrong(&Value::String(s))),
            }
        }
        ("object", Value::Object(map)) => object(schema, map, path),
        ("null", Value::Null) => Ok(Value::Null),
        (_, v) => Err(wrong(&v)),
    }
}

fn range(schema: &Value, v: Value, path: &str) -> Result<Value, String> {
    let x = v.as_f64().unwrap_or(0.0);
    if let Some(min) = schema["minimum"].as_f64()
        && x < min
    {
        return Err(format!("{} must be at least {min}, got {v}", name(path)));
    }
    if let Some(max) = schema["maximum"].as_f64()
        && x > max
    {
        return Err(format!("{} must be at most {max}, got {v}", name(path)));
    }
    Ok(v)
}

fn object(schema: &Value, mut map: Map<String, Value>, path: &str) -> Result<Value, String> {
    let empty = Map::new();
    let props = schema["properties"].as_object().unwrap_or(&empty);
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    // Keys the model spelled differently (`filePath` for `file_path`).
    let keys: Vec<String> = map.keys().cloned().collect();
    for k in keys {
        if !props.contains_key(&k) {
            let nk = crate::catalog::normalize(&k);
            if let Some(real) = props.keys().find(|p| crate::catalog::normalize(p) == nk)
                && !map.contains_key(real)
            {
                let v = map.remove(&k).expect("key present");
                map.insert(real.clone(), v);
            }
        }
    }
    let additional_ok = schema["additionalProperties"] != Value::Bool(false);
    if !additional_ok && let Some(unknown) = map.keys().find(|k| !props.contains_key(*k)) {
        let known: Vec<&str> = props.keys().map(String::as_str).collect();
        return Err(format!(
            "unknown parameter `{}`; this method takes: {}",
            join(unknown),
            if known.is_empty() {
                "no parameters".to_string()
            } else {
                known.join(", ")
            }
        ));
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    for (k, s) in props {
        match map.remove(k) {
            Some(v) => {
                out.insert(k.clone(), check(s, v, &join(k))?);
            }
            None if required.contains(&k.as_str()) => {
                let desc = s["description"]
                    .as_str()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                return Err(format!("missing required parameter `{}`{desc}", join(k)));
            }
            None => {
                if let Some(d) = s.get("default") {
                    out.insert(k.clone(), d.clone());
                }
            }
        }
    }
    out.extend(map);
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "additionalProperties": false, "required": ["path", "count"],
        "properties": {
            "path": {"type": "string", "description": "where"},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": ["number", "null"]},
            "recursive": {"type": "boolean", "default": false},
            "tags": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"]},
            "mode": {"enum": ["fast", "full"], "type": "string"}
        }})
    }

    #[test]
    fn coercions_and_defaults() {
        let v = validate(
            &schema(),
            json!({"path": 5, "count": "5", "ratio": "0.5", "tags": "a",
            "options": "{\"depth\": \"2\"}", "mode": "FULL"}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"path": "5", "count": 5, "ratio": 0.5, "recursive": false, "tags": ["a"],
            "options": {"depth": 2}, "mode": "full"})
        );
        let v = validate(
            &schema(),
            json!({"path": "/", "count": 2.0, "recursive": "TRUE", "tags": "[\"x\",\"y\"]"}),
        )
        .unwrap();
        assert_eq!(v["count"], 2);
        assert_eq!(v["recursive"], true);
        assert_eq!(v["tags"], json!(["x", "y"]));
        // Arguments as a JSON string, and differently spelled keys.
        let v = validate(&schema(), json!("{\"Path\": \"/a\", \"count\": 1}")).unwrap();
        assert_eq!(v["path"], "/a");
    }

    #[test]
    fn precise_errors() {
        let e = validate(&schema(), json!({"path": "/", "count": "five"})).unwrap_err();
        assert_eq!(e, "parameter `count` must be an integer, got \"five\"");
        let e = validate(&schema(), json!({"count": 1})).unwrap_err();
        assert_eq!(e, "missing required parameter `path` (where)");
        let e = validate(&schema(), json!({"path": "/", "count": 1, "colour": "red"})).unwrap_err();
        assert!(
            e.starts_with("unknown parameter `colour`; this method takes: "),
            "{e}"
        );
        let e = validate(&schema(), json!({"path": "/", "count": -1})).unwrap_err();
        assert_eq!(e, "parameter `count` must be at least 0, got -1");
        let e = validate(&schema(), json!({"path": "/", "count": 1, "options": {}})).unwrap_err();
        assert_eq!(e, "missing required parameter `options.depth`");
        let e = validate(
            &schema(),
            json!({"path": "/", "count": 1, "tags": [1, {"a": 1}]}),
        )
        .unwrap_err();
        assert_eq!(e, "parameter `tags[1]` must be a string, got an object");
        let e = validate(&schema(), json!({"path": "/", "count": 1, "mode": "slow"})).unwrap_err();
        assert_eq!(
            e,
            "parameter `mode` must be one of \"fast\", \"full\", got \"slow\""
        );
        let e = validate(
            &schema(),
            json!({"path": "/", "count": 1, "recursive": "maybe"}),
        )
        .unwrap_err();
        assert_eq!(e, "parameter `recursive` must be a boolean, got \"maybe\"");
        let e = validate(&schema(), json!("not json")).unwrap_err();
        assert!(e.contains("must be a JSON object"), "{e}");
    }
}
