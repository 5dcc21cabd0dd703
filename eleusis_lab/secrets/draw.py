"""Secrets boards for people: a record or a position as text, and as a picture.

`format_secrets_board` lays out a `eleusis_lab.secrets.record.SecretsRecord`
(players, set-up, every turn, final position, scores), a
`eleusis_lab.secrets.state.SecretsState` or one player's
`eleusis_lab.secrets.state.SecretsView` as text for a terminal;
`draw_secrets_board` draws a position with matplotlib.

>>> from eleusis_lab.secrets.game import secrets_deal
>>> print(format_secrets_board(secrets_deal(0)).splitlines()[1])
a ♥   [KH]  [JH]   4D    2S   6C?   8H?    7H    4C   >
"""

from __future__ import annotations

import textwrap
from collections import Counter
from typing import Any

from eleusis_lab.cards import SUIT_NAMES, SUIT_SYMBOLS, Card
from eleusis_lab.secrets.moves import (
    ACE,
    JACK,
    KING,
    N_COLS,
    N_ROWS,
    N_SEATS,
    N_SQUARES,
    QUEEN,
    ROWS,
    SEAT_SUITS,
    SECRET_SQUARES,
    secrets_score,
    square_name,
)
from eleusis_lab.secrets.record import END_REASONS, SecretsRecord
from eleusis_lab.secrets.state import SecretsState, SecretsView

__all__ = ["draw_secrets_board", "format_secrets_board", "format_secrets_layout"]


def _seat_name(seat: int) -> str:
    return SUIT_NAMES[SEAT_SUITS[seat]]


# -- the board as text ----------------------------------------------------------------------

_CELL = 6
_WIDTH = 100


def _cell(card: Card | None, piece: Card | None, hidden: bool) -> str:
    if piece is not None:
        text = f"[{piece}]"
    elif card is None:
        text = "."
    elif card.rank == ACE:
        text = f"{card}!"  # a face-up ace: its suit takes it, any other piece dies
    else:
        text = str(card)
    if hidden:
        text += "?"
    return f"{text:^{_CELL}}"


def _board_lines(
    board: tuple[Card | None, ...] | list[Card | None],
    occupants: tuple[Card | None, ...] | list[Card | None],
    hidden: set[int],
) -> list[str]:
    header = " " * 5 + "".join(f"{col + 1:^{_CELL}}" for col in range(N_COLS))
    lines = [header]
    for row in range(N_ROWS):
        suit = SEAT_SUITS[row]
        cells = "".join(
            _cell(board[sq], occupants[sq], sq in hidden)
            for sq in range(N_COLS * row, N_COLS * (row + 1))
        )
        lines.append(f"{ROWS[row]} {SUIT_SYMBOLS[suit]}  {cells} >")
    return [line.rstrip() for line in lines]


_LEGEND = "[JH] piece, 7C face-up card, ? secret face down, AS! face-up ace, > exit"


def _hand_line(seat: int, hand: tuple[Card, ...] | list[Card], hidden: int = 0) -> str:
    cards = " ".join(map(str, hand)) + (" " + " ".join(["??"] * hidden) if hidden else "")
    score = "" if hidden else f"  ({secrets_score(hand):g})"
    return f"  {seat} {_seat_name(seat):<8} {cards.strip() or '-'}{score}"


def format_secrets_board(obj: SecretsRecord | SecretsState | SecretsView, log: bool = True) -> str:
    """A record, a position or a player's view of it, as text.

    A position (`SecretsState`) shows the board, whose turn it is and every hand; a
    view shows only what its seat sees (``??`` for cards it cannot see). A record
    shows the players, the set-up, every turn (unless ``log=False``), the final
    position with the secrets never turned up, the scores and places, how the game
    ended, and the agents' faults.

    Examples
    --------
    >>> state = SecretsState.from_layout(
    ...     {"a2": "JH", "a3": "7C?QS", "a6": "AD", "b8": "KD"}, ["5D 2H", "", "", "9C"])
    >>> print(format_secrets_board(state))
           1     2     3     4     5     6     7     8
    a ♥    .    [JH]  7C?    .     .    AD!    .     .    >
    b ♦    .     .     .     .     .     .     .    [KD]  >
    c ♣    .     .     .     .     .     .     .     .    >
    d ♠    .     .     .     .     .     .     .     .    >
    [JH] piece, 7C face-up card, ? secret face down, AS! face-up ace, > exit
    turn 0, hearts (seat 0) to move
    hands:
      0 hearts   5D 2H  (0.02)
      1 diamonds -  (0)
      2 clubs    -  (0)
      3 spades   9C  (0.01)
    """
    if isinstance(obj, SecretsRecord):
        return _format_record(obj, log)
    if isinstance(obj, SecretsView):
        lines = _board_lines(obj.board, obj.occupants, set(obj.hidden))
        lines.append(_LEGEND)
        lines.append(
            f"turn {obj.turn}, {_seat_name(obj.to_move)} (seat {obj.to_move}) to move;"
            f" seen by {_seat_name(obj.seat)} (seat {obj.seat})"
        )
        lines.append("hands:")
        for seat, known in enumerate(obj.known_hands):
            lines.append(_hand_line(seat, known, obj.hand_sizes[seat] - len(known)))
    else:
        hidden = {sq for sq in range(N_SQUARES) if obj.secrets[sq] is not None}
        lines = _board_lines(obj.board, obj.occupants, hidden)
        lines.append(_LEGEND)
        if obj.over:
            lines.append(f"turn {obj.turn}: no jack or king left on the board")
        else:
            lines.append(f"turn {obj.turn}, {_seat_name(obj.seat)} (seat {obj.seat}) to move")
        lines.append("hands:")
        lines += [_hand_line(seat, hand) for seat, hand in enumerate(obj.hands)]
    if obj.out:
        lines.append(f"out of the game: {' '.join(map(str, obj.out))}")
    return "\n".join(lines)


