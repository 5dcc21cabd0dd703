"""A human seat: `HumanAgent` asks the person at the terminal for every decision.

Before each decision it shows what that person may see: what happened since his
previous decision (every play and its verdict, from ``observe``), the end of the main
line with the wrong cards under the card they were played on, the other players' wrong
cards (or, in New Eleusis, their hand sizes, the Prophet and the expelled players), and
his hand. Then it reads an answer: a card such as ``QH``, ``10h``, ``TH`` or ``A♣``; in
New Eleusis a string of up to 4 cards (``3H 5D 7C``) or ``none``; ``r``/``w`` (also
``y``/``n``) for a Delphi prediction or a Prophet's call; ``y``/``n`` for becoming the
Prophet; rule text (or an empty line) for a solo declaration. Bad input gets a one-line
reason and the question again; ranks are read only as the help lists them (A, 2..10 or
T, J, Q, K): ``11h`` or ``1h`` is refused with the card to type (``JH``, ``AH``) rather
than read silently. Everywhere ``?`` or ``help`` lists what can be typed, ``t`` or
``table`` shows the whole main line, and ``q`` or ``quit`` (or the end of the input)
raises `PlayerQuit`.

What else the person is shown: in phase 2 of classic Eleusis and of the 4-8 player
variant, the turn and the cap (``max_turns``, 1,000); in solo, "turn N of 30", what a
correct declaration now would score, the card drawn, and after a wrong declaration a
counter-example, when the engine tells the judgement (``play_solo(...,
on_turn=agent.hear_judgement)``, as ``eleusis-lab play`` does).

`PlayerQuit` is a ``KeyboardInterrupt``: the game engines catch only ``Exception`` (an
agent's fault becomes a substitute move), so quitting stops the game at once, whatever
its ``on_fault``; ``str(error)`` says who quit. ``eleusis-lab play`` then shows the
secret rule and the scores so far (`eleusis_lab.stopped.stopped_report`, from the
events the seat saw, ``seen_``) and exits 0, or 130 after Ctrl-C.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

import numpy as np

from eleusis_lab.agent import Agent, Event, GameInfo, Observation
from eleusis_lab.cards import SUIT_NAMES, Card, CardError, format_cards, parse_card, parse_cards
from eleusis_lab.games.classic import ClassicConfig
from eleusis_lab.games.four_to_eight import FourToEightConfig
from eleusis_lab.games.new_eleusis import NewEleusisDecisions, NewEleusisObservation
from eleusis_lab.games.solo import MAX_TURNS, WRONG_PENALTY, SoloDecisions, SoloMove, solo_score
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import RuleSyntaxError, parse
from eleusis_lab.text import plural

__all__ = ["HumanAgent", "PlayerQuit"]

MAX_STRING = 4  # New Eleusis: a turn plays 1 to 4 cards
RECENT_LINES = 16  # at most this many lines of "since your last decision"
_COLUMNS = 13  # main-line cards per row of the table
_CELL = 5
_LABEL = 8
_WIDTH = 100  # a terminal's width, for the lines that can grow
_TIMES = {1: "once", 2: "twice"}
_MAX_ROWS = 6  # wrong cards shown under one main-line card
#: The turn caps a person is shown: solo's turns, the phase-2 turns of the others.
_TURN_CAPS = {
    "solo": MAX_TURNS,
    "classic": ClassicConfig().max_turns,
    "four-to-eight": FourToEightConfig().max_turns,
}
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

    A ``KeyboardInterrupt``, so that no game engine takes it for an agent's fault: the
    game stops at once. ``str(error)`` says who quit and how, for a one-line report.
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
        The game's cap on turns, shown to the person: solo's turns (``SoloConfig``),
        the phase-2 turns of classic Eleusis and of the 4-8 player variant. ``None``:
        the default of the game's config (30 and 1,000), which ``eleusis-lab play``
        always plays.

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
        self.prophet_: int | None = None  # New Eleusis: the Prophet at the last table shown
        self.said_: dict[Card, bool] = {}  # Delphi: the person's tokens for the next card
        self.chips_ = 0  # Delphi: the person's chips
        self.notes_: dict[int, str] = {}  # index in recent_ -> what to add to that event
        self.rule_told_: str | None = None  # solo: a declaration not yet told to be wrong
        self.counter_example_: str | None = None  # solo: where that declaration is wrong
        self.wrong_declarations_ = 0  # solo: the declarations told to be wrong
        self.played_from_: tuple[Observation, Card] | None = None  # solo: the last play
        self.seen_: list[Event] = []  # every event of the game, for `stopped_report`
        self.phase2_told_ = False  # classic, 4-8: phase 2 and its cap announced
        cap = self.max_turns if self.max_turns is not None else _TURN_CAPS.get(info.game)
        self.turn_cap_: int | None = cap
        title = GAMES[info.game].label if info.game in GAMES else info.game
        if info.game == "solo":
            self._say(f"== {title}: find the rule; the starter is {info.starter} ==")
        else:
            players = f"{info.n_players} player{'s' if info.n_players != 1 else ''}"
            starter = f"; the starter is {info.starter}" if info.starter is not None else ""
            self._say(f"== {title}: you are seat {info.seat} of {players}{starter} ==")

    def observe(self, event: Event) -> None:
        self.recent_.append(event)
        self.seen_.append(event)
        said = self.said_.pop(event.card, None) if self.said_ else None
        if said is not None:  # Delphi: the verdict of a card the person predicted
            hit = said == event.right
            self.chips_ = self.chips_ + 1 if hit else 0
            self.notes_[len(self.recent_) - 1] = f"you said {'right' if said else 'wrong'}: " + (
                "+1 chip" if hit else "you lose your chips"
            )
        if not event.right and event.kind in ("play", "string"):
            mark = (
                "*" if event.phase == 2 and self.info_.game in ("classic", "four-to-eight") else ""
            )
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
        self.played_from_ = (obs, played)
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
        if obs.game == "delphi":
            self.said_ = dict(zip(cards, answers, strict=True))
        return np.array([1.0 if answer else 0.0 for answer in answers])

    def declare_prophet(self, obs: Observation) -> bool:
        """New Eleusis, right after the person's play: become the Prophet?"""
        self._show_recent()
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
            self.rule_told_ = text
            return text

        prompt = "declare a rule (empty line: no; ? for help)> "
        return self._ask(obs, prompt, rule, _RULE_HELP, empty=True)

    # -- what the person sees ----------------------------------------------------------

    def hear_judgement(self, turn: int, event: Event, declaration: Any) -> None:
        """Solo: told how the turn's declaration was judged (``play_solo``'s ``on_turn``).

        Only a wrong declaration matters: its ``reason`` is a counter-example (a state
        and a card on which the declared rule and the secret rule disagree), shown to
        the person at his next decision. The secret rule itself is not told. Without
        this call the person is still told that the declaration was wrong, with no
        counter-example.
        """
        if declaration is not None and not declaration.correct:
            self.counter_example_ = str(declaration.reason).replace(
                "under the declared one", "under yours"
            )

    def _show(self, obs: Observation, hand: bool = True) -> None:
        self._show_recent(obs)
        lines = self._table(obs, full=False)
        lines += self._status(obs)
        if hand and obs.game != "delphi":
            lines.append(f"your hand ({len(obs.hand)}): {_hand_text(obs.hand)}")
        self._say("\n".join(lines))

    def _show_recent(self, obs: Observation | None = None) -> None:
        lines = self._recent_lines(self.recent_)
        self.recent_, self.notes_ = [], {}
        if obs is not None and obs.game == "solo":
            lines += self._drawn(obs)
        if self.rule_told_ is not None:  # solo: the game goes on only after a wrong one
            lines.append(f"  your rule {self.rule_told_} was judged wrong (-2 points)")
            if self.counter_example_ is not None:
                lines.append(f"  a counter-example: {self.counter_example_}")
            self.rule_told_ = self.counter_example_ = None
            self.wrong_declarations_ += 1
        if lines:
            self._say("\n".join(["", "since your last decision:", *lines]))

    def _drawn(self, obs: Observation) -> list[str]:
        """Solo: the card drawn after the last play, named once (compared with the
        hand it was played from)."""
        if self.played_from_ is None or self.played_from_[0] is obs:
            return []
        before, played = self.played_from_
        self.played_from_ = None
        kept = Counter(before.hand) - Counter([played])
        drawn = list((Counter(obs.hand) - kept).elements())
        if not drawn:
            return ["  you drew no card: the stock is empty"]
        return [f"  you drew {format_cards(drawn)}"]

    def _recent_lines(self, events: list[Event]) -> list[str]:
        lines: list[str] = []
        grouped = self.info_.game == "new-eleusis"
        i = 0
        while i < len(events):
            group = [events[i]]
            while (
                grouped
                and i + len(group) < len(events)
                and _same_turn(group[0], events[i + len(group)])
            ):
                group.append(events[i + len(group)])
            note = self.notes_.get(i)
            lines.append("  " + self._event_text(group) + (f"; {note}" if note else ""))
            i += len(group)
        if len(lines) > RECENT_LINES:
            hidden = len(lines) - RECENT_LINES + 1
            lines = [f"  ({hidden} earlier plays not shown)", *lines[-(RECENT_LINES - 1) :]]
        return lines

    def _event_text(self, group: list[Event]) -> str:
        event = group[0]
        cards = format_cards(e.card for e in group)
        verdict = "right" if event.right else "wrong"
        if self.info_.game == "delphi":
            return f"{cards}: {verdict}"
        who = "you" if event.seat == self.info_.seat else f"seat {event.seat}"
        if event.kind == "string":
            return f"{who} played the string {cards}: wrong (which card failed is not told)"
        if event.kind == "set_aside":
            return f"{who} declared no play: right; the hand set aside: {cards}"
        if event.kind == "dealer":
            return f"{who} declared no play: wrong; the dealer played {cards} from that hand"
        return f"{who} played {cards}: {verdict}"

    def _table(self, obs: Observation, full: bool) -> list[str]:
        """The main line (its last ``window`` cards) with the wrong cards under each."""
        main = obs.main_line
        if isinstance(obs, NewEleusisObservation) and obs.side_line:
            under = {i: [f"{card!s:>3}" for card in cards] for i, cards in enumerate(obs.side_line)}
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

    def _status(self, obs: Observation) -> list[str]:
        """The rest of the public table: the others' cards, the phase, the Prophet."""
        me, game = self.info_.seat, obs.game
        if game == "delphi":
            side = obs.wrong_cards[0] if obs.wrong_cards else ()
            placed = len(obs.main_line) + len(side)
            return [f"{placed} of 52 cards placed; your chips: {self.chips_}"]
        if game == "solo":
            return [self._solo_status(obs)]
        if game == "new-eleusis":
            seats = []
            for seat, size in enumerate(obs.hand_sizes):
                who = "you" if seat == me else f"seat {seat}"
                notes = [f"{size} card{'s' if size != 1 else ''}"]
                if seat == obs.prophet:
                    notes.append("Prophet")
                if seat in obs.expelled:
                    notes.append("expelled")
                seats.append(f"{who} {', '.join(notes)}")
            lines = self._prophet_news(obs.prophet)
            lines.append("hands: " + "; ".join(seats))
            played = f"cards played: {obs.cards_played}"
            if obs.prophet is not None:
                played += f" (the Prophet's marker went down after {obs.marker})"
            lines.append(played)
            if obs.phase == 2:
                lines.append("sudden death: a wrong play expels its player")
            return lines
        piles = [
            f"{'you' if seat == me else f'seat {seat}'}: {format_cards(pile) or 'none'}"
            for seat, pile in enumerate(obs.wrong_cards)
        ]
        phase = (
            ["phase 1: play each card of your hand once"]
            if obs.phase == 1
            else self._phase2_status()
        )
        line = "wrong cards: " + "; ".join(piles)
        if len(line) > _WIDTH:
            return ["wrong cards:", *(f"  {pile}" for pile in piles), *phase]
        return [line, *phase]

    def _solo_status(self, obs: Observation) -> str:
        """Solo: the turn of the cap and what a correct declaration now would score."""
        side = obs.wrong_cards[0] if obs.wrong_cards else ()
        turn = len(obs.main_line) + len(side)  # the starter is not a turn: this one is
        cap = self.turn_cap_ or turn
        wrong = self.wrong_declarations_
        line = f"turn {turn} of {cap}"
        if turn <= cap:
            score = solo_score(turn, wrong, cap)
            line += f"; a correct declaration now scores {score}"
            if wrong:
                line += f" (-{WRONG_PENALTY * wrong} for {plural(wrong, 'wrong declaration')})"
        return line

    def _phase2_status(self) -> list[str]:
        """Classic, 4-8: phase 2, its turns so far and the cap (announced once in full)."""
        lines = ["phase 2: play your wrong cards; a wrong one comes back to you"]
        cap = self.turn_cap_
        if cap is None:
            return lines
        if not self.phase2_told_:
            self.phase2_told_ = True
            lines.append(
                "phase 2 ends when a player is out of cards, when no wrong card can be"
                f" played, or after {cap:,} turns"
            )
        turn = _phase2_turn(self.seen_, self.info_.seat)
        left = f"{cap - turn:,} after this one" if turn < cap else "this is the last one"
        lines.append(f"phase-2 turn {turn:,} of at most {cap:,} ({left})")
        return lines

    def _prophet_news(self, prophet: int | None) -> list[str]:
        """New Eleusis: who became the Prophet or was overthrown since the last table."""
        before, self.prophet_ = self.prophet_, prophet
        lines = []
        if before is not None and before != prophet:
            who = "you were" if before == self.info_.seat else f"the Prophet (seat {before}) was"
            lines.append(f"{who} overthrown: a call the dealer overruled")
        if prophet is not None and prophet != before:
            who = "you are" if prophet == self.info_.seat else f"seat {prophet} is"
            lines.append(f"{who} the Prophet now")
        return lines

    # -- questions and answers ----------------------------------------------------------

    def _ask(
        self,
        obs: Observation,
        prompt: str,
        read: Callable[[str], Any],
        help_text: str,
        empty: bool = False,
    ) -> Any:
        """Ask until ``read`` takes the answer; handle help, the table and quitting."""
        while True:
            text = self._read(prompt).strip()
            word = text.lower()
            if word in _QUIT:
                raise PlayerQuit(self._who() + " quit the game")
            if word in _HELP:
                self._say(textwrap.fill(help_text, 78, initial_indent="  ", subsequent_indent="  "))
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


