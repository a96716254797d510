//! Building the engine for a command: the workspace's toolboxes, the
//! agent, the session store, and printing agent events.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::Context as _;
use baton_agent::{Agent, AgentConfig, AgentEvent, EventSink, SessionStore};
use baton_convert::{ConvertOptions, OcrEngine};
use baton_docs::{AttachmentContext, ConversionCache, FileAttachment, FileTool, ProviderOcr};
use baton_index::{IndexError, IndexOptions, WorkspaceIndex};
use baton_llm::{InteractionMode, Provider, ProviderConfig};
use baton_tools::{Catalog, Sandbox};
use sha2::{Digest, Sha256};

use crate::args::ModeArg;
use crate::context::Context;

/// The built-in toolboxes on the workspace (created if it does not exist
/// yet, so a fresh machine works).
pub fn workspace_catalog(ctx: &Context) -> anyhow::Result<Catalog> {
    if !ctx.workspace.exists() {
        std::fs::create_dir_all(&ctx.workspace).with_context(|| {
            format!("creating the workspace folder {}", ctx.workspace.display())
        })?;
        eprintln!(
            "note: created the workspace folder {}",
            ctx.workspace.display()
        );
    }
    let sandbox = Sandbox::new(&ctx.workspace).with_context(|| {
        format!(
            "the workspace {} cannot be used; choose another with --workspace DIR or `baton config set workspace DIR`",
            ctx.workspace.display()
        )
    })?;
    let mut tool = FileTool::new(sandbox)
        .with_cache(conversion_cache(ctx))
        .with_convert_options(convert_options(ctx));
    match open_index(ctx) {
        Ok(index) => {
            if !ctx.settings.skip_indexing_on_startup {
                refresh_in_background(&index);
            }
            tool = tool.with_index(index);
        }
        Err(e) => tracing::warn!(error = %e, "document search is off"),
    }
    Ok(Catalog::new().with(Arc::new(tool))?)
}

/// Conversion options with the OCR engine chosen for this machine: the
/// `ocrProvider` entry, else the first entry marked `"ocr": true` whose key
/// is available, else local Tesseract.
/// Made once per command and shared.
pub fn convert_options(ctx: &Context) -> ConvertOptions {
    ctx.convert
        .get_or_init(|| {
            let mut options = ConvertOptions::default();
            if let Some(engine) = vision_ocr(ctx) {
                options.ocr = Some(engine);
            }
            options
        })
        .clone()
}

fn vision_ocr(ctx: &Context) -> Option<Arc<dyn OcrEngine>> {
    let cfg = match &ctx.settings.ocr_provider {
        Some(name) => match ctx.providers.get(name) {
            Some(cfg) => cfg.clone(),
            None => {
                eprintln!(
                    "warning: the OCR provider `{name}` is not in the providers file; using Tesseract"
                );
                return None;
            }
        },
        None => ctx
            .providers
            .providers
            .iter()
            .find(|p| {
                p.ocr
                    && ctx
                        .secrets
                        .api_key(&p.name, p.api_key_env.as_deref())
                        .is_ok_and(|k| k.is_some())
            })?
            .clone(),
    };
    match crate::commands::open_provider(ctx, &cfg) {
        Ok(provider) => match ProviderOcr::new(provider) {
            Ok(engine) => Some(Arc::new(engine)),
            Err(e) => {
                eprintln!("warning: {e}; using Tesseract");
                None
            }
        },
        Err(e) => {
            eprintln!(
                "warning: OCR through `{}` is unavailable ({e}); using Tesseract",
                cfg.name
            );
            None
        }
    }
}

/// Reads attachment files, failing with the path named.
pub fn read_attachments(paths: &[std::path::PathBuf]) -> anyhow::Result<Vec<FileAttachment>> {
    paths
        .iter()
        .map(|f| {
            FileAttachment::from_path(f)
                .with_context(|| format!("cannot read the attachment {}", f.display()))
        })
        .collect()
}

/// Converts attachments into the budgeted context block, telling the user
/// on stderr (unless `quiet`) what was cut or could not be read.
pub fn attachment_context(
    ctx: &Context,
    files: &[FileAttachment],
    quiet: bool,
) -> AttachmentContext {
    let context = AttachmentContext::build(
        files,
        &conversion_cache(ctx),
        &convert_options(ctx),
        ctx.settings.attachment_context_chars,
    );
    if !quiet {
        for item in &context.items {
            if let Some(e) = &item.error {
                eprintln!("note: {} was not read: {e}", item.name);
            } else if item.included_chars < item.chars {
                eprintln!(
                    "note: {} was cut to {} of {} characters to fit the attachment budget (attachmentContextChars)",
                    item.name, item.included_chars, item.chars
                );
            }
        }
    }
    context
}

