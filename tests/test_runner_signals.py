"""A run with workers ends whole: SIGTERM stops it as Ctrl-C does, and after kill -9 of
the run's process its workers end too (nothing left running, nothing half-written)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _start(out: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "eleusis_lab", "run", "experiments/rule_complexity.toml"]
    command += ["--games", "1000", "--jobs", "2", "--out", str(out), "--quiet"]
    process = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while not any((out / "rows").glob("*")) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    return process


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _ends_within(group: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not _group_alive(group)


def test_sigterm_stops_the_run_as_ctrl_c_does(tmp_path):
    out = tmp_path / "run"
    process = _start(out)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert b"interrupted:" in err and b"Traceback" not in err
    assert json.loads((out / "metadata.json").read_text())["runs"][-1]["status"] == "interrupted"
    assert _ends_within(process.pid, 15)  # the workers and trackers are gone too


def test_the_workers_end_when_the_run_is_killed_and_the_next_run_says_so(tmp_path):
    from eleusis_lab.storage import read_metadata, settled_status

    out = tmp_path / "run"
    process = _start(out)
    process.kill()
    process.wait(timeout=30)
    assert _ends_within(process.pid, 15)
    (run,) = read_metadata(out)["runs"]
    assert run["status"] == "running" and settled_status(run) == "killed"
