"""The record of a Delphi game (`DelphiRecord`), its vocabulary, and the table as the
players lay it out (`format_delphi_layout`).
"""

from __future__ import annotations

import contextlib
import textwrap
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.record import (
    OVER_TIME,
    RAISED,
    STOPPED,
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
from eleusis_lab.rules import RuleSyntaxError

GAME = "delphi"
#: ``Event.seat`` of every card of Delphi: the oracle places it, no player plays it.
ORACLE = -1
#: A prediction's token is "right" when its probability is at least this.
TOKEN_THRESHOLD = 0.5
#: The probability that stands for a faulty prediction (its token says "right").
SUBSTITUTE_PROBABILITY = 0.5
#: Fault kind: ``predict`` returned something that is not one probability in [0, 1].
NOT_A_PROBABILITY = "not_a_probability"
#: The agent methods a Delphi game calls, hence where its faults can be.
DELPHI_FAULT_CALLS = ("start_game", "predict", "observe")
PREDICT_FAULT_KINDS = (RAISED, NOT_A_PROBABILITY, OVER_TIME, STOPPED)
DECK = tuple(standard_deck())
FORMAT_VERSION = 1


# -- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DelphiRecord(JsonRecord):
    """Everything about one game of Delphi, enough to replay, check, score and lay it out.

    Attributes
    ----------
    game : str
        ``"delphi"``.
    rule : str
        The oracle's rule, canonical text.
    seed : int
        The seed the game was played with.
    config : dict
        `DelphiConfig.to_dict`.
    agents : tuple of dict
        Per seat: ``name``, ``spec`` (``module:Class``) and ``params``.
    starter : Card
        The first card, placed unjudged.
    events : tuple of Event
        One per further card, in deck order: ``seat=ORACLE``, ``phase=1``, the verdict
        and the main-line position the card was judged against.
    probabilities : tuple of tuple of float
        For each event, each seat's probability that the card is right (0.5 where the
        prediction was faulty); the tokens are ``probability >= TOKEN_THRESHOLD``.
    main_line, side_column : tuple of Card
        The right cards (starter first) and the wrong ones, in order.
    chips : tuple of int
        Each seat's chips at the end.
    player_scores : tuple of int
        Each seat's score after the settlement; they add up to 0.
    oracle_score : int
        The oracle's score.
    rule_name : str or None
        The rule's catalog name, if it has one.
    faults : tuple of Fault
        The agents' faults in the order they happened (``call`` is ``"start_game"``,
        ``"predict"`` or ``"observe"``); ``event`` is the index of the card predicted or
        observed.
    """

    kind = "Delphi record"  # named in errors: "not a Delphi record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    events: tuple[Event, ...]
    probabilities: tuple[tuple[float, ...], ...]
    main_line: tuple[Card, ...]
    side_column: tuple[Card, ...]
    chips: tuple[int, ...]
    player_scores: tuple[int, ...]
    oracle_score: int
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of players (the oracle is not counted)."""
        return len(self.agents)

    @property
    def dealer_score(self) -> int:
        """The oracle's score, under the name the other games' records use."""
        return self.oracle_score

    @property
    def verdicts(self) -> np.ndarray:
        """Boolean array, one per card in deck order: was it right?"""
        return np.array([event.right for event in self.events], dtype=bool)

    @property
    def tokens(self) -> np.ndarray:
        """Boolean array (cards x players): each token, True for "right"."""
        values = np.array(self.probabilities, dtype=float).reshape(-1, self.n_players)
        return values >= TOKEN_THRESHOLD

    @property
    def hits(self) -> np.ndarray:
        """Boolean array (cards x players): was each token correct?"""
        return self.tokens == self.verdicts[:, np.newaxis]

    def chips_history(self) -> np.ndarray:
        """Int array (cards x players): each seat's chips after each card."""
        history = np.zeros(self.hits.shape, dtype=np.int64)
        chips = np.zeros(self.n_players, dtype=np.int64)
        for k, row in enumerate(self.hits):
            chips = np.where(row, chips + 1, 0)
            history[k] = chips
        return history

    def prediction_table(self):
        """Every prediction as a pandas DataFrame: one row per card and seat.

        Columns: ``card_index`` (0 for the first card after the starter), ``card``,
        ``seat``, ``agent``, ``probability``, ``token`` (True: "right"), ``right`` (the
        verdict), ``hit`` (the token was correct), ``chips`` (after the card).

        Examples
        --------
        >>> from eleusis_lab.games.delphi import play_delphi
        >>> from eleusis_agents.simple import OracleAgent
        >>> record = play_delphi("red(card)", [OracleAgent(), OracleAgent()], seed=0)
        >>> table = record.prediction_table()
        >>> len(table), bool(table["hit"].all())
        (102, True)
        """
        import pandas as pd

        n = self.n_players
        history = self.chips_history()
        hits = self.hits
        rows = [
            {
                "card_index": k,
                "card": card_text(event.card),
                "seat": seat,
                "agent": self.agents[seat].get("name"),
                "probability": self.probabilities[k][seat],
                "token": self.probabilities[k][seat] >= TOKEN_THRESHOLD,
                "right": event.right,
                "hit": bool(hits[k, seat]),
                "chips": int(history[k, seat]),
            }
            for k, event in enumerate(self.events)
            for seat in range(n)
        ]
        columns = ["card_index", "card", "seat", "agent", "probability", "token", "right"]
        return pd.DataFrame(rows, columns=[*columns, "hit", "chips"])

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text)."""

        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "events": [event_to_dict(event) for event in self.events],
            "probabilities": [list(row) for row in self.probabilities],
            "main_line": cards_text(self.main_line),
            "side_column": cards_text(self.side_column),
            "chips": list(self.chips),
            "player_scores": list(self.player_scores),
            "oracle_score": self.oracle_score,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DelphiRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version != FORMAT_VERSION:
                raise RecordError(
                    f"unknown Delphi record format {version!r} (this version reads"
                    f" {FORMAT_VERSION})"
                )
            if data["game"] != GAME:
                raise RecordError(f"not a Delphi record: the game is {data['game']!r}")

            return cls(
                **rule_game_fields(data),
                agents=tuple(agent_from_dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                events=tuple(event_from_dict(event) for event in data["events"]),
                probabilities=tuple(tuple(float(p) for p in row) for row in data["probabilities"]),
                main_line=cards_from_text(data["main_line"]),
                side_column=cards_from_text(data["side_column"]),
                chips=tuple(data["chips"]),
                player_scores=tuple(data["player_scores"]),
                oracle_score=data["oracle_score"],
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- layout -------------------------------------------------------------------------------

_CELL = 5
_LABEL = 8
_WIDTH = 100


def format_delphi_layout(record: DelphiRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a Delphi game, every prediction, then the scores.

    First the main line in blocks of ``columns`` cards, each wrong card under the
    main-line card it was judged against (a column longer than ``max_rows`` shows its
    first cards and how many more there are). Then the predictions, card by card in
    deck order: the verdict (``R`` right, ``w`` wrong) and each seat's token, ``T``
    ("right") or ``F`` ("wrong"), in lower case when it was mistaken (the player gave
    all his chips to the oracle). Then per seat the correct tokens, the chips and the
    score, the oracle's score, and the faults grouped as in
    `eleusis_lab.record.format_layout`.

    Examples
    --------
    >>> from eleusis_lab.games.delphi import play_delphi
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> record = play_delphi("red(card)", [OracleAgent(), RandomAgent()], seed=0)
    >>> print(format_delphi_layout(record, columns=6))  # doctest: +ELLIPSIS
    Delphi, seed 0, rule: red(card)
    ...
    position   0    1    2    3    4    5
    main      KH   6D   JD   3H   JH   9H
    wrong     QC   JC        5C
    ...
    predictions in deck order: R/w = the verdict; T/F = a token, lower case when mistaken
    card      QC   6D   JC   JD   3H   5C
    verdict    w    R    w    R    R    w
    seat 0     F    T    F    T    T    F
    seat 1     t    T    t    T    T    t
    ...
    seat  agent                 hits  accuracy  chips  score
       0  OracleAgent             51     1.000     51     48
       1  RandomAgent             25     0.490      3    -48
    oracle score: 48
    """
    main = record.main_line
    under: list[list[str]] = [[] for _ in main]
    for event in record.events:
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append(f"{event.card!s:>3}")

    name = f" ({record.rule_name})" if record.rule_name else ""
    lines = [f"Delphi, seed {record.seed}, rule: {record.rule}{name}"]
    with contextlib.suppress(RuleSyntaxError):  # replay reports a rule that does not parse
        lines += complexity_lines(record.rule)
    lines += [
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        "right cards extend the main line; wrong cards are under the card they were judged on",
        "",
    ]
    lines += main_line_rows(main, under, columns, max_rows)

    n, events = record.n_players, record.events
    tokens, hits = record.tokens, record.hits
    if events:
        lines.append(
            "predictions in deck order: R/w = the verdict; T/F = a token, lower case when mistaken"
        )
    for start in range(0, len(events), columns):
        block = range(start, min(start + columns, len(events)))
        lines.append(
            f"{'card':<{_LABEL}}" + "".join(f"{events[k].card!s:>{_CELL - 1}} " for k in block)
        )
        lines.append(
            f"{'verdict':<{_LABEL}}"
            + "".join(f"{'R' if events[k].right else 'w':>{_CELL - 1}} " for k in block)
        )
        for seat in range(n):
            cells = []
            for k in block:
                token = "T" if tokens[k, seat] else "F"
                cells.append(f"{token if hits[k, seat] else token.lower():>{_CELL - 1}} ")
            lines.append(f"{f'seat {seat}':<{_LABEL}}" + "".join(cells))
        lines.append("")
    lines = [line.rstrip() for line in lines]

    lines.append(
        f"{'seat':>4}  {'agent':<20} {'hits':>5} {'accuracy':>9} {'chips':>6} {'score':>6}"
    )
    for seat, agent in enumerate(record.agents):
        correct = int(hits[:, seat].sum()) if len(events) else 0
        accuracy = correct / len(events) if events else 0.0
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {correct:>5} {accuracy:>9.3f}"
            f" {record.chips[seat]:>6} {record.player_scores[seat]:>6}"
        )
    lines.append(f"oracle score: {record.oracle_score}")
    faulted = fault_lines(record.faults)
    if any(f.call == "predict" and f.kind != OVER_TIME for f in record.faults):
        faulted[0] += f" (each faulty prediction counted as {SUBSTITUTE_PROBABILITY})"
    lines += faulted
    return "\n".join(lines)
