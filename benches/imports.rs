//! What the import check costs per edit (issue 28 item 5: at most 1 ms with 1,000 packages in
//! `node_modules`). The project: an npm workspace (20 member packages, linked into
//! `node_modules` as npm links them) whose root declares and installs 1,000 packages, a tsconfig
//! with `paths` extending a base, and a 100-line TypeScript file in one member.
//!
//! Two edits of that file, interleaved round by round: one adds a line of six imports (an
//! installed package, a scoped one, a subpath of an installed package, a workspace member, a
//! relative file, a `paths` alias), the other a plain line (that a missing package is found is
//! checked once, untimed). Each
//! round is a fresh `Validators` (a hook is one process: nothing the check reads is cached
//! across edits), so the difference of the two is the check's whole cost per edit, cold: the
//! tree-sitter parse that finds the imports, the folders read up the tree, package.json and
//! tsconfig parsed, the workspace's globs expanded, every name looked up. The same two edits
//! through the whole hook process (`car hook post-tool-use`, benches/common) follow, with
//! their instruction counts where valgrind is installed.
//!
//! Run: `cargo bench --bench imports` (prints medians; no pass/fail).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use car::Project;
use car::edit::AddedLine;
use car::settings::Settings;
use car::validate::{Source, Validators};

use common::{NOW, edit_payload, median, ms, report, time_hook};

const RUNS: usize = 200;
const HOOK_RUNS: usize = 40;
const PACKAGES: usize = 1_000;
const MEMBERS: usize = 20;
const FILE: &str = "packages/member0/src/app.ts";

const IMPORT_LINE: &str = "import a from \"pkg-500\"; import b from \"@scope/pkg-7\"; import c from \"pkg-9/sub\"; import d from \"@acme/member3\"; import e from \"./util.js\"; import f from \"@app/shared\";";
/// Checked once, untimed: the check does find a package that exists nowhere.
const MISSING_LINE: &str = "import g from \"fetch-retryx\";";
const PLAIN_LINE: &str = "const answer = compute(41) + 1;";

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    build_project(root);
    let project = Project::at(root);
    let settings = Settings::default();
    let path = root.join(FILE);
    let base = std::fs::read_to_string(&path).expect("file");
    let with = |line: &str| base.replacen("// EDIT\n", &format!("{line}\n"), 1);
    let (imports, plain) = (with(IMPORT_LINE), with(PLAIN_LINE));
    let line_number = imports
        .lines()
        .position(|l| l == IMPORT_LINE)
        .expect("line")
        + 1;

    let check = |content: &str, line: &str| {
        let added = [AddedLine {
            line: line_number,
            text: line.to_string(),
        }];
        let started = Instant::now();
        let validators = Validators::load(&project, &settings);
        let report = validators.check(
            &Source {
                path: &path,
                display_path: FILE,
                content,
                language: None,
                added: &added,
            },
            None,
        );
        let elapsed = started.elapsed();
        (elapsed, report.diagnostics.len())
    };
    let (_, found) = check(&imports, IMPORT_LINE);
    assert_eq!(found, 0, "every import of the timed edit resolves");
    let missing = with(MISSING_LINE);
    assert_eq!(
        check(&missing, MISSING_LINE).1,
        1,
        "the missing package is found"
    );
    let (mut with_imports, mut without) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        with_imports.push(check(&imports, IMPORT_LINE).0);
        without.push(check(&plain, PLAIN_LINE).0);
    }
    println!("in process, {PACKAGES} packages in node_modules, {MEMBERS} workspace members:");
    report("validators, edit adding 6 imports", &with_imports);
    report("validators, edit adding a plain line", &without);
    let differences: Vec<f64> = with_imports
        .iter()
        .zip(&without)
        .map(|(a, b)| ms(*a) - ms(*b))
        .collect();
    println!(
        "the import check, per edit (median of paired differences): {:.3} ms (target <= 1 ms)",
        paired_median(differences)
    );

    hook_cases(root, &imports, &plain);
}

