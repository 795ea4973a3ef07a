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
