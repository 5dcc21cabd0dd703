"""New Eleusis: scoring by hand, scripted situations, invariants over seeded rounds, records.

The seeded rounds are checked by an independent step-by-step walk (not
`replay_new_eleusis`): after every turn each card is in exactly one place, the turn
order, verdicts, draws, overthrows, expulsions and the Prophet's marker follow the rules,
and the agents saw the true state; at the end the stock, the hands, the set-aside hands
and both lines make up the decks, and the scores follow from the hands.
"""

import json
from collections import Counter
from dataclasses import replace
from itertools import chain

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent, Event, LearningAgent
from eleusis_lab.cards import parse_card, parse_cards, standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.new_eleusis import (
    ALL_EXPELLED,
    DEALER,
    GAME,
    ILLEGAL_DECISION,
    PLAY,
    PLAYER_OUT,
    SET_ASIDE,
    STRING,
    TURN_CAP,
    NewEleusisConfig,
    NewEleusisMatch,
    NewEleusisObservation,
    NewEleusisRecord,
    first_player,
    format_new_eleusis_layout,
    new_eleusis_deal,
    play_new_eleusis,
    play_new_eleusis_match,
    replay_new_eleusis,
)
from eleusis_lab.games.new_eleusis.scoring import (
    new_eleusis_dealer_score,
    new_eleusis_match_totals,
    new_eleusis_player_scores,
)
from eleusis_lab.record import RecordError
from eleusis_lab.rules import Context, parse

RULES = [
    parse(text)
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "red(card)",
        "rank(card) != rank(last) and suit(card) != suit(prev)",
        "if even(last) then red(card) else black(card)",
        "rank(card) > rank(last) or rank(last) == 13",
        "run(color) < 3",
    )
]


# -- scoring, computed by hand ------------------------------------------------------------


def test_scores_without_a_prophet():
    # High count 12. Seat 0 went out: 12 - 0 + 4.
    scores = new_eleusis_player_scores([0, 5, 12, 9])
    assert scores == [16, 7, 0, 3]
    assert new_eleusis_dealer_score(scores) == 16


def test_scores_with_a_prophet_in_place():
    # High count 15 (seat 3). The Prophet (seat 2, hand 10) gets 6 x 1 + 5 x 2 = 16 more.
    scores = new_eleusis_player_scores([3, 7, 10, 15], 2, main_after_marker=6, side_after_marker=5)
    assert scores == [12, 8, 5 + 16, 0]
    # The dealer: the highest score 21, but at most 2 x 8 cards played before the marker.
    assert new_eleusis_dealer_score(scores, played_before_marker=8) == 16
    assert new_eleusis_dealer_score(scores, played_before_marker=11) == 21
    assert new_eleusis_dealer_score(scores, played_before_marker=0) == 0


def test_the_prophets_hand_sets_the_high_count():
    # The Prophet's hand, set aside, is the largest: the others score against it.
    scores = new_eleusis_player_scores([2, 20, 6], 1, main_after_marker=3, side_after_marker=0)
    assert scores == [18, 0 + 3, 14]


def test_scores_after_an_overthrow():
    # An overthrown Prophet is a player like the others, his 5 penalty cards in hand:
    # no bonus, and the dealer is not capped.
    assert new_eleusis_player_scores([9 + 5, 4, 0]) == [0, 10, 18]
    assert new_eleusis_dealer_score([0, 10, 18]) == 18


def test_scores_after_sudden_death():
    # Two players expelled with 17 and 11 cards: their hands still count.
    scores = new_eleusis_player_scores([17, 11, 3, 0])
    assert scores == [0, 6, 14, 21]
    assert new_eleusis_dealer_score(scores) == 21


def test_everyone_equal_scores_zero():
    assert new_eleusis_player_scores([7, 7, 7]) == [0, 0, 0]
    assert new_eleusis_dealer_score([0, 0, 0]) == 0


def test_match_totals_and_the_ten_points_of_those_who_never_dealt():
    seats = [(1, 2, 3), (2, 3, 0), (3, 0, 1), (0, 1, 2)]
    full = new_eleusis_match_totals(4, [0, 1, 2, 3], seats, [5, 6, 7, 8], [(1, 2, 3)] * 4)
    # p0: dealt 5, seat 2 of game 1 (3), seat 1 of game 2 (2), seat 0 of game 3 (1).
    assert full == [5 + 3 + 2 + 1, 1 + 6 + 3 + 2, 2 + 1 + 7 + 3, 3 + 2 + 1 + 8]
    stopped = new_eleusis_match_totals(4, [0], seats[:1], [5], [(1, 2, 3)])
    assert stopped == [5, 1 + 10, 2 + 10, 3 + 10]
    assert new_eleusis_match_totals(4, [], [], [], []) == [10, 10, 10, 10]


def test_scoring_rejects_bad_input():
    with pytest.raises(ValueError, match="negative"):
        new_eleusis_player_scores([3, -1, 2])
    with pytest.raises(ValueError, match="no seat 5"):
        new_eleusis_player_scores([3, 1, 2], prophet=5)
    with pytest.raises(ValueError, match="at least 1"):
        new_eleusis_dealer_score([])


# -- scripted agents ----------------------------------------------------------------------


def right_string(rule, line, cards) -> bool:
    line = tuple(line)
    for card in cards:
        if not rule.accepts(card, Context(line)):
            return False
        line += (card,)
    return True


def pick(action: str, obs: NewEleusisObservation, rule):
    """The cards of ``obs.hand`` that ``action`` names (see `Script`)."""
    hand, line = obs.hand, obs.main_line
    if action == "noplay":
        return None
    if action == "first":
        return (hand[0],)
    if action.startswith("right"):
        size = int(action[5:] or 1)
        found = _string(rule, line, list(hand), size)
        assert found is not None, f"the script needs {size} right cards in {hand}"
        return found
    if action.startswith("wrong"):
        size = int(action[5:] or 1)
        wrong = next(c for c in hand if not rule.accepts(c, Context(tuple(line))))
        others = [c for c in hand if c != wrong][: size - 1]
        cards = (*others, wrong) if size > 1 else (wrong,)
        if right_string(rule, line, cards):  # the wrong card became right after the others
            cards = (wrong, *others)
        assert not right_string(rule, line, cards)
        return cards
    raise ValueError(action)


def _string(rule, line, hand, size):
    if size == 0:
        return ()
    for i, card in enumerate(hand):
        if rule.accepts(card, Context(tuple(line))):
            rest = _string(rule, (*line, card), hand[:i] + hand[i + 1 :], size - 1)
            if rest is not None:
                return (card, *rest)
    return None


