//! The real tools that judge a file: `gofmt -e` (Go) and `ruby -c` (Ruby) on every file, since
//! they start in a few milliseconds and see what the grammar cannot (`"\q"`, a regex literal
//! `/a(b/`); `node --check` (plain `.js`/`.mjs`/`.cjs` scripts), `rustfmt` (Rust, in the crate's
//! edition) and `swiftc -parse` (Swift) only when the grammar (in process, ~1 ms) flags
//! something, so a clean edit never pays for their start-up (`rustfmt` ~15–25 ms, `node`
//! 50–200 ms, `swiftc` more). When the tool accepts the file, the grammar misread it and nothing
//! is reported; when it rejects it, the tool's own messages are the errors (for `node`, which
//! cannot read JSX or Flow, the grammar's findings stay).
//!
//! Invariants: the content goes in on stdin (swiftc: a private temporary file), never through a
//! shell; every run has [`TIMEOUT`]; each program is looked up on PATH once per process; a tool
//! that is missing, times out or answers in a way car cannot read leaves the grammar's verdict.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use regex::Regex;

use crate::process::{find_on_path, run_command};
use crate::validate::language::Language;
pub(crate) use crate::validate::languages::spec::{Runs, Tool};
use crate::validate::{Diagnostic, Origin, Severity, Source, snippet_at};

/// A syntax check of a 2 MiB file takes well under this with every tool here.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// What the tool said about a file the grammar flagged.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// The file is valid: the grammar misread it.
    Accepts,
    /// The file is invalid; the tool's own errors (empty: keep the grammar's findings).
    Rejects(Vec<Diagnostic>),
    /// No tool for this file, or it could not judge (a note says why, when worth saying).
    Undecided(Option<String>),
}

