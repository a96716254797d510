//! Voice conversations assembled from the engine's parts: the speech
//! model from the models folder, the speech engine from settings (eSpeak
//! NG, or a provider entry with an OpenAI-compatible `/audio/speech`), the
//! loop's tuning from settings, and the agent as the one who answers.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use baton_llm::speech::SpeechClient;
use baton_voice::audio::decode_bytes;
use baton_voice::stt::{
    MULTILINGUAL_MODEL, SttError, WHISPER_LANGUAGES, WhisperWorker, WorkerOptions,
    find_worker_binary, is_multilingual, whisper_models, whisper_models_for,
};
use baton_voice::tts::{onnx_runtime, piper_voices};
use baton_voice::{
    EspeakTts, ListenMode, LoopOptions, PiperTts, Speech, TextToSpeech, TtsError, VadOptions,
};

use crate::{ConfirmMode, Conversation, ConversationOptions, Engine, EngineError};

/// Voice of an [`Engine`]: speech models and engines, voice conversations
/// (see [`Engine::voice`]).
pub struct Voice<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

mod dictation;
mod responder;
mod run;

pub use dictation::Dictation;
pub use responder::{AgentResponder, spoken_action, spoken_yes_no, tool_cue};
pub use run::{VoiceControls, VoiceInput, VoiceRequest, VoiceRun};

/// What an agent is told when its answers are spoken.
pub const VOICE_INSTRUCTIONS: &str = "You are talking with the user by voice: your answer is read \
aloud as you write it. Answer in short, plain spoken sentences, in the language the user speaks; \
no tables, code blocks or lists unless asked.";

/// A language voice mode can listen to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct VoiceLanguage {
    /// Whisper's code (`de`), or `auto`.
    pub code: String,
    /// Its name in English.
    pub name: String,
    /// Whether a Whisper model in the models folder can transcribe it.
    pub available: bool,
}

/// What the voice settings can be set to on this computer.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, specta::Type,
)]
#[serde(rename_all = "camelCase", default)]
pub struct VoiceChoices {
    /// Speech engines: `auto`, `espeak`, `piper` when a voice is
    /// installed, and provider entries with a voice.
    pub tts_engines: Vec<String>,
    /// Whisper model files in the models folder.
    pub stt_models: Vec<String>,
    /// Whisper's languages (and `auto`), those a model present can
    /// transcribe marked.
    pub languages: Vec<VoiceLanguage>,
}

