//! The client side of `baton-stt`: starts the worker with a model, then
//! sends it audio and reads back transcripts (see [`super::protocol`]).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

use super::protocol::{Ready, Request, Response, write_samples};
use super::{Pass, SpeechToText, SttError, Transcript};

/// Environment variable naming the `baton-stt` program.
pub const ENV_STT_BIN: &str = "BATON_STT_BIN";

/// The model preferred when settings name none: the 8-bit quantized
/// tiny.en that `make setup` converts (fastest here at the same accuracy),
/// then its f16 original.
pub const PREFERRED_MODELS: [&str; 2] = ["ggml-tiny.en-q8_0.bin", "ggml-tiny.en.bin"];

/// How the worker decodes.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The ggml Whisper model file.
    pub model: PathBuf,
    /// Spoken language ("en", or "auto" with a multilingual model).
    pub language: String,
    /// CPU threads for whisper.cpp.
    pub threads: usize,
    /// Beam width for final transcripts (1 = greedy).
    pub beam_size: usize,
    /// Shrink the encoder's window to the audio's length (much faster on
    /// short utterances).
    pub fit_audio_ctx: bool,
}

impl WorkerOptions {
    /// Default decoding of `model`: English, two threads, greedy, the
    /// encoder fitted to the audio.
    pub fn new(model: PathBuf) -> Self {
        Self {
            model,
            language: "en".into(),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(4)),
            beam_size: 1,
            fit_audio_ctx: true,
        }
    }

    /// The worker's command-line arguments.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![
            "--model".into(),
            self.model.display().to_string(),
            "--language".into(),
            self.language.clone(),
            "--threads".into(),
            self.threads.to_string(),
            "--beam-size".into(),
            self.beam_size.to_string(),
        ];
        if !self.fit_audio_ctx {
            args.push("--full-window".into());
        }
        args
    }
}

/// Where `baton-stt` is: `$BATON_STT_BIN`, else beside the running
/// program (or one folder up, for test binaries in `deps/`), else `PATH`.
pub fn find_worker_binary() -> Result<PathBuf, SttError> {
    if let Some(p) = std::env::var_os(ENV_STT_BIN) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(SttError::WorkerMissing {
                looked: format!("{ENV_STT_BIN}={}", p.display()),
            })
        };
    }
    let name = format!("baton-stt{}", std::env::consts::EXE_SUFFIX);
    let mut looked = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(2) {
            let candidate = dir.join(&name);
            if candidate.is_file() {
                return Ok(candidate);
            }
            looked.push(dir.display().to_string());
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(&name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
        looked.push("PATH".into());
    }
    Err(SttError::WorkerMissing {
        looked: looked.join(", "),
    })
}

/// The multilingual model `make setup` fetches, preferred for languages
/// other than English.
pub const MULTILINGUAL_MODEL: &str = "ggml-base-q8_0.bin";

/// Whether a ggml Whisper model understands languages other than English
/// (OpenAI's English-only models are named `*.en*`).
pub fn is_multilingual(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    !name.contains(".en.") && !name.contains(".en-")
}

/// The Whisper models in `dir` that can transcribe `language` (a code,
/// or `auto`), best first: for English the preferred small English ones
/// ([`whisper_models`]); for any other, the multilingual ones, the one
/// `make setup` fetches first.
pub fn whisper_models_for(dir: &Path, language: &str) -> Vec<PathBuf> {
    let all = whisper_models(dir);
    if language == "en" {
        return all;
    }
    let mut found: Vec<PathBuf> = all.into_iter().filter(|p| is_multilingual(p)).collect();
    found.sort_by_key(|p| p.file_name().is_none_or(|n| n != MULTILINGUAL_MODEL));
    found
}

/// The ggml Whisper models in `dir`, preferred first (see
/// [`PREFERRED_MODELS`]), then by name.
pub fn whisper_models(dir: &Path) -> Vec<PathBuf> {
    let mut found = crate::files_in(dir, |p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.starts_with("ggml-") && name.ends_with(".bin") && is_ggml_whisper(p)
    });
    let rank = |p: &PathBuf| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        PREFERRED_MODELS
            .iter()
            .position(|m| *m == name)
            .unwrap_or(PREFERRED_MODELS.len())
    };
    found.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    found
}

