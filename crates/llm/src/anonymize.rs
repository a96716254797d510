//! Anonymization: a session-long registry of names and keys. Each term is
//! replaced, case-insensitively and only where it is not glued to letters
//! or digits, by `[<HEX>_PLACEHOLDER]`, where `<HEX>` is its index in the
//! registry in upper-case hexadecimal. The registry only grows, so a
//! placeholder means the same thing for the whole session. Replies are
//! translated back, also while streaming: a partial placeholder at the end
//! of a chunk is held back until it is complete.
//!
//! [`AnonymizingProvider`] also tells the model, in the system message, to
//! copy placeholders exactly, and registers what [`find_sensitive`] detects
//! (e-mail addresses, phone numbers, IBANs, keys) in user messages and tool
//! results.

mod sensitive;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::LlmError;
use crate::config::ProviderConfig;
use crate::event::LlmEvent;
use crate::history::{ContentPart, Message};
use crate::provider::{EventStream, Provider};
use crate::request::ChatRequest;

pub use sensitive::find_sensitive;

/// The sentence [`AnonymizingProvider`] adds to the system message. It is
/// constant so that a cached prompt prefix stays byte-identical.
pub const PLACEHOLDER_INSTRUCTION: &str = "Some names and keys in this conversation were replaced \
    by placeholders like [1F_PLACEHOLDER]; write each placeholder exactly as it appears, never \
    alter, translate or explain it.";

const SUFFIX: &str = "_PLACEHOLDER]";
/// Longest possible placeholder: `[` + 16 hex digits + suffix.
const MAX_PLACEHOLDER: usize = 1 + 16 + SUFFIX.len();

/// The registry of terms and the two translations.
#[derive(Debug, Clone, Default)]
pub struct Anonymizer {
    terms: Vec<String>,
    /// Terms' characters, lower-cased, longest first, with their index.
    by_length: Vec<(Vec<char>, usize)>,
}

fn chars_eq_ignore_case(a: char, b: char) -> bool {
    a == b || a.to_lowercase().eq(b.to_lowercase())
}

impl Anonymizer {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a term; returns its index. Blank terms are ignored (`None`);
    /// a term already present (in any case) keeps its index.
    pub fn register(&mut self, term: &str) -> Option<usize> {
        let term = term.trim();
        if term.is_empty() {
            return None;
        }
        let chars: Vec<char> = term.chars().collect();
        if let Some(i) = self.terms.iter().position(|t| {
            t.chars().count() == chars.len()
                && t.chars()
                    .zip(&chars)
                    .all(|(a, b)| chars_eq_ignore_case(a, *b))
        }) {
            return Some(i);
        }
        let index = self.terms.len();
        self.terms.push(term.to_string());
        let pos = self
            .by_length
            .partition_point(|(c, _)| c.len() >= chars.len());
        self.by_length.insert(pos, (chars, index));
        Some(index)
    }

    /// The registered terms, by index.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The placeholder of index `i`.
    pub fn placeholder(i: usize) -> String {
        format!("[{i:X}{SUFFIX}")
    }

    /// Replaces registered terms by placeholders.
    pub fn anonymize(&self, text: &str) -> String {
        if self.terms.is_empty() {
            return text.to_string();
        }
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        let mut copied_to = 0; // byte offset copied so far
        while i < chars.len() {
            let boundary_before = i == 0 || !chars[i - 1].1.is_alphanumeric();
            if boundary_before && let Some((len, index)) = self.match_at(&chars, i) {
                let start = chars[i].0;
                out.push_str(&text[copied_to..start]);
                out.push_str(&Self::placeholder(index));
                i += len;
                copied_to = chars.get(i).map_or(text.len(), |c| c.0);
                continue;
            }
            i += 1;
        }
        out.push_str(&text[copied_to..]);
        out
    }

