"""The state of the main-line games (classic Eleusis, its 4-8 player variant): every card
in exactly one place at every step, the legal actions RULES.md sections 1 and 2 give,
a short game worked out by hand, and records replayed on the state."""

from collections import Counter
from itertools import chain, pairwise

import numpy as np
import pytest

from eleusis_lab.cards import parse_card, parse_cards, standard_deck
from eleusis_lab.games.classic import ClassicConfig, classic_deal, play_classic
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT
from eleusis_lab.games.classic.replay import replay_classic
from eleusis_lab.games.classic.state import CLASSIC, MainLineState
from eleusis_lab.games.four_to_eight import (
    FourToEightConfig,
    four_to_eight_deal,
    play_four_to_eight,
    replay_four_to_eight,
)
from eleusis_lab.games.four_to_eight.engine import FOUR_TO_EIGHT, deck_plan
from eleusis_lab.record import TURN_CAP
from eleusis_lab.registry import make_agent

RULES = ["color(card) != color(last)", "rank(card) > rank(last)", "red(card)"]


def _places(state: MainLineState) -> Counter:
    """Every card the state holds anywhere: main line, hands, wrong cards, unused."""
    held = chain.from_iterable([*state.hands, *state.piles])
    return Counter([*state.main, *held, *state.unused])


def _random_game(state: MainLineState, seed: int):
    """Play random legal cards to the end, checking the invariants at every step."""
    dealt = Counter([state.starter, *chain.from_iterable(state.deal_hands), *state.unused])
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        seat, phase, offered = state.to_move(), state.phase, state.legal_actions()
        line = len(state.main)
        assert offered and state.observation(seat).hand == offered
        if state.phase == 1:
            assert offered == tuple(state.hands[seat])
        else:
            assert set(offered) <= set(state.piles[seat]) and not any(state.hands)
        (event,) = state.apply(offered[rng.integers(len(offered))])
        assert (event.seat, event.phase, event.position) == (seat, phase, line - 1)
        # A right card extends the main line; a wrong one lies in front of its player.
        assert len(state.main) == line + event.right
        assert (state.main[-1] == event.card) if event.right else event.card in state.piles[seat]
        assert _places(state) == dealt  # every card in exactly one place
    assert state.legal_actions() == () and state.to_move() is None


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("retry", [False, True])
def test_every_card_is_in_one_place_and_offered_only_when_held_classic(seed, retry):
    config = ClassicConfig(hand_size=None if seed % 2 else 5, retry_in_turn=retry, max_turns=40)
    state = MainLineState.deal(RULES[seed % 3], seed, config, players=2 + seed % 3)
    assert Counter(_places(state)) == Counter(standard_deck())
    _random_game(state, seed)
    assert state.end in (PLAYER_OUT, NO_PLAYABLE_CARD, TURN_CAP)


@pytest.mark.parametrize("players", [3, 5, 7, 8])
def test_every_card_is_in_one_place_four_to_eight(players):
    config = FourToEightConfig(max_turns=60)
    state = MainLineState.deal(
        "color(card) != color(last)", players, config, players=players, variant=FOUR_TO_EIGHT
    )
    assert _places(state) == Counter(deck_plan(players).cards)
    _random_game(state, players)


def test_the_deal_is_the_play_functions_deal():
    state = MainLineState.deal("red(card)", 7, ClassicConfig(hand_size=6), players=4)
    starter, hands, unused = classic_deal(7, 4, 6)
    assert (state.starter, state.deal_hands, state.unused) == (
        starter,
        tuple(map(tuple, hands)),
        unused,
    )
    state = MainLineState.deal("red(card)", 7, None, players=5, variant=FOUR_TO_EIGHT)
    starter, hands, unused = four_to_eight_deal(7, 5)
    assert (state.starter, state.deal_hands) == (starter, tuple(map(tuple, hands)))


def _hand_made(retry: bool) -> MainLineState:
    # Alternate colours; the starter is red. Seat 0 holds AH 3C 4D, seat 1 5S KD 6H.
    return MainLineState(
        CLASSIC,
        "color(card) != color(last)",
        parse_card("2H"),
        [parse_cards("AH 3C 4D"), parse_cards("5S KD 6H")],
        retry_in_turn=retry,
    )


def _play(state: MainLineState, cards: str) -> list[tuple]:
    return [
        (e.seat, str(e.card), e.phase, e.right, e.position)
        for card in parse_cards(cards)
        for e in state.apply(card)
    ]


