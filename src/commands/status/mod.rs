//! `car status`: one screen — enabled?, each agent's hooks, settings (and the keys car could not
//! use, with their values), the reviewer CLI, lessons, pending reviews, deep review (context
//! files, its reviewer, each context's round state), the hooks' last internal errors, and a
//! warning when the `car` on PATH is the Python tool. The text is laid out in sections, a heading
//! and one fact per line under it; `--json` prints the same as one object (its keys are a
//! contract: other tools read them).
//!
//! Invariant: read-only; a broken file is reported on its line, never "fixed" here.

mod lessons;
mod review;
mod setup;

use serde_json::{Value, json};

use crate::agents::hook_binary::HookBinary;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;

/// Where the "enabled" section is added (after the project, the settings and the hooks, which it
/// needs); it is shown first.
const ENABLED_SECTION: usize = 3;

/// One section of the text: a heading (none for a section of one headline fact) and its facts,
/// one a line; a fact's own notes are indented under it.
struct Section {
    heading: String,
    lines: Vec<String>,
}

/// What `car status` found, as text sections and as JSON.
#[derive(Default)]
struct Report {
    sections: Vec<Section>,
    json: serde_json::Map<String, Value>,
}

impl Report {
    fn add(
        &mut self,
        key: &str,
        value: Value,
        heading: impl Into<String>,
        lines: impl IntoIterator<Item = String>,
    ) {
        self.json.insert(key.to_string(), value);
        self.sections.push(Section {
            heading: heading.into(),
            lines: lines.into_iter().collect(),
        });
    }

    /// The sections as text: a heading, its facts indented under it, a blank line between.
    fn text(&self) -> String {
        let mut blocks = Vec::with_capacity(self.sections.len());
        for section in &self.sections {
            let mut block = Vec::with_capacity(section.lines.len() + 1);
            let indent = if section.heading.is_empty() {
                ""
            } else {
                block.push(section.heading.clone());
                "  "
            };
            block.extend(section.lines.iter().map(|line| format!("{indent}{line}")));
            blocks.push(block.join("\n"));
        }
        blocks.join("\n\n")
    }
}

pub(crate) fn run(project: &Project, as_json: bool) -> Result<Outcome, Error> {
    let mut report = Report::default();
    report.add(
        "project",
        json!(project.root()),
        "",
        [format!("car status for {}", project.root().display())],
    );
    use lessons::{learning_section, lessons_section};
    use review::{deep_review_section, review_section, reviewer_section};
    use setup::{
        agents_section, enabled_section, errors_section, mcp_section, prevention_section,
        python_section, settings_section, tools_section,
    };
    let settings = settings_section(project, &mut report);
    let wired_agents = agents_section(project, &settings, &mut report);
    enabled_section(&settings, &wired_agents, &mut report);
    mcp_section(project, &mut report);
    reviewer_section(&settings, &mut report);
    prevention_section(&settings, &mut report);
    python_section(project, &settings, &mut report);
    tools_section(&mut report);
    lessons_section(project, &mut report);
    learning_section(project, &settings, &mut report);
    review_section(
        project,
        &settings,
        crate::clock::Clock::from_env()?,
        &mut report,
    );
    deep_review_section(project, &settings, &mut report);
    errors_section(project, &mut report);
    let binary = HookBinary::find();
    report.add(
        "hook_binary",
        binary.to_json(),
        "",
        [
            Some(binary.describe()),
            binary.warning().map(|warning| format!("  {warning}")),
        ]
        .into_iter()
        .flatten(),
    );
    if let HookBinary::Python(path) = &binary {
        report.json.insert("python_car_on_path".into(), json!(path));
    }
    if as_json {
        output::print_json(&Value::Object(report.json));
    } else {
        // "enabled" first, after the project: the question people ask.
        let enabled = report.sections.remove(ENABLED_SECTION);
        report.sections.insert(1, enabled);
        output::print_data(&report.text());
    }
    Ok(Outcome::Success)
}
