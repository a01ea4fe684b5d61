//! A review comment's suggested change: the lines it was written on (from its diff hunk) and
//! what the reviewer suggested instead (the comment's ```` ```suggestion ```` block).
//!
//! GitHub's `diff_hunk` ends at the comment's last line; a comment on N lines covers the last N
//! lines of the hunk's new side (context and added lines). When a suggestion is committed the
//! lines change and the comment becomes outdated: its hunk still holds the lines as they were
//! written, which is what a lesson is learned from.
//!
//! Invariants: only the first suggestion block counts; a hunk that does not end on a line of its
//! new side is unreadable (`None`), never guessed at.

/// The lines a suggestion replaces and the suggested lines, `\n`-joined without a final newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Suggested {
    pub(crate) written: String,
    pub(crate) suggested: String,
}

/// The first ```` ```suggestion ```` block of a comment's body (empty when it suggests deleting
/// the lines); `None` without one.
pub(crate) fn suggestion_block(body: &str) -> Option<String> {
    let mut lines = body.lines();
    lines.find(|line| fence_info(line).is_some_and(|info| info == "suggestion"))?;
    let mut block = Vec::new();
    for line in lines {
        if fence_info(line).is_some() {
            return Some(block.join("\n"));
        }
        block.push(line.trim_end_matches('\r'));
    }
    // An unclosed block runs to the end of the body, as GitHub renders it.
    Some(block.join("\n"))
}

/// The comment's text without its suggestion block, on one line.
pub(crate) fn prose(body: &str) -> String {
    let mut words = Vec::new();
    let mut in_block = false;
    for line in body.lines() {
        if fence_info(line).is_some() {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            words.extend(line.split_whitespace());
        }
    }
    words.join(" ")
}

/// The info string of a fence line (```` ``` ```` or more backticks), `None` for other lines.
fn fence_info(line: &str) -> Option<&str> {
    let trimmed = line.trim();
    let info = trimmed.strip_prefix("```")?;
    Some(info.trim_start_matches('`').trim())
}

/// The last `count` lines of the hunk's new side, as written; `None` when the hunk does not end
/// on one or holds fewer.
pub(crate) fn commented_lines(diff_hunk: &str, count: usize) -> Option<String> {
    let mut new_side = Vec::new();
    let mut ends_on_new_side = false;
    for line in diff_hunk.lines().filter(|line| !line.starts_with('\\')) {
        if line.starts_with("@@") {
            new_side.clear();
            ends_on_new_side = false;
            continue;
        }
        match line.chars().next() {
            Some('-') => ends_on_new_side = false,
            Some('+' | ' ') => {
                new_side.push(&line[1..]);
                ends_on_new_side = true;
            }
            // An empty context line, as some exports write it.
            None => {
                new_side.push("");
                ends_on_new_side = true;
            }
            _ => return None,
        }
    }
    if !ends_on_new_side || count == 0 || new_side.len() < count {
        return None;
    }
    let lines: Vec<&str> = new_side[new_side.len() - count..]
        .iter()
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_and_the_prose_come_apart() {
        let body = "Always pass a timeout.\r\n```suggestion\r\n    r = requests.get(url, timeout=10)\r\n```\r\nOtherwise it hangs.";
        assert_eq!(
            suggestion_block(body).unwrap(),
            "    r = requests.get(url, timeout=10)"
        );
        assert_eq!(prose(body), "Always pass a timeout. Otherwise it hangs.");
        assert_eq!(suggestion_block("```suggestion\n```").unwrap(), "");
        assert_eq!(suggestion_block("```python\nx = 1\n```"), None);
        assert_eq!(suggestion_block("Looks good"), None);
        assert_eq!(suggestion_block("````suggestion\nx\n````").unwrap(), "x");
    }

    #[test]
    fn the_last_lines_of_the_new_side_are_the_commented_ones() {
        let hunk = "@@ -10,4 +10,5 @@ def fetch(url):\n     log(url)\n-    r = get(url)\n+    r = requests.get(url)\n+    r.raise_for_status()";
        assert_eq!(
            commented_lines(hunk, 1).unwrap(),
            "    r.raise_for_status()"
        );
        assert_eq!(
            commented_lines(hunk, 2).unwrap(),
            "    r = requests.get(url)\n    r.raise_for_status()"
        );
        assert_eq!(
            commented_lines(hunk, 4),
            None,
            "more than the new side holds"
        );
        let on_removed = "@@ -1,2 +1,1 @@\n keep\n-gone";
        assert_eq!(commented_lines(on_removed, 1), None);
        assert_eq!(commented_lines("not a hunk\n*x", 1), None);
    }
}
