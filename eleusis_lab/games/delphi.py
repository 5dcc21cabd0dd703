"""Delphi (RULES.md section 3; Martin D. Kruskal, 1965): one game, its replay, a match.

Nobody chooses cards. The oracle (the dealer, not an agent: the rule is given) shuffles
one 52-card deck whatever the number of players and turns the first card, the starter.
Then, for every further card in deck order, every player shows a token, "right" or
"wrong", his prediction of the oracle's verdict on that card, and the oracle places it:
a right card extends the main line, a wrong one goes to a side column. A correct
prediction wins one chip from the oracle; a wrong one gives all the player's chips to
the oracle. At the end every pair of players settles the difference of their chips, and
the oracle scores the sum of the positive differences (`delphi_scores`).

The agent interface: before each card, each player's ``agent.predict(obs, [card])``
gives the probability that the card is right; the token is "right" when it is at least
`TOKEN_THRESHOLD` (0.5). The predictions are made "at the same time": every player
predicts before any hears the verdict. Then every agent observes the public
`eleusis_lab.agent.Event` of the card (``seat=ORACLE``, -1, as no player played it;
``phase=1``; the verdict; the main-line position it was judged against), so the
learners (`eleusis_lab.agent.LearningAgent`) learn from every card. The
`Observation` of a prediction has an empty ``hand``, the main line, the previous
verdict, and as ``wrong_cards`` a single pile, the side column. ``choose_play`` is
never called. The record keeps every probability, not only the token, so accuracy
and calibration curves can be drawn card by card (`DelphiRecord.prediction_table`).

Faults (with ``on_fault="substitute"``, the default): a ``predict`` that raises or
returns anything but one probability in [0, 1] for the one card asked is recorded as a
`eleusis_lab.record.Fault` (``call="predict"``, kind `RAISED` or `NOT_A_PROBABILITY`)
and counts as the probability 0.5 (`SUBSTITUTE_PROBABILITY`), hence the token "right";
a prediction over ``decision_seconds`` is kept and the fault (`OVER_TIME`) only
recorded, so results never depend on the speed of the machine; a ``start_game`` or
``observe`` that raises is recorded and the agent keeps its seat. ``on_fault="raise"``
stops the game at the first fault instead.

Randomness: the seed feeds one ``numpy.random.SeedSequence``, whose generator shuffles
the deck exactly as the classic deal and `eleusis_lab.evaluation.prediction_accuracy`
do; every agent gets its own generator spawned from it.

Examples
--------
>>> from eleusis_agents.simple import OracleAgent, RandomAgent
>>> record = play_delphi("color(card) != color(last)", [OracleAgent(), RandomAgent()], seed=0)
>>> len(record.events), record.chips
(51, (51, 0))
>>> record.player_scores, record.oracle_score
((51, -51), 51)
>>> replay_delphi(record)
[]
"""

from __future__ import annotations

import contextlib
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from time import perf_counter
from typing import Any

import numpy as np

from eleusis_lab.agent import Agent, Event, Observation
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.errors import ConfigError
from eleusis_lab.games._faults import (
    FaultLog,
    check_agents,
    check_fault_options,
    check_seed,
    exception_text,
    shown,
)
from eleusis_lab.games.match import MatchResult, check_deals, rotate_deal
from eleusis_lab.games.scoring import delphi_chips, delphi_scores
from eleusis_lab.games.table import GameType, Outcome, sample_table
from eleusis_lab.record import (
    OVER_TIME,
    RAISED,
    Fault,
    FaultRules,
    JsonRecord,
    RecordError,
    card_from_text,
    card_text,
    cards_from_text,
    cards_text,
    check_faults,
    describe_agent,
    event_from_dict,
    event_to_dict,
    main_line_rows,
    reading_record,
    rule_game_fields,
    rule_game_head,
)
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse
from eleusis_lab.rules.complexity import describe_measures

__all__ = [
    "DELPHI_FAULT_CALLS",
    "GAME",
    "GAME_TYPE",
    "NOT_A_PROBABILITY",
    "ORACLE",
    "SUBSTITUTE_PROBABILITY",
    "TOKEN_THRESHOLD",
    "DelphiConfig",
    "DelphiMatch",
    "DelphiRecord",
    "delphi_deal",
    "delphi_outcome",
    "format_delphi_layout",
    "play_delphi",
    "play_delphi_match",
    "replay_delphi",
]

