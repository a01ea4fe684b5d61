//! What the agent wrote in a session, kept to tell someone else's changes from the agent's own
//! and to read back the versions a review saw. Which of those changes are a person's corrections
//! is learning's to decide (`learning::correction`): this store reports what changed, when the
//! agent had written in the file within the correction window.
//!
//! Per file the agent edited (`clients/<session>/authored/files/*.json`): the content as car last
//! saw it, the lines the agent's edit tools added (with when), and the versions (content hashes)
//! the agent produced; the contents of those versions under `authored/versions/<hash>`.
//!
//! - **An agent edit** ([`Authored::record_edit`]): when the payload carries the file as it was
//!   just before the edit and that differs from what car last saw, someone else changed the file
//!   in between ([`ChangedByOthers`], with the lines the agent added within the last 30 minutes).
//!   Then the edit's content and added lines are recorded.
//! - **The agent's shell command** ([`Authored::shell_ran`], the PostToolUse hook on Bash): the
//!   files it plausibly touched are the agent's own work, recorded as such — never a correction.
//!   Plausibly: named on its command line, or modified while it ran (the payload's `duration_ms`
//!   where the agent sends it, else since car's previous hook of the session). A file changed
//!   before that (the person's edit, then the agent runs `pytest`) stays the person's change.
//!   Modification times are the file system's clock, so the hook's start is kept in real time
//!   (`authored/last-hook`), not car's clock (`CAR_NOW`).
//! - **Stop** ([`Authored::observe`]): the files on disk against what car last saw, as above.
//!
//! Invariants: bounded (files over 256 KiB, lines over 300 characters, more than 400 added lines
//! per file or 200 files per session are not kept; at most 12 versions per file); one lock per
//! session store; a change is reported once (what car last saw moves to the observed content);
//! nothing here fails a hook (errors are returned for a note).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::edit::Edit;
use crate::files::{self, FileError, FileLock, HOOK_LOCK_WAIT};
use crate::project::{Project, sanitize_component};
use crate::session::event::content_hash;
use crate::state::names::{self, LAST_HOOK};

/// How long after the agent wrote a line someone else's change of it counts as a correction.
pub(crate) const CORRECTION_WINDOW_SECONDS: i64 = 30 * 60;

/// Someone other than the agent changed a file the agent wrote: what car last saw, what the
/// file holds now, and the lines the agent added within the correction window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangedByOthers {
    pub(crate) session: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// The file as car last saw it (the agent's version, or one observed after it).
    pub(crate) previous: String,
    /// The file now.
    pub(crate) content: String,
    /// The lines (trimmed) the agent's edit tools added within the correction window.
    pub(crate) agent_lines: Vec<String>,
    /// git's log of HEAD's moves when car last saw the file, if HEAD is logged.
    pub(crate) head_log: Option<u64>,
    /// When the change was seen.
    pub(crate) at: i64,
}

const MAX_CONTENT_BYTES: u64 = 256 * 1024;
const MAX_LINE_CHARS: usize = 300;
const MAX_ADDED_LINES: usize = 400;
const MAX_FILES: usize = 200;
const MAX_VERSIONS: usize = 12;

/// How much earlier than its reported start a file may have been modified and still count as
/// the command's: modification times and the payload's duration are both coarse.
const RUN_SLACK: Duration = Duration::from_secs(1);

/// A shell command the agent ran, as its payload reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellRun {
    /// The command line (empty when the payload does not carry it).
    pub(crate) command: String,
    /// How long it ran, when the agent says (Claude Code's `duration_ms`).
    pub(crate) duration: Option<Duration>,
}

/// How long a shell command counts as having run when its agent does not say (Codex, Gemini CLI,
/// Cursor): files modified this recently when it finished are taken as its own.
const UNKNOWN_RUN: Duration = Duration::from_secs(30);

impl ShellRun {
    /// When the command, which just finished, started (its duration; when the agent does not
    /// say, [`UNKNOWN_RUN`] ago).
    pub(crate) fn started(&self) -> SystemTime {
        let now = SystemTime::now();
        now.checked_sub(self.duration.unwrap_or(UNKNOWN_RUN) + RUN_SLACK)
            .unwrap_or(now)
    }

