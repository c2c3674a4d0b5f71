"""Write the browser client's types of the wire, src/gammon/client/wire.d.ts, from the
server's JSON schemas.

Regenerate (from the repository root) after changing a message, a view or a request body::

    PYTHONPATH=src python scripts/make_wire_types.py

The types come from one JSON schema that pydantic makes of the server's own definitions:
every message the server sends on the socket (``gammon.server.protocol.ServerMessage``) and
every one a client may send (``ClientMessage``, as the server validates it), the HTTP
answers (``protocol.RESPONSES``), the request bodies and the match analysis
(``gammon.views.AnalysisView``). Each definition of the schema becomes a TypeScript
declaration; the client's modules name them in JSDoc (``import("./wire.js").GameView``),
and ``tsc`` checks the client against them (no build step: the browser never loads the
file). ``tests/client/test_wire_types.py`` fails when the committed file is not what this
script writes now, so a message whose shape changes without its types fails the tests.

``--check`` exits with status 1, writing nothing, when the file is out of date.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from typing_extensions import TypedDict, is_typeddict

from gammon import views
from gammon.server import protocol

OUT = Path(__file__).resolve().parents[1] / "src" / "gammon" / "client" / "wire.d.ts"

HEADER = """\
// The wire's types: every message, view and HTTP body the server and the browser client
// exchange (PROTOCOL.md). GENERATED from the server's JSON schemas (gammon.server.protocol,
// gammon.views) by
//     PYTHONPATH=src python scripts/make_wire_types.py
// Do not edit: tests/client/test_wire_types.py fails when this file differs from what the
// script writes. The client's modules name these types in JSDoc; the browser never loads
// this file.
"""

REQUESTS: dict[str, Any] = {
    "credentials": protocol.Credentials, "options": protocol.Options,
    "new_game": protocol.NewGame, "join": protocol.Join, "new_token": protocol.NewToken,
    "hint": protocol.HintRequest, "eval": protocol.EvalRequest,
    "puzzle_answer": protocol.PuzzleAnswer, "new_tournament": protocol.NewTournament,
    "tournament_entry": protocol.TournamentEntry,
}
"""The HTTP request bodies a client sends, by the name ``Requests`` gives them."""


TYPED_DICTS: dict[str, Any] = {
    name: value
    for module in (views, protocol)
    for name, value in vars(module).items()
    if is_typeddict(value) and value.__name__ == name
}
"""The server's TypedDicts by name, as the schema names its definitions."""


def typeddict_bases(name: str) -> list[Any]:
    """The TypedDicts the wire type ``name`` is declared on (none for a model or a union)."""
    definition = TYPED_DICTS.get(name)
    return [base for base in getattr(definition, "__orig_bases__", ()) if is_typeddict(base)]


def wire_schema() -> dict[str, Any]:
    """One JSON schema of everything on the wire: a pydantic schema of an object whose
    fields are the two directions of the socket, the HTTP answers and the request bodies
    (its definitions shared, so each type has one name). The TypedDicts that wire types
    are declared on are definitions too, so that those types can extend them."""
    fields: dict[str, Any] = {
        "server_message": protocol.ServerMessage, "client_message": protocol.ClientMessage,
        "event": views.EventView, "analysis": views.AnalysisView,
        **{f"response_{kind}": kind_type for kind, kind_type in protocol.RESPONSES.items()},
        **{f"request_{kind}": model for kind, model in REQUESTS.items()},
    }
    while True:
        schema = _schema(fields)
        missing = {base.__name__: base for name in schema["$defs"]
                   for base in typeddict_bases(name) if base.__name__ not in schema["$defs"]}
        if not missing:
            return schema
        fields |= {f"base_{name}": base for name, base in missing.items()}


def _schema(fields: dict[str, Any]) -> dict[str, Any]:
    wire = TypedDict("Wire", fields)  # type: ignore[misc]  # the fields are made here
    # validation mode: the client messages as the server reads them (``from``, not ``from_``)
    schema: dict[str, Any] = TypeAdapter(wire).json_schema(mode="validation")
    return schema


