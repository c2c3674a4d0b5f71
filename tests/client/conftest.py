"""Fixtures of the browser tests: one ``gammon serve`` and one Chromium for the session,
a fresh browser context (a new guest) per page. Every test here is skipped, with the
reason, when Debian's Chromium or Playwright is missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client.support import CHROMIUM, DESKTOP, chromium, gammon_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    reason = None
    if not os.path.exists(CHROMIUM):
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            reason = "Playwright for Python is missing (pip install playwright)"
    for item in items:
        uses_browser = {"pages", "browser"} & set(getattr(item, "fixturenames", ()))
        if Path(str(item.fspath)).parent == here and uses_browser:
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with gammon_server(tmp_path_factory.mktemp("gammon-serve")) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


class Pages:
    """Opens pages in fresh contexts (each one a different guest) and checks, at the end,
    that no page had a JavaScript error."""

    def __init__(self, browser: Any, base: str) -> None:
        self.browser = browser
        self.base = base
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, path: str = "/#/", *, viewport: dict[str, int] | None = None,
            locale: str = "en-US", touch: bool = False) -> Any:
        context = self.browser.new_context(viewport=viewport or DESKTOP, locale=locale,
                                           has_touch=touch, is_mobile=touch)
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{error}"))
        page.goto(self.base + path)
        page.wait_for_function("window.gammon && window.gammon.socket.status === 'open'")
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def pages_on(browser: Any, base: str) -> Iterator[Pages]:
    """Pages on the server at ``base`` for one test (``yield from`` it in a fixture), closed
    after it, the test failing on any JavaScript error they had."""
    opened = Pages(browser, base)
    try:
        yield opened
    finally:
        opened.close()
    assert not opened.errors, f"JavaScript errors: {opened.errors}"


@pytest.fixture
def pages(browser: Any, server: str) -> Iterator[Pages]:
    yield from pages_on(browser, server)


@pytest.fixture(scope="session")
def limited_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second ``gammon serve`` with the rate limits on (the session's has them off), for
    the tests of what a refusal by a limit looks like. Every page is from 127.0.0.1: the
    limits per address are shared by the tests that use it."""
    with gammon_server(tmp_path_factory.mktemp("gammon-limited"), rate_limits="true") as base:
        yield base


@pytest.fixture
def limited_pages(browser: Any, limited_server: str) -> Iterator[Pages]:
    yield from pages_on(browser, limited_server)
