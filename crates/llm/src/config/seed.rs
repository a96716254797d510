//! The original (.NET) system's `providers.json` key names, read as
//! Baton's: a pass over one entry's JSON object before serde sees it.
//! Each alias read (or ignored) leaves a one-line notice.

use serde_json::{Map, Value};

/// The original system's key and Baton's key for the same field.
const ALIASES: [(&str, &str); 6] = [
    ("CacheType", "cacheType"),
    ("ReasoningEffort", "reasoningEffort"),
    ("AgentInteractionMode", "interactionMode"),
    ("ModelName", "model"),
    ("Type", "dialect"),
    ("Endpoint", "endpoint"),
];

/// Rewrites the original system's keys in `entry` (labelled `label` in
/// messages, e.g. "entry `x`") into Baton's, pushing one notice per key
/// onto `notices`. API keys are dropped with a notice: Baton never reads
/// them from a file. `Err` for a value that names no provider (`"Type":
/// "None"`).
pub(super) fn normalize_entry(
    label: &str,
    entry: &mut Value,
    notices: &mut Vec<String>,
) -> Result<(), String> {
    let Value::Object(obj) = entry else {
        return Ok(());
    };
    drop_api_keys(label, obj, notices);
    for (seed, baton) in ALIASES {
        let Some(value) = obj.remove(seed) else {
            continue;
        };
        if obj.contains_key(baton) {
            notices.push(format!(
                "{label}: `{seed}` is the original system's name for `{baton}`; both are set, so `{baton}` wins and `{seed}` is ignored"
            ));
            continue;
        }
        let value =
            seed_value(baton, value).map_err(|e| format!("{label}, field `{seed}`: {e}"))?;
        obj.insert(baton.to_string(), value);
        notices.push(format!(
            "{label}: `{seed}` is the original system's name for `{baton}`; read as `{baton}`"
        ));
    }
    Ok(())
}

/// Removes `ApiKey` / `apiKey` (any casing) with a notice saying where
/// keys live instead.
fn drop_api_keys(label: &str, obj: &mut Map<String, Value>, notices: &mut Vec<String>) {
    let keys: Vec<String> = obj
        .keys()
        .filter(|k| k.eq_ignore_ascii_case("apikey"))
        .cloned()
        .collect();
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("NAME")
        .to_string();
    for k in keys {
        obj.remove(&k);
        notices.push(format!(
            "{label}: `{k}` is ignored — Baton never reads API keys from providers.json; keys live in \
             the keychain (`baton secret set {name}`) or in the entry's `apiKeyEnv` variable; remove \
             the key from this file"
        ));
    }
}

/// The seed's spelling of a value, in Baton's (case-insensitive).
fn seed_value(baton_key: &str, value: Value) -> Result<Value, String> {
    let Value::String(s) = &value else {
        return Ok(value);
    };
    let lower = s.trim().to_ascii_lowercase();
    let mapped = match (baton_key, lower.as_str()) {
        ("dialect", "azureopenai" | "azureaifoundry" | "azure") => "azure",
        ("dialect", "none") => {
            return Err(
                "`None` names no provider; set `dialect` to openai, anthropic, ollama, gemini, \
                 azure or local, or remove the entry"
                    .into(),
            );
        }
        ("dialect", other) => return Ok(Value::String(other.to_string())),
        ("cacheType", "nocachesupported") => "noCacheSupported",
        ("cacheType", "prefixcache") => "PrefixCache",
        ("cacheType", "anthropiccache") => "AnthropicCache",
        ("interactionMode", "api") => "API",
        ("interactionMode", "cli") => "CLI",
        // The seed's enum names (`Low`, `Medium`, `High`): the wire's words.
        ("reasoningEffort", "minimal" | "low" | "medium" | "high") => lower.as_str(),
        _ => return Ok(value),
    };
    Ok(Value::String(mapped.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(mut v: Value) -> (Result<(), String>, Value, Vec<String>) {
        let mut notices = Vec::new();
        let r = normalize_entry("entry `x`", &mut v, &mut notices);
        (r, v, notices)
    }

    #[test]
    fn seed_keys_and_values_are_read_as_batons() {
        let (r, v, notices) = run(json!({"name": "x", "Type": "AzureAIFoundry",
            "ModelName": "gpt-4o", "AgentInteractionMode": "Cli", "CacheType": "NOCACHESUPPORTED",
            "ReasoningEffort": "High"}));
        r.unwrap();
        assert_eq!(
            v,
            json!({"name": "x", "dialect": "azure", "model": "gpt-4o",
                           "interactionMode": "CLI", "cacheType": "noCacheSupported",
                           "reasoningEffort": "high"})
        );
        assert_eq!(notices.len(), 5, "{notices:?}");
        assert!(notices.contains(&"entry `x`: `ModelName` is the original system's name for `model`; read as `model`".to_string()), "{notices:?}");
    }

    #[test]
    fn seed_dialect_values() {
        for (seed, baton) in [
            ("AzureOpenAI", "azure"),
            ("azureopenai", "azure"),
            ("Ollama", "ollama"),
            ("OpenAI", "openai"),
        ] {
            let (r, v, _) = run(json!({"Type": seed}));
            r.unwrap();
            assert_eq!(v["dialect"], baton, "{seed}");
        }
        let (r, _, _) = run(json!({"Type": "None"}));
        let e = r.unwrap_err();
        assert!(
            e.contains("entry `x`") && e.contains("`Type`") && e.contains("None"),
            "{e}"
        );
    }

    #[test]
    fn batons_key_wins_over_the_alias() {
        let (r, v, notices) = run(json!({"model": "mine", "ModelName": "theirs"}));
        r.unwrap();
        assert_eq!(v, json!({"model": "mine"}));
        assert!(
            notices[0].contains("`model` wins") && notices[0].contains("ModelName"),
            "{notices:?}"
        );
    }

    #[test]
    fn api_keys_are_dropped_with_a_notice() {
        let (r, v, notices) = run(json!({"name": "x", "ApiKey": "sk-1", "apiKey": "sk-2"}));
        r.unwrap();
        assert_eq!(v, json!({"name": "x"}));
        assert_eq!(notices.len(), 2);
        assert!(
            notices
                .iter()
                .all(|n| n.contains("keychain") && n.contains("apiKeyEnv") && !n.contains("sk-")),
            "{notices:?}"
        );
    }
}
