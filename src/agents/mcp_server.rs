//! car's MCP server (`car mcp`) in each agent's own configuration, beside its hooks:
//! - Claude Code: the project's `.mcp.json`, `mcpServers.car`; and the approval Claude Code asks
//!   the person for, as its own dialog records it: `"car"` in `enabledMcpjsonServers` of
//!   `.claude/settings.local.json` (2.1.332; a non-interactive `claude -p` starts project servers
//!   without asking).
//! - Codex CLI: the project's `.codex/config.toml`, `[mcp_servers.car]` (read, like
//!   `.codex/hooks.json`, only in a project Codex trusts).
//! - Gemini CLI: `.gemini/settings.json`, `mcpServers.car` (the file its hooks are in; read only
//!   in a trusted folder).
//! - Cursor: none (car does not register its server there).
//!
//! Invariants: car's entry is the server named `car`; everything else in these files is the
//! user's and kept. Registering sets the entry's `command` and `args` and keeps any other key a
//! person added to it (`env`, `timeout`, Gemini's `trust`), so registering twice changes nothing;
//! removing takes the entry away, then the containers that left empty, then a file car created
//! that is left empty. The command is the car the hooks run ([`Installation::mcp_program`]).
//!
//! Why car writes Claude Code's approval: `car install` is the person's yes to car's own server;
//! car records it for that server alone (never `enableAllProjectMcpServers`, which would approve
//! any server a later commit adds to `.mcp.json`), and a rejection the person recorded
//! (`disabledMcpjsonServers`) stands: car says so and leaves it.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::Agent;
use crate::installation::Installation;
use crate::project::Project;
use crate::settings::update_json_document;
use crate::state::names;

/// The name car's server is registered under.
pub(crate) const SERVER_NAME: &str = "car";

/// The arguments that start the server.
const SERVER_ARGS: [&str; 1] = ["mcp"];

/// Claude Code's personal project settings, where its approval of `.mcp.json` servers lives.
pub(crate) const CLAUDE_LOCAL_SETTINGS: &str = ".claude/settings.local.json";

const ENABLED_KEY: &str = "enabledMcpjsonServers";
const DISABLED_KEY: &str = "disabledMcpjsonServers";

/// How an agent's MCP configuration file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpFormat {
    /// `{"mcpServers": {"car": {"command", "args"}}}`
    Json,
    /// `[mcp_servers.car]` `command`, `args`
    Toml,
}

/// Where an agent registers MCP servers, relative to the project; `None`: car registers none.
pub(crate) fn file(agent: Agent) -> Option<&'static str> {
    agent.spec().mcp.as_ref().map(|mcp| mcp.path)
}

fn format(agent: Agent) -> McpFormat {
    agent
        .spec()
        .mcp
        .as_ref()
        .map_or(McpFormat::Json, |mcp| mcp.format)
}

/// The lock for the agent's MCP file: the agent's hook-file lock when it is the same file
/// (Gemini), else one of its own.
fn lock_for(project: &Project, agent: Agent) -> PathBuf {
    let name = if file(agent) == Some(agent.file()) {
        names::wiring_lock(agent.name())
    } else {
        names::wiring_lock(&format!("{}-mcp", agent.name()))
    };
    project.state_dir().join(name)
}

/// What registering did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Registered {
    pub(crate) file: &'static str,
    pub(crate) changed: bool,
    /// Claude Code only: what became of its approval.
    pub(crate) approval: Option<Approval>,
}

/// Claude Code's approval of car's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    /// `"car"` is in `enabledMcpjsonServers` (car wrote it now, or it was there).
    Approved,
    /// The person rejected it (`disabledMcpjsonServers`); it stays rejected.
    Rejected,
    /// Neither: Claude Code asks at the next interactive start.
    Pending,
}

/// An MCP configuration file car cannot edit without guessing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum McpConfigError {
    #[error("{file}: \"{key}\" is not an object; fix it by hand")]
    NotAnObject { file: String, key: String },
    #[error("{file}: {key} is not a table; fix it by hand")]
    NotATable { file: String, key: String },
    #[error("{file} is not valid TOML: {message}")]
    Toml { file: String, message: String },
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
}

