//! A research job, stage by stage.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use baton_orchestrator::{Ask, MemberError};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::evidence::{self, Unfit};
use crate::report::{self, Claim, Dropped, DroppedWhy, FailedPage, Report, Source};
use crate::{
    CancellationToken, Hit, Limits, Member, Reader, ResearchError, ResearchEvent, Roles, Searcher,
    Stage, briefs, parse,
};

/// The most characters of a page the reader agent is given.
const PAGE_CHARS: usize = 24_000;

/// A research job: its agents, its searcher and reader, its limits.
pub struct Research {
    roles: Roles,
    searcher: Arc<dyn Searcher>,
    reader: Arc<dyn Reader>,
    limits: Limits,
    events: Option<mpsc::Sender<ResearchEvent>>,
}

/// A source read, with the claims that stand on it.
struct Read {
    /// Its place among the sources found (the order they are numbered in).
    order: usize,
    url: String,
    title: String,
    /// Claims and their passages, checked against the page.
    kept: Vec<(String, String)>,
}

/// Why a source gave nothing: the job was stopped, or the page (or the
/// reader agent on it) failed, which is told and noted.
enum Failure {
    Cancelled,
    Page,
}

/// One run of a job: what it has used and noted so far.
struct Job<'a> {
    research: &'a Research,
    question: &'a str,
    cancel: CancellationToken,
    started: Instant,
    tokens: AtomicU64,
    notes: Mutex<Vec<String>>,
    dropped: Mutex<Vec<Dropped>>,
    /// Pages that could not be read, and why.
    failed: Mutex<Vec<FailedPage>>,
}

impl Research {
    /// A job for `roles`, searching with `searcher`, reading with
    /// `reader`, within `limits`.
    pub fn new(
        roles: Roles,
        searcher: Arc<dyn Searcher>,
        reader: Arc<dyn Reader>,
        limits: Limits,
    ) -> Self {
        Self {
            roles,
            searcher,
            reader,
            limits,
            events: None,
        }
    }

    /// Tells each stage and source to `events` (the job waits while the
    /// reader of the events is behind).
    pub fn with_events(mut self, events: mpsc::Sender<ResearchEvent>) -> Self {
        self.events = Some(events);
        self
    }

    /// Researches `question`: a report whose every claim is quoted from
    /// its cited source, or why there is none. Stops promptly when
    /// `cancel` fires.
    pub async fn run(
        &self,
        question: &str,
        cancel: CancellationToken,
    ) -> Result<Report, ResearchError> {
        let question = question.trim();
        if question.is_empty() {
            return Err(ResearchError::NoQuestion);
        }
        let job = Job {
            research: self,
            question,
            cancel,
            started: Instant::now(),
            tokens: AtomicU64::new(0),
            notes: Mutex::new(Vec::new()),
            dropped: Mutex::new(Vec::new()),
            failed: Mutex::new(Vec::new()),
        };
        let span = tracing::info_span!("research", sources = self.limits.sources);
        job.run().instrument(span).await
    }

    async fn tell(&self, event: ResearchEvent) {
        if let Some(events) = &self.events {
            let _ = events.send(event).await;
        }
    }
}

