"""What a game's page shows, as plain data for the templates (`game_page`,
`result_page`): the main line drawn as cards with the wrong cards under the card they
were played on, the hand to click, what happened since the participant's last decision,
the status lines of the game's own view for people
(`eleusis_lab.games.people.SeatView`: the turn, the phase, what a correct declaration
scores), and at the end the scores. Nothing here reads the secret rule: the pages are
made from what the seat sees (`eleusis_lab.web.seat.Ask`) and from the record's scores
and plays.

Examples
--------
>>> from eleusis_lab.cards import parse_card
>>> card_view(parse_card("10H"))["label"], card_view(parse_card("QS"))["red"]
('10♥', False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eleusis_lab.agent import Event, Observation
from eleusis_lab.cards import SUIT_SYMBOLS, Card
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.table import GAMES
from eleusis_lab.record_basics import card_text
from eleusis_lab.web.checker import check_rule
from eleusis_lab.web.seat import CARD, MOVE, STATEMENT, Ask
from eleusis_lab.web.study import Deal

__all__ = ["card_view", "game_page", "result_page", "table_view"]

_RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"}
_ENDS = {
    "found": "you found the rule",
    "turn_cap": "the turns ran out",
    "out_of_cards": "you ran out of cards",
    "no_starter": "no card could start the line",
    "player_out": "a player ran out of cards",
    "no_playable_card": "no card left in anyone's hands could be played",
}


def card_view(card: Card) -> dict[str, Any]:
    """A card as the templates draw it: its value in a form (record text), its rank and
    suit symbol, red or not."""
    rank = _RANKS.get(card.rank, str(card.rank))
    suit = SUIT_SYMBOLS[card.suit]
    return {
        "value": card_text(card),
        "rank": rank,
        "suit": suit,
        "label": f"{rank}{suit}",
        "red": card.is_red,
    }


def table_view(
    main_line: Sequence[Card], seen: Sequence[Event], you: int | None = None
) -> list[dict[str, Any]]:
    """The main line, one column per card, each with the wrong cards played on it (an
    event's ``position``) in the order they came, marked with who played them.

    >>> from eleusis_lab.cards import parse_cards
    >>> line = tuple(parse_cards("QH 3C"))
    >>> plays = [Event(0, parse_cards("2H")[0], 1, False, 0), Event(1, line[1], 1, True, 0)]
    >>> [(c["card"]["label"], [w["card"]["label"] for w in c["under"]])
    ...  for c in table_view(line, plays, you=0)]
    [('Q♥', ['2♥']), ('3♣', [])]
    """
    columns = [
        {"card": card_view(card), "under": [], "position": i} for i, card in enumerate(main_line)
    ]
    for event in seen:
        if event.right or event.kind != "play" or not 0 <= event.position < len(columns):
            continue
        columns[event.position]["under"].append(
            {
                "card": card_view(event.card),
                "you": event.seat == you,
                "seat": event.seat,
                "phase2": event.phase == 2,
            }
        )
    return columns


def _view(deal: Deal, ask: Ask) -> SeatView:
    game = GAMES[deal.game_type]
    cap = game.make_config(deal.config).max_turns
    return game.seat_view(ask.info, game.label, cap)


def _title(text: str) -> str:
    """A title with its first letter raised ("Solo Eleusis")."""
    return text[:1].upper() + text[1:]


def _wrong_declarations(answers: Sequence[Mapping[str, Any]]) -> int:
    """His declarations so far: the game goes on only after a wrong one."""
    return sum(bool(answer.get("declare")) for answer in answers)


def game_page(deal: Deal, ask: Ask, answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the page of decision ``ask`` shows (``answers``: his answers before it)."""
    obs: Observation = ask.obs
    view = _view(deal, ask)
    if hasattr(view, "wrong"):  # solo's view counts the wrong declarations it was told
        view.wrong = _wrong_declarations(answers)
    you = ask.info.seat
    recent = [
        f"{_who(event.seat, you)} played {card_view(event.card)['label']}:"
        f" {'right' if event.right else 'wrong'}"
        for event in ask.seen[ask.since :]
    ]
    status = [
        line
        for line in view.status(obs, ask.seen)
        if not line.startswith(("wrong cards", "  "))  # the piles are drawn
    ]
    piles = [
        {
            "seat": seat,
            "you": seat == ask.info.seat,
            "cards": [card_view(card) for card in pile],
        }
        for seat, pile in enumerate(obs.wrong_cards)
    ]
    last = ask.seen[-1] if ask.seen else None
    declared = answers[-1] if answers and answers[-1].get("declare") else None
    previous = next((answer["typed"] for answer in reversed(answers) if answer.get("typed")), "")
    return {
        "game_title": _title(GAMES[deal.game_type].label),
        "solo": deal.game_type == "solo",
        "kind": ask.kind,
        "asks_card": ask.kind in (CARD, MOVE),
        "asks_statement": ask.kind in (MOVE, STATEMENT),
        "number": ask.number,
        "seat": ask.info.seat,
        "players": ask.info.n_players,
        "phase": obs.phase,
        "table": table_view(obs.main_line, ask.seen, ask.info.seat),
        "piles": piles if ask.info.n_players > 1 else [],
        "hand": [card_view(card) for card in obs.hand],
        "recent": recent,
        "status": status,
        "last": None
        if last is None
        else {
            "card": card_view(last.card),
            "right": last.right,
            "who": _who(last.seat, you, capital=True),
        },
        "wrong_declaration": None if declared is None else declared.get("rule"),
        "previous_rule": previous,
        "rule_check": check_rule(previous).to_dict() if previous else None,
    }


def result_page(deal: Deal, record: Any, answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the page after a finished game shows: how it ended, the scores, the table;
    for solo his declarations (his own rules) and whether each was right. The secret
    rule is not shown."""
    game = GAMES[deal.game_type]
    outcome = game.outcome(record)
    seat = deal.seat
    end = outcome.end or ""
    scores = [
        {"seat": i, "you": i == seat, "score": _number(score)}
        for i, score in enumerate(outcome.scores)
    ]
    declarations = [
        {"rule": each.text, "turn": each.turn, "correct": each.correct}
        for each in getattr(record, "declarations", ())
    ]
    main_line = getattr(record, "main_line", ())
    return {
        "game_title": _title(game.label),
        "solo": deal.game_type == "solo",
        "end": _ENDS.get(end, end.replace("_", " ")),
        "score": _number(outcome.scores[seat]),
        "scores": scores if len(scores) > 1 else [],
        "declarations": declarations,
        "table": table_view(main_line, outcome.events, seat),
        "plays": sum(1 for event in outcome.events if event.seat == seat),
        "right": sum(1 for event in outcome.events if event.seat == seat and event.right),
    }


def _who(seat: int, you: int, capital: bool = False) -> str:
    """A seat as the pages name it: "you", or "player N" counted from 1."""
    if seat == you:
        return "Your" if capital else "you"
    return f"{'P' if capital else 'p'}layer {seat + 1}'s" if capital else f"player {seat + 1}"


def _number(value: float) -> str:
    return f"{value:g}"
