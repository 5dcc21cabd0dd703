"""The reads of a packed verdict table: the same bits as the layout, for every space."""

from __future__ import annotations

import numpy as np
import pytest

from eleusis_agents.one_card_space import OneCardSpace
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.space import (
    pack_verdicts,
    packed_table,
    packed_width,
    unpack_verdicts,
)


@pytest.fixture(scope="module", params=["base", "one-card"])
def space(request):
    base = build_space("colours_suits", max_hypotheses=2003, cache=False)
    return base if request.param == "base" else OneCardSpace(base, 0.25)


def _reference(space) -> np.ndarray:
    """Every verdict, (probes, hypotheses): hypothesis h is bit h % 8 of byte h // 8."""
    return np.unpackbits(space.table, axis=1, bitorder="little").astype(bool)


def test_verdict_bits_broadcast_as_indices_do(space):
    every = _reference(space)
    rng = np.random.default_rng(0)
    probes = rng.integers(0, space.n_probes, 40)
    hypotheses = rng.integers(0, len(space), 30)
    said = space.verdict_bits(probes[:, None], hypotheses)
    assert said.dtype == bool and said.shape == (40, 30)
    assert (said == every[probes[:, None], hypotheses]).all()
    at = space.bit_position(hypotheses)  # computed once, read many times
    assert (space.verdict_bits(probes[:, None], at) == said).all()
    assert (space.verdict_bits(probes[3], at) == said[3]).all()  # one probe
    h = int(hypotheses[0])
    assert (space.verdict_bits(probes, h) == every[probes, h]).all()  # one hypothesis
    assert bool(space.verdict_bits(int(probes[0]), h)) == every[probes[0], h]


def test_verdict_rows_read_any_range_of_hypotheses(space):
    every = _reference(space)
    probes = np.array([0, 7, 52 * 3 + 5])
    assert (space.verdict_rows(probes) == every[probes, : len(space)]).all()
    assert (space.verdict_rows(probes[1]) == every[probes[1], : len(space)]).all()
    assert (space.verdict_rows(slice(0, 52)) == every[:52, : len(space)]).all()
    for start, stop in ((3, 11), (8, 16), (13, len(space)), (1995, 2003)):
        rows = space.verdict_rows(probes, start, stop)
        assert (rows == every[probes, start:stop]).all()
    assert space.padded_size % 8 == 0 and 0 <= space.padded_size - len(space) < 8
    padded = space.verdict_rows(probes, stop=space.padded_size)
    assert padded.shape == (3, space.padded_size) and not padded[:, len(space) :].any()


def test_verdicts_are_the_column_of_a_hypothesis(space):
    every = _reference(space)
    for h in (0, 5, len(space) - 1):
        assert (space.verdicts(h).ravel() == every[:, h]).all()


def test_agreeing_keeps_the_hypotheses_that_gave_every_verdict(space):
    every = _reference(space)
    rng = np.random.default_rng(2)
    probes = rng.integers(0, space.n_probes, 6)
    right = every[probes, 7]  # the verdicts of hypothesis 7: it agrees
    expected = (every[probes, : len(space)] == right[:, None]).all(axis=0)
    assert (space.agreeing(probes, right) == expected).all() and expected[7]
    for stop in (1, 9, 1000):
        assert (space.agreeing(probes, right, stop) == expected[:stop]).all()
    assert space.agreeing([], [], 10).all()  # nothing heard: every hypothesis


def test_packing_round_trips_and_the_table_is_built_block_by_block():
    rng = np.random.default_rng(1)
    right = rng.random((5, 21)) < 0.5
    packed = pack_verdicts(right)
    assert packed.shape == (5, packed_width(21)) == (5, 3)
    assert (unpack_verdicts(packed, 21) == right).all()
    assert not unpack_verdicts(packed, 24)[:, 21:].any()  # the padding
    table = packed_table(5, 21, [right[:, :16], right[:, 16:]])
    assert (table == packed).all()
    with pytest.raises(ValueError, match="multiple of 8"):
        packed_table(5, 21, [right[:, :3], right[:, 3:]])
    with pytest.raises(ValueError, match="not 22"):
        packed_table(5, 22, [right])
