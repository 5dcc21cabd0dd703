"""Benchmarks: watching an agent never tells it the rule; agents beside published figures."""

import re

import numpy as np
import pytest

from eleusis_agents.simple import RandomAgent
from eleusis_lab.bench import bench_agents


class RuleSpy(RandomAgent):
    """Notes what each game tells it about the rule."""

    told: list = []

    def start_game(self, info, rng):
        super().start_game(info, rng)
        RuleSpy.told.append(info.rule)


def test_a_watched_agent_is_not_told_the_rule():
    RuleSpy.told.clear()
    table = bench_agents(["test_bench:RuleSpy", "oracle"], rules=["red(card)"], seeds=1)
    assert len(RuleSpy.told) >= 3 and all(rule is None for rule in RuleSpy.told)
    # the oracle, watched the same way, is still told: it names the rule at once
    assert table.loc["oracle", "identified_30"] == 1


def test_the_table_marks_the_agents_that_see_the_rule(capsys):
    table = bench_agents(["random", "oracle"], rules=["red(card)"], seeds=1, verbose=True)
    assert table["sees_rule"].to_dict() == {"random": False, "oracle": True}
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["oracle"].split()[1] == "*" and rows["random"].split()[1] != "*"
    assert "* sees the rule" in rows["*"]


class Clumsy(RandomAgent):
    """Raises on every third decision."""

    def choose_play(self, obs):
        self.calls_ = getattr(self, "calls_", 0) + 1
        if self.calls_ % 3 == 0:
            raise RuntimeError("clumsy")
        return super().choose_play(obs)


def test_faults_are_counted_and_the_first_is_shown(capsys):
    table = bench_agents(
        ["test_bench:Clumsy", "random"], rules=["red(card)"], seeds=1, verbose=True
    )
    assert table.loc["test_bench:Clumsy", "faults"] > 0 and table.loc["random", "faults"] == 0
    err = capsys.readouterr().err
    assert "warning: test_bench:Clumsy:" in err and "RuntimeError: clumsy" in err
    assert "warning: random" not in err


# -- beside the published figures (oracle and random only: the benchmark is a test set)


def _published_games():
    from eleusis_lab.bench import solo_games
    from eleusis_lab.rules.rule_file import RuleEntry

    entries = [
        RuleEntry("reds", "red(card)", published={"floored": 25.0, "success": 1.0}),
        RuleEntry("spades", "suit(card) == spades", published={"floored": 5.0}),
        RuleEntry("plain", "black(card)"),  # no published figure: left out
    ]
    return solo_games(["oracle", "random"], rules=entries, seeds=[0, 1]), entries


def test_the_agents_beside_the_published_models_sorted_by_floored_score():
    from eleusis_lab.bench import format_published_comparison, published_comparison
    from eleusis_lab.rules.rule_file import PublishedModel

    games, entries = _published_games()
    models = [
        PublishedModel("Bot A", floored=12.0, success=0.5, seconds_per_turn=40.0),
        PublishedModel("Bot B", success=0.9),
        PublishedModel("Bot C", floored=16.97),
    ]
    table = published_comparison(games, models, entries)
    assert table.index.tolist() == ["oracle", "Bot C", "Bot A", "random", "Bot B"]
    assert table["kind"].tolist() == ["agent", "published", "published", "agent", "published"]
    assert table.loc["oracle", ["floored", "success"]].tolist() == [30.0, 1.0]
    assert table.loc["Bot A", "s_per_turn"] == 40.0
    seconds = games[games["rule"] != "plain"].query("agent == 'random'")
    assert table.loc["random", "s_per_turn"] == seconds["seconds"].sum() / seconds["turns"].sum()
    text = format_published_comparison(table, 2, 2)
    assert "the agents over 2 rules with published figures x 2 seeds" in text
    assert re.search(r"^oracle\s+agent\s+30\s+1\s", text, re.MULTILINE)
    # four digits: a published score to the hundredth stays so; a missing figure is "-"
    assert re.search(r"^Bot C\s+published\s+16\.97\s+-\s+-$", text, re.MULTILINE)


def test_a_language_model_played_here_is_paired_with_its_published_figures():
    from eleusis_lab.bench import published_comparison
    from eleusis_lab.rules.rule_file import PublishedModel

    plain, entries = _published_games()
    games = plain.replace({"agent": {"random": "llm(model='gpt-oss:20b')"}})
    models = [PublishedModel("GPT-OSS 20B", floored=11.88), PublishedModel("GPT-OSS 120B")]
    table = published_comparison(games, models, entries)
    assert table.loc["llm(model='gpt-oss:20b')", "same_model"] == "GPT-OSS 20B"
    assert table.loc["GPT-OSS 20B", "same_model"] == "llm(model='gpt-oss:20b')"
    assert table[["same_model"]].isna().sum().item() == 2  # the oracle and GPT-OSS 120B
    assert "same_model" not in published_comparison(plain, models, entries)  # no model here


def test_rank_correlations_with_the_published_success_by_hand():
    import pandas as pd

    from eleusis_lab.bench import format_published_rank_correlations, published_rank_correlations
    from eleusis_lab.rules.rule_file import RuleEntry

    texts = ["red(card)", "suit(card) == spades", "rank(card) == 7", "odd(card)"]
    success = [0.9, 0.6, 0.3, 0.1]
    entries = [
        RuleEntry(f"r{i}", text, published={"success": rate, "nodes": float(4 - i)})
        for i, (text, rate) in enumerate(zip(texts, success, strict=True))
    ]
    entries.append(RuleEntry("unrated", "black(card)"))  # no published success: left out
    games = pd.DataFrame(
        {
            "agent": ["a"] * 5,
            "rule": ["r0", "r1", "r2", "r3", "unrated"],
            "found": [True, True, False, True, True],
            "found_turn": [2.0, 5.0, float("nan"), 10.0, 1.0],
        }
    )
    table = published_rank_correlations(games, entries)
    # found turns 2, 5, 31 (not found), 10 rank 1 2 4 3; success ranks 4 3 2 1:
    # d^2 = 9 + 1 + 4 + 4 = 18, rho = 1 - 6 * 18 / (4 * 15) = -0.8
    assert table.loc["found turn: a", "rho"] == pytest.approx(-0.8)
    assert table.loc["found turn: a", "rules"] == 4
    assert table.loc["published nodes", "rho"] == pytest.approx(1.0)  # 4, 3, 2, 1 nodes
    assert {"nodes", "bits", "acceptance", "classes"} <= set(table.index)
    assert "found turn: a" in format_published_rank_correlations(table)


def test_the_per_rule_table_beside_the_published_figures():
    from eleusis_lab.bench import format_published_by_rule, published_by_rule

    games, entries = _published_games()
    table = published_by_rule(games, entries)
    assert table.index.tolist() == ["reds", "spades", "mean"]
    assert table.columns.tolist() == [
        ("published", "floored"),
        ("published", "success"),
        ("oracle", "floored"),
        ("oracle", "success"),
        ("random", "floored"),
        ("random", "success"),
    ]
    spades = table.loc["spades"]
    assert spades[("published", "floored")] == 5.0 and np.isnan(spades[("published", "success")])
    assert spades[("oracle", "floored")] == 30.0 and spades[("random", "success")] == 0.0
    assert table.loc["mean", ("published", "floored")] == 15.0
    assert table.loc["mean", ("oracle", "floored")] == 30.0
    text = format_published_by_rule(table)
    assert re.search(r"^spades\s+5\s+-\s+30\s+1\s+0\s+0$", text, re.MULTILINE)
