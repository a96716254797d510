//! Choosing members: an author per assignment by specialisation (the
//! least busy when several fit), a reviewer who is never the author, and
//! the planner and synthesizer by role.

use std::sync::Arc;

use crate::member::{Member, Role};

/// The team, and how many assignments each member has.
pub(crate) struct Selector {
    members: Vec<Arc<dyn Member>>,
    load: Vec<usize>,
}

/// The specialisations of `members` that are not roles, for the plan
/// (`general` when there are none).
pub(crate) fn work_specialisations(members: &[Arc<dyn Member>]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for m in members {
        for s in m.specialisations() {
            let role = [Role::Planning, Role::Review, Role::Synthesis]
                .iter()
                .any(|r| r.matches(s));
            if !role && !all.iter().any(|a| a.eq_ignore_ascii_case(s)) {
                all.push(s.clone());
            }
        }
    }
    if all.is_empty() {
        all.push("general".into());
    }
    all
}

impl Selector {
    pub(crate) fn new(members: Vec<Arc<dyn Member>>) -> Self {
        let load = vec![0; members.len()];
        Self { members, load }
    }

    /// The member with `role`, if any.
    pub(crate) fn with_role(&self, role: Role) -> Option<Arc<dyn Member>> {
        self.members.iter().find(|m| role.of(m.as_ref())).cloned()
    }

    /// The author of an assignment for `specialisation`: the least busy
    /// member with it; else the least busy member without a role; else
    /// the least busy member.
    pub(crate) fn author(&mut self, specialisation: &str) -> Arc<dyn Member> {
        let fits = |m: &Arc<dyn Member>| {
            m.specialisations()
                .iter()
                .any(|s| s.trim().eq_ignore_ascii_case(specialisation.trim()))
        };
        let no_role = |m: &Arc<dyn Member>| {
            ![Role::Planning, Role::Review, Role::Synthesis]
                .iter()
                .any(|r| r.of(m.as_ref()))
        };
        let pick = self
            .least_busy(fits)
            .or_else(|| self.least_busy(no_role))
            .or_else(|| self.least_busy(|_| true))
            .unwrap_or(0);
        self.load[pick] += 1;
        Arc::clone(&self.members[pick])
    }

    fn least_busy(&self, ok: impl Fn(&Arc<dyn Member>) -> bool) -> Option<usize> {
        (0..self.members.len())
            .filter(|&i| ok(&self.members[i]))
            .min_by_key(|&i| self.load[i])
    }

    /// A reviewer for `author`'s work: a member with the review
    /// specialisation, else any other member; never the author (`None`
    /// when the author is alone).
    pub(crate) fn reviewer(&self, author: &str) -> Option<Arc<dyn Member>> {
        let others = || self.members.iter().filter(|m| m.name() != author);
        others()
            .find(|m| Role::Review.of(m.as_ref()))
            .or_else(|| {
                others().find(|m| !Role::Planning.of(m.as_ref()) && !Role::Synthesis.of(m.as_ref()))
            })
            .or_else(|| others().next())
            .cloned()
    }
}
