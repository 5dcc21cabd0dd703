"""The classic engine: invariants over many seeded games, options, determinism, errors.

The games are checked by an independent step-by-step walk (not `record.replay`): after
every event each of the 52 cards is in exactly one place, verdicts match the rule, the
agents saw the true state, and the end of phase 2 and the scores follow from the plays.
"""

import re
import signal
from collections import Counter
from itertools import chain

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.agent import Agent
from eleusis_lab.cards import Card, standard_deck
from eleusis_lab.errors import AgentError, ConfigError
from eleusis_lab.games.classic import ClassicConfig, classic_deal, play_classic
from eleusis_lab.games.classic.record import NO_PLAYABLE_CARD, PLAYER_OUT
from eleusis_lab.games.classic.scoring import classic_dealer_score, classic_player_scores
from eleusis_lab.record import TURN_CAP
from eleusis_lab.rules import Context, parse

RULES = [
    parse(text)
    for text in (
        "color(card) != color(last)",
        "suit(card) == (suit(last) + 1) mod 4",
        "if last_play_right then red(card) else black(card)",
        "rank(card) != rank(last) and suit(card) != suit(prev)",
        "if even(last) then red(card) else black(card)",
        "rank(card) > rank(last)",
        "red(card)",
    )
]
DECK = Counter(standard_deck())


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


def lineup(seed: int, n: int, spies: bool = True) -> list[Agent]:
    rng = np.random.default_rng(seed + 10_000)
    if spies:
        return [OracleSpy() if rng.random() < 0.3 else Spy() for _ in range(n)]
    return [OracleAgent() if rng.random() < 0.3 else RandomAgent() for _ in range(n)]


def walk(record, rule, agents=None):
    """Replay ``record`` checking every invariant; return the state after phase 1 and at the end."""
    n = record.n_players
    hands = [list(hand) for hand in record.deal]
    piles: list[list[Card]] = [[] for _ in range(n)]
    main = [record.starter]
    last = None
    decisions = [iter(agent.decisions_) for agent in agents] if agents else None
    wrong_after = None

    def assert_every_card_once():
        places = [*record.unused, *main, *chain(*hands), *chain(*piles)]
        assert len(places) == 52 and Counter(places) == DECK

    assert_every_card_once()
    for event in record.events:
        if event.phase == 2 and wrong_after is None:
            wrong_after = tuple(map(tuple, piles))
        assert event.phase in (1, 2) and not (event.phase == 1 and wrong_after is not None)
        if event.phase == 2:
            assert not any(hands), "phase 2 began while cards were in hand"
        source = hands[event.seat] if event.phase == 1 else piles[event.seat]
        assert event.card in source
        if decisions is not None:
            obs, card = next(decisions[event.seat])
            assert card == event.card and obs.phase == event.phase and obs.seat == event.seat
            assert obs.main_line == tuple(main)
            assert obs.wrong_cards == tuple(map(tuple, piles))
            assert obs.last_play_right is last
            assert set(obs.hand) <= set(source)
            if event.phase == 1:
                assert obs.hand == tuple(hands[event.seat])
        right = rule.accepts(event.card, Context(tuple(main), last))
        assert event.right == right  # main-line cards were legal, wrong cards illegal
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
    if decisions is not None:  # no decision left unplayed, every event observed by all
        assert all(next(it, None) is None for it in decisions)
        assert all(agent.seen_ == list(record.events) for agent in agents)
    return wrong_after, piles, main, last


DEFAULT = ClassicConfig()


def check_record(record, rule, agents=None, config=DEFAULT):
    wrong_after, piles, main, last = walk(record, rule, agents)
    n = record.n_players
    assert record.main_line == tuple(main)
    assert record.wrong_after_phase1 == wrong_after
    assert record.cards_left == tuple(len(pile) for pile in piles)
    assert record.dealer_score == classic_dealer_score([len(p) for p in wrong_after])
    assert list(record.player_scores) == classic_player_scores(record.cards_left)

    # Turn order: phase 1 round by round (skipping empty hands), then phase 2 in rotation.
    phase1 = [e.seat for e in record.events if e.phase == 1]
    sizes = [len(hand) for hand in record.deal]
    assert phase1 == [s for r in range(max(sizes)) for s in range(n) if sizes[s] > r]
    turns = phase2_turns(record, config.retry_in_turn)
    assert len(turns) == record.phase2_turns <= config.max_turns
    if turns:
        first = (phase1[-1] + 1) % n
        assert [seat for seat, _ in turns] == [(first + i) % n for i in range(len(turns))]

    # How phase 2 ended.
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


