//! The agent's file world: a Unix-style tree whose `/` is the workspace
//! folder. Every file-touching tool goes through [`Sandbox::resolve`].
//!
//! The rules hold on every platform alike: each segment of a path must be
//! one plain name there (no drive, no `:` stream, no device name such as
//! `CON`, nothing Windows would trim), `..` never climbs above the root,
//! a link may not lead outside, a file with another hard link (a name
//! elsewhere for the same bytes) is refused, and Baton's own folders
//! (settings, data, plugins) stay out of reach even when the workspace
//! holds them.

use std::path::{Component, Path, PathBuf};

/// A path the agent may not use, naming it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The workspace folder itself is unusable.
    #[error("the workspace folder {0} does not exist or cannot be read")]
    NoWorkspace(String),
    /// Contains a NUL byte.
    #[error("path {0:?} contains a NUL byte")]
    Nul(String),
    /// A Windows drive, UNC path or backslash.
    #[error(
        "path `{0}` is not a workspace path: use `/`-separated paths starting at `/` (no drive letters, `\\\\server` shares or backslashes)"
    )]
    Foreign(String),
    /// `..` above the root.
    #[error("path `{0}` climbs above the workspace root")]
    Escapes(String),
    /// A link that leads outside.
    #[error("path `{0}` goes through a link that leads outside the workspace")]
    LinkOutside(String),
    /// A segment that is not one plain name on every platform.
    #[error("path `{path}`: `{segment}` cannot be a file or folder name ({why})")]
    BadName {
        /// The path.
        path: String,
        /// The segment at fault.
        segment: String,
        /// Why, in words.
        why: &'static str,
    },
    /// A file that has another name elsewhere (a hard link).
    #[error(
        "path `{0}` is a file with more than one name (a hard link): it may be a file from outside the workspace, so Baton does not open it"
    )]
    HardLinked(String),
    /// Inside one of Baton's own folders.
    #[error(
        "path `{0}` is inside Baton's own folders (settings, data or plugins), which tools may not touch"
    )]
    BatonFolder(String),
    /// The file system refused a step on the way.
    #[error("could not {action} `{path}`: {reason}")]
    Io {
        /// The path.
        path: String,
        /// What was being done, e.g. `make the folder for`.
        action: &'static str,
        /// The system's words.
        reason: String,
    },
}

/// Windows' device names: a file so named (with any extension) is a
/// device there, not a file.
const DEVICE_NAMES: [&str; 24] = [
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "conin$",
    "conout$",
];

/// Why `seg` is not one plain name on every platform, if it is not.
fn unfit_name(seg: &str) -> Option<&'static str> {
    if seg.contains(':') {
        return Some("`:` names a drive or a hidden stream on Windows");
    }
    if seg.chars().any(|c| c.is_control() || "<>\"|?*".contains(c)) {
        return Some("control characters and `< > \" | ? *` are not allowed in names on Windows");
    }
    if seg.ends_with('.') || seg.ends_with(' ') {
        return Some("Windows drops a name's trailing dots and spaces");
    }
    let stem = seg
        .split('.')
        .next()
        .unwrap_or(seg)
        .trim_end()
        .to_lowercase();
    let stem = stem.replace(['¹', '²', '³'], "1");
    if DEVICE_NAMES.contains(&stem.as_str()) {
        return Some("it is a device name on Windows");
    }
    let mut parts = Path::new(seg).components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(_)), None) => None,
        _ => Some("it is not a plain name on this system"),
    }
}

/// Maps agent paths (`/reports/a.xlsx`) to host paths under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    root: PathBuf,
    /// Folders inside the root that tools may not touch (Baton's own).
    fenced: Vec<PathBuf>,
}

impl Sandbox {
    /// A sandbox on `root` (which must exist).
    pub fn new(root: impl AsRef<Path>) -> Result<Self, SandboxError> {
        let root = root.as_ref();
        let canonical = root
            .canonicalize()
            .map_err(|_| SandboxError::NoWorkspace(root.display().to_string()))?;
        if !canonical.is_dir() {
            return Err(SandboxError::NoWorkspace(root.display().to_string()));
        }
        Ok(Self {
            root: canonical,
            fenced: Vec::new(),
        })
    }

