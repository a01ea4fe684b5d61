//! A Jupyter notebook cell as the Python the interpreter can compile: IPython's own syntax
//! (magics, shell escapes, help lines) is not Python.

/// A notebook cell as plain Python: line magics (`%timeit f()`), shell escapes (`!pip install x`,
/// `files = !ls`) and help lines (`obj?`) become `pass` at the same indentation, so line numbers do
/// not move. `None` for a cell magic (`%%bash`, `%%time`, …): the cell is another language or
/// wraps its code, and car would rather miss than misread it.
pub(crate) fn ipython_to_python(cell: &str) -> Option<String> {
    let first = cell.lines().map(str::trim).find(|line| !line.is_empty());
    if first.is_some_and(|line| line.starts_with("%%")) {
        return None;
    }
    let lines: Vec<String> = cell
        .split('\n')
        .map(|line| {
            let code = line.trim_start();
            let indent = &line[..line.len() - code.len()];
            if is_ipython_line(code) {
                format!("{indent}pass")
            } else {
                line.to_string()
            }
        })
        .collect();
    Some(lines.join("\n"))
}

fn is_ipython_line(code: &str) -> bool {
    if code.starts_with('%') || code.starts_with('!') {
        return true;
    }
    let is_name = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ',' | ' '))
    };
    // `files = !ls`, `out = %sx ls`
    if let Some((target, value)) = code.split_once('=') {
        let value = value.trim_start();
        if is_name(target.trim()) && (value.starts_with('!') || value.starts_with('%')) {
            return true;
        }
    }
    // `obj?`, `obj??`
    code.strip_suffix('?')
        .map(|rest| rest.strip_suffix('?').unwrap_or(rest))
        .is_some_and(|name| is_name(name) && !name.contains(' '))
}
