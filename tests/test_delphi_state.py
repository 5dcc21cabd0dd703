"""The rules of Delphi as a state (RULES.md section 3): a hand-computed game, the
invariants of every position, and the engine and the replay going through it."""

from collections import Counter

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, Event
from eleusis_lab.cards import parse_card, parse_cards, standard_deck
from eleusis_lab.games.classic import classic_deal
from eleusis_lab.games.delphi import ORACLE, SUBSTITUTE_PROBABILITY, play_delphi, replay_delphi
from eleusis_lab.games.delphi.scoring import delphi_chips
from eleusis_lab.games.delphi.state import PREDICTIONS, DelphiState, delphi_deal
from eleusis_lab.games.state import GameState

DECK = Counter(standard_deck())
RULES = (
    "color(card) != color(last)",
    "if last_play_right then red(card) else black(card)",
    "suit(card) == (suit(last) + 1) mod 4",
)


def test_a_hand_computed_game():
    # "color(card) != color(last)" from KS (black); seat 0 then seat 1 predict each card.
    state = DelphiState(RULES[0], parse_card("KS"), parse_cards("3H 4C 5C 6D"), players=2)
    predictions = [(0.9, 0.5), (0.9, 0.0), (0.2, 0.7), (0.1, 0.0)]
    events = []
    for row in predictions:
        assert state.to_move() == 0
        assert state.apply(row[0]) == ()  # no verdict until every seat has predicted
        assert state.to_move() == 1
        events += state.apply(row[1])
    # 3H red after black: right; 4C black after 3H: right; 5C black after 4C: wrong
    # (judged against the main line's last card, 4C); 6D red after 4C: right.
    assert [(e.card, e.right, e.position) for e in events] == [
        (parse_card("3H"), True, 0),
        (parse_card("4C"), True, 1),
        (parse_card("5C"), False, 2),
        (parse_card("6D"), True, 2),
    ]
    assert all(e.seat == ORACLE and e.phase == 1 for e in events)
    assert state.main_line == tuple(parse_cards("KS 3H 4C 6D"))
    assert state.side_column == (parse_card("5C"),)
    # Tokens: seat 0 R R w w, seat 1 R w R w; verdicts R R w R.
    assert state.hits() == [[True, True], [True, False], [True, False], [False, False]]
    # Chips: seat 0 1, 2, 3, then all lost; seat 1 1, then lost: both end with none.
    assert state.chips() == [0, 0]
    assert state.settlement() == ([0, 0], 0)
    assert state.accuracy() == (0.75, 0.25)
    assert state.is_terminal() and state.to_move() is None and state.card is None
    assert state.legal_actions() == ()


def test_settlement_of_a_hand_computed_ending():
    state = DelphiState("red(card)", parse_card("2C"), parse_cards("3H 4C"), players=3)
    for p in (1.0, 1.0, 0.0, 0.0, 1.0, 0.0):  # card 3H, then card 4C
        state.apply(p)
    # 3H right: seats 0 and 1 hit; 4C wrong: seats 0 and 2 hit. Chips 2, 0, 1.
    assert state.chips() == [2, 0, 1]
    # Player i: 3 * chips_i - 3; the oracle: |2-0| + |2-1| + |0-1|.
    assert state.settlement() == ([3, -3, 0], 4)
    assert state.scores() == (3.0, -3.0, 0.0)


def test_the_deal_is_the_engines_and_the_classic_shuffle():
    for seed in (0, 3, 11):
        state = DelphiState.deal(RULES[0], seed, players=2)
        starter, cards = delphi_deal(seed)
        assert (state.starter, state.cards) == (starter, cards)
        assert starter == classic_deal(seed, 2)[0]
        assert Counter([starter, *cards]) == DECK
        record = play_delphi(RULES[0], [RandomAgent(), RandomAgent()], seed)
        assert (record.starter, tuple(e.card for e in record.events)) == (starter, cards)


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("rule", RULES)
def test_invariants_of_every_position(rule, players):
    rng = np.random.default_rng(players)
    state = DelphiState.deal(rule, players, players=players)
    assert isinstance(state, GameState) and state.game == "delphi"
    for k, card in enumerate(state.cards):
        assert state.card == card and len(state.events) == k
        # Every card in exactly one place: starter, main line, side column, still to come.
        assert Counter([*state.main_line, *state.side_column, *state.cards[k:]]) == DECK
        seen = []
        for seat in range(players):
            assert state.to_move() == seat
            assert state.legal_actions() == PREDICTIONS
            assert state.legal_actions()[0] == SUBSTITUTE_PROBABILITY
            seen.append(state.observation(seat))
            made = state.apply(float(rng.random()))
            assert made == () if seat < players - 1 else len(made) == 1
        # Every seat sees the same table, the one before the card: no one sees another's
        # prediction of it, nor the verdict.
        assert [obs.seat for obs in seen] == list(range(players))
        assert len({(obs.main_line, obs.wrong_cards, obs.last_play_right) for obs in seen}) == 1
        assert seen[0].main_line == state.main_line[: len(seen[0].main_line)]
        assert seen[0].hand == () and seen[0].phase == 1
        event = state.events[-1]
        assert event.position == len(seen[0].main_line) - 1
        assert (state.main_line[-1] if event.right else state.side_column[-1]) == card
        assert state.last_right is event.right
    assert state.is_terminal() and len(state.probabilities) == 51
    assert state.chips() == delphi_chips(state.hits())
    assert sum(state.settlement()[0]) == 0 and sum(state.scores()) == 0


