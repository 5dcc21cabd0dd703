"""Agents for the runner tests, importable by ``module:Class`` from worker processes."""

import contextlib
import time

from eleusis_agents.secrets import RandomSecretsAgent
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


def hang(how: str) -> None:
    """Do not return for an hour: ``"sleep"``; ``"loop"``, in pure Python; or
    ``"swallow"``, sleep in a loop that catches every ``Exception`` (the decision
    limit's interrupt is not one). ``"raise"`` raises at once, the fault a stop is
    compared to."""
    if how == "sleep":
        time.sleep(3600)
    elif how == "loop":
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            pass
    elif how == "swallow":
        for _ in range(3600):
            with contextlib.suppress(Exception):
                time.sleep(1)
    else:
        raise RuntimeError("a fault in place of a hang")


class _HangsAt:
    """Its ``at``-th call of ``method`` in each game does not return (`hang`, as
    ``how``); with ``at=1``, ``method="start_game"`` hangs at the start of every game."""

    def __init__(self, method: str = "choose_play", how: str = "sleep", at: int = 1):
        self.method = method
        self.how = how
        self.at = at

    def _call(self, method: str) -> None:
        if method == self.method:
            self.calls_ += 1
            if self.calls_ == self.at:
                hang(self.how)

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.calls_ = 0
        self._call("start_game")

    def observe(self, event):
        self._call("observe")
        super().observe(event)


class Hanging(_HangsAt, RandomAgent):
    """A random player that hangs in one of its calls (see `_HangsAt`)."""

    def choose_play(self, obs):
        self._call("choose_play")
        return super().choose_play(obs)

    def predict(self, obs, cards):
        self._call("predict")
        return super().predict(obs, cards)

    def choose_turn(self, obs):
        self._call("choose_turn")
        return super().choose_turn(obs)

    def solo_move(self, obs):
        self._call("solo_move")
        return super().solo_move(obs)


class HangingSecrets(_HangsAt, RandomSecretsAgent):
    """A random player of Secrets that hangs in one of its calls (see `_HangsAt`)."""

    def __init__(self, method: str = "choose_action", how: str = "sleep", at: int = 1):
        super().__init__(method, how, at)

    def choose_action(self, view, legal):
        self._call("choose_action")
        return super().choose_action(view, legal)
