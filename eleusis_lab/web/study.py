"""Study specs: which games participants play in the browser, on which deals, and what
they are told (`load_study`).

A study is a TOML file beside the experiment specs whose deals its participants meet.
Each block names an experiment spec, one of its cells and some of its game numbers:
participant k's game of that block is one of those games, the very deal the agents'
run of the spec plays (the same rule, drawn by the cell's dealer from the same
generator, and the same seed), with the participant at one seat and the cell's agents
at the others (`Deal`). The practice game is a one-game spec of its own, and is not
part of the results.

The keys
--------
::

    name = "pilot_study"          # names the study's rows (their `experiment`) and folder
    title = "Find the secret rule" # what participants see at the top of each page
    description = "..."           # the start page, above the consent form
    consent = "..."               # the consent text (required): paragraphs, blank lines
    instructions = "..."          # the instructions page, before the practice game
    out = "results/pilot_study"   # where the study writes (relative to the working dir)
    id_params = ["PROLIFIC_PID"]  # URL parameters that carry a participant's id
    require_id = true             # refuse to start without one (false: a pilot; a random
                                  #   id is made up)
    participants = 40             # at most this many participants (default: no limit)
    order = "fixed"               # or "rotate": the blocks' order turns with the counter
    completion_code = "C0DE1234"  # shown on the last page (required)
    completion_url = "https://app.prolific.com/submissions/complete?cc=C0DE1234"
    minutes = 15                  # how long it takes, said on the start page

    [practice]                    # one practice game first (optional)
    game = "solo"
    rule = "red(card)"            # text of the rule language, or a catalog rule's name
    seed = 1
    config = {max_turns = 8}
    agents = ["random"]           # the other seats, in a game that has them
    seat = 0

    [[blocks]]                    # one game of each block, in order (or rotated)
    spec = "../pilot_solo.toml"   # an experiment spec, relative to this file
    cell = {lineup = "default"}   # its cell: grid values that pick one (default: the
                                  #   only one), or its number
    games = [0, 1, 2, 3]          # the cell's game numbers dealt to participants, in
                                  #   turn (default: all of the spec's games)
    seat = 0                      # the participant's seat (solo: 0)

Every mistake is a `eleusis_lab.errors.ConfigError` that names the file and the key.
The study refuses a spec of matches, a dealer that learns (its rules would depend on
the agents' earlier games), a game the browser seat cannot play (`GAMES_PLAYED`: every
Eleusis game, not Secrets), a seat the cell does not have, a game number beyond the
spec's games, and an agent at another seat that a person plays.

Examples
--------
>>> study = load_study({
...     "name": "demo", "consent": "I agree.", "completion_code": "X1",
...     "blocks": [{"spec": {"game": "classic", "games": 4, "dealer": "red(card)",
...                          "agents": ["random", "random"]}, "games": [1, 2], "seat": 1}],
... })
>>> deal = study.blocks[0].deals[0]
>>> deal.game_type, deal.game, deal.seat, [seat.name for seat in deal.seats]
('classic', 1, 1, ['random', 'human'])
>>> from eleusis_lab.shards import game_seed
>>> deal.seed == game_seed(0, 1)
True
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from eleusis_lab.engines import people
from eleusis_lab.errors import ConfigError, did_you_mean
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import parse
from eleusis_lab.spec import (
    MAX_SPEC_BYTES,
    NAME_PATTERN,
    AgentSpec,
    Cell,
    ExperimentSpec,
    load_spec,
)

__all__ = [
    "GAMES_PLAYED",
    "HUMAN",
    "Block",
    "Deal",
    "Study",
    "load_study",
    "spec_deal",
]

#: The games a participant can play in the browser (the decisions the seat asks for:
#: a card, solo's statement, Delphi's prediction, New Eleusis' turns, Prophet and calls).
GAMES_PLAYED = ("classic", "delphi", "four-to-eight", "new-eleusis", "solo")
#: The participant's seat as the rows name its agent.
HUMAN = AgentSpec("human")
#: URL parameters that may carry a participant's id: a name, as recruiting sites use.
_PARAM = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_KEYS = (
    "name",
    "title",
    "description",
    "consent",
    "instructions",
    "out",
    "id_params",
    "require_id",
    "participants",
    "order",
    "completion_code",
    "completion_url",
    "minutes",
    "practice",
    "blocks",
)
_BLOCK_KEYS = ("spec", "cell", "games", "seat", "title")
_PRACTICE_KEYS = ("game", "rule", "seed", "config", "agents", "players", "seat")
ORDERS = ("fixed", "rotate")
#: The most games a block may deal (each is computed when the study loads).
MAX_BLOCK_GAMES = 10_000
MAX_BLOCKS = 20
_DEFAULT_INSTRUCTIONS = (
    "Each game has a secret rule that says which cards may follow which. You play a card"
    " of your hand; it is judged right (it joins the main line) or wrong (it goes under"
    " the line). Watch which cards are right, and find the rule.\n\nThe practice game"
    " comes first; it does not count."
)


@dataclass(frozen=True)
class Deal:
    """One game a participant may be dealt: everything that makes it but his answers.

    Attributes
    ----------
    label : str
        What the study calls it (``practice``, ``block 1 game 3``).
    block : int or None
        The block's number, counted from 1; None for the practice game.
    game_type : str
        A name of `GAMES_PLAYED`.
    rule : str
        The secret rule's text (never sent to a browser).
    seed : int
        The game's seed: `eleusis_lab.shards.game_seed` of the cell's seed and the deal.
    config : dict
        The game's options (the cell's).
    seat : int
        The participant's seat.
    seats : tuple of AgentSpec
        Every seat's agent, `HUMAN` at the participant's.
    cell : Cell or None
        The spec's cell (for the practice game, its one-game spec's).
    game : int
        The cell's game number: the agents' game of the same deal.
    shard : Shard or None
        The agents' shard of that game (None for the practice game).
    """

    label: str
    block: int | None
    game_type: str
    rule: str
    seed: int
    config: dict[str, Any]
    seat: int
    seats: tuple[AgentSpec, ...]
    cell: Cell
    game: int
    shard: Any = field(default=None, compare=False)

    @property
    def practice(self) -> bool:
        """Whether it is the practice game (not part of the results)."""
        return self.block is None

    @property
    def key(self) -> str:
        """A short hash of the deal: a game stored for one deal is never resumed on
        another (after the study file changed)."""
        settings = {
            "game": self.game_type,
            "rule": self.rule,
            "seed": self.seed,
            "config": self.config,
            "seat": self.seat,
            "seats": [seat.to_dict() for seat in self.seats],
        }
        text = json.dumps(settings, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Block:
    """A block of the study: the deals of one cell of an experiment spec."""

    number: int
    title: str
    spec: ExperimentSpec
    cell: Cell
    seat: int
    deals: tuple[Deal, ...]


@dataclass(frozen=True)
class Study:
    """A checked study spec (see the module docstring)."""

    name: str
    source: str
    title: str
    description: str
    consent: str
    instructions: str
    out: str
    id_params: tuple[str, ...]
    require_id: bool
    participants: int | None
    order: str
    completion_code: str
    completion_url: str | None
    minutes: int | None
    practice: Deal | None
    blocks: tuple[Block, ...]
    data: dict[str, Any]

    @property
    def games(self) -> int:
        """Games each participant plays, the practice game included."""
        return len(self.blocks) + (self.practice is not None)

    @property
    def cells(self) -> list[Cell]:
        """The cells of the blocks, each once, in order."""
        cells: list[Cell] = []
        for block in self.blocks:
            if block.cell not in cells:
                cells.append(block.cell)
        return cells


# -- checking ---------------------------------------------------------------------------


def _text(value: Any, where: str, source: str, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise ConfigError(f"{source}: {where}: expected a non-empty string, got {value!r:.60}")
    return value.strip()


def _whole(value: Any, where: str, source: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{source}: {where}: expected a whole number >= {minimum}, got {value!r}")
    return value


def _unknown(table: Mapping, known: Sequence[str], where: str, source: str) -> None:
    for key in table:
        if key not in known:
            raise ConfigError(
                f"{source}: {where}{key}: unknown key{did_you_mean(key, known)};"
                f" the keys are: {', '.join(known)}"
            )


def _table(value: Any, where: str, source: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: {where}: expected a table, got {value!r:.60}")
    return dict(value)


def _read(path: Path, source: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such study file") from None
    except OSError as error:
        raise ConfigError(f"{source}: cannot read the study: {error.strerror or error}") from None
    if len(data) > MAX_SPEC_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_SPEC_BYTES:,} bytes")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{source}: not UTF-8 text: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: invalid TOML: {error}") from None


def spec_deal(
    spec: ExperimentSpec, cell: Cell, game: int, seat: int, label: str, block: int | None
) -> Deal:
    """The deal of game ``game`` of ``cell`` in the agents' run of ``spec``, with a
    participant at ``seat``: the rule its shard's dealer draws for it (the dealer made
    afresh, its generator on the shard's spawn key, drawn once per game from the shard's
    first), the seed of the game's deal, the agents of the other seats.

    >>> spec = load_spec({"games": 6, "shard_size": 3, "dealer": {"kind": "catalog"},
    ...                   "agents": ["random", "random"]})
    >>> deal = spec_deal(spec, spec.cells[0], 4, 0, "x", 1)
    >>> deal.shard.index, deal.shard.start, [seat.name for seat in deal.seats]
    (1, 3, ['human', 'random'])
    """
    from eleusis_lab.runner import plan_shards  # pandas: only when a study loads
    from eleusis_lab.shards import dealer_rng, game_seed

    shard = next(
        each for each in plan_shards(spec) if each.cell == cell and each.start <= game < each.stop
    )
    dealer = cell.dealer_plan.make()
    rng = dealer_rng(cell.seed, shard.index)
    for _ in range(shard.start, game + 1):
        chosen = dealer.choose_rule(rng)
    rule = chosen.rule if not isinstance(chosen.rule, str) else parse(chosen.rule)
    seats = list(cell.seat_agents(game))
    seats[seat] = HUMAN
    return Deal(
        label=label,
        block=block,
        game_type=cell.game,
        rule=rule.text,
        seed=game_seed(cell.seed, cell.lineup.deal(game)),
        config=dict(cell.config),
        seat=seat,
        seats=tuple(seats),
        cell=cell,
        game=game,
        shard=shard,
    )


def _check_cell(spec: ExperimentSpec, cell: Cell, where: str, source: str) -> None:
    """`ConfigError` for a cell whose games a participant cannot be dealt."""
    if cell.unit != "game":
        raise ConfigError(f"{source}: {where}: a spec of matches; a study deals games")
    if cell.game not in GAMES_PLAYED:
        raise ConfigError(
            f"{source}: {where}: the browser seat plays {', '.join(GAMES_PLAYED)}, not {cell.game}"
        )
    if cell.dealer_plan is None or cell.dealer_plan.learns:
        raise ConfigError(
            f"{source}: {where}: its dealer learns from the games it deals, so the rule of"
            " a game depends on the agents' earlier games: give the spec a dealer that"
            " does not learn"
        )
    game = GAMES[cell.game]
    for agent in cell.lineup.agents:
        made = agent.make(game.agents.make)
        if people([made]):
            raise ConfigError(
                f"{source}: {where}: agent {agent.name!r} is played by a person; the other"
                " seats of a study are the toolkit's agents"
            )


def _pick_cell(spec: ExperimentSpec, value: Any, where: str, source: str) -> Cell:
    if value is None:
        if len(spec.cells) != 1:
            labels = "; ".join(cell.label for cell in spec.cells[:4])
            raise ConfigError(
                f"{source}: {where}: the spec has {len(spec.cells)} cells ({labels}"
                f"{' ...' if len(spec.cells) > 4 else ''}): say which, e.g."
                " cell = {lineup = 'NAME'} or cell = 0"
            )
        return spec.cells[0]
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < len(spec.cells):
            raise ConfigError(
                f"{source}: {where}: cell {value}, but the spec has {len(spec.cells)} cells"
            )
        return spec.cells[value]
    wanted = _table(value, where, source)
    found = [
        cell
        for cell in spec.cells
        if all(
            json.dumps(cell.values.get(key), sort_keys=True) == json.dumps(item, sort_keys=True)
            for key, item in wanted.items()
        )
    ]
    if len(found) != 1:
        labels = "; ".join(cell.label for cell in spec.cells[:6])
        what = "no cell has" if not found else f"{len(found)} cells have"
        raise ConfigError(f"{source}: {where}: {what} the values {wanted}; the cells: {labels}")
    return found[0]


def _block(entry: Any, number: int, base: Path | None, source: str) -> Block:
    where = f"blocks[{number - 1}]"
    entry = _table(entry, where, source)
    _unknown(entry, _BLOCK_KEYS, f"{where}.", source)
    if "spec" not in entry:
        raise ConfigError(f"{source}: {where}.spec: missing: the experiment spec to deal from")
    named = entry["spec"]
    if isinstance(named, Mapping):  # a spec written in place (tests, scripts)
        spec_of: Any = named
    else:
        path = Path(_text(named, f"{where}.spec", source))
        spec_of = path if path.is_absolute() or base is None else base / path
    try:
        spec = load_spec(spec_of)
    except ConfigError as error:
        raise ConfigError(f"{source}: {where}.spec: {error}") from None
    cell = _pick_cell(spec, entry.get("cell"), f"{where}.cell", source)
    _check_cell(spec, cell, f"{where}.spec", source)
    games = entry.get("games", list(range(min(spec.units, MAX_BLOCK_GAMES))))
    if not isinstance(games, list) or not games:
        raise ConfigError(f"{source}: {where}.games: expected a non-empty list of game numbers")
    if len(games) > MAX_BLOCK_GAMES:
        raise ConfigError(f"{source}: {where}.games: more than {MAX_BLOCK_GAMES:,} games")
    for i, game in enumerate(games):
        _whole(game, f"{where}.games[{i}]", source)
        if game >= spec.units:
            raise ConfigError(
                f"{source}: {where}.games[{i}]: game {game}, but the agents' run plays"
                f" games 0 to {spec.units - 1} of each cell"
            )
    if len(set(games)) != len(games):
        raise ConfigError(f"{source}: {where}.games: a game is listed twice")
    seat = _whole(entry.get("seat", 0), f"{where}.seat", source)
    if seat >= cell.players:
        raise ConfigError(
            f"{source}: {where}.seat: seat {seat}, but the game has {cell.players} seats"
            f" (0 to {cell.players - 1})"
        )
    title = _text(entry.get("title", f"game {number}"), f"{where}.title", source)
    deals = tuple(
        spec_deal(spec, cell, game, seat, f"block {number} game {game}", number) for game in games
    )
    _check_playable(deals[0], where, source)
    return Block(number, title, spec, cell, seat, deals)


def _check_playable(deal: Deal, where: str, source: str) -> None:
    """`ConfigError` unless the deal's game starts and asks the participant (a game
    that refuses its table, or ends at the deal, is found when the study loads)."""
    from eleusis_lab.web.seat import step  # the seat imports this module

    try:
        position = step(deal, [])
    except (ConfigError, ValueError, TypeError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ConfigError(f"{source}: {where}: {deal.label} cannot be played: {message}") from None
    if position.ask is None:
        raise ConfigError(f"{source}: {where}: {deal.label} ends before the participant plays")


def _practice(value: Any, name: str, source: str) -> Deal:
    entry = _table(value, "practice", source)
    _unknown(entry, _PRACTICE_KEYS, "practice.", source)
    if "rule" not in entry:
        raise ConfigError(f"{source}: practice.rule: missing: the practice game's rule")
    game = entry.get("game", "solo")
    data: dict[str, Any] = {
        "name": f"{name}-practice",
        "game": game,
        "games": 1,
        "seed": entry.get("seed", 0),
        "dealer": entry["rule"],
        "config": entry.get("config", {}),
        "agents": entry.get("agents", ["random"]),
    }
    if "players" in entry:
        data["players"] = entry["players"]
    elif isinstance(game, str) and game in GAMES and GAMES[game].max_players != 1:
        data["players"] = max(2, len(data["agents"]) + 1)
    try:
        spec = load_spec(data)
    except ConfigError as error:
        message = str(error).removeprefix("spec: ")
        raise ConfigError(f"{source}: practice: {message}") from None
    cell = spec.cells[0]
    _check_cell(spec, cell, "practice", source)
    seat = _whole(entry.get("seat", 0), "practice.seat", source)
    if seat >= cell.players:
        raise ConfigError(f"{source}: practice.seat: the game has {cell.players} seats")
    deal = replace(spec_deal(spec, cell, 0, seat, "practice", None), shard=None)
    _check_playable(deal, "practice", source)
    return deal


def load_study(study: str | Path | Mapping[str, Any], out: str | None = None) -> Study:
    """Read and check a study spec: a TOML file, or its contents as a mapping.

    Parameters
    ----------
    study : str, Path or mapping
        The study file, or its contents (specs named there are read relative to the
        working directory).
    out : str, optional
        Where the study writes, instead of the file's ``out``.

    Raises
    ------
    ConfigError
        For a missing or unreadable file, bad TOML, or a key that is unknown, missing
        or wrong; the message names the file, the key and the reason.
    """
    if isinstance(study, Mapping):
        source, data, base, stem = "study", copy.deepcopy(dict(study)), None, "study"
    else:
        path = Path(study)
        source, base, stem = str(study), path.resolve().parent, path.stem
        data = _read(path, source)
    experiment_keys = {"game", "games", "matches", "dealer", "agents", "lineups"} & data.keys()
    if "blocks" not in data and experiment_keys:
        raise ConfigError(
            f"{source}: an experiment spec, not a study: a study names experiment specs in"
            " its [[blocks]], whose deals its participants meet (docs/guide/participants.md)"
        )
    _unknown(data, _KEYS, "", source)
    name = _text(data.get("name", stem), "name", source)
    if not NAME_PATTERN.fullmatch(name):
        raise ConfigError(
            f"{source}: name: {name[:120]!r} cannot name a study (it names its folder):"
            " letters, digits, _ and, after the first, - . + and spaces"
        )
    for key in ("consent", "completion_code"):
        if key not in data:
            what = "the consent text" if key == "consent" else "the code shown at the end"
            raise ConfigError(f"{source}: {key}: missing: {what}")
    id_params = data.get("id_params", ["PROLIFIC_PID"])
    if not isinstance(id_params, list) or not id_params:
        raise ConfigError(f"{source}: id_params: expected a non-empty list of parameter names")
    for i, param in enumerate(id_params):
        if not isinstance(param, str) or not _PARAM.fullmatch(param):
            raise ConfigError(f"{source}: id_params[{i}]: {param!r:.60} is not a parameter name")
    require_id = data.get("require_id", True)
    if not isinstance(require_id, bool):
        raise ConfigError(f"{source}: require_id: expected true or false, got {require_id!r}")
    order = data.get("order", "fixed")
    if order not in ORDERS:
        raise ConfigError(f"{source}: order: {order!r} is not one of {', '.join(ORDERS)}")
    url = data.get("completion_url")
    if url is not None:
        url = _text(url, "completion_url", source)
        if not url.startswith(("https://", "http://")):
            raise ConfigError(f"{source}: completion_url: expected an http(s) address")
    participants = data.get("participants")
    if participants is not None:
        participants = _whole(participants, "participants", source, minimum=1)
    minutes = data.get("minutes")
    if minutes is not None:
        minutes = _whole(minutes, "minutes", source, minimum=1)
    blocks_data = data.get("blocks")
    if not isinstance(blocks_data, list) or not blocks_data:
        raise ConfigError(
            f"{source}: blocks: missing: one [[blocks]] table or more, each naming an"
            " experiment spec whose deals the participants meet"
        )
    if len(blocks_data) > MAX_BLOCKS:
        raise ConfigError(f"{source}: blocks: more than {MAX_BLOCKS}")
    blocks = tuple(_block(entry, i + 1, base, source) for i, entry in enumerate(blocks_data))
    practice = _practice(data["practice"], name, source) if "practice" in data else None
    chosen_out = out or _text(data.get("out", f"results/{name}"), "out", source)
    return Study(
        name=name,
        source=source,
        title=_text(data.get("title", "A card game"), "title", source),
        description=_text(data.get("description", ""), "description", source, empty=True),
        consent=_text(data["consent"], "consent", source),
        instructions=_text(data.get("instructions", _DEFAULT_INSTRUCTIONS), "instructions", source),
        out=chosen_out,
        id_params=tuple(id_params),
        require_id=require_id,
        participants=participants,
        order=order,
        completion_code=_text(data["completion_code"], "completion_code", source),
        completion_url=url,
        minutes=minutes,
        practice=practice,
        blocks=blocks,
        data=data,
    )
