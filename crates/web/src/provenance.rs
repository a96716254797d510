//! Which addresses a conversation may open without the user's card.
//!
//! Opening a page sends its address to a site: a page on a site the user
//! never named, or an address carrying text the model composed (`?d=<the
//! summary>`), sends data off the computer and asks first. What may open
//! without asking is an address on a site the user named in this
//! conversation or one Baton already opened in it, when the address itself
//! carries nothing new: the site's front page, an address the user typed,
//! or a link a page Baton read in this conversation showed.

use std::collections::HashSet;

use url::Url;

/// What one conversation's browser has opened and seen.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// Origins opened (`https://example.com`).
    origins: HashSet<String>,
    /// Addresses read on its pages (links, search results), normalized.
    links: HashSet<String>,
}

impl Seen {
    /// Remembers that `url` was opened (its site may be opened again).
    pub(crate) fn opened(&mut self, url: &str) {
        if let Ok(u) = Url::parse(url) {
            self.origins.insert(u.origin().ascii_serialization());
        }
    }

    /// Whether this conversation opened `url`'s site.
    pub(crate) fn has_opened(&self, url: &Url) -> bool {
        self.origins.contains(&url.origin().ascii_serialization())
    }

    /// Remembers the web addresses in `text` (a page's Markdown, a list of
    /// search results) as shown to the model.
    pub(crate) fn saw(&mut self, text: &str) {
        let separators = |c: char| c.is_whitespace() || "()<>[]{}\"'`|".contains(c);
        for word in text.split(separators) {
            let word = word.trim_end_matches([',', '.', ';', ':', '!', '?']);
            if (word.starts_with("http://") || word.starts_with("https://"))
                && let Ok(u) = Url::parse(word)
            {
                self.links.insert(u.into());
            }
        }
    }

    /// Whether opening `url` (as the browser reads it) must wait for the
    /// user's card, given what the user typed in this conversation.
    pub(crate) fn card_needed(&self, url: &str, user_words: &str) -> bool {
        let Ok(u) = Url::parse(url) else {
            return true;
        };
        if !matches!(u.scheme(), "http" | "https") {
            return true;
        }
        let typed = typed(&u, user_words);
        let known_site = typed
            || self.origins.contains(&u.origin().ascii_serialization())
            || host_named(&u, user_words);
        let nothing_new = typed || is_front_page(&u) || self.links.contains(u.as_str());
        !(known_site && nothing_new)
    }
}

/// The site's front page: no path, query, fragment or credentials that
/// could carry anything.
fn is_front_page(u: &Url) -> bool {
    u.path() == "/"
        && u.query().is_none()
        && u.fragment().is_none()
        && u.username().is_empty()
        && u.password().is_none()
}

/// Whether the user typed this address (with or without its scheme and
/// closing slash).
fn typed(u: &Url, user_words: &str) -> bool {
    let full = u.as_str();
    let bare = full.split_once("://").map_or(full, |(_, rest)| rest);
    let candidates = [full, bare, bare.trim_end_matches('/')];
    candidates
        .iter()
        // An address has a dot or a port: `example` alone is a word.
        .any(|c| c.contains(['.', ':']) && contains_address(user_words, c))
}

/// Whether `text` has `address` as a whole address: not inside a longer
/// host (`mybank.example` is not `bank.example`) or a longer address (a
/// sentence's closing punctuation may follow it).
fn contains_address(text: &str, address: &str) -> bool {
    let part_of_address = |c: char| c.is_alphanumeric() || ".-_/@:%?#=&+~".contains(c);
    let ends_here = |rest: &str| {
        let rest = rest.trim_start_matches(['.', ',', ';', ':', '!', '?', ')']);
        rest.chars().next().is_none_or(|c| !part_of_address(c))
    };
    text.match_indices(address).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        before.is_none_or(|c| !part_of_address(c)) && ends_here(&text[at + address.len()..])
    })
}

/// Whether the user named the address's host (`example.com`, or the same
/// host with `www.`), as a whole word of what they typed.
fn host_named(u: &Url, user_words: &str) -> bool {
    let Some(host) = u.host_str() else {
        return false;
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    // A one-word host (`wiki`) is too easily an ordinary word.
    if !host.contains('.') {
        return false;
    }
    let short = host.strip_prefix("www.").unwrap_or(&host);
    let words = user_words.to_lowercase();
    words
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-'))
        .map(|w| w.trim_matches('.'))
        .any(|w| w == host || w == short || w.strip_prefix("www.") == Some(short))
}

/// Whether every word of a web search `query` is one the user typed (the
/// model may reorder and drop the user's words, not add its own).
pub fn query_is_users(query: &str, user_words: &str) -> bool {
    let words = |s: &str| -> HashSet<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let said = words(user_words);
    let asked = words(query);
    !asked.is_empty() && asked.is_subset(&said)
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "Open example.com and summarise the pricing page; also look at https://docs.example.org/guide?v=2";

    #[test]
    fn a_site_the_user_named_opens_without_a_card_when_the_address_carries_nothing() {
        let seen = Seen::default();
        assert!(!seen.card_needed("https://example.com/", USER));
        assert!(!seen.card_needed("https://www.example.com/", USER));
        assert!(!seen.card_needed("https://docs.example.org/guide?v=2", USER));
        // The model composed the path or the query: that may carry data.
        assert!(seen.card_needed("https://example.com/collect?d=the+summary", USER));
        assert!(seen.card_needed("https://example.com/the-summary-goes-here", USER));
        // A site the user never named.
        assert!(seen.card_needed("https://collector.example/", USER));
        assert!(seen.card_needed("https://example.com.collector.example/", USER));
        // Credentials in the address, or another scheme.
        assert!(seen.card_needed("https://user:pw@example.com/", USER));
        assert!(seen.card_needed("file:///etc/passwd", USER));
        assert!(seen.card_needed("not an address", USER));
    }

    #[test]
    fn links_seen_on_a_page_open_on_a_site_already_opened_only() {
        let mut seen = Seen::default();
        seen.opened("https://example.com/");
        seen.saw(
            "See [pricing](https://example.com/pricing) or (https://elsewhere.example/offer).",
        );
        assert!(!seen.card_needed("https://example.com/pricing", ""));
        // A link to another site is still another site.
        assert!(seen.card_needed("https://elsewhere.example/offer", ""));
        // An address on the opened site that no page showed.
        assert!(seen.card_needed("https://example.com/pricing?leak=1", ""));
        seen.opened("https://elsewhere.example/offer");
        assert!(!seen.card_needed("https://elsewhere.example/offer", ""));
    }

    #[test]
    fn the_user_named_the_host_as_a_word_not_inside_another() {
        assert!(!Seen::default().card_needed("https://bank.example/", "check bank.example please"));
        assert!(
            Seen::default().card_needed("https://bank.example/", "check mybank.example please")
        );
        assert!(Seen::default().card_needed("https://example/", "an example"));
        // A typed address counts whole, before a full stop too.
        let said = "read https://docs.example.org/guide. Thanks";
        assert!(!Seen::default().card_needed("https://docs.example.org/guide", said));
        assert!(Seen::default().card_needed("https://docs.example.org/gui", said));
    }

    #[test]
    fn a_search_with_only_the_users_words_is_theirs() {
        let said = "Search the web for Rust async tutorials, please";
        assert!(query_is_users("rust async tutorials", said));
        assert!(query_is_users("Tutorials Rust", said));
        assert!(!query_is_users(
            "rust async tutorials site:collector.example",
            said
        ));
        assert!(!query_is_users("", said));
    }
}
