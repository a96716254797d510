//! The Plugins & MCP page: the MCP servers of `mcp.json` and the plugins
//! of the plugins folder with what each is doing and its tools, turning
//! them on and off, adding a server; and the servers' prompts for the
//! composer.

use serde_json::json;
use tauri::State;

use crate::dto::{ErrorCode, IpcError, McpOverview, McpPromptView, NewMcpServer};
use crate::error::IpcResult;
use crate::state::AppState;

/// Starts what is not running yet, then says what each does.
async fn overview(state: &AppState) -> McpOverview {
    let engine = state.engine();
    let hub = engine.tools().mcp();
    hub.start().await;
    let problems = hub.problems().into_iter();
    let problems =
        problems.filter(|(from, _)| from == baton_engine::api::mcp::MCP_FILE || from == "plugins");
    McpOverview {
        servers: hub.statuses(),
        problems: problems.map(|(_, why)| why).collect(),
        plugins_dir: engine.tools().plugins_dir().display().to_string(),
        mcp_file: engine
            .paths()
            .config_dir
            .join(baton_engine::api::mcp::MCP_FILE)
            .display()
            .to_string(),
    }
}

fn config_error(e: baton_engine::api::mcp::McpConfigError) -> IpcError {
    let code = match e {
        baton_engine::api::mcp::McpConfigError::Unknown(_) => ErrorCode::NotFound,
        baton_engine::api::mcp::McpConfigError::File { .. }
        | baton_engine::api::mcp::McpConfigError::NotStarted(_) => ErrorCode::Config,
    };
    IpcError::new(code, e.to_string())
}

/// The servers and plugins (each started to list its tools).
#[tauri::command]
#[specta::specta]
pub async fn mcp_servers(state: State<'_, AppState>) -> IpcResult<McpOverview> {
    Ok(overview(&state).await)
}

/// Turns a server or plugin on or off (in its file).
#[tauri::command]
#[specta::specta]
pub async fn set_mcp_server_enabled(
    state: State<'_, AppState>,
    name: String,
    enabled: bool,
) -> IpcResult<McpOverview> {
    let hub = state.engine().tools().mcp();
    hub.set_enabled(&name, enabled)
        .await
        .map_err(config_error)?;
    Ok(overview(&state).await)
}

/// Trusts a server or plugin as it is now (its annotations count until its
/// tools change), or stops trusting it (each tool asks).
#[tauri::command]
#[specta::specta]
pub async fn set_mcp_server_trusted(
    state: State<'_, AppState>,
    name: String,
    trusted: bool,
) -> IpcResult<McpOverview> {
    let hub = state.engine().tools().mcp();
    hub.set_trusted(&name, trusted)
        .await
        .map_err(config_error)?;
    Ok(overview(&state).await)
}

/// Adds a server to `mcp.json` and starts it.
#[tauri::command]
#[specta::specta]
pub async fn add_mcp_server(
    state: State<'_, AppState>,
    name: String,
    server: NewMcpServer,
) -> IpcResult<McpOverview> {
    let name = name.trim();
    let def = match server {
        NewMcpServer::Command { command, args } if !command.trim().is_empty() => {
            json!({"command": command.trim(), "args": args})
        }
        NewMcpServer::Url { url, bearer } if !url.trim().is_empty() => match bearer {
            Some(b) if !b.trim().is_empty() => {
                json!({"url": url.trim(), "headers": {"Authorization": format!("Bearer {}", b.trim())}})
            }
            _ => json!({"url": url.trim()}),
        },
        _ => {
            return Err(IpcError::invalid(
                "give the server's command or its address",
            ));
        }
    };
    let hub = state.engine().tools().mcp();
    hub.add_server(name, def).await.map_err(config_error)?;
    Ok(overview(&state).await)
}

/// The prompts of the servers and plugins, as `/prompt` lines to fill in.
#[tauri::command]
#[specta::specta]
pub async fn mcp_prompts(state: State<'_, AppState>) -> IpcResult<Vec<McpPromptView>> {
    let prompts = state.engine().tools().prompts().await;
    Ok(prompts
        .into_iter()
        .map(|p| {
            let mut args = p.arguments;
            args.sort_by_key(|a| !a.required);
            let fill: Vec<String> = args.iter().map(|a| format!("{}=", a.name)).collect();
            McpPromptView {
                command: format!("/prompt {}:{} {}", p.server, p.name, fill.join(" "))
                    .trim_end()
                    .to_string(),
                server: p.server,
                name: p.name,
                description: p.description,
                arguments: args.into_iter().map(|a| a.name).collect(),
            }
        })
        .collect())
}
