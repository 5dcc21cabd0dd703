"""The Bayesian agents with the one-card language: its face sets are hypotheses too."""

from __future__ import annotations

import numpy as np
import pytest
from test_bayes import TINY, play, started

from eleusis_agents.bayes import BayesAgent
from eleusis_agents.bayes_context import ContextBayesAgent
from eleusis_agents.faces import mask_verdicts
from eleusis_lab.cards import parse_card
from eleusis_lab.games.solo import play_solo, replay_solo
from eleusis_lab.rules import parse

PLAYS = [("QH", True), ("2C", False), ("KS", True), ("9D", False), ("JD", True), ("4H", False)]


def test_a_face_set_counts_its_mismatches_as_its_mask_says():
    agent = started(BayesAgent(TINY, 6, one_card=0.5))
    space = agent.space
    assert len(space) > 10_000  # six rules of TINY, the rest face sets
    for card, right in PLAYS:
        play(agent, card, right)
    faces = np.array([parse_card(card).face for card, _ in PLAYS])
    verdicts = np.array([right for _, right in PLAYS])
    said = mask_verdicts(space.masks)[:, faces]  # (added, plays)
    expected = (said != verdicts).sum(axis=1)
    assert (agent.mismatches_[len(space.base) : len(space)] == expected).all()
    # The best hypothesis explains every play: here a face set (TINY has no rank).
    best, _ = agent.propose_rule()
    h = space.index_of(parse(best))
    assert h >= len(space.base) and expected[h - len(space.base)] == 0


@pytest.mark.parametrize("cls", [BayesAgent, ContextBayesAgent])
def test_solo_finds_a_sentence_the_grammar_cannot_write(cls):
    rule = "rank(card) >= 3 and rank(card) <= 8"  # colours and suits have no ranks
    solo = {"acceptability": "auto", "one_card": 0.25}  # the solo settings
    record = play_solo(rule, cls("colours_suits", 2000, **solo), seed=0)
    assert record.success and replay_solo(record) == []
    assert record.declarations[-1].text == rule
    assert not play_solo(rule, cls("colours_suits", 2000, one_card=0), seed=0).success