def phase2_turns(record, retry):
    """Phase-2 events grouped into turns: (seat, [events])."""
    turns = []
    for event in (e for e in record.events if e.phase == 2):
        previous = turns[-1] if turns else None
        if previous and retry and previous[0] == event.seat and not previous[1][-1].right:
            tried = [e.card for e in previous[1]]
            assert event.card not in tried, "a card was tried twice in one turn"
            previous[1].append(event)
        else:
            turns.append((event.seat, [event]))
    return turns


# -- invariants over many games ------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=str)
def test_invariants_over_seeds(rule):
    ends = Counter()
    for seed in range(40):
        n = 2 + seed % 5
        agents = lineup(seed, n)
        record = play_classic(rule, agents, seed)
        check_record(record, rule, agents)
        ends[record.phase2_end] += 1
    assert not ends[TURN_CAP]  # the default cap is never reached by these line-ups


def test_every_end_of_phase2_occurs():
    ends = Counter()
    for seed in range(60):
        for rule in RULES:
            ends[play_classic(rule, lineup(seed, 3, spies=False), seed).phase2_end] += 1
    assert ends[PLAYER_OUT] and ends[NO_PLAYABLE_CARD]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    n=st.integers(2, 7),
    rule=st.sampled_from(RULES),
    hand_size=st.one_of(st.none(), st.integers(1, 7)),
    retry=st.booleans(),
    max_turns=st.integers(0, 30),
)
def test_invariants_property(seed, n, rule, hand_size, retry, max_turns):
    config = ClassicConfig(hand_size=hand_size, retry_in_turn=retry, max_turns=max_turns)
    agents = lineup(seed % 1000, n)
    record = play_classic(rule, agents, seed, config)
    check_record(record, rule, agents, config)


# -- options -------------------------------------------------------------------------------


def test_hand_size_leaves_the_rest_unused():
    config = ClassicConfig(hand_size=5)
    record = play_classic(RULES[0], [RandomAgent() for _ in range(4)], 7, config)
    assert [len(hand) for hand in record.deal] == [5, 5, 5, 5]
    assert len(record.unused) == 51 - 20
    assert len([e for e in record.events if e.phase == 1]) == 20
    check_record(record, RULES[0], config=config)


def test_whole_deck_hands_differ_by_at_most_one():
    for n in range(2, 9):
        _, hands, unused = classic_deal(n, n)
        sizes = [len(hand) for hand in hands]
        assert sum(sizes) == 51 and not unused
        assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_turn_cap_is_recorded():
    config = ClassicConfig(max_turns=2)
    hits = 0
    for seed in range(30):
        agents = [RandomAgent() for _ in range(4)]
        record = play_classic(RULES[0], agents, seed, config)
        check_record(record, RULES[0], config=config)
        if record.turn_cap_hit:
            hits += 1
            assert record.phase2_end == TURN_CAP and record.phase2_turns == 2
    assert hits > 0


def test_zero_turns_allowed():
    config = ClassicConfig(max_turns=0)
    record = play_classic(RULES[0], [RandomAgent(), RandomAgent()], 1, config)
    assert not [e for e in record.events if e.phase == 2]
    assert record.phase2_turns == 0
    check_record(record, RULES[0], config=config)


def test_retry_in_turn():
    config = ClassicConfig(retry_in_turn=True)
    retried = 0
    for seed in range(40):
        agents = [Spy() for _ in range(3)]
        record = play_classic(RULES[1], agents, seed, config)
        check_record(record, RULES[1], agents, config)  # groups turns, no card tried twice
        for _, plays in phase2_turns(record, retry=True):
            assert all(not e.right for e in plays[:-1])  # a turn stops at the first right card
            retried += len(plays) > 1
    assert retried > 0


