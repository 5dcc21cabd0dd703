"""The one-card language as extra columns of a hypothesis space."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eleusis_agents.faces import mask_verdicts, one_card_language
from eleusis_agents.one_card_space import OneCardSpace, card_only_masks, with_one_card
from eleusis_lab.cards import parse_cards
from eleusis_lab.rules import Context, parse
from eleusis_lab.rules.enumerate import build_space


@pytest.fixture(scope="module", params=[2000, 2003])  # added columns on a byte, or not
def spaces(request):
    base = build_space("colours_suits", max_hypotheses=request.param, cache=False)
    return base, OneCardSpace(base, 0.25)


def test_the_base_columns_are_unchanged_and_the_added_ones_are_their_masks(spaces):
    base, space = spaces
    n = len(base)
    bits = np.unpackbits(space.table, axis=1, bitorder="little")
    old = np.unpackbits(base.table, axis=1, bitorder="little")[:, :n]
    assert (bits[:, :n] == old).all()
    added = mask_verdicts(space.masks).T  # (52, m)
    assert (bits[:, n : len(space)] == np.tile(added, (len(space.contexts), 1))).all()
    assert not bits[:, len(space) :].any()  # padding
    h = n + 7
    assert (space.verdicts(h) == added[:, 7][None, :]).all()


def test_the_prior_is_the_mixture_of_the_two_languages(spaces):
    base, space = spaces
    language = one_card_language()
    assert math.fsum(np.exp(space.log_prior)) == pytest.approx(1.0)
    red = base.index_of(parse("red(card)"))
    in_language = language.log_prior[language.index(parse("red(card)").legal_mask(Context()))]
    expected = 0.75 * math.exp(base.log_prior[red]) + 0.25 * math.exp(in_language)
    assert math.exp(space.log_prior[red]) == pytest.approx(expected)
    held = np.isin(language.masks, card_only_masks(base)[1])  # added once, not twice
    assert held.sum() > 0 and len(space) == len(base) + len(language) - held.sum()


def test_index_of_and_text_find_both_kinds(spaces):
    base, space = spaces
    for text in ("color(card) != color(last)", "red(card)"):
        assert space.index_of(parse(text)) == base.index_of(parse(text))
    text = "if red(card) then low(card) else high(card)"
    h = space.index_of(parse(text))
    assert h >= len(base) and space.text(h) == text and space.rule(h) == parse(text)
    assert space.index_of(parse("rank(card) > rank(last)")) is None
    assert space.fewest_right[h] == 26
    after = space.context_index(Context(tuple(parse_cards("5H"))))
    assert after == base.context_index(Context(tuple(parse_cards("5H"))))


def test_no_mass_is_the_base_space_itself():
    base = build_space("colours_suits", max_hypotheses=100, cache=False)
    assert with_one_card(base, 0.0) is base
    assert with_one_card(base, 0.5) is with_one_card(base, 0.5)  # cached
    with pytest.raises(ValueError):
        OneCardSpace(base, 1.0)
