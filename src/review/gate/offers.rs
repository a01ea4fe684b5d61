//! The P3 offer list: minor findings from every review round of the session plus lesson warnings
//! below `offerWeightThreshold`, de-duplicated, each with `file:line`. The user decides; nothing
//! here ever blocks. Shown once in the `systemMessage` of the stop that is finally allowed, and
//! any time with `car review offers`.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::lesson_warning::Warning;
use crate::review::blocking::Blocking;
use crate::session::snapshot::Snapshot;
use crate::settings::Settings;

/// One suggestion for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Offer {
    /// What identifies it across rounds (for de-duplication and "shown once").
    pub(crate) key: String,
    /// `file:line`.
    pub(crate) location: String,
    pub(crate) text: String,
    /// "review" or "lesson".
    pub(crate) source: String,
    /// Why a finding the reviewer called P1/P2 does not block; `None` for a P3 or a lesson.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) why_not_blocking: Option<String>,
}

/// Every offer of the session, first seen first; `warnings` are the session's lesson warnings
/// that still stand ([`crate::review::gate::standing`]).
pub(crate) fn collect(
    snapshot: &Snapshot,
    warnings: &[Warning],
    settings: &Settings,
) -> Vec<Offer> {
    let mut seen = BTreeSet::new();
    let mut offers = Vec::new();
    for (finding, not_blocking) in snapshot.non_blocking(settings.minimum_blocking_severity) {
        let offer = Offer {
            key: format!("finding|{}", finding.key()),
            location: finding.location(),
            text: if finding.suggestion.is_empty() {
                finding.title.clone()
            } else {
                format!("{} — {}", finding.title, finding.suggestion)
            },
            source: "review".into(),
            why_not_blocking: not_blocking.why(),
        };
        if seen.insert(offer.key.clone()) {
            offers.push(offer);
        }
    }
    for warning in warnings {
        if warning.weight >= settings.offer_weight_threshold {
            continue;
        }
        let location = if warning.line > 0 {
            format!("{}:{}", warning.file, warning.line)
        } else {
            warning.file.clone()
        };
        let offer = Offer {
            key: format!("lesson|{}|{location}", warning.lesson_id),
            location,
            text: format!("lesson (weight {}): {}", warning.weight, warning.lesson),
            source: "lesson".into(),
            why_not_blocking: None,
        };
        if seen.insert(offer.key.clone()) {
            offers.push(offer);
        }
    }
    offers
}

/// Offers not shown to the user yet.
pub(crate) fn unshown(
    snapshot: &Snapshot,
    warnings: &[Warning],
    settings: &Settings,
) -> Vec<Offer> {
    collect(snapshot, warnings, settings)
        .into_iter()
        .filter(|offer| !snapshot.shown_offers.contains(&offer.key))
        .collect()
}

/// The text blocks for people: the P3 offers, then the findings reported as blocking that do not
/// block, each with why.
pub(crate) fn render(offers: &[Offer]) -> String {
    render_at_most(offers, usize::MAX, usize::MAX)
}

/// Offers shown in a hook answer: at most this many lines, the rest behind `car review offers`.
const SHOWN_IN_HOOK: usize = 20;

/// The most characters of one offer or known limit a hook answer shows (a reviewer's 20 kB title
/// would make a 20 kB `systemMessage`); `car review offers` shows every character.
const TEXT_IN_HOOK: usize = 300;

/// [`render`] bounded for a hook's `systemMessage`.
pub(crate) fn render_capped(offers: &[Offer]) -> String {
    render_at_most(offers, SHOWN_IN_HOOK, TEXT_IN_HOOK)
}

/// Each block's header counts all its offers; at most `limit` offer lines in all, each text cut
/// at `chars` characters.
fn render_at_most(offers: &[Offer], limit: usize, chars: usize) -> String {
    let (reasoned, minor): (Vec<&Offer>, Vec<&Offer>) = offers
        .iter()
        .partition(|offer| offer.why_not_blocking.is_some());
    let mut room = limit;
    let mut blocks = Vec::new();
    for (header, group) in [
        (
            format!("P3 offers ({}; not fixed, you decide):", minor.len()),
            minor,
        ),
        (
            format!(
                "Not blocking ({}; reported as P1/P2, not fixed, you decide):",
                reasoned.len()
            ),
            reasoned,
        ),
    ] {
        if group.is_empty() || room == 0 {
            continue;
        }
        let mut text = header;
        for offer in group.iter().take(room) {
            let shown = cut(&offer.text, chars);
            text.push_str(&format!("\n- {}: {shown}", offer.location));
            if let Some(why) = &offer.why_not_blocking {
                text.push_str(&format!(" ({})", cut(why, chars)));
            }
        }
        room -= group.len().min(room);
        blocks.push(text);
    }
    let shown = limit.min(offers.len());
    if shown < offers.len() {
        blocks.push(format!(
            "… and {} more: `car review offers`",
            offers.len() - shown
        ));
    }
    blocks.join("\n")
}

/// The known limits block for people.
pub(crate) fn render_known_limits(limits: &[(String, String)]) -> String {
    render_limits_at_most(limits, usize::MAX)
}