GAME = "delphi"
#: ``Event.seat`` of every card of Delphi: the oracle places it, no player plays it.
ORACLE = -1
#: A prediction's token is "right" when its probability is at least this.
TOKEN_THRESHOLD = 0.5
#: The probability that stands for a faulty prediction (its token says "right").
SUBSTITUTE_PROBABILITY = 0.5
#: Fault kind: ``predict`` returned something that is not one probability in [0, 1].
NOT_A_PROBABILITY = "not_a_probability"
#: The agent methods a Delphi game calls, hence where its faults can be.
DELPHI_FAULT_CALLS = ("start_game", "predict", "observe")
_PREDICT_KINDS = (RAISED, NOT_A_PROBABILITY, OVER_TIME)
_DECK = tuple(standard_deck())
FORMAT_VERSION = 1


@dataclass(frozen=True)
class DelphiConfig:
    """Options of Delphi: what the engine does about an agent's faults.

    Parameters
    ----------
    on_fault : {"substitute", "raise"}
        ``"substitute"``: record the fault and go on (a faulty prediction counts as
        `SUBSTITUTE_PROBABILITY`); ``"raise"``: stop the game at the first fault (an
        exception of the agent goes up unchanged, a bad probability or a prediction
        over time raises `eleusis_lab.errors.AgentError`).
    decision_seconds : float or None
        Time budget of one ``predict`` call, in seconds; ``None``: no limit.

    Examples
    --------
    >>> DelphiConfig().to_dict()
    {'on_fault': 'substitute', 'decision_seconds': None}
    """

    on_fault: str = "substitute"
    decision_seconds: float | None = None

    def __post_init__(self) -> None:
        check_fault_options(self.on_fault, self.decision_seconds)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `DelphiRecord`)."""
        return asdict(self)


# -- the record ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DelphiRecord(JsonRecord):
    """Everything about one game of Delphi, enough to replay, check, score and lay it out.

    Attributes
    ----------
    game : str
        ``"delphi"``.
    rule : str
        The oracle's rule, canonical text.
    seed : int
        The seed the game was played with.
    config : dict
        `DelphiConfig.to_dict`.
    agents : tuple of dict
        Per seat: ``name``, ``spec`` (``module:Class``) and ``params``.
    starter : Card
        The first card, placed unjudged.
    events : tuple of Event
        One per further card, in deck order: ``seat=ORACLE``, ``phase=1``, the verdict
        and the main-line position the card was judged against.
    probabilities : tuple of tuple of float
        For each event, each seat's probability that the card is right (0.5 where the
        prediction was faulty); the tokens are ``probability >= TOKEN_THRESHOLD``.
    main_line, side_column : tuple of Card
        The right cards (starter first) and the wrong ones, in order.
    chips : tuple of int
        Each seat's chips at the end.
    player_scores : tuple of int
        Each seat's score after the settlement; they add up to 0.
    oracle_score : int
        The oracle's score.
    rule_name : str or None
        The rule's catalog name, if it has one.
    faults : tuple of Fault
        The agents' faults in the order they happened (``call`` is ``"start_game"``,
        ``"predict"`` or ``"observe"``); ``event`` is the index of the card predicted or
        observed.
    """

    kind = "Delphi record"  # named in errors: "not a Delphi record: ..."

    game: str
    rule: str
    seed: int
    config: dict[str, Any]
    agents: tuple[dict[str, Any], ...]
    starter: Card
    events: tuple[Event, ...]
    probabilities: tuple[tuple[float, ...], ...]
    main_line: tuple[Card, ...]
    side_column: tuple[Card, ...]
    chips: tuple[int, ...]
    player_scores: tuple[int, ...]
    oracle_score: int
    rule_name: str | None = None
    faults: tuple[Fault, ...] = ()

    @property
    def n_players(self) -> int:
        """Number of players (the oracle is not counted)."""
        return len(self.agents)

    @property
    def dealer_score(self) -> int:
        """The oracle's score, under the name the other games' records use."""
        return self.oracle_score

    @property
    def verdicts(self) -> np.ndarray:
        """Boolean array, one per card in deck order: was it right?"""
        return np.array([event.right for event in self.events], dtype=bool)

    @property
    def tokens(self) -> np.ndarray:
        """Boolean array (cards x players): each token, True for "right"."""
        values = np.array(self.probabilities, dtype=float).reshape(-1, self.n_players)
        return values >= TOKEN_THRESHOLD

    @property
    def hits(self) -> np.ndarray:
        """Boolean array (cards x players): was each token correct?"""
        return self.tokens == self.verdicts[:, np.newaxis]

    def chips_history(self) -> np.ndarray:
        """Int array (cards x players): each seat's chips after each card."""
        history = np.zeros(self.hits.shape, dtype=np.int64)
        chips = np.zeros(self.n_players, dtype=np.int64)
        for k, row in enumerate(self.hits):
            chips = np.where(row, chips + 1, 0)
            history[k] = chips
        return history

    def prediction_table(self):
        """Every prediction as a pandas DataFrame: one row per card and seat.

        Columns: ``card_index`` (0 for the first card after the starter), ``card``,
        ``seat``, ``agent``, ``probability``, ``token`` (True: "right"), ``right`` (the
        verdict), ``hit`` (the token was correct), ``chips`` (after the card).

        Examples
        --------
        >>> from eleusis_agents.simple import OracleAgent
        >>> record = play_delphi("red(card)", [OracleAgent(), OracleAgent()], seed=0)
        >>> table = record.prediction_table()
        >>> len(table), bool(table["hit"].all())
        (102, True)
        """
        import pandas as pd

        n = self.n_players
        history = self.chips_history()
        hits = self.hits
        rows = [
            {
                "card_index": k,
                "card": card_text(event.card),
                "seat": seat,
                "agent": self.agents[seat].get("name"),
                "probability": self.probabilities[k][seat],
                "token": self.probabilities[k][seat] >= TOKEN_THRESHOLD,
                "right": event.right,
                "hit": bool(hits[k, seat]),
                "chips": int(history[k, seat]),
            }
            for k, event in enumerate(self.events)
            for seat in range(n)
        ]
        columns = ["card_index", "card", "seat", "agent", "probability", "token", "right"]
        return pd.DataFrame(rows, columns=[*columns, "hit", "chips"])

    # -- JSON ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (cards as text)."""

        return {
            **rule_game_head(self, FORMAT_VERSION),
            "agents": [dict(agent) for agent in self.agents],
            "starter": card_text(self.starter),
            "events": [event_to_dict(event) for event in self.events],
            "probabilities": [list(row) for row in self.probabilities],
            "main_line": cards_text(self.main_line),
            "side_column": cards_text(self.side_column),
            "chips": list(self.chips),
            "player_scores": list(self.player_scores),
            "oracle_score": self.oracle_score,
            "faults": [fault.to_dict() for fault in self.faults],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DelphiRecord:
        """Build a record from `to_dict` data; raises `RecordError` when it is not one."""
        with reading_record(cls.kind):
            version = data.get("format")
            if version != FORMAT_VERSION:
                raise RecordError(
                    f"unknown Delphi record format {version!r} (this version reads"
                    f" {FORMAT_VERSION})"
                )
            if data["game"] != GAME:
                raise RecordError(f"not a Delphi record: the game is {data['game']!r}")

            return cls(
                **rule_game_fields(data),
                agents=tuple(dict(agent) for agent in data["agents"]),
                starter=card_from_text(data["starter"]),
                events=tuple(event_from_dict(event) for event in data["events"]),
                probabilities=tuple(tuple(float(p) for p in row) for row in data["probabilities"]),
                main_line=cards_from_text(data["main_line"]),
                side_column=cards_from_text(data["side_column"]),
                chips=tuple(data["chips"]),
                player_scores=tuple(data["player_scores"]),
                oracle_score=data["oracle_score"],
                faults=tuple(Fault.from_dict(fault) for fault in data["faults"]),
            )


# -- the game -----------------------------------------------------------------------------


def _deal(rng: np.random.Generator) -> tuple[Card, tuple[Card, ...]]:
    deck = [_DECK[i] for i in rng.permutation(len(_DECK)).tolist()]
    return deck[0], tuple(deck[1:])


def delphi_deal(seed: int) -> tuple[Card, tuple[Card, ...]]:
    """The starter and the 51 other cards in the order `play_delphi` turns them.

    The same shuffle as `eleusis_lab.games.classic.classic_deal`: its starter is
    the same card.

    Examples
    --------
    >>> starter, cards = delphi_deal(3)
    >>> starter, len(cards)
    (Card('QH'), 51)
    """
    return _deal(np.random.default_rng(np.random.SeedSequence(check_seed(seed))))


def _probability(result: object) -> float | None:
    """The one probability in ``result``, or None when it is not one in [0, 1]."""
    try:
        values = np.asarray(result, dtype=float)
    except Exception:
        return None
    if values.shape != (1,):
        return None
    p = float(values[0])
    return p if 0.0 <= p <= 1.0 else None  # NaN fails both


def play_delphi(
    rule: Rule | str,
    agents: Sequence[Agent],
    seed: int,
    config: DelphiConfig | None = None,
) -> DelphiRecord:
    """Play one game of Delphi and return its record.

    Parameters
    ----------
    rule : Rule or str
        The oracle's rule (text is parsed with `eleusis_lab.rules.parse`).
    agents : sequence of Agent
        The players, seat 0 first: at least one, one object each. (With one player the
        settlement scores 0 for everyone; the record still measures his predictions.)
    seed : int
        Seeds the shuffle and every agent's generator; same seed, same game.
    config : DelphiConfig, optional
        Options of the game; the defaults when omitted.

    Returns
    -------
    DelphiRecord

    Raises
    ------
    ConfigError
        For no agent, a non-agent, a shared agent object or a bad seed.
    AgentError
        Only with ``config.on_fault="raise"``: for a prediction that is not a
        probability or over the time budget (an agent's own exception goes up as is).

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent
    >>> from eleusis_lab.agent import Agent
    >>> class Doubter(Agent):
    ...     def choose_play(self, obs):
    ...         return obs.hand[0]
    ...     def predict(self, obs, cards):
    ...         return [0.0] * len(cards)
    >>> record = play_delphi("red(card)", [OracleAgent(), Doubter()], seed=4)
    >>> int(record.hits[:, 1].sum()) == len(record.side_column)
    True
    >>> record.chips[0], record.player_scores[0] + record.player_scores[1]
    (51, 0)
    """
    if isinstance(rule, str):
        rule = parse(rule)
    config = DelphiConfig() if config is None else config
    agents = check_agents(agents, "Delphi", 1)
    seed = check_seed(seed)
    n = len(agents)

    sequence = np.random.SeedSequence(seed)
    starter, cards = _deal(np.random.default_rng(sequence))
    agent_rngs = [np.random.default_rng(child) for child in sequence.spawn(n)]
    events: list[Event] = []
    faults = FaultLog(agents, config, events)
    stop, budget = faults.stop, config.decision_seconds
    faults.start_games(GAME, rule, starter, ((),) * n, agent_rngs)

    predictors = [agent.predict for agent in agents]
    observers = [agent.observe for agent in agents]

    def ask(seat: int, obs: Observation, card: Card) -> float:
        """The seat's probability that ``card`` is right, or 0.5 after a fault."""
        started = perf_counter()
        try:
            result = predictors[seat](obs, [card])
        except Exception as error:
            if stop:
                raise
            faults.add(seat, RAISED, exception_text(error), len(events), 1, "predict")
            return SUBSTITUTE_PROBABILITY
        seconds = perf_counter() - started
        if budget is not None and seconds > budget:
            message = f"took {seconds * 1e3:.3g} ms to predict; the budget is {budget * 1e3:.3g} ms"
            if stop:
                raise faults.agent_error(seat, message)
            faults.add(seat, OVER_TIME, message, len(events), 1, "predict")
        probability = _probability(result)
        if probability is None:
            message = (
                f"predicted {shown(result)}, which is not one probability in [0, 1] for the"
                " one card asked"
            )
            if stop:
                raise faults.agent_error(seat, message)
            faults.add(seat, NOT_A_PROBABILITY, message, len(events), 1, "predict")
            return SUBSTITUTE_PROBABILITY
        return probability

    legal_mask = rule.legal_mask
    main: tuple[Card, ...] = (starter,)
    side: tuple[Card, ...] = ()
    last_right: bool | None = None
    probabilities: list[tuple[float, ...]] = []
    for card in cards:
        # Every player predicts before anyone hears the verdict.
        row = tuple(
            ask(seat, Observation(GAME, seat, 1, (), main, (side,), last_right), card)
            for seat in range(n)
        )
        right = bool((legal_mask(Context(main, last_right)) >> card.face) & 1)
        event = Event(ORACLE, card, 1, right, len(main) - 1)
        probabilities.append(row)
        if right:
            main += (card,)
        else:
            side += (card,)
        last_right = right
        faults.announce(event, observers)

    hits = [
        [(p >= TOKEN_THRESHOLD) == event.right for p in row]
        for row, event in zip(probabilities, events, strict=True)
    ]
    chips = delphi_chips(hits)
    player_scores, oracle_score = delphi_scores(chips)
    return DelphiRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=tuple(describe_agent(agent) for agent in agents),
        starter=starter,
        events=tuple(events),
        probabilities=tuple(probabilities),
        main_line=main,
        side_column=side,
        chips=tuple(chips),
        player_scores=tuple(player_scores),
        oracle_score=oracle_score,
        faults=tuple(faults.faults),
    )


