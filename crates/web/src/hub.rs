//! One browser connection shared by every conversation: made on first
//! use in the mode the settings name (else attach, then profile, then
//! headless), kept open (so the user allows an attached connection once),
//! and made again when the browser went away.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use baton_config::{BrowserMode, BrowserSettings};
use chromiumoxide::Browser;
use chromiumoxide::browser::BrowserConfig;
use chromiumoxide::cdp::browser_protocol::browser::{
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;
use tokio::sync::Mutex;
use tracing::Instrument;

use crate::WebError;
use crate::discover::{self, Family};

/// How long attaching may take: the user answers the browser's
/// permission prompt meanwhile.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a launch may take.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one CDP request may take (chromiumoxide ends a page's
/// commands at a fixed 30 s of its own; `navigate` then goes on waiting
/// for the page until its `timeout_ms`).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A live connection.
struct Live {
    browser: Arc<Browser>,
    mode: BrowserMode,
    handler: tokio::task::JoinHandle<()>,
    /// The throwaway profile of a headless browser, removed with it.
    _profile: Option<tempfile::TempDir>,
}

/// The browser every browser toolbox of this engine uses.
pub struct BrowserHub {
    settings: BrowserSettings,
    /// Baton's own lasting profile (profile mode).
    own_profile: PathBuf,
    /// Where a browser Baton starts saves what pages download: outside
    /// the workspace, until `save_download` puts a file there.
    downloads: Option<PathBuf>,
    live: Mutex<Option<Live>>,
}

impl std::fmt::Debug for BrowserHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserHub")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl BrowserHub {
    /// A hub for `settings`; `own_profile` is where profile mode keeps
    /// Baton's browser profile. Nothing starts until a tool needs it.
    pub fn new(settings: BrowserSettings, own_profile: PathBuf) -> Self {
        Self {
            settings,
            own_profile,
            downloads: None,
            live: Mutex::new(None),
        }
    }

    /// Downloads of a browser Baton starts land in `dir` (made when the
    /// first one arrives), which should be outside the workspace: a page
    /// must not add files to what search reads as the user's documents.
    /// An attached browser keeps the user's own download folder: Baton
    /// does not change the user's browser.
    pub fn with_downloads(mut self, dir: PathBuf) -> Self {
        self.downloads = Some(dir);
        self
    }

    /// Where pages' downloads land, when Baton starts the browser.
    pub fn downloads(&self) -> Option<&std::path::Path> {
        self.downloads.as_deref()
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &BrowserSettings {
        &self.settings
    }

    /// The connected browser and its mode, connecting first if needed.
    pub async fn browser(&self) -> Result<(Arc<Browser>, BrowserMode), WebError> {
        let mut live = self.live.lock().await;
        if let Some(l) = live.as_ref().filter(|l| !l.handler.is_finished()) {
            return Ok((Arc::clone(&l.browser), l.mode));
        }
        let l = self.connect().await?;
        let out = (Arc::clone(&l.browser), l.mode);
        *live = Some(l);
        Ok(out)
    }

    /// Closes a browser Baton launched; an attached one is left running.
    pub async fn shutdown(&self) {
        let Some(l) = self.live.lock().await.take() else {
            return;
        };
        if l.mode != BrowserMode::Attach
            && let Ok(mut b) = Arc::try_unwrap(l.browser)
        {
            let _ = b.close().await;
            let _ = b.wait().await;
        }
        l.handler.abort();
    }

    async fn connect(&self) -> Result<Live, WebError> {
        if let Some(mode) = self.settings.mode {
            return self.connect_as(mode).await;
        }
        match self.connect_as(BrowserMode::Attach).await {
            Ok(l) => return Ok(l),
            Err(e) => tracing::info!(reason = %e, "not attaching to the user's browser"),
        }
        let headed = has_display();
        if headed {
            match self.connect_as(BrowserMode::Profile).await {
                Ok(l) => return Ok(l),
                Err(e) => tracing::warn!(reason = %e, "Baton's browser profile did not start"),
            }
        }
        self.connect_as(BrowserMode::Headless).await
    }

    async fn connect_as(&self, mode: BrowserMode) -> Result<Live, WebError> {
        let span = tracing::info_span!("browser_connect", ?mode);
        self.connect_in(mode).instrument(span).await
    }

    async fn connect_in(&self, mode: BrowserMode) -> Result<Live, WebError> {
        match mode {
            BrowserMode::Attach => self.attach().await,
            BrowserMode::Profile => {
                let dir = self
                    .settings
                    .user_data_dir
                    .clone()
                    .unwrap_or_else(|| self.own_profile.clone());
                std::fs::create_dir_all(&dir).map_err(|e| {
                    WebError::Launch(format!(
                        "cannot make the browser profile folder {}: {e}",
                        dir.display()
                    ))
                })?;
                self.launch(mode, &dir, None).await
            }
            BrowserMode::Headless => {
                let tmp = tempfile::Builder::new()
                    .prefix("baton-browser-")
                    .tempdir()
                    .map_err(|e| {
                        WebError::Launch(format!("cannot make a temporary profile: {e}"))
                    })?;
                let dir = tmp.path().to_path_buf();
                self.launch(mode, &dir, Some(tmp)).await
            }
        }
    }

    /// The browser program: the setting, else Edge, Chrome, Chromium.
    fn program(&self) -> Result<(PathBuf, Family), WebError> {
        if let Some(p) = &self.settings.path {
            if !p.is_file() {
                return Err(WebError::NoBrowser(format!(
                    "browser.path names {}, which is not there",
                    p.display()
                )));
            }
            return Ok((p.clone(), discover::family_of(p)));
        }
        discover::installed()
            .into_iter()
            .next()
            .map(|i| (i.program, i.family))
            .ok_or_else(|| {
                WebError::NoBrowser(
                    "no Edge, Chrome or Chromium was found; install one, or set browser.path to its program".into(),
                )
            })
    }

    async fn attach(&self) -> Result<Live, WebError> {
        let (dir, family) = match &self.settings.user_data_dir {
            Some(dir) => {
                let family = self.program().map(|p| p.1).unwrap_or(Family::Chrome);
                (dir.clone(), family)
            }
            None => discover::installed()
                .into_iter()
                .find_map(|i| Some((i.user_data_dir?, i.family)))
                .ok_or_else(|| {
                    WebError::NoBrowser("no Edge, Chrome or Chromium was found to attach to".into())
                })?,
        };
        let url = discover::attach_address(&dir, family)
            .await
            .map_err(WebError::Attach)?;
        // A certificate error is an error in the user's browser too
        // (chromiumoxide's default would have every tab Baton drives
        // ignore them).
        let config = HandlerConfig {
            ignore_https_errors: false,
            request_timeout: REQUEST_TIMEOUT,
            ..HandlerConfig::default()
        };
        let connected = tokio::time::timeout(
            ATTACH_TIMEOUT,
            Browser::connect_with_config(url.clone(), config),
        )
        .await;
        let (browser, handler) = match connected {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => {
                return Err(WebError::Launch(format!(
                    "attaching to {} failed: {e}",
                    family.label()
                )));
            }
            Err(_) => {
                return Err(WebError::Launch(format!(
                    "attaching to {} timed out after {} s: allow the connection in the browser's prompt; a suspended or frozen tab can also hold it (reload or close sleeping tabs)",
                    family.label(),
                    ATTACH_TIMEOUT.as_secs()
                )));
            }
        };
        tracing::info!(browser = family.label(), "attached to the user's browser");
        Ok(Live {
            browser: Arc::new(browser),
            mode: BrowserMode::Attach,
            handler: drive(handler),
            _profile: None,
        })
    }

    async fn launch(
        &self,
        mode: BrowserMode,
        dir: &Path,
        profile: Option<tempfile::TempDir>,
    ) -> Result<Live, WebError> {
        let (program, family) = self.program()?;
        let mut b = BrowserConfig::builder()
            .chrome_executable(&program)
            .user_data_dir(dir)
            .viewport(None)
            .launch_timeout(LAUNCH_TIMEOUT)
            .request_timeout(REQUEST_TIMEOUT)
            // A site whose certificate is not trusted stays unopened, as
            // for the user (chromiumoxide ignores certificate errors by
            // default: a man in the middle would be read and acted on).
            .respect_https_errors()
            .args([
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-dev-shm-usage",
            ]);
        // Baton's profile shows a window on a desktop; on a machine with no
        // display it runs headless on the same lasting profile.
        b = if mode == BrowserMode::Headless || !has_display() {
            b.new_headless_mode()
        } else {
            b.with_head()
        };
        if running_as_root() {
            b = b.no_sandbox();
        }
        let config = b.build().map_err(WebError::Launch)?;
        let (browser, handler) = Browser::launch(config).await.map_err(|e| {
            WebError::Launch(format!(
                "{} ({}) did not start: {e}",
                family.label(),
                program.display()
            ))
        })?;
        tracing::info!(browser = family.label(), ?mode, "browser launched");
        let handler = drive(handler);
        if let Some(dir) = &self.downloads {
            let allow = SetDownloadBehaviorParams {
                behavior: SetDownloadBehaviorBehavior::Allow,
                browser_context_id: None,
                download_path: Some(dir.display().to_string()),
                events_enabled: None,
            };
            let set = tokio::time::timeout(Duration::from_secs(5), browser.execute(allow)).await;
            if !matches!(set, Ok(Ok(_))) {
                tracing::warn!(
                    "downloads stay in the browser's own folder: it did not accept Baton's"
                );
            }
        }
        Ok(Live {
            browser: Arc::new(browser),
            mode,
            handler,
            _profile: profile,
        })
    }
}

/// Runs the connection's event loop until the browser goes away; an
/// error on one message does not end it.
fn drive(mut handler: chromiumoxide::Handler) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = handler.next().await {
            if let Err(e) = event {
                tracing::debug!(error = %e, "browser connection message");
            }
        }
    })
}

/// Whether a window can be shown (a desktop session).
fn has_display() -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Chromium refuses to run sandboxed as root (containers, CI).
fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}