    /// Whether the command, which just finished, plausibly changed `file` (project-relative, at
    /// `path`): named on its command line, or modified since it started.
    pub(crate) fn just_changed(&self, file: &str, path: &Path) -> bool {
        self.touched(file, modified(path), Some(self.started()))
    }

    /// Whether the command plausibly changed `file`: named on its command line, or modified at or
    /// after `ran_from` (`None`: when it started is unknown, so every changed file is its own).
    fn touched(
        &self,
        file: &str,
        modified: Option<SystemTime>,
        ran_from: Option<SystemTime>,
    ) -> bool {
        if names(&self.command, file) {
            return true;
        }
        if is_read_only(&self.command) {
            return false;
        }
        match (modified, ran_from) {
            (Some(modified), Some(from)) => modified + RUN_SLACK >= from,
            _ => true,
        }
    }
}

/// Commands that read the project and write none of its source files: a test run or a look at
/// the files. A file such a command does not name was changed by someone else, whenever it
/// changed (the person's correction, then the agent runs `pytest` in an agent that does not say
/// how long it ran). Only a single command: chained, piped or redirected, it may write.
const READ_ONLY: &[&str] = &[
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "npx jest",
    "npx vitest",
    "jest",
    "vitest",
    "cargo test",
    "cargo check",
    "cargo clippy",
    "go test",
    "go vet",
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "rg",
    "git status",
    "git diff",
    "git log",
    "git show",
];

/// Whether `command` is one of [`READ_ONLY`], alone (no `;`, `&`, `|`, `>`, `` ` ``, `$(`).
fn is_read_only(command: &str) -> bool {
    let command = command.trim();
    if command.is_empty() || command.contains([';', '&', '|', '>', '`']) || command.contains("$(") {
        return false;
    }
    READ_ONLY.iter().any(|known| {
        command == *known
            || command
                .strip_prefix(known)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace))
    })
}

