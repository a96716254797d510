//! One orchestration: plan, brief, work, review, revise, synthesize.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::events::{EventSink, OrchestrationEvent, Phase, Stage, StageKey};
use crate::member::{Ask, Member, MemberError};
use crate::plan::{planner_brief, read_plan, read_review, retry_message};
use crate::select::work_specialisations;
use crate::stages::{Selection, Stages};
use crate::state::SharedState;
use crate::{AgentResponse, Assignment, Options, OrchestrationResult, ReviewResult, StageTiming};

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    Budget,
    Failed(String),
}

/// Who does an assignment and who reviews it.
type Chosen = (Arc<dyn Member>, Option<Arc<dyn Member>>);

/// One assignment being worked on: which, by whom, with what brief.
struct Job<'j> {
    index: usize,
    assignment: &'j Assignment,
    author: &'j dyn Member,
    brief: &'j str,
}

/// What one assignment produced.
#[derive(Default)]
struct Work {
    response: Option<AgentResponse>,
    reviews: Vec<ReviewResult>,
    stop: Option<Stop>,
}

pub(crate) struct Run<'a> {
    id: String,
    request: String,
    options: &'a Options,
    stages: &'a Stages,
    events: EventSink,
    state: Arc<dyn SharedState>,
    /// The caller's token.
    caller: CancellationToken,
    /// Cancelled with the caller's, or when the budget runs out.
    cancel: CancellationToken,
    used: AtomicU64,
    over_budget: AtomicBool,
    notes: Mutex<Vec<String>>,
    /// When the run began.
    began: Instant,
    /// The stages under way, by [`OrchestrationEvent::key`], and when each
    /// started.
    started: Mutex<HashMap<StageKey, Instant>>,
    /// The stages ended, with how long each took.
    timings: Mutex<Vec<StageTiming>>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        id: String,
        request: String,
        (options, stages): (&'a Options, &'a Stages),
        events: EventSink,
        state: Arc<dyn SharedState>,
        caller: CancellationToken,
    ) -> Self {
        Self {
            id,
            request,
            options,
            stages,
            events,
            state,
            cancel: caller.child_token(),
            caller,
            used: AtomicU64::new(0),
            over_budget: AtomicBool::new(false),
            notes: Mutex::default(),
            began: Instant::now(),
            started: Mutex::default(),
            timings: Mutex::default(),
        }
    }

    /// Sends `event`, timing its stage: a start is remembered, a stop
    /// says how long since (in the event and the result's stages).
    fn emit(&self, mut event: OrchestrationEvent) {
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        match event.phase {
            Phase::Starting => {
                started.insert(event.key(), Instant::now());
            }
            Phase::Stopped => {
                let began = started.remove(&event.key());
                let ms = began.map_or(0, |t| t.elapsed().as_millis() as u64);
                event.elapsed_ms = Some(ms);
                if event.stage != Stage::Orchestration {
                    let (stage, agent, assignment, round) = event.key();
                    self.timings
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(StageTiming {
                            stage,
                            agent,
                            assignment,
                            round,
                            elapsed_ms: ms,
                        });
                }
            }
        }
        drop(started);
        self.events.emit(event);
    }

    fn event(&self, stage: Stage, phase: Phase) -> OrchestrationEvent {
        OrchestrationEvent::new(&self.id, stage, phase)
    }

    fn note(&self, note: String) {
        tracing::info!(session_id = %self.id, "{note}");
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(note);
    }

    /// Asks `member`, within the budget and the cancellation.
    async fn ask(
        &self,
        member: &dyn Member,
        brief: String,
        message: String,
    ) -> Result<String, Stop> {
        self.ask_as(member, brief, message, false).await
    }

    /// [`Run::ask`] for an answer that must be one JSON object.
    async fn ask_json(
        &self,
        member: &dyn Member,
        brief: String,
        message: String,
    ) -> Result<String, Stop> {
        self.ask_as(member, brief, message, true).await
    }

    /// Asks `member` (for one JSON object when `json`), within the budget
    /// and the cancellation.
    async fn ask_as(
        &self,
        member: &dyn Member,
        brief: String,
        message: String,
        json: bool,
    ) -> Result<String, Stop> {
        if self.cancel.is_cancelled() {
            return Err(self.why_cancelled());
        }
        if self
            .options
            .max_tokens
            .is_some_and(|max| self.used.load(Ordering::SeqCst) >= max)
        {
            self.over_budget();
            return Err(Stop::Budget);
        }
        let ask = Ask {
            brief,
            message,
            internet_search: self.options.enable_internet_search,
            json,
        };
        let reply = tokio::select! {
            r = member.ask(ask, self.cancel.child_token()) => r,
            _ = self.cancel.cancelled() => return Err(self.why_cancelled()),
        };
        match reply {
            Ok(r) => {
                let used = self.used.fetch_add(r.tokens, Ordering::SeqCst) + r.tokens;
                if self.options.max_tokens.is_some_and(|max| used > max) {
                    self.over_budget();
                }
                Ok(r.text)
            }
            Err(MemberError::Cancelled) => Err(self.why_cancelled()),
            Err(MemberError::Failed(e)) => {
                Err(Stop::Failed(format!("{} failed: {e}", member.name())))
            }
        }
    }

    fn over_budget(&self) {
        self.over_budget.store(true, Ordering::SeqCst);
        self.cancel.cancel();
    }

    fn why_cancelled(&self) -> Stop {
        if self.over_budget.load(Ordering::SeqCst) {
            Stop::Budget
        } else {
            Stop::Cancelled
        }
    }

    /// The whole run.
    pub(crate) async fn orchestrate(self, members: Vec<Arc<dyn Member>>) -> OrchestrationResult {
        let span = tracing::info_span!(
            "orchestrator.orchestrate",
            orchestrator.session_id = %self.id,
            orchestrator.prompt_length = self.request.chars().count(),
            orchestrator.max_tokens = self.options.max_tokens.unwrap_or(0),
            orchestrator.enable_peer_review = self.options.enable_peer_review,
            orchestrator.max_revise_attempts = self.options.max_revise_attempts,
            orchestrator.assignments_count = tracing::field::Empty,
            orchestrator.tokens_consumed = tracing::field::Empty,
        );
        self.emit(self.event(Stage::Orchestration, Phase::Starting));
        let result = self.stages(members, &span).instrument(span.clone()).await;
        span.record("orchestrator.tokens_consumed", result.total_tokens);
        let mut stopped = self.event(Stage::Orchestration, Phase::Stopped);
        stopped.text = Some(result.final_response.clone());
        stopped.error = result.error.clone();
        self.emit(stopped);
        result
    }

    async fn stages(
        &self,
        members: Vec<Arc<dyn Member>>,
        span: &tracing::Span,
    ) -> OrchestrationResult {
        let mut selector = (self.stages.selection)(&members);
        let first = Arc::clone(&members[0]);
        let plan = match self.plan(selector.as_ref(), &first, &members).await {
            Ok(plan) => plan,
            Err(stop) => {
                return self.result(
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                    String::new(),
                    Some(stop),
                );
            }
        };
        span.record("orchestrator.assignments_count", plan.len());
        let chosen: Vec<Chosen> = plan
            .iter()
            .map(|a| {
                let author = selector.author(&a.specialisation);
                let reviewer = selector.reviewer(author.name());
                (author, reviewer)
            })
            .collect();
        let short = plan.len() == 1;
        let works = self.schedule(&plan, &chosen, short).await;
        let mut responses = Vec::new();
        let mut reviews = Vec::new();
        let mut stop = None;
        for w in works {
            responses.extend(w.response);
            reviews.extend(w.reviews);
            stop = stop.or(w.stop);
        }
        if let Some(stop) = stop {
            let partial = joined(&responses);
            return self.result(plan, responses, reviews, partial, Some(stop));
        }
        if short {
            let answer = responses[0].response.clone();
            return self.result(plan, responses, reviews, answer, None);
        }
        match self.synthesize(selector.as_ref(), &first, &responses).await {
            Ok(answer) => self.result(plan, responses, reviews, answer, None),
            Err(stop) => {
                let partial = joined(&responses);
                self.result(plan, responses, reviews, partial, Some(stop))
            }
        }
    }

    fn result(
        &self,
        plan: Vec<Assignment>,
        agent_responses: Vec<AgentResponse>,
        reviews: Vec<ReviewResult>,
        final_response: String,
        stop: Option<Stop>,
    ) -> OrchestrationResult {
        let total_tokens = self.used.load(Ordering::SeqCst);
        let error = stop.as_ref().map(|s| match s {
            Stop::Cancelled => "cancelled".to_string(),
            Stop::Budget => format!(
                "the token budget of {} ran out ({total_tokens} tokens used); the answer is what was done by then",
                self.options.max_tokens.unwrap_or(0)
            ),
            Stop::Failed(e) => e.clone(),
        });
        OrchestrationResult {
            session_id: self.id.clone(),
            final_response,
            short_circuited: plan.len() == 1,
            plan,
            agent_responses,
            reviews,
            cancelled: stop == Some(Stop::Cancelled) && self.caller.is_cancelled(),
            total_tokens,
            success: stop.is_none(),
            error,
            notes: self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            elapsed_ms: self.began.elapsed().as_millis() as u64,
            stages: self
                .timings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }

    /// The plan: the host's planner's when it gives one, else the planning
    /// member's, read with one retry; the whole request as one assignment
    /// when it cannot be read.
    async fn plan(
        &self,
        selector: &dyn Selection,
        first: &Arc<dyn Member>,
        members: &[Arc<dyn Member>],
    ) -> Result<Vec<Assignment>, Stop> {
        let specs = work_specialisations(members);
        if let Some(plan) = self.stages.planner.plan(&self.request, &specs).await
            && !plan.is_empty()
        {
            self.emit(self.event(Stage::Planning, Phase::Starting));
            let mut stopped = self.event(Stage::Planning, Phase::Stopped);
            stopped.plan = Some(plan.clone());
            self.emit(stopped);
            return Ok(plan);
        }
        let planner = selector.planner().unwrap_or_else(|| {
            self.note(format!(
                "no agent has the planning specialisation: {} planned with Baton's built-in instructions",
                first.name()
            ));
            Arc::clone(first)
        });
        let span = tracing::info_span!("orchestrator.plan", orchestrator.session_id = %self.id);
        let mut start = self.event(Stage::Planning, Phase::Starting);
        start.agent = Some(planner.name().to_string());
        self.emit(start);
        let plan = self
            .read_plan_from(planner.as_ref(), &specs)
            .instrument(span)
            .await?;
        let mut stopped = self.event(Stage::Planning, Phase::Stopped);
        stopped.agent = Some(planner.name().to_string());
        stopped.plan = Some(plan.clone());
        self.emit(stopped);
        Ok(plan)
    }

    async fn read_plan_from(
        &self,
        planner: &dyn Member,
        specs: &[String],
    ) -> Result<Vec<Assignment>, Stop> {
        let brief = planner_brief(specs);
        let first = self
            .ask_json(planner, brief.clone(), self.request.clone())
            .await?;
        let problem = match read_plan(&first) {
            Ok(plan) => return Ok(plan),
            Err(p) => p,
        };
        let second = self
            .ask_json(planner, brief, retry_message(&self.request, &problem))
            .await?;
        match read_plan(&second) {
            Ok(plan) => Ok(plan),
            Err(problem) => {
                self.note(format!(
                    "the plan of {} could not be read ({problem}): one agent answers the whole request",
                    planner.name()
                ));
                Ok(vec![Assignment {
                    task: self.request.clone(),
                    specialisation: specs[0].clone(),
                }])
            }
        }
    }

    /// Every assignment, all at once or one after the other.
    async fn schedule(&self, plan: &[Assignment], chosen: &[Chosen], short: bool) -> Vec<Work> {
        let review = self.options.enable_peer_review && !short;
        let work = |i: usize| {
            let (author, reviewer) = &chosen[i];
            let reviewer = if review { reviewer.clone() } else { None };
            if review && reviewer.is_none() {
                self.note(format!(
                    "no one can review {}'s work: it is the only agent",
                    author.name()
                ));
            }
            self.assignment(i, plan, Arc::clone(author), reviewer)
        };
        let mut out = Vec::new();
        for wave in checked_waves(self.stages.scheduler.waves(plan, self.options), plan.len()) {
            let done = futures::future::join_all(wave.into_iter().map(work)).await;
            let stopped = done.iter().any(|w| w.stop.is_some());
            out.extend(done);
            if stopped {
                break;
            }
        }
        out
    }

    /// One assignment: brief, work, and the review loop.
    async fn assignment(
        &self,
        i: usize,
        plan: &[Assignment],
        author: Arc<dyn Member>,
        reviewer: Option<Arc<dyn Member>>,
    ) -> Work {
        let a = &plan[i];
        let name = author.name().to_string();
        self.emit(
            self.event(Stage::AgentTraining, Phase::Starting)
                .of(&name, i),
        );
        let brief = self.brief(&name, i, plan).await;
        self.emit(
            self.event(Stage::AgentTraining, Phase::Stopped)
                .of(&name, i),
        );
        self.emit(
            self.event(Stage::AgentExecution, Phase::Starting)
                .of(&name, i),
        );
        let before = self.used.load(Ordering::SeqCst);
        let answer = self
            .ask(author.as_ref(), brief.clone(), a.task.clone())
            .await;
        let mut stopped = self
            .event(Stage::AgentExecution, Phase::Stopped)
            .of(&name, i);
        let mut answer = match answer {
            Ok(t) => t,
            Err(stop) => {
                stopped.error = Some(format!("{stop:?}"));
                self.emit(stopped);
                return Work {
                    stop: Some(stop),
                    ..Work::default()
                };
            }
        };
        stopped.text = Some(answer.clone());
        self.emit(stopped);
        let mut work = Work::default();
        let mut revisions = 0;
        if let Some(reviewer) = reviewer {
            let job = Job {
                index: i,
                assignment: a,
                author: author.as_ref(),
                brief: &brief,
            };
            match self
                .review_loop(&job, reviewer.as_ref(), &mut answer, &mut work.reviews)
                .await
            {
                Ok(n) => revisions = n,
                Err((n, stop)) => {
                    revisions = n;
                    work.stop = Some(stop);
                }
            }
        }
        let note = format!("{name}: {}", a.task);
        self.state.set(&note, &answer).await;
        work.response = Some(AgentResponse {
            agent: name,
            assignment: a.clone(),
            response: answer,
            revisions,
            tokens: self.used.load(Ordering::SeqCst) - before,
        });
        work
    }

    /// What a member is told before it works: who it is in the team, the
    /// plan, its assignment and the notes shared so far.
    async fn brief(&self, name: &str, i: usize, plan: &[Assignment]) -> String {
        let mut out = format!(
            "You are {name}, one agent of a team answering this request:\n\n{}\n\nThe plan:\n",
            self.request
        );
        for (n, a) in plan.iter().enumerate() {
            let mine = if n == i { "  ← yours" } else { "" };
            out.push_str(&format!(
                "{}. [{}] {}{mine}\n",
                n + 1,
                a.specialisation,
                a.task
            ));
        }
        let notes = self.state.snapshot().await;
        if !notes.is_empty() {
            out.push_str("\nWhat the team has done so far:\n");
            for (k, v) in notes {
                out.push_str(&format!("- {k}:\n{v}\n"));
            }
        }
        out.push_str("\nDo your assignment only and answer with its result; another agent puts the parts together.");
        if !self.options.enable_internet_search {
            out.push_str(" Do not search the internet.");
        }
        out
    }

    /// Reviews until approved or out of revisions; the revisions made.
    async fn review_loop(
        &self,
        job: &Job<'_>,
        reviewer: &dyn Member,
        answer: &mut String,
        reviews: &mut Vec<ReviewResult>,
    ) -> Result<u32, (u32, Stop)> {
        let mut revisions = 0;
        loop {
            let round = revisions + 1;
            let (approved, feedback) = self
                .review(job, reviewer, answer, round)
                .await
                .map_err(|s| (revisions, s))?;
            reviews.push(ReviewResult {
                reviewer: reviewer.name().to_string(),
                author: job.author.name().to_string(),
                approved,
                feedback: feedback.clone(),
                round,
            });
            if approved || revisions >= self.options.max_revise_attempts {
                return Ok(revisions);
            }
            revisions += 1;
            *answer = self
                .revise(job, answer, &feedback, revisions)
                .await
                .map_err(|s| (revisions - 1, s))?;
        }
    }

    async fn review(
        &self,
        job: &Job<'_>,
        reviewer: &dyn Member,
        answer: &str,
        round: u32,
    ) -> Result<(bool, String), Stop> {
        let mut start = self
            .event(Stage::AgentReview, Phase::Starting)
            .of(reviewer.name(), job.index);
        start.round = Some(round);
        self.emit(start);
        let brief = format!(
            "You review a teammate's work for this request:\n\n{}\n\nApprove it when it does its assignment well; \
             otherwise say exactly what to change. Answer with JSON only: {{\"approved\": true or false, \"feedback\": \"…\"}}",
            self.request
        );
        let message = format!(
            "The assignment: {}\n\n{}'s answer:\n\n{answer}",
            job.assignment.task,
            job.author.name()
        );
        let text = self.ask_json(reviewer, brief, message).await?;
        let (approved, feedback) = read_review(&text).unwrap_or_else(|problem| {
            self.note(format!(
                "the review by {} could not be read ({problem}); the answer is taken as approved",
                reviewer.name()
            ));
            (true, text.clone())
        });
        let mut stopped = self
            .event(Stage::AgentReview, Phase::Stopped)
            .of(reviewer.name(), job.index);
        stopped.round = Some(round);
        stopped.approved = Some(approved);
        stopped.text = Some(feedback.clone());
        self.emit(stopped);
        Ok((approved, feedback))
    }

    async fn revise(
        &self,
        job: &Job<'_>,
        answer: &str,
        feedback: &str,
        revision: u32,
    ) -> Result<String, Stop> {
        let author = job.author;
        let mut start = self
            .event(Stage::AgentRevise, Phase::Starting)
            .of(author.name(), job.index);
        start.round = Some(revision);
        self.emit(start);
        let message = format!(
            "A reviewer asked for changes to your answer.\n\nYour answer:\n\n{answer}\n\nThe feedback:\n\n{feedback}\n\n\
             Write your answer again, changed as asked."
        );
        let revised = self.ask(author, job.brief.to_string(), message).await?;
        let mut stopped = self
            .event(Stage::AgentRevise, Phase::Stopped)
            .of(author.name(), job.index);
        stopped.round = Some(revision);
        stopped.text = Some(revised.clone());
        self.emit(stopped);
        Ok(revised)
    }

    /// One answer from the members' answers.
    async fn synthesize(
        &self,
        selector: &dyn Selection,
        first: &Arc<dyn Member>,
        responses: &[AgentResponse],
    ) -> Result<String, Stop> {
        if let Some(text) = self
            .stages
            .synthesizer
            .synthesize(&self.request, responses)
            .await
        {
            self.emit(self.event(Stage::Synthesis, Phase::Starting));
            let mut stopped = self.event(Stage::Synthesis, Phase::Stopped);
            stopped.text = Some(text.clone());
            self.emit(stopped);
            return Ok(text);
        }
        let synthesizer = selector.synthesizer().unwrap_or_else(|| {
            self.note(format!(
                "no agent has the synthesis specialisation: {} combined the answers with Baton's built-in instructions",
                first.name()
            ));
            Arc::clone(first)
        });
        let span =
            tracing::info_span!("orchestrator.synthesize", orchestrator.session_id = %self.id);
        let mut start = self.event(Stage::Synthesis, Phase::Starting);
        start.agent = Some(synthesizer.name().to_string());
        self.emit(start);
        let brief = format!(
            "Your team answered parts of this request:\n\n{}\n\nWrite the one answer the user reads, from their parts: \
             complete, without repeating yourself, without mentioning the team.",
            self.request
        );
        let text = self
            .ask(synthesizer.as_ref(), brief, joined(responses))
            .instrument(span)
            .await?;
        let mut stopped = self.event(Stage::Synthesis, Phase::Stopped);
        stopped.agent = Some(synthesizer.name().to_string());
        stopped.text = Some(text.clone());
        self.emit(stopped);
        Ok(text)
    }
}

/// A scheduler's waves made safe: indexes past the plan and repeats left
/// out, and any assignment it left out run in a last wave (so every
/// assignment is worked on once).
fn checked_waves(waves: Vec<Vec<usize>>, n: usize) -> Vec<Vec<usize>> {
    let mut seen = vec![false; n];
    let mut out: Vec<Vec<usize>> = waves
        .into_iter()
        .map(|w| {
            w.into_iter()
                .filter(|&i| i < n && !std::mem::replace(&mut seen[i], true))
                .collect::<Vec<_>>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let left: Vec<usize> = (0..n).filter(|&i| !seen[i]).collect();
    if !left.is_empty() {
        out.push(left);
    }
    out
}

/// The answers one after the other, each under its task.
fn joined(responses: &[AgentResponse]) -> String {
    responses
        .iter()
        .map(|r| format!("## {} ({})\n\n{}", r.assignment.task, r.agent, r.response))
        .collect::<Vec<_>>()
        .join("\n\n")
}
