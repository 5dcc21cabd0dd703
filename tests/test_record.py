"""Game records: JSON round trip, replay that finds tampering, and the table layout."""

import json
from dataclasses import replace

import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Event
from eleusis_lab.cards import Card, parse_card, standard_deck
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.games.classic.record import GameRecord
from eleusis_lab.record import (
    TURN_CAP,
    RecordError,
    card_from_text,
    card_text,
    format_layout,
    read_record,
    replay,
)

RULES = [
    "color(card) != color(last)",
    "suit(card) == (suit(last) + 1) mod 4",
    "if last_play_right then red(card) else black(card)",
    "rank(card) != rank(last) and suit(card) != suit(prev)",
]


def game(seed=3, rule=RULES[0], n=3, config=None):
    agents = [OracleAgent() if seat == 0 else RandomAgent() for seat in range(n)]
    return play_classic(rule, agents, seed, config)


# -- JSON ----------------------------------------------------------------------------------


def test_json_round_trip():
    record = game()
    text = record.to_json()
    again = GameRecord.from_json(text)
    assert again == record
    assert again.to_json() == text
    data = json.loads(text)
    assert data["starter"] == str(record.starter)
    assert data["events"][0] == {
        "seat": 0,
        "card": str(record.events[0].card),
        "phase": 1,
        "right": record.events[0].right,
        "position": 0,
    }
    assert data["agents"][0] == {
        "name": "OracleAgent",
        "spec": "eleusis_agents.simple:OracleAgent",
        "params": {"choice": "random"},
        "sees_rule": True,  # the oracle is told the rule: marked
    }
    assert data["config"] == {
        "hand_size": None,
        "retry_in_turn": False,
        "max_turns": 1000,
        "on_fault": "substitute",
        "decision_seconds": None,
        "decision_limit": 60.0,
    }


def test_save_and_load(tmp_path):
    record = game(config=ClassicConfig(hand_size=6, retry_in_turn=True))
    path = tmp_path / "game.json"
    record.save(path)
    assert GameRecord.load(path) == record


def test_cards_keep_their_copy():
    assert card_text(Card(10, 2)) == "10H"
    assert card_from_text("10H#1") == Card(10, 2, copy=1)
    for card in (Card(1, 0), Card(13, 3, copy=1), parse_card("10D")):
        assert card_from_text(card_text(card)) == card


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "invalid JSON"),
        ("[]", "not an object"),
        ('{"format": 1}', "field 'game' is missing"),
        ('{"format": 99}', "unknown game record format 99"),
    ],
)
def test_bad_json_raises_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(text)


def test_bad_card_in_json(tmp_path):
    data = json.loads(game().to_json())
    data["starter"] = "1X"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"bad\.json: not a game record: not a card: '1X'"):
        GameRecord.load(path)


# -- replay --------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_replay_accepts_real_games(rule):
    for seed in range(15):
        config = ClassicConfig(retry_in_turn=seed % 2 == 1, max_turns=5 + seed)
        record = game(seed, rule, n=2 + seed % 4, config=config)
        assert replay(record) == []
        assert replay(GameRecord.from_json(record.to_json())) == []


def test_replay_accepts_a_turn_cap_game():
    for seed in range(30):
        record = game(seed, RULES[0], config=ClassicConfig(max_turns=1))
        if record.turn_cap_hit:
            assert record.phase2_end == TURN_CAP
            assert replay(record) == []
            break
    else:
        pytest.fail("no game hit the cap")


def tamper_event(record, index, **changes):
    events = list(record.events)
    events[index] = replace(events[index], **changes)
    return record.replace(events=tuple(events))


def test_replay_finds_a_tampered_verdict():
    record = game()
    index = 5
    flipped = tamper_event(record, index, right=not record.events[index].right)
    problems = replay(flipped)
    assert len(problems) == 1
    assert problems[0].startswith(f"event {index} (seat ")
    assert "recorded" in problems[0] and "but the rule says" in problems[0]


def test_replay_finds_tampered_scores():
    record = game()
    problems = replay(record.replace(dealer_score=record.dealer_score + 1))
    assert problems == [
        f"dealer score: recorded {record.dealer_score + 1}, the wrong-card counts after"
        f" phase 1 give {record.dealer_score}"
    ]
    scores = list(record.player_scores)
    scores[1] += 2
    problems = replay(record.replace(player_scores=tuple(scores)))
    assert len(problems) == 1 and problems[0].startswith("player scores: recorded")


def test_replay_finds_a_card_not_held():
    record = game()
    event = record.events[0]
    stranger = next(card for card in record.deal[1] if card != event.card)
    problems = replay(tamper_event(record, 0, card=stranger))
    assert problems[0].startswith("event 0") and "does not hold that card" in problems[0]


def test_replay_finds_wrong_turn_order_and_positions():
    record = game()
    problems = replay(tamper_event(record, 2, seat=(record.events[2].seat + 1) % 3))
    assert problems[0].startswith("event 2") and "should play" in problems[0]
    problems = replay(tamper_event(record, 4, position=record.events[4].position + 1))
    assert problems[0].startswith("event 4") and "position" in problems[0]


