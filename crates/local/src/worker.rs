//! The worker thread: owns the model and one context, serves jobs in
//! order, reuses the KV cache of the common prompt prefix.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use tokio_util::sync::CancellationToken;

/// What the worker reports about one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStats {
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Prompt tokens served from the KV cache (not evaluated again).
    pub reused_tokens: u32,
    /// Generated tokens.
    pub completion_tokens: u32,
    /// Time to load the model, when this request loaded it.
    pub load_ms: f64,
    /// Time evaluating the (new part of the) prompt.
    pub prompt_ms: f64,
    /// Time generating.
    pub generation_ms: f64,
    /// Layers of the model on a GPU (0: it runs on the CPU).
    pub gpu_layers: u32,
}

/// One request.
pub(crate) struct Job {
    pub messages: Vec<(String, String)>,
    pub grammar: Option<String>,
    pub max_tokens: u32,
    pub temperature: f32,
    pub seed: u32,
    pub cancel: CancellationToken,
    pub tx: tokio::sync::mpsc::UnboundedSender<WorkerMsg>,
}

/// What the worker sends back.
pub(crate) enum WorkerMsg {
    Text(String),
    Done(RunStats),
    Failed(String),
}

/// Load settings.
#[derive(Clone)]
pub(crate) struct LoadSettings {
    pub path: PathBuf,
    pub context: u32,
    pub threads: i32,
    /// The entry's `gpuLayers`; `None`: as many as fit (see [`gpu_layers`]).
    pub gpu_layers: Option<u32>,
    pub progress: tokio::sync::broadcast::Sender<crate::provider::LoadProgress>,
}

fn backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            #[cfg(feature = "cpu-variants")]
            crate::kernels::load()?;
            let mut b =
                LlamaBackend::init().map_err(|e| format!("llama.cpp could not start: {e}"))?;
            b.void_logs();
            Ok(b)
        })
        .as_ref()
        .map_err(Clone::clone)
}

struct Loaded {
    model: &'static LlamaModel,
    gpu_layers: u32,
    ctx: LlamaContext<'static>,
    template: Option<LlamaChatTemplate>,
    cached: Vec<LlamaToken>,
    n_batch: usize,
}

fn fetch_hint() -> &'static str {
    "run `make setup` (or `scripts/fetch-model.sh`) to fetch the default model, or point the entry's `modelPath` at a GGUF file"
}

fn load(s: &LoadSettings) -> Result<(Loaded, f64), String> {
    let started = Instant::now();
    let meta = std::fs::metadata(&s.path).map_err(|_| {
        format!(
            "the model file {} is missing; {}",
            s.path.display(),
            fetch_hint()
        )
    })?;
    let total = meta.len();
    let backend = backend()?;
    let params = model_params(s, placement(s.gpu_layers, backend.supports_gpu_offload()));
    // Negative: every layer.
    let gpu_layers = u32::try_from(params.n_gpu_layers()).unwrap_or(u32::MAX);
    let progress = s.progress.clone();
    let params = params.with_progress_callback(move |p| {
        let _ = progress.send(crate::provider::LoadProgress {
            percent: (p * 100.0).clamp(0.0, 100.0),
            bytes: (f64::from(p) * total as f64) as u64,
            total_bytes: total,
        });
        true
    });
    let model = LlamaModel::load_from_file(backend, &s.path, &params).map_err(|e| {
        format!("the model file {} could not be loaded ({e}); it may be damaged or not a GGUF model — {}", s.path.display(), fetch_hint())
    })?;
    // The model lives as long as the process: one load, shared by all.
    let model: &'static LlamaModel = Box::leak(Box::new(model));
    let n_ctx = s.context.min(model.n_ctx_train().max(512));
    let n_batch = 512u32;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(n_batch)
        .with_n_threads(s.threads)
        .with_n_threads_batch(s.threads);
    let ctx = model
        .new_context(backend, params)
        .map_err(|e| format!("cannot create a llama.cpp context: {e}"))?;
    let template = match model.chat_template(None) {
        Ok(t) => Some(t),
        Err(_) => {
            tracing::warn!(path = %s.path.display(), "the model has no chat template; using ChatML");
            None
        }
    };
    let gpu_layers = gpu_layers.min(model.n_layer() + 1);
    tracing::info!(path = %s.path.display(), gpu_layers, layers = model.n_layer(), cpu_kernels = crate::kernels::cpu_kernels().unwrap_or("?"), "local model loaded");
    Ok((
        Loaded {
            model,
            gpu_layers,
            ctx,
            template,
            cached: Vec::new(),
            n_batch: n_batch as usize,
        },
        started.elapsed().as_secs_f64() * 1000.0,
    ))
}

/// Where the model's layers go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// A number of layers (0: the CPU only).
    Layers(u32),
    /// As many as llama.cpp's fit places in the GPUs' free memory.
    Fit,
}

/// Nothing goes to a GPU without one (a CPU build, or no GPU found); else
/// the entry's `gpuLayers` when it sets one, else what fits.
fn placement(explicit: Option<u32>, gpu_offload: bool) -> Placement {
    match explicit {
        _ if !gpu_offload => Placement::Layers(0),
        Some(n) => Placement::Layers(n),
        None => Placement::Fit,
    }
}

