"""HumanAgent driven by a scripted person through real games of every kind."""

from __future__ import annotations

import io
import pickle
import re
import unittest
from collections.abc import Callable

import numpy as np
import pytest

from eleusis_agents.human import HumanAgent, PlayerQuit
from eleusis_agents.simple import RandomAgent
from eleusis_lab.agent import Event, GameInfo, Observation, clone
from eleusis_lab.cards import Card, parse_card, parse_cards, standard_deck
from eleusis_lab.games.classic import ClassicConfig, classic_deal, play_classic
from eleusis_lab.games.classic.scoring import classic_player_scores
from eleusis_lab.games.delphi import play_delphi
from eleusis_lab.games.four_to_eight import FourToEightConfig, play_four_to_eight
from eleusis_lab.games.new_eleusis import (
    NewEleusisConfig,
    NewEleusisObservation,
    play_new_eleusis,
)
from eleusis_lab.games.solo import play_solo
from eleusis_lab.registry import available_agents, make_agent
from eleusis_lab.rules import parse
from eleusis_lab.stopped import stopped_report
from eleusis_lab.testing import CHECKS, check_agent, parametrize_with_checks

Answer = str | Callable[["Person"], str]
KINDS = ("card", "turn", "rw", "yn", "rule")


class Person:
    """The input stream of a HumanAgent: answers each question from what it printed.

    ``readline`` reads the question (the last line written to ``output``) and the hand
    shown before it, and answers with the next scripted answer for that kind of question
    (a string, or a function of this person), else a default: the first card of the
    hand, "r", "n", or an empty line for a rule.
    """

    def __init__(self, **script: list[Answer]):
        assert set(script) <= set(KINDS), script
        self.script = {kind: list(script.get(kind, ())) for kind in KINDS}
        self.output = io.StringIO()
        self.asked: list[tuple[str, str]] = []  # (kind, answer)

    def agent(self, **params) -> HumanAgent:
        return HumanAgent(input=self, output=self.output, **params)

    def isatty(self) -> bool:
        return False

    @property
    def text(self) -> str:
        return self.output.getvalue()

    def prompt(self) -> str:
        return self.text.rsplit("\n", 1)[-1]

    def hand(self) -> list[str]:
        """The cards of the last hand shown, as printed."""
        lines = re.findall(r"^your hand \(\d+\): (.*)$", self.text, re.MULTILINE)
        return lines[-1].split()

    def answers(self, kind: str) -> list[str]:
        """The answers given to one kind of question, in order."""
        return [answer for asked, answer in self.asked if asked == kind]

    def kind(self) -> str:
        prompt = self.prompt()
        for kind, mark in (
            ("card", "play a card"),
            ("turn", "cards, or none"),
            ("rw", "(r/w)"),
            ("yn", "(y/n)"),
            ("rule", "declare a rule"),
        ):
            if mark in prompt:
                return kind
        raise AssertionError(f"unknown question: {prompt!r}")

    def readline(self) -> str:
        kind = self.kind()
        queue = self.script[kind]
        if queue:
            answer = queue.pop(0)
            answer = answer(self) if callable(answer) else answer
        else:
            defaults = {"rw": "r", "yn": "n", "rule": ""}
            answer = defaults[kind] if kind in defaults else self.hand()[0]
        self.asked.append((kind, answer))
        return answer + "\n"


def not_held(person: Person) -> str:
    held = set(person.hand())
    return next(str(card) for card in standard_deck() if str(card) not in held)


def first(person: Person) -> str:
    return person.hand()[0]


def no_faults(record) -> None:
    assert record.faults == (), record.faults


# -- classic ---------------------------------------------------------------------------


def test_classic_bad_input_gets_a_reason_and_the_question_again():
    person = Person(card=["zz", not_held, "QH QS", first])
    agent = person.agent()
    record = play_classic("red(card)", [agent, RandomAgent()], seed=4, config=ClassicConfig(5))
    no_faults(record)
    text = person.text
    assert "  not a card: 'zz'" in text
    assert re.search(r"\n  you do not hold [0-9AJQK]+[CDHS]\n", text)
    assert "  play one card, not 2 cards" in text
    assert text.count("play a card (? for help)> ") == len(person.asked)
    # The fourth answer was the first card shown, and that card was played.
    assert record.events[0].seat == 0
    assert str(record.events[0].card) == person.asked[3][1]


def test_classic_plays_every_answer_in_every_phase():
    lower = [lambda p: p.hand()[-1].lower()] * 40  # "10h", "ah": any case
    person = Person(card=lower)
    agent = person.agent()
    config = ClassicConfig(hand_size=6, max_turns=30)
    record = play_classic("color(card) != color(last)", [agent, RandomAgent()], 2, config)
    no_faults(record)
    mine = [str(event.card) for event in record.events if event.seat == 0]
    assert mine == [answer.upper() for kind, answer in person.asked]
    assert {event.phase for event in record.events if event.seat == 0} == {1, 2}
    assert "phase 2: play your wrong cards" in person.text


def last(person: Person) -> str:
    return person.hand()[-1]


def test_phase_2_announces_its_turn_cap():
    person = Person(card=[last] * 40)
    config = ClassicConfig(hand_size=6, max_turns=30)
    record = play_classic(
        "color(card) != color(last)", [person.agent(max_turns=30), RandomAgent()], 2, config
    )
    no_faults(record)
    text = person.text
    assert text.count("or after 30 turns") == 1  # announced once, at the start of phase 2
    turns = [int(n) for n in re.findall(r"phase-2 turn (\d+) of at most 30 \(", text)]
    assert turns and turns == sorted(turns) and len(set(turns)) == len(turns)
    mine = [e for e in record.events if e.seat == 0 and e.phase == 2]
    assert len(turns) == len(mine)
    assert f"phase-2 turn {turns[-1]} of at most 30 ({30 - turns[-1]} after this one)" in text


def test_phase_2_counts_the_default_cap_when_not_told():
    person = Person(card=[last] * 40)
    config = ClassicConfig(hand_size=6)
    play_classic("color(card) != color(last)", [person.agent(), RandomAgent()], 2, config)
    assert "phase-2 turn 1 of at most 1,000 (999 after this one)" in person.text


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("11h", "for the jack of hearts type JH"),
        ("1h", "for the ace of hearts type AH"),
        ("12S", "for the queen of spades type QS"),
        ("13♣", "for the king of clubs type KC"),
    ],
)
def test_ranks_only_as_the_help_lists_them(typed, hint):
    hand = tuple(parse_cards("JH AH QS KC 10H"))
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO(f"{typed}\n10h\n"), output=out)
    agent.start_game(GameInfo("classic", 0, 2, hand, Card(2, 0)), np.random.default_rng(0))
    obs = Observation("classic", 0, 1, hand, (Card(2, 0),), ((), ()), None)
    assert agent.choose_play(obs) == parse_card("10H")
    assert f"  not a card: {typed!r} (ranks are A, 2..10 or T, J, Q, K: {hint})\n" in out.getvalue()
    agent.input = io.StringIO("?\nq\n")
    with pytest.raises(PlayerQuit):
        agent.choose_play(obs)
    assert "numbers 1, 11, 12 and 13 are refused" in " ".join(out.getvalue().split())


def test_the_table_shows_the_last_cards_with_the_wrong_cards_under_them():
    person = Person()
    agent = person.agent(window=3)
    main = tuple(parse_cards("2C 3D 4C 5D 6C"))
    agent.start_game(GameInfo("classic", 1, 2, (), main[0]), np.random.default_rng(0))
    for position, card in enumerate(main[1:]):
        agent.observe(Event(0, card, 1, True, position))
    agent.observe(Event(0, parse_card("9C"), 1, False, 4))
    agent.observe(Event(0, parse_card("KS"), 1, False, 4))
    hand = tuple(parse_cards("QH 10D"))
    obs = Observation("classic", 1, 1, hand, main, (tuple(parse_cards("9C KS")), ()), False)
    assert agent.choose_play(obs) == parse_card("10D")
    assert (
        "since your last decision:\n"
        "  seat 0 played 3D: right\n  seat 0 played 4C: right\n"
        "  seat 0 played 5D: right\n  seat 0 played 6C: right\n"
        "  seat 0 played 9C: wrong\n  seat 0 played KS: wrong\n"
        "\n"
        "main line, 5 cards, the last 3 shown (wrong cards under the card they were played on):\n"
        "position   2    3    4\n"
        "main      4C   5D   6C\n"
        "wrong               9C\n"
        "                    KS\n"
        "wrong cards: seat 0: 9C KS; you: none\n"
        "phase 1: play each card of your hand once\n"
        "your hand (2): 10D QH\n"
    ) in person.text
    # "t" shows the whole line; "?" the help; neither is a play, and the events are not
    # shown twice.
    person = Person(card=["t", "?", "help", first])
    agent = person.agent(window=3)
    agent.start_game(GameInfo("classic", 1, 2, (), main[0]), np.random.default_rng(0))
    assert agent.choose_play(obs) == parse_card("10D")
    assert "position   0    1    2    3    4\nmain      2C   3D   4C   5D   6C" in person.text
    assert person.text.count("type one card of your hand") == 2
    assert person.text.count("q or quit: leave the game") == 2


def test_a_long_line_shows_its_last_13_cards_and_t_shows_them_all():
    deck = list(standard_deck())
    main, wrong = tuple(deck[:20]), deck[20:28]
    person = Person(card=["table", first])
    agent = person.agent()
    agent.start_game(GameInfo("classic", 1, 2, (), main[0]), np.random.default_rng(0))
    for card in wrong:
        agent.observe(Event(0, card, 1, False, 19))
    obs = Observation("classic", 1, 1, (deck[30],), main, (tuple(wrong), ()), False)
    agent.choose_play(obs)
    text = person.text
    assert "main line, 20 cards, the last 13 shown" in text
    assert "\nposition   7    8    9   10" in text  # one row: positions 7 to 19
    lines = text.splitlines()

    def last_column(label: str, cell: str) -> str:  # position 19: the 13th column
        return f"{label:<8}" + " " * 60 + f" {cell:>3}"

    table = lines.index(last_column("wrong", "8D"))
    cells = ("9D", "10D", "JD", "QD", "+3")
    assert lines[table + 1 : table + 6] == [last_column("", cell) for cell in cells]
    # "table": every card, 13 to a row.
    assert "\nposition   0    1    2" in text and "\nposition  13   14" in text


def test_four_to_eight():
    person = Person()
    agents = [RandomAgent(), person.agent(), RandomAgent()]
    config = FourToEightConfig(max_turns=12)
    record = play_four_to_eight("even(card)", agents, seed=5, config=config)
    no_faults(record)
    mine = [str(event.card) for event in record.events if event.seat == 1]
    assert mine == [answer for kind, answer in person.asked]
    assert len(mine) >= 17
    assert "Eleusis for 4 to 8 players: you are seat 1 of 3 players" in person.text


def test_two_decks_take_each_copy_once():
    person = Person(turn=["QH QH QH", "QH QH"])
    agent = person.agent()
    hand = (Card(12, 2), Card(3, 0), Card(12, 2, copy=1))
    agent.start_game(GameInfo("new-eleusis", 0, 3, hand, Card(2, 0)), np.random.default_rng(0))
    obs = NewEleusisObservation("new-eleusis", 0, 1, hand, (Card(2, 0),), ((), (), ()), None)
    assert agent.choose_turn(obs) == (Card(12, 2), Card(12, 2, copy=1))
    assert "  you hold QH only twice" in person.text
    # One copy held, the other played: "QH" is the held one.
    person = Person(card=["qh"])
    agent = person.agent()
    agent.start_game(GameInfo("solo", 0, 1, hand[1:], Card(2, 0)), np.random.default_rng(0))
    obs = Observation("solo", 0, 1, hand[1:], (Card(2, 0),), ((),), None)
    assert agent.choose_play(obs) == Card(12, 2, copy=1)


# -- Delphi ----------------------------------------------------------------------------


def test_delphi_answers_become_predictions():
    answers = ["r", "w", "maybe", "y", "n", "RIGHT", "wrong"]
    person = Person(rw=answers)
    record = play_delphi("red(card)", [person.agent(), RandomAgent()], seed=1)
    no_faults(record)
    mine = [row[0] for row in record.probabilities]
    assert mine[:6] == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert all(p == 1.0 for p in mine[6:])  # the default answer: right
    assert len(mine) == 51 and len(person.asked) == 52
    assert "  answer r (right) or w (wrong)" in person.text
    first_card = record.events[0].card
    assert f"next card {first_card}: right or wrong? (r/w)> r\n" in person.text
    verdict = "right" if record.events[0].right else "wrong"
    outcome = "+1 chip" if record.events[0].right else "you lose your chips"
    assert f"\n  {first_card}: {verdict}; you said right: {outcome}\n" in person.text
    told = [int(n) for n in re.findall(r"your chips: (\d+)", person.text)]
    assert told == [0, *record.chips_history()[:-1, 0].tolist()]  # before each card


# -- New Eleusis -------------------------------------------------------------------------


def two_cards(person: Person) -> str:
    return " ".join(person.hand()[:2])


def test_new_eleusis_strings_and_no_play():
    person = Person(turn=["AC 2C 3C 4C 5C", two_cards, "none", first])
    agents = [person.agent(), RandomAgent(), RandomAgent()]
    config = NewEleusisConfig(max_turns=12)
    record = play_new_eleusis("color(card) != color(last)", agents, seed=3, config=config)
    no_faults(record)
    mine = [turn for turn in record.turns if turn.seat == 0]
    assert "  play 1 to 4 cards, not 5; or 'none' for no play" in person.text
    turns = person.answers("turn")
    assert " ".join(map(str, mine[0].cards)) == turns[1]
    assert len(mine[0].cards) == 2
    assert mine[1].no_play and turns[2] == "none"
    assert [" ".join(map(str, turn.cards)) for turn in mine[2:]] == turns[3:]
    assert "hands: you " in person.text


class NoPlay(RandomAgent):
    """Declares "no play" at every turn."""

    def choose_turn(self, obs):
        return None


def test_new_eleusis_prophet_calls():
    calls = ["w", "r", "x", "r"]  # the third call is overruled: seed 6 overthrows him
    person = Person(yn=["maybe", "y"], rw=list(calls))
    agents = [person.agent(), NoPlay(), RandomAgent(), RandomAgent()]
    config = NewEleusisConfig(max_turns=12)
    record = play_new_eleusis("color(card) != color(last)", agents, seed=6, config=config)
    no_faults(record)
    assert "  answer y (yes) or n (no)" in person.text
    assert "  answer r (right) or w (wrong)" in person.text
    declared = [i for i, turn in enumerate(record.turns) if turn.declared_prophet]
    assert record.turns[declared[0]].seat == 0
    called = [turn for turn in record.turns if turn.prophet_call is not None]
    expected = [c == "r" for c in calls if c != "x"]
    assert [turn.prophet_call for turn in called] == expected
    assert called[-1].overthrown and not any(turn.overthrown for turn in called[:-1])
    assert called[0].no_play  # the call of NoPlay's "no play"
    assert "is the no play right (none of these cards is right)? (r/w)> w" in person.text
    assert "\nyou are the Prophet now\n" in person.text
    assert "\nyou were overthrown: a call the dealer overruled\n" in person.text
    assert person.answers("yn") == ["maybe", "y"]  # never asked again in the round


# -- solo -------------------------------------------------------------------------------


def test_solo_declarations():
    rules = ["", "red(card", "black(card)", "black(card)", "", "red(card)"]
    person = Person(rule=rules)
    record = play_solo("red(card)", person.agent(), seed=3)
    no_faults(record)
    assert [(d.turn, d.text, d.correct) for d in record.declarations] == [
        (2, "black(card)", False),
        (4, "red(card)", True),
    ]
    assert record.found_turn == 4
    assert "  bad rule: line 1, column 9: " in person.text
    assert "  you declared that rule already, and it was wrong" in person.text
    assert person.text.count("  your rule black(card) was judged wrong (-2 points)") == 1
    assert "a counter-example" not in person.text  # only when told (hear_judgement)
    assert "solo Eleusis: find the rule; the starter is" in person.text


def test_a_person_who_declares_is_shown_the_rule_language_once_and_again_on_help():
    person = Person(rule=["?", "", "red(card)"])
    record = play_solo("red(card)", person.agent(), seed=3)
    assert record.found_turn is not None
    vocabulary = ("THE RULE LANGUAGE", "run(color)", "empty: the main line is empty", "length")
    assert all(word in person.text for word in vocabulary)
    # before the first declaration, then after the "?" only
    assert person.text.count("THE RULE LANGUAGE") == 2
    assert "  - color(card) != color(last)" in person.text  # its examples, one a line


def test_solo_shows_the_turn_the_score_the_card_drawn_and_a_counter_example():
    person = Person(rule=["", "black(card)", "red(card)"])
    agent = person.agent()
    record = play_solo("red(card)", agent, seed=3, on_turn=agent.hear_judgement)
    assert record.found_turn == 3 and record.score == 30 - 2 - 2
    text = person.text
    assert "\nturn 1 of 30; a correct declaration now scores 30\n" in text
    assert "\nturn 2 of 30; a correct declaration now scores 29\n" in text
    assert (
        "\nturn 3 of 30; a correct declaration now scores 26 (-2 for 1 wrong declaration)\n" in text
    )
    hands = re.findall(r"^your hand \(12\): (.*)$", text, re.MULTILINE)
    for before, after, event in zip(hands, hands[1:], record.events, strict=False):
        new = set(after.split()) - set(before.split())
        assert f"  you drew {' '.join(new)}\n" in text, (before, after)
        assert str(event.card) in before.split()
    judged = record.declarations[0]
    assert not judged.correct
    shown = judged.reason.replace("under the declared one", "under yours")
    assert f"  a counter-example: {shown}\n" in text
    assert "under the secret rule" in shown and "red(card)" not in shown


def test_solo_with_an_empty_stock_says_no_card_was_drawn():
    agent = HumanAgent(input=io.StringIO("2C\n\n2D\n\n"), output=io.StringIO())
    hand = tuple(parse_cards("2C 2D 3C"))
    agent.start_game(GameInfo("solo", 0, 1, hand, Card(5, 0)), np.random.default_rng(0))
    obs = Observation("solo", 0, 1, hand, (Card(5, 0),), ((),), None)
    agent.solo_move(obs)
    agent.observe(Event(0, hand[0], 1, False, 0))
    agent.solo_move(Observation("solo", 0, 1, hand[1:], (Card(5, 0),), ((hand[0],),), False))
    assert "  you drew no card: the stock is empty\n" in agent.output.getvalue()
    assert "turn 2 of 30; a correct declaration now scores 29" in agent.output.getvalue()


# -- quitting ----------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["q", "QUIT"])
def test_quit_stops_the_game_whatever_on_fault(answer):
    person = Person(card=[first, answer])
    with pytest.raises(PlayerQuit, match="the player at seat 1 quit the game") as caught:
        play_classic("red(card)", [RandomAgent(), person.agent()], seed=0)
    assert isinstance(caught.value, KeyboardInterrupt)
    assert len(person.asked) == 2


def test_the_end_of_the_input_quits():
    agent = HumanAgent(input=io.StringIO("r\n"), output=io.StringIO())
    with pytest.raises(PlayerQuit, match=r"seat 0 quit the game \(end of input\)"):
        play_delphi("red(card)", [agent, RandomAgent()], seed=0)


# -- the agent contract -------------------------------------------------------------------


