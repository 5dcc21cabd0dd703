"""Secrets (RULES.md section 4): every rule on hand-built positions, the engine, the record.

Positions are written with `SecretsState.from_layout`: ``"JH"`` is a piece, ``"7C"`` a
face-up card, ``"?QS"`` a secret face down, ``"7C?QS"`` a card covering a secret.
Seat 0 is hearts (row a), 1 diamonds (b), 2 clubs (c), 3 spades (d).
"""

import ast
import json
import time
from collections import Counter
from pathlib import Path

import matplotlib
import pytest

import eleusis_lab.secrets
from eleusis_lab.cards import Card, parse_card, parse_cards, standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.record import OVER_TIME, RAISED, RecordError
from eleusis_lab.secrets.agent import make_secrets_agent
from eleusis_lab.secrets.draw import format_secrets_layout
from eleusis_lab.secrets.game import (
    NO_PIECES,
    TURN_CAP,
    SecretsAgent,
    SecretsConfig,
    SecretsRecord,
    SecretsState,
    draw_secrets_board,
    format_secrets_board,
    play_secrets,
    replay_secrets,
    secrets_deal,
)
from eleusis_lab.secrets.moves import (
    SECRET_SQUARES,
    SKIP,
    SecretsAction,
    effect_text,
    parse_action,
    parse_square,
    score_cents,
    secrets_ranks,
    secrets_score,
    square_name,
)
from eleusis_lab.secrets.record import ILLEGAL_ACTION

matplotlib.use("Agg")
DECK = Counter(standard_deck())


def card(text):
    return parse_card(text)


def actions(state):
    return [str(action) for action in state.legal_actions()]


def play(state, text, beat=None):
    """Apply the action written ``text`` (it must be legal) and return the effects as text."""
    action = parse_action(text)
    assert action in state.legal_actions(), f"{text} is not legal: {actions(state)}"
    return [effect_text(effect) for effect in state.apply(action, beat)]


def four(hearts="", diamonds="", clubs="", spades=""):
    return [hearts, diamonds, clubs, spades]


# -- the set-up -----------------------------------------------------------------------------


def test_setup_follows_the_rules():
    state = secrets_deal(11)
    for row, suit in enumerate("HDCS"):
        assert state.occupants[8 * row] == card("K" + suit)  # a1, b1, c1, d1
        assert state.occupants[8 * row + 1] == card("J" + suit)  # a2, b2, ...
    assert [square_name(sq) for sq in SECRET_SQUARES] == [
        "a5",
        "a6",
        "b5",
        "b6",
        "c5",
        "c6",
        "d5",
        "d6",
    ]
    secrets = [state.secrets[sq] for sq in SECRET_SQUARES]
    assert sorted(secrets) == sorted(parse_cards("AC AD AH AS QC QD QH QS"))
    face_up = [c for c in state.board if c is not None]
    assert len(face_up) == 24 and all(2 <= c.rank <= 10 for c in face_up)
    assert all(state.board[sq] is not None for sq in SECRET_SQUARES)  # covered
    assert [len(hand) for hand in state.hands] == [3, 3, 3, 3]
    assert state.cards() == DECK
    assert state.seat == 0 and state.active(0) == parse_square("a2")


def test_setups_differ_by_seed_and_repeat():
    assert secrets_deal(1).board == secrets_deal(1).board
    assert secrets_deal(1).board != secrets_deal(2).board


# -- moves ----------------------------------------------------------------------------------


def test_move_to_an_empty_square():
    state = SecretsState.from_layout({"b3": "JD"}, seat=1)
    assert actions(state) == ["a3", "b4", "c3", "b2"]
    assert play(state, "b4") == []
    assert state.active(1) == parse_square("b4") and state.occupants[parse_square("b3")] is None


def test_never_onto_a_jack_or_king_even_own():
    state = SecretsState.from_layout({"a2": "JH", "a1": "KH", "a3": "JS", "b2": "KD"})
    assert actions(state) == []  # walled in, no ace or queen: a forced skip


def test_own_suit_card_is_captured():
    state = SecretsState.from_layout({"a2": "JH", "a3": "7H"})
    assert play(state, "a3") == ["capture 7H"]
    assert state.hands[0] == [card("7H")] and state.board[parse_square("a3")] is None


def test_duel_not_beaten_piece_moves_in():
    state = SecretsState.from_layout({"a2": "JH", "a3": "7C"}, four("5D 2S", clubs="9D"))
    assert actions(state) == ["a3/5D", "a3/2S", "b2", "a1"]
    duel = parse_action("a3/5D")
    assert state.defender(duel) == 2 and state.beating_cards(duel) == (card("9D"),)
    assert play(state, "a3/5D") == ["send 5D", "discard 7C"]
    assert state.active(0) == parse_square("a3")
    assert state.hands[0] == [card("2S")]
    assert state.hands[2] == [card("9D"), card("5D")]  # the defender keeps the card sent
    assert state.out == [card("7C")]


