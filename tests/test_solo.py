"""The solo benchmark game (RULES.md section 6): score, deal, declarations, end, record.

Games are checked by an independent walk (the deck re-shuffled here from the seed, not
by `replay_solo`): after every play each of the 104 cards is in exactly one place, the
verdicts agree with the rule, and the end and the score follow from the declarations.
"""

import dataclasses
import re
from collections import Counter

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, Observation, agent_capabilities, clone
from eleusis_lab.cards import Card, parse_cards, two_decks
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.solo import (
    FOUND,
    ILLEGAL_DECLARATION,
    NO_STARTER,
    OUT_OF_CARDS,
    TURN_CAP,
    Declaration,
    SoloConfig,
    SoloDecisions,
    SoloMove,
    SoloRecord,
    Tentative,
    format_solo_layout,
    judge_declaration,
    play_solo,
    replay_solo,
    simulate_equivalence,
    solo_deal,
    solo_score,
)
from eleusis_lab.games.solo import judge as solo_judge
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import ILLEGAL_CARD, RAISED, RecordError
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.catalog import acceptable_rules
from eleusis_lab.rules.reach import TooManyContexts
from eleusis_lab.testing import CheckNotes, check_playable_games

DECK = tuple(two_decks())
RULES = (
    "red(card)",
    "color(card) != color(last)",
    "if empty then black(card) else suit(card) != suit(last)",
    "if last_play_right then red(card) else black(card)",
    "rank(card) != rank(last) and suit(card) != suit(prev)",
)


class Scripted(SoloDecisions, Agent):
    """Plays its first card; declares ``script[turn]`` in the move of that turn (before
    its card, as the published game asks)."""

    def __init__(self, script=None):
        self.script = script

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.turn_ = 0
        self.seen_ = []

    def choose_play(self, obs):
        return obs.hand[0]

    def observe(self, event):
        self.turn_ += 1
        self.seen_.append(event)

    def declare_rule(self, obs):
        script, turn = self.script or {}, self.turn_ + 1  # the turn this move is made in
        return script.get(turn, script.get(str(turn)))  # JSON keys are text


