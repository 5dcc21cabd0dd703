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
