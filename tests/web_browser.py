"""A study served on 127.0.0.1 and a headless Chromium to play it: the end-to-end tests'
tools (tests/test_web_browser.py), and the script that takes the screenshots of the
guide's page on studies with people (docs/guide/participants.md)::

    python tests/web_browser.py docs/guide/figures

Chromium and its driver are Debian's (``apt-get install chromium chromium-driver``, as
.ci/run does): Selenium is pointed at them, never at a browser it would download.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PILOT = ROOT / "experiments" / "studies" / "pilot_study.toml"
#: The example study of Delphi and New Eleusis.
ORACLE = ROOT / "experiments" / "studies" / "oracle_prophet_study.toml"
#: Patient but bounded: a page of a game replays the game (milliseconds).
WAIT = 20.0


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    return None


@contextlib.contextmanager
def served(app) -> Iterator[str]:
    """``app`` served by uvicorn in a thread, on a free port of 127.0.0.1; its address."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the study's server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(WAIT)
        sock.close()


@contextlib.contextmanager
def chromium(width: int = 1100, height: int = 900) -> Iterator[object]:
    """A headless Chromium driven by Selenium, with a profile of its own."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="eleusis-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "--hide-scrollbars",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver, css: str):
    """The first element matching ``css``, once the page shows it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def page(driver) -> str:
    """The page's kind, from its body's class: start, instructions, game, result, done,
    error."""
    return wait_for(driver, "body").get_attribute("class")


def settled(driver) -> None:
    """Wait until the page has loaded (after a redirect the next document may still be
    coming in when the previous one went stale)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT).until(
        lambda _: driver.execute_script("return document.readyState") == "complete"
    )


def click(driver, css: str) -> None:
    """Click the element and wait for the next page. An element taken from a document
    that was being replaced (Chromium: "does not belong to the document") was not
    clicked: it is found again on the page that replaced it."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    for attempt in range(3):
        settled(driver)
        element = driver.find_element(By.CSS_SELECTOR, css)
        try:
            element.click()
            break
        except StaleElementReferenceException:
            if attempt == 2:
                raise
        except WebDriverException as error:
            if attempt == 2 or "does not belong to the document" not in str(error):
                raise
    WebDriverWait(driver, WAIT).until(expected_conditions.staleness_of(element))


def type_rule(driver, text: str, confidence: int | None = None, declare: bool = False) -> str:
    """Type a rule (and wait for the checker's word on it); its word."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    box = driver.find_element(By.ID, "rule")
    check = driver.find_element(By.ID, "check")
    box.clear()
    driver.execute_script("arguments[0].textContent = '';", check)  # wait for a new word
    box.send_keys(text)
    WebDriverWait(driver, WAIT).until(lambda _: check.text.strip())
    if confidence is not None:
        slider = driver.find_element(By.ID, "confidence")
        driver.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
            slider,
            str(confidence),
        )
    if declare:
        driver.find_element(By.ID, "declare").click()
    return check.text


def play_card(driver, index: int = 0) -> None:
    """Play the hand's card ``index`` (the last one for -1)."""
    from selenium.webdriver.common.by import By

    settled(driver)
    buttons = driver.find_elements(By.CSS_SELECTOR, ".hand button.card")
    button = buttons[index]
    button.click()
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT).until(expected_conditions.staleness_of(button))


def predict(driver, probability: str) -> None:
    """Delphi: click the button of ``probability`` ("0", "0.1" ... "1")."""
    click(driver, f"button[name=probability][value='{probability}']")


def pick(driver, indexes: list[int]) -> list[str]:
    """New Eleusis: click the hand's cards ``indexes`` in that order (the page's script
    builds the string); the cards the selects now hold, in order."""
    from selenium.webdriver.common.by import By

    settled(driver)
    cards = driver.find_elements(By.CSS_SELECTOR, ".picks .pick")
    for index in indexes:
        cards[index].click()
    slots = driver.find_elements(By.CSS_SELECTOR, ".slots select")
    return [value for slot in slots if (value := slot.get_attribute("value"))]


def new_eleusis_turn(driver, turn: int) -> str:
    """Answer a New Eleusis page: a card, a string of two picked last-first, or "no
    play", by ``turn``; yes to the Prophet, each call right. What was asked."""
    from selenium.webdriver.common.by import By

    if driver.find_elements(By.CSS_SELECTOR, "button[name=prophet]"):
        click(driver, "button[name=prophet][value=yes]")
        return "prophet"
    if driver.find_elements(By.CSS_SELECTOR, "button[name=call]"):
        click(driver, "button[name=call][value=right]")
        return "call"
    hand = driver.find_elements(By.CSS_SELECTOR, ".picks .pick")
    if turn % 4 == 3:
        click(driver, "button[name=play][value=none]")
        return "no play"
    pick(driver, [1, 0] if turn % 4 == 1 and len(hand) > 1 else [0])
    click(driver, "button[name=play][value=cards]")
    return "turn"