/// Registers car's server for `agent` (nothing for an agent without an MCP file).
pub(crate) fn register(
    project: &Project,
    agent: Agent,
) -> Result<Option<Registered>, McpConfigError> {
    let Some(file) = file(agent) else {
        return Ok(None);
    };
    let program = Installation::detect().mcp_program();
    let path = project.root().join(file);
    let lock = lock_for(project, agent);
    let changed = match format(agent) {
        McpFormat::Json => update_json_document(project, &path, &lock, |document| {
            set_json_entry(document, file, &program)
        })?,
        McpFormat::Toml => update_toml_document(project, &path, &lock, |document| {
            set_toml_entry(document, file, &program)
        })?,
    };
    let approval = (agent == Agent::Claude)
        .then(|| approve_for_claude(project))
        .transpose()?;
    Ok(Some(Registered {
        file,
        changed,
        approval,
    }))
}

/// Removes car's server for `agent`; the file it was removed from, if it was there.
pub(crate) fn unregister(
    project: &Project,
    agent: Agent,
) -> Result<Option<&'static str>, McpConfigError> {
    let Some(file) = file(agent) else {
        return Ok(None);
    };
    let path = project.root().join(file);
    if agent == Agent::Claude {
        withdraw_claude_approval(project)?;
    }
    if !path.exists() {
        return Ok(None);
    }
    let lock = lock_for(project, agent);
    let removed = match format(agent) {
        McpFormat::Json => update_json_document(project, &path, &lock, |document| {
            Ok::<bool, McpConfigError>(remove_json_entry(document))
        })?,
        McpFormat::Toml => update_toml_document(project, &path, &lock, |document| {
            Ok(remove_toml_entry(document))
        })?,
    };
    if !removed {
        return Ok(None);
    }
    remove_if_left_empty(project, &path, format(agent))?;
    Ok(Some(file))
}

/// Sets `mcpServers.car`'s command and args; whether that changed the document.
fn set_json_entry(
    document: &mut Map<String, Value>,
    file: &str,
    program: &str,
) -> Result<bool, McpConfigError> {
    let not_an_object = |key: &str| McpConfigError::NotAnObject {
        file: file.to_string(),
        key: key.to_string(),
    };
    let servers = document
        .entry("mcpServers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_an_object("mcpServers"))?;
    let entry = servers
        .entry(SERVER_NAME)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| not_an_object("mcpServers.car"))?;
    let before = entry.clone();
    entry.insert("command".into(), json!(program));
    entry.insert("args".into(), json!(SERVER_ARGS));
    Ok(*entry != before)
}

/// Removes `mcpServers.car`, and `mcpServers` when that leaves it empty.
fn remove_json_entry(document: &mut Map<String, Value>) -> bool {
    let Some(Value::Object(servers)) = document.get_mut("mcpServers") else {
        return false;
    };
    if servers.shift_remove(SERVER_NAME).is_none() {
        return false;
    }
    if servers.is_empty() {
        document.shift_remove("mcpServers");
    }
    true
}

