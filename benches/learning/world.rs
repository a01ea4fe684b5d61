//! The throwaway project the simulated agent works on: a Python package, a TypeScript front end
//! with a theme object and a deprecated helper, a Go service, CI workflows, shell scripts and JSON
//! configuration, committed once before the first session. car is installed the way a user
//! installs it, with a `command` reviewer that is this benchmark itself (see `reviewer`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// A fresh project in `root`, committed, with car installed (when `car` is given).
pub fn create(root: &Path, car: Option<&Car>) {
    let catalogue = crate::projects::active();
    for (path, content) in catalogue.files {
        write(root, path, content);
    }
    // An installed package, so a bare import of one that is installed nowhere is a real error.
    write(
        root,
        "web/node_modules/left-pad/package.json",
        "{\"name\": \"left-pad\", \"version\": \"1.3.0\", \"main\": \"index.js\"}\n",
    );
    write(
        root,
        "web/node_modules/left-pad/index.js",
        "module.exports = (s) => s;\n",
    );
    git(root, &["init", "-q", "-b", "main"]);
    if let Some(car) = car {
        car.install(root);
    }
    commit(root, "the project before the agent");
}

pub fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

pub fn git(root: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=person",
            "-c",
            "user.email=person@example.com",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The person commits everything the session left.
pub fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", message]);
}

/// The car binary, with an isolated HOME, and what its answers cost.
pub struct Car {
    pub program: PathBuf,
    pub home: PathBuf,
    /// This benchmark, which car runs as its reviewer.
    pub reviewer: PathBuf,
}

impl Car {
    pub fn command(&self, root: &Path, now: i64) -> Command {
        let mut command = Command::new(&self.program);
        command
            .current_dir(root)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("CAR_NOW", now.to_string())
            .env_remove("CI")
            .env_remove("NO_COLOR");
        command
    }

    /// `car install`, the project's rule and the reviewer, as a user sets them up.
    fn install(&self, root: &Path) {
        let output = self
            .command(root, crate::T0)
            .args(["install", "--non-interactive"])
            .output()
            .expect("car install runs");
        assert!(output.status.success(), "car install: {output:?}");
        for (path, content) in crate::projects::active().rules {
            write(root, path, content);
        }
        let settings_path = root.join(".claude/settings.json");
        let mut settings: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(&settings_path).expect("car install wrote settings"),
        )
        .expect("settings are JSON");
        settings["claude-auto-review"] = json!({
            "reviewerBackend": "command",
            "reviewerCommand": [self.reviewer, crate::REVIEWER_FLAG, root, crate::projects::active().name],
            "maxStopPasses": 4,
        });
        write(
            root,
            ".claude/settings.json",
            &serde_json::to_string_pretty(&settings).expect("json"),
        );
    }
}
