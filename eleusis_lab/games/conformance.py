"""The game contract as a test: `check_game` plays many seeded random games of a game.

After OpenSpiel's random-simulation tests and PettingZoo's ``api_test``: whatever the
game, given only its declaration (`eleusis_lab.games.table.GameType`), each of
``games`` seeded games with random players

- replays without a discrepancy (the game's replay re-derives the deal, where every
  card is after every play, every verdict and the scores);
- keeps its cards: where the game declares where its cards are at the end
  (`GameType.cards`), every card of its deck is in exactly one place;
- scores by its own formulas: where the game declares them (`GameType.score`), the
  scores they give from the record's counts are the `Outcome`'s;
- survives JSON: `eleusis_lab.record.read_record` of its ``to_json`` is the record;
- is the same game from the same seed, with fresh players;
- has an `Outcome` with one entry per seat, as the results table needs, and values of
  the columns the game declares (`GameType.columns`) only;
- lays out as text.

And where the game names the class of its positions (`GameType.state_type`), it is a
`eleusis_lab.games.state.GameState`.

And a bad config (an option the game does not have) and a table of the wrong size are
each a `eleusis_lab.errors.ConfigError`, never another exception. Each failure is an
``AssertionError`` naming the game, the seed and what failed.

>>> from eleusis_lab.games.table import GAMES
>>> check_game(GAMES["classic"], games=3)
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

import numpy as np

from eleusis_lab.errors import ConfigError
from eleusis_lab.games.state import GameState
from eleusis_lab.games.table import GameType
from eleusis_lab.record import read_record
from eleusis_lab.rules.catalog import acceptable_rules

__all__ = ["check_game"]


def check_game(game: GameType, games: int = 20, seed: int = 0) -> None:
    """Play ``games`` seeded random games of ``game`` and check each (module docstring)."""
    for hook in ("replay", "layout"):
        _require(getattr(game, hook) is not None, game.name, f"the game declares no {hook}")
    _check_state_type(game)
    _check_bad_configs(game)
    declared = {column.name for column in game.columns}
    rules = game.playable_rules(acceptable_rules())
    for seed_ in range(seed, seed + games):
        rule = rules[np.random.default_rng(seed_).integers(len(rules))] if game.needs_rule else None
        where = f"{game.name}, seed {seed_}" + (f", rule {rule.text!r}" if rule else "")
        record = _play(game, rule, seed_)
        problems = game.replay(record)
        _require(not problems, where, f"replay finds {problems[:3]}")
        _require(read_record(record.to_json()) == record, where, "the record changes in JSON")
        again = _play(game, rule, seed_)
        _require(again.to_json() == record.to_json(), where, "the same seed plays another game")
        outcome = game.outcome(record)
        if game.cards is not None:
            _require_conserved(*game.cards(record), where)
        if game.score is not None:
            scores, dealer = game.score(record)
            given = (tuple(map(float, scores)), None if dealer is None else float(dealer))
            _require(
                given == (outcome.scores, outcome.dealer_score),
                where,
                f"the formulas give {given}, the outcome {(outcome.scores, outcome.dealer_score)}",
            )
        seats = len(outcome.scores)
        _require(seats == game.players, where, f"{seats} scores for {game.players} seats")
        for name in ("wrong_cards", "cards_left", "plays"):
            _require(len(getattr(outcome, name)) == seats, where, f"Outcome.{name} per seat")
        for name, values in outcome.extra.items():
            _require(name in declared, where, f"Outcome.extra has {name!r}, a column not declared")
            _require(len(values) == seats, where, f"Outcome.extra[{name!r}] per seat")
        _require(bool(game.layout(record).strip()), where, "an empty layout")


def _check_state_type(game: GameType) -> None:
    state = game.state_type
    _require(
        state is None or (isinstance(state, type) and issubclass(state, GameState)),
        game.name,
        f"its state_type {state!r} is not a subclass of {GameState.__module__}.GameState",
    )


def _play(game: GameType, rule, seed: int):
    agents = [game.agents.make(game.default_agent) for _ in range(game.players)]
    return game.play(rule, agents, seed, game.config_type())


def _check_bad_configs(game: GameType) -> None:
    try:
        game.make_config({"no_such_option": 1})
    except ConfigError:
        pass
    else:
        raise AssertionError(f"{game.name}: an unknown option is accepted")
    seats = game.max_players + 1 if game.max_players is not None else game.min_players - 1
    if seats < 1:
        return
    agents = [game.agents.make(game.default_agent) for _ in range(seats)]
    rule = acceptable_rules()[0] if game.needs_rule else None
    try:
        game.play(rule, agents, 0, game.config_type())
    except ConfigError:
        return
    except Exception as error:
        raise AssertionError(
            f"{game.name}: {seats} players raise {type(error).__name__}, not ConfigError"
        ) from error
    raise AssertionError(f"{game.name}: a table of {seats} players is played")


def _require_conserved(deck, places, where: str) -> None:
    """Every card of ``deck`` in exactly one of ``places``."""
    found = Counter(chain.from_iterable(places.values()))
    missing, extra = Counter(deck) - found, found - Counter(deck)
    if missing or extra:
        twice = {card: [name for name, cards in places.items() if card in cards] for card in extra}
        raise AssertionError(
            f"{where}: the cards are not conserved: missing {sorted(missing.elements())},"
            f" extra {sorted(extra.elements())} (in {twice})"
        )


def _require(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise AssertionError(f"{where}: {what}")
