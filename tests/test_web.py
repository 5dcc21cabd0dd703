"""The study server with people (eleusis_lab.web), through Starlette's test client: the
study spec and its deals, assignment, ids, consent, games resumed, answers checked,
limits, the secret rule kept, and the rows stored beside an agents' run."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from eleusis_lab import load_events, load_results, run_experiment  # noqa: E402
from eleusis_lab.cli import main  # noqa: E402
from eleusis_lab.errors import ConfigError  # noqa: E402
from eleusis_lab.record import load_record, replay  # noqa: E402
from eleusis_lab.rules import parse  # noqa: E402
from eleusis_lab.rules.catalog import catalog  # noqa: E402
from eleusis_lab.spec import load_spec  # noqa: E402
from eleusis_lab.web.app import Limits, make_app  # noqa: E402
from eleusis_lab.web.assign import assignment  # noqa: E402
from eleusis_lab.web.checker import check_rule  # noqa: E402
from eleusis_lab.web.english import to_english  # noqa: E402
from eleusis_lab.web.seat import step  # noqa: E402
from eleusis_lab.web.store import DATABASE, hash_id, load_decisions, load_participants  # noqa: E402
from eleusis_lab.web.study import load_study  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FAST = Limits(session=(1e6, 1e6), address=(1e6, 1e6))
#: Rules that are no example of the rule language's text (which every solo page shows).
SOLO_RULES = ["different_suit", "low_high_alternation"]
CLASSIC_RULES = ["suit_cycle", "black_high_red_low"]


def solo_spec(**changes):
    spec = {
        "name": "people_solo",
        "game": "solo",
        "games": 4,
        "shard_size": 2,
        "seed": 5,
        "dealer": {"kind": "catalog", "rules": SOLO_RULES},
        "agents": ["random"],
        "config": {"max_turns": 4},
    }
    return {**spec, **changes}


def classic_spec(**changes):
    spec = {
        "name": "people_classic",
        "game": "classic",
        "players": 3,
        "games": 4,
        "shard_size": 2,
        "seed": 6,
        "dealer": {"kind": "catalog", "rules": CLASSIC_RULES},
        "agents": ["random", "tree", "random"],
        "config": {"hand_size": 3},
    }
    return {**spec, **changes}


def delphi_spec(**changes):
    spec = {
        "name": "people_delphi",
        "game": "delphi",
        "players": 3,
        "games": 4,
        "shard_size": 2,
        "seed": 7,
        "dealer": {"kind": "catalog", "rules": CLASSIC_RULES},
        "agents": ["random", "tree", "random"],
    }
    return {**spec, **changes}


def study_data(**changes):
    """A study: a practice game, a solo block, a classic block (a change of None drops
    the key)."""
    data = {
        "name": "people",
        "title": "A test study",
        "consent": "You agree.",
        "completion_code": "DONE-42",
        "practice": {"game": "solo", "rule": "no_spades", "seed": 1, "config": {"max_turns": 2}},
        "blocks": [
            {"spec": solo_spec(), "games": [1, 2]},
            {"spec": classic_spec(), "games": [0, 3], "seat": 1},
        ],
    }
    merged = {**data, **changes}
    return {key: value for key, value in merged.items() if value is not None}


@pytest.fixture
def study():
    return load_study(study_data())


def make(study, out, limits=FAST):
    return make_app(study, out, limits)


def csrf_of(text: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', text).group(1)


def kind_of(text: str) -> str:
    return re.search(r'<body class="([a-z]+)"', text).group(1)


def enter(client, pid="p-1"):
    """Open the study's address and consent; the consent page's text."""
    page = client.get(f"/?PROLIFIC_PID={pid}")
    assert page.status_code == 200 and kind_of(page.text) == "start", page.text[:500]
    token = csrf_of(page.text)
    after = client.post("/consent", data={"csrf": token, "consent": "yes"})
    assert kind_of(after.text) == "instructions"
    return token


def answer(client, token, text, rule=None, declare=False, card=0, confidence="50"):
    """Answer the decision ``text`` shows: its ``card``-th card, and a statement; or
    for Delphi a probability of the buttons that turns with the decision's number."""
    data = {"csrf": token, "number": re.search(r'name="number" value="(\d+)"', text).group(1)}
    cards = re.findall(r'name="card" value="([^"]+)"', text)
    if cards:
        data["card"] = cards[card]
    probabilities = re.findall(r'name="probability" value="([^"]+)"', text)
    if probabilities:
        turn = 7 * int(data["number"]) + 3 + card
        data["probability"] = probabilities[turn % len(probabilities)]
    if rule is not None and 'name="rule"' in text:
        data.update(rule=rule, confidence=confidence)
        if declare:
            data["declare"] = "on"
    return client.post("/play", data=data)


