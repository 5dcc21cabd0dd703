"""The rule language's parser and printer: round trips, precedence, and error messages."""

import ast as python_ast
from pathlib import Path

import pytest
from hypothesis import Phase, assume, given, settings
from rule_trees import bool_trees, int_trees

import eleusis_lab.rules as rules_package
from eleusis_lab.rules import RuleSyntaxError, parse
from eleusis_lab.rules.ast import (
    ARITHMETIC,
    COMPARISONS,
    BinOp,
    Call,
    Const,
    If,
    In,
    Neg,
    Not,
    Num,
    Run,
    Var,
)
from eleusis_lab.rules.check import type_of
from eleusis_lab.rules.parser import parse_expr
from eleusis_lab.rules.printer import to_text

# -- round trips on random trees -------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(tree=bool_trees(4))
def test_printed_rules_parse_back_to_the_same_tree_and_type_check(tree):
    text = to_text(tree)
    assert parse_expr(text) == tree
    try:
        rule = parse(text)  # names and types check
    except RuleSyntaxError as error:  # a product of lengths may pass 2**62: refused, as documented
        assume("the largest number a rule may compute" not in str(error))
        raise
    assert rule.expr == tree
    assert str(rule) == text  # printing is canonical: a second round trip changes nothing
    assert parse(str(rule)) == rule


@settings(max_examples=150, deadline=None)
@given(tree=int_trees(3))
def test_printed_numbers_parse_back_and_are_numbers(tree):
    text = to_text(tree)
    assert parse_expr(text) == tree
    assert type_of(parse_expr(text), text) == "int"
    with pytest.raises(RuleSyntaxError, match="a rule must be true or false"):
        parse(text)


def _has(kind, op=None, **fields):
    def test(tree):
        return any(
            isinstance(node, kind)
            and (op is None or node.op == op)
            and all(getattr(node, k) == v for k, v in fields.items())
            for node in tree.walk()
        )

    return test


def _has_if_of(kind):
    def test(tree):
        return any(isinstance(node, If) and type_of(node, "") == kind for node in tree.walk())

    return test


COVERAGE = {
    "Num": _has(Num),
    "Const": _has(Const),
    "Var": _has(Var),
    "feature": _has(Call, func="rank"),
    "predicate on a card": _has(Call, func="face"),
    "predicate on a number": lambda t: any(
        isinstance(n, Call) and n.func == "prime" and not isinstance(n.args[0], Var)
        for n in t.walk()
    ),
    "abs": _has(Call, func="abs"),
    "min": _has(Call, func="min"),
    "max": _has(Call, func="max"),
    "Run": _has(Run),
    "Not": _has(Not),
    "Neg": _has(Neg),
    "In": _has(In, negated=False),
    "not in": _has(In, negated=True),
    "If of numbers": _has_if_of("int"),
    "If of rules": _has_if_of("bool"),
    **{f"BinOp {op}": _has(BinOp, op) for op in (*ARITHMETIC, *COMPARISONS, "and", "or")},
}


def test_the_tree_strategy_makes_every_node_kind():
    seen = set()

    @settings(max_examples=400, database=None, derandomize=True, phases=[Phase.generate])
    @given(tree=bool_trees(4))
    def collect(tree):
        seen.update(kind for kind, has in COVERAGE.items() if has(tree))

    collect()
    assert seen == set(COVERAGE)


# -- precedence, by hand -----------------------------------------------------------------

