//! Setting car up in a project: install / uninstall of the hooks, the settings, `car config` and
//! `car status`.

pub mod config;
pub mod install;
pub mod settings;
pub mod status;

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Invalid(String),
}
