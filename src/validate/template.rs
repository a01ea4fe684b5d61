//! Files that are templates, not yet the language their name says: a cookiecutter or copier
//! project template (its folders are named `{{cookiecutter.project_slug}}`), or a file whose
//! errors all fall on Jinja block tags (`{% if … %}` on a line of its own). Python, JSON or TOML
//! like that is valid once rendered; its syntax errors before that are the template's, so they
//! are not reported (one note says why). YAML has its own rule: an error on any `{{ … }}`
//! expression (`validate::yaml`).
//!
//! Invariant (*rather miss than false-alarm*): this only ever drops errors, and only where no
//! program of these languages could be: a path component with `{{` and `}}`, or errors that all
//! sit on lines starting with `{%` and holding `%}` (a tag inside a string of a real program, as
//! in a template engine's tests, leaves the program's own errors standing).

/// Why the errors at `error_lines` (1-based) of the file at `relative_path` (with `content`) are
/// a template's, or `None`.
pub(crate) fn template_reason(
    relative_path: &str,
    content: &str,
    error_lines: &[usize],
) -> Option<&'static str> {
    if relative_path
        .split('/')
        .any(|part| part.contains("{{") && part.contains("}}"))
    {
        return Some(
            "it lives in a project template (a `{{ … }}` folder, as cookiecutter and copier name them)",
        );
    }
    let lines: Vec<&str> = content.lines().collect();
    let is_tag_line = |number: &usize| {
        number
            .checked_sub(1)
            .and_then(|index| lines.get(index))
            .map(|line| line.trim_start())
            .is_some_and(|line| line.starts_with("{%") && line.contains("%}"))
    };
    (!error_lines.is_empty() && error_lines.iter().all(is_tag_line))
        .then_some("its errors are on Jinja block tags (`{% … %}`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_folders_and_errors_on_block_tags_are_templates() {
        assert!(
            template_reason("{{cookiecutter.project_slug}}/src/app.py", "x = (\n", &[1]).is_some()
        );
        let tagged = "import os\n{% if docker %}\nDOCKER = True\n{% endif %}\n";
        assert!(template_reason("app.py", tagged, &[2, 4]).is_some());
        assert!(template_reason("app.toml", "  {%- for x in xs %}\n", &[1]).is_some());
        // An error elsewhere is the program's own, even with tags in the file.
        assert!(template_reason("app.py", tagged, &[3]).is_none());
    }

    #[test]
    fn code_that_only_mentions_braces_is_not() {
        for content in [
            "name = \"{{ project }}\"\n",
            "print(f\"{{literal}}\")\n",
            "template = '{% if x %}'\n",
            "{\"a\": \"{% raw %}\"}\n",
        ] {
            assert_eq!(
                template_reason("src/app.py", content, &[1]),
                None,
                "{content}"
            );
        }
    }
}
