"""Every string of the client in every language (English, Italian, French, Polish, Hungarian
and Corsican, every string translated), with the same placeholders as the English one, and
every key the code asks for present. No browser needed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "src" / "gammon" / "client"
LANGUAGES = ("en", "it", "fr", "pl", "hu", "co")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def strings(lang: str) -> dict[str, Any]:
    return json.loads((CLIENT / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def forms(value: str | dict[str, str]) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def placeholders(value: str | dict[str, str]) -> set[str]:
    return {name for text in forms(value) for name in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_every_string_with_the_same_placeholders(lang: str) -> None:
    english = strings("en")
    table = strings(lang)
    assert sorted(set(english) - set(table)) == [], f"{lang} lacks strings"
    assert sorted(set(table) - set(english)) == [], f"{lang} has strings English lacks"
    for key, value in table.items():
        assert placeholders(value) == placeholders(english[key]), f"{lang}:{key}"
        # a long sentence left in English is an untranslated string
        words = re.sub(PLACEHOLDER, "", " ".join(forms(value)))
        if sum(c.isalpha() for c in words) >= 14:
            assert forms(value) != forms(english[key]), f"{lang}:{key} is not translated"


def test_the_language_menu_offers_exactly_the_language_files() -> None:
    menu = (CLIENT / "i18n.js").read_text(encoding="utf-8")
    block = menu.split("export const LANGUAGES = {", 1)[1].split("};", 1)[0]
    offered = set(re.findall(r"^\s*([a-z]{2}):", block, re.MULTILINE))
    files = {path.stem for path in (CLIENT / "i18n").glob("*.json")}
    assert offered == files == set(LANGUAGES)


def test_corsican_is_not_italian_copied() -> None:
    # Corsican is close to Italian: short words may be the same (Partita, Lingua), sentences not
    italian = strings("it")
    same = [key for key, value in strings("co").items()
            if value == italian[key]
            and sum(c.isalpha() for c in re.sub(PLACEHOLDER, "", " ".join(forms(value)))) >= 14]
    assert same == []


def test_plural_forms_cover_the_language() -> None:
    # Intl.PluralRules categories for integers: Polish needs one/few/many
    for key, value in strings("pl").items():
        if isinstance(value, dict):
            assert {"one", "few", "many", "other"} <= set(value), key
    for lang in ("en", "it", "fr", "co"):
        for key, value in strings(lang).items():
            if isinstance(value, dict):
                assert {"one", "other"} <= set(value), f"{lang}:{key}"


def test_every_key_the_client_uses_exists() -> None:
    english = strings("en")
    used: set[str] = set()
    for path in CLIENT.rglob("*.js"):
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+\.[a-z0-9_]+)["']""", path.read_text()))
    html = (CLIENT / "index.html").read_text()
    used |= set(re.findall(r'data-i18n(?:-label|-title|-placeholder)?="([^"]+)"', html))
    assert used, "no keys found"
    assert sorted(used - set(english)) == []
