"""A new game is one module and one registration: the toy game of `toy_game`."""

import dataclasses

import pytest

from eleusis_lab.agent import Agent
from eleusis_lab.cli import main
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.table import GAMES, register_game, unregister_game
from eleusis_lab.record import format_layout, read_record, replay
from eleusis_lab.registry import parse_agent_list
from eleusis_lab.testing import CheckNotes, check_playable_games
from tests import toy_game


@pytest.fixture
def toy():
    register_game(toy_game.GAME_TYPE)
    yield GAMES[toy_game.NAME]
    unregister_game(toy_game.NAME)


def test_the_built_in_games_are_registered_as_entry_points():
    assert list(GAMES) == ["classic", "delphi", "four-to-eight", "new-eleusis", "secrets", "solo"]
    assert all(GAMES[name].name == name and GAMES[name].replay for name in GAMES)


def test_a_registered_game_is_read_replayed_and_laid_out_by_the_generic_functions(toy):
    record = toy.play("red(card)", parse_agent_list("random,oracle"), 3, toy.config_type())
    assert record.scores[1] == 5 and len(record.events) == 10  # the oracle is never wrong
    again = read_record(record.to_json())
    assert again == record and replay(again) == []
    tampered = dataclasses.replace(record, scores=(record.scores[0] + 1, 5))
    assert replay(tampered) and "scores" in replay(tampered)[0]
    assert format_layout(record).startswith("ten cards, rule red(card), seed 3")


def test_the_command_line_plays_a_registered_game(toy, capsys):
    assert main(["play", "--game", toy.name, "--agents", "oracle", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ten cards, rule ") and out.count("OracleAgent: ") == 2  # 2 seats


def test_check_playable_games_plays_a_registered_game(toy):
    class TenCardsPlayer(Agent):
        def choose_play(self, obs):
            return obs.hand[0]

    notes = CheckNotes()
    check_playable_games(TenCardsPlayer(), notes)
    assert toy.refusal(TenCardsPlayer) is None and notes.not_checked == []


def test_a_name_is_registered_once(toy):
    with pytest.raises(ConfigError, match="registered already"):
        register_game(toy_game.GAME_TYPE)
    with pytest.raises(ConfigError, match="not a GameType"):
        register_game("ten-cards")