def test_duel_beaten_both_cards_to_the_mover_piece_stays():
    state = SecretsState.from_layout(
        {"a2": "JH", "a3": "7C", "c1": "KC"}, four("5D 2S", clubs="9D 3D")
    )
    assert play(state, "a3/5D", beat=card("9D")) == ["send 5D", "beat 9D"]
    assert state.active(0) == parse_square("a2")
    assert state.board[parse_square("a3")] == card("7C")
    assert state.hands[0] == parse_cards("2S 5D 9D") and state.hands[2] == [card("3D")]
    assert state.seat == 2  # the turn ended


def test_beating_order_is_two_to_ten_then_j_q_k_a():
    state = SecretsState.from_layout(
        {"a2": "JH", "a3": "7C"}, four("KS 10S 3S", clubs="JS QS AS 2S")
    )
    assert state.beating_cards(parse_action("a3/KS")) == (card("AS"),)
    assert state.beating_cards(parse_action("a3/10S")) == tuple(parse_cards("JS QS AS"))
    assert state.beating_cards(parse_action("a3/3S")) == tuple(parse_cards("JS QS AS"))
    state = SecretsState.from_layout({"a2": "JH", "a3": "7C"}, four("AS", clubs="KS QS"))
    assert state.beating_cards(parse_action("a3/AS")) == ()  # an ace is never beaten


def test_duel_impossible_with_an_empty_hand_then_a_forced_skip():
    state = SecretsState.from_layout({"a1": "JH", "a2": "7C", "b1": "9S"})
    assert actions(state) == []
    state.hands[0].append(card("2D"))
    assert actions(state) == ["a2/2D", "b1/2D"]


def test_leaving_the_board_then_the_king_moves():
    state = SecretsState.from_layout({"a8": "JH", "a1": "KH", "c3": "JC"})
    assert "out" in actions(state)
    assert play(state, "out") == ["leave JH"]
    assert state.hands[0] == [card("JH")] and state.pieces[0] == [None, 0]
    state.seat = 0
    assert state.active() == 0 and actions(state) == ["a2", "b1"]


def test_only_column_8_leaves():
    state = SecretsState.from_layout({"a7": "JH"})
    assert "out" not in actions(state)


# -- special moves --------------------------------------------------------------------------


def test_ace_kills_an_adjacent_enemy_and_is_kept():
    state = SecretsState.from_layout(
        {"b4": "JD", "b5": "JS", "a4": "KD"}, four(diamonds="AC"), seat=1
    )
    assert actions(state) == ["kill b5", "c4", "b3"]  # own king a4: no kill
    assert play(state, "kill b5") == ["kill JS"]
    assert state.occupants[parse_square("b5")] is None and state.pieces[3] == [None, None]
    assert state.out == [card("JS")] and state.hands[1] == [card("AC")]  # not spent


def test_ace_spent_with_the_option():
    state = SecretsState.from_layout(
        {"b4": "JD", "b5": "JS"}, four(diamonds="AC AH"), seat=1, spend_special=True
    )
    assert [a for a in actions(state) if a.startswith("kill")] == ["kill b5 AC", "kill b5 AH"]
    assert play(state, "kill b5 AH") == ["kill JS", "spend AH"]
    assert state.hands[1] == [card("AC")] and state.out == parse_cards("JS AH")


def test_queen_takes_a_piece_of_its_suit_into_hand():
    state = SecretsState.from_layout({"a4": "JH", "a5": "JS", "b4": "KD"}, four("QS"))
    assert "take a5 QS" in actions(state) and not any("b4" in a for a in actions(state))
    assert play(state, "take a5 QS") == ["take JS"]
    assert state.hands[0] == parse_cards("QS JS") and state.pieces[3] == [None, None]


def test_queen_takes_the_own_king_unless_the_option_says_no():
    layout = {"a2": "JH", "a1": "KH"}
    assert "take a1 QH" in actions(SecretsState.from_layout(layout, four("QH")))
    no_own = SecretsState.from_layout(layout, four("QH"), queen_takes_own=False)
    assert "take a1 QH" not in actions(no_own)


def test_queen_spent_with_the_option():
    state = SecretsState.from_layout({"a4": "JH", "a5": "KS"}, four("QS"), spend_special=True)
    assert play(state, "take a5 QS") == ["take KS", "spend QS"]
    assert state.hands[0] == [card("KS")] and state.out == [card("QS")]


