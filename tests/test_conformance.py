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
