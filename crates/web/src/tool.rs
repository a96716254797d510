//! `WebTool`: the browser toolbox. Each conversation has its own tab (made
//! on first use) in the browser the [`BrowserHub`] shares; pages are read
//! as Markdown with their interactive elements numbered (`e12`), and
//! every action names its element by that id or an XPath.

use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_tools::{Sandbox, ToolContext, ToolImage, toolbox};
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{
    NavigateParams, PrintToPdfParams, StopLoadingParams,
};
use chromiumoxide::layout::Point;
use chromiumoxide::page::ScreenshotParams;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::WebError;
use crate::content::{self, PageContent};
use crate::hub::BrowserHub;
use crate::policy::SitePolicy;
use crate::provenance::{Seen, query_is_users};

/// The default web search: DuckDuckGo's plain HTML results.
const SEARCH_URL: &str = "https://html.duckduckgo.com/html/?q={query}";
/// The longest a browser tool waits for a page (`navigate`'s and
/// `wait_for`'s `timeout_ms` are capped at it).
const LONGEST_WAIT: Duration = Duration::from_secs(120);
/// The action script (see `act.js`).
const ACT_JS: &str = include_str!("act.js");
/// Cookie banners dismissed before a page is read (see `consent.js`).
const CONSENT_JS: &str = include_str!("consent.js");

/// The live web, in the user's browser (or Baton's own): open pages, read them as Markdown with their buttons, links and fields, click, fill forms, search the web, save pages as PDF or screenshots.
#[toolbox]
pub struct WebTool {
    hub: Arc<BrowserHub>,
    sandbox: Sandbox,
    policy: Arc<SitePolicy>,
    tabs: Mutex<Tabs>,
    /// The sites this conversation opened and the addresses its pages
    /// showed (what may open without the user's card).
    seen: std::sync::Mutex<Seen>,
}

/// This conversation's tabs.
#[derive(Default)]
struct Tabs {
    current: Option<Page>,
    /// Tabs Baton opened (closed when the conversation ends).
    opened: Vec<Page>,
    /// The user's own tabs Baton was allowed to switch to: held to the
    /// site policy from then on, as Baton's own are.
    borrowed: Vec<Page>,
    /// The current tab never finished loading its page: CDP keeps waiting
    /// on it, so the next navigation gets a new tab.
    stuck: bool,
    /// Addresses Baton's tabs were stopped from opening (the site policy,
    /// checked by the browser on every document: redirects, frames,
    /// scripts, clicks), told with the next result.
    stopped: crate::guard::Stopped,
}

impl Tabs {
    /// Whether Baton opened `page` (the user's own tabs are not Baton's).
    fn batons(&self, page: &Page) -> bool {
        self.opened
            .iter()
            .any(|o| o.target_id() == page.target_id())
    }

    /// Whether the browser already holds `page` to the site policy.
    fn guarded(&self, page: &Page) -> bool {
        self.batons(page)
            || self
                .borrowed
                .iter()
                .any(|o| o.target_id() == page.target_id())
    }
}

/// Where a page is.
#[derive(Debug, Serialize)]
pub struct PageInfo {
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// False when it had not finished loading in time (what loaded can be
    /// read).
    pub loaded: bool,
    /// Cookie banners dismissed.
    #[serde(skip_serializing_if = "is_zero")]
    pub banners_dismissed: u32,
    /// Addresses the page tried to open (a redirect, a frame, a script)
    /// that the site policy does not allow: the browser stopped them; and
    /// the dialogs it showed, answered by Baton (alerts closed, questions
    /// declined).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One field to fill.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct Field {
    /// The field's id from the page content (`e12`) or an XPath.
    pub target: String,
    /// The text to type.
    pub value: String,
}

/// What an action on an element did.
#[derive(Debug, Serialize)]
pub struct Acted {
    /// The element.
    pub target: String,
    /// What happened (`clicked "Sign in"`, `set to …`).
    pub done: String,
    /// The page's address afterwards.
    pub url: String,
    /// Whether the action led to another page.
    pub navigated: bool,
    /// Addresses the action led to that the site policy does not allow:
    /// the browser stopped them; and the dialogs it brought up, answered
    /// by Baton (alerts closed, questions declined).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped: Vec<String>,
}

/// A tab.
#[derive(Debug, Serialize)]
pub struct TabInfo {
    /// Its number, for switch_tab and close_tab.
    pub tab: usize,
    /// Its address.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Whether it is this conversation's current tab.
    pub current: bool,
    /// Whether Baton opened it.
    pub opened_by_baton: bool,
}

/// A web search result.
#[derive(Debug, Serialize, Deserialize)]
pub struct SearchResult {
    /// Its title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// A snippet of its text.
    pub snippet: String,
}

/// A file written into the workspace.
#[derive(Debug, Serialize)]
pub struct Saved {
    /// The workspace path.
    pub path: String,
    /// Its size.
    pub bytes: usize,
    /// The page it came from.
    pub url: String,
    /// Where the replaced file was backed up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

/// A file a page downloaded, waiting outside the workspace.
#[derive(Debug, Serialize)]
pub struct Download {
    /// Its name (for save_download).
    pub name: String,
    /// Its size.
    pub bytes: u64,
}

/// A downloaded file put into the workspace.
#[derive(Debug, Serialize)]
pub struct SavedDownload {
    /// The workspace path.
    pub path: String,
    /// Its size.
    pub bytes: usize,
    /// The download it was.
    pub download: String,
    /// Where the replaced file was backed up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
}

/// A PDF read as Markdown.
#[derive(Debug, Serialize)]
pub struct PdfText {
    /// Where it came from.
    pub url: String,
    /// Its pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<usize>,
    /// Its text as Markdown (up to max_chars).
    pub markdown: String,
    /// Whether text was left out.
    pub truncated: bool,
}

impl WebTool {
    /// A browser toolbox on `hub`, saving files into `sandbox`.
    pub fn new(hub: Arc<BrowserHub>, sandbox: Sandbox) -> Self {
        let policy = Arc::new(SitePolicy::from_settings(hub.settings()));
        Self {
            hub,
            sandbox,
            policy,
            tabs: Mutex::new(Tabs::default()),
            seen: std::sync::Mutex::new(Seen::default()),
        }
    }

