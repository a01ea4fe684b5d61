//! The P3 offer list: minor findings from every review round of the session plus lesson warnings
//! below `offerWeightThreshold`, de-duplicated, each with `file:line`. The user decides; nothing
//! here ever blocks. Shown once in the `systemMessage` of the stop that is finally allowed, and
//! any time with `car review offers`.

use std::collections::BTreeSet;

use serde::Serialize;

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
}

/// Every offer of the session, first seen first.
pub(crate) fn collect(snapshot: &Snapshot, settings: &Settings) -> Vec<Offer> {
    let mut seen = BTreeSet::new();
    let mut offers = Vec::new();
    for finding in snapshot.minor_findings(settings.minimum_blocking_severity) {
        let offer = Offer {
            key: format!("finding|{}", finding.key()),
            location: finding.location(),
            text: if finding.suggestion.is_empty() {
                finding.title.clone()
            } else {
                format!("{} — {}", finding.title, finding.suggestion)
            },
            source: "review".into(),
        };
        if seen.insert(offer.key.clone()) {
            offers.push(offer);
        }
    }
    for warning in &snapshot.warnings {
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
        };
        if seen.insert(offer.key.clone()) {
            offers.push(offer);
        }
    }
    offers
}

/// Offers not shown to the user yet.
pub(crate) fn unshown(snapshot: &Snapshot, settings: &Settings) -> Vec<Offer> {
    collect(snapshot, settings)
        .into_iter()
        .filter(|offer| !snapshot.shown_offers.contains(&offer.key))
        .collect()
}

/// The text block for people.
pub(crate) fn render(offers: &[Offer]) -> String {
    let mut text = format!("P3 offers ({}; not fixed, you decide):", offers.len());
    for offer in offers {
        text.push_str(&format!("\n- {}: {}", offer.location, offer.text));
    }
    text
}

/// Offers shown in a hook answer: at most this many lines, the rest behind `car review offers`.
const SHOWN_IN_HOOK: usize = 20;

/// [`render`] bounded for a hook's `systemMessage`.
pub(crate) fn render_capped(offers: &[Offer]) -> String {
    if offers.len() <= SHOWN_IN_HOOK {
        return render(offers);
    }
    let mut text = render(&offers[..SHOWN_IN_HOOK]);
    text = text.replacen(
        &format!("({};", SHOWN_IN_HOOK),
        &format!("({};", offers.len()),
        1,
    );
    text.push_str(&format!(
        "\n… and {} more: `car review offers`",
        offers.len() - SHOWN_IN_HOOK
    ));
    text
}

/// The known limits block for people.
pub(crate) fn render_known_limits(limits: &[(String, String)]) -> String {
    let mut text = String::from("Known limits (deferred, not fixed):");
    for (what, reason) in limits {
        text.push_str(&format!("\n- {what}: {reason}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::Warning;
    use crate::session::event::{Event, EventRecord};
    use crate::session::findings::Review;

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
        let offers = collect(&snapshot, &Settings::default());
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
            })
            .collect();
        let capped = render_capped(&many);
        assert!(capped.starts_with("P3 offers (25;"), "{capped}");
        assert!(capped.ends_with("… and 5 more: `car review offers`"));
        assert_eq!(capped.lines().count(), 22);
    }
}
