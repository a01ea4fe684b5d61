//! car's integration tests: one test binary driving the built `car` the way agents and users do.

mod support;

mod check_cli;
mod fault_injection;
mod hook_post_tool_use;
mod install;
mod lessons_commands;
mod lessons_hook;
mod lessons_rules;
mod replay_command;
mod replay_self_test;
mod review_backends;
mod review_gate;
mod review_helpers;
mod review_session;
mod review_setup;
mod review_walkthrough;
mod security_faults;
mod security_paths;
mod security_reads;
mod security_reviewer;
mod security_state;
mod validate_hook;
mod validate_json_corpus;
