//! Push-to-talk from any application: while the talk shortcut is held,
//! Baton listens (a voice conversation in push-to-talk mode, opened on the
//! first press); released, it answers aloud. A small overlay window shows
//! starting, listening, thinking and speaking. The conversation is
//! continued on each press and ended a while after the last answer, so
//! the microphone is not held open.
//!
//! In dictation mode (`desktop.talkMode`), holding the key only listens:
//! released, what was said is typed into the application in front (the
//! overlay never takes the focus from it).

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

/// The push-to-talk state: held or not, a conversation being opened, the
/// presses so far and the conversation continued.
#[derive(Default)]
pub struct Talk {
    held: AtomicBool,
    opening: AtomicBool,
    /// The voice conversation running is this one's (not the voice
    /// panel's, which shows itself).
    ours: AtomicBool,
    presses: AtomicU64,
    session: Mutex<Option<SessionId>>,
    /// The dictation listened to while the key is held.
    dictation: Mutex<Option<Dictation>>,
}

/// The talk shortcut went down (`true`) or up.
pub fn hold(app: &AppHandle, down: bool) {
    let talk = app.state::<Talk>();
    if talk.held.swap(down, Ordering::SeqCst) == down {
        return; // key repeat
    }
    if down {
        talk.presses.fetch_add(1, Ordering::SeqCst);
    }
    let mode = app
        .state::<AppState>()
        .engine()
        .settings()
        .desktop
        .talk_mode;
    if mode == TalkMode::Dictate {
        return dictate(app, down);
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

/// Dictation: the key down opens the microphone (and the speech model);
/// up, what was heard is typed where the user is typing.
fn dictate(app: &AppHandle, down: bool) {
    if !down {
        return finish_if_released(app);
    }
    if app.state::<Talk>().opening.swap(true, Ordering::SeqCst) {
        return;
    }
    show_overlay(app);
    tell(app, true, None);
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let opened = app
            .state::<AppState>()
            .engine()
            .voice()
            .dictate(VoiceInput::Microphone)
            .await;
        let talk = app.state::<Talk>();
        talk.opening.store(false, Ordering::SeqCst);
        match opened {
            Ok(dictation) => {
                *lock(&talk.dictation) = Some(dictation);
                tell(&app, false, Some(VoiceEvent::SpeechStarted));
                finish_if_released(&app);
            }
            Err(e) => {
                let message = format!("dictation could not start: {e}");
                tracing::warn!("{message}");
                tell(&app, false, Some(VoiceEvent::Error { message }));
                hide_later(app, Duration::from_secs(4));
            }
        }
    });
}

/// Once the key is up, the dictation (if one is open) is transcribed and
/// typed into the application in front.
fn finish_if_released(app: &AppHandle) {
    let talk = app.state::<Talk>();
    if talk.held.load(Ordering::SeqCst) {
        return;
    }
    let Some(dictation) = lock(&talk.dictation).take() else {
        return;
    };
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let started = std::time::Instant::now();
        let event = match dictation.finish().await {
            Ok(text) => match type_text(text.clone()).await {
                Ok(()) => VoiceEvent::Transcript {
                    text,
                    stt_ms: started.elapsed().as_secs_f64() * 1000.0,
                },
                Err(message) => VoiceEvent::Error { message },
            },
            Err(e) => VoiceEvent::Error {
                message: format!("what was said could not be written down: {e}"),
            },
        };
        tell(&app, false, Some(event));
        hide_later(app, Duration::from_millis(2500));
    });
}

/// Types `text` into the application that has the keyboard (off the
/// async runtime: it waits on the display server).
async fn type_text(text: String) -> Result<(), String> {
    if text.is_empty() {
        return Ok(());
    }
    let typed = tauri::async_runtime::spawn_blocking(move || {
        use enigo::{Enigo, Keyboard, Settings};
        let mut keys = Enigo::new(&Settings::default()).map_err(|e| e.to_string())?;
        keys.text(&text).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|r| r);
    typed.map_err(|e| format!("what was said could not be typed: {e}"))
}

/// A dictation's event for the overlay.
fn tell(app: &AppHandle, starting: bool, event: Option<VoiceEvent>) {
    send(
        app,
        TalkEvent {
            starting,
            event,
            dictating: true,
        },
    );
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

fn emit(app: &AppHandle, starting: bool, event: Option<VoiceEvent>) {
    send(
        app,
        TalkEvent {
            starting,
            event,
            dictating: false,
        },
    );
}

fn send(app: &AppHandle, event: TalkEvent) {
    if let Err(e) = event.emit(app) {
        tracing::debug!("the overlay was not told: {e}");
    }
}

fn hide_later(app: AppHandle, after: Duration) {
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(after).await;
        let talk = app.state::<Talk>();
        let idle = !talk.held.load(Ordering::SeqCst) && !talk.opening.load(Ordering::SeqCst);
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
fn show_overlay(app: &AppHandle) {
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
        .build()
}