/// The tools of one process, each looked up on first use.
#[derive(Debug, Default)]
pub(crate) struct Tools {
    found: [OnceLock<Option<PathBuf>>; Tool::ALL.len()],
    /// Tests replace the program names (a missing one, a fake script).
    programs: Option<[&'static str; Tool::ALL.len()]>,
}

impl Tools {
    #[cfg(test)]
    pub(crate) fn with_programs(programs: [&'static str; Tool::ALL.len()]) -> Tools {
        Tools {
            programs: Some(programs),
            ..Tools::default()
        }
    }

    /// The tools of `language`, by name, each as found on PATH (looked up once per process):
    /// whichever of them judges a file, its verdict is theirs.
    pub(crate) fn programs(&self, language: Language) -> Vec<(&'static str, Option<PathBuf>)> {
        language
            .spec()
            .tool
            .iter()
            .map(|real| {
                let program = self.program(real.tool, real.program);
                (program, self.found(real.tool, program).clone())
            })
            .collect()
    }

    /// Asks the real tool for `source` (in `language`), if there is one. `flagged`: whether the
    /// grammar found something; a [`Runs::WhenFlagged`] tool is not asked otherwise.
    pub(crate) fn judge(&self, language: Language, source: &Source<'_>, flagged: bool) -> Verdict {
        let Some(real) = language
            .spec()
            .tool
            .filter(|real| applies(real.tool, source) && (flagged || real.runs == Runs::Always))
        else {
            return Verdict::Undecided(None);
        };
        let program = self.program(real.tool, real.program);
        let Some(path) = self.found(real.tool, program) else {
            return Verdict::Undecided(None);
        };
        match real.tool {
            Tool::Gofmt => run_gofmt(path, source),
            Tool::Ruby => run_ruby(path, source),
            Tool::Node => run_node(path, source),
            Tool::Rustfmt => run_rustfmt(path, source),
            Tool::Swiftc => run_swiftc(path, source),
        }
    }

    /// The program `tool` runs: `program`, unless a test replaced it.
    fn program(&self, tool: Tool, program: &'static str) -> &'static str {
        self.programs
            .map_or(program, |programs| programs[tool as usize])
    }

    /// Where `program` is on PATH, looked up once per process.
    fn found(&self, tool: Tool, program: &str) -> &Option<PathBuf> {
        self.found[tool as usize].get_or_init(|| find_on_path(program))
    }
}

/// Node reads plain scripts only: not JSX (`.jsx`), not a notebook cell.
fn applies(tool: Tool, source: &Source<'_>) -> bool {
    match tool {
        Tool::Node => source.language.is_none() && node_input_type(source.path).is_some(),
        _ => true,
    }
}

/// The module systems node should try for a file: `.mjs` ESM, `.cjs` CommonJS, `.js` either.
fn node_input_type(path: &Path) -> Option<&'static [&'static str]> {
    let extension = path.extension()?.to_string_lossy().to_lowercase();
    match extension.as_str() {
        "mjs" => Some(&["module"]),
        "cjs" => Some(&["commonjs"]),
        "js" => Some(&["commonjs", "module"]),
        _ => None,
    }
}

/// One line of a tool's output that names a position: `(line, column, message)`.
type Located = (usize, usize, String);

/// Runs a prepared command on the content; `Err` is a note when the tool could not judge.
fn run(
    mut command: Command,
    stdin: Option<&str>,
    source: &Source<'_>,
) -> Result<(bool, String), String> {
    command.current_dir(std::env::temp_dir());
    let program = command.get_program().to_string_lossy().into_owned();
    match run_command(command, stdin.map(str::as_bytes), TIMEOUT) {
        Ok(output) if output.timed_out => Err(format!(
            "{}: `{program}` took over {} s; the grammar's findings stand",
            source.display_path,
            TIMEOUT.as_secs()
        )),
        Ok(output) => Ok((
            output.success(),
            format!("{}\n{}", output.stderr, output.stdout),
        )),
        Err(error) => Err(format!("{}: {error}", source.display_path)),
    }
}

/// The verdict from a finished run: success accepts; a failure that names positions rejects; a
/// failure car cannot read leaves the grammar's verdict.
fn verdict(
    result: Result<(bool, String), String>,
    source: &Source<'_>,
    validator: &str,
    locate: impl Fn(&str) -> Vec<Located>,
) -> Verdict {
    match result {
        Err(note) => Verdict::Undecided(Some(note)),
        Ok((true, _)) => Verdict::Accepts,
        Ok((false, output)) => {
            let located = locate(&output);
            if located.is_empty() {
                let first = output
                    .lines()
                    .find(|line| !line.trim().is_empty())
                    .unwrap_or("");
                return Verdict::Undecided(Some(format!(
                    "{}: `{validator}` failed without naming a line ({}); the grammar's findings stand",
                    source.display_path,
                    crate::text::shorten(first.trim(), 80)
                )));
            }
            Verdict::Rejects(diagnostics(source, validator, located))
        }
    }
}

/// The tool's first error: compilers report the consequences of one slip as more errors
/// (`gofmt`: "expected operand", then "expected ';'", then "expected '}'").
fn diagnostics(source: &Source<'_>, validator: &str, located: Vec<Located>) -> Vec<Diagnostic> {
    located
        .into_iter()
        .take(1)
        .map(|(line, column, message)| Diagnostic {
            file: source.display_path.to_string(),
            line: line.max(1),
            column: column.max(1),
            severity: Severity::Error,
            validator: validator.to_string(),
            origin: Origin::ExternalTool,
            message,
            snippet: snippet_at(source.content, line.max(1), column.max(1)),
            subject: None,
        })
        .collect()
}

/// Every match of `pattern` (groups: line, optional column, message) in `output`.
fn locate_with(pattern: &Regex, output: &str) -> Vec<Located> {
    pattern
        .captures_iter(output)
        .filter_map(|found| {
            let line = found.get(1)?.as_str().parse().ok()?;
            let column = found
                .get(2)
                .and_then(|column| column.as_str().parse().ok())
                .unwrap_or(1);
            Some((line, column, found.get(3)?.as_str().trim().to_string()))
        })
        .collect()
}

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// `gofmt -e`: `<standard input>:4:7: expected operand, found newline`.
fn run_gofmt(program: &Path, source: &Source<'_>) -> Verdict {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = regex(&PATTERN, r"(?m)^<standard input>:(\d+):(\d+): (.+)$");
    let mut command = Command::new(program);
    command.arg("-e");
    let result = run(command, Some(source.content), source);
    verdict(result, source, "gofmt", |output| {
        locate_with(pattern, output)
    })
}

/// `ruby -c`: `-:3: syntax error, unexpected end-of-input` (Ruby 3.3 and earlier) or
/// `-:3: syntax errors found` followed by prism's annotated lines (3.4).
fn run_ruby(program: &Path, source: &Source<'_>) -> Verdict {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = regex(&PATTERN, r"(?m)^-:(\d+):()\s*(.+)$");
    let mut command = Command::new(program);
    command.args(["--disable-gems", "-c"]).env_remove("RUBYOPT");
    let result = run(command, Some(source.content), source);
    verdict(result, source, "ruby", |output| {
        locate_with(pattern, output)
    })
}

/// `node --check` as CommonJS, then as an ES module (`.js`); the file is valid if either reads it.
/// When neither does, the grammar's findings stay: node also rejects JSX and Flow, which the
/// grammar reads.
fn run_node(program: &Path, source: &Source<'_>) -> Verdict {
    let Some(input_types) = node_input_type(source.path) else {
        return Verdict::Undecided(None);
    };
    for input_type in input_types {
        let mut command = Command::new(program);
        command
            .args(["--check", &format!("--input-type={input_type}")])
            .env_remove("NODE_OPTIONS");
        match run(command, Some(source.content), source) {
            Ok((true, _)) => return Verdict::Accepts,
            Ok((false, _)) => {}
            Err(note) => return Verdict::Undecided(Some(note)),
        }
    }
    Verdict::Rejects(Vec::new())
}

/// `rustfmt --edition E`: `error: expected expression, found `;`` then ` --> <stdin>:2:13`.
fn run_rustfmt(program: &Path, source: &Source<'_>) -> Verdict {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = regex(
        &PATTERN,
        r"(?m)^error(?:\[\w+\])?: (.+)\n\s*--> <stdin>:(\d+):(\d+)",
    );
    let mut command = Command::new(program);
    command.args(["--edition", crate_edition(source.path), "--emit", "stdout"]);
    let result = run(command, Some(source.content), source);
    verdict(result, source, "rustfmt", |output| {
        let mut located: Vec<Located> = pattern
            .captures_iter(output)
            .filter_map(|found| {
                Some((
                    found[2].parse().ok()?,
                    found[3].parse().ok()?,
                    found[1].trim().to_string(),
                ))
            })
            .collect();
        if let Some(first) = located.first_mut()
            && first.2.contains("unclosed delimiter")
            && let Some(cause) = rustfmt_misclosed_delimiter(output)
        {
            *first = cause;
        }
        located
    })
}

/// rustfmt's "this file contains an unclosed delimiter" is reported at the file's end; its
/// annotations name the likelier cause (issue 40, item 6): "this delimiter might not be properly
/// closed..." under the line that opened it, "...as it matches this but it has different
/// indentation" under the line that closed it. That opening, located, with both lines named.
fn rustfmt_misclosed_delimiter(output: &str) -> Option<Located> {
    let mut source_line: Option<usize> = None;
    let mut opened: Option<(usize, usize)> = None;
    for text in output.lines() {
        let Some((gutter, rest)) = text.split_once('|') else {
            continue;
        };
        let gutter = gutter.trim();
        if !gutter.is_empty() {
            source_line = gutter.parse().ok();
            continue;
        }
        let marker = rest.trim_start();
        let column = rest.len() - marker.len();
        if marker.starts_with("- this delimiter might not be properly closed") {
            opened = Some((source_line?, column));
        } else if marker.starts_with("- ...as it matches this")
            && let Some((line, column)) = opened
        {
            let closed = source_line?;
            return Some((
                line,
                column,
                format!(
                    "unclosed delimiter: the one that closes it on line {closed} is indented differently, so one is likely missing before line {closed} (rustfmt: this file contains an unclosed delimiter)"
                ),
            ));
        }
    }
    None
}

/// The largest `Cargo.toml` read for its edition.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// The edition of the crate `path` belongs to: the nearest `Cargo.toml`'s `edition`, 2015 when
/// it names none (Cargo's default), 2021 outside any crate or for an inherited edition.
pub(crate) fn crate_edition(path: &Path) -> &'static str {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    let pattern = regex(&PATTERN, r#"(?m)^\s*edition\s*=\s*"(\d{4})""#);
    let Some(manifest) = path
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
    else {
        return "2021";
    };
    // Bounded and a regular file only, like every read of the project (a manifest is a few KB).
    let text = crate::files::read_text_or_none(&manifest, MAX_MANIFEST_BYTES).unwrap_or_default();
    match pattern.captures(&text).map(|found| found[1].to_string()) {
        Some(edition) => match edition.as_str() {
            "2015" => "2015",
            "2018" => "2018",
            "2024" => "2024",
            _ => "2021",
        },
        None if text.contains("edition.workspace") || text.contains("[workspace") => "2021",
        None => "2015",
    }
}

/// `swiftc -parse FILE`: `FILE:3:5: error: expected expression`. swiftc reads files, so the
/// content goes into a private temporary folder.
fn run_swiftc(program: &Path, source: &Source<'_>) -> Verdict {
    let folder = match tempfile::tempdir() {
        Ok(folder) => folder,
        Err(error) => return Verdict::Undecided(Some(format!("{}: {error}", source.display_path))),
    };
    let file = folder.path().join("checked.swift");
    if let Err(error) = std::fs::write(&file, source.content) {
        return Verdict::Undecided(Some(format!("{}: {error}", source.display_path)));
    }
    let pattern = match Regex::new(&format!(
        r"(?m)^{}:(\d+):(\d+): error: (.+)$",
        regex::escape(&file.to_string_lossy())
    )) {
        Ok(pattern) => pattern,
        Err(error) => return Verdict::Undecided(Some(error.to_string())),
    };
    let mut command = Command::new(program);
    command.arg("-parse").arg(&file);
    let result = run(command, None, source);
    verdict(result, source, "swiftc", |output| {
        locate_with(&pattern, output)
    })
}

#[cfg(test)]
mod tests;
