"""Exceptions a user of the toolkit can cause, shared by every game engine.

Each one says what went wrong and where (which seat, which agent, which setting), so
that the command line can print it as one line instead of a traceback.
"""

from __future__ import annotations

import difflib


class AgentError(RuntimeError):
    """An agent broke the rules of the interface, e.g. played a card it does not hold.

    Examples
    --------
    >>> raise AgentError("seat 1 (RandomAgent()) played 'QH', which it does not hold")
    Traceback (most recent call last):
    ...
    eleusis_lab.errors.AgentError: seat 1 (RandomAgent()) played 'QH', which it does not hold
    """


class ConfigError(ValueError):
    """A game or match was set up with settings it cannot be played with."""


def did_you_mean(word: object, choices) -> str:
    """A hint naming the choice closest to a mistyped ``word``, or "" when none is close.

    >>> did_you_mean("bayse", ["bayes", "random", "tree"])
    " (did you mean 'bayes'?)"
    >>> did_you_mean("zzz", ["bayes"])
    ''
    """
    close = difflib.get_close_matches(str(word), [str(choice) for choice in choices], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