/// Sets `[mcp_servers.car]`'s command and args; whether that changed the document.
fn set_toml_entry(
    document: &mut toml_edit::DocumentMut,
    file: &str,
    program: &str,
) -> Result<bool, McpConfigError> {
    let not_a_table = |key: &str| McpConfigError::NotATable {
        file: file.to_string(),
        key: key.to_string(),
    };
    let before = document.to_string();
    let servers = document
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_like_mut()
        .ok_or_else(|| not_a_table("mcp_servers"))?;
    let entry = servers
        .entry(SERVER_NAME)
        .or_insert(toml_edit::Item::Table(toml_edit::Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| not_a_table("mcp_servers.car"))?;
    if entry.get("command").and_then(|item| item.as_str()) != Some(program) {
        entry.insert("command", toml_edit::value(program));
    }
    let args_match = entry
        .get("args")
        .and_then(|item| item.as_array())
        .is_some_and(|args| {
            args.iter()
                .map(|arg| arg.as_str())
                .eq(SERVER_ARGS.iter().map(|arg| Some(*arg)))
        });
    if !args_match {
        entry.insert(
            "args",
            toml_edit::value(SERVER_ARGS.into_iter().collect::<toml_edit::Array>()),
        );
    }
    Ok(document.to_string() != before)
}

/// Removes `[mcp_servers.car]`, and `mcp_servers` when that leaves it empty.
fn remove_toml_entry(document: &mut toml_edit::DocumentMut) -> bool {
    let Some(servers) = document
        .get_mut("mcp_servers")
        .and_then(|item| item.as_table_like_mut())
    else {
        return false;
    };
    if servers.remove(SERVER_NAME).is_none() {
        return false;
    }
    if servers.is_empty() {
        document.remove("mcp_servers");
    }
    true
}

/// The TOML twin of [`update_json_document`]: inside the project, under `lock`, the user's
/// formatting kept (toml_edit), written atomically only when `change` changed it.
fn update_toml_document(
    project: &Project,
    path: &Path,
    lock: &Path,
    change: impl FnOnce(&mut toml_edit::DocumentMut) -> Result<bool, McpConfigError>,
) -> Result<bool, McpConfigError> {
    project.check_write_inside(path)?;
    let _lock = crate::files::FileLock::acquire(lock, crate::files::HOOK_LOCK_WAIT)?;
    let original = crate::files::read_optional(path)?;
    let mut document = parse_toml(path, original.as_deref())?;
    if !change(&mut document)? {
        return Ok(false);
    }
    crate::files::write_atomic(path, document.to_string().as_bytes())?;
    if original.is_none() {
        crate::state::created_files::remember(project, path);
    }
    Ok(true)
}

fn parse_toml(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut, McpConfigError> {
    text.unwrap_or_default()
        .parse::<toml_edit::DocumentMut>()
        .map_err(|error| McpConfigError::Toml {
            file: path.display().to_string(),
            message: error.to_string().trim().to_string(),
        })
}

/// Deletes a file car created once car's removal left it empty (a file the user had stays).
fn remove_if_left_empty(
    project: &Project,
    path: &Path,
    format: McpFormat,
) -> Result<(), McpConfigError> {
    if !crate::state::created_files::was_created(project, path) {
        return Ok(());
    }
    let text = crate::files::read_optional(path)?;
    let is_empty = match format {
        McpFormat::Json => crate::settings::parse_document(path, text.as_deref())?.is_empty(),
        McpFormat::Toml => parse_toml(path, text.as_deref())?.as_table().is_empty(),
    };
    if is_empty {
        std::fs::remove_file(path).map_err(|source| crate::files::FileError::io(path, source))?;
        if let Some(folder) = path.parent() {
            let _ = std::fs::remove_dir(folder);
        }
        crate::state::created_files::forget(project, path);
    }
    Ok(())
}

/// Records car's server as approved in Claude Code's personal project settings, unless the
/// person rejected it.
fn approve_for_claude(project: &Project) -> Result<Approval, McpConfigError> {
    if claude_approval(project) == Approval::Rejected {
        return Ok(Approval::Rejected);
    }
    let path = project.root().join(CLAUDE_LOCAL_SETTINGS);
    update_json_document(
        project,
        &path,
        &lock_for_local_settings(project),
        |document| {
            let list = document.entry(ENABLED_KEY).or_insert_with(|| json!([]));
            let Value::Array(list) = list else {
                return Err(McpConfigError::NotAnObject {
                    file: CLAUDE_LOCAL_SETTINGS.to_string(),
                    key: ENABLED_KEY.to_string(),
                });
            };
            if list.iter().any(|name| name == SERVER_NAME) {
                return Ok(false);
            }
            list.push(json!(SERVER_NAME));
            Ok(true)
        },
    )?;
    Ok(Approval::Approved)
}

/// Takes `"car"` out of `enabledMcpjsonServers` (and the key, and a file car created, when that
/// leaves them empty).
fn withdraw_claude_approval(project: &Project) -> Result<(), McpConfigError> {
    let path = project.root().join(CLAUDE_LOCAL_SETTINGS);
    if !path.exists() {
        return Ok(());
    }
    let removed = update_json_document(
        project,
        &path,
        &lock_for_local_settings(project),
        |document| {
            let Some(Value::Array(list)) = document.get_mut(ENABLED_KEY) else {
                return Ok::<bool, McpConfigError>(false);
            };
            let before = list.len();
            list.retain(|name| name != SERVER_NAME);
            if list.len() == before {
                return Ok(false);
            }
            if list.is_empty() {
                document.shift_remove(ENABLED_KEY);
            }
            Ok(true)
        },
    )?;
    if removed {
        remove_if_left_empty(project, &path, McpFormat::Json)?;
    }
    Ok(())
}

fn lock_for_local_settings(project: &Project) -> PathBuf {
    project.state_dir().join(names::wiring_lock("claude-local"))
}

/// Claude Code's approval of car's server, from the project's settings files (a rejection in
/// either wins, as in Claude Code).
pub(crate) fn claude_approval(project: &Project) -> Approval {
    let lists = [CLAUDE_LOCAL_SETTINGS, Agent::Claude.file()].map(|file| {
        let path = project.root().join(file);
        let text = crate::files::read_optional(&path).ok().flatten();
        crate::settings::parse_document(&path, text.as_deref()).unwrap_or_default()
    });
    let names = |key: &str| {
        lists.iter().any(|document| {
            document
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(|list| list.iter().any(|name| name == SERVER_NAME))
        })
    };
    if names(DISABLED_KEY) {
        Approval::Rejected
    } else if names(ENABLED_KEY) {
        Approval::Approved
    } else {
        Approval::Pending
    }
}

/// What an agent's configuration says about car's server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Registration {
    /// No entry named `car`.
    Absent,
    /// The command `car install` writes now.
    Current { command: String },
    /// Another command that exists (an older install, a hand-written entry).
    Other { command: String },
    /// A path that does not exist (car moved or was uninstalled): the agent cannot start it.
    Stale { command: String },
    /// The file cannot be read.
    Unreadable(String),
}

/// Reads car's registration for `agent` (`None`: the agent has no MCP file car writes).
pub(crate) fn registration(project: &Project, agent: Agent) -> Option<Registration> {
    let file = file(agent)?;
    let path = project.root().join(file);
    let text = match crate::files::read_optional(&path) {
        Ok(text) => text,
        Err(error) => return Some(Registration::Unreadable(error.to_string())),
    };
    let command = match format(agent) {
        McpFormat::Json => match crate::settings::parse_document(&path, text.as_deref()) {
            Ok(document) => document
                .get("mcpServers")
                .and_then(|servers| servers.get(SERVER_NAME))
                .map(|entry| {
                    entry
                        .get("command")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                }),
            Err(error) => return Some(Registration::Unreadable(error.to_string())),
        },
        McpFormat::Toml => match parse_toml(&path, text.as_deref()) {
            Ok(document) => document
                .get("mcp_servers")
                .and_then(|servers| servers.get(SERVER_NAME))
                .map(|entry| {
                    entry
                        .get("command")
                        .and_then(|command| command.as_str())
                        .unwrap_or_default()
                        .to_string()
                }),
            Err(error) => return Some(Registration::Unreadable(error.to_string())),
        },
    };
    Some(classify(command, &Installation::detect().mcp_program()))
}

fn classify(command: Option<String>, current: &str) -> Registration {
    let Some(command) = command else {
        return Registration::Absent;
    };
    if command == current {
        Registration::Current { command }
    } else if command.contains('/') && !Path::new(&command).exists() {
        Registration::Stale { command }
    } else {
        Registration::Other { command }
    }
}

impl Registration {
    /// The state's name in `car status --json`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Registration::Absent => "absent",
            Registration::Current { .. } => "registered",
            Registration::Other { .. } => "other_command",
            Registration::Stale { .. } => "stale",
            Registration::Unreadable(_) => "unreadable",
        }
    }

    pub(crate) fn command(&self) -> Option<&str> {
        match self {
            Registration::Current { command }
            | Registration::Other { command }
            | Registration::Stale { command } => Some(command),
            Registration::Absent | Registration::Unreadable(_) => None,
        }
    }

    /// One line for `car status`: the state, and what to do about it.
    pub(crate) fn describe(&self, agent: Agent) -> String {
        let file = file(agent).unwrap_or_default();
        let title = agent.title();
        let name = agent.name();
        match self {
            Registration::Absent => format!(
                "{title} ({file}): not registered (`car install --agent {name}` registers it)"
            ),
            Registration::Current { command } => {
                format!("{title} ({file}): registered (`{command} mcp`)")
            }
            Registration::Other { command } => format!(
                "{title} ({file}): registered as `{command} mcp`, not this car; `car install --agent {name}` points it here"
            ),
            Registration::Stale { command } => format!(
                "{title} ({file}): warning: registered as `{command} mcp`, which does not exist, so {title} cannot start it; `car install --agent {name}` updates it"
            ),
            Registration::Unreadable(error) => format!("{title} ({file}): cannot read: {error}"),
        }
    }
}

