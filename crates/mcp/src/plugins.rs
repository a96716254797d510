//! Plugins: `Tools/<Plugin>/plugin.json` in the plugins folder, each an MCP
//! server over stdio (`name`, `description`, `command`, `args`, `env`,
//! `enabled`, and the `includeTools`/`excludeTools` of `mcp.json`), found
//! at start-up and picked up, changed or dropped by [`watch`] while Baton
//! runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};
use serde::Deserialize;

use crate::config::{ServerDef, Source};

/// A plugin's description file, in its folder.
pub const PLUGIN_FILE: &str = "plugin.json";

/// `plugin.json`: a stdio MCP server.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PluginFile {
    /// The name its tools are listed under (default: the folder's name).
    name: Option<String>,
    description: Option<String>,
    /// The program; a relative path with a `/` is taken from the
    /// plugin's folder (`./server.py`), a bare name from the `PATH`.
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    enabled: Option<bool>,
    include_tools: Option<Vec<String>>,
    #[serde(default)]
    exclude_tools: Vec<String>,
}

/// The plugins of `dir` by name, and the folders that could not be used
/// (with why, in words). A missing folder has no plugins.
pub fn scan(dir: &Path) -> (BTreeMap<String, ServerDef>, Vec<String>) {
    let mut plugins = BTreeMap::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (plugins, problems);
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(PLUGIN_FILE).is_file())
        .collect();
    folders.sort();
    for folder in folders {
        match read(&folder) {
            Ok((name, _)) if plugins.contains_key(&name) => problems.push(format!(
                "the plugin in {} is left out: another plugin is named `{name}`",
                folder.display()
            )),
            Ok((name, def)) => {
                plugins.insert(name, def);
            }
            Err(why) => problems.push(why),
        }
    }
    (plugins, problems)
}

/// One plugin's name and server.
fn read(folder: &Path) -> Result<(String, ServerDef), String> {
    let path = folder.join(PLUGIN_FILE);
    let bad = |why: String| format!("{} cannot be used: {why}", path.display());
    let text = std::fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
    let file: PluginFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = file.name.unwrap_or(folder_name);
    if name.trim().is_empty() || file.command.trim().is_empty() {
        return Err(bad("`name` and `command` must not be empty".into()));
    }
    let command = if file.command.contains('/') && Path::new(&file.command).is_relative() {
        folder.join(&file.command).to_string_lossy().into_owned()
    } else {
        file.command
    };
    let def = ServerDef {
        command: Some(command),
        args: file.args,
        env: file.env,
        include_tools: file.include_tools,
        exclude_tools: file.exclude_tools,
        enabled: file.enabled,
        description: file.description,
        source: Source::Plugin {
            dir: folder.to_path_buf(),
        },
        ..ServerDef::default()
    };
    Ok((name, def))
}

/// Watches the plugins folder `dir` (made when missing) and `mcp.json` in
/// `config_dir`; `on_change` runs once things have been quiet for
/// `debounce` after a change. Dropping the watcher stops it.
pub fn watch(
    dir: &Path,
    config_dir: &Path,
    debounce: Duration,
    on_change: impl Fn() + Send + 'static,
) -> Result<Debouncer<RecommendedWatcher>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let mcp_json = config_dir.join(crate::MCP_FILE);
    let plugins = dir.to_path_buf();
    let mut debouncer = new_debouncer(debounce, move |res: DebounceEventResult| {
        let relevant = match res {
            Ok(events) => events
                .iter()
                .any(|e| e.path.starts_with(&plugins) || e.path == mcp_json),
            Err(_) => true,
        };
        if relevant {
            on_change();
        }
    })
    .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    let watcher = debouncer.watcher();
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
    if config_dir.is_dir() {
        watcher
            .watch(config_dir, RecursiveMode::NonRecursive)
            .map_err(|e| format!("cannot watch {}: {e}", config_dir.display()))?;
    }
    Ok(debouncer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_folders_are_read_and_bad_ones_explained() {
        let dir = tempfile::tempdir().unwrap();
        let add = |folder: &str, json: &str| {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::write(dir.path().join(folder).join(PLUGIN_FILE), json).unwrap();
        };
        add(
            "Weather",
            r#"{"description": "Forecasts", "command": "./server.py", "args": ["--fast"], "env": {"K": "v"}}"#,
        );
        add("AClock", r#"{"name": "clock", "command": "python3"}"#);
        add("Broken", r#"{"command": "#);
        add("Clash", r#"{"name": "clock", "command": "x"}"#);
        std::fs::create_dir_all(dir.path().join("NoFile")).unwrap();
        let (plugins, problems) = scan(dir.path());
        assert_eq!(plugins.keys().collect::<Vec<_>>(), ["Weather", "clock"]);
        let weather = &plugins["Weather"];
        let program = dir.path().join("Weather").join("./server.py");
        assert_eq!(weather.command.as_deref(), program.to_str());
        assert_eq!(weather.description.as_deref(), Some("Forecasts"));
        assert_eq!(
            weather.source,
            Source::Plugin {
                dir: dir.path().join("Weather")
            }
        );
        assert_eq!(plugins["clock"].command.as_deref(), Some("python3"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("Broken") && problems[0].contains("cannot be used"));
        assert!(problems[1].contains("another plugin is named `clock`"));
        assert!(scan(&dir.path().join("missing")).0.is_empty());
    }
}
