"""A match of classic Eleusis (RULES.md 1.7): the deal passes left until all have dealt.

Every participant takes the dealer's seat in turn (participant 0 first, then 1, ...),
``deals_per_player`` times round the table. When participant ``k`` deals, the others
are the active players, seat 0 being the one left of the dealer (``k + 1``). The dealer
scores the game's dealer score, each active player his player score.

Randomness: the match seed feeds one ``numpy.random.SeedSequence``; one child draws the
rules (when several are given), the other gives every game its own integer seed, which
the game's record keeps, so each game can be replayed alone.

Examples
--------
>>> from eleusis_lab.registry import parse_agent_list
>>> result = play_match(parse_agent_list("random,random,oracle"), seed=0, rules="red(card)")
>>> len(result.games), result.dealers
(6, (0, 1, 2, 0, 1, 2))
>>> result.seats[0], result.seats[1]
((1, 2), (2, 0))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games._faults import check_seed, is_int
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.record import GameRecord, describe_agent, jsonable
from eleusis_lab.rules import Rule, parse
from eleusis_lab.rules.complexity import complexity

__all__ = ["MatchResult", "play_match"]


@dataclass(frozen=True)
class MatchResult:
    """The games of a match and the participants' totals.

    Attributes
    ----------
    seed : int
        The match seed.
    participants : tuple of dict
        Each participant's agent, described as in a `GameRecord`.
    games : tuple of GameRecord
        The games in the order they were played.
    dealers : tuple of int
        The participant who dealt each game.
    seats : tuple of tuple of int
        For each game, the participant at each active seat (seat 0 first).
    totals : tuple of float
        Each participant's total: dealer scores plus player scores.
    """

    seed: int
    participants: tuple[dict[str, Any], ...]
    games: tuple[GameRecord, ...]
    dealers: tuple[int, ...]
    seats: tuple[tuple[int, ...], ...]
    totals: tuple[float, ...]

    #: The record class of the games (`from_json` reads them with its ``from_dict``).
    record_type = GameRecord
    #: The name of the game in the summary's title.
    title = "classic Eleusis"

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
            lines.append(f"  {rule}\n    {complexity(parse(rule))}")
        lines.append("")
        lines.append(f"{'participant':>11}  {'agent':<20} {'total':>7}")
        for i, (agent, total) in enumerate(zip(self.participants, self.totals, strict=True)):
            mark = "  winner" if i in self.winners else ""
            lines.append(f"{f'p{i}':>11}  {agent['name'][:20]:<20} {total:>7g}{mark}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The match as JSON-ready data, with every game record in full."""
        return {
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
        data = json.loads(text)
        return cls(
            seed=data["seed"],
            participants=tuple(data["participants"]),
            games=tuple(cls.record_type.from_dict(game) for game in data["games"]),
            dealers=tuple(data["dealers"]),
            seats=tuple(tuple(seats) for seats in data["seats"]),
            totals=tuple(float(total) for total in data["totals"]),
        )


def play_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 2,
    config: ClassicConfig | None = None,
) -> MatchResult:
    """Play a classic match: everyone deals ``deals_per_player`` times, the deal passing left.

    Parameters
    ----------
    agents : sequence of Agent
        The participants (at least 3: the dealer and 2 active players per game). The same
        objects play every game; `Agent.start_game` resets them.
    seed : int
        The match seed; the games' seeds and the rule draws derive from it.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each deal draws uniformly.
    deals_per_player : int
        How many times each participant deals (RULES.md: twice).
    config : ClassicConfig, optional
        Options of every game.

    Returns
    -------
    MatchResult

    Raises
    ------
    ConfigError
        For fewer than 3 participants, no rules, or ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_lab.registry import parse_agent_list
    >>> rules = ["red(card)", "color(card) != color(last)"]
    >>> result = play_match(parse_agent_list("random,random,random"), seed=1, rules=rules)
    >>> sorted({game.rule for game in result.games}) == sorted(rules)
    True
    """
    n = len(agents)
    if n < 3:
        raise ConfigError(
            f"a classic match needs at least 3 participants (each game has a dealer and at"
            f" least 2 active players), got {n}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_classic(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        n * check_deals(deals_per_player),
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
    result_type: type[MatchResult] = MatchResult,
    read_rule: Callable[[Rule | str], Rule] = lambda rule: (
        parse(rule) if isinstance(rule, str) else rule
    ),
    totals: Callable[[list[int], list[tuple[int, ...]], list[Any]], Sequence[float]] | None = None,
) -> MatchResult:
    """The match of any game: ``games`` games, the deal passing left after each.

    Participant ``g mod n`` deals game ``g`` and the others sit from the dealer's left;
    each game's rule is drawn uniformly from ``rules`` and its seed derived from
    ``seed`` (`numpy.random.SeedSequence`). ``play(rule, seated_agents, game_seed)``
    plays one game and returns its record. A participant's total is the sum of his
    dealer and player scores, unless ``totals(dealers, seats, records)`` says otherwise.
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
    rule_sequence, game_sequence = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(rule_sequence)
    # 63-bit seeds: they fit the int64 columns of results tables.
    game_seeds = (game_sequence.generate_state(max(games, 1), dtype=np.uint64) >> 1).tolist()
    records, seats_per_game = [], []
    for dealer, game_seed in zip(dealers, game_seeds, strict=False):
        seats = tuple((dealer + 1 + i) % n for i in range(n - 1))
        rule = pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]
        records.append(play(rule, [agents[who] for who in seats], game_seed))
        seats_per_game.append(seats)
    if totals is None:
        sums = [0.0] * n
        for dealer, seats, record in zip(dealers, seats_per_game, records, strict=True):
            sums[dealer] += record.dealer_score
            for seat, who in enumerate(seats):
                sums[who] += record.player_scores[seat]
    else:
        sums = list(totals(dealers, seats_per_game, records))
    return result_type(
        seed=seed,
        participants=tuple(describe_agent(agent) for agent in agents),
        games=tuple(records),
        dealers=tuple(dealers),
        seats=tuple(seats_per_game),
        totals=tuple(sums),
    )
