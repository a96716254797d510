//! The agent as the voice loop's [`Responder`]: each transcript is a
//! message of the conversation (tools included); the answer's text is
//! forwarded as it streams; a tool that starts in silence gets a short
//! spoken cue; a confirmation or a subagent's question is asked aloud and
//! the next thing the user says answers it; each exchange's timing is kept
//! with the saved session.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baton_agent::{AgentEvent, StopReason, VoiceTurn};
use baton_llm::Message;
use baton_voice::{Responder, TurnRecord};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{Conversation, Turn, UserMessage};

/// How many times a confirmation is asked again when the answer was
/// neither yes nor no; after that it counts as no.
const ASK_AGAIN: u8 = 2;

/// A second cue in one answer waits at least this long after the first.
const CUE_GAP: Duration = Duration::from_secs(5);

/// At most this many cues in one answer.
const MAX_CUES: u8 = 3;

/// A conversation as the voice loop's [`Responder`]; history is kept
/// across turns and saved like a chat's.
pub struct AgentResponder {
    conversation: Conversation,
    /// A turn paused on a question to the user, answered by what they say
    /// next.
    waiting: Arc<Mutex<Option<Waiting>>>,
    /// A retraction under way: the next message waits for it, so the
    /// half sentence is gone before the whole one is sent.
    retracting: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

/// A turn that waits for the user's spoken answer.
struct Waiting {
    turn: Turn,
    ask: Ask,
    /// How often it was asked again.
    repeats: u8,
}

/// What the turn waits for.
enum Ask {
    /// Yes or no to an external action: the request id, its summary, and
    /// whether it sends mail (then only "send" sends it).
    Confirm {
        id: String,
        action: String,
        mail: bool,
    },
    /// A subagent's question: its session id.
    Question { session: String },
}

impl AgentResponder {
    /// Answers through `conversation`.
    pub fn new(conversation: Conversation) -> Self {
        Self {
            conversation,
            waiting: Arc::new(Mutex::new(None)),
            retracting: Mutex::new(None),
        }
    }

    /// The conversation so far.
    pub async fn history(&self) -> Vec<Message> {
        self.conversation.session().await.history
    }

    /// The saved session's id (open it as a chat to continue by typing).
    pub async fn session_id(&self) -> baton_agent::SessionId {
        self.conversation.session_id().await
    }

