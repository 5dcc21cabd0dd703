"""The solo score (RULES.md section 6), a pure function of the turn the rule was found
on and the wrong declarations; the tests check it against the worked examples.
"""

from __future__ import annotations

from eleusis_lab.engines import is_int

MAX_TURNS = 30
#: Points a wrong declaration costs.
WRONG_PENALTY = 2


def solo_score(found_turn: int | None, wrong_declarations: int, max_turns: int = MAX_TURNS) -> int:
    """The benchmark's score of a solo game (RULES.md section 6).

    Found on turn ``k`` (1-based): ``max_turns - (k - 1) - 2 * wrong``; not found:
    ``-2 * wrong``. The published tables also report ``max(0, score)`` (the floored
    score) and whether the rule was found (success).

    Parameters
    ----------
    found_turn : int or None
        The turn of the correct declaration, ``None`` if the rule was not found.
    wrong_declarations : int
        Wrong declarations made (those that did not parse included).
    max_turns : int
        The game's number of turns, 30 in the benchmark.

    Examples
    --------
    >>> solo_score(1, 0), solo_score(12, 1), solo_score(30, 0), solo_score(None, 3)
    (30, 17, 1, -6)
    >>> max(0, solo_score(20, 6))  # the floored score
    0
    """
    if not (is_int(max_turns) and max_turns >= 1):
        raise ValueError(f"max_turns must be a whole number >= 1, got {max_turns!r}")
    if not (is_int(wrong_declarations) and wrong_declarations >= 0):
        raise ValueError(f"wrong_declarations must be >= 0, got {wrong_declarations!r}")
    penalty = WRONG_PENALTY * int(wrong_declarations)
    if found_turn is None:
        return -penalty
    if not (is_int(found_turn) and 1 <= found_turn <= max_turns):
        raise ValueError(f"found_turn must be None or in 1..{max_turns}, got {found_turn!r}")
    return int(max_turns - (found_turn - 1) - penalty)
