//! The workspace search index.
//!
//! Every document under the workspace folder is converted to Markdown
//! (`baton-convert`), cut into heading-aware chunks with overlap and
//! indexed with tantivy: BM25 ranking, `"phrase"` and `field:` queries,
//! results with highlighted snippets and where in the document they are.
//! With an embedding model ([`IndexOptions::embedding`]) each chunk also
//! gets a vector, and search fuses the word ranking with the ranking by
//! meaning (reciprocal rank fusion), so a question worded differently from
//! the document still finds it.
//!
//! [`WorkspaceIndex::sync`] brings the index up to date incrementally (size
//! and modification time, then a content hash, decide what is re-read);
//! [`WorkspaceIndex::watch`] keeps it fresh while the app runs. One process
//! writes at a time: a second gets [`IndexError::Busy`] and can still search.

mod chunk;
mod error;
mod index;
mod manifest;
mod passages;
mod schema;
mod vectors;
mod watch;

pub use chunk::{Chunk, chunk_markdown};
pub use error::IndexError;
pub use index::{IndexOptions, IndexProgress, IndexStats, SearchHit, SearchMode, WorkspaceIndex};
pub use passages::{PassageFinder, Passages};
pub use watch::IndexWatcher;
