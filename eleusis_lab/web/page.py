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
from eleusis_lab.games.delphi import TOKEN_THRESHOLD
from eleusis_lab.games.new_eleusis.record import MAX_STRING
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.table import GAMES
from eleusis_lab.record_basics import card_text
from eleusis_lab.web.checker import check_rule
from eleusis_lab.web.seat import (
    CALL,
    CARD,
    MOVE,
    NO_PLAY_CALL,
    PREDICT,
    PROBABILITIES,
    PROPHET,
    STATEMENT,
    TURN,
    Ask,
)
from eleusis_lab.web.study import Deal

__all__ = ["card_view", "delphi_hits", "game_page", "result_page", "table_view"]

_RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"}
_ENDS = {
    "found": "you found the rule",
    "turn_cap": "the turns ran out",
    "out_of_cards": "you ran out of cards",
    "no_starter": "no card could start the line",
    "player_out": "a player ran out of cards",
    "no_playable_card": "no card left in anyone's hands could be played",
    "deck": "the oracle placed every card",
    "all_expelled": "every player but one was expelled",
}
#: New Eleusis' decisions.
_NEW_ELEUSIS = (TURN, PROPHET, CALL, NO_PLAY_CALL)


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
    main_line: Sequence[Card],
    seen: Sequence[Event],
    you: int | None = None,
    side_line: Sequence[Sequence[Card]] | None = None,
) -> list[dict[str, Any]]:
    """The main line, one column per card, each with the wrong cards played on it (an
    event's ``position``) in the order they came, marked with who played them; or,
    given the ``side_line`` (New Eleusis: the wrong cards under each main-line card),
    those.

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
    if side_line is not None:
        for column, under in zip(columns, side_line, strict=False):
            column["under"] = [
                {"card": card_view(card), "you": False, "seat": None, "phase2": False}
                for card in under
            ]
        return columns
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


def delphi_hits(answers: Sequence[Mapping[str, Any]], seen: Sequence[Event]) -> list[bool]:
    """Delphi: whether each of his predictions (``answers``) matched the verdict of its
    card (``seen``: the oracle's cards judged so far, in order); his chips are the
    matches since his last miss.

    >>> from eleusis_lab.cards import parse_card
    >>> seen = [Event(-1, parse_card("3D"), 1, True, 0), Event(-1, parse_card("4S"), 1, False, 0)]
    >>> delphi_hits([{"probability": 0.9}, {"probability": 0.5}], seen)
    [True, False]
    """
    return [
        (answer["probability"] >= TOKEN_THRESHOLD) == event.right
        for answer, event in zip(answers, seen, strict=False)
    ]


def _chips(hits: Sequence[bool]) -> int:
    chips = 0
    for hit in hits:
        chips = chips + 1 if hit else 0
    return chips


def _delphi_page(deal: Deal, ask: Ask, answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Delphi's page: the main line, the side column, his last prediction's verdict and
    his chips, and the card the oracle turns next to judge."""
    obs = ask.obs
    hits = delphi_hits(answers, ask.seen)
    last = ask.seen[-1] if ask.seen else None
    said = answers[-1]["probability"] if answers else None
    side = obs.wrong_cards[0] if obs.wrong_cards else ()
    return {
        "game_title": _title(GAMES[deal.game_type].label),
        "solo": False,
        "delphi": True,
        "kind": ask.kind,
        "asks_card": False,
        "asks_statement": False,
        "asks_probability": True,
        "number": ask.number,
        "seat": ask.info.seat,
        "players": ask.info.n_players,
        "phase": obs.phase,
        "table": table_view(obs.main_line, ()),
        "side": [card_view(card) for card in side],
        "piles": [],
        "hand": [],
        "recent": [],
        "status": [
            f"{len(obs.main_line) + len(side)} of 52 cards placed; your chips: {_chips(hits)}"
        ],
        "last": None
        if last is None
        else {"card": card_view(last.card), "right": last.right, "who": "The"},
        "said": None
        if said is None or not hits
        else {
            "probability": _number(said),
            "hit": hits[-1],
            "chips": _chips(hits),
        },
        "judged": card_view(ask.cards[0]),
        "probabilities": [_number(p) for p in PROBABILITIES],
        "previous_probability": "0.5" if said is None else _number(said),
        "wrong_declaration": None,
        "previous_rule": "",
        "rule_check": None,
    }


def _recent_turns(view: SeatView, events: Sequence[Event]) -> list[str]:
    """The events since his last decision, a line per turn (New Eleusis' view reads the
    cards of a string on one line)."""
    lines, i = [], 0
    while i < len(events):
        group = [events[i]]
        while i + len(group) < len(events) and view.same_turn(group[0], events[i + len(group)]):
            group.append(events[i + len(group)])
        lines.append(_turn_text(view, group))
        i += len(group)
    return lines


def _turn_text(view: SeatView, group: Sequence[Event]) -> str:
    """A line of what happened (the view's text), its cards drawn with suit symbols."""
    text = view.event_text(group)
    for event in group:
        text = text.replace(str(event.card), card_view(event.card)["label"], 1)
    return text


def _new_eleusis_page(deal: Deal, ask: Ask, answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """New Eleusis' page: the main line with the side line under it, the hands' sizes
    and the Prophet, what happened since his last decision, and the question: his turn
    (1 to 4 cards in order, or "no play"), the Prophet, or the Prophet's call."""
    obs = ask.obs
    you = ask.info.seat
    view = _view(deal, ask)
    view.who = lambda seat: _who(seat, you)  # the pages' names: "you", "player N"
    recent = _recent_turns(view, ask.seen[ask.since :])
    status = [
        line
        for line in view.status(obs, ask.seen)
        if not line.endswith("Prophet now") and "overthrown" not in line
    ]
    if obs.prophet is not None:
        status.insert(
            0,
            "you are the Prophet"
            if obs.prophet == you
            else f"the Prophet is player {obs.prophet + 1}",
        )
    own = ask.seen[ask.since :] if ask.kind == PROPHET else ()
    return {
        "game_title": _title(GAMES[deal.game_type].label),
        "solo": False,
        "new_eleusis": True,
        "kind": ask.kind,
        "asks_card": False,
        "asks_statement": False,
        "asks_turn": ask.kind == TURN,
        "asks_prophet": ask.kind == PROPHET,
        "asks_call": ask.kind in (CALL, NO_PLAY_CALL),
        "no_play_call": ask.kind == NO_PLAY_CALL,
        "called": [card_view(card) for card in ask.cards],
        "number": ask.number,
        "seat": you,
        "players": ask.info.n_players,
        "phase": obs.phase,
        "table": table_view(obs.main_line, (), you, getattr(obs, "side_line", ())),
        "piles": [],
        "hand": [card_view(card) for card in obs.hand],
        "slots": list(range(1, MAX_STRING + 1)),
        "recent": recent,
        "own_turn": _recent_turns(view, own),
        "status": status,
        "last": None,
        "wrong_declaration": None,
        "previous_rule": "",
        "rule_check": None,
    }


def game_page(deal: Deal, ask: Ask, answers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the page of decision ``ask`` shows (``answers``: his answers before it)."""
    if ask.kind == PREDICT:
        return _delphi_page(deal, ask, answers)
    if ask.kind in _NEW_ELEUSIS:
        return _new_eleusis_page(deal, ask, answers)
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
    end = outcome.end or ("deck" if deal.game_type == "delphi" else "")
    scores = [
        {"seat": i, "you": i == seat, "score": _number(score)}
        for i, score in enumerate(outcome.scores)
    ]
    declarations = [
        {"rule": each.text, "turn": each.turn, "correct": each.correct}
        for each in getattr(record, "declarations", ())
    ]
    main_line = getattr(record, "main_line", ())
    delphi = None
    if deal.game_type == "delphi":
        hits = record.hits[:, seat].tolist() if len(record.events) else []
        delphi = {
            "cards": len(hits),
            "hits": sum(hits),
            "chips": record.chips[seat],
            "side": [card_view(card) for card in record.side_column],
        }
    own = [e for e in outcome.events if e.seat == seat and e.kind in ("play", "string")]
    return {
        "game_title": _title(game.label),
        "solo": deal.game_type == "solo",
        "new_eleusis": deal.game_type == "new-eleusis",
        "delphi": delphi,
        "end": _ENDS.get(end, end.replace("_", " ")),
        "score": _number(outcome.scores[seat]),
        "scores": scores if len(scores) > 1 else [],
        "declarations": declarations,
        "table": table_view(
            main_line,
            () if delphi else outcome.events,
            seat,
            getattr(record, "side_line", None) if deal.game_type == "new-eleusis" else None,
        ),
        "plays": len(own),
        "right": sum(event.right for event in own),
    }


def _who(seat: int, you: int, capital: bool = False) -> str:
    """A seat as the pages name it: "you", or "player N" counted from 1."""
    if seat == you:
        return "Your" if capital else "you"
    return f"{'P' if capital else 'p'}layer {seat + 1}'s" if capital else f"player {seat + 1}"


def _number(value: float) -> str:
    return f"{value:g}"
