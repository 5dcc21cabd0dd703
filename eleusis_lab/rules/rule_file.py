"""Rule files: named rules kept apart from the catalog, and folds to validate on them.

A rule file is TOML, an array of ``[[rule]]`` tables with the keys ``name`` and
``text`` (required), ``english``, ``family`` and ``difficulty`` (optional strings;
``family`` defaults to ``"other"``). The toolkit ships two. ``rules_people_write.toml``:
85 rules as players of induction games write them, in seven families
(`people_rules`). ``eleusis_llm_benchmark.toml``: the 26 secret rules of the published
Eleusis LLM benchmark (`published_rules`), a test set, nothing is to be fitted on it.
Loading checks every entry as the catalog does
(`eleusis_lab.rules.catalog.read_entries`); the text is read by
`eleusis_lab.rules.parse`, never evaluated.

A rule may also carry published figures, numbers kept on ``RuleEntry.published``
without the ``published_`` prefix: ``published_success`` (the share of games in which
the published players found the rule), ``published_floored`` (their mean floored score,
from 0 to 30), ``published_nodes`` and ``published_cyclomatic`` (the size of the
published predicate), ``published_acceptance`` (the share of random plays it accepts).
A file may then have a top-level ``[models]`` table of the published players' overall
figures, one inline table per model with any of ``floored``, ``success`` and
``seconds_per_turn`` (`published_models`).

`rule_folds` splits the entries into k folds stratified by family, and `family_folds`
leaves one family out at a time, to measure how a method tuned on some rules does on
rules it has not seen.

>>> from eleusis_lab.rules.rule_file import people_rules, rule_folds
>>> rules = people_rules()
>>> len(rules), rules[0].name, rules[0].family
(85, 'black_only', 'one card')
>>> rules[0].rule
parse('black(card)', name='black_only')
>>> [len(test) for train, test in rule_folds(rules, k=5)]
[17, 17, 17, 17, 17]
"""

from __future__ import annotations

import math
import os
import tomllib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib.resources import files
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold

from eleusis_lab.errors import ConfigError
from eleusis_lab.rules.catalog import read_entries
from eleusis_lab.rules.parser import RuleSyntaxError
from eleusis_lab.rules.rule import Rule, parse

__all__ = [
    "PEOPLE_RULES_FILE",
    "PUBLISHED_FIELDS",
    "PUBLISHED_RULES_FILE",
    "PublishedModel",
    "RuleEntry",
    "family_folds",
    "load_rule_file",
    "people_rules",
    "published_models",
    "published_rules",
    "rule_folds",
]

#: The packaged rule file of `people_rules`, in ``eleusis_lab/rules``.
PEOPLE_RULES_FILE = "rules_people_write.toml"
#: The packaged rule file of `published_rules` (the Eleusis LLM benchmark), beside it.
PUBLISHED_RULES_FILE = "eleusis_llm_benchmark.toml"

_REQUIRED = ("name", "text")
_OPTIONAL = {"english": "", "family": "other", "difficulty": ""}

#: The published figures a ``[[rule]]`` may carry: each its lowest and highest value
#: (None: no bound). `RuleEntry.published` keys them without the ``published_`` prefix.
PUBLISHED_FIELDS: Mapping[str, tuple[float | None, float | None]] = MappingProxyType(
    {
        "published_success": (0.0, 1.0),
        "published_floored": (0.0, 30.0),
        "published_nodes": (0.0, None),
        "published_cyclomatic": (0.0, None),
        "published_acceptance": (0.0, 1.0),
    }
)
_PREFIX = "published_"
#: The figures of a model in the ``[models]`` table, with their bounds.
_MODEL_FIELDS = {"floored": (0.0, 30.0), "success": (0.0, 1.0), "seconds_per_turn": (0.0, None)}


