//! `baton mcp`: Baton's built-in toolboxes served to other agents over MCP
//! (stdio, or streamable HTTP with `--http`), and `baton mcp servers|add|
//! enable|disable` for the MCP servers and plugins Baton itself uses.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use baton_engine::api::keys::{Door, LiveKeys};
use serde_json::{Value, json};

use crate::args::{McpArgs, McpCommand};
use crate::context::Context;

pub async fn run(ctx: &Context, args: McpArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        Some(McpCommand::Keys(k)) => super::serve::keys(ctx, k, Door::Mcp),
        Some(McpCommand::Servers { json }) => servers(ctx, json).await,
        Some(McpCommand::Add {
            name,
            url,
            headers,
            command,
        }) => add(ctx, &name, url, &headers, &command).await,
        Some(McpCommand::Trust { name, off }) => trust(ctx, &name, !off).await,
        Some(McpCommand::Enable { name }) => enable(ctx, &name, true).await,
        Some(McpCommand::Disable { name }) => enable(ctx, &name, false).await,
        None => match args.http {
            Some(port) => {
                let addr = SocketAddr::new(args.host, port);
                let names = [ctx.settings().server.host_names.clone(), args.host_names].concat();
                serve_http(ctx, addr, args.allow_acting, args.no_auth, names).await
            }
            None => serve_stdio(ctx).await,
        },
    }
}

/// One fresh catalog of the built-in toolboxes (no MCP servers: Baton
/// does not pass other servers' tools on).
fn factory(ctx: &Context) -> anyhow::Result<baton_engine::api::mcp::server::CatalogFactory> {
    // Other agents get the workspace's tools, neither the user's memory nor
    // their scheduled tasks.
    let kit = ctx.tools().kit(ctx.tools().refreshed_index())?.for_others();
    kit.builtin_catalog()?; // says now, not per session, when it cannot be made
    Ok(Arc::new(move || kit.builtin_catalog().unwrap_or_default()))
}

async fn serve_stdio(ctx: &Context) -> anyhow::Result<ExitCode> {
    let catalog = factory(ctx)?();
    baton_engine::api::mcp::server::serve_stdio(catalog).await?;
    Ok(ExitCode::SUCCESS)
}

async fn serve_http(
    ctx: &Context,
    addr: SocketAddr,
    allow_acting: bool,
    no_auth: bool,
    host_names: Vec<String>,
) -> anyhow::Result<ExitCode> {
    let keys = key_check(ctx, addr, no_auth)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    // The first line is the address, for scripts that picked port 0.
    println!("http://{bound}/mcp");
    let who = if keys.is_some() {
        "API key required"
    } else {
        "--no-auth: every program on this computer may use it without a key"
    };
    let acting = if allow_acting {
        "tools that send data or change accounts run without asking"
    } else {
        "tools that send data or change accounts run only when the user accepts them in the client"
    };
    eprintln!(
        "Baton serves its toolboxes over MCP at http://{bound}/mcp ({who}; {acting}; Ctrl-C stops)"
    );
    let stop = tokio_util::sync::CancellationToken::new();
    let on_ctrl_c = stop.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_ctrl_c.cancel();
    });
    let options = baton_engine::api::mcp::server::HttpOptions {
        keys,
        allow_acting,
        host_names,
    };
    baton_engine::api::mcp::server::serve_http(listener, factory(ctx)?, options, stop).await?;
    Ok(ExitCode::SUCCESS)
}

