"""The rule catalog: every rule on concrete cards, and the loader's checks.

The expectations in CASES are written from each entry's English description, card by
card, not computed by running the rules.
"""

import dataclasses
import itertools
import re
from importlib.resources import files

import pytest

from eleusis_lab.cards import parse_cards, standard_deck
from eleusis_lab.rules import Context, RuleSyntaxError, parse
from eleusis_lab.rules.catalog import (
    CatalogEntry,
    CatalogError,
    UnknownRuleError,
    acceptable_rules,
    catalog,
    get_rule,
    load,
)

# (name, main line, last_play_right, cards that are right, cards that are wrong)
CASES = [
    # -- one card on its own
    ("red_only", "", None, "AH 5D KH QD", "AS 5C KC"),
    ("red_only", "QS", None, "2H 10D", "2S 10C"),
    ("number_cards_only", "5H", None, "AS 10D 7C 2H", "JH QS KD"),
    ("primes_only", "", None, "2C 3D 5H 7S JC KD", "AC 4D 6H 8S 9C 10D QH"),
    ("no_spades", "", None, "AC 5D KH", "AS 10S KS"),
    # -- one feature against the last card
    ("same_color", "7D", None, "2H KD AD", "7S 2C KS"),
    ("same_color", "", None, "AC AH", ""),
    ("gardner_red_black", "7D", None, "2S KC", "2H 7D QD"),
    ("gardner_red_black", "9C", None, "9H AD", "9S 2C"),
    ("gardner_red_black", "", None, "AC AH", ""),
    ("color_alternation", "7D", None, "2S KC", "2H 7D QD"),
    ("color_alternation", "9C", None, "9H AD", "9S 2C"),
    ("color_alternation", "", None, "AC AH", ""),
    ("different_suit", "7D", None, "7C 7H 7S AC", "AD 8D KD"),
    ("parity_alternation", "8C", None, "AC 3H 9S JD KH", "2D 8S 10H QC"),
    ("parity_alternation", "JH", None, "QS 2C 10D", "AC KD 3S"),
    ("parity_alternation", "", None, "2C 3C", ""),
    ("low_high_alternation", "7S", None, "8C KH 10D", "AS 7H 3D"),
    ("low_high_alternation", "8H", None, "AC 7D", "8S KC 9D"),
    ("primes_alternate", "2C", None, "AH 4S 6D 8C 9H 10S QD", "3C 5D 7H JS KC 2S"),
    ("primes_alternate", "QH", None, "2S 3D 5C 7H JD KS", "AC 4D QS 10H"),
    ("primes_alternate", "", None, "AC 2C", ""),
    ("face_number_alternation", "JC", None, "AC 10H 5S", "QD KS JH"),
    ("face_number_alternation", "10D", None, "JS QH KC", "AH 9C 10S"),
    ("threes_alternate", "6D", None, "AC 2H 4S 5D 7C 8H 10S JD KC", "3C 6H 9S QD"),
    ("threes_alternate", "7S", None, "3H 6C 9D QS", "AS 7D 8H KC"),
    ("suit_cycle", "5C", None, "AD 9D KD", "5C 5H 5S"),
    ("suit_cycle", "5D", None, "AH", "AD AS AC"),
    ("suit_cycle", "5H", None, "2S", "2D 2C 2H"),
    ("suit_cycle", "5S", None, "KC", "KS KD KH"),
    ("same_suit_or_rank", "9H", None, "9C 9S AH KH", "8C 10S AD"),
    ("higher_rank", "9S", None, "10C JD KH", "9H 8D AC"),
    ("higher_rank", "KD", None, "", "KC AH QS"),
    ("higher_rank", "", None, "AC KD", ""),
    ("next_higher_rank", "9S", None, "10C 10D 10H 10S", "9S JH 8D"),
    ("next_higher_rank", "KD", None, "", "AC KH"),
    ("higher_or_new_suit", "9S", None, "10S KS 9H 2C", "9S 8S AS"),
    ("higher_or_new_suit", "KH", None, "AC 5S", "AH QH KH"),
    # -- one feature of the last card decides another of the card
    ("even_red_odd_black", "QC", None, "AH 3D", "AS 3C"),
    ("even_red_odd_black", "JD", None, "2S KC", "2H KD"),
    ("odd_black_else_red", "QC", None, "AH 3D", "AS 3C"),
    ("odd_black_else_red", "JD", None, "2S KC", "2H KD"),
    ("odd_black_else_red", "", None, "AS AH", ""),
    ("red_then_even", "5H", None, "2C 4S 10D QH", "AC 3H 9S JD KC"),
    ("red_then_even", "5S", None, "AC 3H KD 2S", ""),
    ("red_then_even", "", None, "AC", ""),
    ("black_high_red_low", "2S", None, "8C KD 10H", "AC 7H 5S"),
    ("black_high_red_low", "KH", None, "AC 7S 3D", "8H QS"),
    ("suit_from_rank_mod_4", "8H", None, "AC KC", "AD AH AS"),  # 8 = 4*2 + 0
    ("suit_from_rank_mod_4", "KS", None, "5D", "5C 5H 5S"),  # 13 = 4*3 + 1
    ("suit_from_rank_mod_4", "6C", None, "QH", "QC QD QS"),  # 6 = 4 + 2
    ("suit_from_rank_mod_4", "7D", None, "2S", "2D 2C 2H"),  # 7 = 4 + 3
    ("suit_from_rank_mod_4", "", None, "AC AD", ""),
    # -- arithmetic
    ("odd_sum", "8C", None, "AC 3H KD", "2C 8S QD"),
    ("odd_sum", "AH", None, "2S 10C QD", "AS 3C KH"),
    ("within_three", "7H", None, "4C 5D 7S 10S", "3C 3H JD KS"),
    ("within_three", "AS", None, "AC 4H", "5D KC QH"),
    ("up_one_to_three", "QH", None, "KC AD 2H", "QS 3C JD 4S"),
    ("up_one_to_three", "5C", None, "6C 7D 8S", "5H 9S 4D"),
    ("within_two_wrapping", "KS", None, "JC QD KH AS 2C", "10C 3D 9H"),
    ("within_two_wrapping", "AD", None, "QC KH AS 2D 3C", "4S JD"),
    ("prime_gap", "AC", None, "3D 4H 6S 8C QD", "AH 2S 5C 7D KC"),  # gaps 2 3 5 7 11
    ("prime_gap", "8H", None, "AC 3D 5H 6S 10C JD KH", "8C 7D 9S 2H 4C QD"),
    ("rank_mod_3_steps", "3C", None, "AC 4D 7H 10S KC", "3D 2H 5S 6C"),
    ("rank_mod_3_steps", "7S", None, "2C 5D 8H JS", "AC 3D 7H"),
    ("rank_mod_3_steps", "5D", None, "3S 6D 9C QH", "AH 5C 8S KD"),
    ("rank_mod_3_steps", "", None, "AC", ""),
    ("sum_14_or_same_suit", "7H", None, "7C 7S AH KH", "6C 8D AS"),
    ("sum_14_or_same_suit", "AS", None, "KC KD 5S", "QH AH"),
    # -- the card two back
    ("new_rank_new_suit_two_back", "5H", None, "6H 2C KD", "5C 5D 5S"),
    ("new_rank_new_suit_two_back", "9C 5H", None, "6H 9D KS", "5D 5S AC 9C"),
    ("new_rank_new_suit_two_back", "", None, "AC", ""),
    ("break_color_pairs", "3H 8D", None, "AC KS", "2H QD"),
    ("break_color_pairs", "3S 8D", None, "AC 2H", ""),
    ("break_color_pairs", "8D", None, "AC AH", ""),
    ("between_last_two", "3H 9C", None, "3C 5D 9S 7H", "2H 10D KC AS"),
    ("between_last_two", "QS 4D", None, "4C QH 8S", "3H KD"),
    ("between_last_two", "6H 6C", None, "6S 6D", "5H 7D"),
    ("between_last_two", "6C", None, "AC KD", ""),
    ("suit_from_last_two", "3H 5C", None, "AC KC", "AD AH AS"),  # 8 -> 0
    ("suit_from_last_two", "KD QS", None, "7D", "7C 7S 7H"),  # 25 -> 1
    ("suit_from_last_two", "AH AS", None, "9H", "9D"),  # 2
    ("suit_from_last_two", "5C 2H", None, "2S", "2C"),  # 7 -> 3
    ("suit_from_last_two", "5C", None, "AH AS", ""),
    ("odd_gap_red", "4C 7D", None, "AH 8D", "AS 8C"),
    ("odd_gap_red", "7D 3C", None, "KS 2C", "KH"),
    ("odd_gap_red", "9C", None, "AH AS", ""),
    # -- runs
    ("no_three_of_a_color", "4H 9D", None, "AC QS", "2H KD"),
    ("no_three_of_a_color", "4S 9D", None, "2H 2S", ""),
    ("no_three_of_a_color", "", None, "AC", ""),
    ("three_red_three_black", "2C 5S 3H 7D JH", None, "AC KS", "2H QD"),
    ("three_red_three_black", "2H 5S 3C 7S", None, "AH", "AS"),
    ("three_red_three_black", "3H 7D", None, "AH KD", "AC KS"),
    ("three_red_three_black", "5S 3H", None, "9D", "9C"),
    ("three_red_three_black", "", None, "AC AH", ""),
    ("suit_pairs", "4D 9H", None, "AH KH", "AD AS"),
    ("suit_pairs", "2C 4H 9H", None, "AD 5C KS", "AH 5H"),
    ("suit_pairs", "", None, "AC", ""),
    ("at_most_two_primes", "4C 3H 5D", None, "AC 4D 6H QS", "2C 3S 7D KH"),
    ("at_most_two_primes", "4C 3H", None, "2C AC", ""),
    ("at_most_two_primes", "3H 4C", None, "5D 8S", ""),
    # -- position: the starter is card 1
    ("even_positions_red", "", None, "AC KS", "AH KD"),
    ("even_positions_red", "5S", None, "2H QD", "2C QS"),
    ("even_positions_red", "5S 2H", None, "3C JS", "3H JD"),
    ("suit_by_position", "", None, "AC KC", "AD AH AS"),
    ("suit_by_position", "3C", None, "JD", "JC JH"),
    ("suit_by_position", "3C 4D", None, "5H", "5D 5S"),
    ("suit_by_position", "3C 4D 5H", None, "6S", "6C"),
    ("suit_by_position", "3C 4D 5H 6S", None, "7C", "7S"),
    ("every_third_high", "", None, "AC 7D", "8C KH"),
    ("every_third_high", "2C", None, "3D", "9D"),
    ("every_third_high", "2C 3D", None, "8S KH", "AC 7H"),
    ("every_third_high", "2C 3D 9H", None, "4S", "10S"),
    ("every_third_high", "2C 3D 9H 4S 6D", None, "QC", "2C"),
    ("black_start_new_suit", "", None, "AC KS", "AH QD"),
    ("black_start_new_suit", "5H", None, "5C 2D KS", "AH KH"),
    # -- the previous verdict
    ("right_red_wrong_black", "5C", True, "AH KD", "AS KC"),
    ("right_red_wrong_black", "5C", False, "AS KC", "AH KD"),
    ("right_red_wrong_black", "", None, "AS AH", ""),
    ("right_red_wrong_black", "5C", None, "AS AH", ""),
    ("wrong_play_same_suit", "7D", True, "AC KS", "AH 7D"),
    ("wrong_play_same_suit", "7D", False, "AD KD", "AH 7C"),
    ("wrong_play_same_suit", "7D", None, "AH 7C", ""),
    # -- nested conditions
    ("higher_until_face", "9S", None, "10C JD KH", "9H 8D AC"),
    ("higher_until_face", "QH", None, "AC 10S 5D", "JC KH QS"),
    ("higher_until_face", "10C", None, "JD QS KH", "10D 2C"),
    ("face_then_number_else_color", "KS", None, "AH 10C 5D", "JH QC"),
    ("face_then_number_else_color", "7H", None, "2D QH KD", "2C QS"),
    ("ascending_alternating_colors", "6H", None, "7C KS", "7D 5S 6S KH"),
    ("ascending_alternating_colors", "KC", None, "", "AH KH QD"),
    ("abbott_parity_color_suit", "10H", None, "AH KH", "AD AS AC"),
    ("abbott_parity_color_suit", "QS", None, "3D", "3H 3C"),
    ("abbott_parity_color_suit", "JD", None, "2S", "2H 2C"),
    ("abbott_parity_color_suit", "KC", None, "9C", "9S 9D"),
    ("abbott_parity_color_suit", "", None, "AD", ""),
    ("abbott_suit_switchboard", "5D", None, "5C 5H 5S", "AD KD"),
    ("abbott_suit_switchboard", "5C", None, "AD KH", "AS KC"),
    ("abbott_suit_switchboard", "5S", None, "AC KS", "AD"),
    ("abbott_suit_switchboard", "5H", None, "5C 5D 5S", "6H 4H AH"),
    ("rank_mod_3_three_way", "9C", None, "AD KH", "AC KS"),
    ("rank_mod_3_three_way", "7D", None, "AC 3S JH KD", "2C QH 10S"),
    ("rank_mod_3_three_way", "JS", None, "8C KD", "7H AC"),
    ("rank_mod_3_three_way", "", None, "AC", ""),
]