    /// Keeps `dirs` (Baton's own folders: settings, data, plugins) out of
    /// reach where they lie inside the workspace.
    pub fn fencing(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        for dir in dirs {
            let dir = dir.canonicalize().unwrap_or(dir);
            if dir.starts_with(&self.root) && dir != self.root && !self.fenced.contains(&dir) {
                self.fenced.push(dir);
            }
        }
        self
    }

    /// The workspace folder (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The host path of agent path `path`. `/` is the root; a path without
    /// a leading `/` is read from the root too. Rejected: NUL bytes,
    /// backslashes, drive letters and UNC shares, segments that are not one
    /// plain name on every platform, `..` above the root, links (anywhere
    /// along the path) that lead outside, files with another hard link,
    /// and Baton's own folders.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, SandboxError> {
        let host = self.lexical(path)?;
        let real = self.follow_links(path, &host)?;
        self.check_fenced(path, &host)?;
        if let Some(real) = &real {
            self.check_fenced(path, real)?;
        }
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(&host) {
            check_single_link(path, &meta)?;
        }
        Ok(host)
    }

    /// `path` joined to the root segment by segment, checked by its words
    /// alone.
    fn lexical(&self, path: &str) -> Result<PathBuf, SandboxError> {
        if path.contains('\0') {
            return Err(SandboxError::Nul(path.to_string()));
        }
        let foreign = path.contains('\\')
            || path.starts_with("//")
            || (path.len() >= 2
                && path.as_bytes()[1] == b':'
                && path.as_bytes()[0].is_ascii_alphabetic());
        if foreign {
            return Err(SandboxError::Foreign(path.to_string()));
        }
        let mut parts: Vec<&str> = Vec::new();
        for seg in path.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(SandboxError::Escapes(path.to_string()));
                    }
                }
                s => {
                    if let Some(why) = unfit_name(s) {
                        return Err(SandboxError::BadName {
                            path: path.to_string(),
                            segment: s.to_string(),
                            why,
                        });
                    }
                    parts.push(s)
                }
            }
        }
        let mut host = self.root.clone();
        host.extend(&parts);
        // Each segment is one plain name: the join stays under the root.
        debug_assert!(host.starts_with(&self.root));
        Ok(host)
    }

    /// Every link along `host` must lead inside once followed; where
    /// `host` really is, when it exists.
    fn follow_links(&self, path: &str, host: &Path) -> Result<Option<PathBuf>, SandboxError> {
        let rel = host.strip_prefix(&self.root).unwrap_or(host);
        let mut so_far = self.root.clone();
        for part in rel.components() {
            so_far.push(part);
            // A component that is a link must stay inside once followed.
            if let Ok(meta) = std::fs::symlink_metadata(&so_far)
                && meta.file_type().is_symlink()
            {
                match so_far.canonicalize() {
                    Ok(real) if real.starts_with(&self.root) => {}
                    _ => return Err(SandboxError::LinkOutside(path.to_string())),
                }
            }
        }
        // Belt and braces: what exists must be inside after resolution.
        let real = host.canonicalize().ok();
        if real.as_ref().is_some_and(|r| !r.starts_with(&self.root)) {
            return Err(SandboxError::LinkOutside(path.to_string()));
        }
        Ok(real)
    }

    /// Baton's own folders are out of reach: `at` (a path by name, or
    /// where it really is) may not lie in one.
    fn check_fenced(&self, path: &str, at: &Path) -> Result<(), SandboxError> {
        if self.fenced.iter().any(|f| at.starts_with(f)) {
            return Err(SandboxError::BatonFolder(path.to_string()));
        }
        Ok(())
    }

    /// Checks `file`, opened at what [`resolve`](Self::resolve) gave for
    /// `path`, once more by its handle: where it really is (a folder on the
    /// way may have been swapped for a link since the check) must be inside
    /// the workspace and outside Baton's folders, with one name only. The
    /// handle's place is read from `/proc/self/fd` on Linux; elsewhere the
    /// check before opening (and `cap-std`'s open beneath the root, see
    /// [`Place`](crate::Place)) stands alone.
    pub fn verify_opened(&self, path: &str, file: &std::fs::File) -> Result<(), SandboxError> {
        self.verify_handle(path, file)?;
        #[cfg(unix)]
        {
            let meta = file
                .metadata()
                .map_err(|_| SandboxError::LinkOutside(path.to_string()))?;
            check_single_link(path, &meta)?;
        }
        Ok(())
    }

    /// Where `handle` really is must be inside the workspace and
    /// outside Baton's folders (Linux; a no-op elsewhere).
    pub(crate) fn verify_handle(
        &self,
        path: &str,
        handle: &std::fs::File,
    ) -> Result<(), SandboxError> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let real = std::fs::read_link(format!("/proc/self/fd/{}", handle.as_raw_fd()))
                .map_err(|_| SandboxError::LinkOutside(path.to_string()))?;
            if !real.starts_with(&self.root) {
                return Err(SandboxError::LinkOutside(path.to_string()));
            }
            self.check_fenced(path, &real)?;
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (path, handle);
        Ok(())
    }

    /// The agent path of a host path inside the root (`/a/b.txt`).
    pub fn agent_path(&self, host: &Path) -> Option<String> {
        let rel = host.strip_prefix(&self.root).ok()?;
        let mut out = String::new();
        for c in rel.components() {
            if let Component::Normal(n) = c {
                out.push('/');
                out.push_str(&n.to_string_lossy());
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        Some(out)
    }
}

/// A regular file with more than one name may be a file from outside the
/// workspace, linked in: refused (Unix; elsewhere the count is not read).
#[cfg(unix)]
fn check_single_link(path: &str, meta: &std::fs::Metadata) -> Result<(), SandboxError> {
    if meta.is_file() && std::os::unix::fs::MetadataExt::nlink(meta) > 1 {
        return Err(SandboxError::HardLinked(path.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Sandbox) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("docs/sub")).unwrap();
        std::fs::write(root.path().join("docs/a.txt"), "a").unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), root.path().join("link_out")).unwrap();
            std::os::unix::fs::symlink(
                outside.path().join("secret.txt"),
                root.path().join("docs/file_out"),
            )
            .unwrap();
            std::os::unix::fs::symlink(root.path().join("docs"), root.path().join("link_in"))
                .unwrap();
            std::os::unix::fs::symlink("/nonexistent/x", root.path().join("dangling")).unwrap();
        }
        let sb = Sandbox::new(root.path()).unwrap();
        (root, outside, sb)
    }

    #[test]
    fn maps_paths_inside() {
        let (_r, _o, sb) = setup();
        assert_eq!(sb.resolve("/").unwrap(), sb.root());
        assert_eq!(
            sb.resolve("/docs/a.txt").unwrap(),
            sb.root().join("docs/a.txt")
        );
        assert_eq!(
            sb.resolve("docs/./sub/../a.txt").unwrap(),
            sb.root().join("docs/a.txt")
        );
        assert_eq!(
            sb.resolve("/new/file.txt").unwrap(),
            sb.root().join("new/file.txt")
        );
        assert_eq!(
            sb.agent_path(&sb.root().join("docs/a.txt")).unwrap(),
            "/docs/a.txt"
        );
        #[cfg(unix)]
        assert!(sb.resolve("/link_in/a.txt").is_ok());
    }

    #[test]
    fn rejects_escapes_with_the_path_named() {
        let (_r, _o, sb) = setup();
        for (p, kind) in [
            ("/../etc/passwd", "climbs above"),
            ("/docs/../../x", "climbs above"),
            ("C:\\Windows", "not a workspace path"),
            ("C:/Windows", "not a workspace path"),
            ("c:", "not a workspace path"),
            ("\\\\server\\share", "not a workspace path"),
            ("//server/share", "not a workspace path"),
            ("/docs\\a.txt", "not a workspace path"),
            ("/a\0b", "NUL"),
        ] {
            let e = sb.resolve(p).unwrap_err().to_string();
            assert!(e.contains(kind), "{p}: {e}");
            if !p.contains('\0') {
                assert!(e.contains(p), "{p}: {e}");
            }
        }
        #[cfg(unix)]
        for p in [
            "/link_out",
            "/link_out/secret.txt",
            "/docs/file_out",
            "/dangling",
            "/link_out/new.txt",
        ] {
            let e = sb.resolve(p).unwrap_err();
            assert!(matches!(e, SandboxError::LinkOutside(_)), "{p}: {e}");
        }
    }

    #[test]
    fn names_that_are_not_one_plain_name_everywhere_are_refused() {
        let (_r, _o, sb) = setup();
        for (p, seg) in [
            ("/x/C:/version.dll", "C:"),
            ("/docs/a.txt::$DATA", "a.txt::$DATA"),
            ("/CON", "CON"),
            ("/docs/nul.txt", "nul.txt"),
            ("/Com1.log", "Com1.log"),
            ("/lpt\u{b9}", "lpt\u{b9}"),
            ("/report.", "report."),
            ("/report ", "report "),
            ("/a?b", "a?b"),
            ("/tab\there", "tab\there"),
        ] {
            match sb.resolve(p) {
                Err(SandboxError::BadName { segment, .. }) => assert_eq!(segment, seg, "{p}"),
                other => panic!("{p}: {other:?}"),
            }
        }
        for p in [
            "/console.txt",
            "/nullish",
            "/com10",
            "/a.b.c",
            "/.hidden",
            "/docs/a.txt",
        ] {
            assert!(sb.resolve(p).is_ok(), "{p}");
        }
        let e = sb.resolve("/x/C:/version.dll").unwrap_err().to_string();
        assert!(e.contains("`C:` cannot be a file or folder name"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_file_linked_in_from_outside_is_refused() {
        let (r, o, sb) = setup();
        std::fs::hard_link(
            o.path().join("secret.txt"),
            r.path().join("docs/looks_local.txt"),
        )
        .unwrap();
        let e = sb.resolve("/docs/looks_local.txt").unwrap_err();
        assert!(matches!(e, SandboxError::HardLinked(_)), "{e}");
        assert!(sb.resolve("/docs/a.txt").is_ok());
    }

    #[test]
    fn batons_own_folders_inside_the_workspace_are_out_of_reach() {
        let (r, _o, sb) = setup();
        let data = r.path().join(".local/share/baton");
        std::fs::create_dir_all(data.join("Tools/words")).unwrap();
        std::fs::write(data.join("server-keys.json"), "[]").unwrap();
        let later = r.path().join("config-made-later");
        let sb = sb.fencing([data.clone(), later, PathBuf::from("/elsewhere/baton")]);
        for p in [
            "/.local/share/baton",
            "/.local/share/baton/server-keys.json",
            "/.local/share/baton/Tools/words/plugin.json",
            "/.local/share/./baton/../baton/Tools",
            "/config-made-later/setup.json",
        ] {
            let e = sb.resolve(p).unwrap_err();
            assert!(matches!(e, SandboxError::BatonFolder(_)), "{p}: {e}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&data, r.path().join("shortcut")).unwrap();
            let e = sb.resolve("/shortcut/server-keys.json").unwrap_err();
            assert!(matches!(e, SandboxError::BatonFolder(_)), "{e}");
        }
        assert!(sb.resolve("/.local/share").is_ok());
        assert!(sb.resolve("/docs/a.txt").is_ok());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_swapped_for_a_link_after_the_check_is_caught_on_the_handle() {
        let (r, o, sb) = setup();
        std::fs::create_dir(r.path().join("inbox")).unwrap();
        std::fs::write(r.path().join("inbox/secret.txt"), "inside").unwrap();
        let host = sb.resolve("/inbox/secret.txt").unwrap();
        // Between the check and the open, `inbox` becomes a link outside.
        std::fs::rename(r.path().join("inbox"), r.path().join("was-inbox")).unwrap();
        std::os::unix::fs::symlink(o.path(), r.path().join("inbox")).unwrap();
        let opened = std::fs::File::open(&host).unwrap();
        let e = sb.verify_opened("/inbox/secret.txt", &opened).unwrap_err();
        assert!(matches!(e, SandboxError::LinkOutside(_)), "{e}");
        let fine = std::fs::File::open(r.path().join("docs/a.txt")).unwrap();
        assert!(sb.verify_opened("/docs/a.txt", &fine).is_ok());
    }

    /// What Windows opens for one name of a path: the name it means, or
    /// `None` where it is not a file of that folder (another separator, a
    /// drive, a hidden stream, a device). A model of Windows' rules, so
    /// that the sandbox's answers are checked against them on any system.
    fn windows_name(seg: &str) -> Option<String> {
        if seg.contains(['\\', '/']) || seg.contains(':') {
            return None;
        }
        let trimmed = seg.trim_end_matches(['.', ' ']);
        if trimmed.is_empty() || trimmed == "." || trimmed == ".." {
            return None;
        }
        let base = trimmed.split('.').next().unwrap_or(trimmed).trim_end();
        let base = base.to_ascii_uppercase();
        let numbered = |p: &str| {
            base.strip_prefix(p).is_some_and(|n| {
                [
                    "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u{b9}", "\u{b2}", "\u{b3}",
                ]
                .contains(&n)
            })
        };
        let device = ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].contains(&base.as_str())
            || numbered("COM")
            || numbered("LPT");
        (!device).then(|| trimmed.to_string())
    }

    fn windows_segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("C:".to_string()),
            Just("c:x".to_string()),
            Just("a.txt::$DATA".to_string()),
            Just("CON".to_string()),
            Just("con.txt".to_string()),
            Just("Nul ".to_string()),
            Just("COM1".to_string()),
            Just("lpt9.log".to_string()),
            Just("com\u{b2}".to_string()),
            Just("x. ".to_string()),
            Just("x.".to_string()),
            Just("a\\b".to_string()),
            Just("..".to_string()),
            Just("docs".to_string()),
            "[a-zA-Z0-9 .:$\\\\]{1,6}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn what_is_taken_is_the_same_file_on_windows(segs in proptest::collection::vec(windows_segment(), 1..6)) {
            let (_r, _o, sb) = setup();
            let path = format!("/{}", segs.join("/"));
            if let Ok(host) = sb.resolve(&path) {
                for part in host.strip_prefix(sb.root()).unwrap().components() {
                    let name = part.as_os_str().to_string_lossy().into_owned();
                    prop_assert_eq!(windows_name(&name), Some(name.clone()), "{} takes `{}`", path, name);
                }
            }
        }
    }

    fn segment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("..".to_string()),
            Just(".".to_string()),
            Just("".to_string()),
            Just("docs".to_string()),
            Just("sub".to_string()),
            Just("link_out".to_string()),
            Just("link_in".to_string()),
            Just("file_out".to_string()),
            Just("dangling".to_string()),
            Just("C:".to_string()),
            Just("..\\..".to_string()),
            Just("%2e%2e".to_string()),
            Just("…".to_string()),
            "[a-z.]{1,4}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn nothing_escapes(lead in prop_oneof![Just(""), Just("/"), Just("//"), Just("\\"), Just("C:/")],
                           segs in proptest::collection::vec(segment(), 0..8)) {
            let (_r, _o, sb) = setup();
            let path = format!("{lead}{}", segs.join("/"));
            if let Ok(host) = sb.resolve(&path) {
                // Lexically inside…
                prop_assert!(host.starts_with(sb.root()), "{path} -> {}", host.display());
                // …and, following every link that exists, still inside.
                let mut existing = host.clone();
                while !existing.exists() && existing.pop() {}
                let real = existing.canonicalize().unwrap();
                prop_assert!(real.starts_with(sb.root()), "{path} -> {}", real.display());
            }
        }
    }
}
