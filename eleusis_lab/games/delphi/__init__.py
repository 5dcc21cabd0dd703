"""Delphi (RULES.md section 3; Martin D. Kruskal, 1965): one game, its replay, a match.

Nobody chooses cards. The oracle (the dealer, not an agent: the rule is given) shuffles
one 52-card deck whatever the number of players and turns the first card, the starter.
Then, for every further card in deck order, every player shows a token, "right" or
"wrong", his prediction of the oracle's verdict on that card, and the oracle places it:
a right card extends the main line, a wrong one goes to a side column. A correct
prediction wins one chip from the oracle; a wrong one gives all the player's chips to
the oracle. At the end every pair of players settles the difference of their chips, and
the oracle scores the sum of the positive differences (`delphi_scores`).

The agent interface: before each card, each player's ``agent.predict(obs, [card])``
gives the probability that the card is right; the token is "right" when it is at least
`TOKEN_THRESHOLD` (0.5). The predictions are made "at the same time": every player
predicts before any hears the verdict. Then every agent observes the public
`eleusis_lab.agent.Event` of the card (``seat=ORACLE``, -1, as no player played it;
``phase=1``; the verdict; the main-line position it was judged against), so the
learners (`eleusis_lab.agent.LearningAgent`) learn from every card. The
`Observation` of a prediction has an empty ``hand``, the main line, the previous
verdict, and as ``wrong_cards`` a single pile, the side column. ``choose_play`` is
never called. The record keeps every probability, not only the token, so accuracy
and calibration curves can be drawn card by card (`DelphiRecord.prediction_table`).

Faults (with ``on_fault="substitute"``, the default): a ``predict`` that raises, is
still running at ``decision_limit`` (then stopped) or returns anything but one
probability in [0, 1] for the one card asked is recorded as a
`eleusis_lab.record.Fault` (``call="predict"``, kind `RAISED`, ``"stopped"`` or
`NOT_A_PROBABILITY`) and counts as the probability 0.5 (`SUBSTITUTE_PROBABILITY`),
hence the token "right"; a prediction over ``decision_seconds`` is kept and the fault
(`OVER_TIME`) only recorded, so results never depend on the speed of the machine; a
``start_game`` or ``observe`` that raises or is stopped is recorded and the agent keeps
its seat. ``on_fault="raise"`` stops the game at the first fault instead.

The package: the record, its vocabulary and layout (`record`), the rules as a state
(`state`: `DelphiState`, which the engine, the replay and `eleusis_lab.envs.delphi`
move), the engine (`engine`), its replay (`replay`), the scores (`scoring`), a match
(`match`), what a person at a human seat is shown (`people`), and here the game's
declaration, `GAME_TYPE`.

Randomness: the seed feeds one ``numpy.random.SeedSequence``, whose generator shuffles
the deck exactly as the classic deal and `eleusis_lab.evaluation.prediction_accuracy`
do; every agent gets its own generator spawned from it.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> record = play_delphi("color(card) != color(last)", [OracleAgent(), RandomAgent()], seed=0)
>>> len(record.events), record.chips
(51, (51, 0))
>>> record.player_scores, record.oracle_score
((51, -51), 51)
>>> replay_delphi(record)
[]
"""

from __future__ import annotations

from eleusis_lab.cards import Card
from eleusis_lab.games.delphi.engine import TRAITS, DelphiConfig, delphi_deal, play_delphi
from eleusis_lab.games.delphi.match import DelphiMatch, play_delphi_match
from eleusis_lab.games.delphi.people import DelphiView
from eleusis_lab.games.delphi.record import (
    DECK,
    DELPHI_FAULT_CALLS,
    GAME,
    NOT_A_PROBABILITY,
    ORACLE,
    SUBSTITUTE_PROBABILITY,
    TOKEN_THRESHOLD,
    DelphiRecord,
    format_delphi_layout,
)
from eleusis_lab.games.delphi.replay import replay_delphi
from eleusis_lab.games.delphi.scoring import delphi_chips, delphi_scores
from eleusis_lab.games.delphi.state import DelphiState
from eleusis_lab.games.table import GameType, Outcome, ResultColumn, SampleGame

__all__ = [
    "DELPHI_FAULT_CALLS",
    "GAME",
    "GAME_TYPE",
    "NOT_A_PROBABILITY",
    "ORACLE",
    "SUBSTITUTE_PROBABILITY",
    "TOKEN_THRESHOLD",
    "DelphiConfig",
    "DelphiMatch",
    "DelphiRecord",
    "delphi_deal",
    "delphi_outcome",
    "format_delphi_layout",
    "play_delphi",
    "play_delphi_match",
    "replay_delphi",
]


#: Delphi's own column of the results (`GameType.columns`).
COLUMNS = (
    ResultColumn(
        "prediction_accuracy",
        "float64",
        "the share of the seat's tokens that were correct",
        summary="mean",
        label="prediction accuracy",
        interval_name="accuracy",
        digits=3,
    ),
)


def delphi_outcome(record: DelphiRecord) -> Outcome:
    """The `Outcome` of a game of Delphi.

    The dealer score is the oracle's. Nobody plays a card (the oracle places them), so
    ``plays`` are 0 and ``wrong_cards`` and ``cards_left`` empty; ``prediction_accuracy``
    is the share of a seat's tokens that were correct, and ``predictions`` every
    probability, for the event table.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> outcome = delphi_outcome(play_delphi("red(card)", [OracleAgent(), RandomAgent()], 0))
    >>> outcome.scores, outcome.dealer_score, outcome.extra["prediction_accuracy"][0]
    ((48.0, -48.0), 48.0, 1.0)
    >>> len(outcome.events), len(outcome.predictions), outcome.predictions[0]
    (51, 51, (0.0, 0.5))
    """
    n = record.n_players
    hits = record.hits
    accuracy = tuple(float(x) for x in hits.mean(axis=0)) if len(record.events) else (None,) * n
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.oracle_score),
        wrong_cards=(None,) * n,
        cards_left=(None,) * n,
        plays=(0,) * n,
        end=None,
        events=tuple(record.events),
        extra={"prediction_accuracy": accuracy},
        predictions=tuple(tuple(float(p) for p in row) for row in record.probabilities),
    )


def _cards(record: DelphiRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """One 52-card deck, and where each card is at the end."""
    return DECK, {"main line": record.main_line, "side column": record.side_column}


def _score(record: DelphiRecord) -> tuple[list[int], int]:
    """The scores the settlement gives from the chips the tokens won."""
    return delphi_scores(delphi_chips(record.hits.tolist()))


#: Delphi, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    GAME,
    play_delphi,
    DelphiConfig,
    delphi_outcome,
    min_players=1,
    everyone_predicts=True,
    title="Delphi",
    record_type=DelphiRecord,
    replay=replay_delphi,
    layout=format_delphi_layout,
    match=play_delphi_match,
    match_type=DelphiMatch,
    default_players=3,
    sample=SampleGame("if last_play_right then red(card) else black(card)", 2),
    cards=_cards,
    score=_score,
    seat_view=DelphiView,
    traits=TRAITS,
    columns=COLUMNS,
    state_type=DelphiState,
)
