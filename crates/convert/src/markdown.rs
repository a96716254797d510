//! Small Markdown writers shared by the converters.

/// Escapes a table cell: pipes and line breaks would end the cell.
pub(crate) fn cell(text: &str) -> String {
    let one_line = text.trim().replace("\r\n", "\n").replace('\n', "<br>");
    one_line.replace('|', "\\|")
}

/// A Markdown table; the first row is the header. Rows are padded to the
/// widest row.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        out.push('|');
        for c in 0..width {
            out.push(' ');
            out.push_str(&cell(row.get(c).map(String::as_str).unwrap_or("")));
            out.push_str(" |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            for _ in 0..width {
                out.push_str(" --- |");
            }
            out.push('\n');
        }
    }
    out
}

/// Text in a code fence long enough not to be closed by the content.
pub(crate) fn fence(language: &str, text: &str) -> String {
    let mut ticks = 3;
    let mut run = 0;
    for ch in text.chars() {
        if ch == '`' {
            run += 1;
            ticks = ticks.max(run + 1);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(ticks);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{language}\n{body}\n{fence}\n")
}

/// Wraps `text` in `marker` (`**`, `*`) keeping surrounding spaces outside,
/// so `" bold "` becomes `" **bold** "`.
pub(crate) fn emphasize(text: &str, marker: &str) -> String {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return text.to_string();
    }
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    format!(
        "{}{marker}{trimmed}{marker}{}",
        &text[..start],
        &text[end..]
    )
}

/// The first ATX heading's text.
pub(crate) fn first_heading(markdown: &str) -> Option<String> {
    markdown.lines().find_map(|l| {
        let t = l.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        (1..=6)
            .contains(&hashes)
            .then(|| t[hashes..].trim().to_string())
            .filter(|s| !s.is_empty() && t[hashes..].starts_with(' '))
    })
}

/// Collapses runs of 3+ newlines to one blank line and trims the ends.
pub(crate) fn tidy(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut newlines = 0;
    for ch in markdown.trim().chars() {
        if ch == '\n' {
            newlines += 1;
            if newlines <= 2 {
                out.push(ch);
            }
        } else {
            newlines = 0;
            out.push(ch);
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_escape_pipes_and_pad_rows() {
        let t = table(&[vec!["a".into(), "b|c".into()], vec!["1".into()]]);
        assert_eq!(t, "| a | b\\|c |\n| --- | --- |\n| 1 |  |\n");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fence("md", "x ``` y"), "````md\nx ``` y\n````\n");
    }

    #[test]
    fn emphasis_keeps_spaces_outside() {
        assert_eq!(emphasize(" bold ", "**"), " **bold** ");
        assert_eq!(emphasize("  ", "**"), "  ");
    }

    #[test]
    fn first_heading_and_tidy() {
        assert_eq!(
            first_heading("text\n## Title here\n# x").as_deref(),
            Some("Title here")
        );
        assert_eq!(first_heading("#hashtag"), None);
        assert_eq!(tidy("\n\na\n\n\n\nb\n"), "a\n\nb\n");
    }
}
