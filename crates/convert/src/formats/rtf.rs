//! RTF: paragraphs, headings (outline levels), list items, tables and
//! footnotes.
//!
//! Written here rather than with the `rtf-parser` crate: that crate joins
//! paragraphs without breaks, keeps the document-info group as body text
//! and panics on some malformed input. RTF is a small token language; this
//! reader handles the parts that carry text and skips every destination
//! that does not.

use crate::markdown::{table, tidy};
use crate::{Conversion, ConvertError, Format};

/// Destinations whose content is not document text.
const SKIP: &[&str] = &[
    "fonttbl",
    "colortbl",
    "info",
    "pict",
    "object",
    "header",
    "headerl",
    "headerr",
    "headerf",
    "footer",
    "footerl",
    "footerr",
    "footerf",
    "listtable",
    "listoverridetable",
    "rsidtbl",
    "generator",
    "xmlnstbl",
    "themedata",
    "colorschememapping",
    "latentstyles",
    "datastore",
    "fldinst",
    "bkmkstart",
    "bkmkend",
    "pgdsctbl",
    "revtbl",
    "filetbl",
    "mmathPr",
    "pn",
    "shpinst",
    "nonshppict",
    "falt",
    "panose",
    "template",
    "userprops",
    "docvar",
];

#[derive(Clone, Copy, Default)]
struct State {
    skip: bool,
    footnote: bool,
    /// Inside `{\stylesheet …}`: text is a style's name, not body text.
    stylesheet: bool,
    uc: usize,
}

/// A paragraph style from the stylesheet.
#[derive(Default, Clone)]
struct Style {
    name: String,
    outline: Option<u8>,
}

#[derive(Default)]
struct Out {
    blocks: Vec<String>,
    para: String,
    heading: Option<u8>,
    styles: std::collections::HashMap<i32, Style>,
    /// The style being defined in the stylesheet.
    defining: Option<(i32, Style)>,
    /// The current paragraph's style.
    para_style: Option<i32>,
    list_level: Option<u8>,
    in_table: bool,
    row: Vec<String>,
    rows: Vec<Vec<String>>,
    notes: Vec<String>,
    note: String,
}

impl Out {
    fn push(&mut self, s: &str, state: State) {
        if state.stylesheet {
            if let (false, Some((_, style))) = (state.skip, self.defining.as_mut()) {
                style.name.push_str(s);
            }
            return;
        }
        if state.skip {
            return;
        }
        if state.footnote {
            self.note.push_str(s);
        } else {
            self.para.push_str(s);
        }
    }

    fn flush_table(&mut self) {
        if !self.rows.is_empty() {
            let rows = std::mem::take(&mut self.rows);
            self.blocks.push(table(&rows));
        }
    }

    fn end_paragraph(&mut self) {
        if self.in_table {
            self.para.push(' ');
            return;
        }
        self.flush_table();
        let text = std::mem::take(&mut self.para);
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let styled = self
            .para_style
            .and_then(|id| self.styles.get(&id))
            .and_then(|st| {
                let name = st
                    .name
                    .trim()
                    .trim_end_matches(';')
                    .trim()
                    .to_ascii_lowercase();
                st.outline.map(|l| l + 1).or_else(|| {
                    if name == "title" {
                        Some(1)
                    } else {
                        name.strip_prefix("heading ")
                            .and_then(|n| n.trim().parse::<u8>().ok())
                    }
                })
            });
        let block = if let Some(level) = self.heading.or(styled).map(|l| l.clamp(1, 6)) {
            format!("{} {text}", "#".repeat(level as usize))
        } else if let Some(rest) = text
            .strip_prefix(['•', '·', '\u{f0b7}', '\u{f0a7}', '-'])
            .filter(|r| r.starts_with(['\t', ' ']))
        {
            let indent = "  ".repeat(self.list_level.unwrap_or(0) as usize);
            format!("{indent}- {}", rest.trim())
        } else if let Some((n, rest)) = text
            .split_once(".\t")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            let indent = "  ".repeat(self.list_level.unwrap_or(0) as usize);
            format!("{indent}{n}. {}", rest.trim())
        } else {
            text.to_string()
        };
        self.blocks.push(block);
    }
}

