//! Safe file primitives shared by every store: a sidecar lock with a bounded wait, atomic
//! replacement, whole-line appends, and bounded reads of regular files.
//!
//! Invariants: a data file is only ever replaced by renaming a complete temporary file from the
//! same folder over it, while holding `<file>.lock` (locking the data file itself would lose
//! updates, because the rename swaps the inode the lock is on). Appends write complete lines with
//! a single `write` on an `O_APPEND` handle, also under a lock, after a newline when a killed
//! writer left a torn last line. A symlinked data file is written through and keeps its mode.
//!
//! Every read has a bound and reads only a regular file: the file is opened without blocking
//! (a FIFO would wait for a writer) and checked on the open handle, so a FIFO, a device such as
//! `/dev/zero` or a folder is refused with a message instead of hanging or filling memory.
//!
//! Inside car's state folder (`.claude/claude-auto-review/`, the folder itself and `.claude`
//! included) no symbolic link is ever followed, for reading or for writing: the folders on the way
//! are checked, files are opened with `O_NOFOLLOW`, and a link is refused with
//! [`FileError::Link`] — a link committed to a repository cannot redirect car's writes. The one
//! exception is a file a team shares (`lessons.json`, `rules.md`, `validators/*.json`) linked to
//! a file inside the same project, which is written through.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::state::names;

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
    #[error("{path}: not a regular file ({kind}); not read")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "{path}: a symbolic link inside car's state folder; car never follows links there (remove it)"
    )]
    Link { path: PathBuf },
    #[error(
        "{path}: resolves outside the project (a symbolic link on the way); car writes nothing there and changed nothing"
    )]
    OutsideProject { path: PathBuf },
}

impl FileError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// An open that `O_NOFOLLOW` refused is a link, said plainly.
    fn opening(path: &Path, source: std::io::Error, links: Links) -> FileError {
        #[cfg(unix)]
        if source.raw_os_error() == Some(libc::ELOOP) {
            match links {
                Links::Follow => {}
                Links::StateFolder => {
                    return FileError::Link {
                        path: path.to_path_buf(),
                    };
                }
                Links::Resolved => {
                    return FileError::NotRegular {
                        path: path.to_path_buf(),
                        kind: "a symbolic link",
                    };
                }
            }
        }
        let _ = links;
        FileError::io(path, source)
    }

    /// Whether the file simply is not there.
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

/// Folder under the project root that holds car's state (the file primitives refuse links
/// inside it; [`crate::project`] re-exports it too).
pub(crate) use crate::state::names::STATE_DIR;

/// The largest state, settings or lessons file car reads (a real one is a few megabytes).
pub(crate) const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

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
        let lock_path = sidecar(data_file, names::LOCK_SUFFIX);
        ensure_parent(&lock_path)?;
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let file = open_with(&lock_path, &mut options, Links::of(&lock_path))?;
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

/// Creates the parent folder of `path` if needed. In car's state folder, the folders on the way
/// are checked first: creating below a link would create outside.
pub(crate) fn ensure_parent(path: &Path) -> Result<(), FileError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => {
            check_state_links(parent)?;
            std::fs::create_dir_all(parent).map_err(|source| FileError::io(parent, source))
        }
        _ => Ok(()),
    }
}

/// Where the state folder starts in `path`: the index of its `.claude` component, when `path`
/// lies in (or is) `<project>/.claude/claude-auto-review`. Every open and write of a state file
/// asks, so it reads the components once and allocates nothing.
fn state_folder_start(path: &Path) -> Option<usize> {
    let mut previous = None;
    for (index, part) in path.iter().enumerate() {
        if previous.is_some_and(|previous: &std::ffi::OsStr| previous == STATE_DIR_PARTS[0])
            && part == STATE_DIR_PARTS[1]
        {
            return Some(index - 1);
        }
        previous = Some(part);
    }
    None
}

/// The components of [`STATE_DIR`], in order.
const STATE_DIR_PARTS: [&str; 2] = [".claude", "claude-auto-review"];

/// Whether `path` lies in a car state folder (where no link is followed).
pub(crate) fn is_in_state_folder(path: &Path) -> bool {
    state_folder_start(path).is_some()
}

/// Whether `path` is one of the files a team shares through git (the state folder's
/// `.gitignore` keeps them tracked: `lessons.json`, `rules.md`, `validators/*.json`) and is a link
/// to a file inside the same project: a team's choice (one shared lessons file), followed and
/// written through. A link of such a file that leads out of the project is still refused.
fn is_shared_link(path: &Path) -> bool {
    let Some(start) = state_folder_start(path) else {
        return false;
    };
    let mut inside = path.iter().skip(start + STATE_DIR_PARTS.len());
    let is_shared = match (inside.next(), inside.next(), inside.next()) {
        (Some(name), None, None) => name == names::LESSONS || name == names::RULES,
        (Some(folder), Some(name), None) => {
            folder == names::VALIDATORS_DIR
                && name.to_str().is_some_and(|name| name.ends_with(".json"))
        }
        _ => false,
    };
    if !is_shared || !std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink()) {
        return false;
    }
    let project: PathBuf = path.iter().take(start).collect();
    match (project.canonicalize(), path.canonicalize()) {
        (Ok(project), Ok(target)) => target.starts_with(&project) && !is_in_state_folder(&target),
        _ => false,
    }
}