@dataclass(frozen=True)
class RuleEntry:
    """One named rule of a rule file.

    Attributes
    ----------
    name : str
        Unique in its file.
    text : str
        The rule as written in the file (``rule.text`` is its canonical form).
    family : str
        The kind of rule (what it reads), ``"other"`` when the file does not say.
    english : str
        The rule as a player would say it (``""`` when the file does not say).
    difficulty : str
        A guess at how hard the rule is to find (``""`` when the file does not say).
    published : mapping of str to float
        The published figures of the rule (see the module's description), keyed
        without the ``published_`` prefix: ``success``, ``floored``, ``nodes``,
        ``cyclomatic``, ``acceptance``; empty when the file gives none. Read-only.

    Examples
    --------
    >>> entry = RuleEntry("reds", "red(card)", family="one card")
    >>> entry.rule
    parse('red(card)', name='reds')
    >>> entry.english, entry.difficulty, dict(entry.published)
    ('', '', {})
    >>> RuleEntry("reds", "red(card)", published={"floored": 25.4}).published["floored"]
    25.4
    """

    name: str
    text: str
    family: str = "other"
    english: str = ""
    difficulty: str = ""
    # compared, but not hashed (a mapping has no hash): equal entries still hash alike
    published: Mapping[str, float] = field(default_factory=dict, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "published", MappingProxyType(dict(self.published)))

    # a read-only mapping does not pickle: an entry pickles its figures as a dict
    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "published": dict(self.published)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, published=MappingProxyType(dict(state["published"])))

    @cached_property
    def rule(self) -> Rule:
        """The parsed rule, with ``rule.name == name`` (parsed once, on first use).

        Raises
        ------
        RuleSyntaxError
            If the text does not parse (never for an entry `load_rule_file` returned).
        """
        return parse(self.text, name=self.name)


#: A fold of `rule_folds`: (train, test).
Fold = tuple[list[RuleEntry], list[RuleEntry]]
#: A fold of `family_folds`: (family, train, test).
FamilyFold = tuple[str, list[RuleEntry], list[RuleEntry]]


def _entry(table: Any, label: str) -> RuleEntry:
    """Check one ``[[rule]]`` table; every error starts with ``label``."""
    if not isinstance(table, dict):
        raise ConfigError(f"{label}: expected a table with at least {' and '.join(_REQUIRED)}")
    missing = [key for key in _REQUIRED if key not in table]
    if missing:
        raise ConfigError(f"{label}: missing {', '.join(missing)}")
    extra = sorted(set(table) - set(_REQUIRED) - set(_OPTIONAL) - set(PUBLISHED_FIELDS))
    if extra:
        raise ConfigError(f"{label}: unknown key(s) {', '.join(extra)}")
    published = {
        key.removeprefix(_PREFIX): _number(table[key], f"{label}: {key}", *PUBLISHED_FIELDS[key])
        for key in PUBLISHED_FIELDS
        if key in table
    }
    for key, value in table.items():
        if key not in PUBLISHED_FIELDS and not isinstance(value, str):
            raise ConfigError(f"{label}: {key} must be a string")
    # english and difficulty may be left empty; a family names a fold, so it may not
    for key in ("name", "text", "family"):
        if not table.get(key, "other").strip():
            raise ConfigError(f"{label}: {key} must not be empty")
    fields = {key: table.get(key, default).strip() for key, default in _OPTIONAL.items()}
    entry = RuleEntry(table["name"].strip(), table["text"].strip(), **fields, published=published)
    try:
        entry.rule  # noqa: B018 -- parses now and caches the rule on the entry
    except RuleSyntaxError as error:
        raise ConfigError(f"{label}: the rule text does not parse: {error.one_line()}") from error
    return entry


def _number(value: Any, label: str, low: float | None, high: float | None) -> float:
    """A published figure as a float; an error starting with ``label`` when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{label} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(f"{label} must be a finite number, got {value!r}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"from {low:g} to {high:g}" if high is not None else f"at least {low:g}"
        raise ConfigError(f"{label} must be {bounds}, got {value!r}")
    return number


@dataclass(frozen=True)
class PublishedModel:
    """One published player of a rule file's ``[models]`` table: its overall figures.

    Attributes
    ----------
    name : str
        As the table names it.
    floored : float or None
        Its mean floored score over the published games (out of 30); None when not
        published.
    success : float or None
        Its success rate (found the rule with a score of at least 2); None when not
        published.
    seconds_per_turn : float or None
        Its wall time per turn, in seconds; None when not published.

    Examples
    --------
    >>> PublishedModel("Some LLM", floored=12.5)
    PublishedModel(name='Some LLM', floored=12.5, success=None, seconds_per_turn=None)
    """

    name: str
    floored: float | None = None
    success: float | None = None
    seconds_per_turn: float | None = None


def _models(data: dict[str, Any], origin: str) -> list[PublishedModel]:
    """The checked ``[models]`` table of a parsed rule file (empty when it has none)."""
    table = data.get("models", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: 'models' must be a table ([models]) of inline tables")
    models = []
    for name, figures in table.items():
        label = f"{origin}, model {name!r}"
        if not isinstance(figures, dict):
            raise ConfigError(f"{label}: expected a table of {', '.join(_MODEL_FIELDS)}")
        extra = sorted(set(figures) - set(_MODEL_FIELDS))
        if extra:
            raise ConfigError(f"{label}: unknown key(s) {', '.join(extra)}")
        if not figures:
            raise ConfigError(f"{label}: no figures; give any of {', '.join(_MODEL_FIELDS)}")
        checked = {
            key: _number(figures[key], f"{label}: {key}", *bounds)
            for key, bounds in _MODEL_FIELDS.items()
            if key in figures
        }
        models.append(PublishedModel(name, **checked))
    return models


def _parse(toml_text: str, origin: str) -> tuple[list[RuleEntry], list[PublishedModel]]:
    entries = read_entries(toml_text, origin, _entry, error=ConfigError, others=("models",))
    if not entries:
        raise ConfigError(f"{origin}: no rules; a rule file is an array of [[rule]] tables")
    # read_entries has parsed the same text without error
    return entries, _models(tomllib.loads(toml_text), origin)


def _load(toml_text: str, origin: str) -> list[RuleEntry]:
    return _parse(toml_text, origin)[0]


def _read(path: str | os.PathLike[str]) -> str:
    """The text of a rule file; a one-line error naming it when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ConfigError(f"{os.fspath(path)}: no such rule file") from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"{os.fspath(path)}: not a text file (not UTF-8)") from error
    except OSError as error:
        raise ConfigError(f"{os.fspath(path)}: cannot read: {error.strerror}") from error


