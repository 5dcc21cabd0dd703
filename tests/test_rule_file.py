"""Rule files (eleusis_lab.rules.rule_file): the packaged corpus, the loader's errors, folds."""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections import Counter
from importlib.resources import files

import pytest

from eleusis_lab.errors import ConfigError
from eleusis_lab.rules import Rule, RuleSyntaxError, parse
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.rule_file import (
    PEOPLE_RULES_FILE,
    RuleEntry,
    family_folds,
    load_rule_file,
    people_rules,
    rule_folds,
)

# the corpus header: "family (one card, last card, ...)" and its counts per family
HEADER_FAMILIES = re.compile(r"family \(([^)]*)\)")
COUNTS = {
    "one card": 22,
    "last card": 23,
    "start": 12,
    "position": 10,
    "two back": 8,
    "run": 5,
    "verdict": 5,
}


def _header() -> str:
    return files("eleusis_lab.rules").joinpath(PEOPLE_RULES_FILE).read_text(encoding="utf-8")


def _entries(counts: dict[str, int]) -> list[RuleEntry]:
    """Entries of the given family sizes, families interleaved so order cannot help."""
    sizes = dict(counts)
    entries = []
    while any(sizes.values()):
        for family in sizes:
            if sizes[family]:
                sizes[family] -= 1
                entries.append(RuleEntry(f"r{len(entries)}", "red(card)", family=family))
    return entries


# -- the packaged corpus


def test_the_packaged_corpus_loads_85_rules_that_all_parse():
    rules = people_rules()
    assert len(rules) == 85
    assert len({entry.name for entry in rules}) == 85
    for entry in rules:
        assert isinstance(entry.rule, Rule)
        assert entry.rule.name == entry.name
        assert entry.rule == parse(entry.text, name=entry.name)
        assert entry.english and entry.difficulty in {"easy", "medium", "hard"}


def test_the_families_are_the_seven_of_the_header():
    (listed,) = HEADER_FAMILIES.findall(" ".join(_header().split()))
    header = [family.strip() for family in listed.split(",")]
    assert len(header) == 7
    assert list(dict.fromkeys(entry.family for entry in people_rules())) == header
    assert Counter(entry.family for entry in people_rules()) == COUNTS


def test_the_packaged_copy_is_what_load_rule_file_reads():
    path = files("eleusis_lab.rules") / PEOPLE_RULES_FILE
    assert load_rule_file(path) == people_rules()


def test_no_corpus_name_is_a_catalog_name():
    assert not {e.name for e in people_rules()} & {e.name for e in catalog()}


def test_entries_are_immutable_and_the_list_is_fresh():
    rules = people_rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules[0].name = "x"  # type: ignore[misc]
    rules.clear()
    assert len(people_rules()) == 85


# -- loading a file


def _write(tmp_path, text: str):
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_small_file_with_defaults(tmp_path):
    path = _write(
        tmp_path,
        '[[rule]]\nname = "reds"\ntext = " red(card) "\n\n'
        '[[rule]]\nname = "kings"\ntext = "rank(card) == king"\n'
        'english = "Only kings."\nfamily = "one card"\ndifficulty = "easy"\n',
    )
    reds, kings = load_rule_file(path)
    assert reds == RuleEntry("reds", "red(card)", "other", "", "")
    assert kings == RuleEntry("kings", "rank(card) == king", "one card", "Only kings.", "easy")
    assert kings.rule.name == "kings"
    assert load_rule_file(str(path)) == [reds, kings]


GOOD = '[[rule]]\nname = "reds"\ntext = "red(card)"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[rule]\nname = 'x'", "not valid TOML: Expected ']]' "),
        ("[[rule]]\nname = = 1\n", "not valid TOML: Invalid value (at line 2, column 8)"),
        ("", "no rules; a rule file is an array of [[rule]] tables"),
        ('title = "x"\n', "unknown top-level key(s) ['title']"),
        ('[rule]\nname = "x"\n', "'rule' must be an array of tables"),
        ("rule = [1]\n", "rule 1: expected a table"),
        (GOOD + '[[rule]]\ntext = "black(card)"\n', "rule 2: missing name"),
        (GOOD + '[[rule]]\nname = "blacks"\n', "rule 2 'blacks': missing text"),
        (GOOD + GOOD, "rule 2 'reds': duplicate name (rule 1 has it too)"),
        (GOOD + 'colour = "red"\n', "rule 1 'reds': unknown key(s) colour"),
        (GOOD + "family = 3\n", "rule 1 'reds': family must be a string"),
        (GOOD + 'family = " "\n', "rule 1 'reds': family must not be empty"),
        ('[[rule]]\nname = ""\ntext = "red(card)"\n', "rule 1 '': name must not be empty"),
        (
            GOOD + '[[rule]]\nname = "typo"\ntext = "rank(card) > rank(lsat)"\n',
            "rule 2 'typo': the rule text does not parse: line 1, column 19: unknown name "
            "'lsat'; did you mean 'last'? (in 'rank(card) > rank(lsat)')",
        ),
        (
            '[[rule]]\nname = "number"\ntext = "rank(card)"\n',
            "rule 1 'number': the rule text does not parse: ",
        ),
    ],
)
def test_errors_name_the_file_and_the_entry(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_rule_file(path)
    assert str(caught.value).startswith(f"{path}: ") or str(caught.value).startswith(f"{path}, ")
    assert message in str(caught.value)


def test_a_parse_error_is_one_line_and_keeps_its_cause(tmp_path):
    path = _write(tmp_path, '[[rule]]\nname = "bad"\ntext = "red(card) && black(last)"\n')
    with pytest.raises(ConfigError) as caught:
        load_rule_file(path)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value.__cause__, RuleSyntaxError)
    assert caught.value.__cause__.one_line() in str(caught.value)


