//! What `car install` says about car's MCP server (registered, approved, removed) and the
//! checks of `--hooks mcp`: the MCP half of [`super::install`].

use crate::agents::mcp_hooks;
use crate::agents::{Agent, mcp_server};
use crate::cli::{HooksChoice, InstallArgs};
use crate::error::Error;
use crate::output;
use crate::project::Project;

/// `--hooks mcp` needs an agent that runs hooks through an MCP server, and the server.
pub(crate) fn check_transport(agents: &[Agent], args: &InstallArgs) -> Result<(), Error> {
    if args.hooks != Some(HooksChoice::Mcp) {
        return Ok(());
    }
    if args.no_mcp {
        return Err(Error::Usage(
            "--hooks mcp calls car's MCP server, which --no-mcp leaves out; drop one of them"
                .into(),
        ));
    }
    match agents
        .iter()
        .find(|agent| !mcp_hooks::is_supported(**agent))
    {
        Some(agent) => Err(Error::Usage(format!(
            "--hooks mcp: {} runs no hooks through an MCP server (Claude Code does); wire it with `car install --agent {}`",
            agent.title(),
            agent.name()
        ))),
        None => Ok(()),
    }
}

pub(crate) fn report_registered(
    project: &Project,
    agent: Agent,
    registered: &mcp_server::Registered,
) {
    let file = registered.file;
    output::print_message(&if registered.changed {
        format!(
            "registered car's MCP server for {} in {file} (`car mcp`: lessons_for, check, explain, propose_lesson)",
            agent.title()
        )
    } else {
        format!("car's MCP server was already registered in {file}; nothing changed")
    });
    match registered.approval {
        Some(approval @ mcp_server::Approval::Rejected) => {
            output::print_message(&format!(
                "note: car's MCP server is {}",
                approval.describe()
            ));
        }
        Some(approval) => {
            output::print_message(&format!("car's MCP server is {}", approval.describe()));
            hint_local_settings_untracked(project);
        }
        None => {}
    }
    if agent == Agent::Codex {
        output::print_hint(
            "Codex reads .codex/config.toml, like .codex/hooks.json, only in a project it trusts",
        );
    }
}

/// Without a workspace trust record, Claude Code skips a `settings.local.json` that git tracks (a
/// committed file would approve for everyone who clones): the file must stay personal.
fn hint_local_settings_untracked(project: &Project) {
    let local = mcp_server::CLAUDE_LOCAL_SETTINGS;
    let in_this_checkout = project.root() == project.checkout();
    if in_this_checkout && crate::git::is_checkout(project.checkout()) && !project.is_ignored(local)
    {
        output::print_hint(&format!(
            "{local} is personal: keep it out of git (add it to .gitignore); Claude Code may skip the approvals in a tracked one"
        ));
    }
}

pub(crate) fn report_unregistered(removed: Option<&str>) {
    if let Some(file) = removed {
        output::print_message(&format!("removed car's MCP server from {file}"));
    }
}
