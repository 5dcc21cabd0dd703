"""The feature encoder: every column against hand-computed values and against rules."""

import numpy as np
import pytest

from eleusis_lab.cards import parse_card, parse_cards, standard_deck
from eleusis_lab.features import FEATURE_NAMES, N_FEATURES, encode, encode_many, feature_index
from eleusis_lab.rules import Context, parse

DECK = standard_deck()


def features(context: Context, card: str) -> dict[str, float]:
    row = encode(context, [parse_card(card).face])[0].tolist()
    return dict(zip(FEATURE_NAMES, row, strict=True))


def test_names_and_shapes():
    assert len(FEATURE_NAMES) == len(set(FEATURE_NAMES)) == N_FEATURES
    X = encode(Context(tuple(parse_cards("7S QH"))))
    assert X.shape == (52, N_FEATURES) and X.dtype == np.float64
    assert encode(Context(), []).shape == (0, N_FEATURES)
    assert feature_index("card_rank") == 0
    with pytest.raises(KeyError, match="no feature named 'colour'"):
        feature_index("colour")


def test_every_column_after_7s_qh():
    # After 7S then QH (the last play right), the candidate 3D, column by column.
    expected = {
        # the candidate 3D
        "card_rank": 3, "card_suit": 1, "card_color": 1, "card_parity": 1,
        "card_face": 0, "card_high": 0, "card_prime": 1,
        # 3D against QH
        "same_rank_last": 0, "same_suit_last": 0, "same_color_last": 1,
        "same_parity_last": 0, "same_face_last": 0, "same_high_last": 0,
        "same_prime_last": 0, "higher_last": 0, "lower_last": 1,
        "rank_diff_last": -9, "rank_diff_mod13_last": 4, "rank_sum_last": 15,
        "suit_diff_mod4_last": 3,  # (diamonds - hearts) mod 4
        "suit_eq_last_rank_mod4": 0,  # 12 mod 4 = 0 (clubs), not diamonds
        "rank_mod4_eq_last_suit": 0,  # 3 mod 4 = 3, hearts = 2
        "color_eq_last_parity": 0,  # red card, even queen
        "parity_eq_last_color": 1,  # odd card, red queen
        # 3D against 7S
        "same_rank_prev": 0, "same_suit_prev": 0, "same_color_prev": 0,
        "same_parity_prev": 1, "higher_prev": 0, "lower_prev": 1,
        "rank_diff_mod13_prev": 9, "suit_diff_mod4_prev": 2,
        # QH, then 7S
        "last_present": 1, "last_rank": 12, "last_suit": 2, "last_color": 1,
        "last_parity": 0, "last_face": 1, "last_high": 1, "last_prime": 0,
        "prev_present": 1, "prev_rank": 7, "prev_suit": 3, "prev_color": 0,
        "prev_parity": 1, "prev_face": 0, "prev_high": 0, "prev_prime": 1,
        # QH against 7S
        "last_prev_same_rank": 0, "last_prev_same_suit": 0, "last_prev_same_color": 0,
        "last_prev_same_parity": 0, "last_prev_higher": 1, "last_prev_lower": 0,
        "last_prev_rank_diff_mod13": 5, "last_prev_suit_diff_mod4": 3,
        # two cards, the last play right, and no run longer than one card
        "length_mod2": 0, "length_mod3": 2, "length_mod4": 2,
        "last_play_right": 1, "last_play_wrong": 0,
        "run_rank": 1, "run_suit": 1, "run_color": 1, "run_parity": 1,
        "run_face": 1, "run_high": 1, "run_prime": 1,
    }  # fmt: skip
    assert set(expected) == set(FEATURE_NAMES)
    context = Context(tuple(parse_cards("7S QH")), last_play_right=True)
    assert features(context, "3D") == expected


