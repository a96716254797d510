//! [`WorkspaceIndex`]: open, sync, update, search.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, UNIX_EPOCH};

use baton_convert::{ConvertOptions, Format};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::directory::error::LockError;
use tantivy::query::QueryParser;
use tantivy::schema::{TantivyDocument, Term, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyError, doc};

use crate::chunk::chunk_markdown;
use crate::error::IndexError;
use crate::manifest::{Entry, Manifest};
use crate::schema::{self, Fields, SCHEMA_VERSION};
use crate::vectors::{Vectors, to_bytes};
use baton_embed::SharedEmbedder;

/// How the index reads documents.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Conversion limits and OCR.
    pub convert: ConvertOptions,
    /// Target chunk size in characters.
    pub chunk_chars: usize,
    /// Characters repeated between consecutive chunks of a section.
    pub overlap_chars: usize,
    /// Files larger than this are listed but not read (bytes).
    pub max_file_bytes: u64,
    /// Read text out of images with OCR (slow on photo folders).
    pub ocr_images: bool,
    /// The embedding model that gives each chunk a vector (none: search
    /// by words only). Loaded on first use.
    pub embedding: Option<Arc<SharedEmbedder>>,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            convert: ConvertOptions::default(),
            chunk_chars: 1200,
            overlap_chars: 150,
            max_file_bytes: 50 << 20,
            ocr_images: false,
            embedding: None,
        }
    }
}

/// Progress of a scan, for a progress bar or a UI event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// Files looked at.
    pub done: usize,
    /// Files found.
    pub total: usize,
    /// The file being read.
    pub current: Option<String>,
}

/// What a scan did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexStats {
    /// Files found in the workspace.
    pub files: usize,
    /// Files (re)indexed.
    pub indexed: usize,
    /// Files unchanged since the last scan.
    pub unchanged: usize,
    /// Files removed from the index.
    pub removed: usize,
    /// Files that could not be converted (with reasons in the log).
    pub skipped: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Markdown characters indexed.
    pub markdown_chars: usize,
}

/// One search result: the best chunk of a document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// Agent path of the document.
    pub path: String,
    /// Its title.
    pub title: String,
    /// Its format (`pdf`, `docx`…).
    pub format: String,
    /// The ranking score: BM25, or with vectors the fused rank score.
    pub score: f32,
    /// The best chunk's BM25 score, when the words matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25: Option<f32>,
    /// The best chunk's likeness to the question (-1 to 1), when it was
    /// among the nearest by meaning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// The matching passage, query words in `**bold**`.
    pub snippet: String,
    /// Where the passage is: `page 3 · Financials`.
    pub location: String,
    /// Character offset of the passage in the converted document (for
    /// `read_document`).
    pub offset: u64,
    /// Modification time, seconds since 1970.
    pub modified: u64,
}

/// Which rankings a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SearchMode {
    /// Words (BM25) and, with an embedding model, meaning, fused.
    #[default]
    Hybrid,
    /// Words only (BM25).
    Words,
    /// Meaning only (nothing without an embedding model).
    Meaning,
}

/// A chunk found by words, by meaning, or both.
#[derive(Debug, Clone)]
struct Candidate {
    path: String,
    offset: u64,
    address: Option<tantivy::DocAddress>,
    bm25: Option<f32>,
    similarity: Option<f32>,
    score: f32,
}

/// Both rankings as one, by reciprocal rank fusion: a chunk's score is
/// the sum of 1 / (60 + its rank) in each list. Without a ranking by
/// meaning the words' order and BM25 scores stay as they are.
fn fuse(words: Vec<Candidate>, meaning: Vec<Candidate>) -> Vec<Candidate> {
    if meaning.is_empty() {
        return words;
    }
    let mut fused: Vec<Candidate> = Vec::new();
    for (list, from_words) in [(words, true), (meaning, false)] {
        for (rank, c) in list.into_iter().enumerate() {
            let add = baton_embed::rrf(rank);
            match fused
                .iter_mut()
                .find(|f| f.path == c.path && f.offset == c.offset)
            {
                Some(f) if from_words => {
                    (f.bm25, f.address, f.score) = (c.bm25, c.address, f.score + add)
                }
                Some(f) => (f.similarity, f.score) = (c.similarity, f.score + add),
                None => fused.push(Candidate { score: add, ..c }),
            }
        }
    }
    // Equal scores: found both ways first, then by words.
    let tier = |c: &Candidate| u8::from(c.bm25.is_some()) + u8::from(c.similarity.is_some()) * 2;
    fused.sort_by(|a, b| b.score.total_cmp(&a.score).then(tier(b).cmp(&tier(a))));
    fused
}

