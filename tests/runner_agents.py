"""Agents for the runner tests, importable by ``module:Class`` from worker processes."""

import time

from eleusis_agents.simple import OracleAgent, RandomAgent


class Proposer(OracleAgent):
    """Knows the rule and proposes it, with confidence 0.95, from its ``after``-th play."""

    def __init__(self, after: int = 5, wrong: bool = False, choice: str = "random"):
        self.after = after
        self.wrong = wrong
        self.choice = choice

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.seen_ = 0

    def observe(self, event):
        self.seen_ += 1

    def propose_rule(self):
        if self.seen_ < self.after:
            return None
        return ("true" if self.wrong else self.info_.rule.text), 0.95


class Sleeper(RandomAgent):
    """A random player that takes ``seconds`` per decision: runs long enough to interrupt."""

    def __init__(self, seconds: float = 0.001):
        self.seconds = seconds

    def choose_play(self, obs):
        time.sleep(self.seconds)
        return super().choose_play(obs)


class Faulty(RandomAgent):
    """A random player whose every decision raises: the engine substitutes a card."""

    def choose_play(self, obs):
        raise RuntimeError("this agent always fails")
