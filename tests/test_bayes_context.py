"""The switching Bayesian agent: exact posterior, switch conditions, declarations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_bayes import TINY

from eleusis_agents.bayes_context import SWITCHES, ContextBayesAgent
from eleusis_lab.agent import Event, GameInfo
from eleusis_lab.cards import parse_card, two_decks
from eleusis_lab.games.solo import SoloConfig, play_solo, replay_solo
from eleusis_lab.games.table import GAMES
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.enumerate import build_space

STARTER = parse_card("7S")


def started(agent: ContextBayesAgent, game: str = "classic") -> ContextBayesAgent:
    info = GameInfo(game, 0, 2, (), STARTER, traits=GAMES[game].traits)
    agent.start_game(info, np.random.default_rng(0))
    return agent


def play(agent: ContextBayesAgent, card: str, right: bool) -> None:
    agent.observe(Event(1, parse_card(card), 1, right, len(agent.line_) - 1))


def test_posterior_equals_one_computed_hypothesis_by_hypothesis():
    """Six base rules, the switch length mod 2: 6 plain hypotheses and 36 switched."""
    noise = 0.1
    agent = started(
        ContextBayesAgent(TINY, 6, noise=noise, fallback=0, switches=("length mod 2",), one_card=0)
    )
    plays = [("QH", True), ("2C", False), ("KS", True), ("9D", True), ("JD", False)]
    for card, right in plays:
        play(agent, card, right)

    space = build_space(TINY, 6, cache=False)
    rules = [space.rule(i) for i in range(len(space))]
    prior = np.exp(space.log_prior)
    prior[[space.index_of(parse(t)) for t in ("false", "face(card)")]] *= 1e-3  # < 13 right
    prior /= prior.sum()
    plain = prior.copy()  # a plain rule that rejects nothing is no rule to find
    plain[space.index_of(parse("true"))] *= 1e-3
    plain /= plain.sum()
    # (switched?, rule for even lengths, rule for odd lengths)
    hypotheses = [(False, k, k) for k in range(6)] + [
        (True, a, b) for a, b in itertools.product(range(6), repeat=2)
    ]
    weights = np.array(
        [
            0.5 * plain[a] if not switched else 0.5 * prior[a] * prior[b]
            for switched, a, b in hypotheses
        ]
    )
    line = [STARTER]
    for card, right in plays:
        context = Context(tuple(line))
        for i, (_, a, b) in enumerate(hypotheses):
            says = rules[(a, b)[len(line) % 2]].accepts(parse_card(card), context)
            weights[i] *= 1 - noise if says == right else noise
        line += [parse_card(card)] if right else []
    weights /= weights.sum()

    context = Context(tuple(line))
    expected = np.zeros(52)
    for w, (_, a, b) in zip(weights, hypotheses, strict=True):
        says = np.array(
            [rules[(a, b)[len(line) % 2]].accepts(c, context) for c in two_decks()[:52]]
        )
        expected += w * np.where(says, 1 - noise, noise)
    faces = [c.face for c in two_decks()[:52]]
    assert agent.predict_faces(context)[faces] == pytest.approx(expected, rel=1e-5)

    # The proposal is the most probable behaviour: a switched rule with the same rule
    # for both lengths is that plain rule.
    behaviours: dict[tuple, float] = {}
    for w, (_, a, b) in zip(weights, hypotheses, strict=True):
        behaviours[(a,) if a == b else (a, b)] = behaviours.get((a,) if a == b else (a, b), 0) + w
    best = max(behaviours, key=behaviours.get)
    text, probability = agent.propose_rule()
    assert probability == pytest.approx(behaviours[best], rel=1e-4)
    if len(best) == 1:
        assert text == space.text(best[0])
    else:
        assert text.startswith("if length mod 2 == ")


def random_contexts(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    deck = two_decks()
    for _ in range(n):
        length = int(rng.integers(0, 6))
        line = tuple(deck[i] for i in rng.choice(len(deck), length, replace=False))
        yield Context(line, [None, True, False][int(rng.integers(3))] if line else None)


@pytest.mark.parametrize("switch", SWITCHES[1:], ids=lambda s: s.name)
def test_each_switch_value_is_the_one_condition_that_holds(switch):
    """The conditions, read by the rule language, agree with the switch's own value."""
    card = parse_card("5C")
    conditions = [parse(f"if {c} then true else false") for c in switch.conditions]
    for context in random_contexts(200):
        if not context.main_line and switch.reads == "last":
            continue  # no last card: rules judge the starter on their own terms
        value = switch.value(context)
        holds = [rule.accepts(card, context) for rule in conditions]
        if value is None:  # reads what is not there: every condition is undefined, so right
            assert all(holds), context.describe()
        else:
            assert holds == [v == value for v in range(len(conditions))], context.describe()