# -- replay -------------------------------------------------------------------------------


def replay_delphi(rec: DelphiRecord) -> list[str]:  # noqa: C901 - one pass over the game
    """Check a Delphi record against the rules, without the agents.

    Re-parses the rule and re-deals from the seed, re-judges every card in deck order
    (verdict, position, main line and side column), checks every probability (one per
    seat, in [0, 1], 0.5 where a prediction was faulty) and the faults, and re-derives
    the chips and the scores with `eleusis_lab.games.scoring`.
    `eleusis_lab.record.replay` calls it for this game.

    Parameters
    ----------
    rec : DelphiRecord
        The record to check.

    Returns
    -------
    list of str
        The discrepancies found, most fundamental first; empty when consistent.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> record = play_delphi("black(card)", [OracleAgent(), RandomAgent()], seed=1)
    >>> replay_delphi(record)
    []
    >>> replay_delphi(record.replace(oracle_score=0))
    ['oracle score: recorded 0, the chips give 50']
    """
    if rec.game != GAME:
        return [f"not a Delphi record: the game is {rec.game!r}"]
    try:
        rule = parse(rec.rule)
    except RuleSyntaxError as error:
        return [f"the rule does not parse: {error.message} ({rec.rule!r})"]
    n = len(rec.agents)
    if n < 1:
        return ["no players: Delphi needs at least one"]
    problems: list[str] = []

    # The deal: one deck, turned in exactly the order the seed shuffles it.
    cards = [event.card for event in rec.events]
    if Counter([rec.starter, *cards]) != Counter(_DECK):
        problems.append("the starter and the cards judged are not one 52-card deck")
    try:
        starter, dealt = delphi_deal(rec.seed)
    except ValueError as error:
        problems.append(f"seed {rec.seed!r} cannot be dealt: {error}")
    else:
        if (starter, dealt) != (rec.starter, tuple(cards)):
            problems.append(f"the starter and the cards are not in the order seed {rec.seed} deals")

    # Every card judged by the rule in its context.
    main, side, last = [rec.starter], [], None
    verdicts = []
    for k, e in enumerate(rec.events):
        where = f"event {k} ({card_text(e.card)})"
        if (e.seat, e.phase) != (ORACLE, 1):
            problems.append(
                f"{where}: seat {e.seat} in phase {e.phase}; the oracle's cards are seat"
                f" {ORACLE} in phase 1"
            )
        if e.position != len(main) - 1:
            problems.append(
                f"{where}: position {e.position}, but the main line ended at {len(main) - 1}"
            )
        right = rule.accepts(e.card, Context(tuple(main), last))
        if right != e.right:
            problems.append(
                f"{where}: recorded {_verdict(e.right)}, but the rule says {_verdict(right)}"
            )
        (main if right else side).append(e.card)
        verdicts.append(right)
        last = right
    if tuple(rec.main_line) != tuple(main):
        problems.append("the main line differs from the one the verdicts give")
    if tuple(rec.side_column) != tuple(side):
        problems.append("the side column differs from the one the verdicts give")

    # The predictions: one probability per seat and card.
    if len(rec.probabilities) != len(rec.events):
        problems.append(f"{len(rec.probabilities)} rows of predictions for {len(rec.events)} cards")
        return problems
    for k, row in enumerate(rec.probabilities):
        if len(row) != n:
            problems.append(f"event {k}: {len(row)} predictions for {n} players")
            return problems
        bad = [p for p in row if not (isinstance(p, float | int) and 0 <= p <= 1)]
        if bad:
            problems.append(f"event {k}: {bad[0]!r} is not a probability in [0, 1]")
            return problems
    problems += _check_faults(rec)

    hits = [
        [(p >= TOKEN_THRESHOLD) == right for p in row]
        for row, right in zip(rec.probabilities, verdicts, strict=True)
    ]
    chips = delphi_chips(hits) if hits else [0] * n
    if list(rec.chips) != chips:
        problems.append(f"chips: recorded {list(rec.chips)}, the predictions give {chips}")
    players, oracle = delphi_scores(chips)
    if list(rec.player_scores) != players:
        problems.append(
            f"player scores: recorded {list(rec.player_scores)}, the chips give {players}"
        )
    if rec.oracle_score != oracle:
        problems.append(f"oracle score: recorded {rec.oracle_score}, the chips give {oracle}")
    return problems


