"""``tabletop verify`` (issue 33, docs/fair-play.md): a finished game's public record proves its deal.

Games are played through the real service (people playing random legal actions, one conceding), with
server seeds; the verifier reads them without credentials, passes, and fails on
a record with one action altered, a hidden draw altered, a wrong seed, or a commitment that does not match.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from tabletop.v1 import bang_pb2, game_pb2
from tabletop.v1 import game_service_pb2 as svc

from tabletop_server.service.api.verify import PublicRecord, VerificationFailed, verify
from tabletop_server.service.api.verify_command import fetch
from tabletop_server.service.cli import main
from tabletop_server.service.engine.commitment import commitment
from tabletop_server.service.engine.replay import replay
from tabletop_server.service.games import ttr_europe as ttr
from tabletop_server.service.store import keys
from tests.conftest import GrpcServer
from tests.helpers import bearer, create_game, play

DC, AD = bang_pb2.BANG_EXPANSION_DODGE_CITY, bang_pb2.BANG_EXPANSION_ARMED_AND_DANGEROUS
GAMES = {
    "ttr-europe": ("ttr-europe", 3, None),
    "bang": ("bang", 5, game_pb2.GameOptions(bang=bang_pb2.BangOptions())),
    "dodge-city": ("bang", 6, game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[DC]))),
    "armed-and-dangerous": ("bang", 4, game_pb2.GameOptions(bang=bang_pb2.BangOptions(expansions=[AD]))),
}


@pytest.fixture(scope="module")
def finished(stub) -> Iterator[dict[str, str]]:  # type: ignore[no-untyped-def]
    """Finished games by kind, played by people choosing random legal actions (no bots: the deadline
    index of a shared test Redis is swept by every server on it), one of them conceding."""
    names = {}
    for index, (kind, (ruleset, seats, options)) in enumerate(GAMES.items()):
        game, tokens = create_game(stub, ruleset, seats, seed=None, **({"options": options} if options else {}))
        play(stub, game.name, tokens, 3000, random.Random(index))
        names[kind] = game.name
    game, tokens = create_game(stub, "ttr-europe", 3, seed=None)
    play(stub, game.name, tokens, 30, random.Random(5))
    stub.ConcedeGame(svc.ConcedeGameRequest(name=game.name), metadata=bearer(tokens[2]))
    play(stub, game.name, {s: t for s, t in tokens.items() if s != 2}, 3000, random.Random(6))
    names["ttr-europe-conceded"] = game.name
    for name in names.values():
        assert stub.GetGame(svc.GetGameRequest(name=name)).game.status == game_pb2.GAME_STATUS_FINISHED
    yield names


@pytest.fixture(scope="module")
def records(finished: dict[str, str], channel: grpc.Channel) -> dict[str, PublicRecord]:
    return {kind: fetch(channel, name) for kind, name in finished.items()}


@pytest.mark.parametrize("kind", [*GAMES, "ttr-europe-conceded"])
def test_a_finished_game_played_through_the_service_verifies(kind: str, records: dict[str, PublicRecord]) -> None:
    record = records[kind]
    assert record.game.seed_source == game_pb2.SEED_SOURCE_SERVER and len(record.seed_hex) == 64
    done = verify(record)
    assert done.actions > 20 and done.events > done.actions and done.rules_version == record.game.rules_version
    assert done.rules_version in ("ttr-europe/2005-official.2", "bang-base-2", "bang-ad-3")


def test_the_command_verifies_from_the_server_and_from_a_saved_file(finished: dict[str, str], grpc_server: GrpcServer,
                                                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "record.json"
    assert main(["verify", finished["armed-and-dangerous"], "--target", grpc_server.target, "--save", str(saved)]) == 0
    assert main(["verify", "--file", str(saved)]) == 0
    assert capsys.readouterr().out.count("VERIFIED games/") == 2
    saved.write_text(saved.read_text().replace('"seedSalt": "', '"seedSalt": "0', 1)[:-1] + "\n}")
    assert main(["verify", "--file", str(saved)]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out
    assert main(["verify", "games/doesnotexist", "--target", grpc_server.target]) == 2


def test_an_unfinished_game_reveals_nothing_to_check(stub, channel: grpc.Channel) -> None:  # type: ignore[no-untyped-def]
    game, _ = create_game(stub, "ttr-europe", 2, seed=None)
    record = fetch(channel, game.name)
    assert not record.seed_hex and len(record.game.seed_commitment) == 64
    with pytest.raises(VerificationFailed, match="not finished"):
        verify(record)


@pytest.mark.parametrize("kind", ["ttr-europe", "bang"])
def test_one_altered_action_fails(kind: str, records: dict[str, PublicRecord]) -> None:
    record = copy.deepcopy(records[kind])
    acted = [e for e in record.entries if e.HasField("action")]
    # One action replaced by another action the same seat took later (a legal shape, another choice).
    index = next(i for i, e in enumerate(acted[:-1]) if any(
        f.seat == e.seat and f.action != e.action for f in acted[i + 1:]))
    later = next(f for f in acted[index + 1:] if f.seat == acted[index].seat and f.action != acted[index].action)
    acted[index].action.CopyFrom(later.action)
    with pytest.raises(VerificationFailed, match="Version"):
        verify(record)


def test_one_altered_hidden_draw_fails(records: dict[str, PublicRecord]) -> None:
    record = copy.deepcopy(records["ttr-europe"])
    blind = next(ev.ttr_europe.train_card_drawn for e in record.entries for ev in e.events
                 if ev.ttr_europe.HasField("train_card_drawn") and not ev.ttr_europe.train_card_drawn.HasField("face_up_slot"))
    blind.color = blind.color % 8 + 1  # another colour, shown to everyone once the game is over
    with pytest.raises(VerificationFailed, match="a draw, a deal or a result differs"):
        verify(record)


def test_a_wrong_seed_fails_even_with_a_commitment_made_for_it(records: dict[str, PublicRecord]) -> None:
    record = copy.deepcopy(records["bang"])
    record.seed_hex = format(int(record.seed_hex, 16) ^ 1, "064x")
    with pytest.raises(VerificationFailed, match="do not match the commitment"):
        verify(record)
    game = record.game  # a forger who also rewrote the published commitment: the deal gives him away
    game.seed_commitment = commitment(game.ruleset, game.rules_version, game.name, record.seed_hex, record.salt)
    with pytest.raises(VerificationFailed, match="Version 1:"):
        verify(record)


def test_a_commitment_that_does_not_match_fails(records: dict[str, PublicRecord]) -> None:
    for field, value in (("seed_commitment", "0" * 64), ("rules_version", "bang-base-1"), ("name", "games/other")):
        record = copy.deepcopy(records["bang"])
        setattr(record.game, field, value)
        with pytest.raises(VerificationFailed, match="do not match the commitment"):
            verify(record)
    record = copy.deepcopy(records["bang"])
    record.salt = "1" * 64
    with pytest.raises(VerificationFailed, match="do not match the commitment"):
        verify(record)


def test_a_game_stored_before_the_new_deal_plays_on_with_splitmix64(stub, channel: grpc.Channel,  # type: ignore[no-untyped-def]
                                                                    redis_url: str) -> None:
    """A game as the release before issue 33 stored it (an integer seed and SplitMix64 state, no
    commitment): it is served and played on exactly as then, replays from its seed, and cannot be verified."""
    legacy = "ttr-europe/2005-official.1"
    game, tokens = create_game(stub, "ttr-europe", 2, seed=5)
    client = redis.Redis.from_url(redis_url)
    key = keys.game(game.name.split("/")[1])
    doc = json.loads(client.hget(key, "doc"))
    for field in ("salt", "commitment", "rules_version", "seed_source"):
        del doc[field]
    doc.update(seed=5, seed_chosen=False, state=ttr.setup(doc["options"], 2, 5, legacy))
    client.hset(key, "doc", json.dumps(doc))
    shown = stub.GetGame(svc.GetGameRequest(name=game.name)).game
    assert (shown.rules_version, shown.seed_commitment, shown.seed_source) == (legacy, "", game_pb2.SEED_SOURCE_SERVER)
    play(stub, game.name, tokens, 3000, random.Random(3))
    stored = json.loads(client.hget(key, "doc"))
    assert stored["status"] == "FINISHED" and isinstance(stored["state"]["rng"], int)
    record = fetch(channel, game.name)
    pages = stub.GetGameLog(svc.GetGameLogRequest(name=game.name, page_size=1))
    assert pages.seed == 5 and record.seed_hex == format(5, "064x") and record.salt == ""
    actions = [(e.seat, ttr.decode_action(e.action.ttr_europe)) for e in record.entries if e.HasField("action")]
    assert replay(ttr, doc["options"], 2, 5, actions, legacy) == stored["state"]
    with pytest.raises(VerificationFailed, match="before commitments"):
        verify(record)
    client.close()
