//! A job the window starts and follows (a team, a research job): one at a
//! time, its events relayed on the window's channel as they come, its
//! result returned, its Stop kept in a slot of the app's state meanwhile.

use std::fmt::Display;
use std::sync::Mutex;

use baton_engine::api::team::CancellationToken;
use baton_engine::{EngineError, Run};
use serde::Serialize;
use tauri::ipc::Channel;

use crate::dto::{ErrorCode, IpcError};
use crate::error::IpcResult;
use crate::state::lock;

/// Starts a job with `start` unless `slot` holds one already (then
/// `busy`, in words), relays its events on `channel`, and returns its
/// result; `unfinished` says a job that ended without one.
pub(crate) async fn one_at_a_time<E, O, Er>(
    slot: &Mutex<Option<CancellationToken>>,
    busy: &str,
    start: impl FnOnce() -> Result<Run<E, Result<O, Er>>, EngineError>,
    channel: &Channel<E>,
    unfinished: &str,
) -> IpcResult<O>
where
    E: Serialize + Clone + Send + 'static,
    O: Send + 'static,
    Er: Display + Send + 'static,
{
    let mut run = {
        let mut held = lock(slot);
        if held.is_some() {
            return Err(IpcError::new(ErrorCode::Busy, busy));
        }
        let run = start()?;
        *held = Some(run.stopper());
        run
    };
    while let Some(e) = run.next().await {
        let _ = channel.send(e);
    }
    let result = run.finish().await;
    *lock(slot) = None;
    match result {
        Some(Ok(done)) => Ok(done),
        Some(Err(e)) => Err(IpcError::invalid(e.to_string())),
        None => Err(IpcError::new(ErrorCode::Internal, unfinished)),
    }
}
