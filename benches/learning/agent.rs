//! The scripted agent: it works through a session's plan with Claude Code's tools, and car (when
//! installed) answers every moment through the real hooks. The agent avoids a mistake when
//! anything car said to it this session names it (the briefing, a warning, a block, a deny, the
//! stop's review); it fixes a line car points at (a block or warning naming its place, a review
//! finding). A person corrects some mistakes by hand during the session and commits at its end.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::catalogue::{Lang, Teacher};
use crate::plan::{self, Instance, Intent, Line, SessionPlan};
use crate::projects::mistakes;
use crate::world::Car;

/// How long one edit takes, in the hooks' clock.
const EDIT_SECONDS: i64 = 30;
/// How many mistakes the person corrects by hand per session.
const PERSON_FIXES: usize = 2;
/// Stops the agent tries before it gives up.
const MAX_STOPS: usize = 6;

/// What one session of the agent did.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Mistakes the agent wrote (not avoided), per catalogue entry.
    pub written: Vec<usize>,
    /// Mistakes it avoided because car named them this session.
    pub avoided: Vec<usize>,
    /// Mistakes still in the files when the person committed.
    pub landed: Vec<usize>,
    /// Mistakes caught this session (a block, a deny, a warning, a review or the person): the
    /// sightings car could learn from.
    pub caught: Vec<usize>,
    /// Mistakes a PreToolUse deny stopped.
    pub denied: usize,
    /// Mistakes fixed after a PostToolUse block or warning.
    pub fixed_after_edit: usize,
    /// Mistakes fixed after the stop's review.
    pub fixed_after_review: usize,
    pub person_fixed: usize,
    /// The agent's writes that held no mistake.
    pub correct_writes: usize,
    /// Lesson warnings on a line that is no mistake.
    pub false_warnings: usize,
    /// The trigger (or pattern) of each false warning, as car showed it.
    pub false_warned_by: Vec<String>,
    /// Lesson warnings on a mistake's line.
    pub true_warnings: usize,
    /// Denies of a write that held no mistake.
    pub false_denies: usize,
    /// Checker blocks of a write that held no mistake.
    pub false_blocks: usize,
    pub stops: usize,
    /// Every line car said to the agent, for `--verbose`.
    pub heard: Vec<String>,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            written: vec![0; mistakes().len()],
            avoided: vec![0; mistakes().len()],
            landed: vec![0; mistakes().len()],
            caught: vec![0; mistakes().len()],
            ..Stats::default()
        }
    }
}

/// Wall time of each hook, by event.
#[derive(Debug, Default)]
pub struct Timings(pub HashMap<&'static str, Vec<Duration>>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// In the file as `current` (the mistake, or a wrong first fix of it).
    Open,
    Fixed,
}

/// One mistake the agent wrote, followed until it is fixed or lands.
struct Live {
    instance: Instance,
    path: String,
    current: String,
    state: State,
    written_at: usize,
}

/// What the agent wants the tool to do.
#[derive(Debug, Clone)]
enum Tool {
    Write { content: String },
    Edit { old: String, new: String },
}

pub struct Agent<'a> {
    root: &'a Path,
    car: Option<&'a Car>,
    session: String,
    now: i64,
    memory: String,
    lives: Vec<Live>,
    pub stats: Stats,
    timings: &'a mut Timings,
    person_fixes: usize,
    edit_index: usize,
}

