//! Safe file primitives shared by every store: a sidecar lock with a bounded wait, atomic
//! replacement, and whole-line appends.
//!
//! Invariants: a data file is only ever replaced by renaming a complete temporary file from the
//! same folder over it, while holding `<file>.lock` (locking the data file itself would lose
//! updates, because the rename swaps the inode the lock is on). Appends write complete lines with
//! a single `write` on an `O_APPEND` handle, also under a lock, after a newline when a killed
//! writer left a torn last line. A symlinked data file is written through and keeps its mode.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub(crate) enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: still locked by another car process after {waited_ms} ms; skipped")]
    LockTimeout { path: PathBuf, waited_ms: u128 },
    #[error("{path}: larger than {limit} bytes; skipped")]
    TooLarge { path: PathBuf, limit: u64 },
}

impl FileError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// How long a hook waits for a lock before it gives up on the write and says so.
pub(crate) const HOOK_LOCK_WAIT: Duration = Duration::from_millis(2_000);

/// An exclusive lock on `<file>.lock`, released on drop.
#[derive(Debug)]
pub(crate) struct FileLock {
    _file: File,
}

impl FileLock {
    /// Locks the sidecar of `data_file`, waiting at most `wait`.
    pub(crate) fn acquire(data_file: &Path, wait: Duration) -> Result<FileLock, FileError> {
        let lock_path = sidecar(data_file, "lock");
        ensure_parent(&lock_path)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|source| FileError::io(&lock_path, source))?;
        let started = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(FileLock { _file: file }),
                Err(TryLockError::WouldBlock) => {
                    if started.elapsed() >= wait {
                        return Err(FileError::LockTimeout {
                            path: lock_path,
                            waited_ms: started.elapsed().as_millis(),
                        });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(10));
                }
                Err(TryLockError::Error(source)) => return Err(FileError::io(&lock_path, source)),
            }
        }
    }
}

/// `<file>.<suffix>` beside the file.
pub(crate) fn sidecar(data_file: &Path, suffix: &str) -> PathBuf {
    let mut name = data_file.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    data_file.with_file_name(name)
}

/// Creates the parent folder of `path` if needed.
pub(crate) fn ensure_parent(path: &Path) -> Result<(), FileError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            std::fs::create_dir_all(parent).map_err(|source| FileError::io(parent, source))
        }
        _ => Ok(()),
    }
}

/// Replaces `path` with `contents` atomically (temporary file in the same folder, then rename).
/// The caller holds the file's [`FileLock`] when other writers may race.
///
/// A user's file keeps its identity: a symlink is written through (its target is replaced, the
/// link stays), and an existing file keeps its mode and, where the system allows, its owner and
/// group. A new file gets the usual mode for new files (0666 less the umask).
pub(crate) fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), FileError> {
    replace(path, contents, true)
}

/// [`write_atomic`] without waiting for the disk: for session state whose loss in a crash costs
/// nothing but a missed lesson (what the agent wrote, the versions a review saw), written on
/// every edit where an `fsync` would be most of the hook's cost.
pub(crate) fn write_atomic_unsynced(path: &Path, contents: &[u8]) -> Result<(), FileError> {
    replace(path, contents, false)
}

fn replace(path: &Path, contents: &[u8], durable: bool) -> Result<(), FileError> {
    let path = &resolve_symlinks(path);
    ensure_parent(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let existing = std::fs::metadata(path).ok();
    let mut builder = tempfile::Builder::new();
    builder.prefix(".car-tmp-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Applied through open(2), so the umask shapes a new file's mode as it would any other.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder
        .tempfile_in(folder)
        .map_err(|source| FileError::io(folder, source))?;
    if let Some(metadata) = &existing {
        keep_identity(temp.as_file(), metadata)
            .map_err(|source| FileError::io(temp.path(), source))?;
    }
    temp.write_all(contents)
        .and_then(|()| {
            if durable {
                temp.as_file().sync_data()
            } else {
                Ok(())
            }
        })
        .map_err(|source| FileError::io(temp.path(), source))?;
    temp.persist(path)
        .map_err(|error| FileError::io(path, error.error))?;
    Ok(())
}

/// Gives the replacement file the original's mode, and its owner and group when permitted (a
/// user cannot give a file away; root can, and then must, or the file changes hands).
fn keep_identity(file: &File, original: &std::fs::Metadata) -> std::io::Result<()> {
    file.set_permissions(original.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()));
    }
    Ok(())
}

