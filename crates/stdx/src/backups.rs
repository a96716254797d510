//! Numbered backups beside a file: `name.ext` is backed up as
//! `name.ext.001.bak`, then `name.ext.002.bak`, … Each backup is written
//! atomically with the file's permissions, a new one never replaces another,
//! and a higher number is a more recent backup.

use std::fs::Permissions;
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::atomic::{atomic_write, write_with};

/// One backup of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// Where it is: `name.ext.NNN.bak` beside the file.
    pub path: PathBuf,
    /// Its number, `NNN`; higher is more recent.
    pub number: u32,
    /// Size in bytes.
    pub size: u64,
    /// When it was written, seconds since 1970.
    pub modified_unix: Option<u64>,
}

/// What [`restore_backup`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// The backup now back in place (it is kept).
    pub restored_from: PathBuf,
    /// Where the replaced version was saved, when no backup held it yet.
    pub saved_current: Option<PathBuf>,
}

/// Why [`restore_backup`] failed.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The file has no backups.
    #[error("there are no backups of `{}`", .0.display())]
    NoBackups(PathBuf),
    /// The named backup is not one of the file's.
    #[error("`{}` is not a backup of `{}`", .backup.display(), .path.display())]
    NotABackup {
        /// The named backup.
        backup: PathBuf,
        /// The file.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("cannot {action} `{}`: {source}", .path.display())]
    Io {
        /// What was being done: `read`, `back up`, `restore`, …
        action: &'static str,
        /// The file concerned.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

/// Writes `bytes` to `path` atomically (parent folders made), first
/// backing up the file it replaces with [`backup_file`]; the backup's path
/// when there was one. What every tool that saves into the workspace uses.
pub fn replace_with_backup(path: &Path, bytes: &[u8]) -> io::Result<Option<PathBuf>> {
    let backup = if path.exists() {
        Some(backup_file(path)?)
    } else {
        None
    };
    atomic_write(path, bytes)?;
    Ok(backup)
}

/// Copies `path` to its next backup, `name.ext.NNN.bak` numbered one past
/// the highest backup there is (`001` for the first), atomically and with
/// the file's permissions. Returns the backup's path.
pub fn backup_file(path: &Path) -> io::Result<PathBuf> {
    let bytes = std::fs::read(path)?;
    let perms = std::fs::metadata(path)?.permissions();
    save_backup(path, &bytes, perms)
}

/// The backups of `path`, oldest (lowest number) first: files named exactly
/// `name.ext.NNN.bak` beside it, `NNN` being the number in at least three
/// digits. None when its folder does not exist.
pub fn list_backups(path: &Path) -> io::Result<Vec<Backup>> {
    let entries = match std::fs::read_dir(folder(path)) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let name = file_name(path);
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Some(number) = entry.file_name().to_str().and_then(|n| number(&name, n)) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() {
            out.push(Backup {
                path: backup_path(path, number),
                number,
                size: meta.len(),
                modified_unix: meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_secs()),
            });
        }
    }
    out.sort_by_key(|b| b.number);
    Ok(out)
}

/// Puts a backup of `path` back in its place, atomically: `which`, or the
/// most recent one. If the current file holds something no backup has, it
/// is backed up first, so a restore never loses anything; the backup
/// restored from is kept. A replaced file keeps its permissions; a missing
/// one comes back with the backup's.
pub fn restore_backup(path: &Path, which: Option<&Path>) -> Result<Restored, RestoreError> {
    let err = |action, p: &Path| {
        let path = p.to_path_buf();
        move |source| RestoreError::Io {
            action,
            path,
            source,
        }
    };
    let backups = list_backups(path).map_err(err("list the backups of", path))?;
    let chosen = match which {
        None => backups.last(),
        Some(w) => backups.iter().find(|b| same_file(&b.path, w)),
    };
    let Some(chosen) = chosen else {
        return Err(match which {
            None => RestoreError::NoBackups(path.to_path_buf()),
            Some(w) => RestoreError::NotABackup {
                backup: w.to_path_buf(),
                path: path.to_path_buf(),
            },
        });
    };
    let from = &chosen.path;
    let bytes = std::fs::read(from).map_err(err("read", from))?;
    let saved_current = save_if_new(path, &backups).map_err(err("back up", path))?;
    let restored = if path.exists() {
        atomic_write(path, &bytes)
    } else {
        let perms = std::fs::metadata(from)
            .map_err(err("read", from))?
            .permissions();
        write_with(path, &bytes, Some(perms), true)
    };
    restored.map_err(err("restore", path))?;
    Ok(Restored {
        restored_from: from.clone(),
        saved_current,
    })
}

/// Backs up `path` unless it is missing or a backup holds the same bytes.
fn save_if_new(path: &Path, backups: &[Backup]) -> io::Result<Option<PathBuf>> {
    let current = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    for b in backups.iter().filter(|b| b.size == current.len() as u64) {
        if std::fs::read(&b.path)? == current {
            return Ok(None);
        }
    }
    let perms = std::fs::metadata(path)?.permissions();
    save_backup(path, &current, perms).map(Some)
}

/// Writes `bytes` as the next backup of `path`, never over another file.
fn save_backup(path: &Path, bytes: &[u8], perms: Permissions) -> io::Result<PathBuf> {
    let last = list_backups(path)?.last().map_or(0, |b| b.number);
    for number in last.saturating_add(1)..=u32::MAX {
        let bak = backup_path(path, number);
        match write_with(&bak, bytes, Some(perms.clone()), false) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            done => return done.map(|()| bak),
        }
    }
    Err(io::Error::other("no free backup number"))
}

