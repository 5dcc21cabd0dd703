"""The scikit-learn agents: the agent contract, learning from every play, accuracy."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from watching import Watch

from eleusis_agents import lean_logistic
from eleusis_agents.learners import DecisionTreeAgent, SklearnAgent
from eleusis_agents.simple import RandomAgent
from eleusis_lab.agent import Event, GameInfo, Observation, clone
from eleusis_lab.cards import face_card, parse_card, parse_cards
from eleusis_lab.evaluation import prediction_accuracy
from eleusis_lab.games.classic import ClassicConfig, play_classic
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.catalog import get_rule
from eleusis_lab.testing import check_agent

RULES = [
    "color(card) != color(last)",
    "suit(card) == (suit(last) + 1) mod 4",
    "if last_play_right then red(card) else black(card)",
    "rank(card) > rank(last)",
]


def forest() -> SklearnAgent:
    return SklearnAgent(estimator=RandomForestClassifier(n_estimators=10))


AGENTS = {
    "tree": DecisionTreeAgent,
    "logistic": SklearnAgent,
    "forest": forest,
    "explore": lambda: DecisionTreeAgent(explore=0.3),
}


class WatchedTree(Watch, DecisionTreeAgent):
    pass


class WatchedSklearn(Watch, SklearnAgent):
    pass


def started(agent, starter="7C", seed=0):
    agent.start_game(
        GameInfo("classic", 0, 2, (), parse_card(starter)), np.random.default_rng(seed)
    )
    return agent


def feed(agent, rule, cards, starter="7C", seat=1):
    """Tell ``agent`` that ``seat`` played ``cards`` in turn, judged by ``rule``."""
    rule = parse(rule)
    line, last_right = [parse_card(starter)], None
    for card in parse_cards(cards):
        right = rule.accepts(card, Context(tuple(line), last_right))
        agent.observe(Event(seat, card, 1, right, len(line) - 1))
        line += [card] if right else []
        last_right = right
    return Context(tuple(line), last_right)


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_passes_the_conformance_suite(name):
    report = check_agent(AGENTS[name]())
    assert report.not_checked == ()


@pytest.mark.parametrize("cls", [WatchedTree, WatchedSklearn])
def test_plays_only_cards_of_its_hand(cls):
    for seed in range(4):
        agents = [cls(), RandomAgent(), cls()]
        config = ClassicConfig(retry_in_turn=seed % 2 == 0)
        play_classic(RULES[seed % len(RULES)], agents, seed, config)
        for agent in (agents[0], agents[2]):
            assert agent.choices_ and all(card in obs.hand for obs, card in agent.choices_)


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_same_seed_same_plays(name):
    def game(seed):
        return play_classic(RULES[1], [AGENTS[name](), RandomAgent(), AGENTS[name]()], seed)

    assert game(5).events == game(5).events
    assert game(5).events != game(6).events


def test_params_clone_and_set_params():
    tree = DecisionTreeAgent(max_depth=3, min_samples_leaf=2, explore=0.1)
    params = tree.get_params()
    assert params == {
        "max_depth": 3,
        "min_samples_leaf": 2,
        "criterion": "entropy",
        "refit_every": 1,
        "refit_growth": 0.1,
        "min_examples": 2,
        "explore": 0.1,
        "refit": "on_error",
    }
    assert vars(tree) == params  # the constructor stores its parameters, nothing else
    assert clone(tree).get_params() == params and clone(tree) is not tree
    assert tree.set_params(max_depth=5) is tree and tree.max_depth == 5
    with pytest.raises(ValueError, match="no parameter 'estimator'"):
        tree.set_params(estimator=GaussianNB())

    estimator = KNeighborsClassifier(n_neighbors=3)
    agent = SklearnAgent(estimator=estimator, refit_every=4)
    copy = clone(agent)
    assert copy.estimator is not estimator and copy.estimator.get_params() == estimator.get_params()
    assert copy.get_params()["refit_every"] == 4
    assert repr(agent).startswith("SklearnAgent(estimator=KNeighborsClassifier(n_neighbors=3)")


def test_learned_state_ends_in_underscore_and_the_estimator_is_never_fitted():
    estimator = DecisionTreeClassifier()
    agent = SklearnAgent(estimator=estimator)
    play_classic(RULES[0], [agent, RandomAgent()], 0)
    learned = set(vars(agent)) - set(agent.get_params())
    assert learned and all(name.endswith("_") for name in learned)
    assert agent.estimator_ is not None and agent.estimator_ is not estimator
    assert not hasattr(estimator, "tree_")  # only clones are fitted


def test_estimators_get_a_seed_from_the_game():
    agent = started(forest(), seed=1)
    feed(agent, RULES[0], "6D 9H 2S 8C AS 4S 3H KC")
    agent.predict_faces(Context(tuple(parse_cards("7C"))))
    assert agent.estimator_.random_state == agent.seed_
    other = started(forest(), seed=2)
    assert other.seed_ != agent.seed_
    fixed = started(SklearnAgent(estimator=RandomForestClassifier(random_state=7)))
    feed(fixed, RULES[0], "6D 9H 2S 8C AS 4S 3H KC")
    fixed.predict_faces(Context(tuple(parse_cards("7C"))))
    assert fixed.estimator_.random_state == 7  # a seed the user chose stays
    tree = started(DecisionTreeAgent(), seed=1)
    feed(tree, RULES[0], "6D 9H 2S 8C AS 4S 3H KC")
    tree.predict_faces(Context(tuple(parse_cards("7C"))))
    assert tree.estimator_.random_state == tree.seed_ == agent.seed_


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_pickle_round_trip_plays_identically(name):
    agent = AGENTS[name]()
    restored = pickle.loads(pickle.dumps(agent))
    assert restored.get_params().keys() == agent.get_params().keys()
    first = play_classic(RULES[2], [agent, RandomAgent()], 3)
    second = play_classic(RULES[2], [restored, RandomAgent()], 3)
    assert first.events == second.events

    # Mid-game: a fitted agent pickles into one that predicts the same.
    mid = started(AGENTS[name]())
    context = feed(mid, RULES[0], "6D 9H 2S 8C AS 4S 3H KC QD 10S")
    copy = pickle.loads(pickle.dumps(mid))
    assert np.array_equal(mid.predict_faces(context), copy.predict_faces(context))


# The built-in learners skip scikit-learn's checks; a user's estimator of the same kind
# goes through them all, so it is the expectation.
CHECKED_TWINS = {
    "tree": lambda: SklearnAgent(
        estimator=DecisionTreeClassifier(criterion="entropy"), min_examples=2
    ),
    "logistic": lambda: SklearnAgent(
        estimator=make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    ),
}


@pytest.mark.parametrize("refit", ["due", "on_error"])
@pytest.mark.parametrize("name", sorted(CHECKED_TWINS))
def test_the_built_in_learners_rate_every_face_as_the_checked_estimators_do(name, refit):
    # The default agent's warm start is its own: the checked pipeline starts from zero.
    fast = AGENTS[name](refit=refit, **({"warm_start": False} if name == "logistic" else {}))
    checked = CHECKED_TWINS[name]().set_params(refit=refit)
    rng = np.random.default_rng(1)
    for history in range(9 if name == "tree" else 3):
        # Random verdicts (noise: deep trees) in one history of three, else a rule's.
        rule = parse(RULES[history % len(RULES)]) if history % 3 else None
        for agent in (fast, checked):
            started(agent, seed=history)
        line, last_right = [parse_card("7C")], None
        for _ in range(40):
            card = face_card(int(rng.integers(52)))
            context = Context(tuple(line), last_right)
            right = rule.accepts(card, context) if rule else bool(rng.random() < 0.4)
            for agent in (fast, checked):
                agent.observe(Event(1, card, 1, right, len(line) - 1))
            line += [card] if right else []
            last_right = right
            context = Context(tuple(line), last_right)
            assert np.array_equal(fast.predict_faces(context), checked.predict_faces(context))
        assert fast.n_fits_ == checked.n_fits_ > (10 if refit == "due" else 1)


def test_an_estimator_that_scales_in_place_leaves_the_examples_alone():
    in_place, copying = (
        started(SklearnAgent(estimator=make_pipeline(StandardScaler(copy=copy), GaussianNB())))
        for copy in (False, True)
    )
    for agent in (in_place, copying):
        context = feed(agent, RULES[0], "6D 9H 2S 8C AS 4S 3H KC QD 10S 5D 7H")
        agent.predict_faces(context)  # fits on 12 examples, then 14 below
        context = feed(agent, RULES[0], "JD 2C", starter="7H")
    assert np.array_equal(in_place.predict_faces(context), copying.predict_faces(context))


def test_learns_from_other_players_plays():
    agent = started(DecisionTreeAgent())
    context = Context(tuple(parse_cards("7C")))
    before = agent.predict_faces(context)
    assert (before == 0.5).all()
    after_context = feed(agent, RULES[0], "6D 9H 2S 8C AS 4S", seat=1)
    assert len(agent.labels_) == 6
    after = agent.predict_faces(context)
    assert not np.array_equal(before, after)
    # and it got the rule: on a black card, exactly the red faces are right
    assert after_context.main_line[-1] == parse_card("2S")
    red = np.array([card.is_red for card in map(parse_card, ["AD", "AS"])])
    assert (agent.predict_faces(after_context)[[13, 39]] > 0.5).tolist() == red.tolist()


def test_predict_uses_the_observation_context():
    agent = started(DecisionTreeAgent())
    feed(agent, RULES[0], "6D 9H 2S 8C AS 4S 3H KC")
    hand = tuple(parse_cards("KD KS"))
    obs = Observation("classic", 0, 1, hand, tuple(parse_cards("7C 6D 2S")), ((), ()), True)
    assert agent.predict(obs, list(hand)).tolist() == [1.0, 0.0]
    assert agent.choose_play(obs) == parse_card("KD")


def test_single_class_until_both_verdicts_are_seen():
    agent = started(DecisionTreeAgent(min_examples=1))
    context = feed(agent, "red(card)", "AD 2H 3D")  # three right plays
    assert agent.estimator_ is None
    assert agent.predict_faces(context).tolist() == [(3 + 1) / (3 + 2)] * 52
    assert agent.estimator_ is None and agent.n_fits_ == 0
    context = feed(agent, "red(card)", "4C 5S 6H 8C 9D", starter="3D")  # wrong ones too
    probabilities = agent.predict_faces(context)
    assert agent.n_fits_ == 1 and agent.estimator_ is not None
    assert probabilities[parse_card("9H").face] == 1 and probabilities[parse_card("9C").face] == 0

    # All wrong: the smoothed rate is low, and the greedy choice is still a legal card.
    agent = started(SklearnAgent())
    context = feed(agent, "red(card)", "AC 2S 3C 4S 5C 6S")
    assert agent.predict_faces(context).tolist() == [1 / 8] * 52


def test_no_model_before_min_examples():
    agent = started(DecisionTreeAgent(min_examples=6))
    context = feed(agent, RULES[0], "6D 9H 2S 8C AS")
    assert agent.predict_faces(context).tolist() == [(2 + 1) / (5 + 2)] * 52
    feed(agent, RULES[0], "4S", starter="2S")
    agent.predict_faces(context)
    assert agent.n_fits_ == 1


def test_refit_schedule_grows_geometrically():
    agent = started(DecisionTreeAgent(refit_every=1, refit_growth=0.1, refit="due"))
    fits_at = []
    rule = parse("red(card)")
    context = Context(tuple(parse_cards("7C")))
    for i in range(40):
        card = parse_card("AH" if i % 2 else "AS")
        agent.learn(context, card, rule.accepts(card, context))
        fits = agent.n_fits_
        agent.predict_faces(context)
        if agent.n_fits_ > fits:
            fits_at.append(i + 1)
    # a fit at n examples makes the next one due max(1, ceil(0.1 * n)) examples later
    assert fits_at == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 21, 24, 27, 30, 33, 37]

    agent = started(DecisionTreeAgent(refit_every=5, refit_growth=0, refit="due"))
    for i in range(20):
        card = parse_card("AH" if i % 2 else "AS")
        agent.learn(context, card, rule.accepts(card, context))
        agent.predict_faces(context)
    assert agent.n_fits_ == 4  # at 2, 7, 12 and 17 examples


def test_on_error_refits_only_when_a_new_example_is_mispredicted():
    rule = parse("red(card)")
    context = Context(tuple(parse_cards("7C")))
    agent = started(DecisionTreeAgent())  # refit="on_error"
    for card in parse_cards("AH AS 2H 2S 3H 3S 4H 4S"):
        agent.learn(context, card, rule.accepts(card, context))
        agent.predict_faces(context)
    # Fitted at 2 examples (hearts right, spades wrong): the suit or colour decides (the
    # only features that tell them apart); every later example agrees, so the tree stays.
    assert agent.n_fits_ == 1
    fitted = agent.estimator_
    # A red card judged wrong contradicts it: refitted at once (the schedule is due).
    agent.learn(context, parse_card("5H"), False)
    agent.predict_faces(context)
    assert agent.n_fits_ == 2 and agent.estimator_ is not fitted


def test_refit_is_checked():
    with pytest.raises(ValueError, match="refit must be one of on_error, due"):
        started(SklearnAgent(refit="always"))


@pytest.mark.skipif(not lean_logistic.LEAN, reason="replays scikit-learn 1.9's fit")
def test_a_warm_start_reaches_the_cold_optimum_in_fewer_iterations():
    total = {False: 0, True: 0}
    for trial, X, y, Z in _random_problems(8, trials=10):
        cold = lean_logistic.fit_pipeline(X, y, seed=0)
        first = lean_logistic.fit_pipeline(X[: len(X) * 3 // 4], y[: len(y) * 3 // 4], 0)
        warm = lean_logistic.fit_pipeline(X, y, seed=0, start=first)
        scores = [pipeline.decision_function(Z) for pipeline in (cold, warm)]
        assert np.allclose(*scores, atol=0.05), trial
        for is_warm, pipeline in ((False, cold), (True, warm)):
            total[is_warm] += int(pipeline.steps[1][1].n_iter_[0])
    assert total[True] < total[False]


def test_explore_plays_random_cards_from_the_hand():
    greedy = play_classic(RULES[0], [DecisionTreeAgent(), RandomAgent()], 8)
    exploring = play_classic(RULES[0], [DecisionTreeAgent(explore=1.0), RandomAgent()], 8)
    assert greedy.events != exploring.events
    # Exploring every time, it does no better than chance: more wrong cards than greedy.
    wrong = [sum(not e.right for e in r.events if e.seat == 0) for r in (greedy, exploring)]
    assert wrong[0] < wrong[1]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"explore": 1.5}, "explore must be a probability"),
        ({"refit_every": 0}, "refit_every must be an int >= 1"),
        ({"refit_growth": -1}, "refit_growth must be a number >= 0"),
        ({"min_examples": 0}, "min_examples must be an int >= 1"),
    ],
)
def test_bad_parameters_are_named_at_start_game(params, message):
    with pytest.raises(ValueError, match=message):
        started(DecisionTreeAgent(**params))


@pytest.mark.parametrize(
    "estimator",
    [
        LogisticRegression(max_iter=1000),
        RandomForestClassifier(n_estimators=10),
        GaussianNB(),
        KNeighborsClassifier(),
    ],
    ids=lambda estimator: type(estimator).__name__,
)
def test_any_classifier_completes_a_classic_game(estimator):
    agents = [SklearnAgent(estimator=estimator), RandomAgent(), SklearnAgent(estimator=estimator)]
    record = play_classic(RULES[1], agents, 11)
    assert record.phase2_end in ("player_out", "no_playable_card")
    assert agents[0].n_fits_ > 0 and agents[0].estimator_ is not None


def test_tree_predicts_the_three_rules_after_40_plays():
    # The target of the issue: >= 85% after 40 plays on each rule, mean over 20 seeds
    # (measured: 1.000, 1.000, 0.987; `python -m eleusis_lab.evaluation` prints them).
    for name in ("color_alternation", "parity_alternation", "suit_cycle"):
        rule = get_rule(name)
        accuracy = np.mean([prediction_accuracy(DecisionTreeAgent(), rule, s) for s in range(20)])
        assert accuracy >= 0.85, (name, accuracy)


def test_importing_the_learners_leaves_scikit_learn_unimported():
    # It takes seconds to import: a resumed run or `eleusis-lab list agents` need not pay.
    code = "import sys, eleusis_agents.learners; print('sklearn' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def _random_problems(seed: int, trials: int = 20):
    """Random feature tables of 0 .. 12, some features constant (a scale of 0, which
    scikit-learn turns into 1), labels of both kinds from a noisy linear rule."""
    rng = np.random.default_rng(seed)
    for trial in range(trials):
        n, width = int(rng.integers(5, 80)), int(rng.integers(1, 30))
        X = rng.integers(0, 13, (n, width)).astype(np.float64)
        X[:, rng.random(width) < 0.2] = 3.0
        y = (X @ rng.normal(size=width) + rng.normal(size=n) > 0).astype(int)
        y[:2] = [0, 1]
        yield trial, X, y, rng.integers(0, 13, (52, width)).astype(np.float64)


def test_the_default_pipelines_probabilities_are_scikit_learns_to_the_bit():
    """`lean_logistic.right_probabilities` against ``predict_proba``."""
    from eleusis_agents.lean_logistic import right_column, right_probabilities

    for trial, X, y, Z in _random_problems(5):
        pipeline = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        pipeline.fit(X, y)
        expected = pipeline.predict_proba(Z)[:, right_column(pipeline)]
        assert np.array_equal(right_probabilities(pipeline, Z), expected), trial


@pytest.mark.skipif(not lean_logistic.LEAN, reason="replays scikit-learn 1.9's fit")
def test_the_default_pipelines_fit_is_scikit_learns_to_the_bit(monkeypatch):
    """`lean_logistic.fit_pipeline` against the pipeline's ``fit``: the same scaler, the
    same coefficients, iterations and probabilities; without ``max_iter`` iterations
    (lowered here) the same warning."""
    for trial, X, y, Z in _random_problems(6):
        seed = trial + 1
        ours = lean_logistic.fit_pipeline(X, y, seed)
        theirs = make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=1000, random_state=seed)
        )
        theirs.fit(X.copy(), y)
        (_, our_scaler), (_, our_logistic) = ours.steps
        (_, their_scaler), (_, their_logistic) = theirs.steps
        for name in ("mean_", "var_", "scale_"):
            assert np.array_equal(getattr(our_scaler, name), getattr(their_scaler, name)), trial
        for name in ("coef_", "intercept_", "classes_", "n_iter_"):
            assert np.array_equal(getattr(our_logistic, name), getattr(their_logistic, name)), trial
        assert our_logistic.n_features_in_ == their_logistic.n_features_in_
        assert np.array_equal(ours.predict_proba(Z), theirs.predict_proba(Z)), trial
    X, y = next(_random_problems(7))[1:3]
    monkeypatch.setattr(lean_logistic, "MAX_ITER", 2)
    with pytest.warns(ConvergenceWarning, match="failed to converge after 2 iteration"):
        pipeline = lean_logistic.fit_pipeline(X, y, seed=0)
    assert pipeline.steps[1][1].n_iter_.tolist() == [2]


@pytest.mark.skipif(not lean_logistic.LEAN, reason="replays scikit-learn 1.9's fit")
def test_the_default_agent_plays_the_same_game_fitted_either_way(monkeypatch):
    """Fitted by `lean_logistic` or through scikit-learn's pipeline, the default agent
    makes the same plays: the records of a game are equal."""

    def game():
        agents = [SklearnAgent(warm_start=False), RandomAgent(), RandomAgent()]
        record = play_classic("color(card) != color(last)", agents, seed=3)
        return record, agents[0].n_fits_

    lean, fits = game()
    monkeypatch.setattr(lean_logistic, "LEAN", False)
    assert game() == (lean, fits) and fits > 5
