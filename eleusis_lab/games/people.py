"""How a game looks to a person at a human seat: `SeatView`, the generic view.

The human seat (`eleusis_agents.human.HumanAgent`) is the same for every game: it reads
the answers, lays out the main line with the wrong cards under it and lists what
happened since the person's last decision. What differs from game to game it asks the
game's view, which `eleusis_lab.games.table.GameType.seat_view` makes at the start of
each game: the opening line, the status under the table, how an event reads, whether
the hand is shown, what to add after the events (solo: the card drawn). The view is
also told what the person answered where a game shows something of it later (Delphi:
the predictions, for the chips; solo: the card played and the rule declared).

`SeatView` is the view of a game that declares none: the opening line, one line per
event, the wrong cards in front of each seat under the table. A game's own view
subclasses it (``eleusis_lab.games.<game>.people``) and overrides what it shows
differently.

Examples
--------
>>> from eleusis_lab.agent import Event, GameInfo, Observation
>>> from eleusis_lab.cards import parse_card
>>> view = SeatView(GameInfo("ten-cards", 1, 2, (), parse_card("QH")), "Ten cards")
>>> view.opening()
'== Ten cards: you are seat 1 of 2 players; the starter is QH =='
>>> view.event_text([Event(0, parse_card("3D"), 1, False, 0)])
'seat 0 played 3D: wrong'
>>> obs = Observation("ten-cards", 1, 1, (), (parse_card("QH"),), ((parse_card("3D"),), ()), False)
>>> view.status(obs, [])
['wrong cards: seat 0: 3D; you: none']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eleusis_lab.agent import Event, GameInfo, Observation
from eleusis_lab.cards import Card, format_cards

__all__ = ["SeatView"]

_WIDTH = 100  # a terminal's width, for the lines that can grow


class SeatView:
    """What a person at a human seat is shown of a game: the generic view, and the base
    of a game's own.

    The seat makes one view per game and calls it as the game goes: the methods under
    "told" record what the person did or heard (they show nothing themselves), those
    under "asked" return the text to show.

    Parameters
    ----------
    info : GameInfo
        What the seat was told when the game started.
    title : str
        The game's name for people (`GameType.label`).
    turn_cap : int or None
        The cap on turns to show the person (the seat's ``max_turns``, else the default
        of the game's ``max_turns`` option); None: the game has none.

    Attributes
    ----------
    shows_hand : bool
        Whether the person's hand is shown under the table (not in Delphi: nobody holds
        cards there).
    """

    shows_hand = True

    def __init__(self, info: GameInfo, title: str, turn_cap: int | None = None):
        self.info = info
        self.title = title
        self.turn_cap = turn_cap

    # -- told ------------------------------------------------------------------------------

    def observe(self, event: Event) -> str | None:
        """Told a public event; returns a note to add to its line, or None."""
        return None

    def played(self, obs: Observation, card: Card) -> None:
        """Told the card the person chose to play from ``obs``."""

    def predicted(self, obs: Observation, cards: Sequence[Card], answers: Sequence[bool]) -> None:
        """Told the person's predictions: right (True) or wrong for each of ``cards``."""

    def declared(self, obs: Observation, rule: str) -> None:
        """Told the rule text the person declared."""

    def judged(self, declaration: Any) -> None:
        """Told how the engine judged a declaration (``correct``, ``reason``), where it
        tells (`eleusis_agents.human.HumanAgent.hear_judgement`)."""

    # -- asked -------------------------------------------------------------------------------

    def opening(self) -> str:
        """The line shown when the game starts."""
        info = self.info
        players = f"{info.n_players} player{'s' if info.n_players != 1 else ''}"
        starter = f"; the starter is {info.starter}" if info.starter is not None else ""
        return f"== {self.title}: you are seat {info.seat} of {players}{starter} =="

    def who(self, seat: int) -> str:
        """``"you"`` for the person's seat, else ``"seat N"``."""
        return "you" if seat == self.info.seat else f"seat {seat}"

    def same_turn(self, first: Event, other: Event) -> bool:
        """Whether ``other`` reads on one line with ``first`` (the cards of one turn)."""
        return False

    def event_text(self, group: Sequence[Event]) -> str:
        """One line of "since your last decision": an event, or the events of one turn
        (`same_turn`). The kinds of `eleusis_lab.agent.Event` each read their own way."""
        event = group[0]
        cards = format_cards(each.card for each in group)
        who = self.who(event.seat)
        if event.kind == "string":
            return f"{who} played the string {cards}: wrong (which card failed is not told)"
        if event.kind == "set_aside":
            return f"{who} declared no play: right; the hand set aside: {cards}"
        if event.kind == "dealer":
            return f"{who} declared no play: wrong; the dealer played {cards} from that hand"
        return f"{who} played {cards}: {'right' if event.right else 'wrong'}"

    def wrong_mark(self, event: Event) -> str:
        """A mark after a wrong card in the table (classic: ``*`` in phase 2)."""
        return ""

    def side_line(self, obs: Observation) -> Sequence[Sequence[Card]] | None:
        """The wrong cards under each main-line card when the observation tells them
        (New Eleusis); None: the seat lays out the wrong cards it saw played."""
        return None

    def news(self, obs: Observation) -> list[str]:
        """Lines to add after the events since the person's last decision."""
        return []

    def status(self, obs: Observation, seen: Sequence[Event]) -> list[str]:
        """The lines under the table: here the wrong cards in front of each seat.

        ``seen`` is every event of the game so far.
        """
        piles = [
            f"{self.who(seat)}: {format_cards(pile) or 'none'}"
            for seat, pile in enumerate(obs.wrong_cards)
        ]
        line = "wrong cards: " + "; ".join(piles)
        if len(line) > _WIDTH:
            return ["wrong cards:", *(f"  {pile}" for pile in piles)]
        return [line]