    /// Whether a turn waits for the user's spoken answer.
    pub fn is_waiting(&self) -> bool {
        lock(&self.waiting).is_some()
    }
}

impl Drop for AgentResponder {
    fn drop(&mut self) {
        // Nobody is left to answer: the paused turn stops (and is saved).
        if let Some(w) = lock(&self.waiting).take() {
            w.turn.stopper().cancel();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Responder for AgentResponder {
    fn respond(&self, prompt: String, cancel: CancellationToken) -> mpsc::Receiver<String> {
        let (tx, rx) = mpsc::channel(64);
        let slot = Arc::clone(&self.waiting);
        let waiting = lock(&self.waiting).take();
        let out = Out { tx, cancel, slot };
        match waiting {
            Some(w) => {
                tokio::spawn(resume(w, prompt, out));
            }
            None => {
                let conversation = self.conversation.clone();
                let before = lock(&self.retracting).take();
                tokio::spawn(async move {
                    if let Some(retraction) = before {
                        let _ = retraction.await;
                    }
                    // Stopped before it began: its words are never sent.
                    if out.cancel.is_cancelled() {
                        return;
                    }
                    pump(conversation.send(UserMessage::text(prompt)), out).await;
                });
            }
        }
        rx
    }

    fn may_speculate(&self) -> bool {
        !self.is_waiting()
    }

    fn retract(&self, prompt: &str) {
        let conversation = self.conversation.clone();
        let prompt = prompt.to_string();
        let retraction = tokio::spawn(async move {
            if let Err(e) = conversation.retract_exchange(&prompt).await {
                tracing::warn!("a half sentence's exchange could not be forgotten: {e}");
            }
        });
        *lock(&self.retracting) = Some(retraction);
    }

    fn finished(&self, record: &TurnRecord) {
        let conversation = self.conversation.clone();
        let transcript = record.transcript.clone();
        let turn = VoiceTurn {
            message: 0, // set by note_voice_turn
            stt_ms: record.timing.as_ref().map_or(0.0, |t| t.stt_ms),
            first_audio_ms: record.timing.as_ref().map(|t| t.first_audio_ms),
            sentences: record.spoken.len(),
            interrupted: record.interrupted,
        };
        tokio::spawn(async move {
            if let Err(e) = conversation.note_voice_turn(&transcript, turn).await {
                tracing::warn!("the voice turn's timing could not be saved: {e}");
            }
        });
    }
}

/// Where one answer goes: the text channel, the loop's barge-in token,
/// and the slot a paused turn is parked in.
struct Out {
    tx: mpsc::Sender<String>,
    cancel: CancellationToken,
    slot: Arc<Mutex<Option<Waiting>>>,
}

impl Out {
    /// Sends text to be spoken; `false` when the loop no longer listens.
    async fn say(&self, text: String) -> bool {
        self.tx.send(text).await.is_ok()
    }

    /// Sends a sentence that stands alone (cut from the text around it).
    async fn say_apart(&self, sentence: &str) -> bool {
        self.say(format!("\n\n{sentence}\n\n")).await
    }
}

/// The user's words answer the paused turn; then it goes on.
async fn resume(mut w: Waiting, said: String, out: Out) {
    match &w.ask {
        Ask::Question { session } => {
            w.turn.questions().answer(session, said);
        }
        Ask::Confirm { id, action, mail } => match spoken_answer(&said, *mail) {
            Some(yes) => {
                w.turn.confirmations().answer(id, yes);
            }
            None if w.repeats < ASK_AGAIN => {
                let again = match mail {
                    true => format!("Shall I {action}? Say send to send it, or no."),
                    false => format!("Sorry, shall I {action}? Please say yes or no."),
                };
                w.repeats += 1;
                if out.say_apart(&again).await {
                    *lock(&out.slot) = Some(w);
                } else {
                    w.turn.stopper().cancel();
                }
                return;
            }
            None => {
                w.turn.confirmations().answer(id, false);
                out.say_apart("I did not hear a yes, so I did not do it.")
                    .await;
            }
        },
    }
    pump(w.turn, out).await;
}

/// Forwards the turn's answer text, with cues while tools run, until it
/// ends or pauses on a question to the user.
async fn pump(mut turn: Turn, out: Out) {
    let stop = turn.stopper();
    let barge = out.cancel.clone();
    // Barge-in (the loop's token) stops the turn too.
    let watcher = tokio::spawn(async move {
        barge.cancelled().await;
        stop.cancel();
    });
    let mut cues = Cues::default();
    while let Some(e) = turn.next().await {
        let top = e.agent.depth == 0;
        let step = match e.event {
            AgentEvent::TextDelta { text } if top => {
                cues.heard_text();
                out.say(text).await
            }
            AgentEvent::ToolStarted { name, .. } if top => match cues.next(&name) {
                Some(cue) => out.say_apart(cue).await,
                None => true,
            },
            AgentEvent::ConfirmationRequested {
                id,
                tool,
                arguments,
                action,
                ..
            } => {
                let said = spoken_action(&tool, &arguments, action.as_deref());
                let mail = is_mail(&tool);
                let ask = Ask::Confirm {
                    id,
                    action: said,
                    mail,
                };
                return park(turn, ask, &out, watcher).await;
            }
            AgentEvent::SubagentAsked {
                session_id,
                question,
            } => {
                out.say_apart(&question).await;
                let ask = Ask::Question {
                    session: session_id,
                };
                return park(turn, ask, &out, watcher).await;
            }
            AgentEvent::Finished(o) if top => {
                if let StopReason::Error(err) = &o.stop
                    && !out.cancel.is_cancelled()
                {
                    tracing::warn!("the voice answer failed: {err}");
                    out.say(format!("Sorry, I could not answer: {err}")).await;
                }
                true
            }
            _ => true,
        };
        // The voice loop went away: nobody hears the rest.
        if !step {
            turn.stopper().cancel();
        }
    }
    watcher.abort();
}

/// Asks the user (a confirmation is spoken as a question) and parks the
/// turn until they answer; a barge-in already under way refuses instead.
async fn park(turn: Turn, ask: Ask, out: &Out, watcher: tokio::task::JoinHandle<()>) {
    watcher.abort();
    if out.cancel.is_cancelled() {
        turn.stopper().cancel();
        return;
    }
    if let Ask::Confirm { action, mail, .. } = &ask {
        let question = match mail {
            true => format!("Shall I {action}? Say send to send it."),
            false => format!("Shall I {action}?"),
        };
        if !out.say_apart(&question).await {
            turn.stopper().cancel();
            return;
        }
    }
    *lock(&out.slot) = Some(Waiting {
        turn,
        ask,
        repeats: 0,
    });
}

/// An external action as the rest of a spoken question: what the tool
/// worked out it will really do (`described`), else the method in words;
/// then its recipients and attachments, always and first, and its other
/// short arguments ("send email, to: ann@…; attachments: q1.pdf; subject:
/// Lunch, with the rest as shown on screen"). Long values (a whole e-mail
/// body) are left to the screen.
pub fn spoken_action(tool: &str, arguments: &serde_json::Value, described: Option<&str>) -> String {
    const LONGEST: usize = 60;
    const FIRST: [&str; 4] = ["to", "cc", "bcc", "attachments"];
    let method = tool.rsplit('.').next().unwrap_or(tool).replace('_', " ");
    let args = arguments.as_object();
    let ordered = FIRST.iter().filter_map(|k| args?.get_key_value(*k)).chain(
        args.into_iter()
            .flatten()
            .filter(|(k, _)| !FIRST.contains(&k.as_str())),
    );
    // Recipients and attachments are always said; the rest while short.
    let (mut must, mut rest) = (Vec::new(), Vec::new());
    let mut left_out = false;
    for (key, value) in ordered {
        let said = spoken_value(value);
        let part = format!("{}: {said}", key.replace('_', " "));
        if FIRST.contains(&key.as_str()) && !said.is_empty() {
            must.push(part);
        } else if !said.is_empty() && said.chars().count() <= LONGEST && must.len() + rest.len() < 3
        {
            rest.push(part);
        } else {
            left_out |= !said.is_empty() || !value.is_null();
        }
    }
    if let Some(d) = described {
        let lines: Vec<&str> = d.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let mut out = lines.join(". ");
        if !must.is_empty() {
            out = format!("{out}; {}", must.join("; "));
        }
        return out;
    }
    must.extend(rest);
    let mut out = method;
    if !must.is_empty() {
        out = format!("{out}, {}", must.join("; "));
    }
    if left_out {
        out.push_str(", with the rest as shown on screen");
    }
    out
}

/// One argument's value as it is said (empty: nothing sayable).
fn spoken_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.trim().to_string(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Array(a) if a.iter().all(|v| v.is_string()) => a
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" and "),
        _ => String::new(),
    }
}

/// Whether `tool` (`Toolbox.method`) sends mail: then only a spoken
/// "send" sends it.
fn is_mail(tool: &str) -> bool {
    let method = tool.rsplit('.').next().unwrap_or(tool);
    matches!(method, "send_email" | "reply" | "email_me")
}

/// The user's spoken answer to a confirmation: for mail, only "send"
/// (not a bare "yes") sends; a no is a no either way.
fn spoken_answer(said: &str, mail: bool) -> Option<bool> {
    let answer = spoken_yes_no(said);
    if !mail || answer == Some(false) {
        return answer;
    }
    let words: Vec<String> = said
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let send = words.iter().any(|w| w == "send");
    let negated = words
        .iter()
        .any(|w| matches!(w.as_str(), "don't" | "dont" | "not" | "no"));
    (send && !negated).then_some(true)
}

/// The cues of one answer: one when a tool starts while nothing has been
/// said since the last, a few seconds apart, a few at most.
#[derive(Default)]
struct Cues {
    count: u8,
    last: Option<(Instant, &'static str)>,
    text_since: bool,
}

impl Cues {
    fn heard_text(&mut self) {
        self.text_since = true;
    }

