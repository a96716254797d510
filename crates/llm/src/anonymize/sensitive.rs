//! Detection of sensitive strings nobody registered by hand: e-mail
//! addresses, phone numbers, IBANs and key-shaped strings (API keys,
//! tokens). Detection leans towards catching: a false positive only costs
//! the model the exact spelling of a string, which is restored in replies.

use std::cmp::Reverse;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Match, Regex};

// Patterns avoid Unicode `\b`, which the regex crate's fast engines only
// run on ASCII haystacks; ASCII `\b` or checks in code take its place.

/// Local part `@` domain labels `.` a top-level domain of letters.
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"[\p{L}\p{N}][\p{L}\p{N}._%+-]*@",
        r"[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?",
        r"(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.\p{L}{2,24}",
    ))
    .expect("e-mail pattern")
});

/// Digit groups joined by one space, dot or dash, with an optional `+`
/// country code and parenthesised area code (`(555)`, `(0)`).
static PHONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\+?(?:\(\d{1,5}\) ?)?\d+(?:(?:[ .-]| ?\(\d{1,5}\) ?)\d+)*").expect("phone pattern")
});

/// Country code, check digits, then groups of four (spaced or not).
static IBAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?-u:\b)")
        .expect("IBAN pattern")
});

/// Keys with a known prefix.
static KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u:\b)(?:sk-[A-Za-z0-9_-]{20,}",
        r"|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}",
        r"|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}",
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}",
        r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
    ))
    .expect("key pattern")
});

/// Candidates for generic tokens.
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9_-]{32,}").expect("token pattern"));

/// IBAN lengths by country (SWIFT IBAN registry).
#[rustfmt::skip]
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24), ("AE", 23), ("AL", 28), ("AT", 20), ("AZ", 28), ("BA", 20), ("BE", 16),
    ("BG", 22), ("BH", 22), ("BI", 27), ("BR", 29), ("BY", 28), ("CH", 21), ("CR", 22),
    ("CY", 28), ("CZ", 24), ("DE", 22), ("DJ", 27), ("DK", 18), ("DO", 28), ("EE", 20),
    ("EG", 29), ("ES", 24), ("FI", 18), ("FK", 18), ("FO", 18), ("FR", 27), ("GB", 22),
    ("GE", 22), ("GI", 23), ("GL", 18), ("GR", 27), ("GT", 28), ("HN", 28), ("HR", 21),
    ("HU", 28), ("IE", 22), ("IL", 23), ("IQ", 23), ("IS", 26), ("IT", 27), ("JO", 30),
    ("KW", 30), ("KZ", 20), ("LB", 28), ("LC", 32), ("LI", 21), ("LT", 20), ("LU", 20),
    ("LV", 21), ("LY", 25), ("MC", 27), ("MD", 24), ("ME", 22), ("MK", 19), ("MN", 20),
    ("MR", 27), ("MT", 31), ("MU", 30), ("NI", 28), ("NL", 18), ("NO", 15), ("OM", 23),
    ("PK", 24), ("PL", 28), ("PS", 29), ("PT", 25), ("QA", 29), ("RO", 24), ("RS", 22),
    ("RU", 33), ("SA", 24), ("SC", 31), ("SD", 18), ("SE", 24), ("SI", 19), ("SK", 24),
    ("SM", 27), ("SO", 23), ("ST", 25), ("SV", 28), ("TL", 23), ("TN", 24), ("TR", 26),
    ("UA", 29), ("VA", 22), ("VG", 24), ("XK", 20), ("YE", 30),
];

