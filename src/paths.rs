//! The user's folders, resolved one way for every caller: the XDG base directories with their
//! documented fallbacks under `$HOME`.
//!
//! Invariants: an `XDG_*` variable counts only when it is an absolute path; `$HOME` counts only
//! when it is an absolute path to an existing folder (car never creates a home that is not
//! there); without either, there is no user folder and the user-wide layers are simply absent.

use std::path::PathBuf;

/// The user's home folder, when it exists.
pub(crate) fn home_dir() -> Option<PathBuf> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    (home.is_absolute() && home.is_dir()).then_some(home)
}

/// `$XDG_CONFIG_HOME/car`, else `~/.config/car`: files the user writes (user-wide lessons).
pub(crate) fn config_dir() -> Option<PathBuf> {
    base("XDG_CONFIG_HOME", ".config").map(|base| base.join("car"))
}

/// `$XDG_CACHE_HOME/car`, else `~/.cache/car`: files car may rebuild at any time.
pub(crate) fn cache_dir() -> Option<PathBuf> {
    base("XDG_CACHE_HOME", ".cache").map(|base| base.join("car"))
}

/// The user-wide lessons file: `<config_dir>/lessons.json`.
pub(crate) fn user_lessons_file() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join(crate::state::names::USER_LESSONS))
}

fn base(variable: &str, under_home: &str) -> Option<PathBuf> {
    std::env::var_os(variable)
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| home_dir().map(|home| home.join(under_home)))
}
