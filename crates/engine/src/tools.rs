//! The tools service: what the toolboxes are made from and share — the
//! sandbox over the workspace, the search index, conversions, the
//! browser, the mailbox, MCP servers and plugins with their prompts — and
//! restoring a file a tool overwrote.

use std::path::PathBuf;
use std::sync::Arc;

use baton_convert::ConvertOptions;
use baton_docs::ConversionCache;
use baton_docs::FileTool;
use baton_index::WorkspaceIndex;
use baton_mcp::PromptInfo;
use baton_tools::{Catalog, Sandbox, Toolbox};

use crate::index::refresh_in_background;
use crate::{Engine, EngineError, RestoreFileError, RestoredFile, Toolkit};

/// How long an MCP tool may run.
const MCP_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// The toolboxes of an [`Engine`] and what they share (see
/// [`Engine::tools`]).
pub struct Tools<'a> {
    pub(crate) e: &'a Engine,
}

impl Tools<'_> {
    /// The parts the built-in toolboxes are made from, searching through
    /// `index`.
    pub fn kit(&self, index: Option<Arc<WorkspaceIndex>>) -> Result<Toolkit, EngineError> {
        Ok(Toolkit {
            sandbox: self.sandbox()?,
            cache: self.conversion_cache(),
            convert: self.convert_options(),
            index,
            diagnostics: self.e.settings.diagnostic_tools || crate::diagnostics_enabled(),
            browser: self.browser(),
            printer: self.printer(),
            mail: self.mail(),
            mcp: not_posing(self.mcp().started()),
            memory: self.e.settings.memory.then(|| self.e.memory_here()),
            schedule: Some(self.schedule_parts()),
            research: None,
        })
    }

    /// What the scheduled-tasks toolbox is made from: the tasks file and
    /// the engine's clock.
    fn schedule_parts(&self) -> crate::agents::ScheduleParts {
        crate::agents::ScheduleParts {
            store: self.e.task_store(),
            clock: self.e.utc_clock(),
        }
    }

    /// Every built-in toolbox on the workspace (created if it does not
    /// exist yet, so a fresh machine works), searching through
    /// [`refreshed_index`](Self::refreshed_index): what `baton tools`
    /// offers when no agent is named.
    pub fn workspace_catalog(&self) -> Result<Catalog, EngineError> {
        self.kit(self.refreshed_index())?.catalog()
    }

    /// The workspace's search index, brought up to date in the background
    /// (unless `skipIndexingOnStartup` is set); `None` when it cannot be
    /// opened (search is then off, with a warning in the log).
    pub fn refreshed_index(&self) -> Option<Arc<WorkspaceIndex>> {
        match self.open_index() {
            Ok(index) => {
                if !self.e.settings.skip_indexing_on_startup {
                    refresh_in_background(&index, false, Arc::new(|_| {}));
                }
                Some(index)
            }
            Err(e) => {
                tracing::warn!(error = %e, "document search is off");
                None
            }
        }
    }

    /// The sandbox over the workspace folder (Baton's own folders fenced
    /// off), creating the folder first.
    pub fn sandbox(&self) -> Result<Sandbox, EngineError> {
        let bad = |reason: String| EngineError::Workspace {
            path: self.e.workspace.clone(),
            reason,
        };
        if !self.e.workspace.exists() {
            std::fs::create_dir_all(&self.e.workspace).map_err(|e| bad(e.to_string()))?;
            tracing::info!(
                "created the workspace folder {}",
                self.e.workspace.display()
            );
        }
        // Baton's own folders stay out of reach should the workspace hold
        // them (a plugin added or a setting changed by a tool would run
        // code or change Baton's behaviour).
        let own = [
            self.e.paths.config_dir.clone(),
            self.e.paths.data_dir.clone(),
            self.plugins_dir(),
        ];
        Ok(Sandbox::new(&self.e.workspace)
            .map_err(|e| bad(e.to_string()))?
            .fencing(own))
    }

    /// The search index of the workspace, kept in the data folder (one per
    /// workspace folder).
    pub fn open_index(&self) -> Result<Arc<WorkspaceIndex>, EngineError> {
        crate::index::open_index(self.e)
    }

    /// Conversions cached by content hash in the data folder, shared by
    /// FileTool and attachments.
    pub fn conversion_cache(&self) -> Arc<ConversionCache> {
        Arc::clone(self.e.shared.conversions.get_or_init(|| {
            Arc::new(ConversionCache::on_disk(
                self.e.paths.data_dir.join("cache").join("conversions"),
            ))
        }))
    }

    /// What picks the passages of an attachment too long for the prompt
    /// that bear on the question (by words, and by meaning when the local
    /// embedding model is installed); shared, so a file is embedded once.
    pub fn passage_finder(&self) -> Arc<baton_index::PassageFinder> {
        Arc::clone(
            self.e
                .shared
                .passages
                .get_or_init(|| Arc::new(baton_index::PassageFinder::new(self.e.embedder()))),
        )
    }

    /// Conversion options with the OCR engine chosen for this machine
    /// (made once, then shared).
    pub fn convert_options(&self) -> ConvertOptions {
        self.e
            .shared
            .convert
            .get_or_init(|| {
                let mut options = ConvertOptions::default();
                if let Some(engine) = crate::build::vision_ocr(self.e) {
                    options.ocr = Some(engine);
                }
                options
            })
            .clone()
    }

    /// The browser the browser toolboxes share: nothing starts until a
    /// tool needs it; Baton's own profile lives in the data folder.
    pub fn browser(&self) -> Arc<baton_web::BrowserHub> {
        Arc::clone(self.e.shared.browser.get_or_init(|| {
            Arc::new(
                baton_web::BrowserHub::new(
                    self.e.settings.browser.clone(),
                    self.e.paths.data_dir.join("browser-profile"),
                )
                // Outside the workspace: a page must not add to what search
                // reads as the user's documents (save_download moves one in).
                .with_downloads(self.e.paths.data_dir.join("downloads")),
            )
        }))
    }

    /// The printer documents use: a headless browser of Baton's own (the
    /// `browser.path` program when set), started on first use.
    pub fn printer(&self) -> Arc<baton_publish::Printer> {
        let hub = self.e.shared.printer.get_or_init(|| {
            let settings = baton_config::BrowserSettings {
                mode: Some(baton_config::BrowserMode::Headless),
                path: self.e.settings.browser.path.clone(),
                ..Default::default()
            };
            Arc::new(baton_web::BrowserHub::new(
                settings,
                self.e.paths.data_dir.join("printer-profile"),
            ))
        });
        Arc::new(baton_publish::Printer::new(Arc::clone(hub)))
    }

    /// The user's mail account (the `imap`, `smtp` and `email` settings,
    /// passwords from the keychain when a connection is made).
    pub fn mail(&self) -> Arc<baton_mail::MailClient> {
        Arc::clone(self.e.shared.mail.get_or_init(|| {
            Arc::new(baton_mail::MailClient::new(
                baton_mail::MailAccount::from_settings(&self.e.settings, &self.e.secrets),
            ))
        }))
    }

    /// The MCP servers of `mcp.json` in the config folder and the plugins
    /// of the plugins folder (what cannot be used is left out, with a
    /// warning in the log and in [`baton_mcp::McpHub::problems`]). Inside a
    /// Tokio runtime both are watched, and read again once they have been
    /// quiet for the `pluginsReloadSecs` setting after a change.
    pub fn mcp(&self) -> Arc<baton_mcp::McpHub> {
        Arc::clone(self.e.shared.mcp.get_or_init(|| {
            let secrets = self.e.secrets.clone();
            let lookup: baton_mcp::config::SecretLookup =
                Arc::new(move |name: &str| match secrets.api_key(name, None) {
                    Ok(key) => Ok(key.map(|k| k.value)),
                    Err(e) => Err(e.to_string()),
                });
            let hub = Arc::new(
                baton_mcp::McpHub::open(
                    self.e.paths.config_dir.clone(),
                    self.plugins_dir(),
                    MCP_CALL_TIMEOUT,
                )
                .with_secrets(lookup),
            );
            for (source, why) in hub.problems() {
                tracing::warn!(%source, "MCP servers left out: {why}");
            }
            let quiet = std::time::Duration::from_secs(self.e.settings.plugins_reload_secs.max(1));
            if tokio::runtime::Handle::try_current().is_ok()
                && let Err(e) = hub.watch(quiet)
            {
                tracing::warn!("plugins are not watched: {e}");
            }
            hub
        }))
    }

    /// The plugins folder: the `pluginsDir` setting (relative to the data
    /// folder), else `Tools` in the data folder.
    pub fn plugins_dir(&self) -> PathBuf {
        match &self.e.settings.plugins_dir {
            Some(dir) => self.e.paths.data_dir.join(dir), // absolute stays as is
            None => self.e.paths.data_dir.join("Tools"),
        }
    }

    /// Starts the MCP servers not running yet, so that toolkits made next
    /// offer their tools (quick once they run).
    pub async fn start_mcp(&self) {
        self.mcp().start().await;
    }

    /// The prompts the MCP servers and plugins offer.
    pub async fn prompts(&self) -> Vec<PromptInfo> {
        self.mcp().prompts().await
    }

    /// What `/prompts` shows: each prompt with its arguments.
    pub async fn prompts_listing(&self) -> String {
        crate::prompts::listing(&self.prompts().await)
    }

    /// The text `/prompt NAME [ARG=VALUE…]` sends: the prompt of the
    /// server that has it (`SERVER:NAME` picks one), its arguments filled
    /// in; `Err` says what is wrong in words.
    pub async fn expand_prompt(&self, command: &str) -> Result<String, String> {
        crate::prompts::expand(self, command).await
    }

    /// Restores workspace file `path` from a backup (`name.ext.NNN.bak`
    /// beside it): `backup` (a workspace path, or just the backup's file
    /// name), or the most recent one. The current version is backed up
    /// first unless a backup already holds it, so nothing is lost.
    pub fn restore_file(
        &self,
        path: &str,
        backup: Option<&str>,
    ) -> Result<RestoredFile, RestoreFileError> {
        crate::restore::restore_in(&self.sandbox()?, path, backup)
    }
}

