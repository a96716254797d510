//! The passages of one long text that bear on a question, for a file too
//! large to put whole into the prompt (a 300-page PDF attachment): the
//! text is cut into chunks as the index cuts documents, each chunk is
//! ranked by words (BM25 over an index in memory, the workspace index's
//! tokenizer) and, with the embedding model, by meaning (its vectors kept
//! per text, so a long conversation embeds a file once), the two rankings
//! fused; the best chunks that fit the budget are given in the text's
//! order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use baton_embed::SharedEmbedder;
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value};
use tantivy::{Index, TantivyDocument, doc};

use crate::chunk::{Chunk, chunk_markdown};
use crate::schema::{TOKENIZER, register_tokenizer};

/// Each text's chunk vectors, by the text's key (its content hash), with
/// the order they were made in.
type KeptVectors = HashMap<String, (u64, Arc<Vec<Vec<f32>>>)>;

/// Texts whose vectors are kept (the oldest go first).
const KEPT_TEXTS: usize = 16;

/// Finds the passages of long texts that answer a question.
pub struct PassageFinder {
    model: Arc<SharedEmbedder>,
    vectors: Mutex<KeptVectors>,
    made: std::sync::atomic::AtomicU64,
    /// The last choice, by text, question and budget: every model call of
    /// a turn (and each turn about the same file and question) asks again.
    last: Mutex<Option<(ChoiceKey, Passages)>>,
}

/// What a choice depends on: the text's key, the question, the budget.
type ChoiceKey = (String, String, usize);

impl std::fmt::Debug for PassageFinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageFinder")
            .field("by_meaning", &self.model.is_installed())
            .finish()
    }
}

/// What [`PassageFinder::find`] chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passages {
    /// The chosen chunks, in the text's order.
    pub chunks: Vec<Chunk>,
    /// Chunks the text was cut into.
    pub total_chunks: usize,
    /// Whether meaning (vectors) took part in the ranking.
    pub by_meaning: bool,
}

impl PassageFinder {
    /// A finder ranking by words, and by meaning with `model` (the
    /// process's shared embedding model; loaded on first use).
    pub fn new(model: Arc<SharedEmbedder>) -> Self {
        Self {
            model,
            vectors: Mutex::default(),
            made: Default::default(),
            last: Mutex::default(),
        }
    }

