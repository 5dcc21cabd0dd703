"""Tables kept on disk: built once, read back as built, rebuilt when damaged or stale."""

import pandas as pd
import pytest

import eleusis_lab.cards as cards
import eleusis_lab.rules.parser as parser
from eleusis_lab.table_cache import cached_table, table_path


def _builder(log):
    def build():
        log.append("built")
        return pd.DataFrame(
            {"rule": ["red(card)", "true"], "bits": [7.9, 5.2], "ok": [True, False]}
        )

    return build


def test_a_table_is_built_once_then_read_back_as_built(tmp_path):
    log = []
    first = cached_table("t", {"n": 2}, _builder(log), [cards], directory=tmp_path)
    again = cached_table("t", {"n": 2}, _builder(log), [cards], directory=tmp_path)
    assert log == ["built"]
    pd.testing.assert_frame_equal(again, first, check_dtype=False)
    assert again["ok"].dtype == bool and again["bits"].dtype == float


def test_the_key_and_the_code_name_the_file(tmp_path):
    path = table_path("t", {"n": 2}, [cards], tmp_path)
    assert path != table_path("t", {"n": 3}, [cards], tmp_path)
    assert path != table_path("t", {"n": 2}, [cards, parser], tmp_path)
    assert table_path("t", {"n": 2}, [cards], None) is None


def test_a_damaged_file_is_rebuilt_with_a_warning(tmp_path):
    log = []
    cached_table("t", {}, _builder(log), [cards], directory=tmp_path)
    path = table_path("t", {}, [cards], tmp_path)
    path.write_bytes(path.read_bytes()[:40])  # truncated
    with pytest.warns(UserWarning, match="rebuilding"):
        table = cached_table("t", {}, _builder(log), [cards], directory=tmp_path)
    assert log == ["built", "built"] and len(table) == 2
    assert len(cached_table("t", {}, _builder(log), [cards], directory=tmp_path)) == 2
    assert log == ["built", "built"]  # the rebuilt file is whole again


def test_nothing_is_written_without_a_directory(tmp_path):
    log = []
    for _ in range(2):
        cached_table("t", {}, _builder(log), [cards], directory=None)
    assert log == ["built", "built"]


def test_the_dealers_pool_is_read_back_the_same(tmp_path, monkeypatch):
    from eleusis_lab import dealers

    monkeypatch.setenv("ELEUSIS_LAB_CACHE", str(tmp_path))
    grammar = dealers._grammar("colours_suits")
    measured = dealers.measures(on_demand=False)
    built = dealers._measured_pool.__wrapped__(grammar, 300, True, measured).frame
    assert list((tmp_path / "tables").iterdir())
    read = dealers._measured_pool.__wrapped__(grammar, 300, True, measured).frame
    pd.testing.assert_frame_equal(read, built, check_dtype=False)
    assert read.dtypes.drop("rule").equals(built.dtypes.drop("rule"))
