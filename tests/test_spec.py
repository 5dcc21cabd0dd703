"""Experiment specs: reading TOML, the checks and their messages, grid expansion."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.spec import AgentSpec, Lineup, load_spec

SPEC_TOML = """
name = "complexity"
game = "classic"
games = 10
seed = 3
shard_size = 4
out = "results/complexity"
dealer = "red(card)"

[config]
hand_size = 8

[[lineups]]
name = "mixed"
agents = ["random", "oracle", {name = "oracle", choice = "first"}]

[[lineups]]
name = "randoms"
agents = ["random"]
rotate = false

[grid]
players = [3, 4]
"config.retry_in_turn" = [false, true]
"""


def base(**changes):
    spec = {"games": 4, "dealer": "red(card)", "agents": ["random", "oracle"]}
    spec.update(changes)
    return {key: value for key, value in spec.items() if value is not None}


def message(spec, **kwargs) -> str:
    with pytest.raises(ConfigError) as caught:
        load_spec(spec, **kwargs)
    return str(caught.value)


# -- reading ------------------------------------------------------------------------------


def test_a_toml_file_is_read_and_expanded(tmp_path):
    path = tmp_path / "complexity.toml"
    path.write_text(SPEC_TOML)
    spec = load_spec(path)
    assert spec.name == "complexity"
    assert spec.units == 10 and spec.out == "results/complexity"
    assert len(spec.cells) == 2 * 2 * 2  # line-ups x players x retry_in_turn
    first = spec.cells[0]
    assert first.values == {"config.retry_in_turn": False, "lineup": "mixed", "players": 3}
    assert first.config == {"hand_size": 8, "retry_in_turn": False}
    assert (first.seed, first.shard_size, first.dealer) == (3, 4, "red(card)")
    assert first.lineup.agents[2] == AgentSpec("oracle", {"choice": "first"})
    # line-ups outermost, then the grid in the order it is written, last axis fastest
    assert [(c.lineup.name, c.players, c.config["retry_in_turn"]) for c in spec.cells] == [
        (lineup, players, retry)
        for lineup in ("mixed", "randoms")
        for players in (3, 4)
        for retry in (False, True)
    ]
    assert spec.data["grid"]["players"] == [3, 4]


def test_the_name_defaults_to_the_file_stem(tmp_path):
    path = tmp_path / "my_study.toml"
    path.write_text('games = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n')
    assert load_spec(path).name == "my_study"
    assert load_spec(base()).name == "experiment"


def test_a_missing_file_and_bad_toml_are_config_errors(tmp_path):
    assert message(tmp_path / "nope.toml") == f"{tmp_path / 'nope.toml'}: no such spec file"
    path = tmp_path / "bad.toml"
    path.write_text("games = \n")
    assert message(path).startswith(f"{path}: invalid TOML: ")
    assert message(str(path)).startswith(f"{path}: invalid TOML")


def test_the_messages_name_the_file(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(
        'games = 3\ndealer = "red(card)"\n'
        '[[lineups]]\nagents = ["random"]\n'
        '[[lineups]]\nagents = ["bayes", "tree", "bayse"]\n'
    )
    assert message(path) == (
        f"{path}: lineups[1].agents[2]: unknown agent 'bayse' (did you mean 'bayes'?)"
    )


# -- validation messages ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (base(gams=3), "spec: gams: unknown key (did you mean 'games'?); the keys are: "),
        (base(games=None), "spec: say how many to play: games = N or matches = N"),
        (base(matches=2), "spec: say how many to play: games = N or matches = N"),
        (base(games=0), "spec: games: must be >= 1, got 0"),
        (base(games=2.5), "spec: games: expected a whole number, got 2.5"),
        (base(games=True), "spec: games: expected a whole number, got True"),
        (base(seed=-1), "spec: seed: must be >= 0, got -1"),
        (base(players=1), "spec: players: must be >= 2, got 1"),
        (base(shard_size=0), "spec: shard_size: must be >= 1, got 0"),
        (base(events="yes"), "spec: events: expected true or false, got 'yes'"),
        (base(deals_per_player=2), "spec: deals_per_player: only for matches (matches = N)"),
        (base(dealer=None), "spec: dealer: missing"),
        (base(game="clasic"), "spec: game: unknown game 'clasic' (did you mean 'classic'?)"),
        (base(agents=["random", "bayse"]), "spec: agents[1]: unknown agent 'bayse'"),
        (base(agents=[]), "spec: agents: expected a non-empty list of agents"),
        (base(agents=["random", 3]), "spec: agents[1]: expected an agent name or a table"),
        (base(agents=["random", {"choice": "first"}]), "spec: agents[1]: an agent table needs"),
        (
            base(agents=["random", {"name": "oracle", "colour": "red"}]),
            "spec: agents[1]: agent 'oracle' takes no parameter 'colour' (its parameters: choice)",
        ),
        (
            base(agents=["random", "agents.nowhere:Agent"]),
            "spec: agents[1]: agent 'agents.nowhere:Agent': cannot import module",
        ),
        (base(agents=["random"]), "spec: agents: one agent, so say how many play: players = N"),
        (
            base(lineups=[{"agents": ["random", "random"]}]),
            "spec: give either `agents = [...]` (one line-up) or [[lineups]] tables",
        ),
        (
            base(agents=None, lineups=[{"name": "a", "agents": ["random"] * 2, "rotat": False}]),
            "spec: lineups[0].rotat: unknown key (did you mean 'rotate'?)",
        ),
        (
            base(agents=None, lineups=[{"name": "a"}]),
            "spec: lineups[0]: a line-up needs agents = [...]",
        ),
        (
            base(agents=None, lineups=[{"name": "a", "agents": ["random"] * 2}] * 2),
            "spec: lineups[1].name: two line-ups are called 'a'",
        ),
        (
            base(config={"hand_sise": 5}),
            "spec: config: classic has no option 'hand_sise' (did you mean 'hand_size'?)",
        ),
        (
            base(config={"hand_size": 0}),
            "spec: config: hand_size must be None or a whole number >= 1, got 0",
        ),
        (base(grid={"player": [2, 3]}), "spec: grid.player: cannot vary (did you mean 'players'?)"),
        (base(grid={"games": [2, 3]}), "spec: grid.games: cannot vary"),
        (base(grid={"players": []}), "spec: grid.players: expected a non-empty list of values"),
        (base(grid={"players": [2, 2]}), "spec: grid.players: a value is listed twice"),
        (base(grid={"players": [2, 1]}), "spec: grid.players[1]: must be >= 2, got 1"),
        (
            base(grid={"config": {"max_turns": [10, -1]}}),
            "spec: grid.config.max_turns[1]: max_turns must be a whole number >= 0, got -1",
        ),
        (
            base(grid={"config.hand_sise": [3]}),
            "spec: grid.config.hand_sise[0]: classic has no option 'hand_sise'",
        ),
        (base(dealer=3), "spec: dealer: expected a string or a table, got 3"),
        (base(dealer={"kind": "nope"}), "spec: dealer.kind: unknown kind 'nope'"),
        (
            base(
                grid={
                    "dealer": [
                        "red(card)",
                        {"kind": "band", "measure": "bitz", "low": 1, "high": 2},
                    ]
                }
            ),
            "spec: grid.dealer[1].measure: unknown measure 'bitz'",
        ),
        (
            base(dealer="red(card"),
            "spec: dealer.rule: the rule text does not parse: line 1, column 9: expected ')'",
        ),
        (base(matches=2, games=None), "spec: players: classic needs at least 3 participants"),
        (base(duplicate="yes"), "spec: duplicate: expected true or false, got 'yes'"),
        (base(rotate=False, duplicate=True), "spec: duplicate: needs rotate = true"),
        (
            base(
                agents=None,
                lineups=[{"agents": ["random"] * 2, "rotate": False, "duplicate": True}],
            ),
            "spec: lineups[0].duplicate: needs rotate = true",
        ),
        (
            base(agents=None, lineups=[{"agents": ["random"] * 2}], duplicate=True),
            "spec: duplicate: with [[lineups]] tables, write it in each of them",
        ),
        (
            base(games=None, matches=2, agents=["random"] * 3, duplicate=True),
            "spec: duplicate: only for games = N",
        ),
        (
            base(games=5, duplicate=True),
            "spec: games: 5 is not a multiple of 2: line-up 'default' plays each deal once per"
            " rotation of its 2 agents (duplicate = true)",
        ),
    ],
)
def test_bad_specs_name_the_key_and_the_reason(spec, expected):
    assert message(spec).startswith(expected)


class Lowest(Agent):
    """The core decisions only: no solo, no New Eleusis."""

    def choose_play(self, obs):
        return min(obs.hand)


def test_an_agent_without_the_capabilities_of_the_game_is_refused():
    lowest = f"{__name__}:Lowest"
    assert load_spec(base(agents=[lowest], players=2)).cells[0].lineup.agents[0].name == lowest
    assert message(base(game="solo", agents=["random", lowest])) == (
        f"spec: agents[1]: agent '{lowest}' cannot play solo: it lacks the capability"
        " 'declares' (mix in eleusis_lab.games.solo.decisions.SoloDecisions)"
    )
    assert message(base(game="new-eleusis", agents=[lowest], players=3)) == (
        f"spec: agents[0]: agent '{lowest}' cannot play new-eleusis: it lacks the capability"
        " 'plays_strings' (mix in eleusis_lab.games.new_eleusis.decisions.NewEleusisDecisions)"
    )


def test_the_games_override_is_checked():
    assert load_spec(base(), games=7).units == 7
    assert message(base(), games=0) == "spec: games (override): must be >= 1, got 0"
    assert load_spec(base()).with_units(9).units == 9
    duplicate = base(duplicate=True)
    assert message(duplicate, games=7).startswith("spec: games (override): 7 is not a multiple")
    with pytest.raises(ConfigError, match="spec: games: 9 is not a multiple of 2"):
        load_spec(duplicate).with_units(9)


# -- grid expansion -----------------------------------------------------------------------------


def test_without_a_grid_there_is_one_cell_per_lineup():
    spec = load_spec(
        base(
            agents=None,
            lineups=[{"name": "a", "agents": ["random"] * 2}, {"agents": ["oracle"] * 3}],
        )
    )
    assert [(cell.label, cell.players) for cell in spec.cells] == [
        ('{"lineup": "a"}', 2),
        ('{"lineup": "lineup1"}', 3),
    ]


def test_grid_values_of_every_kind_reach_their_cells():
    spec = load_spec(
        base(
            grid={
                "seed": [1, 2],
                "dealer": ["red(card)", {"kind": "fixed", "rule": "black(card)"}],
                "config": {"hand_size": [5, 6]},
                "players": [2, 3],
            }
        )
    )
    assert len(spec.cells) == 16
    seen = {(c.seed, str(c.dealer), c.config["hand_size"], c.players) for c in spec.cells}
    assert len(seen) == 16
    assert spec.cells[-1].values == {
        "config.hand_size": 6,
        "dealer": {"kind": "fixed", "rule": "black(card)"},
        "lineup": "default",
        "players": 3,
        "seed": 2,
    }


def test_a_grid_over_a_config_option_can_be_written_either_way():
    nested = load_spec(base(grid={"config": {"retry_in_turn": [False, True]}}))
    dotted = load_spec(base(grid={"config.retry_in_turn": [False, True]}))
    assert [c.key for c in nested.cells] == [c.key for c in dotted.cells]


def test_matches_count_participants_and_default_shard_size():
    spec = load_spec(base(games=None, matches=3, agents=["random"] * 4, deals_per_player=1))
    cell = spec.cells[0]
    assert (spec.unit, spec.units, cell.players, cell.seats) == ("match", 3, 4, 3)
    assert (cell.games_per_unit, cell.shard_size) == (4, 10)
    assert load_spec(base()).cells[0].shard_size == 100


# -- seats and cell keys ------------------------------------------------------------------------


def test_agents_fill_the_seats_in_turn_and_rotate_with_the_game():
    lineup = Lineup("x", (AgentSpec("a"), AgentSpec("b"), AgentSpec("c")))
    assert lineup.slots(3, turn=0) == [0, 1, 2]
    assert lineup.slots(3, turn=1) == [1, 2, 0]
    assert lineup.slots(4, turn=2) == [2, 0, 1, 2]
    fixed = Lineup("x", lineup.agents, rotate=False)
    assert fixed.slots(4, turn=2) == [0, 1, 2, 0]
    # over k games with k agents, every agent sits at every seat once
    assert sorted(tuple(lineup.slots(3, g)) for g in range(3)) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]


def test_duplicate_deals_group_the_games_of_a_lineup_by_rotation():
    spec = load_spec(base(games=6, agents=["random", "oracle", "random"], duplicate=True))
    lineup = spec.cells[0].lineup
    assert (lineup.rotate, lineup.duplicate, lineup.games_per_deal) == (True, True, 3)
    assert [lineup.deal(game) for game in range(6)] == [0, 0, 0, 1, 1, 1]
    tables = base(agents=None, lineups=[{"agents": ["random"] * 2, "duplicate": True}])
    assert load_spec(tables).cells[0].lineup.games_per_deal == 2
    plain = load_spec(base()).cells[0].lineup
    assert not plain.duplicate and [plain.deal(game) for game in range(3)] == [0, 1, 2]
    assert not load_spec(base(rotate=False)).cells[0].lineup.rotate  # beside `agents`


def test_a_cell_keeps_its_key_when_the_grid_grows():
    small = load_spec(base(grid={"players": [3]}))
    large = load_spec(base(grid={"players": [2, 3, 4]}))
    assert small.cells[0].key == large.cells[1].key
    assert len({cell.key for cell in large.cells}) == 3
    assert re.fullmatch(r"[0-9a-f]{12}", small.cells[0].key)


def test_a_cell_key_changes_with_any_setting_that_shapes_its_rows():
    key = load_spec(base()).cells[0].key
    for changes in (
        {"seed": 1},
        {"shard_size": 7},
        {"events": True},
        {"config": {"hand_size": 9}},
        {"dealer": "black(card)"},
        {"agents": ["random", {"name": "oracle", "choice": "first"}]},
        {"name": "other"},
        {"duplicate": True},
    ):
        assert load_spec(base(**changes)).cells[0].key != key, changes
    assert load_spec(base(games=99)).cells[0].key == key  # the count is not a setting
    # the defaults written out are the defaults: the keys of older specs stay
    assert load_spec(base(rotate=True, duplicate=False)).cells[0].key == key


# -- issue 26: bounded inputs -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["../../escape", "/tmp/absolute", "a/b", ".hidden", "-flag", "x" * 101, "tab\there"]
)
def test_a_name_that_could_leave_results_is_refused(name):
    text = message(base(name=name))
    assert text.startswith(f"spec: name: {name!r} cannot name an experiment")
    assert "letters, digits, _" in text and "\n" not in text


@pytest.mark.parametrize("name", ["rule_complexity", "my run 2", "v1.2-b+c", "_x", "x" * 100])
def test_a_name_of_the_safe_pattern_is_kept(name):
    assert load_spec(base(name=name)).name == name


def test_a_file_stem_is_held_to_the_same_pattern(tmp_path):
    path = tmp_path / "-x.toml"
    path.write_text('games = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n')
    assert "name (the file's): '-x' cannot name an experiment" in message(path)


def test_a_huge_game_count_is_refused_at_once():
    # issue 26: plan_shards ran for ever while memory grew
    started = time.perf_counter()
    assert message(base(games=99999999999999999)) == (
        "spec: games: must be at most 10,000,000, got 99,999,999,999,999,999"
    )
    assert message(base(), games=10**12).startswith("spec: games (override): must be at most")
    assert time.perf_counter() - started < 1.0


def test_a_match_counts_its_games_and_the_shards_are_bounded():
    spec = base(games=None, matches=10_000, deals_per_player=1_000, players=3)
    assert message(spec) == (
        "spec: matches: 30,000,000 games in a cell (10,000 matches of 3,000 games), more than"
        " 10,000,000"
    )
    spec = base(games=100_000, shard_size=1, grid={"seed": [1, 2]})
    assert message(spec) == (
        "spec: games: 200,000 shards in all (cells times games / shard_size), more than 100,000;"
        " play fewer or raise shard_size"
    )
    loaded = load_spec(base(games=4))
    with pytest.raises(ConfigError, match="must be at most 10,000,000"):
        loaded.with_units(10**9)


def test_cells_and_players_are_bounded():
    grid = {"seed": list(range(5001)), "config": {"retry_in_turn": [False, True]}}
    assert message(base(grid=grid)) == (
        "spec: grid: 10,002 cells (line-ups times the grid's combinations), more than 10,000"
    )
    assert message(base(players=10**9)) == "spec: players: must be at most 1,000, got 1,000,000,000"


def test_a_huge_max_turns_is_refused():
    text = message(base(config={"max_turns": 10**12}))
    assert text == "spec: config: classic: max_turns must be at most 100,000, got 1,000,000,000,000"


def test_a_spec_file_is_refused_unread_beyond_its_bound(tmp_path):
    from eleusis_lab.spec import MAX_SPEC_BYTES

    path = tmp_path / "big.toml"
    path.write_text("#" * MAX_SPEC_BYTES + '\ngames = 2\ndealer = "red(card)"\n')
    bound = f"{path}: larger than 1,000,000 bytes, the most a spec may hold"
    assert message(path).startswith(bound)
    if Path("/dev/zero").exists():  # issue 26: read until the OOM killer came
        assert message("/dev/zero").startswith("/dev/zero: larger than 1,000,000 bytes")


def _run_cli(capsys, *argv):
    from eleusis_lab.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_jobs_are_bounded_by_the_cores(capsys, tmp_path):
    from eleusis_lab.runner import run_experiment
    from eleusis_lab.spec import max_jobs

    path = tmp_path / "spec.toml"
    path.write_text('games = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n')
    with pytest.raises(SystemExit) as exited:  # argparse's error: one line, exit 2
        _run_cli(capsys, "run", str(path), "--jobs", "1000", "--out", str(tmp_path))
    out, err = capsys.readouterr()
    assert exited.value.code == 2 and out == "" and err.count("\n") == 1
    assert f"argument --jobs: at most {max_jobs()} worker processes (4 per core" in err
    assert not (tmp_path / "manifest.json").exists()
    with pytest.raises(ConfigError, match=f"at most {max_jobs()} worker processes"):
        run_experiment(base(), jobs=max_jobs() + 1, out=tmp_path / "api", progress=False)


def test_results_go_only_into_a_new_empty_or_results_folder(capsys, tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('games = 2\ndealer = "red(card)"\nagents = ["random", "random"]\n')
    # issue 26: --out / wrote rows/ and manifest.json into /; the folder of the spec too
    for folder in ("/", str(tmp_path)):
        code, out, err = _run_cli(capsys, "run", str(path), "--out", folder, "--quiet")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.startswith(f"eleusis-lab: {folder}: not a results folder: it holds other files")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]
    fresh = tmp_path / "fresh"
    for _ in range(2):  # a new folder, then the results folder it became
        assert _run_cli(capsys, "run", str(path), "--out", str(fresh), "--quiet")[0] == 0
    (tmp_path / "empty").mkdir()
    assert _run_cli(capsys, "run", str(path), "--out", str(tmp_path / "empty"), "--quiet")[0] == 0
