//! Imports that resolve nowhere, beyond Python (issue 28), through the PostToolUse hook with real
//! layouts: an npm workspace with a real package (`ms` 2.1.3, as published) unpacked into
//! `node_modules`, a tsconfig with `paths`, a Go module with a `replace`, a Cargo package; broken
//! manifests; and learning a hallucinated package imported twice.

use serde_json::json;

use crate::support::{TestProject, corpus_dir};

const LESSONS: &str = ".claude/claude-auto-review/lessons.json";
const T0: i64 = 1_780_000_000;

/// An npm workspace (`packages/*`): `@acme/api` depends on `ms` (installed: the real package,
/// unpacked) and on `left-pad` (declared, not installed); `@acme/web` is a member.
fn npm_workspace() -> TestProject {
    let project = TestProject::new();
    project.write(
        "package.json",
        r#"{"name": "acme", "private": true, "workspaces": ["packages/*"], "devDependencies": {"typescript": "5.6.0"}}"#,
    );
    project.write(
        "packages/api/package.json",
        r#"{"name": "@acme/api", "dependencies": {"ms": "^2.1.3", "left-pad": "^1.3.0", "@acme/web": "*"}}"#,
    );
    project.write("packages/web/package.json", r#"{"name": "@acme/web"}"#);
    project.write("packages/web/src/index.ts", "export const web = 1;\n");
    let unpacked = corpus_dir("npm/ms");
    for file in ["package.json", "index.js", "license.md"] {
        let text = std::fs::read_to_string(unpacked.join(file)).unwrap();
        project.write(&format!("node_modules/ms/{file}"), &text);
    }
    project.write(
        "packages/api/src/util/retry.ts",
        "export const retry = 1;\n",
    );
    project
}

#[test]
fn a_package_installed_nowhere_and_declared_nowhere_blocks_in_typescript() {
    let project = npm_workspace();
    let content = "import ms from \"ms\";\nimport { readFile } from \"node:fs/promises\";\nimport path from \"path\";\nimport { web } from \"@acme/web\";\nimport { retry } from \"./util/retry.js\";\nimport { backoff } from \"fetch-retryx\";\n\nexport const wait = ms(\"2s\") + web + retry;\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/client.ts", content, None),
    );
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains(
            "packages/api/src/client.ts:6:26: Cannot find module 'fetch-retryx': no node_modules up the tree holds it and no package.json declares it (TS2307)"
        ),
        "{reason}"
    );
    assert!(reason.contains("[imports]"), "{reason}");
    // Only the one import: the real package, the built-ins, the workspace member and the
    // relative file written as `.js` for its `.ts` source all resolve.
    assert_eq!(reason.matches("[imports]").count(), 1, "{reason}");
}

#[test]
fn every_import_form_in_javascript_and_a_missing_relative_file() {
    let project = npm_workspace();
    let content = "const ms = require('ms');\nconst x = require('fetch-retryx/promise');\nexport * from './util/nope';\n// require('commented-out-pkg')\nconst s = \"require('in-a-string')\";\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/a.js", content, None),
    );
    let reason = answer.reason();
    assert!(
        reason.contains("a.js:2:20: Cannot find module 'fetch-retryx/promise'"),
        "{reason}"
    );
    assert!(
        reason.contains("a.js:3:16: Cannot find module './util/nope': no such file"),
        "{reason}"
    );
    assert!(
        !reason.contains("commented-out-pkg") && !reason.contains("in-a-string"),
        "{reason}"
    );
}

/// React Native picks a file by platform (`player.ios.tsx`, `player.native.ts`): a relative import
/// of one resolves, as a folder's platform index does; a misspelled name still blocks.
#[test]
fn a_relative_import_of_a_platform_file_resolves() {
    let project = npm_workspace();
    project.write(
        "packages/api/src/player.ios.tsx",
        "export const Player = 1;\n",
    );
    project.write(
        "packages/api/src/player.android.tsx",
        "export const Player = 2;\n",
    );
    project.write(
        "packages/api/src/storage/index.native.ts",
        "export const get = 1;\n",
    );
    let content = "import { Player } from './player';\nimport { get } from './storage';\nimport { Other } from './playr';\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/screen.ts", content, None),
    );
    let reason = answer.reason();
    assert!(reason.contains("Cannot find module './playr'"), "{reason}");
    assert_eq!(reason.matches("[imports]").count(), 1, "{reason}");
}

