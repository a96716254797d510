//! Finding the user's browser: Edge, then Chrome, then Chromium, on
//! Windows, macOS and Linux (standard install paths, then `PATH`), their
//! user-data-dirs, and the `DevToolsActivePort` file a browser writes when
//! the user allows remote debugging (`edge://inspect`,
//! `chrome://inspect/#remote-debugging`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

/// A browser family Baton drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Microsoft Edge.
    Edge,
    /// Google Chrome.
    Chrome,
    /// Chromium (Debian's, or another build).
    Chromium,
}

impl Family {
    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Family::Edge => "Microsoft Edge",
            Family::Chrome => "Google Chrome",
            Family::Chromium => "Chromium",
        }
    }

    /// The page where the user allows remote debugging of the running
    /// browser.
    pub fn inspect_page(self) -> &'static str {
        match self {
            Family::Edge => "edge://inspect",
            Family::Chrome | Family::Chromium => "chrome://inspect/#remote-debugging",
        }
    }
}

/// A browser found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Installed {
    /// Which one.
    pub family: Family,
    /// Its program.
    pub program: PathBuf,
    /// Its default user-data-dir (the user's profiles), when known.
    pub user_data_dir: Option<PathBuf>,
}

/// Program names looked up on `PATH`, per family.
fn path_names(family: Family) -> &'static [&'static str] {
    match family {
        Family::Edge => &["microsoft-edge", "microsoft-edge-stable", "msedge"],
        Family::Chrome => &["google-chrome", "google-chrome-stable", "chrome"],
        Family::Chromium => &["chromium", "chromium-browser"],
    }
}

/// Standard install locations, per family, on this platform.
fn install_paths(family: Family) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if cfg!(target_os = "windows") {
        let roots = ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"]
            .iter()
            .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
            .collect::<Vec<_>>();
        let tail = match family {
            Family::Edge => "Microsoft\\Edge\\Application\\msedge.exe",
            Family::Chrome => "Google\\Chrome\\Application\\chrome.exe",
            Family::Chromium => "Chromium\\Application\\chrome.exe",
        };
        out.extend(roots.iter().map(|r| r.join(tail)));
    } else if cfg!(target_os = "macos") {
        let app = match family {
            Family::Edge => "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
            Family::Chrome => "Google Chrome.app/Contents/MacOS/Google Chrome",
            Family::Chromium => "Chromium.app/Contents/MacOS/Chromium",
        };
        out.push(Path::new("/Applications").join(app));
        if let Some(home) = home() {
            out.push(home.join("Applications").join(app));
        }
    } else {
        out.extend(
            match family {
                Family::Edge => vec!["/opt/microsoft/msedge/msedge", "/usr/bin/microsoft-edge"],
                Family::Chrome => vec!["/opt/google/chrome/chrome", "/usr/bin/google-chrome"],
                Family::Chromium => vec!["/usr/bin/chromium", "/usr/lib/chromium/chromium"],
            }
            .into_iter()
            .map(PathBuf::from),
        );
    }
    out
}

fn home() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf())
}

/// The default user-data-dir of `family` on this platform.
pub fn default_user_data_dir(family: Family) -> Option<PathBuf> {
    let home = home()?;
    Some(if cfg!(target_os = "windows") {
        let local = std::env::var_os("LOCALAPPDATA").map(PathBuf::from)?;
        local.join(match family {
            Family::Edge => "Microsoft\\Edge\\User Data",
            Family::Chrome => "Google\\Chrome\\User Data",
            Family::Chromium => "Chromium\\User Data",
        })
    } else if cfg!(target_os = "macos") {
        home.join("Library/Application Support").join(match family {
            Family::Edge => "Microsoft Edge",
            Family::Chrome => "Google/Chrome",
            Family::Chromium => "Chromium",
        })
    } else {
        home.join(".config").join(match family {
            Family::Edge => "microsoft-edge",
            Family::Chrome => "google-chrome",
            Family::Chromium => "chromium",
        })
    })
}

/// The browsers installed here, Edge first, then Chrome, then Chromium.
pub fn installed() -> Vec<Installed> {
    [Family::Edge, Family::Chrome, Family::Chromium]
        .into_iter()
        .filter_map(|family| {
            let program = install_paths(family)
                .into_iter()
                .find(|p| p.is_file())
                .or_else(|| path_names(family).iter().find_map(|n| on_path(n)))?;
            Some(Installed {
                family,
                program,
                user_data_dir: default_user_data_dir(family),
            })
        })
        .collect()
}

/// The browser a program path names (by its file name).
pub fn family_of(program: &Path) -> Family {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.contains("edge") {
        Family::Edge
    } else if name.contains("chromium") {
        Family::Chromium
    } else {
        Family::Chrome
    }
}

/// `name` found on `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let p = dir.join(name);
        let exe = p.with_extension("exe");
        [p, exe].into_iter().find(|p| p.is_file())
    })
}

/// Where a browser that allowed remote debugging listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivePort {
    /// The local port.
    pub port: u16,
    /// The browser target's path (`/devtools/browser/<id>`).
    pub path: String,
}

impl ActivePort {
    /// The browser's WebSocket address.
    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}{}", self.port, self.path)
    }
}

