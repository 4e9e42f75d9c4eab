"""The BANG! golden corpus (issue 30, ``scripts/golden_corpus.py``): every stored game replays byte for byte.

The replay of the whole corpus is slow (a tier of its own); the fast tests show that the check names the game
and step of a difference in the dealt state, an action, a payload, or a refused action.
"""

from __future__ import annotations

import copy
import lzma
from typing import Any

import pytest

from scripts import golden_corpus as corpus
from tabletop_server.service.games import bang

# Each table replays in PARTS tests side by side (games part, part + PARTS, ...): one table is minutes of CPU.
PARTS = 4
DIGESTS = 1_000  # games per table kept as digests
# The stored games read by the views test: up to the first with Kit Carlson's three cards offered.
GAMES_WITH_AN_OFFER = {"base": 8, "dc": 8, "ad": 13, "both": 7}


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("table", sorted(corpus.TABLES))
def test_every_stored_game_replays_identically(table: str, part: int) -> None:
    count, differences = corpus.check(table, part=part, parts=PARTS)
    assert count >= 250 // PARTS, f"{table}: only {count} games stored in part {part}"
    assert differences == [], "\n".join(differences[:20])


@pytest.mark.slow
@pytest.mark.rule("AD-009", "AD-011", "AD-067")
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("table", sorted(corpus.FROZEN))
def test_games_recorded_before_issue_32_replay_identically(table: str, part: int) -> None:
    """bang-ad-1 games recorded by the code before issue 32 (commit 631f2bf): every state, event, view and
    legal-action list is what that code made, so the first readings are kept exactly."""
    assert all(game["state"]["v"] == "bang-ad-1" for _, game in zip(range(5), corpus.stored(table)))
    count, differences = corpus.check(table, part=part, parts=PARTS)
    assert count >= 100 // PARTS, f"{table}: only {count} games stored in part {part}"
    assert differences == [], "\n".join(differences[:20])


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("table", sorted(corpus.TABLES))
def test_every_digested_game_plays_identically(table: str, part: int) -> None:
    """1,000 games per table, kept as digests (the issue's figure; ``scripts/golden_corpus.py``): each is
    played again from its seed by the same bots, and its last link is the one recorded before issue 30's rework."""
    count, differences = corpus.check_digests(table, part=part, parts=PARTS)
    assert count >= DIGESTS // PARTS, f"{table}: only {count} digests stored in part {part}"
    assert differences == [], "\n".join(differences[:20])


@pytest.mark.parametrize("table", sorted(corpus.TABLES))
def test_the_digests_hold_a_thousand_games_of_each_table(table: str) -> None:
    lines = corpus.stored_digests(table)
    assert [int(line.split()[0]) for line in lines] == list(range(DIGESTS))
    assert {int(line.split()[1]) for line in lines} == set(corpus.TABLES[table].seats)


def test_a_digested_game_that_plays_differently_is_named(tmp_path: Any) -> None:
    line = corpus.stored_digests("dc")[1]
    game, seats, actions, last = line.split()
    path = corpus.digests_path("dc", tmp_path)
    with lzma.open(path, "wt", encoding="ascii") as out:
        out.write(f"{game} {seats} {int(actions) + 1} {last}\n")
    count, differences = corpus.check_digests("dc", tmp_path)
    assert count == 1 and differences == [f"dc game 1: stored '{game} {seats} {int(actions) + 1} {last}', played {line!r}"]


def first(table: str) -> dict[str, Any]:
    return next(corpus.stored(table))


@pytest.mark.parametrize("table", sorted(corpus.TABLES))
def test_the_corpus_holds_each_table_with_its_seat_counts(table: str) -> None:
    games = corpus.stored(table)
    seen = {g["seats"] for _, g in zip(range(12), games)}
    assert seen == set(corpus.TABLES[table].seats)
    game = first(table)
    assert game["options"] == corpus.TABLES[table].options() and game["actions"]
    assert bang.is_over(_replayed(game))  # recorded to the end
    assert corpus.replay_game(game) is None


def _replayed(game: dict[str, Any]) -> Any:
    state = copy.deepcopy(game["state"])
    for seat, action in game["actions"]:
        bang.apply(state, seat, action)
    return state


def test_a_changed_dealt_state_is_named_as_step_0() -> None:
    game = first("both")
    game["state"]["deck"].reverse()
    assert corpus.replay_game(game) == f"game 0 ({game['seats']} seats): step 0 (the dealt state) differs"


def test_a_changed_payload_is_named_at_its_step() -> None:
    """A link that no longer matches stands for any payload of that step rendered differently."""
    game = first("ad")
    links = bytearray.fromhex(game["links"])
    links[7 * corpus.LINK_BYTES] ^= 0xFF
    game["links"] = links.hex()
    seat, action = game["actions"][6]
    assert corpus.replay_game(game) == f"game 0 ({game['seats']} seats): step 7 (seat {seat} {action}) differs"


def test_a_different_action_is_named_at_its_step_whether_it_plays_or_is_refused() -> None:
    game = first("dc")
    state = copy.deepcopy(game["state"])
    for step, (seat, action) in enumerate(game["actions"], start=1):
        others = [a for a in bang.legal_actions(state, seat) if a != action]
        if others:
            break
        bang.apply(state, seat, action)
    changed = copy.deepcopy(game)
    changed["actions"][step - 1] = [seat, others[0]]
    assert corpus.replay_game(changed) == f"game 0 ({game['seats']} seats): step {step} (seat {seat} {others[0]}) differs"
    refused = copy.deepcopy(game)
    refused["actions"][step - 1] = [seat, {"type": "no_such_action"}]
    found = corpus.replay_game(refused)
    assert found is not None and found.startswith(f"game 0 ({game['seats']} seats): step {step} ") and "raised" in found


def test_the_last_digest_is_checked() -> None:
    game = first("base")
    game["last"] = "00" * 32
    assert corpus.replay_game(game) == f"game 0 ({game['seats']} seats): the last digest differs"



@pytest.mark.parametrize("table", sorted(corpus.TABLES))
def test_the_views_of_a_step_are_each_seats_own_view(table: str) -> None:
    """``bang.views`` (one public part, a copy per viewer: what the corpus checks) gives each viewer the bytes
    ``bang.view`` gives him alone, at every step of stored games, Kit Carlson's private offer included."""
    offers = 0
    for _, game in zip(range(GAMES_WITH_AN_OFFER[table]), corpus.stored(table)):
        state = copy.deepcopy(game["state"])
        viewers = [*range(game["seats"]), None]
        for step in range(len(game["actions"]) + 1):
            if step:
                bang.apply(state, *game["actions"][step - 1])
            assert [seen.SerializeToString(deterministic=True) for seen in bang.views(state, viewers)] == [
                bang.view(state, v).SerializeToString(deterministic=True) for v in viewers], f"step {step}"
            offers += any(r["kind"] == "kit_carlson" for r in state["pending"])
    assert offers, "no private offer seen: the test reads too few games"