def shuffled(seed: int) -> list[Card]:
    """The deck order of a game, computed here as the module docstring says."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    return [DECK[i] for i in rng.permutation(104)]


# -- score --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "found, wrong, score",
    [
        (1, 0, 30),  # found at once: 30 - 0 - 0
        (2, 0, 29),
        (12, 1, 17),  # 30 - 11 - 2
        (30, 0, 1),  # the last turn still scores
        (30, 1, -1),
        (5, 20, -14),  # 30 - 4 - 40
        (None, 0, 0),
        (None, 1, -2),
        (None, 3, -6),
    ],
)
def test_score_formula(found, wrong, score):
    assert solo_score(found, wrong) == score


def test_score_with_other_turn_counts_and_bad_input():
    assert solo_score(1, 0, max_turns=10) == 10
    assert solo_score(10, 1, max_turns=10) == -1
    for found, wrong in ((0, 0), (31, 0), (1, -1), (1.5, 0), (True, 0)):
        with pytest.raises(ValueError):
            solo_score(found, wrong)


# -- deal and starter ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_starter_is_drawn_until_the_rule_accepts_one(seed):
    deck = shuffled(seed)
    hand, refused, starter, stock = solo_deal(seed, "red(card)")
    assert hand == tuple(deck[:12])
    assert all(not card.is_red for card in refused) and starter.is_red
    assert deck[12:] == [*refused, starter, *stock]
    record = play_solo("red(card)", RandomAgent(), seed)
    assert (record.deal, record.refused, record.starter) == (hand, refused, starter)
    assert record.main_line[0] == starter


def test_a_rule_that_accepts_anything_on_an_empty_line_takes_the_first_card():
    hand, refused, starter, stock = solo_deal(5, "color(card) != color(last)")
    assert refused == () and starter == shuffled(5)[12] and len(stock) == 91


def test_the_agent_is_told_the_starter_not_the_refused_cards():
    agent = Scripted()
    record = play_solo("black(card)", agent, seed=0)
    assert record.refused  # seed 0 refuses two red cards
    assert agent.info_.starter == record.starter and agent.info_.hand == record.deal
    assert agent.info_.game == "solo" and agent.info_.rule is None


def test_no_starter_when_the_stock_runs_out():
    record = play_solo("if empty then false else true", OracleAgent(), seed=0)
    assert record.end == NO_STARTER and record.starter is None and record.turns == 0
    assert len(record.refused) == 92 and record.stock == () and record.main_line == ()
    assert (record.score, record.floored_score, record.success) == (0, 0, False)
    assert replay_solo(record) == []
    assert SoloRecord.from_json(record.to_json()) == record
    assert "no starter" in format_solo_layout(record)


# -- invariants over whole games ------------------------------------------------------------


def walk(record: SoloRecord, rule) -> None:
    """Replay ``record`` against a deck shuffled here, checking every invariant."""
    deck = shuffled(record.seed)
    hand = deck[:12]
    stock = deck[12 + len(record.refused) + 1 :]
    refused = list(record.refused)
    main, side, last = [record.starter], [], None
    for k, event in enumerate(record.events):
        assert event.card in hand
        assert len(hand) == 12  # 104 cards cannot run out in 30 turns here
        hand.remove(event.card)
        assert event.right == rule.accepts(event.card, Context(tuple(main), last))
        assert event.position == len(main) - 1
        (main if event.right else side).append(event.card)
        last = event.right
        hand.append(stock.pop(0))
        places = [*hand, *stock, *main, *side, *refused]
        assert len(places) == 104 and set(places) == set(DECK), f"after play {k}"
    assert record.hand == tuple(hand) and record.stock == tuple(stock)
    assert record.main_line == tuple(main) and record.side_line == tuple(side)
    everything = [*record.hand, *record.stock, *record.main_line, *record.side_line, *refused]
    assert Counter(everything) == Counter(DECK) and len(set(everything)) == 104


@pytest.mark.parametrize("text", RULES)
@pytest.mark.parametrize("seed", [0, 7])
def test_every_card_in_one_place_and_verdicts_follow_the_rule(text, seed):
    rule = parse(text)
    for agent in (RandomAgent(), Scripted()):
        record = play_solo(rule, agent, seed)
        walk(record, rule)
        assert record.end == TURN_CAP and record.turns == len(record.events) == 30
        assert record.score == 0 and not record.success
        assert replay_solo(record) == []


def test_the_game_ends_after_max_turns():
    record = play_solo("red(card)", RandomAgent(), seed=3, config=SoloConfig(max_turns=5))
    assert record.end == TURN_CAP and record.turns == 5 and len(record.events) == 5
    assert len(record.hand) == 12 and replay_solo(record) == []


def test_out_of_cards_when_hand_and_stock_are_used_up():
    config = SoloConfig(max_turns=200)
    record = play_solo("true", RandomAgent(), seed=1, config=config)
    assert record.end == OUT_OF_CARDS and record.turns == 103 and record.hand == ()
    assert record.stock == () and len(record.main_line) == 104
    assert replay_solo(record) == []


class Watching(Scripted):
    def declare_rule(self, obs):
        self.declared_on_ = obs
        return None

    def choose_play(self, obs):
        assert len(obs.hand) == 12 and obs.game == "solo" and obs.seat == 0
        self.played_on_ = obs
        return super().choose_play(obs)


def test_the_published_move_is_made_before_the_verdict():
    """The card and the declaration are chosen in the same state, before the card."""
    agent = Watching()
    record = play_solo("color(card) != color(last)", agent, seed=2)
    assert agent.declared_on_ == agent.played_on_
    assert (
        agent.played_on_.main_line + agent.played_on_.wrong_cards[0] + (agent.played_on_.hand) != ()
    )  # the last turn's state: its card is not on the table yet
    assert record.events[-1].card in agent.played_on_.hand
    assert agent.seen_ == list(record.events)


def test_after_verdict_timing_declares_in_the_state_after_each_play():
    agent = Watching()
    config = SoloConfig(timing="after_verdict")
    record = play_solo("color(card) != color(last)", agent, seed=2, config=config)
    assert agent.declared_on_.main_line == record.main_line
    assert agent.declared_on_.wrong_cards == (record.side_line,)
    assert agent.declared_on_.last_play_right == record.events[-1].right
    assert agent.seen_ == list(record.events)
    assert replay_solo(record) == []


# -- declarations ------------------------------------------------------------------------


def test_correct_declaration_ends_the_game_and_scores():
    record = play_solo("red(card)", Scripted({4: "red(card)"}), seed=0)
    assert record.end == FOUND and record.found_turn == 4 and record.turns == 4
    assert record.declarations == (
        Declaration(4, "red(card)", True, "exact", record.declarations[0].reason),
    )
    assert (record.score, record.floored_score, record.success) == (27, 27, True)
    assert replay_solo(record) == []


def test_wrong_and_unparsable_declarations_cost_two_points_each():
    script = {1: "black(card)", 2: "red(crad)", 3: "rank(card)", 5: "red(card)"}
    record = play_solo("red(card)", Scripted(script), seed=0)
    methods = [(d.turn, d.correct, d.method) for d in record.declarations]
    assert methods == [
        (1, False, "exact"),
        (2, False, "invalid"),
        (3, False, "invalid"),
        (5, True, "exact"),
    ]
    assert "unknown name 'crad'" in record.declarations[1].reason
    assert "must be true or false" in record.declarations[2].reason
    assert "under the secret rule" in record.declarations[0].reason
    assert record.wrong_declarations == 3 and record.score == 30 - 4 - 6 == 20
    assert replay_solo(record) == []


def test_many_wrong_declarations_give_a_negative_score_floored_at_zero():
    script = {turn: "black(card)" for turn in range(1, 31)}
    record = play_solo("red(card)", Scripted(script), seed=1)
    assert record.end == TURN_CAP and record.wrong_declarations == 30
    assert (record.score, record.floored_score, record.success) == (-60, 0, False)


@pytest.mark.parametrize(
    "secret, declared",
    [
        ("red(card)", "not black(card)"),
        ("red(card)", "suit(card) == diamonds or suit(card) == hearts"),
        ("odd(rank(card) + rank(last))", "if odd(last) then even(card) else odd(card)"),
        ("color(card) != color(last)", "if red(last) then black(card) else red(card)"),
    ],
)
@pytest.mark.parametrize("judge", ["continuations", "reachable"])
def test_an_equivalent_rule_written_differently_is_correct(secret, declared, judge):
    judgement = judge_declaration(secret, declared, judge=judge)
    assert judgement.correct and judgement.method == "exact"
    record = play_solo(secret, Scripted({2: declared}), seed=4, config=SoloConfig(judge=judge))
    assert record.success and record.found_turn == 2 and record.score == 29


def test_the_reachable_judge_looks_only_as_far_as_a_game_goes():
    late = "if length > 30 then black(card) else red(card)"
    assert judge_declaration("red(card)", late, judge="reachable").correct  # never 30 cards
    judgement = judge_declaration("red(card)", late, judge="reachable", max_turns=40)
    assert not judgement.correct  # in a 40-turn game it is reachable
    judgement = judge_declaration(
        "red(card)", "if length >= 30 then black(card) else red(card)", judge="reachable"
    )
    assert not judgement.correct and "30 cards" in judgement.reason


def test_the_published_judge_follows_40_plays_from_the_current_line():
    """Continuations of a 5-card line reach 44 cards (40 states: the line, then 39
    more right cards), never the empty line or a line of 45."""
    line = Context(tuple(parse_cards("2H 3H 4H 5H 6H")), True)
    for length, correct in ((44, False), (45, True)):
        text = f"if length >= {length} then black(card) else red(card)"
        assert judge_declaration("red(card)", text, line).correct is correct
    # the start of the line is past: a rule that differs only there is found
    secret = "if empty then rank(card) == 7 else red(card)"
    assert judge_declaration(secret, "red(card)", line).correct
    assert not judge_declaration(secret, "red(card)", line, judge="reachable").correct
    # continuations add right cards only: after a wrong play, the next state is "right"
    after_wrong = Context(line.main_line, False)
    verdict = "if last_play_right then red(card) else true"
    assert not judge_declaration(verdict, "red(card)", after_wrong).correct
    assert judge_declaration(verdict, "red(card)", Context(line.main_line, True)).correct


def test_bad_text_is_never_a_crash():
    for text in ("", "((((", "red(card) and", "1 + ", "x" * 5000, "red(card) " * 3):
        judgement = judge_declaration("red(card)", text)
        assert not judgement.correct and judgement.method == "invalid"
        assert len(judgement.reason) <= 300


def test_simulation_judges_when_exact_analysis_is_impossible(monkeypatch):
    def too_many(*args, **kwargs):
        raise TooManyContexts("too many")

    def clear():
        solo_judge._judge_reachable.cache_clear()
        solo_judge._CONTINUATIONS_CACHE.clear()

    monkeypatch.setattr(solo_judge, "equivalent", too_many)
    clear()
    try:
        for judge, how in (("reachable", "random games"), ("continuations", "continuations")):
            right = judge_declaration("red(card)", "not black(card)", judge=judge)
            wrong = judge_declaration("color(card) != color(last)", "red(card)", judge=judge)
            assert (right.correct, right.method) == (True, "simulation")
            assert how in right.reason
            assert (wrong.correct, wrong.method) == (False, "simulation")
            config = SoloConfig(judge=judge)
            record = play_solo("red(card)", Scripted({3: "not black(card)"}), 0, config)
            assert record.declarations[0].method == "simulation" and record.success
            assert replay_solo(record) == []
    finally:
        clear()


def test_simulation_checks_every_card_at_every_step_and_is_seeded():
    first = parse("color(card) != color(last)")
    assert simulate_equivalence(first, parse("if red(last) then black(card) else red(card)"))
    found = simulate_equivalence(first, parse("if length == 7 then red(card) else " + first.text))
    assert not found and "after" in found.context
    again = simulate_equivalence(first, parse("if length == 7 then red(card) else " + first.text))
    assert again == found
    # A difference on the empty line (which starters are accepted) counts too.
    found = simulate_equivalence(parse("red(card)"), parse("red(card) or empty"))
    assert not found and found.context == "on an empty main line"


def test_non_text_declaration_is_a_fault_not_a_declaration():
    record = play_solo("red(card)", Scripted({1: 42, 2: "red(card)"}), seed=0)
    assert [(f.kind, f.call, f.event) for f in record.faults] == [
        (ILLEGAL_DECLARATION, "solo_move", 0)
    ]
    assert record.wrong_declarations == 0 and record.found_turn == 2 and record.score == 29
    assert replay_solo(record) == []
    with pytest.raises(AgentError, match="not rule text"):
        play_solo("red(card)", Scripted({1: 42}), seed=0, config=SoloConfig(on_fault="raise"))


# -- the default declaration and the built-in agents ---------------------------------------


class Proposer(Scripted):
    """Proposes ``(text, confidence)`` and keeps the default declare_rule."""

    def __init__(self, text="red(card)", confidence=0.9):
        self.text = text
        self.confidence = confidence

    declare_rule = SoloDecisions.declare_rule

    def propose_rule(self):
        return (self.text, self.confidence)


def test_default_declares_from_two_thirds_and_never_repeats():
    assert SoloDecisions.declare_confidence == pytest.approx(2 / 3)
    sure = play_solo("red(card)", Proposer(confidence=2 / 3), seed=0)
    assert sure.found_turn == 1 and sure.score == 30
    unsure = play_solo("red(card)", Proposer(confidence=0.66), seed=0)
    assert unsure.declarations == () and unsure.score == 0
    wrong = play_solo("red(card)", Proposer("black(card)"), seed=0)
    assert [d.turn for d in wrong.declarations] == [1] and wrong.score == -2
    agent = Proposer("black(card)")
    play_solo("red(card)", agent, seed=0)
    again = play_solo("red(card)", agent, seed=0)  # a new game forgets the old declarations
    assert [d.turn for d in again.declarations] == [1]


def test_default_declares_nothing_without_a_proposal():
    record = play_solo("red(card)", RandomAgent(), seed=0)
    assert record.declarations == () and record.end == TURN_CAP


@pytest.mark.parametrize("rule", acceptable_rules(), ids=lambda rule: rule.name)
def test_oracle_declares_the_rule_on_turn_one(rule):
    record = play_solo(rule, OracleAgent(), seed=0)
    assert (record.found_turn, record.score, record.wrong_declarations) == (1, 30, 0)


def test_bayes_agent_finds_a_simple_rule():
    from eleusis_agents.bayes import BayesAgent

    agent = BayesAgent(grammar="colours_suits", max_hypotheses=2000)
    record = play_solo("red(card)", agent, seed=0)
    assert record.success and record.score >= 20 and replay_solo(record) == []


DEALER_GRAMMAR = {
    "grammar": "colours_suits",
    "max_hypotheses": 2000,
    "one_card": 0,
    "acceptability": "dealer",
    "productions": "hand-set",
}


def test_bayes_agent_learns_from_a_wrong_declaration():
    """Only red cards on the line: red(card) and same colour agree on every play seen."""
    from eleusis_agents.bayes import BayesAgent
    from eleusis_lab.agent import Event, GameInfo, Observation

    # the hand-set grammar alone and the dealer's test: the one-card language, and rules such as
    # red(card) and red(last) (no card right after a black one), are more rivals
    agent = BayesAgent(**DEALER_GRAMMAR, noise=1e-4, declaring="threshold")
    starter = parse_cards("2H")[0]
    info = GameInfo("solo", 0, 1, (), starter, traits=GAMES["solo"].traits)
    agent.start_game(info, np.random.default_rng(0))
    line = [starter]
    for text, right in [("5D", True), ("8S", False), ("KH", True), ("3C", False)] * 3:
        card = parse_cards(text)[0]
        agent.observe(Event(0, card, 1, right, len(line) - 1))
        line += [card] if right else []
    obs = Observation("solo", 0, 1, tuple(parse_cards("4S 9C")), tuple(line), ((),), False)
    assert agent.declare_rule(obs) == "red(card)"
    # Asked again, the game went on: red(card) was wrong and leaves the posterior.
    agent.declare_confidence = 0.99
    second = agent.declare_rule(obs)
    assert agent.identified_mass(parse("red(card)")) == 0
    # Below the threshold, but no play can tell the rest apart (the line stays red):
    # waiting cannot help, so the most probable is declared at once.
    assert second == "color(card) == color(last)"
    assert agent.identified_mass(parse(second)) < 0.99


def test_bayes_agent_knows_twins_no_play_can_tell_apart():
    """After red cards only, red(card) and same colour agree on every play to come."""
    from eleusis_agents.bayes import BayesAgent
    from eleusis_lab.agent import Event, GameInfo, Observation

    agent = BayesAgent(**DEALER_GRAMMAR, noise=1e-4, declaring="threshold")
    starter = parse_cards("2H")[0]
    info = GameInfo("solo", 0, 1, (), starter, traits=GAMES["solo"].traits)
    agent.start_game(info, np.random.default_rng(0))
    hand = tuple(parse_cards("4S 9C JD"))
    obs = Observation("solo", 0, 1, hand, (starter,), ((),), None)
    assert agent._twins(obs) == 0  # the prior's best two, true and red(card), differ
    line = [starter]
    for text, right in [("5D", True), ("8S", False), ("KH", True), ("3C", False)] * 3:
        card = parse_cards(text)[0]
        agent.observe(Event(0, card, 1, right, len(line) - 1))
        line += [card] if right else []
    (first, p1), (second, p2) = agent.top_hypotheses(2)
    assert {first, second} == {"red(card)", "color(card) == color(last)"}
    obs = Observation("solo", 0, 1, hand, tuple(line), ((),), False)
    assert agent._twins(obs) == pytest.approx(p1 + p2)


class _Fixed:
    """Hypotheses with fixed probabilities that all call every face right: no play
    can tell them apart (what `SoloDeclaring` asks of an agent, and nothing more)."""

    declare_confidence = 2 / 3

    def __init__(self, probabilities):
        self.probabilities = dict(enumerate(probabilities))

    def start_game(self, info, rng):
        self.info_ = info

    def best_hypothesis(self):
        total = sum(self.probabilities.values())
        best = max(self.probabilities, key=self.probabilities.get)
        return best, self.probabilities[best] / total

    def refute(self, hypothesis):
        del self.probabilities[hypothesis]

    def hypothesis_text(self, hypothesis):
        return f"rule {hypothesis}"

    def leader_verdicts(self, context, faces):
        total = sum(self.probabilities.values())
        p = np.array(list(self.probabilities.values())) / total
        return p, np.ones((len(p), len(faces)), dtype=bool)


def _fixed_agent(probabilities):
    from eleusis_agents.solo_declaring import SoloDeclaring

    agent = type("Fixed", (SoloDeclaring, _Fixed), {"declaring": "threshold"})(probabilities)
    agent.start_game(object(), None)  # one game
    return agent


def _after_turn(turn):
    """An observation after ``turn`` plays, all right."""
    deck = two_decks()
    line = tuple(deck[: turn + 1])
    return Observation("solo", 0, 1, tuple(deck[60:72]), line, ((),), True)


def test_bayes_agents_declare_when_nothing_can_be_learnt_and_it_pays():
    """Stalled for three turns, declare from the break-even probability 2 / (33 - turn)."""
    # the best at 0.3, twins with the second (0.5 together, under 2/3), the rest tiny
    probabilities = [0.3, 0.2] + [0.01] * 50
    agent = _fixed_agent(probabilities)
    obs = _after_turn(10)  # break-even 2 / 23
    assert [agent.declare_rule(obs) for _ in range(3)] == [None, None, "rule 0"]
    # the game went on, so rule 0 was wrong: rule 1 (0.2 / 0.7) is next
    assert agent.declare_rule(obs) == "rule 1"
    for turn in (29, 40):  # break-even 2 / 4, then 2 / 3 (a game of more than 30 turns)
        late = _fixed_agent(probabilities)
        assert [late.declare_rule(_after_turn(turn)) for _ in range(5)] == [None] * 5
    learning = _fixed_agent([0.3, 0.2, 0.5])  # every play tells the best, 0.5, from the rest
    learning.leader_verdicts = lambda context, faces: (
        np.array([0.3, 0.2, 0.5]),
        np.array([[True] * len(faces), [True] * len(faces), [False] * len(faces)]),
    )
    assert [learning.declare_rule(_after_turn(10)) for _ in range(5)] == [None] * 5


@pytest.mark.parametrize("agent", [RandomAgent(), OracleAgent()], ids=repr)
def test_check_agent_plays_solo(agent):
    notes = CheckNotes()
    check_playable_games(agent, notes)
    assert GAMES["solo"].refusal(agent) is None and "solo" not in notes.not_checked


def test_built_in_agents_declare_solo():
    from eleusis_agents.bayes import BayesAgent
    from eleusis_agents.bayes_context import ContextBayesAgent
    from eleusis_agents.human import HumanAgent
    from eleusis_agents.learners import DecisionTreeAgent, SklearnAgent

    built_in = (RandomAgent, OracleAgent, BayesAgent, ContextBayesAgent, SklearnAgent)
    for cls in (*built_in, DecisionTreeAgent, HumanAgent):
        assert "declares" in agent_capabilities(cls) and GAMES["solo"].refusal(cls) is None


# -- determinism and records ---------------------------------------------------------------


def test_same_seed_same_game_and_seeds_differ():
    one = play_solo("color(card) != color(last)", RandomAgent(), seed=11)
    two = play_solo("color(card) != color(last)", RandomAgent(), seed=11)
    other = play_solo("color(card) != color(last)", RandomAgent(), seed=12)
    assert one == two and one.to_json() == two.to_json()
    assert one.deal != other.deal


def test_the_agent_stream_depends_on_the_seed_only():
    agent = RandomAgent()
    first = play_solo("red(card)", agent, seed=3)
    play_solo("black(card)", agent, seed=4)
    assert play_solo("red(card)", agent, seed=3) == first
    assert play_solo("red(card)", clone(agent), seed=3) == first


def test_json_round_trip_and_replay(tmp_path):
    script = {"1": "black(card)", "2": "red(crad)", "6": "not black(card)"}
    record = play_solo("red(card)", Scripted(script), seed=2)
    assert record.wrong_declarations == 2 and record.found_turn == 6
    assert any(card.copy for card in (*record.hand, *record.stock))  # second-deck cards
    assert SoloRecord.from_json(record.to_json()) == record
    record.save(tmp_path / "game.json")
    assert SoloRecord.load(tmp_path / "game.json") == record
    assert replay_solo(SoloRecord.from_json(record.to_json(indent=2))) == []


def tampered(record: SoloRecord) -> dict[str, SoloRecord]:
    first = record.events[0]
    wrong = record.declarations[0]
    swapped = (record.hand[1], record.hand[0], *record.hand[2:])
    return {
        "score": record.replace(score=record.score + 1),
        "floored": record.replace(floored_score=record.floored_score - 1),
        "success": record.replace(success=not record.success),
        "verdict": record.replace(
            events=(first.__class__(0, first.card, 1, not first.right, 0), *record.events[1:])
        ),
        "judgement": record.replace(
            declarations=(
                Declaration(wrong.turn, wrong.text, True, wrong.method, wrong.reason),
                *record.declarations[1:],
            )
        ),
        "declaration text": record.replace(
            declarations=(
                Declaration(wrong.turn, "green(card)", False, wrong.method, wrong.reason),
                *record.declarations[1:],
            )
        ),
        "starter": record.replace(starter=record.refused[0]),
        "refused": record.replace(refused=()),
        "hand": record.replace(hand=swapped),
        "seed": record.replace(seed=record.seed + 1),
        "end": record.replace(end=TURN_CAP),
        "turns": record.replace(events=record.events[:-1]),
        "rule": record.replace(rule="red(card)"),
        "wrong count": record.replace(wrong_declarations=0),
        "found": record.replace(found=not record.found),
        "tentative judgement": record.replace(
            tentative=tuple(
                t if t.turn != 2 else Tentative(t.turn, t.text, t.confidence, not t.correct)
                for t in record.tentative
            )
        ),
        "tentative turn": record.replace(
            tentative=(*record.tentative, Tentative(30, "red(card)", 0.5, False))
        ),
    }


TAMPERED = (
    "score",
    "floored",
    "success",
    "verdict",
    "judgement",
    "declaration text",
    "starter",
    "refused",
    "hand",
    "seed",
    "end",
    "turns",
    "rule",
    "wrong count",
    "found",
    "tentative judgement",
    "tentative turn",
)


@pytest.mark.parametrize("what", TAMPERED)
def test_replay_catches_a_tampered_record(what):
    record = play_solo("black(card)", Scripted({2: "red(card)", 7: "black(card)"}), seed=0)
    assert replay_solo(record) == [] and record.refused
    cases = tampered(record)
    assert set(cases) == set(TAMPERED)
    assert replay_solo(cases[what]), what


def test_from_json_rejects_what_is_not_a_solo_record():
    from eleusis_lab.games.classic import play_classic

    classic = play_classic("red(card)", [RandomAgent(), RandomAgent()], seed=0)
    for text in ("[]", "{", classic.to_json(), '{"format": 1, "game": "solo"}'):
        with pytest.raises(RecordError):
            SoloRecord.from_json(text)


# -- faults ------------------------------------------------------------------------------


class Raising(Scripted):
    def __init__(self, where="choose_play"):
        self.where = where

    def start_game(self, info, rng):
        super().start_game(info, rng)
        if self.where == "start_game":
            raise RuntimeError("no start")

    def choose_play(self, obs):
        if self.where == "choose_play" and self.turn_ % 2:
            raise ValueError("cannot choose")
        if self.where == "illegal":  # the other copy of its first card, or not a card
            twin = Card(obs.hand[0].rank, obs.hand[0].suit, 1 - obs.hand[0].copy)
            return "QH" if twin in obs.hand else twin
        return super().choose_play(obs)

    def observe(self, event):
        super().observe(event)
        if self.where == "observe":
            raise KeyError("lost")

    def declare_rule(self, obs):
        if self.where == "declare_rule":
            raise ZeroDivisionError("no idea")
        return None


@pytest.mark.parametrize(
    "where, kind, call, count, timing",
    [
        ("choose_play", RAISED, "solo_move", 15, "before_verdict"),  # the default move
        ("illegal", ILLEGAL_CARD, "solo_move", 30, "before_verdict"),
        ("observe", RAISED, "observe", 30, "before_verdict"),
        ("declare_rule", RAISED, "solo_move", 30, "before_verdict"),
        ("start_game", RAISED, "start_game", 1, "before_verdict"),
        ("choose_play", RAISED, "choose_play", 15, "after_verdict"),
        ("illegal", ILLEGAL_CARD, "choose_play", 30, "after_verdict"),
        ("declare_rule", RAISED, "declare_rule", 30, "after_verdict"),
    ],
)
def test_faults_are_recorded_and_the_game_goes_on(where, kind, call, count, timing):
    record = play_solo("red(card)", Raising(where), seed=0, config=SoloConfig(timing=timing))
    assert record.end == TURN_CAP and record.turns == 30
    assert len(record.faults) == count
    assert {(f.kind, f.call, f.seat, f.agent) for f in record.faults} == {
        (kind, call, 0, "Raising")
    }
    assert replay_solo(record) == []
    assert SoloRecord.from_json(record.to_json()) == record
    assert "faults:" in format_solo_layout(record)


def test_a_substituted_play_is_the_first_card_of_the_hand():
    record = play_solo("red(card)", Raising("illegal"), seed=0)
    assert replay_solo(record) == []
    faults = record.faults[:1]
    bad = record.replace(events=(record.events[1], *record.events[1:]), faults=faults)
    assert replay_solo(bad)


def test_on_fault_raise_stops_the_game():
    config = SoloConfig(on_fault="raise")
    with pytest.raises(ValueError, match="cannot choose"):
        play_solo("red(card)", Raising("choose_play"), seed=0, config=config)
    with pytest.raises(AgentError, match="not among the cards"):
        play_solo("red(card)", Raising("illegal"), seed=0, config=config)
    with pytest.raises(ZeroDivisionError):
        play_solo("red(card)", Raising("declare_rule"), seed=0, config=config)


def test_bad_settings_raise_config_errors():
    for bad in (
        {"hand_size": 0},
        {"hand_size": 104},
        {"max_turns": 0},
        {"on_fault": "ignore"},
        {"simulation_games": 0},
    ):
        with pytest.raises(ConfigError):
            SoloConfig(**bad)
    for name in ("judge_plays", "simulation_games"):
        with pytest.raises(ConfigError, match=f"^{name} must be at most 100,000, got 10000000$"):
            SoloConfig(**{name: 10**7})
    with pytest.raises(ConfigError):
        play_solo("red(card)", "random", seed=0)
    with pytest.raises(ConfigError):
        play_solo("red(card)", RandomAgent(), seed=-1)


# -- layout ------------------------------------------------------------------------------


# -- the published move: tentative rules, confidence, success, no-stakes, boldness ------


class Mover(SoloDecisions, Agent):
    """Plays ``moves[turn]``'s (rule, confidence, declare) with its first card."""

    def __init__(self, moves=None):
        self.moves = moves

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.turn_ = 0

    def choose_play(self, obs):
        return obs.hand[0]

    def solo_move(self, obs):
        self.turn_ += 1
        statement = (self.moves or {}).get(self.turn_, (None, None, False))
        return SoloMove(obs.hand[0], *statement)


