"""The one-card language: distinct masks, a proper prior, texts that say their masks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eleusis_agents.faces import face_mask, mask_verdicts, one_card_language
from eleusis_lab.cards import N_FACES, parse_cards
from eleusis_lab.rules import Context, parse

AFTER = Context(tuple(parse_cards("2C QH")), True)


def test_masks_are_distinct_sorted_and_their_prior_sums_to_one():
    language = one_card_language()
    assert (np.diff(language.masks.astype(np.float64)) > 0).all()
    assert math.fsum(np.exp(language.log_prior)) == pytest.approx(1.0, abs=1e-9)
    # A mask's mass is at least that of its likeliest writing.
    assert (language.log_prior >= -language.bits * math.log(2) - 1e-9).all()
    assert len(language.texts) == len(language)


def test_no_mask_is_true_or_false():
    masks = one_card_language().masks
    assert masks.min() > 0 and masks.max() < (1 << N_FACES) - 1


def test_every_text_parses_to_exactly_its_mask_on_an_empty_and_a_nonempty_line():
    language = one_card_language()
    for mask, text in zip(language.masks, language.texts, strict=True):
        rule = parse(text)
        assert set(rule.slots) <= {"card"}, text
        assert rule.legal_mask(Context()) == int(mask), text
        assert rule.legal_mask(AFTER) == int(mask), text


@pytest.mark.parametrize(
    "text",
    [
        "rank(card) == king",
        "red(card) and face(card)",
        "rank(card) >= 3 and rank(card) <= 8",
        "rank(card) in {1, 4, 9}",
        "rank(card) < 5 or rank(card) > 9",
        "suit(card) == hearts or rank(card) == king",
        "if red(card) then low(card) else high(card)",
        "black(card) and high(card)",
    ],
)
def test_one_sentence_rules_on_the_card_cost_few_bits(text):
    language = one_card_language()
    index = language.index(parse(text).legal_mask(Context()))
    assert index is not None
    assert language.bits[index] < 20


def test_masks_and_verdicts_are_inverse():
    rng = np.random.default_rng(0)
    right = rng.random((5, N_FACES)) < 0.5
    assert (mask_verdicts(face_mask(right)) == right).all()