/// A package's `browser` object replaces files for bundlers (vite's browser-field playground
/// imports `./ext`, which only its `"./ext.js"` key names): no verdict; a misspelled file still
/// blocks.
#[test]
fn a_relative_import_the_browser_object_maps_does_not_block() {
    let project = TestProject::new();
    project.write(
        "package.json",
        r#"{"name": "browser-field", "main": "out/cjs.node.js", "browser": {"./out/cjs.node.js": "./out/esm.browser.js", "./ext.js": "./out/esm.browser.js", "./ext-index/index.js": "./out/esm.browser.js"}}"#,
    );
    project.write("out/esm.browser.js", "export default 'browser';\n");
    project.write("out/cjs.node.js", "module.exports = 'node';\n");
    let content =
        "import rc from './ext'\nimport re from './ext-index/index.js'\n\nexport { rc, re }\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("relative.js", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let misspelled = format!("{content}import rx from './extt'\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("relative.js", &misspelled, None),
    );
    let reason = answer.reason();
    assert!(reason.contains("Cannot find module './extt'"), "{reason}");
    assert_eq!(reason.matches("[imports]").count(), 1, "{reason}");
}

#[test]
fn declared_but_not_installed_warns_and_only_added_imports_count() {
    let project = npm_workspace();
    let after = "import ms from \"ms\";\nimport legacy from \"fetch-retryx\";\nimport pad from \"left-pad\";\n\nexport const a = 1;\n";
    project.write("packages/api/src/pad.ts", after);
    let answer = project.hook(
        "post-tool-use",
        &project.edit_payload(
            "packages/api/src/pad.ts",
            "import legacy from \"fetch-retryx\";\n",
            "import legacy from \"fetch-retryx\";\nimport pad from \"left-pad\";\n",
        ),
    );
    assert!(
        !answer.is_block(),
        "the old import is not the edit's: {answer:?}"
    );
    let context = answer.context();
    assert!(
        context.contains(
            "pad.ts:3:18: Cannot find module 'left-pad' in node_modules, but packages/api/package.json declares it: declared but not installed; run npm install [imports]"
        ),
        "{answer:?}"
    );
}

#[test]
fn tsconfig_paths_resolve_and_a_bundler_alias_gives_no_verdict() {
    let project = npm_workspace();
    project.write(
        "packages/api/tsconfig.json",
        "{\n  // the app's aliases\n  \"extends\": \"../../tsconfig.base.json\",\n}\n",
    );
    project.write(
        "tsconfig.base.json",
        r#"{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["packages/api/src/util/*"]}}}"#,
    );
    let content = "import { retry } from \"@lib/retry\";\nexport const r = retry;\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/b.ts", content, None),
    );
    assert_eq!(answer.json, json!({}), "{answer:?}");
    let missing = "import { x } from \"@lib/nothing-here\";\nimport y from \"fetch-retryx\";\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/c.ts", missing, None),
    );
    let reason = answer.reason();
    assert!(
        !reason.contains("@lib/nothing-here"),
        "a paths target not found: no verdict: {reason}"
    );
    assert!(reason.contains("'fetch-retryx'"), "{reason}");
    // A bundler that maps names: nothing car cannot see is blocked.
    project.write(
        "packages/api/vite.config.ts",
        "export default { resolve: { alias: { 'fetch-retryx': '/src/shim.ts' } } };\n",
    );
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/d.ts", missing, None),
    );
    assert_eq!(answer.json, json!({}), "{answer:?}");
}

#[test]
fn a_broken_package_json_is_named_and_blocks_nothing() {
    let project = npm_workspace();
    project.write("packages/api/package.json", "{\"name\": \"@acme/api\",\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "packages/api/src/e.ts",
            "import y from \"fetch-retryx\";\n",
            None,
        ),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let message = answer.system_message();
    assert_eq!(
        message
            .matches("packages/api/package.json: not valid JSON")
            .count(),
        1,
        "{message}"
    );
    assert!(
        message.contains("imports of the files it covers are not checked"),
        "{message}"
    );
}

#[test]
fn nothing_installed_anywhere_only_warns() {
    let project = TestProject::new();
    project.write(
        "package.json",
        r#"{"name": "fresh", "dependencies": {"ms": "2"}}"#,
    );
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "src/f.ts",
            "import ms from \"ms\";\nimport y from \"fetch-retryx\";\n",
            None,
        ),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let context = answer.context();
    assert!(
        context.contains("'fetch-retryx'") && !context.contains("'ms'"),
        "{context}"
    );
}

/// A Go module whose go.mod requires one module and replaces another with a local folder.
fn go_module() -> TestProject {
    let project = TestProject::new();
    project.write(
        "svc/go.mod",
        "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\texample.com/shared v0.0.0\n)\n\nreplace example.com/shared => ../shared\n",
    );
    project.write("shared/go.mod", "module example.com/shared\n\ngo 1.22\n");
    // A package of the module exists as a folder (issue 40, item 5: a missing one blocks).
    project.write("svc/internal/db/db.go", "package db\n\nconst X = 1\n");
    project
}

