"""Run car under the real agent CLIs, each against the scripted stand-in model; print PASS/FAIL.

Usage: e2e.py --car PATH/TO/car --clients-bin DIR [--keep] [--record DIR] [CLIENT...]
CLIENT is one of claude, claude-plugin, claude-mcp-hooks, codex, gemini (default: all). `--record DIR` also wires a
recorder hook for the events car does not wire (each client's record_events) and saves what it
received as DIR/CLIENT/NN-EVENT.json, paths rewritten to /home/user/proj and /home/user.

Per client: a throwaway git project with car wired in, one headless session with the stand-in
playing the model (script.py), then the verdict: every scripted step's check passed, the client
ended on its own with exit code 0, and its output never reported a broken hook answer.
A client that knows car's MCP server (`car install` registered it, or the plugin declares it) also
runs the recall step (mcp_step.py) in a session of its own, reported as "CLIENT mcp": the model
reads a file (car's lessons of it must come with the read) and calls car's `lessons_for` tool
through the client.
Exit code 0 when every client passed, 1 otherwise.
"""

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import clients as client_types
import mcp_step
from script import BAD_FILE, FIXED_LINE, STEP_NAMES, Script
from standin import StandIn

# Generous: a client run takes seconds, but CI machines are small and shared.
CLIENT_TIMEOUT_SECONDS = 300


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--car", required=True, help="the car binary to test")
    parser.add_argument("--clients-bin", required=True, help="the folder with claude, codex and gemini")
    parser.add_argument(
        "--keep", action="store_true", help="keep every run's folder (failed runs are always kept)"
    )
    parser.add_argument(
        "--record", metavar="DIR", help="save the payloads of the client's record_events here"
    )
    parser.add_argument(
        "clients", nargs="*", help="claude, claude-plugin, claude-mcp-hooks, codex, gemini (default: all)"
    )
    args = parser.parse_args()

    known = {client.name: client for client in client_types.CLIENTS}
    names = args.clients or list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error("unknown client {} (known: {})".format(", ".join(unknown), ", ".join(known)))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    car = os.path.abspath(args.car)
    failed = 0
    runs = 0
    for name in names:
        client = known[name](os.path.abspath(args.clients_bin), repo)
        record = os.path.abspath(os.path.join(args.record, name)) if args.record else None
        sessions = [(name, lambda: run(client, car, record))]
        if client.has_mcp:
            sessions.append((name + " mcp", lambda: run_mcp(client, car)))
        for label, session in sessions:
            started = time.monotonic()
            passed, reasons, root = session()
            report(label, passed, reasons, root, time.monotonic() - started, args.keep)
            failed += not passed
            runs += 1
    print(f"{runs - failed} passed, {failed} failed")
    return 1 if failed else 0


def report(label, passed, reasons, root, seconds, keep):
    """One client session's PASS/FAIL line, its reasons, and its run folder (removed once passed)."""
    print(
        "{} {} ({:.0f} s){}".format("PASS" if passed else "FAIL", label, seconds, "" if passed else ":"),
        flush=True,
    )
    for reason in reasons:
        print("    " + reason.replace("\n", "\n    "), flush=True)
    if passed and not keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print("    run folder: " + root, flush=True)