# -- secrets and face-up aces ---------------------------------------------------------------


@pytest.mark.parametrize("secret", ["QS", "QH", "AH"])
def test_queen_or_own_ace_secret_goes_to_hand_piece_stays(secret):
    state = SecretsState.from_layout({"a4": "JH", "a5": "3H?" + secret})
    assert play(state, "a5") == ["capture 3H", f"secret {secret}"]
    assert state.active(0) == parse_square("a5") and state.hands[0] == parse_cards("3H " + secret)
    assert state.secrets[parse_square("a5")] is None and state.board[parse_square("a5")] is None


def test_enemy_ace_secret_kills_the_piece_and_stays_face_up():
    state = SecretsState.from_layout({"a4": "JH", "a1": "KH", "a5": "9C?AS"}, four("2D"))
    assert play(state, "a5/2D") == ["send 2D", "discard 9C", "secret AS", "die JH"]
    assert state.board[parse_square("a5")] == card("AS")
    assert state.occupants[parse_square("a5")] is None
    assert state.pieces[0] == [None, 0]  # the player goes on with his king
    assert card("JH") in state.out


def test_face_up_ace_taken_by_its_suit_kills_others():
    own = SecretsState.from_layout({"d4": "JS", "d5": "AS"}, seat=3)
    assert play(own, "d5") == ["ace AS"]
    assert own.hands[3] == [card("AS")] and own.active(3) == parse_square("d5")
    other = SecretsState.from_layout({"a4": "JH", "a5": "AS", "b4": "9C"})
    assert actions(other) == ["a5", "a3"]  # b4 is a duel, impossible with no card
    assert play(other, "a5") == ["die JH"]
    assert other.board[parse_square("a5")] == card("AS") and other.pieces[0] == [None, None]


def test_forced_onto_a_face_up_ace_when_nothing_else():
    state = SecretsState.from_layout({"a1": "JH", "a2": "AS", "b1": "KD"})
    assert actions(state) == ["a2"]


# -- turns and the end ----------------------------------------------------------------------


def test_seats_without_pieces_are_passed_over():
    state = SecretsState.from_layout({"a3": "JH", "d3": "JS"})
    play(state, "a4")
    assert state.seat == 3


def test_blocked_when_every_piece_left_skipped():
    state = SecretsState.from_layout({"a1": "JH", "a2": "7C", "b1": "9S"})
    assert actions(state) == [] and not state.blocked
    state.apply(SecretsAction(SKIP))
    assert state.blocked and not state.over


def test_game_over_when_no_piece_is_left():
    state = SecretsState.from_layout({"a8": "KH"}, four("JH"))
    play(state, "out")
    assert state.over and state.scores()[0] == 1001.0


# -- scoring --------------------------------------------------------------------------------


def test_card_points_and_the_tie_break():
    assert secrets_score(parse_cards("JH")) == 1000
    assert secrets_score(parse_cards("QH AS KD 2C 10C")) == 111.02
    assert score_cents(parse_cards("QH QS")) == 20000
    # ten aces could not match a queen, 36 plain cards not a king: the order is lexicographic
    assert secrets_score(parse_cards("QS")) > secrets_score(parse_cards("AC AD AH AS KS"))
    # equal J/Q/A/K: the plain cards break the tie; all equal: a shared place
    assert secrets_ranks([1000.02, 1000.03, 1000.03, 10.0]) == (3, 1, 1, 4)
    assert secrets_ranks([0.1 + 0.2, 0.3, 0.0, 0.0]) == (1, 1, 3, 3)


# -- the engine -----------------------------------------------------------------------------


class Script(SecretsAgent):
    """Plays the first legal action; beats every duel it can; counts what it is asked."""

    def __init__(self, beat=True):
        self.beat = beat

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.asked_ = []
        self.duels_ = []
        self.steps_ = 0

    def choose_action(self, view, legal):
        assert view.seat == view.to_move == self.info_.seat
        self.asked_.append(len(legal))
        return legal[0]

    def answer_duel(self, view, duel):
        assert duel.options and view.seat != duel.mover
        self.duels_.append(duel)
        return self.beat

    def observe(self, step):
        self.steps_ += 1