impl Job<'_> {
    async fn run(&self) -> Result<Report, ResearchError> {
        let questions = self.plan().await?;
        let found = self.search(&questions).await?;
        let mut read = self.read_all(&questions, &found).await?;
        read.sort_by_key(|r| r.order);
        let pages_read = read.len();
        let (sources, claims) = numbered(read);
        let (claims, conflicts) = self.review(&sources, claims).await?;
        let (sources, claims, new_number) = renumbered(sources, claims);
        let conflicts = conflict_words(&conflicts, &new_number);
        let markdown = self
            .write(&sources, &claims, &conflicts, pages_read)
            .await?;
        Ok(Report {
            question: self.question.to_string(),
            questions,
            markdown,
            sources,
            claims,
            dropped: take(&self.dropped),
            conflicts,
            pages_read,
            pages_failed: take(&self.failed),
            tokens: self.tokens.load(Ordering::Relaxed),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            notes: take(&self.notes),
        })
    }

    fn note(&self, note: String) {
        tracing::info!(%note, "research note");
        lock(&self.notes).push(note);
    }

    /// Asks `member` (as `role`), counting its tokens.
    async fn ask(
        &self,
        role: &'static str,
        member: &Arc<dyn Member>,
        brief: String,
        message: String,
        json: bool,
    ) -> Result<String, ResearchError> {
        let ask = Ask {
            brief,
            message,
            internet_search: false,
            json,
        };
        let reply = tokio::select! {
            r = member.ask(ask, self.cancel.child_token()) => r,
            _ = self.cancel.cancelled() => return Err(ResearchError::Cancelled),
        };
        match reply {
            Ok(reply) => {
                self.tokens.fetch_add(reply.tokens, Ordering::Relaxed);
                Ok(reply.text)
            }
            Err(MemberError::Cancelled) => Err(ResearchError::Cancelled),
            Err(MemberError::Failed(why)) => Err(ResearchError::Agent { role, why }),
        }
    }

    /// The sub-questions; the question itself when the plan is unusable.
    async fn plan(&self) -> Result<Vec<String>, ResearchError> {
        let r = self.research;
        r.tell(ResearchEvent::Stage {
            stage: Stage::Planning,
        })
        .await;
        let brief = briefs::PLAN.replace("{max}", &r.limits.questions.max(1).to_string());
        let answer = self
            .ask(
                "planner",
                &r.roles.planner,
                brief,
                self.question.into(),
                true,
            )
            .await?;
        let questions = parse::questions(&answer, r.limits.questions).unwrap_or_else(|why| {
            self.note(format!(
                "The plan could not be used ({why}); the question itself was searched."
            ));
            vec![self.question.to_string()]
        });
        r.tell(ResearchEvent::Planned {
            questions: questions.clone(),
        })
        .await;
        Ok(questions)
    }

    /// Searches every sub-question at once; the sources to read, taken in
    /// turn from each question's results, each address once.
    async fn search(&self, questions: &[String]) -> Result<Vec<Hit>, ResearchError> {
        let r = self.research;
        r.tell(ResearchEvent::Stage {
            stage: Stage::Searching,
        })
        .await;
        let searches = questions
            .iter()
            .map(|q| r.searcher.search(q, r.limits.sources.max(1)));
        let answers = tokio::select! {
            a = futures::future::join_all(searches) => a,
            _ = self.cancel.cancelled() => return Err(ResearchError::Cancelled),
        };
        let mut lists = Vec::new();
        let mut first_failure = None;
        for (q, answer) in questions.iter().zip(answers) {
            let (found, failed) = match answer {
                Ok(hits) => {
                    let n = hits.len();
                    lists.push(hits);
                    (n, None)
                }
                Err(why) => {
                    first_failure.get_or_insert_with(|| why.clone());
                    (0, Some(why))
                }
            };
            r.tell(ResearchEvent::Searched {
                query: q.clone(),
                found,
                failed,
            })
            .await;
        }
        if lists.is_empty() {
            return Err(ResearchError::Search(first_failure.unwrap_or_default()));
        }
        let chosen = in_turn(lists, r.limits.sources.max(1));
        if chosen.is_empty() {
            return Err(ResearchError::NothingFound);
        }
        Ok(chosen)
    }

    /// Reads the sources, `parallel` at a time, until all are read or a
    /// limit is reached (sources being read when time is up are left).
    async fn read_all(
        &self,
        questions: &[String],
        found: &[Hit],
    ) -> Result<Vec<Read>, ResearchError> {
        let r = self.research;
        r.tell(ResearchEvent::Stage {
            stage: Stage::Reading,
        })
        .await;
        let deadline = tokio::time::Instant::now() + r.limits.time();
        let mut waiting = found.iter().enumerate();
        let mut running = FuturesUnordered::new();
        let mut read = Vec::new();
        let mut stopped = None;
        loop {
            while stopped.is_none() && running.len() < r.limits.parallel.max(1) {
                stopped = self.over_budget();
                match waiting.next() {
                    Some((order, hit)) if stopped.is_none() => {
                        running.push(self.read_one(order, hit, questions))
                    }
                    _ => break,
                }
            }
            tokio::select! {
                done = running.next() => match done {
                    Some(Ok(one)) => read.push(one),
                    Some(Err(Failure::Cancelled)) => return Err(ResearchError::Cancelled),
                    Some(Err(Failure::Page)) => {}
                    None => break,
                },
                _ = tokio::time::sleep_until(deadline) => {
                    stopped = Some(format!("the time limit ({} s) was reached", r.limits.seconds));
                    break;
                }
                _ = self.cancel.cancelled() => return Err(ResearchError::Cancelled),
            }
        }
        self.after_reading(found.len(), read, stopped).await
    }

    /// Why no more sources may be started, if a limit is reached.
    fn over_budget(&self) -> Option<String> {
        let limit = self.research.limits.tokens?;
        let used = self.tokens.load(Ordering::Relaxed);
        (used >= limit).then(|| format!("the token limit ({limit}) was reached ({used} used)"))
    }

    /// What reading gave: the sources read, or why none could be.
    async fn after_reading(
        &self,
        found: usize,
        read: Vec<Read>,
        stopped: Option<String>,
    ) -> Result<Vec<Read>, ResearchError> {
        let failed = lock(&self.failed).len();
        if let Some(why) = stopped {
            let left = found.saturating_sub(read.len() + failed);
            self.research
                .tell(ResearchEvent::Stopped { why: why.clone() })
                .await;
            self.note(format!(
                "Reading stopped: {why}; {left} of {found} sources were not read."
            ));
        }
        if read.is_empty() && failed > 0 {
            let FailedPage { url, why } = lock(&self.failed)[0].clone();
            return Err(ResearchError::NothingRead {
                count: failed,
                first: format!("{url}: {why}"),
            });
        }
        Ok(read)
    }

    /// Reads one source and keeps the claims whose passages are on it.
    async fn read_one(
        &self,
        order: usize,
        hit: &Hit,
        questions: &[String],
    ) -> Result<Read, Failure> {
        let r = self.research;
        let page = match r.reader.read(&hit.url).await {
            Ok(page) if !page.text.trim().is_empty() => page,
            Ok(_) => return Err(self.failed(&hit.url, "the page has no text".into()).await),
            Err(why) => return Err(self.failed(&hit.url, why).await),
        };
        let url = if page.url.is_empty() {
            hit.url.clone()
        } else {
            page.url.clone()
        };
        // A title is the page's own words too: one that speaks to an AI
        // is not shown to the other agents.
        let title = [page.title.trim(), hit.title.trim()]
            .into_iter()
            .find(|t| !t.is_empty() && !evidence::addresses_ai(t))
            .unwrap_or(url.as_str())
            .to_string();
        let message = source_message(self.question, questions, &url, &title, &page.text);
        let answer = self
            .ask(
                "reader",
                &r.roles.reader,
                briefs::READ.into(),
                message,
                true,
            )
            .await;
        let answer = match answer {
            Ok(a) => a,
            Err(ResearchError::Cancelled) => return Err(Failure::Cancelled),
            Err(e) => return Err(self.failed(&url, e.to_string()).await),
        };
        let raw = parse::claims(&answer).unwrap_or_else(|why| {
            self.note(format!("The claims of {url} could not be read ({why})."));
            Vec::new()
        });
        let (kept, dropped) = checked(raw, &page.text, &url);
        r.tell(ResearchEvent::SourceRead {
            url: url.clone(),
            title: title.clone(),
            kept: kept.len(),
            dropped: dropped.len(),
        })
        .await;
        lock(&self.dropped).extend(dropped);
        Ok(Read {
            order,
            url,
            title,
            kept,
        })
    }

    /// Tells that `url` could not be read, and why.
    async fn failed(&self, url: &str, why: String) -> Failure {
        self.research
            .tell(ResearchEvent::SourceFailed {
                url: url.to_string(),
                why: why.clone(),
            })
            .await;
        lock(&self.failed).push(FailedPage {
            url: url.to_string(),
            why,
        });
        Failure::Page
    }

    /// The reviewer's verdict: the claims it finds supported, and the
    /// conflicts it notes. A review that fails or cannot be read keeps
    /// the claims (each is already on its page) and says so.
    async fn review(
        &self,
        sources: &[Source],
        claims: Vec<Claim>,
    ) -> Result<(Vec<Claim>, Vec<Conflict>), ResearchError> {
        let r = self.research;
        if claims.is_empty() {
            return Ok((claims, Vec::new()));
        }
        r.tell(ResearchEvent::Stage {
            stage: Stage::Reviewing,
        })
        .await;
        let message = claims_message(sources, &claims);
        let verdict = match self
            .ask(
                "reviewer",
                &r.roles.reviewer,
                briefs::REVIEW.into(),
                message,
                true,
            )
            .await
        {
            Ok(answer) => {
                tracing::debug!(%answer, "the reviewer answered");
                parse::review(&answer)
            }
            Err(ResearchError::Cancelled) => return Err(ResearchError::Cancelled),
            Err(e) => Err(e.to_string()),
        };
        let verdict = verdict.unwrap_or_else(|why| {
            self.note(format!(
                "The review could not be used ({why}); the claims were kept as checked against their pages."
            ));
            parse::Review::default()
        });
        let conflicts = conflicts(&verdict, &claims);
        let mut kept = Vec::with_capacity(claims.len());
        for (i, claim) in claims.into_iter().enumerate() {
            match verdict.unsupported.iter().find(|(n, _)| *n == i + 1) {
                Some((_, why)) => lock(&self.dropped).push(Dropped {
                    url: url_of(sources, claim.source),
                    claim: claim.text,
                    quote: claim.quote,
                    why: DroppedWhy::Unsupported(why.clone()),
                }),
                None => kept.push(claim),
            }
        }
        let dropped = lock(&self.dropped)
            .iter()
            .filter(|d| matches!(d.why, DroppedWhy::Unsupported(_)))
            .count();
        r.tell(ResearchEvent::Reviewed {
            kept: kept.len(),
            dropped,
        })
        .await;
        Ok((kept, conflicts))
    }

    /// The report's Markdown: the writer's, held to the sources; the
    /// claims as a list when the writer fails.
    async fn write(
        &self,
        sources: &[Source],
        claims: &[Claim],
        conflicts: &[String],
        pages_read: usize,
    ) -> Result<String, ResearchError> {
        let r = self.research;
        if claims.is_empty() {
            let body = if pages_read == 0 {
                "No page could be read within the limits, so there is nothing to report. Allow more time or tokens."
            } else {
                "No page that was read states an answer in a passage that could be checked, so there is nothing to report. Try other words, or allow more sources."
            };
            return Ok(report::markdown(self.question, body, &[], &[]));
        }
        r.tell(ResearchEvent::Stage {
            stage: Stage::Writing,
        })
        .await;
        let message = format!(
            "Research question: {}\n\n{}{}",
            self.question,
            claims_by_source(sources, claims),
            conflicts_message(conflicts)
        );
        let body = match self
            .ask(
                "writer",
                &r.roles.writer,
                briefs::WRITE.into(),
                message,
                false,
            )
            .await
        {
            Ok(body) if !body.trim().is_empty() => report::hold_to_sources(&body, sources),
            Err(ResearchError::Cancelled) => return Err(ResearchError::Cancelled),
            other => {
                let why = other
                    .err()
                    .map_or("it answered nothing".into(), |e| e.to_string());
                self.note(format!(
                    "The report could not be written ({why}); the findings are listed."
                ));
                report::plain_findings(claims)
            }
        };
        Ok(report::markdown(self.question, &body, sources, claims))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn take<T>(m: &Mutex<Vec<T>>) -> Vec<T> {
    std::mem::take(&mut *lock(m))
}

/// Up to `max` results taken in turn from each list (the first of each,
/// then the second…), each address once, web addresses only.
fn in_turn(lists: Vec<Vec<Hit>>, max: usize) -> Vec<Hit> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for hit in lists.iter().filter_map(|l| l.get(i)) {
            let web = hit.url.starts_with("https://") || hit.url.starts_with("http://");
            if out.len() < max && web && seen.insert(same_page(&hit.url)) {
                out.push(hit.clone());
            }
        }
    }
    out
}

