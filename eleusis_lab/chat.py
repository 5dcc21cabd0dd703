"""One chat-completions endpoint of a language model: any server speaking OpenAI's chat API
(OpenAI, vLLM, llama.cpp, Ollama...), called through the official ``openai`` client
(``pip install 'eleusis-lab[llm]'``).

A `ChatEndpoint` sends a conversation and gives back a `Reply`: the text, the tokens
the server counted (in, out, reasoning), the wall time, and every retry it made and why.
It retries what may pass on a second try (429, 408, 409, 5xx, time-outs, connection
errors) itself, with exponential backoff (or the server's ``Retry-After``), so that each
is recorded; anything else, or the last failure, is a `ChatError` in one line naming
the endpoint.

The API key is read from an environment variable when the endpoint is made and kept
only inside the client object: it is in no repr, pickle, `Reply`, cache row or error
message (any occurrence in a server's answer is replaced by ``***``).

With a `eleusis_lab.chat_cache.ChatCache`, replies are stored by a hash of everything
that makes the request (model, base URL, parameters, messages, and the caller's own
``key``, such as a game's seed and turn), so a run can be repeated without the model:

>>> import tempfile
>>> from pathlib import Path
>>> cache = ChatCache(Path(tempfile.mkdtemp()) / "chat.sqlite")
>>> endpoint = ChatEndpoint("tiny", "http://127.0.0.1:9/v1", api_key_env=None,
...                         cache=cache, cache_mode="read")
>>> endpoint
ChatEndpoint(model='tiny', base_url='http://127.0.0.1:9/v1')
>>> messages = [{"role": "user", "content": "Name a red card."}]
>>> cache.put(endpoint.cache_key(messages, key={"seed": 7}),
...           {"text": "QH", "tokens_in": 4, "tokens_out": 1, "reasoning_tokens": 0,
...            "model": "tiny"})
>>> reply = endpoint.complete(messages, key={"seed": 7})  # no server there: from the cache
>>> reply.text, reply.tokens_in, reply.cached, reply.attempts, reply.seconds
('QH', 4, True, 0, 0.0)
>>> endpoint.close()
"""

from __future__ import annotations

import email.utils
import functools
import hashlib
import http
import inspect
import json
import math
import numbers
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from eleusis_lab.chat_cache import ChatCache
from eleusis_lab.llm_cache_mode import CACHE_MODE_ENV, CACHE_MODES, cache_mode_in_force

__all__ = [
    "CACHE_MODES",
    "CACHE_MODE_ENV",
    "MAX_RETRY_AFTER",
    "ChatEndpoint",
    "ChatError",
    "Reply",
    "cache_mode_in_force",
]

#: The longest wait before a retry that a server's ``Retry-After`` may ask for, in seconds.
MAX_RETRY_AFTER = 60.0

_NO_KEY = "not-needed"  # the client insists on a key; a local server needs none
_RETRIED_STATUSES = frozenset({408, 409, 429})  # and every 5xx
# Keys of ``params`` that are not part of the request's body, or that this module sets.
_RESERVED = frozenset(
    {"model", "messages", "stream", "extra_headers", "extra_query", "extra_body", "timeout"}
)
_DETAIL = 200  # the most of a server's error message an error repeats, in characters


@dataclass(frozen=True)
class Reply:
    """A model's answer to one `ChatEndpoint.complete` call.

    Attributes
    ----------
    text : str
        The first choice's message content ("" when the server sent none).
    tokens_in, tokens_out, reasoning_tokens : int
        The tokens the server counted: prompt, completion, and of the completion the
        reasoning ones (0 for what the server did not report).
    seconds : float
        Wall time from the first call to the reply, waits between retries included
        (0.0 when served from the cache).
    attempts : int
        Calls made: 1 + retries (0 when served from the cache).
    retried : tuple of str
        Why each retry was made, one short line each, e.g. ``"429 Too Many Requests"``.
    cached : bool
        Served from the cache.

    Examples
    --------
    >>> Reply("KS", 30, 1, 0, 0.8, 2, ("503 Service Unavailable",)).attempts
    2
    """

    text: str
    tokens_in: int
    tokens_out: int
    reasoning_tokens: int
    seconds: float
    attempts: int
    retried: tuple[str, ...]
    cached: bool = False


