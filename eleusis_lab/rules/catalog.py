"""A catalog of named rules: the classics, the seed examples and the toolkit's own.

The rules live in ``catalog.toml`` beside this module, in order from easy to hard; each
has a ``name``, its ``text`` in the rule language, a ``description`` in plain English and
the ``source`` it comes from. Loading checks every entry (a duplicate name or a rule that
does not parse is an error naming the entry).

>>> from eleusis_lab.rules.catalog import catalog, get_rule
>>> entries = catalog()
>>> entries[0].name, entries[0].text
('red_only', 'red(card)')
>>> get_rule("suit_cycle")
parse('suit(card) == (suit(last) + 1) mod 4', name='suit_cycle')
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any, Protocol, TypeVar

from eleusis_lab.rules.analysis import check_acceptable
from eleusis_lab.rules.parser import RuleSyntaxError
from eleusis_lab.rules.rule import Rule, parse

__all__ = [
    "CatalogEntry",
    "CatalogError",
    "UnknownRuleError",
    "acceptable_rules",
    "catalog",
    "get_rule",
    "load",
    "read_entries",
]

_FIELDS = ("name", "text", "description", "source")
_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class CatalogError(ValueError):
    """A catalog file that cannot be loaded; the message names the entry at fault."""


class UnknownRuleError(CatalogError, LookupError):
    """A name that is not in the catalog; the message lists the closest names."""


@dataclass(frozen=True)
class CatalogEntry:
    """One named rule of the catalog.

    Attributes
    ----------
    name : str
        Unique, snake_case.
    text : str
        The rule as written in the catalog (``rule.text`` is its canonical form).
    description : str
        The rule in plain English, as a card player would say it.
    source : str
        Where the rule comes from.
    rule : Rule
        The parsed rule, with ``rule.name == name``.

    Examples
    --------
    >>> entry = next(e for e in catalog() if e.name == "color_alternation")
    >>> entry.rule.name, entry.source
    ('color_alternation', 'seed 004 example 1')
    """

    name: str
    text: str
    description: str
    source: str
    rule: Rule = field(repr=False)


def load(toml_text: str, origin: str = "<catalog>") -> list[CatalogEntry]:
    """Read and check a catalog in the TOML format of ``catalog.toml``.

    Parameters
    ----------
    toml_text : str
        The catalog: an array of ``[[rule]]`` tables with the keys ``name``, ``text``,
        ``description`` and ``source``, all strings.
    origin : str
        What to call the catalog in error messages (a file name, say).

    Returns
    -------
    list of CatalogEntry
        In the order of the file.

    Raises
    ------
    CatalogError
        If the TOML is malformed, an entry lacks a key or has an unknown one, a name is
        not snake_case or is used twice, or a rule's text does not parse; the message
        names the entry and, for rule text, shows the error with its caret.

    Examples
    --------
    >>> entries = load('''
    ... [[rule]]
    ... name = "reds"
    ... text = "red(card)"
    ... description = "Play red."
    ... source = "toolkit"
    ... ''')
    >>> entries[0].rule
    parse('red(card)', name='reds')
    >>> try:
    ...     load('''
    ... [[rule]]
    ... name = "bad"
    ... text = "red(card) & black(last)"
    ... description = "?"
    ... source = "toolkit"
    ... ''')
    ... except CatalogError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    <catalog>, rule 1 'bad': the rule text does not parse: ... unexpected character '&'
      red(card) & black(last)
                ^
    """
    return read_entries(toml_text, origin, _entry)


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_Entry = TypeVar("_Entry", bound=_Named)


def read_entries(
    toml_text: str,
    origin: str,
    make_entry: Callable[[Any, str], _Entry],
    error: type[Exception] = CatalogError,
    others: Collection[str] = (),
) -> list[_Entry]:
    """Read the ``[[rule]]`` tables of a TOML rule file into entries with unique names.

    The part of `load` that any file of named rules shares (the catalog, and the rule
    files of `eleusis_lab.rules.rule_file`): only the checks of one table differ.

    Parameters
    ----------
    toml_text : str
        The file: an array of ``[[rule]]`` tables and nothing else at the top level.
    origin : str
        What to call the file in error messages.
    make_entry : callable
        ``make_entry(table, label)`` checks one table and returns its entry (anything
        with a ``name``), raising an error that starts with ``label``: the origin, the
        table's number from 1 and its name, if it has one.
    error : exception class
        What to raise for malformed TOML, a bad top level or a duplicate name.
    others : collection of str
        Top-level keys besides ``rule`` that the file may have; the caller reads them
        (e.g. the ``[models]`` table of `eleusis_lab.rules.rule_file.published_models`).
        Any other key is an error.

    Returns
    -------
    list
        The entries in the order of the file (empty when it has no ``[[rule]]``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> def entry(table, label):
    ...     return SimpleNamespace(name=table["name"], label=label)
    >>> text = '''
    ... [[rule]]
    ... name = "a"
    ... [[rule]]
    ... name = "b"
    ... '''
    >>> [e.label for e in read_entries(text, "mine.toml", entry)]
    ["mine.toml, rule 1 'a'", "mine.toml, rule 2 'b'"]
    >>> try:
    ...     read_entries(text.replace("b", "a"), "mine.toml", entry)
    ... except CatalogError as error:
    ...     print(error)
    mine.toml, rule 2 'a': duplicate name (rule 1 has it too)
    """
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as decode_error:
        raise error(f"{origin}: not valid TOML: {decode_error}") from decode_error
    unknown = set(data) - {"rule", *others}
    if unknown:
        raise error(f"{origin}: unknown top-level key(s) {sorted(unknown)}; use [[rule]]")
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise error(f"{origin}: 'rule' must be an array of tables ([[rule]])")
    entries: list[_Entry] = []
    seen: dict[str, int] = {}
    for number, table in enumerate(tables, start=1):
        label = f"{origin}, rule {number}"
        if isinstance(table, dict) and isinstance(table.get("name"), str):
            label += f" {table['name']!r}"
        entry = make_entry(table, label)
        if entry.name in seen:
            raise error(f"{label}: duplicate name (rule {seen[entry.name]} has it too)")
        seen[entry.name] = number
        entries.append(entry)
    return entries


def _entry(table, label: str) -> CatalogEntry:
    if not isinstance(table, dict):
        raise CatalogError(f"{label}: expected a table of {', '.join(_FIELDS)}")
    missing = [key for key in _FIELDS if key not in table]
    if missing:
        raise CatalogError(f"{label}: missing {', '.join(missing)}")
    extra = sorted(set(table) - set(_FIELDS))
    if extra:
        raise CatalogError(f"{label}: unknown key(s) {', '.join(extra)}")
    for key in _FIELDS:
        if not isinstance(table[key], str) or not table[key].strip():
            raise CatalogError(f"{label}: {key} must be a non-empty string")
    name, text = table["name"], table["text"].strip()
    if not _NAME.fullmatch(name):
        raise CatalogError(f"{label}: the name must be snake_case (a-z, 0-9 and _)")
    try:
        rule = parse(text, name=name)
    except RuleSyntaxError as error:
        raise CatalogError(f"{label}: the rule text does not parse: {error}") from error
    return CatalogEntry(name, text, table["description"].strip(), table["source"].strip(), rule)


@cache
def _builtin() -> tuple[CatalogEntry, ...]:
    resource = files("eleusis_lab.rules").joinpath("catalog.toml")
    return tuple(load(resource.read_text(encoding="utf-8"), origin="catalog.toml"))


def catalog() -> list[CatalogEntry]:
    """The built-in catalog, from easy to hard.

    Returns
    -------
    list of CatalogEntry
        A new list each call (the entries themselves are shared and immutable).

    Examples
    --------
    >>> entries = catalog()
    >>> len(entries) >= 40
    True
    >>> [e.name for e in entries if e.source.startswith("seed 004")][:3]
    ['color_alternation', 'parity_alternation', 'low_high_alternation']
    >>> print(next(e for e in entries if e.name == "color_alternation").description)
    On a black card play red, on a red card play black.
    """
    return list(_builtin())


def acceptable_rules() -> list[Rule]:
    """The catalog rules that pass the quarter-of-the-deck test, from easy to hard.

    A rule passes when at least 13 of the 52 faces are right in every context a game can
    reach (RULES.md section 1, item 8), as `eleusis_lab.rules.analysis.check_acceptable`
    decides; these are the rules a dealer may pick.

    Examples
    --------
    >>> rules = acceptable_rules()
    >>> rules[0].name, "higher_rank" in [rule.name for rule in rules]
    ('red_only', False)
    """
    return list(_acceptable())


@cache
def _acceptable() -> tuple[Rule, ...]:
    return tuple(entry.rule for entry in _builtin() if check_acceptable(entry.rule).acceptable)


def get_rule(name_or_text: str) -> Rule:
    """A catalog rule by name, or else the rule that ``name_or_text`` spells.

    Parameters
    ----------
    name_or_text : str
        The name of a catalog entry (``"suit_cycle"``) or rule text
        (``"color(card) != color(last)"``).

    Returns
    -------
    Rule
        The catalog rule, with its ``name`` set; or the parsed text, unnamed.

    Raises
    ------
    UnknownRuleError
        If the argument is a single word that is neither a catalog name nor a rule; the
        message lists the closest catalog names.
    RuleSyntaxError
        If the argument is rule text with an error.

    Examples
    --------
    >>> get_rule("primes_alternate").name
    'primes_alternate'
    >>> get_rule("color(card) != color(last)")
    parse('color(card) != color(last)')
    >>> get_rule("empty")  # a word of the language is a rule too
    parse('empty')
    >>> try:
    ...     get_rule("suit_cylce")
    ... except UnknownRuleError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    no catalog rule named 'suit_cylce'; did you mean suit_cycle...?
    """
    if not isinstance(name_or_text, str):
        raise TypeError(f"expected a rule name or rule text, got {type(name_or_text).__name__}")
    key = name_or_text.strip()
    for entry in _builtin():
        if entry.name == key:
            return entry.rule
    try:
        return parse(name_or_text)
    except RuleSyntaxError:
        if not _IDENTIFIER.fullmatch(key):
            raise
    names = [entry.name for entry in _builtin()]
    close = difflib.get_close_matches(key, names, n=5, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}?" if close else "see catalog() for the names"
    raise UnknownRuleError(f"no catalog rule named {key!r}; {hint}")