RED_CARD, RED_LAST, RED_PREV = (Call("red", (Var(v),)) for v in ("card", "last", "prev"))
RANK_CARD = Call("rank", (Var("card"),))


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        (
            "red(card) or red(last) and red(prev)",
            BinOp("or", RED_CARD, BinOp("and", RED_LAST, RED_PREV)),
        ),
        (
            "(red(card) or red(last)) and red(prev)",
            BinOp("and", BinOp("or", RED_CARD, RED_LAST), RED_PREV),
        ),
        ("not rank(card) == 3", Not(BinOp("==", RANK_CARD, Num(3)))),
        ("not red(card) and red(last)", BinOp("and", Not(RED_CARD), RED_LAST)),
        ("not not red(card)", Not(Not(RED_CARD))),
        ("1 - 2 - 3 == 0", BinOp("==", BinOp("-", BinOp("-", Num(1), Num(2)), Num(3)), Num(0))),
        ("1 - (2 - 3) == 0", BinOp("==", BinOp("-", Num(1), BinOp("-", Num(2), Num(3))), Num(0))),
        ("2 * 3 + 4 == 0", BinOp("==", BinOp("+", BinOp("*", Num(2), Num(3)), Num(4)), Num(0))),
        ("2 * (3 + 4) == 0", BinOp("==", BinOp("*", Num(2), BinOp("+", Num(3), Num(4))), Num(0))),
        (
            "rank(card) mod 4 + 1 == 2",
            BinOp("==", BinOp("+", BinOp("mod", RANK_CARD, Num(4)), Num(1)), Num(2)),
        ),
        ("-rank(card) mod 4 == 3", BinOp("==", BinOp("mod", Neg(RANK_CARD), Num(4)), Num(3))),
        ("-(rank(card) mod 4) == 3", BinOp("==", Neg(BinOp("mod", RANK_CARD, Num(4))), Num(3))),
        ("rank(card) in {1, 2}", In(RANK_CARD, (Num(1), Num(2)))),
        ("rank(card) not in {1, 2}", In(RANK_CARD, (Num(1), Num(2)), negated=True)),
        ("not rank(card) in {1, 2}", Not(In(RANK_CARD, (Num(1), Num(2))))),
        (
            # an `if` runs as far right as it can: the `or` belongs to the else branch
            "if empty then red(card) else red(last) or red(prev)",
            If(Var("empty"), RED_CARD, BinOp("or", RED_LAST, RED_PREV)),
        ),
        (
            "(if empty then red(card) else red(last)) or red(prev)",
            BinOp("or", If(Var("empty"), RED_CARD, RED_LAST), RED_PREV),
        ),
        (
            "(if red(card) then 1 else 2) + 1 == 2",
            BinOp("==", BinOp("+", If(RED_CARD, Num(1), Num(2)), Num(1)), Num(2)),
        ),
        (
            "if red(last) then if odd(last) then red(card) else red(prev) else red(last)",
            If(RED_LAST, If(Call("odd", (Var("last"),)), RED_CARD, RED_PREV), RED_LAST),
        ),
        ("red(card) == (rank(card) > 3)", BinOp("==", RED_CARD, BinOp(">", RANK_CARD, Num(3)))),
        ("run(color) >= 2", BinOp(">=", Run("color"), Num(2))),
        ("suit(card) == spades", BinOp("==", Call("suit", (Var("card"),)), Const("spades"))),
    ],
)
def test_precedence(text, tree):
    assert parse_expr(text) == tree
    assert parse_expr(to_text(tree)) == tree


@pytest.mark.parametrize(
    ("tree", "text"),
    [
        (BinOp("-", Num(1), BinOp("-", Num(2), Num(3))), "1 - (2 - 3)"),
        (BinOp("-", BinOp("-", Num(1), Num(2)), Num(3)), "1 - 2 - 3"),
        (BinOp("+", If(RED_CARD, Num(1), Num(2)), Num(1)), "(if red(card) then 1 else 2) + 1"),
        (
            BinOp("or", RED_CARD, If(Var("empty"), RED_LAST, RED_PREV)),
            "red(card) or (if empty then red(last) else red(prev))",
        ),
        (Not(BinOp("and", RED_CARD, RED_LAST)), "not (red(card) and red(last))"),
        (BinOp("==", Not(RED_CARD), RED_LAST), "(not red(card)) == red(last)"),
        (Neg(Neg(Num(3))), "--3"),
        (BinOp("*", Num(2), Neg(Num(3))), "2 * -3"),
        (Call("abs", (If(RED_CARD, Num(1), Num(2)),)), "abs(if red(card) then 1 else 2)"),
    ],
)
def test_printer_uses_only_the_parentheses_it_needs(tree, text):
    assert to_text(tree) == text
    assert parse_expr(text) == tree


def test_spacing_and_positions_do_not_matter():
    assert str(parse("if odd( last )then red(card)else black(card)")) == (
        "if odd(last) then red(card) else black(card)"
    )
    a, b = parse_expr("red(card)"), parse_expr("   red( card )")
    assert a == b and a.pos != b.pos


@pytest.mark.parametrize(
    "text",
    [
        "1 + if red(card) then 1 else 2 == 2",  # an `if` operand needs parentheses
        "red(card) or if empty then true else false",
        "not if empty then true else false",
    ],
)
def test_if_as_an_operand_needs_parentheses(text):
    with pytest.raises(RuleSyntaxError, match="expected a value, a name or '\\('"):
        parse(text)


# -- comments ----------------------------------------------------------------------------


def test_comments():
    assert parse("red(card) # play red") == parse("red(card)")
    assert parse("# the rule:\nred(card)\n# that was it") == parse("red(card)")
    text = "red(card)  # red\n  or rank(card) > 10  # or a face card"
    assert parse(text) == parse("red(card) or rank(card) > 10")


