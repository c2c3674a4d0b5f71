"""A sign-up refused by the server's rate limit (5 a minute from one address) is said in the
page's language, never in the server's English."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request

from tests.client.conftest import Pages

STRINGS = "src/gammon/client/i18n/{}.json"


def register(base: str, name: str) -> int:
    request = urllib.request.Request(
        base + "/api/register", method="POST",
        data=json.dumps({"name": name, "password": "correct horse battery"}).encode(),
        headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_a_sign_up_refused_by_the_rate_limit_is_said_in_the_page_s_language(
        limited_pages: Pages) -> None:
    page = limited_pages.new("/#/signin", locale="it-IT")
    page.wait_for_function("document.documentElement.lang === 'it'")
    # the page and this test come from the same address: spend its sign-ups here
    answers = [register(limited_pages.base, f"limit{secrets.token_hex(4)}") for _ in range(8)]
    assert 429 in answers, answers
    form = "[data-form=register]"
    error = page.locator(f"{form} .error-text")
    for lang in ("it", "co", "pl", "en"):
        if lang != "it":
            page.select_option("#language", lang)
            page.wait_for_function(f"document.documentElement.lang === '{lang}'")
            # the page is drawn again in that language, without the last error
            page.wait_for_function(
                f"document.querySelector('{form} .error-text').textContent === ''")
        with open(STRINGS.format(lang), encoding="utf-8") as f:
            expected = json.load(f)["signin.rate_limited"]
        page.fill(f"{form} [name=name]", f"limit{secrets.token_hex(4)}")
        page.fill(f"{form} [name=password]", "correct horse battery")
        with page.expect_response(lambda r: r.url.endswith("/api/register")) as answer:
            page.click(f"{form} button[type=submit]")
        assert answer.value.status == 429
        page.wait_for_function(
            f"document.querySelector('{form} .error-text').textContent !== ''")
        assert error.inner_text() == expected, lang
        assert error.inner_text() != "too many register requests"
