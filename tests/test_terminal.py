"""The human seat under a real terminal: ``eleusis-lab play`` driven by pexpect.

Each test starts ``python -m eleusis_lab play`` on a pseudo-terminal (so the seat reads
with ``input()``, as it does for a person), types answers and checks what the screen
shows. Seeds and rules are fixed: the deal, and so the screen, is the same every time.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

if sys.platform == "win32":  # pragma: no cover - pexpect.spawn needs a POSIX terminal
    pytest.skip("pseudo-terminals are POSIX", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 30  # seconds for one screen; a game's screen comes in well under one


def play(*args: str) -> pexpect.spawn:
    """``eleusis-lab play ARGS`` on a pseudo-terminal, its output logged as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "eleusis_lab", "play", *args],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 120),
        preexec_fn=_interruptible,
    )


def _interruptible() -> None:
    """Ctrl-C reaches the program even when the suite runs as a background job (a shell
    starts those with SIGINT ignored, and Python then leaves it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def finish(child: pexpect.spawn) -> str:
    """The rest of the screen once the program has ended; the child is closed."""
    child.expect(pexpect.EOF)
    rest = child.before
    child.close()
    return rest


def answer(child: pexpect.spawn, prompt: str, text: str) -> None:
    child.expect_exact(prompt)
    child.sendline(text)


CARD, RULE = (
    "play a card (? for help)> ",
    "declare a rule (empty line: no; ? for help and the rule language)> ",
)


def test_solo_turns_score_card_drawn_counter_example_and_q():
    # Seed 3 deals 2C 5C ... and draws QD then 8H (tests/test_human.py plays it too).
    child = play("--game", "solo", "--agents", "human", "--rule", "red(card)", "--seed", "3")
    child.expect_exact("turn 1 of 30; a correct declaration now scores 30")
    answer(child, CARD, "2c")
    answer(child, RULE, "")
    child.expect_exact("you played 2C: wrong")
    child.expect_exact("you drew QD")
    child.expect_exact("turn 2 of 30; a correct declaration now scores 29")
    answer(child, CARD, "11h")
    child.expect_exact("not a card: '11h' (ranks are A, 2..10 or T, J, Q, K: for the jack")
    answer(child, CARD, "5c")
    answer(child, RULE, "black(card)")
    child.expect_exact("you drew 8H")
    child.expect_exact("your rule black(card) was judged wrong (-2 points)")
    child.expect_exact(
        "a counter-example: after any card, AC is wrong under the secret rule and right under yours"
    )
    child.expect_exact("turn 3 of 30; a correct declaration now scores 26")
    answer(child, CARD, "q")
    rest = finish(child)
    assert "game stopped: the player at seat 0 quit the game" in rest
    assert "the secret rule: red(card)" in rest
    assert "turns played: 2 of 30; 1 wrong declaration" in rest
    assert "score so far: -2 (the rule not found)" in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 0


def test_classic_q_after_a_play_shows_the_rule_and_the_scores():
    child = play("--agents", "human,random", "--rule", "suit_cycle", "--seed", "3")
    child.expect_exact("== classic Eleusis: you are seat 0 of 2 players; the starter is")
    child.expect(r"your hand \(26\): (\S+)")
    first = child.match.group(1)
    answer(child, CARD, first)
    child.expect_exact(f"you played {first}")
    answer(child, CARD, "quit")
    rest = finish(child)
    assert "game stopped: the player at seat 0 quit the game" in rest
    assert "the secret rule: suit(card) == (suit(last) + 1) mod 4 (suit_cycle)" in rest
    assert "the dealer's score so far: " in rest
    assert "the players' scores if the game ended now: you " in rest
    assert "Traceback" not in rest
    assert child.exitstatus == 0


def test_ctrl_c_ends_the_game_cleanly():
    child = play("--agents", "human,random", "--rule", "suit_cycle", "--seed", "3")
    child.expect_exact(CARD)
    child.sendintr()  # Ctrl-C at the prompt
    rest = finish(child)
    assert "game stopped: interrupted (Ctrl-C)" in rest
    assert "the secret rule: suit(card) == (suit(last) + 1) mod 4 (suit_cycle)" in rest
    assert "the dealer's score so far: 0" in rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest
    assert child.exitstatus == 130
