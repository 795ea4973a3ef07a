"""End to end for Splendor: the web server in a thread, the page in a real headless Chromium
(Debian's ``chromium``, driven by Playwright), games against an agent played by clicking:
the start position at once, a purchase that brings two nobles and the noble chosen on the
table, tokens taken from the supply and the excess returned, a card reserved, undo, a bot's
answers, and the other player's reserved cards shown only as backs.

The new games start from position texts written here (the descriptor's shuffle is replaced
for the test). Set ``SPLENDOR_WEB_SCREENSHOT=path.png`` to keep the screenshot.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from test_web_browser import CHROMIUM_FLAGS, chromium_path, serve

from splendor_env import rules
from splendor_env.play.web import create_app
from tabletop.games import get_game

pytestmark = pytest.mark.browser

#: P0 (bonuses b3 g3 r2 k3, 10 tokens, card 20 reserved) to move; buying the red card 27
#: brings nobles 6 (g3 r3 k3) and 7 (b3 g3 r3) at once. P1 holds card 41 from a deck and
#: card 5 from the market, both hidden from P0.
NOBLES_AND_RETURNS = (
    "splendor 2 turn:22 move:0 phase:main final:no supply:w1b2g2r3k3y2 nobles:1,6,7 "
    "L1:27,36,37,38/3,4,6,7,8,12,13,14,15,16,21,22,23,24,29,30,31,32,39,40 "
    "L2:42,43,44,45/46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70 "
    "L3:71,72,73,74/75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90 "
    "P0:w3b2g2r1k1y1/9,10,11,17,18,19,25,26,33,34,35/20/- P1:w0b0g0r0k0y2/1,2,28/41*,5/-"
)
STARTS = {"next": rules.initial_text(2, 11)}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    game = get_game("splendor")
    shuffled = game.initial_state

    def start(num_players: int, seed: int | None = None) -> rules.State:
        state = rules.from_text(STARTS["next"])
        return state if state.num_players == num_players else shuffled(num_players, seed)

    game.initial_state = start  # type: ignore[method-assign]
    try:
        yield from serve(create_app())
    finally:
        del game.initial_state


@pytest.fixture
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.server = server
        yield page
        browser.close()
        assert errors == [], f"errors in the page: {errors}"


def wait_for_turn(page, moves: int) -> None:
    """Until ``moves`` moves are in the log and it is the human's turn."""
    page.wait_for_function(f"document.querySelectorAll('#log li').length === {moves}")
    page.wait_for_selector('#status[data-state="human"]')


def last_move(page) -> str:
    return page.get_attribute("#board", "data-last-move")


def choose(page, move: str) -> None:
    page.click(f'#choices button[data-move="{move}"]')


def test_the_start_position_at_once_then_a_take_and_a_reserve_by_clicking(page):
    STARTS["next"] = start = rules.initial_text(2, 11)
    state = rules.from_text(start)
    held = []
    page.route("**/api/games", lambda route: held.append(route))  # the first game waits
    page.goto(page.server)
    page.wait_for_selector(".card[data-slot='1.0']")
    assert page.get_attribute("#status", "data-state") == "starting"
    assert page.locator(".card[data-id]").count() == 12 and page.locator(".noble").count() == 3
    assert page.text_content('.token[data-token="y"] .gem-count') == "5"
    while not held:
        page.wait_for_timeout(20)
    held[0].continue_()
    page.unroute("**/api/games")
    page.wait_for_selector('#status[data-state="human"]')
    shown = page.eval_on_selector_all(".card[data-id]", "els => els.map(e => +e.dataset.id)")
    assert sorted(shown) == sorted(c for row in state.market for c in row)
    seats = page.eval_on_selector_all("#player-1 option", "os => os.map(o => o.value)")
    assert {"greedy", "random", "search:easy"} <= set(seats) and "human" in seats
    page.select_option("#num-players", "4")
    assert page.locator("#seat-choices select").count() == 4

    page.select_option("#num-players", "2")
    page.select_option("#player-1", "greedy")
    page.click("#new-game")
    wait_for_turn(page, 0)
    # Three gems, then the Take button; the greedy bot answers.
    for t in "wbg":
        page.click(f'.token[data-token="{t}"]')
    assert page.locator(".token.picked").count() == 3
    choose(page, "take wbg")
    wait_for_turn(page, 2)
    assert page.inner_text("#log li:first-child") == "turn 0 P0: take wbg"
    assert page.text_content('.player[data-seat="0"] .held') == "(3)"
    # A market card offers Buy or Reserve (only Reserve here); reserving it puts it in the hand.
    card = page.get_attribute(".card[data-slot='2.1']", "data-id")
    page.click(".card[data-slot='2.1']")
    assert (
        page.locator("#choices button[data-move]")
        .all_inner_texts()[0]
        .startswith(f"Reserve card {card} (level 2")
    )
    choose(page, "reserve 2.1")
    wait_for_turn(page, 4)
    assert page.locator(f'.player[data-seat="0"] .mini-card[data-id="{card}"]').count() == 1
    # Undo takes back the reserve and the bot's answer.
    page.click("#undo")
    wait_for_turn(page, 2)
    assert page.locator('.player[data-seat="0"] .mini-card').count() == 0
    assert page.get_attribute(".card[data-slot='2.1']", "data-id") == card


