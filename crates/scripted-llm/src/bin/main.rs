//! `baton-scripted-llm`: runs the scripted server from the command line
//! (echo mode, or a JSON script of steps) for manual tries and benchmarks.

use anyhow::Context;
use baton_scripted_llm::{ScriptedServer, Step};
use clap::Parser;

/// Serve the scripted LLM server on loopback.
#[derive(Parser)]
struct Args {
    /// Port (0 = any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// JSON file holding an array of steps (see the crate docs).
    #[arg(long)]
    script: Option<std::path::PathBuf>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let server = ScriptedServer::start_on(args.port).await?;
    if let Some(path) = &args.script {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let steps: Vec<Step> =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        for s in steps {
            server.push(s);
        }
    }
    println!("listening on {}", server.url());
    tokio::signal::ctrl_c().await?;
    Ok(())
}
