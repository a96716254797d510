//! `Engine::update_settings`: the one way front doors change settings —
//! applied to the settings as they are on disk, saved atomically, and seen
//! by the engine it returns; a refused change writes nothing.

use baton_config::{BatonPaths, Settings};
use baton_engine::{Engine, EngineError, Overrides};

fn engine(dir: &tempfile::TempDir) -> Engine {
    Engine::load_with(BatonPaths::under(dir.path()), Overrides::default()).unwrap()
}

fn on_disk(engine: &Engine) -> Settings {
    Settings::load(&engine.paths().settings_file()).settings
}

#[test]
fn a_change_is_saved_and_seen_by_the_returned_engine() {
    let dir = tempfile::tempdir().unwrap();
    let old = engine(&dir);
    let new = old
        .update_settings(|s| s.set("attachmentContextChars", "4000"))
        .unwrap();
    assert_eq!(new.settings().attachment_context_chars, 4000);
    assert_eq!(on_disk(&new).attachment_context_chars, 4000);
    // The engine it was called on is left as it was loaded.
    assert_ne!(old.settings().attachment_context_chars, 4000);
}

#[test]
fn a_change_made_elsewhere_meanwhile_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let desktop = engine(&dir);
    // Another front door (the CLI) saves a setting after the desktop loaded.
    engine(&dir)
        .update_settings(|s| s.set("anonymize", "true"))
        .unwrap();
    let after = desktop
        .update_settings(|s| s.set("skipIndexingOnStartup", "true"))
        .unwrap();
    assert!(after.settings().anonymize, "the CLI's change was lost");
    assert!(after.settings().skip_indexing_on_startup);
}

#[test]
fn a_refused_change_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let e = engine(&dir);
    e.update_settings(|s| s.set("anonymize", "true")).unwrap();
    let before = std::fs::read(e.paths().settings_file()).unwrap();
    let err = e
        .update_settings(|s| {
            s.set("anonymize", "false")?;
            s.set("noSuchSetting", "1")
        })
        .err()
        .expect("an unknown key is refused");
    assert!(matches!(err, EngineError::Settings(_)), "{err}");
    assert!(err.to_string().contains("noSuchSetting"), "{err}");
    assert_eq!(std::fs::read(e.paths().settings_file()).unwrap(), before);
}

#[test]
fn a_change_made_elsewhere_is_news_and_an_own_save_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let desktop = engine(&dir);
    assert!(
        desktop.reload_if_changed().unwrap().is_none(),
        "nothing changed on disk"
    );
    // The desktop's own save: the engine it took already says the same.
    let desktop = desktop
        .update_settings(|s| s.set("anonymize", "true"))
        .unwrap();
    assert!(desktop.reload_if_changed().unwrap().is_none());
    // `baton config set` in a terminal.
    engine(&dir)
        .update_settings(|s| s.set("attachmentContextChars", "5000"))
        .unwrap();
    let fresh = desktop
        .reload_if_changed()
        .unwrap()
        .expect("the terminal's change is news");
    assert_eq!(fresh.settings().attachment_context_chars, 5000);
    assert!(fresh.settings().anonymize);
    // An agents file edited by hand is news too.
    std::fs::write(
        fresh.paths().user_agents_file(),
        r#"{"agents":[{"name":"helper","description":"Helps.","instructions":"Help."}]}"#,
    )
    .unwrap();
    let with_helper = fresh.reload_if_changed().unwrap().expect("agents changed");
    assert!(
        with_helper
            .agents()
            .infos()
            .iter()
            .any(|a| a.name == "helper")
    );
}
