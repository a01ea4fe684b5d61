//! `car install` / `car uninstall`: wire car's hooks into the project's `.claude/settings.json`
//! and create its state folder.
//!
//! Invariants: idempotent (a second install changes nothing); the user's other hooks, matchers and
//! keys are kept exactly; car's entries are recognised by their `car hook …` command, so an
//! install refreshes them (e.g. a new Stop timeout) instead of adding duplicates. The entries come
//! from the shipped plugin file `hooks/hooks.json`, the one source of car's wiring.

use std::io::{BufRead, IsTerminal, Write};

use serde_json::{Map, Value, json};

use crate::cli::InstallArgs;
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::error::SetupError;
use crate::output;
use crate::project::Project;
use crate::settings::{Settings, SettingsError, update_settings_document};

/// The plugin's hook wiring, shipped with car.
const PLUGIN_HOOKS: &str = include_str!("../../hooks/hooks.json");

/// Commands that mark a hook entry as car's.
const CAR_COMMAND_PREFIX: &str = "car hook ";

/// Seconds the Stop hook may take beyond the reviewer's own timeout.
const STOP_TIMEOUT_MARGIN: u64 = 60;

pub(crate) fn install(project: &Project, args: &InstallArgs) -> Result<Outcome, Error> {
    let settings_path = project.settings_file();
    let settings = Settings::load(project).unwrap_or_default();
    let entries = car_hook_entries(&settings)?;
    let changed = update_settings_document(project, |document| {
        let before = document.clone();
        remove_car_hooks(document);
        add_car_hooks(document, &entries).map_err(|error| SettingsError::Value {
            path: settings_path.clone(),
            key: "hooks".into(),
            message: error.to_string(),
        })?;
        Ok(*document != before)
    })?;
    if changed {
        output::print_message(&format!(
            "wired PostToolUse, Stop, SubagentStop and SessionEnd hooks in {}",
            settings_path.display()
        ));
    } else {
        output::print_message("car's hooks were already wired; nothing changed");
    }
    create_state_dir(project)?;
    if let Some(rules) = crate::review::install_default_rules(project)? {
        output::print_message(&format!(
            "wrote the review rules to {} (edit them to fit your project)",
            rules.display()
        ));
    }
    offer_starter_lessons(project, args)?;
    output::print_hint("`car config` chooses the reviewer; `car status` shows what car sees");
    Ok(Outcome::Success)
}

pub(crate) fn uninstall(project: &Project) -> Result<Outcome, Error> {
    let settings_path = project.settings_file();
    if !settings_path.exists() {
        output::print_message("no .claude/settings.json here; nothing to remove");
        return Ok(Outcome::Success);
    }
    if update_settings_document(project, |document| Ok(remove_car_hooks(document)))? {
        output::print_message(&format!(
            "removed car's hooks from {}",
            settings_path.display()
        ));
    } else {
        output::print_message("car's hooks were not wired; nothing changed");
    }
    output::print_hint(&format!(
        "lessons and state are kept in {}; delete that folder to forget them",
        project.state_dir().display()
    ));
    Ok(Outcome::Success)
}

/// The hook events car wires and the command each runs, as the plugin file says (what
/// `car status` checks for).
pub(crate) fn wired_commands() -> Vec<(String, String)> {
    let plugin: Value = serde_json::from_str(PLUGIN_HOOKS).unwrap_or(Value::Null);
    let Some(Value::Object(hooks)) = plugin.get("hooks") else {
        return Vec::new();
    };
    hooks
        .iter()
        .flat_map(|(event, groups)| {
            groups
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|group| group.get("hooks")?.as_array())
                .flatten()
                .filter_map(|hook| hook.get("command")?.as_str())
                .map(|command| (event.clone(), command.to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// car's hook entries from the plugin file, with the Stop timeout fitted to the reviewer's.
fn car_hook_entries(settings: &Settings) -> Result<Map<String, Value>, SetupError> {
    let plugin: Value = serde_json::from_str(PLUGIN_HOOKS)
        .map_err(|error| SetupError::Invalid(format!("hooks/hooks.json: {error}")))?;
    let Some(Value::Object(mut hooks)) = plugin.get("hooks").cloned() else {
        return Err(SetupError::Invalid(
            "hooks/hooks.json: no \"hooks\" object".into(),
        ));
    };
    let stop_timeout = settings
        .reviewer_timeout_seconds
        .saturating_add(STOP_TIMEOUT_MARGIN);
    for event in ["Stop", "SubagentStop"] {
        for group in hooks
            .get_mut(event)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            for hook in group
                .get_mut("hooks")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                hook["timeout"] = json!(stop_timeout);
            }
        }
    }
    Ok(hooks)
}

fn add_car_hooks(
    document: &mut Map<String, Value>,
    entries: &Map<String, Value>,
) -> Result<(), SetupError> {
    let hooks = document
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(SetupError::Invalid(
            ".claude/settings.json: \"hooks\" is not an object; fix it by hand".into(),
        ));
    };
    for (event, groups) in entries {
        let list = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(SetupError::Invalid(format!(
                ".claude/settings.json: hooks.{event} is not a list; fix it by hand"
            )));
        };
        list.extend(groups.as_array().cloned().unwrap_or_default());
    }
    Ok(())
}

