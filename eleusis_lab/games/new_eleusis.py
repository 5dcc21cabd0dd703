"""New Eleusis (RULES.md section 5): one round as a pure function of its inputs, and a match.

`play_new_eleusis` takes a rule, the players' agents (3 to 7: with the dealer, 4 to 8
participants), a seed and a `NewEleusisConfig`, and plays one round: the deal of 14
cards each from two decks, the starter, turns of one card or a string of 2 to 4, "no
play" declarations, the Prophet, sudden death and the scores. It returns a
`NewEleusisRecord`, which goes to JSON and back, is checked without the agents by
`replay_new_eleusis` and laid out by `format_new_eleusis_layout`. The dealer is not an
agent: the rule is given, and the dealer's part (judging, the right card he plays after
a false "no play", overruling the Prophet) follows from it. `play_new_eleusis_match`
plays a match: every participant deals once.

Seats and turns: seat 0 sits left of the dealer, seats go clockwise. The starter's
value (A=1 .. K=13) counted clockwise from the dealer picks the first player: count 1
is seat 0 and the dealer is not counted (he does not play), so the first player is
seat ``(value - 1) mod N``; ``count_dealer=True`` counts the dealer's place too and a
count ending on him gives the turn to his left. Turns then go clockwise, skipping the
Prophet and the expelled players.

Decisions where RULES.md is silent (each is documented where it applies):

- The stock: the deck is dealt one card at a time from seat 0; the starter is the next
  card; the rest is the stock. Whenever the stock holds `NewEleusisConfig.low_stock`
  (4) cards or fewer, another deck, shuffled, goes under it (a third, then a fourth ...
  as needed; the cards of deck ``k`` have ``copy == k``).
- A "no play" is judged on the player's whole hand. A false one is a wrong play: in
  sudden death it expels the player. The dealer's right card is the first right card
  of the hand, in the order the player holds his cards (the order he received them).
- An expelled player draws the penalty of his wrong play like any other (his hand
  still counts when scoring; so a wrong play never leaves a hand empty).
- Only the player who has just played may declare himself Prophet, right after his
  play (or "no play") is judged, as in Abbott's rules; not after a play that ended the
  round or expelled him. His marker goes on the last card played in the round (the
  starter if none was); "cards played" count the main and side line but not the
  starter, and include the dealer's cards. Sudden death is in force for a turn when 40
  cards have been played with no Prophet in place, or 30 after the marker of the
  Prophet in place; an overthrow lifts the 30 and brings back the 40.
- The Prophet's calls: he calls every play (`Agent.call_play`) and every "no play"
  (`Agent.call_no_play`, seeing the declared hand, which is shown to everyone). On an
  overthrow the player draws nothing and is not expelled; a true "no play" still sets
  his hand aside and deals him the smaller hand (that is not a penalty). The Prophet's
  5 cards are drawn after the player's cards.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the deck and every
added deck are shuffled by a generator on it, and every agent gets its own generator
spawned from it (as in classic Eleusis).

Faults: as in classic Eleusis (`eleusis_lab.games.classic.ClassicConfig`), an agent that
raises, answers something it may not or overruns the time budget is recorded as a
`eleusis_lab.record.Fault` and replaced by a fixed choice that draws on no random
stream: the turn becomes the first card of its hand played alone, a Prophet's call
becomes "right", and a declaration of Prophet becomes "no". A `Fault`'s ``event`` is
the index of the turn in `NewEleusisRecord.turns`, its ``call`` the agent method.

Examples
--------
>>> from agents.simple import OracleAgent, RandomAgent
>>> agents = [RandomAgent(), RandomAgent(), OracleAgent()]
>>> record = play_new_eleusis("color(card) != color(last)", agents, seed=1)
>>> record.starter, record.first_seat, [len(hand) for hand in record.deal]
(Card('KH', copy=1), 0, [14, 14, 14])
>>> record.end in END_REASONS, replay_new_eleusis(record)
(True, [])
>>> NewEleusisRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from itertools import chain
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, Observation
from eleusis_lab.cards import Card, format_cards, standard_deck, two_decks
from eleusis_lab.errors import ConfigError
from eleusis_lab.games._faults import (
    FaultLog,
    check_agents,
    check_fault_options,
    check_seed,
    exception_text,
    is_int,
    shorten,
    shown,
)
from eleusis_lab.games.match import MatchResult, rotate_deal
from eleusis_lab.games.scoring import (
    new_eleusis_dealer_score,
    new_eleusis_match_totals,
    new_eleusis_player_scores,
)
from eleusis_lab.record import (
    FAULT_KINDS,
    ILLEGAL_CARD,
    OVER_TIME,
    PLAYER_OUT,
    RAISED,
    TURN_CAP,
    Fault,
    JsonRecord,
    RecordError,
    card_from_text,
    card_text,
    describe_agent,
    reading_record,
)
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse
from eleusis_lab.rules.complexity import complexity

__all__ = [
    "ALL_EXPELLED",
    "DEALER",
    "END_REASONS",
    "GAME",
    "ILLEGAL_DECISION",
    "PLAY",
    "PLAYER_OUT",
    "SET_ASIDE",
    "STRING",
    "TURN_CAP",
    "NewEleusisConfig",
    "NewEleusisMatch",
    "NewEleusisRecord",
    "ProphetTerm",
    "Turn",
    "first_player",
    "format_new_eleusis_layout",
    "new_eleusis_deal",
    "play_new_eleusis",
    "play_new_eleusis_match",
    "replay_new_eleusis",
]

GAME = "new-eleusis"
MIN_PLAYERS, MAX_PLAYERS = 3, 7  # the agents; with the dealer, 4 to 8 participants
MAX_STRING = 4
WRONG_CARD_PENALTY = 2  # cards drawn per card of a wrong play
FALSE_NO_PLAY_PENALTY = 5
OVERTHROW_PENALTY = 5
NO_PLAY_SHRINK = 4  # a true "no play" deals a hand this much smaller

#: How a round ended (`NewEleusisRecord.end`); `PLAYER_OUT` and `TURN_CAP` as in classic.
ALL_EXPELLED = "all_expelled"
END_REASONS = {
    PLAYER_OUT: "a player ran out of cards",
    ALL_EXPELLED: "every player (but the Prophet) was expelled",
    TURN_CAP: "the turn cap was hit",
}

#: `eleusis_lab.agent.Event.kind` values of New Eleusis (see `Event`).
PLAY, STRING, SET_ASIDE, DEALER = "play", "string", "set_aside", "dealer"

#: A fault kind of New Eleusis: a Prophet's call or declaration that is not True/False.
ILLEGAL_DECISION = "illegal_decision"
_FAULT_KINDS = {**FAULT_KINDS, ILLEGAL_DECISION: "answered something other than True/False"}
_DECISIONS = ("choose_turn", "declare_prophet", "call_play", "call_no_play")
_FAULT_CALLS = ("start_game", *_DECISIONS, "observe")

FORMAT_VERSION = 1


# -- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewEleusisConfig:
    """Options of New Eleusis; the defaults are RULES.md section 5 and its decisions.

    Parameters
    ----------
    hand_size : int
        Cards dealt to each player (14).
    sudden_death_after : int
        Cards played with no Prophet after which a wrong play expels its player (40).
    sudden_death_after_marker : int
        The same, counted from the marker of the Prophet in place (30).
    low_stock : int
        When the stock holds this many cards or fewer, another deck goes under it (4).
    count_dealer : bool
        The first player: the starter's value counted clockwise from the dealer's left
        (``False``, the dealer is not counted), or counting the dealer's place too, a
        count ending on the dealer giving the turn to his left (``True``).
    max_turns : int
        Cap on the number of turns, a safety net; reaching it is recorded.
    on_fault : {"substitute", "raise"}
        What an agent's fault does: recorded and replaced (see the module docstring),
        or stop the game (an agent's exception goes up unchanged, an illegal answer or
        a decision over time raises `eleusis_lab.errors.AgentError`).
    decision_seconds : float or None
        Time budget of one decision (``choose_turn``, ``declare_prophet``,
        ``call_play``, ``call_no_play``); a late decision stands and is recorded.

    Examples
    --------
    >>> NewEleusisConfig(max_turns=50).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 14, 'sudden_death_after': 40, 'sudden_death_after_marker': 30,
     'low_stock': 4, 'count_dealer': False, 'max_turns': 50, 'on_fault': 'substitute',
     'decision_seconds': None}
    """

    hand_size: int = 14
    sudden_death_after: int = 40
    sudden_death_after_marker: int = 30
    low_stock: int = 4
    count_dealer: bool = False
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None

    def __post_init__(self) -> None:
        for name, least in (
            ("hand_size", 1),
            ("sudden_death_after", 0),
            ("sudden_death_after_marker", 0),
            ("low_stock", 0),
            ("max_turns", 0),
        ):
            value = getattr(self, name)
            if not (is_int(value) and value >= least):
                raise ConfigError(f"{name} must be a whole number >= {least}, got {value!r}")
        if not isinstance(self.count_dealer, bool):
            raise ConfigError(f"count_dealer must be True or False, got {self.count_dealer!r}")
        check_fault_options(self.on_fault, self.decision_seconds)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `NewEleusisRecord`)."""
        return asdict(self)