def play_all(client, token, rule="rank(card) > 7"):
    """Play every game to the end; every page's text, in order."""
    pages = []
    page = client.get("/play")
    while True:
        pages.append(page.text)
        kind = kind_of(page.text)
        if kind == "done":
            return pages
        if kind == "result":
            game = re.search(r'name="game" value="(\d+)"', page.text).group(1)
            page = client.post("/next", data={"csrf": token, "game": game})
        else:
            assert kind == "game", page.text[:800]
            page = answer(client, token, page.text, rule=rule)
            assert page.status_code == 200, page.text[:800]


# -- the rule checker -----------------------------------------------------------------------


def test_every_catalog_rule_reads_in_english_and_the_checker_says_where_a_text_fails():
    for entry in catalog():
        english = to_english(parse(entry.text))
        assert english.startswith("a card is right when") and "(card)" not in english
    bad = check_rule("rank(card) >> 3")
    assert (bad.ok, bad.line, bad.column) == (False, 1, 13)
    assert check_rule("red(card)  # a comment").rule == "red(card)"
    assert check_rule("x" * 5000).ok is False


def test_check_answers_json_as_the_player_types(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        token = csrf_of(client.get("/?PROLIFIC_PID=a").text)
        good = client.post("/check", data={"csrf": token, "text": "suit(card) == hearts"}).json()
        assert good["ok"] and good["english"] == "a card is right when the card's suit is hearts"
        bad = client.post("/check", data={"csrf": token, "text": "suit(card) = hearts"}).json()
        assert not bad["ok"] and bad["column"] == 12 and bad["message"]
        refused = client.post("/check", data={"text": "red(card)"})
        assert refused.status_code == 403 and refused.json()["ok"] is False


# -- the study spec and its deals ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"colour": "red"}, "colour: unknown key"),
        ({"consent": None}, "consent: missing"),
        ({"blocks": []}, "blocks: missing"),
        ({"blocks": [{"spec": solo_spec(), "games": [4]}]}, "games 0 to 3"),
        ({"blocks": [{"spec": classic_spec(), "seat": 3}]}, "the game has 3 seats"),
        (
            {
                "blocks": [
                    {
                        "spec": {
                            "game": "secrets",
                            "games": 2,
                            "players": 4,
                            "agents": ["secrets-random"] * 4,
                        }
                    }
                ]
            },
            "the browser seat plays classic, delphi, four-to-eight, new-eleusis, solo, not secrets",
        ),
        (
            {"blocks": [{"spec": classic_spec(dealer={"kind": "adaptive", "bins": 3})}]},
            "its dealer learns",
        ),
        ({"blocks": [{"spec": classic_spec(agents=["random", "human"])}]}, "played by a person"),
        ({"id_params": ["../x"]}, "is not a parameter name"),
    ],
)
def test_a_bad_study_is_one_line_naming_the_key(change, says):
    data = study_data(**change)
    with pytest.raises(ConfigError, match=re.escape(says)) as raised:
        load_study(data)
    assert "\n" not in str(raised.value)


def test_serve_check_lists_the_deals_and_refuses_an_experiment_spec(capsys):
    assert main(["serve", str(ROOT / "experiments/studies/pilot_study.toml"), "--check"]) == 0
    out = capsys.readouterr().out
    assert "block 2 (a table of three): classic, seat 1, 4 deals" in out
    assert main(["serve", str(ROOT / "experiments/pilot_solo.toml"), "--check"]) == 2
    assert "an experiment spec, not a study" in capsys.readouterr().err