/// The keys of `baton mcp keys` (re-read when the file changes), needed
/// once any exists; without one the server starts only with `--no-auth`,
/// and then only this computer may connect.
fn key_check(
    ctx: &Context,
    addr: SocketAddr,
    no_auth: bool,
) -> anyhow::Result<Option<baton_engine::api::mcp::server::KeyCheck>> {
    let keys = LiveKeys::open(&ctx.paths().data_dir, Door::Mcp)?;
    if !keys.required() {
        anyhow::ensure!(
            no_auth,
            "no MCP key yet: make one with `baton mcp keys add NAME` (it is printed once; clients send it as `Authorization: Bearer KEY`), or start with `--no-auth` to let every program on this computer use Baton's tools without a key (web pages still cannot)"
        );
        anyhow::ensure!(
            addr.ip().is_loopback(),
            "refusing to listen on {}: without API keys Baton's MCP server answers this computer only (use 127.0.0.1, or make a key with `baton mcp keys add NAME`)",
            addr.ip()
        );
        return Ok(None);
    }
    Ok(Some(Arc::new(move |presented: &str| {
        keys.check(presented).is_some()
    })))
}

/// Starts every server and prints what each is doing.
async fn servers(ctx: &Context, as_json: bool) -> anyhow::Result<ExitCode> {
    let hub = ctx.tools().mcp();
    hub.start().await;
    let statuses = hub.statuses();
    if as_json {
        println!("{}", serde_json::to_string_pretty(&statuses)?);
        return Ok(ExitCode::SUCCESS);
    }
    if statuses.is_empty() {
        eprintln!(
            "No MCP servers or plugins: add servers to {} or plugins to {}",
            ctx.paths()
                .config_dir
                .join(baton_engine::api::mcp::MCP_FILE)
                .display(),
            ctx.tools().plugins_dir().display()
        );
    }
    for s in &statuses {
        let kind = match s.source {
            baton_engine::api::mcp::Source::McpJson => "server",
            baton_engine::api::mcp::Source::Plugin { .. } => "plugin",
        };
        let state = serde_json::to_value(s.state)?;
        let trust = serde_json::to_value(s.trust)?;
        println!(
            "{}\t{kind}\t{}\t{}\t{}",
            s.name,
            state.as_str().unwrap_or(""),
            trust.as_str().unwrap_or(""),
            s.target
        );
        if !s.tools.is_empty() {
            println!("\ttools: {}", s.tools.join(", "));
        }
        if let Some(p) = &s.problem {
            println!("\tproblem: {p}");
        }
    }
    for (source, why) in hub.problems() {
        if source == baton_engine::api::mcp::MCP_FILE || source == "plugins" {
            eprintln!("warning: {why}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn add(
    ctx: &Context,
    name: &str,
    url: Option<String>,
    headers: &[String],
    command: &[String],
) -> anyhow::Result<ExitCode> {
    let def = match (url, command.split_first()) {
        (Some(url), _) => {
            let mut h = serde_json::Map::new();
            for header in headers {
                let (k, v) = header
                    .split_once(':')
                    .ok_or_else(|| anyhow::anyhow!("`{header}` is not `NAME: VALUE`"))?;
                h.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
            }
            json!({"url": url, "headers": h})
        }
        (None, Some((program, args))) => json!({"command": program, "args": args}),
        (None, None) => anyhow::bail!("give `--url URL` or `-- COMMAND ARGS…`"),
    };
    ctx.tools().mcp().add_server(name, def).await?;
    eprintln!(
        "Added `{name}` to {}",
        ctx.paths()
            .config_dir
            .join(baton_engine::api::mcp::MCP_FILE)
            .display()
    );
    Ok(ExitCode::SUCCESS)
}

async fn trust(ctx: &Context, name: &str, on: bool) -> anyhow::Result<ExitCode> {
    ctx.tools().mcp().set_trusted(name, on).await?;
    if on {
        eprintln!(
            "`{name}` trusted as it is now: its read-only tools run without asking; if it changes a tool, each asks again until you trust it again"
        );
    } else {
        eprintln!("`{name}` is not trusted: each of its tools asks before it runs");
    }
    Ok(ExitCode::SUCCESS)
}

async fn enable(ctx: &Context, name: &str, on: bool) -> anyhow::Result<ExitCode> {
    ctx.tools().mcp().set_enabled(name, on).await?;
    eprintln!("`{name}` {}", if on { "enabled" } else { "disabled" });
    Ok(ExitCode::SUCCESS)
}
