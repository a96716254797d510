//! The report: the writer's text held to the sources (citations of real
//! sources only, links only to them, no images), and the numbered source
//! list with the passages each claim stands on.

use std::fmt::Write as _;
use std::sync::LazyLock;

use baton_tools::map_citations;
use regex::{Captures, Regex};
use serde::Serialize;

/// A source the report cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename = "ReportSource", rename_all = "camelCase")]
pub struct Source {
    /// Its number in the report (`[n]`).
    #[specta(type = u32)]
    pub n: usize,
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
}

/// A claim the report stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename = "ResearchClaim", rename_all = "camelCase")]
pub struct Claim {
    /// What it says.
    pub text: String,
    /// The passage of its source that says it, as quoted.
    pub quote: String,
    /// Its source's number.
    #[specta(type = u32)]
    pub source: usize,
}

/// Why a claim was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", content = "why", rename_all = "camelCase")]
pub enum DroppedWhy {
    /// It came with no passage, or one too short to tell anything.
    NoPassage,
    /// Its passage is not on the page.
    NotOnPage,
    /// Its passage speaks to an assistant (an injected instruction).
    Instruction,
    /// The reviewer found the passage does not say it.
    Unsupported(String),
}

/// A claim left out of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename = "DroppedClaim", rename_all = "camelCase")]
pub struct Dropped {
    /// What it said.
    pub claim: String,
    /// The passage it came with.
    pub quote: String,
    /// The page it came from.
    pub url: String,
    /// Why it was left out.
    pub why: DroppedWhy,
}

/// A page that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FailedPage {
    /// Its address.
    pub url: String,
    /// Why, in words.
    pub why: String,
}

/// What a research job found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename = "ResearchReport", rename_all = "camelCase")]
pub struct Report {
    /// The question.
    pub question: String,
    /// The sub-questions searched.
    pub questions: Vec<String>,
    /// The report in Markdown, its source list included.
    pub markdown: String,
    /// The sources cited, numbered.
    pub sources: Vec<Source>,
    /// The claims kept.
    pub claims: Vec<Claim>,
    /// The claims left out, and why.
    pub dropped: Vec<Dropped>,
    /// Where sources disagree, as the reviewer noted.
    pub conflicts: Vec<String>,
    /// Pages read.
    #[specta(type = u32)]
    pub pages_read: usize,
    /// Pages that could not be read, and why.
    pub pages_failed: Vec<FailedPage>,
    /// Tokens the job's agents used.
    #[specta(type = u32)]
    pub tokens: u64,
    /// How long the job took, in milliseconds.
    #[specta(type = u32)]
    pub elapsed_ms: u64,
    /// What did not go as planned (a limit reached, an agent's answer that
    /// could not be used), in words.
    pub notes: Vec<String>,
}

/// Images, links and bare addresses.
static IMAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"!\[[^\]]*\]\([^)]*\)").expect("the image pattern is valid"));
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[([^\]]*)\]\(\s*<?([^)\s>]*)>?[^)]*\)").expect("the link pattern is valid")
});
static BARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<?\b(?:(?:https?|ftp|file)://|www\.)[^\s<>()\]]+>?")
        .expect("the address pattern is valid")
});
/// Stand-ins for the links kept while other addresses are taken out
/// (private-use characters, taken out of the writer's text first).
const KEPT_OPEN: char = '\u{E000}';
const KEPT_CLOSE: char = '\u{E001}';

/// The writer's `text` held to `sources`: citations of numbers that are
/// no source are taken out, links to anything but a source become their
/// text, other addresses and images are taken out (a report must not send
/// its reader, or fetch, anywhere its sources do not).
pub(crate) fn hold_to_sources(text: &str, sources: &[Source]) -> String {
    let is_source = |url: &str| sources.iter().any(|s| s.url == url);
    let text = text.replace([KEPT_OPEN, KEPT_CLOSE], "");
    let text = IMAGE.replace_all(&text, "");
    let mut kept = Vec::new();
    let text = LINK.replace_all(&text, |c: &Captures| {
        if is_source(&c[2]) {
            kept.push(c[0].to_string());
            format!("{KEPT_OPEN}{}{KEPT_CLOSE}", kept.len() - 1)
        } else {
            c[1].to_string()
        }
    });
    let mut text = unlinked_addresses(&text, &is_source);
    for (i, link) in kept.iter().enumerate() {
        text = text.replace(&format!("{KEPT_OPEN}{i}{KEPT_CLOSE}"), link);
    }
    map_citations(&text, |n| {
        (1..=sources.len()).contains(&(n as usize)).then_some(n)
    })
}

