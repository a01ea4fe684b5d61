"""A model API stand-in on 127.0.0.1 that plays the scripted model (script.py) for one client.

It speaks the streaming API each client uses:
  anthropic  Messages API, server-sent events (Claude Code)
  openai     Responses API, server-sent events (Codex, wire_api = "responses")
  gemini     generateContent / streamGenerateContent with alt=sse (Gemini CLI)

Requests of the agent loop (the ones that offer the client's edit tool) go to the script; side
requests (titles, routing, "who speaks next", token counts) get a short fixed answer. Every
request is kept in `requests` for the runner's report.

Invariant: each reply is written whole and the connection closed after it (Claude Code otherwise
waits for its idle watchdog before it reads the end of the stream).
"""

import json
import os
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mcp_step import McpCall, ToolCall, offered_name
from script import Conversation, Edit, Read, Say, Shell, Write


class StandIn:
    def __init__(self, api, script, project):
        self.api = ADAPTERS[api](project)
        self.script = script
        self.requests = []  # (path, body or None)
        self.errors = []  # what the stand-in could not answer
        self.lock = threading.Lock()
        handler = type("Handler", (Handler,), {"standin": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def save(self, path):
        """Every request the client sent, one JSON object a line (for a look at a failed run)."""
        with open(path, "w") as file:
            for method, url, body in self.requests:
                file.write(json.dumps({"method": method, "path": url, "body": body}) + "\n")

    def answer(self, method, path, body):
        """(status, content type, bytes) for one request."""
        with self.lock:
            self.requests.append((method, path, body))
        try:
            return self.api.answer(method, path, body, self.script)
        except Exception as error:  # a stand-in bug must show in the report, not hang the client
            with self.lock:
                self.errors.append(f"{method} {path}: {error!r}")
            # 400, not 500: the clients retry a server error for minutes, a bad request never.
            message = {"type": "error", "error": {"type": "invalid_request_error", "message": repr(error)}}
            return 400, "application/json", json.dumps(message).encode()


class Handler(BaseHTTPRequestHandler):
    standin = None
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.send(*self.standin.answer("POST", self.path, body))

    def do_GET(self):
        self.send(*self.standin.answer("GET", self.path, None))

    def send(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args):
        pass


def sse(events):
    """Server-sent events from (event name or None, data) pairs."""
    out = []
    for name, data in events:
        if name:
            out.append("event: " + name)
        out.append("data: " + json.dumps(data))
        out.append("")
    return ("\n".join(out) + "\n").encode()


def strings(value):
    """Every string inside a JSON value, in order (what a model would read)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)


def call_id():
    return uuid.uuid4().hex[:16]


def mcp_tool(names, action, script):
    """The client's name for the MCP tool an McpCall asks for; the script learns it."""
    name = offered_name(names, action.tool)
    if name is None:
        raise ValueError(
            "the request offers no MCP tool named …{}: {}".format(action.tool, ", ".join(sorted(map(str, names))))
        )
    script.saw_tool(name)
    return name


class Anthropic:
    """Claude Code: POST /v1/messages (stream true) and /v1/messages/count_tokens."""

    def __init__(self, project):
        self.project = project  # Claude Code's file tools take absolute paths

    def answer(self, method, path, body, script):
        if "count_tokens" in path:
            return 200, "application/json", b'{"input_tokens": 100}'
        if method != "POST" or not path.startswith("/v1/messages") or body is None:
            return 404, "application/json", b'{"error": {"message": "not here"}}'
        tools = {tool.get("name") for tool in body.get("tools") or []}
        if "Write" in tools:
            messages = body.get("messages") or []
            turns = [i for i, message in enumerate(messages) if message.get("role") == "assistant"]
            after = messages[turns[-1] + 1 :] if turns else messages
            action = script.reply(Conversation(len(turns), "\n".join(strings(after))))
        else:
            action = Say("ok")
        if isinstance(action, McpCall) and offered_name(tools, action.tool) is None:
            action = self.load_deferred(action, tools, body, script)
        blocks = self.blocks(action, tools, script)
        if not body.get("stream"):
            return 200, "application/json", json.dumps(self.message(body, blocks)).encode()
        return 200, "text/event-stream", sse(self.events(body, blocks))

    @staticmethod
    def load_deferred(action, tools, body, script):
        """Claude Code names MCP tools in a system message and offers ToolSearch to load them (its
        deferred tools): the model first selects the tool by its exact name."""
        deferred = sorted(set(re.findall(r"\b\w*" + re.escape(action.tool) + r"\b", "\n".join(strings(body.get("system"))) + "\n".join(strings(body.get("messages"))))))
        if "ToolSearch" not in tools or not deferred:
            return action
        script.loaded_with("ToolSearch")
        return ToolCall("ToolSearch", {"query": "select:" + deferred[0]})

    def blocks(self, action, tools=(), script=None):
        if isinstance(action, Say):
            return [{"type": "text", "text": action.text}]
        if isinstance(action, McpCall):
            name = mcp_tool(tools, action, script)
            return [{"type": "tool_use", "id": "toolu_" + call_id(), "name": name, "input": action.arguments}]
        if isinstance(action, ToolCall):
            return [{"type": "tool_use", "id": "toolu_" + call_id(), "name": action.name, "input": action.arguments}]
        if isinstance(action, Read):
            name, args = "Read", {"file_path": os.path.join(self.project, action.path)}
        elif isinstance(action, Write):
            name, args = (
                "Write",
                {"file_path": os.path.join(self.project, action.path), "content": action.content},
            )
        elif isinstance(action, Edit):
            name, args = (
                "Edit",
                {
                    "file_path": os.path.join(self.project, action.path),
                    "old_string": action.old,
                    "new_string": action.new,
                },
            )
        else:
            name, args = "Bash", {"command": action.command, "description": "record the review"}
        return [{"type": "tool_use", "id": "toolu_" + call_id(), "name": name, "input": args}]

    def stop_reason(self, blocks):
        return "tool_use" if any(block["type"] == "tool_use" for block in blocks) else "end_turn"

    def message(self, body, blocks):
        return {
            "id": "msg_" + call_id(),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude"),
            "content": blocks,
            "stop_reason": self.stop_reason(blocks),
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 10},
        }

    def events(self, body, blocks):
        start = self.message(body, [])
        start["stop_reason"] = None
        yield "message_start", {"type": "message_start", "message": start}
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                opening = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                opening = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": self.stop_reason(blocks), "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        )
        yield "message_stop", {"type": "message_stop"}


