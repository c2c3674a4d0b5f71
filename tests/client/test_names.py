"""A name in another script registers through the sign-in page, is shown as typed, and
finds its history page (the name in the address, percent-encoded)."""

from __future__ import annotations

import secrets

from tests.client.conftest import Pages


def test_a_polish_name_registers_in_the_browser_and_is_shown(pages: Pages) -> None:
    page = pages.new("/#/signin")
    # one session server for every browser test: a suffix keeps the name free
    name = f"Łukasz{secrets.token_hex(3)}"
    page.fill("[data-form=register] [name=name]", name)
    page.fill("[data-form=register] [name=password]", "correct horse battery")
    page.click("[data-form=register] button[type=submit]")
    page.wait_for_url("**/#/")
    page.wait_for_function(f"window.gammon.app.me && window.gammon.app.me.name === '{name}'")
    assert page.inner_text("#user-link").startswith(f"{name} · ")  # name · rating
    page.goto(page.url.split("#")[0] + "#/signin")
    page.click("[data-card=signed-in] a[href^='#/history/']")
    page.wait_for_selector("main .empty")  # the server found the player: no matches yet
    assert name in page.inner_text("main h1")