/// Removes every hook whose command is car's, then empty groups and events; true if any was.
fn remove_car_hooks(document: &mut Map<String, Value>) -> bool {
    let Some(Value::Object(hooks)) = document.get_mut("hooks") else {
        return false;
    };
    let mut removed = false;
    for groups in hooks.values_mut() {
        let Value::Array(groups) = groups else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(Value::Array(list)) = group.get_mut("hooks") {
                let before = list.len();
                list.retain(|hook| !is_car_hook(hook));
                removed |= list.len() != before;
            }
        }
        groups.retain(
            |group| !matches!(group.get("hooks"), Some(Value::Array(list)) if list.is_empty()),
        );
    }
    if removed {
        hooks.retain(|_, groups| !matches!(groups, Value::Array(list) if list.is_empty()));
        if hooks.is_empty() {
            document.remove("hooks");
        }
    }
    removed
}

fn is_car_hook(hook: &Value) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .is_some_and(|command| {
            let command = command.trim();
            command.starts_with(CAR_COMMAND_PREFIX)
                || command.contains(&format!("/{CAR_COMMAND_PREFIX}"))
        })
}

fn create_state_dir(project: &Project) -> Result<(), Error> {
    if crate::state_dir::write_gitignore(project)? {
        output::print_message(&format!(
            "created {} (runtime files git-ignored)",
            project.state_dir().display()
        ));
    }
    Ok(())
}

/// Adds the starter lessons when asked by flag, or after a yes on a terminal.
fn offer_starter_lessons(project: &Project, args: &InstallArgs) -> Result<(), Error> {
    let wanted = args.starter_lessons
        || (!args.non_interactive
            && ask_yes("Add car's starter lessons (Python, TypeScript, Rust, shell)?"));
    if !wanted {
        if !args.non_interactive && !std::io::stdin().is_terminal() {
            output::print_hint("`car install --starter-lessons` adds car's starter lessons");
        }
        return Ok(());
    }
    let added = crate::lessons::install_starter_lessons(project, Clock::from_env()?)?;
    output::print_message(&format!(
        "added {added} starter lessons to {}",
        project.lessons_file().display()
    ));
    Ok(())
}

/// Asks on the terminal; without one the answer is no.
fn ask_yes(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    eprint!("{question} [Y/n] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    let answer = answer.trim().to_lowercase();
    answer.is_empty() || answer == "y" || answer == "yes"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_is_idempotent_and_keeps_other_hooks() {
        let user_hook =
            json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]});
        let mut document = Map::new();
        document.insert("hooks".into(), json!({"PostToolUse": [user_hook.clone()]}));
        document.insert("model".into(), json!("opus"));
        let entries = car_hook_entries(&Settings::default()).unwrap();
        remove_car_hooks(&mut document);
        add_car_hooks(&mut document, &entries).unwrap();
        let once = document.clone();
        remove_car_hooks(&mut document);
        add_car_hooks(&mut document, &entries).unwrap();
        assert_eq!(once, document);
        assert_eq!(document["hooks"]["PostToolUse"][0], user_hook);
        assert_eq!(
            document["hooks"]["Stop"][0]["hooks"][0]["timeout"],
            json!(360)
        );
        assert!(remove_car_hooks(&mut document));
        assert_eq!(document["hooks"], json!({"PostToolUse": [user_hook]}));
        assert_eq!(document["model"], json!("opus"));
    }
}
