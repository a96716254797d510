//! Which entries go with a model call: everything when it fits the
//! budget; otherwise the most relevant as many as fit: by the words they
//! share with the question and, with the embedding model, by meaning (the
//! two rankings fused as the document search fuses them), then the newest.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::{Memory, MemoryStore, MemoryVectors};

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
    words: Arc<Mutex<Option<Arc<Indexed>>>>,
    /// The entries' vectors, for recall by meaning (`None`: by words).
    meaning: Option<Arc<MemoryVectors>>,
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
            meaning: None,
        }
    }

    /// The same recall, by meaning as well as by words where `vectors`
    /// has a model.
    pub fn with_meaning(mut self, vectors: Arc<MemoryVectors>) -> MemoryContext {
        self.meaning = Some(vectors);
        self
    }

    /// The same recall, said to be the memory of project `name`.
    pub fn in_project(mut self, name: &str) -> MemoryContext {
        self.project = Some(name.to_string());
        self
    }

    /// The entries for `question`, most relevant first (none when the
    /// file cannot be read: said in the log, the chat goes on). Over the
    /// budget with a model it embeds the question: call it off the async
    /// runtime.
    pub fn recall(&self, question: &str) -> Vec<Memory> {
        let Some(indexed) = self.indexed() else {
            return Vec::new();
        };
        if indexed.chars <= self.budget {
            return indexed.memories.as_ref().clone();
        }
        let likeness = self
            .meaning
            .as_ref()
            .and_then(|m| m.likeness(&indexed.memories, question));
        choose(&indexed, question, self.budget, likeness.as_deref())
    }

    /// The entries with their words, worked out again when the file
    /// changed.
    fn indexed(&self) -> Option<Arc<Indexed>> {
        let memories = self
            .store
            .snapshot()
            .inspect_err(|e| tracing::warn!(error = %e, "memory not recalled"))
            .ok()?;
        let mut cached = self.words.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref()
            && Arc::ptr_eq(&c.memories, &memories)
        {
            return Some(Arc::clone(c));
        }
        let fresh = Arc::new(Indexed::of(memories));
        *cached = Some(Arc::clone(&fresh));
        Some(fresh)
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

impl Indexed {
    fn of(memories: Arc<Vec<Memory>>) -> Indexed {
        Indexed {
            words: memories.iter().map(|m| words(&m.text)).collect(),
            chars: memories.iter().map(|m| m.text.chars().count()).sum(),
            memories,
        }
    }
}

/// The entries for `question` within `budget` characters, given each
/// entry's likeness to it where known.
fn choose(
    indexed: &Indexed,
    question: &str,
    budget: usize,
    likeness: Option<&[f32]>,
) -> Vec<Memory> {
    let all = &indexed.memories;
    if indexed.chars <= budget {
        return all.as_ref().clone();
    }
    let mut chosen = Vec::new();
    let mut used = 0;
    for i in ranked(indexed, question, likeness) {
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

/// Every entry, most relevant first: the ranking by shared words (most
/// first) and the one by meaning (most alike first, from
/// [`baton_embed::MIN_LIKENESS`] up) fused by reciprocal rank as the
/// workspace search fuses them; among equals (entries
/// neither finds) the newest first.
fn ranked(indexed: &Indexed, question: &str, likeness: Option<&[f32]>) -> Vec<usize> {
    let all = &indexed.memories;
    let newest_first = |a: &usize, b: &usize| all[*b].created.cmp(&all[*a].created);
    let asked = words(question);
    let shared: Vec<usize> = indexed
        .words
        .iter()
        .map(|w| asked.iter().filter(|a| w.contains(*a)).count())
        .collect();
    let mut by_words: Vec<usize> = (0..all.len()).filter(|&i| shared[i] > 0).collect();
    by_words.sort_by(|a, b| shared[*b].cmp(&shared[*a]).then(newest_first(a, b)));
    let by_meaning: Vec<usize> = likeness.map_or_else(Vec::new, |l| {
        let mut alike: Vec<usize> = (0..all.len())
            .filter(|&i| l[i] >= baton_embed::MIN_LIKENESS)
            .collect();
        alike.sort_by(|a, b| l[*b].total_cmp(&l[*a]));
        alike
    });
    let score = baton_embed::fused_scores([by_words, by_meaning], all.len());
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|a, b| score[*b].total_cmp(&score[*a]).then(newest_first(a, b)));
    order
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
        Indexed::of(Arc::new(all))
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
        let got = choose(
            &indexed(all.clone()),
            "How far is Paris from Berlin?",
            100,
            None,
        );
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
        let got = choose(&indexed(all), "Where do I keep the invoices?", 60, None);
        let texts: Vec<&str> = got.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "The invoice folder is /Finance/Invoices.",
                "Likes short answers."
            ]
        );
    }

    #[test]
    fn an_entry_alike_in_meaning_is_chosen_though_it_shares_no_word() {
        let all = vec![
            memory("The dog is called Rex.", 1),
            memory("Works at the port of Gdynia.", 2),
            memory("Has a meeting every Tuesday.", 3),
            memory("Likes short answers.", 4),
        ];
        let question = "What is my pet's name?";
        let by_words = choose(&indexed(all.clone()), question, 50, None);
        assert!(
            !by_words.iter().any(|m| m.text.contains("Rex")),
            "{by_words:?}"
        );
        let likeness = [0.55, 0.05, 0.1, 0.19];
        let got = choose(&indexed(all), question, 50, Some(&likeness));
        let texts: Vec<&str> = got.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["The dog is called Rex.", "Likes short answers."]);
    }

    #[test]
    fn found_by_words_and_by_meaning_beats_found_one_way() {
        let all = vec![
            memory("The invoice folder is /Finance.", 1),
            memory("Invoices from Maersk go to the invoice folder.", 2),
            memory("Has a cat.", 3),
        ];
        // The second shares more words; the first is also alike in meaning.
        let likeness = [0.6, 0.1, 0.0];
        let order = ranked(
            &indexed(all),
            "Which folder do Maersk invoices go to?",
            Some(&likeness),
        );
        assert_eq!(order, [0, 1, 2]);
    }
}
