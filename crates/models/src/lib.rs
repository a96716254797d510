//! Local models beyond the embedded one.
//!
//! - [`Catalog`]: the shipped list of recommended GGUF models (size,
//!   licence, context, the memory each needs, the tasks it suits, the
//!   publisher's download address and SHA-256), with the user's own
//!   entries over it.
//! - [`pull`]: a download into the models folder that checks the free
//!   space first, resumes a part file, verifies the SHA-256 and only then
//!   puts the file in place (atomically).
//! - [`Hardware`]: this computer's memory, cores and GPU, and whether a
//!   catalog entry fits it ([`Fit`]).
//! - [`probe`]: the model servers already running here (Ollama, LM Studio,
//!   llama.cpp's server, vLLM), found on their usual loopback ports.

mod catalog;
mod hardware;
mod probe;
mod pull;

pub use catalog::{Catalog, CatalogEntry, CatalogError, HashLedger, Task};
pub use hardware::{Fit, Gpu, Hardware};
pub use probe::{BATON_SERVER_HEADER, FoundServer, ServerKind, ServerTarget, probe};
pub use pull::{Progress, PullError, PullOptions, Pulled, pull};
