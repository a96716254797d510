//! Push-to-talk in dictation mode (`desktop.talkMode`): holding the key
//! only listens (the engine's speech to text, no model, no chat);
//! released, what was said is typed into the application in front. The
//! overlay shows it without taking the focus from that application.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use baton_engine::api::voice::VoiceEvent;
use baton_engine::{Dictation, VoiceInput};
use tauri::{AppHandle, Manager};

use crate::state::{AppState, lock};
use crate::talk::{Talk, hide_later, quit_ours, show_overlay, tell};

/// After the key comes up, time for the shortcut's modifiers to come up
/// too before typing (a held Ctrl would turn letters into shortcuts).
const MODIFIERS_UP: Duration = Duration::from_millis(150);

/// Left after typing before the keyboard is let go: on X11, keys mapped
/// for characters not on the layout are unmapped then, and the
/// application must have read them first.
const TYPED_SETTLE: Duration = Duration::from_millis(200);

/// The talk shortcut went down (`true`) or up, in dictation mode.
pub fn hold(app: &AppHandle, down: bool) {
    if !down {
        return finish_if_released(app);
    }
    let talk = app.state::<Talk>();
    // A dictation still open (pressed again before it was taken) keeps
    // listening; one being opened is not opened twice.
    if lock(&talk.dictation).is_some() || talk.opening.swap(true, Ordering::SeqCst) {
        return;
    }
    quit_ours(app);
    show_overlay(app);
    tell(app, true, None, true);
    let app = app.clone();
    tauri::async_runtime::spawn(async move { open(app).await });
}

/// Opens the microphone and the speech model, then keeps the dictation
/// (or says why it could not start).
async fn open(app: AppHandle) {
    let opened = app
        .state::<AppState>()
        .engine()
        .voice()
        .dictate(VoiceInput::Microphone)
        .await;
    let talk = app.state::<Talk>();
    match opened {
        Ok(dictation) => {
            *lock(&talk.dictation) = Some(dictation);
            talk.opening.store(false, Ordering::SeqCst);
            tell(&app, false, Some(VoiceEvent::SpeechStarted), true);
            finish_if_released(&app);
        }
        Err(e) => {
            talk.opening.store(false, Ordering::SeqCst);
            let message = format!("dictation could not start: {e}");
            tracing::warn!("{message}");
            tell(&app, false, Some(VoiceEvent::Error { message }), true);
            hide_later(app, Duration::from_secs(4));
        }
    }
}

/// Once the key is up, the open dictation (if any) is written down and
/// typed, one dictation after the other.
fn finish_if_released(app: &AppHandle) {
    let talk = app.state::<Talk>();
    if talk.held.load(Ordering::SeqCst) {
        return;
    }
    let Some(dictation) = lock(&talk.dictation).take() else {
        return;
    };
    talk.finishing.fetch_add(1, Ordering::SeqCst);
    // No event: released, being written down.
    tell(app, false, None, true);
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let talk = app.state::<Talk>();
        let event = {
            let _turn = talk.typing.lock().await;
            write_down(dictation).await
        };
        talk.finishing.fetch_sub(1, Ordering::SeqCst);
        tell(&app, false, Some(event), true);
        hide_later(app, Duration::from_millis(2500));
    });
}

/// What was said, typed: the overlay's last event for it.
async fn write_down(dictation: Dictation) -> VoiceEvent {
    let released = Instant::now();
    let text = match dictation.finish().await {
        Ok(text) => text,
        Err(e) => {
            return VoiceEvent::Error {
                message: format!("what was said could not be written down: {e}"),
            };
        }
    };
    tokio::time::sleep(MODIFIERS_UP.saturating_sub(released.elapsed())).await;
    match type_text(text.clone()).await {
        Ok(()) => VoiceEvent::Transcript {
            text,
            stt_ms: released.elapsed().as_secs_f64() * 1000.0,
        },
        // The words are not lost: the message carries them.
        Err(e) => VoiceEvent::Error {
            message: format!("what was said could not be typed ({e}); it was: {text}"),
        },
    }
}

/// Types `text` into the application that has the keyboard (off the
/// async runtime: it waits on the display server).
async fn type_text(text: String) -> Result<(), String> {
    if text.is_empty() {
        return Ok(());
    }
    tauri::async_runtime::spawn_blocking(move || {
        use enigo::{Direction, Enigo, Key, Keyboard, Settings};
        let mut keys = Enigo::new(&Settings::default()).map_err(|e| e.to_string())?;
        // The shortcut's modifiers, if still down, would make each letter a
        // shortcut in that application.
        for modifier in [Key::Control, Key::Alt, Key::Shift, Key::Meta] {
            keys.key(modifier, Direction::Release)
                .map_err(|e| e.to_string())?;
        }
        keys.text(&text).map_err(|e| e.to_string())?;
        std::thread::sleep(TYPED_SETTLE);
        Ok(())
    })
    .await
    .map_err(|e| e.to_string())?
}
