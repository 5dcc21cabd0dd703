"""A toy game, to show that a new game is one module and one registration.

"Ten cards": each seat in turn plays a card of its hand of five onto one main line and
hears the rule's verdict; a right card scores a point and stays on the line, a wrong one
goes to the seat's wrong pile. After ``plays`` turns per seat the game ends. Nothing but
this module knows the game: the test registers ``GAME_TYPE`` with
`eleusis_lab.games.table.register_game` (a package would name it as an entry point of
``eleusis_lab.games``), and the command line, replay, the runner, the human seat (through
the game's view, `TenCardsView`) and the report of a game stopped early read it from there.
Its results have a column of its own (`STREAK`, each seat's longest run of right cards),
which reaches the rows, the analysis's line-up table and the report through the
registry alone.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import Card, parse_card, standard_deck
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.table import GameType, Outcome, ResultColumn, SampleGame
from eleusis_lab.record import describe_agent
from eleusis_lab.rules import Context, Rule, parse

NAME = "ten-cards"
HAND = 5


@dataclass(frozen=True)
class TenCardsConfig:
    """How many cards each seat plays."""

    plays: int = 5

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class TenCardsRecord:
    """The rule, the seed, the agents, every play and the scores."""

    rule: str
    seed: int
    agents: tuple[str, ...]
    config: dict[str, Any]
    events: tuple[Event, ...]
    scores: tuple[int, ...]
    game: str = NAME
    faults: tuple = ()

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["events"] = [{**vars(e), "card": str(e.card)} for e in self.events]
        return json.dumps(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TenCardsRecord:
        events = tuple(Event(**{**e, "card": parse_card(e["card"])}) for e in data["events"])
        return cls(
            data["rule"],
            data["seed"],
            tuple(data["agents"]),
            data["config"],
            events,
            tuple(data["scores"]),
        )


def _deal(seed: int, seats: int) -> tuple[Card, list[list[Card]], list[Card]]:
    deck = list(standard_deck())
    np.random.default_rng(seed).shuffle(deck)
    return (
        deck[0],
        [deck[1 + HAND * s : 1 + HAND * (s + 1)] for s in range(seats)],
        deck[1 + HAND * seats :],
    )


def play_ten_cards(
    rule: Rule | str, agents: Sequence[Agent], seed: int, config: TenCardsConfig | None = None
) -> TenCardsRecord:
    """Play one game; the engines' shape: ``play(rule, agents, seed, config)``."""
    rule = parse(rule) if isinstance(rule, str) else rule
    config = config or TenCardsConfig()
    starter, hands, stock = _deal(seed, len(agents))
    line, wrong, right_before = [starter], [[] for _ in agents], None
    events, scores = [], [0] * len(agents)
    for seat, agent in enumerate(agents):
        told = rule if agent.sees_rule is True else None  # the oracle is told the rule
        info = GameInfo(NAME, seat, len(agents), tuple(hands[seat]), starter, told)
        agent.start_game(info, np.random.default_rng([seed, seat]))
    for _ in range(config.plays):
        for seat, agent in enumerate(agents):
            hand = hands[seat]
            obs = Observation(
                NAME, seat, 1, tuple(hand), tuple(line), tuple(map(tuple, wrong)), right_before
            )
            card = agent.choose_play(obs)
            card = card if card in hand else hand[0]  # an illegal card: the first one
            right = bool(rule.legal_mask(Context(tuple(line), right_before)) >> card.face & 1)
            event = Event(seat, card, 1, right, len(line) - 1)
            hand.remove(card)
            hand.append(stock.pop())
            (line if right else wrong[seat]).append(card)
            scores[seat] += right
            right_before = right
            events.append(event)
            for other in agents:
                other.observe(event)
    names = tuple(describe_agent(agent)["name"] for agent in agents)
    return TenCardsRecord(rule.text, seed, names, config.to_dict(), tuple(events), tuple(scores))