/// [`render_known_limits`] bounded for a hook's `systemMessage`.
pub(crate) fn render_known_limits_capped(limits: &[(String, String)]) -> String {
    render_limits_at_most(limits, TEXT_IN_HOOK)
}

fn render_limits_at_most(limits: &[(String, String)], chars: usize) -> String {
    let mut text = String::from("Known limits (deferred, not fixed):");
    for (what, reason) in limits {
        text.push_str(&format!("\n- {}: {}", cut(what, chars), cut(reason, chars)));
    }
    text
}

/// `text` cut at `chars` characters, saying how many more there are and where they are.
fn cut(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= chars {
        return std::borrow::Cow::Borrowed(text);
    }
    let kept: String = text.chars().take(chars).collect();
    std::borrow::Cow::Owned(format!(
        "{kept}… ({} more characters: `car review offers`)",
        count - chars
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson_warning::Warning;
    use crate::review::findings::Review;
    use crate::session::event::{Event, EventRecord};

    #[test]
    fn p3_and_light_lessons_deduplicated() {
        let review = Review::parse_text(
            r#"{"findings":[{"id":"F1","severity":"P3","file":"a.py","line":3,"title":"Name x better","suggestion":"rename to count"}]}"#,
        )
        .unwrap();
        let warning = |weight, line| Warning {
            lesson_id: "L1".into(),
            weight,
            lesson: "use textSecondary".into(),
            trigger: "secondaryText".into(),
            file: "a.swift".into(),
            line,
            origin: None,
        };
        let mut records = Vec::new();
        for round in ["R1", "R2"] {
            records.push(Event::ReviewCompleted {
                review: round.into(),
                files: Default::default(),
                findings: review.findings.clone(),
                known_limits: vec![],
                notes: vec![],
            });
        }
        records.push(Event::LessonWarned {
            file: "a.swift".into(),
            warnings: vec![warning(2, 4), warning(2, 4), warning(5, 9)],
        });
        let records = records
            .into_iter()
            .map(|event| EventRecord {
                ts: 1,
                session: "s".into(),
                event,
            })
            .collect();
        let snapshot = Snapshot::from_records("s", records, 0);
        let offers = collect(&snapshot, &snapshot.warnings, &Settings::default());
        assert_eq!(offers.len(), 2, "{offers:?}");
        assert_eq!(offers[0].location, "a.py:3");
        assert_eq!(offers[1].location, "a.swift:4");
        assert!(render(&offers).contains("- a.py:3: Name x better — rename to count"));
        let many: Vec<Offer> = (0..25)
            .map(|index| Offer {
                key: index.to_string(),
                location: format!("a.py:{index}"),
                text: "t".into(),
                source: "review".into(),
                why_not_blocking: None,
            })
            .collect();
        let capped = render_capped(&many);
        assert!(capped.starts_with("P3 offers (25;"), "{capped}");
        assert!(capped.ends_with("… and 5 more: `car review offers`"));
        assert_eq!(capped.lines().count(), 22);
    }

    #[test]
    fn findings_that_do_not_block_are_listed_apart_with_why() {
        let offer = |index: usize, why: Option<&str>| Offer {
            key: index.to_string(),
            location: format!("a.py:{index}"),
            text: "t".into(),
            source: "review".into(),
            why_not_blocking: why.map(str::to_string),
        };
        let offers = [offer(1, None), offer(2, Some("it names no wrong output"))];
        assert_eq!(
            render(&offers),
            "P3 offers (1; not fixed, you decide):\n- a.py:1: t\n\
             Not blocking (1; reported as P1/P2, not fixed, you decide):\n- a.py:2: t (it names no wrong output)"
        );
        let many: Vec<Offer> = (0..30)
            .map(|index| offer(index, (index >= 15).then_some("why")))
            .collect();
        let capped = render_capped(&many);
        assert!(capped.contains("P3 offers (15;"), "{capped}");
        assert!(capped.contains("Not blocking (15;"), "{capped}");
        assert!(
            capped.ends_with("… and 10 more: `car review offers`"),
            "{capped}"
        );
    }

    #[test]
    fn a_hook_shows_a_long_text_cut_with_a_note_and_the_command_shows_it_whole() {
        let offer = Offer {
            key: "k".into(),
            location: "a.py:1".into(),
            text: "t".repeat(20_000),
            source: "review".into(),
            why_not_blocking: None,
        };
        let capped = render_capped(std::slice::from_ref(&offer));
        assert!(capped.len() < 500, "{}", capped.len());
        assert!(
            capped.ends_with(&format!(
                "{}… (19700 more characters: `car review offers`)",
                "t".repeat(300)
            )),
            "{capped}"
        );
        assert!(render(&[offer]).contains(&"t".repeat(20_000)));
        let limits = [("F1".to_string(), "r".repeat(1_000))];
        assert!(render_known_limits_capped(&limits).contains("(700 more characters"));
        assert!(render_known_limits(&limits).contains(&"r".repeat(1_000)));
    }
}