def test_replay_finds_a_tampered_deal_and_end():
    record = game()
    hands = list(record.deal)
    hands[0], hands[1] = hands[1], hands[0]
    assert "not those dealt by seed" in " ".join(replay(record.replace(deal=tuple(hands))))
    problems = replay(record.replace(phase2_end=TURN_CAP, turn_cap_hit=True))
    assert any(p.startswith("phase 2 end: recorded 'turn_cap'") for p in problems)


def test_replay_finds_a_truncated_record():
    record = game()
    phase2 = [i for i, e in enumerate(record.events) if e.phase == 2]
    cut = phase2[0] if phase2 else len(record.events) - 1
    problems = replay(record.replace(events=record.events[:cut]))
    assert problems


def test_replay_finds_play_after_the_end():
    record = game()
    assert record.phase2_end != TURN_CAP
    seat = next(s for s, left in enumerate(record.cards_left) if left)
    played = [e.card for e in record.events if e.phase == 2 and e.right and e.seat == seat]
    card = next(c for c in record.wrong_after_phase1[seat] if c not in played)
    extra = Event(seat, card, 2, False, len(record.main_line) - 1)
    problems = replay(record.replace(events=(*record.events, extra)))
    assert problems and "phase 2 goes on" in problems[0]


def test_replay_of_a_bad_rule_text():
    record = game()
    assert replay(record.replace(rule="rank(card) >"))[0].startswith("the rule does not parse")


# -- layout --------------------------------------------------------------------------------


