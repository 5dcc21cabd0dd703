"""Delphi (RULES.md section 3): deal, verdicts, predictions, chips, records, faults, match.

The games are checked by an independent walk (not the module's replay): the cards come
in the order of the seed's shuffle, every verdict is the rule's, every player predicted
every card before anyone heard its verdict, from the true public state, and the chips
and scores follow from the tokens.
"""

import json
import math
import signal
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.learners import DecisionTreeAgent
from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic import classic_deal
from eleusis_lab.games.delphi import (
    NOT_A_PROBABILITY,
    ORACLE,
    SUBSTITUTE_PROBABILITY,
    DelphiConfig,
    DelphiMatch,
    DelphiRecord,
    delphi_deal,
    format_delphi_layout,
    play_delphi,
    play_delphi_match,
    replay_delphi,
)
from eleusis_lab.games.delphi.scoring import delphi_chips, delphi_scores
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import RecordError, format_layout, load_record, read_record, replay
from eleusis_lab.rules import Context, parse
from eleusis_lab.testing import CheckNotes, check_playable_games

RULES = [
    parse(text)
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "if last_play_right then red(card) else black(card)",
        "if even(last) then red(card) else black(card)",
        "rank(card) != rank(last) and suit(card) != suit(prev)",
        "red(card)",
    )
]
DECK = Counter(standard_deck())


class Watcher(Agent):
    """Predicts a fixed or random probability; logs every call in a shared list."""

    def __init__(self, p=None, log=None):
        self.p = p
        self.log = log

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.asked_ = []

    def choose_play(self, obs):
        raise AssertionError("Delphi never asks for a card")

    def predict(self, obs, cards):
        p = float(self.rng_.random()) if self.p is None else self.p
        self.asked_.append((obs, list(cards), p))
        if self.log is not None:
            self.log.append(("predict", obs.seat))
        return np.array([p])

    def observe(self, event):
        if self.log is not None:
            self.log.append(("observe", self.info_.seat))


def watchers(n, log=None):
    return [Watcher(p=[None, 0.5, 0.2, 0.9][seat % 4], log=log) for seat in range(n)]


def walk(record, rule, agents=None):
    """Check every invariant of a Delphi record; ``agents`` are Watchers if given."""
    n = record.n_players
    starter, cards = delphi_deal(record.seed)
    assert record.starter == starter and starter == classic_deal(record.seed, 2)[0]
    assert [e.card for e in record.events] == list(cards)
    assert Counter([record.starter, *cards]) == DECK
    main, side, last = [record.starter], [], None
    hits = []
    for k, event in enumerate(record.events):
        assert (event.seat, event.phase, event.position) == (ORACLE, 1, len(main) - 1)
        right = rule.accepts(event.card, Context(tuple(main), last))
        assert event.right == right
        row = record.probabilities[k]
        assert len(row) == n and all(0 <= p <= 1 for p in row)
        if agents is not None:
            for seat, agent in enumerate(agents):
                obs, asked, p = agent.asked_[k]
                assert asked == [event.card] and row[seat] == p
                assert (obs.game, obs.seat, obs.phase, obs.hand) == ("delphi", seat, 1, ())
                assert obs.main_line == tuple(main) and obs.wrong_cards == (tuple(side),)
                assert obs.last_play_right is last
        hits.append([(p >= 0.5) == right for p in row])
        (main if right else side).append(event.card)
        last = right
        # Every card in exactly one place: main line, side column or not yet turned.
        assert Counter([*main, *side, *cards[k + 1 :]]) == DECK
    assert record.main_line == tuple(main) and record.side_column == tuple(side)

    chips = [0] * n  # by hand: +1 for a correct token, all chips lost for a wrong one
    for row in hits:
        chips = [c + 1 if hit else 0 for c, hit in zip(chips, row, strict=True)]
    assert list(record.chips) == chips == delphi_chips(hits)
    players, oracle = delphi_scores(chips)
    assert list(record.player_scores) == players and record.oracle_score == oracle
    assert sum(record.player_scores) == 0
    assert record.oracle_score == sum(abs(a - b) for i, a in enumerate(chips) for b in chips[i:])


# -- the game ------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_invariants_over_seeds(rule):
    for seed in range(8):
        n = 1 + seed % 4
        agents = watchers(n)
        record = play_delphi(rule, agents, seed)
        walk(record, rule, agents)
        assert len(record.events) == 51 and record.faults == ()
        assert replay(record) == []


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63), n=st.integers(1, 5), rule=st.sampled_from(RULES))
def test_invariants_property(seed, n, rule):
    agents = watchers(n)
    record = play_delphi(rule, agents, seed)
    walk(record, rule, agents)
    assert replay_delphi(record) == []


