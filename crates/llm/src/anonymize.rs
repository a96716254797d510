//! Anonymization: a session-long registry of names and keys. Each term is
//! replaced, case-insensitively and only where it is not glued to letters
//! or digits, by `[<HEX>_PLACEHOLDER]`, where `<HEX>` is its index in the
//! registry in upper-case hexadecimal. The registry only grows, so a
//! placeholder means the same thing for the whole session. Replies are
//! translated back, also while streaming: a partial placeholder at the end
//! of a chunk is held back until it is complete.

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

/// Wraps a provider so that what leaves is anonymized and what comes back
/// (text and tool-call arguments) is restored, while streaming.
pub struct AnonymizingProvider {
    inner: Arc<dyn Provider>,
    registry: Arc<Mutex<Anonymizer>>,
}

impl AnonymizingProvider {
    /// Wraps `inner` with a shared registry.
    pub fn new(inner: Arc<dyn Provider>, registry: Arc<Mutex<Anonymizer>>) -> Self {
        Self { inner, registry }
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
        let snapshot = {
            let reg = self.registry.lock().expect("anonymizer registry poisoned");
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

    #[test]
    fn restorer_does_not_hold_plain_brackets() {
        let a = reg(&["x"]);
        let mut r = PlaceholderRestorer::new();
        assert_eq!(r.push(&a, "see [note] here"), "see [note] here");
        assert_eq!(r.push(&a, "list [A"), "list ");
        assert_eq!(r.push(&a, "_PLACEHOLDER]"), "[A_PLACEHOLDER]");
    }
}
