//! `car install` / `car uninstall`: wire car's hooks into each agent's own project hook file
//! (`--agent claude|codex|gemini|cursor|all`, default claude) and create its state folder.
//!
//! Invariants: idempotent (a second install changes nothing); the user's other hooks, matchers,
//! keys and formatting are kept (the files are edited minimally, so an install followed by an
//! uninstall leaves them byte-identical); car's entries are recognised by their `car hook …`
//! command, so an install refreshes them (e.g. a new Stop timeout) instead of adding duplicates.
//! Installing into Claude Code also moves a project over from car's predecessors: the Python
//! `claude-auto-review` tool's hooks and the Python lesson hook are replaced (and named), the
//! Python tool's settings and state stay, and the Python lesson hook's
//! `.claude/hooks/lessons.json` is imported.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::agents::hook_binary::HookBinary;
use crate::agents::mcp_hooks::{self, HookTransport};
use crate::agents::{self, Agent, Handler, mcp_server, migrate};
use crate::cli::{HooksChoice, InstallArgs, UninstallArgs};
use crate::clock::Clock;
use crate::commands::Outcome;
use crate::error::Error;
use crate::lessons::LessonsError;
use crate::lessons::import::Imported;
use crate::output;
use crate::project::Project;
use crate::settings::{Settings, update_json_document};
use crate::state::{merge_driver, names};
use crate::text::plural;

pub(crate) fn install(project: &Project, args: &InstallArgs) -> Result<Outcome, Error> {
    let settings = Settings::load(project).unwrap_or_default();
    let agents = args.agent.agents();
    super::install_mcp::check_transport(&agents, args)?;
    if let [agent] = agents[..] {
        wire_agent(project, agent, &settings, args)?;
    }
    // Several agents: each is wired or refused on its own (a file car must not touch stops only
    // its agent), and one line per agent ends the run.
    let mut outcomes: Vec<(Agent, Option<Error>)> = Vec::new();
    if agents.len() > 1 {
        for agent in agents {
            let refused = wire_agent(project, agent, &settings, args).err();
            outcomes.push((agent, refused));
        }
    }
    create_state_dir(project)?;
    register_merge_driver(project);
    if let Some(rules) = crate::review::prompt::install_default_rules(project)? {
        output::print_message(&format!(
            "wrote the review rules to {} (edit them to fit your project)",
            rules.display()
        ));
    }
    if args.agent.agents().contains(&Agent::Claude) {
        import_seed_lessons(project);
    }
    offer_starter_lessons(project, args)?;
    let binary = HookBinary::find();
    if matches!(binary, HookBinary::ByPath { .. }) {
        output::print_message(&binary.describe());
    }
    if let Some(warning) = binary.warning() {
        output::print_message(&warning);
    }
    for (used_by, program) in crate::reviewer::missing_clis(&settings, project.checkout()) {
        output::print_message(&crate::reviewer::missing_cli_warning(used_by, &program));
    }
    output::print_hint("`car config` chooses the reviewer; `car status` shows what car sees");
    for (agent, refused) in &outcomes {
        output::print_message(&match refused {
            None => format!("{}: wired ({})", agent.title(), agent.file()),
            Some(error) => format!("{}: refused: {error}", agent.title()),
        });
    }
    if outcomes.iter().any(|(_, refused)| refused.is_some()) {
        return Ok(Outcome::ProblemsFound);
    }
    Ok(Outcome::Success)
}

/// Wires one agent's hooks and registers (or, with `--no-mcp`, unregisters) car's MCP server
/// there, saying what it did.
fn wire_agent(
    project: &Project,
    agent: Agent,
    settings: &Settings,
    args: &InstallArgs,
) -> Result<(), Error> {
    let transport = args.hooks.map(HooksChoice::transport);
    let wired = wire(project, agent, settings, agent == Agent::Claude, transport)?;
    report_wiring(project, agent, &wired);
    if wired.transport == HookTransport::Mcp {
        output::print_message(&format!(
            "car's {} hooks call the `hook` tool of the running `car mcp` (\"type\": \"mcp_tool\"); `car install --hooks command` starts `car hook …` again",
            agent.title()
        ));
    }
    if agent == Agent::Codex {
        report_codex_trust(project);
    }
    if args.no_mcp {
        super::install_mcp::report_unregistered(mcp_server::unregister(project, agent)?);
    } else if let Some(registered) = mcp_server::register(project, agent)? {
        super::install_mcp::report_registered(project, agent, &registered);
    }
    Ok(())
}

