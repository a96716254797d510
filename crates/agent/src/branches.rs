//! Branches of a conversation: an earlier user message edited and sent
//! again keeps what followed it as a branch, and the chat can switch
//! between the branches at that message. The history holds the branch in
//! view; each fork keeps the others whole (with the forks further down
//! them), so switching back and forth loses nothing.

use baton_llm::Message;
use serde::{Deserialize, Serialize};

/// The branches at one user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fork {
    /// Which user message the branches part at (0: the first).
    pub at: usize,
    /// The branch in view (its slot in `branches` is empty: its messages
    /// are in the history).
    pub current: usize,
    /// Every branch, in the order they were made (an import puts the one
    /// that was shown first).
    pub branches: Vec<Branch>,
}

/// One branch: the messages from the fork's user message on, and the
/// forks further down it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    /// Its messages (its user message first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// The forks further down it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forks: Vec<Fork>,
}

/// Why a branch could not be made or switched to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BranchError {
    /// The conversation has fewer user messages.
    #[error("this conversation has no user message number {0}")]
    NoMessage(usize),
    /// The fork has fewer branches.
    #[error("the message has no branch number {0}")]
    NoBranch(usize),
}

/// Where the `n`th user message of `history` is.
pub fn user_message_index(history: &[Message], n: usize) -> Option<usize> {
    history
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::User { .. }))
        .nth(n)
        .map(|(i, _)| i)
}

/// Starts a new branch at user message `at`: what was there from it on
/// is kept as a branch (with the forks further down), and the history
/// ends before it. The old user message, for its files.
pub fn fork(
    history: &mut Vec<Message>,
    forks: &mut Vec<Fork>,
    at: usize,
) -> Result<Message, BranchError> {
    let index = user_message_index(history, at).ok_or(BranchError::NoMessage(at))?;
    let tail = history.split_off(index);
    let old = tail[0].clone();
    let below = take_forks_below(forks, at);
    let kept = Branch {
        messages: tail,
        forks: below,
    };
    match forks.iter_mut().find(|f| f.at == at) {
        Some(f) => {
            f.branches[f.current] = kept;
            f.branches.push(Branch::default());
            f.current = f.branches.len() - 1;
        }
        None => forks.push(Fork {
            at,
            current: 1,
            branches: vec![kept, Branch::default()],
        }),
    }
    Ok(old)
}

/// Shows branch `to` of the fork at user message `at`: the branch in view
/// is put away whole and `to` takes its place.
pub fn switch(
    history: &mut Vec<Message>,
    forks: &mut Vec<Fork>,
    at: usize,
    to: usize,
) -> Result<(), BranchError> {
    let Some(pos) = forks.iter().position(|f| f.at == at) else {
        return Err(BranchError::NoBranch(to));
    };
    if to >= forks[pos].branches.len() {
        return Err(BranchError::NoBranch(to));
    }
    if forks[pos].current == to {
        return Ok(());
    }
    // An edit whose answer never came (the provider failed) left the
    // history ending just before the message: its branch is empty.
    let index = user_message_index(history, at)
        .or_else(|| (user_messages(history) == at).then_some(history.len()))
        .ok_or(BranchError::NoMessage(at))?;
    let tail = history.split_off(index);
    let below = take_forks_below(forks, at);
    let fork = forks
        .iter_mut()
        .find(|f| f.at == at)
        .expect("found above, and only forks below it were taken");
    let from = fork.current;
    fork.branches[from] = Branch {
        messages: tail,
        forks: below,
    };
    let shown = std::mem::take(&mut fork.branches[to]);
    fork.current = to;
    history.extend(shown.messages);
    forks.extend(shown.forks);
    Ok(())
}

/// The forks of the branch in view below user message `at` (taken out).
fn take_forks_below(forks: &mut Vec<Fork>, at: usize) -> Vec<Fork> {
    let (below, kept): (Vec<Fork>, Vec<Fork>) =
        std::mem::take(forks).into_iter().partition(|f| f.at > at);
    *forks = kept;
    below
}

/// The forks after the `by` oldest user messages left the history
/// (compaction's window): those at a message that is gone go too, the
/// rest (and the forks down their branches) count from the new start.
pub fn shift_forks(forks: &mut Vec<Fork>, by: usize) {
    if by == 0 {
        return;
    }
    forks.retain(|f| f.at >= by);
    for f in forks.iter_mut() {
        f.at -= by;
        for b in &mut f.branches {
            shift_forks(&mut b.forks, by);
        }
    }
}

