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
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
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

    /// The command line, or the URL, as a person reads it.
    pub fn target(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => std::iter::once(c.as_str())
                .chain(self.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            (None, Some(u)) => u.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;

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
