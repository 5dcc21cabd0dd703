"""The chat endpoint and its cache, through the official openai client against a real
(scripted) HTTP server: replies, retries, time-outs, the API key kept out of sight."""

import pickle
import socket
import sqlite3
import threading
import time
import traceback

import pytest
from chat_server import ChatServer, Stall, Status

from eleusis_lab.chat import ChatEndpoint, ChatError, Reply
from eleusis_lab.chat_cache import ChatCache
from eleusis_lab.errors import ConfigError

ASK = [
    {"role": "system", "content": "You play Eleusis."},
    {"role": "user", "content": "Which card do you play next?"},
]
SECRET = "sk-eleusis-test-4f9c2a7e81d3b6"


def endpoint(server, **options) -> ChatEndpoint:
    options = {"timeout": 2.0, "retries": 2, "backoff": 0.0, "api_key_env": None} | options
    return ChatEndpoint("tiny", server.base_url, **options)


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_reply_and_its_token_counts(server):
    server.reasoning_tokens = 7
    server.script("the queen of hearts")
    reply = endpoint(server).complete(ASK)
    assert isinstance(reply, Reply)
    assert reply.text == "the queen of hearts"
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == (9, 4, 7)
    assert (reply.attempts, reply.retried, reply.cached) == (1, (), False)
    assert 0 < reply.seconds < 2


def test_params_and_messages_reach_the_server_as_sent(server):
    params = {"temperature": 0.2, "max_tokens": 50, "seed": 3, "top_p": 0.9}
    params |= {"reasoning_effort": "low", "stop": ["\n\n"], "top_k": 5}  # top_k: vLLM's own
    reply = endpoint(server, params=params).complete(ASK, key={"seed": 11, "turn": 2})
    assert reply.text == "ok"  # the server's default
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"] == {"model": "tiny", "messages": ASK, **params}  # the key is not sent


def test_the_default_answers_from_the_prompt_once_the_script_is_used(server):
    server.default = lambda request: "you said: " + request["messages"][-1]["content"]
    server.script("scripted")
    chat = endpoint(server)
    assert chat.complete(ASK).text == "scripted"
    assert chat.complete(ASK).text == "you said: Which card do you play next?"


def test_a_429_is_retried_after_the_wait_the_server_asks_for(server):
    server.script(Status(429, retry_after=0), "after the wait")
    start = time.monotonic()
    reply = endpoint(server, backoff=30.0).complete(ASK)  # Retry-After: 0 wins over 30 s
    assert time.monotonic() - start < 5
    assert reply.text == "after the wait"
    assert (reply.attempts, reply.retried) == (2, ("429 Too Many Requests",))


def test_waits_double_and_retry_after_is_capped(server, monkeypatch):
    waits = []
    monkeypatch.setattr("eleusis_lab.chat.time.sleep", waits.append)
    server.script(Status(500), Status(502), Status(503), "third time lucky")
    reply = endpoint(server, retries=3, backoff=0.5).complete(ASK)
    assert waits == [0.5, 1.0, 2.0] and reply.attempts == 4
    assert reply.retried == (
        "500 Internal Server Error",
        "502 Bad Gateway",
        "503 Service Unavailable",
    )
    waits.clear()
    server.script(Status(503, retry_after=3600), Status(408), Status(409), "fine")
    assert endpoint(server, retries=3, backoff=0.25).complete(ASK).text == "fine"
    assert waits == [60.0, 0.5, 1.0]


def test_500s_past_the_retry_limit_are_a_chat_error_in_one_line(server):
    server.script(*[Status(500, message="the model fell over")] * 3)
    with pytest.raises(ChatError) as caught:
        endpoint(server, retries=2).complete(ASK)
    message = str(caught.value)
    assert "\n" not in message and server.base_url in message and "'tiny'" in message
    assert "500 Internal Server Error: the model fell over (3 attempts)" in message
    assert caught.value.attempts == 3 and len(server.requests) == 3


def test_a_client_error_is_not_retried(server):
    server.script(Status(400, message="unknown field\n'foo'"), "never asked for")
    with pytest.raises(ChatError, match=r"400 Bad Request: unknown field 'foo' \(1 attempt\)$"):
        endpoint(server, retries=3).complete(ASK)
    assert len(server.requests) == 1 and server.pending == 1


def test_a_stall_past_the_time_out_is_retried_then_answered(server):
    server.script(Stall(3.0), "in time")
    reply = endpoint(server, timeout=0.3).complete(ASK)
    assert reply.text == "in time"
    assert (reply.attempts, reply.retried) == (2, ("timed out after 0.3 s",))


def test_a_server_that_always_stalls_is_given_up_on_in_time(server):
    server.script(*[Stall(5.0)] * 3)
    start = time.monotonic()
    with pytest.raises(ChatError, match=r"timed out after 0\.3 s \(3 attempts\)"):
        endpoint(server, timeout=0.3, retries=2).complete(ASK)
    assert time.monotonic() - start < 3 * 0.3 + 1.5