def test_cross_attributes_and_runs():
    # After 2H 4D 6H 8D: 8 mod 4 = 0, so clubs; four reds, four evens, three non-primes.
    context = Context(tuple(parse_cards("2H 4D 6H 8D")), last_play_right=False)
    row = features(context, "4C")
    assert row["suit_eq_last_rank_mod4"] == 1 and row["rank_mod4_eq_last_suit"] == 0
    assert row["color_eq_last_parity"] == 1  # black card, even last
    assert row["parity_eq_last_color"] == 0  # even card, red last
    assert row["rank_diff_last"] == -4 and row["rank_diff_mod13_last"] == 9
    assert (row["last_play_right"], row["last_play_wrong"]) == (0, 1)
    assert (row["length_mod2"], row["length_mod3"], row["length_mod4"]) == (0, 1, 0)
    runs = {name: row[f"run_{name}"] for name in ("rank", "suit", "color", "parity")}
    assert runs == {"rank": 1, "suit": 1, "color": 4, "parity": 4}
    assert (row["run_face"], row["run_high"], row["run_prime"]) == (4, 1, 3)
    # 5D on 4C: 5 mod 4 = 1 = diamonds; the suit cycle clubs -> diamonds.
    row = features(Context(tuple(parse_cards("4C"))), "5D")
    assert row["rank_mod4_eq_last_suit"] == 0 and row["suit_diff_mod4_last"] == 1
    assert features(Context(tuple(parse_cards("5D"))), "2S")["rank_mod4_eq_last_suit"] == 0
    assert features(Context(tuple(parse_cards("4D"))), "5S")["rank_mod4_eq_last_suit"] == 1


def test_missing_cards():
    empty = features(Context(), "KS")
    assert empty["last_present"] == empty["prev_present"] == 0
    for name in FEATURE_NAMES:
        of_a_card = name.startswith(("last_", "prev_")) and not name.startswith("last_play")
        if of_a_card and not name.endswith("_present"):
            assert empty[name] == -1, name
        if name.endswith(("_last", "_prev")) or "_eq_last_" in name:
            assert empty[name] == (0 if name == "rank_diff_last" else -1), name
    assert empty["card_rank"] == 13 and empty["card_suit"] == 3
    assert empty["run_color"] == 0 and empty["length_mod3"] == 0
    assert empty["last_play_right"] == empty["last_play_wrong"] == 0

    one = features(Context(tuple(parse_cards("9C"))), "9H")
    assert one["last_present"] == 1 and one["prev_present"] == 0
    assert one["same_rank_last"] == 1 and one["rank_diff_last"] == 0
    assert one["prev_rank"] == -1 and one["same_color_prev"] == -1
    assert one["last_prev_same_color"] == -1 and one["run_color"] == 1


# Each relation as a rule: the column must agree with the rule's verdict on every card.
RELATIONS_AS_RULES = {
    "same_color_last": "color(card) == color(last)",
    "same_suit_last": "suit(card) == suit(last)",
    "same_parity_last": "parity(card) == parity(last)",
    "same_rank_last": "rank(card) == rank(last)",
    "same_face_last": "face(card) == face(last)",
    "same_high_last": "high(card) == high(last)",
    "same_prime_last": "prime(card) == prime(last)",
    "higher_last": "rank(card) > rank(last)",
    "lower_last": "rank(card) < rank(last)",
    "suit_eq_last_rank_mod4": "suit(card) == rank(last) mod 4",
    "rank_mod4_eq_last_suit": "rank(card) mod 4 == suit(last)",
    "color_eq_last_parity": "color(card) == parity(last)",
    "parity_eq_last_color": "parity(card) == color(last)",
    "same_color_prev": "color(card) == color(prev)",
    "same_suit_prev": "suit(card) == suit(prev)",
    "same_parity_prev": "parity(card) == parity(prev)",
    "same_rank_prev": "rank(card) == rank(prev)",
    "higher_prev": "rank(card) > rank(prev)",
    "lower_prev": "rank(card) < rank(prev)",
    "last_prev_same_color": "color(last) == color(prev)",
    "last_prev_higher": "rank(last) > rank(prev)",
    "last_play_right": "last_play_right",
}
VALUED_AS_RULES = {
    "rank_diff_last": ("rank(card) - rank(last) == {v}", range(-12, 13)),
    "rank_diff_mod13_last": ("(rank(card) - rank(last)) mod 13 == {v}", range(13)),
    "rank_sum_last": ("rank(card) + rank(last) == {v}", range(2, 27)),
    "suit_diff_mod4_last": ("(suit(card) - suit(last)) mod 4 == {v}", range(4)),
    "rank_diff_mod13_prev": ("(rank(card) - rank(prev)) mod 13 == {v}", range(13)),
    "suit_diff_mod4_prev": ("(suit(card) - suit(prev)) mod 4 == {v}", range(4)),
    "last_prev_rank_diff_mod13": ("(rank(last) - rank(prev)) mod 13 == {v}", range(13)),
    "length_mod3": ("length mod 3 == {v}", range(3)),
    "run_color": ("run(color) == {v}", range(1, 8)),
    "run_parity": ("run(parity) == {v}", range(1, 8)),
}