pub(crate) fn convert(bytes: &[u8]) -> Result<Conversion, ConvertError> {
    let src = bytes;
    if !src.starts_with(b"{\\rtf") {
        return Err(ConvertError::Corrupt {
            format: "RTF",
            reason: "it does not start with {\\rtf".into(),
        });
    }
    let mut out = Out::default();
    let mut stack: Vec<State> = Vec::new();
    let mut state = State {
        uc: 1,
        ..State::default()
    };
    let mut skip_chars = 0usize;
    let mut i = 0;
    let mut group_start = false;
    while i < src.len() {
        let b = src[i];
        match b {
            b'{' => {
                stack.push(state);
                group_start = true;
                i += 1;
                continue;
            }
            b'}' => {
                // The end of a style's group in the stylesheet: keep it.
                if state.stylesheet
                    && stack.last().is_some_and(|s| s.stylesheet)
                    && !stack
                        .get(stack.len().wrapping_sub(2))
                        .is_some_and(|s| s.stylesheet)
                    && let Some((id, style)) = out.defining.take()
                {
                    out.styles.insert(id, style);
                }
                if state.footnote && !stack.last().is_some_and(|s| s.footnote) {
                    let note = std::mem::take(&mut out.note);
                    out.notes.push(note.trim().to_string());
                    let n = out.notes.len();
                    out.para.push_str(&format!("[^{n}]"));
                }
                state = stack.pop().unwrap_or(state);
                i += 1;
            }
            b'\\' => {
                i += 1;
                let Some(&c) = src.get(i) else { break };
                if c.is_ascii_alphabetic() {
                    let start = i;
                    while i < src.len() && src[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    let word = std::str::from_utf8(&src[start..i]).unwrap_or("");
                    let num_start = i;
                    if i < src.len() && (src[i] == b'-' || src[i].is_ascii_digit()) {
                        i += 1;
                        while i < src.len() && src[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    let param: Option<i32> = std::str::from_utf8(&src[num_start..i])
                        .ok()
                        .and_then(|s| s.parse().ok());
                    if i < src.len() && src[i] == b' ' {
                        i += 1;
                    }
                    if group_start && SKIP.contains(&word) {
                        state.skip = true;
                    }
                    if group_start && word == "stylesheet" {
                        state.stylesheet = true;
                    }
                    match word {
                        "par" | "sect" | "page" => out.end_paragraph(),
                        "line" => out.push("\n", state),
                        "tab" => out.push("\t", state),
                        "s" if state.stylesheet => {
                            out.defining = param.map(|id| (id, Style::default()));
                        }
                        "s" => out.para_style = param,
                        "outlinelevel" if state.stylesheet => {
                            if let (Some((_, st)), Some(l)) = (out.defining.as_mut(), param) {
                                st.outline = Some(l.clamp(0, 5) as u8);
                            }
                        }
                        "pard" => {
                            out.para_style = None;
                            out.heading = None;
                            out.list_level = None;
                            out.in_table = false;
                        }
                        "intbl" => out.in_table = true,
                        "outlinelevel" => out.heading = param.map(|l| (l.clamp(0, 5) + 1) as u8),
                        "ilvl" => out.list_level = param.map(|l| l.clamp(0, 8) as u8),
                        "cell" => {
                            let cell = std::mem::take(&mut out.para);
                            out.row.push(cell.trim().to_string());
                        }
                        "row" => {
                            let row = std::mem::take(&mut out.row);
                            out.rows.push(row);
                        }
                        "footnote" => {
                            state.footnote = true;
                            state.skip = false;
                        }
                        "uc" => state.uc = param.unwrap_or(1).max(0) as usize,
                        "u" => {
                            if let Some(p) = param {
                                let code = if p < 0 { p + 65536 } else { p } as u32;
                                if let Some(ch) = char::from_u32(code) {
                                    out.push(ch.encode_utf8(&mut [0u8; 4]), state);
                                }
                                skip_chars = state.uc;
                            }
                        }
                        "emdash" => out.push("—", state),
                        "endash" => out.push("–", state),
                        "bullet" => out.push("•", state),
                        "lquote" => out.push("‘", state),
                        "rquote" => out.push("’", state),
                        "ldblquote" => out.push("“", state),
                        "rdblquote" => out.push("”", state),
                        _ => {}
                    }
                    group_start = false;
                    continue;
                }
                i += 1;
                match c {
                    b'*' => state.skip = true,
                    b'\'' => {
                        let hex = src
                            .get(i..i + 2)
                            .and_then(|h| std::str::from_utf8(h).ok())
                            .and_then(|h| u8::from_str_radix(h, 16).ok());
                        i += 2;
                        if skip_chars > 0 {
                            skip_chars -= 1;
                        } else if let Some(byte) = hex {
                            let one = [byte];
                            let (s, _, _) = encoding_rs::WINDOWS_1252.decode(&one);
                            out.push(&s, state);
                        }
                    }
                    b'~' => out.push("\u{a0}", state),
                    b'_' => out.push("-", state),
                    b'-' => {}
                    b'\n' | b'\r' => out.end_paragraph(),
                    other => out.push(&(other as char).to_string(), state),
                }
            }
            b'\r' | b'\n' => i += 1,
            _ => {
                let start = i;
                while i < src.len() && !matches!(src[i], b'{' | b'}' | b'\\' | b'\r' | b'\n') {
                    i += 1;
                }
                let mut text = &src[start..i];
                while skip_chars > 0 && !text.is_empty() {
                    text = &text[1..];
                    skip_chars -= 1;
                }
                let (s, _, _) = encoding_rs::WINDOWS_1252.decode(text);
                out.push(&s, state);
            }
        }
        group_start = false;
    }
    out.end_paragraph();
    out.flush_table();
    // Consecutive list items stay together; other blocks get a blank line.
    let is_item = |b: &str| {
        let t = b.trim_start();
        t.starts_with("- ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let mut md = String::new();
    for (i, block) in out.blocks.iter().enumerate() {
        if i > 0 {
            md.push_str(if is_item(block) && is_item(&out.blocks[i - 1]) {
                "\n"
            } else {
                "\n\n"
            });
        }
        md.push_str(block);
    }
    md.push('\n');
    if !out.notes.is_empty() {
        md.push('\n');
        for (n, note) in out.notes.iter().enumerate() {
            md.push_str(&format!("[^{}]: {note}\n", n + 1));
        }
    }
    let md = tidy(&md);
    if md.trim().is_empty() {
        return Err(ConvertError::NoText { format: "RTF" });
    }
    Ok(Conversion::new(Format::Rtf, md))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_come_from_stylesheet_styles() {
        let rtf = br"{\rtf1{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 Title;}{\*\cs15 Strong;}}\pard\plain\s2 Big\par\pard\s1 Part\par\pard\s0 Text\par}";
        let c = convert(rtf).unwrap();
        assert_eq!(c.markdown, "# Big\n\n# Part\n\nText\n");
    }

    #[test]
    fn paragraphs_unicode_and_skipped_groups() {
        let rtf = br"{\rtf1\ansi{\fonttbl{\f0 Arial;}}{\info{\title T}}{\*\generator x;}\pard\outlinelevel0 Head\par\pard Zo\'eb \u8364?5\par}";
        let c = convert(rtf).unwrap();
        assert_eq!(c.markdown, "# Head\n\nZoë €5\n");
    }

    #[test]
    fn tables_become_markdown_tables() {
        let rtf = br"{\rtf1\trowd\pard\intbl A\cell B\cell\row\trowd\pard\intbl 1\cell 2\cell\row\pard After\par}";
        let c = convert(rtf).unwrap();
        assert_eq!(c.markdown, "| A | B |\n| --- | --- |\n| 1 | 2 |\n\nAfter\n");
    }
}