def test_a_short_game_worked_out_by_hand():
    state = _hand_made(retry=False)
    first = state.observation(0)
    assert (first.phase, [str(c) for c in first.hand], first.last_play_right) == (
        1,
        ["AH", "3C", "4D"],
        None,
    )
    # Phase 1: AH red on red, wrong; 5S right; 3C black on black, wrong; KD right; 4D and
    # 6H red on KD, wrong.
    assert _play(state, "AH 5S 3C KD 4D 6H") == [
        (0, "AH", 1, False, 0),
        (1, "5S", 1, True, 0),
        (0, "3C", 1, False, 1),
        (1, "KD", 1, True, 1),
        (0, "4D", 1, False, 2),
        (1, "6H", 1, False, 2),
    ]
    # Wrong cards 3 and 1: the dealer scores 3 - 1 = 2 (RULES.md 1.4). Phase 2 starts
    # with the seat after the last phase-1 player, seat 0, who may play his wrong cards.
    assert state.wrong_after_phase1 == (tuple(parse_cards("AH 3C 4D")), tuple(parse_cards("6H")))
    assert state.dealer_score() == 2
    assert (state.phase, state.to_move()) == (2, 0)
    assert state.legal_actions() == tuple(parse_cards("AH 3C 4D"))
    # One card a turn: AH wrong (the turn passes), 6H wrong, 3C right, 6H right: seat 1 out.
    assert _play(state, "AH 6H 3C 6H") == [
        (0, "AH", 2, False, 2),
        (1, "6H", 2, False, 2),
        (0, "3C", 2, True, 2),
        (1, "6H", 2, True, 3),
    ]
    assert (state.end, state.turns, state.cards_left()) == (PLAYER_OUT, 4, (2, 0))
    # Cards left 2 and 0: max(0, 0 - 2) = 0, and 2 - 0 plus the bonus of 6 (RULES.md 1.6).
    assert state.scores() == (0.0, 8.0)
    assert [str(c) for c in state.main] == ["2H", "5S", "KD", "3C", "6H"]
    with pytest.raises(ValueError, match="over"):
        state.apply(parse_card("AH"))


def test_retry_in_turn_offers_the_untried_cards():
    state = _hand_made(retry=True)
    _play(state, "AH 5S 3C KD 4D 6H")
    assert _play(state, "AH") == [(0, "AH", 2, False, 2)]
    # Still seat 0's turn: the cards it has not tried, and not AH again.
    assert (state.to_move(), state.legal_actions()) == (0, tuple(parse_cards("3C 4D")))
    assert state.mid_turn and state.observation(0).hand == tuple(parse_cards("3C 4D"))
    with pytest.raises(ValueError, match="not a card seat 0 may play"):
        state.apply(parse_card("AH"))
    assert _play(state, "3C 6H") == [(0, "3C", 2, True, 2), (1, "6H", 2, True, 3)]
    assert (state.end, state.turns, state.scores()) == (PLAYER_OUT, 2, (0.0, 8.0))


def test_phase_two_ends_when_nobody_holds_a_right_card_or_at_the_cap():
    state = MainLineState(
        CLASSIC, "red(card)", parse_card("2H"), [parse_cards("AC"), parse_cards("KS")]
    )
    _play(state, "AC KS")
    assert (state.end, state.to_move(), state.turns, state.dealer_score()) == (
        NO_PLAYABLE_CARD,
        None,
        0,
        0,
    )
    # Seat 0's hand is empty after AH: phase 1 skips it, and seat 1 plays twice.
    hands = [parse_cards("AH"), parse_cards("3C 4C")]
    for max_turns, end, turns in ((0, TURN_CAP, 0), (1, PLAYER_OUT, 1)):
        rule = "color(card) != color(last)"
        state = MainLineState(CLASSIC, rule, parse_card("2H"), hands, max_turns=max_turns)
        assert _play(state, "AH 3C 4C") == [
            (0, "AH", 1, False, 0),
            (1, "3C", 1, True, 0),
            (1, "4C", 1, False, 1),
        ]
        if max_turns:  # AH, red on 3C, is right: seat 0 is out
            assert _play(state, "AH") == [(0, "AH", 2, True, 1)]
        assert (state.end, state.turns, state.to_move()) == (end, turns, None)


def test_observation_of_a_seat_not_to_move_shows_what_it_holds():
    state = _hand_made(retry=False)
    other = state.observation(1)
    assert other.hand == tuple(parse_cards("5S KD 6H")) and other.seat == 1


@pytest.mark.parametrize("seed", range(4))
def test_records_replay_on_the_state(seed):
    agents = [make_agent("random") for _ in range(3)]
    for record, variant in (
        (
            play_classic(RULES[seed % 3], agents, seed, ClassicConfig(retry_in_turn=seed % 2 == 1)),
            CLASSIC,
        ),
        (play_four_to_eight(RULES[seed % 3], agents, seed), FOUR_TO_EIGHT),
    ):
        state = MainLineState(
            variant,
            record.rule,
            record.starter,
            record.deal,
            record.unused,
            retry_in_turn=record.config.get("retry_in_turn", False),
            max_turns=record.config["max_turns"],
        )
        events = [event for recorded in record.events for event in state.apply(recorded.card)]
        assert tuple(events) == record.events
        assert state.main == record.main_line and state.end == record.phase2_end
        assert state.turns == record.phase2_turns and state.scores() == record.player_scores
        assert state.dealer_score() == record.dealer_score
        assert state.wrong_after_phase1 == record.wrong_after_phase1
        replay = replay_classic if variant is CLASSIC else replay_four_to_eight
        assert replay(record) == []


def test_a_record_cut_in_a_retried_turn_is_reported():
    record = None
    for seed in range(40):
        record = play_classic(
            "color(card) != color(last)",
            [make_agent("random") for _ in range(2)],
            seed,
            ClassicConfig(retry_in_turn=True),
        )
        cuts = [
            k
            for k, (e, after) in enumerate(pairwise(record.events))
            if e.phase == 2 and not e.right and after.seat == e.seat
        ]
        if cuts:
            break
    assert cuts, "no retried phase-2 turn in 40 games"
    cut = record.replace(events=record.events[: cuts[0] + 1])
    assert "the record ends in the middle of a phase-2 turn" in replay_classic(cut)
