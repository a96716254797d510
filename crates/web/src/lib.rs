//! The browser toolbox: Baton drives the user's real Edge or Chrome over
//! the Chrome DevTools Protocol (chromiumoxide), or its own browser with a
//! lasting profile, or a headless one. Pages are read as Markdown with
//! their interactive elements numbered; tools click, fill forms, search
//! the web, and save pages as PDF or screenshots into the workspace.
//!
//! - [`discover`]: finding Edge, Chrome or Chromium and their profiles, and
//!   the `DevToolsActivePort` a browser writes when the user allows
//!   remote debugging.
//! - [`BrowserHub`]: one connection per engine, made on first use.
//! - [`WebTool`]: the tools, one tab per conversation.

mod content;
pub mod discover;
mod error;
mod guard;
mod hub;
mod policy;
mod provenance;
mod thumb;
mod tool;

pub use content::PageContent;
pub use error::WebError;
pub use hub::BrowserHub;
pub use policy::SitePolicy;
pub use provenance::query_is_users;
pub use tool::{
    Acted, Download, Field, PageInfo, PdfText, Saved, SavedDownload, SearchResult, TabInfo, WebTool,
};