def test_everyone_predicts_before_anyone_hears_the_verdict():
    log = []
    agents = watchers(3, log)
    record = play_delphi(RULES[0], agents, 1)
    per_card = [("predict", s) for s in range(3)] + [("observe", s) for s in range(3)]
    assert log == per_card * len(record.events)


def test_every_player_observes_every_verdict():
    class Listener(Watcher):
        def start_game(self, info, rng):
            super().start_game(info, rng)
            self.heard_ = []

        def observe(self, event):
            self.heard_.append(event)

    agents = [Listener(), Listener()]
    record = play_delphi(RULES[2], agents, 5)
    assert agents[0].heard_ == agents[1].heard_ == list(record.events)
    assert all(isinstance(e, Event) and e.seat == ORACLE for e in record.events)


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_the_oracle_predicts_perfectly(rule):
    for seed in range(3):
        record = play_delphi(rule, [OracleAgent(), RandomAgent()], seed)
        assert record.hits[:, 0].all() and record.chips[0] == 51
        assert set(record.probabilities[k][0] for k in range(51)) <= {0.0, 1.0}
        assert record.player_scores[0] == 51 - record.chips[1]


def test_the_token_threshold_is_inclusive():
    # 0.5 is "right": on "red(card)" an agent at 0.5 is right exactly on red cards.
    record = play_delphi("red(card)", [Watcher(p=0.5), Watcher(p=0.4999)], 2)
    assert (record.tokens[:, 0]).all() and not record.tokens[:, 1].any()
    assert (record.hits[:, 0] == record.verdicts).all()
    assert (record.hits[:, 1] == ~record.verdicts).all()


def test_one_player_scores_nothing_but_is_measured():
    record = play_delphi(RULES[0], [OracleAgent()], 0)
    assert record.player_scores == (0,) and record.oracle_score == 0 and record.chips == (51,)
    assert replay(record) == []


def test_learners_beat_a_constant_guess():
    rule = RULES[0]
    agents = [
        BayesAgent(grammar="colours_suits", max_hypotheses=500),
        DecisionTreeAgent(),
        Watcher(p=0.5),
    ]
    hits = np.zeros(3)
    for seed in range(3):
        hits += play_delphi(rule, agents, seed).hits.sum(axis=0)
    assert hits[0] > hits[2] + 30 and hits[1] > hits[2]


def test_the_record_keeps_probabilities_for_accuracy_curves():
    agents = [Watcher(p=0.3), Watcher()]
    record = play_delphi(RULES[1], agents, 7)
    assert [p for _, _, p in agents[1].asked_] == [row[1] for row in record.probabilities]
    table = record.prediction_table()
    assert len(table) == 51 * 2
    assert list(table.columns) == [
        "card_index",
        "card",
        "seat",
        "agent",
        "probability",
        "token",
        "right",
        "hit",
        "chips",
    ]
    assert table[table.seat == 1]["probability"].tolist() == [
        row[1] for row in record.probabilities
    ]
    history = record.chips_history()
    assert history.shape == (51, 2) and tuple(history[-1]) == record.chips
    assert (table.groupby("seat")["hit"].mean().to_numpy() == record.hits.mean(axis=0)).all()


# -- seeds and randomness ------------------------------------------------------------------


def test_same_seed_same_record():
    for seed in (0, 1, 99):
        one = play_delphi(
            RULES[2], [Watcher(), OracleAgent(), BayesAgent("colours_suits", 500)], seed
        )
        two = play_delphi(
            RULES[2], [Watcher(), OracleAgent(), BayesAgent("colours_suits", 500)], seed
        )
        assert one.to_json() == two.to_json()


def test_different_seeds_differ_and_agents_draw_their_own_streams():
    records = {play_delphi(RULES[0], [Watcher()], seed).to_json() for seed in range(10)}
    assert len(records) == 10
    two = play_delphi(RULES[0], [Watcher(), Watcher()], 3)
    three = play_delphi(RULES[5], [Watcher(), Watcher(), Watcher()], 3)
    assert [row[:2] for row in two.probabilities] == [row[:2] for row in three.probabilities]


