"""New Eleusis as a state (`NewEleusisState`): a round computed by hand from RULES.md
section 5, every card in exactly one place after every action, the legal actions, and a
replay driven by the state that gives back the engine's records."""

from collections import Counter
from itertools import chain

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import parse_card, parse_cards, standard_deck, two_decks
from eleusis_lab.games.new_eleusis import (
    ALL_EXPELLED,
    DEALER,
    PLAYER_OUT,
    SET_ASIDE,
    STRING,
    NewEleusisConfig,
    NewEleusisDecisions,
    new_eleusis_deal,
    play_new_eleusis,
)
from eleusis_lab.games.new_eleusis.state import CALL, DECLARE, NO_PLAY, TURN, NewEleusisState


def held(state, seat, text):
    """The cards of ``seat``'s hand named by ``text``, in that order (first copies held)."""
    hand, chosen = list(state.hands[seat]), []
    for card in parse_cards(text):
        match = next(c for c in hand if c.face == card.face)
        hand.remove(match)
        chosen.append(match)
    return tuple(chosen)


def faces(seq):
    return [str(card) for card in seq]


def every_card(state):
    return Counter(
        chain(
            chain.from_iterable(state.hands),
            state.main,
            chain.from_iterable(state.side),
            chain.from_iterable(state.set_aside),
            state.stock,
        )
    )


def all_decks(decks):
    return Counter(chain(two_decks(), *(standard_deck(copy=k) for k in range(2, decks))))


# -- a round by hand ------------------------------------------------------------------------


def test_a_short_round_computed_by_hand():
    # Seed 3, hands of 4: the starter AS (value 1) gives seat 0 the first turn; the
    # hands and the stock's top are read from the deal, independently of the state.
    starter, hands, stock = new_eleusis_deal(3, n_players=3, hand_size=4)
    assert str(starter) == "AS"
    assert [faces(hand) for hand in hands] == [
        ["JD", "5C", "JS", "10S"],
        ["7S", "2H", "7C", "AH"],
        ["2C", "JD", "JH", "9H"],
    ]
    assert faces(stock[:9]) == ["5D", "QD", "8H", "QS", "10D", "8S", "3C", "2C", "10H"]
    state = NewEleusisState.deal("red(card)", 3, NewEleusisConfig(hand_size=4), players=3)
    assert (state.to_move(), state.decision) == (0, TURN)

    # Turn 0: seat 0 plays JD, red: right. He may become Prophet and does not.
    events = state.apply(held(state, 0, "JD"))
    assert [(e.right, e.position) for e in events] == [(True, 0)]
    assert faces(state.main) == ["AS", "JD"] and state.decision == DECLARE
    state.apply(False)

    # Turn 1: seat 1 plays the string 2H 7S: 7S is black, so the string is wrong; both
    # cards go under JD and he draws 2 per card. He declares himself Prophet.
    events = state.apply(held(state, 1, "2H 7S"))
    assert [(e.right, e.kind, e.position) for e in events] == [(False, STRING, 1)] * 2
    assert faces(state.side[1]) == ["2H", "7S"]
    assert faces(state.hands[1]) == ["7C", "AH", "5D", "QD", "8H", "QS"]
    state.apply(True)
    assert state.prophet == 1 and state.prophets[0].turn == 1
    assert state.marker == (3, 1, 2)  # 3 cards played: 1 on the main line, 2 on the side

    # Turn 2: seat 2 (seat 1 is Prophet) declares "no play" though he holds red cards;
    # the Prophet calls it false, rightly. The dealer plays his first red card, JD, and
    # he draws 5.
    assert state.to_move() == 2
    assert state.apply(NO_PLAY) == () and (state.decision, state.to_move()) == (CALL, 1)
    events = state.apply(False)
    assert [(str(e.card), e.right, e.kind) for e in events] == [("JD", True, DEALER)]
    assert faces(state.main) == ["AS", "JD", "JD"]
    assert faces(state.hands[2]) == ["2C", "JH", "9H", "10D", "8S", "3C", "2C", "10H"]
    assert not state.turns[-1].overthrown and state.decision == TURN  # a Prophet is in place

    # Turn 3: seat 0 holds only black cards and declares "no play": true, called true.
    # His 3 cards are set aside and his new hand, 4 smaller, is empty: the round ends.
    state.apply(NO_PLAY)
    events = state.apply(True)
    assert [(e.kind, e.right) for e in events] == [(SET_ASIDE, False)] * 3
    assert faces(state.set_aside[0]) == ["5C", "JS", "10S"] and state.hands[0] == []
    assert state.end == PLAYER_OUT and state.is_terminal() and state.legal_actions() == ()

    # Scores: high count 8 (seat 2). Seat 0: 8 - 0 + 4; seat 1, the Prophet in place:
    # 8 - 6 + 1 for the main-line card played after his marker (the dealer's JD); seat 2:
    # 0. The dealer: the best, 12, capped at 2 x the 3 cards played before the marker.
    assert state.final_scores() == ((12, 3, 0), 6)
    assert [turn.position for turn in state.turns] == [0, 1, 1, 2]
    assert every_card(state) == all_decks(state.decks)


def test_sudden_death_expels_every_player():
    # From the first card on, a wrong play expels its player, who still draws his
    # penalty. Seat 0, then 1, then 2 play a black card: all expelled, none may declare.
    config = NewEleusisConfig(hand_size=4, sudden_death_after=0)
    state = NewEleusisState.deal("red(card)", 3, config, players=3)
    for seat, card in ((0, "5C"), (1, "7S"), (2, "2C")):
        assert state.to_move() == seat and state.phase() == 2
        state.apply(held(state, seat, card))
        assert state.turns[-1].expelled and len(state.hands[seat]) == 5
    assert state.expelled == [0, 1, 2] and state.end == ALL_EXPELLED
    assert state.final_scores() == ((0, 0, 0), 0)


