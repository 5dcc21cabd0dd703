"""The llm agent plays through the real ``openai`` client against a real chat server on
127.0.0.1 (`chat_server.ChatServer`): its prompts, its strict reading of replies with
one retry, its faults, its cache, its transcripts, and a key that never leaks."""

from __future__ import annotations

import json
import math
import re

import pytest

pytest.importorskip("openai")

from chat_server import ChatServer  # noqa: E402

from eleusis_agents.llm import LLMAgent, prompt_template, read_reply  # noqa: E402
from eleusis_agents.simple import RandomAgent  # noqa: E402
from eleusis_lab.cli import main  # noqa: E402
from eleusis_lab.games.classic import play_classic  # noqa: E402
from eleusis_lab.games.delphi import play_delphi  # noqa: E402
from eleusis_lab.games.solo import SoloConfig, play_solo  # noqa: E402
from eleusis_lab.record import replay  # noqa: E402
from eleusis_lab.registry import make_agent  # noqa: E402
from eleusis_lab.testing import CHECKS, check_agent  # noqa: E402

SECRET = "sk-test-8f3a1c0ffee5ecret"


def prompt_of(request: dict) -> str:
    return request["messages"][-1]["content"]


def first_prompt(request: dict) -> str:
    return request["messages"][0]["content"]


def hand_of(request: dict) -> list[str]:
    return re.search(r"^Your hand[^:]*: (.*)$", first_prompt(request), re.MULTILINE)[1].split()


def move(card: str, rule: str = "red(card)", confidence: float = 5, declare: bool = False) -> str:
    reply = {"card": card, "rule": rule, "confidence": confidence, "declare": declare}
    return json.dumps({**reply, "reasoning": "a guess"})


def plays_first_card(request: dict) -> str:
    """A model that plays the first card of its hand and predicts 0.5, never declaring."""
    text = first_prompt(request)
    delphi = re.search(r"The next card is (\S+)\.", text)
    if delphi:
        return json.dumps({"probability": 0.5, "rule": "true", "reasoning": "no idea"})
    if "YOUR TURN" in text:  # New Eleusis: a string of one card
        reply = {"cards": hand_of(request)[:1], "rule": "true", "confidence": 1}
        return json.dumps({**reply, "reasoning": "a guess"})
    return move(hand_of(request)[0])


def llm(server: ChatServer, **params) -> LLMAgent:
    return LLMAgent(model="scripted", base_url=server.base_url, retries=0, timeout=5, **params)


@pytest.fixture
def server():
    with ChatServer() as running:
        running.default = plays_first_card
        yield running


# -- reading replies --------------------------------------------------------------------


def test_a_reply_is_one_json_object_read_field_by_field():
    fields = {"card": str, "declare": bool}
    assert read_reply('<think>hm</think>\n{"card": "QH", "declare": true}', fields) == {
        "card": "QH",
        "declare": True,
    }
    for text, problem in [
        ('{"card": "QH"}', "the reply has no 'declare'"),
        ('["QH"]', "the reply is JSON but not an object"),
        ('{"card": "QH"} and more', "the reply is not one JSON object: Extra data"),
    ]:
        with pytest.raises(ValueError, match=re.escape(problem)):
            read_reply(text, fields)


def test_the_prompts_are_data_with_the_rule_language():
    for name in ("solo.txt", "classic.txt", "delphi.txt"):
        text = prompt_template(name).template
        assert "THE RULE LANGUAGE" in text and "if odd(rank(last)) then red(card)" in text
        assert "Reply with one JSON object and nothing else" in text


# -- solo -----------------------------------------------------------------------------------


def test_a_solo_game_declared_on_the_first_turn(server):
    server.default = lambda request: move(hand_of(request)[0], "red(card)", 9, declare=True)
    record = play_solo("red(card)", llm(server), seed=3)
    assert (record.found_turn, record.score, record.faults) == (1, 30, ())
    assert replay(record) == []
    [request] = server.requests
    body = request["json"]
    assert body["model"] == "scripted" and body["temperature"] == 0.7
    text = prompt_of(body)
    assert "This is turn 1 of 30" in text and "Declaring correctly now would score 30" in text
    assert f"Main line (right cards, in order): {record.starter}" in text