def test_engine_asks_only_when_there_is_a_choice_and_records_every_turn():
    agents = [Script() for _ in range(4)]
    record = play_secrets(agents, seed=5)
    assert replay_secrets(record) == []
    assert all(agent.steps_ == record.turns for agent in agents)
    asked = sum(len(agent.asked_) for agent in agents)
    skips = sum(step.action.kind == SKIP for step in record.steps)
    assert asked + skips == record.turns and all(n >= 1 for a in agents for n in a.asked_)
    duels = [duel for agent in agents for duel in agent.duels_]
    beaten = [step for step in record.steps if step.beat is not None]
    assert len(beaten) == len(duels) > 0  # True beats with the lowest option
    assert all(
        step.beat == min(d.options, key=lambda c: (c.rank == 1, c.rank))
        for step, d in zip(beaten, duels, strict=True)
    )


def test_same_seed_same_game():
    first = play_secrets([make_secrets_agent("secrets-random") for _ in range(4)], seed=9)
    again = play_secrets([make_secrets_agent("secrets-random") for _ in range(4)], seed=9)
    other = play_secrets([make_secrets_agent("secrets-random") for _ in range(4)], seed=10)
    assert first == again and first.steps != other.steps


def test_turn_cap_is_recorded():
    agents = [make_secrets_agent("secrets-random") for _ in range(4)]
    record = play_secrets(agents, seed=1, config=SecretsConfig(max_turns=10))
    assert record.end == TURN_CAP and record.turn_cap_hit and record.turns == 10
    assert replay_secrets(record) == []
    assert "the turn cap was hit" in format_secrets_board(record)


class Cheat(Script):
    def choose_action(self, view, legal):
        return "a9"


class Raiser(Script):
    def choose_action(self, view, legal):
        raise RuntimeError("boom")

    def answer_duel(self, view, duel):
        raise RuntimeError("no answer")


def test_faults_are_recorded_and_substituted():
    record = play_secrets([Cheat(), Raiser(), Script(), Script()], seed=2)
    assert record.faults and replay_secrets(record) == []
    kinds = Counter((fault.seat, fault.kind, fault.call) for fault in record.faults)
    assert kinds[(0, ILLEGAL_ACTION, "choose_action")] > 0
    assert kinds[(1, RAISED, "choose_action")] > 0
    assert "faults:" in format_secrets_board(record)
    with pytest.raises(AgentError, match="seat 0"):
        play_secrets([Cheat(), Script(), Script(), Script()], 2, SecretsConfig(on_fault="raise"))


class Idler(Script):
    """Tries to pass its turn whenever it has a choice: forced play says it may not."""

    def choose_action(self, view, legal):
        return SecretsAction(SKIP)


class Slow(Script):
    def choose_action(self, view, legal):
        time.sleep(0.002)
        return legal[-1]


def test_skipping_at_will_is_a_fault_and_a_legal_action_is_played():
    record = play_secrets([Idler(), Script(), Script(), Script()], seed=6)
    faults = [fault for fault in record.faults if fault.seat == 0]
    assert faults and all(fault.kind == ILLEGAL_ACTION for fault in faults)
    assert all(record.steps[fault.event].action.kind != SKIP for fault in faults)
    assert replay_secrets(record) == []


def test_decisions_over_the_time_budget_are_recorded_and_stand():
    config = SecretsConfig(decision_seconds=0.001, max_turns=12)
    record = play_secrets([Slow(), Script(), Script(), Script()], seed=6, config=config)
    over = [fault for fault in record.faults if fault.kind == OVER_TIME]
    assert over and {fault.seat for fault in over} == {0}
    assert replay_secrets(record) == []
    with pytest.raises(AgentError, match="budget"):
        raising = SecretsConfig(max_turns=12, on_fault="raise", decision_seconds=0.001)
        play_secrets([Slow(), Script(), Script(), Script()], 6, raising)


def test_bad_inputs_raise_config_errors():
    with pytest.raises(ConfigError, match="exactly 4"):
        play_secrets([Script()], seed=0)
    shared = Script()
    with pytest.raises(ConfigError, match="two seats"):
        play_secrets([shared, shared, Script(), Script()], seed=0)
    with pytest.raises(ConfigError, match="max_turns"):
        SecretsConfig(max_turns=-1)
    with pytest.raises(ConfigError, match="seed"):
        play_secrets([Script() for _ in range(4)], seed=-1)


# -- invariants over many seeded games ------------------------------------------------------


def _walk(record):
    """Replay a record step by step, checking the cards and the squares after each step."""
    state = record.state(0)
    for step in record.steps:
        state.apply(step.action, step.beat)
        assert state.cards() == DECK  # every one of the 52 cards is somewhere, once
        squares = [sq for pair in state.pieces for sq in pair if sq is not None]
        assert len(squares) == len(set(squares))  # two pieces never share a square
        assert all(state.occupants[sq] is not None for sq in squares)
        assert sum(piece is not None for piece in state.occupants) == len(squares)
        assert all(state.board[sq] is None for sq in squares)  # a piece covers no card
    return state


