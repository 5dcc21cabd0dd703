"""Agents cannot reach the engine's state through the cards they are handed."""

from eleusis_lab.agent import Agent
from eleusis_lab.games.classic import play_classic
from eleusis_lab.record import replay
from eleusis_lab.registry import parse_agent_list


class Forger(Agent):
    """Tries to turn every card it is shown into the ace of clubs, then plays one."""

    def choose_play(self, obs):
        for card in (*obs.hand, *obs.main_line):
            object.__setattr__(card, "rank", 1)
        return obs.hand[0]


def test_a_card_cannot_be_changed_by_an_agent_and_later_games_are_intact():
    record = play_classic("red(card)", [Forger(), *parse_agent_list("random")], seed=0)
    assert record.faults and {fault.kind for fault in record.faults} == {"raised"}
    assert "AttributeError" in record.faults[0].message
    assert replay(record) == []
    # The engine's decks are shared by every game of the process: still whole.
    later = play_classic("red(card)", parse_agent_list("random,random"), seed=1)
    assert replay(later) == []
    assert len(set(later.main_line) | {c for hand in later.deal for c in hand}) == 52


class Insider(Agent):
    """Declares that it sees the rule, and plays by it: a cheat, unless marked."""

    sees_rule = True

    def choose_play(self, obs):
        from eleusis_lab.rules import Context

        legal = self.info_.rule.legal_mask(Context(obs.main_line, obs.last_play_right))
        return next((c for c in obs.hand if (legal >> c.face) & 1), obs.hand[0])


def test_an_agent_told_the_rule_is_marked_in_records_rows_and_leaderboards(tmp_path):
    from eleusis_lab.analysis import leaderboard
    from eleusis_lab.runner import run_experiment

    record = play_classic("red(card)", [Insider(), *parse_agent_list("random")], seed=0)
    assert record.agents[0]["sees_rule"] is True and "sees_rule" not in record.agents[1]
    spec = {
        "game": "classic",
        "games": 2,
        "players": 2,
        "dealer": "red(card)",
        "agents": ["tests.test_containment:Insider", "random"],
    }
    rows = run_experiment(spec, out=tmp_path, progress=False)
    assert rows.groupby("agent")["sees_rule"].all().to_dict() == {
        "random": False,
        "tests.test_containment:Insider": True,
    }
    board = leaderboard(rows)
    assert set(board["agent"]) == {"random", "tests.test_containment:Insider (sees the rule)"}
