"""What a study keeps while it runs: participants, their games and every decision, in
one SQLite file of the study's folder (`StudyStore`), and the study's secrets.

Each decision is one transaction (``synchronous = FULL``, write-ahead log): once a
participant's answer is acknowledged it is on disk, and a server that crashes, is
killed or restarts loses no finished decision. A participant's id is never stored: only
its keyed hash (`hash_id`, HMAC-SHA256 with the study's salt), from which nobody
without the salt can tell whose it is, and which the same id gives again when he comes
back.

The tables (read them with `load_participants` and `load_decisions`):

``participants``
    ``number`` (the counter, from 1), ``id_hash``, ``id_param`` (the URL parameter it
    came in), ``consented``, ``finished`` (times, seconds since the epoch).
``games``
    ``id`` (the study's game number: the ``shard`` of its rows), ``participant``,
    ``position`` (0 the first game he plays), ``label``, ``block`` (null: practice),
    ``deal`` (`eleusis_lab.web.study.Deal.key`), ``game_type``, ``cell``, ``game``,
    ``seed``, ``seat``, ``started``, ``finished``, ``score``, ``acknowledged`` (he saw
    the result), ``stored`` (the shard written to the results, its name).
``decisions``
    ``game_id``, ``number`` (0, 1, ...), ``kind`` (card, move, statement; Delphi's
    predict; New Eleusis' turn, prophet, call, no_play_call), ``card`` (Delphi: the
    card judged; New Eleusis: the cards of the turn or of the play called, separated by
    spaces), ``typed`` (the rule as he typed it), ``rule`` (as the game was given it),
    ``confidence`` (Delphi: his probability that the card is right), ``declare`` (New
    Eleusis: he became the Prophet), ``shown`` (when the page asking it was first served),
    ``answered``, ``response_ms`` (answered - shown), ``client_ms`` (the time the page
    measured in the browser, when it ran), ``events`` (the game's plays before it: the
    ``index`` of its own play in the event table), ``answer`` (the JSON the replay reads).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "DATABASE",
    "SECRETS",
    "StudyStore",
    "hash_id",
    "load_decisions",
    "load_participants",
    "study_secrets",
]

#: The study's database, in its folder.
DATABASE = "study.sqlite3"
#: The study's secrets (the salt of the ids, the key that signs the cookies), made once.
SECRETS = ".study-secrets.json"
SALT_ENV, KEY_ENV = "ELEUSIS_STUDY_SALT", "ELEUSIS_STUDY_SECRET"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS participants (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    id_hash TEXT NOT NULL UNIQUE,
    id_param TEXT,
    consented REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    participant INTEGER NOT NULL REFERENCES participants(number),
    position INTEGER NOT NULL,
    label TEXT NOT NULL,
    block INTEGER,
    deal TEXT NOT NULL,
    game_type TEXT NOT NULL,
    cell TEXT,
    game INTEGER,
    seed INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    started REAL,
    finished REAL,
    score REAL,
    acknowledged REAL,
    stored TEXT,
    UNIQUE (participant, position)
);
CREATE TABLE IF NOT EXISTS decisions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    card TEXT,
    typed TEXT,
    rule TEXT,
    confidence REAL,
    declare INTEGER,
    shown REAL,
    answered REAL NOT NULL,
    response_ms INTEGER,
    client_ms INTEGER,
    events INTEGER,
    answer TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE IF NOT EXISTS shown (
    game_id INTEGER NOT NULL,
    number INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, number)
);
"""


def hash_id(salt: bytes, param: str, value: str) -> str:
    """The keyed hash of a participant's id ``value`` as URL parameter ``param`` gave it.

    >>> hash_id(b"salt", "PROLIFIC_PID", "abc") == hash_id(b"salt", "PROLIFIC_PID", "abc")
    True
    >>> hash_id(b"salt", "PROLIFIC_PID", "abc") == hash_id(b"pepper", "PROLIFIC_PID", "abc")
    False
    """
    message = f"{param}\x00{value}".encode()
    return hmac.new(salt, message, hashlib.sha256).hexdigest()


