//! Deep research ([`Engine::research`]): a `baton_research` job with the
//! engine's agents (asked without tools: pages are data), the user's
//! search (the browser's search page or a search API, the `research`
//! settings) and the browser as reader, each page in a tab of its own.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Weak};

use baton_config::{ResearchSearch, SecretName};
use baton_publish::{DocFormat, DocumentTool};
use baton_research::{
    Hit, Limits, Member, Page, Reader, Report, Research, ResearchError, ResearchEvent, Roles,
    SearchApi, SearchService, Searcher,
};
use baton_tools::{Sandbox, ToolContext, Toolbox, toolbox};
use baton_web::{BrowserHub, WebTool};
use futures::future::BoxFuture;
use regex::{Captures, Regex};
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::team::TeamMember;
use crate::{ConfirmMode, Engine, EngineError, Run};

/// Progress events a research job may hold unread before it waits.
const RESEARCH_EVENTS: usize = 256;
/// How long a source's page may take to load, in milliseconds.
const PAGE_LOAD_MS: u64 = 30_000;
/// The most characters of a page read.
const PAGE_CHARS: usize = 60_000;

/// What to research.
#[derive(Debug, Clone, Default)]
pub struct ResearchRequest {
    /// The question.
    pub question: String,
    /// How far to go (default: the `research` settings).
    pub limits: Option<Limits>,
    /// The agent that reads the sources (default: the default agent); the
    /// team's planner, reviewer and synthesizer plan, review and write
    /// when they are enabled, else this agent does.
    pub agent: Option<String>,
}

/// A research job at work: its stages and sources as they happen, then
/// the report.
pub type ResearchRun = Run<ResearchEvent, Result<Report, ResearchError>>;

/// Deep research with an [`Engine`]'s agents (see [`Engine::research`]).
pub struct Researching<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

impl Researching<'_> {
    /// The limits the `research` settings give.
    pub fn limits(&self) -> Limits {
        let s = &self.e.settings().research;
        Limits {
            sources: s.sources.clamp(1, 50),
            parallel: s.parallel.clamp(1, 8),
            seconds: s.minutes.clamp(1, 240) * 60,
            tokens: s.tokens,
            ..Limits::default()
        }
    }

    /// Starts researching `request`; the run's events are its stages and
    /// sources. Refused before it starts when the agent or the search is
    /// not set up (a search API without its key or address).
    pub fn start(&self, request: ResearchRequest) -> Result<ResearchRun, EngineError> {
        let roles = self.roles(request.agent.as_deref())?;
        let searcher = self.searcher()?;
        let pages = BrowserPages {
            hub: self.e.tools().browser(),
            sandbox: self.e.tools().sandbox()?,
        };
        let limits = request.limits.unwrap_or_else(|| self.limits());
        let job = Research::new(roles, searcher, Arc::new(pages), limits);
        Ok(Run::spawn(RESEARCH_EVENTS, (), move |parts| async move {
            job.with_events(parts.events)
                .run(&request.question, parts.cancel)
                .await
        }))
    }

    /// Writes `report` to `path` as its extension says (`.md`, `.docx`,
    /// `.pdf` or `.html`; Markdown for any other), a file it replaces
    /// backed up first; the path written.
    pub async fn save(&self, report: &Report, path: &Path) -> Result<PathBuf, EngineError> {
        let failed = |why: String| EngineError::Research(format!("{}: {why}", path.display()));
        let path = std::path::absolute(path).map_err(|e| failed(e.to_string()))?;
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(failed("not a file name".into()));
        };
        std::fs::create_dir_all(folder).map_err(|e| failed(e.to_string()))?;
        let sandbox = Sandbox::new(folder).map_err(|e| failed(e.to_string()))?;
        let format = DocFormat::of_path(&name.to_string_lossy()).unwrap_or(DocFormat::Md);
        let documents = DocumentTool::new(sandbox, self.e.tools().printer());
        let ctx = ToolContext::new(CancellationToken::new());
        documents
            .create_document(
                format!("/{}", name.to_string_lossy()),
                report.markdown.clone(),
                Some(format),
                None,
                &ctx,
            )
            .await
            .map_err(|e| failed(e.to_string()))?;
        Ok(path)
    }

    /// Writes `report` into the workspace's `Research` folder, named after
    /// its question, as `extension` says (`docx`, `pdf`, `html` or `md`);
    /// a file of that name is backed up first. The path written.
    pub async fn save_in_workspace(
        &self,
        report: &Report,
        extension: &str,
    ) -> Result<PathBuf, EngineError> {
        let name = format!("{}.{extension}", file_stem(&report.question));
        let path = self.e.workspace().join("Research").join(name);
        self.save(report, &path).await
    }

    /// The job's agents: `agent` (else the default one) reads; the enabled
    /// planner, reviewer and synthesizer (the user's own before the
    /// shipped ones) plan, review and write, else `agent` does.
    fn roles(&self, agent: Option<&str>) -> Result<Roles, EngineError> {
        let reader = self.e.agents().def(agent)?;
        let member = |name: &str| -> Arc<dyn Member> {
            Arc::new(TeamMember::without_tools(
                Arc::clone(self.e),
                name.to_string(),
                ConfirmMode::Refuse("a research job does not act".into()),
            ))
        };
        // The team as a team run has it: a shipped role agent only where
        // none of the user's own fills its role.
        let team =
            crate::team::without_shadowed_roles(self.e.agents().loaded().enabled().collect());
        let role = |role: &str| {
            let found = team.iter().find(|d| {
                d.specialisations
                    .iter()
                    .any(|s| baton_orchestrator::team_role(s) == Some(role))
            });
            member(found.map_or(reader.name.as_str(), |d| d.name.as_str()))
        };
        Ok(Roles {
            planner: role("planning"),
            reader: member(&reader.name),
            reviewer: role("review"),
            writer: role("synthesis"),
        })
    }

    /// Where the job searches (the `research.search` setting).
    fn searcher(&self) -> Result<Arc<dyn Searcher>, EngineError> {
        let settings = &self.e.settings().research;
        let api = |service| -> Arc<dyn Searcher> { Arc::new(SearchApi::new(service)) };
        Ok(match settings.search {
            ResearchSearch::Browser => Arc::new(BrowserPages {
                hub: self.e.tools().browser(),
                sandbox: self.e.tools().sandbox()?,
            }),
            ResearchSearch::Searxng => {
                let url = settings
                    .searxng_url
                    .clone()
                    .filter(|u| !u.trim().is_empty());
                let url = url.ok_or_else(|| not_set_up("SearXNG needs its address: set research.searxngUrl, e.g. `baton config set research.searxngUrl http://localhost:8888`"))?;
                api(SearchService::Searxng { url })
            }
            ResearchSearch::Brave => api(SearchService::Brave {
                key: self.search_key("brave")?,
            }),
            ResearchSearch::Tavily => api(SearchService::Tavily {
                key: self.search_key("tavily")?,
            }),
        })
    }

    /// Whether search API `search` (Brave, Tavily) has its key, in its
    /// environment variable or the keychain; searches without keys are
    /// always ready.
    pub fn search_key_set(&self, search: ResearchSearch) -> bool {
        match key_name(search) {
            Some(name) => self.search_key(name).is_ok(),
            None => true,
        }
    }

    /// Stores the API key of search `search` (Brave, Tavily) in the
    /// keychain as `search:NAME`.
    pub fn set_search_key(&self, search: ResearchSearch, key: &str) -> Result<(), EngineError> {
        let name = key_name(search).ok_or_else(|| not_set_up("this search needs no key"))?;
        let key = key.trim();
        if key.is_empty() || key.chars().any(char::is_whitespace) {
            return Err(not_set_up(
                "the key is empty or has spaces; paste only the key itself",
            ));
        }
        self.e
            .secrets()
            .write(&SecretName::Named(format!("search:{name}")), key)
            .map_err(|e| not_set_up(&e.to_string()))
    }

    /// The key of search API `name`: `NAME_API_KEY`, else the keychain's
    /// `search:NAME`.
    fn search_key(&self, name: &str) -> Result<String, EngineError> {
        let var = baton_config::conventional_env(name);
        if let Some(key) = std::env::var(&var).ok().filter(|k| !k.trim().is_empty()) {
            return Ok(key.trim().to_string());
        }
        let entry = SecretName::Named(format!("search:{name}"));
        match self.e.secrets().read(&entry) {
            Ok(Some(key)) => Ok(key),
            Ok(None) | Err(_) => Err(not_set_up(&format!(
                "the {name} search needs its API key: set {var}, or store it with `baton secret set search:{name}`"
            ))),
        }
    }
}