def test_a_solo_prompt_carries_the_turns_verdicts_reasoning_and_failed_declarations(server):
    server.default = lambda request: move(hand_of(request)[0], "black(card)", 8, declare=True)
    record = play_solo("red(card)", llm(server), seed=3, config=SoloConfig(max_turns=3))
    assert record.wrong_declarations == 3 and record.score == -6
    third = prompt_of(server.requests[2]["json"])
    first, second = record.events[0], record.events[1]
    verdict = "right" if first.right else "wrong"
    assert f"1. you played {first.card}: {verdict} (you thought: rule black(card)" in third
    assert f"2. you played {second.card}:" in third
    assert "Declarations that were wrong: turn 1: black(card); turn 2: black(card)" in third
    assert (
        "Wrong declarations so far: 2 (-4 points). Declaring correctly now would score 24" in third
    )


def test_a_reply_that_cannot_be_used_is_asked_again_quoting_why(server):
    server.script("I would play the queen of hearts.", "QH?")
    record = play_solo("red(card)", llm(server), seed=3, config=SoloConfig(max_turns=2))
    first, retry = server.requests[0]["json"], server.requests[1]["json"]
    assert retry["messages"][:2] == [
        first["messages"][0],
        {"role": "assistant", "content": "I would play the queen of hearts."},
    ]
    assert retry["messages"][2]["content"].startswith(
        "Your reply could not be used: the reply is not one JSON object: Expecting value"
    )
    # twice unusable: a fault of the seat, the game's substitute played, the game goes on
    [fault] = record.faults
    assert (fault.kind, fault.call) == ("raised", "solo_move")
    assert fault.message.startswith("LLMReplyError: the reply could not be used, twice: ")
    assert len(record.events) == 2 and len(server.requests) == 3


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (lambda hand: move("2X"), "card: "),
        (
            lambda hand: move(hand[0], "rank(card) > rank(lsat)"),
            "rule: line 1, column 19: unknown name 'lsat'",
        ),
        (lambda hand: move(hand[0], confidence=11), "confidence: expected a number from 0 to 10"),
        (lambda hand: move(hand[0], declare="yes"), "declare: expected true or false"),
    ],
)
def test_each_field_is_checked_and_a_good_retry_is_played(server, bad, problem):
    replies = []

    def answer(request):
        hand = hand_of(request)
        replies.append(bad(hand) if not replies else move(hand[1]))
        return replies[-1]

    server.default = answer
    record = play_solo("red(card)", llm(server), seed=5, config=SoloConfig(max_turns=1))
    assert record.faults == ()
    retry = server.requests[1]["json"]["messages"][2]["content"]
    assert problem in retry
    assert str(record.events[0].card) == hand_of(server.requests[1]["json"])[1]


def test_a_card_not_in_the_hand_is_refused(server):
    def answer(request):
        hand = hand_of(request)
        absent = next(f"{r}{s}" for r in "23456789" for s in "CDHS" if f"{r}{s}" not in hand)
        return move(absent)

    server.default = answer
    record = play_solo("red(card)", llm(server), seed=5, config=SoloConfig(max_turns=1))
    [fault] = record.faults
    assert "is not in your hand" in fault.message


# -- the other games ----------------------------------------------------------------------------


def test_classic_and_delphi_seats(server):
    record = play_classic("color(card) != color(last)", [llm(server), RandomAgent()], 2)
    assert record.faults == () and replay(record) == []
    plays = [e for e in record.events if e.seat == 0]
    assert len(server.requests) == len(plays)
    text = prompt_of(server.requests[-1]["json"])
    assert "You are seat 0. This is phase" in text and "Wrong cards in front of each player" in text

    server.requests.clear()
    delphi = play_delphi("red(card)", [llm(server)], 4)
    assert delphi.faults == () and len(server.requests) == len(delphi.events)
    assert {p[0] for p in delphi.probabilities} == {0.5}


def test_new_eleusis_strings_no_play_and_the_prophets_calls(server):
    from eleusis_lab.games.new_eleusis import play_new_eleusis

    def answer(request):
        text, hand = first_prompt(request), hand_of(request)
        turn = len([r for r in server.requests if "YOUR TURN" in first_prompt(r["json"])])
        if turn == 1:  # the first turn: a string of the first two cards
            cards, confidence = hand[:2], 3
        elif turn == 2:  # then "no play"
            cards, confidence = [], 3
        else:  # then sure: red after red and black after black, as the Prophet
            cards, confidence = hand[:1], 10
        assert "New Eleusis" in text
        reply = {"cards": cards, "rule": "color(card) == color(last)", "confidence": confidence}
        return json.dumps({**reply, "reasoning": "colours"})

    server.default = answer
    seats = [llm(server), RandomAgent(), RandomAgent()]
    record = play_new_eleusis("color(card) == color(last)", seats, 5)
    assert record.faults == () and replay(record) == []
    mine = [turn for turn in record.turns if turn.seat == 0]
    assert len(mine[0].cards) == 2 and mine[1].cards == ()
    assert record.prophets and record.prophets[0].seat == 0  # sure of its rule: Prophet
    calls = [t for t in record.turns if t.prophet_call is not None and t.seat != 0]
    assert calls and not any(t.overthrown for t in calls)  # its rule is the rule: right
    assert len(server.requests) == len(mine)  # a request a turn; the calls cost none