def study_secrets(folder: str | Path) -> tuple[bytes, str]:
    """The study's salt and cookie key: from the environment (``ELEUSIS_STUDY_SALT``,
    ``ELEUSIS_STUDY_SECRET``), else from the folder's `SECRETS` file, made on first use
    (readable by its owner alone). Keep the file: a new salt makes returning
    participants new ones, a new key ends every session."""
    path = Path(folder) / SECRETS
    stored: dict[str, str] = {}
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
    if not {"salt", "key"} <= stored.keys():
        stored = {"salt": secrets.token_hex(32), "key": secrets.token_hex(32), **stored}
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(stored, file)
    salt = os.environ.get(SALT_ENV) or stored["salt"]
    key = os.environ.get(KEY_ENV) or stored["key"]
    return salt.encode(), key


class StudyStore:
    """The study's SQLite database (see the module docstring); one connection, its
    transactions one at a time (the app's threads share it)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.lock = threading.Lock()
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction, committed whole or not at all."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _rows(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    # -- participants ---------------------------------------------------------------------

    def participant(self, id_hash: str) -> sqlite3.Row | None:
        """The participant whose id has this hash, if he consented."""
        rows = self._rows("SELECT * FROM participants WHERE id_hash = ?", id_hash)
        return rows[0] if rows else None

    def participant_number(self, number: int) -> sqlite3.Row | None:
        rows = self._rows("SELECT * FROM participants WHERE number = ?", number)
        return rows[0] if rows else None

    def count(self) -> int:
        """Participants so far."""
        return self._rows("SELECT COUNT(*) FROM participants")[0][0]

    def add_participant(
        self, id_hash: str, id_param: str, deals_of: Any, limit: int | None = None
    ) -> int | None:
        """A new participant, numbered by the counter, and his games: ``deals_of(number)``
        gives his deals (`eleusis_lab.web.assign.assignment`). His number; None when
        the study is full (``limit``). The same id again is the same participant."""
        with self.transaction() as db:
            found = db.execute(
                "SELECT number FROM participants WHERE id_hash = ?", (id_hash,)
            ).fetchone()
            if found is not None:
                return found[0]
            if (
                limit is not None
                and db.execute("SELECT COUNT(*) FROM participants").fetchone()[0] >= limit
            ):
                return None
            cursor = db.execute(
                "INSERT INTO participants (id_hash, id_param, consented) VALUES (?, ?, ?)",
                (id_hash, id_param, time.time()),
            )
            number = cursor.lastrowid
            for position, deal in enumerate(deals_of(number)):
                db.execute(
                    "INSERT INTO games (participant, position, label, block, deal, game_type,"
                    " cell, game, seed, seat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        number,
                        position,
                        deal.label,
                        deal.block,
                        deal.key,
                        deal.game_type,
                        None if deal.practice else deal.cell.label,
                        None if deal.practice else deal.game,
                        deal.seed,
                        deal.seat,
                    ),
                )
            return number

    def finish_participant(self, number: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE participants SET finished = ? WHERE number = ? AND finished IS NULL",
                (time.time(), number),
            )

    # -- games ----------------------------------------------------------------------------

    def games(self, participant: int) -> list[sqlite3.Row]:
        """His games, in the order he plays them."""
        return self._rows(
            "SELECT * FROM games WHERE participant = ? ORDER BY position", participant
        )

    def game(self, game_id: int) -> sqlite3.Row:
        return self._rows("SELECT * FROM games WHERE id = ?", game_id)[0]

    def answers(self, game_id: int) -> list[dict[str, Any]]:
        """The answers of a game, in order, as the replay reads them."""
        rows = self._rows("SELECT answer FROM decisions WHERE game_id = ? ORDER BY number", game_id)
        return [json.loads(row[0]) for row in rows]

    def decision_times(self, game_id: int) -> list[sqlite3.Row]:
        return self._rows(
            "SELECT number, shown, answered FROM decisions WHERE game_id = ? ORDER BY number",
            game_id,
        )

    def shown(self, game_id: int, number: int) -> None:
        """Decision ``number`` of the game was shown now: kept the first time only (a
        reload does not restart its clock); the game starts with its first page."""
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO shown (game_id, number, at) VALUES (?, ?, ?)",
                (game_id, number, now),
            )
            db.execute(
                "UPDATE games SET started = ? WHERE id = ? AND started IS NULL", (now, game_id)
            )

    def add_decision(
        self,
        game_id: int,
        number: int,
        answer: Mapping[str, Any],
        events: int,
        client_ms: int | None,
        finished: bool = False,
        score: float | None = None,
    ) -> bool:
        """Store answer ``number`` of a game, and end the game with it when ``finished``,
        in one transaction. False when that answer is stored already (the same form
        posted twice, or from an old page): nothing changes."""
        now = time.time()
        with self.transaction() as db:
            known = db.execute(
                "SELECT COUNT(*) FROM decisions WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            if known != number:
                return False
            shown = db.execute(
                "SELECT at FROM shown WHERE game_id = ? AND number = ?", (game_id, number)
            ).fetchone()
            shown_at = None if shown is None else shown[0]
            db.execute(
                "INSERT INTO decisions (game_id, number, kind, card, typed, rule, confidence,"
                " declare, shown, answered, response_ms, client_ms, events, answer)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    number,
                    answer["kind"],
                    answer.get("card"),
                    answer.get("typed"),
                    answer.get("rule"),
                    answer.get("probability", answer.get("confidence")),
                    None if "declare" not in answer else int(bool(answer["declare"])),
                    shown_at,
                    now,
                    None if shown_at is None else round((now - shown_at) * 1000),
                    client_ms,
                    events,
                    json.dumps(dict(answer), sort_keys=True),
                ),
            )
            if finished:
                db.execute(
                    "UPDATE games SET finished = ?, score = ? WHERE id = ?", (now, score, game_id)
                )
            return True

    def acknowledge(self, game_id: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE games SET acknowledged = ? WHERE id = ? AND acknowledged IS NULL",
                (time.time(), game_id),
            )

    def stored(self, game_id: int, shard: str) -> None:
        """The finished game's shard is written to the results."""
        with self.transaction() as db:
            db.execute("UPDATE games SET stored = ? WHERE id = ?", (shard, game_id))

    def unstored(self) -> list[sqlite3.Row]:
        """Finished games whose results are not written yet (a crash in between)."""
        return self._rows(
            "SELECT * FROM games WHERE finished IS NOT NULL AND stored IS NULL ORDER BY id"
        )


