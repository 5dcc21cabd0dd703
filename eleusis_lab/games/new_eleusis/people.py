"""New Eleusis for people: what a human seat shows (`NewEleusisView`)."""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Event, GameInfo
from eleusis_lab.cards import Card
from eleusis_lab.games.new_eleusis.decisions import NewEleusisObservation
from eleusis_lab.games.new_eleusis.record import PLAY, SET_ASIDE, STRING
from eleusis_lab.games.people import SeatView

__all__ = ["NewEleusisView"]


class NewEleusisView(SeatView):
    """The cards of one turn read on one line; the table lays out the side line; the
    status tells every seat's hand size, the Prophet (and who became or stopped being
    the Prophet since the last table), the cards played and sudden death.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> view = NewEleusisView(GameInfo("new-eleusis", 0, 3, (), None), "New Eleusis")
    >>> string = [Event(1, card, 1, False, 0, "string") for card in parse_cards("3H 5D")]
    >>> view.same_turn(*string), view.event_text(string)
    (True, 'seat 1 played the string 3H 5D: wrong (which card failed is not told)')
    """

    def __init__(self, info: GameInfo, title: str, turn_cap: int | None = None):
        super().__init__(info, title, turn_cap)
        self.prophet: int | None = None  # the Prophet at the last table shown

    def same_turn(self, first: Event, other: Event) -> bool:
        return (
            other.seat == first.seat
            and other.kind == first.kind
            and other.right == first.right
            and (first.kind in (STRING, SET_ASIDE) or (first.kind == PLAY and first.right))
        )

    def side_line(self, obs: NewEleusisObservation) -> Sequence[Sequence[Card]] | None:
        return obs.side_line or None

    def status(self, obs: NewEleusisObservation, seen: Sequence[Event]) -> list[str]:
        seats = []
        for seat, size in enumerate(obs.hand_sizes):
            notes = [f"{size} card{'s' if size != 1 else ''}"]
            if seat == obs.prophet:
                notes.append("Prophet")
            if seat in obs.expelled:
                notes.append("expelled")
            seats.append(f"{self.who(seat)} {', '.join(notes)}")
        lines = self._prophet_news(obs.prophet)
        lines.append("hands: " + "; ".join(seats))
        played = f"cards played: {obs.cards_played}"
        if obs.prophet is not None:
            played += f" (the Prophet's marker went down after {obs.marker})"
        lines.append(played)
        if obs.phase == 2:
            lines.append("sudden death: a wrong play expels its player")
        return lines

    def _prophet_news(self, prophet: int | None) -> list[str]:
        """Who became the Prophet or was overthrown since the last table."""
        before, self.prophet = self.prophet, prophet
        lines = []
        if before is not None and before != prophet:
            who = "you were" if before == self.info.seat else f"the Prophet (seat {before}) was"
            lines.append(f"{who} overthrown: a call the dealer overruled")
        if prophet is not None and prophet != before:
            who = "you are" if prophet == self.info.seat else f"seat {prophet} is"
            lines.append(f"{who} the Prophet now")
        return lines
