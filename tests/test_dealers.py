"""Tests of eleusis_lab.dealers: each kind chooses as specified, deterministically."""

from __future__ import annotations

import collections
import json
import pickle
import re

import numpy as np
import pytest

from eleusis_lab.dealers import (
    AdaptiveDealer,
    BandDealer,
    CatalogDealer,
    ChosenRule,
    Dealer,
    FixedDealer,
    SpreadDealer,
    make_dealer,
    rule_pool,
)
from eleusis_lab.errors import ConfigError
from eleusis_lab.rules import parse
from eleusis_lab.rules.analysis import check_acceptable
from eleusis_lab.rules.catalog import acceptable_rules, catalog, get_rule
from eleusis_lab.rules.complexity import complexity
from eleusis_lab.rules.enumerate import build_space

SIZE = 1000  # a pool that builds in about a second (the doctests use it too)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def draws(dealer: Dealer, n: int, seed: int = 0) -> list[ChosenRule]:
    generator = rng(seed)
    return [dealer.choose_rule(generator) for _ in range(n)]


# -- fixed ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["suit_cycle", "suit(card) == (suit(last) + 1) mod 4", get_rule("suit_cycle")]
)
def test_fixed_always_deals_the_same_rule(spec):
    dealer = make_dealer(spec)
    assert isinstance(dealer, FixedDealer)
    chosen = draws(dealer, 20)
    assert {c.rule for c in chosen} == {get_rule("suit_cycle")}
    assert {c.arm for c in chosen} == {None}


def test_fixed_table_and_catalog_name():
    dealer = make_dealer({"kind": "fixed", "rule": "color_alternation"})
    assert dealer.choose_rule(rng()).rule.name == "color_alternation"
    assert dealer.get_params() == {
        "kind": "fixed",
        "rule": "color_alternation",
        "require_acceptable": True,
    }


def test_fixed_may_deal_an_unacceptable_rule_when_asked():
    dealer = make_dealer({"kind": "fixed", "rule": "higher_rank", "require_acceptable": False})
    rule = dealer.choose_rule(rng()).rule
    assert rule.name == "higher_rank" and not check_acceptable(rule).acceptable


# -- catalog -------------------------------------------------------------------------------


def test_catalog_deals_only_acceptable_rules_roughly_uniformly():
    dealer = make_dealer({"kind": "catalog"})
    acceptable = acceptable_rules()
    n = 200 * len(acceptable)
    counts = collections.Counter(c.rule for c in draws(dealer, n, seed=1))
    assert set(counts) == set(acceptable)  # every acceptable rule, nothing else
    for rule in counts:
        assert check_acceptable(rule).acceptable
    # 200 expected per rule, standard deviation about 14: +-30% is over 4 sigma
    assert min(counts.values()) > 140 and max(counts.values()) < 260


def test_catalog_without_the_acceptability_requirement_deals_every_rule():
    dealer = CatalogDealer(require_acceptable=False)
    seen = {c.rule.name for c in draws(dealer, 3000)}
    assert seen == {entry.name for entry in catalog()}


def test_catalog_list_of_names():
    names = ["suit_cycle", "color_alternation", "parity_alternation"]
    dealer = make_dealer({"kind": "catalog", "rules": names})
    counts = collections.Counter(c.rule.name for c in draws(dealer, 3000))
    assert set(counts) == set(names)
    assert all(800 < count < 1200 for count in counts.values())


def test_catalog_weights():
    weights = {"suit_cycle": 3, "color_alternation": 1, "parity_alternation": 0}
    dealer = make_dealer({"kind": "catalog", "weights": weights})
    counts = collections.Counter(c.rule.name for c in draws(dealer, 4000))
    assert "parity_alternation" not in counts
    assert 2.6 < counts["suit_cycle"] / counts["color_alternation"] < 3.4


# -- generated rules -------------------------------------------------------------------------


def independent_pool(grammar: str, size: int) -> dict[str, object]:
    """Every acceptable rule of the space with its figures, without the dealers' code."""
    space = build_space(grammar, size, cache=False)
    pool = {}
    for i in range(len(space)):
        rule = parse(space.text(i))
        if check_acceptable(rule).acceptable:
            pool[rule.text] = complexity(rule)
    return pool


@pytest.mark.parametrize(("grammar", "size"), [("standard", 300), ("verdict", 300)])
def test_the_pool_is_every_acceptable_rule_of_the_space(grammar, size):
    # The pool skips the exact check for rules that fail on a starter; nothing is lost.
    expected = independent_pool(grammar, size)
    pool = rule_pool(grammar, size)
    assert len(pool) == len(expected) > 50
    assert set(pool["rule"]) == set(expected)
    for row in pool.itertuples():
        figures = expected[row.rule]
        assert (row.nodes, row.bits, row.acceptance, row.classes) == (
            figures.nodes,
            figures.bits,
            figures.acceptance,
            figures.classes,
        )