def test_tentative_rules_are_judged_every_turn_at_no_cost():
    moves = {
        1: ("black(card)", 0.4, False),
        2: ("red(card)", 0.3, False),  # right, but not stated with confidence 1/2
        3: ("red(card)", 0.6, False),  # the no-stakes score counts from here: 31 - 3
        4: ("black(card)", 0.9, True),  # wrong: 2 points
        5: ("red(card)", 0.8, False),
        6: ("red(card)", None, True),  # found on turn 6, after one wrong declaration
    }
    record = play_solo("red(card)", Mover(moves), seed=0)
    assert [(t.turn, t.correct) for t in record.tentative] == [
        (1, False),
        (2, True),
        (3, True),
        (4, False),
        (5, True),
        (6, True),
    ]
    assert [(d.turn, d.correct, d.confidence) for d in record.declarations] == [
        (4, False, 0.9),
        (6, True, None),
    ]
    assert (record.found_turn, record.score, record.no_stakes_score) == (6, 23, 28)
    assert record.boldness == 2 * 1 - 3  # held the right rule on turns 2, 3 and 5
    assert replay_solo(record) == []
    again = SoloRecord.from_json(record.to_json())  # (the script's keys become text)
    assert again.tentative == record.tentative and again.declarations == record.declarations
    assert "no-stakes score 28, boldness -1" in format_solo_layout(record)


