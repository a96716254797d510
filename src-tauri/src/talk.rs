//! Push-to-talk from any application: while the talk shortcut is held,
//! Baton listens (a voice conversation in push-to-talk mode, opened on the
//! first press); released, it answers aloud. A small overlay window shows
//! starting, listening, thinking and speaking. The conversation is
//! continued on each press and ended a while after the last answer, so
//! the microphone is not held open.
//!
//! In dictation mode (`desktop.talkMode`) the key goes to
//! [`crate::dictation`] instead.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use baton_engine::api::SessionId;
use baton_engine::api::settings::TalkMode;
use baton_engine::api::voice::{Control, VoiceEvent};
use baton_engine::{Dictation, VoiceInput, VoiceRequest};
use tauri::{AppHandle, Manager, PhysicalPosition, WebviewWindow};
use tauri_specta::Event;

use crate::dto::{Pane, TalkEvent};
use crate::state::{AppState, lock};

/// How long after its last answer a push-to-talk conversation ends.
const IDLE_END: Duration = Duration::from_secs(20);

/// The push-to-talk state: held or not, a conversation (or dictation)
/// being opened, the presses so far and the conversation continued.
#[derive(Default)]
pub struct Talk {
    pub(crate) held: AtomicBool,
    pub(crate) opening: AtomicBool,
    /// The press going on is a dictation's (the mode when it went down).
    dictating: AtomicBool,
    /// The voice conversation running is this one's (not the voice
    /// panel's, which shows itself).
    ours: AtomicBool,
    pub(crate) presses: AtomicU64,
    session: Mutex<Option<SessionId>>,
    /// The dictation listened to while the key is held.
    pub(crate) dictation: Mutex<Option<Dictation>>,
    /// Dictations being written down and typed.
    pub(crate) finishing: AtomicU64,
    /// Held while a dictation is typed, so two are typed one after the
    /// other, in the order of the presses.
    pub(crate) typing: tokio::sync::Mutex<()>,
}

/// The talk shortcut went down (`true`) or up.
pub fn hold(app: &AppHandle, down: bool) {
    let talk = app.state::<Talk>();
    if talk.held.swap(down, Ordering::SeqCst) == down {
        return; // key repeat
    }
    // The mode is the one the key went down in, also for its release.
    let dictating = if down {
        talk.presses.fetch_add(1, Ordering::SeqCst);
        let mode = app
            .state::<AppState>()
            .engine()
            .settings()
            .desktop
            .talk_mode;
        talk.dictating
            .store(mode == TalkMode::Dictate, Ordering::SeqCst);
        mode == TalkMode::Dictate
    } else {
        talk.dictating.load(Ordering::SeqCst)
    };
    if dictating {
        return crate::dictation::hold(app, down);
    }
    let running = lock(&app.state::<AppState>().voice).clone();
    match running {
        Some(controls) => {
            if down && talk.ours.load(Ordering::SeqCst) {
                show_overlay(app);
            }
            if let Err(e) = controls.send(Control::Talk(down)) {
                tracing::debug!("push-to-talk: {e}");
            }
        }
        None if down && !talk.opening.swap(true, Ordering::SeqCst) => {
            show_overlay(app);
            emit(app, true, None);
            let app = app.clone();
            tauri::async_runtime::spawn(async move { open(app).await });
        }
        None => {}
    }
}

/// Opens the push-to-talk conversation (continuing the last one), passes
/// on the key as it is now, and relays its events to the overlay.
async fn open(app: AppHandle) {
    let talk = app.state::<Talk>();
    let state = app.state::<AppState>();
    let request = VoiceRequest {
        session: lock(&talk.session).clone(),
        push_to_talk: Some(true),
        ..VoiceRequest::new(VoiceInput::Microphone)
    };
    let started = state.engine().voice().start(request).await;
    talk.opening.store(false, Ordering::SeqCst);
    let mut run = match started {
        Ok(run) => run,
        Err(e) => {
            let message = format!("push-to-talk could not start: {e}");
            tracing::warn!("{message}");
            emit(&app, false, Some(VoiceEvent::Error { message }));
            return hide_later(app, Duration::from_secs(4));
        }
    };
    let controls = run.controls().clone();
    *lock(&talk.session) = Some(controls.session_id.clone());
    *lock(&state.voice) = Some(controls.clone());
    talk.ours.store(true, Ordering::SeqCst);
    // Pressed while it opened: listen now; released meanwhile: that too.
    let _ = controls.send(Control::Talk(true));
    if !talk.held.load(Ordering::SeqCst) {
        let _ = controls.send(Control::Talk(false));
    }
    while let Some(ev) = run.next().await {
        if matches!(ev, VoiceEvent::AnswerDone { .. } | VoiceEvent::Error { .. })
            || matches!(&ev, VoiceEvent::Transcript { text, .. } if text.is_empty())
        {
            end_when_idle(&app);
        }
        emit(&app, false, Some(ev));
    }
    run.finish().await;
    talk.ours.store(false, Ordering::SeqCst);
    lock(&state.voice).take();
    emit(&app, false, Some(VoiceEvent::Stopped));
    hide_later(app, Duration::from_millis(1500));
}

