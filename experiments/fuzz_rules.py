"""Fuzz the rule language: random rule-like texts through parse, print, check and analysis.

Each text is a mutation of a catalog rule (a token deleted, repeated, swapped or
replaced, a huge number, deep nesting) or a soup of random tokens. Each is parsed and
checked; a rule is then printed (text and tree), parsed back, and analysed
(complexity and acceptability) under a small `Budget`. The outcome of each text is
one of ``ok``, ``syntax error`` (`RuleSyntaxError`), ``budget error``
(`TooManyContexts`) or ``other exception``; the target is no ``other exception`` and
no text over one second.

Usage::

    PYTHONPATH=. python experiments/fuzz_rules.py --texts 20000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from eleusis_lab.rules import RuleSyntaxError, parse
from eleusis_lab.rules.analysis import check_acceptable
from eleusis_lab.rules.catalog import catalog
from eleusis_lab.rules.complexity import complexity
from eleusis_lab.rules.parser import tokenize
from eleusis_lab.rules.printer import to_tree
from eleusis_lab.rules.reach import Budget, TooManyContexts

BUDGET = Budget(states=20_000, seconds=0.5)
WORDS = [
    "card",
    "last",
    "prev",
    "length",
    "empty",
    "last_play_right",
    "true",
    "false",
    "red",
    "black",
    "clubs",
    "spades",
    "ace",
    "king",
    "rank",
    "suit",
    "color",
    "parity",
    "odd",
    "even",
    "face",
    "number",
    "low",
    "high",
    "prime",
    "run",
    "abs",
    "min",
    "max",
    "if",
    "then",
    "else",
    "and",
    "or",
    "not",
    "in",
    "mod",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "(",
    ")",
    "{",
    "}",
    ",",
]
NUMBERS = ["0", "1", "4", "13", "1000000", "1000001", "9223372036854775807", "9" * 4400]
ODD = ["#", "\n", "?", "é", "'", "\t", "run(", "((", "not not", "- -"]


def mutate(text: str, rng: random.Random) -> str:
    """A random change to a rule's text, from a token edit to nesting 1-500 deep."""
    tokens = [t.text for t in tokenize(text)[:-1]]
    kind = rng.randrange(7)
    i = rng.randrange(len(tokens))
    if kind == 0:
        del tokens[i]
    elif kind == 1:
        tokens.insert(i, rng.choice(WORDS + NUMBERS + ODD))
    elif kind == 2:
        tokens[i] = rng.choice(WORDS + NUMBERS)
    elif kind == 3:
        j = rng.randrange(len(tokens))
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif kind == 4:
        depth = rng.choice([1, 10, 31, 32, 33, 100, 500])
        return "(" * depth + text + ")" * depth
    elif kind == 5:
        prefix = rng.choice(["not ", "if true then ", "red(card) and "])
        return prefix * rng.choice([1, 20, 40, 500]) + text + " else false" * (prefix[0] == "i")
    else:
        return f"{text} {rng.choice(['and', 'or'])} {rng.choice(NUMBERS)} < length"
    return " ".join(tokens)


def soup(rng: random.Random) -> str:
    """Random tokens, sometimes glued without spaces."""
    pool = WORDS + NUMBERS[:6] + ODD
    words = [rng.choice(pool) for _ in range(rng.randint(1, 40))]
    return ("" if rng.random() < 0.2 else " ").join(words)


def outcome(text: str) -> str:
    """Parse, print, re-parse and analyse ``text``; the name of what happened."""
    try:
        rule = parse(text)
        assert parse(str(rule)) == rule, "the printed rule does not parse back the same"
        to_tree(rule.expr)
        complexity(rule, budget=BUDGET)
        check_acceptable(rule, budget=BUDGET)
    except RuleSyntaxError as error:
        assert "\n" not in error.one_line()
        return "syntax error"
    except TooManyContexts:
        return "budget error"
    except Exception as error:  # what the fuzzer looks for
        return f"other exception: {type(error).__name__}: {str(error)[:200]}"
    return "ok"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=100_000, help="how many texts to try")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rules = [entry.rule.text for entry in catalog()]
    counts, others, slowest, over = Counter(), Counter(), (0.0, ""), 0
    started = time.perf_counter()
    for _ in range(args.texts):
        text = mutate(rng.choice(rules), rng) if rng.random() < 0.7 else soup(rng)
        begin = time.perf_counter()
        result = outcome(text)
        seconds = time.perf_counter() - begin
        slowest = max(slowest, (seconds, text))
        over += seconds > 1
        counts[result.split(":")[0]] += 1
        if result.startswith("other"):
            others[result] += 1
    print(f"{args.texts:,} texts (seed {args.seed}) in {time.perf_counter() - started:.0f} s")
    for name in ("ok", "syntax error", "budget error", "other exception"):
        print(f"  {name:16} {counts[name]:7,}")
    for result, count in others.most_common(10):
        print(f"    {count:5,} x {result}")
    shown = slowest[1] if len(slowest[1]) <= 100 else slowest[1][:97] + "..."
    print(f"slowest: {slowest[0]:.3f} s for {shown!r}; {over:,} texts over 1 s")
    return 1 if counts["other exception"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
