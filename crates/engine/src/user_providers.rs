//! The user's own providers file: which entries it defines, and editing
//! an entry's endpoint and model from a settings screen.

use baton_llm::ProvidersFile;
use serde_json::Value;

use crate::{Engine, EngineError};

/// Names of the entries the user's providers file defines (custom
/// entries and overrides of presets).
pub(crate) fn names(engine: &Engine) -> Vec<String> {
    let path = engine.paths.user_providers_file();
    std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| ProvidersFile::parse(&text, &path.display().to_string(), false).ok())
        .map(|f| f.providers.into_iter().map(|p| p.name).collect())
        .unwrap_or_default()
}

/// Sets the endpoint and/or model of an entry in the user's providers
/// file (written atomically, other fields and entries kept). Only
/// entries that file defines can be edited this way.
pub(crate) fn update(
    engine: &Engine,
    name: &str,
    endpoint: Option<&str>,
    model: Option<&str>,
) -> Result<(), EngineError> {
    edit(engine, false, |list| {
        let entry = list
            .iter_mut()
            .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
            .ok_or_else(|| {
                format!("`{name}` is not defined there; only your own entries can be edited")
            })?;
        for (key, value) in [("endpoint", endpoint), ("model", model)] {
            if let Some(v) = value.map(str::trim) {
                if v.is_empty() {
                    return Err(format!("the {key} of `{name}` cannot be empty"));
                }
                entry[key] = Value::String(v.to_string());
            }
        }
        Ok(())
    })
}

/// Adds `entry` to the user's providers file, or replaces the entry of
/// the same name (the file is made when there is none).
pub(crate) fn set(engine: &Engine, entry: Value) -> Result<(), EngineError> {
    let name = entry.get("name").cloned();
    edit(engine, true, move |list| {
        list.retain(|p| p.get("name") != name.as_ref());
        list.push(entry);
        Ok(())
    })
}

/// Removes entry `name` from the user's providers file (nothing to do
/// when it is not there).
pub(crate) fn remove(engine: &Engine, name: &str) -> Result<(), EngineError> {
    if !engine.paths.user_providers_file().exists() {
        return Ok(());
    }
    edit(engine, false, |list| {
        list.retain(|p| p.get("name").and_then(Value::as_str) != Some(name));
        Ok(())
    })
}

/// Reads the user's providers file (an empty one when `create` and it
/// is missing), lets `edit` change its list of entries, checks the
/// result the way it will be read, and writes it atomically.
fn edit(
    engine: &Engine,
    create: bool,
    edit: impl FnOnce(&mut Vec<Value>) -> Result<(), String>,
) -> Result<(), EngineError> {
    let path = engine.paths.user_providers_file();
    let invalid = |reason: String| EngineError::UserProviders {
        path: path.clone(),
        reason,
    };
    // One edit at a time, across threads and processes (the desktop and
    // the CLI may both edit): the lock is held until the write.
    let _lock =
        baton_stdx::lock_beside(&path).map_err(|e| invalid(format!("cannot lock it: {e}")))?;
    let text = match std::fs::read_to_string(&path) {
        Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
            r#"{"providers": []}"#.to_string()
        }
        other => other.map_err(|e| invalid(e.to_string()))?,
    };
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    if doc.get("providers").is_none() {
        doc["providers"] = Value::Array(Vec::new());
    }
    let list = doc["providers"]
        .as_array_mut()
        .ok_or_else(|| invalid("`providers` is not a list".into()))?;
    edit(list).map_err(invalid)?;
    let out = serde_json::to_string_pretty(&doc).map_err(|e| invalid(e.to_string()))?;
    ProvidersFile::parse(&out, &path.display().to_string(), false)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| invalid(e.to_string()))?;
    }
    baton_stdx::atomic_write_private(&path, out.as_bytes()).map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Overrides;
    use baton_config::BatonPaths;

    fn engine_with(user_file: Option<&str>) -> (tempfile::TempDir, Engine) {
        let dir = tempfile::tempdir().unwrap();
        let paths = BatonPaths::under(dir.path());
        if let Some(text) = user_file {
            std::fs::create_dir_all(paths.user_providers_file().parent().unwrap()).unwrap();
            std::fs::write(paths.user_providers_file(), text).unwrap();
        }
        let engine = Engine::load_with(paths, Overrides::default()).unwrap();
        (dir, engine)
    }

    #[test]
    fn concurrent_edits_lose_nothing() {
        let (_dir, engine) = engine_with(None);
        let engine = std::sync::Arc::new(engine);
        let workers: Vec<_> = (0..8)
            .map(|t| {
                let engine = engine.clone();
                std::thread::spawn(move || {
                    for i in 0..10 {
                        let name = format!("m{t}-{i}");
                        let entry = serde_json::json!({"name": name, "dialect": "local", "modelPath": format!("{name}.gguf")});
                        engine.providers().set_user(entry).unwrap();
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(engine.providers().user_names().len(), 80);
    }

    const USER: &str = r#"{"providers": [{"name": "lab", "dialect": "openai", "endpoint": "http://127.0.0.1:9/v1", "model": "m1", "temperature": 0.5}]}"#;

    #[test]
    fn edits_endpoint_and_model_of_a_user_entry_and_keeps_the_rest() {
        let (_dir, engine) = engine_with(Some(USER));
        assert_eq!(engine.providers().user_names(), vec!["lab".to_string()]);
        engine
            .providers()
            .update_user("lab", Some("http://127.0.0.1:8080/v1"), Some("m2"))
            .unwrap();
        let again = engine.reload().unwrap();
        let lab = again.providers().file().get("lab").unwrap();
        assert_eq!(lab.endpoint.as_deref(), Some("http://127.0.0.1:8080/v1"));
        assert_eq!(lab.model.as_deref(), Some("m2"));
        let raw = std::fs::read_to_string(engine.paths().user_providers_file()).unwrap();
        assert!(
            raw.contains("\"temperature\": 0.5"),
            "other fields are kept: {raw}"
        );
    }

    #[test]
    fn presets_and_empty_values_are_refused_with_the_reason() {
        let (_dir, engine) = engine_with(Some(USER));
        let e = engine
            .providers()
            .update_user("deepseek", None, Some("x"))
            .unwrap_err();
        assert!(e.to_string().contains("only your own entries"), "{e}");
        let e = engine
            .providers()
            .update_user("lab", Some("  "), None)
            .unwrap_err();
        assert!(e.to_string().contains("cannot be empty"), "{e}");
        let (_dir2, bare) = engine_with(None);
        assert!(bare.providers().user_names().is_empty());
        assert!(
            bare.providers()
                .update_user("lab", None, Some("m"))
                .is_err()
        );
    }
}