def test_rule_pool_columns_and_all_rules():
    everything = rule_pool(size=300, acceptable_only=False)
    acceptable = rule_pool(size=300)
    assert list(acceptable.columns) == [
        "hypothesis",
        "rule",
        "nodes",  # the built-in complexity measures, in their order
        "bits",
        "acceptance",
        "classes",
        "fewest_legal",
        "acceptable",
    ]
    assert len(everything) == 300 and not everything["acceptable"].all()
    assert everything["hypothesis"].tolist() == list(range(300))
    kept = everything[everything["acceptable"]].reset_index(drop=True)
    assert kept["rule"].tolist() == acceptable["rule"].tolist()
    assert (everything["acceptable"] == (everything["fewest_legal"] >= 13)).all()
    acceptable.loc[0, "rule"] = "changed"  # a copy: the cached pool is untouched
    assert rule_pool(size=300).loc[0, "rule"] != "changed"


@pytest.mark.parametrize(
    ("measure", "low", "high"),
    [("bits", 20, 23), ("nodes", 3, 5), ("acceptance", 0.3, 0.5), ("classes", 4, 9)],
)
def test_band_rules_lie_inside_the_band_and_are_acceptable(measure, low, high):
    dealer = make_dealer(
        {"kind": "band", "measure": measure, "low": low, "high": high, "size": SIZE}
    )
    assert isinstance(dealer, BandDealer)
    chosen = draws(dealer, 60)
    assert {c.arm for c in chosen} == {f"{measure} [{low:g}, {high:g})"}
    for c in {c.rule for c in chosen}:
        assert low <= getattr(complexity(c), measure) < high
        assert check_acceptable(c).acceptable
    pool = rule_pool(size=SIZE)
    inside = pool[(pool[measure] >= low) & (pool[measure] < high)]
    assert sorted(dealer.rules) == sorted(inside["rule"])
    assert len({c.rule for c in chosen}) > 1


def test_spread_cycles_through_bins_without_repeating_rules():
    dealer = make_dealer({"kind": "spread", "measure": "bits", "bins": 10, "size": SIZE})
    arms = dealer.arms
    assert len(arms) >= 8  # ties in bits merge some of the 10 quantile bins
    per_bin = 30
    chosen = draws(dealer, per_bin * len(arms))
    counts = collections.Counter(c.arm for c in chosen)
    assert counts == {arm: per_bin for arm in arms}
    for k in range(0, len(chosen), len(arms)):  # each cycle visits every bin once
        assert sorted(c.arm for c in chosen[k : k + len(arms)]) == sorted(arms)
    # without replacement inside a bin: all different until a bin is used up
    pool = rule_pool(size=SIZE)
    sizes = [len(dealer._pool.bin_members("bits", *b)) for b in dealer._bins]
    assert sum(sizes) == len(pool)
    distinct = {c.rule for c in chosen}
    assert len(distinct) == sum(min(per_bin, size) for size in sizes) >= 200
    bits = [complexity(rule).bits for rule in distinct]
    assert min(bits) < pool["bits"].quantile(0.05) and max(bits) == pool["bits"].max()


def test_spread_reshuffles_a_used_up_bin():
    dealer = SpreadDealer(measure="nodes", bins=10, size=SIZE)
    sizes = [len(dealer._pool.bin_members("nodes", *b)) for b in dealer._bins]
    label, size = min(zip(dealer.arms, sizes, strict=True), key=lambda pair: pair[1])
    chosen = [c for c in draws(dealer, (2 * size + 1) * len(sizes)) if c.arm == label]
    assert len({c.rule for c in chosen[:size]}) == size  # every rule once, then again
    assert {c.rule for c in chosen[size : 2 * size]} == {c.rule for c in chosen[:size]}


def test_spread_by_width():
    dealer = SpreadDealer(measure="acceptance", bins=5, binning="width", size=SIZE)
    assert dealer.arms[0].startswith("acceptance [0.2499, ")
    for chosen in draws(dealer, 25):
        value = complexity(chosen.rule).acceptance
        low, high = (float(x) for x in re.findall(r"[\d.]+", chosen.arm))
        assert low <= value <= high


# -- adaptive -------------------------------------------------------------------------------


EDGES = [5, 20, 23, 25]
BEST = "bits [20, 23)"


