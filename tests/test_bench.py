"""Benchmarks: watching an agent never tells it the rule."""

from agents.simple import RandomAgent
from eleusis_lab.bench import bench_agents


class RuleSpy(RandomAgent):
    """Notes what each game tells it about the rule."""

    told: list = []

    def start_game(self, info, rng):
        super().start_game(info, rng)
        RuleSpy.told.append(info.rule)


def test_a_watched_agent_is_not_told_the_rule():
    RuleSpy.told.clear()
    table = bench_agents(["test_bench:RuleSpy", "oracle"], rules=["red(card)"], games=1)
    assert len(RuleSpy.told) >= 3 and all(rule is None for rule in RuleSpy.told)
    # the oracle, watched the same way, is still told: it names the rule at once
    assert table.loc["oracle", "identified_30"] == 1
