"""The solo benchmark protocol (RULES.md section 6): one player finds the rule alone.

`play_solo` takes a rule, one agent, a seed and a `SoloConfig`, and returns a
`SoloRecord`:

1. **Deal.** Two decks shuffled together (104 cards); the player gets the first 12.
2. **Starter.** Cards are drawn from the stock until one is right on an empty main line
   (``Context()``): it becomes the starter, so a rule may constrain the first card.
   *Decision*: the cards drawn and refused go to a discard pile, face down: they are out
   of the game, the player is not shown them (the agent interface only announces the
   starter) and they are recorded in `SoloRecord.refused`. Should the stock run out
   before a card is accepted, the game ends at once (`NO_STARTER`, score 0).
3. **Turns** (at most ``max_turns``, 30). The published move (``timing=
   "before_verdict"``, the default): the agent makes one move
   (`SoloDecisions.solo_move`): a card of its hand, its tentative rule with a
   confidence, and whether it declares that rule, all before the card's verdict. The
   card is judged (right: main line; wrong: side line), the player draws one card to
   keep 12 while the stock lasts (*decision*: with an empty stock the hand shrinks, and
   a player with no card left ends the game, `OUT_OF_CARDS`) and is told the play
   (``Agent.observe``); the tentative rule and the declaration are judged in the
   position after the card. With ``timing="after_verdict"`` (an easier reading, about
   0.8 points higher) the agent plays a card (``Agent.choose_play``), is told its
   verdict, then states and declares (`SoloDecisions.declare_rule`,
   ``Agent.propose_rule``): two decisions of the turn (`SoloState.awaited`).
4. **Declarations** (and tentative rules, at no cost) are judged by
   `eleusis_lab.games.solo.judge.judge_declaration`: by default over every continuation
   of the main line after the turn's card (the published judge, computed exactly);
   ``judge="reachable"`` judges over every state reachable from an empty line instead.
5. **End**: at the first correct declaration (`FOUND`) or after the last turn
   (`TURN_CAP`). Score by `solo_score`; the published success is found with a score
   of at least 2; the no-stakes score and the boldness index are properties of the
   record (`SoloRecord.no_stakes_score`, `SoloRecord.boldness`).

The record (`SoloRecord`), its JSON form and its layout (`format_solo_layout`) are in
`eleusis_lab.games.solo.record`; this module re-exports them.

The package: the player's decisions (`decisions`: `SoloDecisions`, the mixin an agent
needs to play), the record and its layout (`record`), the rules as a state (`state`:
`SoloState`, which the engine, the replay and `eleusis_lab.envs.solo` move), the engine
(`engine`), its replay (`replay`), the score (`scoring`), how a declaration is judged (`judge`), the
agent's beliefs turn by turn (`beliefs`), what a person at a human seat is shown and
the score of a game stopped early (`people`), and here the game's declaration,
`GAME_TYPE`.

Randomness: the seed feeds one ``numpy.random.SeedSequence``; the deck is shuffled by a
generator on it and the agent gets its own spawned generator, as in classic Eleusis.

Faults (an agent that raises, is stopped at the decision limit, plays a card it does not
hold, or states something that is not rule text and a confidence in [0, 1]) are
recorded as `eleusis_lab.record.Fault`
and the game goes on, imitating `eleusis_lab.games.classic.ClassicConfig`: a faulty
move or play is replaced by the first card of the hand, a faulty statement counts as
none (not as a wrong declaration), a failed ``start_game`` or ``observe`` is only
recorded. ``on_fault="raise"`` stops the game instead.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> record = play_solo("red(card)", OracleAgent(), seed=3)
>>> record.starter.is_red, record.found_turn, record.score, record.success
(True, 1, 30, True)
>>> record.tentative[0]
Tentative(turn=1, text='red(card)', confidence=1.0, correct=True)
>>> record = play_solo("red(card)", RandomAgent(), seed=3)
>>> record.end, record.turns, record.score
('turn_cap', 30, 0)
>>> replay_solo(record)
[]
"""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.solo.decisions import SoloDecisions, SoloMove, solo_statement
from eleusis_lab.games.solo.engine import (
    DECK,
    HAND_SIZE,
    ILLEGAL_DECLARATION,
    TIMINGS,
    TRAITS,
    SoloConfig,
    play_solo,
    solo_deal,
)
from eleusis_lab.games.solo.judge import (
    Judgement,
    judge_declaration,
    simulate_continuations,
    simulate_equivalence,
)
from eleusis_lab.games.solo.people import SoloView, solo_scores_so_far
from eleusis_lab.games.solo.record import (
    END_REASONS,
    EXACT,
    FOUND,
    GAME,
    INVALID,
    NO_STARTER,
    OUT_OF_CARDS,
    SIMULATION,
    TURN_CAP,
    Declaration,
    SoloRecord,
    Tentative,
    format_solo_layout,
)
from eleusis_lab.games.solo.replay import replay_solo
from eleusis_lab.games.solo.scoring import MAX_TURNS, WRONG_PENALTY, solo_score
from eleusis_lab.games.solo.state import SoloState
from eleusis_lab.games.table import GameType, Outcome, ResultColumn, SampleGame
from eleusis_lab.rules import Rule

