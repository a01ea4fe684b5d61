//! The harbor project: a Rust service with Python tools, shell scripts, crate manifests and a
//! TypeScript dashboard. Written after the learning model was built on the ledger catalogue, in
//! other languages and shapes, to check the model on mistakes it was not tuned on.

use crate::catalogue::{Catalogue, Lang, Mistake, Place, Teacher};

const MISTAKES: &[Mistake] = &[
    Mistake {
        id: "py-missing-package",
        lang: Lang::Py,
        teacher: Teacher::Checker,
        place: Place::Header,
        bad: &["from dataclasses_jsonx import dataclass_json"],
        good: &["from dataclasses import dataclass"],
        wrong_fix: Some("from dataclass_json import dataclass_json"),
        names: "dataclasses_jsonx",
        rate: 25,
    },
    Mistake {
        id: "rs-seconds-as-millis",
        lang: Lang::Rs,
        teacher: Teacher::Review {
            severity: "P1",
            title: "A seconds setting passed as milliseconds",
            wrong_output: "with retry_secs = 30 the client waits 30 ms instead of 30 s and floods the upstream",
            suggestion: "use Duration::from_secs",
        },
        place: Place::Body,
        bad: &[
            "    let {v} = Duration::from_millis(cfg.retry_secs);",
            "    std::thread::sleep(Duration::from_millis(cfg.retry_secs));",
        ],
        good: &[
            "    let {v} = Duration::from_secs(cfg.retry_secs);",
            "    std::thread::sleep(Duration::from_secs(cfg.retry_secs));",
        ],
        wrong_fix: None,
        names: "from_millis(cfg.retry_secs",
        rate: 30,
    },
    Mistake {
        id: "rs-env-unwrap",
        lang: Lang::Rs,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &["    let {v} = std::env::var(\"HARBOR_TOKEN\").unwrap();"],
        good: &[
            "    let {v} = std::env::var(\"HARBOR_TOKEN\").expect(\"HARBOR_TOKEN must be set\");",
        ],
        wrong_fix: None,
        names: "\"HARBOR_TOKEN\").unwrap",
        rate: 30,
    },
    Mistake {
        id: "sh-unquoted-rm",
        lang: Lang::Sh,
        teacher: Teacher::Review {
            severity: "P1",
            title: "rm -rf on an unquoted variable",
            wrong_output: "with BUILD_DIR unset, clean.sh runs rm -rf / instead of failing",
            suggestion: "quote it and fail when unset: \"${BUILD_DIR:?}\"",
        },
        place: Place::Body,
        bad: &["rm -rf $BUILD_DIR/{v}", "rm -rf $BUILD_DIR/*"],
        good: &[
            "rm -rf \"${BUILD_DIR:?}\"/{v}",
            "rm -rf \"${BUILD_DIR:?}\"/*",
        ],
        wrong_fix: None,
        names: "rm -rf $BUILD_DIR",
        rate: 35,
    },
    Mistake {
        id: "toml-old-dependency",
        lang: Lang::Toml,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &["serde_yaml = \"0.8\""],
        good: &["serde_yaml = \"0.9\""],
        wrong_fix: None,
        names: "serde_yaml = \"0.8\"",
        rate: 45,
    },
    Mistake {
        id: "py-request-without-timeout",
        lang: Lang::Py,
        teacher: Teacher::Review {
            severity: "P2",
            title: "An HTTP call without a timeout",
            wrong_output: "fetch(\"https://slow.example\") hangs forever instead of raising after 10 s",
            suggestion: "pass timeout=10",
        },
        place: Place::Body,
        bad: &[
            "    {v} = requests.get(url)",
            "    {v} = requests.get(url, headers=headers)",
        ],
        good: &[
            "    {v} = requests.get(url, timeout=10)",
            "    {v} = requests.get(url, headers=headers, timeout=10)",
        ],
        wrong_fix: None,
        names: "timeout",
        rate: 25,
    },
    Mistake {
        id: "ts-unchecked-parse",
        lang: Lang::Ts,
        teacher: Teacher::Review {
            severity: "P1",
            title: "Stored JSON parsed without a check",
            wrong_output: "a corrupt localStorage entry makes loadPrefs() throw SyntaxError instead of returning the defaults",
            suggestion: "use safeParse",
        },
        place: Place::Body,
        bad: &[
            "  const {v} = JSON.parse(localStorage.getItem(key));",
            "  return JSON.parse(localStorage.getItem(key)) ?? {n};",
        ],
        good: &[
            "  const {v} = safeParse(localStorage.getItem(key));",
            "  return safeParse(localStorage.getItem(key)) ?? {n};",
        ],
        wrong_fix: None,
        names: "JSON.parse(localStorage",
        rate: 30,
    },
    Mistake {
        id: "rs-missing-semicolon",
        lang: Lang::Rs,
        teacher: Teacher::Slip,
        place: Place::Body,
        bad: &["    let {v} = {n}\n    let _ = {v};"],
        good: &["    let {v} = {n};\n    let _ = {v};"],
        wrong_fix: None,
        names: "\u{0}",
        rate: 15,
    },
];