def run(client, car, record=None):
    """(passed, reasons, run folder) for one client session; `record`: where to save payloads."""
    root = tempfile.mkdtemp(prefix=f"car-e2e-{client.name}-")
    try:
        car, env, project = install_car(client, car, root)
        # A lesson for the session-start briefing, which must reach the model.
        problem = add_lesson(car, project, env, "**/*.md", BRIEFING_TRIGGER, BRIEFING_MARKER, 5)
        if problem:
            return False, [problem], root
        problem = add_before_edit_lesson(car, project, env)
        if problem:
            return False, [problem], root
        raw_payloads = os.path.join(root, "recorded")
        if record:
            os.makedirs(raw_payloads)
            client.add_recorder(project, f"cat > {shlex.quote(raw_payloads)}/$(date +%s%N)-$$.json")
        script = Script(project)
        standin = StandIn(client.api, script, project).start()
        try:
            env.update(client.prepare(root, project, env, standin.url))
            exit_code, output = run_client(client.command(project), project, env, root)
        finally:
            standin.stop()
            standin.save(os.path.join(root, "requests.jsonl"))
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        return False, [f"could not run {client.name}: {error}"], root
    if record:
        save_recorded(raw_payloads, record, root)
    reasons = verdict(client, script, standin, exit_code, output, project)
    if not briefed(standin):
        reasons.insert(0, "the session-start briefing (car's lesson) never reached the model")
    reasons[:0] = before_edit_reasons(client, standin)
    if client.stops_writes and script.stopped != (True, False):
        seen = "never got there" if script.stopped is None else (
            "bad.py was on disk" if script.stopped[1] else "car's deny was not in the next request"
        )
        reasons.insert(0, f"car's PreToolUse did not stop the bad write before it landed ({seen})")
    if reasons:
        reasons.append("client output (last lines):\n" + tail(output, 25))
        return False, reasons, root
    gate = " -> ".join(f"{name} ({kind})" if kind else name for name, kind in GATE_EVENTS)
    passed = ["the session-start briefing (car's lesson) reached the model"]
    if client.lessons_before_edit:
        passed.append("the lesson of bad.py reached the model with the write car let through, not before")
    else:
        passed.append("the lesson of bad.py did not reach the model (the client drops it)")
    if client.stops_writes:
        passed.append("the write with a syntax error was stopped before it landed (no bad.py on disk) and the model saw why")
    passed += [STEP_NAMES[step] for step in sorted(STEP_NAMES)]
    return True, passed + ["the stop was allowed, the session ended on its own; car's log: " + gate], root


def run_mcp(client, car):
    """(passed, reasons, run folder) for the recall step (mcp_step.py): a session of its own in
    which the model reads a file, then calls car's `lessons_for` tool, which `car install`
    registered with the client."""
    root = tempfile.mkdtemp(prefix=f"car-e2e-{client.name}-mcp-")
    try:
        car, env, project = install_car(client, car, root)
        problem = add_lesson(
            car, project, env, mcp_step.LESSON_SCOPE, mcp_step.LESSON_TRIGGER, mcp_step.LESSON_TEXT, 1
        ) or add_read_lesson(car, project, env)
        if problem:
            return False, [problem], root
        script = mcp_step.McpScript(project)
        standin = StandIn(client.api, script, project).start()
        try:
            env.update(client.prepare(root, project, env, standin.url))
            command = [mcp_step.PROMPT if word == client_types.PROMPT else word for word in client.command(project)]
            exit_code, output = run_client(command, project, env, root)
        finally:
            standin.stop()
            standin.save(os.path.join(root, "requests.jsonl"))
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        return False, [f"could not run {client.name}: {error}"], root
    reasons = []
    read, read_detail = script.checks.get(0, (False, "the session never got to the read's result"))
    if not read:
        reasons.append(f"{mcp_step.READ_STEP_NAME}: no: {read_detail}")
    passed, detail = script.checks.get(1, (False, "the session never got to the tool's answer"))
    if not passed:
        reasons.append(f"{mcp_step.STEP_NAME}: no: {detail}")
    reasons.extend(session_problems(client, standin, exit_code, output))
    if reasons:
        reasons.append("client output (last lines):\n" + tail(output, 25))
        return False, reasons, root
    loaded = f", after the model loaded it with {script.loaded_by}" if script.loaded_by else ""
    return True, [mcp_step.READ_STEP_NAME, f"{mcp_step.STEP_NAME} (the client offers it as {script.offered}{loaded})"], root


