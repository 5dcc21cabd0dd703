"""Agents in processes of their own: the same games, nothing of the engine to read,
decisions that hang stopped."""

import os
from pathlib import Path

import pytest

from eleusis_lab.agent import agent_capabilities, clone
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.table import GAMES
from eleusis_lab.isolation import isolated
from eleusis_lab.record import replay
from eleusis_lab.registry import AgentSpecError, make_agent
from eleusis_lab.runner import run_experiment
from eleusis_lab.secrets.agent import SECRETS_AGENTS
from eleusis_lab.spec import load_spec


@pytest.mark.parametrize(
    ("game", "names"),
    [
        ("classic", ["bayes", "oracle", "random"]),
        ("solo", ["bayes"]),
        ("new-eleusis", ["oracle", "random", "random"]),
        ("delphi", ["tree", "random"]),
    ],
)
def test_an_isolated_agent_plays_the_game_it_plays_in_process(game, names):
    kind = GAMES[game]
    rule = "if odd(last) then red(card) else black(card)"
    for seed in (0, 1):
        alone = [isolated(names[0]), *map(make_agent, names[1:])]
        assert type(alone[0]).__name__ == type(make_agent(names[0])).__name__
        record = kind.play(rule, alone, seed, kind.config_type())
        expected = kind.play(rule, [make_agent(n) for n in names], seed, kind.config_type())
        assert record == expected


def test_secrets_players_are_isolated_through_their_registry():
    secrets = GAMES["secrets"]
    names = ["secrets-heuristic", "secrets-random", "secrets-random", "secrets-random"]
    seats = [isolated(names[0], registry=SECRETS_AGENTS)]
    seats += [SECRETS_AGENTS.make(name) for name in names[1:]]
    record = secrets.play(None, seats, 2, secrets.config_type())
    expected = secrets.play(None, [SECRETS_AGENTS.make(n) for n in names], 2, secrets.config_type())
    assert record == expected


def test_the_rule_cannot_be_read_off_the_engine_from_another_process():
    classic = GAMES["classic"]
    config = classic.config_type()
    cheat = "tests.runner_agents:Peeker"
    peeking = classic.play("red(card)", [make_agent(cheat), make_agent("random")], 0, config)
    assert "found the rule red(card)" in peeking.faults[0].message  # in-process, it can
    isolated_game = classic.play("red(card)", [isolated(cheat), make_agent("random")], 0, config)
    assert isolated_game.faults == ()


def test_a_decision_that_never_returns_is_stopped_and_the_game_goes_on():
    classic = GAMES["classic"]
    frozen = isolated("tests.runner_agents:Hanging", {"at": 3}, limit=0.5)
    record = classic.play("red(card)", [frozen, make_agent("random")], 4, classic.config_type())
    messages = [fault.message for fault in record.faults]
    assert messages[0] == "AgentStopped: no answer to choose_play within 0.5 s"
    assert all("stopped earlier in this game" in m for m in messages[1:]) and len(messages) > 5
    assert replay(record) == []
    again = classic.play("red(card)", [frozen, make_agent("random")], 5, classic.config_type())
    assert again.faults[0].event > 0  # a new process: the first decisions are answered


def test_a_stand_in_clones_and_checks_its_parameters():
    stand_in = isolated("bayes", {"noise": 0.05})
    twin = clone(stand_in)
    assert type(twin) is type(stand_in) and twin.get_params() == stand_in.get_params()
    with pytest.raises(AgentSpecError, match="noise"):
        isolated("bayes", {"noise": -1})
    with pytest.raises(ValueError, match="limit must be None or a number of seconds"):
        isolated("random", limit=0)


def test_a_spec_plays_isolated_with_the_same_rows(tmp_path):
    spec = {
        "game": "classic",
        "games": 4,
        "players": 3,
        "dealer": {"kind": "catalog", "rules": ["red_only", "suit_cycle"]},
        "agents": ["bayes", "tree", "oracle"],
    }
    plain = run_experiment(spec, out=tmp_path / "plain", progress=False)
    alone = run_experiment({**spec, "isolate": True}, out=tmp_path / "alone", progress=False)
    columns = [c for c in plain.columns if c != "wall_time"]
    assert plain[columns].equals(alone[columns])
    assert load_spec({**spec, "isolate": 5}).cells[0].isolate == 5.0
    with pytest.raises(ConfigError, match="isolate: expected true, false or a number"):
        load_spec({**spec, "isolate": "yes"})


# -- what crosses the pipe: no code of the agent runs in the engine's process ----------


def test_an_answer_that_would_run_code_where_it_is_read_is_refused(tmp_path):
    classic = GAMES["classic"]
    marker = tmp_path / "made-by-the-answer"
    agent = isolated("tests.hostile_agents:ReducingAnswer", {"marker": str(marker)})
    record = classic.play("red(card)", [agent, make_agent("random")], 0, classic.config_type())
    assert "its answer to choose_play was refused" in record.faults[0].message
    assert "os.makedirs, which an agent may not send" in record.faults[0].message
    assert not marker.exists()  # the engine's process never ran it


IMPORT_SPY = """
import os
from eleusis_agents.simple import RandomAgent

with open(os.environ["IMPORT_MARKER"], "a") as out:
    out.write(f"{os.getpid()}\\n")


class Watcher(RandomAgent):
    # its module's import could hook the engine: it records who imports it
    sees_rule = False
    capabilities = ("watches",)

    def __init__(self, depth: int = 2):
        self.depth = depth
"""