def test_the_turn_cap_ends_the_round():
    state = NewEleusisState.deal("red(card)", 3, NewEleusisConfig(max_turns=2), players=3)
    state.apply(state.legal_actions()[0])
    if state.decision == DECLARE:
        state.apply(False)
    assert not state.is_terminal()
    state.apply(state.legal_actions()[0])
    if state.decision == DECLARE:
        state.apply(False)
    assert state.end == "turn_cap" and state.record_fields()["turn_cap_hit"]


# -- the legal actions ----------------------------------------------------------------------


def test_legal_actions_and_turns():
    state = NewEleusisState.deal("red(card)", 3, NewEleusisConfig(hand_size=4), players=3)
    hand = tuple(state.hands[0])
    assert state.legal_actions() == (*((card,) for card in hand), NO_PLAY)
    turns = list(state.legal_turns())
    # 4 + 4*3 + 4*3*2 + 4*3*2*1 strings, and "no play"
    assert len(turns) == 4 + 12 + 24 + 24 + 1 == len(set(turns))
    assert all(state.is_legal(turn) for turn in turns)
    stranger = parse_card("KH")
    for bad in ((hand[0], hand[0]), (stranger,), hand + hand[:1], [hand[0]], True):
        assert not state.is_legal(bad)
        with pytest.raises(ValueError):
            state.apply(bad)
    state.apply(hand[:1])
    assert state.legal_actions() == (False, True) and list(state.legal_turns()) == []
    with pytest.raises(ValueError):
        state.apply(NO_PLAY)


def random_turn(state, rng):
    hand = state.hands[state.seat]
    length = int(rng.integers(0, min(4, len(hand)) + 1))
    return tuple(hand[i] for i in rng.permutation(len(hand))[:length])


@pytest.mark.parametrize("seed", range(6))
def test_every_card_is_in_exactly_one_place(seed):
    rng = np.random.default_rng(seed)
    config = NewEleusisConfig(hand_size=10, sudden_death_after=25, low_stock=8)
    rule = ("red(card)", "color(card) != color(last)", "rank(card) > rank(last)")[seed % 3]
    state = NewEleusisState.deal(rule, seed, config, players=3 + seed % 3)
    while not state.is_terminal():
        seat = state.to_move()
        assert seat == (state.prophet if state.decision == CALL else state.seat)
        turn = state.decision == TURN
        action = random_turn(state, rng) if turn else bool(rng.integers(2))
        assert state.is_legal(action)
        before = len(state.turns)
        events = state.apply(action)
        assert bool(events) == (len(state.turns) > before)  # told once a turn is judged
        assert every_card(state) == all_decks(state.decks)
        assert len(state.side) == len(state.main)
        assert state.played == sum(map(len, state.side)) + len(state.main) - 1
    assert state.end in (PLAYER_OUT, ALL_EXPELLED, "turn_cap")


# -- play and replay on the state -----------------------------------------------------------


class Chaotic(NewEleusisDecisions, Agent):
    """Strings of 1 to 4 cards, "no play", calls and declarations, all at random."""

    def choose_play(self, obs):
        return obs.hand[0]

    def choose_turn(self, obs):
        if self.rng_.random() < 0.15:
            return None
        length = int(self.rng_.integers(1, min(4, len(obs.hand)) + 1))
        return [obs.hand[i] for i in self.rng_.permutation(len(obs.hand))[:length]]

    def declare_prophet(self, obs):
        return bool(self.rng_.random() < 0.3)

    def call_play(self, obs, cards):
        return bool(self.rng_.random() < 0.6)

    def call_no_play(self, obs, hand):
        return bool(self.rng_.random() < 0.6)


def replayed(record):
    """The record's decisions applied to a new state."""
    config = NewEleusisConfig(**record.config)
    state = NewEleusisState.deal(record.rule, record.seed, config, players=len(record.deal))
    for turn in record.turns:
        assert state.to_move() == turn.seat and state.decision == TURN
        state.apply(turn.cards)
        if turn.prophet_call is not None:
            assert state.decision == CALL
            state.apply(turn.prophet_call)
        if state.decision == DECLARE:
            state.apply(turn.declared_prophet)
    return state


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lineup", ["chaotic", "mixed"])
def test_a_state_driven_replay_gives_the_record(seed, lineup):
    n = 3 + seed % 4
    if lineup == "chaotic":
        agents = [Chaotic() for _ in range(n)]
    else:
        agents = [OracleAgent(), *(RandomAgent() for _ in range(n - 1))]
    rule = ("color(card) != color(last)", "red(card)", "rank(card) >= rank(last)")[seed % 3]
    record = play_new_eleusis(rule, agents, seed, NewEleusisConfig(max_turns=300))
    state = replayed(record)
    assert state.is_terminal()
    fields = state.record_fields()
    for name, value in fields.items():
        assert getattr(record, name) == value, name
    assert state.scores() == record.player_scores


def test_the_engine_deals_as_the_state():
    record = play_new_eleusis("red(card)", [RandomAgent() for _ in range(4)], seed=11)
    state = NewEleusisState.deal("red(card)", 11, NewEleusisConfig(), players=4)
    assert (state.starter, state.dealt, state.first) == (
        record.starter,
        record.deal,
        record.first_seat,
    )
    assert state.observation(0).hand == record.deal[0]
