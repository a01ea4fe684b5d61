//! Valid code of popular libraries the grammars misread (issue "Validators, round 3"), paraphrased:
//! each written by an agent passes the hook without a block and without a "possible slip".

use crate::support::TestProject;

#[test]
fn valid_code_the_grammars_misread_passes_the_hook() {
    let project = TestProject::new();
    for (file, content) in [
        (
            "src/store.ts",
            "export interface BoundStore<S> {\n  (): S\n  <U>(selector: (state: S) => U): U\n  getState(): S\n}\n",
        ),
        (
            "src/lazy.ts",
            "const locale = loadModule<typeof import(\"./locale\")>(\n  \"./locale\",\n  true,\n)\n",
        ),
        (
            "Sources/Ping.swift",
            "import Combine\n\nfunc ping() -> AnyPublisher<Void, Never> {\n    Just(()).eraseToAnyPublisher()\n}\n",
        ),
        (
            "Sources/Model.swift",
            "#if canImport(SwiftUI)\n@MainActor\n#endif\nfinal class Model {\n    var count = 0\n}\n",
        ),
        (
            "src/Json.kt",
            "fun render(name: String) = $$\"\"\"{ \"name\": \"$$name\", \"note\": \"$schema\" }\"\"\"\n",
        ),
    ] {
        let answer = project.hook_as(
            "claude",
            "post-tool-use",
            &project.write_payload(file, content, None),
        );
        assert!(!answer.is_block(), "{file}: {}", answer.stdout);
        assert!(
            !answer.context().contains("possible slip"),
            "{file}: {}",
            answer.stdout
        );
    }
}
