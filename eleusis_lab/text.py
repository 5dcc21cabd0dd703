"""Wording shared by the messages and tables the toolkit prints."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: float, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1.

    ``many`` is the plural when it is not ``noun + "s"``.

    >>> plural(1, "shard"), plural(2, "shard"), plural(0, "game"), plural(1.0, "game")
    ('1 shard', '2 shards', '0 games', '1 game')
    >>> plural(1, "context class", "context classes"), plural(3, "class", "classes")
    ('1 context class', '3 classes')
    """
    word = noun if count == 1 else (many or f"{noun}s")
    return f"{count:g} {word}"