impl Voice<'_> {
    /// The speech engines, speech models and languages to choose from.
    pub fn choices(&self) -> VoiceChoices {
        let mut tts_engines = vec!["auto".to_string(), "espeak".to_string()];
        if !self.piper_voices().is_empty() {
            tts_engines.push("piper".into());
        }
        let voiced = self
            .e
            .providers
            .providers
            .iter()
            .filter(|p| p.voice.is_some());
        tts_engines.extend(voiced.map(|p| p.name.clone()));
        let models = whisper_models(&self.e.paths.models_dir);
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
            });
        let file_name = |p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
        VoiceChoices {
            tts_engines,
            stt_models: models.iter().filter_map(file_name).collect(),
            languages: languages.collect(),
        }
    }

    /// The conversation a voice session talks to: saved session `session`
    /// (a chat continued by voice) or a new one, with agent `agent` (else
    /// the session's or the default) or the provider entry `provider`, its
    /// tools included. Each turn is saved like a chat's; external actions
    /// ask the user, who answers by voice ([`AgentResponder`]).
    pub fn conversation(
        &self,
        session: Option<&baton_agent::SessionId>,
        agent: Option<&str>,
        provider: Option<&str>,
    ) -> Result<Conversation, EngineError> {
        let options = ConversationOptions {
            agent: agent.map(str::to_string),
            provider: provider.map(str::to_string),
            instructions: Some(VOICE_INSTRUCTIONS.to_string()),
            confirm: ConfirmMode::Ask,
            ..ConversationOptions::default()
        };
        self.e.conversations().open(session, options)
    }

    /// The ggml Whisper model to use: the one named in settings, else the
    /// best one in the models folder for the voice language (an English
    /// one for English, a multilingual one for any other or `auto`).
    pub fn stt_model(&self) -> Result<PathBuf, SttError> {
        self.stt_model_for(&self.e.settings.voice_language())
    }

    /// The ggml Whisper model for `language` (a Whisper code or `auto`):
    /// the one named in settings if it understands it, else the best one
    /// in the models folder that does.
    pub fn stt_model_for(&self, language: &str) -> Result<PathBuf, SttError> {
        let dir = &self.e.paths.models_dir;
        if let Some(name) = &self.e.settings.voice.stt_model {
            let path = if PathBuf::from(name).is_absolute() {
                PathBuf::from(name)
            } else {
                dir.join(name)
            };
            return if !path.is_file() {
                Err(SttError::ModelLoad {
                    path,
                    reason: "the file named by the voice.sttModel setting does not exist".into(),
                })
            } else {
                check_stt_language(&path, language).map(|()| path)
            };
        }
        if let Some(best) = whisper_models_for(dir, language).into_iter().next() {
            return Ok(best);
        }
        Err(if whisper_models(dir).is_empty() {
            SttError::NoModel { dir: dir.clone() }
        } else {
            SttError::NoModelForLanguage {
                dir: dir.clone(),
                language: language.to_string(),
            }
        })
    }

    /// The worker options the settings ask for, with their model.
    pub fn stt_options(&self) -> Result<WorkerOptions, SttError> {
        Ok(self.stt_options_for(self.stt_model()?))
    }

    /// The worker options the settings ask for, with `model`.
    pub fn stt_options_for(&self, model: PathBuf) -> WorkerOptions {
        let v = &self.e.settings.voice;
        let mut o = WorkerOptions::new(model);
        o.language = self.e.settings.voice_language();
        if let Some(t) = v.threads {
            o.threads = t.max(1);
        }
        o.beam_size = v.beam_size.max(1);
        o
    }

    /// Starts the speech-to-text worker and loads the model (blocking,
    /// ≈ 0.1–0.5 s).
    pub fn start_stt(&self) -> Result<WhisperWorker, SttError> {
        WhisperWorker::start(&find_worker_binary()?, &self.stt_options()?)
    }

    /// The speech engine the settings choose. An endpoint engine must be
    /// made inside a Tokio runtime (it speaks over HTTP).
    pub fn tts(&self) -> Result<Arc<dyn TextToSpeech>, EngineError> {
        self.tts_named(&self.e.settings.voice.tts_engine)
    }

    /// Speech engine `name`: `auto` (the natural Piper voice when it is
    /// installed, else eSpeak NG), `piper`, `espeak` (eSpeak NG), or a
    /// provider entry with a voice.
    pub fn tts_named(&self, name: &str) -> Result<Arc<dyn TextToSpeech>, EngineError> {
        let v = &self.e.settings.voice;
        let name = name.trim();
        if name.eq_ignore_ascii_case("piper") {
            return Ok(Arc::new(self.piper()?));
        }
        let auto = name.is_empty() || name.eq_ignore_ascii_case("auto");
        // The Piper voice make setup fetches speaks English; other
        // languages get eSpeak NG's voice for them.
        let language = self.e.settings.voice_language();
        if auto && espeak_voice(&language) == "en-us" {
            match self.piper() {
                Ok(piper) => return Ok(Arc::new(piper)),
                Err(e) => tracing::info!("speaking with eSpeak NG: {e}"),
            }
        }
        if auto || name.eq_ignore_ascii_case("espeak") {
            let voice = v
                .tts_voice
                .clone()
                .unwrap_or_else(|| espeak_voice(&language));
            let tts = EspeakTts::new(&voice, v.tts_rate);
            return Ok(Arc::new(tts));
        }
        let cfg = self.e.providers().config(Some(name))?;
        let key = self
            .e
            .secrets
            .api_key(&cfg.name, cfg.api_key_env.as_deref())
            .ok()
            .flatten()
            .map(|k| k.value);
        let mut client = SpeechClient::new(&cfg, key)?;
        if let Some(voice) = &v.tts_voice {
            client = client.with_voice(voice);
        }
        let handle = tokio::runtime::Handle::try_current().map_err(|_| {
            EngineError::Provider(baton_llm::LlmError::Unsupported(
                "an endpoint speech engine needs a running Tokio runtime".into(),
            ))
        })?;
        Ok(Arc::new(EndpointTts {
            name: format!("{} ({})", cfg.name, client.voice()),
            client,
            handle,
        }))
    }

    /// The Piper voices in the models folder (`piper/*.onnx`).
    pub fn piper_voices(&self) -> Vec<PathBuf> {
        piper_voices(&self.e.paths.models_dir.join("piper"))
    }

    /// The Piper voice the settings name (`voice.ttsVoice`, a file in the
    /// models folder's `piper/` with or without `.onnx`), else the first
    /// one there, with ONNX Runtime from `onnxruntime/` (or
    /// `ORT_DYLIB_PATH`); loading takes ≈ 0.3 s.
    pub fn piper(&self) -> Result<PiperTts, TtsError> {
        let v = &self.e.settings.voice;
        let voices = self.piper_voices();
        let named = v.tts_voice.as_deref().and_then(|n| {
            voices.iter().find(|p| {
                p.file_stem().is_some_and(|s| s == n) || p.file_name().is_some_and(|f| f == n)
            })
        });
        let Some(voice) = named.or(voices.first()) else {
            return Err(TtsError::Unavailable(format!(
                "no Piper voice in {}: run `make setup` (it fetches en_US-joe-medium)",
                self.e.paths.models_dir.join("piper").display()
            )));
        };
        let runtime = std::env::var_os("ORT_DYLIB_PATH")
            .map(PathBuf::from)
            .or_else(|| onnx_runtime(&self.e.paths.models_dir.join("onnxruntime")))
            .ok_or_else(|| {
                TtsError::Unavailable(format!(
                    "ONNX Runtime is not in {}: run `make setup`",
                    self.e.paths.models_dir.join("onnxruntime").display()
                ))
            })?;
        let threads = v
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get().min(4)));
        PiperTts::load(voice, &runtime, threads, v.tts_rate as f32 / 175.0)
    }

    /// The loop's tuning from settings.
    pub fn loop_options(&self) -> LoopOptions {
        let v = &self.e.settings.voice;
        LoopOptions {
            vad: VadOptions {
                end_silence: Duration::from_millis(v.end_silence_ms.clamp(200, 5000)),
                ..VadOptions::default()
            },
            echo_cancellation: v.echo_cancellation,
            noise_suppression: v.noise_suppression,
            speculate_after: (v.speculate_after_ms > 0)
                .then(|| Duration::from_millis(v.speculate_after_ms)),
            partial_every: (v.partial_every_ms > 0)
                .then(|| Duration::from_millis(v.partial_every_ms)),
            mode: if v.push_to_talk {
                ListenMode::PushToTalk
            } else {
                ListenMode::HandsFree
            },
            ..LoopOptions::default()
        }
    }
}

