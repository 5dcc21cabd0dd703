"""The engines trust no object an agent returns and no exception it raises: cards are
judged by their plain values as the engine's own cards, numbers and texts are copied
into plain values, ``sees_rule`` is read once from the class and recorded, anything an
agent raises is a fault of its seat (``SystemExit`` and ``KeyboardInterrupt`` too) while
a real Ctrl-C still stops the game, and a seat stopped at the decision limit is never
called again in its game."""

from __future__ import annotations

import contextlib
import signal
import time

import numpy as np
import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card
from eleusis_lab.cli import build_parser, main
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.games.delphi import play_delphi
from eleusis_lab.games.solo import play_solo
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import (
    FAULT_CALLS,
    FAULT_KINDS,
    STOPPED,
    Fault,
    FaultRules,
    RecordError,
    check_faults,
    read_record,
    replay,
)
from eleusis_lab.runner import run_experiment
from eleusis_lab.spec import load_spec

#: The games where agents play cards, with small options and the players beside seat 0.
CARD_GAMES = {
    "classic": ({"hand_size": 6}, 1),
    "four-to-eight": ({"hand_size": 4}, 2),
    "new-eleusis": ({"hand_size": 5, "max_turns": 40}, 2),
    "solo": ({"max_turns": 8}, 0),
}


def play(game: str, seat0: Agent, seed: int = 3, **options):
    """A game of ``game``: ``seat0`` against random players."""
    small, others = CARD_GAMES[game]
    config = GAMES[game].make_config({**small, **options})
    agents = [seat0, *(RandomAgent() for _ in range(others))]
    return GAMES[game].play("red(card)", agents, seed, config)


def _without_agents(record) -> dict:
    data = record.to_dict()
    data.pop("agents", None)
    data.pop("agent", None)
    return data


# -- cards ------------------------------------------------------------------------------


def _lying_card(face: int) -> type:
    class Lying(Card):
        """A card whose face is ``face`` wherever it is judged, and that says it equals
        any card."""

        __slots__ = ()

        @property
        def face(self):
            return face

        def __eq__(self, other):
            return True

        __hash__ = Card.__hash__

    return Lying


class Disguised(RandomAgent):
    """Plays the random player's card, wrapped in a `Card` subclass that lies."""

    def __init__(self, face: int = 0):
        self.face = face

    def choose_play(self, obs):
        card = super().choose_play(obs)
        return _lying_card(self.face)(*card)


@pytest.mark.parametrize("game", CARD_GAMES)
@pytest.mark.parametrize("face", [20, -1, 10**9])  # a right face, and two that broke judging
def test_a_card_subclass_is_judged_as_the_card_of_the_hand_it_equals(game, face):
    disguised = play(game, Disguised(face))
    honest = play(game, RandomAgent())
    # the same game as the random player's, card for card: no fault, the same verdicts
    assert _without_agents(disguised) == _without_agents(honest)
    assert disguised.faults == () and replay(disguised) == []
    assert all(type(card) is Card for card in disguised.main_line)  # the engine's own


class Impostor(RandomAgent):
    """Plays a card it does not hold, one that says it equals any card and hashes as the
    first card of its hand."""

    def choose_play(self, obs):
        first = obs.hand[0]

        class Claims(_lying_card(first.face)):
            __slots__ = ()

            def __hash__(self):
                return hash(first)

        return Claims(first.rank, first.suit, 7)  # a copy no deck holds


class Broken(RandomAgent):
    """Plays tuples of the Card type that no deck holds: a rank out of range, a rank
    that is a bool, a rank of an int class that equals anything."""

    def __init__(self, kind: str = "rank"):
        self.kind = kind

    def choose_play(self, obs):
        class Anything(int):
            def __eq__(self, other):
                return True

            __hash__ = int.__hash__

        rank, suit, copy = obs.hand[0]
        fields = {
            "rank": (99, suit, copy),
            "bool": (True, suit, copy),
            "int": (Anything(rank), suit, copy),
            "short": (rank, suit),
        }[self.kind]
        return tuple.__new__(Card, fields)


