"""``eleusis-lab compare`` (eleusis_lab.compare): two real runs of a study side by side."""

from __future__ import annotations

import pytest

from eleusis_lab import run_experiment
from eleusis_lab.cli import main

SPEC = {
    "name": "tiny-compare",
    "games": 30,
    "shard_size": 15,
    "dealer": {"kind": "spread", "measure": "bits", "bins": 3, "grammar": "colours_suits"},
    "config": {"hand_size": 6},
    "lineups": [
        {"name": "random", "agents": ["random", "random"]},
        {"name": "oracle", "agents": ["oracle", "random"]},
    ],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The same spec twice with one seed, and once with another."""
    paths = {}
    for name, seed in (("first", 1), ("again", 1), ("other", 2)):
        paths[name] = tmp_path_factory.mktemp(name)
        run_experiment({**SPEC, "seed": seed}, out=paths[name], progress=False)
    return paths


def test_the_same_run_twice_lies_inside_every_interval(runs, capsys):
    assert main(["compare", str(runs["first"]), str(runs["again"])]) == 0
    out = capsys.readouterr().out
    estimates = [line for line in out.splitlines() if line.startswith("| correlation")]
    # two line-ups and their pool, each with at least the measure the dealer spreads
    assert len(estimates) >= 3
    assert all(line.endswith("| yes |") for line in estimates)
    # the same games give the same estimates: each line shows one interval twice
    for line in estimates:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[3] == cells[4]


def test_another_seed_is_compared_estimate_by_estimate(runs, capsys):
    code = main(["compare", str(runs["first"]), str(runs["other"])])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| correlation")]
    outside = [line for line in rows if line.endswith("| NO |")]
    assert code == (1 if outside else 0)
    total = len(
        [line for line in out.splitlines() if line.startswith(("| correlation", "| regression"))]
    )
    inside = total - len([line for line in out.splitlines() if line.endswith("| NO |")])
    assert f"{inside} of {total} estimates" in out


def test_a_folder_without_results_is_named(tmp_path, capsys):
    assert main(["compare", str(tmp_path), str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err