/// The file a path finally names: symlinks followed (also to a target that does not exist yet),
/// at most 40 deep like the kernel.
fn resolve_symlinks(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&current) else {
            return current;
        };
        current = match current.parent() {
            Some(parent) => parent.join(target),
            None => target,
        };
    }
    current
}

/// Appends `lines` (one or more whole lines; the final newline is added) under the file's own
/// lock, in one `write` call, so parallel writers never interleave and a killed writer leaves at
/// most one torn last line.
pub(crate) fn append_line(path: &Path, lines: &str, wait: Duration) -> Result<(), FileError> {
    let lock = FileLock::acquire(path, wait)?;
    append_line_locked(path, lines, &lock)
}

/// [`append_line`] for a caller that already holds the lock guarding `path` (a log that belongs to
/// another file, written under that file's lock). When a killed writer left a torn last line (no
/// newline), a newline is written first, so the torn bytes never swallow the next line.
pub(crate) fn append_line_locked(
    path: &Path,
    lines: &str,
    _held: &FileLock,
) -> Result<(), FileError> {
    ensure_parent(path)?;
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|source| FileError::io(path, source))?;
    let length = file
        .metadata()
        .map_err(|source| FileError::io(path, source))?
        .len();
    let mut buffer = String::with_capacity(lines.len() + 2);
    if length > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(length - 1))
            .and_then(|_| file.read_exact(&mut last))
            .map_err(|source| FileError::io(path, source))?;
        if last[0] != b'\n' {
            buffer.push('\n');
        }
    }
    buffer.push_str(lines);
    buffer.push('\n');
    file.write_all(buffer.as_bytes())
        .map_err(|source| FileError::io(path, source))
}

/// Reads a text file; `Ok(None)` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, FileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FileError::io(path, source)),
    }
}

/// Reads at most `limit` bytes of a file; larger files are refused.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let file = File::open(path).map_err(|source| FileError::io(path, source))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::io(path, source))?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// 1-based line and column of a byte offset in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |tail| tail.chars().count())
        + 1;
    (line, column)
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_and_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/data.json");
        write_atomic(&path, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let log = dir.path().join("log.jsonl");
        append_line(&log, "{\"a\":1}", HOOK_LOCK_WAIT).unwrap();
        append_line(&log, "{\"a\":2}", HOOK_LOCK_WAIT).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_rewrite_keeps_mode_and_writes_through_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("team/lessons.json");
        write_atomic(&shared, b"{}").unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o664)).unwrap();
        let link = dir.path().join("lessons.json");
        std::os::unix::fs::symlink("team/lessons.json", &link).unwrap();
        write_atomic(&link, b"{\"lessons\": []}").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(&shared).unwrap(),
            "{\"lessons\": []}"
        );
        let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o664);
        let fresh = dir.path().join("new.json");
        write_atomic(&fresh, b"{}").unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_ne!(
            mode, 0o600,
            "a new file gets the usual mode, not a temporary file's"
        );
    }

    #[test]
    fn an_append_after_a_torn_line_starts_on_a_new_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        std::fs::write(&log, "{\"a\":1}\n{\"a\":").unwrap();
        append_line(&log, "{\"a\":3}", HOOK_LOCK_WAIT).unwrap();
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "{\"a\":1}\n{\"a\":\n{\"a\":3}\n"
        );
    }

    #[test]
    fn lock_times_out_while_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.json");
        let _held = FileLock::acquire(&path, HOOK_LOCK_WAIT).unwrap();
        let second = FileLock::acquire(&path, Duration::from_millis(20));
        assert!(matches!(second, Err(FileError::LockTimeout { .. })));
    }

    #[test]
    fn line_and_column() {
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab", 0), (1, 1));
    }
}