def random_contexts(count: int, seed: int = 0) -> list[Context]:
    rng = np.random.default_rng(seed)
    contexts = []
    for _ in range(count):
        length = int(rng.integers(2, 12))
        line = tuple(DECK[i] for i in rng.choice(52, size=length, replace=False))
        contexts.append(Context(line, bool(rng.integers(2))))
    # Runs need lines that repeat a feature: all-red and all-odd lines.
    contexts.append(Context(tuple(parse_cards("AH 3D 5H 7D 9H JD KH")), True))
    contexts.append(Context(tuple(parse_cards("AC 3D 5H 7S 9C")), False))
    return contexts


@pytest.mark.parametrize("name", sorted(RELATIONS_AS_RULES))
def test_relation_columns_agree_with_the_rules(name):
    rule = parse(RELATIONS_AS_RULES[name])
    for context in random_contexts(40):
        column = encode(context)[:, feature_index(name)]
        assert np.array_equal(column == 1, rule.legal_faces(context)), context.describe()


@pytest.mark.parametrize("name", sorted(VALUED_AS_RULES))
def test_valued_columns_agree_with_the_rules(name):
    template, values = VALUED_AS_RULES[name]
    rules = {value: parse(template.format(v=value)) for value in values}
    for context in random_contexts(25):
        column = encode(context)[:, feature_index(name)]
        for value, rule in rules.items():
            assert np.array_equal(column == value, rule.legal_faces(context)), (value, context)


def test_runs_agree_with_context_run():
    for context in random_contexts(60, seed=1):
        row = encode(context, [0])[0]
        for feature in ("rank", "suit", "color", "parity", "face", "high", "prime"):
            assert row[feature_index(f"run_{feature}")] == context.run(feature)


def test_context_columns_are_the_same_for_every_candidate():
    X = encode(Context(tuple(parse_cards("3H 9C KD")), False))
    first_context_column = feature_index("last_present")
    assert (X[:, first_context_column:] == X[0, first_context_column:]).all()
    assert X[:, feature_index("card_rank")].tolist() == [r for _ in range(4) for r in range(1, 14)]


def test_subsets_and_encode_many_match_encode():
    contexts = random_contexts(30, seed=2) + [Context(), Context(tuple(parse_cards("4S")))]
    faces = np.random.default_rng(3).integers(52, size=len(contexts))
    rows = np.vstack([encode(c, [f]) for c, f in zip(contexts, faces, strict=True)])
    assert np.array_equal(encode_many(contexts, faces), rows)
    for context, face in zip(contexts, faces, strict=True):
        assert np.array_equal(encode(context, [face, 5])[0], encode(context)[face])
    assert encode_many([], []).shape == (0, N_FEATURES)
    with pytest.raises(ValueError, match="2 contexts but 1 faces"):
        encode_many(contexts[:2], faces[:1])