/// The branch in view at user message `at` and how many there are
/// (`None`: the message has no other branch).
pub fn branch_of(forks: &[Fork], at: usize) -> Option<(usize, usize)> {
    forks
        .iter()
        .find(|f| f.at == at)
        .map(|f| (f.current, f.branches.len()))
}

/// How many user messages `history` holds.
pub fn user_messages(history: &[Message]) -> usize {
    history
        .iter()
        .filter(|m| matches!(m, Message::User { .. }))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(history: &[Message]) -> Vec<String> {
        history.iter().map(Message::text).collect()
    }

    fn chat(pairs: &[(&str, &str)]) -> Vec<Message> {
        pairs
            .iter()
            .flat_map(|(q, a)| [Message::user(*q), Message::assistant(*a)])
            .collect()
    }

    #[test]
    fn an_edited_earlier_message_keeps_what_followed_as_a_branch_to_switch_back_to() {
        let mut history = chat(&[("q1", "a1"), ("q2", "a2"), ("q3", "a3")]);
        let mut forks = Vec::new();
        let old = fork(&mut history, &mut forks, 1).unwrap();
        assert_eq!(old.text(), "q2");
        assert_eq!(texts(&history), ["q1", "a1"]);
        history.extend(chat(&[("q2 edited", "b2")]));
        assert_eq!(
            (forks[0].at, forks[0].current, forks[0].branches.len()),
            (1, 1, 2)
        );

        switch(&mut history, &mut forks, 1, 0).unwrap();
        assert_eq!(texts(&history), ["q1", "a1", "q2", "a2", "q3", "a3"]);
        switch(&mut history, &mut forks, 1, 1).unwrap();
        assert_eq!(texts(&history), ["q1", "a1", "q2 edited", "b2"]);
        assert_eq!(
            switch(&mut history, &mut forks, 1, 2),
            Err(BranchError::NoBranch(2))
        );
        // An edit that got no answer: switching back still works.
        fork(&mut history, &mut forks, 1).unwrap();
        assert_eq!(texts(&history), ["q1", "a1"]);
        switch(&mut history, &mut forks, 1, 0).unwrap();
        assert_eq!(texts(&history), ["q1", "a1", "q2", "a2", "q3", "a3"]);
        assert_eq!(
            fork(&mut history, &mut forks, 5),
            Err(BranchError::NoMessage(5))
        );
    }

    /// Three exchanges, the third question edited ("q3b"), then the
    /// first ("q1b", in view).
    fn edited_twice() -> (Vec<Message>, Vec<Fork>) {
        let mut history = chat(&[("q1", "a1"), ("q2", "a2"), ("q3", "a3")]);
        let mut forks = Vec::new();
        fork(&mut history, &mut forks, 2).unwrap();
        history.extend(chat(&[("q3b", "a3b")]));
        fork(&mut history, &mut forks, 0).unwrap();
        history.extend(chat(&[("q1b", "a1b")]));
        (history, forks)
    }

    #[test]
    fn forks_further_down_a_branch_go_with_it_and_come_back_whole() {
        let (mut history, mut forks) = edited_twice();
        assert_eq!(texts(&history), ["q1b", "a1b"]);
        assert_eq!(forks.len(), 1, "the fork at q3 went with its branch");

        switch(&mut history, &mut forks, 0, 0).unwrap();
        assert_eq!(texts(&history), ["q1", "a1", "q2", "a2", "q3b", "a3b"]);
        assert_eq!(forks.len(), 2);
        switch(&mut history, &mut forks, 2, 0).unwrap();
        assert_eq!(texts(&history), ["q1", "a1", "q2", "a2", "q3", "a3"]);
        // A third branch at the same message.
        fork(&mut history, &mut forks, 0).unwrap();
        history.extend(chat(&[("q1c", "a1c")]));
        let at0 = forks.iter().find(|f| f.at == 0).unwrap();
        assert_eq!((at0.current, at0.branches.len()), (2, 3));
        switch(&mut history, &mut forks, 0, 1).unwrap();
        assert_eq!(texts(&history), ["q1b", "a1b"]);
    }

    #[test]
    fn compaction_moves_forks_up_and_drops_those_whose_message_is_gone() {
        let (mut history, mut forks) = edited_twice();
        switch(&mut history, &mut forks, 0, 0).unwrap();
        // The window drops the first exchange.
        history.drain(..2);
        shift_forks(&mut forks, 1);
        assert_eq!(forks.len(), 1, "the fork at q1 went with it");
        assert_eq!(forks[0].at, 1);
        switch(&mut history, &mut forks, 1, 0).unwrap();
        assert_eq!(texts(&history), ["q2", "a2", "q3", "a3"]);
        assert_eq!(user_messages(&history), 2);
    }
}
