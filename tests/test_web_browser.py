"""End to end: the web server in a thread, the page in a real headless Chromium (Debian's
``chromium``, driven by Playwright; no browser download), a few steps played by clicking.

Set ``SPLUT_WEB_SCREENSHOT=path.png`` to keep the screenshot (the README's comes from it).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from splut_env.envs.gamelog import parse_games
from splut_env.play.web import create_app

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium_path() -> str:
    path = os.environ.get("SPLUT_CHROMIUM") or shutil.which("chromium")
    if not path:
        pytest.fail(
            "the browser test needs Debian's chromium (apt-get install chromium, as "
            "scripts/setup.sh does) or SPLUT_CHROMIUM=/path/to/chromium; "
            "run the other tests with: pytest -m 'not browser'"
        )
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(checkpoints=[]), host="127.0.0.1", port=port, log_level="warning")  # fmt: skip
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the web server did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1100, "height": 700})
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server)
        yield page
        browser.close()
        assert errors == [], f"errors in the page: {errors}"


def squares(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.square).sort()")


def test_play_steps_by_clicking(page, tmp_path):
    page.wait_for_selector('#status[data-state="human"]')  # a game starts on load
    page.select_option("#player-1", "random")
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_selector('#status[data-state="human"]')
    assert page.locator("#log li").count() == 0

    # An enemy piece cannot be selected; an own piece shows its destinations.
    page.click('[data-piece="WN"]')
    assert page.locator(".piece.selected").count() == 0
    page.click('[data-piece="DS"]')
    assert squares(page, ".square.target") == ["e3"]
    page.click('rect[data-square="e3"]')
    page.wait_for_selector('[data-piece="DS"][data-square="e3"]')

    # The agent's two steps arrive one at a time, then it is the human's turn again.
    page.wait_for_function("document.querySelectorAll('#log li').length === 3")
    page.wait_for_selector('#status[data-state="human"]')
    assert page.inner_text("#log li:first-child") == "turn 1 S: Dn"

    # A wizard step with options: without levitation, or levitating the rock on a5.
    page.click('[data-piece="WS"]')
    assert squares(page, ".square.target") == ["d3", "e2"]
    page.click('rect[data-square="e2"]')
    buttons = page.eval_on_selector_all("#choices button[data-step]", "bs => bs.map(b => b.dataset.step)")  # fmt: skip
    assert buttons == ["We", "We@a5"]
    assert squares(page, ".rock.choice") == ["a5"]
    page.click('#choices button[data-step="We@a5"]')
    page.wait_for_selector('[data-piece="WS"][data-square="e2"]')
    page.wait_for_selector('.rock.levitating[data-square="b5"]')
    assert "2 step(s) left" in page.inner_text("#status")
    page.click('[data-piece="TS"]')  # show the troll's destinations in the screenshot
    screenshot = os.environ.get("SPLUT_WEB_SCREENSHOT") or str(tmp_path / "page.png")
    page.wait_for_timeout(400)  # let the move animation finish
    page.screenshot(path=screenshot)
    assert os.path.getsize(screenshot) > 10_000

    # The log downloads as a step log; undo takes the wizard step back.
    shown = [li.split(": ")[1] for li in page.locator("#log li").all_inner_texts()]
    log = page.request.get(page.eval_on_selector("#download", "a => a.href")).text()
    ((_, steps),) = parse_games(log)
    assert steps == shown and steps[0] == "Dn" and steps[-1] == "We@a5" and len(steps) == 4
    page.click("#undo")
    page.wait_for_selector('[data-piece="WS"][data-square="d2"]')
    assert page.locator("#log li").count() == 3


# --- the start position at once, and only the players that fit the table ------------------


@pytest.fixture(scope="module")
def offering_server() -> Iterator[str]:
    """A server offering a 2-player and a 3-player checkpoint."""
    root = Path(__file__).resolve().parents[1] / "checkpoints"
    app = create_app(checkpoints=[str(root / "splut_2p.zip"), str(root / "splut_3p.zip")])
    yield from serve(app)


def serve(app) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the web server did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@contextmanager
def browser_page() -> Iterator:
    """A fresh page in headless Chromium; errors in the page fail the test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1100, "height": 700})
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
        browser.close()
        assert errors == [], f"errors in the page: {errors}"


def options_of(page, select: str) -> list[str]:
    return page.eval_on_selector_all(f"{select} option", "os => os.map(o => o.value)")


def test_the_start_position_shows_before_the_first_game_arrives(server):
    """Regression: the page opened on an empty board until 'New game' was pressed."""
    with browser_page() as page:
        held = []
        page.route("**/api/games", lambda route: held.append(route))  # the first game waits
        page.goto(server)
        page.wait_for_selector('[data-piece="DS"][data-square="e2"]')
        assert page.locator(".piece").count() == 10  # 6 pieces and 4 rocks
        assert squares(page, ".rock") == ["a5", "e1", "e9", "i5"]
        assert page.get_attribute("#status", "data-state") == "starting"
        while not held:
            page.wait_for_timeout(20)
        held[0].continue_()
        page.wait_for_selector('#status[data-state="human"]')
        page.click('[data-piece="DS"]')
        assert squares(page, ".square.target") == ["e3"]
        # A new game shows its table's start at once, before the server answers.
        page.route("**/api/games", lambda route: None)
        page.select_option("#num-players", "4")
        page.click("#new-game")
        page.wait_for_selector('[data-piece="DE"]')
        assert page.locator(".piece").count() == 16


def test_only_players_that_can_sit_at_the_table_are_offered(offering_server):
    """Regression: a 2-player table offered best:3p, best:4p and the 3- and 4-player
    checkpoints, refused with a 422 only after the choice."""
    ckpt2 = str(Path(__file__).resolve().parents[1] / "checkpoints" / "splut_2p.zip")
    ckpt3 = ckpt2.replace("_2p", "_3p")
    with browser_page() as page:
        page.goto(offering_server)
        page.wait_for_selector('#status[data-state="human"]')
        two = options_of(page, "#player-1")
        assert {"human", "best:2p", "search:hard", ckpt2, ckpt2 + ":shield"} <= set(two)
        assert not {"best:3p", "best:4p", ckpt3, ckpt3 + ":shield"} & set(two)
        page.select_option("#player-1", ckpt2)
        page.select_option("#num-players", "3")
        for k in range(3):
            three = options_of(page, f"#player-{k}")
            assert {"best:3p", ckpt3, ckpt3 + ":shield", "greedy"} <= set(three)
            assert not {"best:2p", "best:4p", ckpt2, ckpt2 + ":shield"} & set(three)
        # A choice the new table cannot seat falls back to the default; one it can is kept.
        assert page.input_value("#player-1") == "search:easy"
        page.select_option("#player-1", "greedy")
        page.select_option("#player-2", ckpt3)
        page.select_option("#num-players", "4")
        assert page.input_value("#player-1") == "greedy"
        assert page.input_value("#player-2") == "search:easy"
        assert "best:4p" in options_of(page, "#player-3")
        page.select_option("#num-players", "3")
        page.select_option("#player-2", ckpt3)
        page.click("#new-game")
        page.wait_for_selector('#status[data-state="human"]')
        assert page.inner_text("#message") == ""
        log = page.request.get(page.eval_on_selector("#download", "a => a.href")).text()
        assert f"# players: S=human W=greedy N={ckpt3};" in log
