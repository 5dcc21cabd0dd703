"""Where a participant stands and what his requests do (`StudyFlow`): the study's
logic between the web pages (`eleusis_lab.web.app`) and the store
(`eleusis_lab.web.store`), free of HTTP so that it is tested on its own.

A participant arrives with an id (or, in a pilot, without one: a random id is made
up), consents, and is numbered by the counter and dealt his games
(`eleusis_lab.web.assign.assignment`). His current game is the first one whose result
he has not yet seen. Each page of a game is the position the game reaches with his
stored answers (`eleusis_lab.web.seat.step`); each answer is checked against that
position (`eleusis_lab.web.seat.read_answer`) and stored in one transaction with its
response time, which ends the game when it is the last; a finished game is then stored
in the results (`eleusis_lab.web.results.StudyResults`). Positions are kept in memory
for a while, keyed by the game and its number of answers (both immutable once stored),
so a page and its reload replay the game once.
"""

from __future__ import annotations

import re
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eleusis_lab.games.table import GAMES
from eleusis_lab.web.assign import assignment
from eleusis_lab.web.results import StudyResults
from eleusis_lab.web.seat import PROPHET, STATEMENT, BadAnswer, Position, read_answer, step
from eleusis_lab.web.store import DATABASE, StudyStore, hash_id, study_secrets
from eleusis_lab.web.study import Deal, Study

__all__ = ["ID_PATTERN", "Current", "StudyFlow"]

#: What a participant's id may be: what recruiting sites use (letters, digits, ``_ . @ -``).
ID_PATTERN = re.compile(r"[A-Za-z0-9_.@-]{1,128}")
#: The param a made-up id (a pilot without ids) is recorded under.
MADE_UP = "made_up"
_CACHE = 256


@dataclass(frozen=True)
class Current:
    """A participant's current game: its row in the store, its deal, its number among
    his games (from 1), how many games he plays, and where it stands."""

    row: Any
    deal: Deal
    index: int
    total: int
    position: Position
    answers: list[dict[str, Any]]