def test_success_is_found_with_a_score_of_at_least_two():
    for turn, wrong, success in ((29, 0, True), (30, 0, False), (27, 1, True), (28, 1, False)):
        moves = {t: ("black(card)", 1.0, True) for t in range(1, wrong + 1)}
        moves[turn] = ("red(card)", 1.0, True)
        record = play_solo("red(card)", Mover(moves), seed=0)
        assert record.found and record.score == 31 - turn - 2 * wrong
        assert record.success is success
        assert replay_solo(record) == []


@pytest.mark.parametrize(
    "statement, message",
    [
        ((42, 0.5, False), "not rule text"),
        (("red(card)", 1.5, True), "not a number in [0, 1]"),
        (("red(card)", float("nan"), True), "not a number in [0, 1]"),
        (("red(card)", "high", True), "not a number in [0, 1]"),
        (("red(card)", 0.5, "yes"), "not True or False"),
        ((None, None, True), "without stating a rule"),
    ],
)
def test_a_bad_statement_is_a_fault_and_the_card_is_still_played(statement, message):
    record = play_solo("red(card)", Mover({1: statement}), seed=0)
    assert [(f.kind, f.call) for f in record.faults] == [(ILLEGAL_DECLARATION, "solo_move")]
    assert message in record.faults[0].message
    assert record.events[0].card == record.deal[0] and record.declarations == ()
    assert replay_solo(record) == []
    with pytest.raises(AgentError, match=re.escape(message)):
        play_solo("red(card)", Mover({1: statement}), seed=0, config=SoloConfig(on_fault="raise"))


