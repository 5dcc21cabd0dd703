"""Learnability: how many plays a reference learner needs to identify a rule.

The learner
-----------
The reference learner knows the hypothesis space of the Bayesian agents, the
``max_hypotheses`` (100,000) simplest behaviours of the ``relational`` grammar
(`eleusis_lab.rules.enumerate.build_space`), without their noise: it keeps the
hypotheses consistent with every verdict it heard (its version space,
`eleusis_lab.rules.space.PackedVerdicts.agreeing`) and guesses the simplest of them,
the first in the space's order (shortest formula first). This is identification by
enumeration (Gold, 1967), an Occam learner, and close to the Bayesian agents' most
probable hypothesis when verdicts are never wrong (their prior adds up the formulas of
a behaviour, which reorders some near ties).

Its guess *is the rule* once it accepts exactly the rule's cards in every state that can
follow the current main line, as the solo game judges a declaration (RULES.md, section
6). From then on it stays the guess: nothing that can follow tells it from the rule, so
no verdict refutes it.

The games
---------
A game starts from a random starter and plays uniformly random faces (cards are never
used up, as in `eleusis_lab.rules.reach.random_play_acceptance`); the rule judges each
play, and right cards extend the main line. The learner watches ``games`` (100) games of
``plays`` (500) plays each, drawn from ``seed``: the same starters and faces for every
rule, so that rules are compared on the same deals and the value depends on the rule
alone, never on a run.

The measure
-----------
``learnability`` is the mean, over the games, of the number of plays (verdicts heard)
after which the guess is the rule. Units: plays; ``true``, the first guess, gets 0.

- A game after whose 500 plays the guess is still not the rule counts 500: the measure
  is the mean of min(plays needed, 500), censored at the game's length. Of the 114,800
  games of the 1,148 rules of the default pool (`eleusis_lab.dealers.rule_pool`), 5
  reach 500, all of ``rank(card) != rank(last) mod 13`` (which differs from the
  simpler ``rank(card) != rank(last)`` only on a king after a king), and 13 rules have
  a game over 300.
- A rule the space does not hold counts as never identified and gets 500, the most
  there is: no guess of the learner is the rule (one may agree with it on all a game
  shows; such games are not played). These are the rules reading the card before the
  last, the length, a run or the previous verdict, since the space's contexts are the
  last card only, and those more complex than its 100,000th hypothesis (37.6 bits).

Why the guess, and why the states that can follow
-------------------------------------------------
Asking instead that *every* hypothesis left behave as the rule measured the space's
edge, not the rule: the space holds many near copies of a simple rule (the rule with a
rare exception), which take hundreds of plays to refute, and cuts off those of a complex
one, which cost more bits than its last hypothesis. ``red(card)`` was still not
identified after 1,000 plays in 7 games of 10 that way, ``abs(rank(card) - rank(last))
<= 3`` was in 25 plays on average. Under the guess, a rule is hard to learn when many
simpler hypotheses agree with it on the plays a game makes. And a hypothesis that
differs from the rule only where the game can no longer go (a black last card, once
``red(card)`` has taken a red one) is never refuted, and no play could tell it from the
rule.

Cost and cache
--------------
A rule takes 13 ms on an idle machine (100 games; 30 to 65 ms while other jobs share
its two cores), the default pool 15 s; the space, 34 MB, is built once per machine (7
s) and read in 0.1 s. That is too much for every pool a dealer builds: the measure is
computed on demand (`eleusis_lab.rules.complexity.Measure.on_demand`), for the rules
dealt and for a pool only when a dealer deals by it. Each rule's games are kept on disk
beside the hypothesis spaces (`eleusis_lab.rules.space_cache.cache_dir`, folder
``learnability/``): one JSON file per rule, named by a hash of its canonical text, in a
folder named by a hash of the learner's settings, the spaces' `FORMAT` and this
module's code. A file is written whole or not at all and checked when read (its rule,
settings and plays); one that does not check out is computed again, with a
`CacheWarning`.

Examples
--------
>>> from eleusis_lab.rules import parse
>>> learnability(parse("true")), learnability(parse("red(card)"))
(0.0, 3.02)
>>> learnability(parse("suit(card) == (suit(last) + 1) mod 4"))
17.84
>>> learnability(parse("color(card) != color(prev)"))  # reads a card the space cannot
500.0
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import sys
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from eleusis_lab.atomic_files import write_atomically
from eleusis_lab.cards import N_FACES, Card
from eleusis_lab.rules.enumerate import build_space, get_grammar
from eleusis_lab.rules.grammar import LEARNER_GRAMMAR
from eleusis_lab.rules.rule import Rule, parse
from eleusis_lab.rules.space import HypothesisSpace
from eleusis_lab.rules.space_cache import FORMAT, CacheWarning, cache_dir

__all__ = [
    "REFERENCE",
    "Learner",
    "entry_path",
    "learnability",
    "plays_needed",
    "plays_to_identify",
]


@dataclass(frozen=True)
class Learner:
    """The reference learner and the games it watches (see the module docstring).

    Parameters
    ----------
    grammar : str
        A preset of `eleusis_lab.rules.grammar.GRAMMARS` whose rules read only the card
        and the last card (the learner's states are the last card).
    max_hypotheses : int
        The size of its space.
    games, plays : int
        How many games, of how many plays each (the censoring point).
    seed : int
        The seed of the games' starters and faces.
    """

    grammar: str = LEARNER_GRAMMAR
    max_hypotheses: int = 100_000
    games: int = 100
    plays: int = 500
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("max_hypotheses", "games", "plays"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Learner.{name} must be a whole number >= 1, got {value!r}")
        reads = get_grammar(self.grammar).reads
        if reads != ("last",):
            raise ValueError(
                f"the reference learner's states are the last card; grammar {self.grammar!r}"
                f" reads {', '.join(reads) or 'no card but the candidate'}"
            )

    def space(self) -> HypothesisSpace:
        """The learner's hypothesis space (cached in the process and on disk)."""
        return build_space(self.grammar, self.max_hypotheses)

    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """The games' starters, shape (games,), and faces played, (games, plays)."""
        rng = np.random.default_rng(self.seed)
        starters = rng.integers(0, N_FACES, self.games)
        return starters, rng.integers(0, N_FACES, (self.games, self.plays))


#: The learner of the ``learnability`` measure.
REFERENCE = Learner()


def learnability(rule: Rule, learner: Learner = REFERENCE) -> float:
    """The mean number of plays ``learner`` needs to identify ``rule`` (module docstring),
    from ``learner.games`` games, each censored at ``learner.plays``; read from the disk
    cache when computed before."""
    return float(np.mean(plays_needed(rule, learner)))


def plays_needed(rule: Rule, learner: Learner = REFERENCE) -> np.ndarray:
    """The plays ``learner`` needs to identify ``rule`` in each of its games (``plays``
    where it does not), int64, shape (games,); cached in the process and on disk.

    >>> from eleusis_lab.rules import parse
    >>> plays_needed(parse("red(card)"), Learner(games=6)).tolist()
    [5, 2, 2, 5, 5, 4]
    """
    return np.array(_cached_plays(rule.text, learner))


def plays_to_identify(
    space: HypothesisSpace, rule: Rule, starter: Card, played: Sequence[Card]
) -> int | None:
    """The plays after which the learner over ``space`` has identified ``rule`` in one
    game: the ``starter``, then the cards ``played``, judged by ``rule``. None if it has
    not after the last of them (or ever, if ``space`` does not hold the rule).

    Examples
    --------
    >>> from eleusis_lab.cards import parse_cards
    >>> from eleusis_lab.rules import parse
    >>> from eleusis_lab.rules.enumerate import build_space
    >>> space = build_space("colours_suits", max_hypotheses=3, cache=False)
    >>> [space.text(h) for h in range(3)]
    ['true', 'false', 'red(card)']
    >>> starter, *played = parse_cards("2C 3H 4H 5C 6D")
    >>> # 3H right refutes false, 5C wrong refutes true: the guess is red(card)
    >>> plays_to_identify(space, parse("red(card)"), starter, played)
    3
    """
    hypothesis = space.index_of(rule)
    if hypothesis is None:
        return None
    target = _Target(space, hypothesis)
    faces = np.array([card.face for card in played], dtype=np.intp).reshape(1, len(played))
    lasts, probes, right = target.play(np.array([starter.face]), faces)
    return target.plays_to_identify(lasts[0], probes[0], right[0])


# -- one rule of the space, played ---------------------------------------------------


class _Target:
    """A hypothesis of the space as the rule of the learner's games: its verdicts and
    moves by last card, and the last cards that can follow each."""

    def __init__(self, space: HypothesisSpace, hypothesis: int):
        self.space, self.hypothesis = space, hypothesis
        faces = np.arange(N_FACES)
        self.rows = np.array([space.context_row((face,)) for face in faces])  # by last card
        self.right = space.verdicts(hypothesis)[self.rows]  # (last card, face)
        self.after = np.where(self.right, faces, faces[:, None])  # the last card after a play
        self.follows = _closure(self.right)  # follows[a, b]: a line ending in a can end in b

    def play(self, starters: np.ndarray, faces: np.ndarray):
        """The games' last cards before each play and after the last (games, plays + 1),
        their probes and verdicts (games, plays)."""
        lasts = np.empty((len(starters), faces.shape[1] + 1), np.intp)
        lasts[:, 0] = starters
        for t in range(faces.shape[1]):
            lasts[:, t + 1] = self.after[lasts[:, t], faces[:, t]]
        before = lasts[:, :-1]
        return lasts, self.rows[before] * N_FACES + faces, self.right[before, faces]

    def plays_to_identify(self, lasts, probes, right) -> int | None:
        """The plays of one game after which the simplest consistent hypothesis is the
        rule, or None."""
        simpler = np.ones(self.hypothesis, bool)  # consistent so far, simpler than the rule
        heard = 0
        while simpler.any():
            guess = int(simpler.argmax())
            wrong = self.space.verdict_bits(probes[heard:], guess) != right[heard:]
            if not wrong.any():  # the guess for the rest of the game
                return self._equivalent_from(guess, lasts[heard:], heard)
            refuted = heard + int(wrong.argmax()) + 1
            simpler &= self.space.agreeing(
                probes[heard:refuted], right[heard:refuted], self.hypothesis
            )
            heard = refuted
        return heard  # every simpler hypothesis refuted: the guess is the rule itself

    def _equivalent_from(self, guess: int, lasts: np.ndarray, heard: int) -> int | None:
        """The first play, from ``heard`` on, after which ``guess`` differs from the rule
        in no state that can follow (``lasts``: the last cards from then on)."""
        differs = (self.space.verdicts(guess)[self.rows] != self.right).any(axis=1)
        apart = (self.follows[lasts] & differs).any(axis=1)
        return None if apart.all() else heard + int(apart.argmin())


def _closure(right: np.ndarray) -> np.ndarray:
    """Which last cards can follow which: reflexive and transitive closure of the moves
    ``a -> b`` where ``b`` is right after ``a``."""
    follows = right | np.eye(len(right), dtype=bool)
    while True:
        wider = (follows.astype(np.float32) @ follows.astype(np.float32)) > 0
        if (wider == follows).all():
            return follows
        follows = wider


def _compute(rule: Rule, learner: Learner) -> list[int]:
    space = learner.space()
    hypothesis = space.index_of(rule)
    if hypothesis is None:  # outside the space: never identified
        return [learner.plays] * learner.games
    target = _Target(space, hypothesis)
    games = target.play(*learner.deals())
    found = [target.plays_to_identify(*game) for game in zip(*games, strict=True)]
    return [learner.plays if plays is None else plays for plays in found]


# -- the disk cache ---------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _cached_plays(text: str, learner: Learner) -> tuple[int, ...]:
    path = entry_path(text, learner)
    if path is not None and path.exists():
        try:
            return tuple(_load(path, text, learner))
        except ValueError as error:
            warnings.warn(
                f"learnability cache: {path}: {error}; computing it again",
                CacheWarning,
                stacklevel=4,
            )
    plays = _compute(parse(text), learner)
    if path is not None:
        _save(path, {"rule": text, "learner": asdict(learner), "plays": plays})
    return tuple(plays)


def entry_path(text: str, learner: Learner = REFERENCE) -> Path | None:
    """The file that keeps the games of the rule of canonical text ``text``, or None
    when nothing is cached (``ELEUSIS_LAB_CACHE=off``)."""
    root = cache_dir()
    if root is None:
        return None
    rule_key = hashlib.sha256(text.encode()).hexdigest()[:32]
    return root / "learnability" / _settings_key(learner) / f"{rule_key}.json"


@functools.cache
def _settings_key(learner: Learner) -> str:
    grammar = get_grammar(learner.grammar).digest()
    code = inspect.getsource(sys.modules[__name__])
    text = json.dumps([asdict(learner), grammar, FORMAT, code], sort_keys=True)
    return f"{learner.grammar}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _load(path: Path, text: str, learner: Learner) -> list[int]:
    """The plays kept in ``path``, checked against the rule and the learner."""
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot be read ({error})") from None
    if not isinstance(entry, dict) or set(entry) != {"rule", "learner", "plays"}:
        raise ValueError("not an entry of this cache")
    if entry["rule"] != text or entry["learner"] != asdict(learner):
        raise ValueError("it holds another rule or learner")
    plays = entry["plays"]
    valid = isinstance(plays, list) and len(plays) == learner.games
    if not valid or not all(type(p) is int and 0 <= p <= learner.plays for p in plays):
        raise ValueError(
            f"its plays are not {learner.games} whole numbers from 0 to {learner.plays}"
        )
    return plays


def _save(path: Path, entry: dict) -> None:
    """Write ``entry`` whole or not at all; a full disk loses only time."""
    with contextlib.suppress(OSError):
        write_atomically(path, lambda temporary: Path(temporary).write_text(json.dumps(entry)))