    /// The chunks of `markdown` (known as `key`) that best answer
    /// `question`, as many as fit in `budget` characters, in the text's
    /// order. Without a question the text's start is given.
    pub fn find(&self, key: &str, markdown: &str, question: &str, budget: usize) -> Passages {
        let asked: ChoiceKey = (key.to_string(), question.to_string(), budget);
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, chosen)) = last.as_ref()
            && *k == asked
        {
            return chosen.clone();
        }
        let chosen = self.choose(key, markdown, question, budget);
        *last = Some((asked, chosen.clone()));
        chosen
    }

    fn choose(&self, key: &str, markdown: &str, question: &str, budget: usize) -> Passages {
        let chunks = chunk_markdown(markdown, 1200, 150);
        let total_chunks = chunks.len();
        let words = words_ranking(&chunks, question);
        let meaning = self.meaning_ranking(key, &chunks, question);
        let by_meaning = meaning.is_some();
        let ranked = fuse_ranks(words, meaning.unwrap_or_default(), chunks.len());
        let mut chosen = Vec::new();
        let mut used = 0;
        for i in ranked {
            let len = chunks[i].text.chars().count();
            if used + len > budget {
                continue;
            }
            used += len;
            chosen.push(i);
        }
        chosen.sort_unstable();
        Passages {
            chunks: chosen.into_iter().map(|i| chunks[i].clone()).collect(),
            total_chunks,
            by_meaning,
        }
    }

    /// Chunk indices nearest the question by meaning, best first (`None`
    /// without a model or a question).
    fn meaning_ranking(&self, key: &str, chunks: &[Chunk], question: &str) -> Option<Vec<usize>> {
        if question.trim().is_empty() {
            return None;
        }
        let vectors = self.vectors_of(key, chunks)?;
        let q = self.model.embed(&[question])?.pop()?;
        let mut scored: Vec<(usize, f32)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i, baton_embed::similarity(&q, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        Some(scored.into_iter().map(|(i, _)| i).collect())
    }

    fn vectors_of(&self, key: &str, chunks: &[Chunk]) -> Option<Arc<Vec<Vec<f32>>>> {
        if let Some((_, v)) = self.lock().get(key) {
            return Some(Arc::clone(v));
        }
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        let v = Arc::new(self.model.embed(&texts)?);
        let n = self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut kept = self.lock();
        if kept.len() >= KEPT_TEXTS
            && let Some(oldest) = kept
                .iter()
                .min_by_key(|(_, (n, _))| *n)
                .map(|(k, _)| k.clone())
        {
            kept.remove(&oldest);
        }
        kept.insert(key.to_string(), (n, Arc::clone(&v)));
        Some(v)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptVectors> {
        self.vectors.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Chunk indices matching the question's words, best first (BM25 over an
/// index in memory with the workspace index's tokenizer).
fn words_ranking(chunks: &[Chunk], question: &str) -> Vec<usize> {
    let ranked = || -> tantivy::Result<Vec<usize>> {
        let mut b = Schema::builder();
        let indexing = TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let body = b.add_text_field(
            "body",
            TextOptions::default().set_indexing_options(indexing),
        );
        let n = b.add_u64_field("n", tantivy::schema::STORED);
        let index = Index::create_in_ram(b.build());
        register_tokenizer(&index);
        let mut w = index.writer_with_num_threads(1, 15_000_000)?;
        for (i, c) in chunks.iter().enumerate() {
            w.add_document(doc!(body => c.text.as_str(), n => i as u64))?;
        }
        w.commit()?;
        let searcher = index.reader()?.searcher();
        let (query, _) = QueryParser::for_index(&index, vec![body]).parse_query_lenient(question);
        let top = searcher.search(
            &query,
            &TopDocs::with_limit(chunks.len().max(1)).order_by_score(),
        )?;
        Ok(top
            .into_iter()
            .filter_map(|(_, a)| {
                let d: TantivyDocument = searcher.doc(a).ok()?;
                d.get_first(n).and_then(|v| v.as_u64()).map(|v| v as usize)
            })
            .collect())
    };
    ranked().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "attachment passages: the word ranking failed");
        Vec::new()
    })
}

/// Reciprocal rank fusion of the two rankings; chunks neither found
/// follow in the text's order (a question that matches nothing still
/// gets the text's start).
fn fuse_ranks(words: Vec<usize>, meaning: Vec<usize>, n: usize) -> Vec<usize> {
    let score = baton_embed::fused_scores([words, meaning], n);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|a, b| score[*b].total_cmp(&score[*a]).then(a.cmp(b)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_text() -> String {
        let mut md = String::new();
        for page in 1..=40 {
            md.push_str(&format!("<!-- page {page} -->\n\n## Chapter {page}\n\n"));
            for line in 0..12 {
                md.push_str(&format!(
                    "Line {line} of chapter {page} talks about the weather, the harvest and the roads.\n"
                ));
            }
            if page == 31 {
                md.push_str("The pilotage fee for the harbour came to 4,200 EUR in March.\n");
            }
            md.push('\n');
        }
        md
    }

    #[test]
    fn the_passage_with_the_questions_words_is_chosen_whatever_the_page() {
        let finder = PassageFinder::new(SharedEmbedder::new(None));
        let got = finder.find("k", &long_text(), "pilotage fee", 2000);
        assert!(got.total_chunks > 20, "{}", got.total_chunks);
        assert!(!got.by_meaning);
        assert!(
            got.chunks.iter().any(|c| c.text.contains("4,200 EUR")),
            "{got:?}"
        );
        assert!(got.chunks.iter().any(|c| c.location.contains("page 31")));
        let used: usize = got.chunks.iter().map(|c| c.text.chars().count()).sum();
        assert!(used <= 2000);
        // In the text's order.
        assert!(got.chunks.windows(2).all(|w| w[0].offset < w[1].offset));
    }

    #[test]
    fn without_a_matching_word_the_text_starts_the_selection() {
        let got =
            PassageFinder::new(SharedEmbedder::new(None)).find("k", &long_text(), "zebra", 1500);
        assert!(
            got.chunks[0].location.contains("page 1"),
            "{:?}",
            got.chunks[0]
        );
    }

    #[test]
    fn fusion_puts_what_both_found_first() {
        assert_eq!(fuse_ranks(vec![2, 0], vec![0, 3], 4), vec![0, 2, 3, 1]);
    }
}
