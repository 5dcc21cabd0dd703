"""The record of a game of Secrets: every turn, JSON in and out, and its replay.

A `SecretsRecord` is what `eleusis_lab.secrets.game.play_secrets` returns. It is plain
data: the set-up, one `SecretsStep` per turn (the seat, its piece, the action, the
defender's answer to a duel and what happened), how the game ended, the hands and the
scores. It goes to JSON and back (`SecretsRecord.to_json`, `SecretsRecord.from_json`,
`save`, `load`), `replay_secrets` re-derives the game from the seed and the recorded
decisions and lists every discrepancy. (`eleusis_lab.secrets.draw` lays records
and positions out as text and draws them.)

Examples
--------
>>> from eleusis_lab.secrets.game import play_secrets
>>> from eleusis_lab.secrets.agent import parse_secrets_agent_list
>>> agents = parse_secrets_agent_list("secrets-random," * 3 + "secrets-random")
>>> record = play_secrets(agents, seed=1)
>>> SecretsRecord.from_json(record.to_json()) == record, replay_secrets(record)
(True, [])
>>> record.end, sum(record.final_state().cards().values())
('no_pieces', 52)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from eleusis_lab.cards import SUIT_NAMES, Card
from eleusis_lab.games.driver import END, RecordedSeats, drive
from eleusis_lab.record import (
    OVER_TIME,
    RAISED,
    STOPPED,
    Fault,
    FaultRules,
    JsonRecord,
    RecordError,
    agent_from_dict,
    card_from_text,
    check_faults,
    reading_record,
    record_config,
    whole_field,
)
from eleusis_lab.secrets.config import SecretsConfig
from eleusis_lab.secrets.moves import (
    DECK,
    DUEL,
    EFFECTS,
    JACK,
    KING,
    N_SEATS,
    N_SQUARES,
    SEAT_SUITS,
    SKIP,
    SUIT_SEATS,
    SecretsAction,
    effect_text,
    parse_action,
    parse_effect,
    parse_square,
    secrets_ranks,
    square_name,
)
from eleusis_lab.secrets.state import SecretsSetup, SecretsState, secrets_setup

__all__ = [
    "BLOCKED",
    "END_REASONS",
    "FAULT_CALLS",
    "ILLEGAL_ACTION",
    "NO_PIECES",
    "TURN_CAP",
    "SecretsRecord",
    "SecretsStep",
    "replay_secrets",
]

GAME = "secrets"
FORMAT_VERSION = 1

#: How a game of Secrets ended.
NO_PIECES = "no_pieces"
BLOCKED = "blocked"
TURN_CAP = "turn_cap"
END_REASONS = {
    NO_PIECES: "no jack or king left on the board",
    BLOCKED: "every piece left on the board was blocked (nothing could change any more)",
    TURN_CAP: "the turn cap was hit",
}

#: An agent's fault kind of Secrets besides `RAISED`, `OVER_TIME` and `STOPPED`.
ILLEGAL_ACTION = "illegal_action"
FAULT_KINDS = (RAISED, ILLEGAL_ACTION, OVER_TIME, STOPPED)
#: The agent methods a fault of Secrets can happen in (`Fault.call`).
FAULT_CALLS = ("start_game", "choose_action", "answer_duel", "observe")


def _seat_name(seat: int) -> str:
    return SUIT_NAMES[SEAT_SUITS[seat]]


@dataclass(frozen=True)
class SecretsStep:
    """One turn: who moved which piece from where, what he did and what happened.

    Attributes
    ----------
    seat : int
        The seat whose turn it was.
    piece : Card
        Its active piece (jack, else king).
    start : int
        The square the piece stood on.
    action : SecretsAction
        The action played (``skip`` when the piece had none).
    beat : Card or None
        For a duel, the card the defender beat with; None when he did not beat.
    effects : tuple of (str, Card)
        What happened, in order (see `eleusis_lab.secrets.state.EFFECTS`).

    Examples
    --------
    >>> step = SecretsStep(0, _card("JH"), 1, parse_action("a3/5C"), None,
    ...                    (parse_effect("send 5C"), parse_effect("discard 9D")))
    >>> str(step)
    'hearts JH a2-a3: sends 5C, 9D leaves the game'
    >>> SecretsStep.from_dict(step.to_dict()) == step
    True
    """

    seat: int
    piece: Card
    start: int
    action: SecretsAction
    beat: Card | None
    effects: tuple[tuple[str, Card], ...]

    def __str__(self) -> str:
        action = self.action
        if action.kind == SKIP:
            move = "skips (no possible action)"
        elif action.kind in ("move", DUEL):
            move = f"{square_name(self.start)}-{square_name(action.square)}"
        elif action.kind == "leave":
            move = f"{square_name(self.start)}-out"
        else:
            move = f"{square_name(self.start)} {action}"
        done = ", ".join(EFFECTS[code].format(card=card) for code, card in self.effects)
        return f"{_seat_name(self.seat)} {self.piece} {move}" + (f": {done}" if done else "")

    def to_dict(self) -> dict[str, Any]:
        """The step as JSON-ready data (cards, squares and actions as text)."""
        return {
            "seat": self.seat,
            "piece": str(self.piece),
            "from": square_name(self.start),
            "action": str(self.action),
            "beat": None if self.beat is None else str(self.beat),
            "effects": [effect_text(effect) for effect in self.effects],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SecretsStep:
        """The inverse of `to_dict`."""
        beat = data["beat"]
        return cls(
            seat=int(data["seat"]),
            piece=_card(data["piece"]),
            start=parse_square(data["from"]),
            action=parse_action(data["action"]),
            beat=None if beat is None else _card(beat),
            effects=tuple(parse_effect(text) for text in data["effects"]),
        )


def _card(text: str) -> Card:
    return DECK[card_from_text(text).face]


@dataclass(frozen=True)
class SecretsRecord(JsonRecord):
    """Everything about one game of Secrets, enough to replay, check, score and draw it.

    Attributes
    ----------
    game : str
        ``"secrets"``.
    seed : int
        The seed the game was played with.
    config : dict
        The game's options (`eleusis_lab.secrets.config.SecretsConfig.to_dict`).
    agents : tuple of dict
        Per seat: ``name`` (class name), ``spec`` (``module:Class``) and ``params``.
    setup : SecretsSetup
        The face-up cards, the secrets and the hands before the first move.
    steps : tuple of SecretsStep
        Every turn, in order.
    end : str
        `NO_PIECES`, `BLOCKED` or `TURN_CAP`.
    turn_cap_hit : bool
        Whether the game was stopped by the turn cap.
    hands : tuple of tuple of Card
        Each seat's hand at the end.
    out : tuple of Card
        The cards out of the game at the end, in the order they left.
    board, occupants : tuple of Card or None
        The face-up cards and the pieces on the 32 squares at the end.
    secrets : tuple of Card or None
        The secrets still face down at the end, per square.
    scores : tuple of float
        Each seat's score (cards in hand: J 1000, Q 100, A 10, K 1, others 0.01).
    ranks : tuple of int
        Each seat's place, 1 the best; equal scores share a place.
    faults : tuple of Fault
        The agents' faults in order (``call``: ``start_game``, ``choose_action``,
        ``answer_duel`` or ``observe``; ``event``: the index of the step concerned).
    """

    kind = "Secrets record"  # named in errors: "not a Secrets record: ..."

    game: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    setup: SecretsSetup
    steps: tuple[SecretsStep, ...]
    end: str
    turn_cap_hit: bool
    hands: tuple[tuple[Card, ...], ...]
    out: tuple[Card, ...]
    board: tuple[Card | None, ...]
    occupants: tuple[Card | None, ...]
    secrets: tuple[Card | None, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    faults: tuple[Fault, ...] = ()

    @property
    def turns(self) -> int:
        """Turns played (one per step)."""
        return len(self.steps)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats in first place (several on an exact tie)."""
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def state(self, turns: int | None = None) -> SecretsState:
        """The position after the first ``turns`` steps (all when None), replayed.

        The steps are applied as recorded, unchecked (`replay_secrets` checks them).
        """
        state = SecretsState.initial(
            self.setup,
            spend_special=bool(self.config.get("spend_special", False)),
            queen_takes_own=bool(self.config.get("queen_takes_own", True)),
        )
        for step in self.steps[:turns]:
            state.apply(step.action, step.beat)
        return state

    def final_state(self) -> SecretsState:
        """The position at the end of the game (as recorded, not replayed)."""
        state = self.state(0)
        state.board = list(self.board)
        state.occupants = list(self.occupants)
        state.secrets = list(self.secrets)
        state.hands = [list(hand) for hand in self.hands]
        state.out = list(self.out)
        state.pieces = [[None, None] for _ in range(N_SEATS)]
        for sq, piece in enumerate(self.occupants):
            if piece is not None:
                state.pieces[SUIT_SEATS[piece.suit]][0 if piece.rank == JACK else 1] = sq
        state.turn = len(self.steps)
        state.private = [set() for _ in range(N_SEATS)]
        return state

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards, squares and actions as text)."""

        def cards(seq) -> list[str]:
            return [str(card) for card in seq]

        def squares(seq) -> dict[str, str]:
            return {square_name(sq): str(card) for sq, card in enumerate(seq) if card is not None}

        return {
            "format": FORMAT_VERSION,
            "game": self.game,
            "seed": self.seed,
            "config": dict(self.config),
            "agents": [dict(agent) for agent in self.agents],
            "setup": {
                "board": squares(self.setup.board),
                "secrets": cards(self.setup.secrets),
                "hands": [cards(hand) for hand in self.setup.hands],
            },
            "steps": [step.to_dict() for step in self.steps],
            "end": self.end,
            "turns": self.turns,
            "turn_cap_hit": self.turn_cap_hit,
            "hands": [cards(hand) for hand in self.hands],
            "out": cards(self.out),
            "board": squares(self.board),
            "occupants": squares(self.occupants),
            "secrets": squares(self.secrets),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SecretsRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version != FORMAT_VERSION:
                raise RecordError(
                    f"unknown Secrets record format {version!r} (this version reads"
                    f" {FORMAT_VERSION})"
                )
            if data["game"] != GAME:
                raise RecordError(f"not a Secrets record: the game is {data['game']!r}")

            def cards(seq) -> tuple[Card, ...]:
                return tuple(_card(text) for text in seq)

            def squares(mapping) -> tuple[Card | None, ...]:
                placed: list[Card | None] = [None] * N_SQUARES
                for name, text in mapping.items():
                    placed[parse_square(name)] = _card(text)
                return tuple(placed)

            setup = data["setup"]
            return cls(
                game=data["game"],
                seed=whole_field(data["seed"], "seed"),
                config=record_config(data["game"], data["config"]),
                agents=tuple(agent_from_dict(agent) for agent in data["agents"]),
                setup=SecretsSetup(
                    squares(setup["board"]),
                    cards(setup["secrets"]),
                    tuple(cards(hand) for hand in setup["hands"]),
                ),
                steps=tuple(SecretsStep.from_dict(step) for step in data["steps"]),
                end=data["end"],
                turn_cap_hit=data["turn_cap_hit"],
                hands=tuple(cards(hand) for hand in data["hands"]),
                out=cards(data["out"]),
                board=squares(data["board"]),
                occupants=squares(data["occupants"]),
                secrets=squares(data["secrets"]),
                scores=tuple(float(score) for score in data["scores"]),
                ranks=tuple(int(rank) for rank in data["ranks"]),
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- replay ---------------------------------------------------------------------------------


def replay_secrets(record: SecretsRecord) -> list[str]:
    """Check a record against the rules of Secrets, without the agents.

    Re-lays the set-up from the seed, then drives the recorded set-up with the recorded
    steps (`eleusis_lab.games.driver.drive`), checking each one: it is the turn of the
    recorded seat, with the recorded piece on the recorded square; the action is legal
    (a skip only when nothing else is); a duel's answer is a card that may beat the one
    sent; the effects are the ones the rules give. After a fault of ``choose_action``
    the action is the first legal one, after a fault of ``answer_duel`` the duel is not
    beaten (the engine's rule, see `eleusis_lab.secrets.config.SecretsConfig`). Then the
    end, the final position, the scores and the places are re-derived.

    Returns
    -------
    list of str
        The discrepancies, most fundamental first; empty when the record is consistent.

    Examples
    --------
    >>> from eleusis_lab.secrets.game import play_secrets
    >>> from eleusis_lab.secrets.agent import parse_secrets_agent_list
    >>> record = play_secrets(parse_secrets_agent_list(",".join(["secrets-random"] * 4)), 2)
    >>> replay_secrets(record)
    []
    >>> replay_secrets(record.replace(scores=(0.0, 0.0, 0.0, 0.0)))[0][:30]
    'scores: recorded [0.0, 0.0, 0.'
    """
    problems: list[str] = []
    if record.game != GAME:
        return [f"not a Secrets record: the game is {record.game!r}"]
    try:
        config = SecretsConfig(**record.config)
    except (TypeError, ValueError) as error:
        return [f"the options cannot be read: {error}"]
    if len(record.agents) != N_SEATS:
        problems.append(f"{len(record.agents)} agents recorded; Secrets has {N_SEATS} seats")

    setup = record.setup
    laid = [*setup.board, *setup.secrets, *(card for hand in setup.hands for card in hand)]
    if Counter(card for card in laid if card is not None) + Counter(
        {DECK[13 * suit + rank - 1]: 1 for suit in range(4) for rank in (JACK, KING)}
    ) != Counter(DECK):
        problems.append("the set-up and the pieces are not one 52-card deck")
    try:
        expected = secrets_setup(np.random.default_rng(np.random.SeedSequence(record.seed)))
    except (TypeError, ValueError) as error:
        problems.append(f"seed {record.seed!r} cannot lay out a game: {error}")
    else:
        if expected != setup:
            problems.append(f"the set-up is not the one laid out by seed {record.seed}")

    problems += _check_faults(record)
    state = SecretsState.initial(
        setup, config.spend_special, config.queen_takes_own, config.max_turns
    )
    steps = _Steps(record)
    drive(state, steps)
    problems += steps.problems
    if steps.broken:
        return problems  # the order is broken; what follows would only echo it
    if steps.taken < len(record.steps):
        k = steps.taken
        problems.append(f"step {k} ({record.steps[k]}): the game goes on after its end")
        return problems

    if state.over:
        end = NO_PIECES
    elif state.blocked:
        end = BLOCKED
    elif len(record.steps) >= config.max_turns:
        end = TURN_CAP
    else:
        end = None
        problems.append("the record stops while pieces can still act and turns remain")
    if end is not None and record.end != end:
        problems.append(f"end: recorded {record.end!r}, the steps give {end!r}")
    if record.turn_cap_hit != (end == TURN_CAP):
        problems.append(f"turn_cap_hit is {record.turn_cap_hit}, but the game ended with {end!r}")
    final = {
        "hands": tuple(map(tuple, state.hands)),
        "out": tuple(state.out),
        "board": tuple(state.board),
        "occupants": tuple(state.occupants),
        "secrets": tuple(state.secrets),
    }
    for name, value in final.items():
        if getattr(record, name) != value:
            problems.append(f"{name}: the recorded final {name} differ from the steps' ones")
    scores = state.scores()
    if tuple(record.scores) != scores:
        problems.append(f"scores: recorded {list(record.scores)}, the hands give {list(scores)}")
    ranks = secrets_ranks(scores)
    if tuple(record.ranks) != ranks:
        problems.append(f"ranks: recorded {list(record.ranks)}, the scores give {list(ranks)}")
    return problems


class _Steps(RecordedSeats):
    """A record's steps at the seats of a replay (`eleusis_lab.games.driver.RecordedSeats`):
    each step's turn checked before it is played (a problem that breaks the game's
    order ends the drive, `broken`), its duel answered with the recorded beating card
    (once checked), and its effects compared with the rules' ones once it is played.

    A step is one or two decisions (a duel the defender may beat waits for his
    answer), so `taken` counts the steps played, not the decisions.
    """

    def __init__(self, record: SecretsRecord):
        super().__init__(record.steps)
        self.substituted = {
            (fault.event, fault.call)
            for fault in record.faults
            if fault.call in ("choose_action", "answer_duel") and fault.kind != OVER_TIME
        }
        self.broken = False
        self.beat: Card | None = None  # the answer of the step's duel, checked

    def decide(self, seat: int, state: SecretsState) -> Any:
        if state.duel is not None:
            return self.beat
        k = self.taken
        if k == len(self.actions):
            return END
        step = self.actions[k]
        at = state.active()
        if step.seat != seat:
            self._problem(k, f"it is the turn of seat {seat} ({_seat_name(seat)})")
            return self._break()
        if (step.piece, step.start) != (state.occupants[at], at):
            self._problem(k, f"the active piece is {state.occupants[at]} on {square_name(at)}")
            return self._break()
        legal = state.legal_actions()
        action = step.action
        if action.kind == SKIP:
            if legal:
                self._problem(k, f"a skip, but {len(legal)} actions were possible")
                return self._break()
        elif action not in legal:
            shown = " ".join(map(str, legal)) or "none"
            self._problem(k, f"{action} is not legal here (legal: {shown})")
            return self._break()
        elif (k, "choose_action") in self.substituted and action != legal[0]:
            self._problem(k, f"after a fault the engine plays the first legal action, {legal[0]}")
        beat = step.beat
        if action.kind == DUEL:
            options = state.beating_cards(action)
            if beat is not None and beat not in options:
                self._problem(k, f"{beat} cannot beat {action.card}")
                beat = None
            if beat is not None and (k, "answer_duel") in self.substituted:
                self._problem(k, "after a fault of answer_duel the duel is not beaten")
        elif beat is not None:
            self._problem(k, "a beating card is recorded for an action that is no duel")
            beat = None
        self.beat = beat
        return action

    def _break(self) -> Any:
        self.broken = True
        return END

    def heard(self, action: Any, events: Any, state: SecretsState) -> None:
        if state.duel is None:  # the step is played (its duel answered)
            super().heard(action, events, state)

    def compare(self, index: int, action: Any, events: Any) -> None:
        if events != self.actions[index].effects:
            got = ", ".join(map(effect_text, events)) or "none"
            self._problem(index, f"the rules give the effects {got}")

    def _problem(self, index: int, text: str) -> None:
        """A problem of step ``index``, named by the step as recorded."""
        self.problems.append(f"step {index} ({self.actions[index]}): {text}")


def _check_faults(record: SecretsRecord) -> list[str]:
    """What is wrong with the faults of a record, short of replaying the steps."""
    problems = check_faults(
        record,
        [agent.get("name") for agent in record.agents],
        len(record.steps),
        FaultRules(FAULT_KINDS, FAULT_CALLS, ("choose_action", "answer_duel"), "step"),
    )
    for i, fault in enumerate(record.faults):
        at = 0 <= fault.event < len(record.steps) and record.steps[fault.event]
        if fault.call == "choose_action" and at and at.seat != fault.seat:
            problems.append(
                f"fault {i} ({fault.kind} in {fault.call}, seat {fault.seat}): step"
                f" {fault.event} is not a turn of seat {fault.seat}"
            )
    return problems