/// Whether `command` names `file` (its project-relative path, or its file name as a word of its
/// own: `sed -i … app.py` after `cd src`).
fn names(command: &str, file: &str) -> bool {
    if command.contains(file) {
        return true;
    }
    let name = file.rsplit('/').next().unwrap_or(file);
    command.match_indices(name).any(|(at, _)| {
        let before = command[..at].chars().next_back();
        let after = command[at + name.len()..].chars().next();
        let is_part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
        !before.is_some_and(is_part) && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// One line the agent's edit tools added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct AddedByAgent {
    text: String,
    at: i64,
}

/// What car knows about one file the agent edited.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct FileRecord {
    file: String,
    /// The content as car last saw it (after the agent's edit or shell command, or as observed).
    content: String,
    #[serde(default)]
    added: Vec<AddedByAgent>,
    /// Every stored version, oldest first.
    #[serde(default)]
    versions: Vec<String>,
    /// The versions the agent produced (edit tools or its shell commands).
    #[serde(default)]
    agent_versions: Vec<String>,
    /// git's log of HEAD's moves when car last saw the file ([`crate::git::head_log_mark`]), to
    /// tell a change git brought (a merge, pull, rebase, checkout) from a person's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    head_log: Option<u64>,
}

impl FileRecord {
    /// The lines the agent added within the correction window.
    fn recent_lines(&self, now: i64) -> Vec<String> {
        self.added
            .iter()
            .filter(|added| now - added.at <= CORRECTION_WINDOW_SECONDS)
            .map(|added| added.text.clone())
            .collect()
    }

    /// Moves to `content`, forgetting added lines it no longer holds or that are too old.
    fn advance(&mut self, content: &str, now: i64) {
        self.content = content.to_string();
        let present: std::collections::HashSet<&str> = content.lines().map(str::trim).collect();
        self.added.retain(|added| {
            present.contains(added.text.as_str()) && now - added.at <= CORRECTION_WINDOW_SECONDS
        });
    }

    fn add_lines(&mut self, edit: &Edit, now: i64) {
        for line in &edit.added {
            let text = line.text.trim();
            if text.is_empty() || text.chars().count() > MAX_LINE_CHARS {
                continue;
            }
            if self.added.len() >= MAX_ADDED_LINES {
                self.added.remove(0);
            }
            self.added.push(AddedByAgent {
                text: text.to_string(),
                at: now,
            });
        }
    }
}

/// A session's record of what the agent wrote.
#[derive(Debug, Clone)]
pub(crate) struct Authored {
    dir: PathBuf,
    session: String,
    /// The checkout, whose git HEAD log marks what git brought.
    checkout: PathBuf,
}

impl Authored {
    pub(crate) fn for_session(project: &Project, session: &str) -> Authored {
        Authored {
            dir: project.client_dir(session).join(names::AUTHORED_DIR),
            session: session.to_string(),
            checkout: project.checkout().to_path_buf(),
        }
    }

    fn record_path(&self, file: &str) -> PathBuf {
        let readable = sanitize_component(&file.replace('/', "__"));
        let digest: String = content_hash(file.as_bytes()).chars().take(10).collect();
        self.dir
            .join(names::AUTHORED_FILES)
            .join(format!("{readable}.{digest}.json"))
    }

    fn version_path(&self, hash: &str) -> PathBuf {
        self.dir
            .join(names::AUTHORED_VERSIONS)
            .join(sanitize_component(hash))
    }

    fn lock(&self) -> Result<FileLock, FileError> {
        FileLock::acquire(&self.dir.join(names::AUTHORED_STORE), HOOK_LOCK_WAIT)
    }

    fn load(&self, file: &str) -> Option<FileRecord> {
        let text = files::read_optional(&self.record_path(file)).ok()??;
        serde_json::from_str(&text).ok()
    }

    fn save(&self, record: &FileRecord) -> Result<(), FileError> {
        let text = serde_json::to_string(record).unwrap_or_default();
        files::write_atomic_unsynced(&self.record_path(&record.file), text.as_bytes())
    }

    fn records(&self) -> Vec<FileRecord> {
        let Ok(entries) = std::fs::read_dir(self.dir.join(names::AUTHORED_FILES)) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|entry| files::read_optional(&entry.path()).ok().flatten())
            .filter_map(|text| serde_json::from_str(&text).ok())
            .collect()
    }

    /// Stores `content` as a version of `record` (the agent's when `by_agent`).
    fn store_version(&self, record: &mut FileRecord, content: &str, by_agent: bool) {
        self.store_hashed(record, content, content_hash(content.as_bytes()), by_agent);
    }

    /// [`Authored::store_version`] with the content's hash known.
    fn store_hashed(&self, record: &mut FileRecord, content: &str, hash: String, by_agent: bool) {
        if by_agent && !record.agent_versions.contains(&hash) {
            record.agent_versions.push(hash.clone());
        }
        if record.versions.contains(&hash) {
            return;
        }
        if files::write_atomic_unsynced(&self.version_path(&hash), content.as_bytes()).is_err() {
            return;
        }
        record.versions.push(hash);
        while record.versions.len() > MAX_VERSIONS {
            let oldest = record.versions.remove(0);
            record.agent_versions.retain(|hash| *hash != oldest);
            let _ = std::fs::remove_file(self.version_path(&oldest));
        }
    }

    /// What someone else changed in `record`'s file, now holding `content`; `None` when the
    /// agent wrote nothing there within the correction window.
    fn changed_by_others(
        &self,
        record: &FileRecord,
        content: &str,
        now: i64,
    ) -> Option<ChangedByOthers> {
        let agent_lines = record.recent_lines(now);
        (!agent_lines.is_empty()).then(|| ChangedByOthers {
            session: self.session.clone(),
            file: record.file.clone(),
            previous: record.content.clone(),
            content: content.to_string(),
            agent_lines,
            head_log: record.head_log,
            at: now,
        })
    }

    /// Records an edit of the agent's edit tools; what someone else changed before it (see the
    /// module docs).
    /// `hash` is the content hash of `edit.content` (the caller computed it once).
    pub(crate) fn record_edit(
        &self,
        edit: &Edit,
        hash: &str,
        now: i64,
    ) -> Result<Vec<ChangedByOthers>, FileError> {
        // A notebook cell's source is not the file's content.
        if edit.language.is_some() || edit.content.len() as u64 > MAX_CONTENT_BYTES {
            return Ok(Vec::new());
        }
        let _lock = self.lock()?;
        let file = &edit.relative_path;
        let existing = self.load(file);
        if existing.is_none() && self.records().len() >= MAX_FILES {
            return Ok(Vec::new());
        }
        let mut record = existing.unwrap_or_else(|| FileRecord {
            file: file.clone(),
            ..FileRecord::default()
        });
        let mut corrections = Vec::new();
        if let Some(before) = &edit.before
            && !record.content.is_empty()
            && *before != record.content
        {
            corrections.extend(self.changed_by_others(&record, before, now));
            record.advance(before, now);
            self.store_version(&mut record, before, false);
        }
        record.advance(&edit.content, now);
        record.head_log = crate::git::head_log_mark(&self.checkout);
        record.add_lines(edit, now);
        self.store_hashed(&mut record, &edit.content, hash.to_string(), true);
        self.save(&record)?;
        self.hook_ran(SystemTime::now());
        Ok(corrections)
    }

    /// The agent ran a shell command: what it changed in the files it plausibly touched is its
    /// own work (see the module docs); other changes stay for the stop to judge.
    pub(crate) fn shell_ran(
        &self,
        project: &Project,
        now: i64,
        run: &ShellRun,
    ) -> Result<(), FileError> {
        if !self.dir.exists() {
            return Ok(());
        }
        let _lock = self.lock()?;
        let started = SystemTime::now();
        let ran_from = match run.duration {
            Some(duration) => started.checked_sub(duration),
            None => self.last_hook(),
        };
        for mut record in self.records() {
            let path = project.checkout().join(&record.file);
            match read_current(project, &record.file) {
                Some(content)
                    if content != record.content
                        && run.touched(&record.file, modified(&path), ran_from) =>
                {
                    record.advance(&content, now);
                    record.head_log = crate::git::head_log_mark(&self.checkout);
                    self.store_version(&mut record, &content, true);
                    self.save(&record)?;
                }
                _ => {}
            }
        }
        self.hook_ran(started);
        Ok(())
    }

    /// When car's previous hook of this session started, in real time.
    fn last_hook(&self) -> Option<SystemTime> {
        let text = files::read_optional(&self.dir.join(LAST_HOOK)).ok()??;
        let millis: u64 = text.trim().parse().ok()?;
        SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(millis))
    }

    /// Remembers when this hook started (best effort: without it a shell command owns every
    /// change, which never learns wrongly).
    fn hook_ran(&self, started: SystemTime) {
        let millis = started
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_millis());
        let _ =
            files::write_atomic_unsynced(&self.dir.join(LAST_HOOK), millis.to_string().as_bytes());
    }

    /// The other session of this project whose agent wrote `content` as `file` (its edit tools
    /// or shell commands produced that version), if one did: its change is no person's.
    pub(crate) fn written_by_another_session(
        project: &Project,
        this_session: &Authored,
        file: &str,
        content: &str,
    ) -> Option<String> {
        // Hashed only when another session has a record of the file (most edits: none).
        let hash = std::cell::OnceCell::new();
        project
            .session_folders()
            .into_iter()
            .map(|(_, folder)| folder.join(names::AUTHORED_DIR))
            .filter(|dir| *dir != this_session.dir)
            .find_map(|dir| {
                let other = Authored {
                    dir,
                    session: String::new(),
                    checkout: PathBuf::new(),
                };
                let record = other.load(file)?;
                let ours = record.content == content
                    || record
                        .agent_versions
                        .contains(hash.get_or_init(|| content_hash(content.as_bytes())));
                ours.then(|| other.session_name())
            })
    }

    /// The session's folder name (its id, as car stores it).
    fn session_name(&self) -> String {
        self.dir
            .parent()
            .and_then(Path::file_name)
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// At stop: what someone else changed in the files on disk since car last saw them.
    pub(crate) fn observe(
        &self,
        project: &Project,
        now: i64,
    ) -> Result<Vec<ChangedByOthers>, FileError> {
        if !self.dir.exists() {
            return Ok(Vec::new());
        }
        let _lock = self.lock()?;
        let mut corrections = Vec::new();
        for mut record in self.records() {
            let Some(content) = read_current(project, &record.file) else {
                continue;
            };
            if content == record.content {
                continue;
            }
            corrections.extend(self.changed_by_others(&record, &content, now));
            record.advance(&content, now);
            record.head_log = crate::git::head_log_mark(&self.checkout);
            self.store_version(&mut record, &content, false);
            self.save(&record)?;
        }
        Ok(corrections)
    }

    /// A stored version's content.
    pub(crate) fn version(&self, hash: &str) -> Option<String> {
        files::read_optional(&self.version_path(hash))
            .ok()
            .flatten()
    }

    /// Whether the agent (its edit tools or its shell commands) produced this version of `file`.
    pub(crate) fn is_agent_version(&self, file: &str, hash: &str) -> bool {
        self.load(file)
            .is_some_and(|record| record.agent_versions.iter().any(|known| known == hash))
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path).ok()?.modified().ok()
}

/// The file's content now, when it is small enough to keep.
fn read_current(project: &Project, file: &str) -> Option<String> {
    project.read_inside(file, MAX_CONTENT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn edit(root: &Path, before: Option<&str>, content: &str, added: &[(usize, &str)]) -> Edit {
        std::fs::write(root.join("tls.py"), content).unwrap();
        crate::edit::test_edit(root, "tls.py", "Edit", content, before, added)
    }

    #[test]
    fn the_agents_own_shell_change_is_never_someone_elses() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let store = Authored::for_session(&project, "s1");
        let agent = "import ssl\nctx.check_hostname = False\n";
        let first = edit(
            dir.path(),
            Some("import ssl\n"),
            agent,
            &[(2, "ctx.check_hostname = False")],
        );
        let hash = content_hash(first.content.as_bytes());
        assert!(store.record_edit(&first, &hash, 100).unwrap().is_empty());
        std::fs::write(
            dir.path().join("tls.py"),
            "import ssl\nctx.check_hostname = None\n",
        )
        .unwrap();
        let sed = ShellRun {
            command: "sed -i s/False/None/ tls.py".into(),
            duration: None,
        };
        store.shell_ran(&project, 200, &sed).unwrap();
        assert!(store.observe(&project, 300).unwrap().is_empty());
        let person = "import ssl\nctx.check_hostname = True\n";
        std::fs::write(dir.path().join("tls.py"), person).unwrap();
        assert!(
            store.observe(&project, 400).unwrap().is_empty(),
            "the agent's line was already gone"
        );
        let mine = "import ssl\nctx.check_hostname = False\n";
        let second = edit(
            dir.path(),
            Some(person),
            mine,
            &[(2, "ctx.check_hostname = False")],
        );
        let hash = content_hash(second.content.as_bytes());
        assert!(store.record_edit(&second, &hash, 500).unwrap().is_empty());
        std::fs::write(dir.path().join("tls.py"), person).unwrap();
        let changed = store.observe(&project, 600).unwrap();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert_eq!(changed[0].previous, mine);
        assert_eq!(changed[0].content, person);
        assert_eq!(changed[0].agent_lines, ["ctx.check_hostname = False"]);
        assert!(store.observe(&project, 700).unwrap().is_empty(), "once");
    }

    #[test]
    fn a_test_run_never_owns_the_files_it_does_not_name() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let store = Authored::for_session(&project, "s1");
        let agent = "ctx.check_hostname = False\n";
        store
            .record_edit(
                &edit(dir.path(), Some(""), agent, &[(1, agent.trim())]),
                &content_hash(agent.as_bytes()),
                100,
            )
            .unwrap();
        // The person's change, then the agent's test run, in an agent that sends no duration.
        std::fs::write(dir.path().join("tls.py"), "ctx.check_hostname = True\n").unwrap();
        let pytest = ShellRun {
            command: "python -m pytest -q tests/".into(),
            duration: None,
        };
        store.shell_ran(&project, 150, &pytest).unwrap();
        assert_eq!(store.observe(&project, 200).unwrap().len(), 1);
        assert!(is_read_only("git diff --stat"));
        assert!(!is_read_only("pytest && sed -i s/a/b/ x.py"));
        assert!(!is_read_only("cat a > b"));
        assert!(!is_read_only("lsblk"));
    }

    #[test]
    fn a_change_long_after_the_agent_wrote_is_not_reported() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::at(dir.path());
        let store = Authored::for_session(&project, "s1");
        let agent = "ctx.check_hostname = False\n";
        store
            .record_edit(
                &edit(dir.path(), Some(""), agent, &[(1, agent.trim())]),
                &content_hash(agent.as_bytes()),
                0,
            )
            .unwrap();
        std::fs::write(dir.path().join("tls.py"), "ctx.check_hostname = True\n").unwrap();
        assert!(
            store
                .observe(&project, CORRECTION_WINDOW_SECONDS + 1)
                .unwrap()
                .is_empty()
        );
    }
}
