"""Wording shared by the messages and tables the toolkit prints."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["plural", "wrap_phrases"]


def plural(count: float, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1.

    ``many`` is the plural when it is not ``noun + "s"``.

    >>> plural(1, "shard"), plural(2, "shard"), plural(0, "game"), plural(1.0, "game")
    ('1 shard', '2 shards', '0 games', '1 game')
    >>> plural(1, "context class", "context classes"), plural(3, "class", "classes")
    ('1 context class', '3 classes')
    >>> plural(1_000_000, "game"), plural(2.5, "second")  # a whole count in full
    ('1000000 games', '2.5 seconds')
    """
    word = noun if count == 1 else (many or f"{noun}s")
    number = int(count) if float(count).is_integer() else f"{count:g}"
    return f"{number} {word}"


def wrap_phrases(head: str, phrases: Sequence[str], width: int) -> list[str]:
    """``head``, then ``phrases`` separated by commas, in lines of at most ``width``
    characters broken only between phrases (a longer phrase has a line of its own); the
    lines after the first are indented as far as ``head``.

    >>> wrap_phrases("rule: ", ["2 nodes", "7.9 bits", "50% of faces right"], 30)
    ['rule: 2 nodes, 7.9 bits,', '      50% of faces right']
    """
    pieces = [f"{phrase}," for phrase in phrases[:-1]] + list(phrases[-1:])
    lines = [head + (pieces[0] if pieces else "")]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += f" {piece}"
        else:
            lines.append(" " * len(head) + piece)
    return lines
