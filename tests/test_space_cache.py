"""The hypothesis-space disk cache checks what it loads and rebuilds a damaged entry."""

import json
import warnings

import numpy as np
import pytest

from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.space_cache import CacheWarning, array_digest, cached_space

GRAMMAR, SIZE = "colours_suits", 300


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty disk cache and an empty in-process cache; the entry's folder."""
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    cached_space.cache_clear()
    build_space(GRAMMAR, SIZE)
    cached_space.cache_clear()
    (entry,) = (tmp_path / "spaces").iterdir()
    yield entry
    cached_space.cache_clear()


def _truncate(entry, name, keep):
    data = (entry / name).read_bytes()
    (entry / name).write_bytes(data[: int(len(data) * keep)])


def _flip(entry, name, at):
    data = bytearray((entry / name).read_bytes())
    data[at if at >= 0 else len(data) + at] ^= 0xFF
    (entry / name).write_bytes(bytes(data))


def _meta(entry, change):
    meta = json.loads((entry / "meta.json").read_text())
    change(meta)
    (entry / "meta.json").write_text(json.dumps(meta))


def _zero_table(entry):
    table = np.load(entry / "table.npy")
    np.save(entry / "table.npy", np.zeros_like(table))


def _nan_prior(entry):
    prior = np.load(entry / "log_prior.npy")
    prior[3] = np.nan
    np.save(entry / "log_prior.npy", prior)


def _wrong_shape(meta):
    meta["arrays"]["table"]["shape"][0] += 52


def _forged_shape(entry):
    """A table of the wrong shape whose metadata was rewritten to match it."""
    table = np.load(entry / "table.npy")[:-52]
    np.save(entry / "table.npy", table)
    _meta(
        entry,
        lambda m: m["arrays"]["table"].update(shape=list(table.shape), sha256=array_digest(table)),
    )


DAMAGE = {
    "table truncated": (lambda e: _truncate(e, "table.npy", 0.5), "table.npy"),
    "table header truncated": (lambda e: _truncate(e, "table.npy", 0.0001), "table.npy"),
    "table byte flipped": (lambda e: _flip(e, "table.npy", -1), "table.npy"),
    "prior byte flipped": (lambda e: _flip(e, "log_prior.npy", -3), "log_prior.npy"),
    "table zeroed": (_zero_table, "table.npy"),
    "prior NaN": (_nan_prior, "log_prior.npy"),
    "keys file missing": (lambda e: (e / "keys.npy").unlink(), "keys.npy"),
    "wrong shape metadata": (lambda e: _meta(e, _wrong_shape), "table.npy"),
    "forged shape": (_forged_shape, "table.npy"),
    "wrong dtype metadata": (
        lambda e: _meta(e, lambda m: m["arrays"]["bits"].update(dtype="<f4")),
        "bits.npy",
    ),
    "extra metadata key": (lambda e: _meta(e, lambda m: m.update(extra=1)), "meta.json"),
    "metadata not JSON": (lambda e: (e / "meta.json").write_text("{"), "meta.json"),
    "metadata missing": (lambda e: (e / "meta.json").unlink(), "meta.json"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_entry_is_rebuilt_with_a_warning(cache, damage):
    harm, file = DAMAGE[damage]
    harm(cache)
    with pytest.warns(CacheWarning, match=f"{cache.name}.*{file}.*rebuilding it"):
        rebuilt = build_space(GRAMMAR, SIZE)
    fresh = build_space(GRAMMAR, SIZE, cache=False)
    assert (np.asarray(rebuilt.table) == fresh.table).all()
    assert (rebuilt.log_prior == fresh.log_prior).all() and (rebuilt.bits == fresh.bits).all()
    assert [rebuilt.text(i) for i in range(len(rebuilt))] == [
        fresh.text(i) for i in range(len(fresh))
    ]
    cached_space.cache_clear()  # the repaired entry now loads without a word
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = build_space(GRAMMAR, SIZE)
    assert isinstance(again.table.base, np.memmap)  # a plain view of the shared map
    assert (np.asarray(again.table) == fresh.table).all()


def test_a_sound_entry_loads_without_a_warning(cache):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        space = build_space(GRAMMAR, SIZE)
    assert isinstance(space.table.base, np.memmap) and len(space) == SIZE


class _Terminal:
    """A stderr that says it is a terminal, keeping what is written to it."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_a_person_at_a_terminal_is_told_a_space_is_built_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    cached_space.cache_clear()
    build_space(GRAMMAR, SIZE)
    said = terminal.text.splitlines()
    assert len(said) == 2 and "building the hypothesis space of grammar 'colours_suits'" in said[0]
    assert "300 hypotheses, once on this machine" in said[0] and str(tmp_path) in said[0]
    assert said[1].startswith("eleusis-lab: built in ")
    cached_space.cache_clear()
    build_space(GRAMMAR, SIZE)  # read from the disk: nothing to say
    assert len(terminal.text.splitlines()) == 2
    cached_space.cache_clear()


def test_nothing_is_said_where_stderr_is_not_a_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    cached_space.cache_clear()
    build_space(GRAMMAR, SIZE)
    assert capsys.readouterr().err == ""
    cached_space.cache_clear()