class Script(Agent):
    """Plays a script: one action per own turn, then its first card.

    Actions: ``"rightN"`` (a string of N right cards, N = 1 if omitted), ``"wrongN"``
    (a wrong string of N cards), ``"noplay"``, ``"first"``. It declares itself Prophet
    after the own turns listed in ``declare`` (0-based), and as Prophet makes its calls
    by ``calls``: ``"truth"`` or ``"lie"`` for each call in turn (then the truth).
    """

    sees_rule = True  # the script picks right and wrong cards with the rule
    capabilities = ("plays_strings",)  # it makes every decision of the round itself

    def __init__(self, turns=(), declare=(), calls=()):
        self.turns = turns
        self.declare = declare
        self.calls = calls

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.rule_ = info.rule
        self.done_ = 0
        self.called_ = 0
        self.asked_: list[NewEleusisObservation] = []
        self.seen_: list[Event] = []

    def choose_play(self, obs):
        return obs.hand[0]

    def choose_turn(self, obs):
        action = self.turns[self.done_] if self.done_ < len(self.turns) else "first"
        self.done_ += 1
        return pick(action, obs, self.rule_)

    def declare_prophet(self, obs):
        self.asked_.append(obs)
        return self.done_ - 1 in self.declare

    def _call(self, truth: bool) -> bool:
        how = self.calls[self.called_] if self.called_ < len(self.calls) else "truth"
        self.called_ += 1
        return truth if how == "truth" else not truth

    def call_play(self, obs, cards):
        return self._call(right_string(self.rule_, obs.main_line, cards))

    def call_no_play(self, obs, hand):
        context = Context(obs.main_line)
        return self._call(not any(self.rule_.accepts(card, context) for card in hand))

    def observe(self, event):
        self.seen_.append(event)


def scripted(rule, scripts, seed=0, **options):
    """A round of Script agents; returns the record and the agents."""
    agents = [Script(**script) for script in scripts]
    record = play_new_eleusis(rule, agents, seed, NewEleusisConfig(**options))
    assert replay_new_eleusis(record) == []
    return record, agents


def seats_from(record):
    """The seats in turn order from the first player."""
    n = record.n_players
    return [(record.first_seat + i) % n for i in range(n)]


# -- scripted situations ------------------------------------------------------------------


def test_a_right_string_extends_the_main_line():
    record, agents = scripted("true", [{"turns": ["right3"]}] * 3, max_turns=1)
    (turn,) = record.turns
    assert len(turn.cards) == 3 and turn.right and turn.drawn == ()
    assert record.main_line == (record.starter, *turn.cards)
    assert record.cards_left[turn.seat] == 14 - 3
    events = agents[0].seen_
    assert [(e.card, e.right, e.position, e.kind) for e in events] == [
        (card, True, i, PLAY) for i, card in enumerate(turn.cards)
    ]


def test_a_wrong_string_goes_to_the_side_line_and_costs_two_cards_each():
    # red(card): the string's first cards may be right; the dealer does not say which.
    record, agents = scripted("red(card)", [{"turns": ["wrong3"]}] * 3, max_turns=1)
    (turn,) = record.turns
    assert len(turn.cards) == 3 and not turn.right
    assert record.main_line == (record.starter,)
    assert record.side_line == (turn.cards,)
    assert len(turn.drawn) == 6 and record.cards_left[turn.seat] == 14 - 3 + 6
    assert set(turn.drawn) <= set(record.hands[turn.seat])
    assert [(e.right, e.position, e.kind) for e in agents[1].seen_] == [(False, 0, STRING)] * 3


def test_a_single_wrong_card_is_a_labelled_wrong_play():
    record, agents = scripted("red(card)", [{"turns": ["wrong"]}] * 3, max_turns=1)
    (turn,) = record.turns
    assert len(turn.cards) == 1 and not turn.cards[0].is_red
    assert len(turn.drawn) == 2
    assert [(e.right, e.kind) for e in agents[2].seen_] == [(False, PLAY)]


def test_a_true_no_play_sets_the_hand_aside_and_deals_four_fewer():
    record, agents = scripted("false", [{"turns": ["noplay"]}] * 3, max_turns=1)
    (turn,) = record.turns
    seat = turn.seat
    assert turn.right and turn.no_play and turn.set_aside == record.deal[seat]
    assert record.set_aside[seat] == record.deal[seat]
    assert len(turn.drawn) == 10 and record.hands[seat] == turn.drawn
    events = agents[0].seen_
    assert [e.card for e in events] == list(record.deal[seat])
    assert all((e.right, e.kind, e.position) == (False, SET_ASIDE, 0) for e in events)


def test_a_true_no_play_with_four_cards_or_fewer_ends_the_round():
    record, _ = scripted("false", [{"turns": ["noplay"]}] * 3, hand_size=4)
    (turn,) = record.turns
    assert turn.right and turn.drawn == () and record.end == PLAYER_OUT
    sizes = [0 if seat == turn.seat else 4 for seat in range(3)]
    assert record.cards_left == tuple(sizes)
    assert record.player_scores == tuple(4 - size + 4 * (size == 0) for size in sizes)
    assert record.dealer_score == 8


def test_a_false_no_play_makes_the_dealer_play_a_right_card_and_costs_five():
    record, agents = scripted("true", [{"turns": ["noplay"]}] * 3, max_turns=1)
    (turn,) = record.turns
    seat = turn.seat
    hand = record.deal[seat]
    assert not turn.right and turn.dealer_card == hand[0]  # the first right card
    assert record.main_line == (record.starter, hand[0])
    assert len(turn.drawn) == 5 and record.cards_left[seat] == 14 - 1 + 5
    assert [(e.card, e.right, e.kind) for e in agents[1].seen_] == [(hand[0], True, DEALER)]


def test_the_dealer_plays_the_first_right_card_of_the_hand():
    rule = parse("red(card)")
    record, _ = scripted(rule, [{"turns": ["noplay"]}] * 3, seed=1, max_turns=1)
    (turn,) = record.turns
    hand = record.deal[turn.seat]
    assert turn.dealer_card == next(card for card in hand if card.is_red)


def test_a_prophet_calls_and_is_right():
    # The first player plays a right card and declares; the others then play, wrong and
    # right, and the Prophet calls every play truthfully.
    rule = parse("red(card)")
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["wrong", "right"]} for _ in range(3)]
    scripts[first] = {"turns": ["right"], "declare": [0]}
    record, agents = scripted(rule, scripts, max_turns=5)
    prophet = first
    assert record.turns[0].declared_prophet and record.prophet == prophet
    (term,) = record.prophets
    assert (term.seat, term.turn, term.marker, term.overthrown) == (prophet, 0, 1, None)
    later = record.turns[1:]
    assert all(turn.seat != prophet for turn in later)  # the Prophet takes no turns
    assert [turn.right for turn in later] == [False, False, True, True]
    assert all(turn.prophet_call == turn.right and not turn.overthrown for turn in later)
    assert [len(turn.drawn) for turn in later] == [2, 2, 0, 0]
    played = record.turns[0].cards
    assert record.hands[prophet] == tuple(c for c in record.deal[prophet] if c not in played)
    # The Prophet's bonus: 2 main-line and 2 side-line cards after his marker.
    sizes = record.cards_left
    high = max(sizes)
    assert record.player_scores[prophet] == high - sizes[prophet] + 2 * 1 + 2 * 2
    # The dealer: capped at 2 x 1 card played before the marker.
    assert record.dealer_score == min(max(record.player_scores), 2)


