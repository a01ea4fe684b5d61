"""The MCP step: in a session of its own, the scripted model calls car's `lessons_for` MCP tool
(which `car install` registered with the client) and checks that the tool's answer, a lesson's
text, reaches its next request.

The steps:
  0. call the MCP tool named `…lessons_for` the client offers, for the file LESSON_FILE
  1+ the lesson's text must be in this request (the tool's result)      -> end the turn
     (a client that only names the tool until the model loads it, Claude Code's ToolSearch, gets
     the call again: the adapter loads the tool first; after MAX_TURNS the step failed)

The lesson has weight 1, below the session-start briefing's threshold, so only the tool can have
carried it to the model. Each client names MCP tools its own way; the adapters in standin.py find
the one offered whose name ends in the tool's name, and the name is reported.
"""

import html
import threading
from dataclasses import dataclass

from script import Say, excerpt

TOOL = "lessons_for"
LESSON_FILE = "app.py"
LESSON_SCOPE = "*.py"
LESSON_TRIGGER = "MCP-E2E-TRIGGER"
LESSON_TEXT = "E2E MCP marker: call the settings loader, never read settings.json by hand."
PROMPT = "Which lessons does car know for app.py? Ask car, then stop."

# Turns the model may take to reach the tool (loading it first counts as one).
MAX_TURNS = 3

STEP_NAME = "car's MCP tool lessons_for answered, and its lesson reached the model's next request"


@dataclass
class McpCall:
    """A call of the MCP tool whose offered name ends in `tool`."""

    tool: str
    arguments: dict


@dataclass
class ToolCall:
    """A call of one of the client's own tools by its name (Claude Code's ToolSearch)."""

    name: str
    arguments: dict


def offered_name(names, tool):
    """The name under which the client offers the MCP tool `tool` (None when it offers none)."""
    matches = sorted(name for name in names if isinstance(name, str) and name.endswith(tool))
    return matches[0] if matches else None


class McpScript:
    """The scripted model of the MCP step, with its check and the tool name the client used."""

    def __init__(self, project=None):
        self.lock = threading.Lock()
        self.checks = {}
        self.project = project
        self.offered = None  # the tool's name as the client offered it
        self.loaded_by = None  # the tool the model had to call first to load it, if any

    def loaded_with(self, name):
        with self.lock:
            self.loaded_by = self.loaded_by or name

    def saw_tool(self, name):
        with self.lock:
            if self.offered is None:
                self.offered = name

    def reply(self, conversation):
        step = conversation.turns
        tail = html.unescape(conversation.tail)
        if step > 0 and LESSON_TEXT in tail:
            self.record(True, "the lesson's text")
            return Say("car knows one lesson for app.py. Done.")
        if step < MAX_TURNS:
            return McpCall(TOOL, {"path": LESSON_FILE})
        self.record(False, "no lesson text in: " + excerpt(tail))
        return Say("Done.")

    def record(self, passed, detail):
        with self.lock:
            self.checks.setdefault(1, (passed, detail))