def _case_id(case):
    name, line, last_play_right, _, _ = case
    verdict = {None: "", True: ",right", False: ",wrong"}[last_play_right]
    return f"{name}[{line or 'empty'}{verdict}]"


@pytest.mark.parametrize(
    ("name", "line", "last_play_right", "right", "wrong"), CASES, ids=map(_case_id, CASES)
)
def test_catalog_rule_on_concrete_cards(name, line, last_play_right, right, wrong):
    rule = get_rule(name)
    context = Context(tuple(parse_cards(line)), last_play_right)
    assert right or wrong
    where = context.describe()
    for card in parse_cards(right):
        assert rule.accepts(card, context), f"{name}: {card} should be right {where}"
    for card in parse_cards(wrong):
        assert not rule.accepts(card, context), f"{name}: {card} should be wrong {where}"


def test_the_table_covers_every_catalog_rule():
    assert {case[0] for case in CASES} == {entry.name for entry in catalog()}


# -- the catalog as a whole -----------------------------------------------------------------


def test_size_names_and_fields():
    entries = catalog()
    assert len(entries) >= 40
    names = [entry.name for entry in entries]
    assert len(set(names)) == len(names)
    for entry in entries:
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", entry.name)
        assert entry.text and entry.description and entry.source
        assert entry.rule.name == entry.name
        assert entry.rule == parse(entry.text)


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: e.name)
def test_every_rule_round_trips_through_its_text(entry):
    assert parse(str(entry.rule)) == entry.rule
    assert str(parse(str(entry.rule))) == str(entry.rule)