@pytest.mark.parametrize(
    "lineup",
    [
        ["secrets-random"] * 4,
        ["secrets-heuristic", "secrets-random", "secrets-heuristic", "secrets-random"],
        ["secrets-heuristic"] * 4,
    ],
)
def test_invariants_over_seeded_games(lineup):
    for seed in range(12):
        record = play_secrets([make_secrets_agent(name) for name in lineup], seed)
        assert record.end == NO_PIECES and not record.turn_cap_hit  # every game ends
        assert record.turns < SecretsConfig().max_turns // 3
        final = _walk(record)
        assert final.over and replay_secrets(record) == []
        assert SecretsRecord.from_json(record.to_json()) == record


def test_search_games_end_too():
    agents = [make_secrets_agent("secrets-search", budget=2, horizon=4)] + [
        make_secrets_agent("secrets-heuristic") for _ in range(3)
    ]
    record = play_secrets(agents, seed=3)
    assert record.end == NO_PIECES and replay_secrets(record) == []
    _walk(record)


# -- the record -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record():
    return play_secrets([make_secrets_agent("secrets-heuristic") for _ in range(4)], seed=4)


def test_record_json_round_trip_and_files(record, tmp_path):
    data = json.loads(record.to_json())
    assert data["game"] == "secrets" and data["seed"] == 4 and len(data["steps"]) == record.turns
    path = tmp_path / "game.json"
    record.save(path)
    assert SecretsRecord.load(path) == record
    with pytest.raises(RecordError, match="invalid JSON"):
        SecretsRecord.from_json("{")
    with pytest.raises(RecordError, match="missing"):
        SecretsRecord.from_json('{"format": 1, "game": "secrets"}')


def test_replay_finds_what_was_changed(record):
    steps = list(record.steps)
    first = steps[0]
    steps[0] = first.__class__(first.seat, first.piece, first.start, parse_action("skip"), None, ())
    assert "a skip, but" in replay_secrets(record.replace(steps=tuple(steps)))[0]
    assert "set-up" in replay_secrets(record.replace(seed=record.seed + 1))[0]
    assert "ranks" in replay_secrets(record.replace(ranks=(1, 1, 1, 1)))[-1]
    cut = record.replace(steps=record.steps[:5])
    assert any("stops" in problem for problem in replay_secrets(cut))


def test_layout_and_drawing(record):
    text = format_secrets_board(record)
    assert text.startswith("Secrets, seed 4")
    assert "final position:" in text and "the game ended after" in text
    assert f"{record.turns:>5}  " in text
    assert format_secrets_layout(record, 13, 12) == text
    short = format_secrets_board(record, log=False)
    assert "\nturns:\n" in text and "\nturns:\n" not in short
    view = format_secrets_board(secrets_deal(4).view(2))
    assert "seen by clubs" in view and "?? ?? ??" in view
    ax = draw_secrets_board(record.state(10))
    assert ax.get_title().startswith("Secrets, turn 10")
    assert draw_secrets_board(record).get_title().endswith("game over")
    assert draw_secrets_board(secrets_deal(1).view(0)) is not None
    import matplotlib.pyplot as plt

    plt.close("all")


def test_action_text_round_trip():
    for text in ["a3", "d8/10C", "out", "skip", "kill b2", "kill b2 AS", "take c4 QD"]:
        assert str(parse_action(text)) == text
    for bad in ["e1", "a3/1X", "kill", "jump a3", ""]:
        with pytest.raises(ValueError):
            parse_action(bad)
    assert isinstance(parse_action("a3/5C").card, Card)


# -- the package ------------------------------------------------------------------------------

#: What Secrets may import of the toolkit: the kernel, never a game of the Eleusis family.
KERNEL = {
    "eleusis_lab.agent",
    "eleusis_lab.cards",
    "eleusis_lab.engines",  # what every engine shares: seeds and faults
    "eleusis_lab.errors",
    "eleusis_lab.games.driver",  # the one loop of every game's engine and replay
    "eleusis_lab.games.state",  # the contract of every game's positions
    "eleusis_lab.games.table",
    "eleusis_lab.record",
    "eleusis_lab.registry",
    "eleusis_lab.runner",
}


def test_secrets_rests_on_the_kernel_only():
    package = Path(eleusis_lab.secrets.__file__).parent
    imported = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    toolkit = {name for name in imported if name.split(".")[0] == "eleusis_lab"}
    outside = {name for name in toolkit if not name.startswith("eleusis_lab.secrets")}
    assert outside <= KERNEL, sorted(outside - KERNEL)