fn field_text(d: &TantivyDocument, field: tantivy::schema::Field) -> String {
    d.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

/// The search index of one workspace folder.
pub struct WorkspaceIndex {
    root: PathBuf,
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    writer: Mutex<Option<IndexWriter>>,
    manifest: Mutex<Manifest>,
    vectors: Vectors,
    options: IndexOptions,
}

impl std::fmt::Debug for WorkspaceIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkspaceIndex")
            .field("root", &self.root)
            .field("dir", &self.dir)
            .finish()
    }
}

fn open_err(dir: &Path, reason: impl std::fmt::Display) -> IndexError {
    IndexError::Open {
        path: dir.display().to_string(),
        reason: reason.to_string(),
    }
}

/// `root/a/b.pdf` → `/a/b.pdf`.
fn agent_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut s = String::new();
    for c in rel.components() {
        s.push('/');
        s.push_str(c.as_os_str().to_str()?);
    }
    (!s.is_empty()).then_some(s)
}

/// Hidden folders, backups and temporary files are not documents.
pub(crate) fn is_ignored(name: &str) -> bool {
    name.starts_with('.')
        || name.starts_with("~$")
        || name.ends_with('~')
        || name.ends_with(".bak")
        || name.ends_with(".tmp")
        || name.ends_with(".swp")
        || name == "node_modules"
        || name == "__pycache__"
}