def test_retry_tries_every_card_before_passing():
    class Stubborn(Agent):
        def choose_play(self, obs):
            return obs.hand[0]

    config = ClassicConfig(retry_in_turn=True, max_turns=50)
    for seed in range(20):
        record = play_classic("red(card)", [Stubborn(), Stubborn(), Stubborn()], seed, config)
        # "red(card)": phase 2 starts with black cards only, so it ends at once.
        assert record.phase2_end in (NO_PLAYABLE_CARD, PLAYER_OUT)
        record = play_classic(RULES[1], [Stubborn(), Stubborn(), Stubborn()], seed, config)
        piles = [list(p) for p in record.wrong_after_phase1]
        for seat, plays in phase2_turns(record, retry=True):
            if not plays[-1].right:
                assert Counter(e.card for e in plays) == Counter(piles[seat])
            else:
                piles[seat].remove(plays[-1].card)


def test_no_retry_passes_the_turn():
    for seed in range(20):
        record = play_classic(RULES[1], [RandomAgent() for _ in range(3)], seed)
        phase2 = [e.seat for e in record.events if e.phase == 2]
        assert all(a != b for a, b in zip(phase2, phase2[1:], strict=False))


# -- seeds and randomness ------------------------------------------------------------------


def test_same_seed_same_record():
    for seed in (0, 1, 99):
        first = play_classic(RULES[2], [RandomAgent(), OracleAgent(), RandomAgent()], seed)
        again = play_classic(RULES[2], [RandomAgent(), OracleAgent(), RandomAgent()], seed)
        assert first.to_json() == again.to_json()


def test_different_seeds_differ():
    records = {
        play_classic(RULES[0], [RandomAgent(), RandomAgent()], seed).to_json() for seed in range(20)
    }
    assert len(records) == 20


def test_reusing_agents_gives_the_same_games():
    agents = [RandomAgent(), RandomAgent(), RandomAgent()]
    first = [play_classic(RULES[0], agents, seed).to_json() for seed in range(5)]
    fresh = [
        play_classic(RULES[0], [RandomAgent(), RandomAgent(), RandomAgent()], seed).to_json()
        for seed in range(5)
    ]
    assert first == fresh


def test_agent_generator_is_independent_of_the_engine_and_other_seats():
    class Draws(Agent):
        def start_game(self, info, rng):
            super().start_game(info, rng)
            self.first_draws_ = rng.random(3).tolist()

        def choose_play(self, obs):
            return obs.hand[0]

    two = [Draws(), Draws()]
    play_classic(RULES[0], two, 5)
    four = [Draws(), Draws(), Draws(), Draws()]
    play_classic(RULES[3], four, 5, ClassicConfig(hand_size=3))
    assert two[0].first_draws_ == four[0].first_draws_
    assert two[1].first_draws_ == four[1].first_draws_
    assert two[0].first_draws_ != two[1].first_draws_


# -- what agents are told ------------------------------------------------------------------


def test_only_rule_seeing_agents_get_the_rule():
    agents = [Spy(), OracleSpy(), Spy()]
    play_classic(RULES[0], agents, 3)
    assert agents[0].info_.rule is None and agents[2].info_.rule is None
    assert agents[1].info_.rule == RULES[0]
    for seat, agent in enumerate(agents):
        assert agent.info_.seat == seat and agent.info_.n_players == 3
        assert agent.info_.game == "classic"


def test_game_info_has_the_deal():
    agents = [Spy(), Spy()]
    record = play_classic(RULES[0], agents, 8)
    assert [agent.info_.hand for agent in agents] == list(record.deal)
    assert all(agent.info_.starter == record.starter for agent in agents)


def test_rule_text_is_parsed():
    record = play_classic("color(card) != color(last)", [RandomAgent(), RandomAgent()], 0)
    assert record.rule == "color(card) != color(last)"


# -- errors --------------------------------------------------------------------------------


class Cheat(Agent):
    def __init__(self, card="AS"):
        self.card = card

    def choose_play(self, obs):
        from eleusis_lab.cards import parse_card

        wanted = parse_card(self.card)
        return (
            wanted
            if wanted not in obs.hand
            else next(c for c in standard_deck() if c not in obs.hand)
        )