def replay_ten_cards(record: TenCardsRecord) -> list[str]:
    """The discrepancies between a record and the rules: deal, verdicts, scores."""
    rule, problems = parse(record.rule), []
    starter, hands, stock = _deal(record.seed, len(record.agents))
    line, right_before, scores = [starter], None, [0] * len(record.agents)
    for i, event in enumerate(record.events):
        hand = hands[event.seat]
        if event.card not in hand:
            return [*problems, f"event {i}: {event.card} is not in seat {event.seat}'s hand"]
        right = bool(rule.legal_mask(Context(tuple(line), right_before)) >> event.card.face & 1)
        if right != event.right:
            problems.append(f"event {i}: {event.card} is {'right' if right else 'wrong'}")
        hand.remove(event.card)
        hand.append(stock.pop())
        line += [event.card] if right else []
        scores[event.seat] += right
        right_before = right
    if tuple(scores) != record.scores:
        problems.append(f"scores {list(record.scores)}, replayed {scores}")
    return problems


def ten_cards_layout(record: TenCardsRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The plays, one line per seat."""
    lines = [f"ten cards, rule {record.rule}, seed {record.seed}"]
    for seat, name in enumerate(record.agents):
        plays = " ".join(
            f"{e.card}{'' if e.right else '*'}" for e in record.events if e.seat == seat
        )
        lines.append(f"seat {seat} {name}: {plays}  score {record.scores[seat]}")
    return "\n".join(lines)


#: The game's own column of the results: summarised by its mean in a line-up table.
STREAK = ResultColumn(
    "longest_streak", "int64", "the seat's longest run of right cards", "mean", digits=1
)


def longest_streak(events: Sequence[Event], seat: int) -> int:
    """The most right cards ``seat`` played one after another (its own plays)."""
    best = run = 0
    for event in events:
        if event.seat == seat:
            run = run + 1 if event.right else 0
            best = max(best, run)
    return best


def ten_cards_outcome(record: TenCardsRecord) -> Outcome:
    """What a results table keeps of a game: the scores, no dealer, and the streaks."""
    seats = range(len(record.agents))
    plays = tuple(sum(e.seat == s for e in record.events) for s in seats)
    wrong = tuple(sum(e.seat == s and not e.right for e in record.events) for s in seats)
    return Outcome(
        scores=tuple(float(s) for s in record.scores),
        dealer_score=None,
        wrong_cards=wrong,
        cards_left=(HAND,) * len(plays),
        plays=plays,
        end="plays done",
        events=record.events,
        extra={STREAK.name: tuple(longest_streak(record.events, s) for s in seats)},
    )


def _points(events: Sequence[Event], seats: int) -> list[int]:
    return [sum(e.right for e in events if e.seat == seat) for seat in range(seats)]


class TenCardsView(SeatView):
    """What a person at a human seat is shown: the generic view, with the points so far."""

    def opening(self) -> str:
        return f"== {self.title}: a point for every right card =="

    def status(self, obs: Observation, seen: Sequence[Event]) -> list[str]:
        return [*super().status(obs, seen), f"points: {_points(seen, self.info.n_players)}"]


def ten_cards_scores_so_far(game: Any) -> list[str]:
    """The points of a game stopped early (`eleusis_lab.stopped.GameSoFar`)."""
    return [f"points so far: {_points(game.events, game.players)}"]


GAME_TYPE = GameType(
    NAME,
    play_ten_cards,
    TenCardsConfig,
    ten_cards_outcome,
    min_players=1,
    has_dealer=False,
    title="Ten cards",
    record_type=TenCardsRecord,
    replay=replay_ten_cards,
    layout=ten_cards_layout,
    default_players=2,
    sample=SampleGame("red(card)", 2),
    seat_view=TenCardsView,
    scores_so_far=ten_cards_scores_so_far,
    columns=(STREAK,),
)