def play_bandit(dealer: AdaptiveDealer, rounds: int, seed: int = 0) -> list[ChosenRule]:
    """Feed the dealer a noisy score: its best arm pays 1 on average, the others 0."""
    generator, noise = rng(seed), rng(seed + 1000)
    chosen = []
    for _ in range(rounds):
        pick = dealer.choose_rule(generator)
        dealer.record_score(pick, float(pick.arm == BEST) + noise.normal(0, 0.5))
        chosen.append(pick)
    return chosen


@pytest.mark.parametrize("method", ["ucb1", "thompson"])
def test_adaptive_learns_the_best_band(method):
    dealer = make_dealer({"kind": "adaptive", "edges": EDGES, "method": method, "size": SIZE})
    chosen = play_bandit(dealer, 300)
    counts = collections.Counter(c.arm for c in chosen)
    assert counts.most_common(1)[0][0] == BEST
    assert counts[BEST] > 0.6 * len(chosen)
    late = collections.Counter(c.arm for c in chosen[-100:])
    assert late[BEST] > 75
    assert set(counts) == set(dealer.arms)  # every arm was tried
    table = dealer.arm_table().set_index("arm")
    assert table.loc[BEST, "mean_score"] == pytest.approx(1.0, abs=0.2)
    assert table["chosen"].sum() == table["scored"].sum() == 300


def test_adaptive_logs_every_choice():
    dealer = AdaptiveDealer(bands=[[5, 20], [20, 25]], method="thompson", size=SIZE)
    chosen = play_bandit(dealer, 12)
    assert [entry["game"] for entry in dealer.choices] == list(range(12))
    assert [entry["arm"] for entry in dealer.choices] == [c.arm for c in chosen]
    assert [entry["rule"] for entry in dealer.choices] == [c.rule.text for c in chosen]
    assert all(isinstance(entry["score"], float) for entry in dealer.choices)
    json.dumps(dealer.choices)  # plain data, ready for a table or a file
    for c in chosen:  # each rule lies in its band
        low, high = (float(x) for x in re.findall(r"[\d.]+", c.arm))
        assert low <= complexity(c.rule).bits < high and check_acceptable(c.rule).acceptable


def test_adaptive_scores_recorded_later_go_to_the_right_choice():
    dealer = AdaptiveDealer(edges=EDGES, size=SIZE)
    generator = rng(3)
    batch = [dealer.choose_rule(generator) for _ in range(3)]  # one per arm, none scored
    assert sorted(c.arm for c in batch) == sorted(dealer.arms)
    assert all(entry["score"] is None for entry in dealer.choices)
    for i, c in reversed(list(enumerate(batch))):
        dealer.record_score(c, float(i))
    assert [entry["score"] for entry in dealer.choices] == [0.0, 1.0, 2.0]
    stranger = ChosenRule(parse("red(card)"), dealer.arms[0])  # chosen by a copy
    dealer.record_score(stranger, 5.0)
    assert dealer.choices[-1] == {
        "game": None,
        "arm": dealer.arms[0],
        "rule": "red(card)",
        "score": 5.0,
    }


def test_adaptive_quantile_bins():
    dealer = AdaptiveDealer(bins=3, measure="acceptance", size=SIZE)
    assert len(dealer.arms) == 3 and dealer.arms[-1].endswith("]")
    assert dealer.arm_table()["rules"].sum() == len(rule_pool(size=SIZE))


def test_adaptive_record_score_errors():
    dealer = AdaptiveDealer(edges=EDGES, size=SIZE)
    chosen = dealer.choose_rule(rng())
    with pytest.raises(ValueError, match=r"'bits \[0, 1\)' is not an arm of this dealer"):
        dealer.record_score(ChosenRule(chosen.rule, "bits [0, 1)"), 1.0)
    for bad in (float("nan"), float("inf"), "3", True):
        with pytest.raises(ValueError, match="a score is a"):
            dealer.record_score(chosen, bad)


# -- every kind ----------------------------------------------------------------------------

SPECS = {
    "fixed": {"kind": "fixed", "rule": "suit_cycle"},
    "catalog": {"kind": "catalog"},
    "weighted": {"kind": "catalog", "weights": {"suit_cycle": 2.5, "color_alternation": 1}},
    "band": {"kind": "band", "measure": "bits", "low": 18, "high": 24, "size": SIZE},
    "spread": {"kind": "spread", "measure": "classes", "bins": 4, "size": SIZE},
    "ucb1": {"kind": "adaptive", "edges": EDGES, "size": SIZE},
    "thompson": {"kind": "adaptive", "bands": [[5, 22], [22, 25]], "method": "thompson"}
    | {"size": SIZE},
}


