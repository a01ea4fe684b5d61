//! Minimal edits of a user's JSON file: car changes what it means to change and nothing else.
//!
//! [`JsonText::parse`] reads a JSON text (comments allowed, as in Gemini CLI's settings) into a
//! tree of byte spans; [`JsonText::rewrite`] produces the text of an updated value by keeping the
//! original bytes of every part that did not change, re-using the file's own separators and
//! indentation for what is inserted, and rendering only new or replaced values.
//!
//! Invariants:
//! - A value equal to the original yields the original text, byte for byte.
//! - Inserting an entry and then removing it restores the original bytes (members are appended
//!   after the last one with the container's own separator; removal takes that separator away
//!   again), so `car install` followed by `car uninstall` leaves a file as it was.
//! - Keys keep their original order; new keys go after the existing ones.

use serde_json::{Map, Value};

pub(crate) mod jsonc;
mod parse;

use parse::Parser;

/// Where a JSON text is not valid (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub(crate) struct SyntaxError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

/// A parsed JSON text that remembers where every value sits.
#[derive(Debug)]
pub(crate) struct JsonText<'a> {
    text: &'a str,
    root: Node,
    style: Style,
}

#[derive(Debug)]
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar(Value),
}

#[derive(Debug)]
struct Member {
    key: String,
    /// Where the key's opening quote is.
    start: usize,
    /// Just after the key's closing quote.
    key_end: usize,
    value: Node,
}

/// The file's own habits, for text car inserts.
#[derive(Debug, Clone)]
struct Style {
    /// One level of indentation (`"  "`, `"    "`, `"\t"`).
    unit: String,
    /// Between a key and its value (`": "` or `":"`).
    colon: String,
    /// Between members on one line (`", "` or `","`).
    comma: String,
    newline: &'static str,
}