def test_a_refused_connection_is_a_chat_error():
    chat = ChatEndpoint("tiny", f"http://127.0.0.1:{closed_port()}/v1", retries=1, backoff=0)
    with pytest.raises(ChatError, match=r"connection failed .*\(2 attempts\)") as caught:
        chat.complete(ASK)
    assert "\n" not in str(caught.value) and chat.base_url in str(caught.value)


def test_the_key_is_sent_and_shown_nowhere(server, tmp_path, monkeypatch):
    monkeypatch.setenv("ELEUSIS_TEST_CHAT_KEY", SECRET)
    cache = ChatCache(tmp_path / "chat.sqlite")
    chat = endpoint(server, api_key_env="ELEUSIS_TEST_CHAT_KEY", cache=cache, retries=1)
    server.script(f"I saw {SECRET}")  # a server that repeats the key
    reply = chat.complete(ASK)
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    assert reply.text == "I saw ***"
    shown = [repr(chat), str(vars(chat)), repr(reply), repr(cache.get(chat.cache_key(ASK)))]
    assert all(SECRET not in text for text in shown)
    assert SECRET.encode() not in pickle.dumps(chat)
    monkeypatch.setenv("ELEUSIS_TEST_CHAT_KEY", "sk-another")  # a copy reads the variable
    copy = pickle.loads(pickle.dumps(chat))
    assert copy.complete(ASK, key={"n": 2}).text == "ok"
    copy.cache.close()
    assert server.requests[-1]["headers"]["authorization"] == "Bearer sk-another"

    echo = Status(401, message=lambda request: "bad key " + request["headers"]["authorization"])
    server.script(echo, Status(503, message=f"overloaded, {SECRET}"), Status(503))
    for expected in ("401 Unauthorized: bad key Bearer ***", "503 Service Unavailable"):
        with pytest.raises(ChatError) as caught:
            chat.complete(ASK, key={"n": 3})
        error = caught.value
        shown = "".join(traceback.format_exception(error)) + repr(error) + str(error.retried)
        assert expected in str(error) and SECRET not in shown
        assert error.__context__ is None  # the client's exception holds the server's text
    cache.close()
    chat.close()
    files = list(tmp_path.iterdir())
    assert files and all(SECRET.encode() not in path.read_bytes() for path in files)