pub(crate) fn uninstall(project: &Project, args: &UninstallArgs) -> Result<Outcome, Error> {
    for agent in args.agent.agents() {
        unwire(project, agent)?;
        super::install_mcp::report_unregistered(mcp_server::unregister(project, agent)?);
    }
    let still_wired: Vec<&str> = Agent::ALL
        .iter()
        .filter(|agent| is_wired(project, **agent))
        .map(|agent| agent.title())
        .collect();
    if still_wired.is_empty() {
        unregister_merge_driver(project);
    }
    if !args.purge {
        tell_kept(project);
    } else if still_wired.is_empty() {
        purge(project)?;
    } else {
        output::print_message(&format!(
            "kept car's settings and state folder: its hooks are still wired for {}",
            still_wired.join(", ")
        ));
        output::print_hint("`car uninstall --agent all --purge` removes car from the project");
    }
    Ok(Outcome::Success)
}

/// Removes car's hooks from one agent's file (and the file, when that leaves it empty and car
/// created it or it holds only hooks).
fn unwire(project: &Project, agent: Agent) -> Result<(), Error> {
    let path = agent.path(project);
    if !path.exists() {
        output::print_message(&format!("no {} here; nothing to remove", agent.file()));
        return Ok(());
    }
    let removed = update_json_document(project, &path, &lock_for(project, agent), |document| {
        Ok::<bool, Error>(!agents::remove_handlers(document, agents::is_car_command).is_empty())
    })?;
    if !removed {
        output::print_message(&format!(
            "car's hooks were not wired in {}; nothing changed",
            agent.file()
        ));
        return Ok(());
    }
    output::print_message(&format!("removed car's hooks from {}", agent.file()));
    remove_if_left_empty(project, agent)
}

fn unregister_merge_driver(project: &Project) {
    match merge_driver::unregister(project) {
        Ok(removed) => {
            for removed in removed {
                output::print_message(&format!("removed {removed}"));
            }
        }
        Err(error) => output::print_message(&format!(
            "warning: git's merge driver for the lesson files was not removed: {error}"
        )),
    }
}

/// A plain uninstall keeps car's settings and state: say which, and how to remove them.
fn tell_kept(project: &Project) {
    let mut kept = Vec::new();
    if project.state_dir().is_dir() {
        kept.push(format!(
            "the lessons and state in {}",
            project.state_dir().display()
        ));
    }
    if has_settings_block(project) {
        kept.push(format!(
            "car's settings (\"{}\" in {})",
            crate::settings::SETTINGS_KEY,
            Agent::Claude.file()
        ));
    }
    if !kept.is_empty() {
        output::print_message(&format!("kept {}", kept.join(" and ")));
        output::print_hint("`car uninstall --purge` removes them too");
    }
}

fn has_settings_block(project: &Project) -> bool {
    let path = project.settings_file();
    crate::files::read_optional(&path)
        .ok()
        .flatten()
        .and_then(|text| crate::settings::parse_document(&path, Some(&text)).ok())
        .is_some_and(|document| document.contains_key(crate::settings::SETTINGS_KEY))
}

/// `--purge`: car's settings block (and a settings file car created that is left empty), then
/// the state folder with everything in it, then a `.claude` folder that leaves empty.
fn purge(project: &Project) -> Result<(), Error> {
    purge_review_contexts(project)?;
    let settings = project.settings_file();
    if settings.exists() {
        let removed = update_json_document(
            project,
            &settings,
            &lock_for(project, Agent::Claude),
            |document| Ok::<bool, Error>(document.remove(crate::settings::SETTINGS_KEY).is_some()),
        )?;
        if removed {
            output::print_message(&format!(
                "removed car's settings (\"{}\") from {}",
                crate::settings::SETTINGS_KEY,
                Agent::Claude.file()
            ));
        }
        remove_if_left_empty(project, Agent::Claude)?;
    }
    let state = project.state_dir();
    if state.is_dir() {
        std::fs::remove_dir_all(&state)
            .map_err(|source| crate::files::FileError::io(&state, source))?;
        output::print_message(&format!(
            "removed {} (lessons, candidates, sessions and logs; lessons committed to git stay \
             in its history)",
            state.display()
        ));
        if let Some(folder) = state.parent() {
            let _ = std::fs::remove_dir(folder);
        }
    }
    Ok(())
}

