//! Voice conversations in the desktop app: device lists, voice settings,
//! and starting, steering and stopping the engine's voice loop. Events
//! stream over the channel given to `voice_start`.

use baton_engine::api::voice::audio::{input_devices, output_devices};
use baton_engine::api::voice::stt::{
    MULTILINGUAL_MODEL, WHISPER_LANGUAGES, is_multilingual, whisper_models,
};
use baton_engine::api::voice::{Control, VoiceEvent};
use baton_engine::{VoiceInput, VoiceRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{
    AudioDevice, AudioDevices, ErrorCode, IpcError, VoiceEventDto, VoiceLanguage,
    VoiceSettingsView, VoiceStarted, VoiceTiming,
};
use crate::error::IpcResult;
use crate::state::{AppState, lock};

/// The microphones and speakers present.
#[tauri::command]
#[specta::specta]
pub async fn voice_devices() -> IpcResult<AudioDevices> {
    let listed = tauri::async_runtime::spawn_blocking(|| {
        let to_dto = |list: Vec<baton_engine::api::voice::audio::DeviceInfo>| {
            list.into_iter()
                .map(|d| AudioDevice {
                    id: d.id,
                    name: d.name,
                    is_default: d.is_default,
                })
                .collect::<Vec<_>>()
        };
        match (input_devices(), output_devices()) {
            (Ok(i), Ok(o)) => AudioDevices {
                inputs: to_dto(i),
                outputs: to_dto(o),
                error: None,
            },
            (Err(e), _) | (_, Err(e)) => AudioDevices {
                inputs: Vec::new(),
                outputs: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    })
    .await
    .map_err(|e| IpcError::new(ErrorCode::Internal, e.to_string()))?;
    Ok(listed)
}

fn voice_view(engine: &std::sync::Arc<baton_engine::Engine>) -> VoiceSettingsView {
    let v = &engine.settings().voice;
    let mut tts_engines = vec!["auto".to_string(), "espeak".to_string()];
    if !engine.voice().piper_voices().is_empty() {
        tts_engines.push("piper".into());
    }
    tts_engines.extend(
        engine
            .providers()
            .file()
            .providers
            .iter()
            .filter(|p| p.voice.is_some())
            .map(|p| p.name.clone()),
    );
    let models = whisper_models(&engine.paths().models_dir);
    let multilingual = models.iter().any(|m| is_multilingual(m));
    let languages = std::iter::once(("auto", "Detect the language"))
        .chain(WHISPER_LANGUAGES.iter().copied())
        .map(|(code, name)| VoiceLanguage {
            code: code.into(),
            name: name.into(),
            available: if code == "en" {
                !models.is_empty()
            } else {
                multilingual
            },
        })
        .collect();
    VoiceSettingsView {
        push_to_talk: v.push_to_talk,
        input_device: v.input_device.clone(),
        output_device: v.output_device.clone(),
        tts_engine: v.tts_engine.clone(),
        tts_voice: v.tts_voice.clone(),
        tts_rate: v.tts_rate,
        stt_model: v.stt_model.clone(),
        end_silence_ms: v.end_silence_ms.min(u64::from(u32::MAX)) as u32,
        language: v.language.clone(),
        echo_cancellation: v.echo_cancellation,
        noise_suppression: v.noise_suppression,
        tts_engines,
        stt_models: models
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect(),
        languages,
    }
}

/// The voice settings and the choices for them.
#[tauri::command]
#[specta::specta]
pub fn voice_settings(state: State<'_, AppState>) -> IpcResult<VoiceSettingsView> {
    Ok(voice_view(&state.engine()))
}

/// Why `settings` cannot be saved, given the choices in `current`.
fn check_voice(settings: &VoiceSettingsView, current: &VoiceSettingsView) -> Result<(), String> {
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
    check_language(settings, current)
}

/// The language must be Whisper's, and a model must understand it.
fn check_language(settings: &VoiceSettingsView, current: &VoiceSettingsView) -> Result<(), String> {
    let code = settings.language.as_str();
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
    let engine = state.engine();
    check_voice(&settings, &voice_view(&engine)).map_err(IpcError::invalid)?;
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
            v.end_silence_ms = u64::from(settings.end_silence_ms);
            v.language = settings.language;
            v.echo_cancellation = settings.echo_cancellation;
            v.noise_suppression = settings.noise_suppression;
            Ok(())
        })
        .await?;
    Ok(voice_view(&state.engine()))
}

fn to_dto(e: VoiceEvent) -> VoiceEventDto {
    match e {
        VoiceEvent::Level { rms } => VoiceEventDto::Level { rms },
        VoiceEvent::SpeechStarted => VoiceEventDto::SpeechStarted,
        VoiceEvent::Partial { text } => VoiceEventDto::Partial { text },
        VoiceEvent::Transcript { text, .. } => VoiceEventDto::Transcript { text },
        VoiceEvent::AnswerText { text } => VoiceEventDto::AnswerText { text },
        VoiceEvent::Speaking { sentence } => VoiceEventDto::Speaking { sentence },
        VoiceEvent::AnswerDone {
            interrupted,
            timing,
        } => VoiceEventDto::AnswerDone {
            interrupted,
            timing: timing.map(|t| VoiceTiming {
                vad_tail_ms: t.vad_tail_ms,
                stt_ms: t.stt_ms,
                first_sentence_ms: t.first_sentence_ms,
                tts_ms: t.tts_ms,
                first_audio_ms: t.first_audio_ms,
            }),
        },
        VoiceEvent::BargeIn { .. } => VoiceEventDto::BargeIn,
        VoiceEvent::Error { message } => VoiceEventDto::Error { message },
    }
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
    on_event: Channel<VoiceEventDto>,
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
            if on_event.send(to_dto(ev)).is_err() {
                // The window went away: end the conversation.
                run.stopper().cancel();
            }
        }
        run.finish().await;
        lock(&voice_slot).take();
        let _ = on_event.send(VoiceEventDto::Stopped);
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
