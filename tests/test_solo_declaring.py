"""Declaring in solo with the published judge in view (`eleusis_agents.solo_declaring`).

The judge's groups are checked against the game's own exact judge
(`eleusis_lab.games.solo.judge.judge_declaration`), which knows nothing of the agents.
"""

import dataclasses

import numpy as np
import pytest

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_agents.solo_declaring import JudgeGroups, SoloDeclaring, accepted_on_continuations
from eleusis_lab.agent import Event, GameInfo, Observation
from eleusis_lab.cards import parse_cards
from eleusis_lab.games.solo import SoloConfig, judge_declaration, play_solo
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.enumerate import build_space

SMALL = {"grammar": "colours_suits", "max_hypotheses": 2000, "calibration": None}


def _verdict_tables(space, hypotheses):
    said = space.verdict_bits(np.arange(space.n_probes)[None, :], np.array(hypotheses)[:, None])
    tables = np.zeros((len(hypotheses), 52, 52), dtype=bool)
    tables[:, space.contexts[:, 0], :] = said.reshape(len(hypotheses), -1, 52)
    return tables


@pytest.mark.parametrize("line", ["3H 9H", "QS", "2C 5D 8C"])
def test_the_groups_are_what_the_game_judge_accepts(line):
    space = build_space("colours_suits", max_hypotheses=400, cache=False)
    hypotheses = np.random.default_rng(7).choice(len(space), 14, replace=False).tolist()
    hypotheses += [space.index_of(parse(t)) for t in ("suit(card) == suit(last)", "red(card)")]
    cards = parse_cards(line)
    start = np.full(len(hypotheses), cards[-1].face)
    accepts = accepted_on_continuations(_verdict_tables(space, hypotheses), start)
    after = Context(tuple(cards), True)
    for h, secret in enumerate(hypotheses):
        for d, declared in enumerate(hypotheses):
            judged = judge_declaration(space.text(secret), space.text(declared), after)
            assert accepts[d, h] == judged.correct, (space.text(secret), space.text(declared))


def test_waiting_pays_only_when_the_card_can_teach():
    agent = SoloDeclaring()
    agent.noise = 0.0
    both = np.array([True, True])
    blind = JudgeGroups(["a", "b"], np.array([0.6, 0.4]), np.eye(2, dtype=bool), both)
    # the card says nothing: next turn is this turn one point cheaper
    assert agent._value_of_waiting(blind, 20) == pytest.approx(0.6 * 19 - 2 * 0.4)
    a_only = np.array([True, False])
    telling = JudgeGroups(["a", "b"], np.array([0.6, 0.4]), np.eye(2, dtype=bool), a_only)
    assert agent._value_of_waiting(telling, 20) == pytest.approx(19)
    assert agent._value_of_waiting(telling, 1) == 0  # the last turn: nothing after it


def _red_line_agent(**params):
    agent = BayesAgent(**SMALL, productions="hand-set", noise=1e-4, **params)
    starter = parse_cards("2H")[0]
    info = GameInfo("solo", 0, 1, (), starter, traits=GAMES["solo"].traits)
    agent.start_game(info, np.random.default_rng(0))
    line = [starter]
    for text, right in [("5D", True), ("8S", False), ("KH", True), ("3C", False)] * 3:
        card = parse_cards(text)[0]
        agent.observe(Event(0, card, 1, right, len(line) - 1))
        line += [card] if right else []
    return agent, Observation("solo", 0, 1, tuple(parse_cards("4S 9C")), tuple(line), ((),), False)


def test_a_wrong_declaration_takes_out_every_rule_the_judge_would_have_accepted():
    """After red cards only, red(card) and same colour agree on every continuation: one
    group, declared as one, refuted as one."""
    agent, obs = _red_line_agent()
    groups = agent._judge_groups(obs, None)
    red, same = (
        agent.space_.index_of(parse(t)) for t in ("red(card)", "color(card) == color(last)")
    )
    at = {key: i for i, key in enumerate(groups.keys)}
    assert groups.accepts[at[red], at[same]] and groups.accepts[at[same], at[red]]
    assert (
        groups.masses()[at[red]] >= groups.probabilities[at[red]] + groups.probabilities[at[same]]
    )
    assert agent.declare_rule(obs) in ("red(card)", "color(card) == color(last)")
    agent.declare_rule(obs)  # asked again: the game went on, the declaration was wrong
    assert agent.identified_mass(parse("red(card)")) == 0
    assert agent.identified_mass(parse("color(card) == color(last)")) == 0