def run(dealer: Dealer, generator: np.random.Generator, n: int) -> list[tuple[str, str | None]]:
    out = []
    for game in range(n):
        chosen = dealer.choose_rule(generator)
        dealer.record_score(chosen, float(len(chosen.rule.text) % 7 + game % 3))
        out.append((chosen.rule.text, chosen.arm))
    return out


@pytest.mark.parametrize("name", SPECS)
def test_same_seed_same_sequence(name):
    first = run(make_dealer(SPECS[name]), rng(11), 40)
    assert first == run(make_dealer(SPECS[name]), rng(11), 40)
    if name != "fixed":
        assert first != run(make_dealer(SPECS[name]), rng(12), 40)


@pytest.mark.parametrize("name", SPECS)
def test_pickled_dealer_carries_on_where_it_stopped(name):
    dealer = make_dealer(SPECS[name])
    generator = rng(5)
    run(dealer, generator, 7)
    data = pickle.dumps(dealer)
    assert len(data) < 20_000  # parameters and learned state, never the shared pool
    copy = pickle.loads(data)
    state = generator.bit_generator.state
    expected = run(dealer, generator, 15)
    generator.bit_generator.state = state
    assert run(copy, generator, 15) == expected
    assert pickle.loads(pickle.dumps(copy.choose_rule(generator))).rule.text


@pytest.mark.parametrize("name", SPECS)
def test_params_are_json_and_rebuild_the_dealer(name):
    dealer = make_dealer(SPECS[name])
    params = dealer.get_params()
    assert params["kind"] == dealer.name
    assert json.loads(json.dumps(params)) == params
    rebuilt = make_dealer(params)
    assert type(rebuilt) is type(dealer) and rebuilt.get_params() == params
    assert run(rebuilt, rng(2), 10) == run(make_dealer(SPECS[name]), rng(2), 10)
    assert repr(dealer).startswith(type(dealer).__name__ + "(")


def test_choose_rule_needs_a_generator():
    for dealer in (FixedDealer("red(card)"), CatalogDealer()):
        with pytest.raises(TypeError, match="numpy.random.Generator"):
            dealer.choose_rule(0)


def test_a_dealer_of_ones_own():
    class Alternating(Dealer):
        name = "alternating"

        def __init__(self, first: str = "red(card)"):
            self.first = first

        def choose_rule(self, rng):
            return ChosenRule(parse(self.first))

    dealer = Alternating()
    dealer.record_score(dealer.choose_rule(rng()), 3.0)  # the default learns nothing
    assert dealer.get_params() == {"kind": "alternating", "first": "red(card)"}
    with pytest.raises(TypeError):
        Dealer()


# -- configuration errors ------------------------------------------------------------------------