    /// What this conversation opened and saw.
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether tab number `tab` (of list_tabs) is one Baton opened.
    async fn is_batons_tab(&self, tab: usize) -> bool {
        let Ok(page) = self.tab_page(tab).await else {
            return false;
        };
        self.tabs.lock().await.batons(&page)
    }

    /// The current page's address, if a tab is open.
    async fn current_url(&self) -> Option<String> {
        let page = self.tabs.lock().await.current.clone()?;
        Some(Self::url_of(&page).await)
    }

    /// `verb` the element `target` of the current page, in words: its
    /// kind and label, the page it is on, and where acting on it leads.
    async fn describe_element(&self, verb: &str, target: &str) -> Option<String> {
        let page = self.tabs.lock().await.current.clone()?;
        let e = Self::act(&page, "inspect", target, Value::Null)
            .await
            .ok()?;
        Some(element_words(verb, &e))
    }

    /// The fields a fill would type into, with what goes in each.
    async fn describe_fields(&self, args: &Value) -> Option<String> {
        let page = self.tabs.lock().await.current.clone()?;
        let mut lines = Vec::new();
        for f in args.get("fields")?.as_array()? {
            let target = f.get("target")?.as_str()?;
            let value = f.get("value").and_then(Value::as_str).unwrap_or_default();
            let e = Self::act(&page, "inspect", target, Value::Null)
                .await
                .ok()?;
            let label = e["field"]
                .as_str()
                .filter(|l| !l.is_empty())
                .unwrap_or(target);
            let shown = if e["type"] == "password" {
                "(a password)".to_string()
            } else {
                format!("\"{value}\"")
            };
            lines.push(format!("\"{label}\" ← {shown}"));
        }
        let on = Self::url_of(&page).await;
        Some(format!("Type into the page {on}:\n{}", lines.join("\n")))
    }

    /// This conversation's tab, opened on first use.
    async fn page(&self) -> Result<Page, WebError> {
        let mut tabs = self.tabs.lock().await;
        if let Some(p) = &tabs.current {
            return Ok(p.clone());
        }
        self.new_tab(&mut tabs).await
    }

    /// A tab to navigate in: the current one, or a new one in place of a
    /// tab stuck loading (closed when Baton opened it).
    async fn tab_to_navigate(&self) -> Result<Page, WebError> {
        let mut tabs = self.tabs.lock().await;
        match (&tabs.current, tabs.stuck) {
            (Some(p), false) => return Ok(p.clone()),
            (Some(p), true) => {
                let id = p.target_id().clone();
                if let Some(i) = tabs.opened.iter().position(|o| *o.target_id() == id) {
                    let old = tabs.opened.remove(i);
                    let _ = old.close().await;
                }
                tabs.stuck = false;
            }
            (None, _) => {}
        }
        self.new_tab(&mut tabs).await
    }

    async fn new_tab(&self, tabs: &mut Tabs) -> Result<Page, WebError> {
        let (browser, _) = self.hub.browser().await?;
        let page = browser.new_page("about:blank").await.map_err(cdp)?;
        // A tab the policy cannot watch, or whose dialogs could stall it,
        // is not used.
        let watched = async {
            crate::guard::guard(&page, Arc::clone(&self.policy), tabs.stopped.clone()).await?;
            crate::guard::answer_dialogs(&page, tabs.stopped.clone()).await
        };
        if let Err(e) = watched.await {
            let _ = page.close().await;
            return Err(cdp(e));
        }
        tabs.opened.push(page.clone());
        tabs.current = Some(page.clone());
        Ok(page)
    }

    /// What Baton's tabs were stopped from opening since the last call.
    async fn stopped(&self) -> Vec<String> {
        self.tabs.lock().await.stopped.take()
    }

    /// Evaluates `expr` in the page and reads its value as `T`.
    async fn eval<T: serde::de::DeserializeOwned>(
        page: &Page,
        expr: String,
    ) -> Result<T, WebError> {
        let v = page.evaluate(expr).await.map_err(cdp)?;
        let value = v.value().cloned().unwrap_or(Value::Null);
        serde_json::from_value(value)
            .map_err(|e| WebError::Page(format!("the page answered unexpectedly: {e}")))
    }

    /// Runs an action of `act.js` on `target`.
    async fn act(page: &Page, op: &str, target: &str, value: Value) -> Result<Value, WebError> {
        let args = json!({"op": op, "target": target, "value": value});
        let out: Value = Self::eval(page, format!("({ACT_JS})({args})")).await?;
        match out.get("error").and_then(Value::as_str) {
            Some(e) => Err(WebError::Target(e.to_string())),
            None => Ok(out),
        }
    }

    /// The page's address now.
    async fn url_of(page: &Page) -> String {
        page.url().await.ok().flatten().unwrap_or_default()
    }

