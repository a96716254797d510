//! `providers.json`: the provider entries, their validation and the way
//! files are layered (factory presets ← shipped/explicit file ← user
//! overrides by name).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::InteractionMode;

/// The factory presets, compiled in: used when no file is found or the
/// shipped file is corrupt.
pub const FACTORY_PROVIDERS_JSON: &str = include_str!("../../../providers.json");

/// Context windows below this use CLI mode unless an entry says otherwise.
pub const CLI_MODE_BELOW_TOKENS: u32 = 128_000;

/// The wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// OpenAI chat completions (also DeepSeek, Z.ai, vLLM, LM Studio,
    /// llama.cpp server).
    Openai,
    /// Anthropic messages API.
    Anthropic,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// Google Gemini `generateContent`.
    Gemini,
    /// The embedded llama.cpp model.
    Local,
}

impl Dialect {
    /// The name used in `providers.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Openai => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Ollama => "ollama",
            Dialect::Gemini => "gemini",
            Dialect::Local => "local",
        }
    }
}

/// How the request is laid out for the provider's prompt cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CacheType {
    /// No caching: dynamic context goes at the start of the prompt.
    #[serde(rename = "noCacheSupported")]
    NoCacheSupported,
    /// Automatic prefix caching: the prefix stays byte-identical and dynamic
    /// context goes at the end of the last user message.
    #[default]
    #[serde(rename = "PrefixCache")]
    PrefixCache,
    /// Anthropic's explicit `cache_control` breakpoints.
    #[serde(rename = "AnthropicCache")]
    AnthropicCache,
}

/// One entry of `providers.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderConfig {
    /// Unique name (`deepseek`, `my-vllm`).
    pub name: String,
    /// Wire protocol.
    pub dialect: Dialect,
    /// Base URL as the provider documents it; the dialect appends its path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Model name sent to the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Environment variable holding the API key (also the keychain hint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Context window in tokens.
    #[serde(default = "default_context_window")]
    pub context_window: u32,
    /// Maximum tokens of one reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Prompt-cache layout.
    #[serde(default)]
    pub cache_type: CacheType,
    /// API or CLI tool mode; derived from the context window when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interaction_mode: Option<InteractionMode>,
    /// Whether the provider takes native tool definitions.
    #[serde(default = "yes")]
    pub native_tools: bool,
    /// Whether the model is offered Baton's tools at all (off for models
    /// too small to call them usefully: they then just chat).
    #[serde(default = "yes")]
    pub tools: bool,
    /// Whether the provider has a JSON output mode.
    #[serde(default)]
    pub json_mode: bool,
    /// Reasoning effort passed through (`low`, `medium`, `high`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// Extra HTTP headers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Seconds to wait for the first byte and between stream chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// `local`: the GGUF file (absolute or relative to the models folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    /// `local`: CPU threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// `local`: layers offloaded to a GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_layers: Option<u32>,
    /// `local`: sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    /// The model reads images: Baton may use it to OCR images and scanned
    /// pages (the `ocrProvider` setting picks one; else the first ready
    /// entry marked so; else the local Tesseract engine).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// The entry speaks through `POST {endpoint}/audio/speech` with this
    /// voice (its `model` is the speech model): usable as the voice
    /// engine (`voice.ttsEngine` = the entry's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voice: Option<String>,
}

fn default_context_window() -> u32 {
    8192
}
fn yes() -> bool {
    true
}

impl ProviderConfig {
    /// API or CLI: the entry's own choice, else CLI below 128k tokens.
    pub fn effective_interaction_mode(&self) -> InteractionMode {
        self.interaction_mode
            .unwrap_or(if self.context_window < CLI_MODE_BELOW_TOKENS {
                InteractionMode::Cli
            } else {
                InteractionMode::Api
            })
    }

    /// The model name, or the entry name when none is set.
    pub fn model_name(&self) -> &str {
        self.model.as_deref().unwrap_or(&self.name)
    }

    /// The endpoint without a trailing slash.
    pub fn base_url(&self) -> &str {
        self.endpoint.as_deref().unwrap_or("").trim_end_matches('/')
    }

    fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("field `name` must not be empty".into());
        }
        if self.dialect != Dialect::Local {
            match self.endpoint.as_deref() {
                None | Some("") => {
                    return Err(format!(
                        "field `endpoint` is required for the `{}` dialect",
                        self.dialect.as_str()
                    ));
                }
                Some(e) if !(e.starts_with("http://") || e.starts_with("https://")) => {
                    return Err(format!(
                        "field `endpoint` must start with http:// or https://, got `{e}`"
                    ));
                }
                _ => {}
            }
            if self.model.as_deref().is_none_or(str::is_empty) {
                return Err("field `model` is required".into());
            }
        } else if self.model_path.as_deref().is_none_or(str::is_empty) {
            return Err("field `modelPath` is required for the `local` dialect".into());
        }
        Ok(())
    }
}