def test_the_llm_agent_passes_the_agent_checks(server):
    report = check_agent(llm(server))
    assert len(report.passed) == len(CHECKS)


# -- cache, transcripts, keys -------------------------------------------------------------------


def test_the_cache_replays_a_game_without_the_server(tmp_path):
    cache = str(tmp_path / "replies.sqlite")
    with ChatServer() as server:
        server.default = plays_first_card
        first = play_solo("red(card)", llm(server, cache=cache), seed=7)
        calls = len(server.requests)
        base_url = server.base_url
    assert calls == 30
    agent = LLMAgent(model="scripted", base_url=base_url, retries=0, timeout=5, cache=cache)
    again = play_solo("red(card)", agent, seed=7)  # the server is gone: every reply cached
    assert again.to_json() == first.to_json()
    assert agent.usage_["cached"] == 30 and agent.usage_["calls"] == 0


def test_transcripts_and_usage(server, tmp_path):
    agent = llm(server, transcripts=str(tmp_path / "transcripts"))
    server.script("not json")
    play_solo("red(card)", agent, seed=3, config=SoloConfig(max_turns=2))
    [path] = (tmp_path / "transcripts").iterdir()
    assert path.name.startswith("solo-") and path.name.endswith("-seat0.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(e["decision"], e["call"]) for e in entries] == [
        (0, "solo_move"),
        (0, "solo_move"),
        (1, "solo_move"),
    ]
    assert entries[0]["unusable"].startswith("the reply is not one JSON object")
    assert entries[1]["unusable"] is None and entries[1]["tokens_in"] > 100
    assert agent.usage_["calls"] == 3
    assert agent.usage_["tokens_in"] == sum(e["tokens_in"] for e in entries)


