"""What every game's record shares: cards and agents as plain data, faults, JSON, and
reading, replaying and laying out a record of any game.

Each game keeps its record, replay and layout in its own module (classic's `GameRecord`
in `eleusis_lab.games.classic.record`) and declares them in the game registry
(`eleusis_lab.games.table.GAMES`); `read_record`, `load_record`, `replay` and
`format_layout` read a record of any game through it. Cards are written as text,
``"10H"``; a card of the second deck of a two-deck game carries its copy as a suffix,
``"10H#1"``. An agent that raises, plays a card it may not play or overruns its time
budget does not end the game, nor does one still deciding at the decision limit, which
is stopped: the engine records a `Fault` (who, what, where) and goes on; `check_faults`
checks a record's faults against its game's `FaultRules`.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.classic import play_classic
>>> class FirstCard(Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
>>> record = play_classic("black(card)", [FirstCard(), FirstCard()], seed=0)
>>> read_record(record.to_json()) == record
True
>>> replay(record)
[]
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from eleusis_lab.cards import Card
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.match import MatchResult, is_match, read_match, replay_match
from eleusis_lab.games.table import GAMES, replay_game

# Re-exported: the games' modules import these from here.
from eleusis_lab.record_basics import (  # noqa: F401
    FAULT_CALLS,
    FAULT_KINDS,
    ILLEGAL_CARD,
    LINE_WIDTH,
    MAX_RECORD_BYTES,
    OVER_TIME,
    RAISED,
    STOPPED,
    TURN_CAP,
    Fault,
    FaultRules,
    RecordError,
    agent_from_dict,
    card_from_text,
    card_text,
    cards_from_text,
    cards_text,
    check_faults,
    class_attribute,
    complexity_lines,
    describe_agent,
    event_from_dict,
    event_to_dict,
    fault_options_problems,
    flag_field,
    jsonable,
    reading_record,
    right_or_wrong,
    rule_game_head,
    sees_rule,
    whole_field,
)

__all__ = [
    "FAULT_CALLS",
    "FAULT_KINDS",
    "ILLEGAL_CARD",
    "MAX_RECORD_BYTES",
    "OVER_TIME",
    "RAISED",
    "STOPPED",
    "TURN_CAP",
    "Fault",
    "RecordError",
    "agent_from_dict",
    "card_from_text",
    "card_text",
    "cards_from_text",
    "cards_text",
    "describe_agent",
    "format_layout",
    "format_layout_html",
    "load_record",
    "read_record",
    "replay",
    "right_or_wrong",
    "sees_rule",
]


def record_config(game: Any, config: Any) -> dict[str, Any]:
    """A record's options, checked as a spec's are (`eleusis_lab.games.table.GameType.
    make_config`: no unknown option, every value one the game takes, ``max_turns``
    bounded); else `ValueError`."""
    if not isinstance(config, dict):
        raise ValueError(f"config: expected an object, got {config!r}")
    declared = GAMES.get(game) if isinstance(game, str) else None
    if declared is not None:
        try:
            declared.make_config(config)
        except (ConfigError, TypeError) as error:
            raise ValueError(f"config: {error}") from None
    return dict(config)


def rule_game_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The record fields of `rule_game_head` data (a missing rule name is None), checked:
    rule text, a whole seed, the game's options (`record_config`); else `ValueError`."""
    game, rule, name = data["game"], data["rule"], data.get("rule_name")
    if not isinstance(rule, str):
        raise ValueError(f"rule: expected rule text, got {rule!r}")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"rule_name: expected a name or null, got {name!r}")
    return {
        "game": game,
        "rule": rule,
        "rule_name": name,
        "seed": whole_field(data["seed"], "seed"),
        "config": record_config(game, data["config"]),
    }