def test_required_rules_and_their_sources():
    by_source = {}
    for entry in catalog():
        by_source.setdefault(entry.source, []).append(entry.name)
    assert by_source["Gardner (seed 000)"] == ["gardner_red_black", "next_higher_rank"]
    for n in range(1, 8):
        assert len(by_source[f"seed 004 example {n}"]) == 1
    assert set(by_source["issue list"]) == {
        "primes_alternate",
        "higher_until_face",
        "up_one_to_three",
        "three_red_three_black",
        "same_suit_or_rank",
        "face_then_number_else_color",
        "odd_sum",
        "within_three",
        "within_two_wrapping",
        "even_positions_red",
        "break_color_pairs",
        "new_rank_new_suit_two_back",
    }


def test_the_seed_rules_read_what_they_should():
    assert get_rule("right_red_wrong_black").slots == ("outcome",)
    assert get_rule("suit_from_rank_mod_4").slots == ("last",)
    assert get_rule("even_positions_red").slots == ("length",)
    assert get_rule("three_red_three_black").slots == ("last", "run:color")


def test_order_from_easy_to_hard():
    entries = catalog()
    reads_nothing = [not entry.rule.slots for entry in entries]
    first_reader = reads_nothing.index(False)
    assert all(reads_nothing[:first_reader]) and not any(reads_nothing[first_reader:])
    size = [sum(1 for _ in entry.rule.expr.walk()) for entry in entries]
    assert size[0] == min(size) and size[-1] > size[len(size) // 2]


def _all_lines_up_to_two_cards():
    deck = standard_deck()
    yield ()
    yield from ((card,) for card in deck)
    yield from itertools.product(deck, deck)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("gardner_red_black", "color_alternation"),
        ("even_red_odd_black", "odd_black_else_red"),
        ("odd_sum", "parity_alternation"),
        ("no_three_of_a_color", "break_color_pairs"),
    ],
)
def test_rules_the_descriptions_call_the_same_are_the_same(a, b):
    rule_a, rule_b = get_rule(a), get_rule(b)
    for line in _all_lines_up_to_two_cards():
        context = Context(line)
        assert rule_a.legal_mask(context) == rule_b.legal_mask(context), context.describe()