/// The names of Baton's built-in toolboxes, which no MCP server or plugin
/// may take (a card must never say `MailTool` for a server's tool).
const BUILTIN_TOOLBOXES: [&str; 9] = [
    <FileTool as baton_tools::ToolboxDoc>::NAME,
    <baton_sheet::SpreadsheetTool as baton_tools::ToolboxDoc>::NAME,
    <baton_web::WebTool as baton_tools::ToolboxDoc>::NAME,
    <baton_publish::DocumentTool as baton_tools::ToolboxDoc>::NAME,
    <baton_mail::MailTool as baton_tools::ToolboxDoc>::NAME,
    <baton_memory::MemoryTool as baton_tools::ToolboxDoc>::NAME,
    <baton_schedule::ScheduleTool as baton_tools::ToolboxDoc>::NAME,
    <crate::research::ResearchTool as baton_tools::ToolboxDoc>::NAME,
    <crate::Diagnostics as baton_tools::ToolboxDoc>::NAME,
];

/// `servers` without any that takes a built-in toolbox's name (in any
/// casing), each left out with a warning.
fn not_posing(servers: Vec<Arc<dyn Toolbox>>) -> Vec<Arc<dyn Toolbox>> {
    servers
        .into_iter()
        .filter(|t| {
            let name = &t.spec().name;
            let posing = BUILTIN_TOOLBOXES
                .iter()
                .any(|b| baton_tools::normalize(b) == baton_tools::normalize(name));
            if posing {
                tracing::warn!(
                    server = %name,
                    "an MCP server or plugin is left out: it may not take the name of one of Baton's built-in toolboxes; rename it in mcp.json or its plugin folder"
                );
            }
            !posing
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toolbox that is only a name.
    struct Named(baton_tools::ToolboxSpec);

    impl Toolbox for Named {
        fn spec(&self) -> &baton_tools::ToolboxSpec {
            &self.0
        }
        fn call<'a>(
            &'a self,
            _method: &'a str,
            _args: serde_json::Value,
            _ctx: baton_tools::ToolContext,
        ) -> futures::future::BoxFuture<'a, Result<serde_json::Value, baton_tools::ToolError>>
        {
            Box::pin(async { Ok(serde_json::Value::Null) })
        }
    }

    fn named(name: &str) -> Arc<dyn Toolbox> {
        Arc::new(Named(baton_tools::ToolboxSpec {
            name: name.into(),
            summary: String::new(),
            methods: Vec::new(),
        }))
    }

    #[test]
    fn a_server_may_not_take_a_built_in_toolboxs_name() {
        let kept = not_posing(vec![
            named("mailtool"),
            named("Weather"),
            named("File_Tool"),
            named("WebTool"),
        ]);
        let names: Vec<String> = kept.iter().map(|t| t.spec().name.clone()).collect();
        assert_eq!(names, vec!["Weather"]);
    }
}