BAD_SPECS = [
    (
        {"kind": "bnad"},
        "dealer.kind: unknown kind 'bnad' (did you mean 'band'?); choose from fixed, catalog,"
        " band, spread, adaptive, or give 'module:Class' (a Dealer subclass)",
    ),
    ({"measure": "bits"}, "dealer.kind: missing; choose from fixed, catalog"),
    (["band"], "dealer: expected a table such as"),
    (
        {"kind": "band", "measure": "bitz", "low": 20, "high": 30},
        "dealer.measure: unknown measure 'bitz'; choose from nodes, bits, acceptance, classes",
    ),
    ({"kind": "band", "low": 30, "high": 20}, "dealer.low: low (30) must be below high (20)"),
    ({"kind": "band", "low": 20, "high": 20}, "dealer.low: low (20) must be below high (20)"),
    ({"kind": "band", "low": "a", "high": 20}, "dealer.low: expected a number, got 'a'"),
    ({"kind": "band", "low": 20}, "dealer.high: missing; a band dealer needs high"),
    (
        {"kind": "band", "lo": 20, "high": 30},
        "dealer.lo: unknown key for a band dealer; keys: kind, measure, low, high, grammar, size",
    ),
    (
        {"kind": "band", "low": 40, "high": 50, "size": SIZE},
        "dealer: the band bits [40, 50) holds no acceptable rule of the pool (grammar 'standard'"
        " with size 1000); its bits ranges from 5.17 to 24.83",
    ),
    (
        {"kind": "band", "low": 20, "high": 30, "grammar": "standrad"},
        "dealer.grammar: unknown grammar 'standrad'; choose from colours_suits, standard",
    ),
    (
        {"kind": "band", "low": 20, "high": 30, "grammar": {"cards": ["card", "nope"]}},
        "dealer.grammar: not a grammar: unknown cards: ['nope']",
    ),
    ({"kind": "band", "low": 20, "high": 30, "size": 0}, "dealer.size: expected a whole number"),
    ("suit_cylce", "dealer.rule: no catalog rule named 'suit_cylce'; did you mean suit_cycle"),
    ("catalog", "dealer.rule: no catalog rule named 'catalog'; a dealer kind is given as"),
    ({"kind": "fixed"}, "dealer.rule: missing; a fixed dealer needs rule"),
    (
        {"kind": "fixed", "rule": "red(card) & black(last)"},
        "dealer.rule: the rule text does not parse: line 1, column 11: unexpected character '&'",
    ),
    (
        {"kind": "fixed", "rule": "higher_rank"},
        "dealer.rule: the rule 'higher_rank' is not acceptable: after KC only 0 cards are legal",
    ),
    (
        {"kind": "fixed", "rule": "red(card)", "require_acceptable": "no"},
        "dealer.require_acceptable: expected true or false, got 'no'",
    ),
    (
        {"kind": "catalog", "rules": ["suit_cycle", "suit_cylce"]},
        "dealer.rules[1]: no catalog rule named 'suit_cylce'; did you mean suit_cycle",
    ),
    ({"kind": "catalog", "rules": []}, "dealer.rules: an empty list"),
    ({"kind": "catalog", "rules": "suit_cycle"}, "dealer.rules: expected a list of catalog names"),
    (
        {"kind": "catalog", "rules": ["suit_cycle", "suit_cycle"]},
        "dealer.rules[1]: 'suit_cycle' is listed twice",
    ),
    (
        {"kind": "catalog", "rules": ["suit_cycle", "higher_rank"]},
        "dealer.rules[1]: the rule 'higher_rank' is not acceptable",
    ),
    (
        {"kind": "catalog", "weights": {"suit_cycle": 1, "colour_alternation": 2}},
        "dealer.weights: unknown catalog rule(s) 'colour_alternation': did you mean "
        "color_alternation",
    ),
    (
        {"kind": "catalog", "weights": {"suit_cycle": -1}},
        "dealer.weights.suit_cycle: a weight is a finite number >= 0, got -1",
    ),
    (
        {"kind": "catalog", "weights": {"suit_cycle": 0}},
        "dealer.weights: every weight is zero",
    ),
    (
        {"kind": "catalog", "weights": {"higher_rank": 1}},
        "dealer.weights.higher_rank: the rule 'higher_rank' is not acceptable",
    ),
    (
        {"kind": "catalog", "rules": ["suit_cycle"], "weights": {"suit_cycle": 1}},
        "dealer.weights: give either rules or weights, not both",
    ),
    ({"kind": "spread", "bins": 0}, "dealer.bins: expected a whole number >= 1, got 0"),
    (
        {"kind": "spread", "binning": "even"},
        "dealer.binning: unknown binning 'even'; choose from quantile, width",
    ),
    ({"kind": "adaptive"}, "dealer.bands: give one of bands = [[low, high], ...], edges = [...]"),
    (
        {"kind": "adaptive", "bins": 3, "edges": [1, 2]},
        "dealer.bands: give one of bands = [[low, high], ...], edges = [...] or bins "
        "(got edges and bins)",
    ),
    (
        {"kind": "adaptive", "bands": [[5, 20], [25, 21]]},
        "dealer.bands[1]: low (25) must be below high (21)",
    ),
    ({"kind": "adaptive", "bands": [[5, 20, 25]]}, "dealer.bands[0]: expected [low, high]"),
    (
        {"kind": "adaptive", "bands": [[5, 20], [40, 50]], "size": SIZE},
        "dealer.bands[1]: the band bits [40, 50) holds no acceptable rule",
    ),
    (
        {"kind": "adaptive", "edges": [5, 20, 20, 25]},
        "dealer.edges: the edges must increase, got [5, 20, 20, 25]",
    ),
    (
        {"kind": "adaptive", "edges": [5, 20, 25, 45], "size": SIZE},
        "dealer.edges[2]: the band bits [25, 45) holds no acceptable rule",
    ),
    (
        {"kind": "adaptive", "bins": 3, "method": "ucb"},
        "dealer.method: unknown method 'ucb'; choose from ucb1, thompson",
    ),
    (
        {"kind": "adaptive", "bins": 3, "exploration": -1},
        "dealer.exploration: expected a number >= 0, got -1",
    ),
]


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS, ids=[m for _, m in BAD_SPECS])
def test_bad_specs_raise_config_errors_naming_key_and_reason(spec, message):
    with pytest.raises(ConfigError) as caught:
        make_dealer(spec)
    assert str(caught.value).startswith(message), str(caught.value)