impl Approval {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Approval::Approved => "approved",
            Approval::Rejected => "rejected",
            Approval::Pending => "pending",
        }
    }

    /// What Claude Code does with car's server, for people.
    pub(crate) fn describe(self) -> String {
        match self {
            Approval::Approved => format!(
                "approved for Claude Code (\"{SERVER_NAME}\" in {ENABLED_KEY}, {CLAUDE_LOCAL_SETTINGS})"
            ),
            Approval::Rejected => format!(
                "rejected in Claude Code (\"{SERVER_NAME}\" in {DISABLED_KEY}): it stays off until that entry is removed"
            ),
            Approval::Pending => {
                "not approved yet: Claude Code asks at its next interactive start".to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_entry_keeps_the_users_servers_and_keys_and_is_idempotent() {
        let mut document = serde_json::from_value::<Map<String, Value>>(json!({
            "mcpServers": {"github": {"command": "gh-mcp"}, "car": {"command": "old", "env": {"A": "1"}}}
        }))
        .unwrap();
        assert!(set_json_entry(&mut document, ".mcp.json", "car").unwrap());
        assert!(!set_json_entry(&mut document, ".mcp.json", "car").unwrap());
        assert_eq!(
            document["mcpServers"]["car"],
            json!({"command": "car", "env": {"A": "1"}, "args": ["mcp"]})
        );
        assert!(remove_json_entry(&mut document));
        assert!(!remove_json_entry(&mut document));
        assert_eq!(
            Value::Object(document),
            json!({"mcpServers": {"github": {"command": "gh-mcp"}}})
        );
        let mut broken =
            serde_json::from_value::<Map<String, Value>>(json!({"mcpServers": []})).unwrap();
        let error = set_json_entry(&mut broken, ".mcp.json", "car")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(".mcp.json") && error.contains("mcpServers"),
            "{error}"
        );
    }

    #[test]
    fn toml_entry_round_trips_the_users_file_byte_for_byte() {
        let original = "# mine\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n";
        let mut document = original.parse::<toml_edit::DocumentMut>().unwrap();
        assert!(set_toml_entry(&mut document, ".codex/config.toml", "car").unwrap());
        let text = document.to_string();
        assert!(
            text.contains("[mcp_servers.car]\ncommand = \"car\"\nargs = [\"mcp\"]"),
            "{text}"
        );
        assert!(!set_toml_entry(&mut document, ".codex/config.toml", "car").unwrap());
        assert!(remove_toml_entry(&mut document));
        assert_eq!(document.to_string(), original);

        let mut empty = toml_edit::DocumentMut::new();
        set_toml_entry(&mut empty, ".codex/config.toml", "/opt/car").unwrap();
        assert_eq!(
            empty.to_string(),
            "[mcp_servers.car]\ncommand = \"/opt/car\"\nargs = [\"mcp\"]\n"
        );
        assert!(remove_toml_entry(&mut empty));
        assert!(empty.as_table().is_empty());

        let mut broken = "mcp_servers = 3\n"
            .parse::<toml_edit::DocumentMut>()
            .unwrap();
        let error = set_toml_entry(&mut broken, ".codex/config.toml", "car")
            .unwrap_err()
            .to_string();
        assert!(error.contains(".codex/config.toml: mcp_servers"), "{error}");
    }

    #[test]
    fn a_registration_is_current_other_or_stale() {
        assert_eq!(classify(None, "car"), Registration::Absent);
        assert_eq!(classify(Some("car".into()), "car").name(), "registered");
        assert_eq!(
            classify(Some("/bin/sh".into()), "car").name(),
            "other_command"
        );
        let stale = classify(Some("/nowhere/node_modules/car".into()), "car");
        assert_eq!(stale.name(), "stale");
        assert!(stale.describe(Agent::Gemini).contains("does not exist"));
    }
}
