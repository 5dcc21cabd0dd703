"""The 4-8 player variant (RULES.md section 2): deck table, invariants, records, faults, match.

The games are checked by an independent step-by-step walk (not the module's replay):
after every event each card of the table's deck (duplicates included) is in exactly one
place, verdicts match the rule, the agents saw the true state (their hand, or their
wrong cards once the hand is empty), and the end of phase 2 and the scores follow from
the plays.
"""

import json
import re
from collections import Counter
from itertools import chain

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card, seed004_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT, GameRecord
from eleusis_lab.games.four_to_eight import (
    PLAYERS,
    FourToEightConfig,
    FourToEightMatch,
    deck_plan,
    format_four_to_eight_layout,
    four_to_eight_deal,
    play_four_to_eight,
    play_four_to_eight_match,
    replay_four_to_eight,
)
from eleusis_lab.games.four_to_eight.scoring import (
    four_to_eight_dealer_score,
    four_to_eight_player_scores,
)
from eleusis_lab.games.table import GAMES
from eleusis_lab.record import TURN_CAP, format_layout, load_record, replay
from eleusis_lab.rules import Context, parse
from eleusis_lab.testing import CheckNotes, check_playable_games

RULES = [
    parse(text)
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "if last_play_right then red(card) else black(card)",
        "if even(last) then red(card) else black(card)",
        "suit(card) == rank(last) mod 4",
        "red(card)",
    )
]
# Short hands keep the two-deck games fast; None deals the table's hands.
HAND_SIZES = {3: None, 5: None, 6: None, 7: 6, 8: 5}


