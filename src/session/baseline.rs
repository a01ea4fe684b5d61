//! Session baselines: the content of each file before the session first edited it, stored under
//! `clients/<session>/baselines/`, so the review sees the session-scoped diff rather than the whole
//! working tree.
//!
//! Invariants: the first capture wins and is never overwritten (parallel hooks race with an
//! atomic no-clobber rename); the source is, best first, the edit payload's previous content, the
//! git HEAD version, else "absent" (an empty marker file).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::files::{self, FileError};
use crate::project::{Project, sanitize_component};
use crate::session::event::{BaselineSource, Event, Version, content_hash};
use crate::state::names;

/// A session's stored baselines.
#[derive(Debug, Clone)]
pub(crate) struct Baselines {
    dir: PathBuf,
}

impl Baselines {
    pub(crate) fn for_session(project: &Project, session_id: &str) -> Baselines {
        Baselines::in_folder(&project.client_dir(session_id))
    }

    /// The baselines in a session folder found by listing `clients/`.
    pub(crate) fn in_folder(session_folder: &Path) -> Baselines {
        Baselines {
            dir: session_folder.join(names::BASELINES_DIR),
        }
    }

    /// Where `file`'s baseline is stored: one flat name per project-relative path.
    fn content_path(&self, file: &str) -> PathBuf {
        let readable = sanitize_component(&file.replace('/', "__"));
        let digest: String = content_hash(file.as_bytes()).chars().take(10).collect();
        self.dir.join(format!("{readable}.{digest}"))
    }

    fn absent_path(&self, file: &str) -> PathBuf {
        files::sidecar(&self.content_path(file), names::ABSENT_SUFFIX)
    }

    pub(crate) fn is_captured(&self, file: &str) -> bool {
        self.content_path(file).exists() || self.absent_path(file).exists()
    }

    /// Stores `file`'s baseline unless one exists; the event to record when this call stored it.
    pub(crate) fn capture(
        &self,
        project: &Project,
        file: &str,
        before: Option<&str>,
    ) -> Result<Option<Event>, FileError> {
        if self.is_captured(file) {
            return Ok(None);
        }
        let (source, content) = match before {
            Some(before) => (BaselineSource::Payload, Some(before.to_string())),
            None => match project.head_version(file) {
                Some(content) => (BaselineSource::GitHead, Some(content)),
                None => (BaselineSource::Absent, None),
            },
        };
        let (target, bytes) = match &content {
            Some(content) => (self.content_path(file), content.as_bytes()),
            None => (self.absent_path(file), &b""[..]),
        };
        if !store_once(&self.dir, &target, bytes)? {
            return Ok(None);
        }
        Ok(Some(Event::BaselineCaptured {
            file: file.to_string(),
            source,
            hash: content.map(|content| content_hash(content.as_bytes())),
        }))
    }

    /// The stored baseline: `Some(Some(text))`, `Some(None)` when the file was absent, `None` when
    /// nothing was captured.
    pub(crate) fn load(&self, file: &str) -> Option<Option<String>> {
        if let Ok(bytes) = files::read_bounded(&self.content_path(file), files::MAX_STATE_BYTES) {
            return Some(Some(String::from_utf8_lossy(&bytes).into_owned()));
        }
        self.absent_path(file).exists().then_some(None)
    }
}

/// Writes `bytes` to `target` only if it does not exist yet; false when another writer was first.
fn store_once(dir: &Path, target: &Path, bytes: &[u8]) -> Result<bool, FileError> {
    files::check_state_links(target)?;
    files::ensure_parent(target)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".car-tmp-")
        .tempfile_in(dir)
        .map_err(|source| FileError::io(dir, source))?;
    temp.write_all(bytes)
        .map_err(|source| FileError::io(temp.path(), source))?;
    match temp.persist_noclobber(target) {
        Ok(_) => Ok(true),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(FileError::io(target, error.error)),
    }
}

/// Files above this size are versioned by size and modification time instead of being read.
pub(crate) const HASH_LIMIT: u64 = 4 * 1024 * 1024;

/// The version of a regular file on disk now (`None` when it does not exist, is larger than
/// [`HASH_LIMIT`] or is not a regular file).
pub(crate) fn disk_version(path: &Path) -> Version {
    files::read_bounded(path, HASH_LIMIT)
        .ok()
        .map(|bytes| content_hash(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_capture_wins() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let baselines = Baselines::for_session(&project, "s");
        let event = baselines
            .capture(&project, "src/a.py", Some("old\n"))
            .unwrap();
        assert!(matches!(
            event,
            Some(Event::BaselineCaptured {
                source: BaselineSource::Payload,
                ..
            })
        ));
        assert!(
            baselines
                .capture(&project, "src/a.py", Some("newer\n"))
                .unwrap()
                .is_none()
        );
        assert_eq!(baselines.load("src/a.py"), Some(Some("old\n".into())));
        baselines.capture(&project, "new.txt", None).unwrap();
        assert_eq!(baselines.load("new.txt"), Some(None));
        assert_eq!(baselines.load("other"), None);
    }
}