def load_rule_file(path: str | os.PathLike[str]) -> list[RuleEntry]:
    """Read and check a rule file.

    Parameters
    ----------
    path : str or path-like
        A TOML file of ``[[rule]]`` tables (see the module's description).

    Returns
    -------
    list of RuleEntry
        In the order of the file, each rule already parsed.

    Raises
    ------
    ConfigError
        If the file cannot be read, is not TOML (the message gives the line and column),
        has no ``[[rule]]``, or an entry lacks ``name`` or ``text``, has an unknown key,
        repeats a name, has a rule text that does not parse or a published figure that
        is not a number in its range, or if the ``[models]`` table is malformed. The
        message starts with the path and, for an entry, its number from 1 and its name
        (for a model, its name), then names the key at fault.

    Examples
    --------
    >>> from importlib.resources import files
    >>> rules = load_rule_file(files("eleusis_lab.rules") / PEOPLE_RULES_FILE)
    >>> rules[1].name, rules[1].english
    ('hearts_only', 'Only hearts.')
    >>> try:
    ...     load_rule_file("no/such/rules.toml")
    ... except ConfigError as error:
    ...     print(error)
    no/such/rules.toml: no such rule file
    """
    return _load(_read(path), os.fspath(path))


@cache
def _packaged_file(name: str) -> tuple[tuple[RuleEntry, ...], tuple[PublishedModel, ...]]:
    resource = files("eleusis_lab.rules").joinpath(name)
    entries, models = _parse(resource.read_text(encoding="utf-8"), origin=name)
    return tuple(entries), tuple(models)


def people_rules() -> list[RuleEntry]:
    """The packaged rule file: 85 rules people write, none of them in the catalog.

    Returns
    -------
    list of RuleEntry
        A new list each call (the entries themselves are shared and immutable).

    Examples
    --------
    >>> from collections import Counter
    >>> Counter(entry.family for entry in people_rules()).most_common(2)
    [('last card', 23), ('one card', 22)]
    """
    return list(_packaged_file(PEOPLE_RULES_FILE)[0])


def published_rules() -> list[RuleEntry]:
    """The packaged Eleusis LLM benchmark: its 26 secret rules with the published figures.

    The rules of D. Louapre's "Can LLMs Play the Game of Science?" (Hugging Face,
    February 2026) in the toolkit's rule language, each with its published figures over
    the language models that played it (`RuleEntry.published`); `published_models`
    gives the models' own. A test set: play it once a design is final, to report it;
    nothing is to be fitted, tuned or chosen on it.

    Returns
    -------
    list of RuleEntry
        A new list each call (the entries themselves are shared and immutable).

    Examples
    --------
    >>> rules = published_rules()
    >>> len(rules), rules[0].name, rules[0].text
    (26, 'only_red_cards', 'red(card)')
    >>> rules[0].published["floored"], rules[0].published["success"]
    (25.41, 1.0)
    """
    return list(_packaged_file(PUBLISHED_RULES_FILE)[0])