def add_read_lesson(car, project, env):
    """Commits the file the recall step reads and adds its lesson; returns what went wrong, or None."""
    with open(os.path.join(project, mcp_step.LESSON_FILE), "w") as file:
        file.write(mcp_step.FILE_CONTENT)
    git = ["git", "-c", "user.name=car e2e", "-c", "user.email=e2e@example.invalid"]
    for command in (["add", mcp_step.LESSON_FILE], ["commit", "-q", "-m", "app"]):
        done = subprocess.run(git + command, cwd=project, env=env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return f"git {command[0]} failed: {done.stderr.strip()}"
    return add_lesson(car, project, env, mcp_step.READ_SCOPE, mcp_step.READ_TRIGGER, mcp_step.READ_TEXT, 3)


def install_car(client, car, root):
    """(car, environment, project): car copied where a user has it, a throwaway git project, and
    `car install --agent NAME` run there (unless the client loads car otherwise); RuntimeError
    when the install fails."""
    project = os.path.join(root, "proj")
    for folder in ("home", "tmp", "proj"):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    # car as a user has it installed (outside a cargo target folder), so the stop reason names it
    # by its absolute path, as it does for a user.
    installed = os.path.join(root, "bin", "car")
    os.makedirs(os.path.dirname(installed), exist_ok=True)
    shutil.copy2(car, installed)
    env = client_types.environment(root, [os.path.dirname(installed), client.clients_bin], {})
    make_project(project, env)
    if not client.agent:
        return installed, env, project
    install = subprocess.run(
        [installed, "install", "--agent", client.agent, "--non-interactive", *client.install_options],
        cwd=project, env=env, capture_output=True, text=True, timeout=60,
    )
    if install.returncode != 0:
        raise RuntimeError(f"car install --agent {client.agent} failed: {install.stderr.strip()}")
    return installed, env, project


def make_project(project, env):
    git = ["git", "-c", "user.name=car e2e", "-c", "user.email=e2e@example.invalid"]
    with open(os.path.join(project, "README.md"), "w") as file:
        file.write("a throwaway project for car's end-to-end test\n")
    for command in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "start"]):
        subprocess.run(git + command, cwd=project, env=env, check=True, capture_output=True, timeout=60)


