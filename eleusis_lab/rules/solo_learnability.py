"""Learnability under the solo protocol: the turn on which a reference learner finds a rule.

The learner
-----------
The reference learner is the agent ``bayes-context``
(`eleusis_agents.bayes_context.ContextBayesAgent`) as shipped, with its default
parameters, built by name through the agent registry (`eleusis_lab.registry.make_agent`),
a fresh one for every game: a Bayesian agent whose rules may switch on the context
(position, runs, the card two back, the previous verdict, a feature of the last card),
which declares when the published judge would likely accept its leading hypothesis
(`eleusis_agents.solo_declaring`). "As shipped": the value follows the agent's code and
calibration; a change to them changes it.

The games
---------
The learner plays ``seeds`` (3) solo games of the rule, seeds 0, 1, ...: the published
protocol, the default `eleusis_lab.games.solo.SoloConfig` (RULES.md section 6: 30 turns,
the move and the declaration before the card's verdict, the continuations judge). The
seeds fix the deal and the agent's generator, so the same rule always gets the same
games and the value depends on the rule (and the learner's code) alone.

The measure
-----------
``solo_turns`` is the mean, over the games, of the turn on which the learner's
declaration is judged correct (`eleusis_lab.games.solo.SoloRecord.found_turn`). Units:
turns, from 1 to 31; lower is easier.

- A game in which the rule is never found counts `NOT_FOUND` (31), one past the last
  turn: the measure is the mean of the found turn censored just past the game's length,
  so a rule found on the last turn still ranks easier than one never found. The same
  goes for a game that ends before its last turn without the rule (no card accepted as
  a starter, or the player out of cards).
- Wrong declarations cost nothing here: the measure is when the rule is found, not the
  solo score (`eleusis_lab.games.solo.solo_score`).

Unlike `eleusis_lab.rules.learnability`, which replays an idealised enumeration learner
over random plays, this is the game the benchmark actually plays, with the agent that
plays it: the learner chooses its cards, must declare, and is judged as a player is.

Cost, registration and cache
----------------------------
A game takes 1 to 5 s (about 1 s for ``red(card)``, 3 to 5 s for a rule never found),
so a rule takes 3 to 15 s: far too slow for every rule of a run. The measure
`SOLO_TURNS` is therefore *not* a built-in measure and is computed only when asked:
call `solo_turns`, or register it in a process (`register_measure(SOLO_TURNS)
<eleusis_lab.rules.complexity.register_measure>`), after which that process's runs,
tables and ``rules show`` get its column like any other measure. It is also marked
`Measure.on_demand <eleusis_lab.rules.complexity.Measure.on_demand>`, so that a
dealer's pool gets its column only when a dealer deals by it.

Each game's turn is kept in the process (by the rule's canonical text and the seed),
never on disk: a turn depends on the code of the whole agent and of the solo game,
which a cache key cannot follow as `eleusis_lab.rules.learnability`'s follows its own
module.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> from eleusis_lab.rules.complexity import measure_names
>>> "solo_turns" in measure_names()  # not computed unless asked
False
>>> solo_turns(parse("false"), seeds=1)  # no starter is ever accepted: never found
31.0
>>> 1 <= solo_turns(parse("red(card)"), seeds=1) < NOT_FOUND  # a game takes a second or two
True
"""

from __future__ import annotations

import functools

from eleusis_lab.games.solo import SoloConfig, play_solo
from eleusis_lab.registry import make_agent
from eleusis_lab.rules.complexity import Measure
from eleusis_lab.rules.rule import Rule, parse

__all__ = [
    "LEARNER",
    "NOT_FOUND",
    "SEEDS",
    "SOLO_TURNS",
    "found_turns",
    "solo_turns",
]

#: The registered name of the reference learner (`eleusis_lab.registry.AGENTS`).
LEARNER = "bayes-context"
#: Solo games per rule by default, seeds 0, 1, 2.
SEEDS = 3


#: What a game in which the rule is never found counts: one past the last turn of the
#: published protocol (`eleusis_lab.games.solo.MAX_TURNS` + 1; written out, so that this
#: module does not import the game).
NOT_FOUND = 31


def solo_turns(rule: Rule, seeds: int = SEEDS) -> float:
    """The mean turn on which the reference learner finds ``rule`` in ``seeds`` solo games
    (seeds ``0 .. seeds - 1``), counting `NOT_FOUND` (31) for a game where it does not;
    see the module docstring. Each game is played once per process.

    >>> from eleusis_lab.rules import parse
    >>> solo_turns(parse("false"), seeds=2)  # never a starter, never found
    31.0
    """
    turns = found_turns(rule, seeds)
    return sum(turns) / len(turns)


def found_turns(rule: Rule, seeds: int = SEEDS) -> tuple[int, ...]:
    """The turn on which the reference learner finds ``rule`` in each of its solo games,
    seeds ``0 .. seeds - 1``, `NOT_FOUND` (31) where it does not.

    >>> from eleusis_lab.rules import parse
    >>> found_turns(parse("false"), seeds=2)
    (31, 31)
    """
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a whole number >= 1, got {seeds!r}")
    return tuple(_found_turn(rule.text, seed) for seed in range(seeds))


@functools.lru_cache(maxsize=16384)
def _found_turn(text: str, seed: int) -> int:
    """The found turn of one game, `NOT_FOUND` if never, cached in the process."""
    # The toolkit imports agents only where it plays them: the registry builds the
    # learner by its registered name.

    config = SoloConfig()  # the published protocol
    record = play_solo(parse(text), make_agent(LEARNER), seed, config)
    return config.max_turns + 1 if record.found_turn is None else record.found_turn


def _phrase(value: float) -> str:
    if value >= NOT_FOUND:
        return f"not found by {LEARNER} in {NOT_FOUND - 1} solo turns"
    return f"found by {LEARNER} on solo turn {value:.1f}"


#: The measure, for `eleusis_lab.rules.complexity.register_measure`: not built in, since
#: a rule takes seconds (module docstring).
SOLO_TURNS = Measure(
    "solo_turns",
    solo_turns,
    "float64",
    label="turn the reference learner finds the rule in solo games (turns)",
    heading="solo",
    format="5.1f",
    phrase=_phrase,
    on_demand=True,
)