def format_secrets_layout(record: SecretsRecord, columns: int = 13, max_rows: int = 12) -> str:
    """`format_secrets_board` of a record, with the signature of the other games' layouts.

    ``columns`` and ``max_rows`` (the main-line layout options of the Eleusis games) are
    accepted and ignored, so that `eleusis_lab.record.format_layout` can dispatch here.
    """
    return format_secrets_board(record)


def _format_record(record: SecretsRecord, log: bool) -> str:
    lines = [f"Secrets, seed {record.seed}"]
    lines += textwrap.wrap(
        f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
        width=_WIDTH,
        subsequent_indent=" " * len("options: "),
    )
    lines.append("")
    lines.append(
        "set-up (secrets under a5 a6 b5 b6 c5 c6 d5 d6: "
        f"{' '.join(map(str, record.setup.secrets))})"
    )
    start = SecretsState.initial(record.setup)
    lines += _board_lines(start.board, start.occupants, set(SECRET_SQUARES))
    lines.append(
        "dealt: "
        + ", ".join(
            f"{_seat_name(seat)} {' '.join(map(str, hand))}"
            for seat, hand in enumerate(record.setup.hands)
        )
    )
    if log:
        lines.append("")
        lines.append("turns:")
        lines += [f"{k + 1:>5}  {step}" for k, step in enumerate(record.steps)]
    lines.append("")
    lines.append("final position:")
    hidden = {sq for sq, card in enumerate(record.secrets) if card is not None}
    lines += _board_lines(record.board, record.occupants, hidden)
    if hidden:
        never = " ".join(f"{square_name(sq)} {record.secrets[sq]}" for sq in sorted(hidden))
        lines.append(f"secrets never turned up: {never}")
    if record.out:
        lines += textwrap.wrap(
            f"out of the game: {' '.join(map(str, record.out))}",
            width=_WIDTH,
            subsequent_indent="  ",
        )
    lines.append("")
    lines.append(
        f"{'seat':>4}  {'suit':<8} {'agent':<22} {'J':>2} {'Q':>2} {'A':>2} {'K':>2}"
        f" {'plain':>5} {'score':>9} {'place':>5}"
    )
    for seat, agent in enumerate(record.agents):
        hand = record.hands[seat]
        count = Counter(card.rank if card.rank in (ACE, JACK, QUEEN, KING) else 0 for card in hand)
        lines.append(
            f"{seat:>4}  {_seat_name(seat):<8} {agent['name'][:22]:<22} {count[JACK]:>2}"
            f" {count[QUEEN]:>2} {count[ACE]:>2} {count[KING]:>2} {count[0]:>5}"
            f" {record.scores[seat]:>9.2f} {record.ranks[seat]:>5}"
        )
    reason = END_REASONS.get(record.end, record.end)
    lines.append(f"the game ended after {record.turns} turns: {reason}")
    if record.faults:
        lines.append(f"faults: {len(record.faults)}")
        for fault in record.faults[:10]:
            line = (
                f"  seat {fault.seat} {fault.agent}: {fault.call} {fault.kind} at step"
                f" {fault.event}: {fault.message}"
            )
            lines.append(line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "...")
        if len(record.faults) > 10:
            lines.append(f"  ... and {len(record.faults) - 10} more")
    return "\n".join(line.rstrip() for line in lines)


# -- the board as a picture -----------------------------------------------------------------

_SUIT_COLORS = {0: "black", 1: "#c0392b", 2: "#c0392b", 3: "black"}
_ROW_TINTS = {0: "#e8f0e0", 1: "#f6e3d9", 2: "#f8dfe4", 3: "#dfe6ee"}


