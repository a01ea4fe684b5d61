"""The recall step: in a session of its own, the scripted model reads a file and then calls car's
`lessons_for` MCP tool (which `car install` registered with the client), and checks that car's
answers reach its next requests: the lessons of the file with the read, before any edit of it, and
the tool's answer.

The steps:
  0. read LESSON_FILE with the client's own read tool (Claude Code `Read`, Gemini CLI
     `read_file`, Codex its shell: `sed -n '1,200p' app.py`)
  1. car's lessons of the file must be in this request, with the read's result (READ_TEXT under
     car's header)                                                       -> call the MCP tool named
     `…lessons_for` the client offers, for LESSON_FILE
  2+ the tool's lesson text must be in this request (the tool's result)  -> end the turn
     (a client that only names the tool until the model loads it, Claude Code's ToolSearch, gets
     the call again: the adapter loads the tool first; after MAX_TURNS the step failed)

The read's lesson (weight 3, scope app.py) is in the session-start briefing too, which comes before
the model's first turn: only the text that came after the read counts. The tool's lesson has
weight 1, below the briefing's threshold (and a read's), so only the tool can have carried it to
the model. Each client names MCP tools its own way; the adapters in standin.py find the one
offered whose name ends in the tool's name, and the name is reported.
"""

import html
import threading
from dataclasses import dataclass

from script import Read, Say, excerpt

TOOL = "lessons_for"
LESSON_FILE = "app.py"
LESSON_SCOPE = "*.py"
LESSON_TRIGGER = "MCP-E2E-TRIGGER"
LESSON_TEXT = "E2E MCP marker: call the settings loader, never read settings.json by hand."
PROMPT = "Read app.py, then ask car which lessons it knows for app.py, then stop."
# The file's content, committed before the session.
FILE_CONTENT = "settings = {}\n"

# The lesson of the file that car gives with the agent's read of it.
READ_SCOPE = LESSON_FILE
READ_TRIGGER = "READ-E2E-TRIGGER("
READ_TEXT = "E2E read marker: change app.py's settings through the loader only."
READ_HEADER = "car: the lessons of this project for app.py"

# Turns the model may take to reach the tool (the read, and loading the tool first, count as one).
MAX_TURNS = 4

READ_STEP_NAME = "car's lessons of app.py reached the model with its read of the file, before any edit"
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
        if step == 0:
            return Read(LESSON_FILE)
        if step == 1:
            read = READ_HEADER in tail and READ_TEXT in tail
            self.record(0, read, "car's header and the lesson" if read else "no lessons of app.py in: " + excerpt(tail))
        if step > 1 and LESSON_TEXT in tail:
            self.record(1, True, "the lesson's text")
            return Say("car knows lessons for app.py. Done.")
        if step < MAX_TURNS:
            return McpCall(TOOL, {"path": LESSON_FILE})
        self.record(1, False, "no lesson text in: " + excerpt(tail))
        return Say("Done.")

    def record(self, step, passed, detail):
        with self.lock:
            self.checks.setdefault(step, (passed, detail))
