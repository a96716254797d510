//! Bringing back the version of a workspace file that a save replaced,
//! for a front door (the desktop's "Restore previous version"). Paths in
//! and out are workspace paths (`/budget.xlsx`), resolved through the
//! workspace's [`Sandbox`](baton_tools::Sandbox) exactly as the tools
//! resolve them: a front door never hands a host path to the disk.

use baton_docs::FileToolError;
use baton_tools::{Sandbox, SandboxError};

use crate::EngineError;

/// What [`Tools::restore_file`](crate::Tools::restore_file) did, in workspace paths.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RestoredFile {
    /// The file put back.
    pub path: String,
    /// The backup now back in place (it is kept).
    pub restored_from: String,
    /// Where the replaced version was saved, when no backup held it yet.
    pub saved_current: Option<String>,
}

/// Why [`Tools::restore_file`](crate::Tools::restore_file) failed, naming workspace paths only.
#[derive(Debug, thiserror::Error)]
pub enum RestoreFileError {
    /// The workspace folder cannot be used.
    #[error(transparent)]
    Workspace(#[from] EngineError),
    /// The path is not a workspace path, or leads outside the workspace.
    #[error(transparent)]
    Path(#[from] SandboxError),
    /// The path is a folder.
    #[error("`{0}` is a folder, not a file")]
    Folder(String),
    /// The file has no backups.
    #[error("there are no backups of `{0}`")]
    NoBackups(String),
    /// The named backup is not one of the file's.
    #[error("`{backup}` is not a backup of `{path}`")]
    NotABackup {
        /// The named backup.
        backup: String,
        /// The file.
        path: String,
    },
    /// Reading or writing failed.
    #[error("cannot {action} `{path}`: {source}")]
    Io {
        /// What was being done: `read`, `back up`, `restore`, …
        action: &'static str,
        /// The file concerned.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// [`Tools::restore_file`](crate::Tools::restore_file) inside `sandbox`: FileTool's restore, its
/// errors told for a front door.
pub(crate) fn restore_in(
    sandbox: &Sandbox,
    path: &str,
    backup: Option<&str>,
) -> Result<RestoredFile, RestoreFileError> {
    let r = baton_docs::restore_in(sandbox, path, backup).map_err(|e| match e {
        FileToolError::Sandbox(e) => RestoreFileError::Path(e),
        FileToolError::IsDir(p) => RestoreFileError::Folder(p),
        FileToolError::NoBackups(p) => RestoreFileError::NoBackups(p),
        FileToolError::NotABackup { backup, path } => RestoreFileError::NotABackup { backup, path },
        FileToolError::Io {
            action,
            path,
            source,
        } => RestoreFileError::Io {
            action,
            path,
            source,
        },
        other => RestoreFileError::Io {
            action: "restore",
            path: path.to_string(),
            source: std::io::Error::other(other.to_string()),
        },
    })?;
    Ok(RestoredFile {
        path: r.path,
        restored_from: r.restored_from,
        saved_current: r.saved_current,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Sandbox) {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(dir.path()).unwrap();
        (dir, sandbox)
    }

    #[test]
    fn restores_the_most_recent_backup_keeping_the_current_version() {
        let (dir, sb) = setup();
        let file = dir.path().join("budget.xlsx");
        std::fs::write(&file, "v1").unwrap();
        baton_stdx::backup_file(&file).unwrap();
        std::fs::write(&file, "v2").unwrap();
        let r = restore_in(&sb, "/budget.xlsx", None).unwrap();
        assert_eq!(r.path, "/budget.xlsx");
        assert_eq!(r.restored_from, "/budget.xlsx.001.bak");
        assert_eq!(r.saved_current.as_deref(), Some("/budget.xlsx.002.bak"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v1");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("budget.xlsx.002.bak")).unwrap(),
            "v2"
        );
    }

    #[test]
    fn restores_the_named_backup_by_path_or_name() {
        let (dir, sb) = setup();
        std::fs::create_dir(dir.path().join("q")).unwrap();
        let file = dir.path().join("q/a.csv");
        for v in ["v1", "v2"] {
            std::fs::write(&file, v).unwrap();
            baton_stdx::backup_file(&file).unwrap();
        }
        std::fs::write(&file, "v3").unwrap();
        let r = restore_in(&sb, "/q/a.csv", Some("/q/a.csv.001.bak")).unwrap();
        assert_eq!(r.restored_from, "/q/a.csv.001.bak");
        assert_eq!(r.saved_current.as_deref(), Some("/q/a.csv.003.bak"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v1");
        let r = restore_in(&sb, "q/a.csv", Some("a.csv.002.bak")).unwrap();
        assert_eq!(r.path, "/q/a.csv");
        assert_eq!(r.saved_current, None, "v1 is already in 001");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v2");
    }

    #[test]
    fn failures_name_workspace_paths_never_host_paths() {
        let (dir, sb) = setup();
        let root = dir.path().display().to_string();
        std::fs::write(dir.path().join("new.txt"), "x").unwrap();
        std::fs::write(dir.path().join("other.txt"), "y").unwrap();
        std::fs::write(dir.path().join("other.txt.001.bak"), "y0").unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let cases: [(&str, Option<&str>, &str); 6] = [
            ("/new.txt", None, "there are no backups of `/new.txt`"),
            (
                "/new.txt",
                Some("/other.txt.001.bak"),
                "`/other.txt.001.bak` is not a backup of `/new.txt`",
            ),
            ("/../etc/passwd", None, "climbs above the workspace"),
            ("/new.txt", Some("/../x.bak"), "climbs above the workspace"),
            ("C:\\budget.xlsx", None, "not a workspace path"),
            ("/d", None, "`/d` is a folder"),
        ];
        for (path, backup, want) in cases {
            let e = restore_in(&sb, path, backup).unwrap_err().to_string();
            assert!(e.contains(want), "{path} {backup:?}: {e}");
            assert!(!e.contains(&root), "{path}: a host path in {e}");
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
            "x"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_workspace_is_refused() {
        let (dir, sb) = setup();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.txt"), "secret").unwrap();
        std::fs::write(outside.path().join("s.txt.001.bak"), "old").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let e = restore_in(&sb, "/out/s.txt", None).unwrap_err();
        assert!(
            matches!(e, RestoreFileError::Path(SandboxError::LinkOutside(_))),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(outside.path().join("s.txt")).unwrap(),
            "secret"
        );
    }
}
