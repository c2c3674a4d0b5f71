"""The layers hold (pyproject.toml, ``[tool.importlinter]``; docs/architecture.md): a module
imports only from its own layer and those below — cli > server > views > engine > formats >
core — so no server module imports the command line, and the rules library, the engine and
the views load without the web stack.

Two checks of the same contracts: import-linter (every chain of imports, direct or not) and
a reading of every ``import`` statement in the source, which needs no tool."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = {c["id"]: c for c in CONFIG["tool"]["importlinter"]["contracts"]}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (line, name), at the top or inside a function,
    ``TYPE_CHECKING`` blocks included; relative imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def within(module: str, packages: list[str]) -> str | None:
    for package in packages:
        if module == package or module.startswith(package + "."):
            return package
    return None


MODULES = sorted((SOURCE / "gammon").rglob("*.py"))


def test_the_source_is_found() -> None:
    names = {module_name(p) for p in MODULES}
    assert {"gammon.views", "gammon.server.app", "gammon.cli.main", "gammon.core.game"} <= names


def test_every_import_goes_to_the_same_layer_or_one_below() -> None:
    layers: list[str] = CONTRACTS["layers"]["layers"]
    wrong = []
    for path in MODULES:
        importer = within(module_name(path), layers)
        if importer is None:
            continue
        for line, target in imports(path):
            imported = within(target, layers)
            if imported is not None and layers.index(imported) < layers.index(importer):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} "
                             f"({imported} is above {importer})")
    assert wrong == []


def test_no_server_module_imports_the_command_line() -> None:
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for path in MODULES if module_name(path).startswith("gammon.server")
             for line, target in imports(path) if within(target, ["gammon.cli"])]
    assert wrong == []


def test_the_library_and_the_views_import_no_web_stack() -> None:
    contract: dict[str, Any] = CONTRACTS["no-web-stack"]
    wrong = []
    for path in MODULES:
        if within(module_name(path), contract["source_modules"]) is None:
            continue
        for line, target in imports(path):
            if within(target, contract["forbidden_modules"]) is not None:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert wrong == []


def test_a_reversed_import_would_be_caught() -> None:
    """The reading sees an import of a higher layer, even one inside a function."""
    sample = SOURCE / "gammon" / "server" / "_layers_sample.py"
    sample.write_text("def f():\n    from gammon.cli.main import main\n", encoding="utf-8")
    try:
        found = imports(sample)
    finally:
        sample.unlink()
    assert (2, "gammon.cli.main") in found
    assert within("gammon.cli.main", CONTRACTS["layers"]["layers"]) == "gammon.cli"


def test_import_linter_keeps_every_contract() -> None:
    pytest.importorskip("importlinter")
    from importlinter.application.use_cases import lint_imports
    from importlinter.configuration import configure

    configure()
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) is True