def test_a_rule_switched_on_the_last_card_is_the_plain_rule():
    agent = started(ContextBayesAgent("colours_suits", 2000))
    space, red_last = agent.space_, [s.name for s in agent.switches_].index("red(last)")
    red, black = (space.index_of(parse(t)) for t in ("red(card)", "black(card)"))
    plain = agent._canonical((red_last, (red, black)))  # black last: red; red last: black
    assert plain == (0, (space.index_of(parse("color(card) != color(last)")),))
    length = [s.name for s in agent.switches_].index("length mod 2")
    assert agent._canonical((length, (red, black))) == (length, (red, black))


@pytest.mark.parametrize(
    "rule",
    [
        "if last_play_right then red(card) else black(card)",
        "if odd(length) then red(card) else black(card)",
        "if color(last) == color(prev) then color(card) != color(last) else true",
    ],
)
def test_solo_finds_rules_the_plain_agent_cannot_conceive(rule):
    record = play_solo(rule, ContextBayesAgent("colours_suits", 2000), seed=0)
    assert record.found and replay_solo(record) == []


@pytest.mark.parametrize(
    ("rule", "seed"),
    [
        ("suit(card) == (suit(last) + 1) mod 4", 13),
        ("if even(last) then red(card) else black(card)", 18),
    ],
)
def test_the_lookahead_plays_on_in_classic_when_its_leading_rules_all_fell(rule, seed):
    """In these games the most probable rules of a cell all fell to 0 late in the game:
    0 / 0 made the lookahead's scores NaN, and its choice raised (a fault)."""
    from eleusis_agents.simple import RandomAgent
    from eleusis_lab.games.classic import play_classic

    agent = ContextBayesAgent("colours_suits", 2000, policy="lookahead")
    record = play_classic(rule, [agent, RandomAgent(), RandomAgent()], seed=seed)
    assert record.faults == ()


def test_plays_on_when_no_hypothesis_explains_the_plays():
    """Colours and suits cannot say rank(card) > 6 (without the one-card language): with
    little noise the fallback soon holds all the mass, and the lookahead has nothing to
    condition on."""
    agent = ContextBayesAgent("colours_suits", 2000, noise=1e-5, one_card=0)
    record = play_solo("rank(card) > 6", agent, seed=0)
    assert record.faults == () and record.turns == 30
    assert agent._switch_posterior()[1] > 0.99  # the fallback


def test_a_suit_template_gives_each_value_one_suit():
    agent = started(ContextBayesAgent("colours_suits", 2000))
    names = [s.name for s in agent.switches_]
    template, base = names.index("length mod 4 -> suit"), names.index("length mod 4")
    space = agent.space_
    suits = [space.index_of(parse(f"suit(card) == {suit}")) for suit in ("clubs", "hearts")]
    prior = np.exp(agent._cell_prior(agent.first_cell_[template]))
    assert prior[suits] == pytest.approx([0.25, 0.25]) and prior.sum() == pytest.approx(1)
    # the template's rules are rules of its switch: one behaviour, one key
    assert agent._canonical((template, (*suits, *suits))) == (base, (*suits, *suits))
    # Judged over every reachable state, only the template itself is the rule (over the
    # continuations of a line, the suit cycle after the starter is too).
    strict = SoloConfig(judge="reachable")
    agent = ContextBayesAgent("colours_suits", 2000)
    record = play_solo("suit(card) == length mod 4", agent, 0, strict)
    assert record.success and record.declarations[-1].text.count("suit(card) ==") == 4


