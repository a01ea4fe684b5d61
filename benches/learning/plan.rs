//! What the agent sets out to write, drawn once from the seed: the same plan runs with car and
//! without it, so the two arms differ only in what car tells the agent.
//!
//! A session is a list of edits: a new file, or lines added to a file an earlier edit created.
//! Each edit holds a few ordinary lines, sometimes a correct look-alike of a mistake, and the
//! mistakes the agent is prone to in that kind of file (each with its own rate).

use crate::catalogue::{Lang, Place, RECEIVERS};
use crate::projects::{active, mistakes};

/// splitmix64: small, fast, and the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One mistake the agent is about to make: its line as it would write it, and its fix.
#[derive(Debug, Clone)]
pub struct Instance {
    pub mistake: usize,
    pub bad: String,
    pub good: String,
    /// A first fix the checker rejects too, when the agent gets it wrong first.
    pub wrong_fix: Option<String>,
}

/// A line the agent writes.
#[derive(Debug, Clone)]
pub enum Line {
    Plain(String),
    Mistake(Instance),
}

#[derive(Debug, Clone)]
pub struct Intent {
    pub path: String,
    pub lang: Lang,
    /// The file's id (its footer names it, so an appending Edit has a unique anchor).
    pub file_id: String,
    /// A new file (Write) or lines added to an existing one (Edit).
    pub create: bool,
    pub header: Vec<Line>,
    pub body: Vec<Line>,
    /// The agent runs its tests right after this edit.
    pub runs_tests: bool,
}

pub struct SessionPlan {
    pub intents: Vec<Intent>,
}

/// Fills a template: `{v}` a fresh name, `{r}` a receiver, `{n}` a number.
fn fill(template: &str, name: &str, receiver: &str, number: u64) -> String {
    template
        .replace("{v}", name)
        .replace("{r}", receiver)
        .replace("{n}", &number.to_string())
}

fn plain_lines(lang: Lang, name: &str, number: u64) -> Vec<String> {
    let lines: &[&str] = match lang {
        Lang::Py => &["    {v} = total + {n}", "    total += len(str({v}))"],
        Lang::Ts => &["  const {v} = total + {n};", "  total += {v};"],
        Lang::Go => &["\t{v} := {n}", "\t_ = {v}"],
        Lang::Yml => &["      - run: echo step {v} {n}"],
        Lang::Sh => &["{v}=\"{n}\"", "echo \"${v}\" > /dev/null"],
        Lang::Json => &["  \"retries_{v}\": {n}"],
        Lang::Rs => &["    let {v} = total + {n};", "    total += {v};"],
        Lang::Toml => &["dep_{v} = \"1.{n}\""],
        Lang::Java => &[
            "    int {v} = order.lines().size() + {n};",
            "    total += {v};",
        ],
        Lang::Kt => &["        val {v} = count + {n}", "        total += {v}"],
        Lang::Rb => &["  {v} = orders.size + {n}", "  total += {v}"],
        Lang::Kube => {
            &["        - name: {v}\n          image: registry.example.com/quarry/worker:1.{n}.0"]
        }
        Lang::Docker => &["ENV {v}_RETRIES={n}", "RUN mkdir -p /srv/quarry/{v}"],
        Lang::Css => &[
            ".{v} { padding: {n}px; }",
            ".{v}-title { color: var(--ink); }",
        ],
        Lang::C => &["\tint {v} = total + {n};", "\ttotal += {v};"],
        Lang::Swift => &["        let {v} = total + {n}", "        total += {v}"],
        Lang::Html => &[
            "    <p class=\"reading\" id=\"{v}\">{n} readings</p>",
            "    <a href=\"tags.html#{v}\">Tag {n}</a>",
        ],
        Lang::Js => &["  const {v} = total + {n};", "  total += {v};"],
    };
    lines
        .iter()
        .map(|line| fill(line, name, "", number))
        .collect()
}

/// Draws the whole run: `sessions` sessions of `edits` edits each.
pub fn generate(seed: u64, sessions: usize, edits: usize) -> Vec<SessionPlan> {
    let mut rng = Rng::new(seed);
    let mut files: Vec<(String, Lang, String)> = Vec::new();
    (1..=sessions)
        .map(|session| SessionPlan {
            intents: (1..=edits)
                .map(|edit| intent(&mut rng, &mut files, session, edit))
                .collect(),
        })
        .collect()
}

