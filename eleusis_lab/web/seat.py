"""A participant's seat, and a game moved on one decision at a time: `step`.

A participant's game is its `eleusis_lab.web.study.Deal` and the answers he gave so
far, nothing else. `step` plays the game with the game's own play function
(``GameType.play``: the engine that deals, spawns each agent's generator from the seed,
tells the agents the game starts and drives the game's state), the deal's agents at the
other seats and a `ParticipantSeat` at his: the seat gives his answers in order, and
when they run out it stops the game where it asks for the next one (`Pause`, which the
engines let through as a person at an ``interactive`` seat quitting), with what the
seat sees then (`Ask`). When the answers reach the end of the game, the game's record
comes back: the same record its play function gives, because it is that function.

So a game is resumed after a reload, a restart or a crash by playing it again from the
seed with the stored answers: the agents are made afresh and draw from generators
spawned from the seed, so they decide as before. Each stored answer keeps a
fingerprint of what the seat saw when it was given; a replay that shows the seat
anything else stops (`Diverged`) rather than putting an answer where it was not given.

Examples
--------
>>> from eleusis_lab.web.study import load_study
>>> study = load_study({"name": "demo", "consent": "I agree.", "completion_code": "X",
...     "blocks": [{"spec": {"game": "solo", "games": 2, "dealer": "red(card)",
...                          "agents": ["random"]}}]})
>>> deal = study.blocks[0].deals[0]
>>> position = step(deal, [])
>>> position.ask.kind, len(position.ask.obs.hand)
('move', 12)
>>> card = card_text(position.ask.obs.hand[0])
>>> answer = read_answer(position.ask, [], {"card": card, "rule": "red(card)",
...                                          "confidence": "90", "declare": "on"})
>>> answer["rule"], answer["confidence"], answer["declare"]
('red(card)', 0.9, True)
>>> done = step(deal, [answer])
>>> done.ask is None, done.record.found_turn, done.record.score
(True, 1, 30)
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import Card
from eleusis_lab.games.new_eleusis.decisions import NewEleusisDecisions
from eleusis_lab.games.new_eleusis.record import MAX_STRING
from eleusis_lab.games.solo import SoloDecisions, SoloMove
from eleusis_lab.games.table import GAMES
from eleusis_lab.record_basics import card_text
from eleusis_lab.web.checker import check_rule

if TYPE_CHECKING:  # the study checks its deals with `step`
    from eleusis_lab.web.study import Deal

__all__ = [
    "CALL",
    "CARD",
    "MOVE",
    "NO_PLAY_CALL",
    "PREDICT",
    "PROPHET",
    "STATEMENT",
    "TURN",
    "Ask",
    "BadAnswer",
    "Diverged",
    "ParticipantSeat",
    "Pause",
    "Position",
    "card_text",
    "fingerprint",
    "read_answer",
    "step",
]

#: What the seat is asked: a card (``choose_play``), a solo move (a card and its
#: statement, ``solo_move``), a solo statement after the card's verdict (``declare_rule``),
#: Delphi's probability that the card the oracle turns next is right (``predict``).
CARD, MOVE, STATEMENT, PREDICT = "card", "move", "statement", "predict"
#: New Eleusis: a turn of 1 to 4 cards or "no play" (``choose_turn``), whether to become
#: the Prophet after it (``declare_prophet``), the Prophet's call of a play
#: (``call_play``) and of a "no play" (``call_no_play``).
TURN, PROPHET, CALL, NO_PLAY_CALL = "turn", "prophet", "call", "no_play_call"
#: The probabilities a Delphi page offers as buttons (any other in [0, 1] is taken too).
PROBABILITIES = tuple(round(k / 10, 1) for k in range(11))
#: The most characters of a form field read (a rule is at most 300 of them).
MAX_FIELD = 400


@dataclass(frozen=True)
class Ask:
    """A decision the participant is asked for.

    Attributes
    ----------
    kind : str
        `CARD`, `MOVE`, `STATEMENT`, `PREDICT`, `TURN`, `PROPHET`, `CALL` or
        `NO_PLAY_CALL`.
    number : int
        How many answers he gave before it in this game (its index among them).
    obs : Observation
        What the seat sees: its hand (the cards it may play now), the main line, each
        seat's wrong cards, the previous verdict.
    info : GameInfo
        What the seat was told when the game started (never the rule).
    seen : tuple of Event
        Every play of the game so far.
    since : int
        The index in ``seen`` of the first play after his previous decision.
    cards : tuple of Card
        The cards the decision is about, beyond the observation (Delphi: the card the
        oracle turns next; the Prophet's call: the cards played, or the hand of the
        "no play"); empty for the others.
    """

    kind: str
    number: int
    obs: Observation
    info: GameInfo
    seen: tuple[Event, ...]
    since: int
    cards: tuple[Card, ...] = ()

    @property
    def fingerprint(self) -> str:
        """`fingerprint` of what the seat sees."""
        return fingerprint(self.kind, self.obs, self.cards)


@dataclass(frozen=True)
class Position:
    """Where a participant's game stands: the decision asked (`ask`), or once it is over
    its record (`record`)."""

    ask: Ask | None = None
    record: Any = None

    @property
    def over(self) -> bool:
        return self.ask is None


class Pause(KeyboardInterrupt):
    """The participant's next answer is awaited: the game stops where it asks (a
    ``KeyboardInterrupt`` from an ``interactive`` seat, which every engine lets through)."""

    def __init__(self, ask: Ask):
        super().__init__("the participant's answer is awaited")
        self.ask = ask


class Diverged(RuntimeError):
    """A replay showed the seat something else than when an answer was given."""


class BadAnswer(ValueError):
    """A participant's answer that cannot be taken; its message says why, to him."""