/// The name of search `search`'s key (`brave`, `tavily`), if it has one.
fn key_name(search: ResearchSearch) -> Option<&'static str> {
    match search {
        ResearchSearch::Brave => Some("brave"),
        ResearchSearch::Tavily => Some("tavily"),
        ResearchSearch::Browser | ResearchSearch::Searxng => None,
    }
}

/// A file name for a report on `question`: its first words, in lower
/// case, joined by dashes.
fn file_stem(question: &str) -> String {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .map(str::to_lowercase)
        .collect();
    let stem: String = words.join("-").chars().take(60).collect();
    if stem.is_empty() {
        "report".into()
    } else {
        stem
    }
}

fn not_set_up(reason: &str) -> EngineError {
    EngineError::Research(reason.into())
}

/// The browser as a research job's reader and search: each page in a tab
/// of its own, closed when done (also when the job has stopped waiting).
struct BrowserPages {
    hub: Arc<BrowserHub>,
    sandbox: Sandbox,
}

impl BrowserPages {
    /// Runs `work` with a browser toolbox of its own tab, which is closed
    /// afterwards even when the caller stopped waiting.
    async fn in_tab<T, F, Fut>(&self, work: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: FnOnce(Arc<WebTool>, ToolContext) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, baton_web::WebError>> + Send + 'static,
    {
        let tool = Arc::new(WebTool::new(Arc::clone(&self.hub), self.sandbox.clone()));
        let cancel = CancellationToken::new();
        let ctx = ToolContext::new(cancel.clone());
        // A caller that stops waiting stops the page loading; the tab is
        // still closed by the task.
        let _stop_when_dropped = cancel.drop_guard();
        let task = tokio::spawn(async move {
            let result = work(Arc::clone(&tool), ctx).await;
            Toolbox::close(&*tool).await;
            result
        });
        match task.await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(e) => Err(format!("the browser stopped: {e}")),
        }
    }
}

impl Reader for BrowserPages {
    fn read<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Page, String>> {
        let url = url.to_string();
        Box::pin(self.in_tab(move |tool, ctx| async move {
            let opened = tool.navigate(url, PAGE_LOAD_MS, &ctx).await?;
            let content = tool.get_page_content(PAGE_CHARS).await?;
            Ok(Page {
                url: opened.url,
                title: content.title,
                text: without_markers(&content.markdown),
            })
        }))
    }
}

impl Searcher for BrowserPages {
    fn search<'a>(&'a self, query: &'a str, max: usize) -> BoxFuture<'a, Result<Vec<Hit>, String>> {
        let query = query.to_string();
        Box::pin(async move {
            let results = self
                .in_tab(move |tool, ctx| async move { tool.web_search(query, max, &ctx).await })
                .await?;
            Ok(results
                .into_iter()
                .map(|r| Hit {
                    title: r.title,
                    url: r.url,
                    snippet: r.snippet,
                })
                .collect())
        })
    }
}

/// The page's interactive-element markers (`<<<INTERACTIVE::link::{…}>>>`)
/// as the text they show: a research page is read, not acted on.
fn without_markers(markdown: &str) -> String {
    static MARKER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"<<<INTERACTIVE::\w*::(\{[^>]*\})>>>").expect("the marker pattern is valid")
    });
    MARKER
        .replace_all(markdown, |c: &Captures| {
            let fields: Value = serde_json::from_str(&c[1]).unwrap_or_default();
            fields["label"].as_str().unwrap_or_default().to_string()
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_named_after_its_question() {
        assert_eq!(
            file_stem("How long is the Velmar river?"),
            "how-long-is-the-velmar-river"
        );
        assert_eq!(file_stem("?!"), "report");
    }

    #[test]
    fn markers_read_as_the_text_they_show() {
        let md = r#"Rises in the <<<INTERACTIVE::link::{"id":"e3","label":"Ostra hills","href":"/o"}>>>. <<<INTERACTIVE::button::{"id":"e4"}>>>End"#;
        assert_eq!(without_markers(md), "Rises in the Ostra hills. End");
    }
}

/// Deep research from a chat: many web pages read, every claim quoted from its page, and a report with numbered citations and its sources.
#[toolbox]
pub struct ResearchTool {
    /// The engine whose agents, search and browser do the work (weak: a
    /// conversation's tools must not keep an old engine alive).
    engine: Weak<Engine>,
}

impl std::fmt::Debug for ResearchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResearchTool").finish_non_exhaustive()
    }
}

