//! How car names itself in the commands it asks the agent to run (`car review submit`, `defer`,
//! `challenge`). An agent runs them through its own shell, whose PATH may not be the hooks':
//! Codex runs `bash -lc`, a login shell that resets PATH. So the command names the running
//! binary by its absolute path; the plain name `car` is the fallback where that path is not one
//! to keep (a build inside a cargo target folder, which the next build replaces or removes).

use std::path::Path;
use std::sync::OnceLock;

/// The program the agent's shell should run: the absolute path of this binary, shell-quoted
/// when it needs it, else `car`.
pub(crate) fn name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .and_then(|path| path.canonicalize().ok())
            .filter(|path| is_stable(path))
            .and_then(|path| path.to_str().map(crate::text::shell_word))
            .unwrap_or_else(|| "car".to_string())
    })
}

/// Whether `path` is a binary worth naming: not a cargo build output (`…/target/debug/car`,
/// `…/target/<triple>/release/deps/car-…`), whose place the next build or `cargo clean` takes.
fn is_stable(path: &Path) -> bool {
    let parts: Vec<&str> = path
        .components()
        .filter_map(|part| part.as_os_str().to_str())
        .collect();
    let in_target = parts.iter().enumerate().any(|(index, part)| {
        *part == "target"
            && parts[index + 1..]
                .iter()
                .take(2)
                .any(|profile| matches!(*profile, "debug" | "release"))
    });
    !in_target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_build_outputs_are_not_named() {
        assert!(!is_stable(Path::new("/src/car/target/debug/car")));
        assert!(!is_stable(Path::new("/src/car/target/release/car")));
        assert!(!is_stable(Path::new(
            "/src/car/target/x86_64-unknown-linux-gnu/release/car"
        )));
        assert!(!is_stable(Path::new("/src/car/target/debug/deps/car-1a2b")));
        assert!(is_stable(Path::new("/usr/local/bin/car")));
        assert!(is_stable(Path::new("/home/me/.cargo/bin/car")));
        assert!(is_stable(Path::new("/opt/target/bin/car")));
    }
}
