"""Files are written whole or not at all: a write that fails half-way leaves nothing."""

from pathlib import Path

import pytest

from eleusis_lab.storage import write_atomically


def test_a_failed_write_leaves_neither_the_file_nor_its_temporary(tmp_path):
    target = tmp_path / "figure.svg"

    def half_then_fail(temporary):
        with open(temporary, "w") as handle:
            handle.write("<svg")
        raise KeyboardInterrupt  # killed mid-way

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, half_then_fail)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_rewrite_keeps_the_old_file(tmp_path):
    target = tmp_path / "index.html"
    write_atomically(target, lambda temporary: Path(temporary).write_text("old"))

    def fail(temporary):
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_atomically(target, fail)
    assert target.read_text() == "old" and len(list(tmp_path.iterdir())) == 1