/// An address as pages are told apart: without its `#fragment` and a
/// trailing `/`.
fn same_page(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    url.trim_end_matches('/').to_ascii_lowercase()
}

/// What the reader agent is given for one source: the question, the
/// sub-questions, and the page fenced as data.
fn source_message(
    question: &str,
    questions: &[String],
    url: &str,
    title: &str,
    text: &str,
) -> String {
    let list: Vec<String> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{}. {q}", i + 1))
        .collect();
    let text = baton_stdx::excerpt(text, PAGE_CHARS);
    format!(
        "Research question: {question}\nSub-questions:\n{}\n\n<source url=\"{}\" title=\"{}\">\n{}\n</source>",
        list.join("\n"),
        baton_stdx::escape_attribute(url),
        baton_stdx::escape_attribute(title),
        baton_stdx::fence_body(&text, "source"),
    )
}

/// The claims whose passages are fit evidence on `page`, and the others
/// with why.
fn checked(
    raw: Vec<parse::RawClaim>,
    page: &str,
    url: &str,
) -> (Vec<(String, String)>, Vec<Dropped>) {
    let normalized = evidence::normalize(page);
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for c in raw {
        let claim = c.claim.trim().to_string();
        let quote = c.quote.trim().to_string();
        let fit = match evidence::check(&quote, &normalized) {
            Ok(()) if evidence::addresses_ai(&claim) => Err(Unfit::Instruction),
            fit => fit,
        };
        match fit {
            Ok(()) => kept.push((claim, quote)),
            Err(unfit) => dropped.push(Dropped {
                claim,
                quote,
                url: url.to_string(),
                why: match unfit {
                    Unfit::NoPassage => DroppedWhy::NoPassage,
                    Unfit::NotOnPage => DroppedWhy::NotOnPage,
                    Unfit::Instruction => DroppedWhy::Instruction,
                },
            }),
        }
    }
    (kept, dropped)
}

