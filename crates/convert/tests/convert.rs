//! Converts the fixture corpus (real files from LibreOffice, python-docx,
//! openpyxl, python-pptx, ReportLab, EbookLib, Pillow; see
//! tests/fixtures/docs/README.md) and compares each result with the ground
//! truth written from the same source text.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use baton_convert::{ConvertError, ConvertOptions, Format, convert, convert_bounded};
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/docs")
}

fn truth() -> Value {
    let text = std::fs::read_to_string(fixtures().join("truth.json")).expect("truth.json");
    serde_json::from_str(&text).expect("truth.json parses")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Markdown reduced to words: markup, page markers and link targets gone.
fn plain(markdown: &str) -> String {
    let mut out = String::new();
    for line in markdown.lines() {
        let l = line.trim();
        if l.starts_with("<!-- page") || l.chars().all(|c| matches!(c, '|' | '-' | ' ' | ':')) {
            continue;
        }
        let mut s = String::new();
        let mut chars = l.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '#' | '*' | '|' | '>' | '`' | '\\' => {}
                // [text](url) → text
                ']' if chars.peek() == Some(&'(') => {
                    for c in chars.by_ref() {
                        if c == ')' {
                            break;
                        }
                    }
                }
                '[' => {}
                _ => s.push(c),
            }
        }
        let s = s.trim_start_matches(['-', ' ']).to_string();
        out.push_str(&s);
        out.push(' ');
    }
    collapse(&out)
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Word-level recall in order: the longest common subsequence of the
/// truth's words and the output's, over the truth's word count. Extra
/// text (headers, notes, sheet names) does not count against it; lost,
/// garbled or reordered words do.
fn similarity(truth: &str, got: &str) -> f64 {
    let norm = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (a, b) = (norm(truth), norm(got));
    if a.is_empty() {
        return 1.0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    for x in &a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()] as f64 / a.len() as f64
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_fixture_matches_its_ground_truth() {
    let truth = truth();
    let options = ConvertOptions::default();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for f in truth["fixtures"].as_array().unwrap() {
        let file = f["file"].as_str().unwrap();
        let bytes = read(file);
        let conv = match convert(file, &bytes, &options) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let md = &conv.markdown;
        if f["exact"].as_bool() == Some(true) {
            let text = f["text"].as_str().unwrap();
            if !md.contains(text.trim_end()) {
                failures.push(format!("{file}: exact content not kept:\n{md}"));
            }
            continue;
        }
        if let Some(text) = f["text"].as_str() {
            let expected = collapse(&text.replace('\t', " "));
            let got = plain(md);
            let sim = similarity(&expected, &got);
            report.push(format!("{file}: similarity {sim:.3}"));
            let (want_words, got_words) = (
                expected.split_whitespace().count(),
                got.split_whitespace().count(),
            );
            if got_words > 2 * want_words + 60 {
                failures.push(format!(
                    "{file}: {got_words} words for {want_words} expected: noise leaked in"
                ));
            }
            let floor = if f["needs_ocr"].as_bool() == Some(true) {
                0.90
            } else {
                0.95
            };
            if sim < floor {
                failures.push(format!(
                    "{file}: similarity {sim:.3} < {floor}\n--- got\n{got}\n--- want\n{expected}"
                ));
            }
        }
        for bad in strings(f, "must_not_contain") {
            if md.contains(&bad) {
                failures.push(format!("{file}: contains `{bad}`"));
            }
        }
        let truncated = conv.warnings.iter().any(|w| w.contains("truncated"));
        for cell in strings(f, "cells").into_iter().filter(|_| !truncated) {
            let in_table = md
                .lines()
                .any(|l| l.trim_start().starts_with('|') && l.contains(&cell));
            if !in_table {
                failures.push(format!("{file}: table cell `{cell}` missing"));
            }
        }
        // Headings must be headings where the format marks them.
        if matches!(
            conv.format,
            Format::Docx | Format::Odt | Format::Html | Format::Epub | Format::Pdf
        ) && f["needs_ocr"].as_bool() != Some(true)
        {
            for h in strings(f, "headings") {
                let found = md.lines().any(|l| {
                    let l = l.trim_start();
                    l.contains(&h)
                        && (l.starts_with('#')
                            || conv.format == Format::Pdf
                                && l.starts_with("**")
                                && l.ends_with("**")) // a bold label line in a PDF is as far as layout shows
                });
                if !found {
                    failures.push(format!("{file}: heading `{h}` is not a Markdown heading"));
                }
            }
        }
        // List items are Markdown list items where the format marks them.
        if matches!(
            conv.format,
            Format::Docx | Format::Odt | Format::Rtf | Format::Html | Format::Pptx
        ) {
            for item in strings(f, "list_items") {
                let found = md.lines().any(|l| {
                    let t = l.trim_start();
                    let marked = t.starts_with("- ")
                        || t.starts_with("* ")
                        || t.split_once(". ").is_some_and(|(n, _)| {
                            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())
                        });
                    marked && t.contains(&item)
                });
                if !found {
                    failures.push(format!(
                        "{file}: list item `{item}` is not a Markdown list item"
                    ));
                }
            }
        }
        // Each passage's opening words, in order (a line-wrap word may
        // stray; whole passages must not).
        let order: Vec<String> = strings(f, "order")
            .iter()
            .map(|o| o.chars().take(40).collect())
            .collect();
        let positions: Vec<Option<usize>> = order.iter().map(|o| md.find(o.as_str())).collect();
        if positions.iter().any(Option::is_none) || positions.windows(2).any(|w| w[0] > w[1]) {
            failures.push(format!(
                "{file}: reading order wrong: {order:?} at {positions:?}"
            ));
        }
        if conv.format == Format::Docx || conv.format == Format::Html {
            for b in strings(f, "bold") {
                if !md.contains(&format!("**{b}**")) {
                    failures.push(format!("{file}: bold `{b}` lost"));
                }
            }
            for link in f["links"].as_array().into_iter().flatten() {
                let want = format!(
                    "[{}]({})",
                    link["text"].as_str().unwrap(),
                    link["url"].as_str().unwrap()
                );
                if !md.contains(&want) {
                    failures.push(format!("{file}: link {want} lost"));
                }
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn big_sheets_are_truncated_with_a_note() {
    let c = convert("big.xlsx", &read("big.xlsx"), &ConvertOptions::default()).unwrap();
    assert!(
        c.markdown.contains("showing 1000 of 5000 rows"),
        "{}",
        &c.markdown[c.markdown.len() - 300..]
    );
    assert!(c.warnings.iter().any(|w| w.contains("truncated")));
    let rows = c.markdown.lines().filter(|l| l.starts_with('|')).count();
    assert_eq!(rows, 1000 + 2, "header + separator + 1000 rows");
}

#[test]
fn formulas_without_saved_results_are_flagged() {
    let c = convert(
        "budget.xlsx",
        &read("budget.xlsx"),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("4 formula cell(s) have no saved result")),
        "{:?}",
        c.warnings
    );
    let c = convert(
        "budget_lo.xlsx",
        &read("budget_lo.xlsx"),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert!(c.markdown.contains("| 3203.25 |"), "{}", c.markdown);
    assert!(
        c.markdown.contains("2024-01-15"),
        "dates stay dates: {}",
        c.markdown
    );
}

#[test]
fn bad_files_fail_with_a_reason_a_user_understands() {
    let o = ConvertOptions::default();
    type Check = fn(&ConvertError) -> bool;
    let cases: &[(&str, Check)] = &[
        ("empty.pdf", |e| matches!(e, ConvertError::Empty)),
        ("corrupt.docx", |e| {
            matches!(
                e,
                ConvertError::Corrupt {
                    format: "Word document",
                    ..
                }
            )
        }),
        ("corrupt.pdf", |e| {
            matches!(
                e,
                ConvertError::Corrupt { .. } | ConvertError::NoText { .. }
            )
        }),
        ("encrypted.pdf", |e| {
            matches!(e, ConvertError::Encrypted { format: "PDF" })
        }),
        ("random.bin", |e| {
            matches!(e, ConvertError::Unsupported { .. })
        }),
        ("zipbomb.docx", |e| {
            matches!(e, ConvertError::UnpackLimit { .. })
        }),
    ];
    for (file, ok) in cases {
        let err = convert(file, &read(file), &o).expect_err(file);
        assert!(ok(&err), "{file}: unexpected error {err:?}");
        let text = err.to_string();
        assert!(
            !text.is_empty() && !text.contains("Error("),
            "{file}: {text}"
        );
    }
    assert!(
        convert("zipbomb.docx", &read("zipbomb.docx"), &o)
            .unwrap_err()
            .to_string()
            .contains("zip bomb")
    );
}

#[test]
fn a_mislabelled_file_is_read_as_what_it_is_with_a_warning() {
    let c = convert(
        "mislabelled.docx",
        &read("mislabelled.docx"),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(c.format, Format::Pdf);
    assert!(c.markdown.contains("Layout Test Document"));
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("named like Word document")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn limits_refuse_big_files_and_slow_conversions() {
    let tiny = ConvertOptions {
        max_bytes: 1000,
        ..ConvertOptions::default()
    };
    let err = convert("big.xlsx", &read("big.xlsx"), &tiny).unwrap_err();
    assert!(matches!(err, ConvertError::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("the limit is 1000 bytes"), "{err}");

    let hurried = ConvertOptions {
        timeout: Duration::from_millis(1),
        ..ConvertOptions::default()
    };
    let bytes: Arc<[u8]> = read("scanned.pdf").into();
    let err = convert_bounded("scanned.pdf", bytes, &hurried).unwrap_err();
    assert_eq!(err, ConvertError::Timeout { secs: 1 });
}

#[test]
fn scanned_pages_without_ocr_are_reported_not_silently_empty() {
    let err = convert(
        "scanned.pdf",
        &read("scanned.pdf"),
        &ConvertOptions::default().without_ocr(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no OCR engine"), "{err}");
    let err = convert(
        "invoice.png",
        &read("invoice.png"),
        &ConvertOptions::default().without_ocr(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no OCR engine"), "{err}");
}
