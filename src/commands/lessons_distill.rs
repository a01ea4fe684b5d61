//! `car lessons distill --dry-run [--json]`: proposals for more general lessons in crowded
//! scopes ([`crate::lessons::distill`]); never writes anything.

use serde_json::Value;

use crate::commands::Outcome;
use crate::error::Error;
use crate::lessons::distill::{self, DistillReport};
use crate::lessons::library;
use crate::lessons::store::CandidateFile;
use crate::output;
use crate::project::Project;
use crate::settings::Settings;

/// `car lessons distill --dry-run [--json]`.
pub(crate) fn run(project: &Project, dry_run: bool, as_json: bool) -> Result<Outcome, Error> {
    if !dry_run {
        return Err(Error::Usage(
            "distill only proposes; run `car lessons distill --dry-run` and apply a proposal with \
`car lessons add` / `car lessons rm`"
                .into(),
        ));
    }
    let settings = Settings::load(project)?;
    let file = library::load_live(&project.lessons_file())?;
    let pool = CandidateFile::load(&project.candidates_file())?;
    let report = distill::distill(project, &settings, &file, &pool);
    if as_json {
        output::print_json(&serde_json::to_value(&report).unwrap_or(Value::Null));
    } else {
        print_report(&report);
    }
    Ok(Outcome::Success)
}

fn print_report(report: &DistillReport) {
    output::print_message(&report.llm);
    for note in &report.notes {
        output::print_message(&format!("note: {note}"));
    }
    if report.scopes.is_empty() {
        output::print_data("no scope has 5 or more lessons and candidates; nothing to distill");
        return;
    }
    let mut text = String::new();
    for proposal in &report.proposals {
        text.push_str(&format!(
            "proposal ({}) for {}: {} — replaces {}\n    {}\n",
            proposal.source,
            proposal.scope,
            proposal.triggers.join(" | "),
            proposal.replaces.join(", "),
            proposal.lesson
        ));
    }
    for discarded in &report.discarded {
        text.push_str(&format!(
            "discarded ({}) {}: {}\n",
            discarded.proposal.source,
            discarded.proposal.triggers.join(" | "),
            discarded.reason
        ));
    }
    if text.is_empty() {
        text.push_str("no proposals");
    }
    output::print_data(&text);
    output::print_message("dry run: nothing was written");
}