def test_templates_a_space_cannot_hold_are_left_out():
    """TINY has no suits: the suit templates are left out, and play goes on."""
    agent = started(ContextBayesAgent(TINY, 6, one_card=0))
    assert any(s.members for s in SWITCHES)
    assert not any(s.members for s in agent.switches_)
    assert len(agent.switches_) == len(SWITCHES) - sum(bool(s.members) for s in SWITCHES)
    for card, right in [("QH", True), ("2C", False), ("KS", True)]:
        play(agent, card, right)
    weights, fallback = agent._switch_posterior()
    assert len(weights) == len(agent.switches_) and weights.sum() + fallback == pytest.approx(1)
    assert agent.propose_rule() is not None


@pytest.mark.parametrize(
    "params",
    [
        {"noise": 0.6},
        {"fallback": 1},
        {"plain": 0},
        {"policy": "mix"},
        {"switches": ("length",)},
        {"declare_confidence": 0},
        {"declaring": "eagerly"},
    ],
)
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        started(ContextBayesAgent("colours_suits", 200, **params))


def _replayed(rule: str, seed: int, **params) -> tuple[ContextBayesAgent, list]:
    """A context agent and the events of a classic game of random agents under ``rule``."""
    from eleusis_agents.simple import RandomAgent
    from eleusis_lab.games.classic import play_classic

    record = play_classic(rule, [RandomAgent() for _ in range(3)], seed=seed)
    info = GameInfo("classic", 0, 3, (), record.starter, traits=GAMES["classic"].traits)
    agent = ContextBayesAgent("colours_suits", 2000, **params)
    agent.start_game(info, np.random.default_rng(0))
    return agent, list(record.events)


def _log_weights_counted_here(agent: ContextBayesAgent) -> np.ndarray:
    """Each cell's log posterior weights (float64), its counts counted here play by play."""
    space, odds = agent.space_, np.log(agent.noise) - np.log1p(-agent.noise)
    counts = np.zeros((len(agent.seen_), len(space)))
    for probe, values, right in agent.history_:
        for s, value in enumerate(values):
            if value is not None and probe >= 0:
                said = space.verdict_rows(probe, stop=len(space))
                counts[agent.first_cell_[s] + value] += said != right
    priors = [agent._cell_prior(cell).astype(np.float64) for cell in range(len(counts))]
    return np.array(priors) + counts * odds


def _switch_posterior_weighing_everything(agent: ContextBayesAgent) -> np.ndarray:
    """Each switch's posterior from every cell's counts, counted here play by play and
    weighed over every hypothesis in float64 (none left out)."""
    log_weights = _log_weights_counted_here(agent)
    odds = np.log(agent.noise) - np.log1p(-agent.noise)
    log_evidence = agent.switch_log_prior_ + agent.fixed_mismatches_ * odds
    for cell in np.flatnonzero(agent.seen_):
        log_evidence[agent.switch_of_cell_[cell]] += np.logaddexp.reduce(log_weights[cell])
    fallback = agent.fallback_.log_weight(agent.fallback, agent.noise, agent.fallback_.plays)
    everything = np.append(log_evidence, fallback)
    return np.exp(everything - np.logaddexp.reduce(everything))[:-1]