/// What `car deep-review init` wrote and nobody filled in: the context files and their
/// `CLAUDE.md` lines; a filled-in context is kept and named.
fn purge_review_contexts(project: &Project) -> Result<(), Error> {
    let purged = crate::review::deep::purge::purge(project.checkout())?;
    for removed in &purged.removed {
        output::print_message(&format!("removed {removed} (car's unfilled template)"));
    }
    if purged.removed_claude_md {
        output::print_message("removed CLAUDE.md (car's context list was all it held)");
    } else if purged.lines > 0 {
        output::print_message(&format!(
            "removed {} from CLAUDE.md's \"Active review contexts\"",
            crate::text::plural(purged.lines, "line")
        ));
    }
    if !purged.kept.is_empty() {
        output::print_message(&format!(
            "kept {}: filled in by someone, not car's to remove",
            purged.kept.join(", ")
        ));
    }
    Ok(())
}

/// Re-wires every agent car is already wired into, so timeouts follow changed settings; the files
/// that changed.
pub(crate) fn refresh_wiring(
    project: &Project,
    settings: &Settings,
) -> Result<Vec<PathBuf>, Error> {
    let mut changed = Vec::new();
    for agent in Agent::ALL {
        if is_wired(project, agent) && wire(project, agent, settings, false, None)?.changed {
            changed.push(agent.path(project));
        }
    }
    Ok(changed)
}

/// Whether car's hooks are in the agent's file (a file car cannot read counts as not wired).
fn is_wired(project: &Project, agent: Agent) -> bool {
    let path = agent.path(project);
    let Ok(text) = crate::files::read_optional(&path) else {
        return false;
    };
    crate::settings::parse_document(&path, text.as_deref()).is_ok_and(|document| {
        agents::handlers(&document)
            .iter()
            .any(|handler| agents::is_car_command(&handler.command))
    })
}

/// Registers git's merge driver for the lesson files, naming this binary the way the agent's
/// commands do ([`crate::review::gate::program::name`]: git may run it from a shell without car on PATH).
/// A driver that cannot be registered costs only clean merges of the lessons: install goes on.
fn register_merge_driver(project: &Project) {
    let program = crate::review::gate::program::name();
    match merge_driver::register(project, program) {
        Err(error) => {
            output::print_message(&format!(
                "warning: git's merge driver for the lesson files was not registered: {error}"
            ));
            output::print_hint(&format!(
                "without it git merges lessons.json line by line; register it by hand: git config \
                 merge.car-lessons.driver '{}'",
                merge_driver::driver_command(program)
            ));
        }
        Ok(None) => output::print_message(
            "not a git checkout: no merge driver registered for the lesson files",
        ),
        Ok(Some(registered)) if registered.attributes || registered.config => {
            output::print_message(&format!(
                "registered git's merge driver for the lesson files: `{}` ({}/{} and the \
                 repository's git config; in another clone run `car install` again)",
                merge_driver::driver_command(program),
                names::STATE_DIR,
                names::GITATTRIBUTES
            ));
        }
        Ok(Some(_)) => {}
    }
}

/// What wiring one agent did.
struct Wired {
    changed: bool,
    /// Hooks of car's predecessors that car's replaced.
    replaced: Vec<Handler>,
    transport: HookTransport,
}

/// Replaces car's entries in the agent's file (and, when `migrate`, its predecessors' too),
/// reaching car by `transport` (`None`: as the file's entries do now).
fn wire(
    project: &Project,
    agent: Agent,
    settings: &Settings,
    migrate: bool,
    transport: Option<HookTransport>,
) -> Result<Wired, Error> {
    let mut entries = agent.entries(settings);
    let mut replaced = Vec::new();
    let mut used = HookTransport::Command;
    let changed = update_json_document(
        project,
        &agent.path(project),
        &lock_for(project, agent),
        |document| {
            let before = document.clone();
            used = transport.unwrap_or_else(|| mcp_hooks::transport_of(document));
            if used == HookTransport::Mcp {
                entries = mcp_hooks::through_server(agent, &entries);
            }
            if migrate {
                replaced = agents::remove_handlers(document, |command| {
                    migrate::is_python_tool_command(command) || migrate::is_seed_command(command)
                });
            }
            agents::remove_handlers(document, agents::is_car_command);
            agents::add_entries(agent, document, &entries)?;
            Ok::<bool, Error>(*document != before)
        },
    )?;
    Ok(Wired {
        changed,
        replaced,
        transport: used,
    })
}

