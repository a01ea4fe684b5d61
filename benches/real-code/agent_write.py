"""An agent's Write through `car hook post-tool-use` (real-code-bench --inject, --edits,
--edits-from-history).

The payload has the shape Claude Code sends after its Write tool (see
tests/fixtures/hook-payloads/captured/): `tool_response.originalFile` carries the file as it was
before (None for a new file), so car can tell what the edit introduced. The file is on disk with
the new content before the hook runs, as it is after a real Write.
"""

import json
import os
import re
import subprocess

MODULE_NOT_FOUND = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")


def payload(project, path, original, content, session):
    return {
        "session_id": session, "cwd": project, "permission_mode": "bypassPermissions",
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": path, "content": content},
        "tool_response": {"type": "create" if original is None else "update", "filePath": path,
                          "content": content, "structuredPatch": [], "originalFile": original,
                          "userModified": False},
        "tool_use_id": f"toolu_{session}",
    }


def answer(car, project, path, original, content, home, session="real-code-bench"):
    """car's answer (JSON, {} when it gave none) to a Write of `content` at `path` (absolute,
    inside `project`, already holding `content`)."""
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               NO_COLOR="1")
    try:
        r = subprocess.run([car, "hook", "post-tool-use"],
                           input=json.dumps(payload(project, path, original, content, session)),
                           capture_output=True, text=True, cwd=project, env=env, timeout=120)
        return json.loads(r.stdout or "{}")
    except (subprocess.TimeoutExpired, ValueError):
        return {}


def verdict(reply):
    """"block: syntax", "block: import" (a missing module), "told" (not blocked, but the
    agent is told of a possible slip or shown a validator's warning) or "silent"."""
    if reply.get("decision") == "block":
        return "block: import" if MODULE_NOT_FOUND.search(reply.get("reason", "")) else "block: syntax"
    context = (reply.get("hookSpecificOutput") or {}).get("additionalContext") or ""
    if "a possible slip" in context or "car warning:" in context:
        return "told"
    return "silent"
