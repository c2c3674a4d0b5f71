"""The library face: the names ``gammon`` exports, its version, and the install extras (the
rules library and the engine install without the web stack; ``[dev]`` brings everything)."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import gammon
import gammon.cli.main as cli

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
WEB_STACK = {"fastapi", "starlette", "uvicorn", "websockets", "sqlalchemy", "alembic",
             "aiosqlite", "asyncpg", "redis", "pydantic", "pydantic-settings", "httpx",
             "orjson", "argon2-cffi", "itsdangerous", "python-dotenv"}


def requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert match is not None
    return match.group(0).lower().replace("_", "-")


def test_the_common_names_come_from_the_package() -> None:
    from gammon import Engine, Match, Play, Position, Roll, legal_plays
    from gammon.core.match import Match as CoreMatch
    from gammon.engine.player import Engine as EngineClass

    assert Match is CoreMatch and Engine is EngineClass
    plays = legal_plays(Position.initial(), Roll(3, 1))
    assert all(isinstance(play, Play) for play in plays)
    assert set(gammon.__all__) >= {"Engine", "Match", "Position", "Roll", "legal_plays"}
    with pytest.raises(AttributeError, match="no attribute 'Engin'"):
        _ = gammon.Engin  # type: ignore[attr-defined]


def test_importing_the_package_does_not_load_the_engine_or_the_web_stack() -> None:
    code = ("import sys, gammon; from gammon import Position, Match; "
            "print(sorted(m for m in ('gammon.engine.player', 'fastapi', 'sqlalchemy') "
            "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"


def test_the_version_is_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    assert gammon.__version__ == metadata.version("gammon") == PROJECT["version"]
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"gammon {PROJECT['version']}"


def test_the_base_install_has_no_web_stack_and_dev_has_every_extra() -> None:
    base = {requirement_name(r) for r in PROJECT["dependencies"]}
    assert base.isdisjoint(WEB_STACK)
    extras = PROJECT["optional-dependencies"]
    assert {"server", "postgres", "redis", "train", "dev"} <= set(extras)
    named = {requirement_name(r) for extra in ("server", "postgres", "redis")
             for r in extras[extra]}
    assert WEB_STACK - {"starlette"} <= named | {"gammon"}  # starlette comes with fastapi
    assert "gammon[server,postgres,redis,train]" in extras["dev"]


def test_a_command_missing_the_web_stack_names_the_extra(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def lacks_uvicorn(args: argparse.Namespace, out: io.StringIO, stdin: io.StringIO) -> int:
        raise ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")

    monkeypatch.setattr(cli, "cmd_bench", lacks_uvicorn)
    assert cli.main(["bench", "load"]) == 2
    assert "pip install 'gammon[server]'" in capsys.readouterr().err


def test_another_missing_module_is_not_blamed_on_the_extras(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def lacks_a_module(args: argparse.Namespace, out: io.StringIO, stdin: io.StringIO) -> int:
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    monkeypatch.setattr(cli, "cmd_bench", lacks_a_module)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["bench", "load"])


def test_bench_finds_the_checkouts_scripts_and_names_them_for_an_unknown_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.benchmarks_folder() == ROOT / "benchmarks"
    assert cli.main(["bench", "no-such-benchmark"]) == 2
    error = capsys.readouterr().err
    assert "no benchmark 'no-such-benchmark'" in error and "strength" in error