    /// Gives the front door a thumbnail of the page after a step, when it
    /// shows them.
    async fn preview(page: &Page, ctx: &ToolContext) {
        if !ctx.wants_previews() {
            return;
        }
        if let Some(jpeg) = crate::thumb::thumbnail(page).await {
            ctx.show_preview(ToolImage {
                mime_type: "image/jpeg".into(),
                bytes: jpeg,
            });
        }
    }

    /// Where `page` is now.
    async fn info(page: &Page, loaded: bool) -> PageInfo {
        PageInfo {
            url: Self::url_of(page).await,
            title: page.get_title().await.ok().flatten().unwrap_or_default(),
            loaded,
            banners_dismissed: 0,
            stopped: Vec::new(),
        }
    }

    /// Tab number `tab` (from list_tabs) of the browser.
    async fn tab_page(&self, tab: usize) -> Result<Page, WebError> {
        let (browser, _) = self.hub.browser().await?;
        let pages = browser.pages().await.map_err(cdp)?;
        tab.checked_sub(1)
            .and_then(|i| pages.get(i))
            .cloned()
            .ok_or_else(|| {
                WebError::Target(format!(
                    "there is no tab {tab}; list_tabs shows {} tab(s)",
                    pages.len()
                ))
            })
    }

    /// Navigates `page` to `url` and waits up to `limit` for it to load:
    /// `Ok(false)` when it had not (it is stopped, and what loaded stays
    /// readable). The navigation is sent as a plain command and the load
    /// watched here, so a page that never finishes does not hold the tab.
    async fn open(page: &Page, url: &str, limit: Duration) -> Result<bool, WebError> {
        let start = Instant::now();
        let before = Self::url_of(page).await;
        let sent = tokio::time::timeout(limit, page.execute(NavigateParams::new(url))).await;
        // chromiumoxide gives up on any page command after 30 s (a fixed
        // limit of its own), while the navigation goes on in the browser:
        // then the page is waited for until the tool's own limit.
        let mut committed = true;
        match sent {
            Ok(Ok(r)) => {
                if let Some(e) = r.result.error_text.as_deref().filter(|e| !e.is_empty()) {
                    return Err(not_opened(url, e));
                }
            }
            Ok(Err(chromiumoxide::error::CdpError::Timeout)) => committed = false,
            Ok(Err(e)) => return Err(WebError::Page(format!("`{url}` did not open: {e}"))),
            Err(_) => {
                let _ = page.execute(StopLoadingParams::default()).await;
                return Ok(false);
            }
        }
        loop {
            committed = committed || Self::url_of(page).await != before;
            let state: String = Self::eval(page, "document.readyState".into())
                .await
                .unwrap_or_default();
            if committed && state == "complete" {
                return Ok(true);
            }
            if start.elapsed() > limit {
                let _ = page.execute(StopLoadingParams::default()).await;
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the page has settled after an action (a navigation it
    /// started, or nothing) for at most `limit`.
    async fn settle(page: &Page, before: &str, limit: Duration) -> bool {
        let start = Instant::now();
        tokio::time::sleep(Duration::from_millis(150)).await;
        loop {
            let state: String = Self::eval(page, "document.readyState".into())
                .await
                .unwrap_or_default();
            let url = Self::url_of(page).await;
            if state == "complete" || start.elapsed() > limit {
                return url != before;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A workspace file for `path`, backed up when it exists; its agent
    /// path and the backup's.
    fn write_file(&self, path: &str, bytes: &[u8]) -> Result<(String, Option<String>), WebError> {
        let place = self
            .sandbox
            .place(path, true)
            .map_err(|e| WebError::Path(e.to_string()))?;
        let agent = self
            .sandbox
            .agent_path(place.host())
            .unwrap_or_else(|| path.to_string());
        let backup = baton_stdx::replace_with_backup(place.io(), bytes)
            .map_err(|e| WebError::Path(format!("{agent}: {e}")))?
            .and_then(|b| self.sandbox.agent_path(&place.shown(&b)));
        Ok((agent, backup))
    }
}

/// Why the browser did not open `url`, in words: a certificate it does
/// not trust is said as such (the page is not opened, as for the user).
fn not_opened(url: &str, error: &str) -> WebError {
    if error.starts_with("net::ERR_CERT_") || error.starts_with("net::ERR_SSL_") {
        return WebError::Page(format!(
            "`{url}` did not open: the site's certificate is not trusted ({error}); someone may be intercepting the connection, so the page is not opened"
        ));
    }
    WebError::Page(format!("`{url}` did not open: {error}"))
}

/// A browser-protocol failure in words; a page that does not answer
/// (chromiumoxide ends each page command after 30 s) is said as such.
fn cdp(e: chromiumoxide::error::CdpError) -> WebError {
    match e {
        chromiumoxide::error::CdpError::Timeout => WebError::Page(
            "the page did not answer within 30 s (a script on it may be busy); open it again or try another page"
                .into(),
        ),
        e => WebError::Page(e.to_string()),
    }
}

#[toolbox]
impl WebTool {
    /// Whether a call that would ask may run without the user's card: a
    /// page on a site the user named or Baton opened in this conversation
    /// whose address carries nothing the model composed, a search made of
    /// the user's own words, a switch to a tab Baton opened. Everything
    /// else (clicks, keys, form fields, other sites, the user's own tabs)
    /// asks.
    async fn card_needed(&self, call: baton_tools::PendingCall<'_>) -> bool {
        let arg = |name: &str| call.args.get(name).and_then(Value::as_str);
        match call.method {
            "navigate" | "read_pdf" => match arg("url") {
                Some(url) => self.seen().card_needed(&with_scheme(url), call.user_words),
                None => false, // read_pdf of the page already open
            },
            "web_search" => !arg("query").is_some_and(|q| query_is_users(q, call.user_words)),
            "switch_tab" => match call.args.get("tab").and_then(Value::as_u64) {
                Some(tab) => !self.is_batons_tab(tab as usize).await,
                None => true,
            },
            _ => true,
        }
    }

    /// What a call that asks will really do, for the user's card: the
    /// element it acts on and where that leads, the site an address goes
    /// to and the data in it.
    async fn describe(&self, call: baton_tools::PendingCall<'_>) -> Option<String> {
        let arg = |name: &str| call.args.get(name).and_then(Value::as_str);
        match call.method {
            "click" => self.describe_element("Click", arg("target")?).await,
            "press_key" => {
                let what = format!("Press {}", arg("key")?);
                match arg("target") {
                    Some(t) => self.describe_element(&format!("{what} in"), t).await,
                    None => Some(format!("{what} on {}", self.current_url().await?)),
                }
            }
            "fill_fields" => self.describe_fields(call.args).await,
            "select_option" => {
                let what = format!("Choose \"{}\" in", arg("value")?);
                self.describe_element(&what, arg("target")?).await
            }
            "set_checkbox" => {
                let on = call.args.get("checked").and_then(Value::as_bool)?;
                let what = if on { "Tick" } else { "Clear" };
                self.describe_element(what, arg("target")?).await
            }
            "navigate" | "read_pdf" => {
                let url = with_scheme(arg("url")?);
                Some(describe_address(&url, &self.seen()))
            }
            "web_search" => {
                let url = self.search_address(arg("query")?);
                let site = site_of(&url);
                Some(format!(
                    "Search the web for \"{}\": the words are sent to {site}\n{}",
                    arg("query")?,
                    describe_address(&url, &self.seen())
                ))
            }
            "switch_tab" => {
                let tab = call.args.get("tab").and_then(Value::as_u64)? as usize;
                let page = self.tab_page(tab).await.ok()?;
                let site = site_of(&Self::url_of(&page).await);
                Some(format!(
                    "Switch to your own tab {tab} ({site}): Baton then reads the page and acts in it, signed in as you"
                ))
            }
            _ => None,
        }
    }

    /// The search page's address for `query` (the `browser.searchUrl`
    /// setting, else Baton's default).
    fn search_address(&self, query: &str) -> String {
        let template = self
            .hub
            .settings()
            .search_url
            .clone()
            .unwrap_or_else(|| SEARCH_URL.into());
        template.replace("{query}", &encode_query(query))
    }

    /// Closes the tabs this conversation opened (an attached browser and
    /// the user's own tabs stay).
    async fn close(&self) {
        let mut tabs = self.tabs.lock().await;
        tabs.current = None;
        for p in tabs.opened.drain(..) {
            let _ = p.close().await;
        }
        // The user's own tabs go back to the user, unchecked as before.
        for p in tabs.borrowed.drain(..) {
            crate::guard::release(&p).await;
        }
    }

    /// Opens a web page (http or https) in this conversation's tab and waits for it to load; cookie banners are dismissed. Read it with get_page_content.
    /// - url: the address, e.g. `https://example.com/login`
    /// - timeout_ms: how long to wait for the page to load
    #[effect(external)]
    pub async fn navigate(
        &self,
        url: String,
        #[default(30000u64)] timeout_ms: u64,
        ctx: &ToolContext,
    ) -> Result<PageInfo, WebError> {
        let url = self
            .policy
            .check(&with_scheme(&url))
            .map_err(WebError::Refused)?;
        self.seen().opened(&url);
        let page = self.tab_to_navigate().await?;
        let limit = Duration::from_millis(timeout_ms.clamp(1000, LONGEST_WAIT.as_millis() as u64));
        let loaded = tokio::select! {
            r = Self::open(&page, &url, limit) => r?,
            _ = ctx.cancel_token().cancelled() => {
                let _ = page.execute(StopLoadingParams::default()).await;
                self.tabs.lock().await.stuck = true;
                return Err(WebError::Cancelled);
            }
        };
        if !loaded {
            self.tabs.lock().await.stuck = true;
        }
        let stopped = self.stopped().await;
        let info = Self::info(&page, loaded).await;
        let landed_refused =
            info.url.starts_with("chrome-error:") || self.policy.check(&info.url).is_err();
        if !stopped.is_empty() && landed_refused {
            return Err(WebError::Refused(format!(
                "the page did not open: {}",
                stopped.join("; ")
            )));
        }
        let banners_dismissed = Self::eval::<u32>(&page, CONSENT_JS.to_string())
            .await
            .unwrap_or(0);
        Self::preview(&page, ctx).await;
        Ok(PageInfo {
            banners_dismissed,
            stopped,
            ..info
        })
    }

    /// The current page as Markdown, its interactive elements inline as <<<INTERACTIVE::type::{json}>>> with an id (`e12`) and XPath to act on; hidden text is left out.
    /// - max_chars: the most characters to return
    pub async fn get_page_content(
        &self,
        #[default(20000usize)] max_chars: usize,
    ) -> Result<PageContent, WebError> {
        let page = self.page().await?;
        let token = content::new_token();
        let raw: content::RawPage = Self::eval(&page, content::page_script(&token)).await?;
        let content = content::render(raw, &token, max_chars);
        self.seen().saw(&content.markdown);
        Ok(content)
    }

    /// Clicks an element (a button, link, checkbox…) by its id from the page content or an XPath, and waits for what it started.
    /// - target: the element, e.g. `e12` or `//button[text()='Sign in']`
    #[effect(external)]
    pub async fn click(&self, target: String, ctx: &ToolContext) -> Result<Acted, WebError> {
        let page = self.page().await?;
        let before = Self::url_of(&page).await;
        let at = Self::act(&page, "point", &target, Value::Null).await?;
        let label = at["label"].as_str().unwrap_or_default().to_string();
        match (
            at["x"].as_f64(),
            at["y"].as_f64(),
            at["reachable"].as_bool(),
        ) {
            (Some(x), Some(y), Some(true)) => {
                page.click(Point { x, y }).await.map_err(cdp)?;
            }
            _ => {
                Self::act(&page, "click", &target, Value::Null).await?;
            }
        }
        let navigated = Self::settle(&page, &before, Duration::from_secs(15)).await;
        Self::preview(&page, ctx).await;
        Ok(Acted {
            target,
            done: format!("clicked \"{label}\""),
            url: Self::url_of(&page).await,
            navigated,
            stopped: self.stopped().await,
        })
    }

    /// Types into form fields (text, e-mail, password, text areas), each by its id or XPath; nothing is submitted.
    /// - fields: the fields and their values, e.g. [{"target": "e3", "value": "Ada"}]
    #[effect(change)]
    pub async fn fill_fields(
        &self,
        fields: Vec<Field>,
        ctx: &ToolContext,
    ) -> Result<Vec<Acted>, WebError> {
        let page = self.page().await?;
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            let r = Self::act(&page, "fill", &f.target, json!(f.value)).await?;
            out.push(Acted {
                done: format!("set to {}", r["value"]),
                target: f.target,
                url: Self::url_of(&page).await,
                navigated: false,
                stopped: Vec::new(),
            });
        }
        Self::preview(&page, ctx).await;
        Ok(out)
    }

    /// Chooses an option of a list (select) by its value or visible text.
    /// - target: the list, e.g. `e7`
    /// - value: the option's value or text, e.g. `Germany`
    #[effect(change)]
    pub async fn select_option(
        &self,
        target: String,
        value: String,
        ctx: &ToolContext,
    ) -> Result<Acted, WebError> {
        let page = self.page().await?;
        let r = Self::act(&page, "select", &target, json!(value)).await?;
        Self::preview(&page, ctx).await;
        Ok(Acted {
            done: format!("chose {}", r["text"]),
            target,
            url: Self::url_of(&page).await,
            navigated: false,
            stopped: Vec::new(),
        })
    }

    /// Ticks or clears a checkbox (or picks a radio button).
    /// - target: the checkbox, e.g. `e9`
    /// - checked: true to tick, false to clear
    #[effect(change)]
    pub async fn set_checkbox(
        &self,
        target: String,
        checked: bool,
        ctx: &ToolContext,
    ) -> Result<Acted, WebError> {
        let page = self.page().await?;
        Self::act(&page, "check", &target, json!(checked)).await?;
        Self::preview(&page, ctx).await;
        Ok(Acted {
            done: if checked {
                "ticked".into()
            } else {
                "cleared".into()
            },
            target,
            url: Self::url_of(&page).await,
            navigated: false,
            stopped: Vec::new(),
        })
    }

    /// Presses a key (Enter, Tab, Escape, ArrowDown…) in an element, or in the page when no target is given; Enter can submit a form.
    /// - key: the key, e.g. `Enter`
    /// - target: the element to press it in (default: the focused one)
    #[effect(external)]
    pub async fn press_key(
        &self,
        key: String,
        target: Option<String>,
        ctx: &ToolContext,
    ) -> Result<Acted, WebError> {
        let page = self.page().await?;
        let before = Self::url_of(&page).await;
        if let Some(t) = &target {
            Self::act(&page, "focus", t, Value::Null).await?;
        }
        let el = match page.find_element(":focus").await {
            Ok(el) => el,
            Err(_) => page.find_element("body").await.map_err(cdp)?,
        };
        el.press_key(&key)
            .await
            .map_err(|e| WebError::Target(format!("cannot press {key}: {e}")))?;
        let navigated = Self::settle(&page, &before, Duration::from_secs(15)).await;
        Self::preview(&page, ctx).await;
        Ok(Acted {
            target: target.unwrap_or_else(|| "the page".into()),
            done: format!("pressed {key}"),
            url: Self::url_of(&page).await,
            navigated,
            stopped: self.stopped().await,
        })
    }

    /// Scrolls the page down or up by about a screen (pages that load more as you scroll show more).
    /// - direction: `down` or `up`
    pub async fn scroll(
        &self,
        #[default("down")] direction: String,
        ctx: &ToolContext,
    ) -> Result<Value, WebError> {
        let page = self.page().await?;
        let sign = if direction.eq_ignore_ascii_case("up") {
            -1
        } else {
            1
        };
        let at: Value = Self::eval(
            &page,
            format!("(() => {{ window.scrollBy(0, {sign} * window.innerHeight * 0.8); return {{y: Math.round(window.scrollY), height: document.documentElement.scrollHeight}}; }})()"),
        )
        .await?;
        Self::preview(&page, ctx).await;
        Ok(at)
    }

    /// Goes back to the previous page of this tab.
    pub async fn go_back(&self, ctx: &ToolContext) -> Result<PageInfo, WebError> {
        let page = self.page().await?;
        let before = Self::url_of(&page).await;
        Self::eval::<Value>(&page, "history.back(), null".into()).await?;
        let moved = Self::settle(&page, &before, Duration::from_secs(15)).await;
        if !moved {
            return Err(WebError::Page(
                "there is no previous page in this tab".into(),
            ));
        }
        Self::preview(&page, ctx).await;
        Ok(Self::info(&page, true).await)
    }

    /// Waits until some text, or an element matching a CSS selector, is on the page.
    /// - text: text to wait for
    /// - selector: a CSS selector to wait for, e.g. `#results li`
    /// - timeout_ms: how long to wait
    pub async fn wait_for(
        &self,
        text: Option<String>,
        selector: Option<String>,
        #[default(10000u64)] timeout_ms: u64,
        ctx: &ToolContext,
    ) -> Result<Value, WebError> {
        if text.is_none() && selector.is_none() {
            return Err(WebError::Target(
                "give `text` or `selector` to wait for".into(),
            ));
        }
        let page = self.page().await?;
        let check = format!(
            "(() => {{ const t = {}; const s = {}; if (t && !(document.body && document.body.innerText.includes(t))) return false; if (s) {{ try {{ return !!document.querySelector(s); }} catch (e) {{ return 'bad selector'; }} }} return true; }})()",
            json!(text),
            json!(selector)
        );
        let start = Instant::now();
        let limit = Duration::from_millis(timeout_ms.min(LONGEST_WAIT.as_millis() as u64));
        loop {
            ctx.check().map_err(|_| WebError::Cancelled)?;
            let v: Value = Self::eval(&page, check.clone()).await?;
            if v == Value::String("bad selector".into()) {
                return Err(WebError::Target(format!(
                    "{} is not a valid CSS selector",
                    json!(selector)
                )));
            }
            if v == Value::Bool(true) {
                return Ok(json!({"found": true, "waited_ms": start.elapsed().as_millis() as u64}));
            }
            if start.elapsed() > limit {
                let what = text
                    .map(|t| format!("the text \"{t}\""))
                    .or(selector.map(|s| format!("`{s}`")))
                    .unwrap_or_default();
                return Err(WebError::Page(format!(
                    "{what} did not appear within {} ms",
                    limit.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Searches the web and lists the results (title, address, snippet); open one with navigate.
    /// - query: what to search for
    /// - max_results: how many results
    #[effect(external)]
    pub async fn web_search(
        &self,
        query: String,
        #[default(8usize)] max_results: usize,
        ctx: &ToolContext,
    ) -> Result<Vec<SearchResult>, WebError> {
        let url = self.search_address(&query);
        self.navigate(url, 30000, ctx).await?;
        let page = self.page().await?;
        let mut results: Vec<SearchResult> =
            Self::eval(&page, content::SEARCH_JS.to_string()).await?;
        results.truncate(max_results.clamp(1, 30));
        let shown: Vec<&str> = results.iter().map(|r| r.url.as_str()).collect();
        self.seen().saw(&shown.join(" "));
        Ok(results)
    }

    /// Lists the browser's tabs: Baton's with their address and title; the user's own (in an attached browser) with their site only (switching to one asks the user first).
    pub async fn list_tabs(&self) -> Result<Vec<TabInfo>, WebError> {
        let (browser, _) = self.hub.browser().await?;
        let pages = browser.pages().await.map_err(cdp)?;
        let tabs = self.tabs.lock().await;
        let current = tabs.current.as_ref().map(|p| p.target_id().clone());
        let mut out = Vec::new();
        for (i, p) in pages.iter().enumerate() {
            let batons = tabs.batons(p);
            let url = Self::url_of(p).await;
            let (url, title) = if batons {
                let title = p.get_title().await.ok().flatten().unwrap_or_default();
                (url, title)
            } else {
                (site_of(&url), "(one of your tabs)".to_string())
            };
            out.push(TabInfo {
                tab: i + 1,
                url,
                title,
                current: current.as_ref() == Some(p.target_id()),
                opened_by_baton: batons,
            });
        }
        Ok(out)
    }

    /// Makes another tab this conversation's current one.
    /// - tab: its number from list_tabs
    #[effect(external)]
    pub async fn switch_tab(&self, tab: usize, ctx: &ToolContext) -> Result<PageInfo, WebError> {
        let page = self.tab_page(tab).await?;
        let url = Self::url_of(&page).await;
        if let Err(why) = self.policy.check(&url) {
            return Err(WebError::Refused(format!(
                "tab {tab} shows a page the site policy refuses: {why}"
            )));
        }
        let mut tabs = self.tabs.lock().await;
        if !tabs.guarded(&page) {
            // From now on the browser checks where this tab goes, as it
            // does for Baton's own.
            crate::guard::guard(&page, Arc::clone(&self.policy), tabs.stopped.clone())
                .await
                .map_err(cdp)?;
            tabs.borrowed.push(page.clone());
        }
        tabs.current = Some(page.clone());
        drop(tabs);
        let _ = page.activate().await;
        Self::preview(&page, ctx).await;
        Ok(Self::info(&page, true).await)
    }

    /// Closes a tab Baton opened (the user's own tabs are left alone).
    /// - tab: its number from list_tabs
    pub async fn close_tab(&self, tab: usize) -> Result<Value, WebError> {
        let page = self.tab_page(tab).await?;
        let mut tabs = self.tabs.lock().await;
        if !tabs.batons(&page) {
            return Err(WebError::Refused(format!(
                "tab {tab} is one of yours, not Baton's; Baton leaves it open"
            )));
        }
        tabs.opened.retain(|o| o.target_id() != page.target_id());
        if tabs
            .current
            .as_ref()
            .is_some_and(|c| c.target_id() == page.target_id())
        {
            tabs.current = None;
        }
        page.close().await.map_err(cdp)?;
        Ok(json!({"closed": tab}))
    }

    /// Takes a screenshot of the visible page and saves it as a PNG in the workspace; when your model reads images, you see it with the result.
    /// - path: where to save it, e.g. `/screenshots/order.png`
    #[effect(write)]
    pub async fn screenshot(&self, path: String, ctx: &ToolContext) -> Result<Saved, WebError> {
        let page = self.page().await?;
        let png = page
            .screenshot(ScreenshotParams::builder().build())
            .await
            .map_err(cdp)?;
        let (path, backup) = self.write_file(&path, &png)?;
        Self::preview(&page, ctx).await;
        let bytes = png.len();
        ctx.show_model(ToolImage {
            mime_type: "image/png".into(),
            bytes: png,
        });
        Ok(Saved {
            path,
            bytes,
            url: Self::url_of(&page).await,
            backup,
        })
    }

    /// Lists the files pages downloaded in Baton's browser (they wait outside the workspace until save_download puts one there).
    pub async fn list_downloads(&self) -> Result<Vec<Download>, WebError> {
        let Some(dir) = self.hub.downloads() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let Ok(mut entries) = tokio::fs::read_dir(dir).await else {
            return Ok(out);
        };
        while let Ok(Some(e)) = entries.next_entry().await {
            let name = e.file_name().to_string_lossy().into_owned();
            // Chromium's part files are downloads still arriving.
            let done = !name.ends_with(".crdownload");
            match e.metadata().await {
                Ok(m) if m.is_file() && done => out.push(Download {
                    name,
                    bytes: m.len(),
                }),
                _ => {}
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Puts a file a page downloaded into the workspace (a file it replaces is backed up first).
    /// - name: the download's name from list_downloads
    /// - path: where to save it, e.g. `/invoices/march.csv`
    #[effect(write)]
    pub async fn save_download(
        &self,
        name: String,
        path: String,
    ) -> Result<SavedDownload, WebError> {
        let dir = self.hub.downloads().ok_or_else(|| {
            WebError::Refused("this browser keeps downloads in its own folder".into())
        })?;
        let plain = std::path::Path::new(&name)
            .file_name()
            .is_some_and(|f| f == name.as_str());
        if !plain || name.starts_with('.') {
            return Err(WebError::Path(format!(
                "`{name}` is not the name of a download"
            )));
        }
        let bytes = tokio::fs::read(dir.join(&name))
            .await
            .map_err(|e| WebError::Path(format!("no download named `{name}` ({e})")))?;
        let (path, backup) = self.write_file(&path, &bytes)?;
        Ok(SavedDownload {
            path,
            bytes: bytes.len(),
            download: name,
            backup,
        })
    }

    /// Prints the current page to a PDF in the workspace.
    /// - path: where to save it, e.g. `/invoices/march.pdf`
    #[effect(write)]
    pub async fn save_pdf(&self, path: String) -> Result<Saved, WebError> {
        let page = self.page().await?;
        let params = PrintToPdfParams {
            print_background: Some(true),
            ..Default::default()
        };
        let pdf = page.pdf(params).await.map_err(cdp)?;
        let (path, backup) = self.write_file(&path, &pdf)?;
        Ok(Saved {
            path,
            bytes: pdf.len(),
            url: Self::url_of(&page).await,
            backup,
        })
    }

    /// Reads a PDF on the web (with this browser's sign-ins) as Markdown: the one at `url`, or the one open in the tab.
    /// - url: the PDF's address (default: the current page)
    /// - max_chars: the most characters to return
    #[effect(external)]
    pub async fn read_pdf(
        &self,
        url: Option<String>,
        #[default(20000usize)] max_chars: usize,
    ) -> Result<PdfText, WebError> {
        let page = self.page().await?;
        let url = match url {
            Some(u) => with_scheme(&u),
            None => Self::url_of(&page).await,
        };
        let url = self.policy.check(&url).map_err(WebError::Refused)?;
        self.seen().opened(&url);
        let bytes = Self::fetch_bytes(&page, &url).await?;
        let options = baton_convert::ConvertOptions::default();
        let c = tokio::task::spawn_blocking(move || {
            baton_convert::convert_bounded("page.pdf", bytes.into(), &options)
        })
        .await
        .map_err(|e| WebError::Page(e.to_string()))?
        .map_err(|e| WebError::Page(format!("`{url}`: {e}")))?;
        let (markdown, truncated) = content::cut(&c.markdown, max_chars);
        Ok(PdfText {
            url,
            pages: c.pages,
            markdown,
            truncated,
        })
    }
}

impl WebTool {
    /// The bytes at `url`, fetched with the browser's sign-ins: from the
    /// page itself when it may (same site), else by the browser's own
    /// loader for the page (a page on another site may not read it).
    async fn fetch_bytes(page: &Page, url: &str) -> Result<Vec<u8>, WebError> {
        let fetch = format!(
            "(async () => {{ const r = await fetch({}, {{credentials: 'include'}}); if (!r.ok) return {{error: 'HTTP ' + r.status}}; const b = new Uint8Array(await r.arrayBuffer()); let s = ''; for (let i = 0; i < b.length; i += 32768) s += String.fromCharCode.apply(null, b.subarray(i, i + 32768)); return {{data: btoa(s)}}; }})()",
            json!(url)
        );
        let got = match Self::eval::<Value>(page, fetch).await {
            Ok(got) => got,
            Err(_) => return Self::load_resource(page, url).await,
        };
        if let Some(e) = got.get("error").and_then(Value::as_str) {
            return Err(WebError::Page(format!("`{url}` could not be fetched: {e}")));
        }
        let data = got["data"].as_str().unwrap_or_default();
        base64_decode(data).ok_or_else(|| WebError::Page("the PDF arrived garbled".into()))
    }

    /// `url` through the browser's loader for `page`'s frame (CDP
    /// `Network.loadNetworkResource`, read back through `IO`).
    async fn load_resource(page: &Page, url: &str) -> Result<Vec<u8>, WebError> {
        use chromiumoxide::cdp::browser_protocol::io::{CloseParams, ReadParams};
        use chromiumoxide::cdp::browser_protocol::network::{
            LoadNetworkResourceOptions, LoadNetworkResourceParams,
        };
        let frame = page.mainframe().await.map_err(cdp)?;
        let mut params =
            LoadNetworkResourceParams::new(url, LoadNetworkResourceOptions::new(false, true));
        params.frame_id = frame;
        let loaded = page.execute(params).await.map_err(cdp)?.result.resource;
        let failed = |why: String| WebError::Page(format!("`{url}` could not be fetched: {why}"));
        let status = loaded.http_status_code.unwrap_or(0.0) as u16;
        let stream = match (loaded.success, loaded.stream) {
            (true, Some(stream)) if (200..300).contains(&status) => stream,
            (true, _) => return Err(failed(format!("HTTP {status}"))),
            (false, _) => {
                return Err(failed(
                    loaded
                        .net_error_name
                        .unwrap_or_else(|| "the network failed".into()),
                ));
            }
        };
        let mut bytes = Vec::new();
        loop {
            let chunk = page
                .execute(ReadParams::new(stream.clone()))
                .await
                .map_err(cdp)?
                .result;
            if chunk.base64_encoded == Some(true) {
                bytes.extend(
                    base64_decode(&chunk.data)
                        .ok_or_else(|| failed("it arrived garbled".into()))?,
                );
            } else {
                bytes.extend(chunk.data.into_bytes());
            }
            if chunk.eof {
                break;
            }
        }
        let _ = page.execute(CloseParams::new(stream)).await;
        Ok(bytes)
    }
}

/// `verb` an element as `inspect` (act.js) found it, in words.
fn element_words(verb: &str, e: &Value) -> String {
    let tag = e["tag"].as_str().unwrap_or("element");
    let kind = match (tag, e["type"].as_str(), e["href"].is_string()) {
        (_, _, true) => "the link",
        ("button", _, _) | (_, Some("submit" | "button" | "image"), _) => "the button",
        ("select", _, _) => "the list",
        (_, Some("checkbox"), _) => "the checkbox",
        (_, Some("radio"), _) => "the option",
        ("input" | "textarea", _, _) => "the field",
        _ => tag,
    };
    // Fields and choices go by their label; buttons and links by their text.
    let named = match kind {
        "the field" | "the list" | "the checkbox" | "the option" => &e["field"],
        _ => &e["label"],
    };
    let label = named.as_str().filter(|l| !l.is_empty());
    let page = e["page"].as_str().unwrap_or_default();
    let mut words = match label {
        Some(l) => format!("{verb} {kind} \"{l}\" on {page}"),
        None => format!("{verb} {kind} on {page}"),
    };
    if let Some(href) = e["href"].as_str() {
        words.push_str(&format!("\nIt opens {href}"));
    }
    let form = &e["form"];
    if form["submits"] == true {
        let action = form["action"].as_str().unwrap_or_default();
        let method = form["method"].as_str().unwrap_or("GET");
        words.push_str(&format!("\nIt sends the form to {action} ({method})"));
    }
    words
}

/// Opening `url`, in words: the site, whether this chat opened it, and
/// the data its address carries.
fn describe_address(url: &str, seen: &Seen) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return format!("Open {url}");
    };
    let mut words = format!("Open {u}");
    if !seen.has_opened(&u) {
        let site = u.host_str().unwrap_or_default();
        words.push_str(&format!("\n{site} has not been opened in this chat"));
    }
    let mut carried: Vec<String> = Vec::new();
    if !matches!(u.path(), "/" | "") {
        carried.push(format!("path {}", u.path()));
    }
    carried.extend(u.query_pairs().map(|(k, v)| format!("{k} = {v}")));
    if let Some(fragment) = u.fragment().filter(|f| !f.is_empty()) {
        carried.push(format!("after #: {fragment}"));
    }
    if !carried.is_empty() {
        words.push_str(&format!("\nThe address carries: {}", carried.join("; ")));
    }
    words
}

/// A tab's site only (`https://mail.example.com`): what the model may
/// know of the user's own tabs before the user lets Baton read one.
fn site_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

/// `example.com` → `https://example.com`.
fn with_scheme(url: &str) -> String {
    let u = url.trim();
    if u.contains("://") || u.starts_with("about:") || u.contains(':') && !u.contains('.') {
        u.to_string()
    } else {
        format!("https://{u}")
    }
}

/// Percent-encodes a search query.
fn encode_query(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).ok()
}
