//! `baton serve`: the OpenAI-compatible HTTP API until Ctrl-C.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::args::ServeArgs;
use crate::context::Context;

pub async fn run(ctx: &Context, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let addr = SocketAddr::new(args.host, args.port);
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("stopping: finishing the answers in flight");
    };
    baton_server::serve(
        std::sync::Arc::clone(ctx),
        addr,
        |bound| {
            // The first line is the address, for scripts that picked port 0.
            println!("http://{bound}");
            eprintln!(
                "Baton serves its agents as an OpenAI-compatible API at http://{bound}/v1 (this computer only; Ctrl-C stops)"
            );
        },
        shutdown,
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}
