"""Benchmarks: watching an agent never tells it the rule."""

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
    table = bench_agents(["test_bench:RuleSpy", "oracle"], rules=["red(card)"], games=1)
    assert len(RuleSpy.told) >= 3 and all(rule is None for rule in RuleSpy.told)
    # the oracle, watched the same way, is still told: it names the rule at once
    assert table.loc["oracle", "identified_30"] == 1


class Clumsy(RandomAgent):
    """Raises on every third decision."""

    def choose_play(self, obs):
        self.calls_ = getattr(self, "calls_", 0) + 1
        if self.calls_ % 3 == 0:
            raise RuntimeError("clumsy")
        return super().choose_play(obs)


def test_faults_are_counted_and_the_first_is_shown(capsys):
    table = bench_agents(
        ["test_bench:Clumsy", "random"], rules=["red(card)"], games=1, verbose=True
    )
    assert table.loc["test_bench:Clumsy", "faults"] > 0 and table.loc["random", "faults"] == 0
    err = capsys.readouterr().err
    assert "warning: test_bench:Clumsy:" in err and "RuntimeError: clumsy" in err
    assert "warning: random" not in err