/// Whether this build of llama.cpp can put layers on a GPU here: built
/// with a GPU backend (`cuda`, `vulkan`, `metal`) and a GPU found.
pub fn gpu_offload_available() -> bool {
    backend().is_ok_and(LlamaBackend::supports_gpu_offload)
}

/// The model's parameters for `placement`. A fit that fails leaves the
/// model on the CPU (with a warning).
fn model_params(s: &LoadSettings, placement: Placement) -> LlamaModelParams {
    match placement {
        Placement::Layers(n) => LlamaModelParams::default().with_n_gpu_layers(n),
        Placement::Fit => fitted(s).unwrap_or_else(|e| {
            tracing::warn!("{e}; the model runs on the CPU");
            LlamaModelParams::default().with_n_gpu_layers(0)
        }),
    }
}

/// llama.cpp's own fit (`common_fit_params`): the layers (and, for
/// mixture-of-experts models, which experts stay on the CPU; with several
/// GPUs, the split) that fit the GPUs' free memory with 512 MiB to spare.
/// It fits the entry's context window; the load may use less (the model's
/// trained context), which only leaves more room.
fn fitted(s: &LoadSettings) -> Result<LlamaModelParams, String> {
    // The fit swaps llama.cpp's global logger while it runs: one at a time.
    static FIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = FIT.lock().unwrap_or_else(|e| e.into_inner());
    let path = std::ffi::CString::new(s.path.as_os_str().as_encoded_bytes())
        .map_err(|_| "the model path has a NUL byte".to_string())?;
    let mut cparams = LlamaContextParams::default().with_n_ctx(NonZeroU32::new(s.context.max(512)));
    let mut margins = vec![512usize << 20; llama_cpp_2::max_devices()];
    let mut params = LlamaModelParams::default();
    std::pin::Pin::new(&mut params)
        .fit_params(
            &path,
            &mut cparams,
            &mut margins,
            s.context.clamp(512, 4096),
            4, // GGML_LOG_LEVEL_ERROR (libcommon still prints its own errors)
        )
        .map_err(|e| match e {
            llama_cpp_2::model::params::FitError::Failure => {
                "the model does not fit the GPU's free memory".to_string()
            }
            _ => format!(
                "{} could not be read to place it on the GPU",
                s.path.display()
            ),
        })?;
    Ok(params)
}

fn chatml(messages: &[(String, String)]) -> String {
    let mut s = String::new();
    for (role, content) in messages {
        s.push_str(&format!("<|im_start|>{role}\n{content}<|im_end|>\n"));
    }
    s.push_str("<|im_start|>assistant\n");
    s
}

fn prompt_text(l: &Loaded, messages: &[(String, String)]) -> Result<String, String> {
    match &l.template {
        Some(t) => {
            let chat: Vec<LlamaChatMessage> = messages
                .iter()
                .map(|(r, c)| LlamaChatMessage::new(r.clone(), c.replace('\0', "")))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            l.model.apply_chat_template(t, &chat, true).or_else(|e| {
                tracing::warn!("chat template failed ({e}); using ChatML");
                Ok(chatml(messages))
            })
        }
        None => Ok(chatml(messages)),
    }
}

/// Runs the worker loop until every sender is gone.
pub(crate) fn run(settings: LoadSettings, jobs: std::sync::mpsc::Receiver<Job>) {
    let mut loaded: Option<Loaded> = None;
    while let Ok(job) = jobs.recv() {
        let mut load_ms = 0.0;
        if loaded.is_none() {
            match load(&settings) {
                Ok((l, ms)) => {
                    loaded = Some(l);
                    load_ms = ms;
                }
                Err(e) => {
                    let _ = job.tx.send(WorkerMsg::Failed(e));
                    continue;
                }
            }
        }
        let l = loaded.as_mut().expect("loaded above");
        match generate(l, &job) {
            Ok(mut stats) => {
                stats.load_ms = load_ms;
                let _ = job.tx.send(WorkerMsg::Done(stats));
            }
            Err(e) => {
                // The cache state is unknown after a failure: start clean.
                l.ctx.clear_kv_cache();
                l.cached.clear();
                let _ = job.tx.send(WorkerMsg::Failed(e));
            }
        }
    }
}

fn generate(l: &mut Loaded, job: &Job) -> Result<RunStats, String> {
    let text = prompt_text(l, &job.messages)?;
    let tokens = l.model.vocab().tokenize(text.as_bytes(), true, true);
    let n_ctx = l.ctx.n_ctx() as usize;
    if tokens.len() + 8 >= n_ctx {
        return Err(format!(
            "the conversation ({} tokens) does not fit the local model's context window ({n_ctx} tokens); run /session compact or start a new chat",
            tokens.len()
        ));
    }
    let started = Instant::now();
    let (common, mut batch) = evaluate_prompt(l, job, &tokens)?;
    let prompt_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut sampler = sampler_for(l, job)?;
    let gen_started = Instant::now();
    let produced = sample_tokens(l, job, &mut sampler, &mut batch)?;
    Ok(RunStats {
        prompt_tokens: tokens.len() as u32,
        reused_tokens: common as u32,
        completion_tokens: produced,
        load_ms: 0.0,
        prompt_ms,
        generation_ms: gen_started.elapsed().as_secs_f64() * 1000.0,
        gpu_layers: l.gpu_layers,
    })
}

