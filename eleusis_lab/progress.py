"""Progress per game from worker processes, for the runner's progress bar.

A shard is the unit of work, but a shard of 50 games of the Bayesian agents takes
minutes: counting games only when a shard arrives leaves the bar at 0 for that long.
So the run's process listens on a local socket (`GameTicks`), each worker process
connects once and sends a shard's name after each game it plays (`tick`), and a
thread of the run's process moves the bar. When the shard's rows arrive, the bar is
set to the shard's games, whatever ticks were lost or are still on their way; later
ticks of that shard are ignored. A worker that cannot reach the run (it has ended)
plays on without ticking. The socket is local, so a Dask cluster's workers (possibly
on other machines) do not tick: there the bar moves by shard.

Examples
--------
>>> import io
>>> from tqdm import tqdm
>>> bar = tqdm(total=3, file=io.StringIO())
>>> with GameTicks(bar) as ticks:
...     tick(ticks.address, ticks.authkey, "shard-a")
...     ticks.finished("shard-a", 3)  # the shard's rows: 3 games
>>> bar.n
3
"""

from __future__ import annotations

import functools
import os
import threading
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

__all__ = ["GameTicks", "tick"]


class GameTicks:
    """Listen for the games workers finish and move ``bar`` (a tqdm bar) by them.

    Use as a context manager; hand `address` and `authkey` to the workers, which call
    `tick`, and call `finished` when a shard's rows arrive. The socket is opened when
    `address` is first asked for: a run in one process counts its games with `count`.
    """

    def __init__(self, bar: Any):
        self.bar = bar
        self.authkey = os.urandom(16)
        self._listener: Listener | None = None
        self._lock = threading.Lock()
        self._ticked: dict[str, int] = {}  # games counted so far, by shard
        self._done: set[str] = set()
        self._closed = False

    @property
    def address(self) -> Any:
        """Where workers send their ticks (a Unix socket, or a port of localhost)."""
        if self._listener is None:
            self._listener = Listener(authkey=self.authkey)
            self._address = self._listener.address  # kept: a closed listener has none
            threading.Thread(target=self._accept, name="eleusis-lab ticks", daemon=True).start()
        return self._address

    def __enter__(self) -> GameTicks:
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        if self._listener is not None:
            self._listener.close()

    def finished(self, shard: str, games: int) -> None:
        """Count the rest of ``shard``'s ``games`` once its rows arrived."""
        with self._lock:
            self._done.add(shard)
            self.bar.update(games - self._ticked.pop(shard, 0))

    def count(self, shard: str) -> None:
        """Count one game of ``shard`` (unless its rows arrived already)."""
        with self._lock:
            if shard not in self._done:
                self._ticked[shard] = self._ticked.get(shard, 0) + 1
                self.bar.update(1)

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                connection = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):  # closed, or a stranger
                if self._closed:
                    return
                continue
            threading.Thread(target=self._read, args=(connection,), daemon=True).start()

    def _read(self, connection: Connection) -> None:
        with connection:
            while True:
                try:
                    self.count(connection.recv())
                except (OSError, EOFError):
                    return


def tick(address: Any, authkey: bytes, shard: str) -> None:
    """Tell the run at ``address`` that a game of ``shard`` is played (in a worker)."""
    connection = _connection(address, authkey)
    if connection is None:
        return
    try:
        connection.send(shard)
    except OSError:
        _connection.cache_clear()


@functools.cache  # one connection per worker process and run
def _connection(address: Any, authkey: bytes) -> Connection | None:
    try:
        return Client(address, authkey=authkey)
    except (OSError, EOFError, AuthenticationError):
        return None
