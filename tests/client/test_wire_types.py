"""The client's types of the wire (src/gammon/client/wire.d.ts) are what
scripts/make_wire_types.py writes from the server's JSON schemas now: a message, view or
request body whose shape changes without its types being made again fails here (and the
client's type check, tests/client/test_typecheck.py, reads the same file)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_wire_types", ROOT / "scripts" / "make_wire_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_wire_types_are_what_the_script_writes_from_the_schemas() -> None:
    script = _script()
    committed = script.OUT.read_text(encoding="utf-8")
    assert committed == script.render(), (
        "src/gammon/client/wire.d.ts is out of date: run "
        "PYTHONPATH=src python scripts/make_wire_types.py")


def test_every_server_message_and_view_the_client_reads_has_a_type() -> None:
    text = (ROOT / "src" / "gammon" / "client" / "wire.d.ts").read_text(encoding="utf-8")
    for name in ("ServerMessage", "ClientMessage", "EventView", "GameView", "InfoView",
                 "ClockView", "AnalysisView", "Responses", "Requests"):
        assert f"export type {name} =" in text or f"export interface {name} " in text, name
    assert "match_id: string | null;" in text.split("export interface GameView ")[1]


def test_a_type_declared_on_another_extends_its_interface_with_only_its_own_fields() -> None:
    text = (ROOT / "src" / "gammon" / "client" / "wire.d.ts").read_text(encoding="utf-8")
    assert "export interface ChoicesView {" in text
    assert "export interface InfoView extends ChoicesView {" in text
    created = text.split("export interface CreatedGame extends InfoView {")[1].split("}")[0]
    assert [line.strip() for line in created.strip().splitlines()] == ["invite: string;"]