impl<'a> JsonText<'a> {
    pub(crate) fn parse(text: &'a str) -> Result<JsonText<'a>, SyntaxError> {
        // Comments are read by the one JSON-with-comments reader and blanked, byte for byte: the
        // spans the parser records in the blanked text are spans of `text`, which keeps them.
        let blanked = jsonc::without_comments(text);
        let mut parser = Parser {
            text: &blanked.text,
            original: text,
            at: 0,
        };
        let root = parser.document();
        match blanked.unterminated_comment {
            // The first thing wrong is reported: an error before the comment, else the comment.
            Some(at) if root.is_ok() || parser.at >= at => {
                parser.at = at;
                Err(parser.error("unterminated comment"))
            }
            _ => {
                let root = root?;
                let style = Style::detect(text, &root);
                Ok(JsonText { text, root, style })
            }
        }
    }

    /// The value the text holds.
    pub(crate) fn value(&self) -> Value {
        to_value(&self.root)
    }

    /// The text of `updated`, keeping every unchanged byte of the original.
    pub(crate) fn rewrite(&self, updated: &Value) -> String {
        let mut out = String::with_capacity(self.text.len() + 256);
        out.push_str(&self.text[..self.root.start]);
        out.push_str(&self.render(&self.root, updated));
        out.push_str(&self.text[self.root.end..]);
        out
    }

    fn render(&self, node: &Node, updated: &Value) -> String {
        if equal(node, updated) {
            return self.text[node.start..node.end].to_string();
        }
        match (&node.kind, updated) {
            (Kind::Object(members), Value::Object(map)) => self.render_object(node, members, map),
            (Kind::Array(elements), Value::Array(list)) => self.render_array(node, elements, list),
            _ => self.fresh(updated, self.indent_of(node.start), self.is_multiline(node)),
        }
    }

    fn render_object(&self, node: &Node, members: &[Member], map: &Map<String, Value>) -> String {
        let mut items = Vec::new();
        for (index, member) in members.iter().enumerate() {
            // A repeated key: only its last occurrence counts (as for every JSON reader).
            if members[index + 1..]
                .iter()
                .any(|later| later.key == member.key)
            {
                continue;
            }
            if let Some(value) = map.get(&member.key) {
                let mut text = self.text[member.start..member.value.start].to_string();
                text.push_str(&self.render(&member.value, value));
                items.push(Item::Old(index, text));
            }
        }
        let child_indent = self.child_indent(node, members.first().map(|m| m.start));
        let children: Vec<&Node> = members.iter().map(|member| &member.value).collect();
        let multiline = self.lays_out_multiline(node, &children);
        for (key, value) in map {
            if !members.iter().any(|member| &member.key == key) {
                let mut text = serde_json::to_string(key).unwrap_or_default();
                text.push_str(&self.style.colon);
                text.push_str(&self.fresh(value, child_indent.clone(), multiline));
                items.push(Item::New(text));
            }
        }
        let starts: Vec<(usize, usize)> = members.iter().map(|m| (m.start, m.value.end)).collect();
        self.assemble(node, &starts, items)
    }

    fn render_array(&self, node: &Node, elements: &[Node], list: &[Value]) -> String {
        let child_indent = self.child_indent(node, elements.first().map(|e| e.start));
        let children: Vec<&Node> = elements.iter().collect();
        let multiline = self.lays_out_multiline(node, &children);
        let items = align(elements, list)
            .into_iter()
            .map(|step| match step {
                Step::Keep(old, new) => Item::Old(old, self.render(&elements[old], &list[new])),
                Step::Insert(new) => {
                    Item::New(self.fresh(&list[new], child_indent.clone(), multiline))
                }
            })
            .collect();
        let spans: Vec<(usize, usize)> = elements.iter().map(|e| (e.start, e.end)).collect();
        self.assemble(node, &spans, items)
    }

    /// Joins the items of a container, re-using the original separators around kept items.
    fn assemble(&self, node: &Node, spans: &[(usize, usize)], items: Vec<Item>) -> String {
        let open = &self.text[node.start..node.start + 1];
        let close = &self.text[node.end - 1..node.end];
        if items.is_empty() {
            return format!("{open}{close}");
        }
        let mut out = String::from(open);
        if spans.is_empty() {
            // An empty container gains its first items: lay them out the way the file does.
            let multiline = self.text.contains('\n');
            let indent = self.indent_of(node.start);
            let (lead, separator, trail) = if multiline {
                let inner = format!("{indent}{}", self.style.unit);
                let nl = self.style.newline;
                (
                    format!("{nl}{inner}"),
                    format!(",{nl}{inner}"),
                    format!("{nl}{indent}"),
                )
            } else {
                (String::new(), self.style.comma.clone(), String::new())
            };
            out.push_str(&lead);
            let texts: Vec<String> = items.into_iter().map(Item::into_text).collect();
            out.push_str(&texts.join(&separator));
            out.push_str(&trail);
            out.push_str(close);
            return out;
        }
        let separator_before =
            |index: usize| -> &str { &self.text[spans[index - 1].1..spans[index].0] };
        let default_separator = if spans.len() >= 2 {
            separator_before(spans.len() - 1).to_string()
        } else {
            format!(",{}", &self.text[node.start + 1..spans[0].0])
        };
        out.push_str(&self.text[node.start + 1..spans[0].0]);
        let mut previous: Option<usize> = None;
        for (position, item) in items.into_iter().enumerate() {
            if position > 0 {
                match &item {
                    Item::Old(index, _) if *index > 0 && previous.is_some() => {
                        out.push_str(separator_before(*index));
                    }
                    _ => out.push_str(&default_separator),
                }
            }
            previous = match &item {
                Item::Old(index, _) => Some(*index),
                Item::New(_) => previous,
            };
            out.push_str(&item.into_text());
        }
        let last_end = spans[spans.len() - 1].1;
        out.push_str(&self.text[last_end..node.end - 1]);
        out.push_str(close);
        out
    }

    /// A value car writes from scratch, laid out like its surroundings.
    fn fresh(&self, value: &Value, indent: String, multiline: bool) -> String {
        let mut out = String::new();
        if multiline {
            write_pretty(&mut out, value, &indent, &self.style);
        } else {
            write_compact(&mut out, value, &self.style);
        }
        out
    }

    /// The indentation of the line `offset` is on.
    fn indent_of(&self, offset: usize) -> String {
        let line_start = self.text[..offset].rfind('\n').map_or(0, |at| at + 1);
        self.text[line_start..offset]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// The indentation of a container's children: the first child's, else one unit deeper.
    fn child_indent(&self, node: &Node, first_child: Option<usize>) -> String {
        match first_child {
            Some(start) if self.text[node.start..start].contains('\n') => self.indent_of(start),
            _ => format!("{}{}", self.indent_of(node.start), self.style.unit),
        }
    }

    fn is_multiline(&self, node: &Node) -> bool {
        self.text[node.start..node.end].contains('\n')
    }

    /// Whether new children are laid out over several lines: as the container's own children
    /// are (one-line objects beside each other stay one-line), or for an empty container, as the
    /// file does elsewhere.
    fn lays_out_multiline(&self, node: &Node, children: &[&Node]) -> bool {
        if children.is_empty() {
            return self.text.contains('\n');
        }
        let containers: Vec<&&Node> = children
            .iter()
            .filter(|child| !matches!(child.kind, Kind::Scalar(_)))
            .collect();
        if !containers.is_empty() && containers.iter().all(|child| !self.is_multiline(child)) {
            return false;
        }
        self.is_multiline(node)
    }
}

/// The text of `updated`: `original` edited minimally when it is JSON car can read, else pretty
/// JSON (a new file, or one that was empty).
pub(crate) fn rewrite_text(original: Option<&str>, updated: &Value) -> String {
    if let Some(parsed) = original
        .filter(|text| !text.trim().is_empty())
        .and_then(|text| JsonText::parse(text).ok())
    {
        return parsed.rewrite(updated);
    }
    let mut text = serde_json::to_string_pretty(updated).unwrap_or_default();
    text.push('\n');
    text
}

enum Item {
    /// An original child (its index) with its possibly edited text.
    Old(usize, String),
    New(String),
}

impl Item {
    fn into_text(self) -> String {
        match self {
            Item::Old(_, text) | Item::New(text) => text,
        }
    }
}

enum Step {
    /// Original element `.0` becomes new element `.1` (recursively edited when they differ).
    Keep(usize, usize),
    Insert(usize),
}

/// Matches original array elements to new ones: equal prefixes and suffixes, then the longest
/// common run of equal elements in the middle; unmatched elements of the same kind in one gap
/// are edited in place, the rest removed or inserted.
fn align(old: &[Node], new: &[Value]) -> Vec<Step> {
    let mut prefix = 0;
    while prefix < old.len() && prefix < new.len() && equal(&old[prefix], &new[prefix]) {
        prefix += 1;
    }
    let mut suffix = 0;
    while suffix < old.len() - prefix
        && suffix < new.len() - prefix
        && equal(&old[old.len() - 1 - suffix], &new[new.len() - 1 - suffix])
    {
        suffix += 1;
    }
    let old_mid = prefix..old.len() - suffix;
    let new_mid = prefix..new.len() - suffix;
    let mut anchors = common_run(&old[old_mid.clone()], &new[new_mid.clone()]);
    anchors.iter_mut().for_each(|(o, n)| {
        *o += prefix;
        *n += prefix;
    });
    anchors.push((old_mid.end, new_mid.end));
    let mut steps: Vec<Step> = (0..prefix).map(|i| Step::Keep(i, i)).collect();
    let (mut old_at, mut new_at) = (prefix, prefix);
    for (old_anchor, new_anchor) in anchors {
        let gap_old = old_at..old_anchor;
        let mut gap_new = new_at..new_anchor;
        for old_index in gap_old {
            if let Some(new_index) = gap_new.clone().next()
                && same_kind(&old[old_index], &new[new_index])
            {
                steps.push(Step::Keep(old_index, new_index));
                gap_new.next();
            }
        }
        steps.extend(gap_new.map(Step::Insert));
        if old_anchor < old_mid.end {
            steps.push(Step::Keep(old_anchor, new_anchor));
        }
        (old_at, new_at) = (old_anchor + 1, new_anchor + 1);
    }
    let tail = old.len() - suffix;
    steps.extend((0..suffix).map(|i| Step::Keep(tail + i, new.len() - suffix + i)));
    steps
}

/// Pairs of equal elements in order (a longest common subsequence; none when the lists are too
/// long for the quadratic search, where the edit falls back to in-place pairing).
fn common_run(old: &[Node], new: &[Value]) -> Vec<(usize, usize)> {
    if old.is_empty() || new.is_empty() || old.len() * new.len() > 250_000 {
        return Vec::new();
    }
    let (n, m) = (old.len(), new.len());
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i * (m + 1) + j] = if equal(&old[i], &new[j]) {
                table[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                table[(i + 1) * (m + 1) + j].max(table[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if equal(&old[i], &new[j]) {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if table[(i + 1) * (m + 1) + j] >= table[i * (m + 1) + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

fn same_kind(node: &Node, value: &Value) -> bool {
    matches!(
        (&node.kind, value),
        (Kind::Object(_), Value::Object(_)) | (Kind::Array(_), Value::Array(_))
    )
}

/// Whether a parsed node holds exactly `value` (objects compare as maps: order is not meaning).
fn equal(node: &Node, value: &Value) -> bool {
    match (&node.kind, value) {
        (Kind::Scalar(scalar), value) => scalar == value,
        (Kind::Array(elements), Value::Array(list)) => {
            elements.len() == list.len() && elements.iter().zip(list).all(|(e, v)| equal(e, v))
        }
        (Kind::Object(members), Value::Object(map)) => {
            let mut seen = 0;
            for (index, member) in members.iter().enumerate() {
                if members[index + 1..]
                    .iter()
                    .any(|later| later.key == member.key)
                {
                    continue;
                }
                seen += 1;
                match map.get(&member.key) {
                    Some(value) if equal(&member.value, value) => {}
                    _ => return false,
                }
            }
            seen == map.len()
        }
        _ => false,
    }
}

fn to_value(node: &Node) -> Value {
    match &node.kind {
        Kind::Scalar(value) => value.clone(),
        Kind::Array(elements) => Value::Array(elements.iter().map(to_value).collect()),
        Kind::Object(members) => Value::Object(
            members
                .iter()
                .map(|member| (member.key.clone(), to_value(&member.value)))
                .collect(),
        ),
    }
}

impl Style {
    fn detect(text: &str, root: &Node) -> Style {
        let unit = text
            .lines()
            .map(|line| {
                line.chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect::<String>()
            })
            .find(|indent| !indent.is_empty())
            .unwrap_or_else(|| "  ".to_string());
        let (mut colon, mut comma) = (": ".to_string(), ", ".to_string());
        if let Some((between, next)) = first_member(text, root) {
            if between.contains(':') && !between.contains(['\n', '/']) {
                colon = between;
            }
            if let Some(separator) = next
                && !separator.contains('\n')
            {
                comma = separator;
            }
        }
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Style {
            unit,
            colon,
            comma,
            newline,
        }
    }
}

/// For the first object in the text: the text between its first key and value, and the
/// separator to its second member.
fn first_member(text: &str, node: &Node) -> Option<(String, Option<String>)> {
    match &node.kind {
        Kind::Object(members) if !members.is_empty() => {
            let first = &members[0];
            let colon = text[first.key_end..first.value.start].to_string();
            let separator = members
                .get(1)
                .map(|second| text[first.value.end..second.start].to_string());
            Some((colon, separator))
        }
        Kind::Object(_) | Kind::Scalar(_) => None,
        Kind::Array(elements) => elements.iter().find_map(|e| first_member(text, e)),
    }
}

fn write_compact(out: &mut String, value: &Value, style: &Style) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (index, (key, value)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(&style.comma);
                }
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push_str(&style.colon);
                write_compact(out, value, style);
            }
            out.push('}');
        }
        Value::Array(list) if !list.is_empty() => {
            out.push('[');
            for (index, value) in list.iter().enumerate() {
                if index > 0 {
                    out.push_str(&style.comma);
                }
                write_compact(out, value, style);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn write_pretty(out: &mut String, value: &Value, indent: &str, style: &Style) {
    let inner = format!("{indent}{}", style.unit);
    let nl = style.newline;
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (index, (key, value)) in map.iter().enumerate() {
                out.push_str(if index > 0 { "," } else { "" });
                out.push_str(nl);
                out.push_str(&inner);
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push_str(&style.colon);
                write_pretty(out, value, &inner, style);
            }
            out.push_str(nl);
            out.push_str(indent);
            out.push('}');
        }
        Value::Array(list) if !list.is_empty() => {
            out.push('[');
            for (index, value) in list.iter().enumerate() {
                out.push_str(if index > 0 { "," } else { "" });
                out.push_str(nl);
                out.push_str(&inner);
                write_pretty(out, value, &inner, style);
            }
            out.push_str(nl);
            out.push_str(indent);
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests;
