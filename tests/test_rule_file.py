"""Rule files (eleusis_lab.rules.rule_file): the packaged corpus, the loader's errors, folds."""

from __future__ import annotations

import dataclasses
import pickle
import re
import tomllib
import warnings
from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest

from eleusis_lab.errors import ConfigError
from eleusis_lab.rules import Rule, RuleSyntaxError, parse
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.rule_file import (
    PEOPLE_RULES_FILE,
    PUBLISHED_FIELDS,
    PUBLISHED_RULES_FILE,
    PublishedModel,
    RuleEntry,
    family_folds,
    load_rule_file,
    people_rules,
    published_models,
    published_rules,
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


# -- the packaged Eleusis LLM benchmark


def _published_toml() -> dict:
    """The packaged benchmark as TOML alone reads it, apart from the loader."""
    text = files("eleusis_lab.rules").joinpath(PUBLISHED_RULES_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def test_the_packaged_benchmark_loads_26_rules_with_their_published_figures():
    rules, raw = published_rules(), _published_toml()["rule"]
    assert len(rules) == len(raw) == 26
    assert len({entry.name for entry in rules}) == 26
    for entry, table in zip(rules, raw, strict=True):
        assert entry.name == table["name"] and entry.rule.name == entry.name
        assert entry.english and entry.difficulty and entry.family
        assert dict(entry.published) == {
            key.removeprefix("published_"): float(table[key]) for key in PUBLISHED_FIELDS
        }
    red = rules[0]
    assert (red.name, red.published["floored"], red.published["success"]) == (
        "only_red_cards",
        25.41,
        1.0,
    )
    assert red.published["nodes"] == 9.0 and isinstance(red.published["nodes"], float)


def test_the_packaged_benchmark_s_models_are_the_file_s():
    raw = _published_toml()["models"]
    models = published_models()
    assert [model.name for model in models] == list(raw)
    assert len(models) == 15
    for model in models:
        assert model.floored == raw[model.name].get("floored")
        assert model.success == raw[model.name].get("success")
        assert model.seconds_per_turn == raw[model.name].get("seconds_per_turn")
    by_name = {model.name: model for model in models}
    assert by_name["Claude Opus 4.5"] == PublishedModel("Claude Opus 4.5", 16.97, 0.833, 114.2)
    assert by_name["Gemini 3 Pro High"].floored == raw["Gemini 3 Pro High"]["floored"] == 17.3
    assert by_name["GPT-5.2 Pro"] == PublishedModel("GPT-5.2 Pro", success=0.97)


def test_the_packaged_benchmark_is_what_load_rule_file_reads_and_is_shipped():
    path = files("eleusis_lab.rules") / PUBLISHED_RULES_FILE
    assert load_rule_file(path) == published_rules()
    assert published_models(path) == published_models()
    root = Path(__file__).resolve().parents[1]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["setuptools"]["package-data"]["eleusis_lab"]
    assert f"rules/{PUBLISHED_RULES_FILE}" in shipped


def test_other_files_have_no_published_figures():
    assert all(not entry.published for entry in people_rules())
    assert published_models(files("eleusis_lab.rules") / PEOPLE_RULES_FILE) == []


def test_published_figures_are_read_only_and_entries_pickle():
    entry = published_rules()[5]
    with pytest.raises(TypeError):
        entry.published["floored"] = 30.0  # type: ignore[index]
    copy = pickle.loads(pickle.dumps(entry))
    assert copy == entry and hash(copy) == hash(entry)
    assert copy.published["floored"] == entry.published["floored"]
    assert RuleEntry("a", "red(card)") == RuleEntry("a", "red(card)", published={})
    assert RuleEntry("a", "red(card)") != RuleEntry("a", "red(card)", published={"nodes": 9})


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
        # published figures: numbers in range, and only the five known
        (
            GOOD + 'published_floored = "high"\n',
            "rule 1 'reds': published_floored must be a number, got 'high'",
        ),
        (
            GOOD + "published_success = true\n",
            "rule 1 'reds': published_success must be a number, got True",
        ),
        (
            GOOD + "published_acceptance = 1.5\n",
            "rule 1 'reds': published_acceptance must be from 0 to 1, got 1.5",
        ),
        (
            GOOD + "published_nodes = nan\n",
            "rule 1 'reds': published_nodes must be a finite number, got nan",
        ),
        (GOOD + "published_rank = 3\n", "rule 1 'reds': unknown key(s) published_rank"),
        (GOOD + "models = 3\n", "rule 1 'reds': unknown key(s) models"),
        (GOOD + "[models]\nbot = 17.0\n", "model 'bot': expected a table of floored"),
        (GOOD + "[models]\nbot = {}\n", "model 'bot': no figures"),
        (
            GOOD + '[models]\nbot = { floored = "17" }\n',
            "model 'bot': floored must be a number, got '17'",
        ),
        (
            GOOD + "[models]\nbot = { floored = 31 }\n",
            "model 'bot': floored must be from 0 to 30, got 31",
        ),
        (GOOD + "[models]\nbot = { rounds = 3 }\n", "model 'bot': unknown key(s) rounds"),
        ("models = 3\n" + GOOD, "'models' must be a table ([models])"),
    ],
)
def test_errors_name_the_file_and_the_entry(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_rule_file(path)
    assert str(caught.value).startswith(f"{path}: ") or str(caught.value).startswith(f"{path}, ")
    assert message in str(caught.value)


def test_a_bad_published_figure_is_refused_naming_the_field(tmp_path):
    path = _write(tmp_path, GOOD + 'published_success = "0.9"\n')
    with pytest.raises(ConfigError) as caught:
        load_rule_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, rule 1 'reds': published_success")
    assert "must be a number" in message and "\n" not in message
    with pytest.raises(ConfigError, match="published_success"):
        published_models(path)


def test_a_small_file_with_published_figures_and_models(tmp_path):
    path = _write(
        tmp_path,
        GOOD + "published_floored = 20\npublished_success = 0.5\n\n"
        '[models]\n"Bot A" = { floored = 12.5, success = 0.6, seconds_per_turn = 3 }\n'
        '"Bot B" = { success = 0.9 }\n',
    )
    (reds,) = load_rule_file(path)
    assert dict(reds.published) == {"floored": 20.0, "success": 0.5}
    assert published_models(path) == [
        PublishedModel("Bot A", floored=12.5, success=0.6, seconds_per_turn=3.0),
        PublishedModel("Bot B", success=0.9),
    ]
    assert published_models(_write(tmp_path, GOOD)) == []


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