def draw_secrets_board(obj: SecretsState | SecretsView | SecretsRecord, ax: Any = None) -> Any:
    """Draw a position (or a view of it, or a record's final position) with matplotlib.

    Each row is tinted by its suit; face-up cards are written in their suit's colour,
    pieces drawn as framed tiles, a secret face down as a dotted frame and a ``?``, a
    face-up ace with a red frame. Hands are listed under the board.

    Parameters
    ----------
    obj : SecretsState, SecretsView or SecretsRecord
        What to draw (a record: its final position).
    ax : matplotlib Axes, optional
        Where to draw; a new figure's Axes when omitted.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> state = SecretsState.from_layout({"a2": "JH", "a5": "7C?QS"}, ["5D", "", "", ""])
    >>> ax = draw_secrets_board(state)
    >>> ax.get_title()
    'Secrets, turn 0: hearts to move'
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, Rectangle

    if isinstance(obj, SecretsRecord):
        obj = obj.final_state()
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 5.2))
    if isinstance(obj, SecretsView):
        hidden = set(obj.hidden)
        hands = [
            " ".join(map(str, known)) + " ??" * (obj.hand_sizes[seat] - len(known))
            for seat, known in enumerate(obj.known_hands)
        ]
        to_move, over = obj.to_move, False
    else:
        hidden = {sq for sq in range(N_SQUARES) if obj.secrets[sq] is not None}
        hands = [" ".join(map(str, hand)) for hand in obj.hands]
        to_move, over = obj.seat, obj.over
    for sq in range(N_SQUARES):
        row, col = divmod(sq, N_COLS)
        x, y = col, N_ROWS - 1 - row
        ax.add_patch(
            Rectangle((x, y), 1, 1, facecolor=_ROW_TINTS[SEAT_SUITS[row]], edgecolor="#999999")
        )
        piece, card = obj.occupants[sq], obj.board[sq]
        if sq in hidden:
            ax.add_patch(
                Rectangle(
                    (x + 0.08, y + 0.08), 0.84, 0.84, fill=False, linestyle=":", edgecolor="#555555"
                )
            )
            ax.text(x + 0.85, y + 0.8, "?", ha="center", va="center", fontsize=10, color="#555555")
        if piece is not None:
            color = _SUIT_COLORS[piece.suit]
            ax.add_patch(
                FancyBboxPatch(
                    (x + 0.15, y + 0.15),
                    0.7,
                    0.7,
                    boxstyle="round,pad=0.02",
                    facecolor="white",
                    edgecolor=color,
                    linewidth=2.5,
                )
            )
            ax.text(
                x + 0.5,
                y + 0.5,
                piece.symbol,
                ha="center",
                va="center",
                fontsize=13,
                fontweight="bold",
                color=color,
            )
        elif card is not None:
            if card.rank == ACE:
                ax.add_patch(
                    Rectangle(
                        (x + 0.12, y + 0.12), 0.76, 0.76, fill=False, edgecolor="red", linewidth=2
                    )
                )
            ax.text(
                x + 0.5,
                y + 0.5,
                card.symbol,
                ha="center",
                va="center",
                fontsize=12,
                color=_SUIT_COLORS[card.suit],
            )
    for row in range(N_ROWS):
        suit = SEAT_SUITS[row]
        y = N_ROWS - 1 - row + 0.5
        ax.text(
            -0.15,
            y,
            f"{ROWS[row]} {SUIT_SYMBOLS[suit]}",
            ha="right",
            va="center",
            fontsize=12,
            color=_SUIT_COLORS[suit],
        )
        ax.annotate(
            "",
            xy=(N_COLS + 0.4, y),
            xytext=(N_COLS + 0.05, y),
            arrowprops={"arrowstyle": "->", "color": "#777777"},
        )
    for col in range(N_COLS):
        ax.text(col + 0.5, N_ROWS + 0.15, str(col + 1), ha="center", va="bottom", fontsize=11)
    for seat, hand in enumerate(hands):
        ax.text(
            0,
            -0.35 - 0.32 * seat,
            f"{SUIT_SYMBOLS[SEAT_SUITS[seat]]} {_seat_name(seat)}: {hand or '-'}",
            ha="left",
            va="top",
            fontsize=10,
            color=_SUIT_COLORS[SEAT_SUITS[seat]],
        )
    ax.set_xlim(-1, N_COLS + 0.6)
    ax.set_ylim(-0.4 - 0.32 * N_SEATS, N_ROWS + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    turn = obj.turn
    status = "game over" if over else f"{_seat_name(to_move)} to move"
    ax.set_title(f"Secrets, turn {turn}: {status}")
    return ax
