r"""The contexts a game can reach under a rule, explored exactly.

A rule reads only a few slots of the context (the last card, the card before it,
the length, the previous verdict, runs). The states of the game *as far as the
rule can tell* are the tuples of those slots, plus the slots needed to update them
(runs and ``prev`` need the last card). Starting from an empty main line and from
every possible starter, each state leads, for every right face, to the state after
that card joins the main line, and, when some face is wrong, to the same main line
after a wrong play. A breadth-first search over these transitions, vectorised with
numpy, gives every reachable state with its verdicts on the 52 faces.

Two simplifications, both on the safe side for acceptability: cards are never used
up (as with many decks, so a face may follow itself), and the main line holds at most
``max_length`` cards (104 by default: two decks): a line that long, or a run that long,
takes no more cards, so no state past it is ever reported.

Budgets
-------
Some rules tell apart millions of states (``length > suit(prev)`` about 280,000,
``run(color) + run(rank) > length mod 5`` tens of millions). Every exploration runs
under a `Budget`: at most ``states`` states held and ``seconds`` of time. Both are
checked before each block of work (the frontier is judged and extended
`CHUNK_ROWS` states at a time, so memory stays bounded by the budget too), and a rule
over budget raises `TooManyContexts` with one line naming the rule and the budget:

>>> from eleusis_lab.rules import parse
>>> try:
...     reachable(parse("length > suit(prev)"), budget=Budget(states=10_000))
... except TooManyContexts as error:
...     print(*str(error).split(": "), sep="\n")
rule 'length > suit(prev)' is over the analysis budget
it tells apart more than 10,000 contexts (Budget.states)

`random_play_acceptance` spends from the same budget after the exploration: the
transitions of the states, then each play, are checked against it too.

A rule someone types (``eleusis-lab rules show``, ``rules equiv``, a spec's fixed
dealer) is analysed under `time_limit` as well: everything inside the block shares one
deadline, `CHECK_SECONDS` (1 s), so the answer or the budget error comes within about
a second (``length > suit(prev)``, 280,000 contexts, takes longer and is refused).
The time limit depends on the machine, the states budget does not.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from eleusis_lab.cards import FEATURES, N_FACES, face_card
from eleusis_lab.rules.context import (
    NO_CARD,
    OUTCOME_NONE,
    OUTCOME_RIGHT,
    OUTCOME_WRONG,
    Context,
)
from eleusis_lab.rules.rule import Rule

DEFAULT_MAX_LENGTH = 104
DEFAULT_MAX_STATES = 2_000_000
DEFAULT_MAX_SECONDS = 20.0
#: The seconds `time_limit` gives the analysis of a rule someone typed, in all.
CHECK_SECONDS = 1.0
#: States judged and extended at a time, between two checks of the budget.
CHUNK_ROWS = 4096


class TooManyContexts(ValueError):
    """The rules tell apart more contexts than the exploration's `Budget` allows, or
    exploring them takes longer than it allows (``str()`` is one line)."""


@dataclass(frozen=True)
class Budget:
    """What one exploration may spend: ``states`` held in all, ``seconds`` of time
    (None: no time limit). Exceeding either raises `TooManyContexts`.

    The states budget is deterministic; the time budget, a guard against stalls,
    depends on the machine, so keep it well above what the rules you study need.

    >>> Budget(states=1000)
    Budget(states=1000, seconds=20.0)
    """

    states: int = DEFAULT_MAX_STATES
    seconds: float | None = DEFAULT_MAX_SECONDS

    def __post_init__(self) -> None:
        if not isinstance(self.states, int) or self.states < 1:
            raise ValueError(f"a budget of states is a whole number >= 1, got {self.states!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"a budget of seconds is a number > 0, got {self.seconds!r}")


DEFAULT_BUDGET = Budget()

#: The seconds and the deadline (`time.monotonic`) of the innermost `time_limit`.
_LIMIT: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "analysis_time_limit", default=None
)


@contextlib.contextmanager
def time_limit(seconds: float = CHECK_SECONDS) -> Iterator[None]:
    """Every exploration inside the block stops with `TooManyContexts` once the block
    has lasted ``seconds``, whatever its own `Budget` (which still applies).

    For a rule someone typed, whose answer they wait for; never around the building of
    a pool of rules, which leaves out the rules over budget.

    >>> from eleusis_lab.rules import parse
    >>> with time_limit(1e-9):
    ...     reachable(parse("length > suit(prev)"))
    Traceback (most recent call last):
    ...
    eleusis_lab.rules.reach.TooManyContexts: rule 'length > suit(prev)' is over the analysis \
