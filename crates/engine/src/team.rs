//! The named agents as an orchestration team: each member answers on a
//! fresh, unsaved session of its agent, with the brief as extra
//! instructions and its toolboxes, through the same conversation API as
//! every front door.

use std::sync::Arc;

use baton_agent::{Session, StopReason};
use baton_orchestrator::{
    Ask, Attachment, CancellationToken, Member, MemberError, Options, OrchestrationEvent,
    OrchestrationResult, Orchestrator, OrchestratorError, Reply, StateFactory,
};
use futures::future::BoxFuture;

use crate::conversation::{ConfirmMode, ConversationOptions, UserMessage};
use crate::{Engine, EngineError, Run};

/// Progress events a team run may hold unread before its event thread
/// waits for the reader (the run itself never waits).
const TEAM_EVENTS: usize = 256;

/// What a team is asked, and how it works.
pub struct TeamRequest {
    /// The request.
    pub prompt: String,
    /// Files given with it, as text.
    pub attachments: Vec<Attachment>,
    /// The members by name (any casing); `None`: every enabled agent.
    pub names: Option<Vec<String>>,
    /// External actions: a team runs without anyone to ask, so refuse
    /// (with the reason) or allow (`--yes`).
    pub confirm: ConfirmMode,
    /// Review, revision, budget and order.
    pub options: Options,
    /// Where the run's shared notes are kept (default: in memory).
    pub state: Option<StateFactory>,
}

impl TeamRequest {
    /// `prompt` for every enabled agent, with the default options.
    pub fn new(prompt: impl Into<String>, confirm: ConfirmMode) -> Self {
        Self {
            prompt: prompt.into(),
            attachments: Vec::new(),
            names: None,
            confirm,
            options: Options::default(),
            state: None,
        }
    }
}

/// A team at work: each stage as it happens, then the whole run (`Err`
/// only for a request that could not start, such as an empty one).
pub type TeamRun = Run<OrchestrationEvent, Result<OrchestrationResult, OrchestratorError>>;

/// Teams of an [`Engine`]'s agents (see [`Engine::team`]).
pub struct Team<'a> {
    pub(crate) e: &'a Arc<Engine>,
}

/// A named agent as a team member.
pub struct TeamMember {
    engine: Arc<Engine>,
    name: String,
    specialisations: Vec<String>,
    confirm: ConfirmMode,
    /// Whether it works with its toolboxes (a research job's agents read
    /// pages as data and have none).
    tools: bool,
}

impl TeamMember {
    /// Agent `name` answering without tools (no toolbox, no web search),
    /// as a research job asks its agents.
    pub(crate) fn without_tools(engine: Arc<Engine>, name: String, confirm: ConfirmMode) -> Self {
        Self {
            engine,
            name,
            specialisations: Vec::new(),
            confirm,
            tools: false,
        }
    }
}

impl Member for TeamMember {
    fn name(&self) -> &str {
        &self.name
    }

    fn specialisations(&self) -> &[String] {
        &self.specialisations
    }