def decision(driver) -> int:
    """The number of the decision the game's page asks."""
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.CSS_SELECTOR, "input[name=number]")
    return int(field.get_attribute("value"))


def full_page_screenshot(driver, path: Path) -> None:
    """A PNG of the whole page (the window stretched to its height)."""
    width = driver.get_window_size()["width"]
    height = driver.execute_script("return document.documentElement.scrollHeight")
    chrome = driver.get_window_size()["height"] - driver.execute_script("return window.innerHeight")
    driver.set_window_size(width, min(max(height + chrome, 400), 4000))
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    driver.set_window_size(width, 900)


def screenshots(folder: Path) -> list[Path]:
    """Play the pilot study once in the browser and keep a PNG of each kind of page."""
    sys.path.insert(0, str(ROOT))
    from eleusis_lab.web.app import Limits, make_app
    from eleusis_lab.web.study import load_study

    taken = []

    def keep(driver, name: str) -> None:
        path = folder / f"web_{name}.png"
        full_page_screenshot(driver, path)
        taken.append(path)

    out = Path(tempfile.mkdtemp(prefix="eleusis-study-"))
    study = load_study(PILOT, out=str(out))
    app = make_app(study, out, Limits(session=(1e4, 1e4), address=(1e4, 1e4)))
    try:
        with served(app) as base, chromium() as driver:
            driver.get(f"{base}/?PROLIFIC_PID=screenshot-1")
            keep(driver, "start")
            click(driver, "button[value=yes]")
            keep(driver, "instructions")
            click(driver, "form[action='/play'] button")
            for _ in range(3):
                play_card(driver, 0)
            type_rule(driver, "color(card) == color(last)", confidence=60)
            keep(driver, "solo")
            type_rule(driver, "red(card) or rank(card) > ", confidence=60)
            keep(driver, "checker")
            while page(driver) == "game":  # the practice game, to its end
                type_rule(driver, "suit(card) != spades", confidence=80, declare=True)
                play_card(driver, 0)
            keep(driver, "result")
            click(driver, "form[action='/next'] button")
            while page(driver) == "game":  # the solo game that counts
                play_card(driver, -1)
            click(driver, "form[action='/next'] button")
            for _ in range(4):
                play_card(driver, 0)
            keep(driver, "classic")
            while page(driver) == "game":
                play_card(driver, 0)
            click(driver, "form[action='/next'] button")
            keep(driver, "done")
            driver.get(f"{base}/?PROLIFIC_PID={'x' * 200}")
            keep(driver, "error")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    oracle_screenshots(keep)
    return taken


def oracle_screenshots(keep) -> None:
    """Play the example study of Delphi and New Eleusis and keep a PNG of each of their
    pages: a prediction, a turn with a string picked, the Prophet's question, a call."""
    from selenium.webdriver.common.by import By

    from eleusis_lab.web.app import Limits, make_app
    from eleusis_lab.web.study import load_study

    out = Path(tempfile.mkdtemp(prefix="eleusis-study-"))
    study = load_study(ORACLE, out=str(out))
    app = make_app(study, out, Limits(session=(1e4, 1e4), address=(1e4, 1e4)))
    kept: set[str] = set()
    try:
        with served(app) as base, chromium() as driver:
            driver.get(f"{base}/?PROLIFIC_PID=screenshot-2")
            click(driver, "button[value=yes]")
            click(driver, "form[action='/play'] button")
            for k in range(6):
                predict(driver, ("0.8", "0.3", "1", "0.6", "0.2", "0.7")[k])
            keep(driver, "delphi")
            while page(driver) == "game":
                predict(driver, "0.5")
            click(driver, "form[action='/next'] button")
            turn = 0
            while page(driver) == "game":
                hand = driver.find_elements(By.CSS_SELECTOR, ".picks .pick")
                if "new_eleusis" not in kept and len(hand) > 2:
                    pick(driver, [2, 0])
                    keep(driver, "new_eleusis")
                    kept.add("new_eleusis")
                    click(driver, "button[name=play][value=cards]")
                    continue
                for name, css in (
                    ("prophet", "button[name=prophet]"),
                    ("call", "button[name=call]"),
                ):
                    if name not in kept and driver.find_elements(By.CSS_SELECTOR, css):
                        keep(driver, name)
                        kept.add(name)
                new_eleusis_turn(driver, turn)
                turn += 1
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    if (reason := missing()) is not None:
        sys.exit(f"cannot take the screenshots: {reason}")
    for shot in screenshots(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/guide/figures")):
        print(f"written {shot}")
