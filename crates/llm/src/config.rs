//! `providers.json`: the provider entries, their validation and the way
//! files are layered (factory presets ← shipped/explicit file ← user
//! overrides by name).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::InteractionMode;

mod seed;

/// The factory presets, compiled in: used when no file is found or the
/// shipped file is corrupt.
pub const FACTORY_PROVIDERS_JSON: &str = include_str!("../../../providers.json");

/// Context windows below this use CLI mode unless an entry says otherwise.
pub const CLI_MODE_BELOW_TOKENS: u32 = 128_000;

/// `api-version` used for an Azure OpenAI resource or deployment endpoint
/// when the entry sets no `apiVersion`.
pub const AZURE_OPENAI_API_VERSION: &str = "2024-10-21";

/// `api-version` used for an Azure AI Foundry models endpoint (`…/models`)
/// when the entry sets no `apiVersion`.
pub const AZURE_FOUNDRY_API_VERSION: &str = "2024-05-01-preview";

/// What an `azure` entry's endpoint looks like (appended to errors).
pub(crate) const AZURE_ENDPOINT_HINT: &str = ": the resource endpoint (https://NAME.openai.azure.com) \
     or the Azure AI Foundry models endpoint (https://NAME.services.ai.azure.com/models)";

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
    /// Azure OpenAI deployments and Azure AI Foundry models endpoints:
    /// OpenAI chat completions with an `api-key` header and an
    /// `api-version` query.
    Azure,
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
            Dialect::Azure => "azure",
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
    /// `azure`: the `api-version` query (default [`AZURE_OPENAI_API_VERSION`],
    /// or [`AZURE_FOUNDRY_API_VERSION`] for a `…/models` endpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
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
    /// `local`: layers offloaded to a GPU (0: the CPU only). Unset: in a
    /// build with a GPU backend (`make build GPU=cuda|vulkan|metal`), as
    /// many as fit the GPU's free memory; else the CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_layers: Option<u32>,
    /// `local`: sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    /// The model reads images: Baton may use it to OCR images and scanned
    /// pages (the `ocrProvider` setting picks one; else the first ready
    /// entry marked so; else the local Tesseract engine), and pictures in
    /// tool results (browser screenshots) are shown to it.
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

    /// Whether calls need an API key: the entry declares `apiKeyEnv`, or
    /// speaks `azure` (Azure always wants an `api-key`).
    pub fn needs_key(&self) -> bool {
        self.api_key_env.is_some() || self.dialect == Dialect::Azure
    }

    /// The endpoint without a trailing slash.
    pub fn base_url(&self) -> &str {
        self.endpoint.as_deref().unwrap_or("").trim_end_matches('/')
    }

    /// The endpoint as shown in messages and logs: without a user name and
    /// password it may carry.
    pub fn shown_url(&self) -> String {
        baton_stdx::without_userinfo(self.base_url())
    }

    fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("field `name` must not be empty".into());
        }
        if self.dialect != Dialect::Local {
            match self.endpoint.as_deref() {
                None | Some("") => {
                    return Err(format!(
                        "field `endpoint` is required for the `{}` dialect{}",
                        self.dialect.as_str(),
                        if self.dialect == Dialect::Azure {
                            AZURE_ENDPOINT_HINT
                        } else {
                            ""
                        }
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
    /// The default was chosen: a providers file given explicitly, or a
    /// `default` in the user's overrides.
    pub default_chosen: bool,
}

impl ProvidersFile {
    /// The compiled-in presets.
    pub fn factory() -> Self {
        Self::parse(FACTORY_PROVIDERS_JSON, "built-in presets", true)
            .expect("factory providers.json is valid (checked by a test)")
    }

    /// Parses and validates one file's text. `require_default` is false for
    /// override files, which may omit `default`. Notices about the original
    /// system's key names are logged; [`ProvidersFile::parse_with_notices`]
    /// returns them.
    pub fn parse(text: &str, origin: &str, require_default: bool) -> Result<Self, ProvidersError> {
        let (file, notices) = Self::parse_with_notices(text, origin, require_default)?;
        for n in &notices {
            tracing::debug!("{n}");
        }
        Ok(file)
    }

    /// Like [`ProvidersFile::parse`], also returning one notice per key of
    /// the original system read as Baton's (`ModelName` → `model`, …) or
    /// ignored (`ApiKey`), each naming the file and the entry.
    pub fn parse_with_notices(
        text: &str,
        origin: &str,
        require_default: bool,
    ) -> Result<(Self, Vec<String>), ProvidersError> {
        let invalid = |problem: String| ProvidersError::Invalid {
            origin: origin.to_string(),
            problem,
        };
        let (default, entries) = split_top(text, require_default).map_err(invalid)?;
        let mut notices = Vec::new();
        let mut providers: Vec<ProviderConfig> = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let label = match entry.get("name").and_then(Value::as_str) {
                Some(n) => format!("entry `{n}`"),
                None => format!("entry #{}", i + 1),
            };
            let mut entry_notices = Vec::new();
            let cfg = parse_entry(&label, entry, &mut entry_notices).map_err(invalid)?;
            notices.extend(entry_notices.into_iter().map(|n| format!("{origin}: {n}")));
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
        Ok((file, notices))
    }

    fn read(path: &Path, require_default: bool) -> Result<(Self, Vec<String>), ProvidersError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProvidersError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse_with_notices(&text, &path.display().to_string(), require_default)
    }

    /// Loads and layers the files named in `opts`.
    pub fn load(opts: &LoadOptions) -> Result<LoadedProviders, ProvidersError> {
        let mut warnings = Vec::new();
        let mut default_chosen = opts.explicit.is_some();
        let mut file = if let Some(path) = &opts.explicit {
            let (f, notices) = Self::read(path, true)?;
            warnings.extend(notices);
            f
        } else if let Some(path) = opts.shipped.as_ref().filter(|p| p.exists()) {
            match Self::read(path, true) {
                Ok((f, notices)) => {
                    warnings.extend(notices);
                    f
                }
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
                Ok((user, notices)) => {
                    warnings.extend(notices);
                    default_chosen |= !user.default.trim().is_empty();
                    file.overlay(user);
                }
                Err(e) => warnings.push(format!("{e}; your provider overrides are ignored")),
            }
        }
        for w in &warnings {
            tracing::warn!("{w}");
        }
        Ok(LoadedProviders {
            file,
            warnings,
            default_chosen,
        })
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

/// The top-level object's `default` and `providers`.
fn split_top(text: &str, require_default: bool) -> Result<(String, Vec<Value>), String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(mut top) = doc else {
        return Err("expected an object {\"default\": …, \"providers\": […]}".into());
    };
    if let Some(k) = top.keys().find(|k| *k != "default" && *k != "providers") {
        return Err(format!(
            "unknown top-level field `{k}` (expected `default` and `providers`)"
        ));
    }
    let default = match top.remove("default") {
        Some(Value::String(s)) => s,
        None if !require_default => String::new(),
        None => return Err("missing field `default`".into()),
        Some(other) => {
            return Err(format!(
                "field `default` must be a provider name (a string), got {other}"
            ));
        }
    };
    match top.remove("providers") {
        Some(Value::Array(a)) => Ok((default, a)),
        None => Err("missing field `providers`".into()),
        Some(_) => Err("field `providers` must be an array".into()),
    }
}

/// One entry: the original system's keys read as Baton's (notices pushed
/// onto `notices`), then deserialized and checked. Errors name `label`.
fn parse_entry(
    label: &str,
    mut entry: Value,
    notices: &mut Vec<String>,
) -> Result<ProviderConfig, String> {
    seed::normalize_entry(label, &mut entry, notices)?;
    let cfg: ProviderConfig = serde_path_to_error::deserialize(entry).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || path.is_empty() {
            format!("{label}: {inner}")
        } else {
            format!("{label}, field `{path}`: {inner}")
        }
    })?;
    cfg.check().map_err(|p| format!("{label}: {p}"))?;
    Ok(cfg)
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

    #[test]
    fn seed_keys_are_read_with_notices_in_the_load_warnings() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("providers.json");
        std::fs::write(
            &user,
            r#"{"providers":[{"name":"x","Type":"ollama","endpoint":"http://h","ModelName":"m",
                "AgentInteractionMode":"CLI","CacheType":"noCacheSupported","cacheType":"PrefixCache",
                "ApiKey":"sk-never-read"}]}"#,
        )
        .unwrap();
        let loaded = ProvidersFile::load(&LoadOptions {
            user: Some(user.clone()),
            ..Default::default()
        })
        .unwrap();
        let x = loaded.file.require("x").unwrap();
        assert_eq!(x.dialect, Dialect::Ollama);
        assert_eq!(x.model.as_deref(), Some("m"));
        assert_eq!(x.interaction_mode, Some(InteractionMode::Cli));
        assert_eq!(x.cache_type, CacheType::PrefixCache, "Baton's key wins");
        let w = &loaded.warnings;
        assert_eq!(w.len(), 5, "{w:?}");
        let origin = user.display().to_string();
        assert!(
            w.iter()
                .all(|n| n.starts_with(&format!("{origin}: entry `x`: "))),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|n| n.contains("`CacheType`") && n.contains("`cacheType` wins")),
            "{w:?}"
        );
        assert!(
            w.iter().any(|n| n.contains("`ApiKey`")
                && n.contains("keychain")
                && n.contains("apiKeyEnv")),
            "{w:?}"
        );
        assert!(!w.iter().any(|n| n.contains("sk-never-read")), "{w:?}");
    }

    #[test]
    fn seed_type_none_is_an_error_naming_the_entry() {
        let e = one(r#"{"name":"x","Type":"None","endpoint":"http://h","model":"m"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("entry `x`") && e.contains("`Type`") && e.contains("names no provider"),
            "{e}"
        );
        let e = one(
            r#"{"name":"x","dialect":"openai","endpoint":"http://h","model":"m","Modelname":"y"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("entry `x`") && e.contains("Modelname"), "{e}");
    }

    #[test]
    fn azure_entry_round_trips_with_api_version() {
        let f = one(r#"{"name":"x","dialect":"azure","endpoint":"https://r.openai.azure.com","model":"d","apiVersion":"2024-06-01"}"#)
            .unwrap();
        let x = f.require("x").unwrap();
        assert_eq!(x.dialect, Dialect::Azure);
        assert_eq!(x.api_version.as_deref(), Some("2024-06-01"));
        assert!(x.needs_key());
        let v = serde_json::to_value(x).unwrap();
        assert_eq!(v["dialect"], "azure");
        assert_eq!(v["apiVersion"], "2024-06-01");
    }
}
