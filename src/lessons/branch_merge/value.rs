//! The three-way merge of one JSON value (a lesson's or candidate's fields, a file's top-level
//! fields): what each branch changed since their common base, combined.
//!
//! Rules: a side that left the value as it was takes the other side's; two sides that agree take
//! it; two objects merge key by key; two arrays keep every element either side added and drop
//! every element either side removed (a list of triggers or of sightings grows on both branches);
//! anything else changed differently on both sides is a [`FieldConflict`]: ours stays in place
//! and the caller keeps both versions where a person can read them.

use serde_json::{Map, Value};

/// A field both branches changed, differently. `None` is a field absent on that side.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldConflict {
    /// The field's name; nested fields are joined with `.` (`examples.match`).
    pub(crate) field: String,
    pub(crate) base: Option<Value>,
    pub(crate) ours: Option<Value>,
    pub(crate) theirs: Option<Value>,
}

impl FieldConflict {
    /// The three versions as one JSON object (`{"base", "ours", "theirs"}`), absent ones left out.
    pub(crate) fn versions(&self) -> Value {
        let mut object = Map::new();
        for (side, value) in [
            ("base", &self.base),
            ("ours", &self.ours),
            ("theirs", &self.theirs),
        ] {
            if let Some(value) = value {
                object.insert(side.into(), value.clone());
            }
        }
        Value::Object(object)
    }
}

/// Merges one value; `None` is absent (a field the side does not have). Conflicts are appended
/// to `conflicts` with `field` as their name, and ours is kept in their place.
pub(crate) fn merge(
    field: &str,
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
    conflicts: &mut Vec<FieldConflict>,
) -> Option<Value> {
    if ours == theirs || theirs == base {
        return ours.cloned();
    }
    if ours == base {
        return theirs.cloned();
    }
    match (base, ours, theirs) {
        (None | Some(Value::Object(_)), Some(Value::Object(o)), Some(Value::Object(t))) => {
            let empty = Map::new();
            let b = match base {
                Some(Value::Object(b)) => b,
                _ => &empty,
            };
            Some(Value::Object(merge_maps(field, b, o, t, conflicts)))
        }
        (None | Some(Value::Array(_)), Some(Value::Array(o)), Some(Value::Array(t))) => {
            let b = match base {
                Some(Value::Array(b)) => b.as_slice(),
                _ => &[],
            };
            Some(Value::Array(merge_lists(b, o, t)))
        }
        _ => {
            conflicts.push(FieldConflict {
                field: field.to_string(),
                base: base.cloned(),
                ours: ours.cloned(),
                theirs: theirs.cloned(),
            });
            ours.cloned()
        }
    }
}

/// Merges two objects key by key: ours' keys in their order, then the keys only theirs added.
pub(crate) fn merge_maps(
    prefix: &str,
    base: &Map<String, Value>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    conflicts: &mut Vec<FieldConflict>,
) -> Map<String, Value> {
    let mut merged = Map::new();
    let keys = ours
        .keys()
        .chain(theirs.keys().filter(|key| !ours.contains_key(*key)))
        .chain(
            base.keys()
                .filter(|key| !ours.contains_key(*key) && !theirs.contains_key(*key)),
        );
    for key in keys {
        let field = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        if let Some(value) = merge(
            &field,
            base.get(key),
            ours.get(key),
            theirs.get(key),
            conflicts,
        ) {
            merged.insert(key.clone(), value);
        }
    }
    merged
}

/// Ours' elements that theirs did not remove, then the elements only theirs added.
pub(crate) fn merge_lists(base: &[Value], ours: &[Value], theirs: &[Value]) -> Vec<Value> {
    let removed_by_theirs = |value: &Value| base.contains(value) && !theirs.contains(value);
    let mut merged: Vec<Value> = ours
        .iter()
        .filter(|value| !removed_by_theirs(value))
        .cloned()
        .collect();
    for value in theirs {
        if !base.contains(value) && !merged.contains(value) {
            merged.push(value.clone());
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn merged(base: Value, ours: Value, theirs: Value) -> (Value, Vec<FieldConflict>) {
        let mut conflicts = Vec::new();
        let value = merge("x", Some(&base), Some(&ours), Some(&theirs), &mut conflicts);
        (value.unwrap(), conflicts)
    }

    #[test]
    fn one_sided_changes_win_and_equal_changes_agree() {
        assert_eq!(merged(json!(1), json!(1), json!(2)).0, json!(2));
        assert_eq!(merged(json!(1), json!(3), json!(1)).0, json!(3));
        assert_eq!(merged(json!(1), json!(4), json!(4)), (json!(4), vec![]));
    }

    #[test]
    fn objects_merge_by_key_and_lists_keep_both_sides_additions_and_removals() {
        let (value, conflicts) = merged(
            json!({"a": 1, "b": [1, 2, 3], "gone": true}),
            json!({"a": 2, "b": [1, 3, 4]}),
            json!({"a": 1, "b": [1, 2, 3, 5], "gone": true, "new": "t"}),
        );
        assert!(conflicts.is_empty(), "{conflicts:?}");
        assert_eq!(value, json!({"a": 2, "b": [1, 3, 4, 5], "new": "t"}));
    }

    #[test]
    fn different_changes_of_one_scalar_conflict_and_keep_ours() {
        let (value, conflicts) = merged(
            json!({"lesson": "base", "n": {"deep": 1}}),
            json!({"lesson": "ours", "n": {"deep": 2}}),
            json!({"lesson": "theirs", "n": {"deep": 3}}),
        );
        assert_eq!(value, json!({"lesson": "ours", "n": {"deep": 2}}));
        let fields: Vec<&str> = conflicts.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["x.lesson", "x.n.deep"]);
        assert_eq!(
            conflicts[0].versions(),
            json!({"base": "base", "ours": "ours", "theirs": "theirs"})
        );
    }

    #[test]
    fn a_field_removed_on_one_side_and_kept_on_the_other_is_removed() {
        let mut conflicts = Vec::new();
        let value = merge("x", Some(&json!(1)), None, Some(&json!(1)), &mut conflicts);
        assert_eq!(value, None);
        let value = merge("x", None, None, Some(&json!("new")), &mut conflicts);
        assert_eq!(value, Some(json!("new")));
        assert!(conflicts.is_empty());
    }
}
