//! A lesson's history as a small inline SVG: its weight at each warning (a line) and the
//! outcomes of its warnings (a dot each: green heeded, grey ignored, blue a plain hit).
//!
//! Invariants: the picture is a pure function of the points, scaled to a fixed box, so its size
//! does not grow with the time span; a history of fewer than two points draws nothing (a single
//! point says no more than the weight column).

use crate::lessons::model::MAX_WEIGHT;
use crate::report::html::Html;

const WIDTH: f64 = 120.0;
const HEIGHT: f64 = 24.0;
/// At most this many points are drawn: the most recent ones.
const MAX_POINTS: usize = 40;

/// What one moment of a lesson's history was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// A warning shown, at the lesson's weight then.
    Warned,
    Heeded,
    Ignored,
    /// A hit recorded before outcomes existed.
    Hit,
}

/// One point: when, the weight then, and what happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Point {
    pub(crate) at: i64,
    pub(crate) weight: u32,
    pub(crate) mark: Mark,
}

/// Writes the sparkline of `points` (in time order); nothing for fewer than two.
pub(crate) fn write(page: &mut Html, points: &[Point]) {
    let points = &points[points.len().saturating_sub(MAX_POINTS)..];
    if points.len() < 2 {
        return;
    }
    let (first, last) = (points[0].at, points[points.len() - 1].at);
    let span = (last - first).max(1) as f64;
    let x = |at: i64| 2.0 + (at - first) as f64 / span * (WIDTH - 4.0);
    let y = |weight: u32| {
        let weight = f64::from(weight.min(MAX_WEIGHT));
        HEIGHT - 3.0 - weight / f64::from(MAX_WEIGHT) * (HEIGHT - 6.0)
    };
    page.raw("<svg viewBox=\"0 0 120 24\"><title>weight ")
        .number(points[0].weight)
        .raw("→")
        .number(points[points.len() - 1].weight)
        .raw("</title><polyline points=\"");
    for point in points {
        page.number(format_args!("{:.0},{:.0} ", x(point.at), y(point.weight)));
    }
    page.raw("\"/>");
    for point in points {
        let class = match point.mark {
            Mark::Warned => continue,
            Mark::Heeded => "h",
            Mark::Ignored => "i",
            Mark::Hit => "p",
        };
        page.raw("<circle class=\"")
            .raw(class)
            .raw("\" r=\"2\" cx=\"")
            .number(format_args!("{:.0}", x(point.at)))
            .raw("\" cy=\"")
            .number(format_args!("{:.0}", y(point.weight)))
            .raw("\"/>");
    }
    page.raw("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(at: i64, weight: u32, mark: Mark) -> Point {
        Point { at, weight, mark }
    }

    #[test]
    fn two_points_draw_a_line_and_outcomes_a_dot() {
        let mut page = Html::default();
        write(&mut page, &[point(0, 2, Mark::Warned)]);
        assert_eq!(page.finish(), "", "one point draws nothing");
        let mut page = Html::default();
        write(
            &mut page,
            &[point(0, 2, Mark::Warned), point(10, 3, Mark::Heeded)],
        );
        let svg = page.finish();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("points=\"2,17 118,16 \""), "{svg}");
        assert_eq!(svg.matches("<circle").count(), 1, "{svg}");
        assert!(svg.contains("weight 2→3"), "{svg}");
    }
}