/// Refuses an English-only Whisper model for another language (it would
/// hear English words in anything said).
pub fn check_stt_language(model: &std::path::Path, language: &str) -> Result<(), SttError> {
    if language == "en" || is_multilingual(model) {
        return Ok(());
    }
    Err(SttError::ModelLoad {
        path: model.to_path_buf(),
        reason: format!(
            "it understands only English and the language is `{language}`: pick a multilingual \
             model (make setup fetches {MULTILINGUAL_MODEL})"
        ),
    })
}

/// The eSpeak NG voice for a voice language: its code (eSpeak NG names
/// most voices so), American English for English and `auto`.
fn espeak_voice(language: &str) -> String {
    match language.trim() {
        "" | "en" | "auto" => "en-us".into(),
        "jw" => "jv".into(),
        "no" | "nn" => "nb".into(),
        other => other.into(),
    }
}

/// An OpenAI-compatible `/audio/speech` endpoint as a [`TextToSpeech`].
struct EndpointTts {
    name: String,
    client: SpeechClient,
    handle: tokio::runtime::Handle,
}

impl TextToSpeech for EndpointTts {
    fn name(&self) -> &str {
        &self.name
    }

    fn synthesize(&self, text: &str) -> Result<Speech, TtsError> {
        // Called on a blocking thread (the speaking loop's): wait here.
        let wav = self
            .handle
            .block_on(self.client.synthesize(text))
            .map_err(|e| TtsError::Synthesis(e.to_string()))?;
        let pcm = decode_bytes(wav, &format!("{}.wav", self.name))
            .map_err(|e| TtsError::Synthesis(e.to_string()))?;
        Ok(Speech::from_f32(&pcm.samples, pcm.sample_rate))
    }
}
