"""The core fails closed: what the projection or the codec does not know raises.

An event kind without a visibility rule is never shown to every seat by default, an
unknown action type never encodes as a discard, and unknown event or request kinds never
encode as UNSPECIFIED: each raises, so a new event carrying a hidden card cannot leak.
"""

from __future__ import annotations

import pytest
from bang_helpers import give, table

from tabletop_server.service.games import bang
from tabletop_server.service.games.bang.codec import EVENT_PB
from tabletop_server.service.games.bang.view import VISIBILITY


def test_an_event_kind_without_a_visibility_rule_raises_in_the_projection() -> None:
    st = table(4)
    secret = give(st, 0, ["missed"])[0]
    for seat in (None, 0, 1):
        with pytest.raises(ValueError, match="peek"):
            bang.project({"kind": "peek", "seat": 0, "cards": [secret]}, seat)
    with pytest.raises(ValueError, match="peek"):
        bang.project({"kind": "peek", "seat": 0}, 1)


def test_every_event_kind_the_codec_knows_has_a_visibility_rule() -> None:
    assert set(VISIBILITY) == set(EVENT_PB)


def test_an_unknown_action_type_does_not_encode_as_a_discard() -> None:
    with pytest.raises(ValueError, match="teleport"):
        bang.encode_action({"type": "teleport", "card": "base.bang.2c"})
    assert bang.encode_action({"type": "discard", "card": "base.bang.2c"}).WhichOneof("kind") == "discard"


def test_an_unknown_event_kind_does_not_encode_as_unspecified() -> None:
    with pytest.raises(ValueError, match="peek"):
        bang.encode_event({"kind": "peek", "seat": 0, "cards": []})


def test_an_unknown_request_kind_does_not_show_as_unspecified() -> None:
    st = table(4)
    st["pending"].append({"kind": "mystery", "seat": 1, "source": 0, "args": {}})
    with pytest.raises(ValueError, match="mystery"):
        bang.view(st, 1)
