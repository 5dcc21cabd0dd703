"""A human seat: `HumanAgent` asks the person at the terminal for every decision.

Before each decision it shows what that person may see: what happened since his
previous decision (every play and its verdict, from ``observe``), the end of the main
line with the wrong cards under the card they were played on, the state of the game,
and his hand. Then it reads an answer: a card such as ``QH``, ``10h``, ``TH`` or
``A♣``; in New Eleusis a string of up to 4 cards (``3H 5D 7C``) or ``none``;
``r``/``w`` (also ``y``/``n``) for a Delphi prediction or a Prophet's call; ``y``/``n``
for becoming the Prophet; rule text (or an empty line) for a solo declaration. Bad
input gets a one-line reason and the question again; ranks are read only as the help
lists them (A, 2..10 or T, J, Q, K): ``11h`` or ``1h`` is refused with the card to type
(``JH``, ``AH``) rather than read silently. Everywhere ``?`` or ``help`` lists what can
be typed, ``t`` or ``table`` shows the whole main line, and ``q`` or ``quit`` (or the
end of the input) raises `PlayerQuit`.

The seat names no game. What differs from game to game it asks the game's view, made
at the start of each game (``view_``) from the game's declaration (`GameType.seat_view`,
an `eleusis_lab.games.people.SeatView` in the game's package,
``eleusis_lab.games.<game>.people``; the generic one for a game that declares none):
the opening line; the status under the table (the others' wrong cards; the phase and,
in phase 2, its turn and cap; New Eleusis' hands and Prophet; Delphi's chips; solo's
turn of 30 and what a correct declaration would score); how an event reads; whether the
hand is shown; and what follows the events (solo: the card drawn, and a wrong
declaration with its counter-example when the engine tells the judgement to
``hear_judgement``, as ``eleusis-lab play`` has it do).

`PlayerQuit` is a ``KeyboardInterrupt`` raised at a seat whose class declares
``interactive = True``: the game engines let it stop the game at once, whatever its
``on_fault`` (from any other seat a ``KeyboardInterrupt`` the agent raises is its fault,
`eleusis_lab.engines.DecisionLimit`); ``str(error)`` says who quit. ``eleusis-lab play``
then shows the secret rule and the scores so far (`eleusis_lab.stopped.stopped_report`,
from the events the seat saw, ``seen_``, and its ``view_``) and exits 0, or 130 after
Ctrl-C.

A person takes the time he needs: ``eleusis-lab play`` turns the games' decision limit
off when a seat is human; a script that seats one passes ``decision_limit=None`` in the
game's config (by default a decision still running after 60 seconds is stopped).
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import Any, TextIO

import numpy as np

from eleusis_agents.rule_language import rule_language
from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import SUIT_NAMES, Card, CardError, format_cards, parse_card, parse_cards
from eleusis_lab.games.new_eleusis import NewEleusisDecisions
from eleusis_lab.games.people import SeatView
from eleusis_lab.games.solo import SoloDecisions, SoloMove
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import RuleSyntaxError, parse

__all__ = ["HumanAgent", "PlayerQuit"]

MAX_STRING = 4  # New Eleusis: a turn plays 1 to 4 cards
RECENT_LINES = 16  # at most this many lines of "since your last decision"
_COLUMNS = 13  # main-line cards per row of the table
_CELL = 5
_LABEL = 8
_TIMES = {1: "once", 2: "twice"}
_MAX_ROWS = 6  # wrong cards shown under one main-line card
_QUIT = ("q", "quit")
_HELP = ("?", "help")
_TABLE = ("t", "table")
_YES = ("y", "yes", "r", "right", "true")
_NO = ("n", "no", "w", "wrong", "false")
_COMMANDS = "  t or table: the whole main line   ? or help: this help   q or quit: leave the game"
_CARD_TEXT = (
    "a card is a rank (A, 2..10 or T, J, Q, K) and a suit (C, D, H, S or a symbol),"
    " in any case: QH, 10h, th, ah, A♣; ranks written as numbers 1, 11, 12 and 13 are"
    " refused (type A, J, Q or K)"
)
_RANK_WORDS = {1: "ace", 11: "jack", 12: "queen", 13: "king"}
#: A rank written as a number the help does not list (1, 11, 12, 13) and a suit.
_NUMBER_RANK = re.compile(r"^(1|1[1-3])([CDHS♣♦♥♠])$", re.IGNORECASE)


class PlayerQuit(KeyboardInterrupt):
    """The person at a `HumanAgent` seat quit (typed ``q``, or the input ended).

    A ``KeyboardInterrupt`` from an ``interactive`` seat, which no game engine takes for
    an agent's fault: the game stops at once. ``str(error)`` says who quit and how, for a
    one-line report.
    """


class _BadAnswer(ValueError):
    """An answer that cannot be taken; its message is the reason shown to the person."""


class HumanAgent(SoloDecisions, NewEleusisDecisions, Agent):
    """A seat played by a person at the terminal.

    Parameters
    ----------
    input : text stream or None
        Where answers are read, one line each; ``None``: ``sys.stdin`` at the time of
        each question (so the agent pickles and clones). Answers read from a stream that
        is not a terminal are echoed after the question, so a transcript reads whole.
    output : text stream or None
        Where the table and the questions are written; ``None``: ``sys.stdout`` at the
        time of each question.
    window : int
        How many main-line cards (the last ones) the table shows before each decision;
        ``t`` shows them all.
    max_turns : int or None
        The game's cap on turns, shown to the person where the game's view shows one
        (solo's turns, the phase-2 turns of classic Eleusis and of the 4-8 player
        variant). ``None``: the default of the game's ``max_turns`` option (30 and
        1,000), which ``eleusis-lab play`` always plays.

    Attributes
    ----------
    seen_ : list of Event
        Every public event of the game so far.
    view_ : SeatView
        The game's view (`eleusis_lab.games.table.GameType.seat_view`), with what it
        was told of the game.

    Notes
    -----
    ``interactive = True`` tells tools that play agents unattended (the conformance
    suite of `eleusis_lab.testing`) that this one needs a person.

    Examples
    --------
    A scripted person: the first answer is not a card, the second is.

    >>> import io
    >>> import numpy as np
    >>> from eleusis_lab.agent import GameInfo, Observation
    >>> from eleusis_lab.cards import parse_card, parse_cards
    >>> hand, starter = tuple(parse_cards("KD 3H 7S")), parse_card("QH")
    >>> agent = HumanAgent(input=io.StringIO("zz\\n7s\\n"))
    >>> agent.start_game(GameInfo("classic", 0, 2, hand, starter), np.random.default_rng(0))
    == classic Eleusis: you are seat 0 of 2 players; the starter is QH ==
    >>> agent.choose_play(Observation("classic", 0, 1, hand, (starter,), ((), ()), None))
    <BLANKLINE>
    main line, 1 card (wrong cards under the card they were played on):
    position   0
    main      QH
    wrong cards: you: none; seat 1: none
    phase 1: play each card of your hand once
    your hand (3): KD 3H 7S
    play a card (? for help)> zz
      not a card: 'zz' (expected a rank A,2..10,J,Q,K and a suit C,D,H,S)
    play a card (? for help)> 7s
    Card('7S')
    """

    interactive = True

    def __init__(
        self,
        input: TextIO | None = None,
        output: TextIO | None = None,
        window: int = 13,
        max_turns: int | None = None,
    ):
        self.input = input
        self.output = output
        self.window = window
        self.max_turns = max_turns

    # -- the game's calls ------------------------------------------------------------

    def check_params(self) -> None:
        """``window`` is a whole number >= 1, ``max_turns`` None or a whole number >= 0."""
        window = self.window
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"HumanAgent window must be a whole number >= 1, got {window!r}")
        cap = self.max_turns
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
            raise ValueError(
                f"HumanAgent max_turns must be None or a whole number >= 0, got {cap!r}"
            )

    def start_game(self, info: GameInfo, rng: np.random.Generator) -> None:
        super().start_game(info, rng)
        self.check_params()
        self.recent_: list[Event] = []  # the events since the person's last decision
        self.under_: dict[int, list[str]] = {}  # main-line position -> wrong cards played on it
        self.declared_rules_: set[str] = set()
        self.told_language_ = False
        self.notes_: dict[int, str] = {}  # index in recent_ -> what to add to that event
        self.seen_: list[Event] = []  # every event of the game
        self.view_ = _view(info, self.max_turns)
        self._say(self.view_.opening())

    def observe(self, event: Event) -> None:
        self.recent_.append(event)
        self.seen_.append(event)
        note = self.view_.observe(event)
        if note is not None:
            self.notes_[len(self.recent_) - 1] = note
        if not event.right and event.kind in ("play", "string"):  # a card under the line
            mark = self.view_.wrong_mark(event)
            self.under_.setdefault(event.position, []).append(f"{event.card!s:>3}{mark}")

    def choose_play(self, obs: Observation) -> Card:
        """Show the table and the hand; read one card of the hand."""
        self._show(obs)

        def card(text: str) -> Card:
            cards = _cards(text)
            if len(cards) != 1:
                raise _BadAnswer(f"play one card, not {len(cards) or 'no'} cards")
            return _take(obs.hand, cards)[0]

        played = self._ask(obs, "play a card (? for help)> ", card, _CARD_HELP)
        self.view_.played(obs, played)
        return played

    def choose_turn(self, obs: Observation) -> tuple[Card, ...] | None:
        """New Eleusis: 1 to 4 cards of the hand, in order, or ``none`` ("no play")."""
        self._show(obs)

        def turn(text: str) -> tuple[Card, ...] | None:
            if text.lower() in ("none", "no play", "noplay", "no-play"):
                return None
            cards = _cards(text)
            if not 1 <= len(cards) <= MAX_STRING:
                raise _BadAnswer(
                    f"play 1 to {MAX_STRING} cards, not {len(cards)}; or 'none' for no play"
                )
            return _take(obs.hand, cards)

        prompt = f"play 1 to {MAX_STRING} cards, or none (? for help)> "
        return self._ask(obs, prompt, turn, _TURN_HELP)

    def predict(self, obs: Observation, cards: list[Card]) -> np.ndarray:
        """Delphi: ask right or wrong for each card; 1.0 for right, 0.0 for wrong."""
        self._show(obs)
        answers = [
            self._ask(obs, f"next card {card}: right or wrong? (r/w)> ", _right, _PREDICT_HELP)
            for card in cards
        ]
        self.view_.predicted(obs, cards, answers)
        return np.array([1.0 if answer else 0.0 for answer in answers])

    def declare_prophet(self, obs: Observation) -> bool:
        """New Eleusis, right after the person's play: become the Prophet?"""
        self._show_recent(obs)
        return self._ask(obs, "declare yourself Prophet? (y/n)> ", _yes, _PROPHET_HELP)

    def call_play(self, obs: Observation, cards: tuple[Card, ...]) -> bool:
        """New Eleusis, as the Prophet: is the play ``cards`` right?"""
        self._show(obs, hand=False)
        what = "card" if len(cards) == 1 else "string"
        prompt = f"the {what} {format_cards(cards)} is played: right or wrong? (r/w)> "
        return self._ask(obs, prompt, _right, _CALL_HELP)

    def call_no_play(self, obs: Observation, hand: tuple[Card, ...]) -> bool:
        """New Eleusis, as the Prophet: is a "no play" with ``hand`` right (no card fits)?"""
        self._show(obs, hand=False)
        self._say(f"no play is declared with the hand ({len(hand)}): {_hand_text(hand)}")
        prompt = "is the no play right (none of these cards is right)? (r/w)> "
        return self._ask(obs, prompt, _right, _NO_PLAY_HELP)

    def solo_move(self, obs: Observation) -> SoloMove:
        """Solo, the published move: a card, then the rule to declare with it (judged
        after the card's verdict), or an empty line for none."""
        card = self.choose_play(obs)
        declared = self.declare_rule(obs)
        return SoloMove(card, declared, None, declared is not None)

    def declare_rule(self, obs: Observation) -> str | None:
        """Solo: rule text to declare, or an empty line for none (asked with the card,
        or after its verdict in the ``after_verdict`` timing)."""
        self._show_recent(obs)

        def rule(text: str) -> str | None:
            if not text:
                return None
            try:
                parse(text)
            except RuleSyntaxError as error:
                raise _BadAnswer(f"bad rule: {error.one_line()}") from None
            except Exception as error:  # anything else odd text may provoke
                raise _BadAnswer(f"bad rule: {error}") from None
            if text in self.declared_rules_:
                raise _BadAnswer("you declared that rule already, and it was wrong")
            self.declared_rules_.add(text)
            self.view_.declared(obs, text)
            return text

        if not self.told_language_:  # once a game, before the first declaration
            self._say(_indented(rule_language()))
            self.told_language_ = True
        prompt = "declare a rule (empty line: no; ? for help and the rule language)> "
        return self._ask(obs, prompt, rule, _RULE_HELP, empty=True, more=rule_language())

    # -- what the person sees ----------------------------------------------------------

    def hear_judgement(self, turn: int, event: Event, declaration: Any) -> None:
        """Told how the turn's declaration was judged (solo's ``on_turn``, which
        ``eleusis-lab play`` passes this method to): the game's view shows it at the
        next decision (solo: a counter-example to a wrong declaration; without this call
        the person is still told that it was wrong)."""
        self.view_.judged(declaration)

    def _show(self, obs: Observation, hand: bool = True) -> None:
        self._show_recent(obs)
        lines = self._table(obs, full=False)
        lines += self.view_.status(obs, self.seen_)
        if hand and self.view_.shows_hand:
            lines.append(f"your hand ({len(obs.hand)}): {_hand_text(obs.hand)}")
        self._say("\n".join(lines))

    def _show_recent(self, obs: Observation) -> None:
        lines = self._recent_lines(self.recent_)
        self.recent_, self.notes_ = [], {}
        lines += self.view_.news(obs)
        if lines:
            self._say("\n".join(["", "since your last decision:", *lines]))

    def _recent_lines(self, events: list[Event]) -> list[str]:
        lines: list[str] = []
        view = self.view_
        i = 0
        while i < len(events):
            group = [events[i]]
            while i + len(group) < len(events) and view.same_turn(group[0], events[i + len(group)]):
                group.append(events[i + len(group)])
            note = self.notes_.get(i)
            lines.append("  " + view.event_text(group) + (f"; {note}" if note else ""))
            i += len(group)
        if len(lines) > RECENT_LINES:
            hidden = len(lines) - RECENT_LINES + 1
            lines = [f"  ({hidden} earlier plays not shown)", *lines[-(RECENT_LINES - 1) :]]
        return lines

    def _table(self, obs: Observation, full: bool) -> list[str]:
        """The main line (its last ``window`` cards) with the wrong cards under each."""
        main = obs.main_line
        side_line = self.view_.side_line(obs)
        if side_line:
            under = {i: [f"{card!s:>3}" for card in cards] for i, cards in enumerate(side_line)}
        else:
            under = self.under_
        start = 0 if full else max(0, len(main) - self.window)
        count = f"{len(main)} card{'s' if len(main) != 1 else ''}"
        shown = f", the last {len(main) - start} shown" if start else ""
        lines = ["", f"main line, {count}{shown} (wrong cards under the card they were played on):"]
        for first in range(start, len(main), _COLUMNS):
            block = range(first, min(first + _COLUMNS, len(main)))
            if first > start:
                lines.append("")
            lines.append(f"{'position':<{_LABEL}}" + "".join(f"{i:>{_CELL - 1}} " for i in block))
            lines.append(
                f"{'main':<{_LABEL}}" + "".join(f"{main[i]!s:>{_CELL - 1}} " for i in block)
            )
            columns = [_column(under.get(i, [])) for i in block]
            for row in range(max(map(len, columns), default=0)):
                label = "wrong" if row == 0 else ""
                cells = (column[row] if row < len(column) else "" for column in columns)
                lines.append(
                    f"{label:<{_LABEL}}" + "".join(f" {cell:<{_CELL - 1}}" for cell in cells)
                )
        return [line.rstrip() for line in lines]

    # -- questions and answers ----------------------------------------------------------

    def _ask(
        self,
        obs: Observation,
        prompt: str,
        read: Callable[[str], Any],
        help_text: str,
        empty: bool = False,
        more: str = "",
    ) -> Any:
        """Ask until ``read`` takes the answer; handle help (``help_text``, then the
        lines of ``more`` as they are), the table and quitting."""
        while True:
            text = self._read(prompt).strip()
            word = text.lower()
            if word in _QUIT:
                raise PlayerQuit(self._who() + " quit the game")
            if word in _HELP:
                self._say(textwrap.fill(help_text, 78, initial_indent="  ", subsequent_indent="  "))
                if more:
                    self._say(_indented(more))
                self._say(_COMMANDS)
                continue
            if word in _TABLE:
                self._say("\n".join(self._table(obs, full=True)))
                continue
            if not text and not empty:
                continue
            try:
                return read(text)
            except _BadAnswer as error:
                self._say(f"  {error}")

    def _read(self, prompt: str) -> str:
        stream = sys.stdin if self.input is None else self.input
        out = self._out()
        interactive = _is_terminal(stream)
        if interactive and stream is sys.stdin and self.output is None:
            try:
                return input(prompt)  # line editing where the terminal has it
            except EOFError:
                print(file=out)
                raise PlayerQuit(self._who() + " quit the game (end of input)") from None
        out.write(prompt)
        out.flush()
        line = stream.readline()
        if not line:
            out.write("\n")
            raise PlayerQuit(self._who() + " quit the game (end of input)")
        if not interactive:
            out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\r\n")

    def _out(self) -> TextIO:
        return sys.stdout if self.output is None else self.output

    def _say(self, text: str) -> None:
        print(text, file=self._out())

    def _who(self) -> str:
        info = getattr(self, "info_", None)
        return "the player" if info is None else f"the player at seat {info.seat}"