def fingerprint(kind: str, obs: Observation, cards: Sequence[Card] = ()) -> str:
    """A short hash of what a seat sees at a decision (the cards as record text), and
    of the ``cards`` it is asked about (Delphi's next card, the play the Prophet calls).

    >>> from eleusis_lab.cards import parse_cards
    >>> obs = Observation("classic", 0, 1, tuple(parse_cards("2C 3D")), (), ((), ()), None)
    >>> len(fingerprint(CARD, obs)), fingerprint(CARD, obs) == fingerprint(MOVE, obs)
    (16, False)
    """
    seen = [
        kind,
        obs.game,
        obs.seat,
        obs.phase,
        [card_text(card) for card in obs.hand],
        [card_text(card) for card in obs.main_line],
        [[card_text(card) for card in pile] for pile in obs.wrong_cards],
        obs.last_play_right,
    ]
    if cards:  # (the hash of a decision without them is as it always was)
        seen.append([card_text(card) for card in cards])
    return hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]


class ParticipantSeat(SoloDecisions, NewEleusisDecisions, Agent):
    """The seat of a participant in the browser: it gives his answers in order and stops
    the game (`Pause`) where they run out.

    ``interactive = True``: a person plays it (`eleusis_lab.engines.people`), so the
    engines let its `Pause` stop the game; records describe it as this class, with no
    parameters. Load the answers with `script` before the game.
    """

    interactive = True

    def __init__(self) -> None:
        pass

    def script(self, answers: Sequence[Mapping[str, Any]], check: bool = True) -> None:
        """The answers to give, in order; ``check``: compare each one's ``fingerprint``
        (when stored) with what the seat sees."""
        self.answers_ = list(answers)
        self.check_ = check

    def start_game(self, info: GameInfo, rng: Any) -> None:
        super().start_game(info, rng)
        self.given_ = 0
        self.seen_: list[Event] = []
        self.since_ = 0  # the plays seen before the previous decision
        self.stated_: tuple[str, float] | None = None

    def observe(self, event: Event) -> None:
        self.seen_.append(event)

    def _next(self, kind: str, obs: Observation, cards: Sequence[Card] = ()) -> Mapping[str, Any]:
        answers = getattr(self, "answers_", [])
        if self.given_ >= len(answers):
            seen = tuple(self.seen_)
            raise Pause(Ask(kind, self.given_, obs, self.info_, seen, self.since_, tuple(cards)))
        answer = answers[self.given_]
        stored = answer.get("fingerprint")
        if answer.get("kind") != kind or (
            self.check_ and stored is not None and stored != fingerprint(kind, obs, cards)
        ):
            raise Diverged(
                f"answer {self.given_} was given to another decision than the replay asks"
                f" ({answer.get('kind')} for {kind}): the game's agents did not decide as"
                " before"
            )
        self.given_ += 1
        self.since_ = len(self.seen_)
        return answer

    def _card(self, answer: Mapping[str, Any], obs: Observation) -> Card:
        text = answer.get("card")
        for card in obs.hand:
            if card_text(card) == text:
                return card
        raise Diverged(f"the stored card {text!r} is not among the cards the seat may play")

    def choose_play(self, obs: Observation) -> Card:
        return self._card(self._next(CARD, obs), obs)

    def solo_move(self, obs: Observation) -> SoloMove:
        answer = self._next(MOVE, obs)
        rule, confidence, declare = _statement(answer)
        self.stated_ = None if rule is None else (rule, confidence)
        return SoloMove(self._card(answer, obs), rule, confidence, declare)

    def declare_rule(self, obs: Observation) -> str | None:
        """Solo after the verdict (``timing = "after_verdict"``): the statement's rule
        when declared; its rule and confidence are `propose_rule`'s."""
        rule, confidence, declare = _statement(self._next(STATEMENT, obs))
        self.stated_ = None if rule is None else (rule, confidence)
        return rule if declare else None

    def propose_rule(self) -> tuple[str, float] | None:
        """The rule last stated, with its confidence."""
        return getattr(self, "stated_", None)

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Delphi: his probability that the one card asked is right."""
        answer = self._next(PREDICT, obs, tuple(cards))
        if len(cards) != 1 or answer.get("card") != card_text(cards[0]):
            raise Diverged("the stored prediction is of another card than the replay asks")
        return np.array([float(answer["probability"])])

    def choose_turn(self, obs: Observation) -> tuple[Card, ...] | None:
        """New Eleusis: his cards in the order he played them, or None for "no play"."""
        cards = self._next(TURN, obs).get("cards")
        if cards is None:
            return None
        return tuple(self._card({"card": text}, obs) for text in cards)

    def declare_prophet(self, obs: Observation) -> bool:
        """New Eleusis, right after his turn: whether he becomes the Prophet."""
        return bool(self._next(PROPHET, obs).get("prophet"))

    def call_play(self, obs: Observation, cards: tuple[Card, ...]) -> bool:
        """New Eleusis, as the Prophet: his call of the play ``cards``."""
        return bool(self._next(CALL, obs, cards).get("right"))

    def call_no_play(self, obs: Observation, hand: tuple[Card, ...]) -> bool:
        """New Eleusis, as the Prophet: his call of a "no play" with ``hand``."""
        return bool(self._next(NO_PLAY_CALL, obs, hand).get("right"))


def _statement(answer: Mapping[str, Any]) -> tuple[str | None, float | None, bool]:
    return answer.get("rule"), answer.get("confidence"), bool(answer.get("declare"))


def step(deal: Deal, answers: Sequence[Mapping[str, Any]], check: bool = True) -> Position:
    """Play ``deal`` with the participant's ``answers``: the decision asked next, or the
    record once the game is over.

    Raises
    ------
    Diverged
        When a stored answer does not fit what the replay asks (the agents did not
        decide as before, or the study file now deals something else), or answers are
        left over at the end of the game.
    """
    game = GAMES[deal.game_type]
    seat = ParticipantSeat()
    seat.script(answers, check)
    agents = [
        seat if index == deal.seat else spec.make(game.agents.make)
        for index, spec in enumerate(deal.seats)
    ]
    try:
        record = game.play(deal.rule, agents, deal.seed, game.make_config(deal.config))
    except Pause as pause:
        return Position(ask=pause.ask)
    if seat.given_ != len(answers):
        raise Diverged(f"the game ended after {seat.given_} of {len(answers)} stored answers")
    return Position(record=record)


def _field(form: Mapping[str, Any], name: str) -> str:
    value = form.get(name, "")
    return value[:MAX_FIELD].strip() if isinstance(value, str) else ""


def read_answer(
    ask: Ask, previous: Sequence[Mapping[str, Any]], form: Mapping[str, Any]
) -> dict[str, Any]:
    """The answer a participant posted (``form``: text fields) to ``ask``, checked: a
    card of the cards he may play (read by its record text), and for solo a rule that
    parses (given to the game as its canonical text), a confidence in percent and
    whether he declares it; for Delphi a probability from 0 to 1 that the card asked
    is right; for New Eleusis 1 to 4 different cards of his hand in order or "no
    play", yes or no to the Prophet, right or wrong as the Prophet's call.
    ``previous``: his earlier answers in this game.

    Raises
    ------
    BadAnswer
        With the reason, for him.

    >>> from eleusis_lab.cards import parse_cards
    >>> obs = Observation("classic", 0, 1, tuple(parse_cards("2C 3D")), (), ((), ()), None)
    >>> ask = Ask(CARD, 0, obs, GameInfo("classic", 0, 2, obs.hand, None), (), 0)
    >>> read_answer(ask, [], {"card": "3D"})["card"]
    '3D'
    >>> read_answer(ask, [], {"card": "KS"})
    Traceback (most recent call last):
    ...
    eleusis_lab.web.seat.BadAnswer: that card is not one you may play now
    """
    answer: dict[str, Any] = {"kind": ask.kind, "fingerprint": ask.fingerprint}
    if ask.kind == PREDICT:
        answer["card"] = card_text(ask.cards[0])
        answer["probability"] = _probability(_field(form, "probability"))
        return answer
    if ask.kind == TURN:
        cards = _turn(ask, form)
        answer.update(cards=cards, card=None if cards is None else " ".join(cards))
        return answer
    if ask.kind == PROPHET:
        said = _field(form, "prophet")
        if said not in ("yes", "no"):
            raise BadAnswer("say whether you declare yourself Prophet: yes or no")
        answer.update(prophet=said == "yes", declare=said == "yes")
        return answer
    if ask.kind in (CALL, NO_PLAY_CALL):
        said = _field(form, "call")
        if said not in ("right", "wrong"):
            raise BadAnswer("call the play right or wrong")
        answer.update(card=" ".join(map(card_text, ask.cards)), right=said == "right")
        return answer
    if ask.kind in (CARD, MOVE):
        text = _field(form, "card")
        if not any(card_text(card) == text for card in ask.obs.hand):
            raise BadAnswer(
                "choose a card of your hand"
                if not text
                else "that card is not one you may play now"
            )
        answer["card"] = text
    if ask.kind in (MOVE, STATEMENT):
        typed = _field(form, "rule")
        declare = _field(form, "declare") in ("on", "yes", "1", "true")
        answer.update(typed=typed or None, rule=None, confidence=None, declare=False)
        if typed:
            checked = check_rule(typed)
            if not checked.ok:
                where = f" (column {checked.column})" if checked.column else ""
                raise BadAnswer(
                    f"your rule is not a rule of the language{where}: {checked.message}"
                )
            answer["rule"] = checked.rule
            answer["confidence"] = _confidence(_field(form, "confidence"))
            if declare:
                wrong = {
                    each.get("rule")
                    for each in previous
                    if each.get("declare") and each.get("rule")
                }
                if checked.rule in wrong:
                    raise BadAnswer("you declared that rule already, and it was wrong")
                answer["declare"] = True
        elif declare:
            raise BadAnswer("type the rule you declare")
    return answer


def _turn(ask: Ask, form: Mapping[str, Any]) -> list[str] | None:
    """New Eleusis' turn as posted: ``play = "none"`` for "no play", else the cards of
    the fields ``card1`` to ``card4`` in that order (empty ones skipped): 1 to 4
    different cards of his hand."""
    if _field(form, "play") == "none":
        return None
    cards = [text for k in range(1, MAX_STRING + 1) if (text := _field(form, f"card{k}"))]
    held = {card_text(card) for card in ask.obs.hand}
    if not cards:
        raise BadAnswer(f"choose 1 to {MAX_STRING} cards of your hand, or no play")
    if any(text not in held for text in cards):
        raise BadAnswer("that card is not one you may play now")
    if len(set(cards)) != len(cards):
        raise BadAnswer("a card can be played only once in a string")
    return cards


def _probability(text: str) -> float:
    """A probability given from 0 to 1 (Delphi's prediction).

    >>> _probability("0.7"), _probability("1")
    (0.7, 1.0)
    """
    try:
        value = float(text)
    except ValueError:
        raise BadAnswer("say how likely the card is right, from 0 to 1") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise BadAnswer("say how likely the card is right, from 0 to 1")
    return round(value, 4)


def _confidence(text: str) -> float:
    """A confidence typed in percent (0 to 100), as a probability."""
    try:
        percent = float(text)
    except ValueError:
        raise BadAnswer("say how sure you are, from 0 to 100 percent") from None
    if not 0 <= percent <= 100:  # NaN fails too
        raise BadAnswer("say how sure you are, from 0 to 100 percent")
    return round(percent / 100, 4)
