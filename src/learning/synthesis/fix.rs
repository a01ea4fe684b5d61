//! What the fixes wrote in place of a pattern's mistake: the "Write `B`" of a lesson's text.

use super::{Change, Example, Sample, merge};
use crate::learning::pattern::{Element, Pattern};
use crate::learning::tokens::{Kind, Token, changed_range, tokenize};

/// What the fixes wrote in place of the pattern's mistake, generalised the same way: in each
/// example, what replaced the change with the window's context around it when the window holds
/// the whole change (`palette.textMuted` for `palette.mutedText`), else the replacement alone;
/// merged over the examples. `None` when a fix removed its line, the fixes differ in length, or
/// they share nothing specific (then no one example's names are put forward as *the* fix).
pub(crate) fn common_fix(examples: &[Example<'_>], pattern: &Pattern) -> Option<String> {
    let mut merged: Option<Vec<Element>> = None;
    for example in examples {
        let sample = Sample::new(*example).ok()?;
        let Change::Replaced { start, end } = sample.change else {
            continue;
        };
        if sample.good.is_empty() {
            return None;
        }
        let (_, good_end) = changed_range(&sample.good, &sample.bad);
        let (from, to) = sample.windows().into_iter().find(|(from, to)| {
            to - from == pattern.elements.len()
                && pattern
                    .elements
                    .iter()
                    .zip(&sample.bad[*from..*to])
                    .all(|(element, token)| element.admits(token))
        })?;
        let window = if from <= start && to >= end {
            &sample.good[from..(to - end + good_end).min(sample.good.len())]
        } else {
            &sample.good[start..good_end.max(start)]
        };
        merged = Some(match merged {
            None => window.iter().map(Element::of).collect(),
            Some(known) if known.len() == window.len() => merge(&known, window)?,
            Some(_) => return None,
        });
    }
    let elements = merged?;
    let is_specific = elements.iter().any(|element| match element {
        Element::Literal { text, kind } => {
            let token = Token { kind: *kind, text };
            token.is_significant() || token.is_value()
        }
        _ => false,
    });
    let text = Pattern {
        elements,
        unless: None,
    }
    .display();
    let text = text.trim();
    (is_specific && !text.is_empty()).then(|| closed(text))
}

/// `text` with the brackets it opened and left open closed, in order: the fix as it reads
/// (`expect("TOKEN must be set")`, not `expect("TOKEN must be set"`).
fn closed(text: &str) -> String {
    let mut open: Vec<char> = Vec::new();
    for token in tokenize(text) {
        match token.text {
            "(" if token.kind == Kind::Punct => open.push(')'),
            "[" if token.kind == Kind::Punct => open.push(']'),
            "{" if token.kind == Kind::Punct => open.push('}'),
            ")" | "]" | "}" if token.kind == Kind::Punct => {
                open.pop();
            }
            _ => {}
        }
    }
    let mut out = text.to_string();
    out.extend(open.iter().rev());
    out
}