# -- the record ------------------------------------------------------------------------------


def _cards(seq) -> list[str]:
    return [card_text(card) for card in seq]


def _read_cards(seq) -> tuple[Card, ...]:
    return tuple(card_from_text(text) for text in seq)


@dataclass(frozen=True)
class Turn:
    """One turn of New Eleusis: the player's decision and everything it led to.

    Attributes
    ----------
    seat : int
        The player.
    cards : tuple of Card
        The card or string played, in order; empty for "no play".
    right : bool
        The dealer's verdict: the string was right (every card right in order), or the
        "no play" was true (none of the player's cards was right).
    position : int
        Index of the last main-line card before the turn: a wrong play goes under it.
    phase : int
        2 if sudden death was in force for the turn, else 1.
    prophet_call : bool or None
        The Prophet's call of the play (``None``: there was no Prophet).
    overthrown : bool
        The dealer overruled the call: the Prophet was overthrown.
    expelled : bool
        The player was expelled (a wrong play in sudden death).
    set_aside : tuple of Card
        After a true "no play": the hand set aside, face up.
    dealer_card : Card or None
        After a false "no play": the right card the dealer played from the hand.
    drawn : tuple of Card
        The cards the player received: his penalty, or his new hand after a true "no
        play".
    prophet_drawn : tuple of Card
        The 5 cards of an overthrown Prophet.
    declared_prophet : bool
        The player declared himself Prophet right after this turn.
    """

    seat: int
    cards: tuple[Card, ...]
    right: bool
    position: int
    phase: int
    prophet_call: bool | None = None
    overthrown: bool = False
    expelled: bool = False
    set_aside: tuple[Card, ...] = ()
    dealer_card: Card | None = None
    drawn: tuple[Card, ...] = ()
    prophet_drawn: tuple[Card, ...] = ()
    declared_prophet: bool = False

    @property
    def no_play(self) -> bool:
        """Whether the player declared "no play"."""
        return not self.cards

    @property
    def played(self) -> tuple[Card, ...]:
        """The cards this turn put on the main or side line (the dealer's card included)."""
        return (
            self.cards if self.cards else (() if self.dealer_card is None else (self.dealer_card,))
        )

    def events(self) -> list[Event]:
        """What the agents are told of this turn (see `eleusis_lab.agent.Event`)."""
        seat, phase, at = self.seat, self.phase, self.position
        if self.cards:
            if self.right:
                return [Event(seat, card, phase, True, at + i) for i, card in enumerate(self.cards)]
            kind = PLAY if len(self.cards) == 1 else STRING
            return [Event(seat, card, phase, False, at, kind) for card in self.cards]
        if self.right:
            return [Event(seat, card, phase, False, at, SET_ASIDE) for card in self.set_aside]
        return [Event(seat, self.dealer_card, phase, True, at, DEALER)]

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data."""
        return {
            "seat": self.seat,
            "cards": _cards(self.cards),
            "right": self.right,
            "position": self.position,
            "phase": self.phase,
            "prophet_call": self.prophet_call,
            "overthrown": self.overthrown,
            "expelled": self.expelled,
            "set_aside": _cards(self.set_aside),
            "dealer_card": None if self.dealer_card is None else card_text(self.dealer_card),
            "drawn": _cards(self.drawn),
            "prophet_drawn": _cards(self.prophet_drawn),
            "declared_prophet": self.declared_prophet,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """The inverse of `to_dict`."""
        dealer = data["dealer_card"]
        return cls(
            seat=data["seat"],
            cards=_read_cards(data["cards"]),
            right=data["right"],
            position=data["position"],
            phase=data["phase"],
            prophet_call=data["prophet_call"],
            overthrown=data["overthrown"],
            expelled=data["expelled"],
            set_aside=_read_cards(data["set_aside"]),
            dealer_card=None if dealer is None else card_from_text(dealer),
            drawn=_read_cards(data["drawn"]),
            prophet_drawn=_read_cards(data["prophet_drawn"]),
            declared_prophet=data["declared_prophet"],
        )


@dataclass(frozen=True)
class ProphetTerm:
    """One Prophet of a round: who, when, where his marker went, and his fall.

    Attributes
    ----------
    seat : int
        The Prophet.
    turn : int
        Index of the turn right after which he declared himself.
    marker : int
        Cards played in the round when his marker went down (the marked card is the
        ``marker``-th card played; 0: the starter).
    overthrown : int or None
        Index of the turn at which he was overthrown; ``None`` if still in place.
    """

    seat: int
    turn: int
    marker: int
    overthrown: int | None = None


@dataclass(frozen=True)
class NewEleusisRecord(JsonRecord):
    """Everything about one round of New Eleusis: enough to replay, check, score, lay out.

    Attributes
    ----------
    game : str
        ``"new-eleusis"``.
    rule, rule_name : str, str or None
        The secret rule's canonical text, and its catalog name if it has one.
    seed : int
        The seed the round was played with.
    config : dict
        `NewEleusisConfig.to_dict`.
    agents : tuple of dict
        Per seat: ``name``, ``spec`` and ``params`` (`eleusis_lab.record.describe_agent`).
    starter : Card
        The first card of the main line.
    first_seat : int
        The seat the starter's count picked to play first.
    deal : tuple of tuple of Card
        Each seat's hand as dealt.
    turns : tuple of Turn
        Every turn in order.
    prophets : tuple of ProphetTerm
        Every Prophet of the round, in order; at most the last one is still in place.
    main_line : tuple of Card
        The main line at the end, starter first.
    side_line : tuple of tuple of Card
        For each main-line position, the wrong cards played under it.
    hands : tuple of tuple of Card
        Each seat's hand at the end (the Prophet's hand, set aside, included).
    set_aside : tuple of tuple of Card
        Each seat's hands set aside after true "no play" declarations.
    expelled : tuple of int
        The seats expelled, in order.
    stock : tuple of Card
        The cards left in the stock, top first.
    decks : int
        The decks used (2, and one more each time the stock ran low).
    end : str
        `PLAYER_OUT`, `ALL_EXPELLED` or `TURN_CAP`.
    turn_cap_hit : bool
        Whether the turn cap stopped the round.
    player_scores : tuple of int
        Each seat's score.
    dealer_score : int
        The dealer's score.
    faults : tuple of Fault
        The agents' faults in order; ``Fault.event`` is an index in ``turns``.
    """

    kind = "New Eleusis record"  # named in errors: "not a New Eleusis record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    first_seat: int
    deal: tuple[tuple[Card, ...], ...]
    turns: tuple[Turn, ...]
    prophets: tuple[ProphetTerm, ...]
    main_line: tuple[Card, ...]
    side_line: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[Card, ...], ...]
    set_aside: tuple[tuple[Card, ...], ...]
    expelled: tuple[int, ...]
    stock: tuple[Card, ...]
    decks: int
    end: str
    turn_cap_hit: bool
    player_scores: tuple[int, ...]
    dealer_score: int
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of players (the dealer is not counted)."""
        return len(self.deal)

    @property
    def cards_left(self) -> tuple[int, ...]:
        """Each seat's hand size at the end."""
        return tuple(len(hand) for hand in self.hands)

    @property
    def prophet(self) -> int | None:
        """The seat of the Prophet in place at the end, or ``None``."""
        if self.prophets and self.prophets[-1].overthrown is None:
            return self.prophets[-1].seat
        return None

    @property
    def cards_played(self) -> int:
        """Cards played in the round, main and side line (not the starter)."""
        return len(self.main_line) - 1 + sum(map(len, self.side_line))

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event the agents were told, in order (`Turn.events`)."""
        return tuple(chain.from_iterable(turn.events() for turn in self.turns))

    # -- JSON -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text, ``"10H#1"`` for a second copy)."""
        return {
            "format": FORMAT_VERSION,
            "game": self.game,
            "rule": self.rule,
            "rule_name": self.rule_name,
            "seed": self.seed,
            "config": dict(self.config),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "first_seat": self.first_seat,
            "deal": [_cards(hand) for hand in self.deal],
            "turns": [turn.to_dict() for turn in self.turns],
            "prophets": [asdict(term) for term in self.prophets],
            "main_line": _cards(self.main_line),
            "side_line": [_cards(column) for column in self.side_line],
            "hands": [_cards(hand) for hand in self.hands],
            "set_aside": [_cards(cards) for cards in self.set_aside],
            "expelled": list(self.expelled),
            "stock": _cards(self.stock),
            "decks": self.decks,
            "end": self.end,
            "turn_cap_hit": self.turn_cap_hit,
            "player_scores": list(self.player_scores),
            "dealer_score": self.dealer_score,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NewEleusisRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            if data.get("format") != FORMAT_VERSION or data.get("game") != GAME:
                raise RecordError(
                    f"not a New Eleusis record of format {FORMAT_VERSION}: game"
                    f" {data.get('game')!r}, format {data.get('format')!r}"
                )
            return cls(
                game=data["game"],
                rule=data["rule"],
                rule_name=data.get("rule_name"),
                seed=data["seed"],
                config=dict(data["config"]),
                agents=tuple(dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                first_seat=data["first_seat"],
                deal=tuple(_read_cards(hand) for hand in data["deal"]),
                turns=tuple(Turn.from_dict(turn) for turn in data["turns"]),
                prophets=tuple(ProphetTerm(**term) for term in data["prophets"]),
                main_line=_read_cards(data["main_line"]),
                side_line=tuple(_read_cards(column) for column in data["side_line"]),
                hands=tuple(_read_cards(hand) for hand in data["hands"]),
                set_aside=tuple(_read_cards(cards) for cards in data["set_aside"]),
                expelled=tuple(data["expelled"]),
                stock=_read_cards(data["stock"]),
                decks=data["decks"],
                end=data["end"],
                turn_cap_hit=data["turn_cap_hit"],
                player_scores=tuple(data["player_scores"]),
                dealer_score=data["dealer_score"],
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- the table: the state of a round and its moves, shared by the engine and replay ---------


def _shuffled(rng: np.random.Generator, cards: list[Card]) -> list[Card]:
    return [cards[i] for i in rng.permutation(len(cards)).tolist()]


def _deal(
    rng: np.random.Generator, n: int, hand_size: int
) -> tuple[Card, list[list[Card]], list[Card]]:
    """Two decks shuffled, dealt one card at a time from seat 0; the starter; the stock."""
    deck = _shuffled(rng, two_decks())
    dealt = n * hand_size
    if dealt >= len(deck):
        raise ConfigError(
            f"hand_size={hand_size} for {n} players needs {dealt} cards and a starter,"
            f" but two decks have {len(deck)}"
        )
    hands = [deck[seat:dealt:n] for seat in range(n)]
    return deck[dealt], hands, deck[dealt + 1 :]


def first_player(starter: Card, n_players: int, count_dealer: bool = False) -> int:
    """The seat that plays first: the starter's value counted clockwise from the dealer.

    Count 1 is the player left of the dealer (seat 0). By default the dealer, who does
    not play, is not counted; with ``count_dealer`` his place counts too and a count
    ending on him gives the turn to his left.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card
    >>> first_player(parse_card("3H"), 4), first_player(parse_card("KS"), 4)
    (2, 0)
    >>> first_player(parse_card("5H"), 4, count_dealer=True)
    0
    """
    if count_dealer:
        place = starter.rank % (n_players + 1)
        return 0 if place == 0 else place - 1
    return (starter.rank - 1) % n_players


class _Table:
    """A round without its agents: the deal, the stock, the lines, and every move.

    The engine feeds it the agents' decisions; `replay_new_eleusis` feeds it the ones of
    a record and compares what comes out. ``hands[seat]`` lists a seat's cards in the
    order he received them; the stock is a list whose top is its last item.
    """

    def __init__(self, rule: Rule, n: int, seed: int, config: NewEleusisConfig):
        self.rule, self.n, self.config = rule, n, config
        self.sequence = np.random.SeedSequence(seed)
        self.rng = np.random.default_rng(self.sequence)
        self.starter, self.hands, stock = _deal(self.rng, n, config.hand_size)
        self.deal = tuple(map(tuple, self.hands))
        self.stock = stock[::-1]
        self.decks = 2
        self._refill()
        self.first = self.seat = first_player(self.starter, n, config.count_dealer)
        self.main = [self.starter]
        self.side: list[list[Card]] = [[]]
        self.played = self.main_played = self.side_played = 0
        self.set_aside: list[list[Card]] = [[] for _ in range(n)]
        self.prophet: int | None = None
        self.marker: tuple[int, int, int] | None = None  # (played, main, side) at the marker
        self.been_prophet: set[int] = set()
        self.prophets: list[ProphetTerm] = []
        self.expelled: list[int] = []
        self.out: set[int] = set()
        self.last_right: bool | None = None
        self.turns = 0
        self.end: str | None = None

    # -- the stock ----------------------------------------------------------------------------

    def _refill(self) -> None:
        while len(self.stock) <= self.config.low_stock:
            deck = _shuffled(self.rng, standard_deck(copy=self.decks))
            self.stock = deck[::-1] + self.stock  # under the stock
            self.decks += 1

    def draw(self, count: int) -> tuple[Card, ...]:
        drawn = []
        for _ in range(count):
            drawn.append(self.stock.pop())
            self._refill()
        return tuple(drawn)

    # -- state ----------------------------------------------------------------------------------

    def phase(self) -> int:
        """2 if sudden death is in force for the next play, else 1."""
        if self.marker is None:
            return 2 if self.played >= self.config.sudden_death_after else 1
        after = self.played - self.marker[0]
        return 2 if after >= self.config.sudden_death_after_marker else 1

    def in_round(self, seat: int) -> bool:
        """Whether ``seat`` takes turns: neither expelled nor the Prophet."""
        return seat not in self.out and seat != self.prophet

    def right_mask(self, line: tuple[Card, ...] | None = None) -> int:
        return self.rule.legal_mask(Context(tuple(self.main) if line is None else line))

    def string_right(self, cards: tuple[Card, ...]) -> bool:
        line = tuple(self.main)
        for card in cards:
            if not (self.right_mask(line) >> card.face) & 1:
                return False
            line += (card,)
        return True

    def can_declare(self, seat: int) -> bool:
        """Whether ``seat``, who has just played, may declare himself Prophet now."""
        others = sum(1 for other in range(self.n) if other != seat and other not in self.out)
        return (
            self.end is None
            and self.prophet is None
            and seat not in self.been_prophet
            and seat not in self.out
            and others >= 2
        )

    # -- moves ----------------------------------------------------------------------------------

    def play(self, cards: tuple[Card, ...], call: bool | None) -> Turn:
        """The turn of the seat to play: ``cards`` (legal, checked by the caller) or "no play"."""
        seat, hand = self.seat, self.hands[self.seat]
        phase, position, prophet = self.phase(), len(self.main) - 1, self.prophet
        drawn: tuple[Card, ...] = ()
        set_aside: tuple[Card, ...] = ()
        dealer_card = None
        if cards:
            right = self.string_right(cards)
            for card in cards:
                hand.remove(card)
            if right:
                self.main.extend(cards)
                self.side.extend([] for _ in cards)
                self.main_played += len(cards)
            else:
                self.side[position].extend(cards)
                self.side_played += len(cards)
            self.played += len(cards)
        else:
            mask = self.right_mask()
            right_cards = [card for card in hand if (mask >> card.face) & 1]
            right = not right_cards
        overthrown = call is not None and call != right
        if not cards:
            if right:  # the hand is set aside; a new one, 4 smaller (none: he is out)
                set_aside = tuple(hand)
                self.set_aside[seat].extend(hand)
                hand.clear()
                drawn = self.draw(max(0, len(set_aside) - NO_PLAY_SHRINK))
                hand.extend(drawn)
            else:  # the dealer plays the first right card of the hand
                dealer_card = right_cards[0]
                hand.remove(dealer_card)
                self.main.append(dealer_card)
                self.side.append([])
                self.played += 1
                self.main_played += 1
        expelled = False
        if not right and not overthrown:
            penalty = self.draw(WRONG_CARD_PENALTY * len(cards) if cards else FALSE_NO_PLAY_PENALTY)
            hand.extend(penalty)
            drawn += penalty
            if phase == 2:
                expelled = True
                self.expelled.append(seat)
                self.out.add(seat)
        prophet_drawn: tuple[Card, ...] = ()
        if overthrown:
            assert prophet is not None
            prophet_drawn = self.draw(OVERTHROW_PENALTY)
            self.hands[prophet].extend(prophet_drawn)
            self.prophets[-1] = replace(self.prophets[-1], overthrown=self.turns)
            self.prophet = self.marker = None
        self.last_right = right
        self.turns += 1
        if not hand and seat not in self.out:
            self.end = PLAYER_OUT
        elif not any(self.in_round(other) for other in range(self.n)):
            self.end = ALL_EXPELLED
        return Turn(
            seat=seat,
            cards=tuple(cards),
            right=right,
            position=position,
            phase=phase,
            prophet_call=call,
            overthrown=overthrown,
            expelled=expelled,
            set_aside=set_aside,
            dealer_card=dealer_card,
            drawn=drawn,
            prophet_drawn=prophet_drawn,
        )

    def declare(self, seat: int) -> None:
        """``seat`` becomes the Prophet; his marker goes on the last card played."""
        self.prophet = seat
        self.marker = (self.played, self.main_played, self.side_played)
        self.been_prophet.add(seat)
        self.prophets.append(ProphetTerm(seat, self.turns - 1, self.played))

    def advance(self) -> None:
        """Pass the turn clockwise to the next seat still in the round."""
        for step in range(1, self.n + 1):
            seat = (self.seat + step) % self.n
            if self.in_round(seat):
                self.seat = seat
                return

    # -- the end ------------------------------------------------------------------------------

    def scores(self) -> tuple[list[int], int]:
        sizes = [len(hand) for hand in self.hands]
        if self.marker is None:
            players = new_eleusis_player_scores(sizes)
            return players, new_eleusis_dealer_score(players)
        played, main, side = self.marker
        players = new_eleusis_player_scores(
            sizes, self.prophet, self.main_played - main, self.side_played - side
        )
        return players, new_eleusis_dealer_score(players, played)

    def observation(self, seat: int) -> Observation:
        return Observation(
            GAME,
            seat,
            self.phase(),
            tuple(self.hands[seat]),
            tuple(self.main),
            tuple(map(tuple, self.set_aside)),
            self.last_right,
            side_line=tuple(map(tuple, self.side)),
            hand_sizes=tuple(map(len, self.hands)),
            prophet=self.prophet,
            marker=None if self.marker is None else self.marker[0],
            cards_played=self.played,
            expelled=tuple(self.expelled),
        )


def _check_rule(rule: Rule | str) -> Rule:
    if isinstance(rule, str):
        rule = parse(rule)
    if "outcome" in rule.slots:
        raise ConfigError(
            f"the New Eleusis rule {rule.text!r} reads last_play_right; a New Eleusis"
            " rule reads only the main line (RULES.md section 5)"
        )
    return rule


def new_eleusis_deal(
    seed: int, n_players: int, hand_size: int = 14
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the stock (top first) that `play_new_eleusis` deals.

    The stock as dealt, before a round adds decks to it when it runs low.

    Examples
    --------
    >>> starter, hands, stock = new_eleusis_deal(1, n_players=3)
    >>> starter, [len(hand) for hand in hands], len(stock)
    (Card('KH', copy=1), [14, 14, 14], 61)
    """
    rng = np.random.default_rng(np.random.SeedSequence(check_seed(seed)))
    starter, hands, stock = _deal(rng, n_players, hand_size)
    return starter, hands, tuple(stock)


# -- the engine ------------------------------------------------------------------------------


def _turn_problem(value: object, hand: Sequence[Card]) -> str | None:
    """Why ``value`` is not a legal turn for ``hand`` (``None``: it is one)."""
    if value is None:
        return None
    rule = (
        f"a turn is 1 to {MAX_STRING} different cards of the hand, in order, or None for"
        f" no play; the hand is {format_cards(hand) or 'empty'}"
    )
    if not isinstance(value, tuple | list):
        return f"returned {shown(value)}; {rule}"
    cards = tuple(value)
    if not 1 <= len(cards) <= MAX_STRING:
        return f"returned {len(cards)} cards; {rule}"
    if not all(isinstance(card, Card) for card in cards):
        return f"returned {shorten(shown(value))}, which is not only cards; {rule}"
    if len(set(cards)) != len(cards):
        return f"played the same card twice ({format_cards(cards)}); {rule}"
    held = set(hand)
    missing = [card for card in cards if card not in held]
    if missing:
        return f"played {format_cards(missing)}, which it does not hold; {rule}"
    return None


def _bool_problem(value: object, call: str) -> str | None:
    if isinstance(value, bool | np.bool_):
        return None
    return f"{call} returned {shown(value)}; it answers True or False"


def play_new_eleusis(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: NewEleusisConfig | None = None,
) -> NewEleusisRecord:
    """Play one round of New Eleusis and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule; it may read only the main line (not
        ``last_play_right``).
    agents : sequence of Agent
        The 3 to 7 players, seat 0 first (left of the dealer); one object each.
    seed : int
        Seeds the shuffles and every agent's generator; same seed, same round.
    config : NewEleusisConfig, optional
        Options of the round; the defaults when omitted.

    Returns
    -------
    NewEleusisRecord

    Raises
    ------
    ConfigError
        For fewer than 3 or more than 7 agents, a shared agent object, a rule that reads
        ``last_play_right``, a bad seed or a hand size the decks cannot deal.
    AgentError
        Only with ``on_fault="raise"``, at an agent's illegal answer or late decision.

    Examples
    --------
    >>> from agents.simple import OracleAgent
    >>> record = play_new_eleusis("red(card)", [OracleAgent() for _ in range(3)], seed=0)
    >>> all(card.is_red for card in record.main_line[1:]), sum(map(len, record.side_line))
    (True, 0)
    >>> record.end, record.prophet is not None
    ('player_out', True)
    """
    rule = _check_rule(rule)
    config = NewEleusisConfig() if config is None else config
    agents = list(agents)
    if not MIN_PLAYERS <= len(agents) <= MAX_PLAYERS:
        raise ConfigError(
            f"New Eleusis has 4 to 8 participants: the dealer and {MIN_PLAYERS} to"
            f" {MAX_PLAYERS} players, got {len(agents)} players"
        )
    agents = check_agents(agents, "New Eleusis", MIN_PLAYERS)
    seed = check_seed(seed)
    n = len(agents)
    table = _Table(rule, n, seed, config)
    agent_rngs = [np.random.default_rng(child) for child in table.sequence.spawn(n)]
    turns: list[Turn] = []
    faults = FaultLog(agents, config, turns)  # type: ignore[arg-type] # its index: the turn
    stop, budget = faults.stop, config.decision_seconds

    faults.start_games(GAME, rule, table.starter, table.deal, agent_rngs)

    def ask(
        seat: int,
        call: str,
        method: Callable[..., Any],
        args: tuple,
        phase: int,
        problem: Callable[[Any], str | None],
        substitute: Any,
        turn: int,
    ) -> Any:
        """An agent's decision, or ``substitute`` after a recorded fault."""
        started = perf_counter()
        try:
            value = method(*args)
        except Exception as error:
            if stop:
                raise
            faults.add(seat, RAISED, exception_text(error), turn, phase, call)
            return substitute
        if budget is not None:
            seconds = perf_counter() - started
            if seconds > budget:
                message = (
                    f"took {seconds * 1e3:.3g} ms to decide ({call}); the budget is"
                    f" {budget * 1e3:.3g} ms"
                )
                if stop:
                    raise faults.agent_error(seat, message)
                faults.add(seat, OVER_TIME, message, turn, phase, call)
        message = problem(value)
        if message is not None:
            if stop:
                raise faults.agent_error(seat, message)
            kind = ILLEGAL_CARD if call == "choose_turn" else ILLEGAL_DECISION
            faults.add(seat, kind, message, turn, phase, call)
            return substitute
        return value

    def is_bool(call: str) -> Callable[[Any], str | None]:
        return lambda value: _bool_problem(value, call)

    while table.end is None:
        if len(turns) >= config.max_turns:
            table.end = TURN_CAP
            break
        index, seat = len(turns), table.seat
        obs = table.observation(seat)
        hand = obs.hand
        chosen = ask(
            seat,
            "choose_turn",
            agents[seat].choose_turn,
            (obs,),
            obs.phase,
            lambda value, hand=hand: _turn_problem(value, hand),
            (hand[0],),
            index,
        )
        cards = () if chosen is None else tuple(chosen)
        call = None
        if table.prophet is not None:
            prophet = table.prophet
            seen = table.observation(prophet)
            if cards:
                method, what, args = agents[prophet].call_play, "call_play", (seen, cards)
            else:
                method, what, args = agents[prophet].call_no_play, "call_no_play", (seen, hand)
            call = bool(ask(prophet, what, method, args, obs.phase, is_bool(what), True, index))
        turn = table.play(cards, call)
        turns.append(turn)
        for event in turn.events():
            for other, agent in enumerate(agents):
                try:
                    agent.observe(event)
                except Exception as error:
                    if stop:
                        raise
                    faults.add(other, RAISED, exception_text(error), index, turn.phase, "observe")
        if table.can_declare(seat):
            after = table.observation(seat)
            method = agents[seat].declare_prophet
            check = is_bool("declare_prophet")
            if ask(seat, "declare_prophet", method, (after,), turn.phase, check, False, index):
                table.declare(seat)
                turns[-1] = replace(turn, declared_prophet=True)
        table.advance()

    players, dealer = table.scores()
    return NewEleusisRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=tuple(describe_agent(agent) for agent in agents),
        starter=table.starter,
        first_seat=table.first,
        deal=table.deal,
        turns=tuple(turns),
        prophets=tuple(table.prophets),
        main_line=tuple(table.main),
        side_line=tuple(map(tuple, table.side)),
        hands=tuple(map(tuple, table.hands)),
        set_aside=tuple(map(tuple, table.set_aside)),
        expelled=tuple(table.expelled),
        stock=tuple(reversed(table.stock)),
        decks=table.decks,
        end=table.end,
        turn_cap_hit=table.end == TURN_CAP,
        player_scores=tuple(players),
        dealer_score=dealer,
        faults=tuple(faults.faults),
    )


# -- replay ------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    if isinstance(value, Card):
        return card_text(value)
    if isinstance(value, tuple) and value and all(isinstance(v, Card) for v in value):
        return " ".join(map(card_text, value))
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return "[" + " | ".join(_show(v) for v in value) + "]"
    return repr(value)


def replay_new_eleusis(record: NewEleusisRecord) -> list[str]:  # noqa: C901 - one pass
    """Check a New Eleusis record against the rules, without the agents.

    Re-parses the rule, re-deals from the seed, and plays the recorded decisions (each
    turn's cards or "no play", the Prophet's calls, the declarations of Prophet) on a
    fresh table: the turn order, that each card played is held, every verdict, draw,
    overthrow and expulsion, the Prophets, the end of the round, the final lines,
    hands and stock, and the scores must all be those the rules give. Faults are
    checked too: each names the seat and agent of its decision, and a replaced decision
    is the engine's substitute (the first card of the hand; a call of "right"; no
    declaration).

    Parameters
    ----------
    record : NewEleusisRecord

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from agents.simple import RandomAgent
    >>> record = play_new_eleusis("black(card)", [RandomAgent() for _ in range(4)], seed=2)
    >>> replay_new_eleusis(record)
    []
    >>> from dataclasses import replace
    >>> turn = record.turns[0]
    >>> tampered = record.replace(turns=(replace(turn, right=not turn.right), *record.turns[1:]))
    >>> replay_new_eleusis(tampered)
    ['turn 0 (seat 0): recorded right=True, the rules give False']
    """
    if record.game != GAME:
        return [f"not a New Eleusis record: game {record.game!r}"]
    try:
        rule = _check_rule(parse(record.rule))
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({record.rule!r})"]
    except ConfigError as error:
        return [str(error)]
    n = len(record.deal)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or len(record.agents) != n:
        return [f"{n} hands dealt for {len(record.agents)} agents; New Eleusis has 3 to 7 players"]
    try:
        config = NewEleusisConfig(**record.config)
        table = _Table(rule, n, check_seed(record.seed), config)
    except (ConfigError, TypeError) as error:
        return [f"the round cannot be set up from its seed and config: {error}"]
    if (table.starter, table.deal) != (record.starter, tuple(map(tuple, record.deal))):
        return [f"the starter and the hands are not those dealt by seed {record.seed}"]
    problems: list[str] = []
    if record.first_seat != table.first:
        problems.append(
            f"first seat: recorded {record.first_seat}, the starter {record.starter} gives"
            f" {table.first}"
        )
    problems += _check_faults(record)
    decided: dict[int, list[Fault]] = {}
    for fault in record.faults:
        if fault.call in _DECISIONS:
            decided.setdefault(fault.event, []).append(fault)
    compared = [f.name for f in fields(Turn) if f.name not in ("seat", "declared_prophet")]

    for k, turn in enumerate(record.turns):
        where = f"turn {k} (seat {turn.seat})"
        if table.end is not None:
            problems.append(f"{where}: the round had ended ({table.end})")
            break
        if k >= config.max_turns:
            problems.append(f"{where}: past the turn cap ({config.max_turns} turns)")
            break
        if turn.seat != table.seat:
            problems.append(f"{where}: seat {table.seat} should play")
            return problems  # the order is broken; what follows would only echo it
        hand = tuple(table.hands[turn.seat])
        illegal = _turn_problem(turn.cards or None, hand)
        if illegal is not None:
            problems.append(f"{where}: {illegal}")
            return problems
        prophet = table.prophet
        for fault in decided.get(k, ()):
            substituted = fault.kind != OVER_TIME
            who = prophet if fault.call.startswith("call_") else turn.seat
            if fault.seat != who:
                problems.append(f"{where}: a {fault.call} fault names seat {fault.seat}")
            elif fault.call == "choose_turn" and substituted and turn.cards != hand[:1]:
                problems.append(
                    f"{where}: after a {fault.kind} fault the engine plays the first card"
                    f" of the hand, {card_text(hand[0])}"
                )
            elif fault.call.startswith("call_") and substituted and turn.prophet_call is not True:
                problems.append(f"{where}: after a {fault.kind} fault the Prophet's call is right")
            elif fault.call == "declare_prophet" and substituted and turn.declared_prophet:
                problems.append(f"{where}: after a {fault.kind} fault nobody declares")
        if (turn.prophet_call is None) != (prophet is None):
            problems.append(
                f"{where}: prophet_call is {turn.prophet_call!r}, but "
                + ("there is no Prophet" if prophet is None else f"seat {prophet} is Prophet")
            )
        call = None if prophet is None else bool(turn.prophet_call)
        expected = table.play(turn.cards, call)
        for name in compared:
            got, want = getattr(turn, name), getattr(expected, name)
            if got != want:
                problems.append(
                    f"{where}: recorded {name}={_show(got)}, the rules give {_show(want)}"
                )
        if turn.declared_prophet:
            if table.can_declare(turn.seat):
                table.declare(turn.seat)
            else:
                problems.append(f"{where}: declares himself Prophet, which he may not now")
        table.advance()

    if table.end is None:
        if len(record.turns) >= config.max_turns:
            table.end = TURN_CAP
        else:
            problems.append("the record stops while the round goes on")
    if table.end is not None and record.end != table.end:
        problems.append(f"end: recorded {record.end!r}, the turns give {table.end!r}")
    if record.turn_cap_hit != (table.end == TURN_CAP):
        problems.append(f"turn_cap_hit is {record.turn_cap_hit}, but the round ended {table.end!r}")
    players, dealer = table.scores()
    for name, want in (
        ("prophets", tuple(table.prophets)),
        ("main_line", tuple(table.main)),
        ("side_line", tuple(map(tuple, table.side))),
        ("hands", tuple(map(tuple, table.hands))),
        ("set_aside", tuple(map(tuple, table.set_aside))),
        ("expelled", tuple(table.expelled)),
        ("stock", tuple(reversed(table.stock))),
        ("decks", table.decks),
        ("player_scores", tuple(players)),
        ("dealer_score", dealer),
    ):
        got = getattr(record, name)
        if isinstance(got, list):
            got = tuple(got)
        if got != want:
            problems.append(f"{name}: recorded {_show(got)}, the turns give {_show(want)}")
    return problems


def _check_faults(record: NewEleusisRecord) -> list[str]:
    """What is wrong with a record's faults, short of replaying the turns."""
    problems: list[str] = []
    n, turns, previous = len(record.deal), record.turns, 0
    substituted: Counter[tuple[int, str]] = Counter()
    for i, fault in enumerate(record.faults):
        label = f"fault {i} ({fault.kind} in {fault.call}, seat {fault.seat})"
        if fault.kind not in _FAULT_KINDS:
            problems.append(f"{label}: unknown kind {fault.kind!r}")
        if fault.call not in _FAULT_CALLS:
            problems.append(f"{label}: unknown agent method {fault.call!r}")
        elif fault.call not in _DECISIONS and fault.kind != RAISED:
            problems.append(f"{label}: only a decision can fault with {fault.kind!r}")
        if not 0 <= fault.seat < n:
            problems.append(f"{label}: there is no seat {fault.seat}")
        elif fault.agent != record.agents[fault.seat].get("name"):
            problems.append(
                f"{label}: names agent {fault.agent!r}, but seat {fault.seat} is"
                f" {record.agents[fault.seat].get('name')!r}"
            )
        if fault.call == "start_game":
            if (fault.event, fault.phase) != (0, 0):
                problems.append(f"{label}: a start_game fault is at turn 0, phase 0")
        elif not 0 <= fault.event < len(turns):
            problems.append(f"{label}: turn {fault.event} is not in the record")
        elif turns[fault.event].phase != fault.phase:
            problems.append(
                f"{label}: turn {fault.event} is in phase {turns[fault.event].phase},"
                f" not {fault.phase}"
            )
        if fault.event < previous:
            problems.append(f"{label}: faults are not in the order of the turns")
        previous = fault.event
        if fault.call in _DECISIONS and fault.kind != OVER_TIME:
            substituted[fault.event, fault.call] += 1
    problems += [
        f"turn {k}: {count} replaced decisions recorded for one {call}"
        for (k, call), count in substituted.items()
        if count > 1
    ]
    if record.faults and record.config.get("on_fault") == "raise":
        problems.append("the record has faults, but with on_fault='raise' a fault ends the game")
    if record.config.get("decision_seconds") is None and any(
        fault.kind == OVER_TIME for fault in record.faults
    ):
        problems.append("an over_time fault is recorded, but the game had no time budget")
    return problems


# -- layout ------------------------------------------------------------------------------------

_CELL = 5  # a card right-aligned in 4 characters, then a mark (or a space)
_LABEL = 8
_WIDTH = 100


def _marks(record: NewEleusisRecord) -> dict[tuple[int, int], str]:
    """Marks by place, (main-line position, row; row -1 = the main line): P, p and ^."""
    places: list[tuple[int, int]] = []  # the place of every card played, in order
    marks: dict[tuple[int, int], str] = {}
    main_length, rows = 1, [0] * len(record.main_line)
    for turn in record.turns:
        if turn.dealer_card is not None:
            marks[main_length, -1] = "^"
        if turn.right or turn.dealer_card is not None:
            for _ in turn.played:
                places.append((main_length, -1))
                main_length += 1
        else:
            for _ in turn.cards:
                if turn.position < len(rows):
                    places.append((turn.position, rows[turn.position]))
                    rows[turn.position] += 1
    for term in record.prophets:
        place = (0, -1) if term.marker == 0 else places[min(term.marker, len(places)) - 1]
        marks[place] = "P" if term.overthrown is None else "p"
    return marks


def format_new_eleusis_layout(
    record: NewEleusisRecord, columns: int = 13, max_rows: int = 12
) -> str:
    """The table at the end of a round, as players lay it out, then the scores.

    The main line runs left to right in blocks of ``columns`` cards; under each card
    are the side-line cards played on it (a column longer than ``max_rows`` shows its
    first cards and how many more). Marks: ``P`` the marker of the Prophet in place,
    ``p`` that of an overthrown Prophet, ``^`` a card the dealer played from a hand
    after a false "no play". Then each seat's hand, set-aside cards, status and score,
    the dealer's score, how the round ended, and the agents' faults.

    Examples
    --------
    >>> from agents.simple import OracleAgent, RandomAgent
    >>> agents = [RandomAgent(), RandomAgent(), OracleAgent()]
    >>> record = play_new_eleusis("red(card)", agents, seed=4)
    >>> print(format_new_eleusis_layout(record, columns=10))  # doctest: +ELLIPSIS
    New Eleusis, seed 4, rule: red(card)
    ...
    starter 4H counts 4: seat 0 played first; 2 decks used
    ...
    position   0    1    2    3    4    5    6    7    8    9
    main      4H   5H   2H   KH   9H   9DP  QH   JD   6D  10H
    side           7S                      10C   AS        8C
                                            JS
    ...
    seat  agent                 hand  set aside  status              score
       0  RandomAgent             15          0  expelled (turn 33)      4
       1  RandomAgent             19          0  expelled (turn 34)      0
       2  OracleAgent             10          0  Prophet                60
    Prophet: seat 2, declared after turn 2, marker after 6 cards played
    dealer score: 12
    the round ended after 35 turns: every player (but the Prophet) was expelled
    """
    main = record.main_line
    marks = _marks(record)
    under: list[list[str]] = []
    for i, column in enumerate(record.side_line):
        cells = [f"{card!s:>4}{marks.get((i, row), ' ')}" for row, card in enumerate(column)]
        if len(cells) > max_rows:
            cells = [*cells[: max_rows - 1], f"+{len(cells) - max_rows + 1}"]
        under.append(cells)
    name = f" ({record.rule_name})" if record.rule_name else ""
    starter = record.starter
    lines = [
        f"New Eleusis, seed {record.seed}, rule: {record.rule}{name}",
        f"rule complexity: {complexity(parse(record.rule))}",
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        f"starter {starter} counts {starter.rank}: seat {record.first_seat} played first;"
        f" {record.decks} decks used",
        "side-line cards are under the main-line card they were played on",
        "P = the Prophet's marker, p = an overthrown Prophet's, ^ = played by the dealer",
        "",
    ]
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        lines.append(f"{'position':<{_LABEL}}" + "".join(f"{i:>{_CELL - 1}} " for i in block))
        cells = (f"{main[i]!s:>{_CELL - 1}}{marks.get((i, -1), ' ')}" for i in block)
        lines.append(f"{'main':<{_LABEL}}" + "".join(cells))
        depth = max((len(under[i]) for i in block if i < len(under)), default=0)
        for row in range(depth):
            label = "side" if row == 0 else ""
            cells = (under[i][row] if i < len(under) and row < len(under[i]) else "" for i in block)
            lines.append(f"{label:<{_LABEL}}" + "".join(f"{cell:<{_CELL}}" for cell in cells))
        lines.append("")
    lines = [line.rstrip() for line in lines]

    prophet = record.prophet
    expelled_at = {turn.seat: k for k, turn in enumerate(record.turns) if turn.expelled}
    lines.append(
        f"{'seat':>4}  {'agent':<20} {'hand':>5} {'set aside':>10}  {'status':<18} {'score':>6}"
    )
    for seat, agent in enumerate(record.agents):
        if seat == prophet:
            status = "Prophet"
        elif seat in expelled_at:
            status = f"expelled (turn {expelled_at[seat]})"
        elif not record.hands[seat]:
            status = "out"
        else:
            status = ""
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {len(record.hands[seat]):>5}"
            f" {len(record.set_aside[seat]):>10}  {status:<18} {record.player_scores[seat]:>6}"
        )
    if prophet is not None:
        term = record.prophets[-1]
        lines.append(
            f"Prophet: seat {prophet}, declared after turn {term.turn}, marker after"
            f" {term.marker} cards played"
        )
    for term in record.prophets:
        if term.overthrown is not None:
            lines.append(
                f"overthrown: seat {term.seat} (declared after turn {term.turn}) at turn"
                f" {term.overthrown}"
            )
    lines.append(f"dealer score: {record.dealer_score}")
    reason = END_REASONS.get(record.end, record.end)
    lines.append(f"the round ended after {len(record.turns)} turns: {reason}")
    lines += _fault_lines(record.faults)
    return "\n".join(lines)


def _fault_lines(faults: tuple[Fault, ...]) -> list[str]:
    if not faults:
        return []
    groups: dict[tuple[int, str, str], list[Fault]] = {}
    for fault in faults:
        groups.setdefault((fault.seat, fault.call, fault.kind), []).append(fault)
    lines = [f"faults: {len(faults)} (turn numbers; faulty decisions replaced, see the engine)"]
    for (seat, call, kind), group in groups.items():
        shown_turns = ", ".join(str(fault.event) for fault in group[:4])
        more = ", ..." if len(group) > 4 else ""
        line = (
            f"  seat {seat} {group[0].agent}: {call} {kind} x{len(group)}"
            f" (turns {shown_turns}{more}): {group[0].message}"
        )
        lines.append(line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "...")
    return lines


# -- a match -------------------------------------------------------------------------------------


class NewEleusisMatch(MatchResult):
    """The rounds of a New Eleusis match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games are `NewEleusisRecord` s;
    ``totals`` are `eleusis_lab.games.scoring.new_eleusis_match_totals` (10 for those
    who never dealt when the match stopped early).
    """

    record_type = NewEleusisRecord
    title = "New Eleusis"


def play_new_eleusis_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    config: NewEleusisConfig | None = None,
    rounds: int | None = None,
) -> NewEleusisMatch:
    """Play a New Eleusis match: every participant deals once, the deal passing left.

    When participant ``k`` deals, the others play, seat 0 being ``k + 1``. The match
    seed feeds one ``numpy.random.SeedSequence``: one child draws the rules (when several
    are given), the other gives every round its own seed, kept in its record.

    Parameters
    ----------
    agents : sequence of Agent
        The 4 to 8 participants; the same objects play every round.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every round, or rules from which each deal draws uniformly.
    config : NewEleusisConfig, optional
        Options of every round.
    rounds : int, optional
        Stop the match after this many rounds (participants 0, 1, ... deal); those who
        never dealt get 10 points. Default: every participant deals.

    Returns
    -------
    NewEleusisMatch

    Examples
    --------
    >>> from eleusis_lab.registry import parse_agent_list
    >>> agents = parse_agent_list("random,random,oracle,random")
    >>> match = play_new_eleusis_match(agents, seed=0, rules="red(card)", rounds=2)
    >>> match.dealers, match.seats
    ((0, 1), ((1, 2, 3), (2, 3, 0)))
    >>> sum(match.totals) >= 20  # participants 2 and 3 never dealt: 10 each
    True
    """
    n = len(agents)
    if not MIN_PLAYERS + 1 <= n <= MAX_PLAYERS + 1:
        raise ConfigError(f"a New Eleusis match has 4 to 8 participants, got {n}")
    rounds = n if rounds is None else rounds
    if not (is_int(rounds) and 0 <= rounds <= n):
        raise ConfigError(f"rounds must be a whole number from 0 to {n}, got {rounds!r}")
    return rotate_deal(
        lambda rule, seated, game_seed: play_new_eleusis(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        rounds,
        NewEleusisMatch,
        read_rule=_check_rule,
        totals=lambda dealers, seats, games: new_eleusis_match_totals(
            n,
            dealers,
            seats,
            [game.dealer_score for game in games],
            [game.player_scores for game in games],
        ),
    )