/// Conversions cached by content hash in the data folder.
/// One per command, shared by FileTool and attachments.
pub fn conversion_cache(ctx: &Context) -> Arc<ConversionCache> {
    Arc::clone(ctx.conversions.get_or_init(|| {
        Arc::new(ConversionCache::on_disk(
            ctx.paths.data_dir.join("cache").join("conversions"),
        ))
    }))
}

/// The search index of the workspace, kept in the data folder (one per
/// workspace folder).
pub fn open_index(ctx: &Context) -> anyhow::Result<Arc<WorkspaceIndex>> {
    std::fs::create_dir_all(&ctx.workspace)
        .with_context(|| format!("creating the workspace folder {}", ctx.workspace.display()))?;
    let root = ctx
        .workspace
        .canonicalize()
        .unwrap_or_else(|_| ctx.workspace.clone());
    let key = format!("{:x}", Sha256::digest(root.to_string_lossy().as_bytes()));
    let dir = ctx.paths.data_dir.join("index").join(&key[..16]);
    Ok(Arc::new(WorkspaceIndex::open(
        &root,
        &dir,
        IndexOptions::default(),
    )?))
}

/// Brings the index up to date on a background thread, then watches the
/// workspace for the rest of the process; search answers from the index as
/// it is meanwhile. When another Baton process is already indexing, that
/// one keeps the index fresh.
pub fn refresh_in_background(index: &Arc<WorkspaceIndex>) {
    let index = Arc::clone(index);
    let spawned = std::thread::Builder::new()
        .name("baton-index-sync".into())
        .spawn(move || {
            match index.sync(&|_| {}) {
                Ok(stats) => tracing::info!(?stats, "workspace index up to date"),
                Err(IndexError::Busy) => {
                    tracing::info!("another Baton process is indexing the workspace");
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "workspace indexing failed");
                    return;
                }
            }
            match index.watch(std::time::Duration::from_millis(250), |n| {
                tracing::info!(changed = n, "workspace index updated")
            }) {
                // The watcher lives as long as this thread: the whole process.
                Ok(_watcher) => loop {
                    std::thread::park();
                },
                Err(e) => {
                    tracing::warn!(error = %e, "the workspace will not be watched for changes")
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start indexing");
    }
}

/// An agent for `cfg`: tool mode from `--mode`, else the setting, else the
/// entry.
pub fn build_agent(
    ctx: &Context,
    cfg: &ProviderConfig,
    provider: Arc<dyn Provider>,
    mode: Option<ModeArg>,
    tools: bool,
    instructions: Option<String>,
) -> anyhow::Result<Agent> {
    let mut config = AgentConfig::for_provider(cfg);
    if let Some(m) = ctx.settings.interaction_mode {
        config.mode = m;
    }
    if let Some(m) = mode {
        config.mode = match m {
            ModeArg::Api => InteractionMode::Api,
            ModeArg::Cli => InteractionMode::Cli,
        };
    }
    config.instructions = instructions;
    let catalog = if tools {
        workspace_catalog(ctx)?
    } else {
        Catalog::new()
    };
    Ok(Agent::new(provider, catalog, config))
}

/// Where sessions are saved.
pub fn session_store(ctx: &Context) -> SessionStore {
    SessionStore::new(ctx.paths.data_dir.join("sessions"))
}

/// Prints answer text to stdout as it streams and tool activity to stderr
/// (when stderr is a terminal, or always with `verbose`). Ends at `Done`.
pub fn spawn_printer(
    events: &EventSink,
    print_text: bool,
    verbose: bool,
) -> tokio::task::JoinHandle<bool> {
    let mut rx = events.subscribe();
    let show_tools = verbose || std::io::stderr().is_terminal();
    tokio::spawn(async move {
        let mut printed_any = false;
        let mut ends_with_newline = true;
        loop {
            match rx.recv().await {
                Ok(AgentEvent::TextDelta { text }) if print_text => {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                    printed_any = true;
                    ends_with_newline = text.ends_with('\n');
                }
                Ok(AgentEvent::ToolStarted {
                    name, arguments, ..
                }) if show_tools => {
                    eprintln!("  ⚙ {name} {arguments}");
                }
                Ok(AgentEvent::ToolFinished {
                    name,
                    is_error,
                    result,
                    duration_ms,
                    ..
                }) if show_tools => {
                    let short: String = result.to_string().chars().take(160).collect();
                    let mark = if is_error { "✗" } else { "✓" };
                    eprintln!("  {mark} {name} ({duration_ms:.0} ms) {short}");
                }
                Ok(AgentEvent::Compacted(r)) if show_tools => {
                    eprintln!("  (history compacted: {} → {} messages)", r.before, r.after);
                }
                Ok(AgentEvent::Done { .. }) => break,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        if printed_any && !ends_with_newline {
            println!();
        }
        printed_any
    })
}