# -- reading answers -----------------------------------------------------------------------


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def _cards(text: str) -> list[Card]:
    """The cards of an answer, with ranks only as the help lists them.

    ``parse_cards`` also reads ``1H`` as the ace and ``11H`` to ``13H`` as the jack,
    queen and king; a person who types them is more likely mistaken than not, so the
    seat refuses them with the form to type instead.

    >>> _cards("10h qs")
    [Card('10H'), Card('QS')]
    >>> _cards("11h")
    Traceback (most recent call last):
    ...
    eleusis_agents.human._BadAnswer: not a card: '11h' (ranks are A, 2..10 or T, J, Q, K: \
for the jack of hearts type JH)
    """
    for token in re.split(r"[\s,]+", text.strip()):
        if _NUMBER_RANK.match(token):
            card = parse_card(token)
            name = f"{_RANK_WORDS[card.rank]} of {SUIT_NAMES[card.suit]}"
            raise _BadAnswer(
                f"not a card: {token!r} (ranks are A, 2..10 or T, J, Q, K:"
                f" for the {name} type {card})"
            )
    try:
        return parse_cards(text)
    except CardError as error:
        raise _BadAnswer(str(error)) from None


def _take(hand: Iterable[Card], cards: list[Card]) -> tuple[Card, ...]:
    """The held cards with the faces of ``cards`` (two decks: each copy once)."""
    pool = list(hand)
    taken: list[Card] = []
    for card in cards:
        held = next((each for each in pool if each.face == card.face), None)
        if held is None:
            if any(each.face == card.face for each in taken):
                count = sum(each.face == card.face for each in taken)
                raise _BadAnswer(f"you hold {card} only {_TIMES.get(count, f'{count} times')}")
            raise _BadAnswer(f"you do not hold {card}")
        pool.remove(held)
        taken.append(held)
    return tuple(taken)