fn paired_median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The same two edits through the whole hook process.
fn hook_cases(root: &Path, imports: &str, plain: &str) {
    let car = env!("CARGO_BIN_EXE_car");
    let payload = |content: &str, line: &str| {
        std::fs::write(root.join(FILE), content).expect("write");
        edit_payload(root, "bench", FILE, line)
    };
    let (mut with_imports, mut without): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    let import_payload = payload(imports, IMPORT_LINE);
    let plain_payload = payload(plain, PLAIN_LINE);
    for _ in 0..HOOK_RUNS {
        std::fs::write(root.join(FILE), imports).expect("write");
        with_imports.push(time_hook(car, root, "post-tool-use", &import_payload, NOW));
        std::fs::write(root.join(FILE), plain).expect("write");
        without.push(time_hook(car, root, "post-tool-use", &plain_payload, NOW));
    }
    println!("whole hook process (car hook post-tool-use):");
    report("hook, edit adding 6 imports", &with_imports);
    report("hook, edit adding a plain line", &without);
    println!(
        "difference of medians: {:.2} ms",
        ms(median(&with_imports)) - ms(median(&without))
    );
    if common::valgrind_installed() {
        for (label, content, payload) in [
            (
                "instructions, edit adding 6 imports",
                imports,
                &import_payload,
            ),
            (
                "instructions, edit adding a plain line",
                plain,
                &plain_payload,
            ),
        ] {
            std::fs::write(root.join(FILE), content).expect("write");
            let mut command = Command::new(car);
            command
                .args(["hook", "post-tool-use"])
                .current_dir(root)
                .env("CAR_NOW", NOW.to_string());
            println!(
                "{label:<46} {}",
                common::instructions(&mut command, payload)
            );
        }
    }
}

/// The workspace: root package.json declaring every package, 1,000 packages installed (every
/// tenth scoped), 20 members, a tsconfig with `paths` extending a base, the edited file.
fn build_project(root: &Path) {
    common::run(Command::new("git").args(["init", "-q"]).current_dir(root));
    let names: Vec<String> = (0..PACKAGES)
        .map(|i| {
            if i % 10 == 7 {
                format!("@scope/pkg-{i}")
            } else {
                format!("pkg-{i}")
            }
        })
        .collect();
    let dependencies: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|name| (name.clone(), serde_json::json!("^1.0.0")))
        .collect();
    write(
        root,
        "package.json",
        &serde_json::json!({"name": "bench", "private": true, "workspaces": ["packages/*"],
                            "dependencies": dependencies})
        .to_string(),
    );
    for name in &names {
        write(
            root,
            &format!("node_modules/{name}/package.json"),
            &serde_json::json!({"name": name, "version": "1.0.0", "main": "index.js"}).to_string(),
        );
        write(
            root,
            &format!("node_modules/{name}/index.js"),
            "module.exports = 1;\n",
        );
    }
    write(root, "node_modules/pkg-9/sub.js", "module.exports = 2;\n");
    std::fs::create_dir_all(root.join("node_modules/@acme")).expect("dir");
    for member in 0..MEMBERS {
        write(
            root,
            &format!("packages/member{member}/package.json"),
            &format!("{{\"name\": \"@acme/member{member}\", \"version\": \"1.0.0\"}}"),
        );
        // What npm, yarn and pnpm do with a workspace's members.
        std::os::unix::fs::symlink(
            format!("../../packages/member{member}"),
            root.join(format!("node_modules/@acme/member{member}")),
        )
        .expect("member linked");
    }
    write(
        root,
        "tsconfig.base.json",
        "{\n  // shared\n  \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@app/*\": [\"packages/member0/src/*\"]}}\n}\n",
    );
    write(
        root,
        "packages/member0/tsconfig.json",
        "{\"extends\": \"../../tsconfig.base.json\"}",
    );
    write(
        root,
        "packages/member0/src/util.ts",
        "export const util = 1;\n",
    );
    write(
        root,
        "packages/member0/src/shared.ts",
        "export const shared = 1;\n",
    );
    let mut file = String::new();
    for i in 0..48 {
        file.push_str(&format!(
            "export function step{i}(value: number): number {{\n  return value * {i} + 1;\n}}\n"
        ));
    }
    file.push_str("// EDIT\n");
    write(root, FILE, &file);
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, text).expect("write");
}
