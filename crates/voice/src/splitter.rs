//! Streamed Markdown → speakable sentences.
//!
//! Hand-written: the sentence-segmentation crates (`unicode-segmentation`'s
//! UAX #29 sentences, `srx`, `punkt`) work on finished text and know
//! nothing of Markdown; here the input arrives in pieces, Markdown must be
//! stripped (and code announced, not read), and a sentence must be released
//! the moment it is known to be complete.

/// How sentences are cut.
#[derive(Debug, Clone)]
pub struct SplitterOptions {
    /// A first sentence longer than this (characters) is cut at a clause
    /// boundary (`,` `;` `:` or a dash) so speech can start early.
    pub first_clause_chars: usize,
    /// What is said instead of a code block.
    pub code_announcement: String,
}

impl Default for SplitterOptions {
    fn default() -> Self {
        Self {
            first_clause_chars: 80,
            code_announcement: "There is a code block on screen.".into(),
        }
    }
}

/// Words that end in a dot without ending a sentence (compared in lower
/// case, without the final dot).
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "cf",
    "approx", "inc", "ltd", "co", "corp", "no", "nos", "fig", "figs", "vol", "p", "pp", "ch",
    "sec", "dept", "est", "u.s", "u.k", "u.n", "e.u", "a.m", "p.m", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri",
    "sat", "sun", "ave", "blvd", "rd", "gen", "gov", "sen", "rep", "lt", "col", "capt", "sgt",
];

/// Cuts a streamed answer into sentences.
#[derive(Debug, Default)]
pub struct SentenceSplitter {
    options: SplitterOptions,
    /// Text of the line being received (not yet ended by a newline).
    line: String,
    /// Prose of the current paragraph not yet released.
    pending: String,
    in_code: bool,
    emitted: usize,
}

impl SentenceSplitter {
    /// A splitter with these options.
    pub fn new(options: SplitterOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// Takes the next piece of the answer; returns the sentences it
    /// completed, in order.
    pub fn push(&mut self, chunk: &str) -> Vec<String> {
        let mut out = Vec::new();
        for c in chunk.chars() {
            if c == '\n' {
                let line = std::mem::take(&mut self.line);
                self.end_line(&line, &mut out);
            } else {
                self.line.push(c);
            }
        }
        // Sentences already complete inside the unfinished line.
        if !self.in_code && !is_fence(&self.line) && !self.line.trim_start().starts_with('#') {
            let marker = self.line.len() - strip_list_marker(&self.line).len();
            if marker > 0 {
                // A list item stands alone: what came before it is done.
                self.flush_paragraph(&mut out);
            }
            let text = format!("{}{}", self.pending, &self.line[marker..]);
            let (done, consumed) = self.complete_sentences(&text, false);
            if consumed > 0 {
                if consumed <= self.pending.len() {
                    self.pending.drain(..consumed);
                } else {
                    let from = marker + consumed - self.pending.len();
                    self.line.replace_range(marker..from, "");
                    self.pending.clear();
                }
                self.release(done, &mut out);
            }
        }
        out
    }

    /// The answer is complete: releases what is left.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.end_line(&line, &mut out);
        }
        self.flush_paragraph(&mut out);
        out
    }

    fn end_line(&mut self, line: &str, out: &mut Vec<String>) {
        if is_fence(line) {
            if !self.in_code {
                self.flush_paragraph(out);
                let note = self.options.code_announcement.clone();
                self.release(vec![note], out);
            }
            self.in_code = !self.in_code;
            return;
        }
        if self.in_code {
            return;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || is_rule(trimmed) || is_table_rule(trimmed) {
            self.flush_paragraph(out);
            return;
        }
        if let Some(heading) = trimmed.strip_prefix('#') {
            self.flush_paragraph(out);
            let heading = heading.trim_start_matches('#').trim();
            self.release(vec![heading.to_string()], out);
            return;
        }
        let body = strip_list_marker(line);
        let is_item = body.len() != line.len();
        if is_item {
            // A list item stands alone.
            self.flush_paragraph(out);
        }
        let text = format!("{}{} ", self.pending, body.trim());
        let (done, consumed) = self.complete_sentences(&text, false);
        self.pending = text[consumed..].to_string();
        self.release(done, out);
        if is_item || trimmed.starts_with('|') {
            self.flush_paragraph(out);
        }
    }

    fn flush_paragraph(&mut self, out: &mut Vec<String>) {
        let text = std::mem::take(&mut self.pending);
        let (mut done, consumed) = self.complete_sentences(&text, true);
        let rest = text[consumed..].trim();
        if !rest.is_empty() {
            done.push(rest.to_string());
        }
        self.release(done, out);
    }

    /// Finds complete sentences at the start of `text`; returns them and
    /// how many bytes they used. A boundary needs the whitespace after it
    /// (the next piece might continue `3.` into `3.14`), unless `all`.
    fn complete_sentences(&self, text: &str, all: bool) -> (Vec<String>, usize) {
        let mut out = Vec::new();
        let mut start = 0;
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let (at, c) = chars[i];
            if matches!(c, '.' | '!' | '?' | '…') {
                // Swallow runs (`?!`, `...`) and closing quotes/brackets.
                let mut j = i + 1;
                while j < chars.len() && is_closer(chars[j].1) {
                    j += 1;
                }
                let end = chars.get(j).map_or(text.len(), |&(b, _)| b);
                let followed_by_space = chars.get(j).is_some_and(|&(_, n)| n.is_whitespace());
                let at_end = j >= chars.len();
                if (followed_by_space || (all && at_end))
                    && !(c == '.' && j == i + 1 && is_abbreviation(&text[start..at]))
                {
                    let sentence = text[start..end].trim();
                    if !sentence.is_empty() {
                        out.push(sentence.to_string());
                    }
                    start = end;
                }
                i = j;
                continue;
            }
            i += 1;
        }
        // A long first sentence: cut at a clause boundary so speech starts.
        if self.emitted == 0 && out.is_empty() && !all {
            let head = &text[start..];
            if head.chars().count() > self.options.first_clause_chars
                && let Some(cut) = clause_cut(head, self.options.first_clause_chars)
            {
                out.push(head[..cut].trim().to_string());
                start += cut;
            }
        }
        (out, start)
    }

    fn release(&mut self, sentences: Vec<String>, out: &mut Vec<String>) {
        for s in sentences {
            let s = speakable(&s);
            if s.chars().any(char::is_alphanumeric) {
                self.emitted += 1;
                out.push(s);
            }
        }
    }
}