def test_without_a_key_a_placeholder_is_sent(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("ELEUSIS_TEST_NO_SUCH_KEY", raising=False)
    endpoint(server, api_key_env=None).complete(ASK)
    endpoint(server, api_key_env="ELEUSIS_TEST_NO_SUCH_KEY").complete(ASK)
    keys = [request["headers"]["authorization"] for request in server.requests]
    assert keys == ["Bearer not-needed", "Bearer not-needed"]


def test_mode_write_stores_and_answers_without_the_server(tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    with ChatServer() as server:
        server.reasoning_tokens = 2
        server.script("seven of clubs")
        chat = endpoint(server, cache=cache)
        first = chat.complete(ASK, key={"seed": 1, "turn": 4})
    assert len(cache) == 1
    row = cache.get(chat.cache_key(ASK, key={"seed": 1, "turn": 4}))
    assert set(row) == {"text", "tokens_in", "tokens_out", "reasoning_tokens", "model", "stored"}
    assert (row["text"], row["model"], row["reasoning_tokens"]) == ("seven of clubs", "tiny", 2)
    again = chat.complete(ASK, key={"turn": 4, "seed": 1})  # the server is gone
    counts = (first.tokens_in, first.tokens_out, first.reasoning_tokens)
    assert again == Reply("seven of clubs", *counts, 0.0, 0, (), cached=True)
    with pytest.raises(ChatError, match="connection failed"):
        chat.complete(ASK, key={"seed": 2, "turn": 4})


def test_mode_read_answers_from_the_cache_but_stores_nothing(server, tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    reader = endpoint(server, cache=cache, cache_mode="read")
    server.script("fresh", "stored")
    assert reader.complete(ASK).text == "fresh" and len(cache) == 0
    endpoint(server, cache=cache, cache_mode="write").complete(ASK)
    assert len(cache) == 1 and len(server.requests) == 2
    assert reader.complete(ASK) == Reply("stored", 9, 1, 0, 0.0, 0, (), cached=True)
    assert len(server.requests) == 2


def test_mode_off_neither_reads_nor_writes(server, tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    server.script("stored", "asked again")
    endpoint(server, cache=cache).complete(ASK)
    reply = endpoint(server, cache=cache, cache_mode="off").complete(ASK)
    assert (reply.text, reply.cached) == ("asked again", False)
    assert len(cache) == 1 and cache.get(endpoint(server).cache_key(ASK))["text"] == "stored"


def test_a_different_key_message_or_param_misses(server, tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    chat = endpoint(server, cache=cache, params={"temperature": 0.0})
    chat.complete(ASK, key={"seed": 1})
    chat.complete(ASK, key={"seed": 1})
    assert len(server.requests) == 1
    chat.complete(ASK, key={"seed": 2})
    chat.complete([*ASK[:1], {"role": "user", "content": "Which card now?"}], key={"seed": 1})
    endpoint(server, cache=cache, params={"temperature": 0.5}).complete(ASK, key={"seed": 1})
    ChatEndpoint("other", server.base_url, cache=cache).complete(ASK, key={"seed": 1})
    assert len(server.requests) == 5 and len(cache) == 5


def test_only_successful_replies_are_stored(server, tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    server.script(Status(404))
    with pytest.raises(ChatError, match="404 Not Found"):
        endpoint(server, cache=cache).complete(ASK)
    assert len(cache) == 0


def test_a_damaged_or_foreign_cache_file_is_refused(tmp_path):
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ConfigError) as caught:
        ChatCache(damaged)
    assert str(caught.value) == f"{damaged}: not a chat cache: not an SQLite database"
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    other.close()
    with pytest.raises(ConfigError, match="foreign.sqlite: not a chat cache: another program's"):
        ChatCache(foreign)
    broken = tmp_path / "broken.sqlite"
    ChatCache(broken).close()
    data = bytearray(broken.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # the header stays, the pages do not
    broken.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="broken.sqlite: not a chat cache: ") as caught:
        ChatCache(broken)
    assert "\n" not in str(caught.value)


def test_two_threads_writing_one_cache_file_lose_nothing(tmp_path):
    path = tmp_path / "chat.sqlite"
    shared = ChatCache(path)
    caches = [shared, shared, ChatCache(path), ChatCache(path)]  # a connection each: processes
    start = threading.Barrier(len(caches))

    def write(writer: int) -> None:
        start.wait()
        for n in range(150):
            reply = {"text": f"{writer}-{n}", "tokens_in": n, "tokens_out": 1}
            caches[writer].put(f"{writer}/{n}", reply | {"reasoning_tokens": 0, "model": "m"})

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(caches))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    again = ChatCache(path)
    assert len(again) == 4 * 150
    assert all(again.get(f"{w}/{n}")["text"] == f"{w}-{n}" for w in range(4) for n in range(150))


def test_endpoints_in_threads_share_a_cache(server, tmp_path):
    cache = ChatCache(tmp_path / "chat.sqlite")
    server.default = lambda request: request["messages"][-1]["content"].upper()
    chat = endpoint(server, cache=cache)
    texts = [f"card {n}" for n in range(40)]

    def ask(part: list[str]) -> None:
        for text in part:
            assert chat.complete([{"role": "user", "content": text}]).text == text.upper()

    threads = [threading.Thread(target=ask, args=(texts[i::2],)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 40 and len(server.requests) == 40


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model": ""}, "model must be a non-empty str, not ''"),
        ({"model": 3}, "model must be a non-empty str, not 3"),
        ({"base_url": "ftp://example.org/v1"}, r"base_url must be an http\(s\) URL, not .*"),
        ({"base_url": "127.0.0.1:8000/v1"}, r"base_url must be an http\(s\) URL, not .*"),
        ({"timeout": 0}, "timeout must be a number of seconds > 0 and <= 86400, not 0"),
        ({"timeout": 86401}, "timeout must be .* not 86401"),
        ({"timeout": float("nan")}, "timeout must be .* not nan"),
        ({"retries": 11}, "retries must be an int from 0 to 10, not 11"),
        ({"retries": True}, "retries must be an int from 0 to 10, not True"),
        ({"backoff": -1}, "backoff must be a number of seconds >= 0, not -1"),
        ({"cache_mode": "readwrite"}, "cache_mode must be one of .* not 'readwrite'"),
        ({"params": [("temperature", 0)]}, "params must be None or a mapping"),
        ({"params": {"temperature": float("inf")}}, r"params\['temperature'\] must hold JSON"),
        ({"params": {"stop": [object()]}}, r"params\['stop'\]\[0\] must hold JSON"),
        ({"params": {"stream": True}}, "params may not set 'stream'"),
        ({"cache": "chat.sqlite"}, "cache must be None or a ChatCache, not 'chat.sqlite'"),
        ({"api_key_env": ""}, "api_key_env must be None or a variable's name"),
    ],
)
def test_arguments_are_checked(options, message):
    arguments = {"model": "tiny"} | options
    with pytest.raises(ValueError, match=message):
        ChatEndpoint(arguments.pop("model"), **arguments)


def test_messages_and_keys_are_checked():
    chat = ChatEndpoint("tiny")
    for messages in ([], "hello", [{"role": "user"}], [{"role": "user", "content": 3}]):
        with pytest.raises(ValueError, match="messages"):
            chat.complete(messages)
    with pytest.raises(ValueError, match=r"key\['at'\] must hold JSON values"):
        chat.complete(ASK, key={"at": object()})
    chat.close()
    with pytest.raises(ChatError, match="closed"):
        chat.complete(ASK)


def test_numpy_numbers_in_a_key_are_plain_json():
    np = pytest.importorskip("numpy")
    chat = ChatEndpoint("tiny")
    assert chat.cache_key(ASK, key={"seed": np.int64(3)}) == chat.cache_key(ASK, key={"seed": 3})
    assert chat.cache_key(ASK, key={"seed": 3}) != chat.cache_key(ASK, key={"seed": 4})