def test_an_overthrown_prophet_draws_five_and_the_player_takes_no_penalty():
    rule = parse("red(card)")
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    second, third = (first + 1) % 3, (first + 2) % 3
    scripts = [None] * 3
    scripts[first] = {"turns": ["right", "wrong"], "declare": [0, 1], "calls": ["lie"]}
    scripts[second] = {"turns": ["wrong", "right"], "declare": [1]}
    scripts[third] = {"turns": ["right", "right"]}
    record, agents = scripted(rule, scripts, max_turns=5)
    declared, wrong_play, right_play, back, last = record.turns
    assert declared.declared_prophet
    # The Prophet called the wrong play right: overthrown, the card still goes to the side line.
    assert wrong_play.seat == second and not wrong_play.right
    assert wrong_play.prophet_call is True and wrong_play.overthrown
    assert wrong_play.drawn == () and not wrong_play.expelled
    assert len(wrong_play.prophet_drawn) == 5
    assert set(wrong_play.prophet_drawn) <= set(record.hands[first])
    assert record.side_line[1] == wrong_play.cards
    # No Prophet any more: the third plays uncalled, and the overthrown one plays again.
    assert right_play.prophet_call is None and right_play.seat == third
    assert back.seat == first and not back.declared_prophet  # he may not be Prophet again
    assert len(agents[first].asked_) == 1
    # The second player declares after his next play: a new Prophet.
    assert last.seat == second and last.declared_prophet
    assert [(t.seat, t.overthrown) for t in record.prophets] == [(first, 1), (second, None)]
    assert record.prophet == second
    layout = format_new_eleusis_layout(record)
    assert "overthrown: seat" in layout and f"{record.main_line[1]}p" in layout
    assert f"{last.cards[0]}P" in layout  # the second Prophet's marker


def test_a_call_that_wrongly_says_wrong_overthrows_too():
    rule = parse("red(card)")
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["right"]} for _ in range(3)]
    scripts[first] = {"turns": ["right"], "declare": [0], "calls": ["lie"]}
    record, _ = scripted(rule, scripts, max_turns=2)
    play = record.turns[1]
    assert play.right and play.prophet_call is False and play.overthrown
    assert record.main_line[-1] == play.cards[0] and play.drawn == ()
    assert record.prophet is None and record.dealer_score == max(record.player_scores)


def test_the_prophet_calls_a_no_play():
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["noplay"]} for _ in range(3)]
    scripts[first] = {"turns": ["first"], "declare": [0], "calls": ["truth", "lie"]}
    record, _ = scripted("true", scripts, max_turns=3)
    called, lied = record.turns[1:]
    assert not called.right and called.prophet_call is False and len(called.drawn) == 5
    # The Prophet says the false "no play" is true: overthrown, the dealer still plays a
    # right card from the hand, and the player draws no penalty.
    assert lied.prophet_call is True and lied.overthrown and lied.dealer_card is not None
    assert lied.drawn == () and len(lied.prophet_drawn) == 5


def test_only_an_eligible_player_is_asked_to_declare():
    # Everybody wants to be Prophet after every turn; only the first one may.
    record, agents = scripted("true", [{"turns": ["right"] * 3, "declare": [0, 1, 2]}] * 3)
    first = record.first_seat
    assert [t.seat for t in record.prophets] == [first]
    assert len(agents[first].asked_) == 1
    assert all(not agent.asked_ for seat, agent in enumerate(agents) if seat != first)


def test_a_prophet_needs_two_other_players_still_in():
    # Sudden death from the start: the first player's wrong play expels him, so each of
    # the two others has only one other player left and may not declare.
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["right", "right"], "declare": [0, 1]} for _ in range(3)]
    scripts[first] = {"turns": ["wrong"], "declare": [0]}
    record, agents = scripted("red(card)", scripts, sudden_death_after=0, max_turns=3)
    assert [(t.phase, t.right, t.expelled) for t in record.turns] == [
        (2, False, True),
        (2, True, False),
        (2, True, False),
    ]
    assert [len(agent.asked_) for agent in agents] == [0, 0, 0]
    assert record.prophets == () and record.expelled == (first,)
    # With all three still in, the first may declare.
    scripts[first] = {"turns": ["right"], "declare": [0]}
    record, agents = scripted("red(card)", scripts, sudden_death_after=0, max_turns=1)
    assert len(agents[first].asked_) == 1 and record.prophet == first


def test_sudden_death_expels_and_the_hand_still_counts():
    # After 2 cards played, a wrong play expels its player, who still draws his penalty.
    scripts = [{"turns": ["right", "wrong"]} for _ in range(3)]
    record, agents = scripted("red(card)", scripts, sudden_death_after=2, max_turns=20)
    turns = record.turns
    assert [t.phase for t in turns] == [1, 1, 2, 2, 2, 2]
    assert [t.expelled for t in turns] == [False, False, False, True, True, True]
    assert all(len(t.drawn) == 2 for t in turns[3:])  # the penalty is drawn all the same
    assert record.expelled == tuple(seats_from(record)) and record.end == ALL_EXPELLED
    # His hand counts for the high count.
    sizes = record.cards_left
    assert record.player_scores == tuple(max(sizes) - s + 4 * (s == 0) for s in sizes)


def test_every_player_expelled_ends_the_round():
    record, _ = scripted("false", [{"turns": ["first"]}] * 4, sudden_death_after=0)
    assert record.end == ALL_EXPELLED and len(record.turns) == 4
    assert record.expelled == tuple(seats_from(record))
    assert record.cards_left == (15, 15, 15, 15) and record.player_scores == (0, 0, 0, 0)


def test_sudden_death_after_the_marker_leaves_the_prophet_alone():
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["wrong"] * 3} for _ in range(3)]
    scripts[first] = {"turns": ["right"], "declare": [0]}
    config = {"sudden_death_after_marker": 0, "sudden_death_after": 100}
    record, _ = scripted("red(card)", scripts, **config)
    assert record.end == ALL_EXPELLED and record.prophet == first
    assert len(record.turns) == 3 and all(t.expelled for t in record.turns[1:])
    # The Prophet's bonus: two side-line cards after his marker.
    sizes = record.cards_left
    assert record.player_scores[first] == max(sizes) - sizes[first] + 2 * 2
    assert record.dealer_score == min(max(record.player_scores), 2 * 1)
    assert f"{record.main_line[1]}P" in format_new_eleusis_layout(record)


