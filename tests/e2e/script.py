"""The scripted model: what the stand-in "decides" at each turn of the session, and what it checks.

The script is the same for every client; only the tool names and argument shapes differ (the API
adapters in standin.py translate). It is stateless: the step is the number of turns the model
already took in the conversation the client sent, so a retried request gets the same answer.

The steps:
  0. write bad.py with a syntax error through the client's edit tool
  1. car's message must be in this request: its PreToolUse/BeforeTool deny (the write was stopped,
     bad.py is not on disk) or its PostToolUse/AfterTool block         -> write bad.py fixed (a
     stopped write) or fix it with an edit (a blocked one)
  2. the fix must pass (no new error for bad.py)                          -> end the turn
  3. car's stop gate must have blocked with the review request            -> run the submit command
  4. the submit command's output must say the review was recorded         -> end the turn
  5+ a further request means the stop was blocked again: a failure        -> end the turn

Invariant: every check result is recorded once per step (the first request that reaches the step);
a missing step is reported by the runner as "the session never got to …".
"""

import html
import re
import shlex
import threading
from dataclasses import dataclass

import os

BAD_FILE = "bad.py"
BAD_CONTENT = "def f(:\n    return 1\n"
BAD_LINE = "def f(:"
FIXED_LINE = "def f():"
FIXED_CONTENT = "def f():\n    return 1\n"
# car's PreToolUse deny says the edit was not made.
STOPPED = "this edit was not made"
REVIEW_JSON = '{"findings": [], "known_limits": []}'

# car names itself in the stop reason either by its plain name or by the absolute path of the
# running binary, possibly quoted; the submit command line is the part that stays.
SUBMIT_COMMAND = re.compile(
    r"""(?:'(?P<single>[^'\n]+)'|"(?P<double>[^"\n]+)"|(?P<plain>[^\s`'"(]*\bcar))"""
    r"""\s+review\s+submit\s+--session[ =](?P<session>[A-Za-z0-9._:-]+)"""
)
# car's PostToolUse block names the file with line and column: "bad.py:1:7: … [python]".
VALIDATOR_ERROR = re.compile(re.escape(BAD_FILE) + r":\d+:\d+: [^\n]*\[python\]")

STEP_NAMES = {
    1: "car's message about the write with a syntax error reached the model",
    2: "the fix passed (no error for bad.py in the next request)",
    3: "the stop was blocked with car's review request",
    4: "the review submitted through the agent's shell was recorded",
}


@dataclass
class Write:
    path: str
    content: str


@dataclass
class Edit:
    path: str
    old: str
    new: str


@dataclass
class Shell:
    command: str


@dataclass
class Read:
    """A read of one file with the client's own tool (Codex: its shell)."""

    path: str


@dataclass
class Say:
    text: str


@dataclass
class Conversation:
    """What the adapters extract from one request of the main agent loop."""

    turns: int  # how many turns the model already took
    tail: str  # every string the client sent after the model's last turn, joined


class Script:
    """The scripted model for one client run, with the checks it made."""

    def __init__(self, project=None):
        self.lock = threading.Lock()
        self.checks = {}  # step -> (passed, detail)
        self.project = project
        # After step 1: whether car stopped the bad write before it landed (its deny reached the
        # model and bad.py was not on disk), and what was seen.
        self.stopped = None

    def record(self, step, passed, detail):
        with self.lock:
            self.checks.setdefault(step, (passed, detail))

    def reply(self, conversation):
        tail = html.unescape(conversation.tail)
        step = conversation.turns
        if step == 0:
            return Write(BAD_FILE, BAD_CONTENT)
        if step == 1:
            error = VALIDATOR_ERROR.search(tail)
            self.record(
                1,
                error is not None,
                error.group(0) if error else "no 'bad.py:LINE:COL: … [python]' in: " + excerpt(tail),
            )
            on_disk = self.project is not None and os.path.exists(os.path.join(self.project, BAD_FILE))
            with self.lock:
                if self.stopped is None:
                    self.stopped = (STOPPED in tail and not on_disk, on_disk)
            if STOPPED in tail:
                return Write(BAD_FILE, FIXED_CONTENT)
            return Edit(BAD_FILE, BAD_LINE, FIXED_LINE)
        if step == 2:
            error = VALIDATOR_ERROR.search(tail)
            self.record(
                2,
                error is None,
                "no error" if error is None else "still blocked: " + error.group(0),
            )
            return Say("Fixed bad.py. All done.")
        if step == 3:
            command = submit_command(tail)
            self.record(
                3,
                command is not None,
                command or "no 'review submit --session ID' in: " + excerpt(tail),
            )
            if command is None:
                return Say("I see no review request. All done.")
            return Shell(command)
        if step == 4:
            recorded = "recorded review" in tail
            self.record(
                4,
                recorded,
                "recorded"
                if recorded
                else "the submit's output is not 'recorded review …': " + excerpt(tail),
            )
            return Say("Review submitted; done.")
        self.record(5, False, "the stop was blocked again after the review: " + excerpt(tail))
        return Say("Done.")


def submit_command(text):
    """The shell command that pipes a review with no findings into the submit line car named."""
    match = SUBMIT_COMMAND.search(text)
    if match is None:
        return None
    program = match.group("single") or match.group("double") or match.group("plain")
    session = match.group("session")
    review, program, session = (shlex.quote(word) for word in (REVIEW_JSON, program, session))
    return f"printf '%s' {review} | {program} review submit --session {session} -"


def excerpt(text, limit=600):
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " …"