budget: analysing it takes more than 1e-09 s (the time limit of a rule checked on demand)
    """
    if not (isinstance(seconds, int | float) and seconds > 0):
        raise ValueError(f"a time limit is a number of seconds > 0, got {seconds!r}")
    outer = _LIMIT.get()
    deadline = time.monotonic() + seconds
    if outer is not None and outer[1] < deadline:
        seconds, deadline = outer
    token = _LIMIT.set((seconds, deadline))
    try:
        yield
    finally:
        _LIMIT.reset(token)


class _Spending:
    """An exploration's running account against its budget."""

    def __init__(self, rules: Sequence[Rule], budget: Budget):
        self.budget, self.started = budget, time.monotonic()
        texts = [rule.text if len(rule.text) <= 80 else rule.text[:77] + "..." for rule in rules]
        self.what = f"rule {texts[0]!r}" if len(set(texts)) == 1 else f"rules {texts!r}"

    def over(self, reason: str) -> TooManyContexts:
        return TooManyContexts(f"{self.what} is over the analysis budget: {reason}")

    def check(self, states: int) -> None:
        """Raise `TooManyContexts` once ``states`` or the time spent exceed the budget."""
        if states > self.budget.states:
            limit = f"{self.budget.states:,}"
            raise self.over(f"it tells apart more than {limit} contexts (Budget.states)")
        seconds = self.budget.seconds
        now = time.monotonic()
        if seconds is not None and now - self.started > seconds:
            raise self.over(f"exploring it takes more than {seconds:g} s (Budget.seconds)")
        limit = _LIMIT.get()
        if limit is not None and now > limit[1]:
            raise self.over(
                f"analysing it takes more than {limit[0]:g} s (the time limit of a rule"
                " checked on demand)"
            )


@dataclass
class ReachableContexts:
    """Every reachable state of the slots ``slots`` and each rule's verdicts there.

    ``states[i, j]`` is the value of ``slots[j]`` in state ``i``; ``verdicts[r][i]``
    the 52 verdicts of rule ``r`` in state ``i``.
    """

    slots: tuple[str, ...]
    states: np.ndarray
    verdicts: list[np.ndarray]

    def describe(self, index: int) -> str:
        """A person's description of state ``index``, e.g. ``after 3H 7S``."""
        return describe_state(self.slots, self.states[index])


def describe_state(slots: Sequence[str], values: Sequence[int], exact_length: bool = True) -> str:
    """Describe a state of the slots, e.g. ``after 3H 7S (previous play wrong)``.

    With ``exact_length`` False the length is only known as 0, 1 or "2 or more" and
    is left out of the description.
    """
    state = dict(zip(slots, (int(v) for v in values), strict=True))
    last, prev = state.get("last", NO_CARD), state.get("prev", NO_CARD)
    length = state.get("length")
    if length == 0 or (length is None and "last" in state and last == NO_CARD):
        text = "on an empty main line"
    elif last != NO_CARD:
        shown = [face_card(f) for f in (prev, last) if f != NO_CARD]
        text = "after " + " ".join(map(str, shown))
    else:
        text = "after any card"
    details = []
    if length is not None and length > 0 and exact_length:
        details.append(f"main line of {length} card{'s' if length != 1 else ''}")
    details += [
        f"run of {value} in {slot.removeprefix('run:')}"
        for slot, value in state.items()
        if slot.startswith("run:")
    ]
    if "outcome" in state and state["outcome"] != OUTCOME_NONE:
        details.append(
            "previous play " + ("right" if state["outcome"] == OUTCOME_RIGHT else "wrong")
        )
    return text + (f" ({', '.join(details)})" if details else "")


