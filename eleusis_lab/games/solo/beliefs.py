"""What a solo player believed, turn by turn.

An agent that implements `eleusis_lab.agent.Agent.propose_rule` can say at any time
which rule it finds most probable and how sure it is. `solo_beliefs` plays a solo game
and asks it after every turn, so one can see when the secret rule first became its best
guess, how its confidence grew, and how long it waited before declaring; `format_beliefs`
lays the table out for a terminal (``eleusis-lab play --game solo --beliefs``) and
`eleusis_lab.plots.plot_beliefs` draws it.

Example
-------
>>> from eleusis_agents.bayes import BayesAgent
>>> agent = BayesAgent(grammar="colours_suits", max_hypotheses=2000)
>>> record, beliefs = solo_beliefs("suit(card) == suit(last)", agent, seed=1)
>>> print(format_beliefs(beliefs))
turn  card  verdict  p     best guess (* = the secret rule)
   1  8D    wrong    0.42  black(card)
                           declared: color(card) == color(last) (wrong)
   2  QC    wrong    0.33  red(last)
   3  5S    right    0.16  suit(card) in {hearts, spades}
   4  7S    right    0.21  suit(card) in {hearts, spades}
   5  7C    wrong    0.33  suit(card) in {hearts, spades}
   6  JH    wrong    0.47 *suit(card) == spades
   7  10S   right    0.51 *suit(card) == spades
                           declared: suit(card) == spades (correct)
>>> record.score
22

After a spade starter, "only spades" and "the suit of the last card" agree on every
card to come, so the published judge counts it found. A declaration is made with the
turn's card, before its verdict, for every rule the judge would accept with it
(`eleusis_agents.solo_declaring.SoloDeclaring`): on turn 1 the same colour, with black
cards only and the rest of its group, was worth the 2 points it cost; on turn 7 only
spades, with the suit of the last card, was.
"""

from __future__ import annotations

import math
from numbers import Real

import pandas as pd

from eleusis_lab.agent import Agent, Event
from eleusis_lab.engines import exception_text, shorten, text
from eleusis_lab.errors import AgentError
from eleusis_lab.games.solo.engine import SoloConfig, play_solo
from eleusis_lab.games.solo.record import Declaration, SoloRecord
from eleusis_lab.rules import Context, Rule, parse

__all__ = ["BELIEF_COLUMNS", "format_beliefs", "solo_beliefs"]

#: The columns of `solo_beliefs`' table.
BELIEF_COLUMNS = (
    "turn",
    "card",
    "right",
    "belief",
    "probability",
    "belief_correct",
    "declared",
    "correct",
)


def solo_beliefs(
    rule: Rule | str, agent: Agent, seed: int, config: SoloConfig | None = None
) -> tuple[SoloRecord, pd.DataFrame]:
    """Play a solo game (`play_solo`) and ask the agent its best guess after every turn.

    Parameters
    ----------
    rule, agent, seed, config
        As in `eleusis_lab.games.solo.play_solo`.

    Returns
    -------
    record : SoloRecord
        The game, as `play_solo` gives it.
    beliefs : pandas.DataFrame
        One row per turn, the columns `BELIEF_COLUMNS`: the card played and its verdict;
        ``belief`` and ``probability``, the agent's `propose_rule` at the end of the
        turn (missing when it proposes nothing); ``belief_correct``, whether that rule
        is the secret one (judged as a declaration would be); ``declared`` and
        ``correct``, the declaration of the turn and its judgement (missing when none).

    Raises
    ------
    AgentError
        When ``propose_rule`` raises or returns something other than ``(text,
        probability)`` or None: the table would not say what the agent believed.
    """
    rule = parse(rule) if isinstance(rule, str) else rule
    config = SoloConfig() if config is None else config
    rows = []

    def ask(turn: int, event: Event, declaration: Declaration | None) -> None:
        belief, probability = _proposal(agent)
        rows.append(
            {
                "turn": turn,
                "card": str(event.card),
                "right": event.right,
                "belief": belief,
                "probability": probability,
                "declared": None if declaration is None else declaration.text,
                "correct": None if declaration is None else declaration.correct,
            }
        )

    record = play_solo(rule, agent, seed, config, on_turn=ask)
    line = record.main_line[:1]  # the starter
    for row, event in zip(rows, record.events, strict=True):
        line += (event.card,) if event.right else ()
        belief = row["belief"]
        if belief is not None:  # judged in the turn's state, as a declaration would be
            row["belief_correct"] = config.judge_in(
                rule, belief, Context(line, event.right)
            ).correct
        else:
            row["belief_correct"] = None
    return record, pd.DataFrame(rows, columns=list(BELIEF_COLUMNS))


def _proposal(agent: Agent) -> tuple[str | None, float]:
    try:
        proposal = agent.propose_rule()
    except Exception as error:
        message = f"{type(agent).__name__} raised in propose_rule: {exception_text(error)}"
        raise AgentError(message) from error
    if proposal is None:
        return None, math.nan
    if (
        isinstance(proposal, tuple)
        and len(proposal) == 2
        and isinstance(proposal[0], str)
        and isinstance(proposal[1], Real)
    ):
        return proposal[0], float(proposal[1])
    raise AgentError(
        f"{type(agent).__name__}.propose_rule returned {shorten(text(repr, proposal))},"
        " not (rule text, probability) or None"
    )


def format_beliefs(beliefs: pd.DataFrame, width: int = 100) -> str:
    """`solo_beliefs`' table for a terminal: one line per turn.

    ``*`` marks a best guess that is the secret rule; a declaration follows its turn.

    >>> row = {"turn": 3, "card": "5D", "right": True, "belief": "red(card)",
    ...        "probability": 0.8, "belief_correct": True, "declared": "red(card)",
    ...        "correct": True}
    >>> print(format_beliefs(pd.DataFrame([row])))
    turn  card  verdict  p     best guess (* = the secret rule)
       3  5D    right    0.80 *red(card)
                               declared: red(card) (correct)
    """
    lines = ["turn  card  verdict  p     best guess (* = the secret rule)"]
    for row in beliefs.itertuples(index=False):
        verdict = "right" if row.right else "wrong"
        if not isinstance(row.belief, str):  # missing: None, or NaN in a string column
            guess = "  -    (no proposal)"
        else:
            mark = "*" if row.belief_correct else " "
            guess = f"{row.probability:.2f} {mark}{row.belief}"
        lines.append(_clip(f"{row.turn:>4}  {row.card:<4}  {verdict:<7}  {guess}", width))
        if isinstance(row.declared, str):
            judged = "correct" if row.correct else "wrong"
            lines.append(_clip(f"{'':>27}declared: {row.declared} ({judged})", width))
    return "\n".join(lines)


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 3] + "..."