class Recording:
    """Mixin: an agent that keeps what it saw, what it chose and every event it was told."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.decisions_ = []
        self.seen_ = []

    def choose_play(self, obs):
        card = super().choose_play(obs)
        self.decisions_.append((obs, card))
        return card

    def observe(self, event):
        self.seen_.append(event)


class Spy(Recording, RandomAgent):
    pass


class OracleSpy(Recording, OracleAgent):
    pass


def lineup(seed, n, spies=True):
    rng = np.random.default_rng(seed + 10_000)
    if spies:
        return [OracleSpy() if rng.random() < 0.3 else Spy() for _ in range(n)]
    return [OracleAgent() if rng.random() < 0.3 else RandomAgent() for _ in range(n)]


def walk(record, rule, agents=None):
    """Replay ``record`` checking every invariant; return the state at the end."""
    n = record.n_players
    deck = Counter(deck_plan(n).cards)
    hands = [list(hand) for hand in record.deal]
    piles = [[] for _ in range(n)]
    main = [record.starter]
    last = None
    decisions = [iter(agent.decisions_) for agent in agents] if agents else None
    wrong_after = None

    def assert_every_card_once():
        places = [*record.unused, *main, *chain(*hands), *chain(*piles)]
        assert Counter(places) == deck and len(places) == sum(deck.values())

    assert_every_card_once()
    for event in record.events:
        if event.phase == 2 and wrong_after is None:
            wrong_after = tuple(map(tuple, piles))
        assert event.phase in (1, 2) and not (event.phase == 1 and wrong_after is not None)
        if event.phase == 2:
            assert not any(hands), "wrong cards were played while cards were in hand"
        # The hand first; the wrong cards only once the hand is empty.
        source = hands[event.seat] if hands[event.seat] else piles[event.seat]
        assert (event.phase == 1) == (source is hands[event.seat])
        assert event.card in source
        if decisions is not None:
            obs, card = next(decisions[event.seat])
            assert card == event.card and obs.phase == event.phase and obs.seat == event.seat
            assert obs.game == "four-to-eight"
            assert obs.hand == tuple(source)
            assert obs.main_line == tuple(main)
            assert obs.wrong_cards == tuple(map(tuple, piles))
            assert obs.last_play_right is last
        right = rule.accepts(event.card, Context(tuple(main), last))
        assert event.right == right
        assert event.position == len(main) - 1
        if event.phase == 1:
            hands[event.seat].remove(event.card)
            (main if right else piles[event.seat]).append(event.card)
        elif right:
            piles[event.seat].remove(event.card)
            main.append(event.card)
        last = right
        assert_every_card_once()
    if wrong_after is None:
        wrong_after = tuple(map(tuple, piles))
    assert not any(hands)
    if decisions is not None:
        assert all(next(it, None) is None for it in decisions)
        assert all(agent.seen_ == list(record.events) for agent in agents)
    return wrong_after, piles, main, last


DEFAULT = FourToEightConfig()


def check_record(record, rule, agents=None, config=DEFAULT):
    wrong_after, piles, main, last = walk(record, rule, agents)
    n = record.n_players
    assert record.game == "four-to-eight"
    assert record.main_line == tuple(main)
    assert record.wrong_after_phase1 == wrong_after
    assert record.cards_left == tuple(len(pile) for pile in piles)
    assert record.dealer_score == four_to_eight_dealer_score([len(p) for p in wrong_after])
    assert list(record.player_scores) == four_to_eight_player_scores(record.cards_left)

    # Turn order: every hand round by round from seat 0, then one card per turn in rotation.
    size = len(record.deal[0])
    assert all(len(hand) == size for hand in record.deal)
    phase1 = [e.seat for e in record.events if e.phase == 1]
    assert phase1 == [seat for _ in range(size) for seat in range(n)]
    phase2 = [e.seat for e in record.events if e.phase == 2]
    assert phase2 == [i % n for i in range(len(phase2))]
    assert len(phase2) == record.phase2_turns <= config.max_turns

    context = Context(tuple(main), last)
    playable = any(rule.accepts(card, context) for pile in piles for card in pile)
    if record.phase2_end == PLAYER_OUT:
        assert not all(piles)
    elif record.phase2_end == NO_PLAYABLE_CARD:
        assert all(piles) and not playable
    else:
        assert record.phase2_end == TURN_CAP
        assert all(piles) and playable and record.phase2_turns == config.max_turns
    assert record.turn_cap_hit == (record.phase2_end == TURN_CAP)
    # Only the player(s) with the fewest cards score.
    fewest = min(record.cards_left)
    for score, left in zip(record.player_scores, record.cards_left, strict=True):
        assert score == 0 or left == fewest


# -- the deck table ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "participants", "cards", "hand"),
    [(3, 4, 52, 17), (5, 5, 51, 10), (6, 6, 49, 8), (7, 7, 99, 14), (8, 8, 97, 12)],
)
def test_the_table_deals_its_rows(players, participants, cards, hand):
    plan = deck_plan(players)
    assert plan == seed004_deck(participants)
    starter, hands, unused = four_to_eight_deal(11, players)
    assert [len(h) for h in hands] == [hand] * players and not unused
    assert Counter([starter, *chain(*hands)]) == Counter(plan.cards)
    assert len(plan.cards) == cards == 1 + players * hand


def test_players_select_a_row_by_its_hands():
    assert PLAYERS == {3: 4, 5: 5, 6: 6, 7: 7, 8: 8}


def test_two_decks_deal_duplicates_and_the_engine_tells_them_apart():
    record = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(7)], 3)
    dealt = [record.starter, *chain(*record.deal)]
    faces = Counter((card.rank, card.suit) for card in dealt)
    assert max(faces.values()) == 2 and any(card.copy == 1 for card in dealt)
    assert len(set(dealt)) == len(dealt) == 99
    check_record(record, RULES[0])
    assert replay(record) == []


def test_a_second_copy_not_held_is_an_illegal_card():
    class OtherCopy(Agent):
        """Plays a copy of a held face that it does not hold, when it can."""

        def choose_play(self, obs):
            for card in obs.hand:
                twin = Card(card.rank, card.suit, 1 - card.copy)
                if twin not in obs.hand:
                    return twin
            return obs.hand[0]

    agents = [OtherCopy()] + [RandomAgent() for _ in range(6)]
    record = play_four_to_eight(RULES[0], agents, 5, FourToEightConfig(hand_size=4))
    faults = [f for f in record.faults if f.seat == 0]
    assert len(faults) == sum(e.seat == 0 for e in record.events)  # never held: replaced
    assert all(f.kind == "illegal_card" for f in faults)
    assert any("copy=1" in f.message for f in faults)
    check_record(record, RULES[0], config=FourToEightConfig(hand_size=4))
    assert replay(record) == []


# -- invariants over many games ------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_invariants_over_seeds(rule):
    ends = Counter()
    for seed in range(15):
        n = sorted(PLAYERS)[seed % 5]
        config = FourToEightConfig(hand_size=HAND_SIZES[n])
        agents = lineup(seed, n)
        record = play_four_to_eight(rule, agents, seed, config)
        check_record(record, rule, agents, config)
        assert replay(record) == []
        ends[record.phase2_end] += 1
    assert not ends[TURN_CAP]


def test_every_end_of_phase2_occurs():
    ends = Counter()
    for seed in range(30):
        for rule in RULES[:4]:
            record = play_four_to_eight(rule, lineup(seed, 3, spies=False), seed)
            ends[record.phase2_end] += 1
    assert ends[PLAYER_OUT] and ends[NO_PLAYABLE_CARD]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    n=st.sampled_from(sorted(PLAYERS)),
    rule=st.sampled_from(RULES),
    hand_size=st.one_of(st.none(), st.integers(1, 5)),
    max_turns=st.integers(0, 30),
)
def test_invariants_property(seed, n, rule, hand_size, max_turns):
    config = FourToEightConfig(hand_size=hand_size, max_turns=max_turns)
    agents = lineup(seed % 1000, n)
    record = play_four_to_eight(rule, agents, seed, config)
    check_record(record, rule, agents, config)
    assert replay(record) == []


def test_everyone_right_means_everyone_out_at_once():
    # Every card is right: no wrong cards when the hands run out, so the game ends there;
    # the three players tie (0 cards) and split 6 + 0.
    record = play_four_to_eight("rank(card) >= 1", [RandomAgent() for _ in range(3)], 0)
    assert record.phase2_end == PLAYER_OUT and record.phase2_turns == 0
    assert record.dealer_score == 0 and record.player_scores == (2.0, 2.0, 2.0)
    assert len(record.main_line) == 52


def test_dealer_score_can_be_negative():
    # The multiplier is N: equal wrong-card counts give a negative dealer score.
    scores = [
        play_four_to_eight(RULES[5], [RandomAgent() for _ in range(3)], seed).dealer_score
        for seed in range(30)
    ]
    assert min(scores) < 0


def test_hand_size_leaves_the_rest_unused():
    config = FourToEightConfig(hand_size=5)
    record = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(5)], 7, config)
    assert [len(hand) for hand in record.deal] == [5] * 5
    assert len(record.unused) == 51 - 1 - 25
    check_record(record, RULES[0], config=config)
    assert replay(record) == []


def test_turn_cap_is_recorded():
    config = FourToEightConfig(max_turns=2)
    hits = 0
    for seed in range(30):
        record = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], seed, config)
        check_record(record, RULES[0], config=config)
        assert replay(record) == []
        if record.turn_cap_hit:
            hits += 1
            assert record.phase2_end == TURN_CAP and record.phase2_turns == 2
            # Scored as if the dealer had declared that no card can be played.
            assert list(record.player_scores) == four_to_eight_player_scores(record.cards_left)
    assert hits > 0


def test_phase2_passes_the_turn_after_a_wrong_card():
    for seed in range(10):
        record = play_four_to_eight(RULES[1], [RandomAgent() for _ in range(3)], seed)
        phase2 = [e for e in record.events if e.phase == 2]
        assert all(a.seat != b.seat for a, b in zip(phase2, phase2[1:], strict=False))


def test_the_bayes_agent_plays_a_game():
    agents = [BayesAgent(grammar="colours_suits", max_hypotheses=500), RandomAgent(), Spy()]
    config = FourToEightConfig(hand_size=8)
    record = play_four_to_eight(RULES[0], agents, 4, config)
    check_record(record, RULES[0], config=config)
    assert record.faults == () and replay(record) == []


# -- seeds and randomness ------------------------------------------------------------------


def test_same_seed_same_record():
    for seed in (0, 1, 99):
        first = play_four_to_eight(RULES[2], [RandomAgent(), OracleAgent(), RandomAgent()], seed)
        again = play_four_to_eight(RULES[2], [RandomAgent(), OracleAgent(), RandomAgent()], seed)
        assert first.to_json() == again.to_json()


def test_different_seeds_differ():
    records = {
        play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], seed).to_json()
        for seed in range(10)
    }
    assert len(records) == 10


def test_reusing_agents_gives_the_same_games():
    agents = [RandomAgent() for _ in range(3)]
    first = [play_four_to_eight(RULES[0], agents, seed).to_json() for seed in range(4)]
    fresh = [
        play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], seed).to_json()
        for seed in range(4)
    ]
    assert first == fresh


def test_agents_are_told_the_deal_and_only_the_oracle_the_rule():
    agents = [Spy(), OracleSpy(), Spy()]
    record = play_four_to_eight(RULES[0], agents, 3)
    for seat, agent in enumerate(agents):
        info = agent.info_
        assert (info.game, info.seat, info.n_players) == ("four-to-eight", seat, 3)
        assert info.hand == record.deal[seat] and info.starter == record.starter
    assert agents[0].info_.rule is None and agents[1].info_.rule == RULES[0]


# -- records: JSON, replay, layout ---------------------------------------------------------


def test_json_round_trip_with_copies(tmp_path):
    record = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(8)], 2)
    text = record.to_json()
    assert "#1" in text  # second-deck cards carry their copy
    again = GameRecord.from_json(text)
    assert again == record and again.to_json() == text
    data = json.loads(text)
    assert data["game"] == "four-to-eight"
    assert data["config"] == {
        "hand_size": None,
        "max_turns": 1000,
        "on_fault": "substitute",
        "decision_seconds": None,
        "decision_limit": 60.0,
    }
    path = tmp_path / "game.json"
    record.save(path)
    assert load_record(path) == record
    assert replay(load_record(path)) == []


def game(seed=3, n=3, rule=RULES[0]):
    agents = [OracleAgent() if seat == 0 else RandomAgent() for seat in range(n)]
    return play_four_to_eight(rule, agents, seed)


def test_replay_catches_tampering():
    record = game()
    assert replay_four_to_eight(record) == []
    first = record.events[0]
    flipped = record.events[0].__class__(
        first.seat, first.card, first.phase, not first.right, first.position
    )
    tampered = {
        "dealer": record.replace(dealer_score=record.dealer_score + 1),
        "scores": record.replace(player_scores=(99.0,) * 3),
        "verdict": record.replace(events=(flipped, *record.events[1:])),
        "starter": record.replace(starter=record.deal[0][0]),
        "end": record.replace(phase2_end=TURN_CAP, turn_cap_hit=True),
        "seed": record.replace(seed=record.seed + 1),
        "rule": record.replace(rule="red(card"),
        "left": record.replace(cards_left=(0, 0, 0)),
        "order": record.replace(events=(record.events[1], record.events[0], *record.events[2:])),
        "short": record.replace(events=record.events[:-1]),
        "hands": record.replace(deal=(record.deal[1], record.deal[0], record.deal[2])),
    }
    for what, bad in tampered.items():
        assert replay(bad), what


def test_replay_names_the_discrepancy():
    record = game()
    problems = replay(record.replace(dealer_score=record.dealer_score + 1))
    assert problems == [
        f"dealer score: recorded {record.dealer_score + 1}, the wrong-card counts after"
        f" phase 1 give {record.dealer_score}"
    ]


def test_replay_of_a_record_with_an_impossible_number_of_hands():
    record = game()
    bad = record.replace(deal=record.deal + ((),), agents=record.agents + (record.agents[0],))
    assert "the table deals 3, 5, 6, 7, 8 hands" in replay(bad)[0]


def test_layout():
    record = game(seed=1, n=5)
    text = format_four_to_eight_layout(record)
    lines = text.splitlines()
    assert lines[0].startswith("four-to-eight Eleusis, seed 1, rule: color(card) != color(last)")
    assert lines[1] == (
        "deck: 51 cards (the 5-participant row of the seed-004 table), the starter and"
        " 5 hands of 10"
    )
    assert f"dealer score: {record.dealer_score}" in lines
    # format_layout lays out a record of any game, this one with its deck line.
    assert format_layout(record).splitlines() == lines


# -- faults --------------------------------------------------------------------------------


class Flaky(RandomAgent):
    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.decisions_ = 0
        self.failed_on_ = []

    def choose_play(self, obs):
        self.decisions_ += 1
        if self.decisions_ % 3 == 0:
            self.failed_on_.append(obs)
            raise ValueError(f"decision {self.decisions_}")
        return super().choose_play(obs)


class Stranger(RandomAgent):
    def choose_play(self, obs):
        return next(c for c in deck_plan(3).cards if c not in obs.hand)


class NotACard(Agent):
    def choose_play(self, obs):
        return str(obs.hand[0])


class Deaf(RandomAgent):
    def observe(self, event):
        raise KeyError(f"cannot hear {event.card}")


class NoStart(RandomAgent):
    def start_game(self, info, rng):
        raise RuntimeError("no start")


def test_an_agent_that_raises_is_replaced_by_its_first_card():
    for seed in range(6):
        agents = [RandomAgent(), Flaky(), RandomAgent()]
        record = play_four_to_eight(RULES[1], agents, seed)
        check_record(record, RULES[1])
        assert replay(record) == []
        assert len(record.faults) == len(agents[1].failed_on_) > 0
        for fault, obs in zip(record.faults, agents[1].failed_on_, strict=True):
            assert (fault.seat, fault.agent, fault.kind, fault.call) == (
                1,
                "Flaky",
                "raised",
                "choose_play",
            )
            assert record.events[fault.event].card == obs.hand[0] and fault.substituted


def test_illegal_cards_and_non_cards_are_recorded_and_replaced():
    record = play_four_to_eight(RULES[0], [Stranger(), NotACard(), RandomAgent()], 1)
    check_record(record, RULES[0])
    assert replay(record) == []
    kinds = Counter((f.seat, f.kind) for f in record.faults)
    assert kinds[0, "illegal_card"] == sum(e.seat == 0 for e in record.events)
    assert kinds[1, "illegal_card"] == sum(e.seat == 1 for e in record.events)
    assert any(re.search(r"played '\w+' \(a str\)", f.message) for f in record.faults)


def test_observe_and_start_game_faults_keep_the_seat():
    record = play_four_to_eight(RULES[3], [Deaf(), NoStart(), RandomAgent()], 2)
    check_record(record, RULES[3])
    assert replay(record) == []
    calls = Counter((f.seat, f.call) for f in record.faults)
    assert calls[0, "observe"] == len(record.events)
    assert calls[1, "start_game"] == 1
    assert calls[1, "choose_play"] == sum(e.seat == 1 for e in record.events)


def test_over_time_keeps_the_card():
    budget = FourToEightConfig(decision_seconds=1e-9)
    timed = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], 4, budget)
    free = play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], 4)
    assert timed.events == free.events and timed.player_scores == free.player_scores
    assert len(timed.faults) == len(timed.events)
    assert all(f.kind == "over_time" and not f.substituted for f in timed.faults)
    assert replay(timed) == []


def test_on_fault_raise_stops_at_the_first_fault():
    stop = FourToEightConfig(on_fault="raise")
    with pytest.raises(ValueError, match="decision 3"):
        play_four_to_eight(RULES[0], [Flaky(), RandomAgent(), RandomAgent()], 0, stop)
    with pytest.raises(AgentError, match=r"seat 1 \(Stranger\(\)\) played Card\("):
        play_four_to_eight(RULES[0], [RandomAgent(), Stranger(), RandomAgent()], 0, stop)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.sampled_from([3, 5, 7]),
    rule=st.sampled_from(RULES),
    faulty=st.lists(st.sampled_from([Flaky, Stranger, NotACard, Deaf, NoStart]), max_size=3),
)
def test_faulty_games_keep_the_invariants(seed, n, rule, faulty):
    config = FourToEightConfig(hand_size=4, max_turns=30)
    agents = [cls() for cls in faulty] + [RandomAgent() for _ in range(n - len(faulty))]
    record = play_four_to_eight(rule, agents, seed, config)
    check_record(record, rule, config=config)
    assert replay(record) == []
    assert [f.event for f in record.faults] == sorted(f.event for f in record.faults)


def test_replay_catches_a_tampered_fault():
    record = play_four_to_eight(RULES[0], [Flaky(), RandomAgent(), RandomAgent()], 0)
    fault = record.faults[0]
    moved = fault.__class__(**{**fault.to_dict(), "seat": 2, "agent": "RandomAgent"})
    assert replay(record.replace(faults=(moved, *record.faults[1:])))


# -- configuration errors ------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 4, 9])
def test_a_number_of_players_outside_the_table(n):
    with pytest.raises(ConfigError, match=r"deals 3, 5, 6, 7, 8 hands .* got " + str(n)):
        play_four_to_eight(RULES[0], [RandomAgent() for _ in range(n)], 0)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda: ([], None), "at least 1 active player"),
        (lambda: ([RandomAgent(), RandomAgent(), "random"], None), "is not an Agent"),
        (lambda: ([RandomAgent()] * 3, None), "same agent object"),
        (
            lambda: ([RandomAgent() for _ in range(3)], FourToEightConfig(hand_size=18)),
            "hand_size=18, but the table deals 17 cards per hand to 3 players",
        ),
    ],
)
def test_bad_setups_raise_config_error(setup, message):
    agents, config = setup()
    with pytest.raises(ConfigError, match=message):
        play_four_to_eight(RULES[0], agents, 0, config)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"hand_size": 0},
        {"hand_size": 2.5},
        {"max_turns": -1},
        {"on_fault": "ignore"},
        {"decision_seconds": 0},
        {"decision_seconds": float("nan")},
    ],
)
def test_bad_config_values(kwargs):
    with pytest.raises(ConfigError, match=next(iter(kwargs))):
        FourToEightConfig(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", None])
def test_bad_seed(seed):
    with pytest.raises(ConfigError, match="seed"):
        play_four_to_eight(RULES[0], [RandomAgent() for _ in range(3)], seed)


# -- the match -----------------------------------------------------------------------------


def test_match_every_participant_deals_once():
    agents = [OracleAgent(), RandomAgent(), RandomAgent(), RandomAgent()]
    result = play_four_to_eight_match(agents, seed=3, rules=RULES[:3])
    assert isinstance(result, FourToEightMatch)
    assert result.dealers == (0, 1, 2, 3)
    assert result.seats == ((1, 2, 3), (2, 3, 0), (3, 0, 1), (0, 1, 2))
    totals = [0.0] * 4
    for game_record, dealer, seats in zip(result.games, result.dealers, result.seats, strict=True):
        assert game_record.game == "four-to-eight" and replay(game_record) == []
        totals[dealer] += game_record.dealer_score
        for seat, who in enumerate(seats):
            totals[who] += game_record.player_scores[seat]
    assert list(result.totals) == totals
    assert len({g.seed for g in result.games}) == 4
    again = FourToEightMatch.from_json(result.to_json())
    assert again == result
    summary = result.summary()
    assert summary.startswith("four-to-eight Eleusis match, seed 3, 4 games")
    assert "winner" in summary


def test_match_with_two_decks_and_options():
    agents = [RandomAgent() for _ in range(8)]
    config = FourToEightConfig(hand_size=3, max_turns=10)
    result = play_four_to_eight_match(agents, 0, "red(card)", deals_per_player=2, config=config)
    assert len(result.games) == 16 and all(len(g.deal) == 7 for g in result.games)
    assert all(replay(g) == [] for g in result.games)


@pytest.mark.parametrize("p", [3, 5, 10])
def test_match_participants_outside_the_table(p):
    with pytest.raises(ConfigError, match=r"needs 4, 6, 7, 8, 9 participants .* got " + str(p)):
        play_four_to_eight_match([RandomAgent() for _ in range(p)], 0, "red(card)")


def test_match_bad_options():
    agents = [RandomAgent() for _ in range(4)]
    with pytest.raises(ConfigError, match="deals_per_player"):
        play_four_to_eight_match(agents, 0, "red(card)", deals_per_player=0)
    with pytest.raises(ConfigError, match="at least one rule"):
        play_four_to_eight_match(agents, 0, [])


# -- the agent contract --------------------------------------------------------------------


@pytest.mark.parametrize("agent", [RandomAgent(), OracleAgent()], ids=repr)
def test_check_agent_plays_four_to_eight(agent):
    notes = CheckNotes()
    check_playable_games(agent, notes)
    assert GAMES["four-to-eight"].refusal(agent) is None
    assert "four-to-eight" not in notes.not_checked