class JsonRecord:
    """JSON in and out, and files, for a record class that has ``to_dict`` and ``from_dict``.

    ``kind`` names the record in error messages ("not a Delphi record: ...").
    """

    kind = "game record"

    def replace(self, **changes: Any) -> Any:
        """A copy with some fields changed (records are immutable)."""
        return replace(self, **changes)

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text; `from_json` reads it back to an equal record."""
        return json.dumps(self.to_dict(), indent=indent, default=jsonable)

    @classmethod
    def from_json(cls, text: str) -> Any:
        """Read a record written by `to_json`; raises `RecordError` on anything else."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"not a {cls.kind}: invalid JSON ({error})") from None
        if not isinstance(data, dict):
            raise RecordError(f"not a {cls.kind}: the JSON is not an object")
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write the record to ``path`` as JSON."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Any:
        """Read a record saved with `save`."""
        text = _record_text(path)
        try:
            return cls.from_json(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None

    def _repr_html_(self) -> str:
        """The layout, for Jupyter: HTML tables of the main line (`format_layout_html`),
        or the text layout for a game without one (Secrets)."""
        if hasattr(self, "main_line") and hasattr(self, "events"):
            return format_layout_html(self)
        return f"<pre>{html.escape(format_layout(self))}</pre>"


def read_record(text: str) -> Any:
    """A record of any game from its JSON text, whatever the game.

    A `GameRecord` (classic, four-to-eight), the record class of the game's module
    (Delphi, solo, New Eleusis), or a match of any game (`eleusis_lab.games.match`);
    raises `RecordError` on anything else.

    >>> read_record('{"format": 2, "game": "classic"}')
    Traceback (most recent call last):
    ...
    eleusis_lab.record_basics.RecordError: not a game record: the field 'rule' is missing
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not a game record: invalid JSON ({error})") from None
    if is_match(data):
        with reading_record("match record"):
            return read_match(data)
    game = data.get("game") if isinstance(data, dict) else None
    declared = GAMES.get(game) if isinstance(game, str) else None
    if declared is None or declared.record_type is None:
        if not isinstance(data, dict) or "game" not in data:
            raise RecordError("not a game record: the field 'game' is missing")
        readable = ", ".join(name for name, kind in GAMES.items() if kind.record_type)
        raise RecordError(f"not a game record: the game {game!r} is none of {readable}")
    return declared.record_type.from_dict(data)


def _record_text(path: str | Path) -> str:
    """The text of a record file; `RecordError` naming ``path`` when it is missing,
    unreadable or over `MAX_RECORD_BYTES` (then not read further)."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise RecordError(
                f"{path}: larger than {MAX_RECORD_BYTES:,} bytes, the most a record may hold"
                " (eleusis_lab.record.MAX_RECORD_BYTES)"
            )
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such game record") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise RecordError(f"{path}: cannot read the record: {reason}") from None


def load_record(path: str | Path) -> Any:
    """Read a record of any game saved as JSON (see `read_record`).

    Raises `RecordError`, naming ``path``, when the file is missing, unreadable, larger
    than `MAX_RECORD_BYTES` (refused unread) or not a record.
    """
    text = _record_text(path)
    try:
        return read_record(text)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None


# -- replay -------------------------------------------------------------------------------


def replay(record: Any) -> list[str]:
    """Check a record against the rules of its game, without the agents.

    A match (`eleusis_lab.games.match.MatchResult`) is checked by
    `eleusis_lab.games.match.replay_match`: the rotation, each game, the totals.

    Each game's replay (`eleusis_lab.games.table.GameType.replay`) re-parses the rule,
    re-deals from the seed, replays every event (whose turn, whether the card could be
    played, its verdict), and re-derives how the game ended and the scores with the
    game's own scoring functions. Faults are checked too: each names the seat and agent
    of its decision, in order, and a substituted decision is the one the game's rule for
    faults prescribes.

    Parameters
    ----------
    record : GameRecord
        The record to check.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> replay(record)
    []
    >>> replay(record.replace(dealer_score=record.dealer_score + 1))[0]
    'dealer score: recorded 7, the wrong-card counts after phase 1 give 6'

    A game with faults replays as well: the engine's substitutes are legal plays.

    >>> class Clumsy(Agent):
    ...     def choose_play(self, obs):
    ...         return "the queen of hearts"
    >>> record = play_classic("red(card)", [Clumsy(), FirstCard()], seed=0)
    >>> len(record.faults), record.faults[0].kind, replay(record)
    (26, 'illegal_card', [])
    """
    if isinstance(record, MatchResult):
        return replay_match(record)
    return replay_game(record)