    fn ask(
        &self,
        ask: Ask,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<Reply, MemberError>> {
        Box::pin(async move {
            let options = ConversationOptions {
                agent: Some(self.name.clone()),
                instructions: Some(ask.brief),
                persist: false,
                confirm: self.confirm.clone(),
                answer_json: ask.json,
                web_search: ask.internet_search,
                tools: self.tools,
                memory: self.tools,
                // A research job's writer cites the sources it was given.
                own_citations: !self.tools,
                ..ConversationOptions::default()
            };
            let conversation = self
                .engine
                .conversations()
                .open_with(Session::new(), options);
            let turn = conversation.send(UserMessage::text(ask.message));
            let stop = turn.stopper();
            // A member dropped mid-answer (a research job's time limit, a
            // cancel won by the caller's own select) stops its turn too.
            let _stop_when_dropped = stop.clone().drop_guard();
            let outcome = tokio::select! {
                o = turn.finish() => o,
                _ = cancel.cancelled() => {
                    stop.cancel();
                    return Err(MemberError::Cancelled);
                }
            };
            let outcome = outcome
                .ok_or_else(|| MemberError::Failed("the turn ended without a result".into()))?;
            let tokens = outcome
                .result
                .usage
                .iter()
                .map(|u| u64::from(u.prompt_tokens) + u64::from(u.completion_tokens))
                .sum();
            match outcome.stop {
                StopReason::Answered | StopReason::MaxIterations | StopReason::Budget => {
                    Ok(Reply {
                        text: outcome.result.answer,
                        tokens,
                    })
                }
                StopReason::Cancelled => Err(MemberError::Cancelled),
                other => Err(MemberError::Failed(other.message())),
            }
        })
    }
}

impl Team<'_> {
    /// The team: the enabled agents named in `names` (any casing), or
    /// every enabled agent; external actions follow `confirm` (a team runs
    /// without anyone to ask: refuse, or allow with `--yes`).
    pub fn members(
        &self,
        names: Option<&[String]>,
        confirm: ConfirmMode,
    ) -> Result<Vec<Arc<dyn Member>>, EngineError> {
        let mut members: Vec<Arc<dyn Member>> = Vec::new();
        let chosen: Vec<&baton_config::AgentDef> = match names {
            None => without_shadowed_roles(self.e.agents().loaded().enabled().collect()),
            Some(names) => names
                .iter()
                .map(|n| {
                    self.e
                        .agents()
                        .loaded()
                        .get(n)
                        .ok_or_else(|| EngineError::Agent {
                            name: n.clone(),
                            reason: "no such enabled agent for the team".into(),
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        for def in chosen {
            members.push(Arc::new(TeamMember {
                engine: Arc::clone(self.e),
                name: def.name.clone(),
                specialisations: def.specialisations.clone(),
                confirm: confirm.clone(),
                tools: true,
            }));
        }
        Ok(members)
    }

    /// Starts `request` on its team; the run's events are its stages.
    pub fn start(&self, request: TeamRequest) -> Result<TeamRun, EngineError> {
        let orchestrator = self.orchestrator(
            request.names.as_deref(),
            request.confirm.clone(),
            request.options.clone(),
        )?;
        let orchestrator = match request.state.clone() {
            Some(state) => orchestrator.with_state(state),
            None => orchestrator,
        };
        Ok(Run::spawn(TEAM_EVENTS, (), move |parts| async move {
            // The orchestrator calls this on its own event thread (not the
            // runtime's), where waiting for the reader is fine.
            let events = parts.events;
            let orchestrator = orchestrator.on_event(Arc::new(move |e: &OrchestrationEvent| {
                let _ = events.blocking_send(e.clone());
            }));
            let result = orchestrator
                .orchestrate(&request.prompt, &request.attachments, parts.cancel)
                .await;
            // The event thread ends with the orchestrator, and the events
            // with it.
            drop(orchestrator);
            result
        }))
    }

    /// An orchestrator over [`members`](Self::members).
    pub fn orchestrator(
        &self,
        names: Option<&[String]>,
        confirm: ConfirmMode,
        options: Options,
    ) -> Result<Orchestrator, EngineError> {
        let team = self.members(names, confirm)?;
        Orchestrator::new(team, options).map_err(|e: OrchestratorError| EngineError::Agent {
            name: "team".into(),
            reason: e.to_string(),
        })
    }
}

/// `agents` without the shipped role agents (planner, reviewer,
/// synthesizer) whose role one of the user's own agents fills: the
/// shipped ones stand in only for roles the user's agents leave open.
pub(crate) fn without_shadowed_roles(
    agents: Vec<&baton_config::AgentDef>,
) -> Vec<&baton_config::AgentDef> {
    let roles = |def: &baton_config::AgentDef| -> Vec<&'static str> {
        def.specialisations
            .iter()
            .filter_map(|s| baton_orchestrator::team_role(s))
            .collect()
    };
    let shipped: Vec<bool> = agents
        .iter()
        .map(|d| baton_config::LoadedAgents::is_shipped(d))
        .collect();
    let users_roles: Vec<&'static str> = agents
        .iter()
        .zip(&shipped)
        .filter(|(_, shipped)| !**shipped)
        .flat_map(|(d, _)| roles(d))
        .collect();
    agents
        .into_iter()
        .zip(shipped)
        .filter(|(d, shipped)| !shipped || !roles(d).iter().any(|r| users_roles.contains(r)))
        .map(|(d, _)| d)
        .collect()
}