UNACCEPTABLE = [
    ("face_number_alternation", "5C", 12),
    ("higher_rank", "KD", 0),
    ("next_higher_rank", "5C", 4),
    ("up_one_to_three", "QH", 12),
    ("between_last_two", "6H 6C", 4),
    ("higher_until_face", "10C", 12),
    ("ascending_alternating_colors", "KC", 0),
    ("abbott_suit_switchboard", "5H", 4),
]


@pytest.mark.parametrize(("name", "line", "count"), UNACCEPTABLE)
def test_rules_said_to_fail_the_quarter_of_the_deck_test(name, line, count):
    rule = get_rule(name)
    assert len(rule.legal_cards(Context(tuple(parse_cards(line))))) == count < 13


def test_acceptable_rules_are_all_the_others_in_catalog_order():
    unacceptable = {name for name, _, _ in UNACCEPTABLE}
    expected = [e.name for e in catalog() if e.name not in unacceptable]
    assert [rule.name for rule in acceptable_rules()] == expected
    assert len(expected) >= 40


def test_only_those_descriptions_mention_the_quarter_of_the_deck_test():
    said = {e.name for e in catalog() if "quarter-of-the-deck" in e.description}
    assert said == {name for name, _, _ in UNACCEPTABLE}


def test_entries_are_immutable_and_the_list_is_fresh():
    entries = catalog()
    with pytest.raises(dataclasses.FrozenInstanceError):
        entries[0].name = "other"
    entries.clear()
    assert len(catalog()) >= 40