@pytest.mark.parametrize(
    ("rule", "seed"),
    [("if odd(length) then red(card) else black(card)", 3), ("suit(card) != suit(last)", 5)],
)
def test_the_switches_left_out_weigh_what_weighing_every_cell_gives(rule, seed):
    """Switches far below the best are left out (0) and their cells counted later; cells
    that saw the same plays are weighed once. After every play the switch posterior is
    the one computed from scratch over every hypothesis of every cell."""
    agent, events = _replayed(rule, seed)
    left_out = shared = 0
    for event in events:
        agent.observe(event)
        weights = agent._switch_posterior()[0]
        assert weights == pytest.approx(_switch_posterior_weighing_everything(agent), abs=1e-6)
        left_out += len(agent.negligible_)
        shared += len(agent.weights_) - len({id(w) for w in agent.weights_.values()})
    assert left_out > 0 and shared > 0  # both shortcuts were taken
    assert agent.uncounted_  # and some cells have plays still to count
    # Asked for, a cell left out counts its plays: every cell's posterior is as weighed here.
    log_weights = _log_weights_counted_here(agent)
    for cell in np.flatnonzero(agent.seen_):
        expected = np.exp(log_weights[cell] - np.logaddexp.reduce(log_weights[cell]))
        assert agent._cell(cell) == pytest.approx(expected, abs=1e-6)


def test_predictions_are_those_of_an_agent_rebuilt_from_its_plays():
    """An agent rebuilt from its history counts every play at once and weighs every cell
    afresh: it predicts what the agent that skipped work predicts."""
    import pickle

    agent, events = _replayed("if odd(length) then red(card) else black(card)", 3)
    for event in events:
        agent.observe(event)
        context = Context(tuple(agent.line_), agent.last_right_)
        rebuilt = pickle.loads(pickle.dumps(agent))
        assert rebuilt.predict_faces(context) == pytest.approx(
            agent.predict_faces(context), rel=1e-12
        )


def test_counts_past_255_plays_are_kept():
    """Counts are bytes until a cell has seen 255 plays, then 16 bits: 300 wrong plays
    of the same card leave 300 mismatches on the rules that call it right."""
    agent = started(ContextBayesAgent("colours_suits", 500, switches=("length mod 2",)))
    assert agent.mismatches_.dtype == np.uint8
    for _ in range(300):
        play(agent, "QH", False)
    assert agent.mismatches_.dtype == np.uint16
    log_weights = _log_weights_counted_here(agent)
    odds = np.log(agent.noise) - np.log1p(-agent.noise)
    counts = (log_weights[0] - agent._cell_prior(0)) / odds
    assert agent.mismatches_[0] == pytest.approx(counts) and counts.max() == 300


@pytest.mark.parametrize("size", [64, 5000])
def test_a_pruner_zeroing_the_pruned_keeps_exactly_the_rules_near_the_best(size):
    """Whatever path a weighing takes (every rule, the kept ones apart, or only the
    candidates of an earlier pass), it gives the exact weights of the rules within
    ``prune`` nats of the best and 0 for the others."""
    from eleusis_agents.posterior import Pruner

    rng = np.random.default_rng(size)
    log_prior = -rng.uniform(0, 30, size).astype(np.float32)
    mismatches = np.zeros(size, np.uint8)
    pruner = Pruner(prune=20.0, slack=10.0, zero_pruned=True)
    odds = np.log(np.float32(0.005)) - np.log1p(np.float32(-0.005))
    for _ in range(12):
        mismatches += rng.random(size) < 0.3
        weighed = pruner.weigh(mismatches, log_prior, 0.005, -np.inf)
        fresh = Pruner(prune=20.0, slack=10.0, zero_pruned=True).weigh(
            mismatches, log_prior, 0.005, -np.inf
        )
        logw = mismatches.astype(np.float64) * odds + log_prior
        expected = np.where(logw > logw.max() - 20, np.exp(logw - logw.max()), 0.0)
        for result in (weighed, fresh):
            weights = np.zeros(size)
            at = np.arange(size) if result.active is None else result.active
            weights[at] = result.weights
            # a rule at the cut weighs e**-20 (2e-9) on one side of it, 0 on the other
            np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=3e-9)
            assert result.total == pytest.approx(expected.sum(), rel=1e-5)
