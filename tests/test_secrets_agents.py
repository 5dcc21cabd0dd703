"""The Secrets agents: their contract (a check in the spirit of check_agent), the registry
and the heuristic's decisions on hand-built positions; tournaments on the runner.

Secrets agents are not Eleusis agents: they live in their own entry-point group, so the
Eleusis registry and conformance suite (tests/test_testing.py) never meet them.
"""

import pickle

import numpy as np
import pandas as pd
import pytest

from eleusis_agents.secrets import (
    HeuristicSecretsAgent,
    RandomSecretsAgent,
    SearchSecretsAgent,
    exit_costs,
    position_value,
)
from eleusis_lab import load_results
from eleusis_lab.agent import Agent
from eleusis_lab.cards import parse_card
from eleusis_lab.errors import ConfigError
from eleusis_lab.registry import AgentSpecError, UnknownAgentError, available_agents, make_agent
from eleusis_lab.secrets.agent import (
    SecretsAgent,
    SecretsDuel,
    SecretsInfo,
    available_secrets_agents,
    clone,
    make_secrets_agent,
    parse_secrets_agent_list,
)
from eleusis_lab.secrets.game import (
    SecretsConfig,
    SecretsRecord,
    play_secrets,
    replay_secrets,
    secrets_deal,
    secrets_outcome,
)
from eleusis_lab.secrets.moves import JACK, parse_action, parse_square
from eleusis_lab.secrets.state import SecretsState
from eleusis_lab.secrets.tournament import (
    secrets_summary,
    secrets_tournament,
)
from eleusis_lab.shards import game_seed
from eleusis_lab.storage import read_metadata

#: Each registered agent as the checks play it (the search with a small budget: fast).
CHECKED = {
    "secrets-random": {},
    "secrets-heuristic": {},
    "secrets-search": {"budget": 2, "horizon": 4},
}
FAST = SecretsConfig(on_fault="raise")


def others():
    return [make_secrets_agent("secrets-random") for _ in range(3)]


def check_secrets_agent(agent: SecretsAgent) -> None:
    """The contract of a Secrets agent, after eleusis_lab.testing.check_agent."""
    name = type(agent).__name__
    params = agent.get_params()
    # parameters: round trip, clone, and a constructor that only stores them
    assert type(agent)(**params).get_params() == params, f"{name}: get_params round trip"
    assert clone(agent).get_params() == params and clone(agent) is not agent
    assert agent.set_params(**params) is agent
    with pytest.raises(ValueError):
        agent.set_params(no_such_parameter=1)
    assert not [attr for attr in vars(type(agent)(**params)) if attr.endswith("_")]
    # legal actions only, in every seat (on_fault="raise" turns any fault into an error)
    for seat in range(4):
        table = others()
        table.insert(seat, clone(agent))
        record = play_secrets(table, seed=seat, config=FAST)
        assert not record.faults and replay_secrets(record) == []
    # same seed, same game, whatever was played before
    first = play_secrets([clone(agent), *others()], seed=7)
    used = clone(agent)
    play_secrets([used, *others()], seed=8)
    assert play_secrets([used, *others()], seed=7).steps == first.steps, f"{name}: same seed"
    # picklable before and after a game, into an agent that plays alike
    fresh = pickle.loads(pickle.dumps(clone(agent)))
    assert play_secrets([fresh, *others()], seed=7).steps == first.steps
    played = pickle.loads(pickle.dumps(used))
    assert play_secrets([played, *others()], seed=7).steps == first.steps


@pytest.mark.parametrize("name", sorted(available_secrets_agents()))
def test_every_registered_secrets_agent_passes_the_checks(name):
    check_secrets_agent(make_secrets_agent(name, **CHECKED.get(name, {})))


def test_registry_keeps_secrets_agents_apart_from_eleusis_agents():
    secrets = available_secrets_agents()
    assert set(CHECKED) <= set(secrets)
    assert not set(secrets) & set(available_agents())  # the Eleusis checks never see them
    with pytest.raises(UnknownAgentError):
        make_agent("secrets-random")
    with pytest.raises(UnknownAgentError, match="secrets-heuristic"):
        make_secrets_agent("heuristic")
    with pytest.raises(AgentSpecError, match="not a SecretsAgent"):
        make_secrets_agent("eleusis_agents.simple:RandomAgent")
    with pytest.raises(AgentSpecError, match="takes no parameter"):
        make_secrets_agent("secrets-search", depth=3)
    assert (
        type(make_secrets_agent("eleusis_agents.secrets:SearchSecretsAgent")) is SearchSecretsAgent
    )
    assert not issubclass(SearchSecretsAgent, Agent)
    agents = parse_secrets_agent_list("secrets-random,secrets-heuristic,secrets-search")
    assert [type(a) for a in agents] == [
        RandomSecretsAgent,
        HeuristicSecretsAgent,
        SearchSecretsAgent,
    ]


