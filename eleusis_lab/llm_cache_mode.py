"""Which cache a language model's replies go through (`CACHE_MODES`), as a command's
``--llm-cache`` sets it for every language-model agent of the command, its worker and
agent processes included (`CACHE_MODE_ENV`, `cache_mode_in_force`).

The endpoints and their cache are in `eleusis_lab.chat` and `eleusis_lab.chat_cache`;
this module holds the modes alone, so that the command line reads them without loading
either.
"""

from __future__ import annotations

import os

__all__ = ["CACHE_MODES", "CACHE_MODE_ENV", "cache_mode_in_force"]

#: What an endpoint does with its cache: nothing ("off"), answer from it without storing
#: new replies ("read"), or answer from it and store new replies ("write").
CACHE_MODES = ("off", "read", "write")

#: The environment variable that sets the cache mode of every language-model agent of a
#: command (``--llm-cache``), in its worker and agent processes too, over the agents' own
#: ``cache_mode``: their parameters name a run's shards, so a flag must not change them.
CACHE_MODE_ENV = "ELEUSIS_LAB_LLM_CACHE"


def cache_mode_in_force(default: str = "write") -> str:
    """The cache mode in force: `CACHE_MODE_ENV`'s when it is set, else ``default``.

    >>> cache_mode_in_force("read")
    'read'
    >>> os.environ[CACHE_MODE_ENV] = "off"
    >>> cache_mode_in_force("read")
    'off'
    >>> os.environ[CACHE_MODE_ENV] = "never"
    >>> cache_mode_in_force("read")
    Traceback (most recent call last):
    ...
    ValueError: ELEUSIS_LAB_LLM_CACHE='never': expected one of off, read, write
    >>> del os.environ[CACHE_MODE_ENV]
    """
    chosen = os.environ.get(CACHE_MODE_ENV, "").strip()
    if not chosen:
        return default
    if chosen not in CACHE_MODES:
        raise ValueError(f"{CACHE_MODE_ENV}={chosen!r}: expected one of {', '.join(CACHE_MODES)}")
    return chosen