def test_an_overthrow_lifts_the_sudden_death_of_the_marker():
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["wrong"] * 2} for _ in range(3)]
    scripts[first] = {"turns": ["right", "wrong"], "declare": [0], "calls": ["lie"]}
    config = {"sudden_death_after_marker": 0, "sudden_death_after": 100, "max_turns": 4}
    record, _ = scripted("red(card)", scripts, **config)
    declared, lied, after, back = record.turns
    assert lied.phase == 2 and lied.overthrown and not lied.expelled
    assert after.phase == 1 and not after.expelled and back.phase == 1


def test_a_player_who_plays_his_last_cards_right_ends_the_round():
    record, _ = scripted("true", [{"turns": ["right4"]}] * 3, hand_size=4)
    (turn,) = record.turns
    assert record.end == PLAYER_OUT and record.cards_left[turn.seat] == 0
    assert record.player_scores[turn.seat] == 4 + 4 and record.dealer_score == 8


def test_the_turn_cap_is_recorded():
    record = play_new_eleusis(
        "true", [RandomAgent() for _ in range(3)], 0, NewEleusisConfig(max_turns=5)
    )
    assert record.end == TURN_CAP and record.turn_cap_hit and len(record.turns) == 5
    assert replay_new_eleusis(record) == []
    zero = play_new_eleusis(
        "true", [RandomAgent() for _ in range(3)], 0, NewEleusisConfig(max_turns=0)
    )
    assert zero.turns == () and zero.end == TURN_CAP and zero.player_scores == (0, 0, 0)


def test_the_starter_counts_the_first_player():
    for seed in range(30):
        n = 3 + seed % 5
        record = play_new_eleusis(
            "true", [RandomAgent() for _ in range(n)], seed, NewEleusisConfig(max_turns=1)
        )
        value = record.starter.rank
        assert record.first_seat == (value - 1) % n == record.turns[0].seat
    assert first_player(parse_card("AH"), 3) == 0 and first_player(parse_card("4H"), 3) == 0
    # Counting the dealer's place (4 places for 3 players): 4 lands on the dealer.
    assert [first_player(parse_card(f"{v}C"), 3, True) for v in "A234"] == [0, 1, 2, 0]


def test_the_stock_gets_more_decks_when_it_runs_low():
    # 7 players: 98 cards dealt and a starter leave 5 in the stock; penalties need more.
    agents = [RandomAgent() for _ in range(7)]
    record = play_new_eleusis("red(card)", agents, 3)
    assert record.decks >= 3 and len(record.stock) > 4
    assert any(card.copy == 2 for card in chain(*record.hands, record.stock))


# -- the agent interface's defaults -------------------------------------------------------


class Confident(RandomAgent):
    def propose_rule(self):
        return ("red(card)", 0.95)


class Unsure(RandomAgent):
    def propose_rule(self):
        return ("red(card)", 0.5)


def test_default_declare_prophet_follows_the_confidence_of_propose_rule():
    obs = NewEleusisObservation(GAME, 0, 1, (), (), (), None)
    assert Confident().declare_prophet(obs) and not Unsure().declare_prophet(obs)
    assert not RandomAgent().declare_prophet(obs)
    record = play_new_eleusis(
        "red(card)", [Confident(), Unsure(), Unsure()], 0, NewEleusisConfig(max_turns=6)
    )
    assert [term.seat for term in record.prophets][:1] == [0]


class RedBeliever(RandomAgent):
    def predict(self, obs, cards):
        return np.array([0.9 if card.is_red else 0.1 for card in cards])


def test_default_calls_use_predict_in_order():
    line = tuple(parse_cards("2C"))
    obs = NewEleusisObservation(GAME, 0, 1, (), line, (), None)
    agent = RedBeliever()
    assert agent.call_play(obs, tuple(parse_cards("3H 4D")))
    assert not agent.call_play(obs, tuple(parse_cards("3H 4S")))
    assert agent.call_no_play(obs, tuple(parse_cards("3S 4C")))
    assert not agent.call_no_play(obs, tuple(parse_cards("3S 4D")))


def test_default_call_play_sees_the_line_grow():
    class Alternating(RandomAgent):
        def predict(self, obs, cards):
            last = obs.main_line[-1]
            return np.array([float(card.is_red != last.is_red) for card in cards])

    obs = NewEleusisObservation(GAME, 0, 1, (), tuple(parse_cards("2C")), (), None)
    assert Alternating().call_play(obs, tuple(parse_cards("3H 4S 5D")))
    assert not Alternating().call_play(obs, tuple(parse_cards("3H 4D")))


def test_default_choose_turn_plays_choose_play():
    hand = tuple(parse_cards("3H 7S"))
    agent = RandomAgent()
    agent.start_game(None, np.random.default_rng(0))
    turn = agent.choose_turn(NewEleusisObservation(GAME, 0, 1, hand, (), (), None))
    assert len(turn) == 1 and turn[0] in hand


def test_learning_agents_skip_the_cards_of_a_wrong_string():
    class Counting(LearningAgent):
        def learn(self, context, card, right):
            self.learned_.append((card, right))

        def predict_faces(self, context):
            return np.full(52, 0.5)

    from eleusis_lab.agent import GameInfo

    agent = Counting()
    agent.start_game(GameInfo(GAME, 0, 3, (), parse_card("2C")), np.random.default_rng(0))
    agent.learned_ = []
    cards = parse_cards("3H 4S")
    for card in cards:
        agent.observe(Event(1, card, 1, False, 0, STRING))
    agent.observe(Event(1, cards[0], 1, False, 0, SET_ASIDE))
    agent.observe(Event(1, cards[1], 1, True, 0, DEALER))
    assert agent.learned_ == [(cards[0], False), (cards[1], True)]
    assert agent.line_ == [parse_card("2C"), cards[1]]


# -- the oracle ---------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_the_oracle_is_never_wrong_and_never_overthrown(rule):
    for seed in range(3):
        agents = [OracleAgent(), RandomAgent(), OracleAgent(choice="first"), RandomAgent()]
        record = play_new_eleusis(rule, agents, seed)
        assert replay_new_eleusis(record) == []
        oracles = {0, 2}
        for k, turn in enumerate(record.turns):
            if turn.seat in oracles:
                assert turn.right  # right strings, and "no play" only when true
                assert turn.drawn == () or turn.no_play
            if _prophet_at(record, k) in oracles:
                assert turn.prophet_call == turn.right and not turn.overthrown
        assert all(term.overthrown is None for term in record.prophets if term.seat in oracles)
        assert any(len(t.cards) > 1 for t in record.turns if t.seat in oracles)


def _prophet_at(record, k):
    """The seat of the Prophet in place at turn ``k``."""
    for term in record.prophets:
        if term.turn < k and (term.overthrown is None or term.overthrown >= k):
            return term.seat
    return None