/// Refuses `path` when it, or a folder on its way from `.claude` down, is a symbolic link (a
/// shared file linked inside the project excepted, see [`is_shared_link`]). Paths outside a state
/// folder are not checked (a home folder may well be a link).
pub(crate) fn check_state_links(path: &Path) -> Result<(), FileError> {
    let Some(start) = state_folder_start(path) else {
        return Ok(());
    };
    let last = path.iter().count().saturating_sub(1);
    let mut current = PathBuf::with_capacity(path.as_os_str().len());
    for (index, part) in path.iter().enumerate() {
        current.push(part);
        if index < start {
            continue;
        }
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if index == last && is_shared_link(path) {
                    return Ok(());
                }
                return Err(FileError::Link { path: current });
            }
            Ok(_) => {}
            // Nothing below a missing folder exists yet.
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// Whether an open may follow a link in the path's last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Links {
    /// An ordinary path.
    Follow,
    /// A path in a state folder: a link is refused as [`FileError::Link`].
    StateFolder,
    /// A path car resolved itself (no link left in it): a link that appeared since is refused.
    Resolved,
}

impl Links {
    fn of(path: &Path) -> Links {
        if is_in_state_folder(path) && !is_shared_link(path) {
            Links::StateFolder
        } else {
            Links::Follow
        }
    }
}

/// Opens with the rules of this module: never blocking on a FIFO, and never following a link in a
/// state folder or in a path that was already resolved.
fn open_with(path: &Path, options: &mut OpenOptions, links: Links) -> Result<File, FileError> {
    if links == Links::StateFolder {
        check_state_links(path)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let follow = if links == Links::Follow {
            0
        } else {
            libc::O_NOFOLLOW
        };
        options.custom_flags(libc::O_NONBLOCK | follow);
    }
    options
        .open(path)
        .map_err(|source| FileError::opening(path, source, links))
}

/// Opens a regular file for reading and returns it with its size; anything else (FIFO, device,
/// socket, folder) is [`FileError::NotRegular`], found on the open handle without blocking.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), FileError> {
    open_regular_with(path, Links::of(path))
}

fn open_regular_with(path: &Path, links: Links) -> Result<(File, u64), FileError> {
    let file = open_with(path, OpenOptions::new().read(true), links)?;
    let meta = file
        .metadata()
        .map_err(|source| FileError::io(path, source))?;
    if !meta.is_file() {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

fn kind_of(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a file"
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
    check_state_links(path)?;
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

/// Reads the JSON document at `path` (absent, unreadable or not parsing: the default), lets
/// `change` change it, and writes it back when it changed, all under the file's own lock, so
/// parallel hooks lose no change. Unsynced: for a session's runtime files (open warnings,
/// stopped writes), where a lost write costs a count, never a user's data.
pub(crate) fn update_json<T, R>(
    path: &Path,
    limit: u64,
    change: impl FnOnce(&mut T) -> R,
) -> Result<R, FileError>
where
    T: Default + Clone + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
{
    let _lock = FileLock::acquire(path, HOOK_LOCK_WAIT)?;
    let mut document: T = read_text_or_none(path, limit)
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let before = document.clone();
    let result = change(&mut document);
    if document != before {
        let text = serde_json::to_string(&document)
            .map_err(|error| FileError::io(path, std::io::Error::other(error.to_string())))?;
        write_atomic_unsynced(path, text.as_bytes())?;
    }
    Ok(result)
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
    let mut file = open_append(path)?;
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

/// Opens (creating) a file for appending, with this module's rules.
pub(crate) fn open_append(path: &Path) -> Result<File, FileError> {
    open_with(
        path,
        OpenOptions::new().create(true).read(true).append(true),
        Links::of(path),
    )
}

/// Reads a text file of at most [`MAX_STATE_BYTES`]; `Ok(None)` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, FileError> {
    match read_bounded(path, MAX_STATE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            FileError::io(
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8"),
            )
        }),
        Err(error) if error.is_not_found() => Ok(None),
        Err(error) => Err(error),
    }
}

/// A UTF-8 text file of at most `limit` bytes, or `None` when it is missing, too large, not a
/// regular file or not text: for files that only ever add information (a dependency list, a
/// build file, git's bookkeeping), where one that cannot be read says nothing.
pub(crate) fn read_text_or_none(path: &Path, limit: u64) -> Option<String> {
    String::from_utf8(read_bounded(path, limit).ok()?).ok()
}

/// Reads a regular file of at most `limit` bytes; larger files are refused before any byte is
/// read (and a file growing past the limit while read is refused too).
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    read_bounded_with(path, limit, Links::of(path))
}

/// [`read_bounded`] for a path car resolved itself ([`crate::project::Inside`]): a link that
/// appeared in its last component since is refused, never followed.
pub(crate) fn read_resolved(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    read_bounded_with(path, limit, Links::Resolved)
}

fn read_bounded_with(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, FileError> {
    let (file, size) = open_regular_with(path, links)?;
    let too_large = || FileError::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    if size > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::io(path, source))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The last `limit` bytes of a regular file (all of it when smaller).
pub(crate) fn read_tail(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (mut file, size) = open_regular(path)?;
    file.seek(SeekFrom::Start(size.saturating_sub(limit)))
        .map_err(|source| FileError::io(path, source))?;
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::io(path, source))?;
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
mod tests;
