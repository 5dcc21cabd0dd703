"""Delphi for people: what a human seat shows (`DelphiView`)."""

from __future__ import annotations

from collections.abc import Sequence

from eleusis_lab.agent import Event, GameInfo, Observation
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.games.people import SeatView

__all__ = ["DelphiView"]


class DelphiView(SeatView):
    """Nobody holds or plays cards: an event is the oracle's card and its verdict, with
    what the person's prediction of it won or lost; the status counts the cards placed
    and the person's chips.

    Examples
    --------
    >>> from eleusis_lab.cards import parse_card
    >>> view = DelphiView(GameInfo("delphi", 0, 2, (), parse_card("QH")), "Delphi")
    >>> view.predicted(None, [parse_card("3D")], [True])
    >>> view.observe(Event(-1, parse_card("3D"), 1, True, 0)), view.chips
    ('you said right: +1 chip', 1)
    """

    shows_hand = False

    def __init__(self, info: GameInfo, title: str, turn_cap: int | None = None):
        super().__init__(info, title, turn_cap)
        self.said: dict[Card, bool] = {}  # the person's tokens for the next card
        self.chips = 0

    def predicted(self, obs: Observation, cards: Sequence[Card], answers: Sequence[bool]) -> None:
        self.said = dict(zip(cards, answers, strict=True))

    def observe(self, event: Event) -> str | None:
        said = self.said.pop(event.card, None)
        if said is None:
            return None
        hit = said == event.right
        self.chips = self.chips + 1 if hit else 0
        return f"you said {'right' if said else 'wrong'}: " + (
            "+1 chip" if hit else "you lose your chips"
        )

    def event_text(self, group: Sequence[Event]) -> str:
        cards = format_cards(event.card for event in group)
        return f"{cards}: {'right' if group[0].right else 'wrong'}"

    def status(self, obs: Observation, seen: Sequence[Event]) -> list[str]:
        side = obs.wrong_cards[0] if obs.wrong_cards else ()
        placed = len(obs.main_line) + len(side)
        return [f"{placed} of 52 cards placed; your chips: {self.chips}"]