/// `markdown` (a report) with its sources numbered anew by `number`: the
/// citations `[n]` and the source list's `n.` alike (a chat gives the
/// report's sources the numbers of its own citations).
pub fn renumbered(markdown: &str, number: impl Fn(usize) -> usize) -> String {
    static LIST_ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^(\d+)\. \[").expect("the list pattern is valid"));
    let cited = map_citations(markdown, |n| u32::try_from(number(n as usize)).ok());
    LIST_ITEM
        .replace_all(&cited, |c: &Captures| {
            let n = c[1].parse::<usize>().map_or(0, &number);
            format!("{n}. [")
        })
        .into_owned()
}

/// `text` without the addresses that are no source's (kept links are
/// stand-ins by now).
fn unlinked_addresses(text: &str, is_source: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in BARE.find_iter(text) {
        let url = m.as_str().trim_matches(['<', '>']);
        let url = url.trim_end_matches(['.', ',', ';', ':']);
        if is_source(url) {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        out.push_str("(address left out)");
        out.push_str(&m.as_str()[m.as_str().find(url).map_or(0, |i| i + url.len())..]);
        last = m.end();
    }
    out.push_str(&text[last..]);
    out
}

/// The report's Markdown: `body` under the question's title (unless it
/// has one), then the numbered sources, each with the passages quoted
/// from it.
pub(crate) fn markdown(question: &str, body: &str, sources: &[Source], claims: &[Claim]) -> String {
    let body = body.trim();
    let mut out = String::new();
    if !body.starts_with('#') {
        let _ = writeln!(out, "# {}\n", one_line(question));
    }
    out.push_str(body);
    if sources.is_empty() {
        return out;
    }
    out.push_str("\n\n## Sources\n");
    for s in sources {
        let title = if s.title.trim().is_empty() {
            &s.url
        } else {
            &s.title
        };
        let _ = write!(out, "\n{}. [{}](<{}>)", s.n, one_line(title), s.url);
        for c in claims.iter().filter(|c| c.source == s.n) {
            let _ = write!(out, "\n   > \u{201C}{}\u{201D}", plain(&c.quote));
        }
    }
    out.push('\n');
    out
}

/// The claims as a list citing their sources: the report when the writer
/// could not write one.
pub(crate) fn plain_findings(claims: &[Claim]) -> String {
    let mut out = String::from("## Findings\n");
    for c in claims {
        let _ = write!(out, "\n- {} [{}]", plain(&c.text), c.source);
    }
    out
}

/// A page's words as the report shows them: links as their text, no
/// addresses or images, on one line.
fn plain(text: &str) -> String {
    let text = IMAGE.replace_all(text, "");
    let text = LINK.replace_all(&text, "$1");
    one_line(&BARE.replace_all(&text, "(address left out)"))
}

/// `text` on one line, without Markdown that could end a list item.
fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['[', ']'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> Vec<Source> {
        (1..=2)
            .map(|n| Source {
                n,
                url: format!("http://site.test/{n}"),
                title: format!("Page {n}"),
            })
            .collect()
    }

    #[test]
    fn only_real_sources_are_cited_and_linked() {
        let text = "Velmar is the capital [1][7], founded in 1204 [2, 9, 1]. \
                    See [the atlas](http://evil.test/x?d=secret) or [page 2](http://site.test/2), \
                    http://evil.test/collect and <http://site.test/1>. ![t](http://evil.test/p.png) \
                    [9]";
        let nested = hold_to_sources(
            "[see [1] here](https://evil.test/?q=1) and www.evil.test/x",
            &sources(),
        );
        assert_eq!(
            nested,
            "[see [1] here]((address left out)) and (address left out)"
        );
        let held = hold_to_sources(text, &sources());
        assert_eq!(
            held,
            "Velmar is the capital [1], founded in 1204 [2, 1]. \
             See the atlas or [page 2](http://site.test/2), \
             (address left out) and <http://site.test/1>. "
        );
    }

    #[test]
    fn a_report_is_numbered_anew_for_a_chat() {
        let md = "# Q\n\nA [1], B [2][1].\n\n## Sources\n\n1. [One](<u1>)\n2. [Two](<u2>)\n";
        assert_eq!(
            renumbered(md, |n| n + 4),
            "# Q\n\nA [5], B [6][5].\n\n## Sources\n\n5. [One](<u1>)\n6. [Two](<u2>)\n"
        );
    }

    #[test]
    fn the_source_list_numbers_each_source_with_its_passages() {
        let claims = vec![
            Claim {
                text: "a".into(),
                quote: "first [passage]\nof one".into(),
                source: 1,
            },
            Claim {
                text: "b".into(),
                quote: "second [in](https://evil.test/?x) http://evil.test/y".into(),
                source: 2,
            },
        ];
        let md = markdown("What is it?", "It is [1][2].", &sources(), &claims);
        assert!(
            md.starts_with("# What is it?\n\nIt is [1][2].\n\n## Sources\n"),
            "{md}"
        );
        assert!(
            md.contains(
                "1. [Page 1](<http://site.test/1>)\n   > \u{201C}first passage of one\u{201D}"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "2. [Page 2](<http://site.test/2>)\n   > \u{201C}second in (address left out)\u{201D}"
            ),
            "{md}"
        );
        assert_eq!(plain_findings(&claims), "## Findings\n\n- a [1]\n- b [2]");
    }
}
