//! Word error rate, for checking transcripts against what was said.

/// Words of `text` for scoring: lower case, punctuation dropped, `%` read
/// as "percent", and number words up to ninety written as digits, so
/// "twelve" and "12" count as the same word.
pub fn normalize_words(text: &str) -> Vec<String> {
    let spaced: String = text
        .replace('%', " percent ")
        .chars()
        .map(|c| match c {
            '-' | '–' | '—' | '/' => ' ',
            _ => c,
        })
        .collect();
    spaced
        .split_whitespace()
        .filter_map(|w| {
            let w: String = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '.' || *c == '\'')
                .collect::<String>()
                .to_lowercase();
            let w = w.trim_end_matches('.').to_string();
            // "1,200" → "1200"; a decimal point between digits stays.
            let w = if w.chars().all(|c| c.is_ascii_digit() || c == '.') {
                w
            } else {
                w.replace('.', "")
            };
            (!w.is_empty()).then(|| number_word(&w).map_or(w, str::to_string))
        })
        .collect()
}

fn number_word(w: &str) -> Option<&'static str> {
    const WORDS: [(&str, &str); 28] = [
        ("zero", "0"),
        ("one", "1"),
        ("two", "2"),
        ("three", "3"),
        ("four", "4"),
        ("five", "5"),
        ("six", "6"),
        ("seven", "7"),
        ("eight", "8"),
        ("nine", "9"),
        ("ten", "10"),
        ("eleven", "11"),
        ("twelve", "12"),
        ("thirteen", "13"),
        ("fourteen", "14"),
        ("fifteen", "15"),
        ("sixteen", "16"),
        ("seventeen", "17"),
        ("eighteen", "18"),
        ("nineteen", "19"),
        ("twenty", "20"),
        ("thirty", "30"),
        ("forty", "40"),
        ("fifty", "50"),
        ("sixty", "60"),
        ("seventy", "70"),
        ("eighty", "80"),
        ("ninety", "90"),
    ];
    WORDS.iter().find(|(word, _)| *word == w).map(|(_, d)| *d)
}

/// Word error rate of `hypothesis` against `reference`: (substitutions +
/// deletions + insertions) / reference words, after [`normalize_words`].
/// Also returns the edit count and the reference length, so rates can be
/// pooled over many clips.
pub fn word_error_rate(reference: &str, hypothesis: &str) -> (f64, usize, usize) {
    let r = normalize_words(reference);
    let h = normalize_words(hypothesis);
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    for (i, rw) in r.iter().enumerate() {
        let mut cur = vec![i + 1; h.len() + 1];
        for (j, hw) in h.iter().enumerate() {
            let sub = prev[j] + usize::from(rw != hw);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    let edits = prev[h.len()];
    let rate = if r.is_empty() {
        if h.is_empty() { 0.0 } else { 1.0 }
    } else {
        edits as f64 / r.len() as f64
    };
    (rate, edits, r.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_case_punctuation_and_numbers() {
        assert_eq!(
            normalize_words("Set a timer for twelve minutes, please."),
            ["set", "a", "timer", "for", "12", "minutes", "please"]
        );
        assert_eq!(
            normalize_words("Revenue grew 12.5% in the U.S."),
            ["revenue", "grew", "12.5", "percent", "in", "the", "us"]
        );
        assert_eq!(
            normalize_words("Don't re-send it!"),
            ["don't", "re", "send", "it"]
        );
    }

    #[test]
    fn counts_substitutions_insertions_and_deletions() {
        assert_eq!(word_error_rate("a b c d", "a b c d").1, 0);
        assert_eq!(word_error_rate("a b c d", "a x c d").1, 1);
        assert_eq!(word_error_rate("a b c d", "a c d").1, 1);
        assert_eq!(word_error_rate("a b c d", "a b b c d e").1, 2);
        let (rate, edits, words) =
            word_error_rate("call Dr. Smith at five", "Call doctor Smith at 5.");
        assert_eq!((edits, words), (1, 5));
        assert!((rate - 0.2).abs() < 1e-9);
        assert_eq!(word_error_rate("", "").0, 0.0);
        assert_eq!(word_error_rate("", "noise").0, 1.0);
    }
}
