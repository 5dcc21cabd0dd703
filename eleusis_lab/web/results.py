"""A study's finished games, stored as a run stores its games (`StudyResults`): a
results folder that `eleusis_lab.load_results`, `eleusis_lab.load_events`,
``eleusis-lab report`` and the notebooks read.

Each finished game of a participant is a shard of its own: its rows and events in
``rows/`` and ``events/`` (Parquet, written atomically), named in the manifest with
their checksums, then listed in ``metadata.json``; its record beside them, in
``records/`` (JSON, which ``eleusis-lab replay`` checks). The rows are made by the same
code as a run's (`eleusis_lab.shards`): the cell's dealer draws the game's rule from the
shard's generator as in the agents' run, the game is played again by its play function
with the participant's stored answers at his seat, and the rows and events come out
with every column a run fills. Then, where the participant's game differs from an
agents' game:

- ``experiment`` is the study's name; ``cell``, ``lineup``, ``game``, ``seed`` and
  ``rule`` are those of the agents' game of the same deal;
- ``shard`` is the study's number of the participant's game (`StudyStore` ``games.id``),
  so that the games of two participants on one deal stay apart (the events too);
- at the participant's seat ``agent`` is ``human``, ``agent_params`` ``{}``, ``slot``
  null and ``participant`` his number; ``table`` names him
  (``{"agent": "human", "params": {"participant": N}}``);
- ``wall_time`` is the seconds from his first sight of the game to his last answer.

The record is checked against the game's rules (`eleusis_lab.record.replay`) before it
is stored; the practice game is kept as a record only.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from eleusis_lab.atomic_files import write_atomically
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import replay
from eleusis_lab.results_schema import EVENT_SCHEMA, row_schema
from eleusis_lab.shards import Shard, _ShardPlayer
from eleusis_lab.storage import (
    FORMAT,
    lock_results,
    read_manifest,
    read_metadata,
    write_manifest,
    write_metadata,
    write_shard,
)
from eleusis_lab.web.seat import ParticipantSeat, step
from eleusis_lab.web.study import HUMAN, Deal, Study

__all__ = ["RECORDS", "StudyResults", "game_rows", "shard_name"]

#: Where the finished games' records go, in the study's folder.
RECORDS = "records"


def shard_name(deal: Deal, participant: int, game_id: int) -> str:
    """The shard name of a participant's finished game.

    >>> from eleusis_lab.web.study import load_study
    >>> study = load_study({"name": "x", "consent": "ok", "completion_code": "c",
    ...     "blocks": [{"spec": {"game": "solo", "games": 1, "dealer": "red(card)",
    ...                          "agents": ["random"]}}]})
    >>> shard_name(study.blocks[0].deals[0], 3, 12)  # doctest: +ELLIPSIS
    'p000003-g0000012-...-0000000'
    """
    if deal.practice:
        return f"practice-p{participant:06d}-g{game_id:07d}"
    return f"p{participant:06d}-g{game_id:07d}-{deal.cell.key}-{deal.game:07d}"


def game_rows(
    study_name: str,
    deal: Deal,
    answers: list[dict[str, Any]],
    participant: int,
    game_id: int,
    seconds: float | None,
) -> tuple[pa.Table, pa.Table, Any]:
    """The rows, events and record of a participant's finished game (see the module
    docstring), played again with his ``answers``."""
    cell = replace(deal.cell, experiment=study_name, events=True, predictions=False, isolate=None)
    shard = deal.shard
    player = _ShardPlayer(Shard(cell, shard.index, shard.start, shard.stop, shard.size), True)
    if player.dealer is not None:  # the dealer's draws before this game's, as in the run
        for _ in range(shard.start, deal.game):
            player.dealer.choose_rule(player.rng)
    game = GAMES[deal.game_type]
    records: list[Any] = []

    def play(rule: Any, agents: Any, seed: int, config: Any) -> Any:
        record = game.play(rule, agents, seed, config)
        records.append(record)
        return record

    seat = ParticipantSeat()
    seat.script(answers)

    def make(name: str, **params: Any) -> Any:
        return seat if name == HUMAN.name and not params else game.agents.make(name, **params)

    player.game = replace(game, play=play)
    player.make = make
    slots = cell.lineup.slots(cell.players, deal.game)
    seats = [
        (slot, HUMAN if i == deal.seat else spec)
        for i, (slot, spec) in enumerate(zip(slots, deal.seats, strict=True))
    ]
    who = [participant if i == deal.seat else None for i in range(cell.players)]
    player.play(deal.game, seats, participants=who)
    (record,) = records
    if record.seed != deal.seed or record.rule != deal.rule:
        raise RuntimeError(f"{deal.label}: the replay dealt another game than the deal")

    table = json.dumps(
        [
            {"agent": HUMAN.name, "params": {"participant": participant}}
            if i == deal.seat
            else spec.to_dict()
            for i, spec in enumerate(deal.seats)
        ],
        sort_keys=True,
    )
    rows = player.rows
    for row in rows:
        row.update(shard=game_id, table=table, wall_time=seconds)
        if row["seat"] == deal.seat:
            row.update(slot=None, agent_params="{}")
    for event in player.events:
        event["shard"] = game_id
    return (
        pa.Table.from_pylist(rows, schema=row_schema()),
        pa.Table.from_pylist(player.events, schema=EVENT_SCHEMA),
        record,
    )


class StudyResults:
    """The study's results folder, held (its lock) while the server runs: each finished
    game is stored with `store`, one at a time."""

    def __init__(self, study: Study, out: str | Path):
        self.study = study
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / RECORDS).mkdir(exist_ok=True)
        self.lock = threading.Lock()
        self.handle = lock_results(self.out)
        try:
            self.manifest = read_manifest(self.out) or {"format": FORMAT, "shards": {}}
            write_manifest(self.out, self.manifest)
            metadata = read_metadata(self.out) or {}
            self.run = {
                "started": _now(),
                "status": "running",
                "backend": "study server",
                "host": socket.gethostname(),
                "pid": os.getpid(),
            }
            self.metadata = {
                "experiment": study.name,
                "source": study.source,
                "spec": {**json.loads(json.dumps(study.data, default=str)), "events": True},
                "unit": "game",
                "units": max(len(block.deals) for block in study.blocks),
                "cells": [{"cell": cell.label, "key": cell.key} for cell in study.cells],
                "shards": list(metadata.get("shards", [])),
                "runs": [*metadata.get("runs", []), self.run],
            }
            write_metadata(self.out, self.metadata)
        except BaseException:
            self.handle.close()
            raise

    def store(
        self,
        deal: Deal,
        answers: list[dict[str, Any]],
        participant: int,
        game_id: int,
        seconds: float | None,
    ) -> str:
        """Store a finished game: its record, and (but the practice game) its rows and
        events as a shard; the shard's name. Storing a game stored already rewrites it
        with the same contents (after a crash between its files and the database)."""
        name = shard_name(deal, participant, game_id)
        if deal.practice:
            record = step(deal, answers).record
            rows = events = None
        else:
            rows, events, record = game_rows(
                self.study.name, deal, answers, participant, game_id, seconds
            )
        problems = replay(record)
        if problems:
            raise RuntimeError(f"{name}: the record does not replay: {problems[0]}")
        text = record.to_json(indent=1)
        with self.lock:
            path = self.out / RECORDS / f"{name}.json"
            write_atomically(path, lambda temporary: Path(temporary).write_text(text))
            if rows is not None:
                write_shard(self.out, name, rows, events, self.manifest)
                if name not in self.metadata["shards"]:
                    self.metadata["shards"].append(name)
                write_metadata(self.out, self.metadata)
        return name

    def close(self) -> None:
        """Record that the server stopped, and let the folder go."""
        with self.lock:
            self.run.update(status="stopped", finished=_now())
            write_metadata(self.out, self.metadata)
            self.handle.close()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
