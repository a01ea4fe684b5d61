//! Names a fix renamed inside what it replaced: `k_delayed_work_submit(&led_work, …)` →
//! `k_work_schedule(&led_dwork, …)` replaced the call *and* renamed the variable, so the changed
//! range runs from the call through the variable. The variable is this sighting's particular,
//! not the mistake: the next sighting writes another name there, and its fix another again.
//!
//! Invariants (*rather miss than false-alarm*): a renamed name is a name at the same place of the
//! fixed line (walking from either edge of the change while the punctuation between agrees) that
//! differs from the written one. It may stand as a wildcard in a pattern only when every example
//! renamed it (or held it as unchanged context) and the fixes disagree on what to write there; a
//! name every fix replaces with the same name (`FullLoader` and `UnsafeLoader` → `SafeLoader`) is
//! the mistake itself and stays literal. A pattern still keeps a literal of what each fix
//! replaced ([`super::Sample::keeps_change`]), so a fix that only renamed teaches nothing.

use crate::learning::tokens::{Kind, Token};

/// The pairs (bad index, good index) of names the fix renamed inside the replaced tokens
/// `start..end` of `bad`, whose replacement is `good_start..good_end` of `good`.
pub(super) fn renamed_names(
    bad: &[Token<'_>],
    good: &[Token<'_>],
    (start, end): (usize, usize),
    (good_start, good_end): (usize, usize),
) -> Vec<(usize, usize)> {
    let mut renamed = Vec::new();
    let room = (end - start).min(good_end.saturating_sub(good_start));
    // From the front, then from the back, while the two sides stay in step.
    let front = walk(
        (0..room).map(|offset| (start + offset, good_start + offset)),
        bad,
        good,
        &mut renamed,
    );
    walk(
        (1..=room - front).map(|offset| (end - offset, good_end - offset)),
        bad,
        good,
        &mut renamed,
    );
    renamed
}

/// Walks the aligned pairs while each is the same token or two names, recording the renamed
/// names; how many pairs were in step.
fn walk(
    pairs: impl Iterator<Item = (usize, usize)>,
    bad: &[Token<'_>],
    good: &[Token<'_>],
    renamed: &mut Vec<(usize, usize)>,
) -> usize {
    let mut in_step = 0;
    for (bad_index, good_index) in pairs {
        let (written, fixed) = (&bad[bad_index], &good[good_index]);
        let same = written.text == fixed.text
            || (written.kind == Kind::Space && fixed.kind == Kind::Space);
        if !same {
            if !(is_name(written) && is_name(fixed)) {
                break;
            }
            renamed.push((bad_index, good_index));
        }
        in_step += 1;
    }
    in_step
}

fn is_name(token: &Token<'_>) -> bool {
    token.kind == Kind::Word && token.is_atom() && !token.is_value()
}
