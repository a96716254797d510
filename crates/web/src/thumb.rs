//! Thumbnails of browser steps, for the step cards of a front door that
//! shows them (the desktop chat): the visible part of the page, scaled to
//! [`WIDTH`] pixels wide, as a small JPEG.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::{CaptureScreenshotFormat, Viewport};
use chromiumoxide::page::ScreenshotParams;
use serde::Deserialize;

/// A thumbnail's width in pixels.
pub(crate) const WIDTH: f64 = 320.0;

/// Where the visible part of a page is.
#[derive(Deserialize)]
struct View {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// The visible part of `page` as a JPEG [`WIDTH`] pixels wide; `None` when
/// the browser cannot take it (a thumbnail is never worth failing a step).
pub(crate) async fn thumbnail(page: &Page) -> Option<Vec<u8>> {
    let view: View = page
        .evaluate("({x: scrollX, y: scrollY, w: innerWidth, h: innerHeight})")
        .await
        .ok()?
        .into_value()
        .ok()?;
    if view.w < 1.0 || view.h < 1.0 {
        return None;
    }
    let clip = Viewport {
        x: view.x,
        y: view.y,
        width: view.w,
        height: view.h,
        scale: (WIDTH / view.w).min(1.0),
    };
    let params = ScreenshotParams::builder()
        .format(CaptureScreenshotFormat::Jpeg)
        .quality(60)
        .clip(clip)
        .build();
    match page.screenshot(params).await {
        Ok(jpeg) => Some(jpeg),
        Err(e) => {
            tracing::debug!(error = %e, "no thumbnail");
            None
        }
    }
}
