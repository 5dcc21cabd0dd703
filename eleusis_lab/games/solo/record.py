"""The solo game's record (every play and declaration, the score), its JSON form and
its layout on the table.

The game, the judging of declarations and the replay are in `eleusis_lab.games.solo`.
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, format_cards
from eleusis_lab.record import (
    Fault,
    JsonRecord,
    RecordError,
    agent_from_dict,
    card_from_text,
    card_text,
    cards_from_text,
    cards_text,
    fault_lines,
    flag_field,
    main_line_rows,
    reading_record,
    rule_game_fields,
    rule_game_head,
    whole_field,
)

__all__ = [
    "END_REASONS",
    "EXACT",
    "FOUND",
    "GAME",
    "INVALID",
    "NO_STARTER",
    "OUT_OF_CARDS",
    "SIMULATION",
    "TURN_CAP",
    "Declaration",
    "SoloRecord",
    "Tentative",
    "format_solo_layout",
]

GAME = "solo"
FORMAT_VERSION = 2
#: Format 1 records were played declaring after the verdict, judged over every
#: reachable state, with success meaning found; they are read with those options.
_FORMAT_1_OPTIONS = {"timing": "after_verdict", "judge": "reachable"}

#: How a solo game ended (`SoloRecord.end`).
FOUND = "found"
TURN_CAP = "turn_cap"
OUT_OF_CARDS = "out_of_cards"
NO_STARTER = "no_starter"
END_REASONS = {
    FOUND: "the rule was found",
    TURN_CAP: "the last turn was played",
    OUT_OF_CARDS: "the player ran out of cards",
    NO_STARTER: "the stock ran out before the rule accepted a starter",
}

#: How a declaration was judged (`Judgement.method`).
EXACT = "exact"
SIMULATION = "simulation"
INVALID = "invalid"


@dataclass(frozen=True)
class Declaration:
    """A rule declared on ``turn``, the confidence stated with it (None when the agent
    gave none) and its judgement (see `eleusis_lab.games.solo.judge.Judgement`)."""

    turn: int
    text: str
    correct: bool
    method: str
    reason: str
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Tentative:
    """The tentative rule stated on ``turn`` with its confidence, declared or not, and
    whether it was the secret rule (judged as a declaration would be, at no cost)."""

    turn: int
    text: str
    confidence: float | None
    correct: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: From this confidence a tentative rule counts for the no-stakes score.
NO_STAKES_CONFIDENCE = 0.5
#: The published success: found with a score of at least this.
SUCCESS_SCORE = 2


def published_success(found: bool, score: int) -> bool:
    """The published benchmark's success: found with a score of at least 2.

    >>> published_success(True, 2), published_success(True, 1), published_success(False, 0)
    (True, False, False)
    """
    return found and score >= SUCCESS_SCORE


@dataclass(frozen=True)
class SoloRecord(JsonRecord):
    """Everything about one solo game: enough to replay, check, score and lay it out.

    Attributes
    ----------
    game : str
        ``"solo"``.
    rule, rule_name : str, str or None
        The secret rule's canonical text and its catalog name, if any.
    seed : int
        The seed the game was played with.
    config : dict
        `SoloConfig.to_dict`.
    agent : dict
        The player: ``name``, ``spec`` and ``params`` (`eleusis_lab.record.describe_agent`).
    deal : tuple of Card
        The hand as dealt.
    refused : tuple of Card
        Cards drawn for a starter and refused by the rule on an empty line (discarded).
    starter : Card or None
        The first card of the main line (``None``: the game ended with `NO_STARTER`).
    events : tuple of Event
        Every play: card, verdict and the main-line position it was judged against.
    declarations : tuple of Declaration
        Every declaration, in order, with its judgement.
    tentative : tuple of Tentative
        The tentative rule of every turn that stated one, judged.
    main_line, side_line : tuple of Card
        The main line (starter first) and the wrong cards, at the end.
    hand, stock : tuple of Card
        The player's hand and the stock (in drawing order) at the end.
    end : str
        `FOUND`, `TURN_CAP`, `OUT_OF_CARDS` or `NO_STARTER`.
    turns : int
        Turns played.
    found_turn : int or None
        The turn of the correct declaration.
    wrong_declarations : int
        Declarations judged wrong (invalid text included).
    score, floored_score : int
        `solo_score` and ``max(0, score)``.
    found : bool
        Whether the rule was found.
    success : bool
        The published benchmark's success: found with a score of at least 2.
    faults : tuple of Fault
        The agent's faults, in order (``seat`` is 0).
    """

    kind = "solo game record"  # named in errors: "not a solo game record: ..."

    game: str
    rule: str
    rule_name: str | None
    seed: int
    config: dict[str, Any]
    agent: dict[str, Any]
    deal: tuple[Card, ...]
    refused: tuple[Card, ...]
    starter: Card | None
    events: tuple[Event, ...]
    declarations: tuple[Declaration, ...]
    main_line: tuple[Card, ...]
    side_line: tuple[Card, ...]
    hand: tuple[Card, ...]
    stock: tuple[Card, ...]
    end: str
    turns: int
    found_turn: int | None
    wrong_declarations: int
    score: int
    floored_score: int
    found: bool
    success: bool
    faults: tuple[Fault, ...] = ()
    tentative: tuple[Tentative, ...] = ()

    @property
    def no_stakes_score(self) -> int:
        """``31 - k`` for the first turn ``k`` whose tentative rule, stated with
        confidence at least 1/2 (or declared), was correct; 0 if none was: finding the
        rule, apart from knowing when to say so (RULES.md section 6)."""
        max_turns = int(self.config.get("max_turns", 30))
        declared = {d.turn for d in self.declarations}
        for t in self.tentative:
            stated = t.turn in declared or (t.confidence or 0) >= NO_STAKES_CONFIDENCE
            if t.correct and stated:
                return max_turns + 1 - t.turn
        return 0

    @property
    def boldness(self) -> int:
        """2 x wrong declarations - turns spent holding the right rule undeclared:
        above 0 an agent declares too soon, below 0 too late."""
        declared = {d.turn for d in self.declarations}
        holding = sum(t.correct and t.turn not in declared for t in self.tentative)
        return 2 * self.wrong_declarations - holding

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text, ``"10H#1"`` for a second copy)."""

        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agent": dict(self.agent),
            "deal": cards_text(self.deal),
            "refused": cards_text(self.refused),
            "starter": None if self.starter is None else card_text(self.starter),
            "events": [
                {"card": card_text(e.card), "right": e.right, "position": e.position}
                for e in self.events
            ],
            "declarations": [d.to_dict() for d in self.declarations],
            "tentative": [t.to_dict() for t in self.tentative],
            "main_line": cards_text(self.main_line),
            "side_line": cards_text(self.side_line),
            "hand": cards_text(self.hand),
            "stock": cards_text(self.stock),
            "end": self.end,
            "turns": self.turns,
            "found_turn": self.found_turn,
            "wrong_declarations": self.wrong_declarations,
            "score": self.score,
            "floored_score": self.floored_score,
            "found": self.found,
            "success": self.success,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SoloRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version not in (1, FORMAT_VERSION) or data.get("game") != GAME:
                raise RecordError(
                    f"not a solo game record (format {version!r}, game"
                    f" {data.get('game')!r}; this version reads formats 1 and {FORMAT_VERSION})"
                )
            head = rule_game_fields(data)
            if version == 1:
                head["config"] = {**_FORMAT_1_OPTIONS, **head["config"]}
            found = data["found"] if version > 1 else data["success"]
            starter = data["starter"]
            return cls(
                **head,
                agent=agent_from_dict(data["agent"]),
                deal=cards_from_text(data["deal"]),
                refused=cards_from_text(data["refused"]),
                starter=None if starter is None else card_from_text(starter),
                events=tuple(
                    Event(
                        0,
                        card_from_text(e["card"]),
                        1,
                        flag_field(e["right"], "an event's right"),
                        whole_field(e["position"], "an event's position", least=None),
                    )
                    for e in data["events"]
                ),
                declarations=tuple(
                    Declaration(
                        d["turn"],
                        d["text"],
                        d["correct"],
                        d["method"],
                        d["reason"],
                        d.get("confidence"),
                    )
                    for d in data["declarations"]
                ),
                tentative=tuple(
                    Tentative(t["turn"], t["text"], t["confidence"], t["correct"])
                    for t in data.get("tentative", ())
                ),
                main_line=cards_from_text(data["main_line"]),
                side_line=cards_from_text(data["side_line"]),
                hand=cards_from_text(data["hand"]),
                stock=cards_from_text(data["stock"]),
                end=data["end"],
                turns=data["turns"],
                found_turn=data["found_turn"],
                wrong_declarations=data["wrong_declarations"],
                score=data["score"],
                floored_score=data["floored_score"],
                found=found,
                success=data["success"] if version > 1 else published_success(found, data["score"]),
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- layout -------------------------------------------------------------------------------

_CELL = 5
_LABEL = 8
_WIDTH = 100


def format_solo_layout(record: SoloRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a solo game, the declarations and the score.

    The main line runs left to right in blocks of ``columns`` cards, with the wrong
    cards of the side line under the card they were played on; then the refused
    starters, every declaration with its judgement, the score and any faults.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent
    >>> from eleusis_lab.games.solo import play_solo
    >>> print(format_solo_layout(play_solo("black(card)", OracleAgent(), seed=0)))
    ... # doctest: +ELLIPSIS
    solo Eleusis, seed 0, rule: black(card)
    agent: OracleAgent
    options: hand_size=12, max_turns=30, timing=before_verdict, judge=continuations, ...
      on_fault=substitute, decision_limit=60.0, simulation_games=100, simulation_seed=0
    refused starters (discarded): 2H JH
    wrong cards are under the main-line card they were played on
    <BLANKLINE>
    position   0    1
    main      QC  ...
    <BLANKLINE>
    declarations: 1 (0 wrong)
      turn  1  correct (exact)  black(card)
    found on turn 1 with 0 wrong declarations: score 30 (floored 30)
    no-stakes score 30, boldness 0
    """
    main = record.main_line
    under: list[list[str]] = [[] for _ in main]
    for event in record.events:
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append(f"{event.card!s:>3}")

    name = f" ({record.rule_name})" if record.rule_name else ""
    options = ", ".join(f"{k}={v}" for k, v in record.config.items())
    lines = [
        f"solo Eleusis, seed {record.seed}, rule: {record.rule}{name}",
        f"agent: {record.agent.get('name')}",
        *textwrap.wrap(f"options: {options}", width=_WIDTH, subsequent_indent="  "),
        f"refused starters (discarded): {format_cards(record.refused) or 'none'}",
    ]
    if record.starter is None:
        lines.append("no starter: the stock ran out before the rule accepted a card")
    else:
        lines += ["wrong cards are under the main-line card they were played on", ""]
    lines += main_line_rows(main, under, columns, max_rows)
    lines = [line.rstrip() for line in lines]

    wrong = record.wrong_declarations
    lines.append(f"declarations: {len(record.declarations)} ({wrong} wrong)")
    for d in record.declarations:
        verdict = "correct" if d.correct else "wrong"
        text = " ".join(d.text.split())
        line = f"  turn {d.turn:>2}  {verdict} ({d.method})  {text}"
        lines.append(line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "...")
        if not d.correct:
            lines.append(textwrap.shorten(f"           {d.reason}", _WIDTH, placeholder="..."))
    plural = "" if wrong == 1 else "s"
    if record.found:
        lines.append(
            f"found on turn {record.found_turn} with {wrong} wrong declaration{plural}:"
            f" score {record.score} (floored {record.floored_score})"
        )
    else:
        reason = END_REASONS.get(record.end, record.end)
        lines.append(
            f"not found after {record.turns} turns ({reason}), {wrong} wrong"
            f" declaration{plural}: score {record.score} (floored {record.floored_score})"
        )
    if record.tentative:
        lines.append(f"no-stakes score {record.no_stakes_score}, boldness {record.boldness}")
    lines += fault_lines(record.faults)
    return "\n".join(lines)