def test_a_move_that_is_not_a_solo_move_is_a_fault():
    class Junk(Mover):
        def solo_move(self, obs):
            return obs.hand[1]

    record = play_solo("red(card)", Junk(), seed=0)
    assert len(record.faults) == 30 and "not a SoloMove" in record.faults[0].message
    assert [e.card for e in record.events[:1]] == [record.deal[0]]  # the first card instead
    assert replay_solo(record) == []


def test_the_published_timing_is_harder_than_declaring_after_the_verdict():
    """The same learner finds the same rule, a turn later when it must declare with the
    card: it cannot use the verdict of the card it declares with."""
    from eleusis_agents.bayes import BayesAgent

    small = {"grammar": "colours_suits", "max_hypotheses": 2000}
    later = play_solo("color(card) != color(last)", BayesAgent(**small), seed=3)
    config = SoloConfig(timing="after_verdict")
    sooner = play_solo("color(card) != color(last)", BayesAgent(**small), 3, config)
    assert later.found and sooner.found and later.found_turn == sooner.found_turn + 1


def test_format_1_records_are_read_with_the_readings_they_were_played_with():
    record = play_solo("red(card)", Scripted({3: "red(card)"}), seed=0)
    data = record.to_dict()
    data["format"] = 1
    del data["found"], data["tentative"]
    for name in ("timing", "judge", "judge_plays"):
        del data["config"][name]
    old = SoloRecord.from_dict(data)
    assert old.config["timing"] == "after_verdict" and old.config["judge"] == "reachable"
    assert old.found and old.success and old.tentative == ()