def column_of(layout: str, position: int, columns: int = 13) -> tuple[str, list[str]]:
    """The main-line card at ``position`` and the cells under it, read back from the text."""
    lines = layout.splitlines()
    blocks = [i for i, line in enumerate(lines) if line.startswith("position")]
    start = blocks[position // columns]
    offset = 8 + 5 * (position % columns)
    main = lines[start + 1][offset : offset + 5].strip()
    under = []
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        under.append(line[offset : offset + 5].strip())
    return main, [cell for cell in under if cell]


def test_layout_shows_the_main_line_and_the_wrong_cards_under_their_positions():
    record = game(seed=11, rule=RULES[1], config=ClassicConfig(max_turns=40))
    layout = format_layout(record)
    for position, card in enumerate(record.main_line):
        main, under = column_of(layout, position)
        assert main == str(card)
        expected = [
            f"{e.card}{'*' if e.phase == 2 else ''}"
            for e in record.events
            if not e.right and e.position == position
        ]
        assert under == expected[:12] if len(expected) <= 12 else under[:11] == expected[:11]
    assert f"dealer score: {record.dealer_score}" in layout
    for seat, score in enumerate(record.player_scores):
        row = next(line for line in layout.splitlines() if line.startswith(f"{seat:>4}  "))
        assert row.split()[-1] == f"{score:g}"


def test_layout_fits_a_terminal():
    for seed in range(10):
        layout = format_layout(game(seed, RULES[2]))
        assert max(len(line) for line in layout.splitlines()) <= 100


# -- faults --------------------------------------------------------------------------------


class Fumbles(RandomAgent):
    """Raises at every fourth decision and plays a card it does not hold at every fifth."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.count_ = 0

    def choose_play(self, obs):
        self.count_ += 1
        if self.count_ % 4 == 0:
            raise ValueError("fumbled")
        if self.count_ % 5 == 0:
            return next(c for c in standard_deck() if c not in obs.hand)
        return super().choose_play(obs)


class Deaf(RandomAgent):
    def observe(self, event):
        if event.phase == 2:
            raise KeyError("phase 2")


def faulty_game(seed=3, config=None):
    config = config or ClassicConfig(retry_in_turn=True, max_turns=50)
    return play_classic(RULES[1], [Fumbles(), Deaf(), RandomAgent()], seed, config)


def test_json_round_trip_keeps_faults(tmp_path):
    record = faulty_game()
    kinds = {(f.kind, f.call) for f in record.faults}
    assert {("raised", "choose_play"), ("illegal_card", "choose_play")} <= kinds
    again = GameRecord.from_json(record.to_json())
    assert again == record and again.faults == record.faults
    data = json.loads(record.to_json())
    assert data["format"] == 2
    first = record.faults[0]
    assert data["faults"][0] == {
        "seat": first.seat,
        "agent": first.agent,
        "kind": first.kind,
        "message": first.message,
        "event": first.event,
        "phase": first.phase,
        "call": first.call,
    }
    record.save(tmp_path / "faulty.json")
    assert GameRecord.load(tmp_path / "faulty.json") == record


def test_a_format_1_record_reads_with_no_faults():
    data = json.loads(game().to_json())
    data["format"] = 1
    del data["faults"]
    record = GameRecord.from_dict(data)
    assert record.faults == () and record == game()


def test_replay_accepts_games_with_faults():
    for seed in range(20):
        config = ClassicConfig(retry_in_turn=seed % 2 == 1, max_turns=10 + seed)
        record = faulty_game(seed, config)
        assert record.faults
        assert replay(record) == []
        assert replay(GameRecord.from_json(record.to_json())) == []


def substituted_fault(record):
    return next(f for f in record.faults if f.substituted)


def test_replay_finds_a_substitute_that_is_not_the_first_card():
    record = faulty_game()
    fault = substituted_fault(record)
    event = record.events[fault.event]
    held = record.deal[event.seat] if event.phase == 1 else record.wrong_after_phase1[event.seat]
    # Another card of the same verdict, so that only the substitution rule is broken.
    other = next(
        e.card
        for e in record.events[fault.event + 1 :]
        if e.seat == event.seat
        and e.phase == event.phase
        and e.right == event.right
        and e.card in held
        and e.card != event.card
    )
    problems = replay(tamper_event(record, fault.event, card=other))
    assert problems and problems[0].startswith(f"event {fault.event} ")
    assert f"after a {fault.kind} fault the engine plays the first card" in problems[0]


def tamper_fault(record, index, **changes):
    faults = list(record.faults)
    faults[index] = replace(faults[index], **changes)
    return record.replace(faults=tuple(faults))


def test_replay_finds_tampered_faults():
    record = faulty_game()
    index = record.faults.index(substituted_fault(record))
    fault = record.faults[index]
    other_seat = (fault.seat + 1) % 3
    problems = replay(
        tamper_fault(record, index, seat=other_seat, agent=record.agents[other_seat]["name"])
    )
    assert any(f"fault names seat {other_seat}" in p for p in problems)
    problems = replay(tamper_fault(record, index, agent="Somebody"))
    assert problems == [
        f"fault {index} ({fault.kind} in choose_play, seat {fault.seat}): names agent"
        f" 'Somebody', but seat {fault.seat} is '{fault.agent}'"
    ]
    problems = replay(tamper_fault(record, index, event=len(record.events) + 5))
    assert any("is not in the record" in p for p in problems)
    problems = replay(tamper_fault(record, index, kind="sulked"))
    assert any("unknown kind 'sulked'" in p for p in problems)
    problems = replay(tamper_fault(record, 0, call="observe", kind="illegal_card"))
    assert any("observe cannot fault with 'illegal_card'" in p for p in problems)
    problems = replay(record.replace(faults=tuple(reversed(record.faults))))
    assert any("not in the order of the events" in p for p in problems)


def test_replay_checks_faults_against_the_options():
    record = faulty_game()
    raising = record.replace(config={**record.config, "on_fault": "raise"})
    assert "with on_fault='raise' a fault ends the game" in replay(raising)[-1]
    slow = play_classic(
        RULES[0], [RandomAgent(), RandomAgent()], 1, ClassicConfig(decision_seconds=1e-9)
    )
    assert replay(slow) == []
    unbudgeted = slow.replace(config={**slow.config, "decision_seconds": None})
    assert replay(unbudgeted) == ["an over_time fault is recorded, but the game had no time budget"]


def test_layout_lists_the_faults_under_the_scores():
    record = faulty_game()
    lines = format_layout(record).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("faults: "))
    assert lines[start - 1].startswith("phase 2 ended after")
    assert lines[start] == (
        f"faults: {len(record.faults)} (each faulty choice replaced by the first card the"
        " player could play)"
    )
    raised = [f for f in record.faults if f.kind == "raised" and f.call == "choose_play"]
    row = next(line for line in lines[start:] if "choose_play raised" in line)
    assert row.startswith(f"  seat 0 Fumbles: choose_play raised x{len(raised)} (events ")
    assert row.endswith("ValueError: fumbled")
    observe = next(line for line in lines[start:] if "observe raised" in line)
    assert (
        observe.startswith("  seat 1 Deaf: observe raised x") and "KeyError: 'phase 2'" in observe
    )
    assert max(len(line) for line in lines) <= 100
    assert "faults" not in format_layout(game())


def test_every_game_record_shows_itself_in_jupyter():
    from eleusis_lab.games.delphi import play_delphi
    from eleusis_lab.games.new_eleusis import play_new_eleusis
    from eleusis_lab.games.solo import play_solo
    from eleusis_lab.secrets.agent import parse_secrets_agent_list
    from eleusis_lab.secrets.game import play_secrets

    records = [
        play_classic("red(card)", [RandomAgent(), RandomAgent()], seed=4),
        play_delphi("red(card)", [RandomAgent(), OracleAgent()], seed=4),
        play_new_eleusis("red(card)", [RandomAgent() for _ in range(3)], seed=4),
        play_solo("red(card)", OracleAgent(), seed=4),
        play_secrets(parse_secrets_agent_list(",".join(["secrets-random"] * 4)), seed=4),
    ]
    for record in records:
        page = record._repr_html_()
        assert f"seed {record.seed}" in page and page.startswith("<")


def test_a_record_of_no_registered_game_is_refused_by_name():
    with pytest.raises(RecordError, match=r"the game 'chess' is none of classic, delphi"):
        read_record('{"format": 2, "game": "chess", "rule": "red(card)"}')
    with pytest.raises(RecordError, match="the field 'game' is missing"):
        read_record('{"format": 2, "rule": "red(card)"}')
