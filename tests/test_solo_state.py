"""The solo game's rules as a state (`SoloState`): the deal, the invariants of every
position, a short game computed by hand, the statement before or after the verdict, and
play and replay through the state."""

from collections import Counter

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import parse_card, parse_cards, two_decks
from eleusis_lab.games.solo import (
    FOUND,
    NO_STARTER,
    OUT_OF_CARDS,
    TURN_CAP,
    SoloConfig,
    SoloDecisions,
    play_solo,
    replay_solo,
    solo_deal,
)
from eleusis_lab.games.solo.state import CARD, MOVE, STATEMENT, SoloState, Statement, Turn
from eleusis_lab.rules import Context, parse

DECK = tuple(two_decks())
RULES = (
    "red(card)",
    "color(card) != color(last)",
    "if last_play_right then red(card) else black(card)",
)


def places(state: SoloState) -> list:
    """Every card of the game, from where it lies now."""
    return [
        *state.hand,
        *state.stock,
        *state.main_line,
        *state.side_line,
        *state.refused,
    ]


class Declarer(SoloDecisions, Agent):
    """Plays its last card and states a rule every turn: ``"black(card)"`` until it heard
    two plays (declared once: an agent never declares a text twice), then the rule it
    is given, declared."""

    def __init__(self, rule: str):
        self.rule = rule

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.turn_ = 0

    def choose_play(self, obs):
        return obs.hand[-1]

    def observe(self, event):
        self.turn_ += 1

    def propose_rule(self):
        return ("black(card)", 0.7) if self.turn_ < 2 else (self.rule, 0.8)


# -- the deal -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_the_deal_is_solo_deal_and_keeps_its_promises(seed):
    rule = RULES[seed % len(RULES)]
    state = SoloState.deal(rule, seed, SoloConfig(hand_size=5 + seed))
    assert (state.dealt, state.refused, state.starter, state.stock) == solo_deal(
        seed, rule, 5 + seed
    )
    secret = parse(rule)
    assert len(state.hand) == 5 + seed and state.main_line == [state.starter]
    assert secret.accepts(state.starter, Context())
    assert not any(secret.accepts(card, Context()) for card in state.refused)
    assert Counter(places(state)) == Counter(DECK)


def test_the_deal_is_the_record_of_play_solo():
    record = play_solo("red(card)", RandomAgent(), seed=4)
    state = SoloState.deal("red(card)", 4, SoloConfig())
    assert (state.dealt, state.refused, state.starter) == (
        record.deal,
        record.refused,
        record.starter,
    )


# -- invariants ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("timing", ["before_verdict", "after_verdict"])
def test_every_card_is_in_one_place_and_the_legal_actions_are_the_hand(seed, timing):
    rng = np.random.default_rng(seed)
    config = SoloConfig(hand_size=4, max_turns=200, timing=timing)  # to empty the stock
    state = SoloState.deal(RULES[seed % len(RULES)], seed, config)
    while not state.is_terminal():
        assert state.to_move() == 0
        assert state.legal_actions() == tuple(state.hand)
        assert state.observation(0).hand == tuple(state.hand)
        card = state.legal_actions()[rng.integers(len(state.hand))]
        statement = None
        if rng.random() < 0.3:
            statement = Statement("red(card)", 0.5, declare=bool(rng.random() < 0.3))
        stock_before, stated = state.stock, len(state.tentative)
        if state.awaited == MOVE:
            (event,) = state.apply(Turn(card, statement))
        else:
            assert state.awaited == CARD
            (event,) = state.apply(card)
            assert (state.to_move(), state.awaited, state.legal_actions()) == (
                0,
                STATEMENT,
                (None,),
            )
            assert state.apply(statement) == ()
        assert event.card == card and card not in state.hand
        assert state.hand[-1:] == list(stock_before[:1]) or not stock_before
        assert (state.main_line if event.right else state.side_line)[-1] == card
        assert Counter(places(state)) == Counter(DECK) and len(set(places(state))) == 104
        assert len(state.tentative) == stated + (statement is not None)
    assert state.legal_actions() == () and state.to_move() is None and state.awaited is None
    assert state.end in (FOUND, OUT_OF_CARDS) and state.end == state.record({}).end