/// The sources read, numbered in the order they were found, and their
/// claims.
fn numbered(read: Vec<Read>) -> (Vec<Source>, Vec<Claim>) {
    let mut sources: Vec<Source> = Vec::with_capacity(read.len());
    let mut claims = Vec::new();
    for r in read {
        // Two results that led to one page (a redirect) are one source.
        if sources.iter().any(|s| s.url == r.url) {
            continue;
        }
        let n = sources.len() + 1;
        claims.extend(r.kept.into_iter().map(|(text, quote)| Claim {
            text,
            quote,
            source: n,
        }));
        sources.push(Source {
            n,
            url: r.url,
            title: r.title,
        });
    }
    (sources, claims)
}

/// Only the sources some kept claim stands on, numbered again from 1;
/// and each old number's new one.
fn renumbered(
    sources: Vec<Source>,
    mut claims: Vec<Claim>,
) -> (Vec<Source>, Vec<Claim>, Vec<(usize, usize)>) {
    let mut kept = Vec::new();
    let mut new_number = Vec::new();
    for s in sources {
        if claims.iter().any(|c| c.source == s.n) {
            let n = kept.len() + 1;
            new_number.push((s.n, n));
            kept.push(Source { n, ..s });
        }
    }
    for c in &mut claims {
        if let Some((_, n)) = new_number.iter().find(|(old, _)| *old == c.source) {
            c.source = *n;
        }
    }
    (kept, claims, new_number)
}

