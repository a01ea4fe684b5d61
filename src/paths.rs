//! The user's folders, resolved one way for every caller: the XDG base directories with their
//! documented fallbacks under `$HOME`.
//!
//! Invariants: an `XDG_*` variable counts only when it is an absolute path; `$HOME` counts only
//! when it is an absolute path to an existing folder (car never creates a home that is not
//! there); without either, there is no user folder and the user-wide layers are simply absent.
//! Every read of `HOME` or an `XDG_*` variable goes through here.
//!
//! Unit tests see no user folder at all: the test process runs with the developer's own HOME and
//! XDG folders, where a test must neither read lessons nor write a cache. (The integration tests
//! give every `car` they start its own HOME and XDG folders.)

use std::path::PathBuf;

/// The user's home folder, when it exists.
pub(crate) fn home_dir() -> Option<PathBuf> {
    let home = PathBuf::from(user_variable("HOME")?);
    (home.is_absolute() && home.is_dir()).then_some(home)
}

/// `$XDG_CONFIG_HOME/car`, else `~/.config/car`: files the user writes (user-wide lessons).
pub(crate) fn config_dir() -> Option<PathBuf> {
    base("XDG_CONFIG_HOME", ".config").map(|base| base.join("car"))
}

/// `$XDG_CACHE_HOME/car`, else `~/.cache/car`: files car may rebuild at any time.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    cache_home().map(|base| base.join("car"))
}

/// `$XDG_CACHE_HOME`, else `~/.cache`: where other tools keep their caches (poetry's
/// environments).
pub(crate) fn cache_home() -> Option<PathBuf> {
    base("XDG_CACHE_HOME", ".cache")
}

/// `$XDG_DATA_HOME`, else `~/.local/share`: where other tools keep their data (pipenv's
/// environments).
pub(crate) fn data_home() -> Option<PathBuf> {
    base("XDG_DATA_HOME", ".local/share")
}

/// The user-wide lessons file: `<config_dir>/lessons.json`.
pub(crate) fn user_lessons_file() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join(crate::state::names::USER_LESSONS))
}

fn base(variable: &str, under_home: &str) -> Option<PathBuf> {
    user_variable(variable)
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home_dir().map(|home| home.join(under_home)))
}

/// A variable naming a user folder.
#[cfg(not(test))]
fn user_variable(variable: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(variable).filter(|value| !value.is_empty())
}

/// In unit tests, none (see the module docs).
#[cfg(test)]
fn user_variable(_variable: &str) -> Option<std::ffi::OsString> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_tests_see_no_user_folder_whatever_the_environment_says() {
        assert_eq!(home_dir(), None);
        assert_eq!(config_dir(), None);
        assert_eq!(cache_dir(), None);
        assert_eq!(data_home(), None);
        assert_eq!(user_lessons_file(), None);
    }
}
