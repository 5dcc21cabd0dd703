"""A scripted chat-completions server on 127.0.0.1, for the tests of the language-model
code: a real HTTP server (a thread of this process) speaking enough of OpenAI's chat API
for the official client, so the tests run the client's own requests and error handling.

    with ChatServer() as server:
        server.script("first reply", Status(429, retry_after=0), Stall(2.0), "last reply")
        server.default = lambda request: "answer to " + request["messages"][-1]["content"]
        endpoint = ChatEndpoint("tiny", server.base_url, timeout=1.0)
        ...
        server.requests[0]["json"]["messages"]   # what the client sent, in order

Each request to ``POST /v1/chat/completions`` takes the next step of the script: a str
is a reply's text, a `Status` an error answer, a `Stall` a wait before answering. Once
the script is used up, ``server.default(request_json)`` gives the reply's text. Token
counts: prompt_tokens is the number of whitespace-separated words of all messages,
completion_tokens that of the reply, reasoning_tokens ``server.reasoning_tokens``.
"""

from __future__ import annotations

import functools
import http
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Status:
    """Answer with HTTP status ``code`` and an OpenAI-style error body.

    ``retry_after``: the ``Retry-After`` header's seconds (None: no header);
    ``message``: the error's message, or a function of the recorded request (a dict of
    ``path``, ``headers``, ``json``) giving it; by default the status's phrase.
    """

    code: int
    retry_after: float | None = None
    message: str | Callable[[dict[str, Any]], str] | None = None


@dataclass(frozen=True)
class Stall:
    """Wait ``seconds`` before answering (with ``reply``, or the default reply), to make a
    client time out. Closing the server ends the wait."""

    seconds: float
    reply: str | None = None


Step = str | Status | Stall


def _words(content: Any) -> int:
    if isinstance(content, str):
        return len(content.split())
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        return sum(_words(part.get("text", "")) for part in content if isinstance(part, dict))
    return 0


class ChatServer:
    """The server: start it with ``with ChatServer() as server:`` (or `start`), and
    stop it by leaving the block (or `close`); a stopped server's port refuses
    connections."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.default: Callable[[dict[str, Any]], str] = lambda request: "ok"
        self.reasoning_tokens = 0
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def port(self) -> int:
        return self._port

    def script(self, *steps: Step) -> None:
        """Add ``steps`` to the end of the script."""
        for step in steps:
            if not isinstance(step, str | Status | Stall):
                raise TypeError(f"a step is a str, Status or Stall, not {step!r}")
        with self._lock:
            self._steps.extend(steps)

    @property
    def pending(self) -> int:
        """How many scripted steps are not used yet."""
        with self._lock:
            return len(self._steps)

    def start(self) -> ChatServer:
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._closing.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False  # a stalled answer must not hold up close()
        self._port = self._server.server_address[1]
        # A short poll: shutdown() waits up to one interval, at the end of every test.
        serve = functools.partial(self._server.serve_forever, poll_interval=0.02)
        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is None:
            return
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        self._server = None

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _next(self, request: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(request)
            if self._steps:
                return self._steps.popleft()
        return self.default(request["json"])


class _Handler(BaseHTTPRequestHandler):
    server_owner: ChatServer
    # HTTP/1.0: one request per connection, so a closed server refuses every later call
    # (no kept-alive connection outlives it).
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet in the tests
        pass

    def do_GET(self) -> None:
        self._send(404, {"error": {"message": f"no GET {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no POST {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": {"message": "the body is not JSON", "type": "invalid"}})
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = {"path": self.path, "headers": headers, "json": body}
        owner = self.server_owner
        try:
            step = owner._next(request)
            if isinstance(step, Stall):
                if owner._closing.wait(step.seconds):
                    return
                step = step.reply if step.reply is not None else owner.default(body)
            if not isinstance(step, str | Status):
                raise TypeError(f"the default gave {step!r}, not a str")
        except Exception as error:  # a test's default that failed: say so in the answer
            failed = f"the test server's default failed: {error!r}"
            self._send(500, {"error": {"message": failed, "type": "server_error"}})
            return
        if isinstance(step, Status):
            message = step.message(request) if callable(step.message) else step.message
            phrase = http.HTTPStatus(step.code).phrase
            error = {"message": message or phrase, "type": "error", "code": step.code}
            extra = {} if step.retry_after is None else {"Retry-After": f"{step.retry_after:g}"}
            self._send(step.code, {"error": error}, extra)
            return
        prompt = sum(_words(message.get("content")) for message in body.get("messages", []))
        completion = _words(step)
        answer = {
            "id": f"chatcmpl-{len(owner.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": step},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "completion_tokens_details": {"reasoning_tokens": owner.reasoning_tokens},
            },
        }
        self._send(200, answer)

    def _send(self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        data = json.dumps(body).encode("utf-8")
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass
