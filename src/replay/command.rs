//! `car lessons test [DIR]`.

use std::path::Path;

use crate::app::Outcome;
use crate::error::Error;
use crate::project::Project;

pub fn run(_project: &Project, _dir: Option<&Path>) -> Result<Outcome, Error> {
    Err(Error::Usage("`car lessons test` is not built yet".into()))
}