class StudyFlow:
    """The study as its participants move through it (see the module docstring).

    Parameters
    ----------
    study : Study
        The checked study spec.
    out : str or Path
        The study's folder: its database, secrets and results.
    """

    def __init__(self, study: Study, out: str | Path):
        self.study = study
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.salt, self.key = study_secrets(self.out)
        self.results = StudyResults(study, self.out)
        try:
            self.store = StudyStore(self.out / DATABASE)
        except BaseException:
            self.results.close()
            raise
        deals = [study.practice] if study.practice is not None else []
        deals += [deal for block in study.blocks for deal in block.deals]
        self.deals = {deal.key: deal for deal in deals}
        self._positions: OrderedDict[tuple[int, int], Position] = OrderedDict()
        self._lock = threading.Lock()
        self.recover()

    def close(self) -> None:
        self.store.close()
        self.results.close()

    # -- arriving --------------------------------------------------------------------------

    def identify(self, query: Mapping[str, str]) -> tuple[str, str] | None:
        """The hash of the id the URL's query carries (the study's first ``id_params``
        present) and its parameter; a made-up one when none is and the study does not
        require one; None when it requires one and none is there.

        Raises
        ------
        ValueError
            For an id that is not one (`ID_PATTERN`).
        """
        for param in self.study.id_params:
            value = query.get(param)
            if value is None:
                continue
            if not ID_PATTERN.fullmatch(value):
                raise ValueError(f"the {param} in the address is not an id")
            return hash_id(self.salt, param, value), param
        if self.study.require_id:
            return None
        return hash_id(self.salt, MADE_UP, secrets.token_hex(16)), MADE_UP

    def known(self, id_hash: str) -> int | None:
        """The number of the participant of that id, if he consented before."""
        row = self.store.participant(id_hash)
        return None if row is None else row["number"]

    def consent(self, id_hash: str, param: str) -> int | None:
        """Number a participant who consents and deal his games; his number (the same
        again for the same id), or None when the study is full."""
        return self.store.add_participant(
            id_hash,
            param,
            lambda number: assignment(self.study, number),
            self.study.participants,
        )

    # -- playing ---------------------------------------------------------------------------

    def current(self, participant: int) -> Current | None:
        """His current game, or None once he has seen the result of his last."""
        rows = self.store.games(participant)
        for index, row in enumerate(rows):
            if row["acknowledged"] is None:
                deal = self.deals.get(row["deal"])
                if deal is None:
                    raise RuntimeError(
                        f"game {row['id']} was dealt by another version of the study file"
                    )
                answers = self.store.answers(row["id"])
                position = self.position(row["id"], deal, answers)
                return Current(row, deal, index + 1, len(rows), position, answers)
        return None

    def position(self, game_id: int, deal: Deal, answers: list[dict[str, Any]]) -> Position:
        """Where the game stands after ``answers`` (replayed once, then remembered)."""
        key = (game_id, len(answers))
        with self._lock:
            if key in self._positions:
                self._positions.move_to_end(key)
                return self._positions[key]
        position = step(deal, answers)
        self._remember(key, position)
        return position

    def _remember(self, key: tuple[int, int], position: Position) -> None:
        """Keep the position of stored answers (never of answers not yet stored)."""
        with self._lock:
            self._positions[key] = position
            while len(self._positions) > _CACHE:
                self._positions.popitem(last=False)

    def shown(self, current: Current) -> None:
        """The page of his current decision was served (its clock starts the first time)."""
        if current.position.ask is not None:
            self.store.shown(current.row["id"], current.position.ask.number)

    def answer(self, participant: int, number: int, form: Mapping[str, Any]) -> str | None:
        """Take his answer to decision ``number`` of his current game (``form``: the
        posted fields). None when it is taken, or was already (a form posted twice, an
        old page: nothing changes); else why it cannot be, for him."""
        current = self.current(participant)
        if current is None or current.position.ask is None:
            return None
        ask = current.position.ask
        if number != ask.number:
            return None  # an old page: he is shown the current one
        try:
            answer = read_answer(ask, current.answers, form)
        except BadAnswer as error:
            return str(error)
        answers = [*current.answers, answer]
        game_id = current.row["id"]
        after = step(current.deal, answers)  # remembered once stored
        score = None
        if after.over:
            outcome = GAMES[current.deal.game_type].outcome(after.record)
            score = float(outcome.scores[current.deal.seat])
        # his play's index among the events (the Prophet's question: of the turn before it)
        index = ask.since if ask.kind == PROPHET else len(ask.seen) - (ask.kind == STATEMENT)
        added = self.store.add_decision(
            game_id, number, answer, index, _client_ms(form), after.over, score
        )
        if added:
            self._remember((game_id, len(answers)), after)
            if after.over:
                self._store_results(current.row, current.deal, answers)
        return None

    def acknowledge(self, participant: int, game_id: int) -> None:
        """He saw the result of game ``game_id``: his next game comes."""
        current = self.current(participant)
        if current is not None and current.row["id"] == game_id and current.position.over:
            self.store.acknowledge(game_id)
            if self.current(participant) is None:
                self.store.finish_participant(participant)

    # -- the results --------------------------------------------------------------------------

    def _store_results(self, row: Any, deal: Deal, answers: list[dict[str, Any]]) -> None:
        times = self.store.decision_times(row["id"])
        started = self.store.game(row["id"])["started"]
        seconds = None if started is None or not times else times[-1]["answered"] - started
        try:
            name = self.results.store(deal, answers, row["participant"], row["id"], seconds)
        except Exception as error:  # kept in the database: stored again at the next start
            print(f"eleusis-lab serve: game {row['id']} not stored: {error}", file=sys.stderr)
            return
        self.store.stored(row["id"], name)

    def recover(self) -> None:
        """Store the finished games whose results a crash left unwritten."""
        for row in self.store.unstored():
            deal = self.deals.get(row["deal"])
            if deal is not None:
                self._store_results(row, deal, self.store.answers(row["id"]))


def _client_ms(form: Mapping[str, Any]) -> int | None:
    """The response time the page measured, in ms (trusted as far as a browser is)."""
    text = form.get("client_ms", "")
    if not isinstance(text, str) or not text.isdigit() or len(text) > 9:
        return None
    return int(text)