def published_models(path: str | os.PathLike[str] | None = None) -> list[PublishedModel]:
    """The published players of a rule file's ``[models]`` table, in the file's order.

    Parameters
    ----------
    path : str or path-like, optional
        A rule file (checked whole, as `load_rule_file` does); the packaged benchmark
        of `published_rules` when omitted.

    Returns
    -------
    list of PublishedModel
        Empty when the file has no ``[models]`` table.

    Raises
    ------
    ConfigError
        As `load_rule_file`.

    Examples
    --------
    >>> models = published_models()
    >>> len(models), models[0].name, models[0].floored, models[0].seconds_per_turn
    (15, 'Claude Opus 4.5', 16.97, 114.2)
    >>> [model.name for model in models if model.floored is None]
    ['GPT-5.2 Pro']
    >>> published_models(files("eleusis_lab.rules") / PEOPLE_RULES_FILE)
    []
    """
    if path is None:
        return list(_packaged_file(PUBLISHED_RULES_FILE)[1])
    return _parse(_read(path), os.fspath(path))[1]


def _check_folds(entries: Sequence[RuleEntry], k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValueError(f"k must be an integer of at least 2, got {k!r}")
    if k > len(entries):
        raise ValueError(f"k={k} folds need at least {k} rules, got {len(entries)}")


def _dealt(families: list[str], k: int, seed: int) -> np.ndarray:
    """Test fold of each entry, dealt round robin family by family, in a shuffled order.

    What StratifiedKFold does, for the case it refuses: every family smaller than k.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(families))
    # a stable sort keeps the shuffled order within each family
    order = order[np.argsort([families[i] for i in order], kind="stable")]
    folds = np.empty(len(families), dtype=int)
    folds[order] = np.arange(len(families)) % k
    return folds


def _test_folds(families: list[str], k: int, seed: int) -> np.ndarray:
    """The test fold of each entry: families spread over the folds as evenly as possible."""
    if all(families.count(family) < k for family in set(families)):
        return _dealt(families, k, seed)
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    folds = np.empty(len(families), dtype=int)
    with warnings.catch_warnings():
        # a family smaller than k is expected: it gets one rule in some folds, none in others
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        for fold, (_, test) in enumerate(splitter.split(np.zeros(len(families)), families)):
            folds[test] = fold
    return folds


def rule_folds(entries: Sequence[RuleEntry], k: int = 5, seed: int = 0) -> list[Fold]:
    """k-fold cross-validation by rule, stratified by family.

    Each family's rules are spread over the k test folds as evenly as possible (the
    counts of a family in two folds differ by at most one, and so do the fold sizes);
    a family with fewer than k rules has one rule in some folds and none in the others.

    Parameters
    ----------
    entries : sequence of RuleEntry
        The rules, e.g. `people_rules`.
    k : int
        The number of folds, from 2 to ``len(entries)``.
    seed : int
        Which rules go together; the same seed gives the same folds.

    Returns
    -------
    list of (train, test)
        k pairs of lists of entries, each in the order of ``entries``; every entry is in
        exactly one test list, and its train list holds all the others.

    Raises
    ------
    ValueError
        If k is not an integer from 2 to ``len(entries)``.

    Examples
    --------
    >>> rules = people_rules()
    >>> folds = rule_folds(rules, k=5, seed=0)
    >>> train, test = folds[0]
    >>> len(train) + len(test) == len(rules)
    True
    >>> sorted(e.family for e in test).count("verdict")  # five verdict rules, one a fold
    1
    >>> folds == rule_folds(rules, k=5, seed=0)
    True
    """
    _check_folds(entries, k)
    folds = _test_folds([entry.family for entry in entries], k, seed)
    return [
        (
            [entry for entry, f in zip(entries, folds, strict=True) if f != fold],
            [entry for entry, f in zip(entries, folds, strict=True) if f == fold],
        )
        for fold in range(k)
    ]


def family_folds(entries: Sequence[RuleEntry]) -> list[FamilyFold]:
    """Leave one family out: test on each family, train on all the others.

    Parameters
    ----------
    entries : sequence of RuleEntry
        The rules, from at least two families.

    Returns
    -------
    list of (family, train, test)
        One triple per family, in the order the families first appear in ``entries``;
        the lists keep the order of ``entries``.

    Raises
    ------
    ValueError
        If the entries have fewer than two families (nothing would be left to train on).

    Examples
    --------
    >>> [(family, len(test)) for family, train, test in family_folds(people_rules())][:3]
    [('one card', 22), ('last card', 23), ('start', 12)]
    """
    families = list(dict.fromkeys(entry.family for entry in entries))
    if len(families) < 2:
        raise ValueError(f"leaving one family out needs two families or more, got {families}")
    return [
        (
            family,
            [entry for entry in entries if entry.family != family],
            [entry for entry in entries if entry.family == family],
        )
        for family in families
    ]