def test_the_catalog_ships_as_package_data():
    resource = files("eleusis_lab.rules").joinpath("catalog.toml")
    assert resource.is_file()
    assert [e.name for e in load(resource.read_text(encoding="utf-8"))] == [
        e.name for e in catalog()
    ]


# -- get_rule ------------------------------------------------------------------------------


def test_get_rule_by_name_or_text():
    entry = next(e for e in catalog() if e.name == "suit_cycle")
    assert get_rule("suit_cycle") is entry.rule
    assert get_rule("  suit_cycle ") is entry.rule
    rule = get_rule("color(card) != color(last)")
    assert rule.name is None and rule == get_rule("color_alternation")
    assert get_rule("empty") == parse("empty")  # a one-word rule is still a rule


def test_get_rule_unknown_name_lists_close_names():
    with pytest.raises(UnknownRuleError) as caught:
        get_rule("suit_cylce")
    message = str(caught.value)
    assert "no catalog rule named 'suit_cylce'" in message and "suit_cycle" in message
    assert isinstance(caught.value, LookupError) and isinstance(caught.value, ValueError)
    with pytest.raises(UnknownRuleError, match="see catalog"):
        get_rule("zzzzzz")


def test_get_rule_bad_text_is_a_syntax_error():
    with pytest.raises(RuleSyntaxError, match="did you mean 'last'"):
        get_rule("rank(card) > rank(lsat)")
    with pytest.raises(TypeError):
        get_rule(None)


