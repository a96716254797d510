//! The chunks' embedding vectors (baton-embed), for search by meaning.
//!
//! Each vector is stored with its chunk in tantivy (a stored bytes field),
//! so a changed file's chunks and their vectors are replaced together and
//! only that file is embedded again. For search they are held in memory,
//! read once from the index on first use, and the question is compared
//! with every one (brute force: 384 multiply-adds a chunk, a few
//! milliseconds for 10,000 documents; `make bench` measures it).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use baton_embed::{DIMENSIONS, SharedEmbedder};
use tantivy::Searcher;
use tantivy::schema::{TantivyDocument, Value};

use crate::schema::Fields;

/// The vectors of every chunk, by document and chunk offset.
type Table = HashMap<String, Vec<(u64, Vec<f32>)>>;

/// The embedding model (shared, loaded on first use) and the vectors in
/// memory.
pub(crate) struct Vectors {
    model: Arc<SharedEmbedder>,
    table: RwLock<Option<Table>>,
}

impl Vectors {
    /// Vectors made by `model` (none installed: search by words only).
    pub fn new(model: Arc<SharedEmbedder>) -> Vectors {
        Vectors {
            model,
            table: RwLock::new(None),
        }
    }

    /// Whether the model loads (said once in the log when it does not).
    pub fn has_model(&self) -> bool {
        self.model.model().is_some()
    }

    /// Each text's vector; none if the model is missing or fails.
    pub fn embed(&self, texts: &[String]) -> Option<Vec<Vec<f32>>> {
        self.model.embed(texts)
    }

    /// Waits for a model run in progress; none starts after.
    pub fn stop(&self) {
        self.model.stop();
    }

    /// Reads every stored vector of the index once.
    fn ensure_loaded(&self, searcher: &Searcher, fields: Fields) {
        if self.table.read().map(|t| t.is_some()).unwrap_or(false) {
            return;
        }
        let mut table = Table::new();
        for segment in searcher.segment_readers() {
            let Ok(store) = segment.get_store_reader(64) else {
                continue;
            };
            for doc in segment.doc_ids_alive() {
                let Ok(d) = store.get::<TantivyDocument>(doc) else {
                    continue;
                };
                let path = d.get_first(fields.path).and_then(|v| v.as_str());
                let offset = d.get_first(fields.offset).and_then(|v| v.as_u64());
                let vector = d.get_first(fields.vector).and_then(|v| v.as_bytes());
                if let (Some(path), Some(offset), Some(v)) =
                    (path, offset, vector.and_then(from_bytes))
                {
                    table.entry(path.to_string()).or_default().push((offset, v));
                }
            }
        }
        if let Ok(mut t) = self.table.write() {
            t.get_or_insert(table);
        }
    }

    /// Replaces a document's vectors (none: removes it).
    pub fn put(
        &self,
        searcher: &Searcher,
        fields: Fields,
        path: &str,
        chunks: Vec<(u64, Vec<f32>)>,
    ) {
        self.ensure_loaded(searcher, fields);
        if let Ok(mut t) = self.table.write()
            && let Some(table) = t.as_mut()
        {
            if chunks.is_empty() {
                table.remove(path);
            } else {
                table.insert(path.to_string(), chunks);
            }
        }
    }

    /// The `k` chunks nearest `query`: (document, chunk offset, likeness).
    pub fn nearest(
        &self,
        searcher: &Searcher,
        fields: Fields,
        query: &[f32],
        k: usize,
    ) -> Vec<(String, u64, f32)> {
        self.ensure_loaded(searcher, fields);
        let Ok(t) = self.table.read() else {
            return Vec::new();
        };
        let mut all: Vec<(String, u64, f32)> = t
            .iter()
            .flatten()
            .flat_map(|(path, chunks)| {
                chunks.iter().map(move |(offset, v)| {
                    (path.clone(), *offset, baton_embed::similarity(query, v))
                })
            })
            .collect();
        all.sort_by(|a, b| b.2.total_cmp(&a.2));
        all.truncate(k);
        all
    }

    /// Chunks with a vector.
    pub fn count(&self, searcher: &Searcher, fields: Fields) -> usize {
        self.ensure_loaded(searcher, fields);
        self.table
            .read()
            .map(|t| t.iter().flatten().map(|(_, c)| c.len()).sum())
            .unwrap_or(0)
    }
}

/// A vector as the bytes stored with its chunk (little-endian f32s).
pub(crate) fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Option<Vec<f32>> {
    (b.len() == DIMENSIONS * 4).then(|| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}
