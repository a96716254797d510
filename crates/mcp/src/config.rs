//! `mcp.json` in the config folder: the MCP servers Baton uses, in the
//! `{"mcpServers": {NAME: {command, args, env} | {url, headers}}}` shape
//! other MCP clients use (so users paste what they have), plus Baton's
//! `includeTools`, `excludeTools` and `enabled`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file's name in the config folder.
pub const MCP_FILE: &str = "mcp.json";

/// One server as `mcp.json` lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServerDef {
    /// The program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its environment, added to Baton's.
    pub env: BTreeMap<String, String>,
    /// The address of a streamable HTTP server.
    pub url: Option<String>,
    /// HTTP headers (`Authorization: Bearer …`) for `url`.
    pub headers: BTreeMap<String, String>,
    /// Only these tools (all when absent).
    pub include_tools: Option<Vec<String>>,
    /// Never these tools.
    pub exclude_tools: Vec<String>,
    /// `false` leaves the server out.
    pub enabled: Option<bool>,
    /// What it is for (a plugin's `description`).
    pub description: Option<String>,
    /// Where it was found (not part of `mcp.json`).
    #[serde(skip)]
    pub source: Source,
}

/// Where a server was found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Source {
    /// `mcp.json` in the config folder.
    #[default]
    McpJson,
    /// A plugin: `plugin.json` in this folder of the plugins folder, which
    /// is also its working directory.
    Plugin {
        /// The plugin's folder.
        dir: PathBuf,
    },
}

