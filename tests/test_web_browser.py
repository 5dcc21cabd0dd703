"""The study in a real browser: headless Chromium (Debian's, with its driver) plays the
pilot study (its games shortened) served by uvicorn on 127.0.0.1: the consent, the
practice game with the rule checker, a solo game and a seat at a classic table to their
ends, a reload in the middle of a game, and a participant who comes back in another
browser; then the rows written. Skipped only where Chromium is not installed (`.ci/run`
installs it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests import web_browser as browser

pytest.importorskip("selenium", reason="selenium is not installed (the test extra)")
pytest.importorskip("uvicorn", reason="the web extra is not installed")
if (reason := browser.missing()) is not None:
    pytest.skip(reason, allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402

from eleusis_lab import load_results  # noqa: E402
from eleusis_lab.web.app import Limits, make_app  # noqa: E402
from eleusis_lab.web.store import load_decisions  # noqa: E402
from eleusis_lab.web.study import load_study  # noqa: E402

#: A participant clicks faster than a person, but well within what a session may do.
LIMITS = Limits(session=(200.0, 50.0))


def short_pilot(out: Path):
    """The pilot study (experiments/studies/pilot_study.toml) with shorter games: the
    solo game 8 turns, the classic hands 4 cards."""
    data = tomllib.loads(browser.PILOT.read_text(encoding="utf-8"))
    base = browser.PILOT.parent
    for block, change in zip(data["blocks"], ({"max_turns": 8}, {"hand_size": 4}), strict=True):
        spec = tomllib.loads((base / block["spec"]).read_text(encoding="utf-8"))
        spec["config"] = {**spec.get("config", {}), **change}
        block["spec"] = spec
    data["out"] = str(out)
    return load_study(data)


@pytest.fixture
def pilot(tmp_path):
    study = short_pilot(tmp_path / "study")
    app = make_app(study, Path(study.out), LIMITS)
    with browser.served(app) as base:
        yield study, base


def text_of(driver, css: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, css).text


def test_a_participant_plays_the_pilot_study_to_its_end(pilot):
    study, base = pilot
    with browser.chromium() as driver:
        driver.get(f"{base}/?PROLIFIC_PID=chromium-1")
        assert browser.page(driver) == "start"
        browser.click(driver, "button[value=yes]")
        assert browser.page(driver) == "instructions"
        assert "THE RULE LANGUAGE" in text_of(driver, "details.language")
        browser.click(driver, "form[action='/play'] button")

        # the practice game: the checker reads a rule as it is typed, in English
        assert browser.page(driver) == "game" and "Practice game" in text_of(driver, "header")
        said = browser.type_rule(driver, "suit(card) != spades")
        assert said == "✓ a card is right when the card's suit differs from spades"
        said = browser.type_rule(driver, "suit(card) !=")
        assert said.startswith("✗ column 14:")
        browser.type_rule(driver, "red(card)", confidence=70)
        browser.play_card(driver, 0)
        assert browser.decision(driver) == 1
        assert "was" in text_of(driver, ".verdict")
        browser.type_rule(driver, "suit(card) != spades", confidence=90, declare=True)
        browser.play_card(driver, 0)
        while browser.page(driver) == "game":  # to the end (the rule declared was no_spades)
            browser.play_card(driver, 0)
        assert browser.page(driver) == "result"
        browser.click(driver, "form[action='/next'] button")

        # the solo game that counts: a reload in the middle shows the same decision
        assert "Game 2 of 3" in text_of(driver, "header")
        for _ in range(3):
            browser.play_card(driver, -1)
        hand = text_of(driver, ".hand")
        driver.refresh()
        assert browser.decision(driver) == 3 and text_of(driver, ".hand") == hand
        while browser.page(driver) == "game":
            browser.play_card(driver, -1)
        browser.click(driver, "form[action='/next'] button")

        # the classic table, seat 1, to its end
        assert "you are player 2 of 3" in text_of(driver, "h1")
        while browser.page(driver) == "game":
            browser.play_card(driver, 0)
        assert browser.page(driver) == "result"
        assert "you" in text_of(driver, "table.scores")
        browser.click(driver, "form[action='/next'] button")
        assert browser.page(driver) == "done"
        assert text_of(driver, "#completion-code") == study.completion_code

    rows = load_results(study.out)
    human = rows[rows["agent"] == "human"]
    assert sorted(human["game_type"]) == ["classic", "solo"] and set(human["participant"]) == {1}
    assert set(rows[rows["game_type"] == "classic"]["seat"]) == {0, 1, 2}
    decisions = load_decisions(study.out)
    assert decisions["client_ms"].notna().all()  # measured in the browser
    assert decisions["response_ms"].notna().all()
    practice = decisions[decisions["block"].isna()]
    assert practice["typed"].tolist()[:2] == ["red(card)", "suit(card) != spades"]
    assert practice["declare"].tolist()[1] == 1


def test_a_participant_who_comes_back_in_another_browser_goes_on(pilot):
    study, base = pilot
    with browser.chromium() as driver:
        driver.get(f"{base}/?PROLIFIC_PID=returning")
        browser.click(driver, "button[value=yes]")
        browser.click(driver, "form[action='/play'] button")
        for _ in range(2):
            browser.play_card(driver, 0)
        table = text_of(driver, ".line")
    with browser.chromium() as other:  # a new profile: no cookie
        other.get(f"{base}/?PROLIFIC_PID=returning")
        assert browser.page(other) == "game" and browser.decision(other) == 2
        assert text_of(other, ".line") == table


def test_a_participant_plays_new_eleusis_and_delphi_in_the_browser(tmp_path):
    """The example study of Delphi and New Eleusis (experiments/studies/
    oracle_prophet_study.toml), its blocks turned round: a round of New Eleusis to its
    end, its strings built by clicking the cards (the page's script), then the first
    cards of Delphi (the test client plays whole games of it: 51 predictions)."""
    data = tomllib.loads(browser.ORACLE.read_text(encoding="utf-8"))
    for block in data["blocks"]:
        block["spec"] = str(browser.ORACLE.parent / block["spec"])
    data.update(blocks=data["blocks"][::-1], out=str(tmp_path / "study"))
    study = load_study(data)
    app = make_app(study, Path(study.out), LIMITS)
    with browser.served(app) as base, browser.chromium() as driver:
        driver.get(f"{base}/?PROLIFIC_PID=chromium-2")
        browser.click(driver, "button[value=yes]")
        browser.click(driver, "form[action='/play'] button")
        assert "New Eleusis" in text_of(driver, "h1")
        picks = driver.find_elements(By.CSS_SELECTOR, ".picks .pick")
        hand = [card.get_attribute("data-card") for card in picks]
        assert browser.pick(driver, [1, 0, 1]) == [hand[0]]  # a second click takes it back
        assert browser.pick(driver, [2]) == [hand[0], hand[2]]
        browser.click(driver, "button[name=play][value=cards]")
        turn = 0
        while browser.page(driver) == "game":
            browser.new_eleusis_turn(driver, turn)
            turn += 1
        assert browser.page(driver) == "result"
        browser.click(driver, "form[action='/next'] button")

        assert "you are player 2 of 3" in text_of(driver, "h1") and "Delphi" in text_of(
            driver, "h1"
        )
        browser.predict(driver, "0.8")
        assert "You said 0.8" in text_of(driver, ".verdict")
        for _ in range(3):
            browser.predict(driver, "0.3")
        side = text_of(driver, ".side-column")
        driver.refresh()
        assert browser.decision(driver) == 4 and text_of(driver, ".side-column") == side

    decisions = load_decisions(study.out)
    assert decisions["client_ms"].notna().all()
    turns = decisions[decisions["kind"] == "turn"]
    assert turns["card"].iloc[0] == f"{hand[0]} {hand[2]}"
    assert {"prophet", "call"} <= set(decisions["kind"])
    predictions = decisions[decisions["kind"] == "predict"]
    assert predictions["confidence"].tolist() == [0.8, 0.3, 0.3, 0.3]
    rows = load_results(study.out)
    assert rows[rows["agent"] == "human"]["game_type"].tolist() == ["new-eleusis"]
