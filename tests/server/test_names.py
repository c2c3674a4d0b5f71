"""Names in every script: registration and sign-in by name (NFC, any case), the names
refused and why, and the accounts named before names could be Unicode."""

from __future__ import annotations

import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from gammon.server.accounts import hasher
from gammon.server.app import create_app
from gammon.server.db import alembic_config, make_engine
from tests.server.conftest import STORES, Browser, make_settings, postgres_database, run_async

PASSWORD = "long-enough"


def register(browser: Browser, name: str) -> Any:
    return browser.post("/api/register", json={"name": name, "password": PASSWORD})


def login(browser: Browser, name: str) -> Any:
    return browser.post("/api/login", json={"name": name, "password": PASSWORD})


@pytest.mark.parametrize("name", ["Łukasz", "Ádám", "Hélène", "Niccolò", "Хельга", "李小龍"])
def test_a_name_in_any_script_registers_and_signs_in(
        clients: tuple[Browser, Browser], name: str) -> None:
    a, b = clients
    made = register(a, name)
    assert made.status_code == 201 and made.json()["user"]["name"] == name
    signed_in = login(b, name)
    assert signed_in.status_code == 200 and signed_in.json()["user"]["name"] == name
    assert b.get("/api/me").json()["user"]["name"] == name


def test_a_name_is_taken_in_any_case_and_normal_form(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    assert register(a, "Łukasz").status_code == 201
    taken = register(b, "łukasz")
    assert taken.status_code == 409 and taken.json()["detail"]["code"] == "name_taken"
    assert register(b, "ŁUKASZ").status_code == 409
    assert register(a, "Hélène").status_code == 201
    decomposed = unicodedata.normalize("NFD", "Hélène")
    assert decomposed != "Hélène"
    assert register(b, decomposed).status_code == 409
    found = login(b, decomposed)
    assert found.status_code == 200 and found.json()["user"]["name"] == "Hélène"
    assert login(b, "HÉLÈNE").json()["user"]["name"] == "Hélène"
    assert b.get("/api/users/h%C3%A9l%C3%A8ne/ratings").status_code == 200


@pytest.mark.parametrize(("name", "why"), [
    ("ann\u200dbel", "no spaces, control or invisible characters"),  # zero-width joiner
    ("ann\u0007bel", "no spaces, control or invisible characters"),
    ("ann bel", "no spaces, control or invisible characters"),
    ("p\u0430ul", "letters come from one script"),  # a Cyrillic а among Latin letters
    ("admin", "reserved"),
    ("Gammon", "reserved"),
    ("guest-1234", "reserved"),
    ("bot-3", "reserved"),
    ("ＡＮＮ", "not styled forms"),  # fullwidth
    ("ab", "3 to 20 characters"),
    ("1ann", "starting with a letter"),
    ("ann.bel", "letters, digits 0-9, '_' or '-'"),
])
def test_a_bad_name_is_refused_with_its_reason(
        clients: tuple[Browser, Browser], name: str, why: str) -> None:
    a, _ = clients
    refused = register(a, name)
    assert refused.status_code == 422
    assert refused.json()["detail"]["code"] == "bad_name"
    assert why in refused.json()["detail"]["message"]


def test_japanese_and_korean_names_may_mix_their_scripts(
        clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    assert register(a, "たなか太郎").status_code == 201  # hiragana with kanji
    assert register(b, "김민수").status_code == 201


@pytest.fixture(params=STORES)
def untouched_database(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A database nobody has migrated yet (not the emptied one the other tests share)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/names.db"
    else:
        with postgres_database() as url:
            yield url


USERS_AT_0004 = sa.table("users", *(sa.column(name) for name in (
    "name", "name_key", "password_hash", "kind", "rating", "experience", "options",
    "created_at")))
"""The users table as revision 0004 left it (later revisions add columns)."""


def test_accounts_named_before_unicode_names_still_sign_in(untouched_database: str) -> None:
    """Accounts stored at revision 0004 (key: the name lowercased) sign in after the
    upgrade: an ASCII name in any case, and a name an operator stored outside registration
    whose key the upgrade recomputes (its lowercase "straße" casefolds to "strasse")."""
    digest = hasher.hash(PASSWORD)

    async def at_revision_0004() -> None:
        engine = make_engine(untouched_database)

        def build(connection: sa.Connection) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")
            for name in ("Carol", "Straße"):
                connection.execute(USERS_AT_0004.insert().values(
                    name=name, name_key=name.lower(), password_hash=digest, kind="user",
                    rating=1500.0, experience=0, options="{}", created_at=time.time()))

        try:
            async with engine.begin() as conn:
                await conn.run_sync(build)
        finally:
            await engine.dispose()

    run_async(at_revision_0004)
    with TestClient(create_app(make_settings(untouched_database))) as client:  # upgrades
        browser = Browser(client)
        assert login(browser, "carol").json()["user"]["name"] == "Carol"
        assert login(browser, "CAROL").json()["user"]["name"] == "Carol"
        assert login(browser, "STRASSE").json()["user"]["name"] == "Straße"
        assert register(browser, "strasse").status_code == 409
