//! The `car` binary: parse the command line, run it, turn the outcome into an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    car::commands::main()
}