/// Why attaching to the user's running browser cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachProblem {
    /// The browser never wrote the file: remote debugging is off.
    #[error(
        "{browser} does not allow remote debugging yet. Once: open {page} in {browser}, turn on \"Allow remote debugging for this browser instance\", and keep {browser} open; Baton then attaches to it (it asks you to allow the connection the first time)."
    )]
    NotEnabled {
        /// The browser's name.
        browser: String,
        /// The page with the switch.
        page: String,
    },
    /// The file is there but nothing answers on its port.
    #[error(
        "{browser} is not running (its remote-debugging file names port {port}, where nothing answers). Start {browser}, or set browser.mode to profile or headless."
    )]
    NotRunning {
        /// The browser's name.
        browser: String,
        /// The stale port.
        port: u16,
    },
    /// The file cannot be read as a port and a path.
    #[error("{file} is not a DevToolsActivePort file Baton understands: {reason}")]
    Unreadable {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
}

/// Reads `DevToolsActivePort` in `user_data_dir`: `Ok(None)` when there
/// is none.
pub fn read_active_port(user_data_dir: &Path) -> Result<Option<ActivePort>, AttachProblem> {
    let file = user_data_dir.join("DevToolsActivePort");
    let Ok(text) = std::fs::read_to_string(&file) else {
        return Ok(None);
    };
    let unreadable = |reason: &str| AttachProblem::Unreadable {
        file: file.display().to_string(),
        reason: reason.to_string(),
    };
    let mut lines = text.lines().map(str::trim);
    let port = lines
        .next()
        .and_then(|l| l.parse::<u16>().ok())
        .filter(|p| *p > 0)
        .ok_or_else(|| unreadable("line 1 is not a port"))?;
    let path = lines
        .next()
        .filter(|l| l.starts_with("/devtools/browser/"))
        .ok_or_else(|| unreadable("line 2 is not /devtools/browser/…"))?;
    Ok(Some(ActivePort {
        port,
        path: path.to_string(),
    }))
}

/// Whether the user turned remote debugging on (`Local State` →
/// `devtools.remote_debugging.user-enabled`); `None` when unsaid.
pub fn remote_debugging_enabled(user_data_dir: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(user_data_dir.join("Local State")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.pointer("/devtools/remote_debugging/user-enabled")?
        .as_bool()
}

/// The browser's WebSocket address in `user_data_dir`, checked to answer
/// (a file left by a closed browser names a dead port).
pub async fn attach_address(user_data_dir: &Path, family: Family) -> Result<String, AttachProblem> {
    let browser = family.label().to_string();
    let Some(active) = read_active_port(user_data_dir)? else {
        return Err(AttachProblem::NotEnabled {
            browser,
            page: family.inspect_page().to_string(),
        });
    };
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], active.port));
    let answered =
        tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(addr)).await;
    match answered {
        Ok(Ok(_)) => Ok(active.ws_url()),
        _ => Err(AttachProblem::NotRunning {
            browser,
            port: active.port,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_active_port_file_is_read_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_active_port(dir.path()).unwrap(), None);
        let file = dir.path().join("DevToolsActivePort");
        std::fs::write(&file, "9222\n/devtools/browser/abc-123\n").unwrap();
        let p = read_active_port(dir.path()).unwrap().unwrap();
        assert_eq!(p.ws_url(), "ws://127.0.0.1:9222/devtools/browser/abc-123");
        std::fs::write(&file, "port\n/devtools/browser/x\n").unwrap();
        let e = read_active_port(dir.path()).unwrap_err().to_string();
        assert!(e.contains("line 1 is not a port"), "{e}");
        std::fs::write(&file, "9222\n").unwrap();
        assert!(read_active_port(dir.path()).is_err());
    }

    #[test]
    fn the_local_state_switch_is_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(remote_debugging_enabled(dir.path()), None);
        std::fs::write(
            dir.path().join("Local State"),
            r#"{"devtools":{"remote_debugging":{"user-enabled":true}}}"#,
        )
        .unwrap();
        assert_eq!(remote_debugging_enabled(dir.path()), Some(true));
    }

    #[test]
    fn programs_name_their_family() {
        assert_eq!(family_of(Path::new("/usr/bin/chromium")), Family::Chromium);
        assert_eq!(family_of(Path::new("C:\\x\\msedge.exe")), Family::Edge);
        assert_eq!(
            family_of(Path::new("/opt/google/chrome/chrome")),
            Family::Chrome
        );
    }

    #[tokio::test]
    async fn a_stale_file_and_a_missing_one_are_explained() {
        let dir = tempfile::tempdir().unwrap();
        let e = attach_address(dir.path(), Family::Edge).await.unwrap_err();
        assert!(e.to_string().contains("edge://inspect"), "{e}");
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        std::fs::write(
            dir.path().join("DevToolsActivePort"),
            format!("{port}\n/devtools/browser/gone\n"),
        )
        .unwrap();
        let e = attach_address(dir.path(), Family::Chrome)
            .await
            .unwrap_err();
        assert!(
            matches!(e, AttachProblem::NotRunning { port: p, .. } if p == port),
            "{e}"
        );
        assert!(e.to_string().contains("not running"), "{e}");
    }
}
