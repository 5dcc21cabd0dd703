"""Rule-choosing dealers: from one fixed rule to a dealer that learns which complexity pays.

Before each game a `Dealer` picks the secret rule with `Dealer.choose_rule`, given the
random generator the experiment hands it, and may learn from the game's dealer score
through `Dealer.record_score`. Dealers never see the agents. They are plain objects:
picklable, deterministic given their generator, and described for a results table by
`Dealer.get_params`. `make_dealer` builds one from a TOML table.

Kinds
-----
``fixed``
    One rule, by catalog name or rule text: ``{kind = "fixed", rule = "suit_cycle"}``
    (a plain string is the same).
``catalog``
    Uniform over the acceptable catalog rules; or over a list of names
    (``rules = [...]``); or with a weight per name (``weights = {name = 2.0, ...}``).
``band``
    Uniform over the generated acceptable rules whose complexity ``measure`` lies in
    ``[low, high)``: ``{kind = "band", measure = "bits", low = 20, high = 30}``.
``spread``
    Stratified over ``bins`` bins of a measure (quantile bins by default): each cycle
    of games visits every bin once, in a random order, and within a bin rules are dealt
    without replacement until the bin is used up, so ``k`` games cover ``k`` different
    rules while every bin has rules left.
``adaptive``
    A bandit over bands of a measure (UCB1 or Thompson sampling): it picks a band
    before each game, a rule uniformly inside it, learns from `Dealer.record_score`,
    and logs every choice in ``choices``.

Other kinds are `Dealer` subclasses found as agents are (`DEALERS`, an
`eleusis_lab.registry.Registry`): by ``module:Class``, ``{kind =
"mypackage.dealers:MyDealer", ...}``, by the name an installed package registers in
the entry-point group ``eleusis_lab.dealers`` (the built-in names above come first
and are not replaced), or by the name of a class ``DEALERS.add`` put in.

A spec's dealer is checked once, when the spec is loaded, into a `DealerPlan`: what
each shard builds its dealer from, whether it learns, and the pool whose figures the
rows of its rules take.

Generated rules
---------------
Band, spread and adaptive dealers draw from a *pool*: the ``size`` most probable
behaviours of a grammar of `eleusis_lab.rules.grammar` (the ``standard`` preset by
default, the grammar the Bayesian agents use), each as its shortest formula, keeping
the rules that pass `check_acceptable` (at least 13 of the 52 faces right in every
reachable context), with their complexity figures: one per measure of
`eleusis_lab.rules.complexity.measures` (``nodes``, ``bits``, ``acceptance``,
``classes``, ``learnability`` and any measure registered), by which the dealers are
told to deal (``measure = "bits"``). A pool is built once per process (the default
takes a few seconds; it is kept on disk, `eleusis_lab.table_cache`) and shared by every
dealer; `rule_pool` shows it as a table. A measure computed on demand
(``learnability``, `Measure.on_demand`) gets its column only when a dealer deals by it,
computed then for every rule of the pool and kept on disk too.

Examples
--------
>>> import numpy as np
>>> dealer = make_dealer({"kind": "band", "measure": "bits", "low": 20, "high": 25,
...                       "size": 1000})
>>> chosen = dealer.choose_rule(np.random.default_rng(0))
>>> chosen.arm
'bits [20, 25)'
>>> 20 <= complexity(chosen.rule).bits < 25
True
>>> make_dealer("suit_cycle").get_params()
{'kind': 'fixed', 'rule': 'suit_cycle', 'require_acceptable': True}
"""

from __future__ import annotations

import abc
import copy
import difflib
import functools
import inspect
import math
import numbers
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from eleusis_lab import table_cache
from eleusis_lab.cards import N_FACES
from eleusis_lab.errors import ConfigError, did_you_mean
from eleusis_lab.registry import AgentRegistry, AgentSpecError, UnknownAgentError
from eleusis_lab.rules.analysis import QUARTER_OF_THE_DECK, check_acceptable
from eleusis_lab.rules.catalog import acceptable_rules, catalog
from eleusis_lab.rules.complexity import (  # noqa: F401 (complexity: doctests)
    DEFAULT_MEASURE,
    Measure,
    complexity,
    get_measure,
    measure_names,
    measures,
)
from eleusis_lab.rules.context import NO_CARD, OUTCOME_NONE
from eleusis_lab.rules.enumerate import build_space
from eleusis_lab.rules.grammar import DEFAULT_GRAMMAR, GRAMMARS, Grammar
from eleusis_lab.rules.parser import RuleSyntaxError
from eleusis_lab.rules.reach import TooManyContexts
from eleusis_lab.rules.rule import Rule, parse

__all__ = [
    "DEALERS",
    "DEFAULT_POOL_SIZE",
    "GROUP",
    "AdaptiveDealer",
    "BandDealer",
    "CatalogDealer",
    "ChosenRule",
    "Dealer",
    "DealerPlan",
    "FixedDealer",
    "SpreadDealer",
    "learns",
    "make_dealer",
    "rule_pool",
]

#: The entry-point group where packages register dealer kinds (a `Dealer` subclass each).
GROUP = "eleusis_lab.dealers"
#: Hypotheses enumerated for a pool by default: 1148 acceptable rules of the standard
#: grammar, 5.2 to 28.9 bits, built in a few seconds.
DEFAULT_POOL_SIZE = 3000


# -- the interface ----------------------------------------------------------------------


@dataclass(frozen=True)
class ChosenRule:
    """A dealer's choice for one game.

    Attributes
    ----------
    rule : Rule
        The secret rule of the game.
    arm : str or None
        The band the rule was drawn from (band, spread and adaptive dealers), else None.

    Examples
    --------
    >>> ChosenRule(parse("red(card)"))
    ChosenRule(rule=parse('red(card)'), arm=None)
    """

    rule: Rule
    arm: str | None = None


