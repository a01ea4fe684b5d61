//! A learned trigger is checked the way the lesson will match: it must fire on every line the
//! mistake was written in, on no line as it was fixed, and on no correct code the project holds —
//! the lesson's own matcher (code only, whole identifiers, its scope) run over the project's
//! files. A line there that is itself an instance of the mistake is evidence, not a refutation:
//! a committed copy of the mistake is what the lesson is for. Which matches are instances
//! depends on what taught the lesson ([`Rule`]).
//!
//! Invariants: deterministic and bounded: the project's files are the ones git lists (tracked,
//! and untracked ones it does not ignore; car's own state folder excepted), found by `git grep`
//! for the trigger's required text, at most [`MAX_FILES`] of at most [`MAX_FILE_BYTES`] each, the
//! search within a hook's wait for git; anything beyond refuses (*rather miss than
//! false-alarm*), saying why. Outside git there are no such files and only the examples are
//! checked. A definition of the name (`def formatLegacy(`) neither refutes nor confirms.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::edit::AddedLine;
use crate::git;
use crate::learning::refusal::Refusal;
use crate::learning::synthesis::Example;
use crate::learning::tokens::{Kind, Token, shape, tokenize};
use crate::lessons::examples::fires;
use crate::lessons::model::Lesson;
use crate::lessons::placement::Placement;
use crate::lessons::trigger::{Haystack, REGEX_PREFIX, Trigger};
use crate::project::Project;

/// Files of the project read at most, per candidate lesson.
const MAX_FILES: usize = 500;
/// Larger files are not read (generated or data files, not where a mistake is decided).
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Known instances kept with a lesson (the count says how many there are).
pub(crate) const MAX_INSTANCES_KEPT: usize = 10;
/// More instances than this: the project writes it on purpose.
const ESTABLISHED: usize = 50;

/// How a match in the project's code is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A checker's error: the lesson fires only where the checker reports the subject again,
    /// so every match is the same mistake.
    Subject,
    /// The fix replaced what the trigger holds: a match is the mistake when what follows it has
    /// the shape it had where the mistake was written (`pickle.loads(N)`), else it is correct
    /// code the lesson would wrongly fire on (`Duration::from_millis(250)`).
    Replaced,
    /// The fix added to the call: every call without it is the mistake the fix corrects.
    Unless,
}

/// A place in the project's code the lesson already matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KnownInstance {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) text: String,
}

/// A line of the project's code a lesson fires on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProjectMatch {
    pub(crate) file: String,
    /// 1-based.
    pub(crate) line: usize,
    pub(crate) text: String,
    /// Where the trigger matched within the line.
    pub(crate) range: Range<usize>,
}

/// What the check found: the places that are instances of the mistake (at most
/// [`MAX_INSTANCES_KEPT`]) and how many there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Verified {
    pub(crate) instances: Vec<KnownInstance>,
    pub(crate) total: usize,
}

/// The lesson fires on every bad example and on no good one.
pub(crate) fn check_examples(lesson: &Lesson, examples: &[Example<'_>]) -> Result<(), Refusal> {
    let trigger = || display_trigger(lesson);
    for example in examples {
        if !fires(lesson, example.bad).unwrap_or(false) {
            return Err(Refusal::MissesMistake {
                trigger: trigger(),
                line: example.bad.trim().to_string(),
            });
        }
        if !example.good.trim().is_empty() && fires(lesson, example.good).unwrap_or(true) {
            return Err(Refusal::MatchesFix {
                trigger: trigger(),
                fixed: example.good.trim().to_string(),
            });
        }
    }
    Ok(())
}

fn display_trigger(lesson: &Lesson) -> String {
    lesson
        .triggers
        .first()
        .map(|trigger| crate::lessons::trigger::text::labelled(trigger.as_str()))
        .unwrap_or_default()
        .trim_matches('`')
        .to_string()
}

/// The project's code, read once per learning step for every candidate trigger tried.
pub(crate) struct ProjectCode<'a> {
    project: &'a Project,
    contents: HashMap<String, Option<String>>,
}

