//! The agent's file world: a Unix-style tree whose `/` is the workspace
//! folder. Every file-touching tool goes through [`Sandbox::resolve`].

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
}

/// Maps agent paths (`/reports/a.xlsx`) to host paths under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    root: PathBuf,
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
        Ok(Self { root: canonical })
    }

    /// The workspace folder (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The host path of agent path `path`. `/` is the root; a path without
    /// a leading `/` is read from the root too. Rejected: NUL bytes,
    /// backslashes, drive letters and UNC shares, `..` above the root,
    /// and links (anywhere along the path) that lead outside.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, SandboxError> {
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
                s => parts.push(s),
            }
        }
        let mut host = self.root.clone();
        for p in &parts {
            host.push(p);
            // A component that is a link must stay inside once followed.
            if let Ok(meta) = std::fs::symlink_metadata(&host)
                && meta.file_type().is_symlink()
            {
                match host.canonicalize() {
                    Ok(real) if real.starts_with(&self.root) => {}
                    _ => return Err(SandboxError::LinkOutside(path.to_string())),
                }
            }
        }
        // Belt and braces: what exists must be inside after resolution.
        if let Ok(real) = host.canonicalize()
            && !real.starts_with(&self.root)
        {
            return Err(SandboxError::LinkOutside(path.to_string()));
        }
        Ok(host)
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
