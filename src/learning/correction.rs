//! A person's correction of what the agent wrote, found in a change someone else made to a file
//! the agent wrote ([`ChangedByOthers`], reported by the session's store): a line the agent added
//! within the correction window that the change replaced or removed (`A → B`). Whether the
//! change is really a person's is [`crate::learning::from_correction`]'s to decide.
//!
//! Invariants: only the agent's own recent lines count; a line the change only moved is no
//! correction (the diff pairs it with itself); the number of lines the change touched is kept, so
//! a whole-file rewrite (a generator's run) can be told from a person's hand.

use crate::session::authored::ChangedByOthers;
use crate::session::changed_lines::{LineChange, changed_lines};

/// A line the agent wrote that someone else changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Correction {
    pub(crate) session: String,
    /// Project-relative path.
    pub(crate) file: String,
    /// `line` is the line's number as the agent left it, `old` what the agent wrote (`A`), `new`
    /// the person's version (`B`).
    pub(crate) change: LineChange,
    /// The file as the person left it.
    pub(crate) content: String,
    /// When the correction was seen.
    pub(crate) at: i64,
    /// How many lines the whole change touched, and how many lines the file had before it.
    pub(crate) changed_lines: usize,
    pub(crate) total_lines: usize,
    /// git's log of HEAD's moves when car last saw the file (to tell what git brought).
    pub(crate) head_log: Option<u64>,
}

/// The corrections in one change someone else made.
pub(crate) fn corrections(changed: &ChangedByOthers) -> Vec<Correction> {
    let changes = changed_lines(&changed.previous, &changed.content);
    let changed_count = changes.len();
    let total_lines = changed.previous.lines().count();
    changes
        .into_iter()
        .filter(|change| {
            changed
                .agent_lines
                .iter()
                .any(|line| line == change.old.trim())
        })
        .map(|change| Correction {
            session: changed.session.clone(),
            file: changed.file.clone(),
            change,
            content: changed.content.clone(),
            at: changed.at,
            changed_lines: changed_count,
            total_lines,
            head_log: changed.head_log,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(previous: &str, content: &str, agent_lines: &[&str]) -> ChangedByOthers {
        ChangedByOthers {
            session: "s1".into(),
            file: "tls.py".into(),
            previous: previous.into(),
            content: content.into(),
            agent_lines: agent_lines.iter().map(|line| line.to_string()).collect(),
            head_log: None,
            at: 1,
        }
    }

    #[test]
    fn the_agents_lines_that_changed_are_corrections() {
        let found = corrections(&changed(
            "import ssl\nctx.check_hostname = False\nctx.verify_mode = 0\n",
            "import ssl\nctx.check_hostname = True\n",
            &["ctx.check_hostname = False", "ctx.verify_mode = 0"],
        ));
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].change.old, "ctx.check_hostname = False");
        assert_eq!(found[0].change.new, "ctx.check_hostname = True");
        assert_eq!(
            (found[1].change.old.as_str(), found[1].change.new.as_str()),
            ("ctx.verify_mode = 0", ""),
            "a removed line is reported with no new version"
        );
        assert_eq!((found[0].changed_lines, found[0].total_lines), (2, 3));
    }

    #[test]
    fn lines_the_agent_did_not_write_are_not_its_corrections() {
        assert!(corrections(&changed("a = 1\nb = 2\n", "a = 1\nb = 3\n", &["a = 1"])).is_empty());
    }
}
