//! Heading-aware chunking of converted Markdown.
//!
//! A chunk never spans two sections: each heading starts a new one, so a
//! hit lands under the heading it belongs to. Long sections are cut at
//! line boundaries near the target size, and each piece repeats the tail
//! of the previous one (the overlap) so a phrase across the cut still
//! matches.

/// A piece of a document as indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text.
    pub text: String,
    /// The heading trail: `Report > Financials`.
    pub heading: String,
    /// Where it is for a person: `page 3 · Financials`.
    pub location: String,
    /// Character offset of the chunk's start in the Markdown.
    pub offset: usize,
}

fn heading_level(line: &str) -> Option<(usize, &str)> {
    let hashes = line.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        Some((hashes, line[hashes..].trim()))
    } else {
        None
    }
}

fn page_marker(line: &str) -> Option<usize> {
    line.trim()
        .strip_prefix("<!-- page ")?
        .strip_suffix(" -->")?
        .parse()
        .ok()
}

struct Builder {
    chunks: Vec<Chunk>,
    target: usize,
    overlap: usize,
}

impl Builder {
    /// Emits `lines` (each with its char offset) as one or more chunks.
    fn section(&mut self, lines: &[(usize, String)], heading: &str, page: Option<usize>) {
        let location = match (page, heading.rsplit(" > ").next().filter(|h| !h.is_empty())) {
            (Some(p), Some(h)) => format!("page {p} · {h}"),
            (Some(p), None) => format!("page {p}"),
            (None, Some(h)) => h.to_string(),
            (None, None) => "start".to_string(),
        };
        let mut text = String::new();
        let mut start: Option<usize> = None;
        for (offset, line) in lines {
            if start.is_none() {
                if line.trim().is_empty() {
                    continue;
                }
                start = Some(*offset);
            }
            text.push_str(line);
            text.push('\n');
            if text.chars().count() >= self.target {
                let tail = tail_chars(&text, self.overlap);
                self.push(
                    std::mem::take(&mut text),
                    heading,
                    &location,
                    start.unwrap_or(*offset),
                );
                let end = offset + line.chars().count() + 1;
                start = Some(end.saturating_sub(tail.chars().count()));
                text = tail;
            }
        }
        if let Some(s) = start
            && !text.trim().is_empty()
            && (self.chunks.last().is_none_or(|c| !c.text.ends_with(&text)))
        {
            self.push(text, heading, &location, s);
        }
    }

    fn push(&mut self, text: String, heading: &str, location: &str, offset: usize) {
        self.chunks.push(Chunk {
            text: text.trim().to_string(),
            heading: heading.to_string(),
            location: location.to_string(),
            offset,
        });
    }
}

/// The last `n` characters of `text`, starting at a word boundary.
fn tail_chars(text: &str, n: usize) -> String {
    let total = text.chars().count();
    if n == 0 || total <= n {
        return if n == 0 {
            String::new()
        } else {
            text.to_string()
        };
    }
    let tail: String = text.chars().skip(total - n).collect();
    match tail.find(char::is_whitespace) {
        Some(i) => tail[i..].trim_start().to_string(),
        None => tail,
    }
}

/// Cuts `markdown` into chunks of about `target` characters (never across
/// a heading) with `overlap` characters repeated between pieces of one
/// section.
pub fn chunk_markdown(markdown: &str, target: usize, overlap: usize) -> Vec<Chunk> {
    let mut b = Builder {
        chunks: Vec::new(),
        target: target.max(200),
        overlap: overlap.min(target / 2),
    };
    let mut trail: Vec<(usize, String)> = Vec::new();
    let mut page: Option<usize> = None;
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut offset = 0usize;
    let heading_text = |trail: &[(usize, String)]| {
        trail
            .iter()
            .map(|(_, h)| h.as_str())
            .collect::<Vec<_>>()
            .join(" > ")
    };
    for line in markdown.split('\n') {
        let len = line.chars().count() + 1;
        if let Some(p) = page_marker(line) {
            b.section(&lines, &heading_text(&trail), page);
            lines.clear();
            page = Some(p);
        } else if let Some((level, title)) = heading_level(line) {
            b.section(&lines, &heading_text(&trail), page);
            lines.clear();
            trail.retain(|(l, _)| *l < level);
            trail.push((level, title.to_string()));
            lines.push((offset, line.to_string()));
        } else {
            lines.push((offset, line.to_string()));
        }
        offset += len;
    }
    b.section(&lines, &heading_text(&trail), page);
    b.chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_start_chunks_and_carry_their_trail() {
        let md = "intro text\n\n# Report\n\nabout\n\n## Money\n\nnumbers here\n\n# Other\n\nx\n";
        let c = chunk_markdown(md, 1000, 100);
        let summary: Vec<(&str, &str)> = c
            .iter()
            .map(|c| (c.heading.as_str(), c.text.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("", "intro text"),
                ("Report", "# Report\n\nabout"),
                ("Report > Money", "## Money\n\nnumbers here"),
                ("Other", "# Other\n\nx"),
            ]
        );
        assert_eq!(&md[c[2].offset..c[2].offset + 8], "## Money");
        assert_eq!(c[2].location, "Money");
    }

    #[test]
    fn long_sections_split_with_overlap_and_pages_are_located() {
        let para: String = (0..200).map(|i| format!("word{i} ")).collect();
        let md = format!("<!-- page 2 -->\n\n# Big\n\n{para}\n{para}\n{para}\n");
        let c = chunk_markdown(&md, 1000, 100);
        assert!(c.len() >= 3, "{}", c.len());
        assert!(c.iter().all(|c| c.location == "page 2 · Big"));
        // The overlap: each piece starts with words that ended the previous.
        let first_word = c[1].text.split_whitespace().next().unwrap();
        assert!(c[0].text.contains(first_word));
    }
}
