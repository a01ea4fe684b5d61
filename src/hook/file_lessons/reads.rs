//! The project files a tool call read: the path of a read tool (Claude Code `Read`, Gemini CLI
//! `read_file`), or the files a shell command's reading programs name (`cat app.py`,
//! `sed -n '1,80p' src/app.py`, `nl -ba lib.rs | head`: how Codex, whose only way to read is its
//! shell, looks at a file before it edits it).
//!
//! Invariants:
//! - only regular files that resolve inside the project count, at most [`MAX_FILES`] per call;
//! - a shell command is read through the bash grammar car already carries, never run; only the
//!   plain words and quoted strings given to a program of [`READERS`] count (a word with an
//!   expansion, a glob or a redirect's target does not): a file the agent only wrote to, or named
//!   for another program, is not taken for a read;
//! - a command longer than [`MAX_COMMAND_BYTES`] is not read (a heredoc of a whole file is a write).

use std::path::Path;

use tree_sitter::Node;

use crate::agents::payload::{Payload, ToolCall};
use crate::project::Project;
use crate::validate::language::Language;

/// Files taken from one call.
const MAX_FILES: usize = 8;

/// Longest command line read for the files it names.
const MAX_COMMAND_BYTES: usize = 4 * 1024;

/// Programs that show a file's text (or the lines of it that match) to the one who runs them.
const READERS: &[&str] = &[
    "awk", "bat", "batcat", "cat", "egrep", "grep", "head", "less", "more", "nl", "rg", "sed",
    "tac", "tail",
];

/// Shells whose `-c` script is read as a command line of its own (`bash -lc 'cat app.py'`).
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash"];

/// The project-relative paths of the files the payload's tool read, in the order named.
pub(crate) fn files_read(payload: &Payload, project: &Project) -> Vec<String> {
    let named = match &payload.tool.call {
        ToolCall::Read { paths } => paths.clone(),
        ToolCall::Shell { command, .. } => named_by_readers(command, 0),
        _ => return Vec::new(),
    };
    let mut files: Vec<String> = Vec::new();
    for name in named {
        let path = project.resolve(payload.cwd(), &name);
        let Some(inside) = project.inside(&path) else {
            continue;
        };
        if inside.resolved.is_file() && !files.contains(&inside.relative) {
            files.push(inside.relative);
        }
        if files.len() == MAX_FILES {
            break;
        }
    }
    files
}

/// The words given to reading programs in `command`, as written (not yet resolved); `depth`
/// counts the `sh -c` scripts it is inside of.
fn named_by_readers(command: &str, depth: usize) -> Vec<String> {
    // Most commands name no reading program: they are not parsed.
    let names_a_reader = READERS.iter().any(|reader| command.contains(reader));
    if command.len() > MAX_COMMAND_BYTES || !names_a_reader {
        return Vec::new();
    }
    let Some(grammar) = crate::validate::treesitter::grammar(Language::Shell) else {
        return Vec::new();
    };
    let Ok(tree) = crate::validate::treesitter::parse(&grammar, command) else {
        return Vec::new();
    };
    let mut named = Vec::new();
    collect(tree.root_node(), command, &mut named, depth);
    named
}

/// Walks `node` for simple commands; `depth` counts the `sh -c` scripts entered.
fn collect(node: Node<'_>, source: &str, named: &mut Vec<String>, depth: usize) {
    if named.len() >= MAX_FILES * 4 {
        return;
    }
    if node.kind() == "command" {
        read_command(node, source, named, depth);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, source, named, depth);
    }
}

/// One simple command: its arguments when its program reads files; the script of `sh -c`.
fn read_command(node: Node<'_>, source: &str, named: &mut Vec<String>, depth: usize) {
    let Some(program) = node
        .child_by_field_name("name")
        .and_then(|name| plain_word(name, source))
    else {
        return;
    };
    let program = Path::new(&program)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default()
        .to_string();
    let mut cursor = node.walk();
    let arguments: Vec<Option<String>> = node
        .children_by_field_name("argument", &mut cursor)
        .map(|argument| plain_word(argument, source))
        .collect();
    if SHELLS.contains(&program.as_str()) {
        // `bash -lc 'script'`: the script is the first word after an option ending in `c`.
        let script = arguments
            .iter()
            .position(|word| {
                word.as_deref()
                    .is_some_and(|word| word.starts_with('-') && word.ends_with('c'))
            })
            .and_then(|index| arguments.get(index + 1).cloned().flatten());
        // One level deep: `bash -c "bash -c …"` is not how an agent reads a file.
        if let Some(script) = script.filter(|_| depth == 0) {
            named.extend(named_by_readers(&script, depth + 1));
        }
        return;
    }
    if !READERS.contains(&program.as_str()) {
        return;
    }
    named.extend(
        arguments
            .into_iter()
            .flatten()
            .filter(|word| !word.starts_with('-') && !word.is_empty()),
    );
}

/// The text a word stands for, when it is a plain word or a quoted string with no expansion,
/// glob or escape in it; `None` otherwise.
fn plain_word(node: Node<'_>, source: &str) -> Option<String> {
    let text = node.utf8_text(source.as_bytes()).ok()?;
    let word = match node.kind() {
        "word" | "command_name" if node.named_child_count() == 0 => text,
        "command_name" => {
            return node
                .named_child(0)
                .and_then(|inner| plain_word(inner, source));
        }
        "raw_string" => text.strip_prefix('\'')?.strip_suffix('\'')?,
        "string" => {
            let mut cursor = node.walk();
            let only_text = node
                .named_children(&mut cursor)
                .all(|child| child.kind() == "string_content");
            if !only_text {
                return None;
            }
            text.strip_prefix('"')?.strip_suffix('"')?
        }
        _ => return None,
    };
    let special = |c: char| matches!(c, '$' | '*' | '?' | '[' | '~' | '\\' | '`');
    (!word.contains(special)).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(command: &str) -> Vec<String> {
        named_by_readers(command, 0)
    }

    #[test]
    fn the_files_reading_programs_name() {
        assert_eq!(named("cat app.py"), ["app.py"]);
        assert_eq!(named("sed -n '1,80p' src/app.py"), ["1,80p", "src/app.py"]);
        assert_eq!(named("nl -ba src/lib.rs | head -n 40"), ["src/lib.rs"]);
        assert_eq!(named("cd src && cat \"a b.py\""), ["a b.py"]);
        assert_eq!(named("/bin/cat x.ts; echo done"), ["x.ts"]);
        assert_eq!(named("bash -lc 'head -20 app.go'"), ["app.go"]);
    }

    #[test]
    fn writes_expansions_and_other_programs_are_not_reads() {
        assert!(named("cat > app.py <<'EOF'\nx = 1\nEOF").is_empty());
        assert!(named("echo hi > app.py").is_empty());
        assert!(named("python app.py").is_empty());
        assert!(named("cat $FILE \"$DIR/x.py\" *.py ~/x.py").is_empty());
        assert!(named("").is_empty());
        assert!(named(&format!("cat {}", "a".repeat(MAX_COMMAND_BYTES))).is_empty());
    }
}