/// Finds e-mail addresses, phone numbers, IBANs and key-shaped strings in
/// `text`; returns each distinct one once, in order of appearance.
///
/// - Phone numbers: 7 to 15 digits, either with a `+` country code or a
///   parenthesised area code, or in groups joined by one kind of
///   separator (space, dot or dash) shaped like a phone number (the last
///   group has at least four digits, or a leading `0` trunk prefix for two
///   groups, or French pairs). Bare digit runs, amounts, dates, times,
///   version numbers, IP addresses and thousands groupings are left alone.
/// - IBANs: spaced in groups of four or not; the length (per country,
///   where known) and the mod-97 checksum must hold.
/// - Keys: known prefixes (`sk-`, `sk-ant-`, `ghp_`, `xoxb-`, `AKIA`,
///   `AIza`, JWTs, ...) and generic tokens of at least 32 characters of
///   `[A-Za-z0-9_-]` that mix upper case, lower case and digits and look
///   random; hex strings (hashes, git SHAs, UUIDs) and parts of paths or
///   URLs are not tokens.
pub fn find_sensitive(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    emails(text, &mut spans);
    ibans(text, &mut spans);
    keys(text, &mut spans);
    phones(text, &mut spans);
    tokens(text, &mut spans);
    spans.sort_by_key(|r| (r.start, Reverse(r.end)));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut taken_to = 0;
    for r in spans {
        if r.start < taken_to {
            continue;
        }
        taken_to = r.end;
        let s = &text[r];
        if seen.insert(s) {
            out.push(s.to_string());
        }
    }
    out
}

fn emails(text: &str, out: &mut Vec<Range<usize>>) {
    for m in EMAIL.find_iter(text) {
        if glued_after(text, m.end()) {
            continue;
        }
        let domain = m.as_str().split_once('@').map_or("", |(_, d)| d);
        // `icon@2x.png` is a file name, not an address.
        let retina = domain
            .split_once('.')
            .is_some_and(|(label, _)| label.len() > 1 && retina_label(label));
        if !retina {
            out.push(m.range());
        }
    }
}