def test_playing_a_card_not_held_raises_agent_error():
    with pytest.raises(AgentError) as caught:
        play_classic(RULES[0], [RandomAgent(), Cheat()], 0, ClassicConfig(on_fault="raise"))
    message = str(caught.value)
    assert "seat 1" in message and "Cheat" in message and "Card('" in message
    assert "not among the cards it may play" in message


def test_returning_a_non_card_raises_agent_error():
    class Words(Agent):
        def choose_play(self, obs):
            return str(obs.hand[0])

    with pytest.raises(AgentError, match=r"seat 0 \(Words\(\)\) played '.*' \(a str\)"):
        play_classic(RULES[0], [Words(), RandomAgent()], 0, ClassicConfig(on_fault="raise"))


def test_a_card_equal_to_a_held_one_is_accepted():
    class Rebuild(Agent):
        def choose_play(self, obs):
            card = obs.hand[-1]
            return Card(card.rank, card.suit)

    record = play_classic(RULES[0], [Rebuild(), Rebuild()], 4)
    check_record(record, RULES[0])


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda: ([RandomAgent()], None), "at least 2 active players"),
        (lambda: ([RandomAgent(), "random"], None), "is not an Agent"),
        (lambda: ([RandomAgent()] * 2, None), "same agent object"),
        (
            lambda: ([RandomAgent() for _ in range(3)], ClassicConfig(hand_size=20)),
            "needs 60 cards",
        ),
    ],
)
def test_bad_setups_raise_config_error(setup, message):
    agents, config = setup()
    with pytest.raises(ConfigError, match=message):
        play_classic(RULES[0], agents, 0, config)