def _verdict(right: bool) -> str:
    return "right" if right else "wrong"


def _check_faults(rec: DelphiRecord) -> list[str]:
    """What is wrong with the faults of a Delphi record."""
    problems = check_faults(
        rec,
        [agent.get("name") for agent in rec.agents],
        len(rec.events),
        FaultRules(_PREDICT_KINDS, DELPHI_FAULT_CALLS, ("predict",)),
        phase_of=lambda k: 1,
        replaced=lambda f: (f.event, f.seat) if _substituted(f) else None,
    )
    for i, fault in enumerate(rec.faults):  # a faulty prediction counts as the substitute
        if _substituted(fault) and 0 <= fault.event < len(rec.events):
            probability = rec.probabilities[fault.event][fault.seat]
            if 0 <= fault.seat < len(rec.agents) and probability != SUBSTITUTE_PROBABILITY:
                problems.append(
                    f"fault {i} ({fault.kind} in {fault.call}, seat {fault.seat}): a faulty"
                    f" prediction counts as {SUBSTITUTE_PROBABILITY}, but {probability!r} is"
                    " recorded"
                )
    return problems


def _substituted(fault) -> bool:
    return fault.call == "predict" and fault.kind in (RAISED, NOT_A_PROBABILITY)


# -- layout -------------------------------------------------------------------------------

