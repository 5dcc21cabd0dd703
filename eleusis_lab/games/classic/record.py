"""The record of a classic game (and of its four-to-eight variant): `GameRecord`, how
phase 2 ended, and the table as players lay it out (`format_main_line_layout`).

A `GameRecord` is plain data: it goes to JSON and back (`GameRecord.to_json`,
`GameRecord.from_json`, `save`, `load`), it can be checked against the rules without the
agents (`eleusis_lab.games.classic.replay.replay_classic`, or `eleusis_lab.record.replay`
for a record of any game), and laid out as the players would see the table at the end.
An agent that raises, plays a card it may not play or overruns its time budget does not
end the game: the engine records a `eleusis_lab.record.Fault` in ``GameRecord.faults``
and goes on by the rule of `eleusis_lab.games.classic.ClassicConfig`.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.classic import play_classic
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("black(card)", [FirstCard(), FirstCard()], seed=0)
>>> GameRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card
from eleusis_lab.record import (
    TURN_CAP,
    Fault,
    JsonRecord,
    RecordError,
    agent_from_dict,
    card_from_text,
    card_text,
    cards_from_text,
    cards_text,
    complexity_lines,
    event_from_dict,
    event_to_dict,
    fault_lines,
    main_line_rows,
    reading_record,
    rule_game_fields,
    rule_game_head,
)

#: How phase 2 ended (`GameRecord.phase2_end`).
PLAYER_OUT = "player_out"
NO_PLAYABLE_CARD = "no_playable_card"
END_REASONS = {
    PLAYER_OUT: "a player went out",
    NO_PLAYABLE_CARD: "no player held a card the rule accepts",
    TURN_CAP: "the turn cap was hit",
}

#: Version of the JSON layout written by `GameRecord.to_json` (2 added ``faults``).
FORMAT_VERSION = 2
_READABLE_VERSIONS = (1, 2)


@dataclass(frozen=True)
class GameRecord(JsonRecord):
    """Everything about one game, enough to replay, check, score and lay it out.

    Attributes
    ----------
    game : str
        The game's name, e.g. ``"classic"``.
    rule, rule_name : str, str or None
        The secret rule's canonical text, and its catalog name if it has one.
    seed : int
        The seed the game was played with.
    config : dict
        The game's options (`ClassicConfig.to_dict` for classic).
    agents : tuple of dict
        Per seat: ``name`` (class name), ``spec`` (``module:Class``) and ``params``.
    starter : Card
        The first card of the main line, placed unjudged.
    deal : tuple of tuple of Card
        Each seat's hand as dealt.
    unused : tuple of Card
        Cards of the deck that were not dealt (with a fixed hand size).
    events : tuple of Event
        Every play in order: seat, card, phase, verdict (``right``) and the main-line
        position of the card it was judged against.
    main_line : tuple of Card
        The main line at the end, starter first.
    wrong_after_phase1 : tuple of tuple of Card
        Each seat's wrong cards at the end of phase 1.
    cards_left : tuple of int
        Cards each seat still holds at the end.
    dealer_score : int
        The dealer's score (from the wrong-card counts after phase 1).
    player_scores : tuple of float
        Each seat's score.
    phase2_end : str
        `PLAYER_OUT`, `NO_PLAYABLE_CARD` or `TURN_CAP`.
    phase2_turns : int
        Number of phase-2 turns played.
    turn_cap_hit : bool
        Whether phase 2 was stopped by the turn cap.
    rule_name : str or None
        The rule's catalog name, if it has one.
    faults : tuple of Fault
        The agents' faults, in the order they happened; empty in a clean game.
    """

    kind = "game record"  # named in errors: "not a game record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    deal: tuple[tuple[Card, ...], ...]
    unused: tuple[Card, ...]
    events: tuple[Event, ...]
    main_line: tuple[Card, ...]
    wrong_after_phase1: tuple[tuple[Card, ...], ...]
    cards_left: tuple[int, ...]
    dealer_score: int
    player_scores: tuple[float, ...]
    phase2_end: str
    phase2_turns: int
    turn_cap_hit: bool
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of active players (the dealer is not counted)."""
        return len(self.deal)

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text)."""

        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "deal": [cards_text(hand) for hand in self.deal],
            "unused": cards_text(self.unused),
            "events": [event_to_dict(event) for event in self.events],
            "main_line": cards_text(self.main_line),
            "wrong_after_phase1": [cards_text(pile) for pile in self.wrong_after_phase1],
            "cards_left": list(self.cards_left),
            "dealer_score": self.dealer_score,
            "player_scores": list(self.player_scores),
            "phase2_end": self.phase2_end,
            "phase2_turns": self.phase2_turns,
            "turn_cap_hit": self.turn_cap_hit,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version not in _READABLE_VERSIONS:
                readable = " and ".join(map(str, _READABLE_VERSIONS))
                raise RecordError(
                    f"unknown game record format {version!r} (this version reads {readable})"
                )

            return cls(
                **rule_game_fields(data),
                agents=tuple(agent_from_dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                deal=tuple(cards_from_text(hand) for hand in data["deal"]),
                unused=cards_from_text(data["unused"]),
                events=tuple(event_from_dict(event) for event in data["events"]),
                main_line=cards_from_text(data["main_line"]),
                wrong_after_phase1=tuple(
                    cards_from_text(pile) for pile in data["wrong_after_phase1"]
                ),
                cards_left=tuple(data["cards_left"]),
                dealer_score=data["dealer_score"],
                player_scores=tuple(float(score) for score in data["player_scores"]),
                phase2_end=data["phase2_end"],
                phase2_turns=data["phase2_turns"],
                turn_cap_hit=data["turn_cap_hit"],
                # Format 1 predates faults: its games had none (a fault raised).
                faults=tuple(
                    Fault.from_dict(fault) for fault in (data["faults"] if version >= 2 else ())
                ),
            )


def card_places(record: GameRecord) -> dict[str, tuple[Card, ...]]:
    """Where each card dealt is at the end, from the deal and the plays: the main line
    (the starter first), each seat's cards (dealt and not played right) and the cards
    never dealt.

    >>> from eleusis_lab.games.classic import play_classic
    >>> from eleusis_lab.registry import parse_agent_list
    >>> record = play_classic("red(card)", parse_agent_list("random,random"), seed=0)
    >>> places = card_places(record)
    >>> list(places), sum(map(len, places.values()))
    (['main line', 'unused', 'seat 0', 'seat 1'], 52)
    """
    held = [Counter(hand) for hand in record.deal]
    for event in record.events:
        if event.right:
            held[event.seat][event.card] -= 1
    seats = {f"seat {seat}": tuple(cards.elements()) for seat, cards in enumerate(held)}
    return {"main line": record.main_line, "unused": record.unused, **seats}


def scores_from_plays(
    record: GameRecord,
    player_scores: Callable[[Sequence[int]], list[float]],
    dealer_score: Callable[[Sequence[int]], int],
) -> tuple[list[float], int]:
    """The scores a game's formulas give from the deal and the plays: the cards each
    seat holds at the end (`card_places`), the wrong cards of phase 1.

    >>> from eleusis_lab.games.classic import play_classic
    >>> from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
    >>> from eleusis_lab.registry import parse_agent_list
    >>> record = play_classic("red(card)", parse_agent_list("random,random"), seed=0)
    >>> scores_from_plays(record, classic_player_scores, classic_dealer_score)
    ([0.0, 12.0], 6)
    """
    held = card_places(record)
    left = [len(held[f"seat {seat}"]) for seat in range(len(record.deal))]
    wrong = [0] * len(record.deal)
    for event in record.events:
        if event.phase == 1 and not event.right:
            wrong[event.seat] += 1
    return player_scores(left), dealer_score(wrong)


# -- layout -------------------------------------------------------------------------------

_WIDTH = 100  # a terminal's width, for the lines that are not the table


def format_main_line_layout(record: Any, columns: int = 13, max_rows: int = 12) -> str:
    """`format_layout` of a `GameRecord` (classic and four-to-eight), whatever its game."""
    main = record.main_line
    under: list[list[str]] = [[] for _ in main]
    for event in record.events:
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append(f"{event.card!s:>3}{'*' if event.phase == 2 else ' '}")

    name = f" ({record.rule_name})" if record.rule_name else ""
    lines = [
        f"{record.game} Eleusis, seed {record.seed}, rule: {record.rule}{name}",
        *complexity_lines(record.rule),
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        "wrong cards are under the main-line card they were played on; * = phase 2",
        "",
    ]
    lines += main_line_rows(main, under, columns, max_rows)
    lines = [line.rstrip() for line in lines]

    lines.append(f"{'seat':>4}  {'agent':<20} {'wrong':>5} {'left':>5} {'score':>6}")
    for seat, agent in enumerate(record.agents):
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {len(record.wrong_after_phase1[seat]):>5}"
            f" {record.cards_left[seat]:>5} {record.player_scores[seat]:>6g}"
        )
    lines.append(f"dealer score: {record.dealer_score}")
    reason = END_REASONS.get(record.phase2_end, record.phase2_end)
    lines.append(f"phase 2 ended after {record.phase2_turns} turns: {reason}")
    lines += fault_lines(record.faults)
    return "\n".join(lines)
