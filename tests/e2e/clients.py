"""How each real client is wired to car and driven offline against the stand-in.

A client gets a throwaway HOME (and CODEX_HOME), a throwaway git project with car installed by
`car install --agent NAME` (or, for the plugin, Claude Code's `--plugin-dir` pointing at this
repository), and a command line that runs one headless session with one prompt.

Invariant: nothing here reads or writes the user's own configuration: every client sees only the
environment built in `environment()`.
"""

import json
import os
import subprocess
import threading

PROMPT = "Create bad.py with a function f that returns 1, then stop."


def environment(root, path_dirs, extra):
    """A clean environment: the parent's PATH behind car's and the client's, a throwaway HOME.

    The HOME has no ~/.profile: Codex runs the agent's commands in `bash -lc`, whose /etc/profile
    may reset PATH, so the review command works only because car names itself by its absolute
    path in the stop reason — which this suite proves.
    """
    env = {
        "PATH": os.pathsep.join(path_dirs + [os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": os.path.join(root, "home"),
        "XDG_CONFIG_HOME": os.path.join(root, "home", ".config"),
        "XDG_CACHE_HOME": os.path.join(root, "home", ".cache"),
        "XDG_DATA_HOME": os.path.join(root, "home", ".local", "share"),
        "TMPDIR": os.path.join(root, "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "true",
    }
    env.update(extra)
    return env


class Client:
    """One client configuration: its API, how car is wired, and its command line."""

    name = ""
    api = ""
    agent = ""  # for `car install --agent`; None = wired otherwise
    # Whether the client knows car's MCP server (registered by `car install`, or declared by the
    # plugin): such a client also runs the recall step (mcp_step.py).
    has_mcp = True
    # What the client prints when a hook failed or its answer was rejected (lower case); none may
    # appear in a run.
    failure_markers = ()
    hooks_file = ""  # the project's hook configuration, relative to the project
    # The events `--record` captures, beside car's own hooks, whose payloads we want to see.
    record_events = ()
    # Whether car's PreToolUse (Gemini CLI: BeforeTool) hook stops the bad write before it lands.
    stops_writes = True
    # More options for `car install --agent NAME --non-interactive`.
    install_options = ()
    # Whether car's lessons of a file reach the model with the write car lets through (PreToolUse
    # context in Claude Code and Codex; AfterTool context in Gemini CLI, whose BeforeTool drops it).
    lessons_before_edit = True

    def __init__(self, clients_bin, repo):
        self.clients_bin = clients_bin
        self.repo = repo

    def prepare(self, root, project, env, standin_url):
        """Client configuration files in the throwaway HOME; returns extra environment."""
        return {}

    def command(self, project):
        raise NotImplementedError

    def add_recorder(self, project, command):
        """Wire `command` (it saves the payload it reads) for every event in record_events."""
        path = os.path.join(project, self.hooks_file)
        config = {}
        if os.path.exists(path):
            with open(path) as file:
                config = json.load(file)
        hooks = config.setdefault("hooks", {})
        for event in self.record_events:
            hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": command}]})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as file:
            json.dump(config, file, indent=2)

    def output_problems(self, output):
        """Lines of the client's output that say a hook failed."""
        problems = []
        for line in output.splitlines():
            lowered = line.lower() + "\n"
            if any(marker in lowered for marker in self.failure_markers):
                problems.append(line.strip()[:400])
        return problems


class ClaudeCode(Client):
    name = "claude"
    api = "anthropic"
    agent = "claude"
    hooks_file = ".claude/settings.json"
    record_events = ("SessionStart", "PreToolUse", "SessionEnd")
    failure_markers = (
        "hook output invalid",
        "hook error",
        "failed schema validation",
        "hook returned no result",
    )

    def prepare(self, root, project, env, standin_url):
        return {
            "ANTHROPIC_BASE_URL": standin_url,
            "ANTHROPIC_API_KEY": "car-e2e-dummy-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            # Claude Code refuses --dangerously-skip-permissions as root unless it is told it runs
            # in a sandbox (CI runs as root).
            "IS_SANDBOX": "1",
        }

    def command(self, project):
        return [
            os.path.join(self.clients_bin, "claude"),
            "-p",
            PROMPT,
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--dangerously-skip-permissions",
        ]

    def output_problems(self, output):
        """Also every hook run the stream-json log does not call a success (car's blocks are exit 0).

        Claude Code hands a PreToolUse deny to the model as a tool result "PreToolUse:Write hook
        error: <reason>": car's own deny is no failure.
        """
        denied = "hook error: car: this edit was not made"
        output = "\n".join(line for line in output.splitlines() if denied not in line)
        problems = super().output_problems(output)
        for line in output.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if (
                isinstance(event, dict)
                and event.get("subtype") == "hook_response"
                and event.get("outcome") != "success"
            ):
                problems.append(
                    "{} hook: outcome {}, exit code {}: {}".format(
                        event.get("hook_name"),
                        event.get("outcome"),
                        event.get("exit_code"),
                        (event.get("stderr") or "")[:300],
                    )
                )
        return problems


class ClaudeCodePlugin(ClaudeCode):
    """Claude Code with car loaded as a plugin from this repository instead of `car install`."""

    name = "claude-plugin"
    agent = None

    def command(self, project):
        return super().command(project) + ["--plugin-dir", self.repo]


class ClaudeCodeMcpHooks(ClaudeCode):
    """Claude Code with car's hooks as calls into the running `car mcp` (`--hooks mcp`)."""

    name = "claude-mcp-hooks"
    install_options = ("--hooks", "mcp")


class Codex(Client):
    name = "codex"
    api = "openai"
    agent = "codex"
    hooks_file = ".codex/hooks.json"
    record_events = ("SessionStart", "PreToolUse", "SessionEnd")
    failure_markers = ("failed to parse hook", "invalid hook")

    def output_problems(self, output):
        """Also every `hook: EVENT Failed` line of `codex exec` (its others say Completed or Blocked)."""
        problems = super().output_problems(output)
        problems += [
            line
            for line in output.splitlines()
            if line.startswith("hook: ") and line.rstrip().endswith(" Failed")
        ]
        return problems

    def prepare(self, root, project, env, standin_url):
        codex_home = os.path.join(root, "codex-home")
        os.makedirs(codex_home, exist_ok=True)
        config = os.path.join(codex_home, "config.toml")
        with open(config, "w") as file:
            file.write(
                "\n".join(
                    [
                        # A catalogue model name: an unknown one gets no apply_patch tool.
                        'model = "gpt-5.5"',
                        'model_provider = "standin"',
                        'approval_policy = "never"',
                        'sandbox_mode = "danger-full-access"',
                        "",
                        "[model_providers.standin]",
                        'name = "car e2e stand-in"',
                        f'base_url = "{standin_url}/v1"',
                        'wire_api = "responses"',
                        'env_key = "CAR_E2E_API_KEY"',
                        "",
                        f"[projects.{json.dumps(project)}]",
                        'trust_level = "trusted"',
                        "",
                    ]
                )
            )
        extra = {"CODEX_HOME": codex_home, "CAR_E2E_API_KEY": "car-e2e-dummy-key"}
        trust_hooks(self.codex(), project, config, dict(env, **extra))
        return extra

    def codex(self):
        return os.path.join(self.clients_bin, "codex")

    def command(self, project):
        return [self.codex(), "exec", PROMPT]


def trust_hooks(codex, project, config, env):
    """Record the project's hooks as trusted, with the hash Codex itself reports for each.

    Codex runs a project hook only when `[hooks.state."KEY"] trusted_hash` in CODEX_HOME's
    config.toml equals the hook's current hash; `codex app-server`'s `hooks/list` reports both
    (offline: it is a local JSON-RPC call over stdin/stdout).
    """
    requests = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "car-e2e", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [project]}},
    ]
    server = subprocess.Popen(
        [codex, "app-server"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    # A server that never answers must not hang the suite.
    watchdog = threading.Timer(120, server.kill)
    watchdog.start()
    try:
        for request in requests:
            server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        hooks = None
        for line in server.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                if "error" in message:
                    raise RuntimeError("codex app-server hooks/list failed: {}".format(message["error"]))
                hooks = [hook for entry in message["result"]["data"] for hook in entry["hooks"]]
                break
    finally:
        watchdog.cancel()
        server.kill()
        server.wait()
    if hooks is None:
        raise RuntimeError("codex app-server ended without answering hooks/list")
    if not any("car hook" in (hook.get("command") or "") for hook in hooks):
        raise RuntimeError(f"codex app-server lists no car hook for {project}: {hooks}")
    # Every hook of the project's own file: car's, and `--record`'s recorder when it is wired.
    project_hooks = [hook for hook in hooks if hook.get("source") == "project"]
    with open(config, "a") as file:
        for hook in project_hooks:
            key, trusted_hash = json.dumps(hook["key"]), json.dumps(hook["currentHash"])
            file.write(f"\n[hooks.state.{key}]\ntrusted_hash = {trusted_hash}\n")


class GeminiCli(Client):
    name = "gemini"
    api = "gemini"
    agent = "gemini"
    hooks_file = ".gemini/settings.json"
    record_events = ("SessionStart", "BeforeTool", "AfterAgent", "SessionEnd")
    failure_markers = (
        "hook execution error",
        "hook execution failed",
        "hook configuration error",
        "hook event bus error",
        "hook stdin",
        "invalid hook",
    )

    def prepare(self, root, project, env, standin_url):
        settings_dir = os.path.join(env["HOME"], ".gemini")
        os.makedirs(settings_dir, exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        with open(os.path.join(settings_dir, "settings.json"), "w") as file:
            json.dump(settings, file, indent=2)
        return {
            "GEMINI_API_KEY": "car-e2e-dummy-key",
            "GOOGLE_GEMINI_BASE_URL": standin_url,
            # Project hooks load only in a trusted folder.
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }

    def command(self, project):
        return [os.path.join(self.clients_bin, "gemini"), "-p", PROMPT, "--yolo"]


CLIENTS = [ClaudeCode, ClaudeCodePlugin, ClaudeCodeMcpHooks, Codex, GeminiCli]