def test_bad_predictions_are_refused_and_change_nothing():
    state = DelphiState.deal(RULES[0], 1, players=2)
    for bad in (1.5, -0.1, float("nan"), "0.5", None, [0.5]):
        with pytest.raises(ValueError):
            state.apply(bad)
        assert state.to_move() == 0 and state.probabilities == []
    state.apply(1)  # an int is a probability too
    assert state.to_move() == 1
    for _ in range(101):
        state.apply(np.float64(0.25))
    assert state.is_terminal()
    assert state.probabilities[0] == (1.0, 0.25)
    with pytest.raises(ValueError, match="the game is over"):
        state.apply(0.5)


def test_no_player_is_refused():
    with pytest.raises(ValueError, match="at least one player"):
        DelphiState.deal(RULES[0], 0, players=0)


class Logger(Agent):
    """Predicts from its generator; keeps every observation and card it is shown."""

    def choose_play(self, obs):
        raise AssertionError("Delphi never asks for a card")

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.shown_ = []

    def predict(self, obs, cards):
        self.shown_.append((obs, tuple(cards)))
        return [float(self.rng_.random())]


@pytest.mark.parametrize("seed", [0, 5])
def test_the_engine_plays_the_states_positions(seed):
    agents = [Logger(), OracleAgent(), Logger()]
    record = play_delphi(RULES[1], agents, seed)
    state = DelphiState.deal(RULES[1], seed, players=3)
    for row in record.probabilities:
        for seat, p in enumerate(row):
            if seat != 1:  # what the engine showed the agent is the state's observation
                obs, cards = agents[seat].shown_[len(state.events)]
                assert obs == state.observation(seat) and cards == (state.card,)
            state.apply(p)
    assert tuple(state.events) == record.events
    assert (state.main_line, state.side_column) == (record.main_line, record.side_column)
    assert tuple(state.chips()) == record.chips
    players, oracle = state.settlement()
    assert (tuple(players), oracle) == (record.player_scores, record.oracle_score)


@pytest.mark.parametrize("rule", RULES)
def test_replaying_the_record_through_the_state_gives_the_record(rule):
    record = play_delphi(rule, [RandomAgent(), OracleAgent(), Logger()], 9)
    state = DelphiState(rule, record.starter, [e.card for e in record.events], 3)
    for row in record.probabilities:
        events = [event for p in row for event in state.apply(p)]
        assert len(events) == 1
    assert tuple(state.probabilities) == record.probabilities
    assert tuple(state.events) == record.events
    assert replay_delphi(record) == []


def test_replay_reports_through_the_state():
    record = play_delphi(RULES[0], [Logger(), OracleAgent()], 3)
    event = record.events[4]
    flipped = Event(event.seat, event.card, event.phase, not event.right, event.position)
    events = (*record.events[:4], flipped, *record.events[5:])
    assert replay_delphi(record.replace(events=events)) == [
        f"event 4 ({event.card}): recorded {'wrong' if event.right else 'right'}, but the"
        f" rule says {'right' if event.right else 'wrong'}"
    ]
    moved = Event(event.seat, event.card, event.phase, event.right, event.position + 1)
    events = (*record.events[:4], moved, *record.events[5:])
    assert replay_delphi(record.replace(events=events)) == [
        f"event 4 ({event.card}): position {event.position + 1}, but the main line ended"
        f" at {event.position}"
    ]
