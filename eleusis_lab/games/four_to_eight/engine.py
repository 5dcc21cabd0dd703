"""The engine of the 4-8 player variant (RULES.md section 2): its options, the seed-004
deck table and deal, and one game (`play_four_to_eight`).

Examples
--------
>>> from eleusis_agents.simple import RandomAgent
>>> record = play_four_to_eight("red(card)", [RandomAgent() for _ in range(3)], seed=0)
>>> [len(hand) for hand in record.deal], len(record.unused)
([17, 17, 17], 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from eleusis_lab.agent import Agent, GameTraits
from eleusis_lab.cards import Card, DeckPlan, seed004_deck
from eleusis_lab.engines import (
    DECISION_LIMIT,
    check_agents,
    check_fault_options,
    check_seed,
    is_int,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic.engine import play_main_line
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.games.classic.state import Dealt, MainLineGame
from eleusis_lab.games.four_to_eight.scoring import (
    four_to_eight_dealer_score,
    four_to_eight_player_scores,
)
from eleusis_lab.rules import Rule, parse

GAME = "four-to-eight"
#: What the variant tells its players of itself: a dealer's rule, wrong cards cost.
TRAITS = GameTraits(rule_from="dealer", scored_on="plays")
#: The seed-004 table row (``participants``) for each number of players (hands).
PLAYERS: dict[int, int] = {seed004_deck(row).hands: row for row in range(4, 9)}


def deck_plan(n_players: int) -> DeckPlan:
    """The row of the seed-004 table that deals ``n_players`` hands.

    Raises
    ------
    ConfigError
        When no row of the table deals that many hands.

    Examples
    --------
    >>> plan = deck_plan(3)
    >>> plan.participants, len(plan.cards), plan.hand_size
    (4, 52, 17)
    >>> deck_plan(5).participants, len(deck_plan(8).cards)
    (5, 97)
    """
    row = PLAYERS.get(n_players) if is_int(n_players) else None
    if row is None:
        counts = ", ".join(map(str, sorted(PLAYERS)))
        raise ConfigError(
            f"the 4-8 player variant deals {counts} hands (the seed-004 table of RULES.md"
            f" section 2), so it takes that many players besides the dealer; got {n_players!r}"
        )
    return seed004_deck(row)


@dataclass(frozen=True)
class FourToEightConfig:
    """Options of the 4-8 player variant; the defaults are the decisions of RULES.md.

    Parameters
    ----------
    hand_size : int or None
        Cards dealt to each player; ``None`` deals the table's hands (17, 10, 8, 14 or
        12). A smaller number leaves the rest of the table's deck unused (short games,
        tests); a larger one is a `ConfigError` when the game is dealt.
    max_turns : int
        Cap on the number of phase-2 turns, a safety net; reaching it is recorded.
    on_fault : {"substitute", "raise"}
        What an agent's fault does to the game, as in classic Eleusis (see
        `eleusis_lab.games.classic.ClassicConfig`): record it and play the first card
        the agent could play, or stop the game.
    decision_seconds : float or None
        Time budget of one ``choose_play`` call, in seconds; ``None``: no limit.
    decision_limit : float or None
        Hard limit of every call of an agent, in seconds (60); ``None``: no limit. A
        call still running then is stopped and the game goes on as if it had raised,
        its seat retired for the rest of the game, as in classic Eleusis.

    Examples
    --------
    >>> FourToEightConfig(hand_size=5).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'hand_size': 5, 'max_turns': 1000, 'on_fault': 'substitute', 'decision_seconds': None,
     'decision_limit': 60.0}
    """

    hand_size: int | None = None
    max_turns: int = 1000
    on_fault: str = "substitute"
    decision_seconds: float | None = None
    decision_limit: float | None = DECISION_LIMIT

    def __post_init__(self) -> None:
        if self.hand_size is not None and not (is_int(self.hand_size) and self.hand_size >= 1):
            raise ConfigError(
                f"hand_size must be None or a whole number >= 1, got {self.hand_size!r}"
            )
        if not (is_int(self.max_turns) and self.max_turns >= 0):
            raise ConfigError(f"max_turns must be a whole number >= 0, got {self.max_turns!r}")
        check_fault_options(self.on_fault, self.decision_seconds, self.decision_limit)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `GameRecord`)."""
        return asdict(self)


