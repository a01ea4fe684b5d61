//! The top-level error: one variant per subsystem, each carrying the path, lesson or line
//! involved. Every error maps to exit code 2 (usage or configuration) in [`crate::commands`]; hooks
//! never surface errors as exit codes (they fail open).

#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Clock(#[from] crate::clock::ClockError),
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
    #[error(transparent)]
    Wiring(#[from] crate::agents::WiringError),
    #[error(transparent)]
    McpConfig(#[from] crate::agents::mcp_server::McpConfigError),
    #[error(transparent)]
    Validate(#[from] crate::process::ProcessError),
    #[error(transparent)]
    Lessons(#[from] crate::lessons::LessonsError),
    #[error(transparent)]
    MergeDriver(#[from] crate::state::merge_driver::DriverError),
    #[error(transparent)]
    Review(#[from] crate::review::gate::ReviewError),
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    #[error(transparent)]
    DeepReviewState(#[from] crate::review::deep::state::StateError),
    #[error(transparent)]
    DeepReviewContext(#[from] crate::review::deep::context::ContextError),
    #[error(transparent)]
    ReviewExport(#[from] crate::learning::review_history::github::ExportError),
}

impl Error {
    /// What the user can do about it, when car knows.
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Error::Clock(_) => Some("unset CAR_NOW or give Unix seconds".into()),
            Error::Settings(crate::settings::SettingsError::Json { .. }) => {
                Some("fix the file by hand; car never rewrites a file it cannot read".into())
            }
            Error::DeepReviewState(crate::review::deep::state::StateError::NoneYet) => {
                Some("run `car deep-review run CONTEXT` first".into())
            }
            _ => None,
        }
    }
}
