//! Which entries go with a model call: everything when it fits the
//! budget; otherwise those that share the most words with the question,
//! then the newest, as many as fit.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::{Memory, MemoryStore};

/// Words too common to tell memories apart.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "your", "with", "that", "this", "from",
    "have", "has", "was", "were", "what", "when", "where", "which", "who", "how", "why", "can",
    "could", "would", "should", "will", "does", "did", "about", "into", "than", "then", "them",
    "they", "their", "there", "its", "our", "out", "all", "any", "some", "more", "most", "also",
    "just", "like", "please", "user", "prefers", "want", "wants",
];

/// The memory recalled for each model call, within a character budget.
#[derive(Debug, Clone)]
pub struct MemoryContext {
    store: Arc<MemoryStore>,
    budget: usize,
    /// The project whose memory this is (`None`: the user's).
    project: Option<String>,
    /// Each entry's words, for the snapshot they were worked out for.
    words: Arc<Mutex<Option<Indexed>>>,
}

/// A snapshot of the entries with their words and total length.
#[derive(Debug)]
struct Indexed {
    memories: Arc<Vec<Memory>>,
    words: Vec<HashSet<String>>,
    chars: usize,
}

impl MemoryContext {
    /// Recalls from `store`, at most `budget` characters a call.
    pub fn new(store: Arc<MemoryStore>, budget: usize) -> MemoryContext {
        MemoryContext {
            store,
            budget,
            project: None,
            words: Arc::default(),
        }
    }

    /// The same recall, said to be the memory of project `name`.
    pub fn in_project(mut self, name: &str) -> MemoryContext {
        self.project = Some(name.to_string());
        self
    }

    /// The entries for `question`, most relevant first (none when the
    /// file cannot be read: said in the log, the chat goes on).
    pub fn recall(&self, question: &str) -> Vec<Memory> {
        let memories = match self.store.snapshot() {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(error = %e, "memory not recalled");
                return Vec::new();
            }
        };
        let mut cached = self.words.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = cached
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(&c.memories, &memories));
        if !fresh {
            *cached = Some(Indexed {
                words: memories.iter().map(|m| words(&m.text)).collect(),
                chars: memories.iter().map(|m| m.text.chars().count()).sum(),
                memories,
            });
        }
        choose(cached.as_ref().expect("set above"), question, self.budget)
    }

    /// The text added to the call for `question`, if anything is
    /// remembered.
    pub fn render(&self, question: &str) -> Option<String> {
        let recalled = self.recall(question);
        match &self.project {
            None => render(&recalled),
            Some(name) => render_as(
                &format!("What the user asked you to remember in the project \"{name}\":"),
                &recalled,
            ),
        }
    }
}

/// The entries as the model reads them (`None` for none).
pub fn render(memories: &[Memory]) -> Option<String> {
    render_as(
        "What the user asked you to remember from earlier conversations (use it where it applies; do not repeat it back unasked):",
        memories,
    )
}

/// The entries under `heading` (`None` for none).
fn render_as(heading: &str, memories: &[Memory]) -> Option<String> {
    if memories.is_empty() {
        return None;
    }
    let mut text = String::from(heading);
    for m in memories {
        text.push_str("\n- ");
        text.push_str(&m.text);
    }
    Some(text)
}

/// The entries for `question` within `budget` characters.
fn choose(indexed: &Indexed, question: &str, budget: usize) -> Vec<Memory> {
    let all = &indexed.memories;
    if indexed.chars <= budget {
        return all.as_ref().clone();
    }
    let asked = words(question);
    let mut scored: Vec<(usize, usize)> = indexed
        .words
        .iter()
        .enumerate()
        .map(|(i, w)| (asked.iter().filter(|a| w.contains(*a)).count(), i))
        .collect();
    // Most shared words first; among equals the newest.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(all[b.1].created.cmp(&all[a.1].created)));
    let mut used = 0;
    let mut chosen = Vec::new();
    for (_, i) in scored {
        let n = all[i].text.chars().count();
        if used + n <= budget {
            used += n;
            chosen.push(all[i].clone());
        }
        if budget - used < 8 {
            break;
        }
    }
    chosen
}

/// The distinct words of `text` that say something: lower case, three
/// letters or more, not a stop word, a plural's `s` taken off.
pub(crate) fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryId, MemorySource};

    fn indexed(all: Vec<Memory>) -> Indexed {
        Indexed {
            words: all.iter().map(|m| words(&m.text)).collect(),
            chars: all.iter().map(|m| m.text.chars().count()).sum(),
            memories: Arc::new(all),
        }
    }

    fn memory(text: &str, created: u64) -> Memory {
        Memory {
            id: MemoryId::new(),
            text: text.into(),
            source: MemorySource::User,
            session: None,
            created,
        }
    }

    #[test]
    fn everything_is_given_while_it_fits() {
        let all = vec![memory("Prefers metric units.", 1), memory("Has a cat.", 2)];
        let got = choose(&indexed(all.clone()), "How far is Paris from Berlin?", 100);
        assert_eq!(got, all);
        let text = render(&got).unwrap();
        assert!(
            text.ends_with("\n- Prefers metric units.\n- Has a cat."),
            "{text}"
        );
        assert_eq!(render(&[]), None);
    }

    #[test]
    fn beyond_the_budget_the_questions_words_then_the_newest_win() {
        let all = vec![
            memory("The invoice folder is /Finance/Invoices.", 1),
            memory("Works at the port of Gdynia.", 2),
            memory("Has two cats called Ada and Bit.", 3),
            memory("Likes short answers.", 4),
        ];
        let got = choose(&indexed(all), "Where do I keep the invoices?", 60);
        let texts: Vec<&str> = got.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "The invoice folder is /Finance/Invoices.",
                "Likes short answers."
            ]
        );
    }
}