_CELL = 5
_LABEL = 8
_WIDTH = 100


def format_delphi_layout(record: DelphiRecord, columns: int = 13, max_rows: int = 12) -> str:
    """The table at the end of a Delphi game, every prediction, then the scores.

    First the main line in blocks of ``columns`` cards, each wrong card under the
    main-line card it was judged against (a column longer than ``max_rows`` shows its
    first cards and how many more there are). Then the predictions, card by card in
    deck order: the verdict (``R`` right, ``w`` wrong) and each seat's token, ``T``
    ("right") or ``F`` ("wrong"), in lower case when it was mistaken (the player gave
    all his chips to the oracle). Then per seat the correct tokens, the chips and the
    score, the oracle's score, and the faults grouped as in
    `eleusis_lab.record.format_layout`.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> record = play_delphi("red(card)", [OracleAgent(), RandomAgent()], seed=0)
    >>> print(format_delphi_layout(record, columns=6))  # doctest: +ELLIPSIS
    Delphi, seed 0, rule: red(card)
    ...
    position   0    1    2    3    4    5
    main      KH   6D   JD   3H   JH   9H
    wrong     QC   JC        5C
    ...
    predictions in deck order: R/w = the verdict; T/F = a token, lower case when mistaken
    card      QC   6D   JC   JD   3H   5C
    verdict    w    R    w    R    R    w
    seat 0     F    T    F    T    T    F
    seat 1     t    T    t    T    T    t
    ...
    seat  agent                 hits  accuracy  chips  score
       0  OracleAgent             51     1.000     51     48
       1  RandomAgent             25     0.490      3    -48
    oracle score: 48
    """
    from eleusis_lab.record import fault_lines

    main = record.main_line
    under: list[list[str]] = [[] for _ in main]
    for event in record.events:
        if not event.right and 0 <= event.position < len(main):
            under[event.position].append(f"{event.card!s:>3}")

    name = f" ({record.rule_name})" if record.rule_name else ""
    lines = [f"Delphi, seed {record.seed}, rule: {record.rule}{name}"]
    with contextlib.suppress(RuleSyntaxError):  # replay reports a rule that does not parse
        lines.append(f"rule complexity: {describe_measures(parse(record.rule))}")
    lines += [
        *textwrap.wrap(
            f"options: {', '.join(f'{k}={v}' for k, v in record.config.items())}",
            width=_WIDTH,
            subsequent_indent=" " * len("options: "),
        ),
        "right cards extend the main line; wrong cards are under the card they were judged on",
        "",
    ]
    lines += main_line_rows(main, under, columns, max_rows)

    n, events = record.n_players, record.events
    tokens, hits = record.tokens, record.hits
    if events:
        lines.append(
            "predictions in deck order: R/w = the verdict; T/F = a token, lower case when mistaken"
        )
    for start in range(0, len(events), columns):
        block = range(start, min(start + columns, len(events)))
        lines.append(
            f"{'card':<{_LABEL}}" + "".join(f"{events[k].card!s:>{_CELL - 1}} " for k in block)
        )
        lines.append(
            f"{'verdict':<{_LABEL}}"
            + "".join(f"{'R' if events[k].right else 'w':>{_CELL - 1}} " for k in block)
        )
        for seat in range(n):
            cells = []
            for k in block:
                token = "T" if tokens[k, seat] else "F"
                cells.append(f"{token if hits[k, seat] else token.lower():>{_CELL - 1}} ")
            lines.append(f"{f'seat {seat}':<{_LABEL}}" + "".join(cells))
        lines.append("")
    lines = [line.rstrip() for line in lines]

    lines.append(
        f"{'seat':>4}  {'agent':<20} {'hits':>5} {'accuracy':>9} {'chips':>6} {'score':>6}"
    )
    for seat, agent in enumerate(record.agents):
        correct = int(hits[:, seat].sum()) if len(events) else 0
        accuracy = correct / len(events) if events else 0.0
        lines.append(
            f"{seat:>4}  {agent['name'][:20]:<20} {correct:>5} {accuracy:>9.3f}"
            f" {record.chips[seat]:>6} {record.player_scores[seat]:>6}"
        )
    lines.append(f"oracle score: {record.oracle_score}")
    fault_lines = fault_lines(record.faults)
    if any(f.call == "predict" and f.kind != OVER_TIME for f in record.faults):
        fault_lines[0] += f" (each faulty prediction counted as {SUBSTITUTE_PROBABILITY})"
    lines += fault_lines
    return "\n".join(lines)