__all__ = [
    "END_REASONS",
    "EXACT",
    "FOUND",
    "GAME",
    "GAME_TYPE",
    "HAND_SIZE",
    "ILLEGAL_DECLARATION",
    "INVALID",
    "MAX_TURNS",
    "NO_STARTER",
    "OUT_OF_CARDS",
    "SIMULATION",
    "TIMINGS",
    "TURN_CAP",
    "WRONG_PENALTY",
    "Declaration",
    "Judgement",
    "SoloConfig",
    "SoloDecisions",
    "SoloMove",
    "SoloRecord",
    "Tentative",
    "format_solo_layout",
    "judge_declaration",
    "play_solo",
    "replay_solo",
    "simulate_continuations",
    "simulate_equivalence",
    "solo_deal",
    "solo_outcome",
    "solo_score",
    "solo_statement",
]


#: Solo's own columns of the results (`GameType.columns`).
COLUMNS = (
    ResultColumn(
        "success", "bool", "the rule was found (the published success)", "rate", "rule found"
    ),
    ResultColumn("found_turn", "int64", "the turn the rule was found on; null: never"),
    ResultColumn("wrong_declarations", "int64", "the declarations judged wrong"),
)


def solo_outcome(record: SoloRecord) -> Outcome:
    """The `Outcome` of a solo game: one seat, no dealer.

    The score is the benchmark's `solo_score` (the floored score is ``max(0, score)``);
    ``wrong_cards`` the wrong plays, ``cards_left`` the hand at the end; ``success``,
    ``found_turn`` and ``wrong_declarations`` as in the record.
    """
    return Outcome(
        scores=(float(record.score),),
        dealer_score=None,
        wrong_cards=(len(record.side_line),),
        cards_left=(len(record.hand),),
        plays=(len(record.events),),
        end=record.end,
        events=tuple(record.events),
        extra={
            "success": (bool(record.success),),
            "found_turn": (record.found_turn,),
            "wrong_declarations": (int(record.wrong_declarations),),
        },
    )


def _cards(record: SoloRecord) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    """Two decks (104 cards), and where each card is at the end."""
    places = {
        "main line": record.main_line,
        "side line": record.side_line,
        "hand": record.hand,
        "stock": record.stock,
        "refused starters": record.refused,
    }
    return DECK, places


def _score(record: SoloRecord) -> tuple[tuple[int], None]:
    """The score the formula gives from the declarations (the turn of the correct one,
    the wrong ones); no dealer."""
    found = next((d.turn for d in record.declarations if d.correct), None)
    wrong = sum(not d.correct for d in record.declarations)
    max_turns = record.config.get("max_turns", MAX_TURNS)
    return (solo_score(found, wrong, max_turns),), None


def _one_seat(agents: Sequence[Agent]) -> Agent:
    """The agent of a table of one seat."""
    if len(agents) != 1:
        raise ConfigError(f"solo is played by one player, got {len(agents)} agents")
    return agents[0]


def _play_table(
    rule: Rule | str, agents: Sequence[Agent], seed: int, config: SoloConfig | None = None
) -> SoloRecord:
    """`play_solo` with the engines' shape: a table of one seat."""
    return play_solo(rule, _one_seat(agents), seed, config)


def _play_for_people(
    rule: Rule | str, agents: Sequence[Agent], seed: int, config: SoloConfig | None = None
) -> SoloRecord:
    """`_play_table`, and a seat that hears how its declarations were judged
    (``hear_judgement``, as the human seat does) is told after every turn: a person sees
    a counter-example to a wrong declaration."""
    agent = _one_seat(agents)
    return play_solo(rule, agent, seed, config, on_turn=getattr(agent, "hear_judgement", None))


def _beliefs(
    rule: Rule | str, agents: Sequence[Agent], seed: int, config: SoloConfig | None = None
) -> tuple[SoloRecord, str]:
    """The game of `_play_table` and the agent's beliefs turn by turn, laid out."""
    from eleusis_lab.games.solo.beliefs import format_beliefs, solo_beliefs  # pandas: when asked

    record, beliefs = solo_beliefs(rule, _one_seat(agents), seed, config)
    return record, format_beliefs(beliefs)


#: Solo Eleusis, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    GAME,
    _play_table,
    SoloConfig,
    solo_outcome,
    min_players=1,
    max_players=1,
    has_dealer=False,
    title="solo Eleusis",
    record_type=SoloRecord,
    replay=replay_solo,
    layout=format_solo_layout,
    sample=SampleGame("red(card)", 1),
    cards=_cards,
    score=_score,
    seat_view=SoloView,
    scores_so_far=solo_scores_so_far,
    beliefs=_beliefs,
    play_for_people=_play_for_people,
    mixins=(SoloDecisions,),
    traits=TRAITS,
    columns=COLUMNS,
    state_type=SoloState,
)