# -- the heuristic's decisions ----------------------------------------------------------------


def decide(agent, state):
    agent.start_game(SecretsInfo(state.seat, 2, (), {}), np.random.default_rng(0))
    return str(agent.choose_action(state.view(state.seat), tuple(state.legal_actions())))


@pytest.mark.parametrize("agent", [HeuristicSecretsAgent(), SearchSecretsAgent(budget=3)], ids=repr)
def test_banks_the_jack_and_takes_enemy_jacks(agent):
    assert decide(agent, SecretsState.from_layout({"b8": "JH", "a1": "KH"})) == "out"
    state = SecretsState.from_layout({"a7": "JH", "a8": "JS"}, ["QS 3C", "", "", ""])
    assert decide(agent, state) == "take a8 QS"


def test_heuristic_avoids_death_and_duels_with_a_low_card():
    # a face-up enemy ace ahead, an empty square aside
    state = SecretsState.from_layout({"a4": "JH", "a5": "AS", "b5": "3H"})
    assert decide(HeuristicSecretsAgent(), state) == "b4"
    # a duel: the lowest plain card, never the queen
    state = SecretsState.from_layout({"a7": "JH", "a8": "9C"}, ["QD 8S 2S", "", "", ""])
    assert decide(HeuristicSecretsAgent(), state) == "a8/2S"


def test_heuristic_goes_round_a_secret_with_the_jack_but_hunts_with_the_king():
    layout = {"b4": "JH", "b5": "?AS", "c5": "?AC", "a5": "5H", "a6": "6H"}
    state = SecretsState.from_layout(layout, ["2D", "", "", ""])
    assert decide(HeuristicSecretsAgent(), state) == "a4"
    layout = {"b4": "KH", "b5": "?QS", "a4": "5H", "b3": "6H"}
    state = SecretsState.from_layout(layout, ["2D", "", "", ""])
    assert decide(HeuristicSecretsAgent(), state) == "b5"


def test_heuristic_beats_only_when_it_pays():
    agent = HeuristicSecretsAgent()
    view = secrets_deal(0).view(2)
    jh, kh, low, ace = (parse_card(t) for t in ("JH", "KH", "3C", "AC"))
    sent = parse_card("2C")
    forward = SecretsDuel(0, jh, parse_square("a3"), parse_square("a4"), sent, sent, (low, ace))
    assert agent.answer_duel(view, forward) == low  # a jack moving right: beat, cheaply
    back = SecretsDuel(0, jh, parse_square("a4"), parse_square("a3"), sent, sent, (low,))
    assert agent.answer_duel(view, back) is None
    king = SecretsDuel(0, kh, parse_square("a3"), parse_square("a4"), sent, sent, (low,))
    assert agent.answer_duel(view, king) is None
    only_ace = SecretsDuel(0, jh, parse_square("a3"), parse_square("a4"), sent, sent, (ace,))
    assert agent.answer_duel(view, only_ace) is None
    assert HeuristicSecretsAgent(beat=False).answer_duel(view, forward) is None


def test_exit_costs_and_position_value():
    board = [None] * 32
    board[parse_square("a5")] = parse_card("AS")  # a face-up enemy ace cannot be crossed
    costs = exit_costs(board, [None] * 32, [], suit=2, duel_cost=2.0, risk=0.0)
    assert costs[parse_square("a4")] > costs[parse_square("b4")]
    banked = SecretsState.from_layout({}, ["JH", "", "", ""])
    assert position_value(banked, 0) == 1000.0
    on_board = SecretsState.from_layout({"a8": "JH"})
    assert 990 < position_value(on_board, 0) < 1000


def test_search_with_no_budget_plays_as_the_heuristic():
    state = secrets_deal(3)
    for _ in range(8):
        legal = state.legal_actions()
        if not legal:
            break
        heuristic = decide(HeuristicSecretsAgent(), state)
        assert decide(SearchSecretsAgent(budget=0), state) == heuristic
        state.apply(parse_action(heuristic))


# -- the tournament -----------------------------------------------------------------------------


TOURNAMENT = [
    "secrets-heuristic",
    ("secrets-search", {"budget": 1, "horizon": 2}),
    "secrets-random",
    "secrets-random",
]


@pytest.fixture(scope="module")
def tournament():
    return secrets_tournament(TOURNAMENT, games=8, seed=3)


def replayed(rows) -> SecretsRecord:
    """The game of a tournament's rows, played again by its agents at its seed."""
    entries = [TOURNAMENT[slot] for slot in rows["slot"]]
    specs = [entry if isinstance(entry, tuple) else (entry, {}) for entry in entries]
    agents = [make_secrets_agent(name, **params) for name, params in specs]
    return play_secrets(agents, int(rows["seed"].iloc[0]))