/// The whole file: a default entry name and the entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvidersFile {
    /// Name of the entry used when nothing else is chosen.
    pub default: String,
    /// The entries, in file order.
    pub providers: Vec<ProviderConfig>,
}

/// A problem with a providers file, naming the file, entry and field.
#[derive(Debug, thiserror::Error)]
pub enum ProvidersError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's content is invalid.
    #[error("{origin}: {problem}")]
    Invalid {
        /// The file (or "built-in presets").
        origin: String,
        /// What is wrong, naming the entry and field.
        problem: String,
    },
    /// No entry has the requested name.
    #[error("no provider named `{name}`; known providers: {known}")]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// The names that exist.
        known: String,
    },
}

/// Where to look for providers files.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--providers FILE` / `BATON_PROVIDERS`: must exist and be valid.
    pub explicit: Option<PathBuf>,
    /// The file shipped next to the binary (missing or corrupt → factory
    /// presets with a warning).
    pub shipped: Option<PathBuf>,
    /// The user's overrides in the config folder (entries replace those of
    /// the same name; a corrupt file is ignored with a warning).
    pub user: Option<PathBuf>,
}

/// The merged providers and the warnings met on the way.
#[derive(Debug, Clone)]
pub struct LoadedProviders {
    /// The merged file.
    pub file: ProvidersFile,
    /// Plain-words warnings.
    pub warnings: Vec<String>,
}

impl ProvidersFile {
    /// The compiled-in presets.
    pub fn factory() -> Self {
        Self::parse(FACTORY_PROVIDERS_JSON, "built-in presets", true)
            .expect("factory providers.json is valid (checked by a test)")
    }

