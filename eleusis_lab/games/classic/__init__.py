"""Classic Eleusis (RULES.md section 1): one game as a pure function of its inputs.

`play_classic` takes a rule, the active players' agents, a seed and a `ClassicConfig`,
plays the deal, phase 1 and phase 2, and returns a `GameRecord`. The dealer is not an
agent: he plays no cards and the rule is given.

The package: the engine (`engine`: options, deal, play), the record and its layout
(`record`), its replay (`replay`), the scores (`scoring`), a match (`match`), what a
person at a human seat is shown and the scores of a game stopped early (`people`), and
here the game's declaration, `GAME_TYPE`, which `eleusis_lab.games.table.GAMES` reads.

Randomness: the seed feeds one ``numpy.random.SeedSequence``. The deck is shuffled by
a generator on that sequence, and every agent gets its own generator spawned from it,
so an agent's random stream depends on the seed and its seat only, never on the
engine's draws or on what the other agents draw.

Turn order: seats 0..N-1 in turn, cyclically (seat 0 sits left of the dealer). Phase 1
skips seats whose hand is empty; phase 2 goes on with the seat after the last phase-1
player, so the rotation is never broken.

Faults: an agent that raises, plays a card it may not play, overruns a time budget or
hangs (it is stopped at the decision limit) does not bring down a batch. The game
records the fault (`eleusis_lab.record.Fault`) and goes on by the rule documented in
`ClassicConfig` (``on_fault="raise"`` stops it instead, for debugging an agent).

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("color(card) != color(last)", [FirstCard(), FirstCard()], seed=3)
>>> record.starter, len(record.deal[0]), len(record.deal[1])
(Card('QH'), 26, 25)
>>> record.phase2_end in ("player_out", "no_playable_card", "turn_cap")
True
"""

from __future__ import annotations

from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.errors import AgentError
from eleusis_lab.games.classic.engine import (
    GAME,
    TRAITS,
    ClassicConfig,
    classic_deal,
    play_classic,
)
from eleusis_lab.games.classic.match import ClassicMatch, play_match
from eleusis_lab.games.classic.people import ClassicView, classic_scores_so_far
from eleusis_lab.games.classic.record import (
    GameRecord,
    card_places,
    format_main_line_layout,
    scores_from_plays,
)
from eleusis_lab.games.classic.replay import replay_classic
from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.games.classic.state import MainLineState
from eleusis_lab.games.table import GameType, Outcome, SampleGame

__all__ = [
    "GAME",
    "GAME_TYPE",
    "AgentError",
    "ClassicConfig",
    "ClassicMatch",
    "GameRecord",
    "classic_deal",
    "classic_outcome",
    "play_classic",
    "play_match",
    "replay_classic",
]


def classic_outcome(record: GameRecord) -> Outcome:
    """The `Outcome` of a `GameRecord` (classic Eleusis and its four-to-eight variant)."""
    plays = [0] * len(record.deal)
    for event in record.events:
        plays[event.seat] += 1
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.dealer_score),
        wrong_cards=tuple(len(pile) for pile in record.wrong_after_phase1),
        cards_left=tuple(int(left) for left in record.cards_left),
        plays=tuple(plays),
        end=record.phase2_end,
        events=tuple(record.events),
    )


def _cards(record: GameRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """One 52-card deck, and where each card is at the end."""
    return tuple(standard_deck()), card_places(record)


def _score(record: GameRecord) -> tuple[list[float], int]:
    """The scores the formulas give from the deal and the plays."""
    return scores_from_plays(record, classic_player_scores, classic_dealer_score)


#: Classic Eleusis, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    GAME,
    play_classic,
    ClassicConfig,
    classic_outcome,
    min_players=2,
    learning_phase=1,
    title="classic Eleusis",
    record_type=GameRecord,
    replay=replay_classic,
    layout=format_main_line_layout,
    match=play_match,
    match_type=ClassicMatch,
    default_players=3,
    sample=SampleGame("red(card)", 3),
    cards=_cards,
    score=_score,
    seat_view=ClassicView,
    scores_so_far=classic_scores_so_far,
    traits=TRAITS,
    state_type=MainLineState,
)
