"""The decision limit: a call of an agent still running at the game's ``decision_limit``
is stopped, recorded as a ``stopped`` fault and replaced as a call that raised, and its
seat is retired for the rest of the game (its later calls not made, the one fault
counting them); the game ends and replays clean. Hangs are stopped at limits of a fifth
of a second."""

from __future__ import annotations

import contextlib
import io
import json
import signal
import threading
import time

import pytest
from runner_agents import Hanging, HangingSecrets, Sleeper, hang

from eleusis_agents.secrets import RandomSecretsAgent
from eleusis_agents.simple import RandomAgent
from eleusis_lab.cli import build_parser
from eleusis_lab.engines import DecisionLimit, DecisionStopped, can_interrupt
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic import ClassicConfig, classic_deal, play_classic
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import replay
from eleusis_lab.storage import load_results

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")

LIMIT = 0.2
STOPPED = "was stopped: still deciding at the decision limit of 0.2 s"
HOWS = ("sleep", "loop", "swallow")
#: Each game: small options, the players beside the hanging seat 0, its main decision.
SETUPS = {
    "classic": ({"hand_size": 5}, 1, "choose_play"),
    "four-to-eight": ({"hand_size": 4}, 2, "choose_play"),
    "delphi": ({}, 1, "predict"),
    "new-eleusis": ({"hand_size": 4, "max_turns": 30}, 2, "choose_turn"),
    "solo": ({"max_turns": 6}, 0, "solo_move"),
    "secrets": ({"max_turns": 24}, 3, "choose_action"),
}


class _BrokenFrom:
    """Raises at the ``at``-th call of ``method`` and at every call of the game after
    it, whatever the method: the game a seat retired at that call plays."""

    def start_game(self, info, rng):
        self.broken_ = False
        super().start_game(info, rng)

    def _call(self, method: str) -> None:
        if method == self.method:
            self.calls_ += 1
            self.broken_ = self.broken_ or self.calls_ == self.at
        if self.broken_:
            raise RuntimeError("broken from its stop on")

    def declare_prophet(self, obs):
        self._call("declare_prophet")
        return super().declare_prophet(obs)

    def call_play(self, obs, cards):
        self._call("call_play")
        return super().call_play(obs, cards)

    def call_no_play(self, obs, hand):
        self._call("call_no_play")
        return super().call_no_play(obs, hand)


class BrokenFrom(_BrokenFrom, Hanging):
    """`Hanging`, raising where it would hang and at every call after."""


class BrokenSecretsFrom(_BrokenFrom, HangingSecrets):
    """`HangingSecrets`, raising where it would hang and at every call after."""

    def answer_duel(self, view, duel):
        self._call("answer_duel")
        return super().answer_duel(view, duel)


def play(game: str, method: str, how: str, **options):
    """A game of ``game`` whose seat 0 hangs at its second call of ``method`` (its one
    call of ``start_game``); ``how="broken"``: raises there and at every call after."""
    small, others, _ = SETUPS[game]
    kind = GAMES[game]
    config = kind.make_config({**small, "decision_limit": LIMIT, **options})
    at = 1 if method == "start_game" else 2
    if game == "secrets":
        seat = BrokenSecretsFrom if how == "broken" else HangingSecrets
        agents = [seat(method, how, at), *(RandomSecretsAgent() for _ in range(3))]
        return kind.play(None, agents, 3, config)
    seat = BrokenFrom if how == "broken" else Hanging
    agents = [seat(method, how, at), *(RandomAgent() for _ in range(others))]
    return kind.play("red(card)", agents, 3, config)


def _but_faults(record) -> dict:
    """The record as data, without the agents (their parameters say how they fail) and
    the faults."""
    data = record.to_dict()
    data.pop("agents", None)
    data.pop("agent", None)
    data.pop("faults")
    return data


CASES = [
    *((game, decision, how) for game, (_, _, decision) in SETUPS.items() for how in HOWS),
    *((game, "start_game", HOWS[i % 3]) for i, game in enumerate(SETUPS)),
    *((game, "observe", HOWS[(i + 1) % 3]) for i, game in enumerate(SETUPS)),
]


@pytest.mark.parametrize(("game", "method", "how"), CASES)
def test_a_call_running_at_the_limit_is_stopped_and_its_seat_retired(game, method, how):
    stopped = play(game, method, how)
    (fault,) = stopped.faults
    assert (fault.seat, fault.call, fault.kind, fault.message) == (0, method, "stopped", STOPPED)
    assert replay(stopped) == []
    # the game went on to its end exactly as with an agent that raises at the same call
    # and at every call after it, each a fault there: the one stopped fault counts them
    broken = play(game, method, "broken")
    first = broken.faults[0]
    assert (first.seat, first.call, first.event) == (0, method, fault.event)
    assert {other.seat for other in broken.faults} == {0}
    assert fault.count == len(broken.faults) > 1
    assert _but_faults(stopped) == _but_faults(broken)


@pytest.mark.parametrize("game", SETUPS)
def test_with_on_fault_raise_a_stop_is_an_agent_error_naming_seat_agent_and_limit(game):
    with pytest.raises(AgentError, match=r"^seat 0 \(Hanging") as caught:
        play(game, SETUPS[game][2], "sleep", on_fault="raise")
    assert str(caught.value).endswith(STOPPED)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # disarmed all the same


class CatchesEverything(RandomAgent):
    """Catches the interrupt itself, then plays its last card: too late to count."""

    def choose_play(self, obs):
        with contextlib.suppress(BaseException):
            time.sleep(3600)
        return obs.hand[-1]