def test_a_short_game_computed_by_hand():
    # red(card); hand 2H 3C 4D; starter 5H; stock 6S 7H; at most 5 turns.
    hand, stock = parse_cards("2H 3C 4D"), parse_cards("6S 7H")
    config = SoloConfig(hand_size=3, max_turns=5)
    state = SoloState("red(card)", config, hand, (), parse_card("5H"), stock, seed=0)

    # black: wrong, 6S drawn; the statement is judged after the card
    (play,) = state.apply(Turn(parse_card("3C"), Statement("black(card)", 0.9, declare=True)))
    assert (play.right, play.position) == (False, 0)
    assert state.hand == parse_cards("2H 4D 6S") and state.side_line == parse_cards("3C")
    declaration = state.turn_declaration
    assert not declaration.correct and state.score == -2 and state.to_move() == 0

    (play,) = state.apply(parse_card("2H"))  # red: right, 7H drawn, the stock is empty
    assert (play.right, play.position) == (True, 0) and state.turn_declaration is None
    assert state.main_line == parse_cards("5H 2H") and state.stock == ()

    (play,) = state.apply(Turn(parse_card("6S"), Statement("red(card)", 0.4)))
    # wrong under 2H; nothing left to draw
    assert (play.right, play.position) == (False, 1) and state.hand == parse_cards("4D 7H")
    assert state.turn_declaration is None  # stated, not declared
    assert state.tentative[-1].correct and state.score == -2

    state.apply(Turn(parse_card("4D"), Statement("red(card)", 0.9, declare=True)))
    declaration = state.turn_declaration
    # found on turn 4 of 5 after one wrong declaration: 5 - (4 - 1) - 2 = 0
    assert declaration.correct and state.end == FOUND and state.scores() == (0.0,)
    record = state.record({"name": "by hand"})
    assert (record.found_turn, record.wrong_declarations, record.score) == (4, 1, 0)
    assert not record.success  # found, but with a score under 2
    assert record.hand == (parse_card("7H"),) and record.side_line == tuple(parse_cards("3C 6S"))


def test_the_turn_cap_comes_before_an_empty_hand_and_after_the_last_statement():
    hand = parse_cards("2H 3C")
    state = SoloState("red(card)", SoloConfig(max_turns=2), hand, (), parse_card("5H"), ())
    state.apply(parse_card("2H"))
    state.apply(parse_card("3C"))
    assert state.end == TURN_CAP and state.to_move() is None  # the hand is empty too
    state = SoloState("red(card)", SoloConfig(max_turns=2), hand, (), parse_card("5H"), ())
    state.apply(parse_card("2H"))
    state.apply(Turn(parse_card("3C"), Statement("red(card)", 1.0, declare=True)))
    assert state.end == FOUND and state.score == 1  # the last turn's own statement
    # after the verdict: the last card's statement is awaited before the game ends
    config = SoloConfig(max_turns=2, timing="after_verdict")
    for last, end in ((None, TURN_CAP), (Statement("red(card)", 1.0, True), FOUND)):
        state = SoloState("red(card)", config, hand, (), parse_card("5H"), ())
        for card, statement in zip(hand, (None, last), strict=True):
            state.apply(card)
            assert state.end is None and state.awaited == STATEMENT
            state.apply(statement)
        assert state.end == end and state.to_move() is None


def test_an_empty_hand_ends_the_game():
    config = SoloConfig(max_turns=10)
    state = SoloState("red(card)", config, parse_cards("2H"), (), parse_card("5H"), ())
    state.apply(parse_card("2H"))
    assert state.end == OUT_OF_CARDS and state.legal_actions() == ()