def test_under_the_stricter_judge_only_the_same_behaviour_counts():
    agent, obs = _red_line_agent()
    traits = dataclasses.replace(GAMES["solo"].traits, judge="reachable")
    agent.info_ = dataclasses.replace(agent.info_, traits=traits)
    groups = agent._judge_groups(obs, None)
    assert (groups.accepts == np.eye(len(groups.keys), dtype=bool)).all()


def test_a_rule_that_behaves_like_the_secret_one_is_declared_and_found():
    """After a spade starter, under "same suit" every continuation is spades: "only
    spades" is judged correct, and its mass counts for the secret rule's."""
    rule = "suit(card) == suit(last)"
    record = play_solo(rule, BayesAgent(**SMALL, productions="hand-set"), seed=1)
    assert record.found_turn is not None and record.declarations[-1].correct
    assert judge_declaration(rule, record.declarations[-1].text, Context(parse_cards("5S"), True))


@pytest.mark.parametrize("judge", ["continuations", "reachable"])
def test_the_context_agent_declares_what_its_judge_accepts(judge):
    agent = ContextBayesAgent("colours_suits", 2000, calibration=None)
    record = play_solo("suit(card) == length mod 4", agent, 0, SoloConfig(judge=judge))
    assert record.success and record.declarations[-1].correct
    stated = [d.confidence for d in record.declarations]
    assert all(0 < c <= 1 for c in stated)


def test_calibrated_decisions_weigh_what_the_map_says_the_judge_accepts():
    from eleusis_lab.calibration import CalibrationMap

    plain = play_solo("red(card)", BayesAgent(**SMALL), seed=2)
    same = CalibrationMap((0.0, 1.0), (0.0, 1.0))
    trusting = BayesAgent(**{**SMALL, "calibration": same}, calibrated_decisions=True)
    assert play_solo("red(card)", trusting, seed=2).declarations == plain.declarations
    never = CalibrationMap((0.0, 1.0), (0.0, 0.0))  # no declaration was ever right
    doubting = BayesAgent(**{**SMALL, "calibration": never}, calibrated_decisions=True)
    record = play_solo("red(card)", doubting, seed=2)
    assert plain.declarations and not record.declarations and record.found_turn is None


def test_the_shipped_map_holds_for_calibrated_decisions():
    """Deciding on the map changes when the agent declares, not its posterior: the map
    fitted to the default model is still its map."""
    from eleusis_agents.solo_declaring import calibration_map

    assert calibration_map("default", BayesAgent(calibrated_decisions=True)) is not None


class _Host:
    """A `DeclaringHost` through its public methods alone: hypotheses with fixed
    probabilities that call every face right."""

    declare_confidence = 2 / 3

    def __init__(self, probabilities):
        self.probabilities = dict(enumerate(probabilities))

    def start_game(self, info, rng):
        self.info_ = info

    def ranked_hypotheses(self, n):
        total = sum(self.probabilities.values())
        ranked = sorted(self.probabilities, key=self.probabilities.get, reverse=True)[:n]
        return [(key, self.probabilities[key] / total) for key in ranked]

    def best_hypothesis(self):
        return self.ranked_hypotheses(1)[0]

    def hypothesis_text(self, key):
        return f"rule {key}"

    def refute(self, key):
        del self.probabilities[key]

    def leader_verdicts(self, context, faces):
        probabilities = np.array([p for _, p in self.ranked_hypotheses(len(self.probabilities))])
        return probabilities, np.ones((len(probabilities), len(faces)), dtype=bool)


def test_declaring_asks_its_host_through_the_public_interface_alone():
    from eleusis_agents.solo_declaring import DeclaringHost

    agent = type("Hosted", (SoloDeclaring, _Host), {"declaring": "threshold"})([0.7, 0.2, 0.1])
    agent.start_game(object(), None)
    obs = Observation("solo", 0, 1, (), tuple(parse_cards("2H")), ((),), True)
    # each declaration asked again means it was wrong: refuted, the next one leads
    assert [agent.declare_rule(obs) for _ in range(3)] == ["rule 0", "rule 1", "rule 2"]
    assert agent.probabilities == {2: 0.1}
    methods = {n for n in vars(DeclaringHost) if not n.startswith("_")}
    assert methods == {
        "ranked_hypotheses",
        "hypothesis_text",
        "refute",
        "best_hypothesis",
        "leader_verdicts",
    }
    for cls in (BayesAgent, ContextBayesAgent):
        assert all(callable(getattr(cls, name)) for name in methods), cls