def test_layout_shows_the_table_declarations_and_score():
    record = play_solo("black(card)", Scripted({2: "red(card)", 3: "black(card)"}), seed=0)
    text = format_solo_layout(record)
    assert "refused starters (discarded): 2H JH" in text
    assert "turn  2  wrong (exact)  red(card)" in text
    assert "under the secret rule" in text
    assert "found on turn 3 with 1 wrong declaration: score 26 (floored 26)" in text
    lost = format_solo_layout(play_solo("red(card)", RandomAgent(), seed=0))
    assert "not found after 30 turns (the last turn was played)" in lost


def test_replay_knows_which_solo_calls_can_fault_which_way():
    """An illegal card is a fault of choose_play or solo_move, never of declare_rule."""
    from eleusis_lab.record import Fault

    record = play_solo("red(card)", RandomAgent(), 0)
    name = record.agent["name"]
    for call, kind, legal in [
        ("choose_play", "illegal_card", True),
        ("solo_move", "illegal_declaration", True),
        ("declare_rule", "illegal_card", False),
        ("observe", "illegal_declaration", False),
    ]:
        tampered = dataclasses.replace(record, faults=(Fault(0, name, kind, "x", 0, 1, call),))
        said = [p for p in replay_solo(tampered) if "cannot fault" in p]
        assert bool(said) != legal, (call, kind, said)