def test_only_rule_seeing_agents_get_the_rule():
    agents = [Watcher(), OracleAgent()]
    record = play_delphi(RULES[0], agents, 0)
    assert agents[0].info_.rule is None and agents[1].info_.rule == RULES[0]
    assert agents[0].info_.game == "delphi" and agents[0].info_.hand == ()
    assert agents[0].info_.starter == record.starter and agents[1].info_.n_players == 2


# -- records: JSON, replay, layout ---------------------------------------------------------


def test_json_round_trip(tmp_path):
    record = play_delphi(RULES[2], [Watcher(), OracleAgent(), Watcher(p=0.25)], 4)
    text = record.to_json()
    again = DelphiRecord.from_json(text)
    assert again == record and again.to_json() == text
    assert read_record(text) == record
    data = json.loads(text)
    assert data["game"] == "delphi" and len(data["probabilities"]) == 51
    assert data["events"][0]["seat"] == ORACLE
    assert data["config"] == {
        "on_fault": "substitute",
        "decision_seconds": None,
        "decision_limit": 60.0,
    }
    path = tmp_path / "delphi.json"
    record.save(path)
    assert load_record(path) == record == DelphiRecord.load(path)
    assert replay(load_record(path)) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "not an object"),
        ('{"format": 1, "game": "delphi"}', "the field 'rule' is missing"),
        ('{"format": 7, "game": "delphi"}', "unknown Delphi record format 7"),
        ("{", "invalid JSON"),
    ],
)
def test_bad_json_raises_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        DelphiRecord.from_json(text) if message != "invalid JSON" else read_record(text)


def event_with(record, k, **changes):
    e = record.events[k]
    fields = {"seat": e.seat, "card": e.card, "phase": e.phase, "right": e.right}
    fields |= {"position": e.position} | changes
    events = list(record.events)
    events[k] = Event(**fields)
    return record.replace(events=tuple(events))


def test_replay_catches_tampering():
    record = play_delphi(RULES[0], [Watcher(), OracleAgent()], 3)
    assert replay_delphi(record) == []
    probabilities = list(record.probabilities)
    # The last token flipped: its chips differ (an earlier token may be wiped out later).
    last = probabilities[-1]
    probabilities[-1] = (0.0 if last[0] >= 0.5 else 1.0, last[1])
    swapped = list(record.events)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    tampered = {
        "verdict": event_with(record, 5, right=not record.events[5].right),
        "position": event_with(record, 5, position=0),
        "seat": event_with(record, 5, seat=0),
        "order": record.replace(events=tuple(swapped)),
        "probability": record.replace(probabilities=tuple(probabilities)),
        "not a probability": record.replace(probabilities=((2.0, 1.0), *record.probabilities[1:])),
        "row": record.replace(probabilities=((0.5,), *record.probabilities[1:])),
        "chips": record.replace(chips=(0, 0)),
        "players": record.replace(player_scores=(1, -1)),
        "oracle": record.replace(oracle_score=record.oracle_score + 1),
        "seed": record.replace(seed=record.seed + 1),
        "starter": record.replace(starter=record.events[0].card),
        "main": record.replace(main_line=record.main_line[:-1]),
        "side": record.replace(side_column=record.side_column[1:]),
        "rule": record.replace(rule="red(card"),
        "game": record.replace(game="classic-ish"),
    }
    for what, bad in tampered.items():
        assert replay_delphi(bad), what
    assert replay(record.replace(oracle_score=record.oracle_score + 1)) == [
        f"oracle score: recorded {record.oracle_score + 1}, the chips give {record.oracle_score}"
    ]


def test_layout():
    record = play_delphi(RULES[0], [OracleAgent(), Watcher(p=0.0)], 1)
    text = format_delphi_layout(record)
    assert format_layout(record) == text  # the generic entry point lays Delphi out too
    lines = text.splitlines()
    assert lines[0] == "Delphi, seed 1, rule: color(card) != color(last)"
    assert sum(line.startswith("card ") for line in lines) == 4  # 51 cards in blocks of 13
    assert sum(line.startswith("seat 0 ") for line in lines) == 4
    assert f"oracle score: {record.oracle_score}" in lines
    seat1 = "".join(line[8:] for line in lines if line.startswith("seat 1 "))
    assert seat1.split() == ["F" if not e.right else "f" for e in record.events]


# -- faults --------------------------------------------------------------------------------


class Raising(Watcher):
    def predict(self, obs, cards):
        if len(obs.main_line) % 2:
            raise ValueError(f"no idea after {len(obs.main_line)} cards")
        return super().predict(obs, cards)


class Answer(Watcher):
    """Predicts ``self.p`` as given: not necessarily a probability."""

    def predict(self, obs, cards):
        return self.p


