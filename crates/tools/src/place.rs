//! A checked workspace path held by handle for the I/O that follows.
//!
//! [`Sandbox::resolve`] checks a path by name; between that check and the
//! open, a folder on the way could be swapped for a link that leads out.
//! A [`Place`] closes that gap: its folder is opened beneath the workspace
//! root with `cap-std` (which refuses to leave the root however links are
//! laid, on every platform) and held open, reads open the file beneath the
//! root the same way and check the handle they got, and on Linux writes go
//! through the held folder's handle (`/proc/self/fd/N/name`), so a swap after
//! the check changes nothing.

use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use cap_std::io_lifetimes::AsFilelike;

use crate::sandbox::{Sandbox, SandboxError};

/// A workspace path checked by [`Sandbox::place`], its folder held open.
#[derive(Debug)]
pub struct Place {
    /// The agent path asked for (for messages).
    agent: String,
    /// The host path by name.
    host: PathBuf,
    /// The path from the root, for opening beneath it.
    rel: PathBuf,
    /// The workspace root, opened.
    root: Dir,
    /// The folder, held open while the place lives (`None` when it does
    /// not exist yet).
    folder: Option<Dir>,
    /// The path I/O uses: through the held folder's handle on Linux, the
    /// host path elsewhere.
    io: PathBuf,
}

impl Place {
    /// The host path by name (for messages and agent paths).
    pub fn host(&self) -> &Path {
        &self.host
    }

    /// The path to read and write through: it reaches the folder that was
    /// checked, whatever has been renamed since.
    pub fn io(&self) -> &Path {
        &self.io
    }

    /// The host path (by name) of `p`, a path [`io`](Self::io) led to,
    /// such as a backup made beside the file.
    pub fn shown(&self, p: &Path) -> PathBuf {
        match (self.io.parent(), self.host.parent()) {
            (Some(io_dir), Some(host_dir)) => match p.strip_prefix(io_dir) {
                Ok(rest) => host_dir.join(rest),
                Err(_) => p.to_path_buf(),
            },
            _ => p.to_path_buf(),
        }
    }

    /// Opens the file for reading beneath the root (a link may lead only
    /// inside) and checks the handle: inside Baton's folders or with more
    /// than one name, it is refused as [`io::ErrorKind::PermissionDenied`]
    /// carrying the [`SandboxError`].
    pub fn open(&self, sandbox: &Sandbox) -> io::Result<std::fs::File> {
        let file = match self.root.open(&self.rel) {
            Ok(file) => file.into_std(),
            // A link written with an absolute target is refused by cap-std
            // even when it points inside; on Linux the handle's real place
            // can be checked instead.
            Err(e) if escaped(&e) && cfg!(target_os = "linux") => std::fs::File::open(&self.host)?,
            Err(e) => return Err(outside_or(e, &self.agent)),
        };
        sandbox.verify_opened(&self.agent, &file).map_err(refused)?;
        Ok(file)
    }

    /// The whole file, read as [`open`](Self::open) opens it.
    pub fn read(&self, sandbox: &Sandbox) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut self.open(sandbox)?, &mut bytes)?;
        Ok(bytes)
    }

    /// Whether the folder is held (it existed or was made).
    pub fn is_held(&self) -> bool {
        self.folder.is_some()
    }
}

impl Sandbox {
    /// [`resolve`](Self::resolve) `path` and hold its folder open for the
    /// I/O that follows; the folder (and those above it) is made first,
    /// beneath the root, when `make_folder`.
    pub fn place(&self, path: &str, make_folder: bool) -> Result<Place, SandboxError> {
        let host = self.resolve(path)?;
        let rel = host
            .strip_prefix(self.root())
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let root = Dir::open_ambient_dir(self.root(), cap_std::ambient_authority())
            .map_err(|_| SandboxError::NoWorkspace(self.root().display().to_string()))?;
        let parent = rel.parent().map(Path::to_path_buf).unwrap_or_default();
        if make_folder && !parent.as_os_str().is_empty() {
            root.create_dir_all(&parent)
                .map_err(|e| io_refusal(e, path, "make the folder for"))?;
        }
        let folder = self.open_folder(&root, &parent, path)?;
        let io = io_path(&host, folder.as_ref());
        Ok(Place {
            agent: path.to_string(),
            host,
            rel,
            root,
            folder,
            io,
        })
    }
}

impl Sandbox {
    /// The folder `parent` (from the root) opened beneath the root, its
    /// handle checked; `None` when it cannot be opened (it does not exist:
    /// the I/O that follows says so in its own words).
    fn open_folder(
        &self,
        root: &Dir,
        parent: &Path,
        path: &str,
    ) -> Result<Option<Dir>, SandboxError> {
        let at = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let dir = match root.open_dir(at) {
            Ok(dir) => dir,
            // An absolute link pointing inside: opened by name, then the
            // handle is checked (Linux).
            Err(e) if escaped(&e) && cfg!(target_os = "linux") => {
                match std::fs::File::open(self.root().join(at)) {
                    Ok(file) => Dir::from_std_file(file),
                    Err(_) => return Ok(None),
                }
            }
            Err(e) if escaped(&e) => return Err(SandboxError::LinkOutside(path.to_string())),
            Err(_) => return Ok(None),
        };
        self.verify_handle(path, &dir.as_filelike_view::<std::fs::File>())?;
        Ok(Some(dir))
    }
}

