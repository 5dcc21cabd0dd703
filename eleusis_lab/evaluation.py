"""How well an agent predicts verdicts: Delphi-style accuracy after a number of plays.

`prediction_accuracy` deals a Delphi game (RULES.md section 3,
`eleusis_lab.games.delphi.delphi_deal`): one shuffled deck, a starter, then the cards in
deck order, each judged by the rule, right cards extending
the main line. The agent watches the first ``train_plays`` cards with their verdicts,
then stops learning; in each of the next ``test_plays`` contexts it predicts, and the
score is the fraction of verdicts it gets right with the Delphi token: "right" when
its probability is above 0.5.

`accuracy_table` runs it for several agents, rules and seeds into a pandas DataFrame,
and `seconds_per_decision` times an agent in classic games, for benchmarks;
``python -m eleusis_lab.evaluation`` prints the figures of the built-in learners.

Examples
--------
>>> from eleusis_lab.registry import make_agent
>>> prediction_accuracy(make_agent("oracle"), "color(card) != color(last)", seed=0)
1.0
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation, clone
from eleusis_lab.cards import standard_deck
from eleusis_lab.games.classic import play_classic
from eleusis_lab.games.delphi import GAME as DELPHI
from eleusis_lab.games.delphi import delphi_deal
from eleusis_lab.record import sees_rule
from eleusis_lab.registry import make_agent
from eleusis_lab.rules import Context, Rule, parse
from eleusis_lab.rules.catalog import get_rule

__all__ = [
    "BENCH_RULES",
    "accuracy_table",
    "bench_learners",
    "main",
    "prediction_accuracy",
    "seconds_per_decision",
]

_DECK = tuple(standard_deck())
_SCORES = ("faces", "next")


def prediction_accuracy(
    agent: Agent,
    rule: Rule | str,
    seed: int,
    train_plays: int = 40,
    test_plays: int = 11,
    score: str = "faces",
) -> float:
    """The fraction of verdicts ``agent`` predicts correctly after ``train_plays`` plays.

    The stream of plays is a Delphi deal for ``seed``: the deck shuffled by a generator
    on ``numpy.random.SeedSequence(seed)``, the starter first, then the cards in deck
    order, every one judged by ``rule`` in the context of the main line so far (right
    cards extend it). The agent is started with ``start_game`` (seat 0 of two, with an
    empty hand and a generator spawned from the same sequence; the rule only if it
    ``sees_rule``) and told of the first ``train_plays`` cards by ``observe``, as plays
    of seat 1 in phase 1. Then it learns nothing more; the next ``test_plays`` cards
    still extend the main line when right, and before each of them the agent is asked
    ``predict(obs, cards)``:

    - ``score="faces"``: on all 52 faces (copy 0) in that context, against the rule's
      verdict on each; ``52 * test_plays`` verdicts in all.
    - ``score="next"``: on the card about to be played only, as a Delphi player does;
      ``test_plays`` verdicts.

    A prediction counts as "right" when the probability is above 0.5, so an agent that
    answers 0.5 (it cannot tell) always predicts "wrong".

    Parameters
    ----------
    agent : Agent
        Any agent; it is restarted, so one object serves many calls.
    rule : Rule or str
        The rule that judges the cards.
    seed : int
        Seeds the deal and the agent's generator.
    train_plays, test_plays : int
        Their sum is at most 51, the cards after the starter.
    score : {"faces", "next"}
        What is scored in each test context, as above.

    Returns
    -------
    float
        Correct predictions over predictions, in [0, 1].

    Examples
    --------
    An agent that answers 0.5 scores the fraction of wrong verdicts:

    >>> from eleusis_lab.agent import Agent
    >>> class Unsure(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> prediction_accuracy(Unsure(), "suit(card) == (suit(last) + 1) mod 4", seed=0)
    0.75
    """
    if isinstance(rule, str):
        rule = parse(rule)
    if score not in _SCORES:
        raise ValueError(f"score must be one of {_SCORES}, got {score!r}")
    if train_plays < 0 or test_plays < 1 or train_plays + test_plays > len(_DECK) - 1:
        raise ValueError(
            f"need train_plays >= 0, test_plays >= 1 and at most {len(_DECK) - 1} plays in"
            f" all, got {train_plays} and {test_plays}"
        )
    starter, cards = delphi_deal(seed)
    stream = cards[: train_plays + test_plays]
    info = GameInfo(DELPHI, 0, 2, (), starter, rule if sees_rule(agent) else None)
    agent.start_game(info, np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0]))

    main, wrong, last_right = (starter,), (), None
    correct = total = 0
    for index, card in enumerate(stream):
        context = Context(main, last_right)
        if index >= train_plays:
            obs = Observation(DELPHI, 0, 1, (), main, ((), wrong), last_right)
            if score == "faces":
                predicted = np.asarray(agent.predict(obs, list(_DECK))) > 0.5
                correct += int((predicted == rule.legal_faces(context)).sum())
                total += len(_DECK)
            else:
                predicted = bool(agent.predict(obs, [card])[0] > 0.5)
                correct += predicted == rule.accepts(card, context)
                total += 1
        right = rule.accepts(card, context)
        if index < train_plays:
            agent.observe(Event(1, card, 1, right, len(main) - 1))
        if right:
            main += (card,)
        else:
            wrong += (card,)
        last_right = right
    return correct / total


def accuracy_table(
    agents: Mapping[str, Agent],
    rules: Iterable[Rule | str],
    seeds: Iterable[int],
    **options,
):
    """`prediction_accuracy` of every agent on every rule and seed, as a long table.

    Each call gets a fresh `clone` of the agent. ``options`` go to `prediction_accuracy`.

    Returns
    -------
    pandas.DataFrame
        One row per agent, rule and seed: columns ``agent``, ``rule``, ``seed``,
        ``accuracy``.

    Examples
    --------
    >>> from eleusis_lab.registry import make_agent
    >>> table = accuracy_table({"oracle": make_agent("oracle")}, ["red(card)"], seeds=[0, 1])
    >>> table.to_dict("records")[0]
    {'agent': 'oracle', 'rule': 'red(card)', 'seed': 0, 'accuracy': 1.0}
    >>> len(table)
    2
    """
    import pandas as pd

    pool = [parse(rule) if isinstance(rule, str) else rule for rule in rules]
    seeds = list(seeds)
    rows = [
        {
            "agent": name,
            "rule": rule.name or rule.text,
            "seed": seed,
            "accuracy": prediction_accuracy(clone(agent), rule, seed, **options),
        }
        for name, agent in agents.items()
        for rule in pool
        for seed in seeds
    ]
    return pd.DataFrame(rows, columns=["agent", "rule", "seed", "accuracy"])


def seconds_per_decision(
    agent: Agent, rules: Iterable[Rule | str], seeds: Iterable[int], players: int = 4
) -> float:
    """Wall-clock seconds per decision of classic games where every seat is ``agent``.

    Game ``i`` is played by ``players`` clones of ``agent`` with the ``i``-th seed, on
    the rules in turn; the time of the whole games (the agents' decisions, their
    learning from every event, and the engine, which costs little) is divided by the
    number of plays. A timing figure for benchmarks, never for the test suite.

    Examples
    --------
    >>> from eleusis_lab.registry import make_agent
    >>> seconds_per_decision(make_agent("random"), ["red(card)"], seeds=[0]) < 0.01
    True
    """
    pool = [parse(rule) if isinstance(rule, str) else rule for rule in rules]
    elapsed, decisions = 0.0, 0
    for index, seed in enumerate(seeds):
        agents = [clone(agent) for _ in range(players)]
        start = time.perf_counter()
        record = play_classic(pool[index % len(pool)], agents, seed)
        elapsed += time.perf_counter() - start
        decisions += len(record.events)
    return elapsed / max(decisions, 1)


#: The rules of the benchmark printed by `main` (catalog names).
BENCH_RULES = ("color_alternation", "parity_alternation", "suit_cycle")


def bench_learners() -> dict[str, Agent]:
    """The learners of the benchmark, by label, made through the registry.

    ``eleusis_lab`` never imports ``agents`` by module name: the classes are named by
    ``module:Class`` specs, as a user would on the command line.
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier

    sklearn_agent = "eleusis_agents.learners:SklearnAgent"
    return {
        "tree": make_agent("eleusis_agents.learners:DecisionTreeAgent"),
        "logistic": make_agent(sklearn_agent),
        "forest": make_agent(sklearn_agent, estimator=RandomForestClassifier(n_estimators=50)),
        "naive_bayes": make_agent(sklearn_agent, estimator=GaussianNB()),
        "knn": make_agent(sklearn_agent, estimator=KNeighborsClassifier()),
    }


def main(seeds: int = 20) -> None:
    """Print the learners' mean accuracy after 40 plays on the benchmark rules."""
    rules = [get_rule(name) for name in BENCH_RULES]
    for score, what in (("faces", "all 52 faces"), ("next", "the card played")):
        table = accuracy_table(bench_learners(), rules, range(seeds), score=score)
        print(
            f"Delphi accuracy after 40 plays, {what} in each of the next 11 contexts,"
            f" mean over seeds 0..{seeds - 1}:"
        )
        means = table.pivot_table(index="agent", columns="rule", values="accuracy")
        print(means.round(3).to_string(), end="\n\n")
    print("Milliseconds per decision, 4-player classic games, every seat the learner:")
    for name, agent in bench_learners().items():
        ms = 1000 * seconds_per_decision(agent, rules, range(seeds))
        print(f"  {name:<12} {ms:7.2f}")


if __name__ == "__main__":
    main()
