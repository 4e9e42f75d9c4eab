"""The stored BANG! state and its types (``layout.py``, issue 30): the layout in ``state.py``'s docstring
lists exactly the typed keys, and stored games' states have exactly the keys the types allow.

The states checked are those of the golden corpus (``scripts/golden_corpus.py``): the first games of every
table replayed step by step, every key of the state, of each player, mark and pending entry.
"""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest

from scripts import golden_corpus as corpus
from tabletop_server.service.games import bang
from tabletop_server.service.games.bang import state as state_module
from tabletop_server.service.games.bang.actions import FIELDS
from tabletop_server.service.games.bang.layout import (
    Action,
    ActionType,
    Event,
    EventKind,
    GameState,
    Mark,
    PendingKind,
    PlayerData,
    RequestArgs,
    RequestEntry,
    RequestKindName,
    RequestOf,
    StepEntry,
    StepKindName,
    StepOf,
)
from tabletop_server.service.games.bang.pending import REQUESTS, STEPS
from tabletop_server.service.games.bang.view import VISIBILITY
from tests.typed_state import misfits_of, mypy_errors, typed_keys

GAMES_PER_TABLE = 3


def entries(union: Any) -> dict[str, tuple[Any, Any]]:
    """Each kind of a union of ``RequestOf``/``StepOf`` entries: its generic (``RequestOf``...) and its args type."""
    out: dict[str, tuple[Any, Any]] = {}
    for alias in typing.get_args(union):
        kinds, args = typing.get_args(alias)
        for kind in typing.get_args(kinds):
            assert kind not in out, f"{kind} has two entry types"
            out[kind] = (typing.get_origin(alias), args)
    return out


REQUEST_ENTRIES, STEP_ENTRIES = entries(RequestEntry), entries(StepEntry)


def misfits(state: dict[str, Any]) -> list[str]:
    """What of ``state`` the types do not allow."""
    out = misfits_of("state", state, GameState)
    for seat, p in enumerate(state["p"]):
        out += misfits_of(f"p[{seat}]", p, PlayerData)
    for card, mark in state.get("marks", {}).items():
        out += misfits_of(f"marks[{card}]", mark, Mark)
    for i, req in enumerate(state["pending"]):
        cls, kinds = (StepOf, StepKindName) if req["seat"] is None else (RequestOf, RequestKindName)
        out += misfits_of(f"pending[{i}]", req, cls)
        out += misfits_of(f"pending[{i}].args", req["args"], RequestArgs)
        own = {**REQUEST_ENTRIES, **STEP_ENTRIES}.get(req["kind"])
        if own is not None:  # its own kind's arguments (an untyped kind is named below)
            out += misfits_of(f"pending[{i}].args ({req['kind']})", req["args"], own[1])
        if "action" in req["args"]:
            out += misfits_of(f"pending[{i}].args.action", req["args"]["action"], Action)
        out += [] if req["kind"] in typing.get_args(kinds) else [f"pending[{i}]: untyped kind {req['kind']!r}"]
    if state["phase"] not in typing.get_args(typing.get_type_hints(GameState)["phase"]):
        out.append(f"phase {state['phase']!r}")
    return out


def test_the_pending_kinds_are_the_registered_ones() -> None:
    """The rules' own kinds (other tests register made-up ones, such as ``t_record``, in the same process):
    the requests a seat answers and the engine steps, each in its own ``Literal``."""
    def rules(registry: dict[str, Any]) -> set[str]:
        return {kind for kind, handler in registry.items() if type(handler).__module__.startswith("tabletop_server.service.")}
    assert set(typing.get_args(RequestKindName)) == rules(REQUESTS)
    assert set(typing.get_args(StepKindName)) == rules(STEPS)
    assert set(typing.get_args(PendingKind)) == rules(REQUESTS) | rules(STEPS)


def test_each_kind_has_one_entry_type_and_its_handler_takes_it() -> None:
    """Every request kind is in exactly one ``RequestOf`` member of ``RequestEntry`` (a step kind: ``StepOf`` of
    ``StepEntry``), and the handler registered for it is declared with that entry type (``RequestKind[...]``):
    mypy checks the handler's reads against the type it declares, this test that it declares its own kind's."""
    assert set(REQUEST_ENTRIES) == set(typing.get_args(RequestKindName))
    assert set(STEP_ENTRIES) == set(typing.get_args(StepKindName))
    assert {origin for origin, _ in REQUEST_ENTRIES.values()} == {RequestOf}
    assert {origin for origin, _ in STEP_ENTRIES.values()} == {StepOf}
    for registry, own in ((REQUESTS, REQUEST_ENTRIES), (STEPS, STEP_ENTRIES)):
        for kind, handler in registry.items():
            if kind not in own:
                continue  # a made-up kind of another test
            declared = [typing.get_args(base) for cls in type(handler).__mro__
                        for base in getattr(cls, "__orig_bases__", ()) if typing.get_args(base)]
            entry = next(args[0] for args in declared if not isinstance(args[0], typing.TypeVar))
            kinds, args = typing.get_args(entry)
            assert kind in typing.get_args(kinds) and args is own[kind][1], (kind, type(handler).__name__, entry)


