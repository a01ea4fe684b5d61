//! Whether Codex will run car's hooks. Codex loads a project's `.codex/hooks.json` only in a
//! project it trusts (`[projects."<root>"] trust_level = "trusted"` in its `config.toml`), and
//! then runs each hook only once the person trusted that very hook in `/hooks`, which Codex
//! records as `[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`.
//! An untrusted or changed hook is skipped silently, so `car install --agent codex` and
//! `car status` read those records and say what Codex will do.
//!
//! The hash is Codex's own: SHA-256 of the hook's identity (`event_name`, the group's `matcher`
//! where the event has one, the one handler with its defaults filled in) as JSON with sorted keys
//! and no spaces, checked against what `codex app-server` reports as `currentHash` (Codex CLI
//! 0.171.0).

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::project::Project;

/// What Codex does with car's hooks in this project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CodexTrust {
    /// Codex's config could not be read; nothing is known.
    Unknown(String),
    /// The project is not trusted: Codex loads none of its hooks.
    ProjectUntrusted { config: PathBuf },
    /// Per hook of car's: trusted, changed since trusted, or never trusted.
    Hooks(Vec<HookTrust>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookTrust {
    /// Codex's key for the hook (`…/.codex/hooks.json:stop:0:0`).
    pub(crate) key: String,
    pub(crate) event: String,
    pub(crate) state: HookState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookState {
    Trusted,
    Changed,
    Untrusted,
}

/// Codex's home: `CODEX_HOME`, else `~/.codex`.
pub(crate) fn codex_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|home| !home.is_empty()) {
        return Some(PathBuf::from(home));
    }
    crate::paths::home_dir().map(|home| home.join(".codex"))
}

/// What Codex does with car's hooks in `hooks_file` (the project's parsed `.codex/hooks.json`).
pub(crate) fn check(project: &Project, hooks_file: &Map<String, Value>) -> CodexTrust {
    let Some(home) = codex_home() else {
        return CodexTrust::Unknown(
            "CODEX_HOME is not set and HOME is not set or not a folder".into(),
        );
    };
    let config = home.join("config.toml");
    let text = match crate::files::read_optional(&config) {
        Ok(text) => text.unwrap_or_default(),
        Err(error) => return CodexTrust::Unknown(error.to_string()),
    };
    let document = match toml_edit::Document::parse(text) {
        Ok(document) => document,
        Err(error) => {
            return CodexTrust::Unknown(format!("{} is not valid TOML: {error}", config.display()));
        }
    };
    let table = document.as_table();
    let root = project.root().display().to_string();
    let project_trust = table
        .get("projects")
        .and_then(|projects| projects.get(&root))
        .and_then(|project| project.get("trust_level"))
        .and_then(|level| level.as_str());
    if project_trust != Some("trusted") {
        return CodexTrust::ProjectUntrusted { config };
    }
    let states = table.get("hooks").and_then(|hooks| hooks.get("state"));
    let file = project.root().join(".codex").join("hooks.json");
    let hooks = car_hooks(hooks_file)
        .into_iter()
        .map(|hook| {
            let key = format!(
                "{}:{}:{}:{}",
                file.display(),
                hook.label,
                hook.group,
                hook.handler
            );
            let trusted = states
                .and_then(|states| states.get(&key))
                .and_then(|state| state.get("trusted_hash"))
                .and_then(|hash| hash.as_str());
            let state = match trusted {
                Some(hash) if hash == hook.hash => HookState::Trusted,
                Some(_) => HookState::Changed,
                None => HookState::Untrusted,
            };
            HookTrust {
                key,
                event: hook.event,
                state,
            }
        })
        .collect();
    CodexTrust::Hooks(hooks)
}

impl CodexTrust {
    /// One line for the person: what Codex will do and what to do about it.
    pub(crate) fn describe(&self) -> String {
        match self {
            CodexTrust::Unknown(why) => format!("Codex trust: not known ({why})"),
            CodexTrust::ProjectUntrusted { config } => format!(
                "Codex trust: this project is not trusted in {}, so Codex loads none of its hooks: start Codex here and trust the folder, then trust car's hooks in /hooks",
                config.display()
            ),
            CodexTrust::Hooks(hooks) if hooks.is_empty() => {
                "Codex trust: car's hooks are not wired".into()
            }
            CodexTrust::Hooks(hooks) => {
                let named = |wanted: HookState| -> Vec<&str> {
                    hooks
                        .iter()
                        .filter(|hook| hook.state == wanted)
                        .map(|hook| hook.event.as_str())
                        .collect()
                };
                let (changed, untrusted) = (named(HookState::Changed), named(HookState::Untrusted));
                if changed.is_empty() && untrusted.is_empty() {
                    return format!(
                        "Codex trust: all {} of car's hooks are trusted",
                        hooks.len()
                    );
                }
                let mut parts = Vec::new();
                if !untrusted.is_empty() {
                    parts.push(format!("never trusted: {}", untrusted.join(", ")));
                }
                if !changed.is_empty() {
                    parts.push(format!("changed since trusted: {}", changed.join(", ")));
                }
                format!(
                    "Codex trust: Codex skips car's hooks that are {}; open /hooks in Codex and trust them",
                    parts.join("; ")
                )
            }
        }
    }

