"""What ``eleusis-lab play`` shows when a game is stopped before its end.

A person at a human seat who types ``q`` (or presses Ctrl-C) stops the game at once:
the engine returns no record. `stopped_report` then says what he came to find out,
the secret rule, and the scores so far. Those are the game's to tell
(`eleusis_lab.games.table.GameType.scores_so_far`), from what the human seat saw
(`GameSoFar`): classic Eleusis rebuilds them from the deal of the seed and the plays,
solo from the wrong declarations; a game that declares none has no scores before its
end, and the report counts the plays.

Without a human seat (Ctrl-C in a game of programs) only the rule is told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import Rule
from eleusis_lab.text import plural

__all__ = ["GameSoFar", "stopped_report"]


@dataclass(frozen=True)
class GameSoFar:
    """A game stopped before its end, as a human seat saw it: what a game's
    ``scores_so_far`` reads.

    Attributes
    ----------
    events : tuple of Event
        Every public event of the game so far.
    seat : int
        The human seat.
    players : int
        The seats at the table.
    seed : int
        The game's seed (classic Eleusis: its deal gives the cards held).
    config : dataclass
        The game's options (``max_turns``, ``hand_size``).
    view : SeatView or None
        The seat's view of the game, with what it was told beyond the events (solo:
        the wrong declarations, `eleusis_lab.games.solo.people.SoloView`).
    """

    events: tuple[Event, ...]
    seat: int
    players: int
    seed: int
    config: Any
    view: SeatView | None = None


def stopped_report(
    why: str, game: str, rule: Rule | None, seed: int, config: Any, agents: Sequence[Any]
) -> str:
    """The lines shown when a game is stopped: why, the secret rule, the scores so far.

    Parameters
    ----------
    why : str
        Who or what stopped the game (``"the player at seat 0 quit the game"``).
    game : str
        The game's name, as ``eleusis-lab play --game`` spells it.
    rule : Rule or None
        The secret rule (``None`` in a match, where each game has its own).
    seed : int
        The game's seed.
    config : dataclass
        The game's options.
    agents : sequence of Agent
        The seats; the first with a ``view_`` (a human seat,
        `eleusis_agents.human.HumanAgent`) tells what happened so far.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> from eleusis_lab.games.solo import SoloConfig
    >>> print(stopped_report("interrupted", "solo", parse("red(card)"), 0, SoloConfig(), []))
    <BLANKLINE>
    game stopped: interrupted
    the secret rule: red(card)
    """
    lines = ["", f"game stopped: {why}"]
    if rule is not None:
        named = f" ({rule.name})" if rule.name and rule.name != rule.text else ""
        lines.append(f"the secret rule: {rule.text}{named}")
    seat = next((agent for agent in agents if hasattr(agent, "view_")), None)
    if seat is None:
        return "\n".join(lines)
    so_far = GameSoFar(tuple(seat.seen_), seat.info_.seat, len(agents), seed, config, seat.view_)
    declared = GAMES[game].scores_so_far if game in GAMES else None
    lines += (declared or _plays_so_far)(so_far)
    return "\n".join(lines)


def _plays_so_far(game: GameSoFar) -> list[str]:
    """The report of a game that declares no ``scores_so_far``: the plays so far.

    >>> _plays_so_far(GameSoFar((), 0, 2, 0, None))
    ['0 cards played; no scores before the end of the game']
    """
    return [f"{plural(len(game.events), 'card')} played; no scores before the end of the game"]