class Dealer(abc.ABC):
    """A dealer: picks the secret rule of each game and may learn from the scores.

    Parameters live in the constructor and are kept under their own names, as in
    scikit-learn, so `get_params` lists them; validation happens in the constructor,
    so a bad setting fails before any game is played (`ConfigError`).

    Attributes
    ----------
    name : str
        The kind of dealer: ``"fixed"``, ``"catalog"``, ``"band"``, ``"spread"`` or
        ``"adaptive"``; `make_dealer` takes it as ``kind``. The results' ``dealer``
        column. A dealer of one's own is named by ``module:Class`` in a spec, or by its
        name once a package registers it (`DEALERS`).

    Examples
    --------
    A dealer of one's own needs a ``name`` and `choose_rule`:

    >>> class Reds(Dealer):
    ...     name = "reds"
    ...     def choose_rule(self, rng):
    ...         return ChosenRule(parse("red(card)"))
    >>> Reds().choose_rule(np.random.default_rng(0)).rule
    parse('red(card)')
    >>> Reds().get_params()
    {'kind': 'reds'}
    """

    name: ClassVar[str]
    #: Attributes rebuilt after unpickling instead of being pickled (the shared pool).
    _transient: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        """Pick the rule of the next game.

        Parameters
        ----------
        rng : numpy.random.Generator
            The only source of randomness: the same generator state gives the same rule.

        Returns
        -------
        ChosenRule
        """

    def record_score(self, chosen: ChosenRule, score: float) -> None:  # noqa: B027
        """Learn from the dealer score of a game played with ``chosen`` (default: nothing).

        Parameters
        ----------
        chosen : ChosenRule
            What `choose_rule` returned for that game.
        score : float
            The dealer's score in that game.
        """

    def get_params(self) -> dict[str, Any]:
        """The dealer's parameters as JSON-ready data, ``kind`` first.

        ``make_dealer(dealer.get_params())`` builds an equal, fresh dealer. ``kind`` is
        the registered name, or for a class of one's own that is not registered, its
        ``module:Class`` (its ``name`` if it cannot be imported by one).
        """
        params: dict[str, Any] = {"kind": _kind(type(self))}
        for key in _init_parameters(type(self)):
            params[key] = _jsonable(getattr(self, key))
        return params

    def __repr__(self) -> str:
        shown = []
        defaults = _init_parameters(type(self))
        for key, default in defaults.items():
            value = getattr(self, key)
            if default is inspect.Parameter.empty or not _same(value, default):
                shown.append(f"{key}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self._transient}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for key in self._transient:
            self.__dict__.setdefault(key, None)


def _init_parameters(cls: type) -> dict[str, Any]:
    signature = inspect.signature(cls.__init__)
    return {
        p.name: p.default
        for p in signature.parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _jsonable(value: Any) -> Any:
    if isinstance(value, Rule):
        return value.name or value.text
    if isinstance(value, Grammar):
        preset = GRAMMARS.get(value.name)
        return value.name if preset == value else _jsonable(asdict(value))
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


# -- validation helpers -------------------------------------------------------------------


def _bad(key: str, reason: str) -> ConfigError:
    return ConfigError(f"dealer.{key}: {reason}" if key else f"dealer: {reason}")


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise _bad(key, f"expected a number, got {value!r}")
    return float(value)


def _whole(value: Any, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise _bad(key, f"expected a whole number >= {minimum}, got {value!r}")
    return int(value)


def _flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(key, f"expected true or false, got {value!r}")
    return value


def _one_of(value: Any, key: str, choices: Sequence[str], what: str) -> str:
    if value not in choices:
        raise _bad(key, f"unknown {what} {value!r}; choose from {', '.join(choices)}")
    return value


def _measure(value: Any) -> str:
    return _one_of(value, "measure", measure_names(), "measure")


def _band(low: Any, high: Any, key_low: str, key_high: str) -> tuple[float, float]:
    lo, hi = _number(low, key_low), _number(high, key_high)
    if lo >= hi:
        raise _bad(key_low, f"low ({low!r}) must be below high ({high!r})")
    return lo, hi


def _grammar(value: Any) -> Grammar:
    if isinstance(value, Grammar):
        return value
    if isinstance(value, str):
        if value not in GRAMMARS:
            raise _bad("grammar", f"unknown grammar {value!r}; choose from {', '.join(GRAMMARS)}")
        return GRAMMARS[value]
    if isinstance(value, Mapping):
        try:
            return Grammar(**value)
        except (TypeError, ValueError) as error:
            raise _bad("grammar", f"not a grammar: {error}") from None
    raise _bad("grammar", f"expected a grammar preset name, got {value!r}")


def _check_rng(rng: Any) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"a dealer needs a numpy.random.Generator, got {type(rng).__name__}")


def _label(measure: str, low: float, high: float, closed: bool = False) -> str:
    return f"{measure} [{low:g}, {high:g}{']' if closed else ')'}"


# -- the pool of generated rules --------------------------------------------------------------


class _Pool:
    """Generated rules of a grammar with their acceptability and complexity figures."""

    def __init__(self, grammar: Grammar, size: int, frame: pd.DataFrame, key: dict[str, Any]):
        self.grammar, self.size, self.frame, self.key = grammar, size, frame, key
        self.texts: list[str] = frame["rule"].tolist()
        self.figures = {name: frame[name].to_numpy() for name in key["measures"]}
        self._rules: list[Rule | None] = [None] * len(frame)
        self._index: dict[str, int] | None = None

    def values(self, measure: str) -> np.ndarray:
        """The figures of ``measure``, one per rule; a measure the pool was built without
        (one computed on demand) is computed the first time, and kept on disk."""
        if measure not in self.figures:
            found = get_measure(measure)
            column = _cached(
                "rule-pool-column",
                {**self.key, "measures": [found.name]},
                lambda: pd.DataFrame({found.name: [found(self.rule(i)) for i in range(len(self))]}),
                [found],
            )
            self.figures[measure] = column[found.name].to_numpy(dtype=found.dtype)
        return self.figures[measure]

    def __len__(self) -> int:
        return len(self.texts)

    def figures_of(self, text: str) -> dict[str, Any] | None:
        """The figures the pool has for the rule ``text``, by measure name (None for a
        rule not in the pool)."""
        if self._index is None:
            self._index = {rule: i for i, rule in enumerate(self.texts)}
        i = self._index.get(text)
        return None if i is None else {name: values[i] for name, values in self.figures.items()}

    def rule(self, i: int) -> Rule:
        rule = self._rules[i]
        if rule is None:
            rule = self._rules[i] = parse(self.texts[i])
        return rule

    def describe(self) -> str:
        return f"grammar {self.grammar.name!r} with size {self.size}"

    def members(self, measure: str, low: float, high: float, key: str) -> np.ndarray:
        """Pool indices with ``low <= measure < high``; a ConfigError when there are none."""
        values = self.values(measure)
        inside = np.flatnonzero((values >= low) & (values < high))
        if not len(inside):
            if len(values):
                have = f"from {values.min():.4g} to {values.max():.4g}"
            else:
                have = "nowhere: the pool holds no acceptable rule"
            raise _bad(
                key,
                f"the band {_label(measure, low, high)} holds no acceptable rule of the "
                f"pool ({self.describe()}); its {measure} ranges {have}",
            )
        return inside

    def bins(self, measure: str, bins: int, binning: str) -> list[tuple[float, float, bool]]:
        """Non-empty bins of ``measure`` as (low, high, closed on the right)."""
        values = self.values(measure)
        if not len(values):
            raise _bad("size", f"the pool ({self.describe()}) holds no acceptable rule")
        if binning == "quantile":
            edges = np.quantile(values, np.linspace(0, 1, bins + 1))
        else:
            edges = np.linspace(values.min(), values.max(), bins + 1)
        edges = _round_edges(edges)
        if len(edges) == 1:  # every rule has the same figure
            return [(float(edges[0]), float(edges[0]), True)]
        found = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)
        last = len(edges) - 2
        return [
            (float(edges[b]), float(edges[b + 1]), b == last)
            for b in range(len(edges) - 1)
            if (found == b).any()
        ]

    def bin_members(self, measure: str, low: float, high: float, closed: bool) -> np.ndarray:
        values = self.values(measure)
        upper = values <= high if closed else values < high
        return np.flatnonzero((values >= low) & upper)


def _round_edges(edges: np.ndarray, digits: int = 4) -> np.ndarray:
    """Edges to ``digits`` significant digits, for short labels: the first rounded down,
    the last up, so the bins still hold every value; duplicates removed."""

    def rounded(x: float, how) -> float:
        if x == 0 or not math.isfinite(x):
            return float(x)
        scale = 10.0 ** (math.floor(math.log10(abs(x))) - digits + 1)
        return float(how(x / scale) * scale)

    out = [rounded(x, round) for x in edges]
    out[0], out[-1] = rounded(edges[0], math.floor), rounded(edges[-1], math.ceil)
    return np.unique(out)


def _starter_rows(space) -> np.ndarray:
    """Contexts of the space that every rule reaches: each face as the starter."""
    keep = np.ones(len(space.contexts), dtype=bool)
    for column, slot in enumerate(space.slots):
        values = space.contexts[:, column]
        if slot == "last":
            keep &= values != NO_CARD
        elif slot == "prev":
            keep &= values == NO_CARD
        elif slot == "outcome":
            keep &= values == OUTCOME_NONE
    return np.flatnonzero(keep)


def _fewest_at_start(space) -> np.ndarray:
    """Per hypothesis, the fewest right faces over the starter contexts.

    Every starter is reachable under every rule, so a rule below a quarter of the deck
    here is not acceptable; this spares the exact check for most rejected rules.
    """
    rows = (_starter_rows(space)[:, None] * N_FACES + np.arange(N_FACES)).ravel()
    n = len(space)
    fewest = np.empty(n, dtype=np.int64)
    block = 1 << 13  # hypotheses per block
    for start in range(0, n, block):
        stop = min(n, start + block)
        right = space.verdict_rows(rows, start, stop)
        counts = right.reshape(-1, N_FACES, stop - start).sum(axis=1)
        fewest[start:stop] = counts.min(axis=0)
    return fewest


def _pool(grammar: Grammar, size: int, acceptable_only: bool = True) -> _Pool:
    """The pool of the measures registered now but those computed on demand (see
    `_measured_pool`)."""
    return _measured_pool(grammar, size, acceptable_only, measures(on_demand=False))


@functools.lru_cache(maxsize=8)
def _measured_pool(
    grammar: Grammar, size: int, acceptable_only: bool, measured: tuple[Measure, ...]
) -> _Pool:
    """The pool with a column per measure of ``measured``, built once per process, and
    once per machine (`_cached`)."""
    key = {
        "grammar": grammar.digest(),
        "size": size,
        "acceptable_only": acceptable_only,
        "measures": [measure.name for measure in measured],
    }
    frame = _cached(
        "rule-pool", key, lambda: _pool_frame(grammar, size, acceptable_only, measured), measured
    )
    return _Pool(grammar, size, frame, key)


def _cached(name: str, key: dict, build, measured: Sequence[Measure]) -> pd.DataFrame:
    """``build()``, kept on disk (`eleusis_lab.table_cache`) under ``name`` and ``key``
    and the code of this module, of the rule language and of every measure of
    ``measured``; in this process only when that code cannot be read (a measure made in
    a doctest or a session, say)."""
    import importlib

    sources = [sys.modules[__name__]]
    sources += [importlib.import_module(f"eleusis_lab.rules.{name}") for name in _ANALYSIS]
    where: dict[str, Any] = {}  # the default cache directory
    for measure in measured:
        module = inspect.getmodule(measure.function)
        try:
            inspect.getsource(module)  # type: ignore[arg-type]
        except (OSError, TypeError):
            where = {"directory": None}  # kept in this process only
            break
        if module not in sources:
            sources.append(module)
    return table_cache.cached_table(name, key, build, sources, **where)


#: The modules of the rule language and its analysis, whose code a pool's figures follow.
_ANALYSIS = (
    "analysis", "ast", "check", "complexity", "context", "enumerate", "enumerator",
    "evaluate", "formula_graph", "grammar", "parser", "printer", "prior", "reach",
    "row_hash", "rule", "space",
)  # fmt: skip


def _pool_frame(
    grammar: Grammar, size: int, acceptable_only: bool, measured: Sequence[Measure]
) -> pd.DataFrame:
    space = build_space(grammar, size, cache=False)
    at_start = _fewest_at_start(space)
    candidates = np.arange(len(space))
    if acceptable_only:
        candidates = candidates[at_start >= QUARTER_OF_THE_DECK]
    rows = []
    for hypothesis in candidates.tolist():
        text = space.text(hypothesis)
        rule = parse(text)
        try:
            verdict = check_acceptable(rule)
            if acceptable_only and not verdict.acceptable:
                continue
            # shares check_acceptable's exploration (cached)
            values = [measure(rule) for measure in measured]
        except TooManyContexts:  # over the analysis budget: no dealer may pick it
            continue
        rows.append((hypothesis, text, *values, verdict.fewest, verdict.acceptable))
    names = [measure.name for measure in measured]
    frame = pd.DataFrame(rows, columns=["hypothesis", "rule", *names, "fewest_legal", "acceptable"])
    return frame.astype(
        {"hypothesis": "int64"}
        | {measure.name: measure.dtype for measure in measured}
        | {"fewest_legal": "int64", "acceptable": "bool"}
    )


def _pool_size(size: Any) -> int:
    return _whole(size, "size", 1)


def rule_pool(
    grammar: str | Grammar | None = None,
    size: int = DEFAULT_POOL_SIZE,
    acceptable_only: bool = True,
    measures: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The generated rules of a grammar with their complexity figures, one row per rule.

    The ``size`` most probable behaviours of the grammar are enumerated
    (`eleusis_lab.rules.enumerate.build_space`), each written as its shortest formula,
    and judged with `check_acceptable` and `complexity`. The table is built once per
    process and grammar; this returns a copy.

    Parameters
    ----------
    grammar : str or Grammar, optional
        A preset of `eleusis_lab.rules.grammar.GRAMMARS`; ``"standard"`` by default.
    size : int
        How many hypotheses to enumerate, before the acceptability test.
    acceptable_only : bool
        Keep only the rules a dealer may pick (the default). False lists every rule,
        which computes the figures of rejected rules too and takes longer.
    measures : sequence of str, optional
        The complexity measures to give a column, by name. Default: every measure
        (`eleusis_lab.rules.complexity.measures`) but those computed on demand
        (``learnability``: `Measure.on_demand`), which take a while the first time for
        a pool (learnability: 15 s for the default one), then are read from disk.

    Returns
    -------
    pandas.DataFrame
        Columns ``hypothesis`` (index in the space, simplest first), ``rule`` (text),
        one per measure (``nodes``, ``bits``, ``acceptance``, ``classes`` and those
        registered), ``fewest_legal`` (fewest right faces in a reachable context) and
        ``acceptable``.

    Raises
    ------
    ConfigError
        For an unknown grammar or measure, or a size that is not a whole number >= 1.

    Examples
    --------
    >>> pool = rule_pool(size=1000)
    >>> len(pool), bool(pool["acceptable"].all()), bool((pool["fewest_legal"] >= 13).all())
    (460, True, True)
    >>> simplest = pool.loc[pool["bits"].idxmin()]
    >>> simplest["rule"], int(simplest["nodes"]), round(float(simplest["bits"]), 2)
    ('true', 1, 5.17)
    >>> pool["bits"].describe()[["min", "50%", "max"]].round(1).tolist()
    [5.2, 21.3, 24.8]
    >>> rule_pool(size=100, measures=["bits", "learnability"]).columns.tolist()
    ['hypothesis', 'rule', 'bits', 'learnability', 'fewest_legal', 'acceptable']
    """
    pool = _pool(_grammar(grammar or DEFAULT_GRAMMAR), _pool_size(size), bool(acceptable_only))
    if measures is None:  # those the pool is built with: all but those computed on demand
        names = pool.key["measures"]
    else:
        names = [get_measure(name).name for name in measures]
    figures = pd.DataFrame({name: pool.values(name) for name in names}, index=pool.frame.index)
    return pd.concat(
        [pool.frame[["hypothesis", "rule"]], figures, pool.frame[["fewest_legal", "acceptable"]]],
        axis=1,
    )


# -- fixed and catalog dealers ------------------------------------------------------------------


def _rule_from(value: Any, key: str) -> Rule:
    if isinstance(value, Rule):
        return value
    if not isinstance(value, str):
        raise _bad(key, f"expected a catalog name or rule text, got {value!r}")
    names = {entry.name: entry.rule for entry in catalog()}
    if value.strip() in names:
        return names[value.strip()]
    try:
        return parse(value)
    except RuleSyntaxError as error:
        if not value.strip().isidentifier():
            raise _bad(key, f"the rule text does not parse: {error}") from None
    hint = _suggest(value.strip(), names)
    if value.strip() in DEALERS.available():
        hint = f"a dealer kind is given as {{kind = {value.strip()!r}}}"
    raise _bad(key, f"no catalog rule named {value.strip()!r}; {hint}")


def _suggest(name: str, names) -> str:
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)
    return f"did you mean {', '.join(close)}?" if close else "see catalog() for the names"


def _require_acceptable(rule: Rule, key: str) -> None:
    try:
        verdict = check_acceptable(rule)
    except TooManyContexts as error:  # over the analysis budget: refused, not a stall
        raise _bad(key, f"{error}; a dealer may only pick rules it can check") from None
    if not verdict.acceptable:
        shown = rule.name or rule.text
        raise _bad(
            key,
            f"the rule {shown!r} is {verdict} (a dealer may only pick acceptable rules;"
            " set require_acceptable = false to deal it anyway)",
        )


class FixedDealer(Dealer):
    """The same rule every game.

    Parameters
    ----------
    rule : str or Rule
        A catalog name (``"suit_cycle"``) or rule text.
    require_acceptable : bool
        Refuse a rule that leaves fewer than 13 faces right in some reachable context
        (RULES.md 1.8); false lets a study deal such a rule on purpose.

    Raises
    ------
    ConfigError
        For an unknown name, rule text that does not parse, or an unacceptable rule.

    Examples
    --------
    >>> dealer = FixedDealer("color(card) != color(last)")
    >>> dealer.choose_rule(np.random.default_rng(1))
    ChosenRule(rule=parse('color(card) != color(last)'), arm=None)
    >>> try:
    ...     FixedDealer("(rank(card) - rank(last)) mod 13 == 1")
    ... except ConfigError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    dealer.rule: the rule '(rank(card) - rank(last)) mod 13 == 1' is not acceptable: after
    7C only 4 cards are legal: 8C 8D 8H 8S (a dealer may only pick acceptable rules; set
    require_acceptable = false to deal it anyway)
    """

    name = "fixed"

    def __init__(self, rule: str | Rule, require_acceptable: bool = True):
        self.rule = rule
        self.require_acceptable = _flag(require_acceptable, "require_acceptable")
        self._rule = _rule_from(rule, "rule")
        if require_acceptable:
            _require_acceptable(self._rule, "rule")

    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        _check_rng(rng)
        return ChosenRule(self._rule)


class CatalogDealer(Dealer):
    """A catalog rule each game: uniformly, from a list of names, or by weight.

    Parameters
    ----------
    rules : list of str, optional
        Catalog names to choose among, uniformly. Default: every acceptable catalog
        rule (every catalog rule when ``require_acceptable`` is false).
    weights : dict of str to float, optional
        Instead of ``rules``: a weight >= 0 per catalog name; a rule is chosen with
        probability proportional to its weight.
    require_acceptable : bool
        Refuse named rules that are not acceptable (RULES.md 1.8).

    Raises
    ------
    ConfigError
        For both ``rules`` and ``weights``, an empty list, a name given twice, an
        unknown name, a weight that is not a number >= 0 (or all zero), or an
        unacceptable named rule.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> dealer = CatalogDealer(weights={"suit_cycle": 3, "color_alternation": 1})
    >>> sorted({dealer.choose_rule(rng).rule.name for _ in range(20)})
    ['color_alternation', 'suit_cycle']
    >>> all(check_acceptable(CatalogDealer().choose_rule(rng).rule).acceptable
    ...     for _ in range(20))
    True
    """

    name = "catalog"

    def __init__(
        self,
        rules: Sequence[str] | None = None,
        weights: Mapping[str, float] | None = None,
        require_acceptable: bool = True,
    ):
        self.rules = rules
        self.weights = weights
        self.require_acceptable = _flag(require_acceptable, "require_acceptable")
        named = {entry.name: entry.rule for entry in catalog()}
        if rules is not None and weights is not None:
            raise _bad("weights", "give either rules or weights, not both")
        probabilities = None
        if rules is not None:
            chosen = self._names(rules, named)
        elif weights is not None:
            chosen, probabilities = self._weighted(weights, named)
        else:
            chosen = None
        if chosen is None:
            pool = acceptable_rules() if require_acceptable else [e.rule for e in catalog()]
        else:
            pool = [named[name] for name in chosen]
            if require_acceptable:
                for i, rule in enumerate(pool):
                    key = f"rules[{i}]" if rules is not None else f"weights.{rule.name}"
                    _require_acceptable(rule, key)
        self._rules = tuple(pool)
        self._p = probabilities

    @staticmethod
    def _names(rules: Any, named: Mapping[str, Rule]) -> list[str]:
        if isinstance(rules, str) or not isinstance(rules, Sequence):
            raise _bad("rules", f"expected a list of catalog names, got {rules!r}")
        if not rules:
            raise _bad("rules", "an empty list; name at least one catalog rule")
        seen: set[str] = set()
        for i, name in enumerate(rules):
            if not isinstance(name, str):
                raise _bad(f"rules[{i}]", f"expected a catalog name, got {name!r}")
            if name not in named:
                raise _bad(
                    f"rules[{i}]", f"no catalog rule named {name!r}; {_suggest(name, named)}"
                )
            if name in seen:
                raise _bad(f"rules[{i}]", f"{name!r} is listed twice (use weights instead)")
            seen.add(name)
        return list(rules)

    @staticmethod
    def _weighted(weights: Any, named: Mapping[str, Rule]) -> tuple[list[str], np.ndarray]:
        if not isinstance(weights, Mapping) or not weights:
            raise _bad("weights", f"expected a table of catalog name = weight, got {weights!r}")
        unknown = [name for name in weights if name not in named]
        if unknown:
            hints = "; ".join(f"{name!r}: {_suggest(str(name), named)}" for name in unknown)
            raise _bad("weights", f"unknown catalog rule(s) {hints}")
        values = []
        for name, weight in weights.items():
            value = _number(weight, f"weights.{name}")
            if not (0 <= value < math.inf):
                raise _bad(f"weights.{name}", f"a weight is a finite number >= 0, got {weight!r}")
            values.append(value)
        total = sum(values)
        if total <= 0:
            raise _bad("weights", "every weight is zero; give some rule a positive weight")
        return list(weights), np.array(values) / total

    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        _check_rng(rng)
        n = len(self._rules)
        i = int(rng.integers(n)) if self._p is None else int(rng.choice(n, p=self._p))
        return ChosenRule(self._rules[i])


# -- dealers over generated rules ---------------------------------------------------------------


class _PoolDealer(Dealer):
    """A dealer drawing from the pool of generated acceptable rules (see `rule_pool`)."""

    _transient = ("_pool_ref",)
    grammar: str | Grammar
    size: int

    def _setup_pool(self) -> None:
        self._grammar = _grammar(self.grammar)
        self._size = _pool_size(self.size)
        self._pool_ref = _pool(self._grammar, self._size)

    @property
    def _pool(self) -> _Pool:
        pool = self._pool_ref
        if pool is None:  # after unpickling: this process's copy of the same pool
            pool = self._pool_ref = _pool(self._grammar, self._size)
        return pool


class BandDealer(_PoolDealer):
    """A generated acceptable rule whose complexity ``measure`` lies in ``[low, high)``.

    Parameters
    ----------
    measure : str
        A complexity measure (`eleusis_lab.rules.complexity.measure_names`):
        ``nodes``, ``bits``, ``acceptance``, ``classes``, or one registered.
    low, high : float
        The band, ``low`` included, ``high`` excluded.
    grammar : str or Grammar
        The grammar of the pool (a preset name of
        `eleusis_lab.rules.grammar.GRAMMARS`).
    size : int
        How many hypotheses the pool enumerates, before the acceptability test.

    Raises
    ------
    ConfigError
        For an unknown measure or grammar, ``low >= high``, or a band that holds no
        acceptable rule of the pool (the message gives the range the pool covers).

    Examples
    --------
    >>> dealer = BandDealer(measure="classes", low=3, high=5, size=1000)
    >>> chosen = dealer.choose_rule(np.random.default_rng(2))
    >>> chosen.arm, complexity(chosen.rule).classes in (3, 4)
    ('classes [3, 5)', True)
    >>> try:
    ...     BandDealer(measure="bits", low=40, high=50, size=1000)
    ... except ConfigError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    dealer: the band bits [40, 50) holds no acceptable rule of the pool (grammar
    'standard' with size 1000); its bits ranges from 5.17 to 24.83
    """

    name = "band"

    def __init__(
        self,
        *,
        measure: str = DEFAULT_MEASURE,
        low: float,
        high: float,
        grammar: str | Grammar = DEFAULT_GRAMMAR,
        size: int = DEFAULT_POOL_SIZE,
    ):
        self.measure = measure
        self.low = low
        self.high = high
        self.grammar = grammar
        self.size = size
        _measure(measure)
        lo, hi = _band(low, high, "low", "high")
        self._setup_pool()
        self._members = self._pool.members(measure, lo, hi, key="")
        self._arm = _label(measure, lo, hi)

    @property
    def rules(self) -> list[str]:
        """The texts of the rules this dealer chooses among."""
        return [self._pool.texts[i] for i in self._members]

    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        _check_rng(rng)
        i = int(self._members[rng.integers(len(self._members))])
        return ChosenRule(self._pool.rule(i), self._arm)


class SpreadDealer(_PoolDealer):
    """Rules spread evenly across a complexity measure: stratified over its bins.

    The pool's rules are split into ``bins`` bins of ``measure``. Each cycle of
    ``len(arms)`` games visits every bin once, in a random order; within a bin the
    rules are dealt in a random order without replacement, the bin reshuffled when
    used up. So ``k`` games deal ``k`` different rules as long as each bin has rules
    left, covering the measure's range evenly.

    The cycle and the decks are state of the dealer object: a runner that copies the
    dealer into several workers gets one stratified sequence per copy.

    Parameters
    ----------
    measure : str
        A complexity measure, as for `BandDealer`.
    bins : int
        How many bins to aim for; bins whose edges coincide (many rules with the same
        figure) are merged and empty bins dropped, so `arms` may be shorter.
    binning : str
        ``"quantile"``: bins of equal numbers of rules; ``"width"``: bins of equal
        width between the smallest and largest figure.
    grammar, size
        The pool, as for `BandDealer`.

    Raises
    ------
    ConfigError
        For an unknown measure, binning or grammar, ``bins < 1``, or an empty pool.

    Examples
    --------
    >>> dealer = SpreadDealer(measure="bits", bins=4, size=1000)
    >>> dealer.arms
    ['bits [5.169, 19.02)', 'bits [19.02, 21.28)', 'bits [21.28, 24.35)', 'bits [24.35, 24.83]']
    >>> rng = np.random.default_rng(0)
    >>> picks = [dealer.choose_rule(rng) for _ in range(8)]
    >>> sorted(p.arm for p in picks) == sorted(dealer.arms * 2)
    True
    >>> len({p.rule for p in picks})
    8
    """

    name = "spread"

    def __init__(
        self,
        *,
        measure: str = DEFAULT_MEASURE,
        bins: int = 10,
        binning: str = "quantile",
        grammar: str | Grammar = DEFAULT_GRAMMAR,
        size: int = DEFAULT_POOL_SIZE,
    ):
        self.measure = measure
        self.bins = bins
        self.binning = binning
        self.grammar = grammar
        self.size = size
        _measure(measure)
        _whole(bins, "bins", 1)
        _one_of(binning, "binning", ("quantile", "width"), "binning")
        self._setup_pool()
        self._bins = self._pool.bins(measure, bins, binning)
        self._cycle: list[int] = []
        self._decks: dict[int, list[int]] = {}

    @property
    def arms(self) -> list[str]:
        """The bins, as labels such as ``'bits [19, 21.3)'`` (the last closed)."""
        return [_label(self.measure, *b) for b in self._bins]

    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        _check_rng(rng)
        if not self._cycle:
            self._cycle = rng.permutation(len(self._bins)).tolist()
        b = self._cycle.pop()
        deck = self._decks.get(b)
        if not deck:
            members = self._pool.bin_members(self.measure, *self._bins[b])
            deck = self._decks[b] = rng.permutation(members).tolist()
        i = deck.pop()
        return ChosenRule(self._pool.rule(i), _label(self.measure, *self._bins[b]))


class AdaptiveDealer(_PoolDealer):
    """A bandit over bands of complexity: it learns which band earns the dealer most.

    Before each game the dealer picks a band (an *arm*) and a rule uniformly inside
    it; `record_score` feeds the game's dealer score back. Every choice is logged in
    ``choices``: a list of dicts with ``game`` (the number of the choice, from 0),
    ``arm``, ``rule`` (text) and ``score`` (None until recorded), ready for
    ``pandas.DataFrame(dealer.choices)``.

    Parameters
    ----------
    measure : str
        A complexity measure, as for `BandDealer`.
    bands : list of [low, high], optional
        The arms, each ``[low, high)``.
    edges : list of float, optional
        Instead of ``bands``: increasing edges, one arm between each two.
    bins : int, optional
        Instead of ``bands``: quantile bins of the pool, as `SpreadDealer` makes.
    method : str
        ``"ucb1"`` (default) or ``"thompson"``.
    exploration : float
        UCB1's exploration weight (>= 0); unused by Thompson sampling.
    grammar, size
        The pool, as for `BandDealer`.

    Raises
    ------
    ConfigError
        For none or several of bands/edges/bins, a band with ``low >= high`` or with
        no acceptable rule, edges that do not increase, an unknown measure or method.

    Notes
    -----
    The two methods:

    ``ucb1``
        Each arm is played until it has a score; then the arm with the highest
        ``mean + exploration * span * sqrt(2 ln n / n_arm)``, where ``n`` counts all
        scores, ``n_arm`` the arm's and ``span`` is the range of the scores seen so far
        (dealer scores are not bounded, so UCB1's [0, 1] scale is learned).
    ``thompson``
        Gaussian Thompson sampling: each arm is played until it has 2 scores; then
        each arm's mean is drawn from its posterior under a normal model with the
        non-informative prior (a Student t with ``n_arm - 1`` degrees of freedom
        around the arm's mean, scaled by its standard error), and the best draw wins.

    Examples
    --------
    >>> dealer = AdaptiveDealer(edges=[5, 20, 23, 25], size=1000)
    >>> dealer.arms
    ['bits [5, 20)', 'bits [20, 23)', 'bits [23, 25)']
    >>> rng = np.random.default_rng(0)
    >>> for _ in range(60):  # a made-up score: the middle band pays best
    ...     chosen = dealer.choose_rule(rng)
    ...     dealer.record_score(chosen, 10.0 if chosen.arm == "bits [20, 23)" else 0.0)
    >>> pd.DataFrame(dealer.choices)["arm"].value_counts().idxmax()
    'bits [20, 23)'
    >>> sorted(dealer.choices[0])
    ['arm', 'game', 'rule', 'score']
    """

    name = "adaptive"
    METHODS: ClassVar[tuple[str, ...]] = ("ucb1", "thompson")

    def __init__(
        self,
        *,
        measure: str = DEFAULT_MEASURE,
        bands: Sequence[Sequence[float]] | None = None,
        edges: Sequence[float] | None = None,
        bins: int | None = None,
        method: str = "ucb1",
        exploration: float = 1.0,
        grammar: str | Grammar = DEFAULT_GRAMMAR,
        size: int = DEFAULT_POOL_SIZE,
    ):
        self.measure = measure
        self.bands = bands
        self.edges = edges
        self.bins = bins
        self.method = method
        self.exploration = exploration
        self.grammar = grammar
        self.size = size
        _measure(measure)
        _one_of(method, "method", self.METHODS, "method")
        if _number(exploration, "exploration") < 0:
            raise _bad("exploration", f"expected a number >= 0, got {exploration!r}")
        given = [key for key in ("bands", "edges", "bins") if getattr(self, key) is not None]
        if len(given) != 1:
            said = f"got {' and '.join(given)}" if given else "got none"
            raise _bad(
                "bands", f"give one of bands = [[low, high], ...], edges = [...] or bins ({said})"
            )
        pairs = self._parse_bands()  # before the pool is built: fail fast
        self._setup_pool()
        if pairs is None:
            self._arms = self._pool.bins(measure, bins, "quantile")
        else:
            for low, high, key in pairs:
                self._pool.members(measure, low, high, key=key)  # raises on an empty band
            self._arms = [(low, high, False) for low, high, _ in pairs]
        k = len(self._arms)
        self._members = [self._pool.bin_members(measure, *arm) for arm in self._arms]
        self._labels = [_label(measure, *arm) for arm in self._arms]
        self._arm_index = {label: i for i, label in enumerate(self._labels)}
        if len(self._arm_index) != k:
            raise _bad("bands", "two arms are the same band")
        self._chosen = np.zeros(k, dtype=np.int64)
        self._n = np.zeros(k, dtype=np.int64)
        self._sum = np.zeros(k)
        self._sumsq = np.zeros(k)
        self._low_score, self._high_score = math.inf, -math.inf
        self._games = 0
        self.choices: list[dict[str, Any]] = []
        self._pending: dict[tuple[str, str], list[int]] = {}  # unscored choices by arm, rule

    def _parse_bands(self) -> list[tuple[float, float, str]] | None:
        """The arms given as bands or edges, as (low, high, key); None for bins."""
        if self.bins is not None:
            _whole(self.bins, "bins", 1)
            return None
        if self.edges is not None:
            edges = self.edges
            if isinstance(edges, str) or not isinstance(edges, Sequence) or len(edges) < 2:
                raise _bad("edges", f"expected a list of at least 2 numbers, got {edges!r}")
            values = [_number(e, f"edges[{i}]") for i, e in enumerate(edges)]
            if any(b <= a for a, b in zip(values, values[1:], strict=False)):
                raise _bad("edges", f"the edges must increase, got {list(edges)!r}")
            return [
                (low, high, f"edges[{i}]")
                for i, (low, high) in enumerate(zip(values, values[1:], strict=False))
            ]
        bands = self.bands
        if isinstance(bands, str) or not isinstance(bands, Sequence) or not bands:
            raise _bad("bands", f"expected a list of [low, high] pairs, got {bands!r}")
        pairs = []
        for i, band in enumerate(bands):
            key = f"bands[{i}]"
            if isinstance(band, str) or not isinstance(band, Sequence) or len(band) != 2:
                raise _bad(key, f"expected [low, high], got {band!r}")
            if _number(band[0], key) >= _number(band[1], key):
                raise _bad(key, f"low ({band[0]!r}) must be below high ({band[1]!r})")
            pairs.append((float(band[0]), float(band[1]), key))
        return pairs

    @property
    def arms(self) -> list[str]:
        """The arms' labels, such as ``'bits [20, 25)'``, in order."""
        return list(self._labels)

    def _pick_arm(self, rng: np.random.Generator) -> int:
        needed = 1 if self.method == "ucb1" else 2
        short = np.flatnonzero(self._n < needed)
        if len(short):  # play each arm until it has enough scores, fewest choices first
            return int(short[np.argmin(self._chosen[short])])
        n = self._n
        mean = self._sum / n
        if self.method == "ucb1":
            span = self._high_score - self._low_score
            span = span if span > 0 else 1.0
            bonus = self.exploration * span * np.sqrt(2 * math.log(n.sum()) / n)
            return int(np.argmax(mean + bonus))
        variance = np.maximum(self._sumsq - n * mean**2, 0.0) / (n - 1)
        draw = mean + np.sqrt(variance / n) * rng.standard_t(n - 1)
        return int(np.argmax(draw))

    def choose_rule(self, rng: np.random.Generator) -> ChosenRule:
        _check_rng(rng)
        arm = self._pick_arm(rng)
        members = self._members[arm]
        i = int(members[rng.integers(len(members))])
        chosen = ChosenRule(self._pool.rule(i), self._labels[arm])
        self._chosen[arm] += 1
        self._pending.setdefault((chosen.arm, chosen.rule.text), []).append(len(self.choices))
        self.choices.append(
            {"game": self._games, "arm": chosen.arm, "rule": chosen.rule.text, "score": None}
        )
        self._games += 1
        return chosen

    def record_score(self, chosen: ChosenRule, score: float) -> None:
        """Learn the dealer score of a game and log it with the choice it follows.

        The score goes to the earliest logged choice of the same arm and rule that has
        none yet (a choice made by a copy of this dealer is logged anew).

        Raises
        ------
        ValueError
            For a score that is not a finite number or an arm this dealer does not have.
        """
        arm = self._arm_index.get(chosen.arm)
        if arm is None:
            raise ValueError(f"{chosen.arm!r} is not an arm of this dealer; arms: {self.arms}")
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            raise ValueError(f"a score is a number, got {score!r}")
        score = float(score)
        if not math.isfinite(score):
            raise ValueError(f"a score is a finite number, got {score!r}")
        self._n[arm] += 1
        self._sum[arm] += score
        self._sumsq[arm] += score * score
        self._low_score = min(self._low_score, score)
        self._high_score = max(self._high_score, score)
        text = chosen.rule.text
        waiting = self._pending.get((chosen.arm, text))
        if waiting:
            self.choices[waiting.pop(0)]["score"] = score
            if not waiting:
                del self._pending[(chosen.arm, text)]
        else:
            self.choices.append({"game": None, "arm": chosen.arm, "rule": text, "score": score})

    def arm_table(self) -> pd.DataFrame:
        """What the dealer has learned: per arm, its band, rules, choices and mean score.

        Examples
        --------
        >>> dealer = AdaptiveDealer(bands=[[5, 20], [20, 25]], size=1000)
        >>> dealer.arm_table()[["arm", "rules", "chosen", "scored"]]
                     arm  rules  chosen  scored
        0   bits [5, 20)    128       0       0
        1  bits [20, 25)    332       0       0
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(self._n > 0, self._sum / np.maximum(self._n, 1), np.nan)
        return pd.DataFrame(
            {
                "arm": self._labels,
                "low": [arm[0] for arm in self._arms],
                "high": [arm[1] for arm in self._arms],
                "rules": [len(m) for m in self._members],
                "chosen": self._chosen.copy(),
                "scored": self._n.copy(),
                "mean_score": mean,
            }
        )


# -- building dealers from specs ----------------------------------------------------------------

#: The dealer kinds: the built-in ones by name, others by entry point or ``module:Class``.
DEALERS = AgentRegistry(
    GROUP,
    Dealer,
    "dealer kind",
    "mypackage.dealers:MyDealer",
    "known kinds",
    builtins={
        cls.name: cls
        for cls in (FixedDealer, CatalogDealer, BandDealer, SpreadDealer, AdaptiveDealer)
    },
)


def __getattr__(name: str) -> Any:
    if name == "KINDS":  # dealer classes by kind, the registered ones (imported)
        return {kind: DEALERS.class_of(kind) for kind in DEALERS.available()}
    if name == "MEASURES":  # the complexity measures a dealer can deal by
        return measure_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _dealer_class(kind: Any) -> type[Dealer]:
    """The class of a ``kind``: a registered name or ``module:Class``; else ConfigError."""
    try:
        return DEALERS.class_of(kind)
    except UnknownAgentError:
        known = list(DEALERS.available())
        raise _bad(
            "kind",
            f"unknown kind {kind!r}{did_you_mean(kind, known)}; choose from"
            f" {', '.join(known)}, or give 'module:Class' (a Dealer subclass)",
        ) from None
    except AgentSpecError as error:
        raise _bad("kind", str(error)) from None


def _kind(cls: type) -> str:
    """What `make_dealer` takes as ``kind`` for ``cls``: its name if that is registered
    to it, else ``module:Class`` if that imports it, else its name."""
    name = getattr(cls, "name", cls.__name__)
    path = f"{cls.__module__}:{cls.__qualname__}"
    if DEALERS.available().get(name) == path:
        return name
    owner: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        owner = getattr(owner, part, None)
    return path if owner is cls else name


def learns(dealer: Dealer) -> bool:
    """Whether ``dealer`` learns from the games it deals (overrides `Dealer.record_score`):
    its choices then follow every game before them in their shard, and the runner
    keeps the shard size a spec asks for.

    >>> learns(make_dealer("red(card)")), learns(make_dealer({"kind": "adaptive", "bins": 3}))
    (False, True)
    """
    return type(dealer).record_score is not Dealer.record_score


def make_dealer(spec: Mapping[str, Any] | str | Rule | Dealer) -> Dealer:
    """Build a dealer from a TOML table, or a fixed dealer from a rule.

    Parameters
    ----------
    spec : dict, str or Rule
        A table with ``kind`` (a name of `DEALERS`: ``fixed``, ``catalog``, ``band``,
        ``spread``, ``adaptive`` or one an installed package registers; or
        ``module:Class``, a `Dealer` subclass) and that dealer's parameters, e.g.
        ``{kind = "band", measure = "bits", low = 20, high = 30}``; or a catalog name
        or rule text, for a fixed dealer. A `Dealer` is returned as it is.

    Returns
    -------
    Dealer

    Raises
    ------
    ConfigError
        The message names the key at fault and why, e.g. an unknown kind, key or
        measure, ``low >= high``, an unknown rule name, rule text that does not parse,
        a band with no acceptable rule, or weights on unknown rules.

    Examples
    --------
    >>> make_dealer({"kind": "catalog", "rules": ["suit_cycle", "color_alternation"]})
    CatalogDealer(rules=['suit_cycle', 'color_alternation'])
    >>> try:
    ...     make_dealer({"kind": "band", "measure": "bitz", "low": 20, "high": 30})
    ... except ConfigError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    dealer.measure: unknown measure 'bitz'; choose from nodes, bits, acceptance, classes,
    learnability
    >>> spec = {"kind": "spread", "bins": 5, "size": 1000}
    >>> make_dealer(make_dealer(spec).get_params()).get_params() == make_dealer(spec).get_params()
    True
    """
    if isinstance(spec, Dealer):
        return spec
    if isinstance(spec, str | Rule):
        return FixedDealer(spec)
    if not isinstance(spec, Mapping):
        raise _bad(
            "",
            "expected a table such as {kind = 'band', measure = 'bits', low = 20, high = 30}"
            f" or a rule, got {spec!r}",
        )
    if "kind" not in spec:
        raise _bad("kind", f"missing; choose from {', '.join(DEALERS.available())}")
    cls = _dealer_class(spec["kind"])
    kind = spec["kind"].strip()
    parameters = _init_parameters(cls)
    params = {key: value for key, value in spec.items() if key != "kind"}
    for key in params:
        if key not in parameters:
            raise _bad(
                str(key), f"unknown key for a {kind} dealer; keys: kind, {', '.join(parameters)}"
            )
    missing = [k for k, d in parameters.items() if d is inspect.Parameter.empty and k not in params]
    if missing:
        raise _bad(missing[0], f"missing; a {kind} dealer needs {' and '.join(missing)}")
    return cls(**params)


# -- the plan of a cell's dealer ------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DealerPlan:
    """What a cell's dealer is, as plain data: made once when a spec is loaded.

    Every shard builds a fresh dealer from it (`make`): a learning dealer learns over the
    games of one shard. The plan also knows whether the dealer learns (the runner then
    keeps the shard size the spec asks for) and which pool it deals from, so that the
    complexity figures of a dealt rule are read from the pool rather than computed
    (`figures`). A plan sent to another process is the same plan there: one per process
    and dealer, with its figures computed once per process.

    Attributes
    ----------
    kind : str
        The dealer's kind, as `make_dealer` takes it (``"fixed"``, ``"spread"`` ...,
        or ``module:Class``).
    params : dict
        The constructor's parameters as the spec gives them (checked).
    learns : bool
        Whether the dealer learns from the games it deals (see `learns`).
    grammar : Grammar or None
        The grammar of the pool of generated rules it deals from (band, spread and
        adaptive dealers), else None.
    size : int or None
        The size of that pool.

    Examples
    --------
    >>> plan = DealerPlan.of({"kind": "spread", "measure": "bits", "bins": 4, "size": 1000})
    >>> plan.kind, plan.learns, plan.size
    ('spread', False, 1000)
    >>> plan.make().arms[0]
    'bits [5.169, 19.02)'
    >>> rule = plan.make().choose_rule(np.random.default_rng(0)).rule
    >>> plan.figures(rule.text) == tuple(m(rule) for m in measures())
    True
    >>> DealerPlan.of("red(card)").make()
    FixedDealer(rule='red(card)')
    """

    kind: str
    params: Mapping[str, Any]
    learns: bool
    grammar: Grammar | None = None
    size: int | None = None

    @classmethod
    def of(cls, spec: Mapping[str, Any] | str | Rule, dealer: Dealer | None = None) -> DealerPlan:
        """The plan of the dealer ``spec`` describes (see `make_dealer`); ``dealer``, when
        given, is the dealer already made from it (it is not made again)."""
        if dealer is None:
            dealer = make_dealer(copy.deepcopy(spec))
        if isinstance(spec, str | Rule):
            kind, params = "fixed", {"rule": spec}
        else:
            kind = str(spec["kind"]).strip()
            params = {key: value for key, value in spec.items() if key != "kind"}
        pooled = isinstance(dealer, _PoolDealer)
        return _interned(
            kind,
            copy.deepcopy(params),
            learns(dealer),
            dealer._grammar if pooled else None,
            dealer._size if pooled else None,
        )

    def make(self) -> Dealer:
        """A fresh dealer of the plan (its parameters were checked when it was made)."""
        return DEALERS.class_of(self.kind)(**copy.deepcopy(dict(self.params)))

    def figures(self, rule: str) -> tuple[int | float, ...]:
        """The complexity figures of a rule's text, one per measure in the order of
        `eleusis_lab.rules.complexity.measures`: a rule of the plan's pool has them
        from the pool (computed once per machine), any other rule, and a measure the
        pool has no column for, once per process."""
        known = self._figures.setdefault(rule, {})
        missing = [measure for measure in measures() if measure not in known]
        if missing:
            pooled = (
                None if self.grammar is None else _pool(self.grammar, self.size).figures_of(rule)
            )
            parsed = None
            for measure in missing:
                if pooled is not None and measure.name in pooled:
                    known[measure] = measure.cast(pooled[measure.name])
                    continue
                parsed = parsed or parse(rule)
                known[measure] = measure(parsed)
        return tuple(known[measure] for measure in measures())

    @functools.cached_property
    def _figures(self) -> dict[str, dict[Measure, int | float]]:
        return {}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # The same plan in the process it is sent to, so figures computed there serve
        # every shard the process plays.
        return _interned, (self.kind, dict(self.params), self.learns, self.grammar, self.size)

    def __repr__(self) -> str:
        return f"DealerPlan(kind={self.kind!r}, params={dict(self.params)!r}, learns={self.learns})"


#: The plans of this process, one per dealer (see `DealerPlan.__reduce__`).
_PLANS: dict[str, DealerPlan] = {}


def _interned(
    kind: str, params: dict[str, Any], learning: bool, grammar: Grammar | None, size: int | None
) -> DealerPlan:
    key = repr((kind, _jsonable(params), learning, grammar, size))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = DealerPlan(kind, params, learning, grammar, size)
    return plan
