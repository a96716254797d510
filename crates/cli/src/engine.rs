//! Printing a turn for a terminal user: the answer streamed to stdout,
//! tool activity and notes on stderr, confirmations and subagents'
//! questions asked on the terminal.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use baton_engine::Turn;
use baton_engine::api::{AgentEvent, TurnOutcome};

/// Lines the user types (where confirmations are answered).
pub type Answers = tokio::io::Lines<tokio::io::BufReader<tokio::io::Stdin>>;

/// What to show while a turn runs.
pub struct Printer {
    /// Print the answer's text to stdout.
    pub text: bool,
    /// Show tool calls on stderr.
    pub tools: bool,
    /// Show notes (attachments cut or not read) on stderr.
    pub notes: bool,
}

impl Printer {
    /// Text and notes; tools when stderr is a terminal or with `verbose`.
    pub fn new(text: bool, verbose: bool) -> Self {
        Self {
            text,
            tools: verbose || std::io::stderr().is_terminal(),
            notes: text,
        }
    }
}

/// What [`print_turn`] saw.
pub struct Printed {
    /// The outcome (`None` only if the turn's task died).
    pub outcome: Option<TurnOutcome>,
    /// When the first answer text arrived.
    pub first_text: Option<Instant>,
    /// What the user was told besides the answer (an action held back, an
    /// attachment cut), in order.
    pub notices: Vec<String>,
}

/// Reads `turn` to its end, printing as it goes; confirmation requests
/// are answered from `answers` (without them, the turn is stopped).
pub async fn print_turn(
    turn: &mut Turn,
    printer: &Printer,
    mut answers: Option<&mut Answers>,
) -> Printed {
    let mut first_text = None;
    let mut ends_with_newline = true;
    let mut outcome = None;
    let mut notices = Vec::new();
    while let Some(e) = turn.next().await {
        let top = e.agent.depth == 0;
        if let AgentEvent::Notice { message } = &e.event {
            notices.push(message.clone());
        }
        match e.event {
            AgentEvent::TextDelta { text } if top => {
                first_text.get_or_insert_with(Instant::now);
                if printer.text {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                    ends_with_newline = text.ends_with('\n');
                }
            }
            AgentEvent::ConfirmationRequested { id, summary, .. } => {
                if !ends_with_newline {
                    println!();
                    ends_with_newline = true;
                }
                match ask(&summary, answers.as_deref_mut(), turn).await {
                    Some(yes) => {
                        turn.confirmations().answer(&id, yes);
                    }
                    None => turn.stopper().cancel(),
                }
            }
            AgentEvent::SubagentAsked {
                session_id,
                question,
            } => {
                if !ends_with_newline {
                    println!();
                    ends_with_newline = true;
                }
                let questions = turn.questions();
                match answer_question(&question, answers.as_deref_mut(), turn).await {
                    Some(text) => questions.answer(&session_id, text),
                    // No answer: the agent that delegated gets the question.
                    None => questions.decline(&session_id),
                };
            }
            AgentEvent::Finished(o) if top => outcome = Some(*o),
            other => show_activity(&other, printer),
        }
    }
    if !ends_with_newline {
        println!();
    }
    Printed {
        outcome,
        first_text,
        notices,
    }
}

/// Puts an external action to the user: `y`/`yes` allows it, anything
/// else declines; `None` at the end of input or when the turn is stopped.
async fn ask(summary: &str, answers: Option<&mut Answers>, turn: &Turn) -> Option<bool> {
    let answers = answers?;
    eprint!("Baton wants to send something off this machine:\n  {summary}\nAllow it? [y/N] ");
    let _ = std::io::stderr().flush();
    let stop = turn.stopper();
    let line = tokio::select! {
        line = answers.next_line() => line.ok().flatten()?,
        _ = stop.cancelled() => return None,
    };
    let yes = matches!(line.trim().to_lowercase().as_str(), "y" | "yes");
    eprintln!("{}", if yes { "(allowed)" } else { "(declined)" });
    Some(yes)
}

/// Puts a subagent's question to the user; `None` (the delegating agent
/// then gets the question) without a terminal, on an empty line, at the
/// end of input, or when the turn is stopped.
async fn answer_question(
    question: &str,
    answers: Option<&mut Answers>,
    turn: &Turn,
) -> Option<String> {
    let answers = answers?;
    eprint!("A subagent asks: {question}\nYour answer (empty: let the assistant answer): ");
    let _ = std::io::stderr().flush();
    let stop = turn.stopper();
    let line = tokio::select! {
        line = answers.next_line() => line.ok().flatten()?,
        _ = stop.cancelled() => return None,
    };
    let line = line.trim().to_string();
    (!line.is_empty()).then_some(line)
}

/// Tool calls, compaction and notes, on stderr.
fn show_activity(event: &AgentEvent, printer: &Printer) {
    match event {
        AgentEvent::ToolStarted {
            name, arguments, ..
        } if printer.tools => eprintln!("  ⚙ {name} {arguments}"),
        AgentEvent::ToolFinished {
            name,
            is_error,
            result,
            duration_ms,
            ..
        } if printer.tools => {
            let short: String = result.to_string().chars().take(160).collect();
            let mark = if *is_error { "✗" } else { "✓" };
            eprintln!("  {mark} {name} ({duration_ms:.0} ms) {short}");
        }
        AgentEvent::Compacted(r) if printer.tools => {
            eprintln!("  (history compacted: {} → {} messages)", r.before, r.after);
        }
        AgentEvent::Notice { message } if printer.notes => eprintln!("note: {message}"),
        AgentEvent::SubagentDelegated { session_id, task } if printer.tools => {
            eprintln!("  ↳ delegated to a subagent ({session_id}): {task}");
        }
        AgentEvent::SubagentAnswered { session_id, answer } if printer.tools => {
            eprintln!("  ↳ answered {session_id}: {answer}");
        }
        AgentEvent::SubagentFinished {
            session_id,
            answered,
            elapsed_ms,
        } if printer.tools => {
            let how = if *answered { "finished" } else { "stopped" };
            let secs = *elapsed_ms as f64 / 1000.0;
            eprintln!("  ↳ subagent {session_id} {how} after {secs:.1} s");
        }
        _ => {}
    }
}