fn modified_secs(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl WorkspaceIndex {
    /// Opens (or creates) the index for workspace `root`, stored in `dir`.
    /// An index built with an older schema, or for another folder, is
    /// rebuilt from scratch.
    pub fn open(root: &Path, dir: &Path, options: IndexOptions) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir).map_err(|e| open_err(dir, e))?;
        let root = root.canonicalize().map_err(|e| open_err(root, e))?;
        let (schema, fields) = schema::build();
        let mut manifest = Manifest::load(dir);
        let stale = manifest.version != SCHEMA_VERSION || manifest.root != root;
        let tantivy_dir = dir.join("tantivy");
        if stale && tantivy_dir.exists() {
            // Only safe when nobody else is writing: try the lock first.
            let probe = MmapDirectory::open(&tantivy_dir)
                .ok()
                .and_then(|d| Index::open(d).ok());
            let busy = probe.is_some_and(|i| {
                matches!(
                    i.writer::<TantivyDocument>(15_000_000),
                    Err(TantivyError::LockFailure(LockError::LockBusy, _))
                )
            });
            if busy {
                return Err(IndexError::Busy);
            }
            std::fs::remove_dir_all(&tantivy_dir).map_err(|e| open_err(dir, e))?;
        }
        if stale {
            manifest = Manifest {
                version: SCHEMA_VERSION,
                root: root.clone(),
                files: Default::default(),
            };
        }
        std::fs::create_dir_all(&tantivy_dir).map_err(|e| open_err(dir, e))?;
        let mmap = MmapDirectory::open(&tantivy_dir).map_err(|e| open_err(dir, e))?;
        let index = Index::open_or_create(mmap, schema).map_err(|e| open_err(dir, e))?;
        schema::register_tokenizer(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|e: TantivyError| open_err(dir, e))?;
        Ok(Self {
            root,
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            writer: Mutex::new(None),
            manifest: Mutex::new(manifest),
            vectors: Vectors::new(
                options
                    .embedding
                    .clone()
                    .unwrap_or_else(|| SharedEmbedder::new(None)),
            ),
            options,
        })
    }

    /// The workspace folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Documents in the index.
    pub fn document_count(&self) -> usize {
        self.manifest()
            .files
            .values()
            .filter(|e| e.skipped.is_none())
            .count()
    }

    fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut IndexWriter) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let mut slot = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let w = self
                .index
                .writer_with_num_threads(1, 64_000_000)
                .map_err(|e| match e {
                    TantivyError::LockFailure(LockError::LockBusy, _) => IndexError::Busy,
                    other => IndexError::Tantivy(other),
                })?;
            *slot = Some(w);
            // Another process may have written since we opened: start from its manifest.
            let fresh = Manifest::load(&self.dir);
            if fresh.version == SCHEMA_VERSION && fresh.root == self.root {
                *self.manifest() = fresh;
            }
        }
        f(slot.as_mut().expect("just set"))
    }

    fn commit(&self) -> Result<(), IndexError> {
        self.with_writer(|w| {
            w.commit()?;
            Ok(())
        })?;
        self.reader.reload()?;
        let manifest = self.manifest();
        manifest.save(&self.dir).map_err(|source| IndexError::Io {
            action: "save",
            path: Manifest::path(&self.dir).display().to_string(),
            source,
        })
    }

    /// Files the index should hold: documents under the root, hidden
    /// folders and backups left out.
    fn walk(&self) -> Vec<PathBuf> {
        walkdir::WalkDir::new(&self.root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !is_ignored(&e.file_name().to_string_lossy()))
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && self.wants(e.path()))
            .map(|e| e.into_path())
            .collect()
    }

    /// Whether a path is a document this index reads.
    pub(crate) fn wants(&self, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match Format::from_extension(&name) {
            Some(Format::Image) => self.options.ocr_images,
            Some(_) => !is_ignored(&name),
            None => false,
        }
    }

    /// Brings the index up to date with the folder: new and changed files
    /// are (re)indexed, deleted ones removed. Commits every couple of
    /// seconds so search sees progress.
    pub fn sync(
        &self,
        progress: &(dyn Fn(&IndexProgress) + Sync),
    ) -> Result<IndexStats, IndexError> {
        self.try_writer()?;
        let files = self.walk();
        let mut stats = IndexStats {
            files: files.len(),
            ..IndexStats::default()
        };
        let mut seen = std::collections::HashSet::new();
        let mut last_commit = Instant::now();
        let mut dirty = false;
        for (i, path) in files.iter().enumerate() {
            let Some(agent) = agent_path(&self.root, path) else {
                continue;
            };
            progress(&IndexProgress {
                done: i,
                total: files.len(),
                current: Some(agent.clone()),
            });
            seen.insert(agent.clone());
            match self.update_file(path, &agent)? {
                Update::Unchanged => stats.unchanged += 1,
                Update::Indexed { chunks, chars } => {
                    stats.indexed += 1;
                    stats.chunks += chunks;
                    stats.markdown_chars += chars;
                    dirty = true;
                }
                Update::Skipped => {
                    stats.skipped += 1;
                    dirty = true;
                }
            }
            if dirty && last_commit.elapsed().as_secs_f32() > 2.0 {
                self.commit()?;
                last_commit = Instant::now();
                dirty = false;
            }
        }
        let gone: Vec<String> = {
            let m = self.manifest();
            m.files
                .keys()
                .filter(|k| !seen.contains(*k))
                .cloned()
                .collect()
        };
        for agent in gone {
            self.remove_doc(&agent)?;
            stats.removed += 1;
            dirty = true;
        }
        if dirty || stats.files == 0 {
            self.commit()?;
        }
        progress(&IndexProgress {
            done: files.len(),
            total: files.len(),
            current: None,
        });
        Ok(stats)
    }

    /// Deletes everything and indexes the folder again.
    pub fn rebuild(
        &self,
        progress: &(dyn Fn(&IndexProgress) + Sync),
    ) -> Result<IndexStats, IndexError> {
        self.with_writer(|w| {
            w.delete_all_documents()?;
            Ok(())
        })?;
        self.manifest().files.clear();
        self.sync(progress)
    }

    fn remove_doc(&self, agent: &str) -> Result<(), IndexError> {
        let term = Term::from_field_text(self.fields.path, agent);
        self.with_writer(|w| {
            w.delete_term(term);
            Ok(())
        })?;
        if self.by_meaning() {
            let searcher = self.reader.searcher();
            self.vectors.put(&searcher, self.fields, agent, Vec::new());
        }
        self.manifest().files.remove(agent);
        Ok(())
    }

    /// The manifest, locked.
    fn manifest(&self) -> std::sync::MutexGuard<'_, Manifest> {
        self.manifest.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Re-reads whatever changed at `paths` (files or folders, present or
    /// gone) and commits: what the watcher calls.
    pub fn refresh_paths(&self, paths: &[PathBuf]) -> Result<usize, IndexError> {
        let mut changed = 0;
        for path in paths {
            let Some(agent) = agent_path(&self.root, path) else {
                continue;
            };
            if agent.split('/').any(is_ignored) {
                continue;
            }
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_file() => {
                    if self.wants(path)
                        && !matches!(self.update_file(path, &agent)?, Update::Unchanged)
                    {
                        changed += 1;
                    }
                }
                Ok(meta) if meta.is_dir() => {
                    // A folder appeared or was renamed into place: read what is new under it.
                    for entry in walkdir::WalkDir::new(path)
                        .into_iter()
                        .filter_map(Result::ok)
                    {
                        if entry.file_type().is_file()
                            && self.wants(entry.path())
                            && let Some(a) = agent_path(&self.root, entry.path())
                            && !matches!(self.update_file(entry.path(), &a)?, Update::Unchanged)
                        {
                            changed += 1;
                        }
                    }
                }
                _ => {
                    // Gone: the file, or everything under the folder.
                    let prefix = format!("{agent}/");
                    let doomed: Vec<String> = {
                        let m = self.manifest();
                        m.files
                            .keys()
                            .filter(|k| **k == agent || k.starts_with(&prefix))
                            .cloned()
                            .collect()
                    };
                    for d in doomed {
                        self.remove_doc(&d)?;
                        changed += 1;
                    }
                }
            }
        }
        if changed > 0 {
            self.commit()?;
        }
        Ok(changed)
    }

    fn update_file(&self, path: &Path, agent: &str) -> Result<Update, IndexError> {
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(Update::Unchanged);
        };
        let (size, modified) = (meta.len(), modified_secs(&meta));
        let known = self
            .manifest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .files
            .get(agent)
            .cloned();
        if let Some(k) = &known
            && k.size == size
            && k.modified == modified
            && !self.needs_vectors(k)
        {
            return Ok(Update::Unchanged);
        }
        if size > self.options.max_file_bytes {
            let reason = format!("larger than {} bytes", self.options.max_file_bytes);
            self.remove_doc(agent)?;
            return Ok(self.skip(agent, (size, modified), String::new(), reason));
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                tracing::debug!(path = agent, error = %e, "cannot read; skipped");
                return Ok(Update::Unchanged);
            }
        };
        let hash = format!("{:x}", Sha256::digest(&bytes));
        if let Some(k) = &known
            && k.hash == hash
            && !self.needs_vectors(k)
        {
            self.record(
                agent,
                Entry {
                    size,
                    modified,
                    ..k.clone()
                },
            );
            return Ok(Update::Unchanged);
        }
        self.remove_doc(agent)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes: Arc<[u8]> = bytes.into();
        match baton_convert::convert_bounded(&name, bytes, &self.options.convert) {
            Ok(conversion) => self.write_chunks(agent, &name, &conversion, (size, modified, hash)),
            Err(e) => {
                tracing::info!(path = agent, reason = %e, "not indexed");
                Ok(self.skip(agent, (size, modified), hash, e.to_string()))
            }
        }
    }

    /// Records a file left out of the index, and why.
    fn skip(
        &self,
        agent: &str,
        (size, modified): (u64, u64),
        hash: String,
        reason: String,
    ) -> Update {
        let skipped = Some(reason);
        let entry = Entry {
            size,
            modified,
            hash,
            skipped,
            embedded: false,
        };
        self.record(agent, entry);
        Update::Skipped
    }

    /// Writes a converted file's chunks (with their vectors, when the
    /// model runs) and records it as read.
    fn write_chunks(
        &self,
        agent: &str,
        name: &str,
        conversion: &baton_convert::Conversion,
        (size, modified, hash): (u64, u64, String),
    ) -> Result<Update, IndexError> {
        let chunks = chunk_markdown(
            &conversion.markdown,
            self.options.chunk_chars,
            self.options.overlap_chars,
        );
        let title = match &conversion.title {
            Some(t) if !t.is_empty() => format!("{t} ({name})"),
            _ => name.to_string(),
        };
        let format = format!("{:?}", conversion.format).to_lowercase();
        let f = self.fields;
        let vectors = self.chunk_vectors(&chunks);
        self.with_writer(|w| {
            for (i, c) in chunks.iter().enumerate() {
                let mut d = doc!(
                    f.path => agent,
                    f.title => title.as_str(),
                    f.heading => c.heading.as_str(),
                    f.body => c.text.as_str(),
                    f.format => format.as_str(),
                    f.modified => modified,
                    f.offset => c.offset as u64,
                    f.location => c.location.as_str(),
                );
                if let Some(v) = vectors.as_ref().and_then(|v| v.get(i)) {
                    d.add_bytes(f.vector, &to_bytes(v));
                }
                w.add_document(d)?;
            }
            Ok(())
        })?;
        let embedded = vectors.is_some();
        if let Some(vectors) = vectors {
            let table = chunks
                .iter()
                .map(|c| c.offset as u64)
                .zip(vectors)
                .collect();
            self.vectors.put(&self.reader.searcher(), f, agent, table);
        }
        self.record(
            agent,
            Entry {
                size,
                modified,
                hash,
                skipped: None,
                embedded,
            },
        );
        Ok(Update::Indexed {
            chunks: chunks.len(),
            chars: conversion.markdown.len(),
        })
    }

    /// Each chunk's vector (its heading trail and text), when a model is
    /// set and runs.
    fn chunk_vectors(&self, chunks: &[crate::chunk::Chunk]) -> Option<Vec<Vec<f32>>> {
        if !self.by_meaning() {
            return None;
        }
        let texts: Vec<String> = chunks
            .iter()
            .map(|c| format!("{}\n{}", c.heading, c.text))
            .collect();
        self.vectors.embed(&texts)
    }

    /// Whether a file read before has chunks without vectors that the
    /// model (set and loadable) should give them: the setting was turned
    /// on, or embedding failed when it was read.
    fn needs_vectors(&self, known: &Entry) -> bool {
        self.by_meaning() && known.skipped.is_none() && !known.embedded && self.vectors.has_model()
    }

    /// Whether chunks get vectors: an embedding model is installed.
    fn by_meaning(&self) -> bool {
        self.options
            .embedding
            .as_ref()
            .is_some_and(|e| e.is_installed())
    }

    /// Stops embedding, for a process about to exit: waits for the batch
    /// the model is running (under a second) and starts none after; files
    /// read meanwhile get their vectors at a later scan.
    pub fn stop_embedding(&self) {
        self.vectors.stop();
    }

    /// Chunks with a vector (0 without a model).
    pub fn embedded_chunks(&self) -> usize {
        if !self.by_meaning() {
            return 0;
        }
        self.vectors.count(&self.reader.searcher(), self.fields)
    }

    fn record(&self, agent: &str, entry: Entry) {
        self.manifest().files.insert(agent.to_string(), entry);
    }

    /// Searches the index: words (BM25), `"exact phrases"`, and fields
    /// (`title:`, `heading:`, `format:pdf`); with an embedding model also
    /// by meaning, the two rankings fused. One hit per document, its best
    /// passage, best first.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, IndexError> {
        self.search_by(query, limit, SearchMode::Hybrid)
    }

    /// [`Self::search`] with the rankings `mode` names (to compare them, or
    /// to search by words alone).
    pub fn search_by(
        &self,
        query: &str,
        limit: usize,
        mode: SearchMode,
    ) -> Result<Vec<SearchHit>, IndexError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(IndexError::Query("the query is empty".into()));
        }
        let limit = limit.clamp(1, 100);
        let searcher = self.reader.searcher();
        let (parsed, mut words) = self.word_chunks(&searcher, query, limit * 4)?;
        if mode == SearchMode::Meaning {
            words.clear();
        }
        let meaning = match mode {
            SearchMode::Words => Vec::new(),
            _ => self.meaning_chunks(&searcher, query, limit * 4),
        };
        let ranked = fuse(words, meaning);
        let mut snippets = SnippetGenerator::create(&searcher, &*parsed, self.fields.body)?;
        snippets.set_max_num_chars(240);
        let mut hits: Vec<SearchHit> = Vec::new();
        for c in ranked {
            if hits.iter().any(|h| h.path == c.path) {
                continue;
            }
            let address = match c.address {
                Some(a) => Some(a),
                None => self.find_chunk(&searcher, &c.path, c.offset)?,
            };
            let Some(address) = address else { continue };
            let d: TantivyDocument = searcher.doc(address)?;
            hits.push(self.hit(&d, &snippets, &c));
            if hits.len() == limit {
                break;
            }
        }
        Ok(hits)
    }

    /// The best `n` chunks by words: the parsed query and (BM25, chunk).
    fn word_chunks(
        &self,
        searcher: &tantivy::Searcher,
        query: &str,
        n: usize,
    ) -> Result<(Box<dyn tantivy::query::Query>, Vec<Candidate>), IndexError> {
        let f = self.fields;
        let mut parser = QueryParser::for_index(&self.index, vec![f.title, f.heading, f.body]);
        parser.set_field_boost(f.title, 2.0);
        parser.set_field_boost(f.heading, 1.5);
        let (parsed, errors) = parser.parse_query_lenient(query);
        if !errors.is_empty() {
            tracing::debug!(?errors, "query partly ignored");
        }
        let top = searcher.search(&parsed, &TopDocs::with_limit(n).order_by_score())?;
        let mut out = Vec::with_capacity(top.len());
        for (score, address) in top {
            let d: TantivyDocument = searcher.doc(address)?;
            out.push(Candidate {
                path: field_text(&d, f.path),
                offset: d.get_first(f.offset).and_then(|v| v.as_u64()).unwrap_or(0),
                address: Some(address),
                bm25: Some(score),
                similarity: None,
                score,
            });
        }
        Ok((parsed, out))
    }

    /// The `n` chunks nearest the question by meaning (none without a
    /// model).
    fn meaning_chunks(
        &self,
        searcher: &tantivy::Searcher,
        query: &str,
        n: usize,
    ) -> Vec<Candidate> {
        if !self.by_meaning() {
            return Vec::new();
        }
        let Some(q) = self
            .vectors
            .embed(&[query.to_string()])
            .and_then(|mut v| v.pop())
        else {
            return Vec::new();
        };
        self.vectors
            .nearest(searcher, self.fields, &q, n)
            .into_iter()
            .filter(|(_, _, likeness)| *likeness >= baton_embed::MIN_LIKENESS)
            .map(|(path, offset, likeness)| Candidate {
                path,
                offset,
                address: None,
                bm25: None,
                similarity: Some(likeness),
                score: likeness,
            })
            .collect()
    }

    /// The stored chunk of `path` at `offset`.
    fn find_chunk(
        &self,
        searcher: &tantivy::Searcher,
        path: &str,
        offset: u64,
    ) -> Result<Option<tantivy::DocAddress>, IndexError> {
        let term = Term::from_field_text(self.fields.path, path);
        let q = tantivy::query::TermQuery::new(term, tantivy::schema::IndexRecordOption::Basic);
        for (_, address) in searcher.search(&q, &TopDocs::with_limit(10_000).order_by_score())? {
            let d: TantivyDocument = searcher.doc(address)?;
            if d.get_first(self.fields.offset).and_then(|v| v.as_u64()) == Some(offset) {
                return Ok(Some(address));
            }
        }
        Ok(None)
    }

    fn hit(&self, d: &TantivyDocument, snippets: &SnippetGenerator, c: &Candidate) -> SearchHit {
        let f = self.fields;
        let num = |field| d.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
        let snippet = snippets.snippet_from_doc(d);
        let snippet = if snippet.is_empty() {
            field_text(d, f.body).chars().take(240).collect::<String>()
        } else {
            let frag = snippet.fragment();
            let mut out = String::new();
            let mut last = 0;
            for r in snippet.highlighted() {
                out.push_str(&frag[last..r.start]);
                out.push_str("**");
                out.push_str(&frag[r.start..r.end]);
                out.push_str("**");
                last = r.end;
            }
            out.push_str(&frag[last..]);
            out
        };
        SearchHit {
            path: c.path.clone(),
            title: field_text(d, f.title),
            format: field_text(d, f.format),
            score: c.score,
            bm25: c.bm25,
            similarity: c.similarity,
            snippet: snippet.split_whitespace().collect::<Vec<_>>().join(" "),
            location: field_text(d, f.location),
            offset: num(f.offset),
            modified: num(f.modified),
        }
    }

    /// Whether this process holds the writer lock (or could take it).
    pub fn try_writer(&self) -> Result<(), IndexError> {
        self.with_writer(|_| Ok(()))
    }

    /// Releases the writer lock (other processes may then index).
    pub fn release_writer(&self) {
        let mut slot = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = slot.take()
            && let Err(e) = w.wait_merging_threads()
        {
            tracing::warn!(error = %e, "index merge did not finish");
        }
    }

    /// Files that could not be indexed, with the reason.
    pub fn skipped(&self) -> Vec<(String, String)> {
        let m = self.manifest();
        m.files
            .iter()
            .filter_map(|(k, e)| e.skipped.clone().map(|r| (k.clone(), r)))
            .collect()
    }
}

enum Update {
    Unchanged,
    Indexed { chunks: usize, chars: usize },
    Skipped,
}
