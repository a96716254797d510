//! One writer at a time for a file that several threads or processes edit
//! by read-modify-write (the desktop and the CLI both edit the user's
//! providers file): an exclusive advisory lock on `<file>.lock` beside it.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// An exclusive lock on the file beside a path, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    /// The open lock file; closing it releases the lock.
    _file: File,
}

/// Waits for the exclusive lock on `<path>.lock` (created and left in
/// place; the folder is created too). Whoever holds the returned guard is
/// the only one, across threads and processes, that holds it.
pub fn lock_beside(path: &Path) -> io::Result<FileLock> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(path))?;
    fs4::fs_std::FileExt::lock_exclusive(&file)?;
    Ok(FileLock { _file: file })
}

/// `<path>.lock`.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn holders_take_turns() {
        let dir = tempfile::tempdir().unwrap();
        let path = Arc::new(dir.path().join("sub/file.json"));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (path, inside, most) = (path.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..5 {
                        let _guard = lock_beside(&path).unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(2));
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1, "two holders at once");
        assert!(dir.path().join("sub/file.json.lock").exists());
    }
}
