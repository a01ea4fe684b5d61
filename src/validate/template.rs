//! Files that are templates, not yet the language their name says: a cookiecutter or copier
//! project template (its folders are named `{{cookiecutter.project_slug}}`), or a file with Jinja
//! block tags (`{% if … %}` on a line of its own). Python, JSON or TOML with such lines is valid
//! once rendered; its syntax errors before that are the template's, so they are not reported
//! (one note says why). YAML has its own, wider rule (Helm's `{{ … }}` values).
//!
//! Invariant (*rather miss than false-alarm*): this only ever drops errors, and it looks only for
//! markers no program of these languages holds: a path component with `{{` and `}}`, a line that
//! starts with `{%` and holds `%}`.

/// Why the file at `relative_path` (with `content`) is a template, or `None`.
pub(crate) fn template_reason(relative_path: &str, content: &str) -> Option<&'static str> {
    if relative_path
        .split('/')
        .any(|part| part.contains("{{") && part.contains("}}"))
    {
        return Some(
            "it lives in a project template (a `{{ … }}` folder, as cookiecutter and copier name them)",
        );
    }
    content
        .lines()
        .map(str::trim_start)
        .any(|line| line.starts_with("{%") && line.contains("%}"))
        .then_some("it holds Jinja block tags (`{% … %}`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_folders_and_block_tags_are_templates() {
        assert!(template_reason("{{cookiecutter.project_slug}}/src/app.py", "x = 1\n").is_some());
        assert!(
            template_reason(
                "app.py",
                "import os\n{% if docker %}\nDOCKER = True\n{% endif %}\n"
            )
            .is_some()
        );
        assert!(template_reason("app.toml", "  {%- for x in xs %}\n").is_some());
    }

    #[test]
    fn code_that_only_mentions_braces_is_not() {
        for content in [
            "name = \"{{ project }}\"\n",
            "print(f\"{{literal}}\")\n",
            "template = '{% if x %}'\n",
            "{\"a\": \"{% raw %}\"}\n",
        ] {
            assert_eq!(template_reason("src/app.py", content), None, "{content}");
        }
    }
}
