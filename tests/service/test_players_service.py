"""Players across games over real gRPC (issue 27): sessions, seats bound to players, invitations, attacks.

One server trusts a studio (its JWKS served over HTTP on loopback), issues sessions with an Ed25519
key, needs an API key for CreateGame and CreatePlayerSession, and offers guest sessions.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tabletop.v1 import game_service_pb2 as svc
from tabletop.v1 import game_service_pb2_grpc, player_pb2

from tabletop_server.service.api import players
from tests.conftest import start_grpc
from tests.helpers import bearer, deciding_seat, error_info
from tests.jwks import Studio, session_key_pem

API_KEY = "studio-backend-key"


@pytest.fixture(scope="module")
def studio() -> Iterator[tuple[Studio, str]]:
    s = Studio()
    with s.serving() as url:
        yield s, url


@pytest.fixture(scope="module")
def stub(redis_url: str, studio: tuple[Studio, str],
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[game_service_pb2_grpc.GameServiceStub]:
    key = tmp_path_factory.mktemp("session") / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, jwt_issuers=studio[0].issuer_setting(studio[1]), session_key_file=str(key),
                        api_keys=API_KEY, guest_sessions=True)
    channel = grpc.insecure_channel(server.target)
    yield game_service_pb2_grpc.GameServiceStub(channel)
    channel.close()
    server.running.stop(0)


def _refusal(call: Any, *args: Any, **kwargs: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as err:
        call(*args, timeout=10, **kwargs)
    return err.value.code(), error_info(err.value).reason


def _session(stub: Any, player: str, name: str = "") -> player_pb2.PlayerSession:
    reply = stub.CreatePlayerSession(player_pb2.CreatePlayerSessionRequest(player_id=player, display_name=name),
                                     metadata=[("x-api-key", API_KEY)], timeout=10)
    return reply.session


def _create(stub: Any, token: str, timeout: float = 10, **kw: Any) -> svc.CreateGameResponse:
    request = svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, **kw)
    return stub.CreateGame(request, metadata=bearer(token), timeout=timeout)


def _join(stub: Any, name: str, token: str | None, display: str = "bo", timeout: float = 10,
          **kw: Any) -> svc.JoinGameResponse:
    return stub.JoinGame(svc.JoinGameRequest(name=name, display_name=display, **kw),
                         metadata=bearer(token) if token else None, timeout=timeout)


def test_sessions_need_the_studios_api_key(stub: Any) -> None:
    request = player_pb2.CreatePlayerSessionRequest(player_id="ann")
    assert _refusal(stub.CreatePlayerSession, request) == (grpc.StatusCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
    assert _refusal(stub.CreatePlayerSession, request, metadata=[("x-api-key", "guess")]) == (
        grpc.StatusCode.PERMISSION_DENIED, "API_KEY_INVALID")
    session = _session(stub, "ann", "Ann")
    assert (session.player_id, session.display_name) == ("ann", "Ann")
    assert session.expire_time.seconds - time.time() == pytest.approx(900, abs=5)
    assert _refusal(stub.CreatePlayerSession, player_pb2.CreatePlayerSessionRequest(player_id="guest:x"),
                    metadata=[("x-api-key", API_KEY)]) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID")


def test_a_refresh_token_renews_the_session_once(stub: Any) -> None:
    first = _session(stub, "refresher")
    renewed = stub.RefreshPlayerSession(player_pb2.RefreshPlayerSessionRequest(refresh_token=first.refresh_token),
                                        timeout=10).session
    assert renewed.player_id == "refresher" and renewed.refresh_token != first.refresh_token
    game = _create(stub, renewed.access_token).game  # the renewed access token works
    assert game.seats[0].player_bound


def test_a_spent_refresh_token_revokes_its_sign_in(stub: Any) -> None:
    first = _session(stub, "copied")
    other = _session(stub, "copied")  # another sign-in of the same player: not affected
    renewed = stub.RefreshPlayerSession(player_pb2.RefreshPlayerSessionRequest(refresh_token=first.refresh_token),
                                        timeout=10).session
    again = player_pb2.RefreshPlayerSessionRequest(refresh_token=first.refresh_token)  # a copy, used after
    assert _refusal(stub.RefreshPlayerSession, again) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
    assert _refusal(stub.RefreshPlayerSession, again) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_REUSED")
    revoked = player_pb2.RefreshPlayerSessionRequest(refresh_token=renewed.refresh_token)
    assert _refusal(stub.RefreshPlayerSession, revoked) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_INVALID")
    unknown = player_pb2.RefreshPlayerSessionRequest(refresh_token="r" * 43)
    assert _refusal(stub.RefreshPlayerSession, unknown) == (grpc.StatusCode.UNAUTHENTICATED, "REFRESH_TOKEN_INVALID")
    kept = stub.RefreshPlayerSession(player_pb2.RefreshPlayerSessionRequest(refresh_token=other.refresh_token),
                                     timeout=10).session
    assert kept.player_id == "copied"


def test_a_player_creates_and_joins_and_plays_with_one_credential(stub: Any) -> None:
    ann, bob = _session(stub, "ann-1", "Ann"), _session(stub, "bob-1", "Bob")
    created = _create(stub, ann.access_token)  # no x-api-key: a signed-in player creates
    name = created.game.name
    assert [(c.seat, c.player_id, c.player_token) for c in created.credentials] == [(0, "ann-1", "")]
    assert created.game.seats[0].display_name == "Ann" and created.game.seats[0].player_bound
    joined = _join(stub, name, bob.access_token, "Bob")
    assert (joined.credential.seat, joined.credential.player_id, joined.credential.player_token) == (1, "bob-1", "")
    assert joined.game.status == 2  # ACTIVE
    view = stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(bob.access_token), timeout=10)
    assert view.viewer_seat == 1
    tokens = {0: ann.access_token, 1: bob.access_token}
    seat, actions = deciding_seat(stub, name, tokens)
    request = svc.SubmitActionRequest(name=name, action=actions[0], request_id="r-1")
    first = stub.SubmitAction(request, metadata=bearer(tokens[seat]), timeout=10)
    retried = stub.SubmitAction(request, metadata=bearer(tokens[seat]), timeout=10)
    assert first == retried and first.game.version == 3  # created, joined, acted: the retry applied nothing
    players.SEATS_SEEN.clear()  # the retry reaches a replica that never saw this player's seat
    assert stub.SubmitAction(request, metadata=bearer(tokens[seat]), timeout=10) == first


def test_request_ids_of_creations_and_joins_are_each_players_own(stub: Any) -> None:
    """Two players who send one request id (a client library with a fixed one, say): each creation is its
    player's own game; a join's id repeated by the same player is answered, by another refused."""
    ann, bob, cy = (_session(stub, f"{who}-{secrets.token_hex(3)}", who) for who in ("Ann", "Bob", "Cy"))
    anns = _create(stub, ann.access_token, request_id="one")
    assert _create(stub, ann.access_token, request_id="one") == anns
    bobs = _create(stub, bob.access_token, request_id="one")
    assert bobs.game.name != anns.game.name and bobs.credentials[0].player_id == bob.player_id
    with_key = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=2, request_id="one"),
                               metadata=[("x-api-key", API_KEY)], timeout=10)
    assert with_key.game.name not in {anns.game.name, bobs.game.name}  # the studio's key: a scope of its own
    joined = _join(stub, anns.game.name, cy.access_token, "Cy", request_id="two")
    assert _join(stub, anns.game.name, cy.access_token, "Cy", request_id="two") == joined
    assert _refusal(_join, stub, anns.game.name, bob.access_token, "Cy", request_id="two") == (
        grpc.StatusCode.INVALID_ARGUMENT, "IDEMPOTENCY_KEY_REUSED")


def test_a_player_holds_at_most_one_seat_of_a_game(stub: Any) -> None:
    cy = _session(stub, "cy-1", "Cy")
    request = svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3)
    name = stub.CreateGame(request, metadata=bearer(cy.access_token), timeout=10).game.name
    assert _refusal(_join, stub, name, cy.access_token, "Cy again") == (
        grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_ALREADY_SEATED")


def test_a_player_cannot_act_in_another_players_seat_or_a_game_without_his_seat(stub: Any) -> None:
    ann, bob, eve = (_session(stub, p) for p in ("ann-2", "bob-2", "eve-2"))
    name = _create(stub, ann.access_token).game.name
    _join(stub, name, bob.access_token)
    _, actions = deciding_seat(stub, name, {0: ann.access_token, 1: bob.access_token})
    before = stub.GetGame(svc.GetGameRequest(name=name), timeout=10).game.version
    act = svc.SubmitActionRequest(name=name, action=actions[0])
    # A player's credential names no seat: it acts only in the seat bound to it, and in no other game.
    assert _refusal(stub.SubmitAction, act, metadata=bearer(eve.access_token)) == (
        grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED_IN_GAME")
    assert _refusal(stub.GetGame, svc.GetGameRequest(name=name), metadata=bearer(eve.access_token)) == (
        grpc.StatusCode.PERMISSION_DENIED, "NOT_SEATED_IN_GAME")
    assert stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(ann.access_token), timeout=10).viewer_seat == 0
    # A bound seat has no seat token: none, forged or guessed, acts in it.
    for seat in (0, 1):
        forged = f"{name.removeprefix('games/')}.{seat}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        assert _refusal(stub.SubmitAction, act, metadata=bearer(forged)) == (
            grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN")
    assert stub.GetGame(svc.GetGameRequest(name=name), timeout=10).game.version == before  # nothing changed


def test_an_invited_seat_is_taken_by_the_invitee_only(stub: Any) -> None:
    ann, bob, eve = (_session(stub, p) for p in ("ann-3", "bob-3", "eve-3"))
    created = _create(stub, ann.access_token, invited_player_ids=["bob-3"])
    name, seat1 = created.game.name, created.game.seats[1]
    assert (seat1.reserved, seat1.invited, seat1.occupied) == (True, True, False)
    assert created.game.status == 1  # WAITING
    assert _refusal(_join, stub, name, None) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
    assert _refusal(_join, stub, name, None, seat=1) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_RESERVED_FOR_INVITEE")
    assert _refusal(_join, stub, name, eve.access_token, seat=1) == (
        grpc.StatusCode.PERMISSION_DENIED, "SEAT_RESERVED_FOR_INVITEE")
    joined = _join(stub, name, bob.access_token, "Bob")
    assert (joined.credential.seat, joined.credential.player_id) == (1, "bob-3")
    assert joined.game.status == 2 and not joined.game.seats[1].invited


def test_invitations_are_checked(stub: Any) -> None:
    ann = _session(stub, "ann-4")
    assert _refusal(_create, stub, ann.access_token, invited_player_ids=["b", "c"]) == (
        grpc.StatusCode.INVALID_ARGUMENT, "TOO_MANY_INVITATIONS")
    assert _refusal(_create, stub, ann.access_token, invited_player_ids=["ann-4"]) == (
        grpc.StatusCode.INVALID_ARGUMENT, "PLAYER_INVITED_TWICE")
    assert _refusal(_create, stub, ann.access_token, invited_player_ids=["no spaces"]) == (
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PLAYER_ID")


def test_the_studios_own_jwts_bind_seats_and_attacks_on_them_are_refused(stub: Any,
                                                                          studio: tuple[Studio, str]) -> None:
    s = studio[0]
    created = _create(stub, s.token("studio-ann", kid="rsa-1", name="Ann"))
    assert created.credentials[0].player_id == "studio-ann"
    name = created.game.name
    now = int(time.time())
    attacks = {
        "JWT_SIGNATURE_INVALID": Studio().token("studio-ann"),  # forged: another key calling itself ed-1
        "JWT_EXPIRED": s.token("studio-ann", exp=now - 3600),
        "JWT_AUDIENCE_MISMATCH": s.token("studio-ann", aud="another-service"),
        "JWT_ALGORITHM_REFUSED": s.hs256_with_public_key("studio-ann"),
        "JWT_KEY_UNKNOWN": s.token("studio-ann", header_kid="not-published"),
    }
    for reason, token in attacks.items():
        assert _refusal(stub.GetGame, svc.GetGameRequest(name=name), metadata=bearer(token)) == (
            grpc.StatusCode.UNAUTHENTICATED, reason), reason
    assert _refusal(stub.GetGame, svc.GetGameRequest(name=name), metadata=bearer(s.unsigned("studio-ann"))) == (
        grpc.StatusCode.UNAUTHENTICATED, "JWT_ALGORITHM_REFUSED")


def test_guest_sessions(stub: Any) -> None:
    guest = stub.CreateGuestSession(player_pb2.CreateGuestSessionRequest(display_name="Visitor"), timeout=10).session
    assert guest.player_id.startswith("guest:") and guest.display_name == "Visitor"
    assert _create(stub, guest.access_token).credentials[0].player_id == guest.player_id


def test_sessions_are_off_by_default(grpc_server: Any) -> None:
    with grpc.insecure_channel(grpc_server.target) as channel:
        default = game_service_pb2_grpc.GameServiceStub(channel)
        assert _refusal(default.CreatePlayerSession, player_pb2.CreatePlayerSessionRequest(player_id="ann")) == (
            grpc.StatusCode.FAILED_PRECONDITION, "SESSIONS_DISABLED")
        assert _refusal(default.CreateGuestSession, player_pb2.CreateGuestSessionRequest()) == (
            grpc.StatusCode.FAILED_PRECONDITION, "GUEST_SESSIONS_DISABLED")
        jwt = Studio().token()  # no issuer configured: a JWT is no seat token
        assert _refusal(default.GetGame, svc.GetGameRequest(name="games/abc"), metadata=bearer(jwt)) == (
            grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN")


def test_a_rematch_binds_each_players_seat_again(stub: Any) -> None:
    ann, bob = _session(stub, "ann-5"), _session(stub, "bob-5")
    name = _create(stub, ann.access_token, max_actions=1).game.name  # one action ends it (abandoned)
    _join(stub, name, bob.access_token)
    tokens = {0: ann.access_token, 1: bob.access_token}
    seat, actions = deciding_seat(stub, name, tokens)
    stub.SubmitAction(svc.SubmitActionRequest(name=name, action=actions[0]), metadata=bearer(tokens[seat]), timeout=10)
    claimed = [stub.RematchGame(svc.RematchGameRequest(name=name), metadata=bearer(tokens[s]), timeout=10)
               for s in (1, 0)]
    assert [(c.credential.seat, c.credential.player_id, c.credential.player_token) for c in claimed] == [
        (1, "bob-5", ""), (0, "ann-5", "")]
    rematch = claimed[1].game
    assert rematch.status == 2 and all(s.player_bound for s in rematch.seats)
    view = stub.GetGame(svc.GetGameRequest(name=rematch.name), metadata=bearer(bob.access_token), timeout=10)
    assert view.viewer_seat == 1


def test_guest_sessions_count_against_the_address_creation_rate(redis_url: str, tmp_path: Any) -> None:
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), guest_sessions=True, proxy_secret="guest-secret",
                        create_per_minute_per_address=2)
    address = f"203.0.113.{secrets.randbelow(250)}-{secrets.token_hex(4)}"  # fresh buckets in the shared Redis
    via = [("x-forwarded-for", address), ("x-tabletop-proxy", "guest-secret")]
    try:
        with grpc.insecure_channel(server.target) as channel:
            guests = game_service_pb2_grpc.GameServiceStub(channel)
            for _ in range(2):
                guests.CreateGuestSession(player_pb2.CreateGuestSessionRequest(), metadata=via, timeout=10)
            code, reason = _refusal(guests.CreateGuestSession, player_pb2.CreateGuestSessionRequest(), metadata=via)
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "CREATE_RATE_LIMITED")
            other = [("x-forwarded-for", address + "-b"), ("x-tabletop-proxy", "guest-secret")]
            guests.CreateGuestSession(player_pb2.CreateGuestSessionRequest(), metadata=other, timeout=10)
    finally:
        server.running.stop(0)


def test_a_player_who_left_may_join_again_and_watches_with_the_same_credential(stub: Any) -> None:
    ann, bob, cy = (_session(stub, p) for p in ("ann-6", "bob-6", "cy-6"))
    name = stub.CreateGame(svc.CreateGameRequest(ruleset="ttr-europe", seat_count=3),
                           metadata=bearer(ann.access_token), timeout=10).game.name
    assert _join(stub, name, bob.access_token, "Bob").credential.seat == 1
    stub.GetGame(svc.GetGameRequest(name=name), metadata=bearer(bob.access_token), timeout=10)  # seat 1 seen
    left = stub.LeaveGame(svc.LeaveGameRequest(name=name), metadata=bearer(bob.access_token), timeout=10)
    assert not left.game.seats[1].occupied
    assert _join(stub, name, cy.access_token, "Cy").credential.seat == 1
    assert _join(stub, name, bob.access_token, "Bob").credential.seat == 2  # a new seat: the hint is stale
    watch = stub.WatchGame(svc.WatchGameRequest(name=name, from_version=5), metadata=bearer(bob.access_token),
                           timeout=10)
    actions = stub.ListLegalActions(svc.ListLegalActionsRequest(name=name), metadata=bearer(bob.access_token),
                                    timeout=10).actions  # every seat keeps tickets first: bob (seat 2) decides
    stale = ("bob-6", name.removeprefix("games/"))
    request = svc.SubmitActionRequest(name=name, action=actions[0], request_id="after-rejoin")
    players.SEATS_SEEN[stale] = 1  # a replica that saw bob in seat 1, before he left
    first = stub.SubmitAction(request, metadata=bearer(bob.access_token), timeout=10)
    players.SEATS_SEEN[stale] = 1
    assert stub.SubmitAction(request, metadata=bearer(bob.access_token), timeout=10) == first  # answered once
    update = next(watch)
    assert update.version == 6
    watch.cancel()


def test_a_rotated_session_key_still_verifies_the_sessions_it_signed(redis_url: str, tmp_path: Any) -> None:
    old, new = tmp_path / "old.pem", tmp_path / "new.pem"
    old.write_bytes(session_key_pem())
    new.write_bytes(session_key_pem())
    before = start_grpc(redis_url, session_key_file=str(old), api_keys=API_KEY)
    rotated = start_grpc(redis_url, session_key_file=str(new), session_verify_key_files=f" {old} ", api_keys=API_KEY)
    dropped = start_grpc(redis_url, session_key_file=str(new), api_keys=API_KEY)
    try:
        with grpc.insecure_channel(before.target) as a, grpc.insecure_channel(rotated.target) as b, \
                grpc.insecure_channel(dropped.target) as c:
            signed_old = _session(game_service_pb2_grpc.GameServiceStub(a), "rot-1").access_token
            signed_new = _session(game_service_pb2_grpc.GameServiceStub(b), "rot-2").access_token
            for stub, token in ((b, signed_old), (b, signed_new), (c, signed_new)):
                game = _create(game_service_pb2_grpc.GameServiceStub(stub), token).game
                assert game.seats[0].player_bound
            assert _refusal(_create, game_service_pb2_grpc.GameServiceStub(c), signed_old) == (
                grpc.StatusCode.UNAUTHENTICATED, "JWT_KEY_UNKNOWN")
    finally:
        for server in (before, rotated, dropped):
            server.running.stop(0)