/// Whether the file starts with ggml's magic number (a legacy ggml file,
/// as whisper.cpp reads).
fn is_ggml_whisper(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && u32::from_le_bytes(magic) == 0x6767_6d6c
}

struct Pipes {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// whisper.cpp in a `baton-stt` worker process, model loaded once.
pub struct WhisperWorker {
    pipes: Mutex<Option<Pipes>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    name: String,
}

impl WhisperWorker {
    /// Starts `program` (see [`find_worker_binary`]) and waits until the
    /// model has loaded.
    pub fn start(program: &Path, options: &WorkerOptions) -> Result<Self, SttError> {
        if !options.model.is_file() {
            return Err(SttError::ModelLoad {
                path: options.model.clone(),
                reason: "the file does not exist".into(),
            });
        }
        let mut child = Command::new(program)
            .args(options.args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| SttError::Worker(format!("cannot start {}: {e}", program.display())))?;
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&stderr_tail);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    tracing::debug!(target: "baton_stt", "{line}");
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    if t.len() == 8 {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            });
        }
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        let read = stdout.read_line(&mut line);
        let ready: Option<Ready> = serde_json::from_str(line.trim()).ok();
        match (read, ready) {
            (Ok(n), Some(ready)) if n > 0 && ready.ok => {
                let model_file = options
                    .model
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                tracing::info!(model = %model_file, kind = %ready.model, load_ms = ready.load_ms, "speech model loaded");
                Ok(Self {
                    pipes: Mutex::new(Some(Pipes {
                        child,
                        stdin,
                        stdout,
                    })),
                    stderr_tail,
                    name: format!("whisper.cpp {model_file}"),
                })
            }
            (_, Some(ready)) => {
                let _ = child.wait();
                Err(SttError::ModelLoad {
                    path: options.model.clone(),
                    reason: ready.error.unwrap_or_else(|| "unknown error".into()),
                })
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                std::thread::sleep(std::time::Duration::from_millis(50));
                Err(SttError::Worker(format!(
                    "it stopped before loading the model{}",
                    tail_text(&stderr_tail)
                )))
            }
        }
    }
}

fn tail_text(tail: &Mutex<VecDeque<String>>) -> String {
    let t = tail.lock().unwrap_or_else(|e| e.into_inner());
    if t.is_empty() {
        String::new()
    } else {
        format!(": {}", t.iter().cloned().collect::<Vec<_>>().join(" | "))
    }
}

impl SpeechToText for WhisperWorker {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn transcribe(&self, samples: &[f32], pass: Pass) -> Result<Transcript, SttError> {
        let mut guard = self.pipes.lock().unwrap_or_else(|e| e.into_inner());
        let Some(pipes) = guard.as_mut() else {
            return Err(SttError::Worker(format!(
                "it has stopped{}",
                tail_text(&self.stderr_tail)
            )));
        };
        let result = (|| {
            let header = serde_json::to_string(&Request {
                samples: samples.len(),
                pass,
            })
            .map_err(|e| e.to_string())?;
            pipes
                .stdin
                .write_all(format!("{header}\n").as_bytes())
                .and_then(|()| write_samples(&mut pipes.stdin, samples))
                .and_then(|()| pipes.stdin.flush())
                .map_err(|e| e.to_string())?;
            let mut line = String::new();
            match pipes.stdout.read_line(&mut line) {
                Ok(0) => Err("it closed its output".to_string()),
                Ok(_) => serde_json::from_str::<Response>(line.trim())
                    .map_err(|e| format!("unreadable answer ({e}): {}", line.trim())),
                Err(e) => Err(e.to_string()),
            }
        })();
        match result {
            Ok(Response {
                transcript: Some(t),
                ..
            }) => Ok(t),
            Ok(Response { error, .. }) => Err(SttError::Decode(
                error.unwrap_or_else(|| "no transcript".into()),
            )),
            Err(e) => {
                // The worker is gone or confused: stop it; later calls say so.
                if let Some(mut p) = guard.take() {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                }
                Err(SttError::Worker(format!(
                    "{e}{}",
                    tail_text(&self.stderr_tail)
                )))
            }
        }
    }
}

impl Drop for WhisperWorker {
    fn drop(&mut self) {
        if let Some(mut p) = self.pipes.lock().unwrap_or_else(|e| e.into_inner()).take() {
            // Closing stdin ends the worker's loop; kill in case it is busy.
            drop(p.stdin);
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }
}