fn retina_label(label: &str) -> bool {
    label.ends_with('x') && label[..label.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

fn keys(text: &str, out: &mut Vec<Range<usize>>) {
    for m in KEY.find_iter(text) {
        let s = m.as_str();
        let glued = glued_before(text, m.start()) || glued_after(text, m.end());
        let aws = s.starts_with("AKIA") || s.starts_with("ASIA");
        // Real keys are random, so they hold digits; `sk-learn-...` is prose.
        if !glued && (aws || s.bytes().any(|b| b.is_ascii_digit())) {
            out.push(m.range());
        }
    }
}

/// Is a letter, digit or `_` right before byte `at`?
fn glued_before(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Is a letter, digit or `_` right at byte `at`?
fn glued_after(text: &str, at: usize) -> bool {
    text[at..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn ibans(text: &str, out: &mut Vec<Range<usize>>) {
    for m in IBAN.find_iter(text) {
        if glued_before(text, m.start()) || glued_after(text, m.end()) {
            continue;
        }
        if let Some(end) = iban_end(m.as_str()) {
            out.push(m.start()..m.start() + end);
        }
    }
}

/// The length of the longest valid IBAN at the start of `s`, cut at a
/// space (a word after the IBAN may look like one more group).
fn iban_end(s: &str) -> Option<usize> {
    let ends = s
        .match_indices(' ')
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()));
    let ends: Vec<usize> = ends.collect();
    ends.into_iter().rev().find(|&end| {
        let compact: String = s[..end].chars().filter(|c| *c != ' ').collect();
        valid_iban(&compact)
    })
}

fn valid_iban(iban: &str) -> bool {
    let expected = IBAN_LENGTHS
        .iter()
        .find(|(cc, _)| iban.starts_with(cc))
        .map(|(_, len)| *len);
    let length_ok = match expected {
        Some(len) => iban.len() == len,
        None => (15..=34).contains(&iban.len()),
    };
    length_ok && !matches!(&iban[2..4], "00" | "01" | "99") && iban_checksum_ok(iban)
}

/// The ISO 13616 mod-97 check: the IBAN with its first four characters
/// moved to the end, letters as 10..35, is 1 modulo 97.
fn iban_checksum_ok(iban: &str) -> bool {
    let mut rem = 0u32;
    for c in iban[4..].chars().chain(iban[..4].chars()) {
        let Some(v) = c.to_digit(36) else {
            return false;
        };
        rem = if v < 10 {
            (rem * 10 + v) % 97
        } else {
            (rem * 100 + v) % 97
        };
    }
    rem == 1
}

fn phones(text: &str, out: &mut Vec<Range<usize>>) {
    for m in PHONE.find_iter(text) {
        if digit_count(m.as_str()) >= 7 {
            phones_in(text, &m, out);
        }
    }
}

fn digit_count(s: &str) -> usize {
    s.bytes().filter(u8::is_ascii_digit).count()
}

/// Splits a candidate at its spaces and takes, from the left, the longest
/// runs of pieces that are phone numbers on their own (`Room 12
/// 555-123-4567` holds `555-123-4567`).
fn phones_in(text: &str, m: &Match<'_>, out: &mut Vec<Range<usize>>) {
    let mut pieces = Vec::new();
    let mut from = m.start();
    for (i, _) in m.as_str().match_indices(' ') {
        pieces.push((
            from..m.start() + i,
            digit_count(&m.as_str()[from - m.start()..i]),
        ));
        from = m.start() + i + 1;
    }
    pieces.push((from..m.end(), digit_count(&text[from..m.end()])));
    let mut i = 0;
    while i < pieces.len() {
        let found = (i + 1..=pieces.len())
            .scan(0, |digits, j| {
                *digits += pieces[j - 1].1;
                (*digits <= 15).then_some((j, *digits)) // a phone has at most 15
            })
            .filter(|&(_, digits)| digits >= 7)
            .map(|(j, _)| (j, pieces[i].0.start..pieces[j - 1].0.end))
            .filter(|(_, r)| is_phone(&text[r.clone()]) && phone_standalone(text, r))
            .last();
        match found {
            Some((j, r)) => {
                out.push(r);
                i = j;
            }
            None => i += 1,
        }
    }
}

/// Not glued to a word, nor joined by `.,/-:` to more digits.
fn phone_standalone(text: &str, r: &Range<usize>) -> bool {
    let glued = |near: Option<char>, beyond: Option<char>| match near {
        Some(c) if c.is_alphanumeric() || c == '_' => true,
        Some(c) if ".,/-:".contains(c) => beyond.is_some_and(|b| b.is_ascii_digit()),
        _ => false,
    };
    let mut before = text[..r.start].chars().rev();
    let mut after = text[r.end..].chars();
    let (b1, b2) = (before.next(), before.next());
    let (a1, a2) = (after.next(), after.next());
    !glued(b1, b2) && !glued(a1, a2)
}

fn is_phone(s: &str) -> bool {
    if !(7..=15).contains(&digit_count(s)) {
        return false;
    }
    if s.starts_with('+') {
        return true;
    }
    let groups: Vec<&str> = s
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .collect();
    if s.contains('(') {
        return groups.len() >= 2 && groups[1..].iter().any(|g| g.len() >= 3);
    }
    plain_phone(s, &groups)
}

/// Digit groups without `+` or parentheses: one kind of separator and a
/// phone's shape, not a date's, a version's or a list of numbers'.
fn plain_phone(s: &str, groups: &[&str]) -> bool {
    let mut seps = s.chars().filter(|c| !c.is_ascii_digit());
    let Some(sep) = seps.next() else {
        return false; // a bare number
    };
    if seps.any(|c| c != sep) || groups.iter().all(|g| g.len() == 4) {
        return false;
    }
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let trunk = groups[0].starts_with('0');
    if sep == '.' {
        return lens == [3, 3, 4];
    }
    if lens.len() == 2 {
        return trunk && lens[0] >= 2;
    }
    let date = lens.len() == 3 && lens[0] <= 2 && lens[1] <= 2 && lens[2] == 4;
    let french = lens.len() == 5 && lens.iter().all(|&l| l == 2) && trunk;
    !date && (lens[lens.len() - 1] >= 4 || french)
}

fn tokens(text: &str, out: &mut Vec<Range<usize>>) {
    for m in TOKEN.find_iter(text) {
        let glued = glued_before(text, m.start()) || glued_after(text, m.end());
        if !glued && looks_random(m.as_str()) && !in_path(text, &m.range()) {
            out.push(m.range());
        }
    }
}

/// Upper case, lower case and digits, not hex, and random-looking: the
/// character class changes often, characters rarely repeat, and at most
/// half of it is runs of three or more lower-case letters (the words of
/// long camelCase or snake_case identifiers). About 1% of random 32-char
/// tokens fail this; longer ones fail less.
fn looks_random(s: &str) -> bool {
    let b = s.as_bytes();
    let has = |f: fn(&u8) -> bool| b.iter().any(f);
    if !(has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit)) {
        return false;
    }
    if b.iter().all(|c| c.is_ascii_hexdigit() || *c == b'-') {
        return false;
    }
    let class = |c: u8| match c {
        b'A'..=b'Z' => 0,
        b'a'..=b'z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let changes = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    let wordy = lower_run_chars(b) * 2 >= b.len();
    changes * 20 >= (b.len() - 1) * 7 && !wordy && entropy(b) >= 4.0
}

/// How many characters sit in runs of three or more lower-case letters.
fn lower_run_chars(b: &[u8]) -> usize {
    b.split(|c| !c.is_ascii_lowercase())
        .map(<[u8]>::len)
        .filter(|&n| n >= 3)
        .sum()
}

/// Shannon entropy in bits per character.
fn entropy(b: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in b {
        counts[usize::from(c)] += 1;
    }
    let n = b.len() as f64;
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

/// How far around a token [`in_path`] looks for a slash.
const PATH_REACH: usize = 256;

/// Is the token part of a path, URL or file name: its whitespace-delimited
/// word holds a slash or backslash (within [`PATH_REACH`] characters), or
/// a dot joins it to more text?
fn in_path(text: &str, r: &Range<usize>) -> bool {
    let slash = |c: &char| matches!(c, '/' | '\\');
    let word = |c: &char| !c.is_whitespace();
    let before = text[..r.start].chars().rev().take(PATH_REACH);
    let after = text[r.end..].chars().take(PATH_REACH);
    if before.take_while(word).any(|c| slash(&c)) || after.take_while(word).any(|c| slash(&c)) {
        return true;
    }
    let dot_before = text[..r.start].ends_with('.');
    let mut after = text[r.end..].chars();
    let dot_after = after.next() == Some('.') && after.next().is_some_and(char::is_alphanumeric);
    dot_before || dot_after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<String> {
        find_sensitive(text)
    }

    fn assert_finds(text: &str, want: &[&str]) {
        assert_eq!(found(text), want, "in {text:?}");
    }

    fn assert_none(text: &str) {
        assert!(found(text).is_empty(), "in {text:?}: {:?}", found(text));
    }

    #[test]
    fn finds_email_addresses() {
        assert_finds(
            "Write to Anna.Berg+news@mail.example.co.uk or bob@x.io.",
            &["Anna.Berg+news@mail.example.co.uk", "bob@x.io"],
        );
        assert_finds(
            "<ops-team@corp.example.com>",
            &["ops-team@corp.example.com"],
        );
        assert_finds(
            "Grüße an jürgen.müller@straße.de!",
            &["jürgen.müller@straße.de"],
        );
    }

    #[test]
    fn ignores_email_lookalikes() {
        assert_none("@channel ping, user@localhost, pkg@1.2.3, icon@2x.png, a @ b.com");
    }

    #[test]
    fn finds_phone_numbers() {
        for phone in [
            "+49 30 1234567",
            "+4930123456",
            "+44 20 7946 0958",
            "+1 (555) 123-4567",
            "+49 (0)30 1234567",
            "+1-555-123-4567",
            "(555) 123-4567",
            "555-123-4567",
            "555.123.4567",
            "555 123 4567",
            "1-800-555-1234",
            "030 1234567",
            "0170-1234567",
            "01 23 45 67 89",
        ] {
            assert_finds(&format!("Call {phone}, please."), &[phone]);
        }
        assert_finds("tel:+49301234567", &["+49301234567"]);
    }

    #[test]
    fn phone_is_cut_from_neighbouring_numbers() {
        assert_finds("Room 12 555-123-4567 2 times", &["555-123-4567"]);
        assert_finds(
            "555-123-4567 and 555-987-6543",
            &["555-123-4567", "555-987-6543"],
        );
    }

    #[test]
    fn ignores_numbers_that_are_not_phones() {
        for text in [
            "In 2026 we sold 1234567 units for $1,234.56 (EUR 1.234.567,89).",
            "Due 2026-12-01, or 01.12.2026, or 01-12-2026, or 12/01/2026.",
            "At 2026-12-01T10:30:00Z and 2026-12-01 10:30:45 UTC.",
            "Version 10.0.19041.1234, v1.2.3, host 192.168.100.200.",
            "Totals 1 234 567 and 12 345 678; pages 100-1200; years 1990-2000.",
            "Years 2019 2020 2021 2022; card 4111 1111 1111 1111.",
            "Order 12345678, id 20260101123000, pi 3.14159265358979.",
            "ISBN 978-3-16-148410-0, ratio 10 20 30 40 50.",
        ] {
            assert_none(text);
        }
    }

    #[test]
    fn finds_ibans_with_and_without_spaces() {
        assert_finds(
            "Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432.",
            &["DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432"],
        );
        assert_finds("NO93 8601 1117 947", &["NO93 8601 1117 947"]);
        assert_finds(
            "FR14 2004 1010 0505 0001 3M02 606 is French",
            &["FR14 2004 1010 0505 0001 3M02 606"],
        );
    }

    #[test]
    fn iban_is_cut_before_a_following_word() {
        assert_finds("BE68 5390 0754 7034 ABCD", &["BE68 5390 0754 7034"]);
        assert_finds("NL91ABNA0417164300 EURO", &["NL91ABNA0417164300"]);
    }

    #[test]
    fn ignores_iban_lookalikes_failing_the_checksum() {
        assert_none("DE89 3704 0044 0532 0130 01");
        assert_none("GB82WEST12345698765433 and XY12ABCDEFGHIJKLMNOP");
        assert_none("ORDER AB12 CDEF GHIJ KLMN done");
    }

    #[test]
    fn finds_prefixed_keys() {
        for key in [
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv",
            "sk-ant-api03-AbCdEf012345_ghIJkl-6789mnOP",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
            "AKIAIOSFODNN7EXAMPLE",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "glpat-aB1cD2eF3gH4iJ5kL6mN",
        ] {
            assert_finds(&format!("key = \"{key}\";"), &[key]);
        }
    }

    #[test]
    fn finds_jwts() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_finds(&format!("Bearer {jwt}"), &[jwt]);
    }

    #[test]
    fn ignores_key_lookalikes() {
        assert_none("Use sk-learn-compatible-estimators with task-manager-abcdefghijklmnop.");
        assert_none("AKIA is a prefix; AKIAIOSFODNN7EXAMPLEX is too long.");
        assert_none("üsk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv and xDE89370400440532013000");
    }

    #[test]
    fn finds_generic_high_entropy_tokens() {
        let token = "Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU";
        assert_finds(&format!("token: {token}."), &[token]);
        let long = "4fK9_xQ2-pL7mZ3vR8nT1wY6bH5cJ0aS-dG2eU";
        assert_finds(&format!("Authorization={long}"), &[long]);
    }

    #[test]
    fn ignores_hashes_uuids_identifiers_and_paths() {
        for text in [
            "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
            "SHA 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
            "uuid 123e4567-e89b-12d3-a456-426614174000 / 123E4567-E89B-12D3-A456-426614174000",
            "fn getUserAccountBalanceForCustomer2024Report() {}",
            "XMLHttpRequest2FactoryBuilderImplV3 test_parseResponseWithUTF8Encoding_returnsOk",
            "ProjectReport_Q3_2024_FinalVersion_v2 AWSLambdaBasicExecutionRole2023Policy",
            "const Max_Retry_Count_For_Http_Requests_V2 = 3;",
            "hex 9f86D081884c7d659A2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "see /home/ann/Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU/notes.txt",
            "see C:\\Users\\ann\\Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU",
            "at https://example.com/files/Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU?x=1",
            "file Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU.pdf",
            "all lower abcdefghijklmnopqrstuvwxyz0123456789abcd",
        ] {
            assert_none(text);
        }
    }

    #[test]
    fn each_term_once_in_order_and_overlaps_resolved() {
        assert_finds(
            "a@b.de, DE89370400440532013000, a@b.de again",
            &["a@b.de", "DE89370400440532013000"],
        );
        assert!(found("").is_empty());
        assert!(found("Plain prose — with ünïcödé\u{a0}and no secrets.").is_empty());
    }

    #[test]
    fn long_inputs_stay_fast() {
        let numbers: String = (0..5_000).map(|i| format!("{} ", i % 10)).collect();
        assert!(found(&numbers).is_empty());
        let token = "Zq8vR2mX7tLp4KwN9bYc3HdF6gJs1AeU";
        let blob = format!("{token},").repeat(5_000);
        assert_eq!(found(&blob), [token]);
    }

    #[test]
    fn iban_checksum() {
        assert!(iban_checksum_ok("DE89370400440532013000"));
        assert!(!iban_checksum_ok("DE89370400440532013001"));
        assert!(!valid_iban("DE8937040044053201300")); // one short
    }
}
