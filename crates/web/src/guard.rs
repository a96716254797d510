//! The site policy, enforced by the browser itself on Baton's tabs.
//!
//! Checking the address `navigate` is given is not enough: a page can
//! redirect, load a frame, or send the tab elsewhere from a script or a
//! link the model clicks. Each tab Baton opens therefore pauses every
//! document request (CDP `Fetch`, request stage, resource type
//! `Document`: top-level navigations, each redirect hop and sub-frames)
//! and lets it go on only when [`SitePolicy::check`] allows its address;
//! otherwise the browser fails it as blocked, and the address is kept for
//! the next tool result to tell.

use std::sync::{Arc, Mutex};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, DisableParams, EnableParams, EventRequestPaused, FailRequestParams,
    RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, ResourceType};
use futures::StreamExt;

use crate::policy::SitePolicy;

/// Addresses a tab was stopped from opening, with why, since they were
/// last taken.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stopped(Arc<Mutex<Vec<String>>>);

impl Stopped {
    fn push(&self, what: String) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(what);
    }

    /// What was stopped since the last call.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Makes `page` check every document it loads against `policy` from now
/// on; refusals are kept in `stopped`. The checking runs until the page
/// closes.
pub(crate) async fn guard(
    page: &Page,
    policy: Arc<SitePolicy>,
    stopped: Stopped,
) -> Result<(), chromiumoxide::error::CdpError> {
    let mut paused = page.event_listener::<EventRequestPaused>().await?;
    let documents = RequestPattern::builder()
        .url_pattern("*")
        .resource_type(ResourceType::Document)
        .request_stage(RequestStage::Request)
        .build();
    page.execute(EnableParams {
        patterns: Some(vec![documents]),
        handle_auth_requests: None,
    })
    .await?;
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(event) = paused.next().await {
            let id = event.request_id.clone();
            let answered = match policy.check(&event.request.url) {
                Ok(_) => page.execute(ContinueRequestParams::new(id)).await.map(drop),
                Err(why) => {
                    tracing::warn!(url = %event.request.url, "the browser was stopped from opening an address: {why}");
                    stopped.push(why);
                    let blocked = FailRequestParams::new(id, ErrorReason::BlockedByClient);
                    page.execute(blocked).await.map(drop)
                }
            };
            if answered.is_err() {
                break; // the tab is gone
            }
        }
    });
    Ok(())
}

/// Stops checking `page` (one of the user's own tabs Baton was allowed to
/// use, once the conversation ends): its requests go on unchecked, as
/// before Baton used it.
pub(crate) async fn release(page: &Page) {
    if let Err(e) = page.execute(DisableParams::default()).await {
        tracing::debug!("a borrowed tab could not be released (it may be closed): {e}");
    }
}

/// Answers every JavaScript dialog `page` opens, so that none stalls the
/// page (and every call on it) until someone clicks: an alert or a
/// leave-page question is accepted, a confirm or a prompt declined (a
/// page's question is never answered yes for the user). Each is told in
/// `stopped`, for the next result. Runs until the page closes.
pub(crate) async fn answer_dialogs(
    page: &Page,
    stopped: Stopped,
) -> Result<(), chromiumoxide::error::CdpError> {
    use chromiumoxide::cdp::browser_protocol::page::{
        DialogType, EventJavascriptDialogOpening, HandleJavaScriptDialogParams,
    };
    let mut dialogs = page
        .event_listener::<EventJavascriptDialogOpening>()
        .await?;
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(d) = dialogs.next().await {
            let (accept, what) = match d.r#type {
                DialogType::Alert => (true, "an alert, closed"),
                DialogType::Beforeunload => (true, "a leave-page question, answered leave"),
                DialogType::Confirm => (false, "a confirm question, declined"),
                DialogType::Prompt => (false, "a prompt for text, declined"),
            };
            stopped.push(format!(
                "the page showed {what}: \u{201c}{}\u{201d}",
                d.message
            ));
            if page
                .execute(HandleJavaScriptDialogParams::new(accept))
                .await
                .is_err()
            {
                break; // the tab is gone
            }
        }
    });
    Ok(())
}