def test_an_agent_that_catches_the_interrupt_is_stopped_all_the_same():
    config = ClassicConfig(hand_size=3, decision_limit=LIMIT)
    record = play_classic("red(card)", [CatchesEverything(), RandomAgent()], 0, config)
    (fault,) = record.faults
    assert (fault.seat, fault.kind, fault.event) == (0, "stopped", 0)
    assert fault.count == 3  # each of its plays, and each replaced by the first card
    _, hands, _ = classic_deal(0, 2, 3)
    assert [e.card for e in record.events if e.seat == 0 and e.phase == 1] == list(hands[0])
    assert replay(record) == []


class TimerWatch(RandomAgent):
    """Notes the interval timer and the SIGALRM handler at each event it observes."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.seen_ = set()

    def observe(self, event):
        self.seen_.add((signal.getitimer(signal.ITIMER_REAL), signal.getsignal(signal.SIGALRM)))


@pytest.mark.parametrize("game", [game for game in SETUPS if game != "secrets"])
def test_a_limit_of_none_arms_nothing_and_a_limit_only_for_the_game(game):
    small, others, _ = SETUPS[game]
    before = signal.getsignal(signal.SIGALRM)
    for limit in (None, LIMIT):
        watch = TimerWatch()
        config = GAMES[game].make_config({**small, "decision_limit": limit})
        GAMES[game].play("red(card)", [watch, *(RandomAgent() for _ in range(others))], 1, config)
        timers = {timer for timer, _ in watch.seen_}
        if limit is None:
            assert watch.seen_ == {((0.0, 0.0), before)}
        else:
            assert (0.0, 0.0) not in timers and {handler for _, handler in watch.seen_} != {before}
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is before


@pytest.mark.parametrize("game", SETUPS)
@pytest.mark.parametrize("limit", [0, -1.0, "1", True, float("inf"), float("nan")])
def test_a_bad_limit_is_a_config_error(game, limit):
    with pytest.raises(ConfigError, match="decision_limit must be None or a number of seconds"):
        GAMES[game].make_config({"decision_limit": limit})


def test_outside_the_main_thread_the_limit_is_not_enforced_and_the_game_goes_on():
    config = ClassicConfig(hand_size=1, decision_limit=0.05)
    played = []

    def game() -> None:
        played.append(can_interrupt())
        played.append(play_classic("red(card)", [Sleeper(0.2), RandomAgent()], 0, config))

    thread = threading.Thread(target=game)
    thread.start()
    thread.join()
    enforced, record = played
    assert not enforced and record.faults == () and replay(record) == []
    assert can_interrupt()  # here, in the main thread


def test_a_limit_leaves_another_interval_timer_alone():
    def theirs(signum, frame):
        raise AssertionError("not due yet")

    previous = signal.signal(signal.SIGALRM, theirs)
    signal.setitimer(signal.ITIMER_REAL, 600)
    try:
        with DecisionLimit(0.05) as limit:
            assert not limit.enforced
            assert limit.call(max, 1, 2) == 2
        assert signal.getsignal(signal.SIGALRM) is theirs
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_stop_names_the_limit_and_the_replay_wants_a_limit():
    with DecisionLimit(LIMIT) as limit, pytest.raises(DecisionStopped, match=STOPPED):
        limit.call(hang, "loop")
    record = play("classic", "choose_play", "sleep")
    unlimited = record.replace(config={**record.config, "decision_limit": None})
    assert replay(unlimited) == ["a stopped fault is recorded, but the game had no decision limit"]


def _run(tmp_path, agent: str, how: str, config: str, *flags: str):
    """The results of a run of 2 games of ``agent`` (hanging or raising at its second
    play) against random."""
    spec = tmp_path / f"{how}.toml"
    spec.write_text(
        f'name = "{how}"\ngames = 2\nseed = 1\ndealer = "suit_cycle"\n'
        f'agents = [{{name = "{agent}", how = "{how}", at = 2}}, "random"]\n'
        f"config = {{{config}}}\n"
    )
    argv = ["run", str(spec), "--out", str(tmp_path / how), "--quiet", *flags]
    args = build_parser().parse_args(argv)
    assert args.run(args) == 0
    return load_results(tmp_path / how)


def test_a_run_with_a_hanging_agent_completes_and_counts_its_faults(tmp_path, capsys):
    limit = ("--decision-limit", str(LIMIT))
    hanging = _run(tmp_path, "runner_agents:Hanging", "loop", "hand_size = 4", *limit)
    stops = capsys.readouterr().err
    config = f"hand_size = 4, decision_limit = {LIMIT}"
    broken = _run(tmp_path, "test_decision_limit:BrokenFrom", "broken", config)
    raised = capsys.readouterr().err
    # the flag set every game's limit, as the spec's config would
    assert set(hanging["config"]) == set(broken["config"])
    assert {json.loads(config)["decision_limit"] for config in hanging["config"]} == {LIMIT}
    # a stopped seat is retired: its rows are those of a seat that raises from there on,
    # its faults counting every call it was not asked
    columns = ["game", "seat", "score", "wrong_cards", "cards_left", "plays", "faults"]
    assert hanging[columns].equals(broken[columns])
    total = int(broken["faults"].sum())
    assert total > 2 and stops == raised == (
        f"warning: agents faulted {total} times in the 2 games played (see the faults column)\n"
    )


@pytest.mark.parametrize(("agents", "limit"), [("human,random", None), ("random,random", 60.0)])
def test_play_turns_the_limit_off_for_a_person_at_a_seat(monkeypatch, agents, limit):
    limits = []
    arm = DecisionLimit.__enter__

    def noting(self):
        limits.append(self.seconds)
        return arm(self)

    monkeypatch.setattr(DecisionLimit, "__enter__", noting)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))  # the person quits at once
    argv = ["play", "--agents", agents, "--rule", "red(card)", "--seed", "1"]
    args = build_parser().parse_args(argv)
    assert args.run(args) == 0
    assert limits == [limit]
