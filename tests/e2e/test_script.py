"""The scripted model reads car's messages however car words them (python3 -m unittest, from tests/e2e)."""

import shlex
import unittest

from script import Conversation, Edit, Script, Shell, Write, submit_command


def argv(command):
    """The submit half of the piped command, split as the shell would."""
    return shlex.split(command.split(" | ", 1)[1])


class SubmitCommand(unittest.TestCase):
    def test_the_plain_name(self):
        reason = (
            "record it:\n  car review submit --session 3f1c-9a55 FILE\n"
            "or pipe it: car review submit --session 3f1c-9a55 -"
        )
        self.assertEqual(
            argv(submit_command(reason)), ["car", "review", "submit", "--session", "3f1c-9a55", "-"]
        )

    def test_an_absolute_path(self):
        reason = "Run: /usr/local/bin/car review submit --session 01a2-7e5f -"
        self.assertEqual(argv(submit_command(reason))[0], "/usr/local/bin/car")

    def test_a_quoted_path_with_a_space(self):
        reason = "Run: '/opt/my tools/car' review submit --session s1 FILE"
        self.assertEqual(argv(submit_command(reason))[:2], ["/opt/my tools/car", "review"])

    def test_in_backticks(self):
        reason = "record it with `car review submit --session edce-d931 -` and stop again"
        self.assertEqual(argv(submit_command(reason))[4], "edce-d931")

    def test_none_without_the_command(self):
        self.assertIsNone(submit_command("car: the file you just edited has errors"))

    def test_the_review_is_piped_in(self):
        command = submit_command("car review submit --session s1 -")
        self.assertTrue(
            command.startswith("printf '%s' '{\"findings\": [], \"known_limits\": []}' | "), command
        )


class Steps(unittest.TestCase):
    def test_html_escaped_reason_still_names_the_command(self):
        # Codex hands a Stop block's reason to the model HTML-escaped.
        script = Script()
        tail = "&lt;rules&gt; review &lt;/rules&gt;\n/w/target/debug/car review submit --session s9 -"
        action = script.reply(Conversation(3, tail))
        self.assertIsInstance(action, Shell)
        self.assertIn("/w/target/debug/car review submit --session s9 -", action.command)
        self.assertEqual(script.checks[3][0], True)

    def test_the_validator_message_must_name_file_line_and_checker(self):
        script = Script()
        script.reply(Conversation(1, "car: fix them now:\nbad.py:1:7: SyntaxError: invalid syntax [python]"))
        self.assertEqual(script.checks[1][0], True)
        other = Script()
        other.reply(Conversation(1, "File created successfully at: /p/bad.py"))
        self.assertEqual(other.checks[1][0], False)

    def test_a_stopped_write_is_written_again_fixed_and_a_blocked_one_is_edited(self):
        stopped = Script()
        action = stopped.reply(
            Conversation(1, "car: this edit was not made: …\nbad.py:1:7: SyntaxError: x [python]")
        )
        self.assertIsInstance(action, Write)
        self.assertEqual(action.content, "def f():\n    return 1\n")
        self.assertEqual(stopped.stopped, (True, False))
        blocked = Script()
        action = blocked.reply(Conversation(1, "car: fix them now:\nbad.py:1:7: SyntaxError: x [python]"))
        self.assertIsInstance(action, Edit)
        self.assertEqual(blocked.stopped, (False, False))

    def test_a_request_after_the_allowed_stop_is_a_failure(self):
        script = Script()
        script.reply(Conversation(5, "car: review R2 required before stopping"))
        self.assertEqual(script.checks[5][0], False)


if __name__ == "__main__":
    unittest.main()
