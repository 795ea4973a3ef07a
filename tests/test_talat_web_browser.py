"""End to end for Talat: the web server in a thread, the page in a real headless Chromium
(Debian's ``chromium``, driven by Playwright), a game against an agent played by clicking:
placements, undo, a hint, the rest of the set-up and a step in play.

Set ``TALAT_WEB_SCREENSHOT=path.png`` to keep the screenshot.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from test_web_browser import CHROMIUM_FLAGS, chromium_path, serve

from talat_env.play.web import create_app
from talat_env.rules.board import TYPE_NAMES

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    yield from serve(create_app())


@pytest.fixture
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1150, "height": 800})
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.server = server
        yield page
        browser.close()
        assert errors == [], f"errors in the page: {errors}"


def attrs(page, selector: str, name: str) -> list[str]:
    return page.eval_on_selector_all(selector, f"els => els.map(e => e.getAttribute('{name}')).sort()")  # fmt: skip


def log_size(page) -> int:
    return page.locator("#log li").count()


def wait_for_turn(page, moves: int) -> None:
    """Until ``moves`` moves are in the log and it is the human's turn."""
    page.wait_for_function(f"document.querySelectorAll('#log li').length === {moves}")
    page.wait_for_selector('#status[data-state="human"]')


def test_start_position_at_once_and_only_fitting_players(page):
    held = []
    page.route("**/api/games", lambda route: held.append(route))  # the first game waits
    page.goto(page.server)
    page.wait_for_selector('rect[data-square="gw:a1"]')
    assert page.locator("rect.square").count() == 75 and page.locator(".tower").count() == 0
    assert attrs(page, "#tray .slot", "data-type") == sorted(TYPE_NAMES)
    assert page.text_content(".tray-title") == "grey (Zihin) to place"
    assert page.get_attribute("#status", "data-state") == "starting"
    while not held:
        page.wait_for_timeout(20)
    held[0].continue_()
    page.wait_for_selector('#status[data-state="human"]')
    two = page.eval_on_selector_all("#player-1 option", "os => os.map(o => o.value)")
    assert "best:2p" in two and "best:3p" not in two
    page.select_option("#num-players", "3")
    three = page.eval_on_selector_all("#player-2 option", "os => os.map(o => o.value)")
    assert "best:3p" in three and "best:2p" not in three
    assert page.locator("#seat-choices select").count() == 3


def test_set_up_undo_hint_and_a_step_by_clicking(page, tmp_path):
    page.goto(page.server)
    page.wait_for_selector('#status[data-state="human"]')
    page.select_option("#player-1", "greedy")
    page.fill("#seed", "1")
    page.click("#new-game")
    wait_for_turn(page, 0)

    # A placement: a tower chosen in the tray shows where it may go, then a square.
    page.click('#tray [data-type="L6"]')
    assert attrs(page, ".square.place", "data-square") == [
        *(f"bg:{f}5" for f in "abcde"), *(f"gw:{f}1" for f in "abcde"),
    ]  # fmt: skip
    page.click('rect[data-square="gw:c1"]')
    page.wait_for_selector('[data-tower="gL6"][data-board="gw"][data-square="c1"]')
    wait_for_turn(page, 2)
    assert page.inner_text("#log li:first-child") == "w: gw:L6@c1"
    assert page.locator('#tray [data-type="L6"].placed').count() == 1

    # The square first, then the tower, works as well; undo takes it back with the reply.
    page.click('rect[data-square="bg:a5"]')
    page.click('#tray [data-type="S3"]')
    page.wait_for_selector('[data-tower="gS3"][data-square="a5"]')
    wait_for_turn(page, 4)
    page.click("#undo")
    wait_for_turn(page, 2)
    assert page.locator('[data-tower="gS3"]:not(.gone)').count() == 0

    # A hint names a legal placement and points at its square and its tower in the tray.
    page.click("#hint")
    page.wait_for_selector('#hint-text[data-move*="@"]')
    hinted = page.get_attribute("#hint-text", "data-move")
    board, _, rest = hinted.partition(":")
    assert page.inner_text("#hint-text").startswith(f"Hint: {hinted} (place grey (Zihin) ")
    assert attrs(page, ".square.hinted", "data-square") == [f"{board}:{rest[3:]}"]
    assert attrs(page, "#tray .slot.hinted", "data-type") == [rest[:2]]

    # The rest of the set-up by clicking: 13 placements each; black places last, moves first.
    while page.locator("#tray .slot.choosable").count():
        done = log_size(page)
        page.locator("#tray .slot.choosable").first.click()
        page.locator("rect.square.place").first.click()
        wait_for_turn(page, done + 2)
    assert log_size(page) == 27 and "move 28" in page.inner_text("#status")
    assert page.locator(".tower").count() == 26 and page.locator("#tray .slot").count() == 0

    # A step: a tower of the mover's shows its targets; clicking one plays it.
    page.locator(".tower.movable").first.click()
    tower = page.locator(".tower.selected")
    tower_id = tower.get_attribute("data-tower")
    targets = attrs(page, ".square.target, .square.capture", "data-square")
    assert targets
    page.click(f'rect[data-square="{targets[0]}"]')
    board, square = targets[0].split(":")
    page.wait_for_selector(f'[data-tower="{tower_id}"][data-board="{board}"][data-square="{square}"]')  # fmt: skip
    wait_for_turn(page, 29)
    assert page.locator("table.scores tbody tr").count() == 2
    screenshot = os.environ.get("TALAT_WEB_SCREENSHOT") or str(tmp_path / "talat.png")
    page.wait_for_timeout(400)  # let the move animation finish
    page.screenshot(path=screenshot)
    assert os.path.getsize(screenshot) > 10_000