class ChatError(Exception):
    """A call that failed for good: after its retries, or at once for an answer no retry
    would change (a 4xx other than 408, 409 and 429, an answer that is no chat
    completion). One line naming the endpoint's base URL and model and what failed;
    never the API key.

    ``attempts`` and ``retried`` say what was tried, as in `Reply`.

    Examples
    --------
    >>> raise ChatError("chat endpoint http://127.0.0.1:8000/v1, model 'tiny': 404 Not Found")
    Traceback (most recent call last):
    ...
    eleusis_lab.chat.ChatError: chat endpoint http://127.0.0.1:8000/v1, model 'tiny': 404 Not Found
    """

    def __init__(self, message: str, *, attempts: int = 0, retried: tuple[str, ...] = ()):
        super().__init__(message)
        self.attempts = attempts
        self.retried = retried


@dataclass(frozen=True)
class _Failure:
    """One call that did not give a reply: why, and whether a retry may help."""

    reason: str  # short: "503 Service Unavailable"
    detail: str  # the reason and what the server said, for the error
    retry: bool
    wait: float | None = None  # what the server's Retry-After asks for


class ChatEndpoint:
    """One model at one OpenAI-compatible chat-completions endpoint.

    Parameters
    ----------
    model : str
        The model's name, as the server knows it.
    base_url : str
        The API's root (``http`` or ``https``), up to and including ``/v1``.
    api_key_env : str or None
        The environment variable holding the API key, read now (a missing one is fine:
        a local server needs no key). None: send no key.
    timeout : float
        Seconds one call may take (0 < timeout <= 86400).
    retries : int
        How many times a call that may pass on a second try is made again (0 to 10).
    backoff : float
        Seconds before the first retry; each next waits twice as long. A server's
        ``Retry-After`` (at most `MAX_RETRY_AFTER` seconds) is waited instead.
    params : mapping, optional
        Sent with every request: ``temperature``, ``max_tokens``, ``seed``,
        ``reasoning_effort``... (JSON values). Names the client does not know (a
        server's own, such as vLLM's ``top_k``) are sent as they are too.
    cache : ChatCache, optional
        Where replies are kept (the caller's to close: several endpoints may share it).
    cache_mode : str
        One of `CACHE_MODES`: "write" answers from the cache and stores new replies,
        "read" answers from it but stores nothing, "off" ignores it.

    Safe to call from several threads at once. It pickles as its arguments, never its
    key: the copy reads the variable again (and opens its own copy of the cache).

    Raises
    ------
    ValueError
        An argument out of its range, naming it and its value.

    Examples
    --------
    >>> endpoint = ChatEndpoint("tiny", params={"temperature": 0.0, "max_tokens": 64})
    >>> endpoint.base_url, endpoint.retries, dict(endpoint.params)
    ('http://127.0.0.1:11434/v1', 3, {'temperature': 0.0, 'max_tokens': 64})
    >>> endpoint.close()
    >>> ChatEndpoint("tiny", timeout=0)
    Traceback (most recent call last):
    ...
    ValueError: timeout must be a number of seconds > 0 and <= 86400, not 0
    """

    def __init__(
        self,
        model: str,
        base_url: str = "http://127.0.0.1:11434/v1",
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 1.0,
        params: Mapping[str, Any] | None = None,
        cache: ChatCache | None = None,
        cache_mode: str = "write",
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty str, not {model!r}")
        self.model = model
        self.base_url = _check_base_url(base_url)
        if api_key_env is not None and (not isinstance(api_key_env, str) or not api_key_env):
            raise ValueError(f"api_key_env must be None or a variable's name, not {api_key_env!r}")
        self.api_key_env = api_key_env
        self.timeout = _check_number("timeout", timeout, 0, 86400, low_open=True)
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ValueError(f"retries must be an int from 0 to 10, not {retries!r}")
        self.retries = retries
        self.backoff = _check_number("backoff", backoff, 0, math.inf)
        self.params: Mapping[str, Any] = MappingProxyType(_check_params(params))
        if cache is not None and not isinstance(cache, ChatCache):
            raise ValueError(f"cache must be None or a ChatCache, not {cache!r}")
        self.cache = cache
        if cache_mode not in CACHE_MODES:
            raise ValueError(f"cache_mode must be one of {CACHE_MODES}, not {cache_mode!r}")
        self.cache_mode = cache_mode
        try:
            import openai
        except ImportError:
            raise ImportError(
                "ChatEndpoint needs the openai client: pip install 'eleusis-lab[llm]'"
            ) from None
        secret = os.environ.get(api_key_env) if api_key_env is not None else None
        # The key lives in the client only: no attribute of ours holds it.
        self._client: Any = openai.OpenAI(
            api_key=secret or _NO_KEY, base_url=self.base_url, timeout=self.timeout, max_retries=0
        )

    def __repr__(self) -> str:
        return f"ChatEndpoint(model={self.model!r}, base_url={self.base_url!r})"

    def __reduce__(self):
        # Pickled as its arguments, never its key: the copy reads the variable again.
        options = {
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "retries": self.retries,
            "backoff": self.backoff,
            "params": dict(self.params),
            "cache": self.cache,
            "cache_mode": self.cache_mode,
        }
        return (_rebuild, (self.model, self.base_url, options))

    def __enter__(self) -> ChatEndpoint:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client's connections (again: nothing). The cache stays open."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def cache_key(
        self, messages: Sequence[Mapping[str, str]], *, key: Mapping[str, Any] | None = None
    ) -> str:
        """The cache's key for this request: the sha256 (hex) of the canonical JSON of
        the model, base URL, parameters, messages and the caller's ``key``."""
        return self._cache_key(_check_messages(messages), _check_json(key or {}, "key"))

    def complete(
        self, messages: Sequence[Mapping[str, str]], *, key: Mapping[str, Any] | None = None
    ) -> Reply:
        """The model's reply to ``messages`` (``[{"role": ..., "content": ...}, ...]``).

        ``key``: what else tells this request apart in the cache (JSON values: a game's
        seed and turn...); it is not sent. Raises `ChatError` when the call fails for
        good, `ValueError` for messages or a key of the wrong form.
        """
        sent = _check_messages(messages)
        if key is not None and not isinstance(key, Mapping):
            raise ValueError(f"key must be None or a mapping, not {key!r}")
        extra = _check_json(key or {}, "key")
        if self._client is None:
            raise ChatError(f"{self._where()}: the endpoint is closed")
        cache = self.cache if self.cache_mode != "off" else None
        digest = self._cache_key(sent, extra) if cache is not None else ""
        if cache is not None:
            row = cache.get(digest)
            if row is not None:
                counts = (row["tokens_in"], row["tokens_out"], row["reasoning_tokens"])
                return Reply(row["text"], *counts, 0.0, 0, (), cached=True)
        reply, served_by = self._call(sent)
        if cache is not None and self.cache_mode == "write":
            stored = {"text": reply.text, "tokens_in": reply.tokens_in}
            stored |= {"tokens_out": reply.tokens_out, "reasoning_tokens": reply.reasoning_tokens}
            cache.put(digest, stored | {"model": served_by})
        return reply

    def _where(self) -> str:
        return f"chat endpoint {self.base_url}, model {self.model!r}"

    def _cache_key(self, messages: list[dict[str, str]], key: dict[str, Any]) -> str:
        request = {
            "model": self.model,
            "base_url": self.base_url,
            "params": dict(self.params),
            "messages": messages,
            "key": key,
        }
        canonical = json.dumps(
            request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _scrub(self, text: str) -> str:
        """``text`` with the API key, wherever it appears, replaced by ``***``."""
        secret = getattr(self._client, "api_key", None)
        if secret and secret != _NO_KEY:
            text = text.replace(secret, "***")
        return text

    def _call(self, messages: list[dict[str, str]]) -> tuple[Reply, str]:
        """The reply and the name of the model the server says wrote it, retrying what
        may pass; `ChatError` raised outside any ``except``, so that no exception of
        the client (whose text may hold the key) rides along as its context."""
        start = time.monotonic()
        retried: list[str] = []
        for attempt in range(self.retries + 1):
            outcome = self._attempt(messages)
            if not isinstance(outcome, _Failure):
                text, tokens, served_by = outcome
                seconds = time.monotonic() - start
                reply = Reply(text, *tokens, seconds, attempt + 1, tuple(retried))
                return reply, served_by
            if not outcome.retry or attempt == self.retries:
                break
            retried.append(outcome.reason)
            time.sleep(outcome.wait if outcome.wait is not None else self.backoff * 2**attempt)
        attempts = len(retried) + 1
        what = f"{outcome.detail} ({attempts} attempt{'s' if attempts > 1 else ''}"
        if any(reason != outcome.reason for reason in retried):
            what += "; before: " + ", ".join(retried)
        message = self._scrub(f"{self._where()}: {what})")
        raise ChatError(message, attempts=attempts, retried=tuple(retried))

    def _attempt(self, messages: list[dict[str, str]]) -> tuple | _Failure:
        """One call: (text, (tokens in, out, reasoning), model) or why it failed."""
        import openai

        known, unknown = _split_params(self._client, self.params)
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=messages,
                **known,
                **({"extra_body": unknown} if unknown else {}),
            )
        except openai.APIStatusError as error:
            status = error.status_code
            reason = _status_line(status)
            said = _server_message(error.body)
            echoed = not said or said.lower() in reason.lower()  # "500 ...: Internal Server Error"
            detail = self._scrub(reason if echoed else f"{reason}: {said}")
            retry = status in _RETRIED_STATUSES or status >= 500
            return _Failure(reason, detail, retry, _retry_after(error.response.headers))
        except openai.APITimeoutError:
            reason = f"timed out after {self.timeout:g} s"
            return _Failure(reason, reason, retry=True)
        except openai.APIConnectionError as error:
            cause = error.__cause__
            why = _one_line(str(cause) or type(cause).__name__) if cause else str(error)
            reason = self._scrub(f"connection failed ({why})")
            return _Failure(reason, reason, retry=True)
        except openai.OpenAIError as error:  # e.g. an answer the client cannot read
            reason = self._scrub(_one_line(f"{type(error).__name__}: {error}"))
            return _Failure(reason, reason, retry=False)
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError):
            reason = "the answer is not a chat completion (no choices)"
            return _Failure(reason, reason, retry=False)
        text = self._scrub("" if content is None else str(content))
        usage = getattr(response, "usage", None)
        details = getattr(usage, "completion_tokens_details", None)
        tokens = (
            _count(getattr(usage, "prompt_tokens", None)),
            _count(getattr(usage, "completion_tokens", None)),
            _count(getattr(details, "reasoning_tokens", None)),
        )
        served_by = getattr(response, "model", None)
        return text, tokens, served_by if isinstance(served_by, str) and served_by else self.model


