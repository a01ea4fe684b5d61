//! `car report [-o FILE] [--open]`: writes the project's report page (default
//! `.claude/claude-auto-review/report.html`, git-ignored with the rest of the state folder),
//! prints its path on stdout, and with `--open` hands it to the desktop's browser.

use std::path::{Path, PathBuf};

use crate::cli::ReportArgs;
use crate::commands::Outcome;
use crate::error::Error;
use crate::output;
use crate::project::Project;
use crate::settings::Settings;
use crate::state::names::REPORT;

pub(crate) fn run(project: &Project, args: &ReportArgs) -> Result<Outcome, Error> {
    let settings = Settings::load(project).unwrap_or_default();
    let clock = crate::clock::Clock::from_env()?;
    let page = crate::report::render(project, &settings, clock)?;
    let path = match &args.output {
        Some(path) => path.clone(),
        None => {
            std::fs::create_dir_all(project.state_dir())
                .map_err(|source| crate::files::FileError::io(&project.state_dir(), source))?;
            project.state_dir().join(REPORT)
        }
    };
    crate::files::write_atomic(&path, page.as_bytes())?;
    output::print_data(&path.display().to_string());
    if args.open {
        open_in_browser(&path);
    }
    Ok(Outcome::Success)
}

/// Best effort: the path is printed either way.
fn open_in_browser(path: &Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let absolute: PathBuf = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let started = std::process::Command::new(opener)
        .arg(&absolute)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        output::print_hint(&format!(
            "`{opener}` is not available: open {} in a browser",
            absolute.display()
        ));
    }
}
