"""The options of Secrets (`SecretsConfig`): what the engine (`eleusis_lab.secrets.game`)
plays by and the replay (`eleusis_lab.secrets.record`) checks a record against.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from eleusis_lab.engines import DECISION_LIMIT, check_fault_options, is_int
from eleusis_lab.errors import ConfigError

__all__ = ["SecretsConfig"]


@dataclass(frozen=True)
class SecretsConfig:
    """Options of Secrets; the defaults are the decisions of RULES.md section 4.

    Parameters
    ----------
    spend_special : bool
        An ace used to kill or a queen used to take leaves the game. Default: kept
        (the rules do not say it is spent).
    queen_takes_own : bool
        A queen may take the player's own king (the rules say "a jack or king of suit
        X"). False: enemy pieces only.
    max_turns : int
        Cap on the number of turns, a safety net; reaching it is recorded
        (``end="turn_cap"``, ``turn_cap_hit``). The built-in agents end their games in a
        few hundred turns at most.
    on_fault : {"substitute", "raise"}
        What an agent's fault does (see below); ``"raise"`` stops the game at the first
        one: an exception goes up unchanged, an illegal action, a decision over time or
        a call stopped at the limit raises `AgentError`.
    decision_seconds : float or None
        Time budget of one ``choose_action`` or ``answer_duel`` call; None: no limit.
    decision_limit : float or None
        Hard limit of every call of an agent (``start_game``, ``choose_action``,
        ``answer_duel``, ``observe``), in seconds (60); None: no limit.

    Notes
    -----
    Faults, with ``on_fault="substitute"``: each is recorded as a
    `eleusis_lab.record.Fault` (``event`` is the index of the step concerned) and the
    game goes on. ``choose_action`` raising or returning something that is not one of
    the legal actions: the first legal action is played instead (a fixed, free choice
    that `eleusis_lab.secrets.record.replay_secrets` checks). ``answer_duel`` raising or
    returning something that is not one of the duel's options, None or a bool: the duel
    is not beaten. Over the time budget: only recorded, the decision stands. Still
    running at the decision limit: stopped, recorded as a ``stopped`` fault, and
    replaced as if it had raised; the seat is then retired for the rest of the game
    (never called again, its actions the first legal ones, its duels not beaten), the
    fault counting those calls. ``start_game`` or ``observe`` raising: recorded, the
    agent keeps its seat.

    Examples
    --------
    >>> SecretsConfig(spend_special=True).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'spend_special': True, 'queen_takes_own': True, 'max_turns': 3000,
     'on_fault': 'substitute', 'decision_seconds': None, 'decision_limit': 60.0}
    """

    spend_special: bool = False
    queen_takes_own: bool = True
    max_turns: int = 3000
    on_fault: str = "substitute"
    decision_seconds: float | None = None
    decision_limit: float | None = DECISION_LIMIT

    def __post_init__(self) -> None:
        for name in ("spend_special", "queen_takes_own"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not (is_int(self.max_turns) and self.max_turns >= 0):
            raise ConfigError(f"max_turns must be a whole number >= 0, got {self.max_turns!r}")
        check_fault_options(self.on_fault, self.decision_seconds, self.decision_limit)

    def to_dict(self) -> dict[str, object]:
        """The options as a plain dict (as a `eleusis_lab.secrets.record.SecretsRecord` keeps
        them)."""
        return asdict(self)