def test_participants_meet_the_deals_of_the_agents_run(tmp_path, study):
    """Same cell and game number: the same rule (the shard's dealer) and seed, the same
    agents at the other seats."""
    for block in study.blocks:
        agents = run_experiment(block.spec, out=tmp_path / block.spec.name, progress=False)
        for deal in block.deals:
            rows = agents[(agents["cell"] == deal.cell.label) & (agents["game"] == deal.game)]
            assert set(rows["rule"]) == {deal.rule} and set(rows["seed"]) == {deal.seed}
            others = [seat.name for i, seat in enumerate(deal.seats) if i != deal.seat]
            assert others == [
                a for s, a in zip(rows["seat"], rows["agent"], strict=True) if s != deal.seat
            ]


def test_deals_are_assigned_in_turn_so_each_is_played_equally_often(study):
    counts: dict[str, int] = {}
    for number in range(1, 9):
        deals = assignment(study, number)
        assert deals[0].practice and [deal.block for deal in deals[1:]] == [1, 2]
        for deal in deals[1:]:
            counts[deal.label] = counts.get(deal.label, 0) + 1
    assert sorted(counts.values()) == [4, 4, 4, 4]
    rotated = load_study(study_data(order="rotate"))
    assert [d.block for d in assignment(rotated, 2)[1:]] == [2, 1]


# -- arriving: ids, consent ------------------------------------------------------------------


