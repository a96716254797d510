//! The shell's own words (the tray menu, notifications) in the app's
//! language, from the UI's catalogs (`ui/src/locales/<code>/shell.json`),
//! so the window and the shell say the same things and the catalog test
//! covers both.

use std::sync::LazyLock;

use baton_engine::api::settings::Language;
use serde_json::Value;

/// The `shell.json` catalog of each language, parsed once.
static CATALOGS: LazyLock<Vec<(Language, Value)>> = LazyLock::new(|| {
    [
        (
            Language::En,
            include_str!("../../ui/src/locales/en/shell.json"),
        ),
        (
            Language::De,
            include_str!("../../ui/src/locales/de/shell.json"),
        ),
        (
            Language::Fr,
            include_str!("../../ui/src/locales/fr/shell.json"),
        ),
        (
            Language::Es,
            include_str!("../../ui/src/locales/es/shell.json"),
        ),
    ]
    .into_iter()
    .map(|(l, text)| (l, serde_json::from_str(text).unwrap_or(Value::Null)))
    .collect()
});

/// The text of `key` (dotted: `tray.show`) in `language`, else English's,
/// else the key itself.
pub fn text(language: Language, key: &str) -> String {
    [language, Language::En]
        .into_iter()
        .find_map(|l| lookup(l, key))
        .unwrap_or_else(|| key.to_string())
}

fn lookup(language: Language, key: &str) -> Option<String> {
    let (_, catalog) = CATALOGS.iter().find(|(l, _)| *l == language)?;
    key.split('.')
        .try_fold(catalog, |v, part| v.get(part))?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_names_the_tray_and_falls_back_to_english() {
        assert_eq!(text(Language::En, "tray.quit"), "Quit Baton");
        assert_eq!(text(Language::De, "tray.quit"), "Baton beenden");
        for l in Language::ALL {
            for key in ["tray.show", "tray.voice", "notice.answered", "notice.open"] {
                assert_ne!(text(l, key), key, "{l:?} lacks {key}");
            }
        }
        assert_eq!(text(Language::Fr, "tray.nothing"), "tray.nothing");
    }
}
