"""What keeps the study's server safe on the internet, as ASGI middleware: a bound on a
request's body (`BodyLimit`, 413), on the pace of requests (`RateLimit`, 429: a token
bucket per session and one per address), and the headers every answer carries
(`SecurityHeaders`: no script, style or form from elsewhere, no framing, no referrer,
no caching of pages).

Examples
--------
>>> bucket = TokenBucket(burst=2, per_second=1.0)
>>> [bucket.take("a", now=0.0) for _ in range(3)], bucket.take("a", now=1.0)
([True, True, False], True)
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from typing import Any

__all__ = ["BodyLimit", "RateLimit", "SecurityHeaders", "TokenBucket"]

Scope = dict[str, Any]

#: The headers of every answer.
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        b" form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


async def _plain(send: Any, status: int, text: str, headers: list | None = None) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse a request whose body is larger than ``max_bytes`` (413): by its
    ``Content-Length`` before it is read, or as its chunks arrive."""

    def __init__(self, app: Any, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            return await _plain(send, 413, "413: the request is too large")
        received = 0
        started = False

        async def limited() -> dict[str, Any]:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _TooLarge
            return message

        async def watched(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, watched)
        except _TooLarge:
            if not started:
                await _plain(send, 413, "413: the request is too large")


class TokenBucket:
    """A token bucket per key: ``burst`` requests at once, then ``per_second``; the
    least recently seen keys are forgotten beyond ``keys``."""

    def __init__(self, burst: float, per_second: float, keys: int = 20_000):
        self.burst, self.rate, self.keys = burst, per_second, keys
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.lock = threading.Lock()

    def take(self, key: str, now: float | None = None) -> bool:
        """Take a token for ``key``: False when its bucket is empty."""
        now = time.monotonic() if now is None else now
        with self.lock:
            tokens, then = self.buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= 1
            self.buckets[key] = (tokens - 1 if allowed else tokens, now)
            while len(self.buckets) > self.keys:
                self.buckets.popitem(last=False)
        return allowed

    def wait(self) -> int:
        """Seconds to wait for one token."""
        return max(1, math.ceil(1 / self.rate)) if self.rate > 0 else 60


class RateLimit:
    """At most a ``session`` bucket's pace per session cookie, and an ``address``
    bucket's per client address (a client that drops or makes up cookies is still
    one address); beyond it 429, with ``Retry-After``. Static files are not counted."""

    def __init__(
        self,
        app: Any,
        session: tuple[float, float],
        address: tuple[float, float],
        cookie: str = "session",
    ):
        self.app = app
        self.sessions = TokenBucket(*session)
        self.addresses = TokenBucket(*address)
        self.cookie = cookie.encode()

    def _session(self, scope: Scope) -> str | None:
        for name, value in scope.get("headers") or []:
            if name == b"cookie":
                for part in value.split(b";"):
                    key, _, cookie = part.strip().partition(b"=")
                    if key == self.cookie and cookie:
                        return hashlib.sha256(cookie).hexdigest()
        return None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/static/"):
            return await self.app(scope, receive, send)
        client = scope.get("client")
        address = client[0] if client else "unknown"
        session = self._session(scope)
        for bucket, key in ((self.addresses, address), (self.sessions, session)):
            if key is not None and not bucket.take(key):
                wait = str(bucket.wait()).encode()
                return await _plain(
                    send,
                    429,
                    "429: too many requests; wait a moment, then reload the page",
                    [(b"retry-after", wait)],
                )
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Add `SECURITY_HEADERS` to every answer, and ``Cache-Control: no-store`` to all
    but the static files."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        static = scope.get("path", "").startswith("/static/")

        async def headed(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers += SECURITY_HEADERS
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, headed)