@pytest.mark.parametrize(
    "agent", [Impostor(), *(Broken(k) for k in ("rank", "bool", "int", "short"))]
)
def test_a_card_the_hand_does_not_hold_by_its_values_is_an_illegal_card(agent):
    config = ClassicConfig(hand_size=4)
    record = play_classic("red(card)", [agent, RandomAgent()], 1, config)
    seat0 = [event for event in record.events if event.seat == 0]
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "illegal_card")] * len(seat0)
    assert all("which is not among the cards it may play" in f.message for f in record.faults)
    assert replay(record) == []


# -- numbers and texts --------------------------------------------------------------------


class Above(float):
    """A number that says it is between 0 and 1, whatever it is."""

    def __le__(self, other):
        return True

    def __ge__(self, other):
        return True

    def __float__(self):
        return 0.5


class Exits:
    """A sequence of one number, whose reading ends the process."""

    def __len__(self):
        return 1

    def __getitem__(self, index):
        raise SystemExit(3)


class Predicts(RandomAgent):
    """Predicts with a number given by ``how``."""

    def __init__(self, how: str = "above"):
        self.how = how

    def predict(self, obs, cards):
        return [Above(7.0)] if self.how == "above" else Exits()


@pytest.mark.parametrize(("how", "kind"), [("above", "not_a_probability"), ("exits", "raised")])
def test_a_probability_is_read_as_a_plain_float(how, kind):
    record = play_delphi("red(card)", [Predicts(how), RandomAgent()], 2)
    assert {(f.seat, f.kind) for f in record.faults} == {(0, kind)}
    assert len(record.faults) == len(record.events) == 51
    assert {row[0] for row in record.probabilities} == {0.5}  # the substitute, each time
    assert replay(record) == []


class Shifty(str):
    """Text that says something else to whoever asks it."""

    def strip(self, *args):
        return "red(card)"

    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class States(RandomAgent):
    """Declares a rule as text of a str subclass, with a confidence given by ``how``."""

    def __init__(self, how: str = "text"):
        self.how = how

    def propose_rule(self):
        return Shifty("black(card)"), Above(7.0) if self.how == "confidence" else 0.9


def test_a_rule_text_is_judged_as_a_plain_str():
    record = play_solo("red(card)", States("text"), 0)
    assert record.faults == () and record.declarations
    assert all(type(d.text) is str and not d.correct for d in record.declarations)
    assert all(type(t.text) is str and type(t.confidence) is float for t in record.tentative)


def test_a_confidence_that_lies_in_its_comparisons_is_an_illegal_declaration():
    record = play_solo("red(card)", States("confidence"), 0)
    assert record.declarations == () and record.faults
    assert {(f.kind, f.call) for f in record.faults} == {("illegal_declaration", "solo_move")}
    assert replay(record) == []


# -- sees_rule ----------------------------------------------------------------------------


class Sly(RandomAgent):
    """Says it sees the rule the first time anyone asks (the start of the game), then
    that it does not; and remembers what it was told."""

    asked = 0

    @property
    def sees_rule(self):
        type(self).asked += 1
        return type(self).asked == 1

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.told_ = info.rule


class ShyOracle(OracleAgent):
    """An oracle that, once told the rule, says it does not see it."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.told_ = info.rule
        self.sees_rule = False


def test_sees_rule_is_read_once_from_the_class_and_recorded_as_decided():
    Sly.asked = 0
    sly = Sly()
    record = play_classic("red(card)", [sly, RandomAgent()], 0, ClassicConfig(hand_size=3))
    assert sly.told_ is None and Sly.asked == 0  # a property of the class: not True
    assert "sees_rule" not in record.agents[0]

    class Turncoat(ShyOracle):
        def start_game(self, info, rng):
            super().start_game(info, rng)
            type(self).sees_rule = False  # its class too, once told

    for shy in (ShyOracle(), Turncoat()):
        record = play_classic("red(card)", [shy, RandomAgent()], 0, ClassicConfig(hand_size=3))
        assert shy.told_ is not None and shy.told_.text == "red(card)"
        assert record.agents[0]["sees_rule"] is True  # told: marked, whatever it says after


def test_the_rows_mark_the_seat_as_the_record_does(tmp_path):
    spec = {
        "games": 2,
        "players": 2,
        "dealer": "red(card)",
        "config": {"hand_size": 3},
        "agents": ["test_untrusted:ShyOracle", "random"],
    }
    rows = run_experiment(spec, out=tmp_path, progress=False)
    told = rows.groupby("agent")["sees_rule"].all().to_dict()
    assert told == {"random": False, "test_untrusted:ShyOracle": True}


# -- what agents raise ----------------------------------------------------------------------


class Odd(BaseException):
    """A BaseException of the agent's own."""


RAISED = {
    "exit": (SystemExit(3), "SystemExit: 3"),
    "interrupt": (KeyboardInterrupt(), "KeyboardInterrupt: "),
    "generator": (GeneratorExit("closed"), "GeneratorExit: closed"),
    "odd": (Odd("mine"), "Odd: mine"),
}


class Raises(RandomAgent):
    """Raises ``what`` (a key of `RAISED`) in every call of ``method``."""

    def __init__(self, what: str = "exit", method: str = "choose_play"):
        self.what = what
        self.method = method

    def _maybe(self, method: str) -> None:
        if method == self.method:
            raise RAISED[self.what][0]

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self._maybe("start_game")

    def choose_play(self, obs):
        self._maybe("choose_play")
        return super().choose_play(obs)

    def observe(self, event):
        self._maybe("observe")


@pytest.mark.parametrize("what", RAISED)
@pytest.mark.parametrize("method", ["start_game", "choose_play", "observe"])
def test_what_an_agent_raises_is_a_fault_of_its_seat(what, method):
    config = ClassicConfig(hand_size=3)
    record = play_classic("red(card)", [Raises(what, method), RandomAgent()], 0, config)
    plays = sum(event.seat == 0 for event in record.events)
    calls = {"start_game": 1, "choose_play": plays, "observe": len(record.events)}[method]
    expected = [(0, "raised", method, RAISED[what][1])] * calls
    assert [(f.seat, f.kind, f.call, f.message) for f in record.faults] == expected
    assert replay(record) == []
    # as after an exception: the substitutes are those of any fault
    plain = play_classic("red(card)", [Raises("exit", method), RandomAgent()], 0, config)
    assert record.events == plain.events


def test_with_on_fault_raise_a_system_exit_is_an_agent_error_naming_the_seat():
    config = ClassicConfig(hand_size=3, on_fault="raise")
    with pytest.raises(AgentError, match=r"^seat 0 \(Raises.*\) raised SystemExit: 3$"):
        play_classic("red(card)", [Raises("exit"), RandomAgent()], 0, config)


class Exiting(RandomAgent):
    """Ends the process at its third play of every game."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.plays_ = 0

    def choose_play(self, obs):
        self.plays_ += 1
        if self.plays_ == 3:
            raise SystemExit(3)
        return super().choose_play(obs)


def test_a_run_whose_agent_raises_system_exit_finishes_with_every_row(tmp_path, capsys):
    spec = tmp_path / "exits.toml"
    spec.write_text(
        'games = 4\nplayers = 2\ndealer = "red(card)"\nconfig = {hand_size = 4}\n'
        'agents = ["test_untrusted:Exiting", "random"]\n'
    )
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("4 games, 8 rows in ")
    assert err == "warning: agents faulted 4 times in the 4 games played (see the faults column)\n"


class ParamsExit(RandomAgent):
    """Ends the process when its parameters are read for the record."""

    def get_params(self, deep=True):
        raise SystemExit(3)


class LoudText(str):
    def __str__(self):
        raise SystemExit(3)

    def __repr__(self):
        raise SystemExit(3)


class ParamsLoud(RandomAgent):
    """Parameters whose values run code when they are written."""

    def get_params(self, deep=True):
        return {"name": LoudText("x"), "sizes": [LoudText("y"), 2], "kind": Odd}


@pytest.mark.parametrize("game", [*CARD_GAMES, "delphi"])
def test_parameters_are_read_as_plain_values_or_recorded_as_what_they_raised(game):
    if game == "delphi":
        described = play_delphi("red(card)", [ParamsExit(), ParamsLoud()], 3).agents
    else:
        described = [play(game, agent).to_dict() for agent in (ParamsExit(), ParamsLoud())]
        described = [d["agents"][0] if "agents" in d else d["agent"] for d in described]
    assert described[0]["params"] == {"get_params": "raised SystemExit: 3"}
    loud = described[1]["params"]
    assert loud == {"name": "x", "sizes": ["y", 2], "kind": repr(Odd)}
    assert [type(value) for value in (loud["name"], loud["sizes"][0])] == [str, str]


def test_a_run_whose_agent_exits_when_its_parameters_are_read_finishes(tmp_path, capsys):
    spec = tmp_path / "params.toml"
    spec.write_text(
        'games = 2\nplayers = 2\ndealer = "red(card)"\nconfig = {hand_size = 4}\n'
        'agents = ["test_untrusted:ParamsExit", "random"]\n'
    )
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("2 games, 4 rows in ")


# -- a real Ctrl-C --------------------------------------------------------------------------


class CtrlC(RandomAgent):
    """At its second play the process receives SIGINT, as from Ctrl-C; ``swallow``:
    the agent catches it and plays on."""

    def __init__(self, swallow: bool = False):
        self.swallow = swallow

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.plays_ = 0

    def choose_play(self, obs):
        self.plays_ += 1
        if self.plays_ == 2:
            if self.swallow:
                with contextlib.suppress(BaseException):
                    signal.raise_signal(signal.SIGINT)
            else:
                signal.raise_signal(signal.SIGINT)
        return super().choose_play(obs)


@pytest.mark.skipif(not hasattr(signal, "raise_signal"), reason="needs raise_signal")
@pytest.mark.parametrize("swallow", [False, True])
def test_a_real_ctrl_c_in_an_agents_call_still_stops_the_game(swallow):
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        play_classic("red(card)", [CtrlC(swallow), RandomAgent()], 0, ClassicConfig(hand_size=3))
    assert signal.getsignal(signal.SIGINT) is before  # the run's own handling, put back


@pytest.mark.skipif(not hasattr(signal, "raise_signal"), reason="needs raise_signal")
def test_a_real_ctrl_c_in_an_agents_call_stops_a_run_cleanly(tmp_path, capsys):
    spec = tmp_path / "ctrl_c.toml"
    spec.write_text(
        'games = 2\nplayers = 2\ndealer = "red(card)"\nconfig = {hand_size = 3}\n'
        'agents = ["test_untrusted:CtrlC", "random"]\n'
    )
    assert main(["run", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 130
    assert "interrupted" in capsys.readouterr().err


# -- the decision limit costs once ----------------------------------------------------------


class Logged(RandomAgent):
    """Logs every call it gets; hangs at its second play."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.log_ = ["start_game"]

    def choose_play(self, obs):
        self.log_.append("choose_play")
        if self.log_.count("choose_play") == 2:
            time.sleep(3600)
        return super().choose_play(obs)

    def observe(self, event):
        self.log_.append("observe")


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")
def test_a_seat_stopped_at_the_limit_is_not_called_again_in_its_game():
    agent = Logged()
    config = ClassicConfig(hand_size=5, decision_limit=0.2)
    record = play_classic("red(card)", [agent, RandomAgent()], 0, config)
    # its calls end with the stopped one: no observe, no play after it
    assert agent.log_[-1] == "choose_play" and agent.log_.count("choose_play") == 2
    (fault,) = record.faults
    later = len(record.events) - fault.event  # events it was not told of, its own too
    later_plays = sum(event.seat == 0 for event in record.events[fault.event + 1 :])
    assert fault.kind == STOPPED and fault.count == 1 + later + later_plays
    assert replay(record) == []
    again = read_record(record.to_json())
    assert again == record and again.faults[0].count == fault.count


class Endless:
    """An answer whose repr never ends."""

    def __repr__(self):
        while True:
            pass


class ShowsEndlessly(RandomAgent):
    """Plays an object whose repr never ends: its fault's message must still be written."""

    def choose_play(self, obs):
        return Endless()


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")
def test_an_answer_whose_repr_never_ends_is_shown_as_a_placeholder():
    config = ClassicConfig(hand_size=3, decision_limit=0.2)
    record = play_classic("red(card)", [ShowsEndlessly(), RandomAgent()], 0, config)
    plays = sum(event.seat == 0 for event in record.events)
    assert [(f.kind, f.message[:50]) for f in record.faults] == [
        ("illegal_card", "played <Endless that cannot be shown> (a Endless),")
    ] * plays
    assert replay(record) == []


def test_a_fault_count_is_checked():
    rules = FaultRules(FAULT_KINDS, FAULT_CALLS, ("choose_play",))

    class Record:
        config = {"decision_limit": 1.0}
        faults = (
            Fault(0, "A", "raised", "ValueError: x", 1, 1, "choose_play", count=3),
            Fault(1, "B", STOPPED, "was stopped", 2, 1, "choose_play", count=2),
            Fault(1, "B", "raised", "ValueError: y", 3, 1, "observe"),
        )

    assert check_faults(Record, ["A", "B"], 5, rules) == [
        "fault 0 (raised in choose_play, seat 0): a count of 3, but only a stopped fault"
        " counts more calls",
        "fault 1 (stopped in choose_play, seat 1): seat 1 was retired here, but faults again later",
    ]
    data = Record.faults[1].to_dict()
    assert data["count"] == 2 and "count" not in Record.faults[2].to_dict()
    config = ClassicConfig(hand_size=3)
    record = play_classic("red(card)", [Raises("exit"), RandomAgent()], 0, config)
    fault = '"call": "choose_play"}'
    text = record.to_json().replace(fault, fault[:-1] + ', "count": 0}', 1)
    with pytest.raises(RecordError, match="a fault's count is a whole number >= 1, got 0"):
        read_record(text)


# -- --decision-limit -------------------------------------------------------------------------


def test_play_takes_a_decision_limit(tmp_path, capsys):
    path = tmp_path / "game.json"
    argv = ["play", "--agents", "random,random", "--rule", "red(card)", "--seed", "1"]
    assert main([*argv, "--decision-limit", "2.5", "--json", str(path)]) == 0
    assert read_record(path.read_text()).config["decision_limit"] == 2.5


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon", "1e300"])
@pytest.mark.parametrize("command", ["play", "run spec.toml"])
def test_a_bad_decision_limit_is_one_line(capsys, command, value):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([*command.split(), "--decision-limit", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a number of seconds > 0 and at most 86400" in err


@pytest.mark.parametrize("key", ["isolate", "config.decision_limit"])
def test_a_limit_beyond_what_the_system_waits_is_refused(tmp_path, key):
    # 1e300 s overflows the interval timer and the pipe's wait: refused, not a crash
    # nor a fault at every call
    table, _, name = key.rpartition(".")
    spec = tmp_path / "long.toml"
    spec.write_text(
        'games = 2\nplayers = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n'
        + (f"[{table}]\n" if table else "")
        + f"{name} = 1e300\n"
    )
    with pytest.raises(ConfigError, match=f"{name}.* at most 86400, got 1e[+]?300"):
        load_spec(spec)


def test_a_spec_whose_grid_varies_the_limit_refuses_the_flag():
    spec = {
        "games": 2,
        "dealer": "red(card)",
        "agents": ["random", "random"],
        "grid": {"config.decision_limit": [1, 2]},
    }
    assert [cell.config for cell in load_spec(spec).cells] == [
        {"decision_limit": 1},
        {"decision_limit": 2},
    ]
    with pytest.raises(ConfigError, match="grid: varies config.decision_limit"):
        load_spec(spec, decision_limit=3.0)


def test_the_same_seed_gives_the_same_games_for_hostile_agents():
    for agent in (Disguised, Impostor, lambda: Raises("odd")):
        first = play("classic", agent())
        assert _without_agents(first) == _without_agents(play("classic", agent()))
    assert np.array_equal(
        play_delphi("red(card)", [Predicts("exits"), RandomAgent()], 5).probabilities,
        play_delphi("red(card)", [Predicts("exits"), RandomAgent()], 5).probabilities,
    )