def tracked_slots(read: Sequence[str]) -> tuple[str, ...]:
    """The slots to follow so that every slot in ``read`` can be updated.

    ``prev`` and runs need the last card; ``length`` is always followed (capped when
    the rules do not read it) because it tells an empty main line from a starter.
    """
    runs = sorted(slot for slot in read if slot.startswith("run:"))
    needs = set(read) | {"length"} | ({"last"} if runs or "prev" in read else set())
    return (*(s for s in ("last", "prev", "length", "outcome") if s in needs), *runs)


def explore(
    rules: Sequence[Rule],
    max_length: int = DEFAULT_MAX_LENGTH,
    start: Context | None = None,
    plays: int | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> Iterator[tuple[tuple[str, ...], np.ndarray, list[np.ndarray]]]:
    """Yield the reachable states layer by layer with each rule's verdicts.

    The states are those of the slots any of ``rules`` reads. Successors follow the
    first rule's verdicts: a caller comparing rules stops at the first layer where
    they disagree, so up to there all rules lead to the same states.

    By default the search starts from the empty main line and every starter and
    follows right and wrong plays. With ``start`` it explores the continuations of
    that context instead, as the solo benchmark's judge does: only cards the first
    rule accepts join the line, for ``plays`` plays (the layers yielded are the
    states before each of them), and ``max_length`` is ignored.

    Raises `TooManyContexts` as soon as the exploration would exceed ``budget``
    (see the module docstring).
    """
    if start is not None:
        if plays is None or plays < 1:
            raise ValueError(f"continuations need plays >= 1, got {plays!r}")
        max_length = len(start.main_line) + plays
    spending = _Spending(rules, budget)
    slots, index, length_cap, caps = _layout(rules, max_length, spending)
    if start is None:
        frontier = _start_states(slots)
    else:
        exact_length = any("length" in rule.slots for rule in rules)
        frontier = np.array([context_state(slots, start, exact_length)])
    seen = set(_codes(frontier, caps).tolist())
    layer = 0
    while len(frontier):
        spending.check(len(seen))
        chunks = [frontier[i : i + CHUNK_ROWS] for i in range(0, len(frontier), CHUNK_ROWS)]
        verdicts = [[] for _ in rules]
        for chunk in chunks:
            for rule, judged in zip(rules, verdicts, strict=True):
                judged.append(rule.evaluate_keys(slots, chunk))
            spending.check(len(seen))
        verdicts = [np.concatenate(judged) for judged in verdicts]
        yield slots, frontier, verdicts
        layer += 1
        if plays is not None and layer >= plays:
            return
        new_states, new_codes, row = [], [], 0
        for chunk in chunks:
            judged = verdicts[0][row : row + len(chunk)]
            row += len(chunk)
            successors = [_after_right(chunk, judged, index, length_cap, max_length)[1]]
            if "outcome" in index and start is None:
                wrong = chunk[~judged.all(axis=1)].copy()
                wrong[:, index["outcome"]] = OUTCOME_WRONG
                successors.append(wrong)
            candidates = np.concatenate(successors)
            codes, first = np.unique(_codes(candidates, caps), return_index=True)
            new = np.fromiter((code not in seen for code in codes.tolist()), bool, len(codes))
            seen.update(codes[new].tolist())
            new_states.append(candidates[first[new]])
            new_codes.append(codes[new])
            spending.check(len(seen))
        # In code order, which is the order of the rows (as np.unique(axis=0) gives).
        frontier = np.concatenate(new_states)[np.argsort(np.concatenate(new_codes))]


def context_state(
    slots: Sequence[str], context: Context, exact_length: bool = True
) -> tuple[int, ...]:
    """The state of ``slots`` in ``context``, as the exploration writes states: without
    ``exact_length`` (no rule reads it) the length only tells 0, 1 and 2 or more.

    >>> from eleusis_lab.cards import parse_cards
    >>> line = Context(tuple(parse_cards("3H 7D 9S")), True)
    >>> context_state(("last", "length"), line), context_state(("length",), line, False)
    ((47, 3), (2,))
    """
    values = (context.slot(slot) for slot in slots)
    if exact_length:
        return tuple(values)
    return tuple(min(v, 2) if s == "length" else v for s, v in zip(slots, values, strict=True))


@functools.lru_cache(maxsize=128)
def _explored(
    rule: Rule, max_length: int, budget: Budget
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """All tracked states reachable under ``rule`` and its verdicts there (cached)."""
    layers = list(explore([rule], max_length, budget=budget))
    states = np.concatenate([states for _, states, _ in layers])
    verdicts = np.concatenate([v[0] for _, _, v in layers])
    states.setflags(write=False)  # shared through the cache
    verdicts.setflags(write=False)
    return layers[0][0], states, verdicts


def reachable(
    rule: Rule, max_length: int = DEFAULT_MAX_LENGTH, budget: Budget = DEFAULT_BUDGET
) -> ReachableContexts:
    """Every context state a game can reach under ``rule``, with the rule's verdicts.

    Explorations are cached per rule: complexity and acceptability share one. Raises
    `TooManyContexts` for a rule over ``budget``.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> space = reachable(parse("color(card) != color(last)"))
    >>> space.slots, len(space.states)   # the empty main line and 52 last cards
    (('last',), 53)
    """
    slots, states, verdicts = _explored(rule, max_length, budget)
    # Without a rule reading `length`, it is only followed as 0, 1, 2+: fold those
    # copies of the same state together so each is counted once.
    if "length" not in rule.slots:
        keep = [i for i, s in enumerate(slots) if s != "length"]
        first = np.unique(states[:, keep], axis=0, return_index=True)[1] if keep else [0]
        first = np.sort(first)
        slots = tuple(slots[i] for i in keep)
        states, verdicts = states[first][:, keep], verdicts[first]
    return ReachableContexts(slots, states, [verdicts])


def random_play_acceptance(
    rule: Rule,
    plays: int = N_FACES,
    max_length: int = DEFAULT_MAX_LENGTH,
    budget: Budget = DEFAULT_BUDGET,
) -> float:
    """The mean fraction of the 52 faces that are right over a game of random plays.

    The game starts from a random starter and each of its ``plays`` plays is a face
    drawn uniformly (right ones extend the main line, wrong ones only set the previous
    verdict). The result is exact: the distribution over reachable states is carried
    forward play by play. This weighs each context by how often games reach it, where
    a plain mean over reachable states would let long, rare runs and lines dominate.

    Examples
    --------
    >>> from eleusis_lab.rules import parse
    >>> # the first play follows no verdict, so all 52 faces are right; then half
    >>> rule = parse("if last_play_right then red(card) else black(card)")
    >>> round(random_play_acceptance(rule), 6) == round((1 + 51 * 0.5) / 52, 6)
    True
    """
    slots, states, verdicts = _explored(rule, max_length, budget)
    spending = _Spending([rule], budget)
    _, index, length_cap, caps = _layout([rule], max_length, spending)
    codes = _codes(states, caps)
    order = np.argsort(codes)

    def locate(targets: np.ndarray) -> np.ndarray:
        return order[np.searchsorted(codes[order], _codes(targets, caps))]

    # The transitions, a block of states at a time (up to 52 each): within the budget.
    sources_of, targets_of = [], []
    for start in range(0, len(states), CHUNK_ROWS):
        spending.check(len(states))
        block = slice(start, start + CHUNK_ROWS)
        rows, after = _after_right(states[block], verdicts[block], index, length_cap, max_length)
        sources_of.append(rows + start)
        targets_of.append(locate(after))
    sources = np.concatenate(sources_of) if sources_of else np.zeros(0, np.int64)
    right_targets = np.concatenate(targets_of) if targets_of else np.zeros(0, np.int64)
    wrong_share = (~verdicts).sum(axis=1) / N_FACES
    wrong_targets = np.arange(len(states))  # a wrong play changes no slot but the verdict
    if "outcome" in index:
        has_wrong = wrong_share > 0
        wrong_states = states[has_wrong].copy()
        wrong_states[:, index["outcome"]] = OUTCOME_WRONG
        wrong_targets[has_wrong] = locate(wrong_states)

    starters = states[:, index["length"]] == 1
    if "outcome" in index:
        starters &= states[:, index["outcome"]] == OUTCOME_NONE
    probability = starters / starters.sum()
    right_share = verdicts.mean(axis=1)
    # A full line takes no more cards: there a right play leaves the state as it is.
    stay_share = right_share - np.bincount(sources, minlength=len(states)) / N_FACES
    total, n = 0.0, len(states)
    for _ in range(plays):
        spending.check(len(states))
        total += probability @ right_share
        probability = (
            np.bincount(right_targets, weights=probability[sources] / N_FACES, minlength=n)
            + np.bincount(wrong_targets, weights=probability * wrong_share, minlength=n)
            + probability * stay_share
        )
    return float(total / plays)


# -- internals ------------------------------------------------------------------------


def _layout(rules: Sequence[Rule], max_length: int, spending: _Spending | None = None):
    """The tracked slots, their column index, the length cap and each slot's cap."""
    read = sorted({slot for rule in rules for slot in rule.slots})
    slots = tracked_slots(read)
    index = {slot: i for i, slot in enumerate(slots)}
    length_cap = max_length if "length" in read else 2
    caps = [_cap(slot, length_cap, max_length) for slot in slots]
    if np.prod([cap + 2 for cap in caps], dtype=float) > 2.0**62:
        raise (spending or _Spending(rules, DEFAULT_BUDGET)).over(
            "it reads too many slots to explore exactly"
        )
    return slots, index, length_cap, caps


def _cap(slot: str, length_cap: int, max_length: int) -> int:
    if slot in ("last", "prev"):
        return N_FACES  # NO_CARD is stored as -1, shifted by one when encoding
    if slot == "outcome":
        return 2
    return length_cap if slot == "length" else max_length


def _codes(states: np.ndarray, caps: Sequence[int]) -> np.ndarray:
    shifted = states + 1  # -1 (no card) becomes 0
    dims = tuple(cap + 2 for cap in caps)  # at most 2**62 in all, as _layout checks
    return np.ravel_multi_index(tuple(shifted.T), dims)


def _start_states(slots: tuple[str, ...]) -> np.ndarray:
    """The empty main line, and each of the 52 faces as an (unjudged) starter."""
    empty = {"last": NO_CARD, "prev": NO_CARD, "length": 0, "outcome": OUTCOME_NONE}
    rows = [[empty.get(slot, 0) for slot in slots]]
    if "last" in slots:
        starter = {"prev": NO_CARD, "length": 1, "outcome": OUTCOME_NONE}
        for face in range(N_FACES):
            rows.append([face if s == "last" else starter.get(s, 1) for s in slots])
    else:  # the rule cannot tell starters apart
        starter = {"length": 1, "outcome": OUTCOME_NONE}
        rows.append([starter.get(s, 1) for s in slots])
    return np.unique(np.array(rows, dtype=np.int64), axis=0)


def _after_right(states, verdicts, index, length_cap, max_length):
    """The state after each right face is played in each state: (source rows, states).

    A full main line (``max_length`` cards, known from the length when it is followed
    exactly, or from a run that long) takes no more cards: capping the length instead
    would let cards join a line that stays at the cap, states no game reaches.
    """
    full = np.zeros(len(states), bool)
    if length_cap == max_length:
        full |= states[:, index["length"]] >= max_length
    for slot, column in index.items():
        if slot.startswith("run:"):
            full |= states[:, column] >= max_length
    rows, faces = np.nonzero(verdicts & ~full[:, None])
    before = states[rows]
    after = before.copy()
    if "last" in index:
        after[:, index["last"]] = faces
    if "prev" in index:
        after[:, index["prev"]] = before[:, index["last"]]
    after[:, index["length"]] = np.minimum(before[:, index["length"]] + 1, length_cap)  # 2: 2+
    if "outcome" in index:
        after[:, index["outcome"]] = OUTCOME_RIGHT
    for slot, column in index.items():
        if slot.startswith("run:"):
            values = FEATURES[slot.removeprefix("run:")]
            last = before[:, index["last"]]
            same = (last != NO_CARD) & (values[last] == values[faces])
            after[:, column] = np.where(same, before[:, column] + 1, 1)
    return rows, after