def test_the_id_from_the_address_is_kept_only_as_a_salted_hash(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        enter(client, pid="5f1d2c-PROLIFIC")
        salt = client.app.state.flow.salt
    data = (tmp_path / DATABASE).read_bytes()
    assert b"5f1d2c-PROLIFIC" not in data
    people = load_participants(tmp_path)
    assert people["id_hash"].tolist() == [hash_id(salt, "PROLIFIC_PID", "5f1d2c-PROLIFIC")]
    assert hash_id(b"another salt", "PROLIFIC_PID", "5f1d2c-PROLIFIC") != people["id_hash"][0]
    secrets = tmp_path / ".study-secrets.json"
    assert secrets.stat().st_mode & 0o077 == 0  # readable by its owner alone


def test_an_address_without_an_id_or_with_a_bad_one_is_refused(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        assert client.get("/").status_code == 400
        bad = client.get("/?PROLIFIC_PID=" + "x" * 300)
        assert bad.status_code == 400 and kind_of(bad.text) == "error"
        assert client.get("/?PROLIFIC_PID=a/../b").status_code == 400
    pilot = load_study(study_data(require_id=False))
    with TestClient(make(pilot, tmp_path / "pilot")) as client:
        assert kind_of(client.get("/").text) == "start"  # an id made up


def test_nothing_is_played_or_kept_without_consent(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        assert client.get("/play", follow_redirects=False).headers["location"] == "/"
        token = csrf_of(client.get("/?PROLIFIC_PID=no-thanks").text)
        declined = client.post("/consent", data={"csrf": token, "consent": "no"})
        assert "did not consent" in declined.text
        assert client.get("/play", follow_redirects=False).status_code == 303
    assert load_participants(tmp_path).empty


def test_a_full_study_takes_no_one_else(tmp_path):
    study = load_study(study_data(participants=1))
    with TestClient(make(study, tmp_path)) as client:
        enter(client, pid="first")
    with TestClient(make(study, tmp_path)) as client:
        token = csrf_of(client.get("/?PROLIFIC_PID=second").text)
        assert (
            "The study is full"
            in client.post("/consent", data={"csrf": token, "consent": "yes"}).text
        )


# -- playing: answers, reloads, returns ------------------------------------------------------------


def test_an_illegal_card_or_a_bad_rule_is_refused_and_nothing_is_stored(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        page = client.get("/play").text
        number = re.search(r'name="number" value="(\d+)"', page).group(1)
        held = re.findall(r'name="card" value="([^"]+)"', page)
        absent = next(c for c in ("AS", "2H", "KD", "QC", "7S") if c not in held)
        for card in (absent, "../../etc/passwd", ""):
            refused = client.post("/play", data={"csrf": token, "number": number, "card": card})
            assert refused.status_code == 422 and 'class="message"' in refused.text
        bad = answer(client, token, page, rule="rank(card) >")
        assert bad.status_code == 422 and "not a rule of the language" in bad.text
        assert 'value="rank(card) &gt;"' in bad.text  # what he typed, kept (escaped)
        silly = answer(client, token, page, rule="red(card)", confidence="250")
        assert silly.status_code == 422
    assert load_decisions(tmp_path).empty


def test_a_reload_shows_the_same_decision_and_keeps_its_clock(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        first = client.get("/play").text
        answer(client, token, first, rule="red(card)")
        shown = client.get("/play").text
        again = client.get("/play").text
        assert re.search(r'name="number" value="1"', shown) and re.search(
            r'name="number" value="1"', again
        )
        number = lambda text: re.findall(r'name="card" value="([^"]+)"', text)  # noqa: E731
        assert number(shown) == number(again)
        flow = client.app.state.flow
        game = flow.current(1).row["id"]
    with sqlite3.connect(tmp_path / DATABASE) as db:
        assert db.execute("SELECT COUNT(*) FROM shown WHERE game_id = ?", (game,)).fetchone() == (
            2,
        )


def test_a_form_posted_twice_or_from_an_old_page_counts_once(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        page = client.get("/play").text
        answer(client, token, page, rule="red(card)")
        answer(client, token, page, rule="red(card)")  # the same form again
        answer(client, token, page, card=1)  # an old page
    decisions = load_decisions(tmp_path)
    assert len(decisions) == 1 and decisions["rule"].tolist() == ["red(card)"]


def test_a_participant_who_comes_back_continues_the_same_game(tmp_path, study):
    """In another browser, and after the server was stopped: the answers are replayed
    from the seed, the game stands where he left it."""
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client, pid="returning")
        page = client.get("/play").text
        for _ in range(2):  # the practice game (2 turns), then the first real game
            page = answer(client, token, page, rule="red(card)").text
        assert kind_of(page) == "result"
        game = re.search(r'name="game" value="(\d+)"', page).group(1)
        page = client.post("/next", data={"csrf": token, "game": game}).text
        page = answer(client, token, page, rule="rank(card) > 5").text
        before = page
    with TestClient(make(study, tmp_path)) as other:  # a new server, a new browser
        again = other.get("/?PROLIFIC_PID=returning").text
        assert kind_of(again) == "game"
        strip = lambda text: re.sub(r'name="csrf" value="[^"]+"', "", text)  # noqa: E731
        assert strip(again) == strip(before)
    assert load_participants(tmp_path)["participant"].tolist() == [1]


def test_forms_need_the_sessions_token(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        enter(client)
        page = client.get("/play").text
        forged = client.post("/play", data={"csrf": "guess", "number": "0", "card": "AS"})
        assert forged.status_code == 403 and kind_of(forged.text) == "error"
        assert answer(client, "guess", page).status_code == 403
    assert load_decisions(tmp_path).empty


def test_bodies_and_paces_are_bounded(tmp_path, study):
    limits = Limits(body=4096, session=(5, 0.01), address=(1e6, 1e6))
    with TestClient(make(study, tmp_path, limits)) as client:
        token = csrf_of(client.get("/?PROLIFIC_PID=fast").text)
        large = client.post("/check", data={"csrf": token, "text": "red(card) or " * 1000})
        assert large.status_code == 413
        statuses = [
            client.post("/check", data={"csrf": token, "text": "red(card)"}).status_code
            for _ in range(6)
        ]
        assert 429 in statuses
        refused = client.get("/play")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert client.get("/static/study.css").status_code == 200  # not counted


def test_every_answer_carries_the_security_headers(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        page = client.get("/?PROLIFIC_PID=h")
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert page.headers["referrer-policy"] == "no-referrer"
        assert page.headers["cache-control"] == "no-store"
        cookie = page.headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
        assert client.get("/nowhere").status_code == 404


# -- a whole study: the rule kept, the rows stored -------------------------------------------------


def test_a_whole_study_never_sends_the_rule_and_stores_its_games_as_a_run_does(tmp_path, study):
    out = tmp_path / "people"
    bodies = []
    with TestClient(make(study, out)) as client:
        for pid in ("one", "two"):
            client.cookies.clear()
            token = enter(client, pid=pid)
            bodies += play_all(client, token)
            assert "DONE-42" in bodies[-1]
    secret = {deal.rule for block in study.blocks for deal in block.deals} | {study.practice.rule}
    words = {to_english(parse(rule)) for rule in secret}
    for body in bodies:
        assert not [text for text in secret | words if text in body]

    people = load_results(out)
    assert len(people) == 2 * (1 + 3)  # two participants: a solo seat, a table of three
    human = people[people["agent"] == "human"]
    assert sorted(human["participant"].tolist()) == [1, 1, 2, 2]
    assert human["slot"].isna().all() and (human["agent_params"] == "{}").all()
    assert (people["experiment"] == "people").all() and people["shard"].is_unique is False
    assert set(people.groupby("shard")["participant"].max()) == {1, 2}
    assert json.loads(human.iloc[-1]["table"])[1] == {
        "agent": "human",
        "params": {"participant": 2},
    }

    events = load_events(out)
    assert set(events["shard"]) == set(people["shard"])
    decisions = load_decisions(out)
    played = decisions[decisions["block"].notna()]
    assert (played["response_ms"] >= 0).all() and set(played["typed"].dropna()) == {
        "rank(card) > 7"
    }
    own = events.merge(played, on=["shard", "index"], suffixes=("", "_decision"))
    assert len(own) == len(played) and (own["card"] == own["card_decision"]).all()

    for block in study.blocks:  # the agents' run of each spec, beside
        agents = run_experiment(block.spec, out=tmp_path / block.spec.name, progress=False)
        mine = people[people["game_type"] == block.cell.game]
        paired = mine.merge(agents, on=["cell", "game", "seat"], suffixes=("", "_agents"))
        assert len(paired) == len(mine)
        assert (paired["rule"] == paired["rule_agents"]).all()
        assert (paired["seed"] == paired["seed_agents"]).all()
        others = paired[paired["agent"] != "human"]
        assert (others["agent"] == others["agent_agents"]).all()

    records = sorted((out / "records").glob("*.json"))
    assert len(records) == 2 * 3 and all(replay(load_record(path)) == [] for path in records)
    metadata = json.loads((out / "metadata.json").read_text())
    assert metadata["runs"][-1]["status"] == "stopped" and len(metadata["shards"]) == 4


def test_a_crash_before_a_finished_game_is_stored_loses_nothing(tmp_path, study, monkeypatch):
    from eleusis_lab.web import results

    def crash(*args, **kwargs):
        raise OSError("the disk went away")

    with TestClient(make(study, tmp_path)) as client:
        monkeypatch.setattr(results.StudyResults, "store", crash)
        token = enter(client)
        page = client.get("/play").text
        for _ in range(2):
            page = answer(client, token, page).text
        assert kind_of(page) == "result"  # the game is over for him
        monkeypatch.undo()
    assert not list((tmp_path / "records").glob("*.json"))
    with TestClient(make(study, tmp_path)):  # the next start stores it
        pass
    assert len(list((tmp_path / "records").glob("practice-*.json"))) == 1


def test_a_replay_that_shows_the_seat_something_else_stops(tmp_path, study):
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        answer(client, token, client.get("/play").text)
    with sqlite3.connect(tmp_path / DATABASE) as db:
        stored = json.loads(db.execute("SELECT answer FROM decisions").fetchone()[0])
        stored["fingerprint"] = "0" * 16
        db.execute("UPDATE decisions SET answer = ?", (json.dumps(stored),))
    with TestClient(make(study, tmp_path), raise_server_exceptions=False) as client:
        page = client.get("/?PROLIFIC_PID=p-1")
        assert page.status_code == 500 and "cannot be resumed" in page.text


def test_the_pilot_study_loads_and_its_specs_are_the_agents(tmp_path):
    study = load_study(ROOT / "experiments/studies/pilot_study.toml")
    assert [block.spec.name for block in study.blocks] == ["pilot_solo", "pilot_classic"]
    assert [block.spec.out for block in study.blocks] == [
        "results/pilot_solo",
        "results/pilot_classic",
    ]
    assert load_spec(ROOT / "experiments/pilot_solo.toml").cells[0].game == "solo"


def test_the_example_study_of_delphi_and_new_eleusis_loads():
    study = load_study(ROOT / "experiments/studies/oracle_prophet_study.toml")
    assert [block.cell.game for block in study.blocks] == ["delphi", "new-eleusis"]
    assert [block.spec.out for block in study.blocks] == [
        "results/pilot_delphi",
        "results/pilot_new_eleusis",
    ]
    assert all(deal.seat == 1 for block in study.blocks for deal in block.deals)


def test_solo_after_the_verdict_asks_the_statement_on_a_page_of_its_own(tmp_path):
    spec = solo_spec(config={"max_turns": 3, "timing": "after_verdict"})
    study = load_study(study_data(practice=None, blocks=[{"spec": spec, "games": [0]}]))
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        card_page = client.get("/play").text
        assert 'name="card"' in card_page and 'name="rule"' not in card_page
        statement = answer(client, token, card_page).text
        assert 'name="rule"' in statement and 'name="card"' not in statement
        assert "was <strong>" in statement  # the card's verdict, before the statement
        after = answer(client, token, statement, rule="suit(card) == hearts", confidence="30")
        assert 'name="card"' in after.text
    decisions = load_decisions(tmp_path).fillna({"rule": ""})
    kinds = decisions[["kind", "rule", "index"]].values.tolist()
    assert kinds[:2] == [["card", "", 0], ["statement", "suit(card) == hearts", 0]]


def test_the_four_to_eight_variant_is_played_from_its_seat(tmp_path):
    spec = classic_spec(game="four-to-eight", players=5, agents=["random"] * 5, config={})
    study = load_study(study_data(practice=None, blocks=[{"spec": spec, "games": [1], "seat": 2}]))
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        assert "you are player 3 of 5" in client.get("/play").text
        play_all(client, token)
    rows = load_results(tmp_path)
    assert rows["agent"].tolist() == ["random", "random", "human", "random", "random"]


def test_a_delphi_seat_predicts_every_card_of_the_deck(tmp_path):
    """A whole game of Delphi from seat 2 of 3: a probability for each card the oracle
    turns, the verdict and his chips after it, a reload mid-game, answers that are no
    probability refused, and the rows read as a run's."""
    study = load_study(
        study_data(practice=None, blocks=[{"spec": delphi_spec(), "games": [1], "seat": 2}])
    )
    deal = study.blocks[0].deals[0]
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        page = client.get("/play").text
        assert "you are player 3 of 3" in page and "side column" in page
        assert 'name="probability" value="0.5"' in page and 'name="card"' not in page
        judged = re.search(r'The oracle turns <span class="card [a-z]+ main" title="([^"]+)"', page)
        assert judged
        for bad in ("1.5", "-0.1", "nan", "right", ""):
            refused = client.post("/play", data={"csrf": token, "number": "0", "probability": bad})
            assert "from 0 to 1" in refused.text and kind_of(refused.text) == "game"
        assert load_decisions(tmp_path).empty
        pages = []
        for _ in range(20):
            page = answer(client, token, page).text
            pages.append(page)
        reload = client.get("/play").text
        assert re.sub(r'name="client_ms" value="[^"]*"', "", reload) == re.sub(
            r'name="client_ms" value="[^"]*"', "", page
        )
        assert "was <strong>" in page and "your chips:" in page and "You said 0." in page
        while kind_of(page) == "game":
            page = answer(client, token, page).text
            pages.append(page)
        assert kind_of(page) == "result" and "You judged 51 cards" in page
        assert "side column" in page
        pages.append(page)
        assert "DONE-42" in play_all(client, token)[-1]
    words = {deal.rule, to_english(parse(deal.rule))}
    assert not [page for page in pages if any(word in page for word in words)]

    decisions = load_decisions(tmp_path)
    assert len(decisions) == 51 and set(decisions["kind"]) == {"predict"}
    assert decisions["declare"].isna().all() and decisions["confidence"].between(0, 1).all()
    assert decisions["index"].tolist() == list(range(51))
    assert (decisions["response_ms"] >= 0).all()
    rows = load_results(tmp_path)
    assert rows["agent"].tolist() == [seat.name for seat in deal.seats]
    assert rows["agent"].iloc[2] == "human"
    events = load_events(tmp_path)  # a row per card and seat, with its probability
    own = events[events["seat"] == 2].merge(decisions, on=["shard", "index"])
    assert len(own) == 51 and (own["card_x"] == own["card_y"]).all()
    assert (own["p_right"] == own["confidence"]).all()
    records = list((tmp_path / "records").glob("*.json"))
    record = load_record(records[0])
    assert len(records) == 1 and replay(record) == []
    assert record.probabilities[0][2] == decisions["confidence"].iloc[0]
    mine = rows[rows["agent"] == "human"].iloc[0]
    assert mine["participant"] == 1 and mine["rule"] == deal.rule


def new_eleusis_answer(client, token, text, turn):
    """Answer a New Eleusis page: a turn of one card, then strings of two, then "no
    play" (turning with ``turn``); yes to the first Prophet question; calls in turn."""
    data = {"csrf": token, "number": re.search(r'name="number" value="(\d+)"', text).group(1)}
    hand = re.findall(r'data-card="([^"]+)"', text)
    if 'name="prophet"' in text:
        data["prophet"] = "yes"
    elif 'name="call"' in text:
        data["call"] = ("right", "wrong")[turn % 2]
    elif turn % 3 == 2 or not hand:
        data["play"] = "none"
    else:
        data.update({f"card{k + 1}": card for k, card in enumerate(hand[: 1 + turn % 3])})
        data["play"] = "cards"
    return client.post("/play", data=data)


def test_a_new_eleusis_seat_plays_strings_and_may_become_the_prophet(tmp_path):
    """A whole round of New Eleusis from seat 1 of 4: cards in order, "no play", the
    Prophet's question and his calls, a reload mid-game, illegal turns refused, and the
    rows read as a run's."""
    spec = classic_spec(
        name="people_new", game="new-eleusis", players=4, agents=["random", "tree"] * 2
    )
    spec["config"] = {"hand_size": 5}
    study = load_study(study_data(practice=None, blocks=[{"spec": spec, "games": [1], "seat": 1}]))
    deal = study.blocks[0].deals[0]
    with TestClient(make(study, tmp_path)) as client:
        token = enter(client)
        page = client.get("/play").text
        assert "you are player 2 of 4" in page and 'name="card1"' in page
        assert 'value="none"' in page and 'name="card4"' in page
        hand = re.findall(r'data-card="([^"]+)"', page)
        for bad, says in (
            ({"card1": "KS#3"}, "not one you may play now"),
            ({"card1": hand[0], "card2": hand[0]}, "only once"),
            ({"card1": ""}, "choose 1 to 4 cards"),
            ({"card1": hand[0], "card2": hand[1], "play": "maybe"} | {"card3": "10X"}, "not one"),
        ):
            refused = client.post("/play", data={"csrf": token, "number": "0", **bad})
            assert says in refused.text and kind_of(refused.text) == "game"
            assert load_decisions(tmp_path).empty
        pages, turn = [page], 0
        while kind_of(page) == "game":
            if 'name="prophet"' in page or 'name="call"' in page:
                wrong = "call" if 'name="call"' in page else "prophet"
                number = re.search(r'name="number" value="(\d+)"', page).group(1)
                refused = client.post(
                    "/play", data={"csrf": token, "number": number, wrong: "maybe"}
                )
                assert "right or wrong" in refused.text or "yes or no" in refused.text
                reload = client.get("/play").text
                assert re.sub(r'value="[^"]*"', "", reload) == re.sub(r'value="[^"]*"', "", page)
            page = new_eleusis_answer(client, token, page, turn).text
            pages.append(page)
            turn += 1
        assert kind_of(page) == "result" and "Your score" in page
        assert "DONE-42" in play_all(client, token)[-1]
    words = {deal.rule, to_english(parse(deal.rule))}
    assert not [page for page in pages if any(word in page for word in words)]

    decisions = load_decisions(tmp_path)
    kinds = set(decisions["kind"])
    assert {"turn", "prophet", "call"} <= kinds <= {"turn", "prophet", "call", "no_play_call"}
    turns = decisions[decisions["kind"] == "turn"]
    assert turns["card"].isna().any() and turns["card"].str.contains(" ").any()
    prophet = decisions[decisions["kind"] == "prophet"]
    assert prophet["declare"].iloc[0] == 1 and decisions["declare"][turns.index].isna().all()
    calls = decisions[decisions["kind"] == "call"]
    assert set(calls["call"]) <= {0, 1} and calls["card"].notna().all()
    assert (decisions["response_ms"] >= 0).all()
    rows = load_results(tmp_path)
    assert rows["agent"].tolist() == [seat.name for seat in deal.seats]
    assert rows["agent"].iloc[1] == "human" and rows["participant"].iloc[1] == 1
    events = load_events(tmp_path)
    played = turns[turns["card"].notna()].merge(events[events["seat"] == 1], on=["shard", "index"])
    assert len(played) == turns["card"].notna().sum()
    assert all(
        each.card_x.split()[0] == each.card_y for each in played.itertuples()
    )  # a turn's first card is its first event
    records = list((tmp_path / "records").glob("*.json"))
    assert len(records) == 1 and replay(load_record(records[0])) == []


def test_the_prophets_call_of_a_no_play_shows_the_hand_and_takes_right_or_wrong():
    """The Prophet's call of a "no play" (rare with the toolkit's agents, which seldom
    declare one): the seat asks it with the hand, the page shows it, the answer is
    right or wrong and the replay gives it back."""
    from jinja2 import Environment, FileSystemLoader

    from eleusis_lab.cards import parse_cards
    from eleusis_lab.games.new_eleusis import NewEleusisObservation
    from eleusis_lab.web.page import game_page
    from eleusis_lab.web.seat import BadAnswer, ParticipantSeat, Pause, read_answer

    spec = classic_spec(name="people_new", game="new-eleusis", players=3, agents=["random"] * 3)
    study = load_study(study_data(practice=None, blocks=[{"spec": spec, "games": [0]}]))
    deal = study.blocks[0].deals[0]
    seat = ParticipantSeat()
    seat.script([], True)
    info = step(deal, []).ask.info
    seat.start_game(info, None)
    hand = tuple(parse_cards("3H 9C"))
    obs = NewEleusisObservation(
        "new-eleusis", 0, 1, (), tuple(parse_cards("2C")), ((), (), ()), None, prophet=0
    )
    with pytest.raises(Pause) as paused:
        seat.call_no_play(obs, hand)
    ask = paused.value.ask
    with pytest.raises(BadAnswer, match="right or wrong"):
        read_answer(ask, [], {"call": "perhaps"})
    answer = read_answer(ask, [], {"call": "wrong"})
    assert answer["card"] == "3H 9C" and answer["right"] is False
    seat.script([answer], True)
    seat.start_game(info, None)
    assert seat.call_no_play(obs, hand) is False

    page = game_page(deal, ask, [])
    environment = Environment(loader=FileSystemLoader(str(ROOT / "eleusis_lab/web/templates")))
    html = environment.get_template("game.html").render(
        game=page, where={"deal": deal, "index": 1, "total": 1}, study=study, csrf="x"
    )
    assert "declares <strong>no play</strong> with the hand" in html
    assert html.count('title="3♥"') == 1 and 'name="call" value="wrong"' in html
    assert "you are the Prophet" in html


def test_the_serve_command_serves_until_interrupted(tmp_path):
    """``eleusis-lab serve`` in a process of its own, on a free port of 127.0.0.1; Ctrl-C
    (SIGINT) stops it, and the folder records that it stopped."""
    import signal
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    study = ROOT / "experiments/studies/pilot_study.toml"
    command = [sys.executable, "-m", "eleusis_lab", "serve", str(study), "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline, page = time.monotonic() + 60, None
        while page is None and time.monotonic() < deadline and server.poll() is None:
            try:
                address = f"http://127.0.0.1:{port}/?PROLIFIC_PID=served"
                with urllib.request.urlopen(address, timeout=5) as answer:
                    page = answer.read().decode()
            except OSError:
                time.sleep(0.1)
        assert page is not None and "Find the secret rule" in page
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert f"serving at http://127.0.0.1:{port}/" in out.decode(), err.decode()
    assert json.loads((tmp_path / "metadata.json").read_text())["runs"][-1]["status"] == "stopped"
