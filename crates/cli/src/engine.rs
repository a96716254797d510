//! Printing what the engine does for a terminal user: attachment notes
//! and agent events.

use std::io::{IsTerminal, Write};

use baton_agent::{AgentEvent, EventSink};
use baton_docs::{AttachmentContext, FileAttachment};

use crate::context::Context;

/// Converts attachments into the budgeted context block, telling the user
/// on stderr (unless `quiet`) what was cut or could not be read.
pub fn attachment_context(
    ctx: &Context,
    files: &[FileAttachment],
    quiet: bool,
) -> AttachmentContext {
    let context = ctx.attachment_context(files);
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
