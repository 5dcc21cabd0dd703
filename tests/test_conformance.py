"""Every registered game, and the toy game, pass the game contract (`check_game`)."""

import dataclasses

import pytest

from eleusis_lab.games.conformance import check_game
from eleusis_lab.games.table import GAMES, register_game, unregister_game
from tests import toy_game


@pytest.mark.parametrize("name", list(GAMES))
def test_every_registered_game_passes_the_contract(name):
    check_game(GAMES[name], games=8)


@pytest.fixture
def toy():
    register_game(toy_game.GAME_TYPE)
    yield GAMES[toy_game.NAME]
    unregister_game(toy_game.NAME)


def test_the_toy_game_passes_the_contract(toy):
    check_game(toy, games=20)


def test_a_game_that_breaks_the_contract_is_named_with_its_seed(toy):
    def lying(rule, agents, seed, config=None):  # one point too many for seat 0
        record = toy_game.play_ten_cards(rule, agents, seed, config)
        return dataclasses.replace(record, scores=(record.scores[0] + 1, *record.scores[1:]))

    with pytest.raises(AssertionError, match=r"ten-cards, seed 0, rule .*: replay finds"):
        check_game(dataclasses.replace(toy, play=lying), games=2)

    def unseeded(rule, agents, seed, config=None):  # another deal every time
        return toy_game.play_ten_cards(rule, agents, int(unseeded.calls.pop()), config)

    unseeded.calls = list(range(100))
    with pytest.raises(AssertionError, match="the same seed plays another game"):
        check_game(dataclasses.replace(toy, play=unseeded), games=1)


def _lenient(game, play):
    """``game`` played by ``play``, with a replay that finds nothing: what the checks of
    cards and scores see when a game's own replay misses a fault."""
    return dataclasses.replace(game, play=play, replay=lambda record: [])


def test_a_card_lost_or_counted_twice_is_found():
    classic = GAMES["classic"]

    def losing(rule, agents, seed, config=None):  # the last main-line card vanishes
        record = classic.play(rule, agents, seed, config)
        return dataclasses.replace(record, main_line=record.main_line[:-1])

    with pytest.raises(AssertionError, match=r"classic, seed 0, .*cards are not conserved"):
        check_game(_lenient(classic, losing), games=1)

    def doubling(rule, agents, seed, config=None):  # the starter again at the end
        record = classic.play(rule, agents, seed, config)
        return dataclasses.replace(record, main_line=(*record.main_line, record.starter))

    with pytest.raises(AssertionError, match=r"extra \[Card\('.*'\)\]"):
        check_game(_lenient(classic, doubling), games=1)


def test_a_score_that_is_not_the_formulas_is_found():
    solo = GAMES["solo"]

    def generous(rule, agents, seed, config=None):  # two points nobody earned
        record = solo.play(rule, agents, seed, config)
        return dataclasses.replace(record, score=record.score + 2)

    with pytest.raises(AssertionError, match=r"solo, seed 0, .*the formulas give \(\(-?\d"):
        check_game(_lenient(solo, generous), games=1)


def test_new_eleusis_scores_a_prophet_in_place_by_the_cards_after_his_marker():
    # Oracles declare themselves Prophet; the scores the declaration derives from the
    # turns are the engine's, in games that end with a Prophet in place.
    game = GAMES["new-eleusis"]
    with_prophet = 0
    for seed in range(12):
        agents = [game.agents.make(name) for name in ("oracle", "random", "random")]
        record = game.play("color(card) != color(last)", agents, seed, game.config_type())
        with_prophet += bool(record.prophets) and record.prophets[-1].overthrown is None
        players, dealer = game.score(record)
        assert (tuple(players), dealer) == (record.player_scores, record.dealer_score)
    assert with_prophet >= 3