# -- match --------------------------------------------------------------------------------


class DelphiMatch(MatchResult):
    """The games of a Delphi match and the participants' totals.

    A `eleusis_lab.games.match.MatchResult` whose games are `DelphiRecord` s; the
    "dealer" of a game is its oracle, whose score is ``DelphiRecord.oracle_score``.
    """

    record_type = DelphiRecord
    title = "Delphi"
    game = GAME

    def summary(self) -> str:
        """A table of the games and the totals, for a terminal."""
        return super().summary().replace("the dealer of the game", "the oracle of the game", 1)


def play_delphi_match(
    agents: Sequence[Agent],
    seed: int,
    rules: Rule | str | Sequence[Rule | str],
    deals_per_player: int = 1,
    config: DelphiConfig | None = None,
) -> DelphiMatch:
    """Play a Delphi match: every participant is the oracle once, in turn.

    Participant ``k`` is the oracle of game ``k``; the others predict, seat 0 being
    participant ``k + 1``. The oracle scores the game's oracle score, each player his
    player score. Seeds and rule draws derive from ``seed`` as in
    `eleusis_lab.games.match.play_match`.

    Parameters
    ----------
    agents : sequence of Agent
        The participants, at least 2 (an oracle and a player per game). The same
        objects play every game.
    seed : int
        The match seed.
    rules : Rule, str or sequence of them
        One rule for every game, or rules from which each oracle draws uniformly.
    deals_per_player : int
        How many times each participant is the oracle (RULES.md section 3: once).
    config : DelphiConfig, optional
        Options of every game.

    Returns
    -------
    DelphiMatch

    Raises
    ------
    ConfigError
        For fewer than 2 participants, no rules, or ``deals_per_player < 1``.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> agents = [OracleAgent(), RandomAgent(), RandomAgent()]
    >>> result = play_delphi_match(agents, seed=0, rules="color(card) != color(last)")
    >>> result.dealers, result.seats
    ((0, 1, 2), ((1, 2), (2, 0), (0, 1)))
    >>> result.winners
    [0]
    """
    p = len(agents)
    if p < 2:
        raise ConfigError(
            f"a Delphi match needs at least 2 participants (each game has an oracle and at"
            f" least 1 player), got {p}"
        )
    return rotate_deal(
        lambda rule, seated, game_seed: play_delphi(rule, seated, game_seed, config),
        agents,
        seed,
        rules,
        p * check_deals(deals_per_player),
        DelphiMatch,
    )