impl<'a> ProjectCode<'a> {
    pub(crate) fn new(project: &'a Project) -> ProjectCode<'a> {
        ProjectCode {
            project,
            contents: HashMap::new(),
        }
    }

    /// Checks `lesson` against the project's code (see the module docs). `sightings` are the
    /// places the mistake was seen, `(file, line as written)`: a line there that is still the
    /// mistake as written is that sighting (waiting for its fix), not another instance.
    pub(crate) fn check(
        &mut self,
        lesson: &Lesson,
        rule: Rule,
        examples: &[Example<'_>],
        sightings: &[(&str, &str)],
    ) -> Result<Verified, Refusal> {
        let checkout = self.project.checkout();
        if !git::is_checkout(checkout) {
            return Ok(Verified::default());
        }
        let trigger = display_trigger(lesson);
        let shapes: Vec<Vec<String>> = examples
            .iter()
            .filter_map(|example| right_part_of(lesson, example.bad))
            .collect();
        let fix_words = words_every_fix_added(examples);
        let mut verified = Verified::default();
        for found in self.matches(lesson)? {
            let is_sighting = sightings
                .iter()
                .any(|(seen_in, bad)| *seen_in == found.file && found.text.trim() == bad.trim());
            if is_sighting {
                continue;
            }
            let is_instance = match rule {
                Rule::Subject | Rule::Unless => true,
                Rule::Replaced => {
                    shapes.contains(&right_part(&found.text, found.range.clone()))
                        && !has_a_word_of(before_comment(&found.text, found.range.end), &fix_words)
                }
            };
            let text = crate::text::shorten(found.text.trim(), 120);
            if !is_instance {
                return Err(Refusal::FiresOnCorrectCode {
                    trigger,
                    file: found.file,
                    line: found.line,
                    text,
                });
            }
            verified.total += 1;
            if verified.instances.len() < MAX_INSTANCES_KEPT {
                verified.instances.push(KnownInstance {
                    file: found.file,
                    line: found.line,
                    text,
                });
            }
        }
        if verified.total > ESTABLISHED {
            return Err(Refusal::Established {
                trigger,
                count: verified.total,
            });
        }
        Ok(verified)
    }

    /// Every line of the project's code the lesson fires on, as the lesson matches (code only,
    /// whole identifiers, its scope), a definition of the name excepted; the files found by
    /// `git grep` for its required text (see the module docs). Outside git: none.
    pub(crate) fn matches(&mut self, lesson: &Lesson) -> Result<Vec<ProjectMatch>, Refusal> {
        let checkout = self.project.checkout();
        if !git::is_checkout(checkout) {
            return Ok(Vec::new());
        }
        let files = candidate_files(checkout, lesson).map_err(|why| Refusal::Unchecked {
            trigger: display_trigger(lesson),
            why,
        })?;
        let mut found = Vec::new();
        for file in files {
            let Some(content) = self.content(&file) else {
                continue;
            };
            for (line, range) in matches_in(lesson, &file, &content) {
                let Some(text) = content.lines().nth(line - 1) else {
                    continue;
                };
                if is_definition(&text[..range.start]) {
                    continue;
                }
                found.push(ProjectMatch {
                    file: file.clone(),
                    line,
                    text: text.to_string(),
                    range,
                });
            }
        }
        Ok(found)
    }

    /// The file's text, read once (bounded); `None` when it cannot be read as text.
    /// Read through the project's one reader: a link out of the project is never read (its
    /// lines would be quoted as where a lesson fires).
    fn content(&mut self, file: &str) -> Option<String> {
        let project = self.project;
        self.contents
            .entry(file.to_string())
            .or_insert_with(|| project.read_inside(file, MAX_FILE_BYTES))
            .clone()
    }
}

/// Every counting match of the lesson in a whole file: its line and range within the line.
fn matches_in(lesson: &Lesson, file: &str, content: &str) -> Vec<(usize, Range<usize>)> {
    let added = AddedLine::every_line(content);
    let placement = Placement::new(Path::new(file), content, None, &added);
    placement.confirmed_matches(lesson)
}

/// The files of the project in the lesson's scope that hold its required text: `git grep` over
/// the tracked files and the untracked ones git does not ignore.
fn candidate_files(checkout: &Path, lesson: &Lesson) -> Result<Vec<String>, String> {
    let mut keywords: Vec<String> = Vec::new();
    for trigger in &lesson.triggers {
        match trigger {
            Trigger::Literal(text) => keywords.push(text.clone()),
            Trigger::Pattern { .. } => {
                let pattern = trigger
                    .as_str()
                    .strip_prefix(REGEX_PREFIX)
                    .unwrap_or(trigger.as_str());
                match crate::lessons::keyword::required_literals(pattern) {
                    Some(found) => keywords.extend(found),
                    None => return Err("the pattern has no text to search for".into()),
                }
            }
        }
    }
    let mut args: Vec<String> = ["grep", "-l", "-z", "-I", "--untracked", "-F", "-i"]
        .map(String::from)
        .into();
    for keyword in &keywords {
        args.push("-e".into());
        args.push(keyword.clone());
    }
    args.push("--".into());
    args.push(format!(":(exclude){}", crate::state::names::STATE_DIR));
    let output = git::run(checkout, &args, git::Wait::Hook).map_err(|error| error.to_string())?;
    if output.timed_out {
        return Err(format!(
            "`git grep` took over {} s",
            git::Wait::Hook.limit().as_secs()
        ));
    }
    match output.code {
        Some(0) => {}
        Some(1) => return Ok(Vec::new()),
        _ => {
            return Err(format!(
                "`git grep` failed: {}",
                output.stderr.lines().next().unwrap_or_default()
            ));
        }
    }
    let files: Vec<String> = output
        .stdout
        .split('\0')
        .filter(|file| !file.is_empty() && lesson.scope.matches(file))
        .map(str::to_string)
        .collect();
    if files.len() > MAX_FILES {
        return Err(format!(
            "{} files of the project hold it; car reads at most {MAX_FILES}",
            files.len()
        ));
    }
    Ok(files)
}

/// Whether the text before a match ends with a word that defines the name (`def `, `function `).
fn is_definition(before: &str) -> bool {
    tokenize(before)
        .iter()
        .rev()
        .find(|token| token.kind != Kind::Space)
        .is_some_and(Token::is_defining)
}

/// The significant words (4 characters or more) every example's fix wrote that its mistake did
/// not hold (`safeParse`; `visible` when `:focus { outline: none; }` became
/// `:focus-visible { outline: 2px solid … }`). A line of the project that matches the trigger and
/// holds one of them is written the way the fix writes it: correct code, not a copy of the
/// mistake (`:focus:not(:focus-visible) { outline: none; }`).
fn words_every_fix_added(examples: &[Example<'_>]) -> Vec<String> {
    let mut common: Option<Vec<String>> = None;
    for example in examples
        .iter()
        .filter(|example| !example.good.trim().is_empty())
    {
        let bad: std::collections::HashSet<&str> = tokenize(example.bad)
            .iter()
            .map(|token| token.text)
            .collect();
        let added: Vec<String> = tokenize(example.good)
            .iter()
            .filter(|token| {
                token.kind == Kind::Word
                    && token.text.chars().count() >= 4
                    && !bad.contains(token.text)
            })
            .map(|token| token.text.to_string())
            .collect();
        common = Some(match common {
            None => added,
            Some(known) => known
                .into_iter()
                .filter(|word| added.contains(word))
                .collect(),
        });
    }
    common.unwrap_or_default()
}

/// Whether `line` holds one of `words` as a whole word.
fn has_a_word_of(line: &str, words: &[String]) -> bool {
    !words.is_empty()
        && tokenize(line)
            .iter()
            .any(|token| token.kind == Kind::Word && words.iter().any(|word| word == token.text))
}

/// `line` up to a comment that starts after `from` (`//`, `/*`, `<!--`, or `#` after a space):
/// the words a comment names are prose, not how the line is written.
/// `k_delayed_work_submit(&x_work, K_SECONDS(3)); /* TODO: k_work_schedule … */` is a copy of
/// the mistake, although its comment names the call every fix wrote.
fn before_comment(line: &str, from: usize) -> &str {
    let Some(rest) = line.get(from..) else {
        return line;
    };
    let tokens = tokenize(rest);
    let mut offset = from;
    for (index, token) in tokens.iter().enumerate() {
        let next = |ahead: usize| tokens.get(index + ahead).map_or("", |t| t.text);
        let starts_comment = match token.text {
            "/" => matches!(next(1), "/" | "*"),
            "<" => next(1) == "!" && next(2) == "-" && next(3) == "-",
            "#" => index > 0 && tokens[index - 1].kind == Kind::Space,
            _ => false,
        };
        if token.kind == Kind::Punct && starts_comment {
            return &line[..offset];
        }
        offset += token.text.len();
    }
    line
}

/// The right part of the first match of the lesson in `line`.
fn right_part_of(lesson: &Lesson, line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    let haystack = Haystack::new(line);
    let range = lesson
        .triggers
        .iter()
        .find_map(|trigger| trigger.find_all(&haystack, 1).into_iter().next())?;
    Some(right_part(line, range))
}

/// The shape of what follows the match `range` of `line`, up to the end of the expression the
/// match is in: a `,` or `;` outside brackets, a bracket neither it nor the match opened, a
/// comment, or the line's end. Brackets the match left open are closed first, so a pattern that
/// ends inside a call's arguments is compared over the whole call; and a call (or index) the
/// match is part of ends the part where it closes: what comes after a finished call
/// (`JSON.parse(raw) ?? {}`, `JSON.parse(raw).theme`) does not change what the call was given,
/// so it neither makes a copy of the mistake correct code nor correct code a copy.
fn right_part(line: &str, range: Range<usize>) -> Vec<String> {
    let mut depth = 0usize;
    let mut call_closed = false;
    for token in tokenize(&line[range.clone()]) {
        if token.is_open_bracket() {
            depth += 1;
        } else if token.is_close_bracket() {
            depth = depth.saturating_sub(1);
        }
        if token.kind != Kind::Space {
            call_closed = depth == 0 && token.is_close_bracket();
        }
    }
    let tokens = tokenize(&line[range.end..]);
    let mut end = tokens.len();
    for (index, token) in tokens.iter().enumerate() {
        if depth == 0 && call_closed {
            end = index;
            break;
        }
        if token.is_open_bracket() {
            depth += 1;
        } else if token.is_close_bracket() {
            match depth.checked_sub(1) {
                Some(less) => depth = less,
                None => {
                    end = index;
                    break;
                }
            }
            call_closed = depth == 0;
        } else if depth == 0 && token.kind == Kind::Punct && matches!(token.text, "," | ";") {
            end = index;
            break;
        }
    }
    shape(&tokens[..end])
}

#[cfg(test)]
mod tests;