def test_no_starter_ends_the_game_at_the_deal():
    state = SoloState("red(card)", SoloConfig(), parse_cards("2H"), parse_cards("3C"), None, ())
    assert state.end == NO_STARTER and state.to_move() is None and state.scores() == (0.0,)
    assert state.record({}).end == NO_STARTER and state.main_line == []


def test_what_the_rules_forbid_raises_and_changes_nothing():
    state = SoloState.deal("red(card)", 0, SoloConfig())
    with pytest.raises(ValueError, match="not in the hand"):
        state.apply(Statement("red(card)"))  # a statement comes with its turn's card
    with pytest.raises(ValueError, match="not in the hand"):
        state.apply(state.stock[0])
    with pytest.raises(ValueError, match="not in the hand"):
        state.apply(Turn(state.stock[0], Statement("red(card)", 1.0, declare=True)))
    assert state.turns == 0 and len(state.hand) == 12 and state.tentative == []
    with pytest.raises(ValueError, match="no record yet"):
        state.record({})
    with pytest.raises(ValueError, match="one seat"):
        state.observation(1)


def test_after_the_verdict_the_statement_is_a_decision_of_its_own():
    state = SoloState.deal("red(card)", 0, SoloConfig(timing="after_verdict"))
    assert (state.to_move(), state.awaited) == (0, CARD)
    with pytest.raises(ValueError, match="after_verdict"):
        state.apply(Turn(state.hand[0], Statement("red(card)")))  # stated before the verdict
    (event,) = state.apply(state.hand[0])
    assert (state.to_move(), state.awaited, state.legal_actions()) == (0, STATEMENT, (None,))
    with pytest.raises(ValueError, match="awaits its statement"):
        state.apply(state.hand[0])
    assert state.apply(Statement("black(card)", declare=True)) == ()
    assert state.awaited == CARD and state.turn_declaration == state.declarations[0]
    with pytest.raises(ValueError, match="not in the hand"):
        state.apply(Statement("red(card)"))  # once a turn
    assert [t.text for t in state.tentative] == ["black(card)"] and state.turns == 1


# -- play and replay through the state ----------------------------------------------------


def replayed(record) -> SoloState:
    """A state moved by the record's plays and statements, as the record says them."""
    state = SoloState.deal(record.rule, record.seed, SoloConfig(**record.config))
    tentative = {t.turn: t for t in record.tentative}
    declared = {d.turn for d in record.declarations}
    for turn, event in enumerate(record.events, 1):
        stated = tentative.get(turn)
        statement = stated and Statement(stated.text, stated.confidence, turn in declared)
        if state.awaited == MOVE:
            state.apply(Turn(event.card, statement))
        else:
            state.apply(event.card)
            state.apply(statement)
    return state


@pytest.mark.parametrize(
    "agent, config",
    [
        (RandomAgent(), SoloConfig()),
        (OracleAgent(), SoloConfig()),
        (Declarer("red(card)"), SoloConfig()),
        (Declarer("red(card)"), SoloConfig(timing="after_verdict")),
        (Declarer("blue"), SoloConfig(hand_size=3, max_turns=120)),  # out of cards
    ],
)
def test_play_then_replay_through_the_state_gives_the_record(agent, config):
    for seed in range(3):
        record = play_solo("red(card)", agent, seed, config)
        assert replayed(record).record(record.agent, record.faults) == record
        assert replay_solo(record) == []


def test_the_observation_is_the_one_play_solo_gives():
    seen = []

    class Watching(Declarer):
        def solo_move(self, obs):
            seen.append(obs)
            return super().solo_move(obs)

    record = play_solo("color(card) != color(last)", Watching("blue"), seed=2)
    state = SoloState.deal(record.rule, 2, SoloConfig())
    for obs, event in zip(seen, record.events, strict=True):
        assert state.observation(0) == obs
        state.apply(event.card)
