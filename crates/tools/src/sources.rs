//! The passages tools gave the model during one turn, numbered, so that the
//! answer can cite them as `[n]` and the front doors can show where each
//! claim comes from.
//!
//! A tool registers a passage with [`crate::ToolContext::cite`] and puts
//! the number it gets in its result; after the turn, [`Sources::resolve`]
//! keeps the answer's citations that point at a registered passage and
//! drops (and counts) the others.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// A passage a tool gave the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
#[serde(rename = "CitedSource")]
pub struct Source {
    /// The file's agent path (`/reports/q3.pdf`).
    pub path: String,
    /// Where in it: `page 3 · Financials`, or empty.
    pub location: String,
    /// The passage as the model read it.
    pub passage: String,
    /// Character offset of the passage in the converted document.
    #[specta(type = u32)]
    pub offset: u64,
}

/// A citation in an answer: its number and the passage it points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    /// The number the answer uses (`[n]`).
    pub number: u32,
    /// The passage.
    #[serde(flatten)]
    pub source: Source,
}

/// What [`Sources::resolve`] made of an answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cited {
    /// The answer with every marker that points nowhere taken out.
    pub answer: String,
    /// The passages it cites, in the order first cited.
    pub citations: Vec<Citation>,
    /// Markers that pointed at no passage given to the model (taken out).
    pub dropped: usize,
}

/// The numbered passages of one turn, shared by its tool calls (clones
/// share the list).
#[derive(Debug, Clone, Default)]
pub struct Sources(Arc<Mutex<Vec<Source>>>);

impl Sources {
    /// The number of `source` (1-based); the same passage given twice keeps
    /// its first number.
    pub fn cite(&self, source: Source) -> u32 {
        let mut list = self.lock();
        let n = match list
            .iter()
            .position(|s| s.path == source.path && s.offset == source.offset)
        {
            Some(i) => i,
            None => {
                list.push(source);
                list.len() - 1
            }
        };
        u32::try_from(n + 1).unwrap_or(u32::MAX)
    }