_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def type_of(schema: dict[str, Any], indent: str = "") -> str:
    """The TypeScript type of a JSON schema (the subset pydantic writes)."""
    if "$ref" in schema:
        return _ref_name(schema["$ref"])
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union([type_of(member, indent) for member in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([type_of({**schema, "type": one}, indent) for one in kind])
    if kind in ("integer", "number"):
        return "number"
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(type_of(item, indent) for item in schema["prefixItems"]) + "]"
        item = type_of(schema.get("items", {}), indent)
        return f"({item})[]" if " | " in item else f"{item}[]"
    if kind == "object":
        return _object(schema, indent)
    if not schema:
        return "unknown"
    raise ValueError(f"no TypeScript type for the schema {schema!r}")


def _union(members: list[str]) -> str:
    unique = list(dict.fromkeys(members))
    return " | ".join(unique)


def _object(schema: dict[str, Any], indent: str) -> str:
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    if not properties:
        if isinstance(extra, dict):
            return f"{{ [key: string]: {type_of(extra, indent)} }}"
        return "Record<string, unknown>" if extra is not False else "Record<string, never>"
    return _members(properties, set(schema.get("required", ())), indent)


def _members(properties: dict[str, Any], required: set[str], indent: str) -> str:
    """The body ``{ ... }`` of an object type: one line per property, its doc above it."""
    inner = indent + "  "
    lines = ["{"]
    for name, field in properties.items():
        key = name if _IDENTIFIER.match(name) else json.dumps(name)
        optional = "" if name in required else "?"
        description = field.get("description")
        if description:
            lines.append(_comment(description, inner))
        lines.append(f"{inner}{key}{optional}: {type_of(field, inner)};")
    lines.append(indent + "}")
    return "\n".join(lines)


def _comment(text: str, indent: str) -> str:
    body = [line.rstrip() for line in text.replace("*/", "*\\/").strip().splitlines()]
    if len(body) == 1:
        return f"{indent}/** {body[0]} */"
    return "\n".join([f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in body),
                      f"{indent} */"])


def declaration(name: str, schema: dict[str, Any],
                definitions: dict[str, Any] | None = None) -> str:
    """``export interface`` for an object with properties, ``export type`` otherwise.

    A TypedDict declared on others (``class InfoView(ChoicesView)``) extends their
    interfaces in ``definitions`` and lists only its own properties, when it inherits
    theirs unchanged."""
    doc = _comment(schema["description"], "") + "\n" if schema.get("description") else ""
    if schema.get("type") == "object" and schema.get("properties"):
        bases = [base.__name__ for base in typeddict_bases(name)]
        own = _own_properties(schema, [(definitions or {}).get(base) for base in bases])
        if bases and own is not None:
            body = _members(own, set(schema.get("required", ())), "")
            return f"{doc}export interface {name} extends {', '.join(bases)} {body}\n"
        return f"{doc}export interface {name} {_object(schema, '')}\n"
    return f"{doc}export type {name} = {type_of(schema)};\n"


def _own_properties(schema: dict[str, Any],
                    bases: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The properties of ``schema`` that none of ``bases`` has; None when a base is not a
    definition or a property of one is not inherited as it is (another type, optional)."""
    properties: dict[str, Any] = dict(schema["properties"])
    required = set(schema.get("required", ()))
    for base in bases:
        if base is None:
            return None
        for name, field in base.get("properties", {}).items():
            inherited = properties.pop(name, None)
            if inherited is None or type_of(inherited) != type_of(field) \
                    or (name in required) != (name in base.get("required", ())):
                return None
    return properties


def _pascal(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


def render() -> str:
    """The text of wire.d.ts."""
    schema = wire_schema()
    top = schema["properties"]
    parts = [HEADER]
    parts.append(declaration("ServerMessage", {
        **top["server_message"],
        "description": "Every message the server sends on the socket (its `type` tells which)."}))
    parts.append(declaration("ClientMessage", {
        **top["client_message"],
        "description": "Every message a client may send on the socket."}))
    parts.append(declaration("EventView", {
        **top["event"], "description": "Every event of an `update`, with `v`, its number in "
                                       "the match's event log."}))
    responses = {kind: top[f"response_{kind}"] for kind in protocol.RESPONSES}
    parts.append(declaration("Responses", {
        "type": "object", "properties": responses, "required": list(responses),
        "description": "The answer of each kind of HTTP request (PROTOCOL.md)."}))
    requests = {kind: top[f"request_{kind}"] for kind in REQUESTS}
    parts.append(declaration("Requests", {
        "type": "object", "properties": requests, "required": list(requests),
        "description": "The body of each kind of HTTP request a client sends."}))
    parts.append(declaration("AnalysisView", top["analysis"])
                 if "$ref" not in top["analysis"] else "")
    for name, definition in sorted(schema["$defs"].items()):
        parts.append(declaration(name, definition, schema["$defs"]))
    return "\n".join(part for part in parts if part)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the file is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is out of date: run PYTHONPATH=src python "
                  "scripts/make_wire_types.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
