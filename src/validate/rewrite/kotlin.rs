//! Kotlin misreads of tree-sitter-kotlin-ng, undone before parsing.

use std::borrow::Cow;

use regex::Regex;

/// `content` with every Kotlin rewrite applied, in order; `comments` are its comments' byte
/// ranges as the bracket lexer found them (`None`: it could not read the file), found before the
/// `$$` prefixes are blanked (the lexer gives no verdict on such strings).
pub(crate) fn prepare(
    content: &str,
    comments: Option<Vec<std::ops::Range<usize>>>,
) -> Cow<'_, str> {
    let prepared = super::in_order(
        content,
        blank_multi_dollar_prefixes,
        &[blank_constructor_visibility],
    );
    match comments {
        Some(comments) if !comments.is_empty() => Cow::Owned(blank_comments(&prepared, &comments)),
        _ => prepared,
    }
}

/// The visibility words a primary constructor may carry.
const VISIBILITY: [&str; 4] = ["public", "private", "internal", "protected"];

/// A class's primary constructor on a line of its own below annotations, with a visibility
/// modifier (`public class Client` / `@JvmOverloads` / `public constructor(`, how ktfmt lays out
/// an annotated constructor) → the modifier becomes spaces: the grammar reads an annotation line
/// then `constructor` below a class header, but not a modifier between them. Only when one line
/// of annotations stands between the header (`… class Name`, nothing after the name) and
/// `constructor`, or the constructor's own line starts with them (two annotation lines the
/// grammar misreads with or without a modifier: left as they are).
fn blank_constructor_visibility(content: &str) -> Cow<'_, str> {
    if !content.contains("constructor") {
        return Cow::Borrowed(content);
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0;
    for (index, line) in lines.iter().enumerate() {
        if let Some((start, end)) = constructor_visibility(line)
            && below_a_class_header(&lines[..index], line.trim_start().starts_with('@'))
        {
            blanks.push((offset + start, offset + end));
        }
        offset += line.len();
    }
    if blanks.is_empty() {
        return Cow::Borrowed(content);
    }
    let mut out = content.to_string();
    for (start, end) in blanks {
        out.replace_range(start..end, &" ".repeat(end - start));
    }
    Cow::Owned(out)
}

/// The byte range of the visibility word before `constructor(` on `line`, when all before it is
/// indentation and annotations.
fn constructor_visibility(line: &str) -> Option<(usize, usize)> {
    let at = line.find("constructor")?;
    let after = line[at + "constructor".len()..].trim_start_matches([' ', '\t']);
    if !after.starts_with('(') {
        return None;
    }
    let before = line[..at].trim_end_matches([' ', '\t']);
    let word = VISIBILITY.iter().find(|word| before.ends_with(*word))?;
    let start = before.len() - word.len();
    let rest = line[..start].trim();
    let only_annotations = rest.is_empty() || rest.starts_with('@');
    let whole_word =
        start == 0 || !line[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_');
    (only_annotations && whole_word).then_some((start, before.len()))
}

/// Whether the constructor's line is under a class header (a line holding the word `class` that
/// ends with the class's name or its type parameters), with one annotation line between them,
/// or none when the constructor's own line starts with its annotations.
fn below_a_class_header(above: &[&str], annotated_here: bool) -> bool {
    let between = usize::from(!annotated_here);
    let Some(header) = above
        .len()
        .checked_sub(between + 1)
        .map(|index| above[index].trim())
    else {
        return false;
    };
    let annotations = above[above.len() - between..]
        .iter()
        .all(|line| line.trim_start().starts_with('@'));
    let names_a_class = header.split_whitespace().any(|word| word == "class");
    let ends_with_name = header.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '>');
    annotations && names_a_class && ends_with_name
}

/// Kotlin `$$"…"` / `$$"""…"""` (multi-dollar interpolation) → the prefix becomes spaces: a plain
/// string the grammar reads (its `$$name` reads as a `$` and an interpolation).
fn blank_multi_dollar_prefixes(content: &str) -> Cow<'_, str> {
    if !content.contains("$$\"") {
        return Cow::Borrowed(content);
    }
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let pattern =
        PATTERN.get_or_init(|| Regex::new(r#"(^|[^\w$"])(\$\$+)""#).expect("valid regex"));
    pattern.replace_all(content, |found: &regex::Captures<'_>| {
        format!("{}{}\"", &found[1], " ".repeat(found[2].len()))
    })
}

/// The text of every comment becomes spaces, its `//`, `/*`, `*/` and line breaks kept. The
/// grammar's scanner reads block comments itself, and what one holds can change how code far
/// above it is read: a KDoc example with `${…}` after a function whose receiver type is generic
/// (`Flow<T>.associate(crossinline transform: suspend (T) -> Pair<K, V>)`) made the grammar
/// report a missing name 20 lines up. A comment's text is never code, so blanking it changes
/// nothing a compiler reads; `comments` come from the bracket lexer, which knows strings.
fn blank_comments(content: &str, comments: &[std::ops::Range<usize>]) -> String {
    let mut bytes = content.as_bytes().to_vec();
    for comment in comments {
        let closes = content[comment.clone()].starts_with("/*");
        let inner = comment.start + 2..comment.end - if closes { 2 } else { 0 };
        for byte in &mut bytes[inner] {
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| content.to_string())
}