def _phase2_turn(events: Sequence[Event], seat: int) -> int:
    """Classic, 4-8: the phase-2 turn of ``seat``'s decision, counted from the plays as
    the engines count turns (all seats' turns; a wrong card retried in the same turn,
    ``retry_in_turn``, is not a new turn).

    >>> from eleusis_lab.cards import parse_card
    >>> def play(seat, phase):
    ...     return Event(seat, parse_card("2H"), phase, False, 0)
    >>> plays = [play(0, 1), play(1, 1), play(0, 2), play(0, 2), play(1, 2)]
    >>> _phase2_turn(plays, 0), _phase2_turn(plays[:-1], 0)  # turn 3; a retry in turn 1
    (3, 1)
    """
    turns, previous = 0, None
    for event in events:
        if event.phase == 2 and (
            previous is None or previous.phase != 2 or previous.seat != event.seat
        ):
            turns += 1
        previous = event
    retrying = previous is not None and previous.phase == 2 and previous.seat == seat
    return turns if retrying else turns + 1


def _same_turn(first: Event, other: Event) -> bool:
    """New Eleusis: whether ``other`` is another card of ``first``'s turn."""
    return (
        other.seat == first.seat
        and other.kind == first.kind
        and other.right == first.right
        and (first.kind in ("string", "set_aside") or (first.kind == "play" and first.right))
    )


def _hand_text(hand: Iterable[Card]) -> str:
    return format_cards(sorted(hand, key=lambda card: (card.suit, card.rank, card.copy)))


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
