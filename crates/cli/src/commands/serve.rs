//! `baton serve`: the OpenAI-compatible HTTP API until Ctrl-C, and
//! `baton serve keys …` for its API keys.

use std::net::SocketAddr;
use std::process::ExitCode;

use baton_engine::api::keys::{Door, KeyStore};

use crate::args::{KeysCommand, ServeArgs, ServeCommand};
use crate::context::Context;

pub async fn run(ctx: &Context, args: ServeArgs) -> anyhow::Result<ExitCode> {
    if let Some(ServeCommand::Keys(k)) = args.keys {
        return keys(ctx, k, Door::Serve);
    }
    let saved = &ctx.settings().server;
    let host = match args.host {
        Some(h) => h,
        None => saved.host.parse().map_err(|_| {
            anyhow::anyhow!(
                "the `server.host` setting `{}` is not an IP address such as 127.0.0.1",
                saved.host
            )
        })?,
    };
    let addr = SocketAddr::new(host, args.port.unwrap_or(saved.port));
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("stopping: finishing the answers in flight");
    };
    let options = baton_server::ServeOptions {
        limits: baton_server::Limits {
            max_concurrent: args.max_concurrent,
            per_minute: args.per_minute,
            max_file_bytes: args.max_file_mb << 20,
            file_quota_bytes: args.file_quota_mb << 20,
            file_days: args.file_days,
        },
        sessions: baton_server::SessionKind::parse(
            args.sessions.as_deref().unwrap_or(&saved.sessions),
            args.session_ttl_days.unwrap_or(saved.session_ttl_days),
        )
        .map_err(anyhow::Error::msg)?,
        skip_indexing: args.skip_indexing_on_startup,
        no_auth: args.no_auth,
        host_names: [saved.host_names.clone(), args.host_names].concat(),
    };
    // Plugins and MCP servers start in the background, so the first
    // request with tools does not wait for them.
    let engine = std::sync::Arc::clone(ctx);
    tokio::spawn(async move { engine.tools().start_mcp().await });
    baton_server::serve(
        std::sync::Arc::clone(ctx),
        addr,
        options,
        |bound, with_keys| {
            // The first line is the address, for scripts that picked port 0.
            println!("http://{bound}");
            let who = if with_keys {
                "API key required"
            } else {
                "--no-auth: every program on this computer may use it without a key"
            };
            eprintln!(
                "Baton serves its agents as an OpenAI-compatible API at http://{bound}/v1 ({who}; Ctrl-C stops)"
            );
        },
        shutdown,
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}

/// `baton serve keys …` and `baton mcp keys …`: the keys of one door.
pub fn keys(ctx: &Context, command: KeysCommand, door: Door) -> anyhow::Result<ExitCode> {
    let store = KeyStore::new(&ctx.paths().data_dir);
    match command {
        KeysCommand::Add { name } => {
            let key = store.add(&name, door)?;
            println!("{key}");
            let server = match door {
                Door::Serve => "`baton serve`",
                Door::Mcp => "`baton mcp --http`",
            };
            eprintln!(
                "Key `{name}` made for {server} only. It is shown only now: give it to the client as `Authorization: Bearer KEY`. A running server accepts it from its next request."
            );
        }
        KeysCommand::List => {
            for k in store.list_for(door)? {
                let shared = if k.shares_sessions {
                    "\tshares sessions"
                } else {
                    ""
                };
                println!("{}\t{}…\t{}{shared}", k.name, k.prefix, k.created);
            }
        }
        KeysCommand::Share { name, off } => {
            if door != Door::Serve {
                anyhow::bail!(
                    "only `baton serve` keeps conversations: use `baton serve keys share {name}`"
                );
            }
            store.share_sessions(&name, door, !off)?;
            if off {
                eprintln!(
                    "Key `{name}`: its new conversations are kept apart from the desktop's again."
                );
            } else {
                eprintln!(
                    "Key `{name}`: its conversations are now kept with the desktop's and appear in its history (the key's holder still cannot list, load or delete the others)."
                );
            }
        }
        KeysCommand::Revoke { name } => {
            store.revoke(&name, door)?;
            eprintln!("Key `{name}` revoked (a running server refuses it from its next request).");
        }
    }
    Ok(ExitCode::SUCCESS)
}
