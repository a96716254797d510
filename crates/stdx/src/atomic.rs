//! Atomic file replacement: write a temporary file beside the target, flush
//! it to disk, then rename it over the target.
//!
//! The replaced file keeps its permissions; a new file gets the mode
//! `File::create` would give it (`0666` less the umask). Temporary files
//! (`.baton-*.tmp`) left behind by a write that was killed are removed by
//! the next write to the same folder once they are [`STALE_AFTER`] old, so
//! a concurrent writer's temporary file is never touched.

use std::fs::Permissions;
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime};

use tempfile::NamedTempFile;

/// Name prefix of the temporary files.
const TMP_PREFIX: &str = ".baton-";
/// Name suffix of the temporary files.
const TMP_SUFFIX: &str = ".tmp";
/// Age after which a temporary file is taken for a killed write's leftover.
const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Writes `bytes` to `path` atomically: readers see either the old file or
/// the new one, never a half-written file. Parent directories are created.
/// An existing file keeps its permissions; a new one gets the mode
/// `File::create` would give it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, bytes, None, true)
}

/// [`atomic_write`] for Baton's own private files (sessions, settings,
/// provider lists): a new file is readable by its owner only (`0600`); an
/// existing one keeps its permissions.
pub fn atomic_write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let perms = existing_permissions(path)?.or_else(private);
    write_with(path, bytes, perms, true)
}

#[cfg(unix)]
fn private() -> Option<Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn private() -> Option<Permissions> {
    None
}

/// [`atomic_write`] with explicit permissions (`None`: the target's, else
/// `File::create`'s). Without `clobber`, an existing target is left alone
/// and the error is [`io::ErrorKind::AlreadyExists`].
pub(crate) fn write_with(
    path: &Path,
    bytes: &[u8],
    perms: Option<Permissions>,
    clobber: bool,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    remove_stale_temps(dir);
    let perms = match perms {
        Some(p) => Some(p),
        None => existing_permissions(path)?,
    };
    let tmp = write_temp(dir, bytes, perms)?;
    let persisted = if clobber {
        tmp.persist(path)
    } else {
        tmp.persist_noclobber(path)
    };
    persisted.map_err(|e| e.error)?;
    Ok(())
}

