//! `baton`: the headless front door to Baton's engine.

// `println!` and `print!` for the whole crate (defined before its modules,
// so they see these instead of std's): a closed pipe ends the program
// quietly (`baton search --json … | head`), as command-line tools do,
// where std's would panic with a backtrace.
macro_rules! println {
    () => {
        $crate::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::write_out(format_args!($($arg)*))
    };
}

mod args;
mod commands;
mod context;
mod engine;

use std::process::ExitCode;

/// Writes `args` to standard output: a reader that went away (a closed
/// pipe) ends the program quietly with success; any other failure to
/// write is a bug-level surprise and panics as std's `print!` does.
fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => panic!("failed printing to stdout: {e}"),
    }
}

fn main() -> ExitCode {
    let args = parse_args();
    // Kept to the end: dropping it sends the last traces.
    let _telemetry = init_tracing(args.global.verbose);
    // One thread is plenty for a CLI front door and starts fastest; the
    // HTTP server answers many clients at once, on every core.
    let mut builder = match args.command {
        args::Command::Serve(_) | args::Command::Mcp(_) => {
            tokio::runtime::Builder::new_multi_thread()
        }
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(commands::run(args));
    // A tool abandoned by Ctrl-C may still be blocking a thread: exit
    // without waiting for it.
    runtime.shutdown_background();
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The command line, with `BATON_WORKSPACE` and `BATON_PROVIDERS` meaning
/// what they mean to every front door ([`baton_engine::Overrides::from_env`]):
/// a variable that is set but empty counts as unset, rather than as a
/// missing `--workspace`/`--providers` value.
fn parse_args() -> args::Cli {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = args::Cli::command();
    for (id, var) in [
        ("workspace", baton_engine::ENV_WORKSPACE),
        ("providers", baton_engine::ENV_PROVIDERS),
    ] {
        if std::env::var_os(var).is_some_and(|v| v.is_empty()) {
            cmd = cmd.mut_arg(id, |a| a.env(None::<&'static str>));
        }
    }
    args::Cli::from_arg_matches(&cmd.get_matches()).unwrap_or_else(|e| e.exit())
}

/// The log filter when `BATON_LOG` is not set: Baton's own warnings only by
/// default, so libraries' log lines (a PDF parser's complaints about a
/// damaged file, say) stay out of the terminal; `-v` shows everyone's
/// info lines and `-vv` their debug lines.
fn default_filter(verbose: u8) -> &'static str {
    match verbose {
        0 => "off,baton=warn",
        1 => "info",
        _ => "debug",
    }
}

/// Logs go to stderr, filtered by `BATON_LOG` when it is set (`EnvFilter`
/// syntax), else by [`default_filter`]. Libraries that log through the `log`
/// crate (pdf_oxide) are bridged into the same filter.
fn init_tracing(verbose: u8) -> Option<baton_telemetry::Telemetry> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{EnvFilter, Layer};
    let filter = EnvFilter::try_from_env("BATON_LOG")
        .unwrap_or_else(|_| EnvFilter::new(default_filter(verbose)));
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_filter(filter);
    // Spans also go to an OpenTelemetry collector when one is named.
    let (exported, why) = match baton_telemetry::export_layer("baton") {
        Ok(layer) => (layer, None),
        Err(e) => (None, Some(e)),
    };
    let (traces, guard) = exported.unzip();
    tracing_subscriber::registry()
        .with(logs)
        .with(traces)
        .init();
    if let Some(why) = why {
        tracing::warn!("{why}");
    }
    guard
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::EnvFilter;

    /// Every crate of Baton's (the `baton` binary, `baton_engine::api::convert`, …)
    /// shares the `baton` target prefix the quiet filter lets through.
    #[test]
    fn quiet_filter_keeps_batons_warnings_only() {
        let quiet = super::default_filter(0);
        assert!(EnvFilter::try_new(quiet).is_ok());
        assert_eq!(
            EnvFilter::new(quiet).max_level_hint(),
            Some(tracing_subscriber::filter::LevelFilter::WARN)
        );
        assert!(module_path!().starts_with("baton"));
        assert_eq!(super::default_filter(1), "info");
        assert_eq!(super::default_filter(2), "debug");
    }

    /// The command line still parses with the environment tweaks.
    #[test]
    fn parses_a_command_line() {
        use clap::{CommandFactory, FromArgMatches};
        let cmd = crate::args::Cli::command()
            .mut_arg("workspace", |a| a.env(None::<&'static str>))
            .mut_arg("providers", |a| a.env(None::<&'static str>));
        let m = cmd
            .try_get_matches_from(["baton", "--workspace", "/docs", "providers"])
            .unwrap();
        let cli = crate::args::Cli::from_arg_matches(&m).unwrap();
        assert_eq!(
            cli.global.workspace.as_deref(),
            Some(std::path::Path::new("/docs"))
        );
        assert_eq!(cli.global.providers, None);
    }
}