@pytest.mark.parametrize(
    "answer",
    [2.0, -0.1, float("nan"), [0.1, 0.2], "0.7", None, [[0.3]], object(), 0.5],
    ids=repr,
)
def test_a_bad_prediction_is_a_fault_counted_as_one_half(answer):
    record = play_delphi(RULES[0], [Answer(p=answer), OracleAgent()], 2)
    assert replay(record) == []
    assert len(record.faults) == 51
    for k, fault in enumerate(record.faults):
        assert (fault.seat, fault.agent, fault.kind, fault.call) == (
            0,
            "Answer",
            NOT_A_PROBABILITY,
            "predict",
        )
        assert (fault.event, fault.phase) == (k, 1)
        assert "which is not one probability in [0, 1]" in fault.message
    assert all(row[0] == SUBSTITUTE_PROBABILITY for row in record.probabilities)
    assert record.tokens[:, 0].all()  # 0.5 says "right"
    assert "each faulty prediction counted as 0.5" in format_delphi_layout(record)


def test_a_one_element_list_is_a_probability():
    record = play_delphi(RULES[0], [Answer(p=[0.75])], 2)
    assert record.faults == () and all(row == (0.75,) for row in record.probabilities)


def test_an_exception_in_predict_is_recorded():
    agents = [Raising(), Watcher()]
    record = play_delphi(RULES[1], agents, 6)
    walk(record.replace(), RULES[1])
    assert replay(record) == []
    raised = [f for f in record.faults if f.seat == 0]
    assert raised and all(f.kind == "raised" and f.call == "predict" for f in raised)
    assert raised[0].message.startswith("ValueError: no idea after")
    for fault in raised:
        assert record.probabilities[fault.event][0] == 0.5


def test_observe_and_start_game_faults_keep_the_seat():
    class Deaf(Watcher):
        def observe(self, event):
            raise KeyError("cannot hear")

    class NoStart(Watcher):
        def start_game(self, info, rng):
            raise RuntimeError("no start")

    record = play_delphi(RULES[0], [Deaf(), NoStart(), OracleAgent()], 0)
    assert replay(record) == []
    calls = Counter((f.seat, f.call, f.kind) for f in record.faults)
    assert calls[0, "observe", "raised"] == 51
    assert calls[1, "start_game", "raised"] == 1
    # Without its generator NoStart's predict raises every time: 0.5 each.
    assert calls[1, "predict", "raised"] == 51
    assert record.hits[:, 2].all()
    assert [f.event for f in record.faults] == sorted(f.event for f in record.faults)


def test_over_time_keeps_the_prediction():
    budget = DelphiConfig(decision_seconds=1e-9)
    timed = play_delphi(RULES[0], [Watcher(), Watcher(p=0.2)], 3, budget)
    free = play_delphi(RULES[0], [Watcher(), Watcher(p=0.2)], 3)
    assert timed.probabilities == free.probabilities and timed.chips == free.chips
    assert len(timed.faults) == 2 * 51
    assert all(f.kind == "over_time" and f.call == "predict" for f in timed.faults)
    assert (
        timed.faults[0].message.startswith("took ") and "ms to predict" in timed.faults[0].message
    )
    assert replay(timed) == []
    # An over-time fault in a game without a budget does not check out.
    assert replay(timed.replace(config=DelphiConfig().to_dict()))


def test_replay_catches_a_tampered_fault():
    record = play_delphi(RULES[0], [Raising(), Watcher()], 0)
    fault = record.faults[0]
    probabilities = list(record.probabilities)
    probabilities[fault.event] = (0.9, probabilities[fault.event][1])
    assert replay(record.replace(probabilities=tuple(probabilities)))
    renamed = fault.__class__(**{**fault.to_dict(), "agent": "Watcher"})
    assert replay(record.replace(faults=(renamed, *record.faults[1:])))
    wrong_call = fault.__class__(**{**fault.to_dict(), "call": "choose_play"})
    assert replay(record.replace(faults=(wrong_call, *record.faults[1:])))
    assert replay(record.replace(config={"on_fault": "raise", "decision_seconds": None}))


def test_on_fault_raise_stops_at_the_first_fault():
    stop = DelphiConfig(on_fault="raise")
    with pytest.raises(ValueError, match="no idea"):
        play_delphi(RULES[0], [Raising(), Watcher()], 0, stop)
    with pytest.raises(AgentError, match=r"seat 1 \(Answer\(p=2.0, log=None\)\) predicted 2.0"):
        play_delphi(RULES[0], [Watcher(), Answer(p=2.0)], 0, stop)
    with pytest.raises(AgentError, match=r"took \S+ ms to predict"):
        play_delphi(RULES[0], [Watcher()], 0, DelphiConfig("raise", 1e-9))


