//! Voice conversations in the desktop app: device lists, voice settings,
//! and starting, steering and stopping the engine's voice loop. Events
//! stream over the channel given to `voice_start`.

use baton_engine::api::settings::{Language, VoiceSettings};
use baton_engine::api::voice::audio::{input_devices, output_devices};
use baton_engine::api::voice::stt::{MULTILINGUAL_MODEL, is_multilingual};
use baton_engine::api::voice::{Control, VoiceEvent};
use baton_engine::{VoiceChoices, VoiceInput, VoiceRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{AudioDevices, ErrorCode, IpcError, VoiceSettingsView, VoiceStarted};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

/// The microphones and speakers present.
#[tauri::command]
#[specta::specta]
pub async fn voice_devices() -> IpcResult<AudioDevices> {
    let listed =
        tauri::async_runtime::spawn_blocking(|| match (input_devices(), output_devices()) {
            (Ok(inputs), Ok(outputs)) => AudioDevices {
                inputs,
                outputs,
                error: None,
            },
            (Err(e), _) | (_, Err(e)) => AudioDevices {
                inputs: Vec::new(),
                outputs: Vec::new(),
                error: Some(e.to_string()),
            },
        })
        .await
        .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(listed)
}

fn voice_view(engine: &std::sync::Arc<baton_engine::Engine>) -> VoiceSettingsView {
    VoiceSettingsView {
        settings: engine.settings().voice.clone(),
        choices: engine.voice().choices(),
    }
}

/// The voice settings and the choices for them.
#[tauri::command]
#[specta::specta]
pub fn voice_settings(state: State<'_, AppState>) -> IpcResult<VoiceSettingsView> {
    Ok(voice_view(&state.engine()))
}

/// Why `settings` cannot be saved, given the choices in `current` and the
/// app's language `app` (what an empty voice language means).
fn check_voice(
    settings: &VoiceSettings,
    current: &VoiceChoices,
    app: Language,
) -> Result<(), String> {
    if !current.tts_engines.contains(&settings.tts_engine) {
        return Err(format!(
            "there is no speech engine named `{}`",
            settings.tts_engine
        ));
    }
    if let Some(m) = &settings.stt_model
        && !current.stt_models.contains(m)
    {
        return Err(format!(
            "there is no Whisper model `{m}` in the models folder"
        ));
    }
    if !(80..=450).contains(&settings.tts_rate) {
        return Err("the speaking rate must be 80–450 words per minute".into());
    }
    if !(200..=5000).contains(&settings.end_silence_ms) {
        return Err("the pause that ends speech must be 200–5000 ms".into());
    }
    check_language(settings, current, app)
}

/// The language must be Whisper's, and a model must understand it (empty:
/// the app's language `app`).
fn check_language(
    settings: &VoiceSettings,
    current: &VoiceChoices,
    app: Language,
) -> Result<(), String> {
    let code = match settings.language.as_str() {
        "" => app.code(),
        set => set,
    };
    let Some(language) = current.languages.iter().find(|l| l.code == code) else {
        return Err(format!("Whisper does not know the language `{code}`"));
    };
    if code == "en" {
        return Ok(());
    }
    if let Some(m) = &settings.stt_model
        && !is_multilingual(std::path::Path::new(m))
    {
        return Err(format!(
            "{m} understands only English: pick a multilingual model for {}",
            language.name
        ));
    }
    if !language.available {
        return Err(format!(
            "no Whisper model here understands {}: run `make setup` (it fetches {MULTILINGUAL_MODEL})",
            language.name
        ));
    }
    Ok(())
}

/// Validates and saves the voice settings (atomically), then reloads.
#[tauri::command]
#[specta::specta]
pub async fn save_voice_settings(
    state: State<'_, AppState>,
    settings: VoiceSettingsView,
) -> IpcResult<VoiceSettingsView> {
    let settings = settings.settings;
    let engine = state.engine();
    let app = engine.settings().app_language();
    check_voice(&settings, &engine.voice().choices(), app).map_err(IpcError::invalid)?;
    state
        .update_settings(|s| {
            let v = &mut s.voice;
            v.push_to_talk = settings.push_to_talk;
            v.input_device = settings.input_device.filter(|d| !d.is_empty());
            v.output_device = settings.output_device.filter(|d| !d.is_empty());
            v.tts_engine = settings.tts_engine;
            v.tts_voice = settings.tts_voice.filter(|d| !d.trim().is_empty());
            v.tts_rate = settings.tts_rate;
            v.stt_model = settings.stt_model;
            v.end_silence_ms = settings.end_silence_ms;
            v.language = settings.language;
            v.echo_cancellation = settings.echo_cancellation;
            v.noise_suppression = settings.noise_suppression;
            Ok(())
        })
        .await?;
    Ok(voice_view(&state.engine()))
}

/// Starts a voice conversation on the chosen microphone and speaker:
/// saved conversation `session` continued by voice (else a new one), with
/// agent `agent` (else the session's or the default), tools included.
#[tauri::command]
#[specta::specta]
pub async fn voice_start(
    state: State<'_, AppState>,
    session: Option<String>,
    agent: Option<String>,
    on_event: Channel<VoiceEvent>,
) -> IpcResult<VoiceStarted> {
    if lock(&state.voice).is_some() {
        return Err(IpcError::new(
            ErrorCode::Busy,
            "a voice conversation is already running",
        ));
    }
    let request = VoiceRequest {
        session: session
            .as_deref()
            .map(baton_engine::api::SessionId::parse)
            .transpose()?,
        agent,
        ..VoiceRequest::new(VoiceInput::Microphone)
    };
    let mut run = state.engine().voice().start(request).await?;
    let controls = run.controls().clone();
    let started = VoiceStarted {
        stt: controls.stt.clone(),
        tts: controls.tts.clone(),
        microphone: controls
            .microphone
            .as_ref()
            .map(|m| m.0.clone())
            .unwrap_or_default(),
        push_to_talk: controls.push_to_talk,
        session_id: controls.session_id.to_string(),
    };
    *lock(&state.voice) = Some(controls);
    let voice_slot = state.voice_slot();
    tauri::async_runtime::spawn(async move {
        while let Some(ev) = run.next().await {
            if on_event.send(ev).is_err() {
                // The window went away: end the conversation.
                run.stopper().cancel();
            }
        }
        run.finish().await;
        lock(&voice_slot).take();
        let _ = on_event.send(VoiceEvent::Stopped);
    });
    Ok(started)
}

fn control(state: &AppState, c: Control) -> IpcResult<()> {
    let controls = lock(&state.voice)
        .clone()
        .ok_or_else(|| IpcError::invalid("no voice conversation is running"))?;
    Ok(controls.send(c)?)
}

/// Push-to-talk: the talk button was pressed (`true`) or released.
#[tauri::command]
#[specta::specta]
pub fn voice_talk(state: State<'_, AppState>, pressed: bool) -> IpcResult<()> {
    control(&state, Control::Talk(pressed))
}

/// Stops the answer being spoken (and its model call).
#[tauri::command]
#[specta::specta]
pub fn voice_stop_speaking(state: State<'_, AppState>) -> IpcResult<()> {
    control(&state, Control::StopSpeaking)
}

/// Ends the voice conversation (a `stopped` event follows).
#[tauri::command]
#[specta::specta]
pub fn voice_stop(state: State<'_, AppState>) -> IpcResult<()> {
    if lock(&state.voice).is_none() {
        return Ok(());
    }
    control(&state, Control::Quit)
}
