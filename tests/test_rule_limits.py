"""The rule language's limits: any text gives a rule or a `RuleSyntaxError`, never a
RecursionError, an OverflowError or a number that wrapped around at 64 bits."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eleusis_lab.cards import FACES, RANK
from eleusis_lab.rules import Context, Rule, RuleSyntaxError, parse
from eleusis_lab.rules.ast import MAX_DEPTH, MAX_NUMBER, MAX_TOKENS, MAX_VALUE, BinOp, Call, Var
from eleusis_lab.rules.check import check
from eleusis_lab.rules.parser import parse_expr
from eleusis_lab.rules.printer import to_text, to_tree

DEEP = "the rule nests more than 32 levels deep"


def _error(text: str) -> RuleSyntaxError:
    with pytest.raises(RuleSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert "\n" not in error.one_line()
    assert str(error).splitlines()[2].strip() == "^"  # the caret line
    return error


# -- the reproductions of issue 15 -----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "(" * 98 + "red(card)" + ")" * 98,
        "not " * 500 + "red(card)",
        "rank(card) == " + "-" * 500 + "1",
        " and ".join(["red(card)"] * 500),
        "rank(card) > " + " + ".join(["1"] * 500),
        "if red(card) then " * 500 + "true" + " else false" * 500,
        "rank(card) in {" * 300 + "1" + "}" * 300,
        "max(" * 300 + "1, 2" + ")" * 300 + " > 0",
    ],
    ids=["parens", "not", "neg", "and", "plus", "if", "sets", "calls"],
)
def test_deep_or_long_texts_are_syntax_errors(text):
    error = _error(text)
    assert DEEP in error.message or f"longer than {MAX_TOKENS:,} tokens" in error.message


def test_the_depth_error_points_at_the_first_level_too_deep():
    error = _error("(" * 40 + "red(card)" + ")" * 40)
    assert (error.line, error.column) == (1, MAX_DEPTH + 1)  # the 33rd '(' opens level 33
    assert error.message.startswith(DEEP)


def test_rules_just_inside_the_depth_limit_parse_print_and_judge():
    # The whole rule, 30 parentheses and the call's argument make 32 levels; a chain of 31
    # 'and' makes a tree 32 levels high (30 'and' below the first, a call, its argument).
    assert parse("(" * 30 + "red(card)" + ")" * 30) == parse("red(card)")
    assert DEEP in _error("(" * 31 + "red(card)" + ")" * 31).message
    chain = parse(" and ".join(["red(card)"] * 31))
    assert str(chain) == " and ".join(["red(card)"] * 31)
    assert len(chain.legal_cards(Context())) == 26
    assert DEEP in _error(" and ".join(["red(card)"] * 32)).message


def test_a_tree_built_by_hand_too_deep_is_refused_by_the_checker():
    tree = Call("red", (Var("card"),))
    for _ in range(200):
        tree = BinOp("and", tree, Call("red", (Var("card"),)))
    with pytest.raises(RuleSyntaxError, match=DEEP):
        check(tree, "")


@pytest.mark.parametrize(
    ("literal", "shown"),
    [
        ("9223372036854775808", "9223372036854775808"),
        ("9223372036854775807", "9223372036854775807"),
        ("1000001", "1000001"),
        ("7" * 5000, "77777777777777777777... (5,000 digits)"),
    ],
)
def test_number_literals_past_the_limit_name_the_literal_and_the_bound(literal, shown):
    error = _error(f"rank(card) == {literal}")
    assert error.message == f"the number {shown} is over the limit of 1,000,000"
    assert error.column == len("rank(card) == ") + 1


def test_the_largest_literal_and_leading_zeros():
    rule = parse(f"rank(card) + {MAX_NUMBER} > 0")
    assert len(rule.legal_cards(Context())) == 52  # exact: no card wraps to a negative
    assert parse("rank(card) == 0007") == parse("rank(card) == 7")
    assert parse("rank(card) == " + "0" * 5000 + "7") == parse("rank(card) == 7")


def test_the_wrap_around_of_the_issue_is_now_a_syntax_error():
    error = _error("rank(card) + 9223372036854775807 > 0")
    assert "9223372036854775807" in error.message


def test_products_that_could_overflow_are_refused_where_they_overflow():
    text = "rank(card) * 1000000 * 1000000 * 1000000 > 0"
    error = _error(text)
    # 13 * 10**18 > 2**62 (about 4.6 * 10**18): the last '*' is the one that can pass it
    assert error.column == text.rindex("*") + 1
    assert error.message == (
        "'*' here can reach 1.3e+19, beyond 2**62, the largest number a rule may compute"
    )
    assert len(parse("rank(card) * 1000000 * 1000000 > 0").legal_cards(Context())) == 52


def test_length_and_runs_count_as_a_million_cards():
    assert parse("length * length * length > 0")  # 10**18 < 2**62
    assert "can reach 1e+24" in _error("length * length * length * length > 0").message
    assert "can reach" in _error("run(color) * run(rank) * run(suit) * 5 > 0").message


NUMBERS = st.one_of(st.integers(0, MAX_NUMBER), st.integers(0, 10**25))


@settings(max_examples=200, deadline=None)
@given(a=NUMBERS, b=NUMBERS, op=st.sampled_from(["+", "-", "*"]), threshold=NUMBERS)
def test_huge_constants_give_exact_verdicts_or_a_syntax_error(a, b, op, threshold):
    text = f"rank(card) {op} {a} * {b} > {threshold}"
    exact = {"+": lambda r: r + a * b, "-": lambda r: r - a * b, "*": lambda r: r * a * b}[op]
    if max(a, b, threshold) > MAX_NUMBER:
        assert "is over the limit of 1,000,000" in _error(text).message
    elif 13 * a * b > MAX_VALUE or 13 + a * b > MAX_VALUE:
        assert "beyond 2**62" in _error(text).message
    else:
        verdicts = parse(text).legal_faces(Context())
        assert verdicts.tolist() == [exact(int(r)) > threshold for r in RANK[FACES]]


# -- fuzzing: every text is a rule or the documented error ----------------------------------

TOKENS = [
    *[
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
        "ace",
        "king",
    ],
    *[
        "rank",
        "suit",
        "color",
        "parity",
        "odd",
        "even",
        "face",
        "prime",
        "run",
        "abs",
        "min",
        "max",
    ],
    *["if", "then", "else", "and", "or", "not", "in", "mod"],
    *["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "(", ")", "{", "}", ","],
    "0",
    "13",
    "9223372036854775808",
    "9" * 4400,
    "#",
    "\n",
    "?",
    "é",
]


def _parses_or_fails_cleanly(text: str) -> None:
    try:
        rule = parse(text)
    except RuleSyntaxError as error:
        assert error.line >= 1 and error.column >= 1
        assert "\n" not in error.one_line() and len(error.one_line()) < 400
        return
    assert isinstance(rule, Rule)
    assert parse(str(rule)) == rule
    assert to_text(parse_expr(str(rule))) == str(rule)
    to_tree(rule.expr)
    rule.legal_mask(Context())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join))
def test_token_soups_parse_or_give_the_syntax_error(text):
    _parses_or_fails_cleanly(text)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(TOKENS[:40]),
    st.integers(1, 400),
    st.sampled_from(["(", "not ", "-", "if true then ", "abs("]),
)
def test_repeated_prefixes_parse_or_give_the_syntax_error(tail, count, prefix):
    _parses_or_fails_cleanly(prefix * count + "rank(card) > 0 " + tail)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="()rank(card)red{}, +-*0123456789 notandif", max_size=300))
def test_character_soups_parse_or_give_the_syntax_error(text):
    _parses_or_fails_cleanly(text)
