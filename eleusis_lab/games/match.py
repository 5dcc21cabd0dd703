"""Matches of any game: the deal passes left until every participant has dealt.

Every participant takes the dealer's seat in turn (participant 0 first, then 1, ...).
When participant ``k`` deals, the others are the active players, seat 0 being the one
left of the dealer (``k + 1``). The dealer scores the game's dealer score, each active
player his player score (`MatchResult.score_totals`; a game's rules may say otherwise).

Randomness: the match seed feeds one ``numpy.random.SeedSequence``; one child draws the
rules (when several are given), the other gives every game its own integer seed, which
the game's record keeps, so each game can be replayed alone.

A game with a match declares it (`eleusis_lab.games.table.GameType.match` and
``match_type``, a subclass of `MatchResult`); `rotate_deal` plays one, `read_match` and
`replay_match` read and check a match of any game.

Examples
--------
>>> from eleusis_lab.games.table import GAMES
>>> from eleusis_lab.registry import parse_agent_list
>>> classic = GAMES["classic"]
>>> result = classic.match(parse_agent_list("random,random,oracle"), seed=0, rules="red(card)")
>>> len(result.games), result.dealers
(6, (0, 1, 2, 0, 1, 2))
>>> result.seats[0], result.seats[1]
((1, 2), (2, 0))
>>> replay_match(read_match(result.to_dict()))
[]
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from eleusis_lab.agent import Agent
from eleusis_lab.engines import check_seed, describe_seat, is_int
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.table import GAMES, replay_game
from eleusis_lab.record_basics import (
    RecordError,
    agent_from_dict,
    complexity_lines,
    jsonable,
    whole_field,
)
from eleusis_lab.rules import Rule, parse

__all__ = [
    "MATCH_FORMAT",
    "MatchResult",
    "check_deals",
    "is_match",
    "match_game_seeds",
    "read_match",
    "replay_match",
    "rotate_deal",
]

#: The version of a match's JSON (``format``); the matches written before it had none.
MATCH_FORMAT = 1


@dataclass(frozen=True)
class MatchResult:
    """The games of a match and the participants' totals; each game's match is a
    subclass that names its record type, its title and its game.

    Attributes
    ----------
    seed : int
        The match seed.
    participants : tuple of dict
        Each participant's agent, described as in a game's record.
    games : tuple of records
        The games in the order they were played (each a ``record_type``).
    dealers : tuple of int
        The participant who dealt each game.
    seats : tuple of tuple of int
        For each game, the participant at each active seat (seat 0 first).
    totals : tuple of float
        Each participant's total: dealer scores plus player scores.
    """

    seed: int
    participants: tuple[dict[str, Any], ...]
    games: tuple[Any, ...]
    dealers: tuple[int, ...]
    seats: tuple[tuple[int, ...], ...]
    totals: tuple[float, ...]

    #: The record class of the games (`from_json` reads them with its ``from_dict``).
    record_type: ClassVar[type]
    #: The name of the game in the summary's title.
    title: ClassVar[str]
    #: The game of every record (its ``game`` field), written in the match's JSON.
    game: ClassVar[str]

    @classmethod
    def score_totals(
        cls,
        n: int,
        dealers: Sequence[int],
        seats: Sequence[Sequence[int]],
        games: Sequence[Any],
    ) -> list[float]:
        """The ``n`` participants' totals that the games' scores give: the sum of each
        one's dealer and player scores (a game's rules may say otherwise)."""
        sums = [0.0] * n
        for dealer, seated, record in zip(dealers, seats, games, strict=True):
            sums[dealer] += record.dealer_score
            for seat, who in enumerate(seated):
                sums[who] += record.player_scores[seat]
        return sums

    @property
    def winners(self) -> list[int]:
        """The participant(s) with the highest total."""
        best = max(self.totals)
        return [i for i, total in enumerate(self.totals) if total == best]

    def summary(self) -> str:
        """A table of the games and the totals, for a terminal."""
        p = len(self.participants)
        lines = [f"{self.title} match, seed {self.seed}, {len(self.games)} games", ""]
        lines.append("scores by participant, * = the dealer of the game")
        header = " ".join(f"{f'p{i}':>7}" for i in range(p))
        lines.append(f"{'game':>4} {header}  rule")
        for number, (game, dealer, seats) in enumerate(
            zip(self.games, self.dealers, self.seats, strict=True)
        ):
            cells = [""] * p
            cells[dealer] = f"{game.dealer_score:g}*"
            for seat, who in enumerate(seats):
                cells[who] = f"{game.player_scores[seat]:g} "
            shown = " ".join(f"{cell:>7}" for cell in cells)
            lines.append(f"{number:>4} {shown}  {game.rule}")
        lines.append("")
        lines.append("rules dealt:")
        for rule in dict.fromkeys(game.rule for game in self.games):
            lines += [f"  {rule}", *complexity_lines(rule, head="    ")]
        lines.append("")
        lines.append(f"{'participant':>11}  {'agent':<20} {'total':>7}")
        for i, (agent, total) in enumerate(zip(self.participants, self.totals, strict=True)):
            mark = "  winner" if i in self.winners else ""
            lines.append(f"{f'p{i}':>11}  {agent['name'][:20]:<20} {total:>7g}{mark}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The match as JSON-ready data, with every game record in full."""
        return {
            "format": MATCH_FORMAT,
            "kind": "match",
            "game": self.game,
            "seed": self.seed,
            "participants": [dict(agent) for agent in self.participants],
            "dealers": list(self.dealers),
            "seats": [list(seats) for seats in self.seats],
            "totals": list(self.totals),
            "games": [game.to_dict() for game in self.games],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The match as JSON; `from_json` reads it back."""
        return json.dumps(self.to_dict(), indent=indent, default=jsonable)

    @classmethod
    def from_json(cls, text: str) -> MatchResult:
        """Read a match written by `to_json`."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        """Read a match from `to_dict` data (or a match written before ``format``)."""
        return cls(
            seed=whole_field(data["seed"], "seed"),
            participants=tuple(agent_from_dict(agent) for agent in data["participants"]),
            games=tuple(cls.record_type.from_dict(game) for game in data["games"]),
            dealers=tuple(data["dealers"]),
            seats=tuple(tuple(seats) for seats in data["seats"]),
            totals=tuple(float(total) for total in data["totals"]),
        )


def check_deals(deals_per_player: object) -> int:
    """``deals_per_player`` as an int; `ConfigError` unless it is a whole number >= 1."""
    if not (is_int(deals_per_player) and deals_per_player >= 1):
        raise ConfigError(f"deals_per_player must be a whole number >= 1, got {deals_per_player!r}")
    return int(deals_per_player)


def rotate_deal(
    play: Callable[[Rule, list[Agent], int], Any],
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    games: int,
    result_type: type[MatchResult],
    read_rule: Callable[[Rule | str], Rule] = lambda rule: (
        parse(rule) if isinstance(rule, str) else rule
    ),
) -> MatchResult:
    """The match of any game: ``games`` games, the deal passing left after each.

    Participant ``g mod n`` deals game ``g`` and the others sit from the dealer's left;
    each game's rule is drawn uniformly from ``rules`` and its seed derived from
    ``seed`` (`numpy.random.SeedSequence`). ``play(rule, seated_agents, game_seed)``
    plays one game and returns its record. The totals are ``result_type.score_totals``.
    """
    agents = list(agents)
    n = len(agents)
    if isinstance(rules, Rule | str):
        rules = [rules]
    pool = [
        read_rule(rule) if read_rule else parse(rule) if isinstance(rule, str) else rule
        for rule in rules
    ]
    if not pool:
        raise ConfigError("a match needs at least one rule")
    seed = check_seed(seed)
    dealers = [g % n for g in range(games)]
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[0])
    game_seeds = match_game_seeds(seed, games)
    records, seats_per_game = [], []
    for dealer, game_seed in zip(dealers, game_seeds, strict=False):
        seats = tuple((dealer + 1 + i) % n for i in range(n - 1))
        rule = pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]
        records.append(play(rule, [agents[who] for who in seats], game_seed))
        seats_per_game.append(seats)
    sums = result_type.score_totals(n, dealers, seats_per_game, records)
    return result_type(
        seed=seed,
        participants=tuple(describe_seat(agent) for agent in agents),
        games=tuple(records),
        dealers=tuple(dealers),
        seats=tuple(seats_per_game),
        totals=tuple(sums),
    )


def match_game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each of a match's ``games`` games, derived from the match seed.

    The second child of ``numpy.random.SeedSequence(seed)`` (the first draws the rules);
    63-bit seeds, so that they fit the int64 columns of results tables.
    """
    game_sequence = np.random.SeedSequence(seed).spawn(2)[1]
    return (game_sequence.generate_state(max(games, 1), dtype=np.uint64) >> 1).tolist()[:games]


def is_match(data: Any) -> bool:
    """Whether JSON data is a match (`MatchResult.to_dict`), of this format or earlier."""
    if not isinstance(data, dict):
        return False
    return data.get("kind") == "match" or {"participants", "games", "totals"} <= data.keys()


def read_match(data: dict[str, Any]) -> MatchResult:
    """The match of any game from its JSON data (`is_match`); `RecordError` when the
    game has no match or the format is unknown, `KeyError` for a missing field."""
    version = data.get("format", MATCH_FORMAT)
    if version != MATCH_FORMAT:
        raise RecordError(f"unknown match record format {version!r} (this version reads 1)")
    games = data["games"]
    game = data.get("game") or (games[0].get("game") if games else None)
    declared = GAMES.get(game) if isinstance(game, str) else None
    if declared is None or declared.match_type is None:
        raise RecordError(f"a match of {game!r}: that game has no match")
    return declared.match_type.from_dict(data)


def replay_match(match: MatchResult) -> list[str]:
    """Check a match: the deal passing left, each game's seed, seats and replay, the totals.

    Returns the discrepancies found (each game's prefixed ``game K:``); empty when the
    match checks out.

    >>> from eleusis_lab.games.table import GAMES
    >>> from eleusis_lab.registry import parse_agent_list
    >>> match = GAMES["classic"].match(parse_agent_list("random,random,oracle"), 0, "red(card)")
    >>> replay_match(match)
    []
    >>> import dataclasses
    >>> replay_match(dataclasses.replace(match, totals=(0.0, 0.0, 0.0)))[0][:16]
    'totals: recorded'
    """
    n, count = len(match.participants), len(match.games)
    if not (len(match.dealers) == len(match.seats) == count):
        return [f"{count} games but {len(match.dealers)} dealers and {len(match.seats)} seatings"]
    problems = []
    seeds = match_game_seeds(match.seed, count)
    for g, (dealer, seats, record) in enumerate(
        zip(match.dealers, match.seats, match.games, strict=True)
    ):
        passing = tuple((g % n + 1 + i) % n for i in range(n - 1))
        if (dealer, tuple(seats)) != (g % n, passing):
            problems.append(
                f"game {g}: dealt by {dealer} to {list(seats)}; the deal passing left gives"
                f" {g % n} to {list(passing)}"
            )
            continue
        if record.game != match.game:
            problems.append(f"game {g}: a {record.game} game in a {match.game} match")
        if record.seed != seeds[g]:
            problems.append(f"game {g}: seed {record.seed}; the match seed gives {seeds[g]}")
        if list(record.agents) != [match.participants[who] for who in seats]:
            problems.append(f"game {g}: the agents at its seats are not participants {seats}")
        problems += [f"game {g}: {problem}" for problem in replay_game(record)]
    totals = match.score_totals(n, match.dealers, match.seats, match.games)
    if len(totals) != len(match.totals) or not all(map(math.isclose, totals, match.totals)):
        recorded = ", ".join(f"{t:g}" for t in match.totals)
        given = ", ".join(f"{t:g}" for t in totals)
        problems.append(f"totals: recorded {recorded}, the games' scores give {given}")
    return problems