/// Ends the conversation [`IDLE_END`] from now unless the key is pressed
/// again by then.
fn end_when_idle(app: &AppHandle) {
    let presses = app.state::<Talk>().presses.load(Ordering::SeqCst);
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(IDLE_END).await;
        let talk = app.state::<Talk>();
        if talk.presses.load(Ordering::SeqCst) != presses || talk.held.load(Ordering::SeqCst) {
            return;
        }
        if let Some(controls) = lock(&app.state::<AppState>().voice).clone() {
            let _ = controls.send(Control::Quit);
        }
    });
}

/// Ends the push-to-talk conversation if one is open (a dictation is
/// pressed: it would hold the microphone on).
pub(crate) fn quit_ours(app: &AppHandle) {
    if app.state::<Talk>().ours.load(Ordering::SeqCst)
        && let Some(controls) = lock(&app.state::<AppState>().voice).clone()
    {
        let _ = controls.send(Control::Quit);
    }
}

fn emit(app: &AppHandle, starting: bool, event: Option<VoiceEvent>) {
    tell(app, starting, event, false);
}

/// Tells the overlay `event` (`dictating`: a dictation's).
pub(crate) fn tell(app: &AppHandle, starting: bool, event: Option<VoiceEvent>, dictating: bool) {
    let event = TalkEvent {
        starting,
        event,
        dictating,
    };
    if let Err(e) = event.emit(app) {
        tracing::debug!("the overlay was not told: {e}");
    }
}

/// Hides the overlay `after` from now, unless the key was pressed again by
/// then or something is still going on.
pub(crate) fn hide_later(app: AppHandle, after: Duration) {
    let presses = app.state::<Talk>().presses.load(Ordering::SeqCst);
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(after).await;
        let talk = app.state::<Talk>();
        let idle = talk.presses.load(Ordering::SeqCst) == presses
            && !talk.held.load(Ordering::SeqCst)
            && !talk.opening.load(Ordering::SeqCst)
            && talk.finishing.load(Ordering::SeqCst) == 0;
        if idle
            && lock(&app.state::<AppState>().voice).is_none()
            && lock(&talk.dictation).is_none()
            && let Some(w) = app.get_webview_window(Pane::TALK_LABEL)
        {
            let _ = w.hide();
        }
    });
}

/// Shows the overlay at the bottom middle of the primary screen, without
/// taking the focus from the application the user is in.
pub(crate) fn show_overlay(app: &AppHandle) {
    let window = match overlay(app) {
        Ok(w) => w,
        Err(e) => return tracing::warn!("the push-to-talk overlay could not be made: {e}"),
    };
    if let (Ok(Some(monitor)), Ok(size)) = (app.primary_monitor(), window.outer_size()) {
        let (m, at) = (monitor.size(), monitor.position());
        let x = at.x + (m.width as i32 - size.width as i32) / 2;
        let y = at.y + m.height as i32 - size.height as i32 - 64;
        let _ = window.set_position(PhysicalPosition::new(x, y));
    }
    let _ = window.show();
}

fn overlay(app: &AppHandle) -> tauri::Result<WebviewWindow> {
    if let Some(w) = app.get_webview_window(Pane::TALK_LABEL) {
        return Ok(w);
    }
    crate::shell::pane_window(app, Pane::Talk, "Baton — push to talk", (360.0, 84.0))
        .resizable(false)
        .focused(false)
        .focusable(false)
        .build()
}
