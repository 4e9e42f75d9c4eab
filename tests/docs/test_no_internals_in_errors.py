"""No error text names the server's internals: a file, a module or a data path (issue 26).

A client once read ``route_id is 1 to 101 (service/games/ttr_europe/data/europe.json)``. Every
hint of the contract's field rules, and every message the server raises for a client, says what
to do in the API's own terms.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from google.protobuf import descriptor_pool
from tabletop.v1 import game_service_pb2  # noqa: F401 - loads every tabletop.v1 file into the pool

from tabletop_server.service.api.field_rules import rules_option

ROOT = Path(__file__).resolve().parents[2]
INTERNAL = re.compile(r"\b(?:service|rest|src|tests|scripts|shared)/|\w\.(?:py|json|yaml|lua)\b|\bdata/")
# Raised for the operator at start-up (a broken data file), never for a client.
OPERATOR_ONLY = {"DataError", "SystemExit", "ValueError", "RuntimeError", "TypeError", "KeyError", "AssertionError"}


def _messages(file: object) -> list[object]:
    found: list[object] = []
    pending = list(file.message_types_by_name.values())  # type: ignore[attr-defined]
    while pending:
        message = pending.pop()
        found.append(message)
        pending.extend(message.nested_types)  # type: ignore[attr-defined]
    return found


def test_no_field_rule_hint_names_a_server_file() -> None:
    pool = descriptor_pool.Default()
    files = [pool.FindFileByName(f"tabletop/v1/{p.name}") for p in (ROOT / "protos/tabletop/v1").glob("*.proto")]
    hints = [(message.full_name, field.name, option.hint)  # type: ignore[attr-defined]
             for file in files for message in _messages(file) for field in message.fields  # type: ignore[attr-defined]
             if (option := rules_option(field)) is not None and option.hint]
    assert len(hints) > 20
    assert [h for h in hints if INTERNAL.search(h[2])] == []


def _raised_texts(path: Path) -> list[tuple[int, str]]:
    texts = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
            continue
        func = node.exc.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in OPERATOR_ONLY:
            continue
        for part in ast.walk(node.exc):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                texts.append((node.lineno, part.value))
    return texts


def test_no_error_a_client_receives_names_a_server_file() -> None:
    sources = [p for folder in ("service", "rest") for p in (ROOT / folder).rglob("*.py")]
    found = [(str(p.relative_to(ROOT)), line, text) for p in sources for line, text in _raised_texts(p)
             if INTERNAL.search(text)]
    assert found == []


def test_the_scan_would_catch_one() -> None:
    assert INTERNAL.search("route_id is 1 to 101 (service/games/ttr_europe/data/europe.json).")
    assert not INTERNAL.search("route_id is 1 to 101: GetRuleset(\"rulesets/ttr-europe\") lists every route.")