fn report_wiring(project: &Project, agent: Agent, wired: &Wired) {
    let file = agent.file();
    let python: Vec<&Handler> = wired
        .replaced
        .iter()
        .filter(|handler| migrate::is_python_tool_command(&handler.command))
        .collect();
    if !python.is_empty() {
        output::print_message(&format!(
            "replaced the Python claude-auto-review hooks in {file} with car's: {} (its settings key is read as it is; its state files stay)",
            describe(&python)
        ));
    }
    let seed: Vec<&Handler> = wired
        .replaced
        .iter()
        .filter(|handler| migrate::is_seed_command(&handler.command))
        .collect();
    if !seed.is_empty() {
        output::print_message(&format!(
            "replaced the Python lesson hook in {file} with car's: {} (the scripts stay in .claude/hooks/)",
            describe(&seed)
        ));
    }
    if wired.changed {
        let events: Vec<String> = agent
            .entries(&Settings::default())
            .keys()
            .cloned()
            .collect();
        output::print_message(&format!(
            "wired car's {} hooks in {file} ({})",
            agent.title(),
            events.join(", ")
        ));
        if let Some(hint) = agent.trust_hint() {
            output::print_hint(hint);
        }
    } else {
        output::print_message(&format!(
            "car's hooks were already wired in {file}; nothing changed"
        ));
    }
    let _ = project;
}

/// Codex skips hooks it has not trusted, silently: say what it will do with car's.
fn report_codex_trust(project: &Project) {
    let path = Agent::Codex.path(project);
    let text = crate::files::read_optional(&path).ok().flatten();
    let Ok(document) = crate::settings::parse_document(&path, text.as_deref()) else {
        return;
    };
    let trust = agents::codex_trust::check(project, &document);
    if trust.all_trusted() {
        output::print_message(&trust.describe());
    } else {
        output::print_hint(&trust.describe());
    }
}

fn describe(handlers: &[&Handler]) -> String {
    handlers
        .iter()
        .map(|handler| format!("{} `{}`", handler.event, handler.command))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where the lock for an agent's file lives: car's state folder, so nothing is left beside the
/// user's files (Claude's is the one `car config` takes too).
fn lock_for(project: &Project, agent: Agent) -> PathBuf {
    match agent {
        Agent::Claude => project.state_dir().join(names::SETTINGS_LOCK),
        other => project.state_dir().join(names::wiring_lock(other.name())),
    }
}

/// Deletes a file (and its folder) that car's removal left empty: a hooks-only file, or one car
/// created (a file the user had, even `{}`, stays).
fn remove_if_left_empty(project: &Project, agent: Agent) -> Result<(), Error> {
    let path = agent.path(project);
    let was_created = crate::state::created_files::was_created(project, &path);
    if !agent.is_hooks_only_file() && !was_created {
        return Ok(());
    }
    let document =
        crate::settings::parse_document(&path, crate::files::read_optional(&path)?.as_deref())?;
    if agents::is_left_empty(agent, &document) {
        std::fs::remove_file(&path).map_err(|source| crate::files::FileError::io(&path, source))?;
        if let Some(folder) = path.parent() {
            let _ = std::fs::remove_dir(folder);
        }
        crate::state::created_files::forget(project, &path);
        output::print_message(&format!(
            "removed {} (car's entries were all it held)",
            agent.file()
        ));
    }
    Ok(())
}

/// Imports the Python lesson hook's lessons, then its candidate pool, when the project has them
/// (idempotent: duplicates are skipped).
fn import_seed_lessons(project: &Project) {
    let lessons = project.lessons_file();
    let candidates = project.candidates_file();
    import_seed_file(
        project,
        migrate::SEED_LESSONS,
        "lesson",
        &lessons,
        |source| crate::lessons::import::import_file(&lessons, source),
    );
    import_seed_file(
        project,
        migrate::SEED_CANDIDATES,
        "candidate",
        &candidates,
        |source| crate::lessons::import::import_candidates(&candidates, &lessons, source),
    );
}

/// Runs one seed import when `relative` exists, and says what it did.
fn import_seed_file(
    project: &Project,
    relative: &str,
    noun: &str,
    target: &Path,
    import: impl FnOnce(&Path) -> Result<Imported, LessonsError>,
) {
    let source = project.root().join(relative);
    if !source.is_file() {
        return;
    }
    match import(&source) {
        Ok(imported) if imported.added > 0 => output::print_message(&format!(
            "imported {} from the Python lesson hook's {relative} into {} ({} skipped: already there or unusable)",
            plural(imported.added, noun),
            target.display(),
            imported.skipped
        )),
        Ok(_) => {}
        Err(error) => output::print_message(&format!(
            "warning: the Python lesson hook's {relative} was not imported: {error}"
        )),
    }
}

fn create_state_dir(project: &Project) -> Result<(), Error> {
    if crate::state::write_gitignore(project)? {
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
    output::print_message(&if added == 0 {
        format!(
            "car's starter lessons are already in {}",
            project.lessons_file().display()
        )
    } else {
        format!(
            "added {} to {}",
            plural(added, "starter lesson"),
            project.lessons_file().display()
        )
    });
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