    /// The longest term matching at char position `i` with a boundary after.
    fn match_at(&self, chars: &[(usize, char)], i: usize) -> Option<(usize, usize)> {
        'terms: for (term, index) in &self.by_length {
            if i + term.len() > chars.len() {
                continue;
            }
            for (k, tc) in term.iter().enumerate() {
                if !chars_eq_ignore_case(chars[i + k].1, *tc) {
                    continue 'terms;
                }
            }
            let after = i + term.len();
            if after < chars.len() && chars[after].1.is_alphanumeric() {
                continue;
            }
            return Some((term.len(), *index));
        }
        None
    }

    /// Replaces complete placeholders by their terms; unknown indices stay.
    pub fn restore(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            out.push_str(&rest[..open]);
            let tail = &rest[open..];
            match parse_placeholder(tail) {
                Some((index, len)) if index < self.terms.len() => {
                    out.push_str(&self.terms[index]);
                    rest = &tail[len..];
                }
                _ => {
                    out.push('[');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Anonymizes every text a request carries: messages, tool call
    /// arguments, tool results and dynamic context.
    pub fn anonymize_request(&self, request: &mut ChatRequest) {
        if self.terms.is_empty() {
            return;
        }
        for m in &mut request.messages {
            match m {
                Message::System { content } => *content = self.anonymize(content),
                Message::User { content } => {
                    for p in content {
                        match p {
                            ContentPart::Text { text } => *text = self.anonymize(text),
                            ContentPart::Attachment { name, markdown } => {
                                *name = self.anonymize(name);
                                *markdown = self.anonymize(markdown);
                            }
                            ContentPart::Image { .. } | ContentPart::File(_) => {}
                        }
                    }
                }
                Message::Assistant {
                    content,
                    tool_calls,
                } => {
                    *content = self.anonymize(content);
                    for c in tool_calls {
                        self.anonymize_json(&mut c.arguments);
                    }
                }
                Message::Tool { content, .. } => *content = self.anonymize(content),
            }
        }
        if let Some(d) = &mut request.dynamic_context {
            *d = self.anonymize(d);
        }
    }

    /// Registers every [`find_sensitive`] term in the text of user messages
    /// (attachments included) and tool results; returns how many terms
    /// were new. System and assistant messages are not scanned.
    pub fn register_sensitive(&mut self, request: &ChatRequest) -> usize {
        let before = self.terms.len();
        for m in &request.messages {
            match m {
                Message::User { content } => {
                    for p in content {
                        match p {
                            ContentPart::Text { text } => self.register_found(text),
                            ContentPart::Attachment { markdown, .. } => {
                                self.register_found(markdown);
                            }
                            ContentPart::Image { .. } | ContentPart::File(_) => {}
                        }
                    }
                }
                Message::Tool { content, .. } => self.register_found(content),
                Message::System { .. } | Message::Assistant { .. } => {}
            }
        }
        self.terms.len() - before
    }

    fn register_found(&mut self, text: &str) {
        for term in find_sensitive(text) {
            self.register(&term);
        }
    }

    fn anonymize_json(&self, v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => *s = self.anonymize(s),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| self.anonymize_json(x)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| self.anonymize_json(x)),
            _ => {}
        }
    }
}

/// Parses `[HEX_PLACEHOLDER]` at the start of `s` (hex in either case):
/// the index and the byte length.
fn parse_placeholder(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'[') {
        return None;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
    if digits == 0 || digits > 16 {
        return None;
    }
    let after = 1 + digits;
    let suffix = s.get(after..after + SUFFIX.len())?;
    if !suffix.eq_ignore_ascii_case(SUFFIX) {
        return None;
    }
    let index = usize::from_str_radix(&s[1..after], 16).ok()?;
    Some((index, after + SUFFIX.len()))
}