fn pick_lang(rng: &mut Rng) -> Lang {
    let mut roll = rng.below(100);
    for &(lang, share) in active().shares {
        if roll < share {
            return lang;
        }
        roll -= share;
    }
    active().shares[0].0
}

fn is_harbor() -> bool {
    active().name == "harbor"
}

fn path_of(lang: Lang, id: &str) -> String {
    match lang {
        Lang::Py => format!("app/feature_{id}.py"),
        Lang::Ts => format!("web/src/feature_{id}.ts"),
        Lang::Go => format!("svc/feature_{id}.go"),
        Lang::Yml => format!(".github/workflows/job_{id}.yml"),
        Lang::Sh => format!("scripts/task_{id}.sh"),
        Lang::Json => format!("config/feature_{id}.json"),
        Lang::Rs => format!("src/feature_{id}.rs"),
        Lang::Toml => format!("crates/feat_{id}/Cargo.toml"),
        Lang::Java => format!("api/src/main/java/com/quarry/stock/Feature_{id}.java"),
        Lang::Kt => format!("app/src/main/java/com/quarry/app/Feature_{id}.kt"),
        Lang::Rb => format!("tasks/task_{id}.rb"),
        Lang::Kube => format!("deploy/k8s/worker-{id}.yaml"),
        Lang::Docker => format!("docker/{id}/Dockerfile"),
        Lang::Css => format!("web/styles/feature_{id}.css"),
        Lang::C => format!("firmware/src/feature_{id}.c"),
        Lang::Swift => format!("ios/Beacon/Feature_{id}.swift"),
        Lang::Html => format!("web/feature_{id}.html"),
        Lang::Js => format!("web/js/feature_{id}.js"),
    }
}

fn intent(
    rng: &mut Rng,
    files: &mut Vec<(String, Lang, String)>,
    session: usize,
    edit: usize,
) -> Intent {
    let lang = pick_lang(rng);
    let id = format!("s{session}e{edit}");
    let existing: Vec<&(String, Lang, String)> = files.iter().filter(|f| f.1 == lang).collect();
    let append = !matches!(lang, Lang::Json | Lang::Toml) && !existing.is_empty() && rng.chance(35);
    let (path, file_id) = if append {
        let chosen = existing[rng.below(existing.len() as u64) as usize];
        (chosen.0.clone(), chosen.2.clone())
    } else {
        let path = path_of(lang, &id);
        files.push((path.clone(), lang, id.clone()));
        (path, id.clone())
    };
    let mut counter = 0;
    let mut fresh = |rng: &mut Rng| {
        counter += 1;
        (format!("v{session}_{edit}_{counter}"), 1 + rng.below(98))
    };
    let mut body: Vec<Line> = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let (name, number) = fresh(rng);
        body.extend(
            plain_lines(lang, &name, number)
                .into_iter()
                .map(Line::Plain),
        );
    }
    if rng.chance(40) {
        let choices = (active().look_alikes)(lang);
        let template = choices[rng.below(choices.len() as u64) as usize];
        let (name, number) = fresh(rng);
        let receiver = RECEIVERS[rng.below(RECEIVERS.len() as u64) as usize];
        body.push(Line::Plain(fill(template, &name, receiver, number)));
    }
    let mut header = Vec::new();
    for (index, mistake) in mistakes().iter().enumerate() {
        // Every draw happens whatever the outcome, so the plan does not depend on earlier luck.
        let happens = rng.chance(mistake.rate);
        let shape = rng.below(mistake.bad.len() as u64) as usize;
        let wrong_first = rng.chance(50);
        let (name, number) = fresh(rng);
        let receiver = RECEIVERS[rng.below(RECEIVERS.len() as u64) as usize];
        let fits = mistake.lang == lang && (!append || mistake.place == Place::Body);
        if !(happens && fits) {
            continue;
        }
        let instance = Instance {
            mistake: index,
            bad: fill(mistake.bad[shape], &name, receiver, number),
            good: fill(mistake.good[shape], &name, receiver, number),
            wrong_fix: mistake
                .wrong_fix
                .filter(|_| wrong_first)
                .map(|wrong| fill(wrong, &name, receiver, number)),
        };
        match mistake.place {
            Place::Header => header.push(Line::Mistake(instance)),
            Place::Body | Place::Last => body.push(Line::Mistake(instance)),
        }
    }
    // A syntax slip at the end stays at the end (a JSON entry's trailing comma).
    body.sort_by_key(
        |line| matches!(line, Line::Mistake(i) if mistakes()[i.mistake].place == Place::Last),
    );
    let runs_tests = rng.chance(30);
    Intent {
        path,
        lang,
        file_id,
        create: !append,
        header,
        body,
        runs_tests,
    }
}