# -- the loader's checks -------------------------------------------------------------------


def _toml(*entries: dict) -> str:
    parts = []
    for entry in entries:
        parts.append("[[rule]]")
        parts += [
            f"{key} = {value!r}" if isinstance(value, str) else f"{key} = {value}"
            for key, value in entry.items()
        ]
    return "\n".join(parts).replace("'", '"')


GOOD = {"name": "reds", "text": "red(card)", "description": "Play red.", "source": "toolkit"}


def test_load_a_small_catalog():
    entries = load(_toml(GOOD, GOOD | {"name": "blacks", "text": "black(card)"}))
    assert [e.name for e in entries] == ["reds", "blacks"]
    blacks = parse("black(card)")
    assert entries[1] == CatalogEntry("blacks", "black(card)", "Play red.", "toolkit", blacks)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (_toml(GOOD, GOOD), "rule 2 'reds': duplicate name (rule 1 has it too)"),
        (
            _toml(GOOD, GOOD | {"name": "broken", "text": "red(card) and"}),
            "rule 2 'broken': the rule text does not parse: line 1, column 14",
        ),
        (
            _toml(GOOD | {"name": "typo", "text": "rank(card) > rank(lsat)"}),
            "rule 1 'typo': the rule text does not parse: line 1, column 19: unknown name 'lsat'",
        ),
        (
            _toml(GOOD | {"name": "number", "text": "rank(card)"}),
            "rule 1 'number': the rule text does not parse",
        ),
        (_toml({k: v for k, v in GOOD.items() if k != "source"}), "rule 1 'reds': missing source"),
        (_toml(GOOD | {"colour": "red"}), "rule 1 'reds': unknown key(s) colour"),
        (_toml(GOOD | {"name": "RedOnly"}), "rule 1 'RedOnly': the name must be snake_case"),
        (_toml(GOOD | {"text": 3}), "rule 1 'reds': text must be a non-empty string"),
        (_toml(GOOD | {"description": ""}), "rule 1 'reds': description must be a non-empty"),
        ("[[rule]\nname = 'x'", "not valid TOML"),
        ('title = "rules"\n' + _toml(GOOD), "unknown top-level key(s) ['title']"),
        ('[rule]\nname = "x"', "'rule' must be an array of tables"),
        ("rule = [1, 2]", "rule 1: expected a table"),
    ],
)
def test_loader_errors_name_the_entry(toml, message):
    with pytest.raises(CatalogError) as caught:
        load(toml, origin="mine.toml")
    assert str(caught.value).startswith("mine.toml")
    assert message in str(caught.value)


def test_a_parse_error_in_the_catalog_keeps_its_caret():
    with pytest.raises(CatalogError) as caught:
        load(_toml(GOOD | {"text": "red(card) && black(last)"}))
    lines = str(caught.value).splitlines()
    assert lines[-2].strip() == "red(card) && black(last)"
    assert lines[-1].index("^") == lines[-2].index("&")
    assert isinstance(caught.value.__cause__, RuleSyntaxError)
