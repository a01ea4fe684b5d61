//! Pull-request review comments as GitHub's REST API returns them
//! (`gh api repos/OWNER/REPO/pulls/comments --paginate`): raw serde types, converted once into
//! [`ReviewComment`].
//!
//! The export is a stream of JSON values: `--paginate` prints one array per page, one after
//! another; `--slurp` wraps the pages in one more array; a single comment object is accepted too.
//!
//! Invariants: a file that is not JSON, is cut off, or holds an item that is not a review
//! comment is an error naming the file and the item (1-based, in the file's order) — never a
//! partial import; nothing here judges a comment, it only reads it.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// Files larger than this are refused (an export of tens of thousands of comments is smaller).
const MAX_EXPORT_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ExportError {
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error("{path}: not JSON at line {line}, column {column}: {message}")]
    NotJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: cut off at line {line}, column {column} (an interrupted export? run `gh api … --paginate` again)"
    )]
    Truncated {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    #[error(
        "{path}: item {item} is not a pull-request review comment: {problem} (expected the objects `gh api repos/OWNER/REPO/pulls/comments --paginate` prints)"
    )]
    NotAComment {
        path: PathBuf,
        item: usize,
        problem: String,
    },
}

/// One review comment on a pull request's diff, as car uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReviewComment {
    /// GitHub's id of the comment (threads are told by it); `None` when the export lacks it.
    pub(crate) id: Option<u64>,
    /// `pull/12`: the pull request it was written on.
    pub(crate) pull: String,
    /// Project-relative path of the commented file.
    pub(crate) path: String,
    /// The last commented line in the file as it is now; `None` when the comment is outdated
    /// (the lines changed since).
    pub(crate) line: Option<usize>,
    /// The first and last commented line in the version the comment was written on.
    pub(crate) original_lines: Option<(usize, usize)>,
    /// The comment is on the diff's old side (removed lines).
    pub(crate) on_removed_lines: bool,
    /// On the whole file, not on lines.
    pub(crate) on_file: bool,
    /// The diff hunk up to the commented line, as the comment was written on it.
    pub(crate) diff_hunk: String,
    pub(crate) body: String,
    pub(crate) author: String,
    pub(crate) by_bot: bool,
    /// When it was written (Unix seconds; 0 when the export does not say).
    pub(crate) at: i64,
    pub(crate) url: String,
    /// Set for a reply in another comment's thread.
    pub(crate) in_reply_to: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct RawComment {
    id: Option<u64>,
    path: Option<String>,
    diff_hunk: Option<String>,
    body: Option<String>,
    line: Option<usize>,
    original_line: Option<usize>,
    original_start_line: Option<usize>,
    start_line: Option<usize>,
    side: Option<String>,
    subject_type: Option<String>,
    user: Option<RawUser>,
    created_at: Option<String>,
    html_url: Option<String>,
    pull_request_url: Option<String>,
    in_reply_to_id: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct RawUser {
    login: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Reads one export file.
pub(crate) fn read(path: &Path) -> Result<Vec<ReviewComment>, ExportError> {
    let bytes = crate::files::read_bounded(path, MAX_EXPORT_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    parse(path, &text)
}

/// Parses an export's text (see the module docs for the shapes).
pub(crate) fn parse(path: &Path, text: &str) -> Result<Vec<ReviewComment>, ExportError> {
    let mut items = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let value = value.map_err(|error| json_error(path, &error))?;
        flatten(value, &mut items);
    }
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            convert(item).map_err(|problem| not_a_comment(path, index + 1, problem))
        })
        .collect()
}

fn json_error(path: &Path, error: &serde_json::Error) -> ExportError {
    if error.is_eof() {
        ExportError::Truncated {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
        }
    } else {
        ExportError::NotJson {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        }
    }
}

fn not_a_comment(path: &Path, item: usize, problem: String) -> ExportError {
    ExportError::NotAComment {
        path: path.to_path_buf(),
        item,
        problem,
    }
}

/// Pages (arrays), pages of pages (`--slurp`) and single objects, in order.
fn flatten(value: Value, items: &mut Vec<Value>) {
    match value {
        Value::Array(list) => list.into_iter().for_each(|item| flatten(item, items)),
        other => items.push(other),
    }
}

