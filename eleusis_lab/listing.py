"""What ``eleusis-lab list`` shows: the names a command line accepts, each with one line.

Every list is read from where its names are registered, never copied: agents from the
entry-point registries (`eleusis_lab.registry.AGENTS` and the Secrets players of
`eleusis_lab.secrets.agent`), games, dealers and complexity measures from theirs
(`eleusis_lab.games.table.GAMES`, `eleusis_lab.dealers.DEALERS`,
`eleusis_lab.rules.complexity.measures`), grammars from
`eleusis_lab.rules.grammar.GRAMMARS` and rules from the catalog.

>>> dict(listing("dealers"))["fixed"]
'The same rule every game.'
>>> dict(listing("measures"))["bits"]
'rule description length (bits), a number (column rule_bits)'
>>> dict(listing("rules"))["red_only"]
'Play only red cards (diamonds and hearts).'
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from eleusis_lab.games.table import GAMES
from eleusis_lab.registry import AGENTS
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.complexity import measures
from eleusis_lab.rules.grammar import DEFAULT_GRAMMAR, GRAMMARS, LEARNER_GRAMMAR
from eleusis_lab.secrets.agent import SECRETS_AGENTS

__all__ = ["KINDS", "listing"]


def first_line(obj: object) -> str:
    """The first paragraph of ``obj``'s docstring as one line, without reST markup.

    >>> first_line(first_line)
    "The first paragraph of obj's docstring as one line, without reST markup."
    """
    paragraph = (inspect.getdoc(obj) or "").split("\n\n", 1)[0]
    return " ".join(paragraph.split()).replace("``", "").replace("`", "")


def _agents() -> list[tuple[str, str]]:
    rows = [(name, first_line(AGENTS.agent_class(name))) for name in AGENTS.available()]
    for name in SECRETS_AGENTS.available():
        text = first_line(SECRETS_AGENTS.agent_class(name))
        rows.append((name, f"Secrets: {text[0].lower()}{text[1:]}"))
    return rows


def _games() -> list[tuple[str, str]]:
    rows = []
    for name, game in GAMES.items():
        text = first_line(_declaring_module(game))
        rows.append((name, text.split(": ", 1)[0]))  # the game, not what the module holds
    return rows


def _declaring_module(game):
    """The module that declares ``game`` (its ``GAME_TYPE``): the module of its engine
    or a package above it, e.g. the game's package; else the engine's module."""
    module = game.play.__module__
    while module:
        found = importlib.import_module(module)
        if getattr(found, "GAME_TYPE", None) is game:
            return found
        module = module.rpartition(".")[0]
    return importlib.import_module(game.play.__module__)


def _dealers() -> list[tuple[str, str]]:
    from eleusis_lab.dealers import DEALERS  # pandas: only for this list

    return [(name, first_line(DEALERS.class_of(name))) for name in DEALERS.available()]


def _measures() -> list[tuple[str, str]]:
    kinds = {"int64": "a whole number", "float64": "a number"}
    return [
        (
            m.name,
            f"{m.label or m.name}, {kinds[m.dtype]} (column {m.column})"
            + (", computed on demand" if m.on_demand else ""),
        )
        for m in measures()
    ]


def describe_grammar(grammar) -> str:
    """What a grammar's rules can read and compute, in one line.

    >>> from eleusis_lab.rules.grammar import GRAMMARS
    >>> describe_grammar(GRAMMARS["colours_suits"])
    'cards card, last; features suit, color; predicates red, black; +; mod 2, 4'
    """
    parts = [
        ("cards", grammar.cards),
        ("features", grammar.features),
        ("predicates", grammar.predicates),
        ("", grammar.arithmetic + grammar.functions + (("unary -",) if grammar.negation else ())),
        ("mod", grammar.moduli),
        ("sets of", grammar.set_sizes),
    ]
    text = "; ".join(
        f"{label} {', '.join(map(str, values))}".strip() for label, values in parts if values
    )
    if grammar.last_play_right:
        text += "; the previous verdict"
    if grammar.copies:
        text += "; copies (suit(card) == suit(last) made cheap)"
    return text


_DEFAULT_FOR = {
    DEFAULT_GRAMMAR: " (the default of the rule tools)",
    LEARNER_GRAMMAR: " (the default of the learners: bayes, bayes-context)",
}


def _grammars() -> list[tuple[str, str]]:
    return [
        (name, describe_grammar(grammar) + _DEFAULT_FOR.get(name, ""))
        for name, grammar in GRAMMARS.items()
    ]


def _rules() -> list[tuple[str, str]]:
    return [(entry.name, entry.description) for entry in catalog()]


#: What can be listed, and where each list comes from.
KINDS: dict[str, Callable[[], list[tuple[str, str]]]] = {
    "agents": _agents,
    "games": _games,
    "dealers": _dealers,
    "measures": _measures,
    "grammars": _grammars,
    "rules": _rules,
}


def listing(kind: str) -> list[tuple[str, str]]:
    """The names of ``kind`` (one of `KINDS`) with a one-line description each."""
    return KINDS[kind]()
