"""Hashes of packed rows of values: how the enumerator and the space tell behaviours apart.

A row (a value vector over the probes, packed into uint64 words) gets two independent
64-bit hashes: each word is xored with a fixed random odd salt, mixed (splitmix64's
finaliser) and the words are summed modulo 2**64. The first hash is the row's key,
the second checks it: two different rows with one key raise `HashCollision`. The salts
are fixed (seeds 1 and 2), so the keys a cached space stores stay valid.

Examples
--------
>>> hasher = RowHasher(2)
>>> rows = np.array([[1, 2], [1, 2], [2, 1]], dtype=np.uint64)
>>> keys, checks = hasher(rows)
>>> bool(keys[0] == keys[1]), bool(keys[0] == keys[2])
(True, False)
"""

from __future__ import annotations

import numpy as np

__all__ = ["HashCollision", "RowHasher"]


def _salts(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**63, size=n, dtype=np.uint64) * 2 + 1


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wraps modulo 2**64)."""
    z = z ^ (z >> np.uint64(30))
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


class RowHasher:
    """Two independent 64-bit hashes of rows of uint64 words, up to ``width`` words."""

    def __init__(self, width: int):
        self.salts = [_salts(seed, width) for seed in (1, 2)]

    def __call__(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The keys and the check hashes of the rows of ``words`` (n, w <= width)."""
        w = words.shape[1]
        with np.errstate(over="ignore"):
            return tuple(_mix(words ^ s[:w]).sum(axis=1, dtype=np.uint64) for s in self.salts)


class HashCollision(RuntimeError):
    """Two different value vectors got the same 64-bit hash (about 1 in 10**6 builds)."""
