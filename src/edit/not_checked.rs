//! Why car does not check a file an edit named: too large, binary, not UTF-8, gone, not a regular
//! file, unreadable, or not inside the project. Its `Display` is the one-line note the agent and
//! `car check` show, naming the file.

use std::path::PathBuf;

use crate::files::FileError;

/// A file car does not read or check, and why.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotChecked {
    /// Over [`super::MAX_FILE_BYTES`].
    #[error("{path}: larger than 2 MiB; not checked")]
    TooLarge { path: String },
    /// Before a write: the file as the tool would leave it would be over
    /// [`super::MAX_FILE_BYTES`] (car stops building it there).
    #[error("{path}: the edit would leave it larger than 2 MiB; not checked before the write")]
    WouldBeTooLarge { path: String },
    #[error("{path}: binary file; not checked")]
    Binary { path: String },
    #[error("{path}: not UTF-8 text; not checked")]
    NotUtf8 { path: String },
    #[error("{path}: no longer exists (deleted after the edit?); not checked")]
    Missing { path: String },
    /// A FIFO, a device, a folder.
    #[error("{path}: not a regular file ({kind}); not checked")]
    NotRegular { path: String, kind: &'static str },
    /// Any other read failure (the error names the path).
    #[error("{0}; not checked")]
    Unreadable(FileError),
    /// Named inside the project, but a symbolic link leads out of it.
    #[error("{path}: resolves outside the project (a symbolic link); not read")]
    LinkOutside { path: PathBuf },
    #[error("{path}: outside the project {project}; not tracked")]
    Outside { path: PathBuf, project: PathBuf },
}

impl NotChecked {
    /// The project-relative path of a file not read because it is over the read bound.
    pub(crate) fn too_large(&self) -> Option<&str> {
        match self {
            NotChecked::TooLarge { path } => Some(path),
            _ => None,
        }
    }

    /// Why a read of the file shown as `path` failed.
    pub(crate) fn from_read(path: &str, error: FileError) -> NotChecked {
        let path = path.to_string();
        match error {
            FileError::TooLarge { .. } => NotChecked::TooLarge { path },
            error if error.is_not_found() => NotChecked::Missing { path },
            FileError::NotRegular { kind, .. } => NotChecked::NotRegular { path, kind },
            error => NotChecked::Unreadable(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_names_the_file_and_says_what_car_did() {
        let path = || "src/a.py".to_string();
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let notes = [
            NotChecked::TooLarge { path: path() },
            NotChecked::WouldBeTooLarge { path: path() },
            NotChecked::Binary { path: path() },
            NotChecked::NotUtf8 { path: path() },
            NotChecked::from_read("src/a.py", FileError::io("/p/src/a.py".as_ref(), missing)),
            NotChecked::NotRegular {
                path: path(),
                kind: "a FIFO",
            },
            NotChecked::from_read("src/a.py", FileError::io("/p/src/a.py".as_ref(), denied)),
            NotChecked::LinkOutside {
                path: "src/a.py".into(),
            },
            NotChecked::Outside {
                path: "/elsewhere/a.py".into(),
                project: "/p".into(),
            },
        ];
        let shown: Vec<String> = notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "src/a.py: larger than 2 MiB; not checked",
                "src/a.py: the edit would leave it larger than 2 MiB; not checked before the write",
                "src/a.py: binary file; not checked",
                "src/a.py: not UTF-8 text; not checked",
                "src/a.py: no longer exists (deleted after the edit?); not checked",
                "src/a.py: not a regular file (a FIFO); not checked",
                "/p/src/a.py: permission denied; not checked",
                "src/a.py: resolves outside the project (a symbolic link); not read",
                "/elsewhere/a.py: outside the project /p; not tracked",
            ]
        );
    }
}