# -- when the engine does what, in a turn -------------------------------------------------


class Shown:
    """A rule that is not text, whose repr notes when the engine shows it."""

    def __init__(self, calls):
        self.calls = calls

    def __repr__(self):
        self.calls.append("repr")
        return "Shown()"


class Deaf(Mover):
    """States a rule that is not text on turn 1, and cannot hear the play of turn 1."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def solo_move(self, obs):
        self.turn_ += 1
        return SoloMove(obs.hand[0], Shown(self.calls) if self.turn_ == 1 else None)

    def observe(self, event):
        self.calls.append("observe")
        if self.turn_ == 1:
            raise RuntimeError("deaf")


def test_a_bad_statement_before_the_verdict_is_a_fault_once_the_play_is_told():
    agent = Deaf()
    record = play_solo("red(card)", agent, seed=0)
    assert [(f.call, f.kind) for f in record.faults] == [
        ("observe", RAISED),
        ("solo_move", ILLEGAL_DECLARATION),
    ]
    assert agent.calls[:3] == ["observe", "repr", "observe"]  # shown after the play is told
    assert replay_solo(record) == []
    with pytest.raises(RuntimeError, match="deaf"):  # the agent's own, before the statement's
        play_solo("red(card)", Deaf(), seed=0, config=SoloConfig(on_fault="raise"))


@pytest.mark.parametrize("timing", ["before_verdict", "after_verdict"])
def test_on_turn_is_called_at_the_end_of_every_turn(timing):
    seen = []

    class Declarer(SoloDecisions, Agent):
        def choose_play(self, obs):
            seen.append(("choose",))
            return obs.hand[0]

        def observe(self, event):
            seen.append(("observe",))

        def propose_rule(self):
            return ("black(card)", 0.9) if len(seen) < 6 else ("red(card)", 0.9)

    def on_turn(turn, event, declaration):
        seen.append(("turn", turn, event.card, declaration and declaration.correct))

    record = play_solo("red(card)", Declarer(), 0, SoloConfig(timing=timing), on_turn=on_turn)
    turns = [s for s in seen if s[0] == "turn"]
    assert [t[1:3] for t in turns] == [(k, e.card) for k, e in enumerate(record.events, 1)]
    assert [t[3] for t in turns] == [False, None, True] and record.found_turn == 3
    assert [s[0] for s in seen] == ["choose", "observe", "turn"] * record.turns