class OpenAIResponses:
    """Codex: POST /v1/responses (stream true); apply_patch and the shell tool as the request offers them."""

    MODEL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "reasoning"}

    def __init__(self, project):
        pass  # apply_patch takes paths relative to the session's cwd

    def answer(self, method, path, body, script):
        if method != "POST" or not path.rstrip("/").endswith("/responses") or body is None:
            return 404, "application/json", b'{"error": {"message": "not here"}}'
        tools = {self.tool_name(tool): tool for tool in body.get("tools") or []}
        items = body.get("input") or []
        if "apply_patch" in tools:
            turns = [i for i, item in enumerate(items) if self.is_model_turn(item)]
            after = items[turns[-1] + 1 :] if turns else items
            action = script.reply(Conversation(len(turns), "\n".join(strings(after))))
        else:
            action = Say("ok")
        if isinstance(action, McpCall) and offered_name(tools, action.tool) is None:
            item = self.deferred_call(action, tools, items, script)
        else:
            item = self.item(action, tools, script)
        response_id = "resp_" + call_id()
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        }
        events = [
            ("response.created", {"type": "response.created", "response": {"id": response_id}}),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
            ),
        ]
        return 200, "text/event-stream", sse(events)

    @staticmethod
    def tool_name(tool):
        return tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type")

    def is_model_turn(self, item):
        if item.get("type") in self.MODEL_ITEMS - {"reasoning"}:
            return True
        return item.get("type", "message") == "message" and item.get("role") == "assistant"

    @staticmethod
    def deferred_call(action, tools, items, script):
        """Codex defers MCP tools: it names their server's namespace (`mcp__car`), the model
        searches with `tool_search`, and calls a tool the search returned by its namespace and
        name."""
        found = {
            namespace["name"] + "__" + tool["name"]: (namespace["name"], tool["name"])
            for item in items
            if item.get("type") == "tool_search_output"
            for namespace in item.get("tools") or []
            if namespace.get("type") == "namespace"
            for tool in namespace.get("tools") or []
        }
        name = offered_name(found, action.tool)
        if name is not None:
            script.saw_tool(name)
            namespace, function = found[name]
            item = OpenAIResponses.call(function, {function: {}}, "", action.arguments)
            item["namespace"] = namespace
            return item
        if "tool_search" not in tools:
            return mcp_tool(tools, action, script)  # raises: nothing offers the tool
        script.loaded_with("tool_search")
        return {
            "type": "tool_search_call",
            "call_id": "call_" + call_id(),
            "execution": "client",
            "arguments": {"query": action.tool, "limit": 1},
        }

    def item(self, action, tools, script=None):
        if isinstance(action, McpCall):
            name = mcp_tool(tools, action, script)
            return self.call(name, tools, json.dumps(action.arguments), action.arguments)
        if isinstance(action, Say):
            return {
                "type": "message",
                "role": "assistant",
                "id": "msg_" + call_id(),
                "content": [{"type": "output_text", "text": action.text}],
            }
        if isinstance(action, Read):
            # Codex reads through its shell, the way its model does.
            action = Shell("sed -n '1,200p' " + action.path)
        if isinstance(action, Write):
            added = "".join("+" + line + "\n" for line in action.content.splitlines())
            patch = f"*** Begin Patch\n*** Add File: {action.path}\n{added}*** End Patch\n"
            return self.call("apply_patch", tools, patch, {"input": patch})
        if isinstance(action, Edit):
            change = f"@@\n-{action.old}\n+{action.new}\n"
            patch = f"*** Begin Patch\n*** Update File: {action.path}\n{change}*** End Patch\n"
            return self.call("apply_patch", tools, patch, {"input": patch})
        for name, arguments in (
            ("shell_command", {"command": action.command}),
            ("exec_command", {"cmd": action.command}),
            ("shell", {"command": ["bash", "-lc", action.command]}),
        ):
            if name in tools:
                return self.call(name, tools, action.command, arguments)
        raise ValueError("the request offers no shell tool: " + ", ".join(sorted(map(str, tools))))

    @staticmethod
    def call(name, tools, freeform, arguments):
        """A custom (freeform) tool call when the tool is declared custom, else a function call."""
        if tools[name].get("type") == "custom":
            return {
                "type": "custom_tool_call",
                "id": "ctc_" + call_id(),
                "call_id": "call_" + call_id(),
                "name": name,
                "input": freeform,
            }
        return {
            "type": "function_call",
            "id": "fc_" + call_id(),
            "call_id": "call_" + call_id(),
            "name": name,
            "arguments": json.dumps(arguments),
        }


