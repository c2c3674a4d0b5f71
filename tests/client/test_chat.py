"""The match page's chat: a long unbroken line wraps inside the chat box (on a desktop and a
phone), and a line the server refuses (its chat rate limit) stays in the input, with the
refusal said, instead of being lost."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client.conftest import Pages
from tests.client.support import DESKTOP, PHONE
from tests.client.test_play import start_bot_match

CHAT = "section.card:has(.chat-form)"


def send_chat(page: Any, text: str) -> None:
    page.fill(f"{CHAT} .chat-form input", text)
    page.click(f"{CHAT} .chat-form button[type=submit]")


def chat_lines(page: Any) -> list[str]:
    return page.locator(f"{CHAT} .chat-lines > div").all_inner_texts()  # type: ignore[no-any-return]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_300_character_unbroken_chat_line_wraps_inside_the_chat_box(
        pages: Pages, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    start_bot_match(page)
    text = "W" * 300  # the longest line the server takes, with no place to break
    send_chat(page, text)
    line = page.locator(f"{CHAT} .chat-lines > div").last
    line.wait_for()
    assert line.inner_text().replace("\n", "").endswith(text)
    sizes = page.evaluate(f"""(() => {{
        const box = document.querySelector("{CHAT}");
        const lines = box.querySelector(".chat-lines");
        const line = lines.lastElementChild;
        const r = line.getBoundingClientRect(), b = box.getBoundingClientRect();
        return {{line: [line.scrollWidth, line.clientWidth],
                 lines: [lines.scrollWidth, lines.clientWidth],
                 right: r.right, boxRight: b.right, height: r.height,
                 page: document.documentElement.scrollWidth}};
    }})()""")
    assert sizes["line"][0] <= sizes["line"][1], sizes  # nothing sticks out of the line
    assert sizes["lines"][0] <= sizes["lines"][1], sizes  # the list does not scroll sideways
    assert sizes["right"] <= sizes["boxRight"], sizes
    assert sizes["height"] > 40, sizes  # it wrapped onto several lines
    assert sizes["page"] <= viewport["width"], sizes


def test_a_chat_line_refused_by_the_rate_limit_stays_in_the_input(
        limited_pages: Pages) -> None:
    page = limited_pages.new()
    start_bot_match(page)
    field = page.locator(f"{CHAT} .chat-form input")
    # the server takes a burst of 5 chat lines from a player, then 20 a minute
    sent = 0
    for n in range(1, 12):
        send_chat(page, f"line {n}")
        page.wait_for_function(
            f"""(() => {{ const box = document.querySelector("{CHAT}");
                 const lines = [...box.querySelectorAll(".chat-lines > div")];
                 const seen = lines.some((l) => l.textContent.endsWith(": line {n}"));
                 return seen && box.querySelector(".chat-form input").value === ""
                   || document.querySelector(".toast.error"); }})()""")
        if page.locator(".toast.error").count():
            break
        sent += 1
    assert 1 <= sent < 11, sent
    refused = f"line {sent + 1}"
    assert page.locator(".toast.error").first.inner_text() == "Slow down a little."
    assert field.input_value() == refused  # kept, to send again
    assert not any(line.endswith(f": {refused}") for line in chat_lines(page))
    page.wait_for_timeout(500)
    assert field.input_value() == refused
