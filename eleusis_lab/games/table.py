"""The games an experiment can play: a dispatch table from a game's name to its engine.

Every engine has the same shape, ``play(rule, agents, seed, config) -> GameRecord``, and
a frozen dataclass of options that an experiment spec's ``[config]`` table is handed to.
A new game module adds one `GameType` to `GAMES`, and experiment specs can name it.

Examples
--------
>>> from eleusis_lab.registry import parse_agent_list
>>> classic = GAMES["classic"]
>>> config = classic.make_config({"hand_size": 5})
>>> record = classic.play("red(card)", parse_agent_list("random,random"), 3, config)
>>> record.game, [len(hand) for hand in record.deal]
('classic', [5, 5])
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eleusis_lab.agent import Agent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.record import GameRecord
from eleusis_lab.rules import Rule

__all__ = ["GAMES", "GameType"]


@dataclass(frozen=True)
class GameType:
    """One game of the toolkit, as the experiment runner sees it.

    Attributes
    ----------
    name : str
        The name specs use (``game = "classic"``), also ``GameRecord.game``.
    play : callable
        ``play(rule, agents, seed, config) -> GameRecord``, a pure function of its inputs.
    config_type : type
        The frozen dataclass of the game's options; its fields are the keys a spec's
        ``[config]`` table may hold.
    min_players : int
        The fewest active players (the dealer not counted) a game can be played with.
    """

    name: str
    play: Callable[[Rule | str, Sequence[Agent], int, Any], GameRecord]
    config_type: type
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


#: Game name -> engine. Engines of the other games are added here as they land.
GAMES: dict[str, GameType] = {
    "classic": GameType("classic", play_classic, ClassicConfig, min_players=2),
}
