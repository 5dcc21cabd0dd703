"""The results' columns: one row per game and seat (`row_schema`), one per play
(`EVENT_SCHEMA`), and those that measure time (`TIMING_COLUMNS`).

The shards write rows of these schemas (`eleusis_lab.shards`), the store reads and
checks them (`eleusis_lab.storage`), the runner merges them (`eleusis_lab.runner`).

>>> "wall_time" in row_schema().names and TIMING_COLUMNS == ("wall_time",)
True
>>> EVENT_SCHEMA.names[:4]
['experiment', 'cell', 'shard', 'game']
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from eleusis_lab.games.table import game_columns
from eleusis_lab.rules.complexity import measures

__all__ = ["EVENT_SCHEMA", "SETUP_COLUMNS", "TIMING_COLUMNS", "core_columns", "row_schema"]

#: The columns of a row but the complexity columns and the games' own, which
#: `row_schema` inserts.
_ROW_FIELDS = pa.schema(
    [
        ("experiment", pa.string()),
        ("cell", pa.string()),  # the grid values, JSON
        ("lineup", pa.string()),
        ("shard", pa.int64()),
        ("game", pa.int64()),  # within the cell
        ("match", pa.int64()),  # within the cell; null outside matches
        ("seed", pa.int64()),
        ("game_type", pa.string()),
        ("players", pa.int64()),  # active players of the game
        ("rule", pa.string()),
        ("rule_name", pa.string()),  # its catalog name, if it has one
        # here: a column rule_NAME per complexity measure (eleusis_lab.rules.complexity)
        ("dealer", pa.string()),
        ("dealer_params", pa.string()),  # JSON
        ("arm", pa.string()),  # the dealer's arm (e.g. a complexity band); null if none
        ("dealer_participant", pa.int64()),  # matches: who dealt
        ("seat", pa.int64()),
        ("participant", pa.int64()),  # matches: who sits at the seat
        ("slot", pa.int64()),  # index of the seat's agent in the line-up
        ("agent", pa.string()),  # registered name or module:Class
        ("agent_params", pa.string()),  # JSON
        ("sees_rule", pa.bool_()),  # the agent was told the rule (the oracle): no learner
        ("score", pa.float64()),  # solo: the benchmark's score (floored: clip at 0)
        ("dealer_score", pa.float64()),  # Delphi: the oracle's; solo: null
        ("wrong_cards", pa.int64()),  # classic: after phase 1; new-eleusis, solo: all
        ("cards_left", pa.int64()),
        ("plays", pa.int64()),  # the seat's plays (Delphi: 0, the oracle places the cards)
        ("game_plays", pa.int64()),  # the game's events: every seat's plays (Delphi: the
        #   cards placed; new-eleusis: set-aside hands and the dealer's cards too)
        ("plays_to_identify", pa.int64()),  # game plays seen when identified; null: never
        ("faults", pa.int64()),  # the seat's faults
        # what the seat's game cost beyond computing (Agent.usage): a language model's
        # requests, tokens and seconds waiting; null for an agent that calls nothing
        ("calls", pa.int64()),
        ("tokens_in", pa.int64()),
        ("tokens_out", pa.int64()),
        ("reasoning_tokens", pa.int64()),
        ("model_seconds", pa.float64()),
        # here: the columns the registered games declare (GameType.columns), in order
        ("end", pa.string()),  # how the game ended, in its own words
        ("config", pa.string()),  # the game's options, JSON
        ("table", pa.string()),  # every seat's agent, JSON: what `rerun_game` needs
        ("wall_time", pa.float64()),  # seconds to play the game
    ]
)

_MEASURES_AFTER = "rule_name"  # the complexity columns follow this one
_GAMES_AFTER = "model_seconds"  # the games' own columns follow this one


def _core_fields() -> list[pa.Field]:
    fields = list(_ROW_FIELDS)
    at = _ROW_FIELDS.get_field_index(_MEASURES_AFTER) + 1
    fields[at:at] = [pa.field(m.column, pa.type_for_alias(m.dtype)) for m in measures()]
    return fields


def core_columns() -> tuple[str, ...]:
    """The columns every game's rows have, those of `row_schema` but the games' own.

    >>> "score" in core_columns(), "success" in core_columns()
    (True, False)
    """
    return tuple(field.name for field in _core_fields())


def row_schema() -> pa.Schema:
    """The columns of the results: one row per game and seat.

    The rule's complexity columns, ``rule_NAME``, one per measure of
    `eleusis_lab.rules.complexity.measures` in its order, follow ``rule_name``; with the
    built-in measures, ``rule_nodes``, ``rule_bits``, ``rule_acceptance`` and
    ``rule_classes``. The columns the registered games declare
    (`eleusis_lab.games.table.game_columns`, null in the rows of other games) follow
    ``model_seconds``. ``ROW_SCHEMA`` is the same, read when it is named.

    >>> row_schema().names[9:15]
    ['rule', 'rule_name', 'rule_nodes', 'rule_bits', 'rule_acceptance', 'rule_classes']
    >>> names = row_schema().names
    >>> names[names.index("model_seconds") + 1 : names.index("end")]
    ['prediction_accuracy', 'success', 'found_turn', 'wrong_declarations']
    """
    fields = _core_fields()
    names = [field.name for field in fields]
    at = names.index(_GAMES_AFTER) + 1
    columns = game_columns(core=names)  # a game's column named as a core one: refused
    fields[at:at] = [pa.field(c.name, pa.type_for_alias(c.dtype)) for c in columns]
    return pa.schema(fields)


def __getattr__(name: str) -> Any:
    if name == "ROW_SCHEMA":  # read when named: the measures registered then
        return row_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: One row per play (with ``events = true``). Delphi, where nobody plays and every
#: player predicts every card: one row per card and player, ``seat`` the player who
#: predicted, ``p_right`` his probability (always recorded: the game is the predictions).
EVENT_SCHEMA = pa.schema(
    [
        ("experiment", pa.string()),
        ("cell", pa.string()),
        ("shard", pa.int64()),
        ("game", pa.int64()),
        ("index", pa.int64()),  # the event's number in the game
        ("seat", pa.int64()),
        ("card", pa.string()),
        ("phase", pa.int64()),
        ("right", pa.bool_()),
        ("position", pa.int64()),
        ("kind", pa.string()),  # what `right` means (eleusis_lab.agent.Event.kind)
        ("p_right", pa.float64()),  # with ``predictions = true`` (Delphi: always)
    ]
)

#: Columns that measure time, so differ between runs; all others are reproducible.
TIMING_COLUMNS = ("wall_time",)

#: The games' set-up, JSON repeated on every row of a cell: the dealer's parameters, the
#: game's options and every seat's agent (what `eleusis_lab.shards.rerun_game` needs).
#: Loaded tables hold them as categorical columns, one copy of each distinct text: as
#: strings they were a third of the memory of a report.
SETUP_COLUMNS = ("dealer_params", "config", "table")