/// The first lines of a new file (before the header's own lines).
pub fn file_head(lang: Lang, id: &str) -> Vec<String> {
    let lines: Vec<String> = match lang {
        Lang::Py if is_harbor() => {
            vec![format!("\"\"\"Tool {id}.\"\"\""), "import requests".into()]
        }
        Lang::Ts if is_harbor() => vec!["import { safeParse } from \"./storage\";".into()],
        Lang::Rs => vec![
            "use std::time::Duration;".into(),
            "use crate::config::Config;".into(),
        ],
        Lang::Toml => vec![
            "[package]".into(),
            format!("name = \"feat-{id}\""),
            "version = \"0.1.0\"".into(),
            String::new(),
            "[dependencies]".into(),
        ],
        Lang::Py => vec![
            format!("\"\"\"Feature {id}.\"\"\""),
            "import json".into(),
            "import pickle".into(),
            "from app.settings import settings".into(),
        ],
        Lang::Ts => vec![
            "import { palette } from \"./ui/palette\";".into(),
            "import * as money from \"./lib/money\";".into(),
        ],
        Lang::Go => vec![
            "package main".into(),
            String::new(),
            "import (".into(),
            "\t\"io\"".into(),
            "\t\"io/ioutil\"".into(),
            "\t\"net/http\"".into(),
            ")".into(),
        ],
        Lang::Yml => vec![
            format!("name: job-{id}"),
            "on: [push]".into(),
            "jobs:".into(),
            "  build:".into(),
            "    runs-on: ubuntu-latest".into(),
            "    steps:".into(),
            "      - uses: actions/checkout@v4".into(),
        ],
        Lang::Sh => vec!["#!/usr/bin/env bash".into(), "set -euo pipefail".into()],
        Lang::Json => vec!["{".into(), format!("  \"id\": \"{id}\",")],
        Lang::Java => vec![
            "package com.quarry.stock;".into(),
            String::new(),
            "import com.quarry.api.ApiException;".into(),
            "import com.quarry.api.ErrorCode;".into(),
            "import com.quarry.api.Jdbc;".into(),
            "import com.quarry.api.Order;".into(),
            "import com.quarry.api.Priority;".into(),
        ],
        Lang::Kt => vec![
            "package com.quarry.app".into(),
            String::new(),
            "import android.util.Log".into(),
            "import androidx.lifecycle.ViewModel".into(),
            "import androidx.lifecycle.viewModelScope".into(),
            "import kotlinx.coroutines.GlobalScope".into(),
            "import kotlinx.coroutines.launch".into(),
            "import timber.log.Timber".into(),
        ],
        Lang::Rb => vec!["# frozen_string_literal: true".into()],
        Lang::Kube => vec![
            "apiVersion: apps/v1".into(),
            "kind: Deployment".into(),
            "metadata:".into(),
            format!("  name: worker-{id}"),
            "spec:".into(),
            "  template:".into(),
            "    spec:".into(),
            "      containers:".into(),
        ],
        Lang::Docker => vec![
            "FROM eclipse-temurin:21-jre".into(),
            "WORKDIR /srv/quarry".into(),
        ],
        Lang::Css => vec!["@import \"./tokens.css\";".into()],
        Lang::C => vec![
            "#include <string.h>".into(),
            "#include <zephyr/kernel.h>".into(),
            "#include \"beacon.h\"".into(),
        ],
        Lang::Swift => vec!["import CoreBluetooth".into(), "import Foundation".into()],
        Lang::Html => vec![
            "<!doctype html>".into(),
            "<html lang=\"en\">".into(),
            "<head>".into(),
            "  <meta charset=\"utf-8\">".into(),
            format!("  <title>Beacon {id}</title>"),
        ],
        Lang::Js => vec![
            "import { fetchTags } from \"./api.js\";".into(),
            "import { formatTemp } from \"./units.js\";".into(),
        ],
    };
    lines
}

