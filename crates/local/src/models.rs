//! GGUF files in the models folder.

use std::path::{Path, PathBuf};

use llama_cpp_2::gguf::GgufContext;
use serde::Serialize;

/// A model file and what its header says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// File path.
    pub path: PathBuf,
    /// File size in bytes.
    pub size: u64,
    /// `general.architecture` (e.g. `llama`).
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `<architecture>.context_length`.
    pub context_length: Option<u64>,
    /// Whether the header could be read.
    pub valid: bool,
}

fn read_info(path: &Path) -> ModelInfo {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let Some(g) = GgufContext::from_file(path) else {
        return ModelInfo {
            path: path.to_path_buf(),
            size,
            architecture: None,
            name: None,
            context_length: None,
            valid: false,
        };
    };
    let text = |key: &str| {
        let i = g.find_key(key);
        (i >= 0).then(|| g.val_str(i).map(str::to_string)).flatten()
    };
    let architecture = text("general.architecture");
    let context_length = architecture.as_ref().and_then(|a| {
        let i = g.find_key(&format!("{a}.context_length"));
        (i >= 0).then(|| u64::from(g.val_u32(i)))
    });
    ModelInfo {
        path: path.to_path_buf(),
        size,
        name: text("general.name"),
        architecture,
        context_length,
        valid: true,
    }
}

/// Every `.gguf` file in `dir`, sorted by name.
pub fn list_models(dir: &Path) -> Vec<ModelInfo> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
        })
        .collect();
    files.sort();
    files.iter().map(|p| read_info(p)).collect()
}

/// An entry's `modelPath`: absolute, or relative to the models folder.
pub fn resolve_model_path(model_path: &str, models_dir: &Path) -> PathBuf {
    let p = Path::new(model_path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        models_dir.join(p)
    }
}
