//! car's integration tests: one test binary driving the built `car` the way agents and users do.

mod support;

/// The benchmarks' shared project builders (the report's large state).
#[path = "../benches/common/mod.rs"]
mod bench_common;

mod agents;
mod check_cli;
mod check_sarif;
mod deep_review_guards;
mod deep_review_helpers;
mod deep_review_loop;
mod deep_review_run;
mod demo;
mod distill_evidence;
mod fault_injection;
mod file_identity;
mod hook_agent_flag;
mod hook_answers;
mod hook_post_tool_use;
mod install;
mod learn_corrections;
mod learn_signals;
mod learn_signals_agents;
mod learning_heldout;
mod learning_trust;
mod lessons_code_match;
mod lessons_commands;
mod lessons_hook;
mod lessons_outcomes;
mod lessons_rules;
mod lessons_team;
mod migrate;
mod new_file_slips;
mod pre_tool_use;
mod pre_tool_use_hostile;
mod python_environments;
mod replay_command;
mod replay_self_test;
mod report;
mod review_backends;
mod review_blocking;
mod review_gate;
mod review_helpers;
mod review_loop;
mod review_session;
mod review_setup;
mod review_truth;
mod review_walkthrough;
mod security_faults;
mod security_paths;
mod security_reads;
mod security_reviewer;
mod security_state;
mod session_changes;
mod session_start;
mod session_start_failures;
mod settings_compat;
mod test_hygiene;
mod uninstall;
mod validate_hook;
mod validate_imports;
mod validate_json_corpus;
mod validate_misreads;
mod validate_real_parsers;
mod validate_trust;
