"""The layers hold (pyproject.toml, ``[tool.importlinter]``; docs/architecture.md): a module
imports only from its own layer and those below — cli > server | training > views > engine >
formats > core — so no server module imports the command line, the server and the training
pipeline import nothing of each other, the engine nothing of training, and the rules
library, the engine and the views load without the web stack. Inside the server, app >
routes > the services (accounts, lobby, play, the analysis worker) > hub > rooms; the rooms,
the hub and the services import nothing of HTTP, and the room state machine no event loop,
storage or bus.

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


def package_layers() -> dict[str, int]:
    """Each package of the layers contract and its level, top first; siblings written
    ``a | b`` share a level and may not import each other."""
    return {name.strip(): level
            for level, layer in enumerate(CONTRACTS["layers"]["layers"])
            for name in layer.split("|")}


def test_every_import_goes_to_the_same_layer_or_one_below() -> None:
    level = package_layers()
    wrong = []
    for path in MODULES:
        importer = within(module_name(path), list(level))
        if importer is None:
            continue
        for line, target in imports(path):
            imported = within(target, list(level))
            if imported is None or imported == importer:
                continue
            if level[imported] <= level[importer]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target} "
                             f"({imported} is not below {importer})")
    assert wrong == []


def test_no_server_module_imports_the_command_line() -> None:
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for path in MODULES if module_name(path).startswith("gammon.server")
             for line, target in imports(path) if within(target, ["gammon.cli"])]
    assert wrong == []


@pytest.mark.parametrize("contract_id", ["no-web-stack", "engine-without-training",
                                         "services-no-http", "rooms-pure",
                                         "tournament-rules-pure"])
def test_no_module_imports_what_a_forbidden_contract_forbids(contract_id: str) -> None:
    """The rules library, the engine and the views load without the web stack; the rooms,
    the hub and the server's services (the tournaments too) know nothing of HTTP; the room
    state machine and the tournaments' pairing rules import no event loop, storage or
    bus."""
    contract: dict[str, Any] = CONTRACTS[contract_id]
    wrong = []
    for path in MODULES:
        if within(module_name(path), contract["source_modules"]) is None:
            continue
        for line, target in imports(path):
            if within(target, contract["forbidden_modules"]) is not None:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert wrong == []


def server_layers() -> list[list[tuple[str, bool]]]:
    """The server's layers, top first: each a list of (module, independent) — siblings
    written ``a | b`` may not import each other, ``a : b`` may."""
    found = []
    for layer in CONTRACTS["server-layers"]["layers"]:
        independent = "|" in layer
        names = [n.strip() for n in layer.replace(":", "|").split("|")]
        found.append([(name, independent) for name in names])
    return found


def test_the_server_parts_import_only_the_parts_below_them() -> None:
    """app > routes > matchmaking | tournaments > accounts | lobby | play | analysis worker
    > hub > rooms: the hub knows nothing of play or the lobby, the services nothing of the
    routes (nor the tournaments of Play now), and the lobby and play nothing of each
    other."""
    layers = server_layers()
    level = {name: n for n, layer in enumerate(layers) for name, _ in layer}
    independent = {name for layer in layers for name, alone in layer if alone}
    wrong = []
    for path in MODULES:
        importer = within(module_name(path), list(level))
        if importer is None:
            continue
        for line, target in imports(path):
            imported = within(target, list(level))
            if imported is None or imported == importer:
                continue
            if level[imported] < level[importer] or (
                    level[imported] == level[importer] and importer in independent):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert wrong == []


def test_the_server_layers_name_modules_that_exist() -> None:
    names = {module_name(p) for p in MODULES}
    for layer in server_layers():
        for name, _ in layer:
            assert name in names, name


def test_a_reversed_import_would_be_caught() -> None:
    """The reading sees an import of a higher layer, even one inside a function."""
    sample = SOURCE / "gammon" / "server" / "_layers_sample.py"
    sample.write_text("def f():\n    from gammon.cli.main import main\n", encoding="utf-8")
    try:
        found = imports(sample)
    finally:
        sample.unlink()
    assert (2, "gammon.cli.main") in found
    assert within("gammon.cli.main", list(package_layers())) == "gammon.cli"


def test_import_linter_keeps_every_contract() -> None:
    pytest.importorskip("importlinter")
    from importlinter.application.use_cases import lint_imports
    from importlinter.configuration import configure

    configure()
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) is True