def test_parameters_pickle_and_clone():
    agent = HumanAgent(window=5)
    assert agent.get_params() == {"input": None, "output": None, "window": 5, "max_turns": None}
    assert clone(agent).get_params() == agent.get_params()
    assert pickle.loads(pickle.dumps(agent)).get_params() == agent.get_params()
    assert vars(HumanAgent()) == {"input": None, "output": None, "window": 13, "max_turns": None}
    played = HumanAgent(input=io.StringIO("3C\n"), output=io.StringIO())
    played.start_game(
        GameInfo("classic", 0, 2, (Card(3, 0),), Card(2, 0)), np.random.default_rng(0)
    )
    played.observe(Event(1, Card(5, 1), 1, False, 0))
    copy = pickle.loads(pickle.dumps(played))
    assert copy.recent_ == played.recent_ and copy.under_ == played.under_
    with pytest.raises(ValueError, match="window must be a whole number >= 1, got 0"):
        HumanAgent(window=0, output=io.StringIO()).start_game(
            GameInfo("classic", 0, 2, (), None), np.random.default_rng(0)
        )


def test_streams_are_resolved_at_call_time(monkeypatch, capsys):
    agent = HumanAgent()
    monkeypatch.setattr("sys.stdin", io.StringIO("w\n"))
    agent.start_game(GameInfo("delphi", 0, 2, (), Card(1, 0)), np.random.default_rng(0))
    obs = Observation("delphi", 0, 1, (), (Card(1, 0),), ((),), None)
    assert agent.predict(obs, [Card(2, 1)]).tolist() == [0.0]
    assert "next card 2D: right or wrong? (r/w)> w" in capsys.readouterr().out


def test_registered_and_skipped_by_the_conformance_checks():
    assert available_agents()["human"] == "eleusis_agents.human:HumanAgent"
    agent = make_agent("human")
    assert isinstance(agent, HumanAgent) and HumanAgent.interactive
    with pytest.raises(unittest.SkipTest, match="HumanAgent is interactive"):
        check_agent(agent)
    marker = parametrize_with_checks([RandomAgent(), agent])
    params = marker.args[1]
    assert len(params) == 2 * len(CHECKS) == len(marker.kwargs["ids"])
    skipped = [p for p in params if isinstance(p, type(pytest.param(0)))]
    assert len(skipped) == len(CHECKS)
    assert all(p.marks[0].name == "skip" for p in skipped)


# -- a game stopped before its end --------------------------------------------------------


def test_the_report_of_a_stopped_game_rebuilds_the_scores_from_the_plays():
    person = Person(card=[first, first, "q"])
    agent = person.agent()
    agents = [RandomAgent(), agent]
    with pytest.raises(PlayerQuit) as caught:
        play_classic("red(card)", agents, seed=0)
    report = stopped_report(
        str(caught.value), "classic", parse("red(card)"), 0, ClassicConfig(), agents
    )
    lines = report.splitlines()
    assert lines[:3] == [
        "",
        "game stopped: the player at seat 1 quit the game",
        "the secret rule: red(card)",
    ]
    seen = agent.seen_
    assert [e.seat for e in seen] == [0, 1, 0, 1, 0]
    wrong = [sum(not e.right for e in seen if e.seat == s) for s in (0, 1)]
    _, hands, _ = classic_deal(0, 2)
    held = [len(hands[s]) - sum(e.right for e in seen if e.seat == s) for s in (0, 1)]
    assert lines[3] == (
        f"the dealer's score so far: {abs(wrong[0] - wrong[1])}"
        f" (wrong cards in phase 1: seat 0 {wrong[0]}, you {wrong[1]})"
    )
    scores = classic_player_scores(held)
    assert lines[4] == (
        "the players' scores if the game ended now:"
        f" seat 0 {scores[0]:g} ({held[0]} cards held), you {scores[1]:g} ({held[1]} cards held)"
    )


def test_the_report_of_another_game_counts_the_plays():
    agent = HumanAgent(input=io.StringIO("r\nr\nq\n"), output=io.StringIO())
    with pytest.raises(PlayerQuit):
        play_delphi("red(card)", [agent, RandomAgent()], seed=0)
    report = stopped_report("why", "delphi", parse("red(card)"), 0, None, [agent, RandomAgent()])
    assert report.splitlines()[-1] == (
        f"{len(agent.seen_)} cards played; no scores before the end of the game"
    )
