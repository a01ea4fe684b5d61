//! car's integration tests: one test binary driving the built `car` the way agents and users do.

mod support;

mod agents;
mod check_cli;
mod check_sarif;
mod deep_review_guards;
mod deep_review_helpers;
mod deep_review_loop;
mod deep_review_run;
mod distill_evidence;
mod file_identity;
mod hook_answers;
mod hook_post_tool_use;
mod install;
mod learn_signals;
mod learning_trust;
mod lessons_commands;
mod lessons_hook;
mod lessons_rules;
mod migrate;
mod replay_command;
mod replay_self_test;
mod review_backends;
mod review_gate;
mod review_helpers;
mod review_loop;
mod review_session;
mod review_setup;
mod review_truth;
mod review_walkthrough;
mod settings_compat;
mod validate_hook;
mod validate_json_corpus;
mod validate_real_parsers;
mod validate_trust;