    /// Parses and validates one file's text. `require_default` is false for
    /// override files, which may omit `default`.
    pub fn parse(text: &str, origin: &str, require_default: bool) -> Result<Self, ProvidersError> {
        let invalid = |problem: String| ProvidersError::Invalid {
            origin: origin.to_string(),
            problem,
        };
        let doc: Value =
            serde_json::from_str(text).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
        let Value::Object(mut top) = doc else {
            return Err(invalid(
                "expected an object {\"default\": …, \"providers\": […]}".into(),
            ));
        };
        if let Some(k) = top.keys().find(|k| *k != "default" && *k != "providers") {
            return Err(invalid(format!(
                "unknown top-level field `{k}` (expected `default` and `providers`)"
            )));
        }
        let default = match top.remove("default") {
            Some(Value::String(s)) => s,
            None if !require_default => String::new(),
            None => return Err(invalid("missing field `default`".into())),
            Some(other) => {
                return Err(invalid(format!(
                    "field `default` must be a provider name (a string), got {other}"
                )));
            }
        };
        let entries = match top.remove("providers") {
            Some(Value::Array(a)) => a,
            None => return Err(invalid("missing field `providers`".into())),
            Some(_) => return Err(invalid("field `providers` must be an array".into())),
        };
        let mut providers: Vec<ProviderConfig> = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let label = match entry.get("name").and_then(Value::as_str) {
                Some(n) => format!("entry `{n}`"),
                None => format!("entry #{}", i + 1),
            };
            let cfg: ProviderConfig = serde_path_to_error::deserialize(entry).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                if path == "." || path.is_empty() {
                    invalid(format!("{label}: {inner}"))
                } else {
                    invalid(format!("{label}, field `{path}`: {inner}"))
                }
            })?;
            cfg.check().map_err(|p| invalid(format!("{label}: {p}")))?;
            if providers.iter().any(|p| p.name == cfg.name) {
                return Err(invalid(format!("{label}: the name is used twice")));
            }
            providers.push(cfg);
        }
        let file = Self { default, providers };
        if require_default && file.get(&file.default).is_none() {
            return Err(invalid(format!(
                "`default` names `{}`, which is not an entry",
                file.default
            )));
        }
        Ok(file)
    }

    fn read(path: &Path, require_default: bool) -> Result<Self, ProvidersError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProvidersError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string(), require_default)
    }

    /// Loads and layers the files named in `opts`.
    pub fn load(opts: &LoadOptions) -> Result<LoadedProviders, ProvidersError> {
        let mut warnings = Vec::new();
        let mut file = if let Some(path) = &opts.explicit {
            Self::read(path, true)?
        } else if let Some(path) = opts.shipped.as_ref().filter(|p| p.exists()) {
            match Self::read(path, true) {
                Ok(f) => f,
                Err(e) => {
                    warnings.push(format!("{e}; using the built-in provider presets"));
                    Self::factory()
                }
            }
        } else {
            Self::factory()
        };
        if let Some(path) = opts.user.as_ref().filter(|p| p.exists()) {
            match Self::read(path, false) {
                Ok(user) => file.overlay(user),
                Err(e) => warnings.push(format!("{e}; your provider overrides are ignored")),
            }
        }
        for w in &warnings {
            tracing::warn!("{w}");
        }
        Ok(LoadedProviders { file, warnings })
    }

    /// Applies overrides: entries replace those of the same name, new ones
    /// are appended; a non-empty `default` replaces the default.
    pub fn overlay(&mut self, user: ProvidersFile) {
        for entry in user.providers {
            match self.providers.iter_mut().find(|p| p.name == entry.name) {
                Some(slot) => *slot = entry,
                None => self.providers.push(entry),
            }
        }
        if !user.default.is_empty() {
            self.default = user.default;
        }
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&ProviderConfig> {
        self.providers
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The entry named `name`, or an error listing the known names.
    pub fn require(&self, name: &str) -> Result<&ProviderConfig, ProvidersError> {
        self.get(name)
            .ok_or_else(|| ProvidersError::UnknownProvider {
                name: name.to_string(),
                known: self
                    .providers
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factory_presets_are_valid_and_complete() {
        let f = ProvidersFile::factory();
        for name in [
            "local",
            "ollama",
            "deepseek",
            "zai",
            "gemini",
            "openai",
            "anthropic",
            "openai-compatible",
        ] {
            assert!(f.get(name).is_some(), "missing preset {name}");
        }
        assert_eq!(f.require("deepseek").unwrap().dialect, Dialect::Openai);
        assert_eq!(
            f.require("anthropic").unwrap().cache_type,
            CacheType::AnthropicCache
        );
    }

    #[test]
    fn interaction_mode_follows_context_window() {
        let f = ProvidersFile::factory();
        assert_eq!(
            f.require("ollama").unwrap().effective_interaction_mode(),
            InteractionMode::Cli
        );
        assert_eq!(
            f.require("deepseek").unwrap().effective_interaction_mode(),
            InteractionMode::Api
        );
    }

    fn one(entry: &str) -> Result<ProvidersFile, ProvidersError> {
        ProvidersFile::parse(
            &format!(r#"{{"default":"x","providers":[{entry}]}}"#),
            "test.json",
            true,
        )
    }

    #[test]
    fn unknown_field_is_named_with_the_entry() {
        let e =
            one(r#"{"name":"x","dialect":"openai","endpoint":"http://h","model":"m","modle":"y"}"#)
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("test.json") && e.contains("entry `x`") && e.contains("modle"),
            "{e}"
        );
    }

    #[test]
    fn wrong_type_names_entry_and_field() {
        let e = one(r#"{"name":"x","dialect":"openai","endpoint":"http://h","model":"m","contextWindow":"big"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("entry `x`") && e.contains("contextWindow"),
            "{e}"
        );
        let e = one(r#"{"name":"x","dialect":"klingon","endpoint":"http://h","model":"m"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("dialect") && e.contains("klingon"), "{e}");
    }

    #[test]
    fn missing_endpoint_and_bad_default_are_reported() {
        let e = one(r#"{"name":"x","dialect":"openai","model":"m"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("endpoint"), "{e}");
        let e = ProvidersFile::parse(r#"{"default":"nope","providers":[]}"#, "t", true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope"), "{e}");
    }

    #[test]
    fn layering_shipped_corrupt_then_user_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let shipped = dir.path().join("providers.json");
        std::fs::write(&shipped, "{ not json").unwrap();
        let user = dir.path().join("user.json");
        std::fs::write(
            &user,
            r#"{"providers":[{"name":"deepseek","dialect":"openai","endpoint":"http://127.0.0.1:9/v1","model":"mine"},
                             {"name":"vllm","dialect":"openai","endpoint":"http://127.0.0.1:8000/v1","model":"qwen"}]}"#,
        )
        .unwrap();
        let loaded = ProvidersFile::load(&LoadOptions {
            explicit: None,
            shipped: Some(shipped),
            user: Some(user),
        })
        .unwrap();
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].contains("not valid JSON"),
            "{:?}",
            loaded.warnings
        );
        let f = loaded.file;
        assert_eq!(
            f.require("deepseek").unwrap().model.as_deref(),
            Some("mine")
        );
        assert_eq!(f.require("vllm").unwrap().model.as_deref(), Some("qwen"));
        assert_eq!(f.default, "local");
    }

    #[test]
    fn explicit_file_errors_are_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.json");
        std::fs::write(&p, "[]").unwrap();
        let e = ProvidersFile::load(&LoadOptions {
            explicit: Some(p),
            ..Default::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("expected an object"), "{e}");
    }
}