def test_the_key_reaches_the_server_and_no_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ELEUSIS_TEST_KEY", SECRET)
    with ChatServer() as server:
        server.default = plays_first_card
        record_path = tmp_path / "game.json"
        code = main(
            [
                "play",
                "--game",
                "solo",
                "--seed",
                "2",
                "--agents",
                f"llm(model='scripted', base_url='{server.base_url}',"
                f" api_key_env='ELEUSIS_TEST_KEY', cache='{tmp_path / 'c.sqlite'}',"
                f" transcripts='{tmp_path / 't'}')",
                "--json",
                str(record_path),
            ]
        )
        assert code == 0
        assert server.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_the_agent_is_made_by_name_and_refuses_bad_parameters(capsys):
    agent = make_agent("llm", model="m", base_url="http://127.0.0.1:9/v1")
    assert isinstance(agent, LLMAgent) and agent.get_params()["model"] == "m"
    code = main(["play", "--game", "solo", "--agents", "llm"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "model: name the endpoint's model" in err


# -- rows -------------------------------------------------------------------------------------


def test_a_runs_rows_hold_each_seats_calls_tokens_and_seconds(server, tmp_path):
    from eleusis_lab.runner import run_experiment

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = {"game": "classic", "games": 2, "players": 2, "dealer": "red(card)"}
    rows = run_experiment(
        {**spec, "agents": [agent, "random"]}, out=tmp_path / "run", progress=False
    )
    model, learner = rows[rows["slot"] == 0], rows[rows["slot"] == 1]
    assert model["calls"].tolist() == model["plays"].tolist()  # a request per play
    assert model["calls"].sum() == len(server.requests)
    assert (model["tokens_in"] > 100 * model["calls"]).all() and (model["tokens_out"] > 0).all()
    assert (model["reasoning_tokens"] == 0).all() and (model["model_seconds"] > 0).all()
    assert learner[["calls", "tokens_in", "model_seconds"]].isna().all().all()


def test_bench_solo_reports_the_models_usage(server):
    from eleusis_lab.bench import format_solo_table, solo_games, summarize_solo

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    server.reasoning_tokens = 7
    games = solo_games(["random", agent], rules=["red_only"], seeds=[0])
    model = games.set_index("agent").loc[agent]
    assert model["calls"] == 30 and model["reasoning_tokens"] == 7 * 30
    assert games.set_index("agent").loc["random", ["calls", "tokens_in"]].isna().all()
    table = summarize_solo(games)
    assert table.loc[agent, "calls_per_game"] == 30
    assert table.loc[agent, "tokens_per_game"] == model["tokens_in"] + model["tokens_out"]
    assert math.isnan(table.loc["random", "calls_per_game"])
    text = format_solo_table(table, 1, 1)
    assert re.search(r"calls\s+tokens\s+model_s$", text.splitlines()[1])


def test_the_report_shows_the_models_usage(server, tmp_path):
    from eleusis_lab.report import write_report
    from eleusis_lab.runner import run_experiment

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = {"game": "classic", "games": 2, "players": 2, "dealer": "red(card)"}
    rows = run_experiment({**spec, "agents": [agent, "random"]}, out=tmp_path, progress=False)
    page = write_report(tmp_path, example_game=False).read_text()
    section = page.split("<h2>Language models: requests, tokens and seconds</h2>")[1]
    table = section.split("</table>")[0]
    calls = int(rows.loc[rows["slot"] == 0, "calls"].sum())
    assert f'<td class="num">{calls:,d}</td>' in table and "random" not in table


def test_a_budget_stops_a_run_cleanly_and_a_larger_one_goes_on(server, tmp_path, capsys):
    from eleusis_lab.runner import run_experiment

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = tmp_path / "budget.toml"
    spec.write_text(
        'game = "solo"\ngames = 4\nshard_size = 1\ndealer = "red(card)"\n'
        f'agents = ["{agent}"]\nbudget = {{calls = 45}}\n'
    )
    out = tmp_path / "out"
    assert main(["run", str(spec), "--out", str(out), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"eleusis-lab: budget spent: 60 calls of 45; 2 of 4 shards kept in {out};"
        " run again with a larger budget to go on\n"
    )
    ran = json.loads((out / "metadata.json").read_text())["runs"][-1]
    assert (ran["status"], ran["calls"], ran["shards_run"]) == ("budget spent", 60, 2)
    assert len(server.requests) == 60  # 30 turns a game, never declaring
    spec.write_text(spec.read_text().replace("calls = 45", "calls = 1000"))
    rows = run_experiment(spec, out=out, progress=False)
    assert rows["calls"].tolist() == [30] * 4 and len(server.requests) == 120


def test_the_threads_backend_overlaps_the_games_requests_and_keeps_the_rows(server, tmp_path):
    import threading
    import time

    from eleusis_lab.runner import run_experiment

    lock, inside, most = threading.Lock(), [0], [0]

    def slow(request):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.02)  # a model's wait, during which other games go on
        with lock:
            inside[0] -= 1
        return plays_first_card(request)

    server.default = slow
    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = {
        "game": "solo",
        "games": 4,
        "shard_size": 1,
        "dealer": "red(card)",
        "agents": [agent],
    }
    threaded = run_experiment(
        spec, out=tmp_path / "threads", backend="threads", jobs=4, progress=False
    )
    assert most[0] >= 2  # requests of different games were under way at once
    one = run_experiment(spec, out=tmp_path / "one", progress=False)
    columns = [c for c in one.columns if c not in ("wall_time", "model_seconds")]
    assert threaded[columns].equals(one[columns])


def test_bench_solo_plays_games_at_once_in_threads_with_the_same_rows(server):
    import threading
    import time

    from eleusis_lab.bench import solo_games

    lock, inside, most = threading.Lock(), [0], [0]

    def slow(request):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        with lock:
            inside[0] -= 1
        return plays_first_card(request)

    server.default = slow
    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    rules, seeds = ["red_only", "suit_cycle"], [0, 1]
    threaded = solo_games([agent, "random"], rules=rules, seeds=seeds, threads=4)
    assert most[0] >= 2
    one = solo_games([agent, "random"], rules=rules, seeds=seeds)
    columns = [c for c in one.columns if c not in ("seconds", "model_seconds")]
    assert threaded[columns].equals(one[columns])
    # at most `concurrency` requests under way at one endpoint, whatever the threads
    most[0] = 0
    with ChatServer() as other:
        other.default = slow
        agent = f"llm(model='scripted', base_url='{other.base_url}', concurrency=1)"
        solo_games([agent], rules=rules, seeds=seeds, threads=4)
    assert most[0] == 1


def test_a_run_killed_and_resumed_does_not_pay_twice(server, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from eleusis_lab.runner import run_experiment

    # no cache named: a run keeps the replies in its folder
    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = tmp_path / "killed.toml"
    spec.write_text(
        f'game = "solo"\ngames = 4\nshard_size = 1\ndealer = "red(card)"\nagents = ["{agent}"]\n'
    )
    out = tmp_path / "out"
    command = [sys.executable, "-m", "eleusis_lab", "run", str(spec), "--out", str(out), "--quiet"]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill_midway(request):
        if len(server.requests) == 45:  # in the second game
            os.kill(run.pid, signal.SIGKILL)
        return plays_first_card(request)

    server.default = kill_midway
    assert run.wait(timeout=120) == -signal.SIGKILL
    asked = len(server.requests)
    server.default = plays_first_card
    rows = run_experiment(spec, out=out, progress=False)
    # every decision was asked once, but the one the kill cut short (asked, not stored)
    assert asked >= 45 and len(server.requests) in (120, 121)
    # what each game's requests cost: the resumed game's stored replies cost nothing
    calls = rows.sort_values("game")["calls"].tolist()
    assert calls[0] == calls[2] == calls[3] == 30 and calls[1] < 30


def test_without_the_openai_client_the_agent_says_how_to_install_it(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "openai", None)  # import openai fails
    code = main(["play", "--game", "solo", "--agents", "llm(model='m')"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "pip install 'eleusis-lab[llm]'" in err


def test_a_runs_transcripts_and_replies_go_to_its_folder(server, tmp_path):
    from eleusis_lab.runner import run_experiment

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = {"game": "solo", "games": 2, "shard_size": 1, "dealer": "red(card)"}
    out = tmp_path / "run"
    run_experiment({**spec, "agents": [agent]}, out=out, progress=False)
    transcripts = sorted((out / "transcripts").iterdir())
    assert len(transcripts) == 2  # one a game (and seat)
    assert sum(len(path.read_text().splitlines()) for path in transcripts) == 60
    assert (out / "llm_cache.sqlite").is_file() and len(server.requests) == 60
    # the same run again into its folder: every shard stored, nothing asked
    run_experiment({**spec, "agents": [agent]}, out=out, progress=False)
    assert len(server.requests) == 60


def test_llm_cache_chooses_what_every_model_of_a_command_does_with_its_cache(server, tmp_path):
    import os
    import subprocess
    import sys

    from eleusis_lab.storage import read_metadata

    cache = tmp_path / "replies.sqlite"
    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5"
    spec = tmp_path / "cached.toml"
    games = 'game = "solo"\ngames = 2\nshard_size = 1\ndealer = "red(card)"\n'
    spec.write_text(games + f"agents = [\"{agent}, cache='{cache}')\"]\n")

    def run(out: str, *flags: str) -> dict:
        command = [sys.executable, "-m", "eleusis_lab", "run", str(spec), "--out", out]
        env = {k: v for k, v in os.environ.items() if k != "ELEUSIS_LAB_LLM_CACHE"}
        done = subprocess.run(
            [*command, "--quiet", "--jobs", "2", *flags], env=env, capture_output=True
        )
        assert done.returncode == 0, done.stderr.decode()
        return read_metadata(tmp_path / out)["runs"][-1]

    assert "llm_cache" not in run(str(tmp_path / "first"))  # the agent's own mode: write
    assert len(server.requests) == 60 and cache.is_file()
    # read: replayed from the agent's cache in the workers, nothing asked
    assert run(str(tmp_path / "read"), "--llm-cache", "read")["llm_cache"] == "read"
    assert len(server.requests) == 60
    [entry, *_] = (tmp_path / "read" / "transcripts").glob("*.jsonl")
    first = json.loads(entry.read_text().splitlines()[0])
    assert first["cached"] and first["cache_mode"] == "read"
    # off: every decision asked again, and nothing stored
    before = cache.stat().st_size
    run(str(tmp_path / "off"), "--llm-cache", "off")
    assert len(server.requests) == 120 and cache.stat().st_size == before


def test_a_bad_cache_mode_in_the_environment_is_one_line(server, monkeypatch, capsys):
    monkeypatch.setenv("ELEUSIS_LAB_LLM_CACHE", "sometimes")
    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    code = main(["play", "--game", "solo", "--agents", agent])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "ELEUSIS_LAB_LLM_CACHE='sometimes': expected one of off, read, write" in err


def test_an_isolated_model_keeps_its_transcripts_in_the_runs_folder(server, tmp_path):
    from eleusis_lab.runner import run_experiment

    agent = f"llm(model='scripted', base_url='{server.base_url}', retries=0, timeout=5)"
    spec = {"game": "solo", "games": 1, "dealer": "red(card)", "agents": [agent]}
    out = tmp_path / "run"
    run_experiment({**spec, "isolate": 30}, out=out, progress=False)
    [transcript] = (out / "transcripts").iterdir()
    assert len(transcript.read_text().splitlines()) == 30
    assert (out / "llm_cache.sqlite").is_file()
