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


class Peeker(RandomAgent):
    """A cheat: looks through the frames that called it for the secret rule, and says
    what it found by raising (so a record shows it)."""

    def choose_play(self, obs):
        import sys

        from eleusis_lab.rules import Rule

        frame = sys._getframe(1)
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, Rule):
                    raise LookupError(f"found the rule {value.text}")
            frame = frame.f_back
        return super().choose_play(obs)


class Frozen(RandomAgent):
    """Never answers its ``when``-th decision (sleeps a day)."""

    def __init__(self, when: int = 3):
        self.when = when

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.decisions_ = 0

    def choose_play(self, obs):
        self.decisions_ += 1
        if self.decisions_ == self.when:
            time.sleep(86_400)
        return super().choose_play(obs)
