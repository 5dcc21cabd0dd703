"""The plan of a cell's dealer: made once when a spec is loaded, carried to the workers
as data, and the source of each row's complexity figures."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

from eleusis_lab import dealers
from eleusis_lab.dealers import DEALERS, DealerPlan, make_dealer, rule_pool
from eleusis_lab.games.table import GAMES
from eleusis_lab.plugins import Plugins
from eleusis_lab.registry import AGENTS, AgentRegistry, Registry
from eleusis_lab.rules import parse
from eleusis_lab.rules.complexity import (
    MEASURES,
    Measure,
    measures,
    register_measure,
    unregister_measure,
)
from eleusis_lab.runner import plan_shards, run_experiment
from eleusis_lab.shards import Shard, play_shard
from eleusis_lab.spec import load_spec

SPREAD = {"kind": "spread", "measure": "bits", "bins": 4, "size": 1000}


def _counting(monkeypatch, cls) -> list[int]:
    """Count the dealers of class ``cls`` made from now on."""
    made = []
    inner = cls.__init__

    @functools.wraps(inner)
    def counted(self, *args, **kwargs):
        made.append(1)
        inner(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counted)
    return made


def test_a_spec_makes_its_dealer_once_and_every_cell_shares_the_plan(monkeypatch):
    made = _counting(monkeypatch, dealers.SpreadDealer)
    spec = load_spec(
        {
            "games": 8,
            "shard_size": 2,
            "dealer": SPREAD,
            "lineups": [{"name": n, "agents": ["random"] * 2} for n in ("a", "b", "c")],
        }
    )
    assert len(made) == 1
    plans = {id(cell.dealer_plan) for cell in spec.cells}
    assert len(spec.cells) == 3 and len(plans) == 1
    plan = spec.cells[0].dealer_plan
    assert (plan.kind, dict(plan.params), plan.learns, plan.size) == (
        "spread",
        {"measure": "bits", "bins": 4, "size": 1000},
        False,
        1000,
    )
    assert len(plan_shards(spec)) == 3 * 4 and len(made) == 1  # sizing makes none


def test_a_learning_dealer_keeps_its_shard_size_from_the_plan(monkeypatch):
    spec = load_spec(
        {
            "games": 20,
            "shard_size": 50,
            "dealer": {"kind": "adaptive", "bins": 3, "size": 1000},
            "agents": ["random"] * 2,
        }
    )
    monkeypatch.setattr(DealerPlan, "make", lambda plan: pytest.fail("a dealer was made"))
    assert spec.cells[0].dealer_plan.learns
    assert [(s.start, s.stop) for s in plan_shards(spec)] == [(0, 20)]


def test_a_plan_sent_to_a_process_is_that_processs_plan_of_the_same_dealer():
    plan = DealerPlan.of(SPREAD)
    assert pickle.loads(pickle.dumps(plan)) is plan
    assert DealerPlan.of(dict(SPREAD)) is plan
    assert DealerPlan.of({**SPREAD, "bins": 5}) is not plan


def test_each_dealer_a_plan_makes_is_fresh_and_deals_as_make_dealer_does():
    plan = DealerPlan.of(SPREAD)
    first, second = plan.make(), plan.make()
    assert first is not second and first.get_params() == make_dealer(SPREAD).get_params()
    direct = make_dealer(SPREAD)
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    dealt = [first.choose_rule(rng_a).rule.text for _ in range(12)]
    assert dealt == [direct.choose_rule(rng_b).rule.text for _ in range(12)]
    assert DealerPlan.of("red(card)").make().choose_rule(rng_a).rule.text == "red(card)"


def test_the_figures_of_a_pool_rule_are_the_pools_and_those_of_another_rule_computed():
    plan = DealerPlan.of(SPREAD)
    pool = rule_pool(size=1000).set_index("rule")
    text = pool.index[17]
    figures = dict(zip([m.name for m in measures()], plan.figures(text), strict=True))
    for name in ("nodes", "bits", "acceptance", "classes"):
        assert figures[name] == pool.loc[text, name]
    outside = "suit(card) == suit(last) or red(card)"
    assert outside not in pool.index
    assert plan.figures(outside) == tuple(m(parse(outside)) for m in measures())


def test_a_rule_outside_the_pool_is_measured_once_per_plan():
    calls = []

    def length(rule):
        calls.append(rule.text)
        return len(rule.text)

    register_measure(Measure("plan_test_length", length, "int64"))
    try:
        plan = DealerPlan.of("suit(card) != suit(last)")
        for _ in range(3):
            assert plan.figures("suit(card) != suit(last)")[-1] == len("suit(card) != suit(last)")
    finally:
        unregister_measure("plan_test_length")
    assert calls == ["suit(card) != suit(last)"]


def test_rows_carry_their_figures_from_the_shard_that_dealt_the_rule():
    spec = load_spec({"games": 4, "dealer": SPREAD, "agents": ["random"] * 2})
    rows = play_shard(Shard(spec.cells[0], index=0, start=0, stop=4)).rows.to_pylist()
    pool = rule_pool(size=1000).set_index("rule")
    for row in rows:
        assert row["rule_bits"] == pool.loc[row["rule"], "bits"]
        assert row["rule_nodes"] == pool.loc[row["rule"], "nodes"]


def test_two_workers_give_the_table_one_gives(tmp_path):
    spec = {"games": 8, "shard_size": 2, "dealer": SPREAD, "agents": ["random"] * 2}
    one = run_experiment(spec, out=tmp_path / "one", progress=False, jobs=1)
    two = run_experiment(spec, out=tmp_path / "two", progress=False, jobs=2)
    columns = [c for c in one.columns if c not in ("wall_time", "seconds")]
    key = ["game", "seat"]
    one = one[columns].sort_values(key).reset_index(drop=True)
    two = two[columns].sort_values(key).reset_index(drop=True)
    assert one.drop(columns=[c for c in columns if "time" in c]).equals(
        two.drop(columns=[c for c in columns if "time" in c])
    )
    assert one["rule_bits"].notna().all()


def test_every_kind_of_plug_in_is_kept_by_one_registry_class():
    for registry in (AGENTS, DEALERS, GAMES, MEASURES):
        assert isinstance(registry, Registry)
    assert issubclass(AgentRegistry, Registry) and issubclass(Plugins, Registry)
    assert "oracle" in AGENTS and AGENTS["oracle"].__name__ == "OracleAgent"
    assert list(DEALERS)[:5] == ["fixed", "catalog", "band", "spread", "adaptive"]
    assert "classic" in GAMES and "bits" in MEASURES


def test_a_registry_of_classes_takes_a_class_added_in_the_process():
    class Reds(dealers.Dealer):
        name = "reds_for_a_test"

        def choose_rule(self, rng):
            return dealers.ChosenRule(parse("red(card)"))

    DEALERS.add(Reds)
    try:
        assert make_dealer({"kind": "reds_for_a_test"}).get_params()["kind"] == "reds_for_a_test"
        assert DEALERS["reds_for_a_test"] is Reds
    finally:
        DEALERS.remove("reds_for_a_test")
    assert "reds_for_a_test" not in DEALERS