def test_the_oracle_plays_the_longest_string():
    agent = OracleAgent(choice="first")
    from eleusis_lab.agent import GameInfo

    rule = parse("color(card) != color(last)")
    hand = tuple(parse_cards("2H 3H 4C 5S 6D"))
    agent.start_game(GameInfo(GAME, 0, 3, hand, parse_card("KS"), rule), np.random.default_rng(0))
    obs = NewEleusisObservation(GAME, 0, 1, hand, (parse_card("KS"),), (), None)
    assert agent.choose_turn(obs) == tuple(parse_cards("2H 4C 3H 5S"))
    black = tuple(parse_cards("4C 5S"))
    assert agent.choose_turn(replace(obs, hand=black)) is None  # a true "no play"


# -- invariants over seeded rounds --------------------------------------------------------


class Recording:
    """Mixin: keeps what the agent saw at each turn and every event it was told."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.turns_ = []
        self.seen_ = []

    def choose_turn(self, obs):
        cards = super().choose_turn(obs)
        self.turns_.append((obs, cards))
        return cards

    def observe(self, event):
        super().observe(event)
        self.seen_.append(event)


class Chaos(Agent):
    """Strings of 1 to 4 random cards, random "no play", Prophet declarations and calls."""

    capabilities = ("plays_strings",)  # it makes every decision of the round itself

    def choose_play(self, obs):
        return obs.hand[int(self.rng_.integers(len(obs.hand)))]

    def choose_turn(self, obs):
        if self.rng_.random() < 0.15:
            return None
        size = int(self.rng_.integers(1, min(4, len(obs.hand)) + 1))
        chosen = self.rng_.choice(len(obs.hand), size=size, replace=False)
        return tuple(obs.hand[int(i)] for i in chosen)

    def declare_prophet(self, obs):
        return bool(self.rng_.random() < 0.3)

    def call_play(self, obs, cards):
        return bool(self.rng_.random() < 0.5)

    def call_no_play(self, obs, hand):
        return bool(self.rng_.random() < 0.5)


class RecordingRandom(Recording, RandomAgent):
    pass


class RecordingOracle(Recording, OracleAgent):
    pass


class RecordingChaos(Recording, Chaos):
    pass


def lineup(seed: int, n: int) -> list[Agent]:
    rng = np.random.default_rng(seed + 10_000)
    kinds = [RecordingRandom, RecordingOracle, RecordingChaos]
    return [kinds[int(rng.integers(3))]() for _ in range(n)]


def walk(record, rule, agents=None):  # noqa: C901 - one pass over the round
    """Check every invariant of ``record`` turn by turn, independently of the engine."""
    n, config = record.n_players, record.config
    assert [len(hand) for hand in record.deal] == [config["hand_size"]] * n
    hands = [list(hand) for hand in record.deal]
    main, side = [record.starter], [[]]
    set_aside = [[] for _ in range(n)]
    out_of_stock = set(chain(main, *hands))  # every card that left the stock so far
    assert len(out_of_stock) == 1 + n * config["hand_size"]
    played = main_played = side_played = 0
    prophet, marker, been, expelled = None, None, set(), []
    seat = (record.starter.rank - 1) % n
    assert record.first_seat == seat
    seen_turns = [iter(agent.turns_) for agent in agents] if agents else None
    prophets = []

    def places():
        return [*main, *chain(*side), *chain(*hands), *chain(*set_aside)]

    for k, turn in enumerate(record.turns):
        assert turn.seat == seat, f"turn {k}"
        if marker is None:
            phase = 2 if played >= config["sudden_death_after"] else 1
        else:
            phase = 2 if played - marker[0] >= config["sudden_death_after_marker"] else 1
        assert turn.phase == phase
        assert turn.position == len(main) - 1
        assert (turn.prophet_call is None) == (prophet is None)
        hand = hands[seat]
        if seen_turns is not None:
            obs, cards = next(seen_turns[seat])
            assert obs.hand == tuple(hand) and obs.main_line == tuple(main)
            assert obs.side_line == tuple(map(tuple, side))
            assert obs.wrong_cards == tuple(map(tuple, set_aside))
            assert obs.hand_sizes == tuple(map(len, hands))
            assert (obs.prophet, obs.cards_played, obs.phase) == (prophet, played, phase)
            assert obs.expelled == tuple(expelled)
            assert tuple(cards or ()) == turn.cards
        if turn.cards:
            assert 1 <= len(turn.cards) <= 4 and len(set(turn.cards)) == len(turn.cards)
            assert all(card in hand for card in turn.cards)
            assert turn.right == right_string(rule, main, turn.cards)
            for card in turn.cards:
                hand.remove(card)
            if turn.right:
                main += turn.cards
                side += [[] for _ in turn.cards]
                main_played += len(turn.cards)
            else:
                side[-1] += turn.cards
                side_played += len(turn.cards)
            played += len(turn.cards)
        else:
            right_cards = [c for c in hand if rule.accepts(c, Context(tuple(main)))]
            assert turn.right == (not right_cards)
            if turn.right:
                assert turn.set_aside == tuple(hand) and turn.dealer_card is None
                set_aside[seat] += hand
                hand.clear()
            else:
                assert turn.dealer_card == right_cards[0] and turn.set_aside == ()
                hand.remove(turn.dealer_card)
                main.append(turn.dealer_card)
                side.append([])
                played += 1
                main_played += 1
        overthrown = prophet is not None and turn.prophet_call != turn.right
        assert turn.overthrown == overthrown
        penalized = not turn.right and not overthrown
        if penalized:
            wanted = 2 * len(turn.cards) if turn.cards else 5
        elif turn.no_play and turn.right:
            wanted = max(0, len(turn.set_aside) - 4)
        else:
            wanted = 0
        assert len(turn.drawn) == wanted
        assert turn.expelled == (penalized and phase == 2)
        fresh = [*turn.drawn, *turn.prophet_drawn]
        assert not set(fresh) & out_of_stock and len(set(fresh)) == len(fresh)
        out_of_stock |= set(fresh)
        hand += turn.drawn
        if turn.expelled:
            expelled.append(seat)
        if overthrown:
            assert len(turn.prophet_drawn) == 5
            hands[prophet] += turn.prophet_drawn
            prophets[-1] = (*prophets[-1][:3], k)
            prophet, marker = None, None
        else:
            assert turn.prophet_drawn == ()
        ended = (not hand and not turn.expelled) or all(
            s in expelled or s == prophet for s in range(n)
        )
        if turn.declared_prophet:
            others_in = sum(1 for s in range(n) if s != seat and s not in expelled)
            assert prophet is None and seat not in been and seat not in expelled
            assert others_in >= 2 and not ended
            prophet, marker = seat, (played, main_played, side_played)
            been.add(seat)
            prophets.append((seat, k, played, None))
        current = places()
        assert len(current) == len(set(current)), f"a card is in two places after turn {k}"
        assert set(current) <= out_of_stock
        if ended:
            assert k == len(record.turns) - 1, "the round goes on after its end"
            break
        for step in range(1, n + 1):
            if (seat + step) % n not in expelled and (seat + step) % n != prophet:
                seat = (seat + step) % n
                break
    if seen_turns is not None:
        assert all(next(it, None) is None for it in seen_turns)  # no decision unplayed
        for agent in agents:
            assert tuple(agent.seen_) == record.events

    # The end, the final state and the scores.
    assert record.main_line == tuple(main) and record.side_line == tuple(map(tuple, side))
    assert record.hands == tuple(map(tuple, hands))
    assert record.set_aside == tuple(map(tuple, set_aside))
    assert record.expelled == tuple(expelled)
    assert [(t.seat, t.turn, t.marker, t.overthrown) for t in record.prophets] == prophets
    decks = Counter(chain.from_iterable(standard_deck(copy) for copy in range(record.decks)))
    assert Counter([*record.stock, *places()]) == decks
    assert len(record.stock) > config["low_stock"]
    if record.end == PLAYER_OUT:
        assert any(not hands[s] for s in range(n) if s not in expelled)
    elif record.end == ALL_EXPELLED:
        assert all(s in expelled or s == prophet for s in range(n))
    else:
        assert record.end == TURN_CAP and len(record.turns) == config["max_turns"]
    assert record.turn_cap_hit == (record.end == TURN_CAP)
    sizes = [len(hand) for hand in hands]
    scores = [max(sizes) - size + 4 * (size == 0) for size in sizes]
    dealer = max(scores)
    if prophet is not None:
        scores[prophet] += (main_played - marker[1]) + 2 * (side_played - marker[2])
        dealer = min(max(scores), 2 * marker[0])
    assert record.player_scores == tuple(scores) and record.dealer_score == dealer


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_invariants_over_seeds(rule):
    for seed in range(6):
        n = 3 + seed % 5
        agents = lineup(seed, n)
        config = NewEleusisConfig(max_turns=150)
        record = play_new_eleusis(rule, agents, seed, config)
        walk(record, rule, agents)
        assert replay_new_eleusis(record) == []


def test_every_ending_and_event_kind_occurs():
    ends, kinds, overthrows = Counter(), Counter(), 0
    for seed in range(30):
        rule = RULES[seed % len(RULES)]
        agents = lineup(seed, 3 + seed % 5)
        record = play_new_eleusis(rule, agents, seed, NewEleusisConfig(max_turns=15 + 2 * seed))
        ends[record.end] += 1
        kinds.update(event.kind for event in record.events)
        overthrows += sum(turn.overthrown for turn in record.turns)
    assert set(ends) == {PLAYER_OUT, ALL_EXPELLED, TURN_CAP}
    assert set(kinds) == {PLAY, STRING, SET_ASIDE, DEALER}
    assert overthrows > 0


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(3, 7),
    rule=st.sampled_from(RULES),
    hand_size=st.integers(1, 14),
    sudden=st.integers(0, 50),
    after_marker=st.integers(0, 40),
    low_stock=st.integers(0, 10),
)
def test_invariants_property(seed, n, rule, hand_size, sudden, after_marker, low_stock):
    config = NewEleusisConfig(
        hand_size=hand_size,
        sudden_death_after=sudden,
        sudden_death_after_marker=after_marker,
        low_stock=low_stock,
        max_turns=80,
    )
    agents = lineup(seed, n)
    record = play_new_eleusis(rule, agents, seed, config)
    walk(record, rule, agents)
    assert replay_new_eleusis(record) == []


# -- determinism --------------------------------------------------------------------------


def test_same_seed_same_record():
    one = play_new_eleusis(RULES[0], lineup(5, 5), 5)
    two = play_new_eleusis(RULES[0], lineup(5, 5), 5)
    assert one.to_dict() == two.to_dict()


def test_different_seeds_differ():
    one = play_new_eleusis(RULES[0], lineup(5, 5), 5)
    two = play_new_eleusis(RULES[0], lineup(5, 5), 6)
    assert one.deal != two.deal


def test_reusing_agents_gives_the_same_rounds():
    agents = lineup(7, 4)
    first = play_new_eleusis(RULES[1], agents, 7).to_dict()
    play_new_eleusis(RULES[2], agents, 8)
    assert play_new_eleusis(RULES[1], agents, 7).to_dict() == first


def test_the_deal_helper_matches_the_round():
    record = play_new_eleusis(
        "true", [RandomAgent() for _ in range(4)], 9, NewEleusisConfig(max_turns=0)
    )
    starter, hands, stock = new_eleusis_deal(9, 4)
    assert starter == record.starter and tuple(map(tuple, hands)) == record.deal
    assert stock == record.stock and len(stock) == 104 - 4 * 14 - 1


# -- records: JSON, replay, layout --------------------------------------------------------


def some_records():
    for seed in range(8):
        yield play_new_eleusis(RULES[seed % len(RULES)], lineup(seed, 3 + seed % 5), seed)


def test_json_round_trip(tmp_path):
    for record in some_records():
        again = NewEleusisRecord.from_json(record.to_json())
        assert again == record
        assert json.loads(again.to_json()) == json.loads(record.to_json())
    path = tmp_path / "round.json"
    record.save(path)
    assert NewEleusisRecord.load(path) == record


def test_bad_json_raises_record_error(tmp_path):
    record = next(some_records())
    data = record.to_dict()
    with pytest.raises(RecordError, match="invalid JSON"):
        NewEleusisRecord.from_json("{")
    with pytest.raises(RecordError, match="not an object"):
        NewEleusisRecord.from_json("[]")
    with pytest.raises(RecordError, match="'turns' is missing"):
        NewEleusisRecord.from_dict({k: v for k, v in data.items() if k != "turns"})
    with pytest.raises(RecordError, match="format"):
        NewEleusisRecord.from_dict({**data, "format": 99})
    with pytest.raises(RecordError, match="not a card"):
        NewEleusisRecord.from_dict({**data, "starter": "ZZ"})
    path = tmp_path / "bad.json"
    path.write_text("nope")
    with pytest.raises(RecordError, match="bad.json"):
        NewEleusisRecord.load(path)


def tampered(record, k, **changes):
    turns = list(record.turns)
    turns[k] = replace(turns[k], **changes)
    return record.replace(turns=tuple(turns))


def test_replay_catches_tampered_records():
    record = play_new_eleusis(RULES[2], lineup(3, 4), 3)
    assert replay_new_eleusis(record) == []
    turn = record.turns[1]
    other = next(card for card in standard_deck(copy=1) if card not in record.hands[turn.seat])
    checks = [
        (record.replace(dealer_score=record.dealer_score + 1), "dealer_score"),
        (record.replace(player_scores=(99, *record.player_scores[1:])), "player_scores"),
        (tampered(record, 1, right=not turn.right), "recorded right="),
        (tampered(record, 1, cards=(other,)), "does not hold"),
        (tampered(record, 1, drawn=turn.drawn[::-1] or (other,)), "drawn"),
        (tampered(record, 1, seat=(turn.seat + 1) % 4), "should play"),
        (tampered(record, 1, declared_prophet=True), "Prophet"),
        (record.replace(turns=record.turns[:-1]), ""),
        (record.replace(main_line=record.main_line[:-1]), "main_line"),
        (record.replace(stock=record.stock[1:]), "stock"),
        (record.replace(end=TURN_CAP), "end"),
        (record.replace(seed=record.seed + 1), "seed"),
        (record.replace(rule="red(card) and"), "does not parse"),
        (
            record.replace(rule="if last_play_right then red(card) else black(card)"),
            "last_play_right",
        ),
        (record.replace(first_seat=(record.first_seat + 1) % 4), "first seat"),
    ]
    for bad, words in checks:
        problems = replay_new_eleusis(bad)
        assert problems, words
        assert any(words in problem for problem in problems), (words, problems)


def test_replay_catches_a_wrong_prophet_call():
    first = first_player(new_eleusis_deal(0, 3)[0], 3)
    scripts = [{"turns": ["wrong"]} for _ in range(3)]
    scripts[first] = {"turns": ["right"], "declare": [0]}
    record, _ = scripted("red(card)", scripts, max_turns=3)
    bad = tampered(record, 1, prophet_call=True)
    assert any("overthrown" in p for p in replay_new_eleusis(bad))
    missing = tampered(record, 1, prophet_call=None)
    assert any("prophet_call is None" in p for p in replay_new_eleusis(missing))


def test_the_layout_shows_both_lines_marks_and_scores():
    record = play_new_eleusis(
        "true", [Script(turns=["noplay"]) for _ in range(3)], 0, NewEleusisConfig(max_turns=2)
    )
    layout = format_new_eleusis_layout(record)
    main_row = next(line for line in layout.splitlines() if line.startswith("main"))
    assert "^" in main_row  # the dealer's cards after a false "no play"
    assert "dealer score:" in layout and "turn cap" in layout
    for record in some_records():
        layout = format_new_eleusis_layout(record, columns=6, max_rows=3)
        assert f"seed {record.seed}" in layout
        for seat, score in enumerate(record.player_scores):
            assert any(
                line.split()[:1] == [str(seat)] and line.endswith(str(score))
                for line in layout.splitlines()
            )


# -- faults -------------------------------------------------------------------------------


class Raiser(RandomAgent):
    """Raises at every other turn."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.asked_ = 0

    def choose_turn(self, obs):
        self.asked_ += 1
        if self.asked_ % 2:
            raise ValueError(f"turn {self.asked_}")
        return super().choose_turn(obs)