class Gemini:
    """Gemini CLI: POST /v1beta/models/M:streamGenerateContent?alt=sse, :generateContent, :countTokens."""

    # Side requests that want JSON (model routing, "who speaks next") get one object that answers all.
    SIDE_JSON = {
        "reasoning": "scripted stand-in",
        "next_speaker": "user",
        "model_choice": "flash",
        "complexity_reasoning": "scripted stand-in",
        "complexity_score": 10,
    }

    def __init__(self, project):
        self.project = project  # Gemini CLI's file tools take absolute paths

    def answer(self, method, path, body, script):
        if method != "POST" or body is None:
            return 404, "application/json", b'{"error": {"message": "not here"}}'
        if ":countTokens" in path:
            return 200, "application/json", b'{"totalTokens": 100}'
        declared = {
            declaration.get("name")
            for tool in body.get("tools") or []
            for declaration in tool.get("functionDeclarations") or []
        }
        if "write_file" in declared:
            contents = body.get("contents") or []
            turns = [i for i, content in enumerate(contents) if content.get("role") == "model"]
            after = contents[turns[-1] + 1 :] if turns else contents
            action = script.reply(Conversation(len(turns), "\n".join(strings(after))))
            parts = self.parts(action, declared, script)
        elif (body.get("generationConfig") or {}).get("responseMimeType") == "application/json":
            parts = [{"text": json.dumps(self.SIDE_JSON)}]
        else:
            parts = [{"text": "ok"}]
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
            "modelVersion": "gemini-2.5-pro",
        }
        if ":streamGenerateContent" in path:
            return 200, "text/event-stream", sse([(None, chunk)])
        return 200, "application/json", json.dumps(chunk).encode()

    def parts(self, action, declared=(), script=None):
        if isinstance(action, Say):
            return [{"text": action.text}]
        if isinstance(action, McpCall):
            return [{"functionCall": {"name": mcp_tool(declared, action, script), "args": action.arguments}}]
        if isinstance(action, Read):
            call = {"name": "read_file", "args": {"file_path": os.path.join(self.project, action.path)}}
        elif isinstance(action, Write):
            call = {
                "name": "write_file",
                "args": {"file_path": os.path.join(self.project, action.path), "content": action.content},
            }
        elif isinstance(action, Edit):
            call = {
                "name": "replace",
                "args": {
                    "file_path": os.path.join(self.project, action.path),
                    "old_string": action.old,
                    "new_string": action.new,
                    "instruction": "close the parenthesis",
                },
            }
        else:
            call = {
                "name": "run_shell_command",
                "args": {"command": action.command, "description": "submit the review"},
            }
        return [{"functionCall": call}]


ADAPTERS = {"anthropic": Anthropic, "openai": OpenAIResponses, "gemini": Gemini}
