"""The ``--html`` page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium.

The test clicks Next through a whole solution and, at every step, reads the cards the page
shows (their ``data-card``/``data-zone``/``data-slot`` attributes and classes) and compares them
with the position the replay checker reaches after that many steps, computed here from the
solution text alone; it also opens ``#step=N`` directly and steps with the arrow keys and the
slider. Skipped, saying why, when the browser, its driver or Selenium is missing (``.ci/run``
installs them). ``python tests/cli/test_html_browser.py docs/replay.png`` remakes the README's
screenshot.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core.cards import format_card
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.explain import describe_steps, explain_steps
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS
from solver.pyramid.model.replay import Position, parse_solution
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.scoring import score_of

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
"""Debian's browser and its WebDriver (packages chromium and chromium-driver)."""
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--window-size=900,1300")
"""Headless, and nothing that reaches for the network (without these it waits on connections
that a closed network never answers)."""
SEED = 32
"""The deal whose minimum solution the test steps through (35 moves)."""
SHOT_STEP = 16
"""The step of the README's screenshot (mid-solution: the next move is a draw)."""


def missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (apt-get install {package}; .ci/run installs it)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def start_browser():
    """A headless Chromium with a fresh profile, through Debian's chromedriver (Selenium never
    looks for a driver of its own); the profile folder goes when the browser quits."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pyramid-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.profile_dir = profile
    return driver


def quit_browser(driver) -> None:
    driver.quit()
    shutil.rmtree(driver.profile_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    driver = start_browser()
    yield driver
    quit_browser(driver)


def write_page(path: Path, args) -> None:
    result = CliRunner().invoke(cli, [*args, "--html", str(path)])
    assert result.exit_code in (0, 1), result.output
    assert path.is_file()


@pytest.fixture(scope="module")
def solve_page(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "solve.html"
    write_page(path, ["solve", "--seed", str(SEED)])
    doc = CliRunner().invoke(cli, ["solve", "--seed", str(SEED), "--json"]).stdout
    import json

    steps = parse_solution(" ".join(json.loads(doc)["solution"]))
    return path, steps


READ_CARDS = """
return Array.from(document.querySelectorAll('[data-card]')).map(function (e) {
  return [e.dataset.card, e.dataset.zone, Number(e.dataset.slot), e.className];
});"""
"""Every card element: its card, zone, slot and classes."""


def shown(driver) -> dict:
    """The cards the page shows, by zone: pyramid {position: card}, stock/waste/removed as lists
    in slot order; and the sets of covered, highlighted (used next), dead, face-down cards and
    those the "Why" note names."""
    out = {"pyramid": {}, "stock": {}, "waste": {}, "removed": {}, "covered": set(),
           "uses": set(), "dead": set(), "down": set(), "why": set()}
    for card, zone, slot, classes in driver.execute_script(READ_CARDS):
        assert slot not in out[zone], (zone, slot)
        out[zone][slot] = card
        for mark in ("covered", "uses", "dead", "down", "why"):
            if mark in classes.split():
                out[mark].add(card)
    for zone in ("stock", "waste", "removed"):
        assert sorted(out[zone]) == list(range(len(out[zone])))
        out[zone] = [out[zone][k] for k in range(len(out[zone]))]
    return out


def expected(pos: Position, removed: list[int], next_step) -> dict:
    """What the page must show for ``pos`` (replay checker), the cards removed so far in order,
    and the next step (None at the end)."""
    pyramid = {p: format_card(int(pos.deal[p])) for p in range(PYRAMID_CARDS)
               if pos.present >> p & 1}
    covered = {format_card(int(pos.deal[p])) for p in pyramid if pos.present & int(COVER_MASK[p])}
    if next_step is None:
        uses = set()
    elif next_step[0] == "recycle":
        uses = {format_card(c) for c in pos.waste}
    else:
        uses = {format_card(s.card) for s in explain_steps(pos.deal, pos.rules, [next_step],
                                                           pos)[0].cards}
    return {"pyramid": pyramid, "stock": [format_card(c) for c in pos.stock],
            "waste": [format_card(c) for c in pos.waste],
            "removed": [format_card(c) for c in removed], "covered": covered, "uses": uses}


def check_step(driver, pos: Position, removed: list[int], steps, k: int) -> None:
    """The page shows step ``k`` of ``steps`` (``pos`` is the checker's position there)."""
    from selenium.webdriver.common.by import By

    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-step") == str(k)
    page = shown(driver)
    want = expected(pos, removed, steps[k] if k < len(steps) else None)
    for key, value in want.items():
        assert page[key] == value, (k, key, page[key], value)
    stock_top = pos.stock[-1:] if pos.rules.stock_top else []
    assert page["down"] == {format_card(c) for c in pos.stock} - {format_card(c) for c in stock_top}
    assert driver.find_element(By.ID, "counter").text == f"move {k} of {len(steps)}"
    score = driver.find_element(By.CSS_SELECTOR, "#table .label.score").text
    assert score == f"score {score_of(pos):,}", (k, score)
    if k:
        line = describe_steps(pos.deal, pos.rules, steps)[k - 1].split(". ", 1)[1]
        played = driver.find_element(By.ID, "played").text
        assert played.startswith(f"Played: {k}. ")
        assert " ".join(played.split()[2:]) == " ".join(line.split())


def positions_along(deal, rules: Rules, steps):
    """``(position, removed cards in order)`` after 0, 1, ... len(steps) steps (replay
    checker)."""
    pos = Position(deal, rules)
    removed: list[int] = []
    out = [(pos.copy(), list(removed))]
    for step in steps:
        pos.apply(step)
        if step[0] in ("pair", "king"):
            removed += list(step[1:])
        out.append((pos.copy(), list(removed)))
    return out


def test_next_through_a_whole_solution_shows_the_checker_positions(browser, solve_page):
    from selenium.webdriver.common.by import By

    path, steps = solve_page
    browser.get(path.as_uri())
    along = positions_along(deal_from_seed(SEED), Rules(), steps)
    for k, (pos, removed) in enumerate(along):
        if k:
            browser.find_element(By.ID, "next").click()
        check_step(browser, pos, removed, steps, k)
    assert browser.find_element(By.ID, "next").get_attribute("disabled") is not None
    assert browser.execute_script("return location.hash") == f"#step={len(steps)}"
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_a_step_in_the_url_the_arrow_keys_and_the_slider(browser, solve_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path, steps = solve_page
    along = positions_along(deal_from_seed(SEED), Rules(), steps)
    browser.get(path.as_uri() + "#step=17")
    check_step(browser, *along[17], steps, 17)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    check_step(browser, *along[18], steps, 18)
    body.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    check_step(browser, *along[16], steps, 16)
    body.send_keys(Keys.END)
    check_step(browser, *along[len(steps)], steps, len(steps))
    body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays
    check_step(browser, *along[len(steps)], steps, len(steps))
    body.send_keys(Keys.HOME)
    check_step(browser, *along[0], steps, 0)
    slider = browser.find_element(By.ID, "slider")
    slider.click()  # the middle of the track
    k = int(slider.get_attribute("value"))
    assert 0 < k < len(steps)
    check_step(browser, *along[k], steps, k)
    slider.send_keys(Keys.ARROW_RIGHT)  # the slider's own key: one step, not two
    check_step(browser, *along[k + 1], steps, k + 1)
    browser.get(path.as_uri() + "#step=3")  # a link to a step, followed from the page
    check_step(browser, *along[3], steps, 3)
    browser.execute_script("location.hash = '#step=9'")
    check_step(browser, *along[9], steps, 9)


def test_a_lost_deal_and_a_checked_line(browser, tmp_path):
    from selenium.webdriver.common.by import By

    lost = tmp_path / "lost.html"
    write_page(lost, ["solve", "--seed", "9"])
    browser.get(lost.as_uri() + "#step=5")
    page = shown(browser)
    assert "6c" in page["dead"] and len(page["dead"]) == 1
    notes = browser.find_element(By.ID, "notes").text
    assert "Why: 6c (row 7, card 5) can never go" in notes and "Best partial result" in notes
    moves = "6d+7d 2h+Js draw draw 3c+Td"  # 2h+Js is where seed 32 was lost
    checked = tmp_path / "check.html"
    write_page(checked, ["check", "--seed", "32", "--solution", moves])
    browser.get(checked.as_uri() + "#step=1")
    page = shown(browser)
    assert page["uses"] == {"2h", "Js"}
    losing = browser.find_elements(By.CSS_SELECTOR, ".card.uses.losing")
    assert {e.get_attribute("data-card") for e in losing} == {"2h", "Js"}
    assert "loses the deal" in browser.find_element(By.ID, "upcoming").text
    assert browser.find_element(By.CSS_SELECTOR, "#moves li.lost").get_attribute(
        "data-move") == "2"


def rank_label(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, "#table .label.score")[1].text


def test_a_card_challenge_page_shows_its_line_and_the_line_that_clears_the_pyramid(browser,
                                                                                    tmp_path):
    """Both lines step through as the checker plays them, each with the score and the count
    of fours gone; the buttons and ``#line=2&step=N`` choose the line."""
    import json

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from solver.pyramid.model.rules import PRESETS
    from solver.pyramid.model.scoring import rank_gone

    args = ["challenge", "cards", "--seed", "201", "--rank", "4", "--count", "8",
            "--recycles", "0"]  # 4 fours at most, 3 by the best line that clears the pyramid
    page = tmp_path / "cards.html"
    write_page(page, args)
    doc = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    deal, rules = deal_from_seed(201), PRESETS["msc"].with_options(recycles=0)
    best = parse_solution(" ".join(doc["line"]))
    clearing = parse_solution(" ".join(doc["clearing"]["line"]))
    browser.get(page.as_uri())
    buttons = browser.find_elements(By.CSS_SELECTOR, "#choose button")
    assert [b.get_attribute("aria-pressed") for b in buttons] == ["true", "false"]
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    along = positions_along(deal, rules, best)
    check_step(browser, *along[-1], best, len(best))
    assert rank_label(browser) == "fours gone 4"
    buttons[1].click()
    assert [b.get_attribute("aria-pressed") for b in buttons] == ["false", "true"]
    along = positions_along(deal, rules, clearing)
    check_step(browser, *along[0], clearing, 0)
    browser.get(page.as_uri() + "#line=2&step=20")
    check_step(browser, *along[20], clearing, 20)
    assert rank_label(browser) == f"fours gone {rank_gone(along[20][0], 4)}"
    browser.find_element(By.ID, "next").click()
    check_step(browser, *along[21], clearing, 21)
    assert browser.execute_script("return location.hash") == "#line=2&step=21"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert rank_label(browser) == "fours gone 3"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#moves li")) == len(clearing)


FOLD = (1200, 900)
"""A laptop's screen: the page's controls must be in view there without scrolling."""
LONG_WHY_SEED = 63
"""A lost deal whose "Why" note is long (a class_order proof naming 16 cards)."""


def in_view(driver, css: str) -> bool:
    """Whether the element ``css`` lies wholly inside the window, unscrolled."""
    return driver.execute_script(
        "var r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth"
        " && r.width > 0;", css)


def test_a_long_why_note_leaves_the_controls_in_view_and_marks_its_cards(browser, tmp_path):
    from selenium.webdriver.common.by import By

    from solver.pyramid.analysis.reasons import find_reason

    reason = find_reason(deal_from_seed(LONG_WHY_SEED), Rules())
    named = {format_card(c) for c in (reason.card, *reason.partners)}
    assert len(reason.text) > 400 and len(named) == 16
    page = tmp_path / "lost.html"
    write_page(page, ["solve", "--seed", str(LONG_WHY_SEED)])
    browser.set_window_size(*FOLD)
    try:
        browser.get(page.as_uri())
        assert browser.execute_script("return innerHeight") <= FOLD[1]
        assert "Why: " + reason.text in browser.find_element(By.ID, "notes").text
        for css in ("#start", "#prev", "#counter", "#next", "#end", "#slider", "#table"):
            assert in_view(browser, css), css
        for k in (0, 20):  # the marks stay on the cards still in play as the line goes on
            browser.get(page.as_uri() + f"#step={k}")
            cards = shown(browser)
            assert cards["why"] == named - set(cards["removed"]) and cards["why"]
        key = browser.find_element(By.ID, "why-key")
        assert key.is_displayed() and set(key.text.split(":")[-1].split()) == named
    finally:
        browser.set_window_size(900, 1300)
    won = tmp_path / "won.html"  # no reason: no card marked, no key
    write_page(won, ["solve", "--seed", str(SEED)])
    browser.get(won.as_uri())
    assert shown(browser)["why"] == set()
    assert not browser.find_element(By.ID, "why-key").is_displayed()


OFF_TABLE = """
var t = document.getElementById("table").getBoundingClientRect();
return Array.from(document.querySelectorAll("#table .label, #table .card")).filter(function (e) {
  var r = e.getBoundingClientRect();
  return r.left < t.left - 0.5 || r.right > t.right + 0.5 || r.top < t.top - 0.5
    || r.bottom > t.bottom + 0.5;
}).map(function (e) { return e.dataset.card || e.textContent; });"""
"""The labels and cards that reach past the table (the felt's drawing area)."""
CROSSES = """
return Array.from(document.querySelectorAll(".card.dead")).map(function (card) {
  var c = card.getBoundingClientRect(), x = getComputedStyle(card, "::after");
  var left = c.left + card.clientLeft + parseFloat(x.left), top = c.top + card.clientTop + parseFloat(x.top);
  var cross = {left: left, top: top, right: left + parseFloat(x.width), bottom: top + parseFloat(x.height)};
  var idx = card.querySelector(".idx").getBoundingClientRect();
  var seen = document.elementFromPoint((cross.left + cross.right) / 2, (cross.top + cross.bottom) / 2);
  return [card.dataset.card, Math.min(cross.right, idx.right) - Math.max(cross.left, idx.left),
          Math.min(cross.bottom, idx.bottom) - Math.max(cross.top, idx.top), seen === card];
});"""
"""Per dead card: how far its cross (the ::after badge) overlaps its rank and suit across and
down (both positive: they overlap), and whether the cross is what shows at its centre."""


@pytest.mark.parametrize("width", [FOLD[0], 420])
def test_the_removed_label_and_the_dead_card_cross_fit(browser, tmp_path, solve_page, width):
    lost = tmp_path / "lost.html"
    write_page(lost, ["solve", "--seed", "9"])
    path, steps = solve_page
    browser.set_window_size(width, FOLD[1])
    try:
        for page, k in ((path, len(steps)), (lost, 0), (lost, 29)):
            browser.get("about:blank")  # a fresh load: no card still moving
            browser.get(f"{page.as_uri()}#step={k}")
            assert browser.execute_script(OFF_TABLE) == [], (page.name, k)
            label = browser.execute_script("return document.querySelectorAll('.label')[3]"
                                           ".textContent")
            assert label == f"removed {len(shown(browser)['removed'])}"
        crosses = browser.execute_script(CROSSES)  # seed 9: 6c can never go
        assert [c[0] for c in crosses] == ["6c"]
        for card, across, down, seen in crosses:
            assert min(across, down) <= 0 and seen, (card, across, down, seen)
    finally:
        browser.set_window_size(900, 1300)


def save_screenshot(out: Path) -> None:
    """The README's screenshot: seed ``SEED``'s solution at step ``SHOT_STEP``."""
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "replay.html"
        write_page(page, ["solve", "--seed", str(SEED)])
        driver = start_browser()
        try:
            driver.set_window_size(760, 1000)
            driver.get(page.as_uri() + f"#step={SHOT_STEP}")
            driver.execute_script("document.querySelectorAll('.card').forEach("
                                  "function (c) { c.style.transition = 'none'; });")
            driver.save_screenshot(str(out))
        finally:
            quit_browser(driver)


if __name__ == "__main__":
    if missing():
        sys.exit(missing())
    save_screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/replay.png"))
