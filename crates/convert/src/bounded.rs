//! A conversion on its own thread, with a deadline and panic isolation.

use std::sync::Arc;
use std::sync::mpsc;

use crate::{Conversion, ConvertError, ConvertOptions, convert};

/// Converts on a worker thread and gives up after `options.timeout`.
///
/// A converter that panics on a hostile file yields
/// [`ConvertError::Crashed`]; one that runs past the deadline yields
/// [`ConvertError::Timeout`] and is left to finish in the background (its
/// memory is bounded by the size limits).
pub fn convert_bounded(
    name: &str,
    bytes: Arc<[u8]>,
    options: &ConvertOptions,
) -> Result<Conversion, ConvertError> {
    let (tx, rx) = mpsc::sync_channel(1);
    let name_owned = name.to_string();
    let opts = options.clone();
    let spawned = std::thread::Builder::new()
        .name("baton-convert".into())
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                convert(&name_owned, &bytes, &opts)
            }));
            let result = result.unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(ConvertError::Crashed(what))
            });
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(ConvertError::Crashed(format!("cannot start a thread: {e}")));
    }
    match rx.recv_timeout(options.timeout) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            tracing::warn!(file = name, "conversion timed out");
            Err(ConvertError::Timeout {
                secs: options.timeout.as_secs().max(1),
            })
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(ConvertError::Crashed(
            "the converter stopped without an answer".into(),
        )),
    }
}
