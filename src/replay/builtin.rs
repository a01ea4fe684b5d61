//! car's own replay suite (`replay-tests/` in the repository), embedded in the binary so
//! `car lessons test` runs it from an installed copy too. A unit test keeps this list equal to
//! the folder.

macro_rules! scenarios {
    ($($file:literal),* $(,)?) => {
        &[$(($file, include_str!(concat!("../../replay-tests/", $file)))),*]
    };
}

/// (file name, text) of every built-in scenario.
pub const SCENARIOS: &[(&str, &str)] = scenarios![];

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
}