class Illegal(RandomAgent):
    """Returns something illegal, in turn: too many cards, a repeat, a stranger, a card."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.asked_ = 0

    def choose_turn(self, obs):
        self.asked_ += 1
        stranger = next(card for card in standard_deck(copy=3) if card not in obs.hand)
        return [
            tuple(obs.hand[:1]) * 5,
            (obs.hand[0], obs.hand[0]),
            (stranger,),
            obs.hand[0],
            [],
        ][self.asked_ % 5]


class BadProphet(RandomAgent):
    """Declares at once, then calls with a string or raises."""

    def declare_prophet(self, obs):
        return True

    def call_play(self, obs, cards):
        return "right"

    def call_no_play(self, obs, hand):
        raise RuntimeError("cannot tell")


class BadDeclarer(RandomAgent):
    def declare_prophet(self, obs):
        raise RuntimeError("no")


class Deaf(RandomAgent):
    def observe(self, event):
        raise KeyError("deaf")


class NoStart(RandomAgent):
    def start_game(self, info, rng):
        super().start_game(info, rng)
        raise RuntimeError("no start")


def test_a_raising_agent_is_replaced_by_its_first_card():
    record = play_new_eleusis(RULES[0], [Raiser(), RandomAgent(), RandomAgent()], 0)
    assert replay_new_eleusis(record) == []
    faults = record.faults
    assert faults and all(f.kind == "raised" and f.call == "choose_turn" for f in faults)
    for fault in faults:
        turn = record.turns[fault.event]
        assert turn.seat == fault.seat == 0 and len(turn.cards) == 1
        assert fault.message.startswith("ValueError: turn ")


def test_illegal_turns_are_recorded_and_replaced():
    record = play_new_eleusis(RULES[0], [Illegal(), RandomAgent(), RandomAgent()], 1)
    assert replay_new_eleusis(record) == []
    kinds = {f.kind for f in record.faults}
    assert kinds == {"illegal_card"}
    messages = " | ".join(f.message for f in record.faults)
    for words in (
        "returned 5 cards",
        "same card twice",
        "does not hold",
        "returned Card(",
        "returned 0 cards",
    ):
        assert words in messages
    walk(record, RULES[0])


def test_bad_prophet_calls_become_right():
    agents = [BadProphet(), RandomAgent(), Chaos(), RandomAgent()]
    for seed in range(6):
        record = play_new_eleusis(RULES[2], agents, seed, NewEleusisConfig(max_turns=40))
        assert replay_new_eleusis(record) == []
        calls = [f for f in record.faults if f.call.startswith("call_")]
        for fault in calls:
            assert fault.kind in (ILLEGAL_DECISION, "raised")
            assert record.turns[fault.event].prophet_call is True
        walk(record, RULES[2])
    assert calls


def test_a_raising_declaration_is_no():
    record = play_new_eleusis(
        RULES[0], [BadDeclarer(), RandomAgent(), RandomAgent()], 0, NewEleusisConfig(max_turns=10)
    )
    assert replay_new_eleusis(record) == [] and record.prophets == ()
    assert {(f.call, f.kind, f.seat) for f in record.faults} == {("declare_prophet", "raised", 0)}


def test_observe_and_start_game_faults_are_recorded():
    record = play_new_eleusis(
        RULES[0], [Deaf(), NoStart(), RandomAgent()], 0, NewEleusisConfig(max_turns=10)
    )
    assert replay_new_eleusis(record) == []
    calls = Counter((f.seat, f.call) for f in record.faults)
    assert calls[(1, "start_game")] == 1 and calls[(0, "observe")] == len(record.events)


def test_over_time_keeps_the_decision():
    config = NewEleusisConfig(max_turns=8, decision_seconds=1e-9)
    slow = play_new_eleusis(RULES[0], lineup(2, 3), 2, config)
    fast = play_new_eleusis(RULES[0], lineup(2, 3), 2, NewEleusisConfig(max_turns=8))
    assert slow.turns == fast.turns
    assert slow.faults and all(f.kind == "over_time" for f in slow.faults)
    assert replay_new_eleusis(slow) == []


def test_on_fault_raise_stops_the_round():
    config = NewEleusisConfig(on_fault="raise")
    with pytest.raises(ValueError, match="turn 1"):
        play_new_eleusis(RULES[0], [Raiser(), RandomAgent(), RandomAgent()], 0, config)
    with pytest.raises(AgentError, match="seat 0"):
        play_new_eleusis(RULES[0], [Illegal(), RandomAgent(), RandomAgent()], 0, config)


def test_faulty_rounds_keep_the_invariants():
    kinds = [Raiser, Illegal, BadProphet, BadDeclarer, Deaf, NoStart, Chaos, RandomAgent]
    for seed in range(12):
        rng = np.random.default_rng(seed)
        agents = [kinds[int(i)]() for i in rng.integers(len(kinds), size=3 + seed % 4)]
        record = play_new_eleusis(
            RULES[seed % len(RULES)], agents, seed, NewEleusisConfig(max_turns=50)
        )
        walk(record, RULES[seed % len(RULES)])
        assert replay_new_eleusis(record) == []
        assert NewEleusisRecord.from_json(record.to_json()) == record


def test_replay_catches_a_wrong_substitute():
    record = play_new_eleusis(RULES[0], [Raiser(), RandomAgent(), RandomAgent()], 0)
    k = record.faults[0].event
    hand_card = record.turns[k].cards[0]
    bad = tampered(record, k, cards=(hand_card,))
    assert replay_new_eleusis(bad) == []  # unchanged: the substitute is the first card
    fault = replace(record.faults[0], agent="Someone")
    assert any(
        "names agent" in p
        for p in replay_new_eleusis(record.replace(faults=(fault, *record.faults[1:])))
    )


# -- set-up errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "n", "message"),
    [
        ("if last_play_right then red(card) else black(card)", 3, "last_play_right"),
        ("red(card)", 2, "3 to 7 players"),
        ("red(card)", 8, "3 to 7 players"),
    ],
)
def test_bad_setups_raise_config_error(rule, n, message):
    with pytest.raises(ConfigError, match=message):
        play_new_eleusis(rule, [RandomAgent() for _ in range(n)], 0)


def test_shared_agents_and_bad_seeds_are_refused():
    agent = RandomAgent()
    with pytest.raises(ConfigError, match="two seats"):
        play_new_eleusis("red(card)", [agent, agent, RandomAgent()], 0)
    with pytest.raises(ConfigError, match="seed"):
        play_new_eleusis("red(card)", [RandomAgent() for _ in range(3)], -1)
    with pytest.raises(ConfigError, match="hand_size"):
        play_new_eleusis(
            "red(card)", [RandomAgent() for _ in range(7)], 0, NewEleusisConfig(hand_size=15)
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"hand_size": 0},
        {"sudden_death_after": -1},
        {"low_stock": 1.5},
        {"max_turns": -1},
        {"count_dealer": 1},
        {"on_fault": "ignore"},
        {"decision_seconds": 0},
    ],
)
def test_bad_config_values(kwargs):
    with pytest.raises(ConfigError, match=next(iter(kwargs))):
        NewEleusisConfig(**kwargs)


# -- a match ------------------------------------------------------------------------------


def test_a_match_deals_once_each_and_totals():
    agents = [RandomAgent(), OracleAgent(), RandomAgent(), Chaos()]
    match = play_new_eleusis_match(agents, 0, RULES[:3])
    assert match.dealers == (0, 1, 2, 3) and len(match.games) == 4
    assert match.seats[1] == (2, 3, 0)
    totals = [0] * 4
    for dealer, seats, game in zip(match.dealers, match.seats, match.games, strict=True):
        assert replay_new_eleusis(game) == []
        totals[dealer] += game.dealer_score
        for seat, who in enumerate(seats):
            totals[who] += game.player_scores[seat]
    assert list(match.totals) == totals
    assert NewEleusisMatch.from_json(match.to_json()) == match
    assert match.winners == [i for i, t in enumerate(totals) if t == max(totals)]


def test_a_match_stopped_early_gives_ten_to_those_who_never_dealt():
    agents = [RandomAgent() for _ in range(5)]
    match = play_new_eleusis_match(agents, 1, "red(card)", rounds=2)
    full = play_new_eleusis_match(agents, 1, "red(card)")
    assert match.games == full.games[:2]
    totals = [0] * 5
    for dealer, seats, game in zip(match.dealers, match.seats, match.games, strict=True):
        totals[dealer] += game.dealer_score
        for seat, who in enumerate(seats):
            totals[who] += game.player_scores[seat]
    assert list(match.totals) == [t + 10 * (i >= 2) for i, t in enumerate(totals)]


def test_match_errors():
    with pytest.raises(ConfigError, match="4 to 8 participants"):
        play_new_eleusis_match([RandomAgent() for _ in range(3)], 0, "red(card)")
    with pytest.raises(ConfigError, match="rounds"):
        play_new_eleusis_match([RandomAgent() for _ in range(4)], 0, "red(card)", rounds=5)
    with pytest.raises(ConfigError, match="last_play_right"):
        play_new_eleusis_match([RandomAgent() for _ in range(4)], 0, "last_play_right")


def test_check_agent_plays_new_eleusis():
    from eleusis_lab.games.table import GAMES
    from eleusis_lab.testing import CheckNotes, check_playable_games

    assert GAMES["new-eleusis"].sample and GAMES["new-eleusis"].replay
    for agent in (RandomAgent(), OracleAgent()):
        notes = CheckNotes()
        check_playable_games(agent, notes)
        assert GAMES["new-eleusis"].refusal(agent) is None
        assert "new-eleusis" not in notes.not_checked


def test_a_low_stock_no_deck_can_lift_is_refused_in_play_and_in_replay():
    """low_stock=10**30 would add decks under the stock forever."""
    from eleusis_lab.games.new_eleusis import LOW_STOCK_LIMIT
    from eleusis_lab.record import read_record

    with pytest.raises(ConfigError, match="low_stock must be at most 51"):
        NewEleusisConfig(low_stock=10**30)
    assert NewEleusisConfig(low_stock=LOW_STOCK_LIMIT).low_stock == 51
    record = play_new_eleusis(
        "red(card)", [RandomAgent() for _ in range(3)], 0, NewEleusisConfig(max_turns=20)
    )
    data = json.loads(record.to_json())
    data["config"]["low_stock"] = 10**30
    with pytest.raises(RecordError, match="config: low_stock must be at most 51"):
        read_record(json.dumps(data))  # a record's options are checked as it is read
    problems = replay_new_eleusis(record.replace(config={**record.config, "low_stock": 10**30}))
    assert len(problems) == 1 and "low_stock must be at most 51" in problems[0]