/// What may follow a sentence's final mark and still belong to it.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | '"' | '\'' | ')' | '”' | '’' | ']' | '*' | '_'
    )
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

fn is_rule(t: &str) -> bool {
    t.len() >= 3
        && (t.chars().all(|c| c == '-')
            || t.chars().all(|c| c == '*')
            || t.chars().all(|c| c == '_'))
}

fn is_table_rule(t: &str) -> bool {
    t.starts_with('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The text of a list item without its marker (`- `, `* `, `+ `, `1. `, `2) `).
fn strip_list_marker(line: &str) -> &str {
    let t = line.trim_start();
    for m in ["- ", "* ", "+ ", "> "] {
        if let Some(rest) = t.strip_prefix(m) {
            return rest;
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r;
        }
    }
    line
}

/// Whether the text before a dot ends in an abbreviation or an initial.
fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .next()
        .unwrap_or("");
    let word = word.trim_start_matches(['*', '_']);
    if word.chars().count() == 1 && word.chars().all(char::is_uppercase) {
        return true; // an initial: "J. R. R. Tolkien"
    }
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

/// Where to cut a long first sentence: the last clause boundary before
/// `limit` characters (but after a few words), else the first after it.
fn clause_cut(text: &str, limit: usize) -> Option<usize> {
    let mut best = None;
    for (i, (at, c)) in text.char_indices().enumerate() {
        let boundary =
            matches!(c, ',' | ';' | ':' | '—' | '–') && text[at + c.len_utf8()..].starts_with(' ');
        if boundary && i >= 20 {
            best = Some(at + c.len_utf8());
            if i >= limit {
                break;
            }
        }
    }
    best
}

/// Markdown removed, so the engine reads words, not symbols: links keep
/// their text, images their description, code spans their content.
fn speakable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // [text](url) and ![alt](src) → text / alt.
        if c == '[' || (c == '!' && chars.get(i + 1) == Some(&'[')) {
            let open = if c == '!' { i + 1 } else { i };
            if let Some(close) = (open + 1..chars.len()).find(|&k| chars[k] == ']')
                && chars.get(close + 1) == Some(&'(')
                && let Some(end) = (close + 2..chars.len()).find(|&k| chars[k] == ')')
            {
                out.extend(&chars[open + 1..close]);
                i = end + 1;
                continue;
            }
        }
        match c {
            '`' | '~' | '|' => {}
            '*' | '_' => {
                // Emphasis markers go; an underscore inside a word stays.
                let inside = c == '_'
                    && i > 0
                    && chars[i - 1].is_alphanumeric()
                    && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
                if inside {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_whole(text: &str) -> Vec<String> {
        let mut s = SentenceSplitter::default();
        let mut out = s.push(text);
        out.extend(s.finish());
        out
    }

    /// The same text fed one character at a time gives the same sentences.
    fn split_trickled(text: &str) -> Vec<String> {
        let mut s = SentenceSplitter::default();
        let mut out = Vec::new();
        for c in text.chars() {
            out.extend(s.push(&c.to_string()));
        }
        out.extend(s.finish());
        out
    }

    #[test]
    fn tricky_texts_split_where_a_reader_would_pause() {
        let table: &[(&str, &[&str])] = &[
            (
                "Hello there. How are you?",
                &["Hello there.", "How are you?"],
            ),
            (
                "Dr. Smith met Mrs. Jones at 5 p.m. on Friday. They talked.",
                &[
                    "Dr. Smith met Mrs. Jones at 5 p.m. on Friday.",
                    "They talked.",
                ],
            ),
            (
                "The U.S. economy grew. Prices rose.",
                &["The U.S. economy grew.", "Prices rose."],
            ),
            (
                "Pi is about 3.14159. That is all.",
                &["Pi is about 3.14159.", "That is all."],
            ),
            (
                "See https://example.com/a.b?x=1 for more. Thanks!",
                &["See https://example.com/a.b?x=1 for more.", "Thanks!"],
            ),
            (
                "Use e.g. a list, i.e. items. Done.",
                &["Use e.g. a list, i.e. items.", "Done."],
            ),
            ("Wait... really?! Yes.", &["Wait...", "really?!", "Yes."]),
            (
                "J. R. R. Tolkien wrote it. Read it.",
                &["J. R. R. Tolkien wrote it.", "Read it."],
            ),
            (
                "Steps:\n1. Open the file\n2. Save it\n3. Close it",
                &["Steps:", "Open the file", "Save it", "Close it"],
            ),
            (
                "- first point\n- second point with `code`",
                &["first point", "second point with code"],
            ),
            (
                "# Summary\nThis is **bold** and _italic_ text.",
                &["Summary", "This is bold and italic text."],
            ),
            (
                "Read [the docs](https://x.io/docs) now. ![a chart](c.png) shows it.",
                &["Read the docs now.", "a chart shows it."],
            ),
            (
                "Here:\n```rust\nfn main() { println!(\"hi. there\"); }\n```\nThat prints hi.",
                &[
                    "Here:",
                    "There is a code block on screen.",
                    "That prints hi.",
                ],
            ),
            (
                "He said \"stop.\" Then he left.",
                &["He said \"stop.\"", "Then he left."],
            ),
            (
                "Version 2.0 is out. It costs $4.50 in the U.K. Buy it.",
                &["Version 2.0 is out.", "It costs $4.50 in the U.K. Buy it."],
            ),
            (
                "snake_case_name stays. Ok.",
                &["snake_case_name stays.", "Ok."],
            ),
            ("| a | b |\n|---|---|\n| 1 | 2 |", &["a b", "1 2"]),
            ("No trailing punctuation", &["No trailing punctuation"]),
            (
                "Steps:\n1. Open the file. Then save.\n2. Close",
                &["Steps:", "Open the file.", "Then save.", "Close"],
            ),
            (
                "Costs rose 12.5% in Q3. See Fig. 2 for details.",
                &["Costs rose 12.5% in Q3.", "See Fig. 2 for details."],
            ),
            (
                "First paragraph without a stop\n\nSecond one.",
                &["First paragraph without a stop", "Second one."],
            ),
        ];
        for (text, want) in table {
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(split_whole(text), want, "whole: {text:?}");
            assert_eq!(split_trickled(text), want, "trickled: {text:?}");
        }
    }

    #[test]
    fn a_sentence_is_released_as_soon_as_it_is_complete() {
        let mut s = SentenceSplitter::default();
        assert!(s.push("The first sentence is here").is_empty());
        assert!(s.push(".").is_empty(), "the next piece might be `.5`");
        assert_eq!(s.push(" And"), vec!["The first sentence is here."]);
        assert!(s.push(" the second").is_empty());
        assert_eq!(s.finish(), vec!["And the second"]);
    }

    #[test]
    fn a_long_first_sentence_is_cut_at_a_clause_so_speech_starts_early() {
        let mut s = SentenceSplitter::default();
        let mut out = s.push(
            "When you open the quarterly report and look at the numbers for each region, you will see that the north grew fastest",
        );
        assert_eq!(
            out,
            vec!["When you open the quarterly report and look at the numbers for each region,"]
        );
        out = s.push(". Then the south.");
        assert_eq!(out, vec!["you will see that the north grew fastest."]);
        assert_eq!(s.finish(), vec!["Then the south."]);
        // Later long sentences are not cut.
        let mut s = SentenceSplitter::default();
        s.push("Short one. ");
        let long = "This second sentence is long, it has many clauses, and it goes on and on for quite a while without stopping";
        assert!(s.push(long).is_empty());
        assert_eq!(s.finish(), vec![long.to_string()]);
    }
}
