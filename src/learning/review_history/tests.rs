use std::collections::HashSet;

use super::*;

fn comment(body: &str) -> ReviewComment {
    ReviewComment {
        id: Some(7),
        pull: "pull/3".into(),
        path: "app/fetch.py".into(),
        line: Some(2),
        original_lines: Some((2, 2)),
        on_removed_lines: false,
        on_file: false,
        diff_hunk: "@@ -1,1 +1,2 @@\n import requests\n+r = requests.get(url)".into(),
        body: body.into(),
        author: "dana".into(),
        by_bot: false,
        at: 1,
        url: "https://github.com/a/b/pull/3#discussion_r7".into(),
        in_reply_to: None,
    }
}

const SUGGESTION: &str = "Pass a timeout.\n```suggestion\nr = requests.get(url, timeout=5)\n```";

#[test]
fn a_suggestion_pairs_the_written_line_with_the_suggested_one() {
    let read = read(&comment(SUGGESTION), &mut HashSet::new()).unwrap();
    assert_eq!(read.written, "r = requests.get(url)");
    assert_eq!(read.suggested, "r = requests.get(url, timeout=5)");
    assert_eq!(why_of(&comment(SUGGESTION)), "Pass a timeout.");
    assert_eq!(
        why_of(&comment("```suggestion\nx\n```")),
        "Reviewers suggested this change on the team's pull requests."
    );
}

#[test]
fn what_is_no_evidence_says_why() {
    let skipped = |comment: ReviewComment| read(&comment, &mut HashSet::new()).unwrap_err();
    assert_eq!(skipped(comment("Please add a test.")), Skipped::FreeText);
    let mut reply = comment("Done.");
    reply.in_reply_to = Some(6);
    assert_eq!(skipped(reply), Skipped::Reply);
    let mut bot = comment(SUGGESTION);
    bot.by_bot = true;
    assert_eq!(skipped(bot), Skipped::Bot);
    let mut on_file = comment(SUGGESTION);
    on_file.on_file = true;
    assert_eq!(skipped(on_file), Skipped::OnFile);
    let mut wide = comment(SUGGESTION);
    wide.original_lines = Some((1, 5));
    assert_eq!(skipped(wide), Skipped::UnreadableHunk);
    assert_eq!(
        skipped(comment("```suggestion\nr = requests.get(url)\n```")),
        Skipped::NoChange
    );
}

#[test]
fn a_thread_counts_once() {
    let mut threads = HashSet::new();
    assert!(read(&comment(SUGGESTION), &mut threads).is_ok());
    let mut refined = comment("```suggestion\nr = requests.get(url, timeout=3)\n```");
    refined.id = Some(8);
    refined.in_reply_to = Some(7);
    assert_eq!(
        read(&refined, &mut threads).unwrap_err(),
        Skipped::LaterInThread
    );
    let mut other_pull = comment(SUGGESTION);
    other_pull.pull = "pull/4".into();
    assert!(read(&other_pull, &mut threads).is_ok());
}