def test_the_rule_text_is_parsed_not_evaluated(tmp_path):
    path = _write(tmp_path, '[[rule]]\nname = "evil"\ntext = "__import__(\'os\')"\n')
    with pytest.raises(ConfigError, match="does not parse"):
        load_rule_file(path)


def test_a_missing_file(tmp_path):
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError, match=re.escape(f"{path}: no such rule file")):
        load_rule_file(path)


def test_a_directory_or_a_binary_file(tmp_path):
    with pytest.raises(ConfigError, match=re.escape(f"{tmp_path}: cannot read")):
        load_rule_file(tmp_path)
    binary = tmp_path / "rules.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_rule_file(binary)


# -- k folds by rule


def _check_partition(entries, folds, k):
    assert len(folds) == k
    tests = [test for _, test in folds]
    assert Counter(entry.name for test in tests for entry in test) == Counter(
        entry.name for entry in entries
    )
    for train, test in folds:
        assert test
        assert sorted(e.name for e in train + test) == sorted(e.name for e in entries)
        # each list keeps the order of the entries
        order = {entry.name: i for i, entry in enumerate(entries)}
        for part in (train, test):
            assert [order[e.name] for e in part] == sorted(order[e.name] for e in part)


def _check_stratified(entries, folds):
    sizes = [len(test) for _, test in folds]
    assert max(sizes) - min(sizes) <= 1
    for family, total in Counter(entry.family for entry in entries).items():
        counts = [sum(entry.family == family for entry in test) for _, test in folds]
        assert sum(counts) == total
        assert max(counts) - min(counts) <= 1, (family, counts)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_entry_is_in_exactly_one_test_fold_and_folds_are_stratified(k, seed):
    rules = people_rules()
    folds = rule_folds(rules, k=k, seed=seed)
    _check_partition(rules, folds, k)
    _check_stratified(rules, folds)


def test_five_folds_of_the_corpus_share_each_family_evenly():
    folds = rule_folds(people_rules(), k=5, seed=0)
    for family, total in COUNTS.items():
        counts = sorted(sum(e.family == family for e in test) for _, test in folds)
        assert counts == sorted([total // 5 + (i < total % 5) for i in range(5)])


def test_folds_are_deterministic_and_depend_on_the_seed():
    rules = people_rules()
    assert rule_folds(rules, seed=3) == rule_folds(rules, seed=3)
    assert rule_folds(rules, seed=3) != rule_folds(rules, seed=4)


def test_families_smaller_than_k_still_work():
    # "run" and "verdict" have 5 rules, fewer than 10 folds: no warning, one rule a fold
    rules = people_rules()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        folds = rule_folds(rules, k=10)
    _check_stratified(rules, folds)
    for family in ("run", "verdict"):
        assert (
            sorted(sum(e.family == family for e in test) for _, test in folds) == [0] * 5 + [1] * 5
        )


@pytest.mark.parametrize("k", [4, 9])
def test_every_family_smaller_than_k(k):
    entries = _entries({"a": 3, "b": 2, "c": 3, "d": 1})  # 9 rules, no family of 4
    folds = rule_folds(entries, k=k, seed=2)
    _check_partition(entries, folds, k)
    _check_stratified(entries, folds)
    assert rule_folds(entries, k=k, seed=2) == folds


def test_leave_one_out_on_the_corpus():
    rules = people_rules()
    folds = rule_folds(rules, k=len(rules))
    _check_partition(rules, folds, len(rules))
    assert all(len(test) == 1 for _, test in folds)


def test_a_single_family():
    entries = _entries({"only": 7})
    folds = rule_folds(entries, k=3)
    _check_partition(entries, folds, 3)
    _check_stratified(entries, folds)


@pytest.mark.parametrize(
    ("k", "message"),
    [(1, "at least 2"), (True, "at least 2"), (2.0, "at least 2"), (86, "at least 86 rules")],
)
def test_bad_k(k, message):
    with pytest.raises(ValueError, match=message):
        rule_folds(people_rules(), k=k)


# -- leave one family out


def test_family_folds_cover_each_family_once():
    rules = people_rules()
    folds = family_folds(rules)
    assert [family for family, _, _ in folds] == list(COUNTS)
    for family, train, test in folds:
        assert len(test) == COUNTS[family]
        assert {e.family for e in test} == {family}
        assert family not in {e.family for e in train}
        assert len(train) + len(test) == len(rules)
    assert Counter(e.name for _, _, test in folds for e in test) == Counter(e.name for e in rules)


def test_family_folds_need_two_families():
    with pytest.raises(ValueError, match="two families"):
        family_folds(_entries({"only": 3}))
    with pytest.raises(ValueError, match="two families"):
        family_folds([])