def run_client(command, project, env, root):
    """(exit code or None on timeout, combined output); a client that hangs is killed."""
    log_path = os.path.join(root, "client-output.txt")
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            command,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            exit_code = process.wait(timeout=CLIENT_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            exit_code = None
    with open(log_path, errors="replace") as log:
        return exit_code, log.read()


# The lesson the briefing must carry to the model at session start.
BRIEFING_TRIGGER = "TODO-E2E"
BRIEFING_MARKER = "E2E briefing marker: never leave a TODO-E2E in the docs."


def briefed(standin):
    """Whether a model request carried the session-start briefing's lesson."""
    return any(
        body is not None and BRIEFING_MARKER in json.dumps(body, ensure_ascii=False)
        for _, _, body in standin.requests
    )


# A lesson of bad.py alone, light enough not to stop a write (preventWeight is 6), whose trigger
# the stand-in never writes: the lessons of the file before its edit are the only way its text
# reaches the model (bad.py does not exist at session start, so the briefing leaves it out).
BEFORE_EDIT_TRIGGER = "legacy_e2e_loader("
BEFORE_EDIT_MARKER = "E2E before-the-edit marker: load bad.py's data with the strict loader."


def add_before_edit_lesson(car, project, env):
    """Adds the lesson of bad.py; returns what went wrong, or None."""
    return add_lesson(car, project, env, BAD_FILE, BEFORE_EDIT_TRIGGER, BEFORE_EDIT_MARKER, 3)


def add_lesson(car, project, env, scope, trigger, text, weight):
    """`car lessons add` in the project; returns what went wrong, or None."""
    added = subprocess.run(
        [car, "lessons", "add", "--scope", scope, "--trigger", trigger, "--lesson", text,
         "--weight", str(weight)],
        cwd=project, env=env, capture_output=True, text=True, timeout=60,
    )
    return None if added.returncode == 0 else f"car lessons add ({scope}) failed: {added.stderr.strip()}"


def before_edit_reasons(client, standin):
    """Why the lesson of bad.py did not arrive as it should, if it did not.

    Car's PreToolUse denies the first write of bad.py (a syntax error) and lets the fixed one
    through: the lesson must first appear in a request that holds the model's fixed write (the
    context of the write let through), never earlier, and in a client that drops context before a
    tool runs, never.
    """
    bodies = [json.dumps(body, ensure_ascii=False) for _, _, body in standin.requests if body is not None]
    first = next((body for body in bodies if BEFORE_EDIT_MARKER in body), None)
    if not client.lessons_before_edit:
        return [] if first is None else ["the lesson of bad.py reached the model, though the client was said to drop it"]
    if first is None:
        return ["the lesson of bad.py (car's PreToolUse context) never reached the model"]
    if FIXED_LINE not in first:
        return ["the lesson of bad.py reached the model before the write car let through"]
    return []


def verdict(client, script, standin, exit_code, output, project):
    """Every reason the run failed; empty when it passed."""
    reasons = []
    for step, name in sorted(STEP_NAMES.items()):
        if step not in script.checks:
            reasons.append("the session never got to the check: " + name)
            continue
        passed, detail = script.checks[step]
        if not passed:
            reasons.append(f"{name}: no: {detail}")
    if 5 in script.checks:
        reasons.append(script.checks[5][1])
    reasons.extend(session_problems(client, standin, exit_code, output))
    missing = missing_gate_events(project)
    if missing:
        reasons.append("car's lifecycle log (state.jsonl) lacks, in order: " + ", ".join(missing))
    bad_file = os.path.join(project, BAD_FILE)
    content = ""
    if os.path.exists(bad_file):
        with open(bad_file, errors="replace") as file:
            content = file.read()
    if not reasons and "def f():" not in content:
        reasons.append(f"{BAD_FILE} was not fixed on disk: {content!r}")
    return reasons


def session_problems(client, standin, exit_code, output):
    """What went wrong with the session itself: the client's exit, its hook failures, the stand-in's errors."""
    problems = []
    if exit_code is None:
        problems.append(f"the client did not end on its own within {CLIENT_TIMEOUT_SECONDS} s (killed)")
    elif exit_code != 0:
        problems.append(f"the client exited with code {exit_code}")
    problems.extend("the client reported a hook failure: " + line for line in client.output_problems(output))
    problems.extend("the stand-in failed on " + error for error in standin.errors)
    return problems


# What car's own lifecycle log must show, in this order (other events may come between): the
# review request blocked the stop, the submitted review was recorded, the next stop was allowed
# as clean, and the client's SessionEnd reached car.
GATE_EVENTS = (
    ("stop_blocked", "review_request"),
    ("review_completed", None),
    ("stop_allowed", "clean"),
    ("session_ended", None),
)


def missing_gate_events(project):
    """The GATE_EVENTS not found in order in the project's state.jsonl, as `event (kind)`."""
    events = []
    state = os.path.join(project, ".claude", "claude-auto-review", "state.jsonl")
    if os.path.exists(state):
        with open(state, errors="replace") as file:
            for line in file:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                events.append((record.get("event"), record.get("kind")))
    position = 0
    for index, (event, kind) in enumerate(GATE_EVENTS):
        while position < len(events) and not (
            events[position][0] == event and kind in (None, events[position][1])
        ):
            position += 1
        if position == len(events):
            return [f"{name} ({kind})" if kind else name for name, kind in GATE_EVENTS[index:]]
        position += 1
    return []


def save_recorded(raw_payloads, destination, root):
    """The recorder's payloads in the order they came, as NN-EVENT.json with neutral paths."""
    os.makedirs(destination, exist_ok=True)
    names = sorted(os.listdir(raw_payloads), key=lambda name: int(name.split("-")[0]))
    for number, name in enumerate(names):
        with open(os.path.join(raw_payloads, name)) as file:
            text = neutral_paths(file.read(), root)
        payload = json.loads(text)
        event = payload.get("hook_event_name", "unknown")
        with open(os.path.join(destination, f"{number:02d}-{event}.json"), "w") as file:
            json.dump(payload, file, indent=2, ensure_ascii=False)
            file.write("\n")


def neutral_paths(text, root):
    """The run's folders as the fixtures name them: /home/user/proj, /home/user (and its .codex)."""
    project = os.path.join(root, "proj")
    for path, neutral in (
        (project, "/home/user/proj"),
        (project.replace("/", "-").replace(".", "-").replace("_", "-"), "-home-user-proj"),
        (os.path.join(root, "codex-home"), "/home/user/.codex"),
        (os.path.join(root, "home"), "/home/user"),
        (os.path.join(root, "tmp"), "/tmp"),
    ):
        text = text.replace(path, neutral)
    return text


def tail(text, lines):
    return "\n".join(text.strip().splitlines()[-lines:])[-4000:]


if __name__ == "__main__":
    sys.exit(main())