fn url_of(sources: &[Source], n: usize) -> String {
    sources
        .iter()
        .find(|s| s.n == n)
        .map(|s| s.url.clone())
        .unwrap_or_default()
}

/// The claims numbered for the reviewer, each with its source and quote.
fn claims_message(sources: &[Source], claims: &[Claim]) -> String {
    let mut out = String::new();
    for (i, c) in claims.iter().enumerate() {
        let title = sources
            .iter()
            .find(|s| s.n == c.source)
            .map_or("", |s| s.title.as_str());
        out.push_str(&format!(
            "\n{}. {}\n   Source [{}] {}\n   Quote: \"{}\"\n",
            i + 1,
            c.text,
            c.source,
            title,
            c.quote
        ));
    }
    fenced_claims(&out)
}

/// Claims (the words of web pages and of the agent that read them) as
/// data between `<claims>` and `</claims>`, which they cannot close.
fn fenced_claims(text: &str) -> String {
    format!(
        "<claims>\n{}\n</claims>",
        baton_stdx::fence_body(text.trim(), "claims")
    )
}

/// Sources that disagree (by number), and the reviewer's note.
type Conflict = (Vec<usize>, String);

/// The reviewer's conflicts between claims, as conflicts between their
/// sources.
fn conflicts(verdict: &parse::Review, claims: &[Claim]) -> Vec<Conflict> {
    verdict
        .conflicts
        .iter()
        .map(|(numbers, note)| {
            let mut cited: Vec<usize> = numbers
                .iter()
                .filter_map(|n| claims.get(n.checked_sub(1)?))
                .map(|c| c.source)
                .collect();
            cited.sort_unstable();
            cited.dedup();
            (cited, note.trim().to_string())
        })
        .collect()
}

/// The conflicts in words, naming the sources by their numbers in the
/// report (a source no longer cited is left out, and a conflict with it).
fn conflict_words(conflicts: &[Conflict], new_number: &[(usize, usize)]) -> Vec<String> {
    conflicts
        .iter()
        .filter_map(|(sources, note)| {
            let list: Vec<String> = sources
                .iter()
                .filter_map(|old| new_number.iter().find(|(o, _)| o == old))
                .map(|(_, n)| format!("[{n}]"))
                .collect();
            (list.len() >= 2).then(|| format!("Sources {} disagree: {note}", list.join(" and ")))
        })
        .collect()
}

/// The kept claims under their numbered sources, for the writer.
fn claims_by_source(sources: &[Source], claims: &[Claim]) -> String {
    let mut out = String::new();
    for s in sources {
        out.push_str(&format!("\n[{}] {}\n", s.n, s.title));
        for c in claims.iter().filter(|c| c.source == s.n) {
            out.push_str(&format!("- {} (quote: \"{}\")\n", c.text, c.quote));
        }
    }
    format!("Sources and their claims:\n{}", fenced_claims(&out))
}

fn conflicts_message(conflicts: &[String]) -> String {
    if conflicts.is_empty() {
        return String::new();
    }
    let list = format!("- {}", conflicts.join("\n- "));
    format!("\nWhere sources disagree:\n{}\n", fenced_claims(&list))
}
