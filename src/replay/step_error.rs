//! Why a replay step (or the setup before the first) could not be played: the scenario asked for
//! something the throwaway project cannot give, or a file could not be written.

use crate::files::FileError;

/// Why a step (or the setup before the first) could not be played.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StepError {
    #[error("settings: {0}")]
    Settings(Box<crate::settings::SettingProblem>),
    #[error("\"{0}\" needs a project (run it with `car lessons test`)")]
    NeedsProject(&'static str),
    #[error("payload: {0}")]
    Payload(String),
    #[error("no fixture {0:?}")]
    NoFixture(String),
    #[error("edit: {file} exists; say in \"before\" what to replace")]
    EditOfExistingFile { file: String },
    #[error("edit: {file} does not contain the \"before\" text {before:?}")]
    BeforeNotFound { file: String, before: String },
    #[error(transparent)]
    File(#[from] FileError),
}
