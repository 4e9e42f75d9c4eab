"""docs/errors.md lists every reason a client can receive, and is up to date."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from tabletop_server.rest.errors import Reason as RestReason
from tabletop_server.service.api.errors import ServiceReason
from tabletop_server.service.engine.errors import EngineReason
from tabletop_server.service.games.bang.reasons import Reason as BangReason
from tabletop_server.service.games.ttr_europe.reasons import TtrReason

ROOT = Path(__file__).resolve().parents[2]
RAISES = re.compile(r"\b(?:RuleError|MalformedAction|ServiceError|InvalidArgument|NotFound|Unauthenticated|"
                    r"PermissionDenied|FailedPrecondition|Aborted|ResourceExhausted|Unavailable)\(\s*\"([A-Z_]+)\"")


def test_errors_doc_is_generated_from_the_enums() -> None:
    spec = importlib.util.spec_from_file_location("gen_error_docs", ROOT / "scripts" / "gen_error_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    before = (ROOT / "docs" / "errors.md").read_text()
    spec.loader.exec_module(module)
    assert module.render() == before, "docs/errors.md is stale: run scripts/gen_error_docs.py"
    for enum in (ServiceReason, EngineReason, TtrReason, BangReason, RestReason):
        for member in enum:
            assert f"`{member.value}`" in before


def test_every_reason_raised_as_a_literal_is_a_documented_enum_member() -> None:
    known = {m.value for e in (ServiceReason, EngineReason, TtrReason, BangReason) for m in e}
    literals = {(str(p.relative_to(ROOT)), r) for p in (ROOT / "service").rglob("*.py")
                for r in RAISES.findall(p.read_text())}
    assert not {x for x in literals if x[1] not in known}


def test_the_literal_scan_finds_literals() -> None:
    assert RAISES.findall('raise NotFound("GAME_NOT_FOUND", "no")') == ["GAME_NOT_FOUND"]