impl<'a> Agent<'a> {
    pub fn new(
        root: &'a Path,
        car: Option<&'a Car>,
        session_number: usize,
        timings: &'a mut Timings,
    ) -> Agent<'a> {
        Agent {
            root,
            car,
            session: format!("bench-session-{session_number:02}"),
            now: crate::T0 + session_number as i64 * 86_400,
            memory: String::new(),
            lives: Vec::new(),
            stats: Stats::new(),
            timings,
            person_fixes: 0,
            edit_index: 0,
        }
    }

    /// Runs the session: start, every planned edit, the stop until it is allowed, the end.
    pub fn run(&mut self, session_plan: &SessionPlan) {
        let start = self.hook(
            "session-start",
            self.payload("SessionStart", json!({"source": "startup"})),
        );
        self.hear(context_of(&start));
        for intent in &session_plan.intents {
            self.edit_index += 1;
            self.now += EDIT_SECONDS;
            self.carry_out(intent);
            self.person_corrects();
            if intent.runs_tests {
                self.run_tests();
            }
        }
        self.stop_until_allowed();
        self.hook(
            "session-end",
            self.payload("SessionEnd", json!({"reason": "other"})),
        );
        for live in &self.lives {
            if live.state == State::Open && self.read(&live.path).contains(&live.current) {
                self.stats.landed[live.instance.mistake] += 1;
            }
        }
    }

    fn knows(&self, mistake: usize) -> bool {
        self.memory.contains(mistakes()[mistake].names)
    }

    fn hear(&mut self, text: String) {
        if !text.is_empty() {
            self.memory.push('\n');
            self.memory.push_str(&text);
            self.stats.heard.push(text);
        }
    }

    /// One planned edit, with what the agent knows now.
    fn carry_out(&mut self, intent: &Intent) {
        let mut fresh: Vec<usize> = Vec::new();
        let mut render = |agent: &mut Agent<'_>, lines: &[Line]| -> Vec<String> {
            lines
                .iter()
                .map(|line| match line {
                    Line::Plain(text) => text.clone(),
                    Line::Mistake(instance) if agent.knows(instance.mistake) => {
                        agent.stats.avoided[instance.mistake] += 1;
                        instance.good.clone()
                    }
                    Line::Mistake(instance) => {
                        agent.stats.written[instance.mistake] += 1;
                        fresh.push(agent.lives.len());
                        agent.lives.push(Live {
                            instance: instance.clone(),
                            path: intent.path.clone(),
                            current: instance.bad.clone(),
                            state: State::Open,
                            written_at: agent.edit_index,
                        });
                        instance.bad.clone()
                    }
                })
                .collect()
        };
        let header = render(self, &intent.header);
        let mut body = render(self, &intent.body);
        let anchor = plan::file_anchor(intent.lang, &intent.file_id);
        let tool = if intent.create {
            if intent.lang == Lang::Json {
                json_commas(&mut body);
            }
            let mut lines = plan::file_head(intent.lang, &intent.file_id);
            lines.extend(header);
            lines.extend(plan::file_opening(intent.lang, &intent.file_id));
            lines.extend(body);
            lines.push(anchor);
            lines.extend(plan::file_tail(intent.lang));
            Tool::Write {
                content: lines.join("\n") + "\n",
            }
        } else {
            body.push(anchor.clone());
            Tool::Edit {
                old: anchor,
                new: body.join("\n"),
            }
        };
        self.send(&intent.path.clone(), tool, &fresh, 0);
    }

    /// Sends one tool call through car's hooks and acts on what car says.
    fn send(&mut self, path: &str, mut tool: Tool, lives: &[usize], depth: usize) {
        let mut denies = 0;
        while let Some(reason) = self.pre_tool_use(path, &tool) {
            self.hear(reason.clone());
            denies += 1;
            let named: Vec<usize> = lives
                .iter()
                .copied()
                .filter(|&live| self.is_open(live) && self.names(&reason, live, None))
                .collect();
            if lives.iter().all(|&live| !self.is_open(live)) {
                self.stats.false_denies += 1;
            }
            if named.is_empty() || denies > 2 {
                // The same write sent again goes through.
                let _ = self.pre_tool_use(path, &tool);
                break;
            }
            for live in named {
                tool = rewrite(
                    tool,
                    &self.lives[live].current,
                    &self.lives[live].instance.good,
                );
                self.lives[live].state = State::Fixed;
                self.lives[live].current = self.lives[live].instance.good.clone();
                self.stats.denied += 1;
                self.stats.caught[self.lives[live].instance.mistake] += 1;
            }
        }
        let before = self.read_optional(path);
        if std::env::var_os("CAR_BENCH_TRACE").is_some() {
            eprintln!("[{}] {path}: {:?}", self.session, tool);
        }
        let after = match &tool {
            Tool::Write { content } => content.clone(),
            Tool::Edit { old, new } => before.clone().unwrap_or_default().replacen(old, new, 1),
        };
        crate::world::write(self.root, path, &after);
        if lives.iter().all(|&live| !self.is_open(live)) {
            self.stats.correct_writes += 1;
        }
        let Some(answer) = self.post_tool_use(path, &tool, before.as_deref()) else {
            return;
        };
        let block = answer["decision"] == "block";
        let text = if block {
            answer["reason"].as_str().unwrap_or_default().to_string()
        } else {
            context_of(&Some(answer.clone()))
        };
        self.judge_warnings(&text, &after);
        if block && lives.iter().all(|&live| !self.is_open(live)) && !text.contains("⚠️ lesson")
        {
            self.stats.false_blocks += 1;
        }
        self.hear(text.clone());
        if depth >= 3 {
            return;
        }
        let named: Vec<usize> = lives
            .iter()
            .copied()
            .filter(|&live| self.is_open(live) && self.names(&text, live, Some(&after)))
            .collect();
        for live in named {
            self.stats.fixed_after_edit += 1;
            self.stats.caught[self.lives[live].instance.mistake] += 1;
            self.fix(live, depth + 1);
        }
    }

    fn is_open(&self, live: usize) -> bool {
        self.lives[live].state == State::Open
    }

    /// Whether car's `text` points at the live mistake: its place (`path:line`), or its name.
    fn names(&self, text: &str, live: usize, content: Option<&str>) -> bool {
        let item = &self.lives[live];
        let mistake = &mistakes()[item.instance.mistake];
        // A checker names a slip's consequence, often lines later (the end of the file): the
        // agent reads the error and fixes the slip it made in that file.
        if text.contains(mistake.names)
            || (mistake.teacher == Teacher::Slip && text.contains(&item.path))
        {
            return true;
        }
        let content = content.map_or_else(|| self.read(&item.path), str::to_string);
        line_of(&content, &item.current)
            .is_some_and(|line| text.contains(&format!("{}:{line}", item.path)))
    }

    /// The agent fixes a mistake car pointed at: its wrong first fix when it has one, else the
    /// right one.
    fn fix(&mut self, live: usize, depth: usize) {
        let item = &mut self.lives[live];
        let old = item.current.clone();
        let new = match item.instance.wrong_fix.take() {
            Some(wrong) => wrong,
            None => {
                item.state = State::Fixed;
                item.instance.good.clone()
            }
        };
        item.current = new.clone();
        let path = item.path.clone();
        self.now += EDIT_SECONDS;
        self.send(&path, Tool::Edit { old, new }, &[live], depth);
    }

    /// Counts the lesson warnings in `text`: on a line holding a mistake, or not.
    fn judge_warnings(&mut self, text: &str, content: &str) {
        for (_, line, trigger) in warned_places(text) {
            let Some(line_text) = content.lines().nth(line.saturating_sub(1)) else {
                continue;
            };
            let is_mistake = self.lives.iter().any(|live| {
                live.instance.bad.contains(line_text.trim())
                    || live
                        .instance
                        .wrong_fix
                        .as_deref()
                        .is_some_and(|w| w.contains(line_text.trim()))
            });
            if is_mistake && !line_text.trim().is_empty() {
                self.stats.true_warnings += 1;
            } else {
                self.stats.false_warnings += 1;
                self.stats.false_warned_by.push(trigger);
            }
        }
    }

    /// The person corrects, by hand, up to two mistakes only a person catches, a couple of edits
    /// after the agent wrote them; the file's time says they did it minutes ago.
    fn person_corrects(&mut self) {
        for index in 0..self.lives.len() {
            let live = &self.lives[index];
            let is_person = mistakes()[live.instance.mistake].teacher == Teacher::Person;
            if self.person_fixes >= PERSON_FIXES
                || !is_person
                || live.state != State::Open
                || live.written_at + 2 > self.edit_index
            {
                continue;
            }
            let content = self.read(&live.path);
            if !content.contains(&live.current) {
                continue;
            }
            let corrected = content.replacen(&live.current, &live.instance.good, 1);
            crate::world::write(self.root, &live.path, &corrected);
            let file = std::fs::File::options()
                .write(true)
                .open(self.root.join(&live.path))
                .expect("open");
            let _ = file.set_modified(SystemTime::now() - Duration::from_secs(300));
            self.lives[index].state = State::Fixed;
            self.person_fixes += 1;
            self.stats.person_fixed += 1;
            self.stats.caught[self.lives[index].instance.mistake] += 1;
        }
    }

    /// The agent runs its tests: a shell command that changes no file.
    fn run_tests(&mut self) {
        self.now += EDIT_SECONDS;
        let payload = self.payload(
            "PostToolUse",
            json!({
                "tool_name": "Bash",
                "tool_input": {"command": "python -m pytest -q", "description": "run the tests"},
                "tool_response": {"stdout": "12 passed in 0.40s\n", "stderr": "",
                                  "interrupted": false, "isImage": false, "noOutputExpected": false},
                "duration_ms": 400,
            }),
        );
        self.hook("post-tool-use", payload);
    }

    /// Stops until car lets the agent stop, fixing what each review points at.
    fn stop_until_allowed(&mut self) {
        for _ in 0..MAX_STOPS {
            self.now += EDIT_SECONDS;
            self.stats.stops += 1;
            let payload = self.payload(
                "Stop",
                json!({"stop_hook_active": false,
                       "last_assistant_message": "Done: the feature is in place and the tests pass."}),
            );
            let Some(answer) = self.hook("stop", payload) else {
                return;
            };
            if answer["decision"] != "block" {
                return;
            }
            let reason = answer["reason"].as_str().unwrap_or_default().to_string();
            self.hear(reason.clone());
            let named: Vec<usize> = (0..self.lives.len())
                .filter(|&live| self.is_open(live) && self.names_finding(&reason, live))
                .collect();
            if std::env::var_os("CAR_BENCH_TRACE").is_some() {
                eprintln!("[{}] stop reason: {reason}", self.session);
                for (index, live) in self.lives.iter().enumerate() {
                    eprintln!(
                        "[{}] stop: live {index} {:?} {:?} named={}",
                        self.session,
                        live.current,
                        live.state,
                        named.contains(&index)
                    );
                }
            }
            for live in named {
                self.stats.fixed_after_review += 1;
                self.stats.caught[self.lives[live].instance.mistake] += 1;
                self.fix(live, 1);
            }
        }
    }

    /// Whether a stop's reason points at the live mistake: its place, or its file and finding.
    fn names_finding(&self, reason: &str, live: usize) -> bool {
        let item = &self.lives[live];
        let content = self.read(&item.path);
        let Some(line) = line_of(&content, &item.current) else {
            return false;
        };
        if reason.contains(&format!("{}:{line}", item.path)) {
            return true;
        }
        match mistakes()[item.instance.mistake].teacher {
            Teacher::Review { title, .. } => reason.contains(&item.path) && reason.contains(title),
            _ => false,
        }
    }

    fn read_optional(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join(path)).ok()
    }

    fn read(&self, path: &str) -> String {
        self.read_optional(path).unwrap_or_default()
    }

    fn payload(&self, event: &str, fields: Value) -> Value {
        let mut payload = json!({
            "session_id": self.session,
            "transcript_path": self.root.join(".bench-transcript.jsonl"),
            "cwd": self.root,
            "permission_mode": "bypassPermissions",
            "hook_event_name": event,
        });
        if let (Some(target), Value::Object(fields)) = (payload.as_object_mut(), fields) {
            target.extend(fields);
        }
        payload
    }

    fn tool_input(&self, path: &str, tool: &Tool) -> (&'static str, Value) {
        let file = self.root.join(path);
        match tool {
            Tool::Write { content } => ("Write", json!({"file_path": file, "content": content})),
            Tool::Edit { old, new } => (
                "Edit",
                json!({"file_path": file, "old_string": old, "new_string": new, "replace_all": false}),
            ),
        }
    }

    /// PreToolUse: the deny's reason, if car stopped the write.
    fn pre_tool_use(&mut self, path: &str, tool: &Tool) -> Option<String> {
        let (name, input) = self.tool_input(path, tool);
        let payload = self.payload(
            "PreToolUse",
            json!({"tool_name": name, "tool_input": input}),
        );
        let answer = self.hook("pre-tool-use", payload)?;
        let output = &answer["hookSpecificOutput"];
        (output["permissionDecision"] == "deny").then(|| {
            output["permissionDecisionReason"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
    }

    fn post_tool_use(&mut self, path: &str, tool: &Tool, before: Option<&str>) -> Option<Value> {
        let (name, input) = self.tool_input(path, tool);
        let file = self.root.join(path);
        let response = match tool {
            Tool::Write { content } => json!({
                "type": if before.is_some() { "update" } else { "create" },
                "filePath": file, "content": content, "structuredPatch": [],
                "originalFile": before, "userModified": false}),
            Tool::Edit { old, new } => json!({
                "filePath": file, "oldString": old, "newString": new,
                "originalFile": before, "structuredPatch": [], "userModified": false,
                "replaceAll": false}),
        };
        let payload = self.payload(
            "PostToolUse",
            json!({"tool_name": name, "tool_input": input, "tool_response": response, "duration_ms": 12}),
        );
        self.hook("post-tool-use", payload)
    }

    /// One hook process; `None` without car.
    fn hook(&mut self, event: &'static str, payload: Value) -> Option<Value> {
        let car = self.car?;
        let started = Instant::now();
        let mut child = car
            .command(self.root, self.now)
            .args(["hook", event, "--agent", "claude"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("car runs");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            let _ = stdin.write_all(payload.to_string().as_bytes());
        }
        let output = child.wait_with_output().expect("car finishes");
        self.timings
            .0
            .entry(event)
            .or_default()
            .push(started.elapsed());
        assert!(
            output.status.success(),
            "car hook {event} failed: {output:?}"
        );
        let text = String::from_utf8_lossy(&output.stdout);
        let answer: Value = serde_json::from_str(text.trim()).unwrap_or_else(|error| {
            panic!("car hook {event} answered no JSON ({error}): {text:?}")
        });
        Some(answer)
    }
}

/// What car put before the model: `additionalContext`.
fn context_of(answer: &Option<Value>) -> String {
    answer
        .as_ref()
        .and_then(|a| a["hookSpecificOutput"]["additionalContext"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The tool call with `old` replaced by `new` in what it writes.
fn rewrite(tool: Tool, old: &str, new: &str) -> Tool {
    match tool {
        Tool::Write { content } => Tool::Write {
            content: content.replacen(old, new, 1),
        },
        Tool::Edit {
            old: anchor,
            new: text,
        } => Tool::Edit {
            old: anchor,
            new: text.replacen(old, new, 1),
        },
    }
}

/// The 1-based line where `text` (its first line) starts in `content`.
fn line_of(content: &str, text: &str) -> Option<usize> {
    let first = text.lines().next()?;
    content
        .lines()
        .position(|line| line == first)
        .map(|index| index + 1)
}

/// `(path, line, trigger)` of every lesson warning in car's text: `… (web/src/a.ts:4, trigger …` for a
/// literal trigger, `… (tasks/a.rb:7, pattern …` for a regex or code pattern.
fn warned_places(text: &str) -> Vec<(String, usize, String)> {
    let pattern =
        regex::Regex::new(r"⚠️ lesson[^\n]*?\(([^\s(),]+):(\d+), ((?:trigger|pattern) `[^`\n]*`?)")
            .expect("regex");
    pattern
        .captures_iter(text)
        .filter_map(|c| Some((c[1].to_string(), c[2].parse().ok()?, c[3].to_string())))
        .collect()
}

/// A JSON object's entries: a comma after every one but the last (a slip keeps its own).
fn json_commas(body: &mut [String]) {
    let count = body.len();
    for (index, line) in body.iter_mut().enumerate() {
        let is_slip = mistakes().iter().any(|m| {
            m.teacher == Teacher::Slip && m.lang == Lang::Json && line.starts_with("  \"enabled_")
        });
        if is_slip {
            continue;
        }
        let bare = line.trim_end_matches(',').to_string();
        *line = if index + 1 < count {
            format!("{bare},")
        } else {
            bare
        };
    }
}