    /// Whether Codex runs every one of car's hooks.
    pub(crate) fn all_trusted(&self) -> bool {
        matches!(self, CodexTrust::Hooks(hooks)
            if hooks.iter().all(|hook| hook.state == HookState::Trusted))
    }

    pub(crate) fn to_json(&self) -> Value {
        match self {
            CodexTrust::Unknown(why) => json!({"state": "unknown", "why": why}),
            CodexTrust::ProjectUntrusted { config } => {
                json!({"state": "project_untrusted", "config": config})
            }
            CodexTrust::Hooks(hooks) => json!({
                "state": if self.all_trusted() { "trusted" } else { "not_all_trusted" },
                "hooks": hooks.iter().map(|hook| json!({
                    "key": hook.key,
                    "event": hook.event,
                    "state": match hook.state {
                        HookState::Trusted => "trusted",
                        HookState::Changed => "changed",
                        HookState::Untrusted => "untrusted",
                    },
                })).collect::<Vec<_>>(),
            }),
        }
    }
}

/// One of car's handlers in the hooks file, with Codex's name and hash for it.
struct CarHook {
    event: String,
    label: String,
    group: usize,
    handler: usize,
    hash: String,
}

/// car's handlers in the file, in Codex's order (group, then handler, per event).
fn car_hooks(document: &Map<String, Value>) -> Vec<CarHook> {
    let Some(Value::Object(events)) = document.get("hooks") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, groups) in events {
        let label = snake_case(event);
        for (group_index, group) in groups.as_array().into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (handler_index, handler) in handlers.into_iter().flatten().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !super::is_car_command(command) {
                    continue;
                }
                let matcher = group
                    .get("matcher")
                    .and_then(Value::as_str)
                    .filter(|_| event_has_matcher(&label));
                found.push(CarHook {
                    event: event.clone(),
                    hash: hook_hash(&label, matcher, handler),
                    label: label.clone(),
                    group: group_index,
                    handler: handler_index,
                });
            }
        }
    }
    found
}

/// Codex ignores a matcher on these events (and leaves it out of the hash).
fn event_has_matcher(label: &str) -> bool {
    !matches!(label, "stop" | "user_prompt_submit")
}

/// Codex's hash of one hook: its identity with the handler's defaults filled in (timeout 600 s,
/// at least 1; not async), as JSON with sorted keys and no spaces.
fn hook_hash(label: &str, matcher: Option<&str>, handler: &Value) -> String {
    let mut normalized = Map::new();
    normalized.insert("type".into(), json!("command"));
    normalized.insert("command".into(), handler["command"].clone());
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    normalized.insert("timeout".into(), json!(timeout));
    let asynchronous = handler
        .get("async")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    normalized.insert("async".into(), json!(asynchronous));
    if let Some(message) = handler.get("statusMessage").and_then(Value::as_str) {
        normalized.insert("statusMessage".into(), json!(message));
    }
    let mut identity = Map::new();
    identity.insert("event_name".into(), json!(label));
    identity.insert("hooks".into(), json!([Value::Object(normalized)]));
    if let Some(matcher) = matcher {
        identity.insert("matcher".into(), json!(matcher));
    }
    let canonical = sorted(&Value::Object(identity));
    let hex = crate::session::event::content_hash(canonical.to_string().as_bytes());
    format!("sha256:{hex}")
}

/// `value` with every object's keys in sorted order (serde_json keeps insertion order here).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `PostToolUse` → `post_tool_use`.
fn snake_case(event: &str) -> String {
    let mut label = String::new();
    for (index, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                label.push('_');
            }
            label.push(c.to_ascii_lowercase());
        } else {
            label.push(c);
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes `codex app-server` (Codex CLI 0.171.0) reported as `currentHash` for the
    /// entries `car install --agent codex` writes.
    #[test]
    fn the_hash_is_the_one_codex_computes() {
        let cases = [
            (
                "post_tool_use",
                Some("apply_patch|Edit|Write|Bash"),
                json!({"type": "command", "command": "car hook post-tool-use --agent codex", "timeout": 30}),
                "sha256:f78e44c16bac26b66112ea2ae20d53f9b03830ea7636e90927c6e6d6cdf09be4",
            ),
            (
                "stop",
                None,
                json!({"type": "command", "command": "car hook stop --agent codex", "timeout": 360}),
                "sha256:9d3eaa13e7c179de52560481586eb2ab769bc9d647586464419e1b88431bdca4",
            ),
            (
                "session_start",
                None,
                json!({"type": "command", "command": "car hook session-start --agent codex", "timeout": 5}),
                "sha256:5a6a96ee48dc61826b2e73390b6156d2828cafdc882ee9a45dc379fc1db8f3e1",
            ),
            (
                "session_end",
                None,
                json!({"type": "command", "command": "car hook session-end --agent codex", "timeout": 2}),
                "sha256:29be57113cb9ea91ca63e453264922fb6cdfe4809e1dc49aeac3b284a9478870",
            ),
        ];
        for (label, matcher, handler, expected) in cases {
            assert_eq!(hook_hash(label, matcher, &handler), expected, "{label}");
        }
    }

    #[test]
    fn event_names_become_codex_labels() {
        assert_eq!(snake_case("PostToolUse"), "post_tool_use");
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("Stop"), "stop");
    }
}