def test_a_purchase_a_noble_choice_and_returned_tokens_by_clicking(page, tmp_path):
    STARTS["next"] = NOBLES_AND_RETURNS
    page.goto(page.server)
    page.wait_for_selector('#status[data-state="human"]')
    page.select_option("#player-1", "greedy")
    page.click("#new-game")
    page.wait_for_selector('.noble[data-noble="6"]')
    wait_for_turn(page, 0)
    # P1's reserved cards show only their backs; P0's own card 20 is face up.
    backs = page.locator('.player[data-seat="1"] .mini-card.back')
    assert backs.count() == 2 and page.locator('.player[data-seat="1"] [data-id]').count() == 0
    assert page.locator('.player[data-seat="0"] .mini-card[data-id="20"]').count() == 1
    assert "41" not in page.inner_text("#panel")

    # Buying card 27 qualifies P0 for nobles 6 and 7: the choice is made on the table.
    page.click(".card[data-slot='1.0']")
    choose(page, "buy 1.0")
    page.wait_for_selector('#board[data-phase="noble"]')
    assert page.locator(".noble.choosable").count() == 2
    assert "choose a noble" in page.inner_text("#status")
    page.click('.noble[data-noble="6"]')
    wait_for_turn(page, 3)
    assert page.inner_text("#log li:nth-child(2)") == "turn 22 P0: noble 6"
    assert page.text_content('.player[data-seat="0"] .pts') == "3 pts"

    # Three gems bring P0 to 12 tokens: two returns, one by a token, one by a button.
    gems = [t for t in "wbgrk" if page.locator(f'.token[data-token="{t}"].choosable').count()]
    for t in gems[:3]:
        page.click(f'.token[data-token="{t}"]')
    take = page.get_attribute("#choices button[data-move^='take ']", "data-move")
    choose(page, take)
    page.wait_for_selector('#board[data-phase="return"]')
    assert page.text_content('.player[data-seat="0"] .held') == "(12)"
    page.click('.player[data-seat="0"] .chip.choosable[data-token="b"]')
    page.wait_for_function("document.querySelectorAll('#log li').length === 5")
    page.wait_for_selector('#board[data-phase="return"]')
    assert last_move(page) == "return b"
    choose(page, "return y")
    wait_for_turn(page, 7)
    assert page.inner_text("#log li:nth-child(6)") == "turn 24 P0: return y"
    assert page.text_content('.player[data-seat="0"] .held') == "(10)"

    # A hint points at a legal move; undo takes back the last return and the bot's answer.
    page.click("#hint")
    page.wait_for_selector("#hint-text[data-move]:not([data-move=''])")
    assert page.inner_text("#hint-text").startswith("Hint: ")
    page.click("#undo")
    wait_for_turn(page, 5)
    page.wait_for_selector('#board[data-phase="return"]')
    screenshot = os.environ.get("SPLENDOR_WEB_SCREENSHOT") or str(tmp_path / "splendor.png")
    page.screenshot(path=screenshot)
    assert os.path.getsize(screenshot) > 10_000
