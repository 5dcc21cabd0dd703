"""Replies of a language model kept on disk, so that a run can be repeated without calling
the model again (`eleusis_lab.chat.ChatEndpoint` reads and writes it).

A `ChatCache` is one SQLite file holding one row per request: the reply's text, its token
counts (in, out, reasoning), the model that wrote it and when it was stored; nothing
else (no prompt, no key, no settings: the row's key is a hash of those, made by the
caller). The file is in WAL mode, so that several processes and threads can read and
write it at once, and each `ChatCache.put` commits at once: a run killed halfway keeps
every reply it stored. A file that is not such a cache (damaged, another program's) is
refused with `ConfigError`, in one line naming it.

Examples
--------
>>> import tempfile
>>> cache = ChatCache(Path(tempfile.mkdtemp()) / "chat.sqlite")
>>> reply = {"text": "QH", "tokens_in": 12, "tokens_out": 1, "reasoning_tokens": 0,
...          "model": "tiny"}
>>> cache.put("a1b2", reply)
>>> row = cache.get("a1b2")
>>> row["text"], row["tokens_in"], row["model"], len(cache)
('QH', 12, 'tiny', 1)
>>> cache.get("c3d4") is None
True
>>> cache.close()
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eleusis_lab.errors import ConfigError

__all__ = ["FIELDS", "ChatCache"]

#: What a stored reply holds (besides ``stored``, the time it was stored, which
#: `ChatCache.put` sets): the fields `ChatCache.put` takes and `ChatCache.get` gives.
FIELDS = ("text", "tokens_in", "tokens_out", "reasoning_tokens", "model")

_TABLE = "chat_replies"
_COLUMNS = ("key", *FIELDS, "stored")
# Written into the file's header (PRAGMA application_id: "ELch") so that another
# program's SQLite file is told apart from a cache, and the format, for a later change.
_APPLICATION_ID = 0x454C6368
_FORMAT = 1
_SQLITE_HEADER = b"SQLite format 3\x00"
_BUSY_SECONDS = 30.0  # how long a write waits for another process's to finish


class ChatCache:
    """Replies stored by key in the SQLite file ``path`` (made, with its folders, if
    missing).

    Safe to share between threads (one connection, behind a lock) and between
    processes (each opens its own `ChatCache` on the same file). It pickles as its path:
    the copy opens the file again.

    Parameters
    ----------
    path : str or Path
        The cache's file.

    Raises
    ------
    ConfigError
        ``path`` exists and is not a chat cache (not an SQLite file, a damaged one, or
        another program's database).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "replies.sqlite"
    >>> with ChatCache(path) as cache:
    ...     cache.put("k", {"text": "yes", "tokens_in": 3, "tokens_out": 1,
    ...                     "reasoning_tokens": 0, "model": "m"})
    >>> len(ChatCache(path))
    1
    >>> _ = path.write_bytes(b"not a database")
    >>> ChatCache(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.ConfigError: .../replies.sqlite: not a chat cache: not an SQLite database
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = _open(self.path)

    def __repr__(self) -> str:
        return f"ChatCache({str(self.path)!r})"

    def __reduce__(self):
        return (type(self), (self.path,))

    def __enter__(self) -> ChatCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def get(self, key: str) -> dict[str, Any] | None:
        """The reply stored under ``key``: a dict of `FIELDS` and ``stored`` (when, an
        ISO 8601 time in UTC), or None."""
        _check_key(key)
        with self._lock:
            row = self._run("SELECT * FROM chat_replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return dict(zip(_COLUMNS[1:], row[1:], strict=True))

    def put(self, key: str, reply: dict[str, Any]) -> None:
        """Store ``reply`` (a dict of exactly `FIELDS`) under ``key``, replacing what was
        stored there, and commit at once."""
        _check_key(key)
        row = _check_reply(reply)
        stored = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock:
            self._run(
                "INSERT OR REPLACE INTO chat_replies VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, *row, stored),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._run("SELECT COUNT(*) FROM chat_replies").fetchone()[0]

    def close(self) -> None:
        """Close the file (again: nothing)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _run(self, sql: str, values: tuple = ()) -> sqlite3.Cursor:
        if self._connection is None:
            raise ValueError(f"{self.path}: the chat cache is closed")
        try:
            # The connection is in autocommit mode: a write is committed when it returns.
            return self._connection.execute(sql, values)
        except sqlite3.OperationalError:
            raise  # busy past the time-out, disk full...: not the file's fault
        except sqlite3.DatabaseError as error:  # damaged since it was opened
            raise ConfigError(f"{self.path}: damaged chat cache: {error}") from None


def _check_key(key: object) -> None:
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty str, not {key!r}")


def _check_reply(reply: object) -> tuple:
    if not isinstance(reply, dict) or set(reply) != set(FIELDS):
        got = sorted(reply) if isinstance(reply, dict) else type(reply).__name__
        raise ValueError(f"reply must be a dict of exactly {list(FIELDS)}, not {got}")
    for field in FIELDS:
        value = reply[field]
        if field in ("text", "model"):
            if not isinstance(value, str):
                raise ValueError(f"reply[{field!r}] must be a str, not {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"reply[{field!r}] must be an int >= 0, not {value!r}")
    return tuple(reply[field] for field in FIELDS)


def _open(path: Path) -> sqlite3.Connection:
    """A connection to the cache at ``path``, made if missing, or `ConfigError`."""

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"{path}: not a chat cache: {why}")

    if path.exists() and not path.is_file():
        raise refuse("not a file")
    # Read the header before SQLite does: it would take any file for an empty database
    # until the first query, and a file of another kind is best named as such.
    try:
        with path.open("rb") as file:
            header = file.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        header = b""
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise refuse(f"cannot read it ({error.strerror or error})") from None
    if header and header != _SQLITE_HEADER:
        raise refuse("not an SQLite database")
    try:
        connection = sqlite3.connect(
            path, timeout=_BUSY_SECONDS, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as error:
        raise refuse(f"cannot open it ({error})") from None
    try:
        _prepare(connection)
    except ConfigError as error:
        connection.close()
        raise refuse(str(error)) from None
    except sqlite3.OperationalError:
        connection.close()
        raise
    except sqlite3.DatabaseError as error:  # "file is not a database", "malformed"
        connection.close()
        raise refuse(f"damaged ({error})") from None
    return connection


def _prepare(connection: sqlite3.Connection) -> None:
    """Make an empty database a cache, or check that it is one (`ConfigError` saying why
    not)."""
    connection.execute("PRAGMA journal_mode=WAL")  # persistent: kept in the file
    connection.execute("BEGIN IMMEDIATE")  # two processes making the same file: one at a time
    try:
        application = connection.execute("PRAGMA application_id").fetchone()[0]
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
        if application == 0 and not tables:
            connection.execute(f"PRAGMA application_id = {_APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {_FORMAT}")
            connection.execute(
                "CREATE TABLE chat_replies (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
                " tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,"
                " reasoning_tokens INTEGER NOT NULL, model TEXT NOT NULL,"
                " stored TEXT NOT NULL)"
            )
        else:
            if application != _APPLICATION_ID:
                raise ConfigError("another program's SQLite database")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version != _FORMAT:
                raise ConfigError(f"format {version}, this version reads format {_FORMAT}")
            columns = connection.execute(f"PRAGMA table_info({_TABLE})").fetchall()
            if tuple(column[1] for column in columns) != _COLUMNS:
                raise ConfigError(f"its table {_TABLE} is missing or has other columns")
        connection.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise
