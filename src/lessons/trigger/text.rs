//! A trigger in words for the agent and for people: a literal as written; a pattern as the code it
//! looks for (`regex:\byaml\.load\((?![^)]*Loader)` reads `yaml.load(`), with "a pattern" said,
//! and as written only when it cannot be read back as plain code.
//!
//! Invariant: display only. Matching always uses the trigger as written ([`super`]). Used by the
//! session-start briefing ([`readable`]) and by every lesson warning ([`labelled`]); a replay
//! scenario that names a trigger as written finds it in a warning through [`labelled`] too.

use super::REGEX_PREFIX;

/// How a trigger reads.
enum Reading<'a> {
    /// A literal, as written.
    Literal(&'a str),
    /// A pattern read back as the code it looks for.
    Code(String),
    /// A pattern that does not read as plain code, without its `regex:` prefix.
    Pattern(&'a str),
}

fn reading(trigger: &str) -> Reading<'_> {
    let Some(pattern) = trigger.strip_prefix(REGEX_PREFIX) else {
        return Reading::Literal(trigger);
    };
    match plain(pattern) {
        Some(text) if !text.trim().is_empty() => Reading::Code(text.trim().to_string()),
        _ => Reading::Pattern(pattern),
    }
}

/// What an agent reads for `trigger` (as written in the lesson file): `yaml.load( (a pattern)`.
pub(crate) fn readable(trigger: &str) -> String {
    match reading(trigger) {
        Reading::Literal(text) => text.to_string(),
        Reading::Code(code) => format!("{code} (a pattern)"),
        Reading::Pattern(pattern) => format!("pattern {pattern}"),
    }
}

/// `trigger` named with what it is, for a warning: ``trigger `shell=True` `` for a literal,
/// ``pattern `yaml.load(` `` for a pattern that reads as code, else the pattern as written.
pub(crate) fn labelled(trigger: &str) -> String {
    match reading(trigger) {
        Reading::Literal(text) => format!("trigger `{text}`"),
        Reading::Code(code) => format!("pattern `{code}`"),
        Reading::Pattern(pattern) => format!("pattern `{pattern}`"),
    }
}

/// The code a pattern looks for, when it is a literal with anchors, lookarounds, optional
/// whitespace and escapes around it; `None` when it has alternatives, groups, classes or
/// repetitions of more than whitespace.
fn plain(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        match c {
            '\\' => {
                let next = *chars.get(at + 1)?;
                at += 2;
                match next {
                    'b' | 'B' | 'A' | 'z' => {}
                    's' => {
                        let quantifier = chars.get(at).copied();
                        if matches!(quantifier, Some('*' | '+' | '?')) {
                            at += 1;
                        }
                        if quantifier != Some('*') && quantifier != Some('?') {
                            out.push(' ');
                        }
                    }
                    'w' | 'd' | 'S' | 'W' | 'D' => {
                        if matches!(chars.get(at), Some('*' | '+')) {
                            at += 1;
                        }
                        out.push('…');
                    }
                    next if next.is_ascii_punctuation() => out.push(next),
                    _ => return None,
                }
            }
            '^' | '$' => at += 1,
            '(' if chars.get(at + 1) == Some(&'?') => {
                let end = group_end(&chars, at)?;
                let inner: String = chars[at + 2..end].iter().collect();
                let lookaround = ["!", "=", "<!", "<="]
                    .iter()
                    .any(|prefix| inner.starts_with(prefix));
                let flags = inner.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
                if !(lookaround || flags) {
                    return None;
                }
                at = end + 1;
            }
            '.' => {
                if matches!(chars.get(at + 1), Some('*' | '+')) {
                    at += 2;
                    out.push('…');
                } else {
                    return None;
                }
            }
            '(' | ')' | '[' | ']' | '{' | '}' | '|' | '*' | '+' | '?' => return None,
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    Some(out)
}

/// The index of the `)` that closes the group opening at `start`.
fn group_end(chars: &[char], start: usize) -> Option<usize> {
    let mut depth = 0;
    let mut at = start;
    while at < chars.len() {
        match chars[at] {
            '\\' => at += 1,
            '[' => {
                // A class: its `)` closes nothing (`[^)]`); a `]` first in it is a member.
                at += 1;
                if chars.get(at) == Some(&'^') {
                    at += 1;
                }
                if chars.get(at) == Some(&']') {
                    at += 1;
                }
                while at < chars.len() && chars[at] != ']' {
                    if chars[at] == '\\' {
                        at += 1;
                    }
                    at += 1;
                }
            }
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_triggers_read_as_written() {
        assert_eq!(readable("yaml.load("), "yaml.load(");
    }

    #[test]
    fn patterns_read_as_the_code_they_look_for() {
        assert_eq!(
            readable(r"regex:\byaml\.load\((?![^)]*Loader)"),
            "yaml.load( (a pattern)"
        );
        assert_eq!(
            readable(r"regex:subprocess\.\w+\([^)]*shell\s*=\s*True"),
            "pattern subprocess\\.\\w+\\([^)]*shell\\s*=\\s*True"
        );
        assert_eq!(readable(r"regex:\btodo!\("), "todo!( (a pattern)");
        assert_eq!(
            readable(r"regex:(?<!_)legacyHelper7\("),
            "legacyHelper7( (a pattern)"
        );
        assert_eq!(readable(r"regex:\bas\s+any\b"), "as any (a pattern)");
        assert_eq!(readable(r"regex:(?m)^\s*except\s*:"), "except: (a pattern)");
    }

    #[test]
    fn a_warning_names_the_trigger_with_what_it_is() {
        assert_eq!(labelled("shell=True"), "trigger `shell=True`");
        assert_eq!(
            labelled(r"regex:\byaml\.load\((?![^)]*Loader)"),
            "pattern `yaml.load(`"
        );
        assert_eq!(labelled(r"regex:a|b"), "pattern `a|b`");
    }

    #[test]
    fn alternatives_groups_and_classes_stay_patterns() {
        for pattern in [
            r"regex:a|b",
            r"regex:(ab)+",
            r"regex:[abc]x",
            r"regex:x{2}",
            r"regex:\n",
        ] {
            assert!(readable(pattern).starts_with("pattern "), "{pattern}");
        }
    }
}
