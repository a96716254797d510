//! The stages of a run a host may replace (seed 001's prompt filter,
//! planner, selector, scheduler and synthesizer). [`Stages::default`] is
//! Baton's own; a host replaces any of them with
//! [`Orchestrator::with_stages`](crate::Orchestrator::with_stages).
//!
//! Replacing the selector so that one member does every assignment (and
//! nobody reviews it):
//!
//! ```
//! use std::sync::Arc;
//! use baton_orchestrator::{Member, Selection, Stages};
//!
//! struct Always(Arc<dyn Member>);
//!
//! impl Selection for Always {
//!     fn author(&mut self, _specialisation: &str) -> Arc<dyn Member> {
//!         Arc::clone(&self.0)
//!     }
//!     fn reviewer(&self, _author: &str) -> Option<Arc<dyn Member>> {
//!         None
//!     }
//! }
//!
//! let stages = Stages {
//!     selection: Arc::new(|team: &[Arc<dyn Member>]| {
//!         Box::new(Always(Arc::clone(&team[0]))) as Box<dyn Selection>
//!     }),
//!     ..Stages::default()
//! };
//! # let _ = stages;
//! ```

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::member::{Member, Role};
use crate::{AgentResponse, Assignment, Options};

/// Cleans the request before anything else sees it.
pub trait PromptFilter: Send + Sync {
    /// The request as the team gets it; `None`: there is nothing to do.
    fn filter(&self, prompt: &str) -> Option<String>;
}

/// Makes the plan without asking a member (a host's own rules); `None`
/// leaves it to the team's planner, as Baton does.
pub trait Planner: Send + Sync {
    /// The assignments for `request`, given the team's `specialisations`.
    fn plan<'a>(
        &'a self,
        request: &'a str,
        specialisations: &'a [String],
    ) -> BoxFuture<'a, Option<Vec<Assignment>>>;
}

/// Chooses the members of one run (made per run by a
/// [`SelectionFactory`], so it may keep count of who is busy).
pub trait Selection: Send + Sync {
    /// Who does an assignment with `specialisation`.
    fn author(&mut self, specialisation: &str) -> Arc<dyn Member>;
    /// Who reviews `author`'s work (`None`: nobody; never the author).
    fn reviewer(&self, author: &str) -> Option<Arc<dyn Member>>;
    /// Who plans (`None`: the first member, with Baton's instructions).
    fn planner(&self) -> Option<Arc<dyn Member>> {
        None
    }
    /// Who writes the one answer (`None`: the first member, with Baton's
    /// instructions).
    fn synthesizer(&self) -> Option<Arc<dyn Member>> {
        None
    }
}

/// Makes a run's [`Selection`] from the team.
pub type SelectionFactory = Arc<dyn Fn(&[Arc<dyn Member>]) -> Box<dyn Selection> + Send + Sync>;

/// Orders the assignments: each wave's run at once, the waves one after
/// the other.
pub trait Scheduler: Send + Sync {
    /// The waves of `plan`'s assignment indexes (each index once).
    fn waves(&self, plan: &[Assignment], options: &Options) -> Vec<Vec<usize>>;
}

/// Writes the one answer without asking a member; `None` leaves it to the
/// team's synthesizer, as Baton does.
pub trait Synthesizer: Send + Sync {
    /// The answer to `request` from the members' `responses`.
    fn synthesize<'a>(
        &'a self,
        request: &'a str,
        responses: &'a [AgentResponse],
    ) -> BoxFuture<'a, Option<String>>;
}

/// The stages of a run.
#[derive(Clone)]
pub struct Stages {
    /// Cleans the request.
    pub filter: Arc<dyn PromptFilter>,
    /// Makes the plan (or leaves it to the planning member).
    pub planner: Arc<dyn Planner>,
    /// Chooses authors, reviewers, the planner and the synthesizer.
    pub selection: SelectionFactory,
    /// Orders the work.
    pub scheduler: Arc<dyn Scheduler>,
    /// Writes the answer (or leaves it to the synthesis member).
    pub synthesizer: Arc<dyn Synthesizer>,
}

impl Default for Stages {
    fn default() -> Self {
        Stages {
            filter: Arc::new(ControlCharacters),
            planner: Arc::new(ByTheTeam),
            selection: Arc::new(|team: &[Arc<dyn Member>]| {
                Box::new(crate::select::Selector::new(team.to_vec())) as Box<dyn Selection>
            }),
            scheduler: Arc::new(AsOptionsSay),
            synthesizer: Arc::new(ByTheTeam),
        }
    }
}

impl std::fmt::Debug for Stages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stages").finish_non_exhaustive()
    }
}

/// Baton's filter: control characters and surrounding space out
/// (seed 001's default changes nothing else).
pub struct ControlCharacters;

impl PromptFilter for ControlCharacters {
    fn filter(&self, prompt: &str) -> Option<String> {
        let kept: String = prompt
            .chars()
            .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
            .collect();
        let kept = kept.trim();
        (!kept.is_empty()).then(|| kept.to_string())
    }
}

/// Baton's planner and synthesizer: the team's members do it.
pub struct ByTheTeam;

impl Planner for ByTheTeam {
    fn plan<'a>(&'a self, _: &'a str, _: &'a [String]) -> BoxFuture<'a, Option<Vec<Assignment>>> {
        Box::pin(async { None })
    }
}

impl Synthesizer for ByTheTeam {
    fn synthesize<'a>(
        &'a self,
        _: &'a str,
        _: &'a [AgentResponse],
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }
}

/// Baton's scheduler: all at once, or one after the other with
/// [`Options::sequential`].
pub struct AsOptionsSay;

impl Scheduler for AsOptionsSay {
    fn waves(&self, plan: &[Assignment], options: &Options) -> Vec<Vec<usize>> {
        if options.sequential {
            (0..plan.len()).map(|i| vec![i]).collect()
        } else {
            vec![(0..plan.len()).collect()]
        }
    }
}

impl Selection for crate::select::Selector {
    fn author(&mut self, specialisation: &str) -> Arc<dyn Member> {
        crate::select::Selector::author(self, specialisation)
    }

    fn reviewer(&self, author: &str) -> Option<Arc<dyn Member>> {
        crate::select::Selector::reviewer(self, author)
    }

    fn planner(&self) -> Option<Arc<dyn Member>> {
        self.with_role(Role::Planning)
    }

    fn synthesizer(&self) -> Option<Arc<dyn Member>> {
        self.with_role(Role::Synthesis)
    }
}