@pytest.mark.parametrize(
    "kwargs", [{"hand_size": 0}, {"max_turns": -1}, {"hand_size": 2.5}, {"retry_in_turn": 1}]
)
def test_bad_config_values(kwargs):
    with pytest.raises(ConfigError):
        ClassicConfig(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", None])
def test_bad_seed(seed):
    with pytest.raises(ConfigError, match="seed"):
        play_classic(RULES[0], [RandomAgent(), RandomAgent()], seed)


# -- faults: an agent that breaks the interface does not bring down the game ---------------


class Flaky(RandomAgent):
    """Raises at every third decision; keeps the observations it raised on."""

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
    """Returns a card it does not hold every other decision."""

    def start_game(self, info, rng):
        super().start_game(info, rng)
        self.offered_ = []

    def choose_play(self, obs):
        self.offered_.append(obs.hand)
        if len(self.offered_) % 2:
            return next(card for card in standard_deck() if card not in obs.hand)
        return super().choose_play(obs)


class NotACard(Agent):
    def choose_play(self, obs):
        return str(obs.hand[0])


class Deaf(RandomAgent):
    """Raises on every event it observes."""

    def observe(self, event):
        raise KeyError(f"cannot hear {event.card}")


class NoStart(RandomAgent):
    def start_game(self, info, rng):
        raise RuntimeError("no start")


def faults_of(record, seat):
    return [fault for fault in record.faults if fault.seat == seat]


def check_faulty_game(record, rule, config=DEFAULT):
    """Scores and every invariant still hold; replay re-derives the game."""
    from eleusis_lab.record import replay

    check_record(record, rule, config=config)
    assert replay(record) == []
    for fault in record.faults:
        assert fault.agent == record.agents[fault.seat]["name"]
        if fault.call != "start_game":
            assert record.events[fault.event].phase == fault.phase
        if fault.call == "choose_play":
            assert record.events[fault.event].seat == fault.seat


@pytest.mark.parametrize("retry", [False, True])
def test_an_agent_that_raises_is_replaced_by_its_first_card(retry):
    config = ClassicConfig(retry_in_turn=retry, max_turns=60)
    for seed in range(12):
        agents = [RandomAgent(), Flaky(), RandomAgent()]
        record = play_classic(RULES[1], agents, seed, config)
        check_faulty_game(record, RULES[1], config)
        faults = faults_of(record, 1)
        assert len(faults) == len(record.faults) == len(agents[1].failed_on_) > 0
        for fault, obs in zip(faults, agents[1].failed_on_, strict=True):
            assert (fault.agent, fault.kind, fault.call) == ("Flaky", "raised", "choose_play")
            assert fault.message.startswith("ValueError: decision ")
            event = record.events[fault.event]
            assert fault.phase == obs.phase == event.phase and event.seat == 1
            assert event.card == obs.hand[0]  # the first card it could play
            assert fault.substituted


def test_a_card_not_held_is_recorded_and_replaced():
    for seed in range(10):
        agents = [Stranger(), RandomAgent()]
        record = play_classic(RULES[0], agents, seed)
        check_faulty_game(record, RULES[0])
        faults = faults_of(record, 0)
        illegal = [hand for i, hand in enumerate(agents[0].offered_) if i % 2 == 0]
        assert len(faults) == len(record.faults) == len(illegal)
        for fault, hand in zip(faults, illegal, strict=True):
            assert (fault.agent, fault.kind, fault.call) == (
                "Stranger",
                "illegal_card",
                "choose_play",
            )
            assert "which is not among the cards it may play now" in fault.message
            assert record.events[fault.event].card == hand[0]
        assert {f.phase for f in faults} == {1, 2} or record.phase2_turns == 0


def test_a_non_card_is_an_illegal_card():
    record = play_classic(RULES[2], [NotACard(), RandomAgent(), RandomAgent()], 4)
    check_faulty_game(record, RULES[2])
    faults = faults_of(record, 0)
    assert faults and all(f.kind == "illegal_card" for f in faults)
    assert re.search(r"played '\w+' \(a str\)", faults[0].message)

    # "str(obs.hand[0])" names the card that the engine then plays: the same game as
    # an agent that plays its first card.
    class FirstCard(Agent):
        def choose_play(self, obs):
            return obs.hand[0]

    clean = play_classic(RULES[2], [FirstCard(), RandomAgent(), RandomAgent()], 4)
    assert clean.events == record.events and clean.player_scores == record.player_scores


def test_over_time_keeps_the_card_and_records_the_fault():
    budget = ClassicConfig(decision_seconds=1e-9)  # every decision is over it
    for seed in range(6):
        timed = play_classic(RULES[3], [RandomAgent(), OracleAgent(), RandomAgent()], seed, budget)
        free = play_classic(RULES[3], [RandomAgent(), OracleAgent(), RandomAgent()], seed)
        check_faulty_game(timed, RULES[3], budget)
        # Results never depend on the machine's speed: the same plays and scores.
        assert timed.events == free.events and timed.player_scores == free.player_scores
        assert len(timed.faults) == len(timed.events)  # one per decision
        for k, (fault, event) in enumerate(zip(timed.faults, timed.events, strict=True)):
            assert (fault.seat, fault.event, fault.phase) == (event.seat, k, event.phase)
            assert fault.kind == "over_time" and not fault.substituted
            assert re.fullmatch(
                r"took \S+ ms to choose a card; the budget is 1e-06 ms", fault.message
            )
        assert timed.config["decision_seconds"] == 1e-9


def test_a_generous_budget_records_nothing():
    config = ClassicConfig(decision_seconds=60.0)
    record = play_classic(RULES[0], [RandomAgent(), RandomAgent()], 1, config)
    assert record.faults == ()
    check_faulty_game(record, RULES[0], config)


def test_an_agent_that_raises_in_observe_misses_the_update_only():
    agents = [Spy(), Deaf(), Spy()]
    record = play_classic(RULES[4], agents, 5)
    check_faulty_game(record, RULES[4])
    assert len(record.faults) == len(record.events)  # one per event, all Deaf's
    for k, fault in enumerate(record.faults):
        assert (fault.seat, fault.agent, fault.kind, fault.call) == (1, "Deaf", "raised", "observe")
        assert fault.event == k and fault.phase == record.events[k].phase
        assert fault.message == f"KeyError: 'cannot hear {record.events[k].card}'"
    assert agents[0].seen_ == agents[2].seen_ == list(record.events)  # the others still hear
    same = play_classic(RULES[4], [Spy(), RandomAgent(), Spy()], 5)
    assert same.events == record.events  # Deaf plays as a RandomAgent would


def test_an_agent_that_raises_in_start_game_keeps_its_seat():
    record = play_classic(RULES[0], [RandomAgent(), NoStart()], 2, ClassicConfig(max_turns=20))
    check_faulty_game(record, RULES[0], ClassicConfig(max_turns=20))
    first = record.faults[0]
    assert (first.seat, first.agent, first.kind, first.call) == (
        1,
        "NoStart",
        "raised",
        "start_game",
    )
    assert (first.event, first.phase, first.message) == (0, 0, "RuntimeError: no start")
    # Without its generator it raises at every decision: each play is substituted.
    later = record.faults[1:]
    assert len(later) == sum(e.seat == 1 for e in record.events)
    assert all(f.call == "choose_play" and "AttributeError" in f.message for f in later)


def test_faults_are_deterministic():
    def lineup():
        return [Flaky(), Stranger(), Deaf()]

    config = ClassicConfig(retry_in_turn=True)
    first = play_classic(RULES[5], lineup(), 9, config)
    assert first.faults and first.to_json() == play_classic(RULES[5], lineup(), 9, config).to_json()


def test_on_fault_raise_stops_at_the_first_fault():
    stop = ClassicConfig(on_fault="raise")
    with pytest.raises(ValueError, match="decision 3"):  # the agent's own exception
        play_classic(RULES[0], [Flaky(), RandomAgent()], 0, stop)
    with pytest.raises(AgentError, match=r"seat 1 \(Stranger\(\)\) played Card\('\w+'\), which"):
        play_classic(RULES[0], [RandomAgent(), Stranger()], 0, stop)
    with pytest.raises(KeyError, match="cannot hear"):
        play_classic(RULES[0], [Deaf(), RandomAgent()], 0, stop)
    with pytest.raises(RuntimeError, match="no start"):
        play_classic(RULES[0], [NoStart(), RandomAgent()], 0, stop)
    slow = ClassicConfig(on_fault="raise", decision_seconds=1e-9)
    with pytest.raises(
        AgentError, match=r"seat 0 \(RandomAgent\(\)\) took \S+ ms to choose a card"
    ):
        play_classic(RULES[0], [RandomAgent(), RandomAgent()], 0, slow)


def test_a_keyboard_interrupt_the_agent_raises_is_a_fault_a_real_one_stops_the_game():
    class Interrupted(Agent):
        def choose_play(self, obs):
            raise KeyboardInterrupt

    record = play_classic(RULES[0], [Interrupted(), RandomAgent()], 0, ClassicConfig(hand_size=2))
    assert {(f.seat, f.kind, f.message) for f in record.faults} == {
        (0, "raised", "KeyboardInterrupt: ")
    }

    class CtrlC(Agent):
        def choose_play(self, obs):
            signal.raise_signal(signal.SIGINT)  # as the terminal sends it
            return obs.hand[0]

    with pytest.raises(KeyboardInterrupt):
        play_classic(RULES[0], [CtrlC(), RandomAgent()], 0)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(2, 5),
    rule=st.sampled_from(RULES),
    hand_size=st.one_of(st.none(), st.integers(1, 7)),
    retry=st.booleans(),
    faulty=st.lists(st.sampled_from([Flaky, Stranger, NotACard, Deaf, NoStart]), max_size=3),
)
def test_faulty_games_keep_the_invariants(seed, n, rule, hand_size, retry, faulty):
    config = ClassicConfig(hand_size=hand_size, retry_in_turn=retry, max_turns=30)
    agents = [cls() for cls in faulty[:n]] + [RandomAgent() for _ in range(n - len(faulty[:n]))]
    record = play_classic(rule, agents, seed, config)
    check_faulty_game(record, rule, config)
    assert [f.event for f in record.faults] == sorted(f.event for f in record.faults)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"on_fault": "ignore"},
        {"on_fault": None},
        {"decision_seconds": 0},
        {"decision_seconds": -1.0},
        {"decision_seconds": "1"},
        {"decision_seconds": True},
        {"decision_seconds": float("inf")},
        {"decision_seconds": float("nan")},
    ],
)
def test_bad_fault_options(kwargs):
    with pytest.raises(ConfigError, match=next(iter(kwargs))):
        ClassicConfig(**kwargs)
