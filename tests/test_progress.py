"""Progress per game: ticks from worker processes move the bar, a shard's rows settle
it, and shards are small enough that two workers share a trial."""

from __future__ import annotations

import io
import multiprocessing

from tqdm import tqdm

from eleusis_lab.progress import GameTicks, tick
from eleusis_lab.runner import plan_shards
from eleusis_lab.spec import load_spec


def _tick_from_another_process(address, authkey, shard, games):
    for _ in range(games):
        tick(address, authkey, shard)


def _wait_for(condition, seconds=20.0):
    import time

    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_ticks_of_a_worker_process_move_the_bar_game_by_game():
    bar = tqdm(total=10, file=io.StringIO())
    with GameTicks(bar) as ticks:
        worker = multiprocessing.get_context("spawn").Process(
            target=_tick_from_another_process, args=(ticks.address, ticks.authkey, "a", 4)
        )
        worker.start()
        worker.join(60)
        assert _wait_for(lambda: bar.n == 4)  # four games, before the shard's rows arrive
        ticks.finished("a", 6)  # the shard had 6 games: the rest counted at once
        assert bar.n == 6
        ticks.count("a")  # a tick late on its way, after the rows
        assert bar.n == 6
        ticks.finished("b", 4)  # a shard that never ticked
    assert bar.n == 10


def test_a_wrong_key_or_a_run_that_ended_ticks_nothing():
    bar = tqdm(total=1, file=io.StringIO())
    with GameTicks(bar) as ticks:
        tick(ticks.address, b"another run's key", "a")  # refused by the handshake
    tick(ticks.address, ticks.authkey, "a")  # the run's socket is closed: no error
    assert bar.n == 0


def test_two_workers_share_even_a_trial():
    spec = {"games": 20, "shard_size": 50, "dealer": "red(card)", "agents": ["random"] * 2}
    trial = plan_shards(load_spec(spec))
    assert [(s.start, s.stop) for s in trial] == [(0, 10), (10, 20)]
    # the key is the cell's whatever the count; the name says the shard was cut smaller
    assert trial[0].name == f"{trial[0].cell.key}-0000000-0000010-of-10"
    assert [(s.start, s.stop) for s in plan_shards(load_spec(spec, games=3))] == [(0, 2), (2, 3)]
    big = load_spec(spec, games=1000)  # enough games: the spec's size
    assert {s.stop - s.start for s in plan_shards(big)} == {50}
    adaptive = load_spec({**spec, "dealer": {"kind": "adaptive", "bins": 3}})  # learns
    assert [(s.start, s.stop) for s in plan_shards(adaptive)] == [(0, 20)]