def test_a_keyboard_interrupt_the_agent_raises_is_a_fault_a_real_one_stops_the_game():
    class Interrupted(Watcher):
        def predict(self, obs, cards):
            raise KeyboardInterrupt

    record = play_delphi(RULES[0], [Interrupted()], 0)
    assert {(f.kind, f.call, f.message) for f in record.faults} == {
        ("raised", "predict", "KeyboardInterrupt: ")
    }
    assert len(record.faults) == 51 and replay(record) == []

    class CtrlC(Watcher):
        def predict(self, obs, cards):
            signal.raise_signal(signal.SIGINT)  # as the terminal sends it
            return [0.5]

    with pytest.raises(KeyboardInterrupt):
        play_delphi(RULES[0], [CtrlC()], 0)


# -- configuration errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        (lambda: [], "Delphi needs at least 1 active player, got 0"),
        (lambda: [Watcher(), "random"], "seat 1: 'random' is not an Agent"),
        (lambda: [Watcher()] * 2, "same agent object"),
    ],
)
def test_bad_agents(agents, message):
    with pytest.raises(ConfigError, match=message):
        play_delphi(RULES[0], agents(), 0)


@pytest.mark.parametrize(
    "kwargs", [{"on_fault": "ignore"}, {"decision_seconds": -1}, {"decision_seconds": "1"}]
)
def test_bad_config_values(kwargs):
    with pytest.raises(ConfigError, match=next(iter(kwargs))):
        DelphiConfig(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", None])
def test_bad_seed(seed):
    with pytest.raises(ConfigError, match="seed"):
        play_delphi(RULES[0], [Watcher()], seed)


# -- the match -----------------------------------------------------------------------------


def test_match_every_participant_is_oracle_once():
    agents = [OracleAgent(), Watcher(), Watcher(p=0.5)]
    result = play_delphi_match(agents, seed=2, rules=RULES[:3])
    assert isinstance(result, DelphiMatch)
    assert result.dealers == (0, 1, 2)
    assert result.seats == ((1, 2), (2, 0), (0, 1))
    totals = [0.0] * 3
    for record, oracle, seats in zip(result.games, result.dealers, result.seats, strict=True):
        assert replay(record) == []
        totals[oracle] += record.oracle_score
        for seat, who in enumerate(seats):
            totals[who] += record.player_scores[seat]
    assert list(result.totals) == totals
    assert result.winners == [0]  # the oracle agent never loses a chip
    again = DelphiMatch.from_json(result.to_json())
    assert again == result
    summary = result.summary()
    assert summary.startswith("Delphi match, seed 2, 3 games")
    assert "* = the oracle of the game" in summary


def test_match_of_two_and_several_rounds():
    result = play_delphi_match([Watcher(), Watcher(p=0.9)], 0, "red(card)", deals_per_player=2)
    assert result.dealers == (0, 1, 0, 1) and result.seats == ((1,), (0,), (1,), (0,))
    # With one player per game the settlement is 0 for everyone.
    assert result.totals == (0.0, 0.0)


def test_match_bad_setups():
    with pytest.raises(ConfigError, match="at least 2 participants"):
        play_delphi_match([Watcher()], 0, "red(card)")
    with pytest.raises(ConfigError, match="deals_per_player"):
        play_delphi_match([Watcher(), Watcher()], 0, "red(card)", deals_per_player=0)
    with pytest.raises(ConfigError, match="at least one rule"):
        play_delphi_match([Watcher(), Watcher()], 0, [])


# -- the agent contract --------------------------------------------------------------------


@pytest.mark.parametrize("agent", [RandomAgent(), OracleAgent()], ids=repr)
def test_check_agent_plays_delphi(agent):
    notes = CheckNotes()
    check_playable_games(agent, notes)
    assert GAMES["delphi"].refusal(agent) is None and "delphi" not in notes.not_checked


def test_check_agent_fails_a_bad_predictor():
    class Overconfident(Agent):
        def choose_play(self, obs):
            return obs.hand[0]

        def predict(self, obs, cards):
            return np.full(len(cards), math.inf)

    with pytest.raises(AssertionError, match=r"in a Delphi game, seed 201.*predicted"):
        check_playable_games(Overconfident())