#[test]
fn go_an_import_no_required_module_provides_blocks() {
    let project = go_module();
    let content = "package main\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\n\t\"example.com/shared/log\"\n\t\"example.com/svc/internal/db\"\n\t\"github.com/pkg/errors\"\n\tretry \"github.com/acme/retryx\"\n)\n\nfunc main() { fmt.Println(http.StatusOK, log.X, db.X, errors.New(\"x\"), retry.Do) }\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("svc/cmd/main.go", content, None),
    );
    assert!(answer.is_block(), "{answer:?}");
    let reason = answer.reason();
    assert!(
        reason.contains(
            "svc/cmd/main.go:10:9: no required module provides package github.com/acme/retryx: no `require` or `replace` of svc/go.mod covers it (go build fails)"
        ),
        "{reason}"
    );
    assert_eq!(reason.matches("[imports]").count(), 1, "{reason}");
}

#[test]
fn go_a_broken_go_mod_or_a_workspace_gives_no_verdict() {
    let project = go_module();
    let content = "package main\n\nimport \"github.com/acme/retryx\"\n\nvar _ = retryx.Do\n";
    project.write("svc/go.work", "go 1.22\n\nuse .\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("svc/a.go", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    std::fs::remove_file(project.path().join("svc/go.work")).unwrap();
    project.write("svc/go.mod", "go 1.22\nrequire (\n");
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("svc/b.go", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    assert!(
        answer
            .system_message()
            .contains("car: svc/go.mod: no `module` line"),
        "{answer:?}"
    );
}

#[test]
fn rust_a_crate_that_is_no_dependency_only_warns() {
    let project = TestProject::new();
    project.write(
        "Cargo.toml",
        "[package]\nname = \"tool\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    project.write("src/lib.rs", "pub mod config;\n");
    let content = "use serde::Serialize;\nuse reqwestx::Client;\nuse crate::config::Settings;\nuse std::fs;\n\npub fn f() {}\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("src/net.rs", content, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let context = answer.context();
    assert!(
        context.contains(
            "src/net.rs:2:5: unresolved import `reqwestx`: no dependency of Cargo.toml and no module of the crate is called so"
        ),
        "{context}"
    );
    assert_eq!(context.matches("[imports]").count(), 1, "{context}");
}

/// A published crate (`cargo publish` keeps the author's manifest as Cargo.toml.orig and drops
/// path-only dev-dependencies): its tests may use a crate its Cargo.toml does not name, so no
/// verdict there; its `src/` is judged as in any crate.
#[test]
fn rust_a_published_crates_tests_get_no_verdict_on_a_dropped_dev_dependency() {
    let project = TestProject::new();
    let manifest =
        "[package]\nname = \"tool\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n";
    project.write("Cargo.toml", manifest);
    project.write("src/lib.rs", "pub fn f() {}\n");
    let content = "use tool_testkit::Fixture;\n\n#[test]\nfn t() {}\n";
    let warned = |project: &TestProject, file: &str| {
        let answer = project.hook("post-tool-use", &project.write_payload(file, content, None));
        assert!(!answer.is_block(), "{answer:?}");
        answer
            .context()
            .contains("unresolved import `tool_testkit`")
    };
    assert!(warned(&project, "tests/it.rs"), "a crate in development");
    project.write(
        "Cargo.toml.orig",
        &format!("{manifest}\n[dev-dependencies]\ntool_testkit = {{ path = \"../testkit\" }}\n"),
    );
    assert!(
        !warned(&project, "tests/it2.rs"),
        "a published crate's test"
    );
    assert!(warned(&project, "src/it.rs"), "its src/ still judged");
}

/// Issue 28 item 4: a package the agent made up, imported in two files of one package and fixed
/// to the real one, becomes a lesson scoped to that package, naming the real package; it warns
/// there, and not in another package where the name is installed.
#[test]
fn a_hallucinated_package_imported_twice_becomes_a_lesson_of_its_package() {
    let mut project = npm_workspace();
    project.write(
        "packages/web/node_modules/fetch-retryx/package.json",
        "{\"name\":\"fetch-retryx\"}",
    );
    project.at(T0);
    let wrong = "import { retry } from \"fetch-retryx\";\n\nexport const a = retry;\n";
    let fixed = "import { retry } from \"p-retry\";\n\nexport const a = retry;\n";
    project.write(
        "packages/api/package.json",
        r#"{"name": "@acme/api", "dependencies": {"ms": "^2.1.3", "p-retry": "^6.2.0"}}"#,
    );
    project.write(
        "node_modules/p-retry/package.json",
        "{\"name\":\"p-retry\"}",
    );
    let first = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/a.ts", wrong, None),
    );
    assert!(first.is_block(), "{first:?}");
    project.at(T0 + 60);
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/a.ts", fixed, Some(wrong)),
    );
    assert!(!answer.is_block(), "{answer:?}");
    project.at(T0 + 120);
    let learned = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/b.ts", wrong, None),
    );
    assert!(
        learned.system_message().contains("learned a lesson"),
        "{learned:?}"
    );
    let lessons = project.read_json(LESSONS);
    let lesson = &lessons["lessons"][0];
    assert_eq!(lesson["scope"], "packages/api/**/*.ts", "{lesson}");
    assert_eq!(lesson["triggers"], json!(["fetch-retryx"]), "{lesson}");
    let text = lesson["lesson"].as_str().unwrap();
    assert!(
        text.contains("Write `p-retry`, not `fetch-retryx`"),
        "{text}"
    );
    // The third time, in that package: the lesson warns beside the block.
    project.at(T0 + 180);
    let again = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/c.ts", wrong, None),
    );
    assert!(again.reason().contains("⚠️ lesson (weight"), "{again:?}");
    assert!(again.reason().contains("Write `p-retry`"), "{again:?}");
    // In the package where a package of that name is installed: no error, no lesson.
    let web = project.hook(
        "post-tool-use",
        &project.write_payload("packages/web/src/retry.ts", wrong, None),
    );
    assert!(!web.is_block(), "{web:?}");
    assert!(!web.context().contains("lesson"), "{web:?}");
}