/// Evaluates what of `tokens` the KV cache does not hold yet (the common
/// prefix with the last request is reused; at least one token is
/// evaluated, so there are logits to sample from). Returns the reused
/// count and the batch whose last token has the logits.
fn evaluate_prompt(
    l: &mut Loaded,
    job: &Job,
    tokens: &[LlamaToken],
) -> Result<(usize, LlamaBatch<'static>), String> {
    let common = l
        .cached
        .iter()
        .zip(tokens)
        .take_while(|(a, b)| a == b)
        .count()
        .min(tokens.len() - 1);
    l.ctx
        .clear_kv_cache_seq(Some(0), Some(common as u32), None)
        .map_err(|e| format!("KV cache: {e}"))?;
    l.cached.truncate(common);
    let mut batch = LlamaBatch::new(l.n_batch.max(1), 1);
    for (chunk_i, chunk) in tokens[common..].chunks(l.n_batch).enumerate() {
        if job.cancel.is_cancelled() {
            return Err("cancelled".into());
        }
        batch.clear();
        let base = common + chunk_i * l.n_batch;
        for (i, t) in chunk.iter().enumerate() {
            let pos = base + i;
            let last = pos == tokens.len() - 1;
            batch
                .add(*t, pos as i32, &[0], last)
                .map_err(|e| e.to_string())?;
        }
        l.ctx
            .decode(&mut batch)
            .map_err(|e| format!("llama.cpp decode failed: {e}"))?;
        l.cached.extend_from_slice(chunk);
    }
    Ok((common, batch))
}

/// The job's sampler: its grammar, then greedy or temperature sampling.
fn sampler_for(l: &Loaded, job: &Job) -> Result<LlamaSampler, String> {
    let mut chain = Vec::new();
    if let Some(g) = &job.grammar {
        chain.push(
            LlamaSampler::grammar(l.model, g, "root")
                .map_err(|e| format!("invalid grammar: {e}"))?,
        );
    }
    if job.temperature > 0.0 {
        chain.push(LlamaSampler::temp(job.temperature));
        chain.push(LlamaSampler::dist(job.seed));
    } else {
        chain.push(LlamaSampler::greedy());
    }
    Ok(LlamaSampler::chain_simple(chain))
}

/// Samples and sends the answer, text as soon as it is valid UTF-8, until
/// the end, the token limit, a full context, a cancel, or nobody listens.
/// Returns the tokens produced.
fn sample_tokens(
    l: &mut Loaded,
    job: &Job,
    sampler: &mut LlamaSampler,
    batch: &mut LlamaBatch<'static>,
) -> Result<u32, String> {
    let n_ctx = l.ctx.n_ctx() as usize;
    let mut produced = 0u32;
    let mut pending: Vec<u8> = Vec::new();
    let mut logits_at = batch.n_tokens() - 1;
    let vocab = l.model.vocab();
    while produced < job.max_tokens && !job.cancel.is_cancelled() {
        // `sample` also accepts the token into the chain (grammar state).
        let token = sampler.sample(&l.ctx, logits_at);
        if vocab.is_eog(token) {
            break;
        }
        produced += 1;
        pending.extend(vocab.token_to_piece(token, false, None));
        let valid = match std::str::from_utf8(&pending) {
            Ok(s) => s.len(),
            Err(e) => e.valid_up_to(),
        };
        if valid > 0 {
            let text: String = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            if job.tx.send(WorkerMsg::Text(text)).is_err() {
                break; // nobody listens any more
            }
        }
        if l.cached.len() + 1 >= n_ctx {
            break;
        }
        batch.clear();
        batch
            .add(token, l.cached.len() as i32, &[0], true)
            .map_err(|e| e.to_string())?;
        l.ctx
            .decode(batch)
            .map_err(|e| format!("llama.cpp decode failed: {e}"))?;
        l.cached.push(token);
        logits_at = 0;
    }
    if !pending.is_empty() {
        let _ = job.tx.send(WorkerMsg::Text(
            String::from_utf8_lossy(&pending).into_owned(),
        ));
    }
    Ok(produced)
}

#[cfg(test)]
mod tests {
    use super::{Placement, placement};

    #[test]
    fn layers_go_to_the_gpu_as_asked_else_as_fit_else_nowhere() {
        // A CPU build (or no GPU found): the CPU, whatever the entry says.
        assert_eq!(placement(None, false), Placement::Layers(0));
        assert_eq!(placement(Some(12), false), Placement::Layers(0));
        // A GPU build: the entry's number wins (0 keeps it on the CPU) …
        assert_eq!(placement(Some(0), true), Placement::Layers(0));
        assert_eq!(placement(Some(12), true), Placement::Layers(12));
        // … else what fits.
        assert_eq!(placement(None, true), Placement::Fit);
    }
}
