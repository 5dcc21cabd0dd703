"""The engine of Delphi: its options (`DelphiConfig`) and one game (`play_delphi`), the
state of `eleusis_lab.games.delphi.state` driven (`eleusis_lab.games.driver.drive`) with
the agents' predictions (`DelphiSeats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from time import perf_counter

import numpy as np

from eleusis_lab.agent import Agent, GameTraits
from eleusis_lab.engines import (
    DECISION_LIMIT,
    check_agents,
    check_fault_options,
    check_seed,
    plain_float,
    shown,
)
from eleusis_lab.games.delphi.record import (
    GAME,
    NOT_A_PROBABILITY,
    SUBSTITUTE_PROBABILITY,
    DelphiRecord,
)
from eleusis_lab.games.delphi.scoring import delphi_scores
from eleusis_lab.games.delphi.state import DelphiState, delphi_deal
from eleusis_lab.games.driver import AgentSeats, drive
from eleusis_lab.record import OVER_TIME
from eleusis_lab.rules import Rule, parse

__all__ = ["TRAITS", "DelphiConfig", "delphi_deal", "play_delphi", "read_probability"]

#: What Delphi tells its players of itself: the oracle's rule, only predictions count.
TRAITS = GameTraits(rule_from="dealer", scored_on="predictions")


@dataclass(frozen=True)
class DelphiConfig:
    """Options of Delphi: what the engine does about an agent's faults.

    Parameters
    ----------
    on_fault : {"substitute", "raise"}
        ``"substitute"``: record the fault and go on (a faulty prediction counts as
        `SUBSTITUTE_PROBABILITY`); ``"raise"``: stop the game at the first fault (an
        exception of the agent goes up unchanged, a bad probability, a prediction over
        time or a stopped call raises `eleusis_lab.errors.AgentError`).
    decision_seconds : float or None
        Time budget of one ``predict`` call, in seconds; ``None``: no limit.
    decision_limit : float or None
        Hard limit of every call of an agent (``start_game``, ``predict``,
        ``observe``), in seconds (60); ``None``: no limit. A call still running then is
        stopped, recorded as a ``stopped`` fault, and counts as if it had raised, its
        seat retired for the rest of the game (each later prediction 0.5), as in
        classic Eleusis (`eleusis_lab.games.classic.ClassicConfig`).

    Examples
    --------
    >>> DelphiConfig().to_dict()
    {'on_fault': 'substitute', 'decision_seconds': None, 'decision_limit': 60.0}
    """

    on_fault: str = "substitute"
    decision_seconds: float | None = None
    decision_limit: float | None = DECISION_LIMIT

    def __post_init__(self) -> None:
        check_fault_options(self.on_fault, self.decision_seconds, self.decision_limit)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as stored in a `DelphiRecord`)."""
        return asdict(self)


# -- the game -----------------------------------------------------------------------------


def read_probability(result: object) -> float | None:
    """The one probability in ``result``, a plain float, or None when it is not one in
    [0, 1].

    Reading an agent's answer may run its code (an object's ``__array__``,
    ``__len__`` or ``__float__``): the engine reads it through the agent's decision
    limit (`eleusis_lab.engines.DecisionLimit.call`), where an exception of its own is
    its fault.

    The number is read by its value (`eleusis_lab.engines.plain_float`), not by what a
    class of the agent's says of it in ``__float__`` or its comparisons.

    >>> read_probability([0.25]), read_probability(np.array([1.0])), read_probability([0.5, 0.5])
    (0.25, 1.0, None)
    >>> read_probability([float("nan")]), read_probability([2.0]), read_probability(["0.5"])
    (None, None, None)
    """
    try:
        values = np.asarray(result, dtype=object)  # its items as they are
    except Exception:
        return None
    if values.shape != (1,):
        return None
    p = plain_float(values[0])
    return p if p is not None and 0.0 <= p <= 1.0 else None  # NaN fails both


class DelphiSeats(AgentSeats):
    """The agents at Delphi's seats: each predicts the card to turn (`decide`), within
    its time budget and decision limit, a faulty prediction counting as
    `SUBSTITUTE_PROBABILITY`; every agent observes each verdict (`AgentSeats.heard`).

    ``seed`` is the game's: the agents' generators are spawned from the seed that
    shuffled the deck.
    """

    def __init__(self, agents: Sequence[Agent], config: DelphiConfig, rule: Rule, seed: int):
        super().__init__(agents, config, [])
        self.rule = rule
        self.seed = seed
        self.predictors = [agent.predict for agent in self.agents]
        self.budget = config.decision_seconds
        self.call = self.faults.limit.call

    def start(self, state: DelphiState) -> None:
        n = len(self.agents)
        children = np.random.SeedSequence(self.seed).spawn(n)
        rngs = [np.random.default_rng(child) for child in children]
        self.faults.start_games(GAME, TRAITS, self.rule, state.starter, ((),) * n, rngs)

    def decide(self, seat: int, state: DelphiState) -> float:
        """The seat's probability that the card to turn is right, or 0.5 after a fault.

        Each seat sees the table as it was before the card: every player predicts
        before anyone hears the verdict, which the last prediction brings.
        """
        faults, budget, call = self.faults, self.budget, self.call
        obs = state.observation(seat)
        started = perf_counter() if budget is not None else 0.0  # timed only against a budget
        try:
            result = call(self.predictors[seat], obs, [state.card], seat=seat)
        except Exception as error:
            faults.failed(seat, error, len(self.events), 1, "predict")
            return SUBSTITUTE_PROBABILITY
        if budget is not None and (seconds := perf_counter() - started) > budget:
            message = f"took {seconds * 1e3:.3g} ms to predict; the budget is {budget * 1e3:.3g} ms"
            if faults.stop:
                raise faults.agent_error(seat, message)
            faults.add(seat, OVER_TIME, message, len(self.events), 1, "predict")
        try:  # reading the answer may run the agent's code: a call of its own
            probability = call(read_probability, result, seat=seat)
        except Exception as error:
            faults.failed(seat, error, len(self.events), 1, "predict")
            return SUBSTITUTE_PROBABILITY
        if probability is None:
            message = (
                f"predicted {shown(result)}, which is not one probability in [0, 1] for the"
                " one card asked"
            )
            if faults.stop:
                raise faults.agent_error(seat, message)
            faults.add(seat, NOT_A_PROBABILITY, message, len(self.events), 1, "predict")
            return SUBSTITUTE_PROBABILITY
        return probability


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
        probability, over the time budget or stopped at the decision limit (an agent's
        own exception goes up as is).

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

    state = DelphiState.deal(rule, seed, config, players=n)
    seats = DelphiSeats(agents, config, rule, seed)
    drive(state, seats)

    chips = state.chips()
    player_scores, oracle_score = delphi_scores(chips)
    return DelphiRecord(
        game=GAME,
        rule=rule.text,
        rule_name=rule.name,
        seed=seed,
        config=config.to_dict(),
        agents=seats.faults.described(),
        starter=state.starter,
        events=tuple(state.events),
        probabilities=tuple(state.probabilities),
        main_line=state.main_line,
        side_column=state.side_column,
        chips=tuple(chips),
        player_scores=tuple(player_scores),
        oracle_score=oracle_score,
        faults=seats.faults.recorded(),
    )