/// Could `s` (which starts with `[`) grow into a placeholder?
fn could_become_placeholder(s: &str) -> bool {
    let b = s.as_bytes();
    if s.len() >= MAX_PLACEHOLDER {
        return false;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
    let rest = &s[1 + digits..];
    if rest.is_empty() {
        return true;
    }
    digits > 0 && SUFFIX.len() > rest.len() && SUFFIX[..rest.len()].eq_ignore_ascii_case(rest)
}

/// Translates a stream of text chunks back, holding back a placeholder
/// split across chunks until it is complete.
#[derive(Debug, Default)]
pub struct PlaceholderRestorer {
    pending: String,
}

impl PlaceholderRestorer {
    /// A restorer with nothing held.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes a chunk; returns what can be shown now.
    pub fn push(&mut self, anonymizer: &Anonymizer, chunk: &str) -> String {
        self.pending.push_str(chunk);
        let hold_from = self
            .pending
            .rfind('[')
            .filter(|&i| could_become_placeholder(&self.pending[i..]))
            .unwrap_or(self.pending.len());
        let ready: String = self.pending.drain(..hold_from).collect();
        anonymizer.restore(&ready)
    }

    /// Flushes what is held at the end of the stream.
    pub fn finish(&mut self, anonymizer: &Anonymizer) -> String {
        let rest = std::mem::take(&mut self.pending);
        anonymizer.restore(&rest)
    }
}

/// Appends [`PLACEHOLDER_INSTRUCTION`] to the first system message, or
/// inserts a system message holding it when there is none; does nothing
/// when it is already there.
fn add_placeholder_instruction(request: &mut ChatRequest) {
    let first_system = request.messages.iter_mut().find_map(|m| match m {
        Message::System { content } => Some(content),
        _ => None,
    });
    match first_system {
        Some(content) if content.contains(PLACEHOLDER_INSTRUCTION) => {}
        Some(content) if content.trim().is_empty() => *content = PLACEHOLDER_INSTRUCTION.into(),
        Some(content) => {
            content.push_str("\n\n");
            content.push_str(PLACEHOLDER_INSTRUCTION);
        }
        None => request
            .messages
            .insert(0, Message::system(PLACEHOLDER_INSTRUCTION)),
    }
}

/// Wraps a provider so that what leaves is anonymized and what comes back
/// (text and tool-call arguments) is restored, while streaming. Each
/// request's system message carries [`PLACEHOLDER_INSTRUCTION`]; with
/// detection on (the default), terms [`find_sensitive`] finds in user
/// messages and tool results join the registry first.
pub struct AnonymizingProvider {
    inner: Arc<dyn Provider>,
    registry: Arc<Mutex<Anonymizer>>,
    detect: bool,
}

impl AnonymizingProvider {
    /// Wraps `inner` with a shared registry; detection is on.
    pub fn new(inner: Arc<dyn Provider>, registry: Arc<Mutex<Anonymizer>>) -> Self {
        Self {
            inner,
            registry,
            detect: true,
        }
    }

    /// Turns detection of sensitive terms ([`find_sensitive`]) on or off.
    pub fn with_detection(mut self, detect: bool) -> Self {
        self.detect = detect;
        self
    }
}

#[async_trait]
impl Provider for AnonymizingProvider {
    fn config(&self) -> &ProviderConfig {
        self.inner.config()
    }

    async fn stream(
        &self,
        mut request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, LlmError> {
        add_placeholder_instruction(&mut request);
        let snapshot = {
            let mut reg = self.registry.lock().expect("anonymizer registry poisoned");
            if self.detect {
                reg.register_sensitive(&request);
            }
            reg.anonymize_request(&mut request);
            reg.clone()
        };
        let inner = self.inner.stream(request, cancel).await?;
        let state = (
            snapshot,
            PlaceholderRestorer::new(),
            Vec::<PlaceholderRestorer>::new(),
        );
        let restored = inner
            .map(Some)
            .chain(futures::stream::once(async { None }))
            .scan(state, |(anon, text, calls), item| {
                let out: Vec<Result<LlmEvent, LlmError>> = match item {
                    Some(Ok(LlmEvent::TextDelta(t))) => {
                        let s = text.push(anon, &t);
                        if s.is_empty() {
                            vec![]
                        } else {
                            vec![Ok(LlmEvent::TextDelta(s))]
                        }
                    }
                    Some(Ok(LlmEvent::ToolCallDelta(mut d))) => {
                        while calls.len() <= d.index {
                            calls.push(PlaceholderRestorer::new());
                        }
                        d.arguments = calls[d.index].push(anon, &d.arguments);
                        vec![Ok(LlmEvent::ToolCallDelta(d))]
                    }
                    Some(Ok(LlmEvent::Finish(f))) => {
                        let mut v = flush(anon, text, calls);
                        v.push(Ok(LlmEvent::Finish(f)));
                        v
                    }
                    Some(other) => vec![other],
                    None => flush(anon, text, calls),
                };
                futures::future::ready(Some(futures::stream::iter(out)))
            })
            .flatten();
        Ok(Box::pin(restored))
    }
}

fn flush(
    anon: &Anonymizer,
    text: &mut PlaceholderRestorer,
    calls: &mut [PlaceholderRestorer],
) -> Vec<Result<LlmEvent, LlmError>> {
    let mut out = Vec::new();
    let t = text.finish(anon);
    if !t.is_empty() {
        out.push(Ok(LlmEvent::TextDelta(t)));
    }
    for (index, c) in calls.iter_mut().enumerate() {
        let rest = c.finish(anon);
        if !rest.is_empty() {
            out.push(Ok(LlmEvent::ToolCallDelta(crate::event::ToolCallDelta {
                index,
                id: None,
                name: None,
                arguments: rest,
            })));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(terms: &[&str]) -> Anonymizer {
        let mut a = Anonymizer::new();
        for t in terms {
            a.register(t);
        }
        a
    }

    #[test]
    fn placeholders_are_upper_hex_indices() {
        let mut a = Anonymizer::new();
        for i in 0..32 {
            a.register(&format!("name{i}"));
        }
        assert_eq!(a.anonymize("ask name31 now"), "ask [1F_PLACEHOLDER] now");
        assert_eq!(a.anonymize("name0"), "[0_PLACEHOLDER]");
    }

    #[test]
    fn case_insensitive_and_only_at_word_boundaries() {
        let a = reg(&["Ann", "Müller"]);
        assert_eq!(
            a.anonymize("ANN met ann, Anna and Joann; MÜLLER too. Ann2 no, (ann) yes"),
            "[0_PLACEHOLDER] met [0_PLACEHOLDER], Anna and Joann; [1_PLACEHOLDER] too. Ann2 no, ([0_PLACEHOLDER]) yes"
        );
    }

    #[test]
    fn overlapping_names_prefer_the_longest() {
        let a = reg(&["John", "John Smith", "Smith"]);
        assert_eq!(
            a.anonymize("John Smith and John and Smith"),
            "[1_PLACEHOLDER] and [0_PLACEHOLDER] and [2_PLACEHOLDER]"
        );
    }

    #[test]
    fn registry_only_grows_and_indices_are_stable() {
        let mut a = reg(&["alpha"]);
        assert_eq!(a.register("ALPHA"), Some(0));
        assert_eq!(a.register("beta"), Some(1));
        assert_eq!(a.register("  "), None);
        assert_eq!(a.anonymize("alpha beta"), "[0_PLACEHOLDER] [1_PLACEHOLDER]");
    }

    #[test]
    fn keys_are_replaced_and_restored() {
        let a = reg(&["sk-abc123XYZ"]);
        let anon = a.anonymize("key=sk-abc123XYZ;");
        assert_eq!(anon, "key=[0_PLACEHOLDER];");
        assert_eq!(a.restore(&anon), "key=sk-abc123XYZ;");
    }

    #[test]
    fn restore_round_trips_and_leaves_unknown_placeholders() {
        let a = reg(&["Ann", "Bob"]);
        let text = "Ann and Bob [7_PLACEHOLDER] [x] [";
        assert_eq!(a.restore(&a.anonymize(text)), text);
        assert_eq!(a.restore("[1_placeholder]"), "Bob");
    }

    #[test]
    fn streaming_restore_at_every_split_point() {
        let mut a = Anonymizer::new();
        for i in 0..20 {
            a.register(&format!("person{i}"));
        }
        let original = "Dear person19, [see] person0 and person1[x] [1";
        let anon = a.anonymize(original);
        assert!(anon.contains("[13_PLACEHOLDER]"));
        for split in 0..=anon.len() {
            for split2 in split..=anon.len() {
                let mut r = PlaceholderRestorer::new();
                let mut out = r.push(&a, &anon[..split]);
                out += &r.push(&a, &anon[split..split2]);
                out += &r.push(&a, &anon[split2..]);
                out += &r.finish(&a);
                assert_eq!(out, original, "splits {split},{split2}");
            }
        }
    }

    /// A provider that records each request and streams fixed text chunks.
    struct Recording {
        config: ProviderConfig,
        chunks: Vec<&'static str>,
        seen: Mutex<Vec<ChatRequest>>,
    }

    impl Recording {
        fn new(chunks: Vec<&'static str>) -> Arc<Self> {
            let config = serde_json::from_value(serde_json::json!({
                "name": "recording", "dialect": "openai"
            }))
            .expect("provider config");
            Arc::new(Self {
                config,
                chunks,
                seen: Mutex::new(Vec::new()),
            })
        }

        fn seen(&self) -> Vec<ChatRequest> {
            self.seen.lock().expect("seen").clone()
        }
    }

    #[async_trait]
    impl Provider for Recording {
        fn config(&self) -> &ProviderConfig {
            &self.config
        }

        async fn stream(
            &self,
            request: ChatRequest,
            _cancel: CancellationToken,
        ) -> Result<EventStream, LlmError> {
            self.seen.lock().expect("seen").push(request);
            let events: Vec<Result<LlmEvent, LlmError>> = self
                .chunks
                .iter()
                .map(|c| Ok(LlmEvent::TextDelta((*c).to_string())))
                .chain([Ok(LlmEvent::Finish(crate::FinishReason::Stop))])
                .collect();
            Ok(Box::pin(futures::stream::iter(events)))
        }
    }

    fn complete(p: &AnonymizingProvider, request: ChatRequest) -> String {
        futures::executor::block_on(p.complete(request, CancellationToken::new()))
            .expect("completion")
            .text
    }

    /// A tool result (built from JSON, so optional fields take defaults).
    fn tool_result(content: &str) -> Message {
        serde_json::from_value(serde_json::json!({
            "role": "tool", "call_id": "c1", "name": "read", "content": content
        }))
        .expect("tool message")
    }

    const EMAIL: &str = "ann.berg@example.com";
    const IBAN: &str = "DE89 3704 0044 0532 0130 00";
    const KEY: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv";

    #[test]
    fn detected_terms_never_leave_and_replies_are_restored() {
        let inner = Recording::new(vec![
            "Mailed [0_PLA",
            "CEHOLDER], paid to [1",
            "_PLACEHOLDER] and rotated [2_PLACEHOLDER",
            "].",
        ]);
        let registry = Arc::new(Mutex::new(Anonymizer::new()));
        let p = AnonymizingProvider::new(inner.clone(), registry.clone());
        let user = format!("Mail {EMAIL}, pay {IBAN} and rotate {KEY}.");
        let request =
            ChatRequest::new(vec![Message::system("You are Baton."), Message::user(user)]);
        let reply = complete(&p, request);
        assert_eq!(
            reply,
            format!("Mailed {EMAIL}, paid to {IBAN} and rotated {KEY}.")
        );
        let sent = &inner.seen()[0];
        assert_eq!(
            sent.messages[0].text(),
            format!("You are Baton.\n\n{PLACEHOLDER_INSTRUCTION}")
        );
        assert_eq!(
            sent.messages[1].text(),
            "Mail [0_PLACEHOLDER], pay [1_PLACEHOLDER] and rotate [2_PLACEHOLDER]."
        );
        let all: String = sent.messages.iter().map(Message::text).collect();
        for term in [EMAIL, IBAN, KEY, "ann.berg", "3704", "Ab3dEf"] {
            assert!(!all.contains(term), "{term} leaked: {all}");
        }
        assert_eq!(
            registry.lock().expect("registry").terms(),
            [EMAIL, IBAN, KEY]
        );
    }

    #[test]
    fn later_requests_reuse_terms_and_scan_tool_results_only() {
        let inner = Recording::new(vec!["ok"]);
        let registry = Arc::new(Mutex::new(Anonymizer::new()));
        let p = AnonymizingProvider::new(inner.clone(), registry.clone());
        complete(
            &p,
            ChatRequest::new(vec![Message::user(format!("key {KEY}"))]),
        );
        let request = ChatRequest::new(vec![
            Message::system("Reach ops@example.org."),
            Message::user("Again?"),
            Message::assistant("Phone +49 30 1234567 and key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"),
            tool_result("Contact: bob@example.net"),
        ]);
        complete(&p, request);
        assert_eq!(
            registry.lock().expect("registry").terms(),
            [KEY, "bob@example.net"]
        );
        let sent = &inner.seen()[1];
        assert!(
            sent.messages[0]
                .text()
                .starts_with("Reach ops@example.org.\n\n")
        );
        assert!(sent.messages[2].text().ends_with("key [0_PLACEHOLDER]"));
        assert_eq!(sent.messages[3].text(), "Contact: [1_PLACEHOLDER]");
    }

    #[test]
    fn placeholder_instruction_is_constant_and_added_once() {
        let inner = Recording::new(vec![]);
        let p = AnonymizingProvider::new(inner.clone(), Arc::new(Mutex::new(Anonymizer::new())));
        complete(&p, ChatRequest::new(vec![Message::user("hi")]));
        complete(&p, ChatRequest::new(vec![Message::user("hi")]));
        let with_system = ChatRequest::new(vec![
            Message::user("hi"),
            Message::system(format!("Rules.\n\n{PLACEHOLDER_INSTRUCTION}")),
            Message::system("Second."),
        ]);
        complete(&p, with_system);
        let seen = inner.seen();
        assert_eq!(
            seen[0].messages[0],
            Message::system(PLACEHOLDER_INSTRUCTION)
        );
        assert_eq!(seen[0].messages, seen[1].messages);
        assert_eq!(seen[2].messages.len(), 3);
        assert_eq!(
            seen[2].messages[1].text(),
            format!("Rules.\n\n{PLACEHOLDER_INSTRUCTION}")
        );
        assert_eq!(seen[2].messages[2].text(), "Second.");
    }

    #[test]
    fn detection_can_be_turned_off() {
        let inner = Recording::new(vec![]);
        let registry = Arc::new(Mutex::new(Anonymizer::new()));
        let p = AnonymizingProvider::new(inner.clone(), registry.clone()).with_detection(false);
        complete(
            &p,
            ChatRequest::new(vec![Message::user(format!("key {KEY}"))]),
        );
        assert!(registry.lock().expect("registry").terms().is_empty());
        assert!(inner.seen()[0].messages[1].text().contains(KEY));
    }

    #[test]
    fn restorer_does_not_hold_plain_brackets() {
        let a = reg(&["x"]);
        let mut r = PlaceholderRestorer::new();
        assert_eq!(r.push(&a, "see [note] here"), "see [note] here");
        assert_eq!(r.push(&a, "list [A"), "list ");
        assert_eq!(r.push(&a, "_PLACEHOLDER]"), "[A_PLACEHOLDER]");
    }
}
