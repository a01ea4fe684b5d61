//! car's own replay suite (`replay-tests/` in the repository), embedded in the binary so
//! `car lessons test` runs it from an installed copy too. A unit test keeps this list equal to
//! the folder.

macro_rules! scenarios {
    ($($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!("../../replay-tests/", $file)))),*]
    };
}

/// (file name, text) of every built-in scenario.
pub(crate) const SCENARIOS: &[(&str, &str)] = scenarios![
    "added_text_only.json",
    "candidate_expiry.json",
    "candidate_promotion.json",
    "check_command.json",
    "config_edit_self_test.json",
    "corrupt_lessons_untouched.json",
    "decay_once_per_window.json",
    "decay_to_zero_removes.json",
    "fixture_seed_lessons.json",
    "hit_caps_weight_at_10.json",
    "hit_raises_weight.json",
    "ignored_warnings_retire.json",
    "json_error_blocks_without_guessing.json",
    "learn_from_corrections.json",
    "learn_from_review.json",
    "merge.json",
    "other_agents.json",
    "regex_lookbehind_trigger.json",
    "scope_filtering.json",
    "session_end_daily_maintenance.json",
    "settings_live_reload.json",
    "substring_trigger.json",
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_list_matches_the_folder() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("replay-tests");
        let mut on_disk: Vec<String> = crate::replay::suite::scenario_files(&folder)
            .unwrap()
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = super::SCENARIOS
            .iter()
            .map(|(f, _)| f.to_string())
            .collect();
        listed.sort();
        assert_eq!(listed, on_disk, "update the list in src/replay/builtin.rs");
        assert!(
            listed.len() >= 12,
            "car's own suite has at least 12 scenarios"
        );
    }

    #[test]
    fn every_shipped_scenario_passes() {
        let failures: Vec<String> = crate::replay::suite::builtin_cases()
            .iter()
            .filter_map(|case| case.run().err())
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
