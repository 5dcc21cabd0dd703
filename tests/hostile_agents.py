"""Agents that attack the engine from an isolated process, importable by ``module:Class``
in the agents' processes (`eleusis_lab.isolation`)."""

import gc
import multiprocessing.connection
import os
import time
from pathlib import Path

from eleusis_agents.simple import RandomAgent


class _Touch:
    """An answer whose unpickling would create ``path``: it runs code where it is read."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return os.makedirs, (self.path,)


class ReducingAnswer(RandomAgent):
    """Answers every play with an object whose ``__reduce__`` would make a folder."""

    def __init__(self, marker: str = ""):
        self.marker = marker

    def choose_play(self, obs):
        return _Touch(self.marker)


class ParamsSpy(RandomAgent):
    """Writes, each time its parameters are read, the id of the process reading them."""

    def __init__(self, marker: str = ""):
        self.marker = marker

    def get_params(self, deep: bool = True):
        with Path(self.marker).open("a") as out:
            out.write(f"{os.getpid()}\n")
        return super().get_params(deep)


class HalfMessage(RandomAgent):
    """On its first play, writes the first half of a message on its own pipe, then waits."""

    def choose_play(self, obs):
        pipes = [
            o for o in gc.get_objects() if isinstance(o, multiprocessing.connection.Connection)
        ]
        for pipe in pipes:
            os.write(pipe.fileno(), (1000).to_bytes(4, "big") + b"x" * 10)
        time.sleep(3600)