/// The permissions of `path`, or `None` when there is no file there.
fn existing_permissions(path: &Path) -> io::Result<Option<Permissions>> {
    match std::fs::metadata(path) {
        Ok(meta) => Ok(Some(meta.permissions())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A synced temporary file in `dir` holding `bytes`, with `perms` (set after
/// writing, so a read-only mode does not get in the way) or, without them,
/// the mode `File::create` would give.
fn write_temp(dir: &Path, bytes: &[u8], perms: Option<Permissions>) -> io::Result<NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TMP_PREFIX).suffix(TMP_SUFFIX);
    #[cfg(unix)]
    if perms.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // The OS takes the umask off this, exactly as for `File::create`.
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(perms) = perms {
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// Removes `.baton-*.tmp` files in `dir` older than [`STALE_AFTER`];
/// failures are ignored (the write itself does not depend on this).
fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(TMP_PREFIX) && name.ends_with(TMP_SUFFIX)) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok());
        if meta.is_file() && age.is_some_and(|a| a > STALE_AFTER) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/a.json");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(names(p.parent().unwrap()), ["a.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_new_at_0600_and_keep_a_mode_the_user_gave() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("session.json");
        atomic_write_private(&p, b"one").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o600);
        std::fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        atomic_write_private(&p, b"two").unwrap();
        assert_eq!(mode(&p), 0o640);
    }

    #[test]
    fn without_clobber_an_existing_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_with(&p, b"one", None, false).unwrap();
        let e = write_with(&p, b"two", None, false).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    #[test]
    fn stale_temp_files_are_removed_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".baton-stale1.tmp");
        let fresh = dir.path().join(".baton-fresh1.tmp");
        let other = dir.path().join("old.tmp");
        for p in [&stale, &fresh, &other] {
            std::fs::write(p, b"partial").unwrap();
        }
        let old = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        for p in [&stale, &other] {
            let f = std::fs::File::options().write(true).open(p).unwrap();
            f.set_modified(old).unwrap();
        }
        atomic_write(&dir.path().join("a.txt"), b"x").unwrap();
        assert_eq!(names(dir.path()), [".baton-fresh1.tmp", "a.txt", "old.tmp"]);
    }

    /// A write killed at any moment leaves the old version or the new one,
    /// whole, with its mode: the test binary re-runs itself as a child that
    /// rewrites one file until it is killed with SIGKILL.
    #[cfg(unix)]
    mod crash {
        use super::super::*;
        use std::io::{BufRead, BufReader};
        use std::os::unix::fs::PermissionsExt;
        use std::path::PathBuf;
        use std::process::{Command, Stdio};
        use std::time::{Instant, UNIX_EPOCH};

        /// Tells the child which file to write.
        const FILE_ENV: &str = "BATON_ATOMIC_CRASH_FILE";
        /// The child's line saying it starts writing.
        const READY: &str = "baton-crash-child-writing";

        /// Two versions of about 2 MB, different in every byte and in size.
        fn payloads() -> [Vec<u8>; 2] {
            [vec![b'a'; 2_000_000], vec![b'b'; 2_100_000]]
        }

        fn xorshift(state: &mut u64) -> u64 {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state
        }

        /// The child (a no-op in a normal run): writes the two versions in
        /// turn until killed, or for 20 s at most.
        #[test]
        fn child_writes_until_killed() {
            let Some(path) = std::env::var_os(FILE_ENV).map(PathBuf::from) else {
                return;
            };
            let versions = payloads();
            let start = Instant::now();
            let mut out = std::io::stdout();
            writeln!(out, "{READY}").and_then(|()| out.flush()).unwrap();
            for i in 0.. {
                atomic_write(&path, &versions[(i + 1) % 2]).unwrap();
                if start.elapsed() > Duration::from_secs(20) {
                    break;
                }
            }
        }

        /// Starts a child writing `file`, kills it `delay` after it starts
        /// writing, and reaps it.
        fn kill_after(file: &Path, delay: Duration) {
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "atomic::tests::crash::child_writes_until_killed"])
                .args(["--nocapture", "--test-threads=1"])
                .env(FILE_ENV, file)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let stdout = child.stdout.take().unwrap();
            let ready = BufReader::new(stdout)
                .lines()
                .any(|l| l.is_ok_and(|l| l.contains(READY)));
            std::thread::sleep(delay);
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            assert!(ready, "the child never started writing");
        }

        /// Removes the killed writes' temporary files; how many there were.
        fn remove_temps(dir: &Path) -> usize {
            let temps: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "tmp"))
                .collect();
            temps.iter().for_each(|p| std::fs::remove_file(p).unwrap());
            temps.len()
        }

        #[test]
        fn a_killed_write_leaves_one_whole_version_with_its_mode() {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("data.bin");
            let versions = payloads();
            atomic_write(&file, &versions[0]).unwrap();
            std::fs::set_permissions(&file, Permissions::from_mode(0o644)).unwrap();
            let seed = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            let mut rng = seed.as_nanos() as u64 | 1;
            let (mut seen, mut leftovers) = ([0; 2], 0);
            for round in 0..100 {
                let delay = Duration::from_millis(xorshift(&mut rng) % 31);
                kill_after(&file, delay);
                let now = std::fs::read(&file).unwrap();
                let which = versions.iter().position(|v| *v == now);
                let Some(which) = which else {
                    panic!(
                        "round {round} (rng {rng}): {} bytes, neither version",
                        now.len()
                    );
                };
                seen[which] += 1;
                let mode = std::fs::metadata(&file).unwrap().permissions().mode();
                assert_eq!(mode & 0o7777, 0o644, "round {round}");
                leftovers += remove_temps(dir.path());
            }
            eprintln!("versions seen {seen:?}; killed mid-write {leftovers} times");
        }
    }

    #[cfg(unix)]
    mod unix {
        use super::super::*;
        use std::os::unix::fs::PermissionsExt;

        fn mode(p: &Path) -> u32 {
            std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
        }

        #[test]
        fn a_rewritten_file_keeps_its_mode() {
            let dir = tempfile::tempdir().unwrap();
            for m in [0o644, 0o640, 0o600, 0o444] {
                let p = dir.path().join(format!("f{m:o}"));
                std::fs::write(&p, b"old").unwrap();
                std::fs::set_permissions(&p, Permissions::from_mode(m)).unwrap();
                atomic_write(&p, b"new").unwrap();
                assert_eq!(std::fs::read(&p).unwrap(), b"new");
                assert_eq!(mode(&p), m, "{m:o}");
            }
        }

        #[test]
        fn a_new_file_gets_the_mode_file_create_gives() {
            let dir = tempfile::tempdir().unwrap();
            let probe = dir.path().join("probe");
            std::fs::File::create(&probe).unwrap();
            let p = dir.path().join("new.txt");
            atomic_write(&p, b"new").unwrap();
            assert_eq!(mode(&p), mode(&probe));
        }

        #[test]
        fn explicit_permissions_win() {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("a.txt");
            write_with(&p, b"x", Some(Permissions::from_mode(0o640)), false).unwrap();
            assert_eq!(mode(&p), 0o640);
        }
    }
}
