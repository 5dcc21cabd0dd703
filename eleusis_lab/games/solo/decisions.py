"""What a player of the solo game decides beyond `eleusis_lab.agent.Agent`'s core:
`SoloDecisions`, the mixin of its decisions (capability ``"declares"``).

Each turn of the published protocol is one move (`SoloMove`): a card, the tentative
rule with its confidence, and whether to declare that rule, all before the card's
verdict (RULES.md section 6). The defaults compose the core decisions: the card of
``choose_play``, the rule and confidence of ``propose_rule``, and a declaration from
the confidence 2/3 (`SoloDecisions.declare_rule`); `solo_statement` is the part after
the card, which the ``timing="after_verdict"`` reading asks once the verdict is told.

Examples
--------
>>> from eleusis_lab.agent import Agent
>>> from eleusis_lab.games.solo import play_solo
>>> class Reds(SoloDecisions, Agent):
...     def choose_play(self, obs):
...         return obs.hand[0]
...     def propose_rule(self):
...         return ("red(card)", 0.7)
>>> record = play_solo("red(card)", Reds(), seed=3)
>>> record.found_turn, record.score
(1, 30)
"""

from __future__ import annotations

from dataclasses import dataclass

from eleusis_lab.agent import Agent, Observation
from eleusis_lab.cards import Card

__all__ = ["SoloDecisions", "SoloMove", "solo_statement"]


@dataclass(frozen=True)
class SoloMove:
    """One move of the solo benchmark, made before the card's verdict (RULES.md 6).

    ``card`` is played; ``rule`` is the agent's tentative rule (text, or None) and
    ``confidence`` the probability it gives that rule (in [0, 1], or None); with
    ``declare`` the rule is declared: correct, it ends the game; wrong, it costs 2.
    """

    card: Card
    rule: str | None = None
    confidence: float | None = None
    declare: bool = False


class SoloDecisions:
    """The solo game's decisions, for an `eleusis_lab.agent.Agent` to mix in:
    `solo_move` and `declare_rule`, with defaults built on ``choose_play`` and
    ``propose_rule``. It gives the capability ``"declares"``.

    Mix it in before the agent's base, ``class MyAgent(SoloDecisions, Agent)``, and
    override either decision, or `declare_confidence`.
    """

    capabilities = ("declares",)

    #: The confidence from which the default `declare_rule` declares (2/3, see there).
    declare_confidence: float = 2 / 3

    def solo_move(self, obs: Observation) -> SoloMove:
        """The solo game's move (RULES.md section 6): a card, the tentative rule with its
        confidence, and whether to declare it, all before the card's verdict.

        The default composes the other methods: `declare_rule` says what to declare
        (with what the agent knows before this turn's card), ``propose_rule`` gives the
        tentative rule and its confidence (the declared text is the tentative rule),
        and ``choose_play`` the card.

        Examples
        --------
        >>> from eleusis_lab.agent import Agent
        >>> class Sure(SoloDecisions, Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def propose_rule(self):
        ...         return ("red(card)", 0.7)
        >>> from eleusis_lab.cards import parse_cards
        >>> obs = Observation("solo", 0, 1, tuple(parse_cards("2C 9H")), (), ((),), None)
        >>> Sure().solo_move(obs)
        SoloMove(card=Card('2C'), rule='red(card)', confidence=0.7, declare=True)
        """
        rule, confidence, declare = solo_statement(self, obs)
        return SoloMove(self.choose_play(obs), rule, confidence, declare)

    def declare_rule(self, obs: Observation) -> str | None:
        """The solo game asks once a turn: rule text to declare now, or ``None``.

        Asked before the turn's card by the default `solo_move` (the published
        timing), after its verdict in the game's ``timing="after_verdict"`` reading.
        A correct declaration ends the game; a wrong one (or text that does not parse)
        costs 2 points and the game goes on (RULES.md section 6). The default declares
        the text of ``propose_rule`` when its confidence ``p`` is at least
        `declare_confidence`, and never a text it already declared in this game (in
        solo the game only goes on after a wrong declaration).

        Why 2/3: found on turn ``k`` the score is ``31 - k``, so waiting a turn costs
        at most 1 point, while a wrong declaration costs 2 and the game goes on as if it
        had not been made. Against any way of going on, declaring now gains at least
        ``p * 1 - (1 - p) * 2`` (the most waiting can gain is a sure find next turn),
        which is >= 0 when ``p >= 2/3``; on the last turn the gain is exactly that.
        Below 2/3 declaring pays only if the agent learns slowly, which it cannot know,
        so the default waits. An agent whose confidence is calibrated (the probability
        that the proposal is right) thus never declares at a loss.

        Examples
        --------
        >>> from eleusis_lab.agent import Agent
        >>> class Sure(SoloDecisions, Agent):
        ...     def choose_play(self, obs):
        ...         return obs.hand[0]
        ...     def propose_rule(self):
        ...         return ("red(card)", 0.7)
        >>> agent = Sure()
        >>> agent.declare_rule(None), agent.declare_rule(None)  # never the same text twice
        ('red(card)', None)
        """
        proposal = self.propose_rule()
        if proposal is None:
            return None
        text, confidence = proposal
        # The texts declared in this game; start_game sets a new info_ for each game.
        info = getattr(self, "info_", None)
        declared = getattr(self, "declared_", None)
        if declared is None or declared[0] is not info:
            declared = self.declared_ = (info, set())
        if confidence < self.declare_confidence or text in declared[1]:
            return None
        declared[1].add(text)
        return text


def solo_statement(agent: Agent, obs: Observation) -> tuple[str | None, float | None, bool]:
    """What ``agent`` states in a solo turn: (tentative rule, confidence, declare).

    `SoloDecisions.declare_rule` decides the declaration, ``propose_rule`` gives the
    tentative rule; a declared text is the tentative rule, with the proposal's
    confidence when it is the same text (else None).
    """
    declared = agent.declare_rule(obs)
    proposal = agent.propose_rule()
    rule, confidence = proposal if proposal is not None else (None, None)
    if declared is not None and declared != rule:
        rule, confidence = declared, None
    return rule, confidence, declared is not None