/// `path`'s folder (`.` for a bare name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// `path`'s file name as text (lossy, like the backup names).
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Backup `number` of `path`.
fn backup_path(path: &Path, number: u32) -> PathBuf {
    path.with_file_name(format!("{}.{number:03}.bak", file_name(path)))
}

/// The number in `candidate` if it is exactly `name.NNN.bak`.
fn number(name: &str, candidate: &str) -> Option<u32> {
    let digits = candidate
        .strip_prefix(name)?
        .strip_prefix('.')?
        .strip_suffix(".bak")?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (format!("{n:03}") == digits).then_some(n)
}

/// Whether `a` and `b` name the same file.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(content: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.md");
        std::fs::write(&file, content).unwrap();
        (dir, file)
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn backups_are_numbered_from_one_past_the_highest() {
        let (dir, file) = setup("v1");
        let b1 = backup_file(&file).unwrap();
        assert_eq!(b1, dir.path().join("notes.md.001.bak"));
        std::fs::write(&file, "v2").unwrap();
        assert_eq!(
            backup_file(&file).unwrap(),
            dir.path().join("notes.md.002.bak")
        );
        std::fs::remove_file(&b1).unwrap();
        std::fs::write(&file, "v3").unwrap();
        assert_eq!(
            backup_file(&file).unwrap(),
            dir.path().join("notes.md.003.bak")
        );
        assert_eq!(read(&dir.path().join("notes.md.003.bak")), "v3");
        let e = backup_file(&dir.path().join("missing.md")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_backup_never_replaces_another_file() {
        let (dir, file) = setup("v1");
        std::fs::create_dir(dir.path().join("notes.md.001.bak")).unwrap();
        // A folder is not a backup, and its name is skipped.
        assert_eq!(
            backup_file(&file).unwrap(),
            dir.path().join("notes.md.002.bak")
        );
    }

    #[test]
    fn only_exact_backup_names_are_listed_oldest_first() {
        let (dir, file) = setup("v");
        for name in [
            "notes.md.010.bak",
            "notes.md.002.bak",
            "notes.md.1000.bak",
            "notes.md.01.bak",
            "notes.md.0002.bak",
            "notes.md.00a.bak",
            "notes.md.+12.bak",
            "notes.md.003.bak.tmp",
            "xnotes.md.004.bak",
            "notes.md.005",
            "other.md.006.bak",
        ] {
            std::fs::write(dir.path().join(name), name).unwrap();
        }
        let list = list_backups(&file).unwrap();
        let numbers: Vec<_> = list.iter().map(|b| b.number).collect();
        assert_eq!(numbers, [2, 10, 1000]);
        assert_eq!(list[0].path, dir.path().join("notes.md.002.bak"));
        assert_eq!(list[0].size, 16);
        assert!(list[0].modified_unix.unwrap() > 1_700_000_000);
        assert!(
            list_backups(&dir.path().join("no/such.md"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn restore_saves_an_unsaved_current_version_and_keeps_the_backup() {
        let (dir, file) = setup("v1");
        let b1 = backup_file(&file).unwrap();
        std::fs::write(&file, "v2").unwrap();
        let r = restore_backup(&file, None).unwrap();
        let b2 = dir.path().join("notes.md.002.bak");
        assert_eq!(
            r,
            Restored {
                restored_from: b1.clone(),
                saved_current: Some(b2.clone()),
            }
        );
        assert_eq!(
            (read(&file), read(&b1), read(&b2)),
            ("v1".into(), "v1".into(), "v2".into())
        );
        // Now the most recent backup is v2, and v1 is already saved.
        let r = restore_backup(&file, None).unwrap();
        assert_eq!(r.restored_from, b2);
        assert_eq!(r.saved_current, None);
        assert_eq!(read(&file), "v2");
        let r = restore_backup(&file, Some(&b1)).unwrap();
        assert_eq!((r.restored_from, r.saved_current), (b1, None));
        assert_eq!(read(&file), "v1");
        assert_eq!(list_backups(&file).unwrap().len(), 2);
    }

    #[test]
    fn a_missing_file_is_restored() {
        let (_dir, file) = setup("v1");
        let b1 = backup_file(&file).unwrap();
        std::fs::remove_file(&file).unwrap();
        let r = restore_backup(&file, None).unwrap();
        assert_eq!((r.restored_from, r.saved_current), (b1, None));
        assert_eq!(read(&file), "v1");
    }

    #[test]
    fn restore_errors_are_plain() {
        let (dir, file) = setup("v1");
        let e = restore_backup(&file, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("there are no backups of `{}`", file.display())
        );
        backup_file(&file).unwrap();
        let other = dir.path().join("notes.md.007.bak");
        let e = restore_backup(&file, Some(&other)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "`{}` is not a backup of `{}`",
                other.display(),
                file.display()
            )
        );
        assert!(matches!(e, RestoreError::NotABackup { .. }));
    }

    #[cfg(unix)]
    #[test]
    fn backups_and_restores_keep_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let (_dir, file) = setup("v1");
        std::fs::set_permissions(&file, Permissions::from_mode(0o640)).unwrap();
        let b1 = backup_file(&file).unwrap();
        assert_eq!(mode(&b1), 0o640);
        std::fs::set_permissions(&file, Permissions::from_mode(0o604)).unwrap();
        std::fs::write(&file, "v2").unwrap();
        let r = restore_backup(&file, None).unwrap();
        assert_eq!(mode(&file), 0o604, "the replaced file keeps its mode");
        assert_eq!(mode(&r.saved_current.unwrap()), 0o604);
        std::fs::remove_file(&file).unwrap();
        restore_backup(&file, Some(&b1)).unwrap();
        assert_eq!(mode(&file), 0o640, "a missing file gets the backup's");
    }
}
