//! A free-text review comment read by the configured reviewer model (`learn-from-reviews
//! --with-model`): the model is shown the commented lines and the comment and must answer with
//! one line as written and the same line as the reviewer asks it to be, or say that the comment
//! asks for no such change. The answer is verified before it is evidence: the line as written
//! must be one of the commented lines, copied, and the fixed line must differ from it. What
//! passes is a suggested change like a ```` ```suggestion ```` block, and goes through the same
//! synthesis and verification; nothing the model says is kept otherwise.

use serde::Deserialize;

use super::Skipped;
use super::github::ReviewComment;
use super::suggestion::Suggested;

/// The prompt for one comment on `written` (its commented lines, as written).
pub(crate) fn prompt(comment: &ReviewComment, written: &str) -> String {
    format!(
        "A reviewer left the comment below on a pull request, on these lines of {path}.\n\
         Does the comment ask for a concrete change of one of these lines, one that can be shown as \
         the line as written and the same line as the reviewer wants it?\n\
         Answer with one JSON object and nothing else:\n\
         {{\"change\": true, \"bad\": \"<one of the lines below, copied exactly>\", \"good\": \"<that line as the reviewer asks it to be>\"}}\n\
         or {{\"change\": false}} when it asks for no concrete change of a line (a question, \
         praise, a design discussion, a change somewhere else).\n\n\
         <lines>\n{written}\n</lines>\n\n<comment>\n{body}\n</comment>\n",
        path = comment.path,
        body = comment.body.trim(),
    )
}

/// The model's answer, as asked.
#[derive(Debug, Deserialize)]
struct Answer {
    change: bool,
    #[serde(default)]
    bad: String,
    #[serde(default)]
    good: String,
}

/// The change the model read in the comment, verified against the commented lines; or why
/// there is none.
pub(crate) fn read(answer: &str, written: &str) -> Result<Suggested, Skipped> {
    let object = json_object(answer).ok_or(Skipped::ModelUnreadable)?;
    let answer: Answer = serde_json::from_str(object).map_err(|_| Skipped::ModelUnreadable)?;
    if !answer.change {
        return Err(Skipped::ModelNoChange);
    }
    let bad = answer.bad.trim();
    let Some(line) = written
        .lines()
        .find(|line| !bad.is_empty() && line.trim() == bad)
    else {
        return Err(Skipped::ModelUnverified);
    };
    if answer.good.trim() == bad {
        return Err(Skipped::NoChange);
    }
    // The fixed line keeps the written line's indentation: the model was asked for the line.
    let indent = &line[..line.len() - line.trim_start().len()];
    Ok(Suggested {
        written: line.to_string(),
        suggested: format!("{indent}{}", answer.good.trim()),
    })
}

/// The first `{` to the last `}`: models wrap JSON in prose or code fences.
fn json_object(answer: &str) -> Option<&str> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    (start < end).then(|| &answer[start..=end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITTEN: &str = "    data = yaml.load(text)\n    return data";

    #[test]
    fn a_change_of_a_commented_line_is_read_with_its_indentation() {
        let answer = "Sure:\n```json\n{\"change\": true, \"bad\": \"data = yaml.load(text)\", \"good\": \"data = yaml.safe_load(text)\"}\n```";
        let read = read(answer, WRITTEN).unwrap();
        assert_eq!(read.written, "    data = yaml.load(text)");
        assert_eq!(read.suggested, "    data = yaml.safe_load(text)");
    }

    #[test]
    fn what_the_model_cannot_back_with_the_lines_is_no_evidence() {
        let cases = [
            ("{\"change\": false}", Skipped::ModelNoChange),
            ("I think it is fine.", Skipped::ModelUnreadable),
            ("{\"change\": \"yes\"}", Skipped::ModelUnreadable),
            (
                "{\"change\": true, \"bad\": \"data = yaml.load(stream)\", \"good\": \"x\"}",
                Skipped::ModelUnverified,
            ),
            (
                "{\"change\": true, \"bad\": \"\", \"good\": \"x\"}",
                Skipped::ModelUnverified,
            ),
            (
                "{\"change\": true, \"bad\": \"return data\", \"good\": \"return data\"}",
                Skipped::NoChange,
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(read(answer, WRITTEN), Err(expected), "{answer}");
        }
    }
}
