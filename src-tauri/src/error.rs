//! Engine failures turned into [`IpcError`]s the UI can show.

use crate::dto::{ErrorCode, IpcError};

/// What every command returns.
pub type IpcResult<T> = Result<T, IpcError>;

impl IpcError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// The request is wrong.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// Adds the underlying error chain as details.
    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

/// The error chain below the top message, for `details`.
fn chain(e: &dyn std::error::Error) -> Option<String> {
    let mut parts = Vec::new();
    let mut source = e.source();
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    (!parts.is_empty()).then(|| parts.join(": "))
}

fn from_error(code: ErrorCode, e: &dyn std::error::Error) -> IpcError {
    IpcError {
        code,
        message: e.to_string(),
        details: chain(e),
    }
}

impl From<baton_engine::EngineError> for IpcError {
    fn from(e: baton_engine::EngineError) -> Self {
        use baton_engine::EngineError as E;
        let code = match &e {
            E::Provider(_) => ErrorCode::Provider,
            E::Providers(_) | E::UserProviders { .. } | E::Paths(_) | E::Settings(_) => {
                ErrorCode::Config
            }
            E::Attachment { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorCode::NotFound
            }
            E::Attachment { .. } | E::Workspace { .. } => ErrorCode::Io,
            E::Index(baton_engine::api::index::IndexError::Busy) => ErrorCode::Busy,
            E::Index(_) | E::Catalog(_) => ErrorCode::Internal,
            E::Agent { .. } => ErrorCode::Config,
            E::ModelCatalog(_) => ErrorCode::NotFound,
            E::Pull(_) => ErrorCode::Download,
            E::Speech(_) | E::Listen(_) | E::Audio(_) => ErrorCode::Audio,
            E::VoiceStart(_) => ErrorCode::Internal,
            E::VoiceEnded => ErrorCode::InvalidInput,
            E::Session(baton_engine::api::SessionError::NotFound(_)) => ErrorCode::NotFound,
            E::Session(baton_engine::api::SessionError::BadName(_)) => ErrorCode::InvalidInput,
            E::Session(_) | E::TransferFile { .. } => ErrorCode::Io,
            E::Transfer(_) => ErrorCode::InvalidInput,
            E::Project(p) => project_code(p),
            E::Branch(_) => ErrorCode::NotFound,
            E::Memory(baton_engine::api::memory::MemoryError::NotFound(_)) => ErrorCode::NotFound,
            E::Memory(baton_engine::api::memory::MemoryError::BadText(_)) => {
                ErrorCode::InvalidInput
            }
            E::Memory(_) => ErrorCode::Io,
            E::Schedule(s) => schedule_code(s),
            E::Research(_) => ErrorCode::Config,
        };
        from_error(code, &e)
    }
}

/// How the UI tells a scheduled task's failure.
fn schedule_code(e: &baton_engine::api::schedule::ScheduleError) -> ErrorCode {
    use baton_engine::api::schedule::ScheduleError as S;
    match e {
        S::NotFound(_) => ErrorCode::NotFound,
        S::When(_) | S::NoPrompt => ErrorCode::InvalidInput,
        S::Io { .. } | S::Damaged { .. } => ErrorCode::Io,
    }
}

impl From<baton_engine::api::schedule::BadTaskId> for IpcError {
    fn from(e: baton_engine::api::schedule::BadTaskId) -> Self {
        from_error(ErrorCode::InvalidInput, &e)
    }
}

/// How the UI tells a project's failure.
fn project_code(e: &baton_engine::api::projects::ProjectError) -> ErrorCode {
    use baton_engine::api::projects::ProjectError as P;
    match e {
        P::NotFound(_) => ErrorCode::NotFound,
        P::NameTaken(_) | P::BadName(_) | P::BadFolder(_) => ErrorCode::InvalidInput,
        P::Io { .. } | P::Damaged { .. } => ErrorCode::Io,
    }
}

impl From<baton_engine::RestoreFileError> for IpcError {
    fn from(e: baton_engine::RestoreFileError) -> Self {
        use baton_engine::RestoreFileError as R;
        match e {
            R::Workspace(e) => e.into(),
            R::Path(_) | R::Folder(_) | R::NotABackup { .. } => IpcError::invalid(e.to_string()),
            R::NoBackups(_) => IpcError::new(ErrorCode::NotFound, e.to_string()),
            R::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                IpcError::new(ErrorCode::NotFound, e.to_string())
            }
            R::Io { .. } => IpcError::new(ErrorCode::Io, e.to_string()),
        }
    }
}

impl From<baton_engine::api::LlmError> for IpcError {
    fn from(e: baton_engine::api::LlmError) -> Self {
        from_error(ErrorCode::Provider, &e)
    }
}

impl From<baton_engine::api::SessionError> for IpcError {
    fn from(e: baton_engine::api::SessionError) -> Self {
        use baton_engine::api::SessionError as S;
        let code = match &e {
            S::NotFound(_) => ErrorCode::NotFound,
            S::BadName(_) => ErrorCode::InvalidInput,
            S::Io { .. } | S::Corrupt { .. } | S::Unavailable { .. } => ErrorCode::Io,
        };
        from_error(code, &e)
    }
}

impl From<baton_engine::api::memory::MemoryError> for IpcError {
    fn from(e: baton_engine::api::memory::MemoryError) -> Self {
        use baton_engine::api::memory::MemoryError as M;
        let code = match &e {
            M::BadText(_) => ErrorCode::InvalidInput,
            M::NotFound(_) => ErrorCode::NotFound,
            M::Io { .. } | M::Damaged { .. } => ErrorCode::Io,
        };
        from_error(code, &e)
    }
}

impl From<baton_engine::api::memory::BadMemoryId> for IpcError {
    fn from(e: baton_engine::api::memory::BadMemoryId) -> Self {
        from_error(ErrorCode::InvalidInput, &e)
    }
}

impl From<baton_engine::api::BadSessionId> for IpcError {
    fn from(e: baton_engine::api::BadSessionId) -> Self {
        from_error(ErrorCode::InvalidInput, &e)
    }
}

impl From<baton_engine::api::settings::SecretError> for IpcError {
    fn from(e: baton_engine::api::settings::SecretError) -> Self {
        from_error(ErrorCode::Keychain, &e)
    }
}

impl From<baton_engine::api::settings::SettingsError> for IpcError {
    fn from(e: baton_engine::api::settings::SettingsError) -> Self {
        from_error(ErrorCode::Config, &e)
    }
}

impl From<baton_engine::api::index::IndexError> for IpcError {
    fn from(e: baton_engine::api::index::IndexError) -> Self {
        let code = match e {
            baton_engine::api::index::IndexError::Busy => ErrorCode::Busy,
            _ => ErrorCode::Internal,
        };
        from_error(code, &e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_keep_their_message_and_get_a_code() {
        let e: IpcError = baton_engine::api::SessionError::NotFound(
            baton_engine::api::SessionId::parse("abc").unwrap(),
        )
        .into();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("abc"), "{}", e.message);
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["code"], "not_found");
        assert!(json.get("details").is_some());
        let io = baton_engine::EngineError::Attachment {
            path: "/x/report.pdf".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        let e: IpcError = io.into();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("report.pdf"), "{}", e.message);
    }
}