/// The lines between the header and the body.
pub fn file_opening(lang: Lang, id: &str) -> Vec<String> {
    match lang {
        Lang::Py if is_harbor() => vec![
            String::new(),
            String::new(),
            format!("def fetch_{id}(url, headers, session):"),
            "    total = 0".into(),
        ],
        Lang::Ts if is_harbor() => vec![
            String::new(),
            format!("export function view_{id}(key: string, total: number): unknown {{"),
        ],
        Lang::Rs => vec![
            String::new(),
            format!("pub fn feature_{id}(cfg: &Config) -> u64 {{"),
            "    let mut total = 0;".into(),
        ],
        Lang::Py => vec![
            String::new(),
            String::new(),
            format!("def handle_{id}(body, request_body, tar, archive, bundle, connect):"),
            "    total = 0".into(),
        ],
        Lang::Ts => vec![
            String::new(),
            format!("export function render_{id}(total: number): string {{"),
        ],
        Lang::Go => vec![
            String::new(),
            format!("func handle_{id}(resp *http.Response) ([]byte, error) {{"),
        ],
        Lang::Java => vec![
            String::new(),
            format!("public class Feature_{id} {{"),
            "  int handle(Order order, Jdbc jdbc) {".into(),
            "    int total = 0;".into(),
        ],
        Lang::Kt => vec![
            String::new(),
            format!("class Feature_{id}(private val repository: Repository) : ViewModel() {{"),
            "    fun sync(count: Int) {".into(),
            "        var total = 0".into(),
        ],
        Lang::Rb => vec![
            String::new(),
            format!("def task_{id}(orders)"),
            "  total = 0".into(),
        ],
        Lang::C => vec![
            String::new(),
            format!("int feature_{id}(struct beacon_cfg *cfg)"),
            "{".into(),
            "\tint total = 0;".into(),
        ],
        Lang::Swift => vec![
            String::new(),
            format!("final class Feature_{id} {{"),
            "    func handle(_ data: Data, central: CBCentralManager) -> Int {".into(),
            "        var total = 0".into(),
        ],
        Lang::Html => vec![
            "</head>".into(),
            "<body>".into(),
            format!("  <main id=\"feature-{id}\">"),
        ],
        Lang::Js => vec![
            String::new(),
            format!("export function render_{id}(list, tag, tags, total) {{"),
        ],
        Lang::Yml | Lang::Sh | Lang::Json | Lang::Toml | Lang::Kube | Lang::Docker | Lang::Css => {
            Vec::new()
        }
    }
}

/// The line that closes the body: unique per file, the anchor of an appending Edit.
pub fn file_anchor(lang: Lang, id: &str) -> String {
    match lang {
        Lang::Py => format!("    return total  # end {id}"),
        Lang::Ts => format!("  return String(total); // end {id}"),
        Lang::Go => format!("\treturn nil, nil // end {id}"),
        Lang::Yml => format!("      - run: make test-{id}"),
        Lang::Sh => format!("echo \"done {id}\""),
        Lang::Json => "}".into(),
        Lang::Rs => format!("    total // end {id}"),
        Lang::Toml => format!("# end {id}"),
        Lang::Java => format!("    return total; // end {id}"),
        Lang::Kt => format!("        check(total >= 0) // end {id}"),
        Lang::Rb => format!("  total # end {id}"),
        Lang::Kube => format!("        - name: end-{id}"),
        Lang::Docker => format!("LABEL quarry.feature=\"{id}\""),
        Lang::Css => format!(".end-{id} {{ display: none; }}"),
        Lang::C => format!("\treturn total; /* end {id} */"),
        Lang::Swift => format!("        return total // end {id}"),
        Lang::Html => format!("    <footer data-end=\"{id}\"></footer>"),
        Lang::Js => format!("  return total; // end {id}"),
    }
}

/// What follows the anchor.
pub fn file_tail(lang: Lang) -> Vec<String> {
    match lang {
        Lang::Ts | Lang::Go | Lang::Rs | Lang::C | Lang::Js => vec!["}".into()],
        Lang::Swift => vec!["    }".into(), "}".into()],
        Lang::Html => vec!["  </main>".into(), "</body>".into(), "</html>".into()],
        Lang::Java => vec!["  }".into(), "}".into()],
        Lang::Kt => vec!["    }".into(), "}".into()],
        Lang::Rb => vec!["end".into()],
        Lang::Kube => vec!["          image: registry.example.com/quarry/sidecar:2.1.0".into()],
        _ => Vec::new(),
    }
}