def test_a_tournament_plays_each_deal_from_every_seat(tournament):
    rows = tournament
    assert len(rows) == 32
    deal = rows["game"] // 4
    assert (rows["seed"] == [game_seed(3, d) for d in deal]).all()  # the runner's seeds
    assert rows.groupby(deal)["seed"].nunique().eq(1).all() and rows["seed"].nunique() == 2
    for agent in ("secrets-heuristic", "secrets-search(budget=1, horizon=2)"):
        mine = rows[rows["agent"] == agent]
        assert all(sorted(seats) == [0, 1, 2, 3] for _, seats in mine.groupby(deal)["seat"])
    assert (rows.groupby("game")["win"].sum() == 1.0).all()
    plain = secrets_tournament(TOURNAMENT[:2], games=4, seed=3, duplicate=False)
    assert list(plain.groupby("game")["seed"].first()) == [game_seed(3, g) for g in range(4)]


def test_tournament_rows_are_the_games_played_at_their_seeds(tournament):
    for _, rows in tournament.groupby("game"):
        record = replayed(rows)
        assert list(rows["score"]) == list(record.scores)
        assert list(rows["rank"]) == list(record.ranks)
        assert list(rows["cards_left"]) == [len(hand) for hand in record.hands]
        assert (rows["end"] == record.end).all() and rows["plays"].sum() == record.turns


def test_tournament_rows_do_not_depend_on_the_workers():
    duo = ["secrets-heuristic", "secrets-random"]
    one = secrets_tournament(duo, games=12, seed=3)  # two shards
    pd.testing.assert_frame_equal(secrets_tournament(duo, games=12, seed=3, n_jobs=2), one)


def test_the_summary_counts_wins_places_and_jacks(tournament):
    summary = secrets_summary(tournament, by=["agent", "seat"])
    assert summary["seats"].sum() == 32 and summary.index.names == ["agent", "seat"]
    by_agent = secrets_summary(tournament)
    assert by_agent.loc["secrets-random", "seats"] == 16  # two entries, one agent
    jacks = []  # the heuristic's jacks in hand at the end of each game, from the records
    for _, rows in tournament.groupby("game"):
        hands = replayed(rows).hands
        seats = rows.loc[rows["agent"] == "secrets-heuristic", "seat"]
        jacks += [sum(card.rank == JACK for card in hands[seat]) for seat in seats]
    assert by_agent.loc["secrets-heuristic", "mean_jacks"] == pytest.approx(np.mean(jacks))


def test_an_agent_object_plays_anew_from_its_class_and_parameters():
    cautious = HeuristicSecretsAgent(caution=0.5)
    rows = secrets_tournament([cautious, "secrets-random"], games=2, seed=4)
    assert set(rows["agent"]) == {"HeuristicSecretsAgent(caution=0.5, beat=True)", "secrets-random"}
    game = rows[rows["game"] == 1]
    agents = [clone(cautious) if slot == 0 else RandomSecretsAgent() for slot in game["slot"]]
    assert list(game["score"]) == list(play_secrets(agents, int(game["seed"].iloc[0])).scores)


def test_a_kept_tournament_is_resumed(tmp_path):
    first = secrets_tournament(["secrets-random"] * 2, games=4, seed=1, out=tmp_path)
    assert len(load_results(tmp_path)) == 16
    again = secrets_tournament(["secrets-random"] * 2, games=4, seed=1, out=tmp_path)
    assert read_metadata(tmp_path)["runs"][-1]["shards_run"] == 0
    pd.testing.assert_frame_equal(again, first)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"agents": ["secrets-rnadom"]}, "spec: agents[0]: unknown agent 'secrets-rnadom'"),
        ({"agents": ["random"]}, "spec: agents[0]: unknown agent 'random'"),
        ({"games": 3}, "spec: games: 3 is not a multiple of 2"),
        ({"seed": -1}, "spec: seed: must be >= 0, got -1"),
        ({"config": {"max_turns": 9}}, "config must be a SecretsConfig"),
        ({"agents": "secrets-random"}, "agents is a list of agent specs"),
    ],
)
def test_bad_tournaments_are_config_errors(changes, expected):
    call = {"agents": ["secrets-random"] * 2, "games": 2, "seed": 0, **changes}
    with pytest.raises(ConfigError) as caught:
        secrets_tournament(**call)
    assert str(caught.value).startswith(expected)


def test_outcome_for_the_runner():
    record = play_secrets([make_secrets_agent("secrets-random") for _ in range(4)], seed=0)
    outcome = secrets_outcome(record)
    assert outcome.end == record.end and outcome.dealer_score is None
    assert outcome.cards_left == tuple(len(hand) for hand in record.hands)