/// The path through `folder`'s handle (Linux), or `host`.
fn io_path(host: &Path, folder: Option<&Dir>) -> PathBuf {
    #[cfg(target_os = "linux")]
    if let (Some(dir), Some(name)) = (folder, host.file_name()) {
        use std::os::fd::AsRawFd;
        return PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd())).join(name);
    }
    let _ = folder;
    host.to_path_buf()
}

/// Whether `e` is cap-std's refusal of a path that leads out of its root.
fn escaped(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        && e.to_string().contains("outside of the filesystem")
}

/// `e`, or the sandbox's own words when the path led out of the root.
fn outside_or(e: io::Error, agent: &str) -> io::Error {
    if escaped(&e) {
        refused(SandboxError::LinkOutside(agent.to_string()))
    } else {
        e
    }
}

/// A sandbox refusal as an I/O error (kind `PermissionDenied`).
fn refused(e: SandboxError) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, e)
}

/// `e`, met while doing `action` for `path`, as a sandbox error.
fn io_refusal(e: io::Error, path: &str, action: &'static str) -> SandboxError {
    if escaped(&e) {
        return SandboxError::LinkOutside(path.to_string());
    }
    SandboxError::Io {
        path: path.to_string(),
        action,
        reason: e.to_string(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Sandbox) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("inbox")).unwrap();
        std::fs::write(root.path().join("inbox/note.txt"), "inside").unwrap();
        std::fs::write(outside.path().join("note.txt"), "outside").unwrap();
        let sb = Sandbox::new(root.path()).unwrap();
        (root, outside, sb)
    }

    /// `inbox` becomes a link to `outside` (the old folder kept aside).
    fn swap(root: &Path, outside: &Path) {
        std::fs::rename(root.join("inbox"), root.join("was-inbox")).unwrap();
        std::os::unix::fs::symlink(outside, root.join("inbox")).unwrap();
    }

    #[test]
    fn reads_and_writes_inside() {
        let (r, _o, sb) = setup();
        let place = sb.place("/inbox/note.txt", false).unwrap();
        assert_eq!(place.read(&sb).unwrap(), b"inside");
        assert_eq!(place.host(), sb.root().join("inbox/note.txt"));
        let new = sb.place("/made/deep/new.txt", true).unwrap();
        assert!(new.is_held());
        baton_stdx::atomic_write(new.io(), b"new").unwrap();
        assert_eq!(
            std::fs::read(r.path().join("made/deep/new.txt")).unwrap(),
            b"new"
        );
        assert_eq!(new.shown(new.io()), new.host());
        let missing = sb.place("/nowhere/x.txt", false).unwrap();
        assert!(!missing.is_held());
        assert_eq!(
            missing.read(&sb).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_write_after_the_folder_is_swapped_for_a_link_stays_inside() {
        let (r, o, sb) = setup();
        let place = sb.place("/inbox/note.txt", false).unwrap();
        swap(r.path(), o.path());
        baton_stdx::atomic_write(place.io(), b"written").unwrap();
        assert_eq!(
            std::fs::read(o.path().join("note.txt")).unwrap(),
            b"outside"
        );
        assert_eq!(
            std::fs::read(r.path().join("was-inbox/note.txt")).unwrap(),
            b"written"
        );
    }

    #[test]
    fn a_read_after_the_folder_is_swapped_for_a_link_is_refused() {
        let (r, o, sb) = setup();
        let place = sb.place("/inbox/note.txt", false).unwrap();
        swap(r.path(), o.path());
        let e = place.read(&sb).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{e}");
        assert!(e.to_string().contains("leads outside"), "{e}");
    }

    #[test]
    fn a_folder_that_leads_out_is_refused_before_anything_is_made() {
        let (r, o, sb) = setup();
        std::os::unix::fs::symlink(o.path(), r.path().join("out")).unwrap();
        let e = sb.place("/out/sub/x.txt", true).unwrap_err();
        assert!(matches!(e, SandboxError::LinkOutside(_)), "{e}");
        assert!(!o.path().join("sub").exists());
    }

    #[test]
    fn a_link_with_an_absolute_target_inside_still_works() {
        let (r, _o, sb) = setup();
        std::os::unix::fs::symlink(r.path().join("inbox"), r.path().join("alias")).unwrap();
        let place = sb.place("/alias/note.txt", false).unwrap();
        if cfg!(target_os = "linux") {
            assert!(place.is_held());
            assert_eq!(place.read(&sb).unwrap(), b"inside");
        }
    }
}
