"""The games an experiment can play: a dispatch table from a game's name to its engine.

Every engine has the same shape, ``play(rule, agents, seed, config) -> record``, and a
frozen dataclass of options that an experiment spec's ``[config]`` table is handed to.
Records differ from game to game, so each `GameType` also says what a results table
keeps of one (`Outcome`). A new game adds one `GameType` to `GAMES`, and experiment
specs can name it.

Examples
--------
>>> from eleusis_lab.registry import parse_agent_list
>>> classic = GAMES["classic"]
>>> config = classic.make_config({"hand_size": 5})
>>> record = classic.play("red(card)", parse_agent_list("random,random"), 3, config)
>>> record.game, [len(hand) for hand in record.deal]
('classic', [5, 5])
>>> outcome = classic.outcome(record)
>>> outcome.scores == record.player_scores, outcome.dealer_score == record.dealer_score
(True, True)
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eleusis_lab.agent import Agent, Event
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.games.four_to_eight import FourToEightConfig, play_four_to_eight
from eleusis_lab.record import GameRecord
from eleusis_lab.rules import Rule

__all__ = ["GAMES", "GameType", "Outcome", "game_record_outcome"]


@dataclass(frozen=True)
class Outcome:
    """What a results table keeps of one game, whatever the game (per seat: a tuple).

    Attributes
    ----------
    scores : tuple of float
        Each seat's score.
    dealer_score : float or None
        The dealer's score (what a learning dealer learns from); None if no dealer.
    wrong_cards : tuple of int or None
        Each seat's wrong cards at the end of the first phase, where the game has them.
    cards_left : tuple of int or None
        Cards each seat holds at the end, where the game has them.
    plays : tuple of int
        How many cards each seat played.
    end : str or None
        How the game ended, in the game's words.
    events : tuple of Event
        The public plays, for the event table.
    """

    scores: tuple[float, ...]
    dealer_score: float | None
    wrong_cards: tuple[int | None, ...]
    cards_left: tuple[int | None, ...]
    plays: tuple[int, ...]
    end: str | None
    events: tuple[Event, ...]


def game_record_outcome(record: GameRecord) -> Outcome:
    """The `Outcome` of a `GameRecord` (classic Eleusis and its four-to-eight variant)."""
    plays = [0] * len(record.deal)
    for event in record.events:
        plays[event.seat] += 1
    return Outcome(
        scores=tuple(float(score) for score in record.player_scores),
        dealer_score=float(record.dealer_score),
        wrong_cards=tuple(len(pile) for pile in record.wrong_after_phase1),
        cards_left=tuple(int(left) for left in record.cards_left),
        plays=tuple(plays),
        end=record.phase2_end,
        events=tuple(record.events),
    )


@dataclass(frozen=True)
class GameType:
    """One game of the toolkit, as the experiment runner sees it.

    Attributes
    ----------
    name : str
        The name specs use (``game = "classic"``), also the record's ``game``.
    play : callable
        ``play(rule, agents, seed, config) -> record``, a pure function of its inputs.
    config_type : type
        The frozen dataclass of the game's options (with ``to_dict``); its fields are
        the keys a spec's ``[config]`` table may hold.
    outcome : callable
        ``outcome(record) -> Outcome``: what a results table keeps of a game.
    min_players : int
        The fewest active players (the dealer not counted) a game can be played with.
    """

    name: str
    play: Callable[[Rule | str, Sequence[Agent], int, Any], Any]
    config_type: type
    outcome: Callable[[Any], Outcome] = game_record_outcome
    min_players: int = 2

    @property
    def options(self) -> tuple[str, ...]:
        """The names of the game's options."""
        return tuple(field.name for field in dataclasses.fields(self.config_type))

    def make_config(self, options: Mapping[str, Any]) -> Any:
        """The game's options from a plain mapping; `ConfigError` for an unknown name.

        >>> GAMES["classic"].make_config({"hand_sise": 5})
        Traceback (most recent call last):
        ...
        eleusis_lab.errors.ConfigError: classic has no option 'hand_sise' (did you mean \
'hand_size'?); its options: hand_size, retry_in_turn, max_turns, on_fault, decision_seconds
        """
        for key in options:
            if key not in self.options:
                close = difflib.get_close_matches(key, self.options, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ConfigError(
                    f"{self.name} has no option {key!r}{hint}; its options:"
                    f" {', '.join(self.options)}"
                )
        return self.config_type(**options)


#: Game name -> engine. Delphi, New Eleusis and solo need an `Outcome` of their records
#: before they can join.
GAMES: dict[str, GameType] = {
    "classic": GameType("classic", play_classic, ClassicConfig, min_players=2),
    "four-to-eight": GameType(
        "four-to-eight", play_four_to_eight, FourToEightConfig, min_players=3
    ),
}
