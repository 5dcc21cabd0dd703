"""Eleusis for 4 to 8 participants (RULES.md section 2): one game, its replay, a match.

`play_four_to_eight` takes a rule, the players' agents, a seed and a
`FourToEightConfig`, and returns a `eleusis_lab.games.classic.record.GameRecord` (``game=
"four-to-eight"``), the record of classic Eleusis, whose fields fit this game:

- **Deck and deal** come from the seed-004 table (`eleusis_lab.cards.seed004_deck`).
  The table is data, and the number of hands is the table's: 3, 5, 6, 7 or 8 players
  (not counting the dealer) select the rows called 4, 5, 6, 7 and 8 participants. Seven
  and eight players play with two decks, so a card's identity includes its ``copy``.
  The dealer's one card is the starter; the hands are dealt one card at a time from
  seat 0 (left of the dealer), so all hands have the same size.
- **Phase 1**: players play their hands in turn, seat 0 first. A right card extends the
  main line; a wrong card goes face up in front of its player ("wrong cards", public)
  and may be played again only once his hand is empty. As hands have equal sizes and
  turns go round without skipping, every hand runs out in the same round: the dealer
  is scored then (`four_to_eight_dealer_score`, ``GameRecord.dealer_score``), from the
  wrong cards at that moment (``GameRecord.wrong_after_phase1``).
- **Phase 2**: players play their wrong cards, one per turn, in rotation from the seat
  after the last phase-1 player (``Observation.hand`` is then the wrong cards). Right:
  the card extends the main line. Wrong: it stays where it was and the turn passes.
  Phase 2 ends when a player has no card left (`PLAYER_OUT`, also possible as soon as
  the hands run out), when no player holds a card the rule accepts now (the dealer's
  declaration, `NO_PLAYABLE_CARD`), or at the turn cap (`TURN_CAP`, recorded in
  ``turn_cap_hit``, never silent).
- **Players' scores** (`four_to_eight_player_scores`): the player with the fewest cards
  left scores, everyone else 0; ties split equally. A game stopped by the turn cap is
  scored as if the dealer had declared that no card can be played.

Randomness and faults are as in classic Eleusis (`eleusis_lab.games.classic`): one
``numpy.random.SeedSequence`` shuffles the deck and spawns every agent's generator;
an agent that raises, plays a card it may not play, overruns ``decision_seconds`` or is
stopped at ``decision_limit`` is recorded as a `eleusis_lab.record.Fault`, and but for
the budget replaced by the first card it could play (see
`eleusis_lab.games.classic.ClassicConfig` for the full rule).

The package: the engine (`engine`), its replay (`replay`), its layout (`layout`), the
scores (`scoring`), a match where every participant deals once (`match`), and here the
game's declaration, `GAME_TYPE`. The record is classic's, and so are the state, the
engine's seats, most of the replay and what a person at a human seat is shown
(`eleusis_lab.games.classic`).

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> agents = [OracleAgent(), RandomAgent(), RandomAgent()]
>>> record = play_four_to_eight("color(card) != color(last)", agents, seed=1)
>>> [len(hand) for hand in record.deal], len(record.unused)
([17, 17, 17], 0)
>>> replay_four_to_eight(record)
[]
"""

from __future__ import annotations

from eleusis_lab.cards import Card
from eleusis_lab.games.classic import GameRecord, classic_outcome
from eleusis_lab.games.classic.people import ClassicView
from eleusis_lab.games.classic.record import card_places, scores_from_plays
from eleusis_lab.games.classic.state import MainLineState
from eleusis_lab.games.four_to_eight.engine import (
    GAME,
    PLAYERS,
    TRAITS,
    FourToEightConfig,
    deck_plan,
    four_to_eight_deal,
    play_four_to_eight,
)
from eleusis_lab.games.four_to_eight.layout import format_four_to_eight_layout
from eleusis_lab.games.four_to_eight.match import FourToEightMatch, play_four_to_eight_match
from eleusis_lab.games.four_to_eight.replay import replay_four_to_eight
from eleusis_lab.games.four_to_eight.scoring import (
    four_to_eight_dealer_score,
    four_to_eight_player_scores,
)
from eleusis_lab.games.table import GameType, SampleGame

__all__ = [
    "GAME",
    "GAME_TYPE",
    "PLAYERS",
    "FourToEightConfig",
    "FourToEightMatch",
    "deck_plan",
    "format_four_to_eight_layout",
    "four_to_eight_deal",
    "play_four_to_eight",
    "play_four_to_eight_match",
    "replay_four_to_eight",
]


def _cards(record: GameRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """The deck of the table's row, and where each card is at the end."""
    return deck_plan(len(record.deal)).cards, card_places(record)


def _score(record: GameRecord) -> tuple[list[float], int]:
    """The scores the formulas give from the deal and the plays."""
    return scores_from_plays(record, four_to_eight_player_scores, four_to_eight_dealer_score)


#: Eleusis for four to eight players, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    GAME,
    play_four_to_eight,
    FourToEightConfig,
    classic_outcome,
    min_players=3,
    learning_phase=1,
    title="Eleusis for 4 to 8 players",
    record_type=GameRecord,
    replay=replay_four_to_eight,
    layout=format_four_to_eight_layout,
    match=play_four_to_eight_match,
    match_type=FourToEightMatch,
    default_players=3,
    sample=SampleGame("color(card) != color(last)", 3, {"hand_size": 8, "max_turns": 40}),
    cards=_cards,
    score=_score,
    seat_view=ClassicView,
    traits=TRAITS,
    state_type=MainLineState,
)