# -- errors: what, and where, with a caret -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        # unknown names, with a suggestion
        ("rank(card) > rank(lsat)", 1, 19, "unknown name 'lsat'; did you mean 'last'?"),
        ("rnak(card) > 3", 1, 1, "unknown function 'rnak'; did you mean 'rank'?"),
        ("red(crad)", 1, 5, "unknown name 'crad'; did you mean 'card'?"),
        ("suit(card) == spade", 1, 15, "unknown name 'spade'; did you mean 'spades'?"),
        ("run(colour) >= 2", 1, 1, "unknown feature 'colour'; did you mean 'color'?"),
        ("run(3) > 1", 1, 5, "expected a feature name such as color, found '3'"),
        # characters the language does not have
        ("rank(card) = 3", 1, 12, "unexpected character '='"),
        ("red(card) && black(last)", 1, 11, "unexpected character '&'"),
        ("rank(card) > 3.5", 1, 15, "unexpected character '.'"),
        # parentheses, braces and keywords
        ("red(card", 1, 9, "expected ')', found the end of the rule"),
        ("(rank(card) > 3", 1, 16, "expected ')', found the end of the rule"),
        ("rank(card) > 3)", 1, 15, "expected the end of the rule, found ')'"),
        ("rank(card) in {1, 2", 1, 20, "expected '}', found the end of the rule"),
        ("if red(card) then black(card)", 1, 30, "expected 'else', found the end of the rule"),
        ("red(card) and", 1, 14, "expected a value, a name or '(', found the end of the rule"),
        # comparisons do not chain
        ("1 < rank(card) < 5", 1, 16, "comparisons do not chain"),
        ("rank(card) == rank(last) == true", 1, 26, "comparisons do not chain"),
        # mod only by a positive literal
        ("rank(card) mod rank(last) == 0", 1, 16, "'mod' takes a positive whole number"),
        ("rank(card) mod 0 == 0", 1, 16, "'mod' takes a positive whole number"),
        ("rank(card) mod (2 + 2) == 0", 1, 19, "'mod' takes a positive whole number"),
        # types
        ("red(card) + 1 > 2", 1, 1, "expected a number here, not true/false"),
        ("red(card) and 3", 1, 15, "expected true/false here, not a number"),
        ("red(rank(card))", 1, 5, "expected a card here, not a number"),
        ("rank(3) > 1", 1, 6, "expected a card here, not a number"),
        ("if red(card) then 1 else true", 1, 26, "expected a number here, not true/false"),
        ("last == prev", 1, 1, "expected a number or true/false here, not a card"),
        ("rank(card) + 1", 1, 12, "a rule must be true or false for a card, but this is a number"),
        ("3", 1, 1, "a rule must be true or false for a card, but this is a number"),
        ("card", 1, 1, "a rule must be true or false for a card, but this is a card"),
        # arity
        ("rank(card, last) == 1", 1, 1, "rank() takes 1 argument, got 2"),
        ("min(rank(card)) > 1", 1, 1, "min() takes 2 arguments, got 1"),
        ("red(card, last)", 1, 1, "red() takes 1 argument, got 2"),
        # errors on a later line
        ("red(card)\n  and rank(lsat) > 3", 2, 12, "unknown name 'lsat'; did you mean 'last'?"),
        ("# alternate\ncolor(card) != colour(last)", 2, 16, "did you mean 'color'?"),
        ("red(card) or\n\nrank(card) >", 3, 13, "expected a value"),
        # nothing to read
        ("", 1, 1, "the rule is empty"),
        ("   \n  ", 1, 1, "the rule is empty"),
        ("# only a comment", 1, 1, "the rule is empty"),
    ],
)
def test_errors_say_what_and_where(text, line, column, message):
    with pytest.raises(RuleSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert message in error.message
    assert (error.line, error.column) == (line, column)
    assert isinstance(error, ValueError)
    header, source_line, caret_line = str(error).split("\n")
    assert header == f"line {line}, column {column}: {error.message}"
    assert source_line == "  " + text.split("\n")[line - 1]
    assert caret_line == "  " + " " * (column - 1) + "^"
    assert error.one_line().startswith(f"line {line}, column {column}: {error.message}")


def test_the_caret_points_at_the_bad_token():
    with pytest.raises(RuleSyntaxError) as caught:
        parse("color(card) != color(last) and suit(card) = 3")
    lines = str(caught.value).splitlines()
    assert lines[2].index("^") == lines[1].index("=", lines[1].index("suit"))


def test_rule_text_must_be_a_string():
    with pytest.raises(TypeError):
        parse_expr(3)


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("rank(card) == 1\u0661", 16),  # issue 26: an Arabic-Indic one read 11
        ("rank(card) == \u0663", 15),  # an Arabic-Indic three
        ("rank(card) == \uff11", 15),  # a fullwidth one
        ("rank(card) == 1\U0001d7cf", 16),  # a mathematical bold one
        ("red(card\u00e9)", 9),  # a name is ASCII too
    ],
)
def test_numbers_and_names_are_ascii_only(text, column):
    with pytest.raises(RuleSyntaxError) as caught:
        parse(text)
    assert caught.value.message == f"unexpected character {text[column - 1]!r}"
    assert caught.value.column == column


# -- no eval or exec ---------------------------------------------------------------------

LANGUAGE_MODULES = ["ast", "parser", "printer", "check", "evaluate", "context", "rule", "catalog"]


@pytest.mark.parametrize("module", LANGUAGE_MODULES)
def test_the_rule_language_never_calls_eval_or_exec(module):
    path = Path(rules_package.__file__).parent / f"{module}.py"
    tree = python_ast.parse(path.read_text(encoding="utf-8"))
    called = {
        node.func.id
        for node in python_ast.walk(tree)
        if isinstance(node, python_ast.Call) and isinstance(node.func, python_ast.Name)
    }
    assert not called & {"eval", "exec", "compile", "__import__"}
    names = {node.id for node in python_ast.walk(tree) if isinstance(node, python_ast.Name)}
    assert not names & {"eval", "exec"}
