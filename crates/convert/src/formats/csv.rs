//! CSV and TSV to a Markdown table, the delimiter sniffed.

use crate::markdown::table;
use crate::{Conversion, ConvertOptions, Format};

use super::text::decode;

/// The delimiter that splits the first lines into the most consistent,
/// widest rows (`,`, `;`, tab or `|`).
pub fn sniff_delimiter(text: &str) -> u8 {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(20)
        .collect();
    let mut best = (b',', 0usize, false);
    for d in [b',', b';', b'\t', b'|'] {
        let counts: Vec<usize> = lines
            .iter()
            .map(|l| count_outside_quotes(l, d as char))
            .collect();
        let Some(&first) = counts.first() else {
            continue;
        };
        let consistent = counts.iter().all(|&c| c == first);
        if first > 0 && ((consistent && !best.2) || (consistent == best.2 && first > best.1)) {
            best = (d, first, consistent);
        }
    }
    best.0
}

fn count_outside_quotes(line: &str, d: char) -> usize {
    let mut quoted = false;
    line.chars()
        .filter(|&c| {
            if c == '"' {
                quoted = !quoted;
            }
            c == d && !quoted
        })
        .count()
}

pub(crate) fn convert(format: Format, bytes: &[u8], options: &ConvertOptions) -> Conversion {
    let text = decode(bytes);
    let delimiter = if format == Format::Tsv {
        b'\t'
    } else {
        sniff_delimiter(&text)
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut total = 0usize;
    let mut warnings = Vec::new();
    for record in reader.records() {
        match record {
            Ok(r) => {
                total += 1;
                if rows.len() <= options.max_table_rows {
                    rows.push(r.iter().map(str::to_string).collect());
                }
            }
            Err(e) => {
                warnings.push(format!("a malformed row was skipped: {e}"));
            }
        }
    }
    let mut markdown = table(&rows);
    let data_rows = total.saturating_sub(1);
    let kept = rows.len().saturating_sub(1);
    if kept < data_rows {
        let note = format!("Table truncated: showing {kept} of {data_rows} rows.");
        markdown.push_str(&format!("\n*{note}*\n"));
        warnings.push(note);
    }
    let mut c = Conversion::new(format, markdown);
    c.warnings = warnings;
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimiters_are_sniffed() {
        assert_eq!(sniff_delimiter("a;b;c\n1,5;2;3\n"), b';');
        assert_eq!(sniff_delimiter("a,b\n\"x,y\",2\n"), b',');
        assert_eq!(sniff_delimiter("a\tb\n1\t2\n"), b'\t');
    }

    #[test]
    fn long_tables_say_what_was_kept() {
        let mut csv = String::from("n\n");
        for i in 0..50 {
            csv.push_str(&format!("{i}\n"));
        }
        let opts = ConvertOptions {
            max_table_rows: 10,
            ..ConvertOptions::default().without_ocr()
        };
        let c = convert(Format::Csv, csv.as_bytes(), &opts);
        assert!(
            c.markdown.contains("showing 10 of 50 rows"),
            "{}",
            c.markdown
        );
    }
}