def _deal(
    rng: np.random.Generator, plan: DeckPlan, hand_size: int | None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    size = plan.hand_size if hand_size is None else hand_size
    if size > plan.hand_size:
        raise ConfigError(
            f"hand_size={size}, but the table deals {plan.hand_size} cards per hand to"
            f" {plan.hands} players"
        )
    deck = [plan.cards[i] for i in rng.permutation(len(plan.cards)).tolist()]
    n, dealt = plan.hands, plan.hands * size
    # The dealer's one card is the starter; then one card at a time from seat 0.
    hands = [deck[1 + seat : 1 + dealt : n] for seat in range(n)]
    return deck[0], hands, tuple(deck[1 + dealt :])


def four_to_eight_deal(
    seed: int, n_players: int, hand_size: int | None = None
) -> tuple[Card, list[list[Card]], tuple[Card, ...]]:
    """The starter, the hands and the unused cards that `play_four_to_eight` deals.

    Examples
    --------
    >>> starter, hands, unused = four_to_eight_deal(0, n_players=7)
    >>> [len(hand) for hand in hands], len(unused)
    ([14, 14, 14, 14, 14, 14, 14], 0)
    >>> starter, hands, unused = four_to_eight_deal(0, n_players=5, hand_size=4)
    >>> [len(hand) for hand in hands], len(unused)
    ([4, 4, 4, 4, 4], 30)
    """
    seed = check_seed(seed)
    plan = deck_plan(n_players)
    return _deal(np.random.default_rng(np.random.SeedSequence(seed)), plan, hand_size)


def _deal_players(rng: np.random.Generator, n_players: int, hand_size: int | None) -> Dealt:
    return _deal(rng, deck_plan(n_players), hand_size)


#: The 4-8 player variant as a game on one main line (`MainLineGame`): the table's deal
#: and the variant's scores.
FOUR_TO_EIGHT = MainLineGame(
    GAME, TRAITS, _deal_players, four_to_eight_dealer_score, four_to_eight_player_scores
)


def play_four_to_eight(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: FourToEightConfig | None = None,
) -> GameRecord:
    """Play one game of the 4-8 player variant and return its record.

    Parameters
    ----------
    rule : Rule or str
        The dealer's secret rule (text is parsed with `eleusis_lab.rules.parse`).
    agents : sequence of Agent
        The players besides the dealer, seat 0 first (left of the dealer): 3, 5, 6, 7
        or 8 of them, the hands of a row of the seed-004 table; one object each.
    seed : int
        Seeds the shuffle and every agent's generator; same seed, same game.
    config : FourToEightConfig, optional
        Options of the game; the defaults when omitted.

    Returns
    -------
    GameRecord
        With ``game="four-to-eight"``: the deal, every play, the wrong cards when the
        hands ran out, the dealer's and the players' scores, how phase 2 ended.

    Raises
    ------
    ConfigError
        For a number of players that no row of the table deals, a shared agent object,
        a bad seed or a hand size larger than the table's.
    AgentError
        Only with ``config.on_fault="raise"``, as in `eleusis_lab.games.classic`.

    Examples
    --------
    >>> from eleusis_agents.simple import RandomAgent
    >>> players = [RandomAgent() for _ in range(5)]
    >>> record = play_four_to_eight("red(card)", players, seed=2)
    >>> len(record.deal), len(record.deal[0]), record.phase2_end
    (5, 10, 'no_playable_card')
    >>> counts = [len(pile) for pile in record.wrong_after_phase1]
    >>> record.dealer_score == four_to_eight_dealer_score(counts)
    True
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = FourToEightConfig() if config is None else config
    agents = check_agents(agents, "the 4-8 player variant", 1)
    deck_plan(len(agents))  # a number of players the table deals, or a ConfigError
    seed = check_seed(seed)
    return play_main_line(FOUR_TO_EIGHT, rule, agents, seed, config)