/// The same for Go: a module path the agent made up, fixed to the one go.mod requires, is
/// learned in the module's folder (the nearest go.mod) with the real path in its text.
#[test]
fn a_hallucinated_go_module_imported_twice_becomes_a_lesson_of_its_module() {
    let mut project = go_module();
    project.at(T0);
    let wrong = "package main\n\nimport \"github.com/pkg/errorsx\"\n\nvar _ = errorsx.New\n";
    let fixed = "package main\n\nimport \"github.com/pkg/errors\"\n\nvar _ = errors.New\n";
    let first = project.hook(
        "post-tool-use",
        &project.write_payload("svc/a.go", wrong, None),
    );
    assert!(first.is_block(), "{first:?}");
    project.at(T0 + 60);
    project.hook(
        "post-tool-use",
        &project.write_payload("svc/a.go", fixed, Some(wrong)),
    );
    project.at(T0 + 120);
    let learned = project.hook(
        "post-tool-use",
        &project.write_payload("svc/b.go", wrong, None),
    );
    assert!(
        learned.system_message().contains("learned a lesson"),
        "{learned:?}"
    );
    let lessons = project.read_json(LESSONS);
    let lesson = &lessons["lessons"][0];
    assert_eq!(lesson["scope"], "svc/**/*.go", "{lesson}");
    assert_eq!(
        lesson["triggers"],
        json!(["github.com/pkg/errorsx"]),
        "{lesson}"
    );
    let text = lesson["lesson"].as_str().unwrap();
    assert!(
        text.contains("Write `github.com/pkg/errors`, not `github.com/pkg/errorsx`"),
        "{text}"
    );
}

/// The agent writes the file that imports a module first, then the module: the first write is
/// told to fix the path or go on, and the stop, which checks the file again, does not hold the
/// resolved import against it (a file with errors is validated again at the stop).
#[test]
fn an_import_of_a_module_written_next_is_not_held_against_the_stop() {
    let project = npm_workspace();
    let importer =
        "import { retryDelay } from './retry-timing.js';\nexport const first = retryDelay(1);\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/client.ts", importer, None),
    );
    let reason = answer.reason();
    assert!(
        reason.contains(
            "fix the path, or create the file (if you are about to, go on: the stop checks again)"
        ),
        "{reason}"
    );
    let module =
        "export function retryDelay(attempt: number): number {\n  return attempt * 100;\n}\n";
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload("packages/api/src/retry-timing.ts", module, None),
    );
    assert!(!answer.is_block(), "{answer:?}");
    let stop = crate::review_helpers::stop(&project);
    assert!(stop.is_block(), "the review is asked for: {stop:?}");
    assert!(
        !stop.reason().contains("Cannot find module"),
        "the resolved import is not an error at the stop: {}",
        stop.reason()
    );
    // Python too: the module created after the file importing it.
    let answer = project.hook(
        "post-tool-use",
        &project.write_payload(
            "tools/report.py",
            "import report_helpers\n\nreport_helpers.run()\n",
            None,
        ),
    );
    assert!(answer.is_block(), "{answer:?}");
    project.hook(
        "post-tool-use",
        &project.write_payload(
            "tools/report_helpers.py",
            "def run():\n    return 1\n",
            None,
        ),
    );
    let stop = crate::review_helpers::stop(&project);
    assert!(stop.is_block(), "{stop:?}");
    assert!(
        !stop.reason().contains("No module named"),
        "{}",
        stop.reason()
    );
}