def _frame(folder: str | Path, sql: str) -> Any:
    import pandas as pd  # only when asked

    path = Path(folder) / DATABASE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no study database here")
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
        return pd.read_sql_query(sql, db)


def load_participants(folder: str | Path) -> Any:
    """The study's participants, one row each, with how many games each finished (a
    pandas DataFrame; the hash of the id, never the id)."""
    return _frame(
        folder,
        "SELECT p.number AS participant, p.id_hash, p.id_param, p.consented, p.finished,"
        " COUNT(g.finished) AS games_finished FROM participants p LEFT JOIN games g"
        " ON g.participant = p.number GROUP BY p.number ORDER BY p.number",
    )


def load_decisions(folder: str | Path) -> Any:
    """Every decision of the study's participants, one row each, with its game: the
    response times, the rules as typed and as given to the game, and the Prophet's
    calls (``call``: 1 right, 0 wrong) (a pandas DataFrame).
    ``shard`` and ``index`` join a decision to its play in the event table (the study's
    ``experiment``); the practice game's decisions have a null ``block``."""
    return _frame(
        folder,
        "SELECT g.participant, g.id AS shard, g.position, g.label, g.block, g.game_type,"
        " g.cell, g.game, g.seed, g.seat, d.number AS decision, d.kind, d.card,"
        ' d.events AS "index", d.typed, d.rule, d.confidence, d.declare,'
        " json_extract(d.answer, '$.right') AS call, d.shown,"
        " d.answered, d.response_ms, d.client_ms FROM decisions d JOIN games g"
        " ON g.id = d.game_id ORDER BY g.participant, g.position, d.number",
    )