impl ResearchTool {
    /// The tool researching with `engine`.
    pub(crate) fn new(engine: Weak<Engine>) -> Self {
        Self { engine }
    }

    /// Where the job searches, in words for the card.
    fn search_words(engine: &Engine) -> String {
        match engine.settings().research.search {
            ResearchSearch::Browser => "the browser's search page".into(),
            ResearchSearch::Searxng => "your SearXNG".into(),
            ResearchSearch::Brave => "Brave Search".into(),
            ResearchSearch::Tavily => "Tavily".into(),
        }
    }
}

/// What a research job found, as the model reads it.
#[derive(Debug, Serialize)]
pub struct ResearchAnswer {
    /// The report in Markdown (citations `[n]`, the source list at its end).
    pub report: String,
    /// Pages read.
    pub pages_read: usize,
    /// Claims kept (each quoted from its page).
    pub claims_kept: usize,
    /// Claims left out (no such passage on the page, an instruction to an AI, or unsupported).
    pub claims_left_out: usize,
    /// What did not go as planned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[toolbox]
impl ResearchTool {
    /// A question made of the user's own words searches without a card,
    /// as `web_search` does; any other waits for the user's yes.
    async fn card_needed(&self, call: baton_tools::PendingCall<'_>) -> bool {
        let question = call.args.get("question").and_then(Value::as_str);
        !question.is_some_and(|q| baton_web::query_is_users(q, call.user_words))
    }

    /// The card says what is searched, where, and how far the job goes.
    async fn describe(&self, call: baton_tools::PendingCall<'_>) -> Option<String> {
        let engine = self.engine.upgrade()?;
        let question = call.args.get("question")?.as_str()?;
        let limits = engine.research().limits();
        let sources = call
            .args
            .get("sources")
            .and_then(Value::as_u64)
            .map_or(limits.sources, |n| (n as usize).clamp(1, limits.sources));
        Some(format!(
            "Research \"{question}\" on the web: search questions made from it go to {}, and up to {sources} pages of the results are opened in the browser and read.",
            Self::search_words(&engine)
        ))
    }

    /// Researches a question on the web: plans search questions, searches them, reads up to `sources` pages in the browser, keeps only claims quoted word for word from their pages, has them reviewed and writes a report with numbered citations and a source list. Takes minutes; use it for questions that need many sources.
    /// - question: the question, in the user's words
    /// - sources: the most pages to read (at most the user's setting)
    #[effect(external)]
    pub async fn deep_research(
        &self,
        question: String,
        sources: Option<usize>,
        ctx: &ToolContext,
    ) -> Result<ResearchAnswer, String> {
        let engine = self
            .engine
            .upgrade()
            .ok_or("Baton is restarting its engine; ask again")?;
        // The user's setting is the most a chat may read.
        let mut limits = engine.research().limits();
        if let Some(n) = sources {
            limits.sources = n.clamp(1, limits.sources);
        }
        let run = engine
            .research()
            .start(ResearchRequest {
                question,
                limits: Some(limits),
                agent: None,
            })
            .map_err(|e| e.to_string())?;
        let stop = run.stopper();
        let report = tokio::select! {
            r = run.finish() => r.ok_or("the research ended without a result")?,
            _ = ctx.cancel_token().cancelled() => {
                stop.cancel();
                return Err("stopped".into());
            }
        };
        let report = report.map_err(|e| e.to_string())?;
        // Each source is one of this turn's citations, so the chat's answer
        // can cite it and show its passages.
        let numbers: Vec<usize> = report
            .sources
            .iter()
            .map(|s| {
                let passages: Vec<&str> = report
                    .claims
                    .iter()
                    .filter(|c| c.source == s.n)
                    .map(|c| c.quote.as_str())
                    .collect();
                ctx.cite(baton_tools::Source {
                    path: s.url.clone(),
                    location: s.title.clone(),
                    passage: passages.join(" … "),
                    offset: 0,
                }) as usize
            })
            .collect();
        let markdown = baton_research::renumbered(&report.markdown, |n| {
            numbers.get(n.wrapping_sub(1)).copied().unwrap_or(n)
        });
        Ok(ResearchAnswer {
            report: markdown,
            pages_read: report.pages_read,
            claims_kept: report.claims.len(),
            claims_left_out: report.dropped.len(),
            notes: report.notes,
        })
    }
}