def _yes_or_no(text: str, yes: str, no: str) -> bool:
    word = text.lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise _BadAnswer(f"answer {yes} or {no}")


def _right(text: str) -> bool:
    return _yes_or_no(text, "r (right)", "w (wrong)")


def _yes(text: str) -> bool:
    return _yes_or_no(text, "y (yes)", "n (no)")


def _column(cards: list[str]) -> list[str]:
    """The wrong cards under one main-line card, the first ones and a count if many."""
    if len(cards) <= _MAX_ROWS:
        return cards
    return [*cards[: _MAX_ROWS - 1], f"{f'+{len(cards) - _MAX_ROWS + 1}':>3}"]


def _hand_text(hand: Iterable[Card]) -> str:
    return format_cards(sorted(hand, key=lambda card: (card.suit, card.rank, card.copy)))


def _view(info: GameInfo, max_turns: int | None) -> SeatView:
    """The game's view for a person (`GameType.seat_view`; the generic one for a game
    not registered), showing ``max_turns`` or else the default of the game's option."""
    game = GAMES.get(info.game)
    if game is None:
        return SeatView(info, info.game, max_turns)
    if max_turns is None:
        max_turns = getattr(game.make_config({}), "max_turns", None)
    return game.seat_view(info, game.label, max_turns)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


_CARD_HELP = f"type one card of your hand; {_CARD_TEXT}"
_TURN_HELP = (
    f"type 1 to {MAX_STRING} cards of your hand, in the order they go on the line"
    " (e.g. 3H 5D 7C): a string is right only if every card is; or 'none' to declare"
    f" that none of your cards is right\n{_CARD_TEXT}"
)
_PREDICT_HELP = "will the dealer's rule accept the card? r (or y): right, w (or n): wrong"
_PROPHET_HELP = (
    "y: become the Prophet (you set your hand aside and call every play right or wrong;"
    " a call the dealer overrules costs you 5 cards), n: play on"
)
_CALL_HELP = "as the Prophet, call the play: r (or y): right, w (or n): wrong"
_NO_PLAY_HELP = (
    "as the Prophet, call the no play: r (or y): right, none of the cards fits;"
    " w (or n): wrong, one of them fits"
)
_RULE_HELP = (
    "type the rule you declare, e.g. color(card) != color(last), or an empty line to"
    " declare nothing; a wrong declaration costs 2 points"
)
