//! Dockerfiles: the exec form of `ENTRYPOINT`, `CMD` and `SHELL` (`["app", "sync"]`) must be a
//! JSON array. Docker reads an exec form that is not valid JSON as the shell form, so the build
//! passes and the container fails when it starts (`/bin/sh: [app,: not found`): issue 40,
//! item 5, `ENTRYPOINT ["app", "sync"` passed. Nothing else of a Dockerfile is checked (no
//! grammar here is trusted for it; `RUN [ -f x ]` is a shell test, so `RUN` is left alone).
//!
//! Invariant: a text scan, microseconds per file; a line continued with `\` is read whole; only
//! an argument that starts with `["` is taken as an exec form (`[ "$x" = y ]` is shell).

use crate::validate::{Diagnostic, Origin, Severity, snippet_at};

pub(crate) const VALIDATOR: &str = "dockerfile";

/// The instructions whose `[…]` argument Docker reads as an exec form and that run nothing at
/// build time, so nothing else would notice the broken form.
const EXEC_FORM_INSTRUCTIONS: [&str; 3] = ["ENTRYPOINT", "CMD", "SHELL"];

/// The exec forms of `content` that are not JSON arrays of strings.
pub(crate) fn check(display_path: &str, content: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let lines: Vec<&str> = content.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let first = index;
        let mut instruction = lines[index].trim_end().to_string();
        while instruction.ends_with('\\') && index + 1 < lines.len() {
            instruction.pop();
            index += 1;
            instruction.push_str(lines[index].trim());
        }
        index += 1;
        let text = instruction.trim_start();
        let Some((keyword, argument)) = text.split_once(char::is_whitespace) else {
            continue;
        };
        let argument = argument.trim();
        if !EXEC_FORM_INSTRUCTIONS
            .iter()
            .any(|known| keyword.eq_ignore_ascii_case(known))
            || !argument.starts_with("[\"")
            || is_string_array(argument)
        {
            continue;
        }
        let column = lines[first]
            .find('[')
            .map_or(1, |at| lines[first][..at].chars().count() + 1);
        found.push(Diagnostic {
            file: display_path.to_string(),
            line: first + 1,
            column,
            severity: Severity::Error,
            validator: VALIDATOR.to_string(),
            origin: Origin::JsonParser,
            message: format!(
                "{} exec form is not a JSON array of strings: Docker would run it as a shell command, which fails when the container starts; close the `]` and quote every argument with `\"`",
                keyword.to_uppercase()
            ),
            snippet: snippet_at(content, first + 1, column),
            subject: None,
        });
    }
    found
}

fn is_string_array(text: &str) -> bool {
    serde_json::from_str::<Vec<String>>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_exec_form_is_an_error_and_shell_forms_are_not() {
        let broken = "FROM alpine\nENTRYPOINT [\"app\", \"sync\"\n";
        let found = check("Dockerfile", broken);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].line, found[0].column), (2, 12));
        assert!(found[0].message.starts_with("ENTRYPOINT exec form"));
        for valid in [
            "FROM alpine\nENTRYPOINT [\"app\", \"sync\"]\nCMD [\"--help\"]\n",
            "CMD [\"app\", \\\n     \"sync\"]\n",
            "RUN [ -f /x ] && echo ok\nCMD echo [\"a\"\n",
            "SHELL [\"/bin/bash\", \"-c\"]\n# CMD [\"not\"\n",
            "cmd [\"lower\", \"case\"]\n",
        ] {
            assert!(check("Dockerfile", valid).is_empty(), "{valid}");
        }
        assert_eq!(check("Dockerfile", "CMD [\"a\", 'b']\n").len(), 1);
    }
}