fn convert(item: Value) -> Result<ReviewComment, String> {
    let Value::Object(_) = &item else {
        return Err(format!("a JSON {}, not an object", kind_of(&item)));
    };
    let raw: RawComment = serde_json::from_value(item)
        .map_err(|error| format!("a field has the wrong type: {error}"))?;
    let missing = |field: &str| format!("no \"{field}\"");
    let path = raw
        .path
        .filter(|path| !path.is_empty())
        .ok_or_else(|| missing("path"))?;
    let diff_hunk = raw.diff_hunk.ok_or_else(|| missing("diff_hunk"))?;
    let url = raw.html_url.ok_or_else(|| missing("html_url"))?;
    let pull = pull_of(raw.pull_request_url.as_deref(), &url)
        .ok_or_else(|| format!("no pull request number in {url:?}"))?;
    let user = raw.user;
    let author = user
        .as_ref()
        .and_then(|user| user.login.clone())
        .unwrap_or_default();
    let by_bot = user
        .as_ref()
        .and_then(|user| user.kind.as_deref())
        .is_some_and(|kind| kind.eq_ignore_ascii_case("bot"))
        || author.ends_with("[bot]");
    let last = raw.original_line.or(raw.line);
    let first = raw.original_start_line.or(raw.start_line).or(last);
    let original_lines = match (first, last) {
        (Some(first), Some(last)) if first <= last => Some((first, last)),
        (Some(_), Some(last)) => Some((last, last)),
        _ => None,
    };
    Ok(ReviewComment {
        id: raw.id,
        pull,
        path: path.trim_start_matches("./").to_string(),
        line: raw.line,
        original_lines,
        on_removed_lines: raw.side.as_deref() == Some("LEFT"),
        on_file: raw.subject_type.as_deref() == Some("file"),
        diff_hunk,
        body: raw.body.unwrap_or_default(),
        author,
        by_bot,
        at: raw
            .created_at
            .as_deref()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .map_or(0, |at| at.timestamp()),
        url,
        in_reply_to: raw.in_reply_to_id,
    })
}

/// `pull/12` from `…/pulls/12` (the API link) or `…/pull/12#discussion_r1` (the page link).
fn pull_of(api_url: Option<&str>, html_url: &str) -> Option<String> {
    let number_after = |url: &str, marker: &str| {
        let rest = &url[url.rfind(marker)? + marker.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (!digits.is_empty()).then_some(digits)
    };
    api_url
        .and_then(|url| number_after(url, "/pulls/"))
        .or_else(|| number_after(html_url, "/pull/"))
        .map(|number| format!("pull/{number}"))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn comment(extra: Value) -> Value {
        let mut base = json!({
            "path": "api/client.py", "line": 14, "original_line": 14, "side": "RIGHT",
            "diff_hunk": "@@ -1,2 +1,3 @@\n import requests\n+r = requests.get(url)",
            "body": "Always pass a timeout.",
            "user": {"login": "dana", "type": "User"},
            "created_at": "2026-03-02T10:00:00Z",
            "html_url": "https://github.com/acme/shop/pull/12#discussion_r101",
            "pull_request_url": "https://api.github.com/repos/acme/shop/pulls/12"
        });
        base.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        base
    }

    #[test]
    fn pages_one_after_another_and_slurped_pages_read_alike() {
        let page = json!([comment(json!({})), comment(json!({"line": null}))]);
        let paginated = format!("{page}\n{page}");
        let path = Path::new("comments.json");
        let read = parse(path, &paginated).unwrap();
        assert_eq!(read.len(), 4);
        assert_eq!(read[0].pull, "pull/12");
        assert_eq!(read[0].original_lines, Some((14, 14)));
        assert_eq!(read[1].line, None, "outdated");
        let slurped = json!([page, page]).to_string();
        assert_eq!(parse(path, &slurped).unwrap(), read);
        assert_eq!(
            parse(path, &comment(json!({})).to_string()).unwrap().len(),
            1
        );
    }

    #[test]
    fn bad_input_names_the_file_and_the_item() {
        let path = Path::new("comments.json");
        let cut = json!([comment(json!({}))]).to_string();
        let error = parse(path, &cut[..cut.len() - 20]).unwrap_err().to_string();
        assert!(
            error.starts_with("comments.json: cut off at line 1"),
            "{error}"
        );
        let error = parse(path, "<html>rate limited</html>")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("comments.json: not JSON at line 1, column 1"),
            "{error}"
        );
        let issue_comment =
            json!({"body": "LGTM", "html_url": "https://github.com/a/b/issues/3#c1"});
        let error = parse(
            path,
            &json!([comment(json!({})), issue_comment]).to_string(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("item 2 is not a pull-request review comment: no \"path\""),
            "{error}"
        );
        let error = parse(path, "[1]").unwrap_err().to_string();
        assert!(
            error.contains("item 1 is not a pull-request review comment: a JSON number"),
            "{error}"
        );
    }

    #[test]
    fn bots_replies_and_sides_are_read_as_written() {
        let path = Path::new("c.json");
        let bot = comment(json!({"user": {"login": "lint-fixer[bot]", "type": "Bot"}}));
        let reply = comment(json!({"in_reply_to_id": 101}));
        let left = comment(json!({"side": "LEFT", "original_start_line": 12}));
        let read = parse(path, &json!([bot, reply, left]).to_string()).unwrap();
        assert!(read[0].by_bot);
        assert_eq!(read[1].in_reply_to, Some(101));
        assert!(read[2].on_removed_lines);
        assert_eq!(read[2].original_lines, Some((12, 14)));
        assert_eq!(read[0].at, 1_772_445_600);
    }
}