def test_the_agents_module_is_imported_in_its_process_only(tmp_path, monkeypatch):
    import os
    import sys

    (tmp_path / "import_spy.py").write_text(IMPORT_SPY)
    marker = tmp_path / "importers"
    monkeypatch.setenv("IMPORT_MARKER", str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = isolated("import_spy:Watcher", {"depth": 3})
    assert "import_spy" not in sys.modules
    importers = marker.read_text().split()
    assert importers and str(os.getpid()) not in importers
    # the stand-in is described by the agent's process: name, parameters, capabilities
    assert repr(agent) == "Watcher(depth=3)" and type(agent).__module__ == "import_spy"
    assert {"plays", "declares", "plays_strings", "watches"} <= set(agent_capabilities(agent))
    classic = GAMES["classic"]
    record = classic.play("red(card)", [agent, make_agent("random")], 0, classic.config_type())
    assert record.faults == () and record.agents[0]["spec"] == "import_spy:Watcher"
    # nor does a run of a spec that isolates it, from checking the spec to the rows
    spec = {"games": 2, "players": 2, "dealer": "red(card)", "isolate": True}
    rows = run_experiment(
        {**spec, "agents": ["import_spy:Watcher(depth=4)", "random"]},
        out=tmp_path / "run",
        progress=False,
    )
    assert len(rows) == 4 and (rows["faults"] == 0).all()
    assert "import_spy" not in sys.modules and str(os.getpid()) not in marker.read_text()


def test_a_runs_games_share_one_process_per_isolated_agent(tmp_path, monkeypatch):
    (tmp_path / "import_spy.py").write_text(IMPORT_SPY)
    marker = tmp_path / "importers"
    monkeypatch.setenv("IMPORT_MARKER", str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = {"games": 8, "shard_size": 4, "players": 2, "dealer": "red(card)", "isolate": True}
    run_experiment(  # depth 7: an agent no other test left an idle process of
        {**spec, "agents": ["import_spy:Watcher(depth=7)", "random"]},
        out=tmp_path / "run",
        progress=False,
    )
    # the spec's check and the 8 games, one after the other: one process, given back
    # at the end of each game (before: one a game, as long as the stand-ins lived)
    assert len(marker.read_text().split()) == 1


def test_the_parameters_are_read_in_the_agents_process(tmp_path):
    import os

    marker = tmp_path / "readers"
    agent = isolated("tests.hostile_agents:ParamsSpy", {"marker": str(marker)})
    assert agent.get_params() == {"marker": str(marker)}
    classic = GAMES["classic"]
    classic.play("red(card)", [agent, make_agent("random")], 0, classic.config_type())
    readers = set(marker.read_text().split())
    assert readers and str(os.getpid()) not in readers


def test_half_a_message_is_stopped_at_the_isolation_limit():
    import time

    classic = GAMES["classic"]
    agent = isolated("tests.hostile_agents:HalfMessage", limit=0.5)
    started = time.monotonic()
    record = classic.play("red(card)", [agent, make_agent("random")], 0, classic.config_type())
    assert record.faults[0].message == "AgentStopped: no answer to choose_play within 0.5 s"
    assert time.monotonic() - started < 30  # once, not at every decision of the game


def test_isolated_agents_play_in_workers_as_in_one_process(tmp_path):
    spec = {
        "game": "classic",
        "games": 4,
        "shard_size": 1,
        "players": 2,
        "isolate": True,
        "dealer": {"kind": "catalog", "rules": ["red_only", "suit_cycle"]},
        "agents": ["bayes", "random"],
    }
    one = run_experiment(spec, out=tmp_path / "one", progress=False)
    two = run_experiment(spec, jobs=2, out=tmp_path / "two", progress=False)
    columns = [c for c in one.columns if c != "wall_time"]
    assert one[columns].equals(two[columns])
    assert (two["faults"] == 0).all()


def test_an_agents_process_dies_with_its_parent(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    script = (
        "from eleusis_lab.games.table import GAMES\n"
        "from eleusis_lab.isolation import isolated\n"
        "from eleusis_lab.registry import make_agent\n"
        "classic = GAMES['classic']\n"
        "seats = [isolated('tests.runner_agents:Hanging', {'how': 'loop'}), make_agent('random')]\n"
        "classic.play('red(card)', seats, 0, classic.config_type())\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parent.parent)
    try:
        children = _wait_for_children(parent.pid)
        assert children, "the agent's process did not start"
        time.sleep(1)  # the agent is looping in its decision
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in children)
    finally:
        parent.kill()


def _wait_for_children(pid: int) -> list[int]:
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        children = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _parent_of(entry) == pid
        ]
        if children:
            return children
        time.sleep(0.2)
    return []


def _parent_of(entry: Path) -> int | None:
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("processes", [False, True])
def test_isolated_agents_play_on_dask_workers_as_in_one_process(tmp_path, processes):
    distributed = pytest.importorskip("distributed")
    spec = {
        "game": "classic",
        "games": 4,
        "shard_size": 1,
        "players": 2,
        "isolate": True,
        "dealer": {"kind": "catalog", "rules": ["red_only", "suit_cycle"]},
        "agents": ["bayes", "random"],
    }
    one = run_experiment(spec, out=tmp_path / "one", progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = run_experiment(spec, out=tmp_path / "dask", scheduler=client, progress=False)
    columns = [c for c in one.columns if c != "wall_time"]
    assert one[columns].equals(on_dask[columns])
    assert (on_dask["faults"] == 0).all()