def _rebuild(model: str, base_url: str, options: dict[str, Any]) -> ChatEndpoint:
    return ChatEndpoint(model, base_url, **options)


def _check_number(name: str, value: object, low: float, high: float, low_open=False) -> float:
    fits = (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and not math.isnan(value)
        and (value > low if low_open else value >= low)
        and value <= high
        and math.isfinite(value)
    )
    if not fits:
        bounds = f"{'>' if low_open else '>='} {low:g}"
        if math.isfinite(high):
            bounds += f" and <= {high:g}"
        raise ValueError(f"{name} must be a number of seconds {bounds}, not {value!r}")
    return float(value)


def _check_base_url(base_url: object) -> str:
    parts = urlsplit(base_url) if isinstance(base_url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be an http(s) URL, not {base_url!r}")
    return base_url.rstrip("/")


def _check_json(value: object, name: str) -> Any:
    """``value`` as plain JSON values (numpy's numbers become Python's), or `ValueError`."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if math.isfinite(value):
            return float(value)
    elif isinstance(value, Mapping):
        plain = {}
        for item, inner in value.items():
            if not isinstance(item, str):
                raise ValueError(f"{name} must have str keys, not {item!r}")
            plain[item] = _check_json(inner, f"{name}[{item!r}]")
        return plain
    elif isinstance(value, list | tuple):
        return [_check_json(inner, f"{name}[{i}]") for i, inner in enumerate(value)]
    raise ValueError(f"{name} must hold JSON values, not {value!r}")


def _check_params(params: object) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise ValueError(f"params must be None or a mapping, not {params!r}")
    plain = _check_json(params, "params")
    reserved = sorted(_RESERVED.intersection(plain))
    if reserved:
        raise ValueError(f"params may not set {reserved[0]!r}: {dict(params)!r}")
    return plain


def _check_messages(messages: object) -> list[dict[str, str]]:
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence) or not messages:
        raise ValueError(f"messages must be a non-empty list of mappings, not {messages!r}")
    plain = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping) or not {"role", "content"} <= set(message):
            raise ValueError(f"messages[{i}] must be a mapping with role and content")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in message.items()):
            raise ValueError(f"messages[{i}] must map str to str, not {dict(message)!r}")
        plain.append(dict(message))
    return plain


@functools.cache
def _create_parameters(create: Any) -> frozenset[str]:
    """The request fields the client's ``create`` takes as arguments."""
    names = inspect.signature(create).parameters
    return frozenset(names) - _RESERVED


def _split_params(client: Any, params: Mapping[str, Any]) -> tuple[dict, dict]:
    """``params`` as the client's arguments and, for what it does not know, extra body."""
    known = _create_parameters(type(client.chat.completions).create)
    inside = {name: value for name, value in params.items() if name in known}
    return inside, {name: value for name, value in params.items() if name not in known}


def _status_line(status: int) -> str:
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _server_message(body: object) -> str:
    """What an error's body says, on one line and short."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        said = inner.get("message") if isinstance(inner, Mapping) else inner
        if not isinstance(said, str):
            said = json.dumps(body, default=str)
    elif body is None:
        return ""
    else:
        said = str(body)
    return _one_line(said)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL else text[: _DETAIL - 3] + "..."


def _retry_after(headers: Any) -> float | None:
    """The wait a ``Retry-After`` (or ``retry-after-ms``) header asks for, capped at
    `MAX_RETRY_AFTER`; None without one that reads."""
    wait = None
    try:
        if headers.get("retry-after-ms") is not None:
            wait = float(headers["retry-after-ms"]) / 1000
        elif headers.get("retry-after") is not None:
            value = headers["retry-after"].strip()
            try:
                wait = float(value)
            except ValueError:  # an HTTP date
                wait = (
                    email.utils.parsedate_to_datetime(value) - datetime.now(UTC)
                ).total_seconds()
    except (TypeError, ValueError, OverflowError):
        return None
    if wait is None or math.isnan(wait):
        return None
    return min(max(wait, 0.0), MAX_RETRY_AFTER)


def _count(value: object) -> int:
    """A token count the server reported, 0 for a missing or meaningless one."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