    /// How many passages were given.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The answer's citations checked against the passages given: `[n]`
    /// (also `[n, m]` and `[n][m]`) outside code; a number that was never
    /// given is taken out of the answer and counted. Brackets right after a
    /// word (`a[1]`), before `(` or `:` (Markdown links), or holding other
    /// text are left alone.
    pub fn resolve(&self, answer: &str) -> Cited {
        let list = self.lock();
        let mut out = Cited::default();
        let mut cited = Vec::new();
        let mut text = String::with_capacity(answer.len());
        for piece in split_code(answer) {
            match piece {
                Piece::Code(c) => text.push_str(c),
                Piece::Prose(p) => text.push_str(&markers(p, |n| {
                    let known = n >= 1 && (n as usize) <= list.len();
                    if known && !cited.contains(&n) {
                        cited.push(n);
                    }
                    if !known {
                        out.dropped += 1;
                    }
                    known.then_some(n)
                })),
            }
        }
        out.citations = cited
            .into_iter()
            .map(|n| Citation {
                number: n,
                source: list[n as usize - 1].clone(),
            })
            .collect();
        out.answer = if out.dropped > 0 {
            tidy(&text)
        } else {
            answer.to_string()
        };
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Source>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `text` with each citation marker (`[3]`, `[1, 4]`; not in code, not a
/// link's `[text](`) numbered as `map(n)` says, or taken out where it
/// says `None` (the spaces it leaves tidied): what [`Sources::resolve`]
/// does with a turn's passages, for any numbering (a research report's
/// sources).
pub fn map_citations(text: &str, mut map: impl FnMut(u32) -> Option<u32>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut removed = false;
    for piece in split_code(text) {
        match piece {
            Piece::Code(c) => out.push_str(c),
            Piece::Prose(p) => out.push_str(&markers(p, |n| {
                let mapped = map(n);
                removed |= mapped.is_none();
                mapped
            })),
        }
    }
    if removed { tidy(&out) } else { out }
}

enum Piece<'a> {
    Prose(&'a str),
    Code(&'a str),
}

/// `text` cut into prose and code (fenced blocks and inline spans).
fn split_code(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let Some(start) = rest.find('`') else {
            out.push(Piece::Prose(rest));
            break;
        };
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let fence = &rest[start..start + ticks];
        let end = rest[start + ticks..]
            .find(fence)
            .map_or(rest.len(), |e| start + ticks + e + ticks);
        out.push(Piece::Prose(&rest[..start]));
        out.push(Piece::Code(&rest[start..end]));
        rest = &rest[end..];
    }
    out
}

/// `prose` with each citation marker numbered as `map(n)` says, or taken
/// out where it says `None`.
fn markers(prose: &str, mut map: impl FnMut(u32) -> Option<u32>) -> String {
    let mut out = String::with_capacity(prose.len());
    let mut rest = prose;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find(']') else {
            out.push_str(after);
            return out;
        };
        let inner = &after[1..close];
        let next = after[close + 1..].chars().next();
        let prev = out.chars().next_back();
        let numbers: Option<Vec<u32>> = inner
            .split(',')
            .map(|n| n.trim().parse::<u32>().ok())
            .collect();
        let is_marker = !inner.trim().is_empty()
            && !prev.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !matches!(next, Some('(' | ':'));
        match numbers.filter(|_| is_marker) {
            Some(ns) => {
                let kept: Vec<String> = ns
                    .into_iter()
                    .filter_map(&mut map)
                    .map(|n| n.to_string())
                    .collect();
                if !kept.is_empty() {
                    out.push('[');
                    out.push_str(&kept.join(", "));
                    out.push(']');
                }
            }
            None => out.push_str(&after[..=close]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Spaces left before punctuation or doubled where a marker was taken out.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' '
            && matches!(
                chars.peek(),
                Some(' ' | '.' | ',' | ';' | ':' | '!' | '?' | ')')
            )
        {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(n: usize) -> Sources {
        let s = Sources::default();
        for i in 0..n {
            s.cite(Source {
                path: format!("/doc{i}.pdf"),
                location: format!("page {}", i + 1),
                passage: format!("passage {i}"),
                offset: i as u64 * 100,
            });
        }
        s
    }

    #[test]
    fn the_same_passage_keeps_its_number() {
        let s = book(2);
        let again = s.cite(Source {
            path: "/doc1.pdf".into(),
            location: "page 2".into(),
            passage: "passage 1".into(),
            offset: 100,
        });
        assert_eq!(again, 2);
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn known_citations_are_kept_in_the_order_first_cited() {
        let cited = book(3).resolve("Fees rose [3]. Pilots were paid [1, 3] and [2][1].");
        let numbers: Vec<u32> = cited.citations.iter().map(|c| c.number).collect();
        assert_eq!(numbers, vec![3, 1, 2]);
        assert_eq!(cited.citations[0].source.path, "/doc2.pdf");
        assert_eq!(cited.dropped, 0);
        assert_eq!(
            cited.answer,
            "Fees rose [3]. Pilots were paid [1, 3] and [2][1]."
        );
    }

    #[test]
    fn a_citation_to_a_passage_never_given_is_dropped_and_counted() {
        let cited = book(2).resolve("It cost 40 EUR [7]. It was paid [2, 9].");
        assert_eq!(cited.dropped, 2);
        assert_eq!(cited.answer, "It cost 40 EUR. It was paid [2].");
        assert_eq!(cited.citations.len(), 1);
        assert_eq!(book(0).resolve("None [1].").answer, "None.");
    }

    #[test]
    fn code_links_and_indexes_are_not_citations() {
        let text =
            "Use `a[9]` or\n```\nx = b[4]\n```\nsee [docs](http://x) [5]: y and list[3] [note].";
        let cited = book(1).resolve(text);
        assert_eq!(cited.dropped, 0);
        assert_eq!(cited.answer, text);
        assert!(cited.citations.is_empty());
    }
}
