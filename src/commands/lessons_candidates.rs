//! `car lessons candidates [--refused] [--json]`: the candidate pool — mistakes seen once, and
//! mistakes seen again whose trigger did not verify yet (with the reason) — or, with
//! `--refused`, every signal car refused to learn from, with its reason, count and examples
//! (`learning::refusal::log`). Read-only.

use serde_json::{Value, json};

use crate::commands::Outcome;
use crate::error::Error;
use crate::learning::refusal::log::{self as refusal_log, Entry};
use crate::learning::sighting::REFUSED_FIELD;
use crate::lessons::provenance;
use crate::lessons::store::CandidateFile;
use crate::lessons::trigger::text::labelled;
use crate::output;
use crate::project::Project;

pub(crate) fn run(project: &Project, as_json: bool, refused: bool) -> Result<Outcome, Error> {
    if refused {
        print_refused(&refusal_log::load(project), as_json);
        return Ok(Outcome::Success);
    }
    let pool = CandidateFile::load(&project.candidates_file())?;
    if as_json {
        let list: Vec<Value> = pool
            .candidates
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
            .collect();
        output::print_json(&Value::Array(list));
        return Ok(Outcome::Success);
    }
    if pool.candidates.is_empty() {
        output::print_message(
            "no lesson candidates (a mistake seen once appears here; `car lessons candidates --refused` lists what car refused to learn)",
        );
        return Ok(Outcome::Success);
    }
    let mut text = String::new();
    for candidate in &pool.candidates {
        text.push_str(&format!(
            "{}  {}  seen {}×, last {}\n    {}\n",
            candidate.scope,
            labelled(&candidate.trigger),
            candidate.hits(),
            candidate
                .last_seen()
                .map(crate::clock::date_of)
                .unwrap_or_else(|| "?".into()),
            candidate.lesson
        ));
        if let Some(seen) = provenance::describe_candidate(&candidate.extra) {
            text.push_str(&format!("    seen as {seen}\n"));
        }
        if let Some(reason) = candidate
            .extra
            .get(REFUSED_FIELD)
            .and_then(|refused| refused.get("reason"))
            .and_then(Value::as_str)
        {
            text.push_str(&format!("    not a lesson yet: {reason}\n"));
        }
    }
    output::print_data(&text);
    Ok(Outcome::Success)
}

fn print_refused(entries: &[Entry], as_json: bool) {
    if as_json {
        let list: Vec<Value> = entries
            .iter()
            .map(|entry| {
                let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
                value["reason_kind"] = json!(entry.kind);
                value
            })
            .collect();
        output::print_json(&Value::Array(list));
        return;
    }
    if entries.is_empty() {
        output::print_message("car has refused to learn nothing so far");
        return;
    }
    let mut text = String::new();
    for entry in entries {
        text.push_str(&format!(
            "{}  `{}`  {} ({}), {}×, last {}\n    {}\n",
            entry.scope,
            entry.subject,
            entry.kind,
            entry.source,
            entry.count,
            crate::clock::date_of(entry.last_seen),
            entry.reason
        ));
        for example in &entry.evidence {
            let fixed = if example.fixed.is_empty() {
                String::new()
            } else {
                format!(" → {}", example.fixed)
            };
            text.push_str(&format!(
                "    {}:{}: {}{fixed}\n",
                example.file, example.line, example.bad
            ));
        }
    }
    output::print_data(&text);
}