def test_the_documented_layout_lists_exactly_the_typed_keys() -> None:
    doc = state_module.__doc__ or ""
    block = doc[doc.index("::"):doc.index("A request is")]
    quoted = set(re.findall(r'"([a-z_]+)"', block)) - {"draw", "play", "end", "over"}  # phases ("discard" is a key too)
    player = {k for k in typed_keys(PlayerData)[1]} | {"hand", "table"}
    typed = set(typed_keys(GameState)[1]) | player | set(typed_keys(Mark)[1])
    assert quoted == typed, (sorted(quoted - typed), sorted(typed - quoted))


def test_a_misspelt_or_missing_key_is_found() -> None:
    state = bang.setup({}, 4, 1)
    assert misfits(state) == []
    state["bangz"] = state.pop("bangs")
    state["p"][0]["lfe"] = 1
    assert misfits(state) == ["state: missing 'bangs'", "state: untyped key 'bangz'", "p[0]: untyped key 'lfe'"]


def test_a_key_of_another_kind_or_a_missing_one_is_found() -> None:
    """An argument some kind keeps, on an entry of a kind that does not keep it, is named; so is one missing."""
    state = bang.setup({}, 4, 1)
    state["pending"] = [{"kind": "duel", "seat": 1, "source": 0, "args": {"card": "x", "opp": 0, "need": 1}},
                        {"kind": "dying", "seat": 2, "source": 0, "args": {}}]
    assert misfits(state) == ["pending[0].args (duel): untyped key 'need'", "pending[1].args (dying): missing 'need'"]


@pytest.mark.parametrize("table", sorted([*corpus.TABLES, *corpus.FROZEN]))
def test_every_state_of_stored_games_fits_the_types(table: str) -> None:
    for _, game in zip(range(GAMES_PER_TABLE), corpus.stored(table)):
        state = game["state"]
        found = misfits(state)
        for seat, action in game["actions"]:
            found += misfits_of("action", action, Action)
            for event in bang.apply(state, seat, dict(action)):
                found += misfits_of(f"event {event['kind']}", event, Event)
                if event["kind"] not in typing.get_args(EventKind):
                    found.append(f"untyped event kind {event['kind']!r}")
            found += misfits(state)
        assert found == [], f"{table} game {game['game']}: {sorted(set(found))}"


# A rule written against the typed state, with one mistake per line mypy must name (line: what it says).
_RULE = '''from tabletop_server.service.games.bang.layout import Action, DuelRequest, Event, RequestEntry, State
from tabletop_server.service.games.bang.state import player, push


def rule(state: State, seat: int, action: Action, events: list[Event]) -> None:
    state["bangs"] += 1
    state["bangz"] += 1
    player(state, seat)["lfe"] -= 1
    push(state, "dyin", seat)
    push(state, "t_draw", seat)
    state["phase"] = "plya"
    player(state, seat)["life"] = "one"
    events.append({"kind": "damage", "seat": seat, "amout": 1})
    events.append({"kind": "damaeg", "seat": seat})
    played = action["crad"]
    push(state, "bang", seat, need=1, gott=0)
    state["pending"][-1]["args"]["ned"] = 1
    events.append({"kind": "heal", "seat": seat, "life": "full"})
    action["type"] = "plya"


def answer(state: State, req: DuelRequest, top: RequestEntry) -> int:
    need = req["args"]["need"]
    if top["kind"] == "bang":
        return top["args"]["opp"]
    return top["args"]["need"] + need
'''
_FOUND = {7: '"GameState" has no key "bangz"', 8: '"PlayerData" has no key "lfe"', 9: "No overload variant of \"push\"",
          10: "No overload variant of \"push\"", 11: 'has incompatible type "Literal[\'plya\']"',
          12: 'has incompatible type "str"', 13: 'Extra key "amout" for TypedDict "Event"', 14: 'TypedDict item "kind"',
          15: '"Action" has no key "crad"', 16: "No overload variant of \"push\"", 17: 'has no key "ned"',
          18: 'TypedDict item "life" has type "int"', 19: 'Value of "type" has incompatible type',
          23: '"DuelArgs" has no key "need"', 25: '"ShotArgs" has no key "opp"', 26: 'has no key "need"'}


@pytest.mark.slow
def test_mypy_strict_names_a_misspelt_key_kind_or_value(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The typed state catches what the JSON alone cannot: a misspelt state or player key, a request kind
    that is none (or an engine step pushed for a seat), a phase that is none, a value of the wrong type; and
    so do the typed actions, events and request arguments: a misspelt field, a kind or type that is none; and
    a request's argument read on a kind that does not keep it (a handler's own kind, or one narrowed by ``kind``,
    or any kind before narrowing)."""
    by_line, out = mypy_errors(_RULE, tmp_path, monkeypatch)
    assert set(by_line) == set(_FOUND), out
    for number, text in _FOUND.items():
        assert text in by_line[number], by_line[number]


def test_the_typed_action_types_and_event_kinds_are_the_rules_own() -> None:
    """The ``Literal``s name exactly the action types ``actions.FIELDS`` checks and the event kinds the view
    has a visibility rule for (so the codec sends each); an action's typed fields are those some type takes."""
    assert set(typing.get_args(ActionType)) == set(FIELDS)
    assert set(typing.get_args(EventKind)) == set(VISIBILITY)
    assert set().union(*FIELDS.values()) | {"type"} <= set(typed_keys(Action)[1])