# -- the declaration -------------------------------------------------------------------------


def delphi_outcome(record: DelphiRecord) -> Outcome:
    """The `Outcome` of a game of Delphi.

    The dealer score is the oracle's. Nobody plays a card (the oracle places them), so
    ``plays`` are 0 and ``wrong_cards`` and ``cards_left`` empty; ``prediction_accuracy``
    is the share of a seat's tokens that were correct, and ``predictions`` every
    probability, for the event table.

    Examples
    --------
    >>> from eleusis_agents.simple import OracleAgent, RandomAgent
    >>> outcome = delphi_outcome(play_delphi("red(card)", [OracleAgent(), RandomAgent()], 0))
    >>> outcome.scores, outcome.dealer_score, outcome.prediction_accuracy[0]
    ((48.0, -48.0), 48.0, 1.0)
    >>> len(outcome.events), len(outcome.predictions), outcome.predictions[0]
    (51, 51, (0.0, 0.5))
    """
    n = record.n_players
    hits = record.hits
    accuracy = tuple(float(x) for x in hits.mean(axis=0)) if len(record.events) else (None,) * n
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.oracle_score),
        wrong_cards=(None,) * n,
        cards_left=(None,) * n,
        plays=(0,) * n,
        end=None,
        events=tuple(record.events),
        prediction_accuracy=accuracy,
        predictions=tuple(tuple(float(p) for p in row) for row in record.probabilities),
    )


def _sample_game(agent: Agent, seed: int) -> DelphiRecord:
    """A Delphi game (RULES.md section 3): 51 predictions, beside a random player."""
    agents = sample_table(agent, 2, seed)
    rule = "if last_play_right then red(card) else black(card)"
    return play_delphi(rule, agents, seed, DelphiConfig(on_fault="raise"))


#: Delphi, as `eleusis_lab.games.table.GAMES` knows it.
GAME_TYPE = GameType(
    "delphi",
    play_delphi,
    DelphiConfig,
    delphi_outcome,
    min_players=1,
    title="Delphi",
    record_type=DelphiRecord,
    replay=replay_delphi,
    layout=format_delphi_layout,
    match=play_delphi_match,
    default_players=3,
    sample_game=_sample_game,
)