# -- layout -------------------------------------------------------------------------------

_CELL = 5  # a card of up to 3 characters, a phase-2 mark, a space
_LABEL = 8


def format_layout(record: Any, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a game of any registered game, as its players lay it out,
    then the scores and the agents' faults: the layout its game declares
    (`eleusis_lab.games.table.GameType.layout`).

    Eleusis games lay out the main line left to right, in blocks of ``columns`` cards,
    with the wrong cards under the card they were played on; a column longer than
    ``max_rows`` shows its first cards and how many more there are. The faults, if any,
    follow the scores: per seat, method and kind, how many, at which events, and the
    first one's message. `RecordError` for a record of a game that has no layout.

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> print(format_layout(record, columns=6))  # doctest: +ELLIPSIS
    classic Eleusis, seed 0, rule: red(card)
    rule complexity: 2 nodes, 7.9 bits, 50% of faces right on average, 1 context class,
                     learnt in 3.0 plays
    ...
    position   0    1    2    3    4    5
    main      KH   6D   JD   3H   JH   9H
    wrong     QC   JC        5C
    ...
    seat  agent                wrong  left  score
       0  FirstCard               16    16      0
       1  FirstCard               10    10     12
    dealer score: 6
    phase 2 ended after 0 turns: no player held a card the rule accepts
    """
    name = getattr(record, "game", None)
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None or game.layout is None:
        raise RecordError(f"no layout for a record of the game {name!r}")
    return game.layout(record, columns, max_rows)


def main_line_rows(
    main: Sequence[Card], under: list[list[str]], columns: int, max_rows: int
) -> list[str]:
    """The main line as players lay it out, in blocks of ``columns`` cards: a row of
    positions, a row of cards, then the wrong cards ``under[i]`` (already written out)
    stacked under card ``i``; a column deeper than ``max_rows`` shows its first cards and
    how many more there are. Each block ends with an empty line."""
    under = [
        cards
        if len(cards) <= max_rows
        else [*cards[: max_rows - 1], f"+{len(cards) - max_rows + 1}"]
        for cards in under
    ]
    lines: list[str] = []
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        lines.append(f"{'position':<{_LABEL}}" + "".join(f"{i:>{_CELL - 1}} " for i in block))
        lines.append(f"{'main':<{_LABEL}}" + "".join(f"{main[i]!s:>{_CELL - 1}} " for i in block))
        depth = max(len(under[i]) for i in block)
        for row in range(depth):
            label = "wrong" if row == 0 else ""
            cells = (under[i][row] if row < len(under[i]) else "" for i in block)
            lines.append(f"{label:<{_LABEL}}" + "".join(f" {cell:<{_CELL - 1}}" for cell in cells))
        lines.append("")
    return lines


def fault_lines(faults: tuple[Fault, ...]) -> list[str]:
    """The faults grouped by seat, method and kind: a count, where, the first message."""
    if not faults:
        return []
    groups: dict[tuple[int, str, str], list[Fault]] = {}
    for fault in faults:
        groups.setdefault((fault.seat, fault.call, fault.kind), []).append(fault)
    note = " (each faulty choice replaced by the first card the player could play)"
    lines = [f"faults: {len(faults)}{note if any(f.substituted for f in faults) else ''}"]
    for (seat, call, kind), group in groups.items():
        first = group[0]
        if call == "start_game":
            where = "at the deal"
        else:
            shown = ", ".join(str(fault.event) for fault in group[:4])
            where = (
                f"event{'s' if len(group) > 1 else ''} {shown}{', ...' if len(group) > 4 else ''}"
            )
        line = (
            f"  seat {seat} {first.agent}: {call} {kind} x{len(group)} ({where}): {first.message}"
        )
        lines.append(line if len(line) <= LINE_WIDTH else line[: LINE_WIDTH - 3] + "...")
        lines += [retired_line(fault) for fault in group if fault.count > 1]
    return lines


def retired_line(fault: Fault) -> str:
    """The layout's line for the stop that retired a seat (`Fault.count`).

    >>> retired_line(Fault(1, "Slow", STOPPED, "was stopped", 4, 1, "choose_play", count=9))
    '    seat 1 retired there for the rest of the game: 8 later calls not made'
    """
    return (
        f"    seat {fault.seat} retired there for the rest of the game:"
        f" {fault.count - 1} later calls not made"
    )


def format_layout_html(record: Any, columns: int = 13) -> str:
    """The layout of `format_layout` as HTML: a table per block of the main line.

    Each block has a row of positions, the main line, then the wrong cards under the
    card they were played on (in italics with ``*``: phase 2). The rule, the scores and
    the dealer's score follow. Works for any record with ``main_line`` and ``events``;
    `GameRecord` shows itself this way in Jupyter (``_repr_html_``).

    Examples
    --------
    >>> from eleusis_lab.agent import Agent
    >>> from eleusis_lab.games.classic import play_classic
    >>> class FirstCard(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    >>> record = play_classic("red(card)", [FirstCard(), FirstCard()], seed=0)
    >>> page = format_layout_html(record)
    >>> page.count("<table"), "K♥" in page
    (3, True)
    """
    from html import escape

    def cell(card: Card | None, phase: int = 1) -> str:
        if card is None:
            return "<td></td>"
        colour = "#c0141b" if card.is_red else "#111"
        text = escape(card.symbol) + ("*" if phase == 2 else "")
        style = f"color:{colour};padding:1px 4px;text-align:center"
        return f'<td style="{style}">{"<i>" + text + "</i>" if phase == 2 else text}</td>'

    main = record.main_line
    under: list[list[tuple[Card, int]]] = [[] for _ in main]
    for event in getattr(record, "events", ()):
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append((event.card, event.phase))
    head = 'style="text-align:left;padding:1px 6px;color:#666;font-weight:normal"'
    name = f" ({record.rule_name})" if getattr(record, "rule_name", None) else ""
    parts = [
        f"<div><b>{escape(str(record.game))}</b>, seed {record.seed}, rule:"
        f" <code>{escape(record.rule)}{escape(name)}</code></div>",
        '<div style="color:#666">wrong cards are under the main-line card they were played'
        " on; * = phase 2</div>",
    ]
    for start in range(0, len(main), columns):
        block = range(start, min(start + columns, len(main)))
        rows = [
            f"<tr><th {head}>position</th>"
            + "".join(f'<td style="color:#999;text-align:center">{i}</td>' for i in block)
            + "</tr>",
            f"<tr><th {head}>main</th>" + "".join(cell(main[i]) for i in block) + "</tr>",
        ]
        for row in range(max(len(under[i]) for i in block)):
            cells = "".join(
                cell(*under[i][row]) if row < len(under[i]) else cell(None) for i in block
            )
            rows.append(f"<tr><th {head}>{'wrong' if row == 0 else ''}</th>{cells}</tr>")
        parts.append(
            '<table style="border-collapse:collapse;margin:4px 0">' + "".join(rows) + "</table>"
        )
    scores = getattr(record, "player_scores", ())
    if scores:
        rows = "".join(
            f"<tr><td>{seat}</td><td>{escape(str(agent.get('name', '')))}</td>"
            f"<td style='text-align:right'>{scores[seat]:g}</td></tr>"
            for seat, agent in enumerate(record.agents)
        )
        parts.append(
            '<table style="border-collapse:collapse"><tr><th>seat</th><th>agent</th>'
            f"<th>score</th></tr>{rows}</table>"
        )
    if getattr(record, "dealer_score", None) is not None:
        parts.append(f"<div>dealer score: {record.dealer_score}</div>")
    return "<div>" + "".join(parts) + "</div>"