    /// The cue for tool `name` starting now, if one is due.
    fn next(&mut self, name: &str) -> Option<&'static str> {
        let cue = tool_cue(name);
        let due = match self.last {
            None => !self.text_since,
            Some((at, said)) => !self.text_since && said != cue && at.elapsed() >= CUE_GAP,
        };
        self.text_since = false;
        if !due || self.count >= MAX_CUES {
            return None;
        }
        self.count += 1;
        self.last = Some((Instant::now(), cue));
        Some(cue)
    }
}

/// The short sentence said while tool `name` runs.
pub fn tool_cue(name: &str) -> &'static str {
    const CUES: &[(&[&str], &str)] = &[
        (
            &["mail", "message", "draft", "inbox"],
            "Checking your mail.",
        ),
        (
            &["web", "page", "browser", "click", "fill", "url", "tab"],
            "Looking on the web.",
        ),
        (
            &["sheet", "workbook", "cell", "range", "chart", "table"],
            "Opening the spreadsheet.",
        ),
        (&["document", "docx", "pdf"], "Working on the document."),
        (
            &[
                "file", "director", "folder", "search", "read", "find", "backup",
            ],
            "Looking at your files.",
        ),
        (&["delegate", "subagent", "agent"], "Asking a helper."),
    ];
    let name = name.to_ascii_lowercase();
    CUES.iter()
        .find(|(words, _)| words.iter().any(|w| name.contains(w)))
        .map_or("One moment.", |(_, cue)| cue)
}

/// Whether spoken words say yes (`Some(true)`) or no (`Some(false)`);
/// `None` when they say neither, or both ("yes… no, don't").
pub fn spoken_yes_no(said: &str) -> Option<bool> {
    const YES: &[&str] = &[
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "ok",
        "okay",
        "go ahead",
        "do it",
        "send it",
        "please do",
        "confirm",
        "confirmed",
        "absolutely",
        "of course",
        "correct",
        "right",
        "affirmative",
        "go on",
        "proceed",
    ];
    const NO: &[&str] = &[
        "no",
        "nope",
        "nah",
        "don't",
        "dont",
        "do not",
        "not",
        "never",
        "hold off",
        "cancel",
        "stop",
        "never mind",
        "nevermind",
        "not now",
        "wait",
        "hold on",
        "abort",
        "negative",
    ];
    let words: String = said
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '\'' || c == '’' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .replace('’', "'");
    let padded = format!(
        " {} ",
        words.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let no = NO.iter().any(|w| padded.contains(&format!(" {w} ")));
    // "Don't send it": a yes phrase right after a negation is not a yes.
    // "Don't send it", "absolutely not": a yes phrase negated right
    // before or after is not a yes.
    let yes = YES.iter().any(|w| {
        let phrase = format!(" {w} ");
        padded.match_indices(&phrase).any(|(at, _)| {
            let before = padded[..at].split_whitespace().next_back();
            let after = padded[at + phrase.len()..].split_whitespace().next();
            !matches!(before, Some("don't" | "dont" | "not" | "never")) && after != Some("not")
        })
    });
    match (yes, no) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_and_no_are_heard_in_plain_words() {
        for yes in [
            "Yes.",
            "yeah, send it",
            "OK",
            "Sure, go ahead!",
            "Yes please.",
        ] {
            assert_eq!(spoken_yes_no(yes), Some(true), "{yes}");
        }
        for no in [
            "No.",
            "Don't send it.",
            "nope",
            "Cancel that",
            "Wait.",
            "Absolutely not.",
            "Of course not!",
            "Hold off.",
        ] {
            assert_eq!(spoken_yes_no(no), Some(false), "{no}");
        }
        for unclear in [
            "What was that?",
            "Yes, no, I don't know",
            "the noon train",
            "Okay, hold off.",
            "",
        ] {
            assert_eq!(spoken_yes_no(unclear), None, "{unclear}");
        }
    }

    #[test]
    fn cues_name_what_the_tool_does() {
        assert_eq!(tool_cue("read_text_file"), "Looking at your files.");
        assert_eq!(tool_cue("list_messages_in_inbox"), "Checking your mail.");
        assert_eq!(tool_cue("send_mail"), "Checking your mail.");
        assert_eq!(tool_cue("web_search"), "Looking on the web.");
        assert_eq!(tool_cue("set_cells"), "Opening the spreadsheet.");
        assert_eq!(tool_cue("now"), "One moment.");
    }

    #[test]
    fn a_cue_comes_once_per_silence() {
        let mut cues = Cues::default();
        assert_eq!(cues.next("read_text_file"), Some("Looking at your files."));
        // Another tool at once: still silent, but too soon and the same.
        assert_eq!(cues.next("find_files"), None);
        cues.heard_text();
        // The model spoke before its next tool: no cue needed.
        assert_eq!(cues.next("web_search"), None);
        assert_eq!(cues.count, 1);
    }

    #[test]
    fn an_action_reads_as_the_rest_of_a_question() {
        let args = serde_json::json!({"to": ["ann@example.com"], "subject": "Lunch",
            "body": "A long body that nobody wants read out loud in full, sentence after sentence."});
        assert_eq!(
            spoken_action("MailTool.send_mail", &args, None),
            "send mail, to: ann@example.com; subject: Lunch, with the rest as shown on screen"
        );
        assert_eq!(
            spoken_action("click", &serde_json::json!({}), None),
            "click"
        );
    }

    #[test]
    fn recipients_and_attachments_are_said_first_and_never_dropped() {
        let args = serde_json::json!({"subject": "Q1", "body": "Hi", "cc": ["b@example.com"],
            "attachments": ["/reports/q1-final-version-with-all-appendices-and-figures.pdf"],
            "to": ["a@example.com", "c@example.com"], "priority": "high", "extra": "x"});
        let said = spoken_action("MailTool.send_email", &args, None);
        assert!(
            said.starts_with("send email, to: a@example.com and c@example.com; cc: b@example.com; attachments: /reports/q1-final"),
            "{said}"
        );
        let click = spoken_action(
            "WebTool.click",
            &serde_json::json!({"target": "e7"}),
            Some(
                "Click the button \"Buy\" on https://shop.example/\nIt sends the form to https://shop.example/pay (POST)",
            ),
        );
        assert_eq!(
            click,
            "Click the button \"Buy\" on https://shop.example/. It sends the form to https://shop.example/pay (POST)"
        );
        let reply = spoken_action(
            "MailTool.reply",
            &serde_json::json!({"id": "INBOX:4", "body": "Sure", "attachments": ["q1.pdf"]}),
            Some(
                "Reply to thief@evil.example\nWarning: the message is from ana@example.org, but it asks for replies to go to thief@evil.example",
            ),
        );
        assert!(
            reply.starts_with("Reply to thief@evil.example. Warning")
                && reply.ends_with("; attachments: q1.pdf"),
            "{reply}"
        );
    }

    #[test]
    fn mail_is_sent_only_on_a_spoken_send() {
        assert_eq!(spoken_answer("yes", true), None, "a bare yes asks again");
        assert_eq!(spoken_answer("yes, send it", true), Some(true));
        assert_eq!(spoken_answer("send", true), Some(true));
        assert_eq!(spoken_answer("don't send it", true), Some(false));
        assert_eq!(spoken_answer("no", true), Some(false));
        assert_eq!(spoken_answer("yes", false), Some(true));
    }
}
