//! Noticing when the files an engine is made from change under a running
//! app: `baton config set` in a terminal, an editor saving `setup.json`,
//! agents or providers edited by hand.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{DebounceEventResult, Debouncer, new_debouncer};

use crate::BatonPaths;

/// A running watch of the configuration files; dropping it stops it.
pub struct ConfigWatcher {
    _debouncer: Debouncer<RecommendedWatcher>,
}

impl std::fmt::Debug for ConfigWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConfigWatcher")
    }
}

/// Why the configuration files cannot be watched.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {dir} for settings changes: {reason}")]
pub struct WatchError {
    /// The config folder.
    pub dir: PathBuf,
    /// What the OS said.
    pub reason: String,
}

/// The files of `paths` whose change makes a different engine: the
/// settings, the user's agents and the user's providers.
fn watched_files(paths: &BatonPaths) -> [PathBuf; 3] {
    [
        paths.settings_file(),
        paths.user_agents_file(),
        paths.user_providers_file(),
    ]
}

/// Calls `on_change` (on the watcher's thread) `debounce` after the last
/// change to `setup.json`, `agents.json` or `providers.json` in the config
/// folder, however it was written (atomic writes replace the file: the
/// folder is watched, not the files). Changes to other files there are
/// ignored. The front door decides whether the change is news: its own
/// saves are noticed too.
pub fn watch_config(
    paths: &BatonPaths,
    debounce: Duration,
    on_change: impl Fn() + Send + 'static,
) -> Result<ConfigWatcher, WatchError> {
    let dir = paths.config_dir.clone();
    let error = |e: &dyn std::fmt::Display| WatchError {
        dir: dir.clone(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(&dir).map_err(|e| error(&e))?;
    let files = watched_files(paths);
    let mut debouncer = new_debouncer(debounce, move |res: DebounceEventResult| {
        let relevant = match res {
            Ok(events) => events.iter().any(|e| is_watched(&files, &e.path)),
            Err(_) => true,
        };
        if relevant {
            on_change();
        }
    })
    .map_err(|e| error(&e))?;
    debouncer
        .watcher()
        .watch(&dir, RecursiveMode::NonRecursive)
        .map_err(|e| error(&e))?;
    Ok(ConfigWatcher {
        _debouncer: debouncer,
    })
}

fn is_watched(files: &[PathBuf], path: &Path) -> bool {
    files.iter().any(|f| f == path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_settings_change_is_noticed_and_other_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let paths = BatonPaths::under(dir.path());
        let (tx, rx) = mpsc::channel();
        let _watch = watch_config(&paths, Duration::from_millis(100), move || {
            let _ = tx.send(());
        })
        .unwrap();
        std::fs::write(paths.config_dir.join("notes.txt"), "x").unwrap();
        assert!(
            rx.recv_timeout(Duration::from_millis(800)).is_err(),
            "an unrelated file is not a settings change"
        );
        let settings = crate::Settings {
            anonymize: true,
            ..Default::default()
        };
        settings.save(&paths.settings_file()).unwrap();
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the atomic save of setup.json is noticed");
    }
}
