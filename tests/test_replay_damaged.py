"""Replay of a damaged record: a MISMATCH (exit 1) or one line naming the file (exit 2),
never a traceback."""

import json
from pathlib import Path

import pytest

from eleusis_lab.cli import main

#: Values put in place of a field: other types, out-of-range numbers, empty containers.
ODD = [None, [], {}, "x", -1, 10**30, 1.5, True, [None]]


def _record(tmp_path, *argv):
    path = tmp_path / "record.json"
    assert main(["play", *argv, "--seed", "4", "--json", str(path)]) == 0
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("records")
    return {
        "classic": _record(tmp, "--agents", "oracle,random", "--rule", "red_then_even"),
        "solo": _record(tmp, "--game", "solo", "--agents", "oracle", "--rule", "red_then_even"),
        "secrets": _record(tmp, "--game", "secrets", "--agents", "secrets-random"),
    }


def _fields(value, at=(), depth=0):
    """Where a record has fields: every key to depth 3, the first and last list item."""
    if at:
        yield at
    if depth == 3:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _fields(item, (*at, key), depth + 1)
    elif isinstance(value, list) and value:
        for i in sorted({0, len(value) - 1}):
            yield from _fields(value[i], (*at, i), depth + 1)


def _changed(data, at, value=KeyError):
    """A copy of ``data`` with the field ``at`` deleted (KeyError) or set to ``value``."""
    data = json.loads(json.dumps(data))
    node = data
    for step in at[:-1]:
        node = node[step]
    if value is KeyError:
        del node[at[-1]]
    else:
        node[at[-1]] = value
    return data


def _damaged(data):
    text = json.dumps(data)
    for n in (0, 1, 10, len(text) // 3, len(text) // 2, len(text) - 1):
        yield f"truncated at byte {n}", text[:n]
    yield "not JSON", "hello"
    for top in ([], 3, "x", None):
        yield f"JSON {top!r}", json.dumps(top)
    for at in _fields(data):
        yield f"{at} deleted", json.dumps(_changed(data, at))
        for value in ODD:
            yield f"{at} = {value!r}", json.dumps(_changed(data, at, value))


def _check(capsys, path, text):
    path.write_text(text)
    code = main(["replay", str(path)])  # an exception here fails the test
    out, err = capsys.readouterr()
    if code == 1:
        assert out.startswith("MISMATCH: ") and err == ""
    elif code == 2:
        assert out == "" and err.startswith(f"eleusis-lab: {path}: ") and err.count("\n") == 1
    else:
        assert code == 0 and out.startswith("OK")  # a change that does not matter
    return code


@pytest.mark.parametrize("game", ["classic", "solo", "secrets"])
def test_damaged_records_never_end_in_a_traceback(capsys, tmp_path, records, game):
    path = tmp_path / "damaged.json"
    codes = [_check(capsys, path, text) for _, text in _damaged(records[game])]
    assert codes.count(2) > 50 and 1 in codes  # both kinds of answer were exercised


@pytest.mark.parametrize(
    "at, value", [(("game",), []), (("rule",), None), (("rule",), 7), (("deal",), "x")]
)
def test_the_reproductions_are_one_line(capsys, tmp_path, records, at, value):
    path = tmp_path / "damaged.json"
    assert _check(capsys, path, json.dumps(_changed(records["classic"], at, value))) == 2


def test_a_secrets_seat_out_of_range_is_one_line(capsys, tmp_path, records):
    path = tmp_path / "damaged.json"
    changed = _changed(records["secrets"], ("steps", 0, "seat"), 10**30)
    assert _check(capsys, path, json.dumps(changed)) == 2


# -- issue 26: fields of the wrong type, unknown options, agents that are none -------------------


@pytest.mark.parametrize(
    ("game", "at", "value", "says"),
    [
        ("classic", ("seed",), "3", "seed: expected a whole number >= 0, got '3'"),
        ("classic", ("events", 0, "right"), "yes", "an event's right: expected true or false"),
        ("classic", ("config", "junk"), 1, "config: classic has no option 'junk'"),
        ("classic", ("config", "max_turns"), 10**12, "max_turns must be at most 100,000"),
        ("classic", ("agents", 1, "spec"), "os:system", "'os' is a module of Python's own"),
        ("classic", ("agents", 0, "spec"), "../etc:passwd", "is not a module name"),
        ("classic", ("rule",), ["red(card)"], "rule: expected rule text"),
        ("solo", ("seed",), 2.0, "seed: expected a whole number"),
        ("solo", ("agent", "spec"), "subprocess:Popen", "a module of Python's own"),
        ("solo", ("events", 0, "right"), 1, "an event's right: expected true or false, got 1"),
        ("solo", ("config", "max_turns"), 10**9, "max_turns must be at most 100,000"),
        ("secrets", ("seed",), "4", "seed: expected a whole number >= 0, got '4'"),
        ("secrets", ("config", "spend_specials"), True, "did you mean 'spend_special'?"),
        ("secrets", ("agents", 2, "spec"), "builtins:eval", "a module of Python's own"),
    ],
)
def test_a_malformed_field_is_exit_2_in_one_line(capsys, tmp_path, records, game, at, value, says):
    path = tmp_path / "malformed.json"
    assert _check(capsys, path, json.dumps(_changed(records[game], at, value))) == 2
    path.write_text(json.dumps(_changed(records[game], at, value)))
    main(["replay", str(path)])
    assert says in capsys.readouterr().err


def test_a_match_checks_its_seed_and_participants(capsys, tmp_path):
    path = tmp_path / "match.json"
    argv = ["play", "--match", "--agents", "random,random,oracle", "--seed", "1"]
    assert main([*argv, "--json", str(path)]) == 0
    capsys.readouterr()
    match = json.loads(path.read_text())
    for at, value in ((("seed",), "1"), (("participants", 0, "spec"), "os:system")):
        assert _check(capsys, path, json.dumps(_changed(match, at, value))) == 2


def test_a_record_is_refused_unread_beyond_its_bound(capsys, tmp_path, records, monkeypatch):
    from eleusis_lab import record

    path = tmp_path / "record.json"
    text = json.dumps(records["classic"])
    monkeypatch.setattr(record, "MAX_RECORD_BYTES", len(text) - 1)
    assert _check(capsys, path, text) == 2
    main(["replay", str(path)])
    assert f"larger than {len(text) - 1:,} bytes, the most a record may hold" in (
        capsys.readouterr().err
    )
    monkeypatch.undo()
    if Path("/dev/zero").exists():  # issue 26's /dev/zero, read until the OOM killer came
        assert main(["replay", "/dev/zero"]) == 2
        assert "larger than 50,000,000 bytes" in capsys.readouterr().err
