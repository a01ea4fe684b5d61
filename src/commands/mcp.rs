//! `car mcp`: the MCP server over stdio ([`crate::mcp`]) for the project of the working
//! directory.

use crate::commands::Outcome;
use crate::error::Error;
use crate::project::Project;

pub(crate) fn run(project: &Project) -> Result<Outcome, Error> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    crate::mcp::serve(project, stdin.lock(), stdout.lock())
        .map_err(|error| Error::Usage(format!("car mcp: stdin or stdout failed: {error}")))?;
    Ok(Outcome::Success)
}