fn look_alikes(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Py => &[
            "    # dataclasses_jsonx is not on PyPI; dataclasses is enough",
            "    {v} = requests.get(url, timeout=10)",
            "    request_timeout_{v} = 10",
            "    {v} = session.get(url)",
        ],
        Lang::Rs => &[
            "    // Duration::from_millis(cfg.retry_secs) would wait milliseconds",
            "    let {v} = Duration::from_millis(250);",
            "    let {v} = Duration::from_secs(cfg.retry_secs);",
            "    let {v} = std::env::var(\"HARBOR_TOKEN\").expect(\"HARBOR_TOKEN must be set\");",
            "    let {v} = std::env::var(\"HOME\").unwrap_or_default();",
        ],
        Lang::Sh => &[
            "rm -rf \"${BUILD_DIR:?}\"/cache",
            "echo \"cleaning $BUILD_DIR\"",
        ],
        Lang::Toml => &[
            "serde_yaml_ng = \"0.10\"",
            "# serde_yaml 0.8 is unmaintained",
        ],
        Lang::Ts => &[
            "  const {v} = JSON.parse(text);",
            "  const {v} = safeParse(localStorage.getItem(key));",
            "  // JSON.parse(localStorage.getItem(key)) throws on a corrupt entry",
        ],
        Lang::Go
        | Lang::Yml
        | Lang::Json
        | Lang::Java
        | Lang::Kt
        | Lang::Rb
        | Lang::Kube
        | Lang::Docker
        | Lang::Css
        | Lang::C
        | Lang::Swift
        | Lang::Html
        | Lang::Js => &[],
    }
}

const FILES: &[(&str, &str)] = &[
    (
        "pyproject.toml",
        "[project]\nname = \"harbor-tools\"\nversion = \"0.1.0\"\ndependencies = [\"requests\"]\n",
    ),
    (
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    ),
    (
        "crates/core/Cargo.toml",
        "[package]\nname = \"harbor-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde_yaml = \"0.9\"\n",
    ),
    (
        "src/poll.rs",
        "use std::time::Duration;\n\npub fn tick() -> Duration {\n    Duration::from_millis(250)\n}\n",
    ),
    (
        "src/config.rs",
        "pub struct Config {\n    pub retry_secs: u64,\n}\n\npub fn token() -> String {\n    std::env::var(\"HARBOR_TOKEN\").expect(\"HARBOR_TOKEN must be set\")\n}\n",
    ),
    (
        "tools/fetch.py",
        "import requests\n\n\ndef fetch(url):\n    return requests.get(url, timeout=10).json()\n",
    ),
    ("tools/__init__.py", ""),
    (
        "scripts/clean.sh",
        "#!/usr/bin/env bash\nset -euo pipefail\nrm -rf \"${BUILD_DIR:?}\"/target\n",
    ),
    (
        "web/src/storage.ts",
        "export function safeParse(text: string | null): unknown {\n  try {\n    return text === null ? null : JSON.parse(text);\n  } catch {\n    return null;\n  }\n}\n",
    ),
    (
        "web/package.json",
        "{\n  \"name\": \"harbor-web\",\n  \"private\": true\n}\n",
    ),
    (".gitignore", "target/\n__pycache__/\nnode_modules/\n"),
];

pub static HARBOR: Catalogue = Catalogue {
    name: "harbor",
    mistakes: MISTAKES,
    look_alikes,
    shares: &[
        (Lang::Rs, 35),
        (Lang::Py, 25),
        (Lang::Sh, 15),
        (Lang::Toml, 10),
        (Lang::Ts, 15),
    ],
    files: FILES,
    rules: &[],
};
