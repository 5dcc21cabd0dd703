"""Classic matches: the dealer rotation, the totals, the rule draws, the errors."""

from collections import Counter

import pytest

from eleusis_agents.simple import OracleAgent, RandomAgent
from eleusis_lab.errors import ConfigError
from eleusis_lab.games.classic import ClassicConfig, ClassicMatch, play_match
from eleusis_lab.record import replay
from eleusis_lab.rules import parse

RULES = [parse("color(card) != color(last)"), parse("suit(card) == (suit(last) + 1) mod 4")]


def participants(n):
    return [OracleAgent() if i == 0 else RandomAgent() for i in range(n)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_everyone_deals_twice_and_the_deal_passes_left(n):
    result = play_match(participants(n), seed=2, rules=RULES)
    assert len(result.games) == 2 * n
    assert Counter(result.dealers) == {k: 2 for k in range(n)}
    assert list(result.dealers) == [*range(n), *range(n)]
    for dealer, seats, record in zip(result.dealers, result.seats, result.games, strict=True):
        assert seats == tuple((dealer + 1 + i) % n for i in range(n - 1))
        assert record.n_players == n - 1
        assert [agent["name"] for agent in record.agents] == [
            "OracleAgent" if who == 0 else "RandomAgent" for who in seats
        ]


def test_totals_are_the_sum_of_the_games_scores():
    result = play_match(participants(4), seed=5, rules=RULES, deals_per_player=3)
    totals = [0.0] * 4
    for dealer, seats, record in zip(result.dealers, result.seats, result.games, strict=True):
        totals[dealer] += record.dealer_score
        for seat, who in enumerate(seats):
            totals[who] += record.player_scores[seat]
    assert result.totals == pytest.approx(totals)
    assert len(result.games) == 12
    assert result.winners == [i for i, t in enumerate(totals) if t == max(totals)]


def test_every_game_replays_and_has_its_own_seed():
    result = play_match(participants(3), seed=9, rules=RULES, config=ClassicConfig(max_turns=50))
    assert all(replay(record) == [] for record in result.games)
    assert len({record.seed for record in result.games}) == len(result.games)
    assert all(record.config["max_turns"] == 50 for record in result.games)


def test_rules_are_drawn_from_the_pool():
    result = play_match(participants(3), seed=1, rules=RULES, deals_per_player=6)
    assert {record.rule for record in result.games} == {str(rule) for rule in RULES}
    fixed = play_match(participants(3), seed=1, rules="red(card)")
    assert {record.rule for record in fixed.games} == {"red(card)"}


def test_same_seed_same_match():
    first = play_match(participants(3), seed=4, rules=RULES)
    again = play_match(participants(3), seed=4, rules=RULES)
    assert first.to_json() == again.to_json()
    other = play_match(participants(3), seed=5, rules=RULES)
    assert other.to_json() != first.to_json()


def test_json_round_trip_and_summary():
    result = play_match(participants(3), seed=0, rules=RULES)
    assert ClassicMatch.from_json(result.to_json()) == result
    summary = result.summary()
    assert "total" in summary and "winner" in summary
    # title, blank, legend, header, 6 games, blank, the rules dealt with their figures,
    # blank, header, 3 participants
    rules = len({game.rule for game in result.games})
    assert len(summary.splitlines()) == 2 + 2 + 6 + 1 + 1 + 2 * rules + 1 + 1 + 3
    assert summary.count("context classes") == rules
    # each game row shows one dealer score, marked, and the other participants' scores
    for game, row in zip(result.games, summary.splitlines()[4:10], strict=True):
        assert row.count("*") == 1 and f"{game.dealer_score:g}*" in row


@pytest.mark.parametrize("n", [0, 1, 2])
def test_too_few_participants(n):
    with pytest.raises(ConfigError, match=f"at least 3 participants .*got {n}"):
        play_match(participants(n), seed=0, rules=RULES)


def test_bad_settings():
    with pytest.raises(ConfigError, match="deals_per_player"):
        play_match(participants(3), seed=0, rules=RULES, deals_per_player=0)
    with pytest.raises(ConfigError, match="at least one rule"):
        play_match(participants(3), seed=0, rules=[])
