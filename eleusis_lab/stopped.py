"""What ``eleusis-lab play`` shows when a game is stopped before its end.

A person at a human seat who types ``q`` (or presses Ctrl-C) stops the game at once:
the engine returns no record. `stopped_report` then says what he came to find out,
the secret rule, and the scores so far, rebuilt from what that seat saw (every public
event, `eleusis_agents.human.HumanAgent.seen_`) and, in classic Eleusis, the deal of the seed:

- solo: the turns played of the cap, the wrong declarations, and the score of a game
  ended now (the rule not found: -2 per wrong declaration);
- classic Eleusis: the dealer's score of the wrong cards of phase 1 so far, and the
  players' scores if the game ended now, from the cards each still holds;
- the other games: the plays so far (their scores need the whole game).

Without a human seat (Ctrl-C in a game of programs) only the rule is told.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eleusis_lab.agent import Event
from eleusis_lab.rules import Rule
from eleusis_lab.text import plural

__all__ = ["stopped_report"]


def stopped_report(
    why: str, game: str, rule: Rule | None, seed: int, config: Any, agents: Sequence[Any]
) -> str:
    """The lines shown when a game is stopped: why, the secret rule, the scores so far.

    Parameters
    ----------
    why : str
        Who or what stopped the game (``"the player at seat 0 quit the game"``).
    game : str
        The game's name, as ``eleusis-lab play --game`` spells it.
    rule : Rule or None
        The secret rule (``None`` in a match, where each game has its own).
    seed : int
        The game's seed (classic Eleusis: its deal gives the cards held).
    config : dataclass
        The game's options (``max_turns``, ``hand_size``).
    agents : sequence of Agent
        The seats; the first with ``seen_`` (a human seat) tells the plays so far.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> from eleusis_lab.games.solo import SoloConfig
    >>> print(stopped_report("interrupted", "solo", parse("red(card)"), 0, SoloConfig(), []))
    <BLANKLINE>
    game stopped: interrupted
    the secret rule: red(card)
    """
    lines = ["", f"game stopped: {why}"]
    if rule is not None:
        named = f" ({rule.name})" if rule.name and rule.name != rule.text else ""
        lines.append(f"the secret rule: {rule.text}{named}")
    seat = next((agent for agent in agents if hasattr(agent, "seen_")), None)
    if seat is None:
        return "\n".join(lines)
    events: list[Event] = list(seat.seen_)
    if game == "solo":
        lines += _solo(seat, events, config)
    elif game == "classic":
        lines += _classic(events, seed, config, len(agents), seat.info_.seat)
    else:
        lines.append(f"{plural(len(events), 'card')} played; no scores before the end of the game")
    return "\n".join(lines)


def _solo(seat: Any, events: list[Event], config: Any) -> list[str]:
    from eleusis_lab.games.solo import solo_score

    wrong = seat.wrong_declarations_ + (seat.rule_told_ is not None)
    score = solo_score(None, wrong, config.max_turns)
    return [
        f"turns played: {len(events)} of {config.max_turns}; {plural(wrong, 'wrong declaration')}",
        f"score so far: {score} (the rule not found)",
    ]


def _classic(events: list[Event], seed: int, config: Any, n: int, me: int) -> list[str]:
    from eleusis_lab.games.classic import classic_deal
    from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores

    _, hands, _ = classic_deal(seed, n, config.hand_size)
    wrong = [0] * n  # wrong cards of phase 1
    held = [len(hand) for hand in hands]
    for event in events:
        if event.phase == 1 and not event.right:
            wrong[event.seat] += 1
        if event.right:
            held[event.seat] -= 1
    phase2 = any(event.phase == 2 for event in events)
    names = ["you" if seat == me else f"seat {seat}" for seat in range(n)]
    counts = ", ".join(f"{name} {count}" for name, count in zip(names, wrong, strict=True))
    dealer = classic_dealer_score(wrong)
    so_far = "" if phase2 else " so far"
    players = classic_player_scores(held)
    scores = ", ".join(
        f"{name} {score:g} ({plural(count, 'card')} held)"
        for name, score, count in zip(names, players, held, strict=True)
    )
    return [
        f"the dealer's score{so_far}: {dealer} (wrong cards in phase 1: {counts})",
        f"the players' scores if the game ended now: {scores}",
    ]
