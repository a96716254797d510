//! Short ids a user types back (`baton memory rm m3f9a02c1`): a letter
//! and eight lowercase hexadecimal digits, random.

/// A fresh id: `prefix` and eight random hexadecimal digits.
pub fn short_id(prefix: char) -> String {
    format!(
        "{prefix}{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// Whether `text` is an id made by [`short_id`] with `prefix`.
pub fn is_short_id(text: &str, prefix: char) -> bool {
    let mut chars = text.chars();
    text.len() == 9
        && chars.next() == Some(prefix)
        && chars.all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_a_letter_and_eight_lowercase_hex_digits() {
        let id = short_id('p');
        assert!(is_short_id(&id, 'p'), "{id}");
        assert!(!is_short_id(&id, 'm'));
        for bad in [
            "",
            "p123",
            "pABCDEF12",
            "p1234567g",
            "p12345678a",
            "../p1234",
        ] {
            assert!(!is_short_id(bad, 'p'), "{bad}");
        }
    }
}