impl ServerDef {
    /// Whether the server is used.
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// The command line, or the URL (without user name and password), as
    /// a person reads it.
    pub fn target(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => std::iter::once(c.as_str())
                .chain(self.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            // Shown in lists and logs: never a password the URL carries.
            (None, Some(u)) => baton_stdx::without_userinfo(u),
            (None, None) => String::new(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct McpFile {
    #[serde(default)]
    mcp_servers: BTreeMap<String, ServerDef>,
}

/// Why `mcp.json` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// Unreadable or not the expected JSON.
    #[error("{path} cannot be used: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// No server or plugin of that name.
    #[error("there is no MCP server or plugin named `{0}`")]
    Unknown(String),
    /// It could not be started (to see its tools), with why.
    #[error("{0}")]
    NotStarted(String),
}

/// The servers of `config_dir/mcp.json` by name (none when it does not
/// exist); a server needs a `command` or a `url`, not both.
pub fn load(config_dir: &Path) -> Result<BTreeMap<String, ServerDef>, McpConfigError> {
    let path = config_dir.join(MCP_FILE);
    let bad = |reason: String| McpConfigError::File {
        path: path.clone(),
        reason,
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(bad(e.to_string())),
    };
    let file: McpFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    for (name, s) in &file.mcp_servers {
        if s.command.is_some() == s.url.is_some() {
            return Err(bad(format!(
                "server `{name}` needs either a `command` (stdio) or a `url` (streamable HTTP)"
            )));
        }
    }
    Ok(file.mcp_servers)
}

/// Looks a secret up in the OS keychain by name.
pub type SecretLookup =
    std::sync::Arc<dyn Fn(&str) -> Result<Option<String>, String> + Send + Sync>;

/// `def` with each `${keychain:NAME}` in its header and environment values
/// replaced by that secret: the environment variable `NAME_API_KEY`, else
/// the keychain's (`baton secret set NAME`). A server of `mcp.json` (the
/// user's own file) may name any secret; a plugin, dropped in a folder,
/// only its own: `plugin:PLUGIN:…` (`baton secret set plugin:weather:token`
/// for the plugin in `Tools/weather`), so a plugin cannot take the user's
/// provider keys or mail password.
pub fn expand_secrets(def: &ServerDef, lookup: Option<&SecretLookup>) -> Result<ServerDef, String> {
    let own = match &def.source {
        Source::McpJson => None,
        Source::Plugin { dir } => Some(format!(
            "plugin:{}:",
            dir.file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default()
        )),
    };
    let allowed = |name: &str| -> Result<(), String> {
        match &own {
            Some(prefix) if !name.to_lowercase().starts_with(prefix.as_str()) => Err(format!(
                "a plugin may use only its own secrets, named `{prefix}…`, not `{name}` (set one with `baton secret set {prefix}NAME`)"
            )),
            _ => Ok(()),
        }
    };
    let mut out = def.clone();
    for value in out.headers.values_mut().chain(out.env.values_mut()) {
        *value = fill_secrets(value, lookup, &allowed)?;
    }
    Ok(out)
}

/// What opens a secret's name in a value; a `}` closes it.
const SECRET_OPEN: &str = "${keychain:";

/// `value` with each secret named in it filled in, in one pass: a secret
/// that itself holds `${keychain:…}` is taken as it is, never expanded.
fn fill_secrets(
    value: &str,
    lookup: Option<&SecretLookup>,
    allowed: &dyn Fn(&str) -> Result<(), String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find(SECRET_OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + SECRET_OPEN.len()..];
        let Some(len) = after.find('}') else {
            return Err(format!("`{value}` names a secret without closing it"));
        };
        let name = &after[..len];
        allowed(name)?;
        out.push_str(&read_secret(name, lookup)?);
        rest = &after[len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The secret `name`, or why it cannot be had.
fn read_secret(name: &str, lookup: Option<&SecretLookup>) -> Result<String, String> {
    let needs = format!("needs the secret `{name}`");
    let found = match lookup {
        Some(get) => get(name).map_err(|e| format!("{needs}, which cannot be read: {e}"))?,
        None => None,
    };
    found.ok_or_else(|| format!("{needs}: set it with `baton secret set {name}`"))
}

/// Why `mcp.json` or a `plugin.json` could not be changed.
fn edit_error(path: &Path, reason: impl std::fmt::Display) -> McpConfigError {
    McpConfigError::File {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// Changes the JSON object in `path` (`{}` when missing) with `change`,
/// keeping what Baton does not know, and writes it atomically after a
/// backup.
pub fn edit_json(
    path: &Path,
    change: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>) -> Result<(), String>,
) -> Result<(), McpConfigError> {
    let mut doc = match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| edit_error(path, e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(edit_error(path, e)),
    };
    let obj = doc
        .as_object_mut()
        .ok_or_else(|| edit_error(path, "it is not a JSON object"))?;
    change(obj).map_err(|e| edit_error(path, e))?;
    let text = serde_json::to_string_pretty(&doc).map_err(|e| edit_error(path, e))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| edit_error(path, e))?;
    }
    baton_stdx::replace_with_backup(path, text.as_bytes()).map_err(|e| edit_error(path, e))?;
    Ok(())
}

/// Adds the server `name` to `config_dir/mcp.json` (refused when one of
/// that name is there, or when `def` is not a server).
pub fn add_server(
    config_dir: &Path,
    name: &str,
    def: serde_json::Value,
) -> Result<(), McpConfigError> {
    let path = config_dir.join(MCP_FILE);
    let parsed: ServerDef =
        serde_json::from_value(def.clone()).map_err(|e| edit_error(&path, e))?;
    if parsed.command.is_some() == parsed.url.is_some() || name.trim().is_empty() {
        return Err(edit_error(
            &path,
            "a server needs a name and either a `command` (stdio) or a `url` (streamable HTTP)",
        ));
    }
    edit_json(&path, |doc| {
        let servers = doc
            .entry("mcpServers")
            .or_insert_with(|| serde_json::json!({}))
            .as_object_mut()
            .ok_or("`mcpServers` is not an object")?;
        if servers.contains_key(name) {
            return Err(format!("there is already a server named `{name}`"));
        }
        servers.insert(name.to_string(), def);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup() -> SecretLookup {
        std::sync::Arc::new(|name: &str| {
            Ok(match name {
                "openai" => Some("sk-user-key".to_string()),
                "nested" => Some("${keychain:openai}".to_string()),
                "plugin:weather:token" => Some("wx-token".to_string()),
                _ => None,
            })
        })
    }

    fn with_env(source: Source, value: &str) -> ServerDef {
        ServerDef {
            command: Some("x".into()),
            env: [("TOKEN".to_string(), value.to_string())].into(),
            source,
            ..ServerDef::default()
        }
    }

    #[test]
    fn secrets_are_filled_once_and_a_plugin_gets_only_its_own() {
        let get = lookup();
        let expand = |source: Source, value: &str| {
            expand_secrets(&with_env(source, value), Some(&get)).map(|d| d.env["TOKEN"].clone())
        };
        assert_eq!(
            expand(Source::McpJson, "Bearer ${keychain:openai}!").unwrap(),
            "Bearer sk-user-key!"
        );
        // A secret holding a reference is not expanded again.
        assert_eq!(
            expand(Source::McpJson, "${keychain:nested}").unwrap(),
            "${keychain:openai}"
        );
        let plugin = || Source::Plugin {
            dir: PathBuf::from("/data/Tools/Weather"),
        };
        assert_eq!(
            expand(plugin(), "${keychain:plugin:weather:token}").unwrap(),
            "wx-token"
        );
        let e = expand(plugin(), "${keychain:openai}").unwrap_err();
        assert!(
            e.contains("only its own secrets") && e.contains("plugin:weather:"),
            "{e}"
        );
        let e = expand(plugin(), "${keychain:plugin:other:token}").unwrap_err();
        assert!(e.contains("only its own secrets"), "{e}");
        let remote = ServerDef {
            url: Some("https://bot:hunter2@mcp.example/mcp".into()),
            ..ServerDef::default()
        };
        assert_eq!(remote.target(), "https://mcp.example/mcp");
        let e = expand(Source::McpJson, "${keychain:openai").unwrap_err();
        assert!(e.contains("without closing it"), "{e}");
    }

    #[test]
    fn the_shape_other_clients_use_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).unwrap().is_empty(), "no file: no servers");
        std::fs::write(
            dir.path().join(MCP_FILE),
            r#"{"mcpServers": {
                "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "excludeTools": ["longRunningOperation"]},
                "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}, "enabled": false}
            }}"#,
        )
        .unwrap();
        let servers = load(dir.path()).unwrap();
        assert_eq!(servers["everything"].command.as_deref(), Some("npx"));
        assert_eq!(
            servers["everything"].exclude_tools,
            ["longRunningOperation"]
        );
        assert!(servers["everything"].is_enabled() && !servers["remote"].is_enabled());
        std::fs::write(dir.path().join(MCP_FILE), r#"{"mcpServers": {"x": {}}}"#).unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("needs either a `command`"), "{e}");
        std::fs::write(dir.path().join(MCP_FILE), "{not json").unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("mcp.json cannot be used"), "{e}");
    }
}
