"""A new game is one module and one registration: the toy game of `toy_game`."""

import dataclasses
import io

import pytest

from eleusis_agents.human import PlayerQuit
from eleusis_lab.agent import Agent
from eleusis_lab.cli import main
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.table import GAMES, GameType, register_game, unregister_game
from eleusis_lab.record import format_layout, read_record, replay
from eleusis_lab.registry import make_agent, parse_agent_list
from eleusis_lab.rules import parse
from eleusis_lab.stopped import stopped_report
from eleusis_lab.testing import CheckNotes, check_playable_games
from tests import toy_game
from tests.test_human import Person, first


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


# -- a person at the table: the toy game's view and its scores so far ------------------------

# Seed 2 of the toy game, the person at seat 0 playing the first card shown, the oracle at
# seat 1: after four plays the line is 7C 8H 6D 10H 5H 6H, the wrong cards 8C 2C and 6C.
LAST_TABLE = "wrong cards: you: 8C 2C; seat 1: 6C\n"
LAST_HAND = "your hand (5): 4H 9H JH AS 2S\n"


def as_declared_by_default(game: GameType, *fields: str) -> GameType:
    """``game`` declaring none of ``fields`` (each at GameType's default)."""
    defaults = {field.name: field.default for field in dataclasses.fields(GameType)}
    return register_game(
        dataclasses.replace(game, **{name: defaults[name] for name in fields}), replace=True
    )


def test_a_human_seat_shows_a_registered_game_through_its_own_view(toy):
    person = Person(card=[first] * 5)
    toy.play("red(card)", [person.agent(), make_agent("oracle")], 2, toy.config_type())
    text = person.text
    assert text.startswith("== Ten cards: a point for every right card ==\n")
    assert f"\n{LAST_TABLE}points: [2, 3]\n{LAST_HAND}" in text
    assert (
        "\nsince your last decision:\n  you played 8C: wrong\n  seat 1 played 8H: right\n" in text
    )


def test_a_human_seat_shows_a_game_without_a_view_through_the_generic_one(toy):
    plain = as_declared_by_default(toy, "seat_view")
    person = Person(card=[first] * 5)
    plain.play("red(card)", [person.agent(), make_agent("oracle")], 2, toy.config_type())
    text = person.text
    assert text.startswith("== Ten cards: you are seat 0 of 2 players; the starter is 7C ==\n")
    assert f"\n{LAST_TABLE}{LAST_HAND}" in text and "points" not in text


def test_a_human_seat_shows_a_game_no_registry_knows_through_the_generic_view():
    assert toy_game.NAME not in GAMES
    person = Person(card=[first] * 5)
    toy_game.play_ten_cards("red(card)", [person.agent(), make_agent("oracle")], 2)
    text = person.text
    assert text.startswith("== ten-cards: you are seat 0 of 2 players; the starter is 7C ==\n")
    assert f"\n{LAST_TABLE}{LAST_HAND}" in text


def quit_at_the_third_decision(game: GameType) -> str:
    """The report of ``game`` stopped by the person at seat 0 at his third decision."""
    person = Person(card=[first, first, "q"])
    agents = [person.agent(), make_agent("oracle")]
    with pytest.raises(PlayerQuit) as stopped:
        game.play("red(card)", agents, 2, game.config_type())
    rule = parse("red(card)")
    return stopped_report(str(stopped.value), game.name, rule, 2, game.config_type(), agents)


def test_the_report_of_a_stopped_game_tells_the_scores_the_game_declares(toy):
    lines = quit_at_the_third_decision(toy).splitlines()
    assert lines == [
        "",
        "game stopped: the player at seat 0 quit the game",
        "the secret rule: red(card)",
        "points so far: [0, 1]",  # 8C wrong, 8H right, 2C and 6C wrong
    ]
    plain = as_declared_by_default(toy, "scores_so_far")
    lines = quit_at_the_third_decision(plain).splitlines()
    assert lines[-1] == "4 cards played; no scores before the end of the game"


def test_the_command_line_stops_a_registered_game_with_its_scores(toy, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("8C\nq\n"))
    argv = [
        "play",
        "--game",
        toy.name,
        "--agents",
        "human,oracle",
        "--rule",
        "red(card)",
        "--seed",
        "2",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "game stopped: the player at seat 0 quit the game\n"
        "the secret rule: red(card)\npoints so far: [0, 1]\n"
    )


def test_the_command_line_plays_a_game_as_it_declares_for_people(toy, capsys):
    argv = ["play", "--game", toy.name, "--agents", "oracle", "--seed", "1"]
    assert main([*argv, "--beliefs"]) == 2
    err = capsys.readouterr().err
    assert err == "eleusis-lab: --beliefs is for solo: ten-cards does not show an agent's beliefs\n"
    told = []

    def for_people(rule, agents, seed, config):
        told.append("for people")
        return toy.play(rule, agents, seed, config)

    def beliefs(rule, agents, seed, config):
        return toy.play(rule, agents, seed, config), "what the agents believed"

    declared = dataclasses.replace(toy, play_for_people=for_people, beliefs=beliefs)
    register_game(declared, replace=True)
    assert main(argv) == 0 and told == ["for people"]
    assert capsys.readouterr().out.startswith("ten cards, rule ")
    assert main([*argv, "--beliefs"]) == 0 and told == ["for people"]
    assert capsys.readouterr().out.startswith("what the agents believed\n\nten cards, rule ")
