"""The hand-written Python client (tabletop.client) against the real gRPC server.

Every test goes through ``TabletopClient`` only, on the session's ``grpc_server`` backed
by real Redis, and checks both what the client returns and how it decodes the server's
rich errors into ``TabletopError``.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterable, Iterator

import grpc
import pytest
from google.api import field_behavior_pb2
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from tabletop.client import GAME_HEADER, TabletopClient, TabletopError, game_name, game_routing_metadata
from tabletop.v1 import (
    field_rules_pb2,
    game_pb2,
    game_service_pb2,
    matchmaking_pb2,
    player_pb2,
    ttr_europe_pb2,
)

from tests.conftest import GrpcServer, start_grpc
from tests.jwks import session_key_pem


@pytest.fixture(scope="module")
def client(grpc_server) -> Iterator[TabletopClient]:  # type: ignore[no-untyped-def]
    with TabletopClient(grpc_server.target, timeout=10.0) as spectator:
        yield spectator


@pytest.fixture
def created(client: TabletopClient) -> game_service_pb2.CreateGameResponse:
    return client.create_game("ttr-europe", 3, display_names=["Ada", "Brian", "Chen"], seed=7)


def seat(client: TabletopClient, created: game_service_pb2.CreateGameResponse, index: int) -> TabletopClient:
    token = next(c.player_token for c in created.credentials if c.seat == index)
    return client.with_token(token)


def test_list_rulesets_offers_ttr_europe(client: TabletopClient) -> None:
    rulesets = {r.id: r for r in client.list_rulesets()}
    assert "ttr-europe" in rulesets, sorted(rulesets)
    ttr = rulesets["ttr-europe"]
    assert ttr.min_seats <= 3 <= ttr.max_seats
    assert ttr.rules_version


def test_get_ruleset_gives_the_catalog(client: TabletopClient) -> None:
    ttr = client.get_ruleset("ttr-europe")
    assert ttr.ruleset.id == "ttr-europe" and len(ttr.ttr_europe.routes) == 101 and ttr.etag
    assert client.get_ruleset("rulesets/bang").WhichOneof("catalog") == "bang"
    with pytest.raises(TabletopError) as raised:
        client.get_ruleset("monopoly")
    assert raised.value.code == grpc.StatusCode.NOT_FOUND and raised.value.reason == "RULESET_NOT_FOUND"


def test_create_game_fills_the_named_seats(created: game_service_pb2.CreateGameResponse) -> None:
    game = created.game
    assert game.name.startswith("games/")
    assert game.ruleset == "ttr-europe"
    assert game.status == game_pb2.GAME_STATUS_ACTIVE
    assert [(s.index, s.display_name, s.occupied) for s in game.seats] == [
        (0, "Ada", True), (1, "Brian", True), (2, "Chen", True)]
    assert sorted(c.seat for c in created.credentials) == [0, 1, 2]
    assert len({c.player_token for c in created.credentials}) == 3


def test_create_game_wraps_ruleset_options(client: TabletopClient) -> None:
    response = client.create_game("ttr-europe", 2, ["a", "b"],
                                  options=ttr_europe_pb2.TtrEuropeOptions(tunnel_failure_discards=True))
    assert response.game.options.WhichOneof("ruleset") == "ttr_europe"
    assert response.game.options.ttr_europe.tunnel_failure_discards is True


def test_join_game_fills_open_seats_and_starts(client: TabletopClient) -> None:
    waiting = client.create_game("ttr-europe", 3, display_names=["Ada"])
    assert waiting.game.status == game_pb2.GAME_STATUS_WAITING
    name = waiting.game.name
    second = client.join_game(name, "Brian", seat=2)
    assert second.credential.seat == 2
    assert second.game.status == game_pb2.GAME_STATUS_WAITING
    third = client.join_game(name.removeprefix("games/"), "Chen")  # a bare id works too
    assert third.credential.seat == 1
    assert third.game.status == game_pb2.GAME_STATUS_ACTIVE
    assert [s.display_name for s in third.game.seats] == ["Ada", "Chen", "Brian"]


def test_create_and_join_retried_with_their_request_ids_answer_the_same(client: TabletopClient) -> None:
    create_id = "create-" + uuid.uuid4().hex
    created = client.create_game("ttr-europe", 3, ["Ada"], request_id=create_id)
    assert client.create_game("ttr-europe", 3, ["Ada"], request_id=create_id) == created
    join_id = "join-" + uuid.uuid4().hex
    joined = client.join_game(created.game.name, "Brian", request_id=join_id)
    assert client.join_game(created.game.name, "Brian", request_id=join_id) == joined
    assert client.get_game(created.game.name).game.version == 2


def test_join_taken_seat_raises_with_reason(client: TabletopClient) -> None:
    name = client.create_game("ttr-europe", 3, display_names=["Ada"]).game.name
    with pytest.raises(TabletopError) as raised:
        client.join_game(name, "Brian", seat=0)
    assert raised.value.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS)
    assert raised.value.reason.isupper() and raised.value.domain == "tabletop.dev"


def test_get_game_is_projected_for_the_caller(client: TabletopClient,
                                              created: game_service_pb2.CreateGameResponse) -> None:
    mine = seat(client, created, 1).get_game(created.game.name)
    assert mine.HasField("viewer_seat") and mine.viewer_seat == 1
    assert mine.view.WhichOneof("game") == "ttr_europe"
    assert mine.view.ttr_europe.private.seat == 1
    assert len(mine.view.ttr_europe.private.offered_tickets) > 0
    public = client.get_game(created.game.name)
    assert not public.HasField("viewer_seat")
    assert not public.view.ttr_europe.HasField("private")


def test_legal_actions_submitted_back_unchanged_apply(client: TabletopClient,
                                                      created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 0)
    legal = player.legal_actions(created.game.name)
    assert legal.actions, "seat 0 has no legal action at the start"
    assert {a.ttr_europe.WhichOneof("kind") for a in legal.actions} == {"keep_tickets"}
    response = player.submit_action(created.game.name, legal.actions[0], expected_version=legal.version)
    assert response.game.version == legal.version + 1
    assert response.events and response.view.WhichOneof("game") == "ttr_europe"
    assert len(player.legal_actions(created.game.name).actions) == 0


def test_submit_accepts_an_unwrapped_ruleset_action(client: TabletopClient,
                                                    created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 2)
    action = player.legal_actions(created.game.name).actions[-1].ttr_europe
    assert isinstance(action, ttr_europe_pb2.TtrEuropeAction)
    response = player.submit_action(created.game.name, action)
    assert response.game.version == created.game.version + 1


def test_repeated_request_id_returns_the_first_answer(client: TabletopClient,
                                                      created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 0)
    action = player.legal_actions(created.game.name).actions[0]
    first = player.submit_action(created.game.name, action, request_id="retry-1")
    again = player.submit_action(created.game.name, action, request_id="retry-1")
    assert again.game.version == first.game.version
    assert client.get_game(created.game.name).game.version == first.game.version


def test_acting_twice_raises_a_decoded_rule_error(client: TabletopClient,
                                                  created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 0)
    action = player.legal_actions(created.game.name).actions[0]
    player.submit_action(created.game.name, action)
    with pytest.raises(TabletopError) as raised:
        player.submit_action(created.game.name, action)
    error = raised.value
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason in ("NOT_YOUR_DECISION", "NOT_YOUR_TURN"), error
    assert error.domain == "tabletop.dev"
    assert isinstance(error.details[0], error_details_pb2.ErrorInfo)
    assert error.message and error.reason in str(error)


def test_stale_version_carries_the_current_version(client: TabletopClient,
                                                   created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 1)
    legal = player.legal_actions(created.game.name)
    with pytest.raises(TabletopError) as raised:
        player.submit_action(created.game.name, legal.actions[0], expected_version=legal.version + 5)
    error = raised.value
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "STALE_VERSION")
    assert error.current_version == legal.version
    failure = error.precondition_failure
    assert failure is not None
    assert [(v.subject, v.description) for v in failure.violations] == [("version", str(legal.version))]
    assert client.get_game(created.game.name).game.version == legal.version  # nothing applied


def test_bad_token_is_unauthenticated(client: TabletopClient,
                                      created: game_service_pb2.CreateGameResponse) -> None:
    with pytest.raises(TabletopError) as raised:
        client.with_token("not-a-token").get_game(created.game.name)
    assert raised.value.code == grpc.StatusCode.UNAUTHENTICATED
    assert raised.value.reason == "INVALID_TOKEN"


def test_unknown_game_is_not_found(client: TabletopClient) -> None:
    with pytest.raises(TabletopError) as raised:
        client.get_game("games/nosuchgame0")
    assert raised.value.code == grpc.StatusCode.NOT_FOUND
    assert raised.value.reason.isupper() and raised.value.bad_request is None


def test_malformed_name_carries_a_field_violation(client: TabletopClient) -> None:
    with pytest.raises(TabletopError) as raised:
        client.get_game("games/Not A Name!")
    error = raised.value
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_NAME")
    assert error.bad_request is not None
    assert [v.field for v in error.bad_request.field_violations] == ["name"]
    assert error.precondition_failure is None and error.current_version is None


def test_unreachable_server_raises_without_reason() -> None:
    with TabletopClient("127.0.0.1:1", timeout=2.0) as nowhere, pytest.raises(TabletopError) as raised:
        nowhere.list_rulesets()
    assert raised.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    assert raised.value.reason == "" and raised.value.details == ()


def test_watch_streams_every_version_in_order(client: TabletopClient,
                                              created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 0)
    action = player.legal_actions(created.game.name).actions[0]
    current = player.submit_action(created.game.name, action).game.version
    versions = []
    stream = client.watch(created.game.name, from_version=0, timeout=10.0)
    for message in stream:
        versions.append(message.version)
        if message.version >= current:
            break
    stream.close()
    assert versions == sorted(set(versions)) and versions[-1] == current
    resumed = next(client.watch(created.game.name, from_version=current - 1, timeout=10.0))
    assert resumed.version == current and resumed.events


def test_watch_of_unknown_game_raises(client: TabletopClient) -> None:
    with pytest.raises(TabletopError) as raised:
        next(client.watch("games/nosuchgame0", timeout=5.0))
    assert raised.value.code == grpc.StatusCode.NOT_FOUND


def test_game_log_lists_versions_oldest_first(client: TabletopClient,
                                              created: game_service_pb2.CreateGameResponse) -> None:
    player = seat(client, created, 0)
    player.submit_action(created.game.name, player.legal_actions(created.game.name).actions[0])
    log = player.game_log(created.game.name)
    versions = [e.version for e in log.entries]
    assert versions == sorted(versions) and versions[-1] == created.game.version + 1
    assert log.entries[-1].seat == 0 and log.entries[-1].action.WhichOneof("game") == "ttr_europe"
    assert not log.complete and not log.HasField("seed")


def test_a_whole_game_played_through_the_client(client: TabletopClient) -> None:
    """Random legal actions until the end: then the log is complete and a watch from 0 ends by itself."""
    created = client.create_game("ttr-europe", 3, display_names=["Ada", "Brian", "Chen"], seed=11)
    name, players, rng = created.game.name, client.for_seats(created.credentials), random.Random(11)
    assert sorted(players) == [0, 1, 2]
    for _ in range(2000):
        deciding = _first_to_decide(players.values(), name)
        if deciding is None:
            break
        player, legal = deciding
        player.submit_action(name, rng.choice(legal.actions), expected_version=legal.version)
    final = client.get_game(name)
    assert final.game.status == game_pb2.GAME_STATUS_FINISHED
    assert len(final.view.ttr_europe.final_scores) == 3
    log = client.game_log(name)
    assert log.complete and log.seed == 11
    entries = list(client.log_entries(name, page_size=50))  # a page at a time
    assert len(log.entries) == min(100, final.game.version) and log.entries[:50] == entries[:50]
    assert [e.version for e in entries] == list(range(1, final.game.version + 1))
    assert all(e.HasField("action") for e in entries if e.HasField("seat"))
    watched = list(client.watch(name, from_version=0, timeout=10.0))  # ends at the end of the game
    assert watched[-1].version == final.game.version
    assert [m.version for m in watched] == sorted({m.version for m in watched})


@pytest.fixture(scope="module")
def guarded_server(redis_url: str) -> Iterator[GrpcServer]:
    """A server that wants an API key for CreateGame and allows each token 2 calls a second."""
    server = start_grpc(redis_url, api_keys="key-one,key-two", rate_limit_per_token=2.0)
    yield server
    server.running.stop(0)


def test_api_key_is_sent_for_create_game(guarded_server: GrpcServer) -> None:
    with TabletopClient(guarded_server.target, timeout=10.0) as anonymous:
        with pytest.raises(TabletopError) as raised:
            anonymous.create_game("ttr-europe", 2, ["a", "b"])
        assert (raised.value.code, raised.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, "API_KEY_REQUIRED")
    with TabletopClient(guarded_server.target, api_key="key-three", timeout=10.0) as wrong:
        with pytest.raises(TabletopError) as raised:
            wrong.create_game("ttr-europe", 2, ["a", "b"])
        assert (raised.value.code, raised.value.reason) == (grpc.StatusCode.PERMISSION_DENIED, "API_KEY_INVALID")
    with TabletopClient(guarded_server.target, api_key="key-two", timeout=10.0) as operator:
        created = operator.create_game("ttr-europe", 2, ["a", "b"])
        assert operator.with_token("t").api_key == "key-two"
    assert created.game.status == game_pb2.GAME_STATUS_ACTIVE


def test_rate_limited_error_says_when_to_retry(guarded_server: GrpcServer) -> None:
    with TabletopClient(guarded_server.target, api_key="key-one", timeout=10.0) as operator:
        created = operator.create_game("ttr-europe", 2, ["a", "b"])
        player = operator.for_seats(created.credentials)[0]
        with pytest.raises(TabletopError) as raised:
            for _ in range(20):  # the bucket holds 2 calls; a burst of 20 cannot all pass
                player.get_game(created.game.name)
    error = raised.value
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert error.retry_delay is not None and 0 < error.retry_delay <= 1.0


def test_with_token_shares_the_channel_and_close_is_owned(grpc_server) -> None:  # type: ignore[no-untyped-def]
    owner = TabletopClient(grpc_server.target, timeout=10.0)
    with owner.with_token("ignored") as child:
        assert child.token == "ignored"
    assert owner.list_rulesets()  # the child's close left the shared channel open
    owner.close()
    with pytest.raises(ValueError):  # grpc refuses calls on a closed channel
        owner.list_rulesets()


def test_game_name_accepts_a_bare_id() -> None:
    assert game_name("abc") == "games/abc"
    assert game_name("games/abc") == "games/abc"


def test_calls_that_name_a_game_carry_its_id_for_routing(grpc_server) -> None:  # type: ignore[no-untyped-def]
    """Every call about one game carries ``x-tabletop-game: <id>`` (the ingress hashes on it,
    deploy/README.md "Game-affinity routing"); a call that names no game carries none, so it is spread."""
    recorder = _MetadataRecorder()
    channel = grpc.intercept_channel(grpc.insecure_channel(grpc_server.target), recorder)
    with TabletopClient(grpc_server.target, timeout=10.0, channel=channel) as spectator:
        created = spectator.create_game("ttr-europe", 3, display_names=["Ada", "Brian", "Chen"], seed=3)
        game_id = created.game.name.removeprefix("games/")
        first = seat(spectator, created, 0)
        first.get_game(game_id)
        legal = first.legal_actions(created.game.name)
        first.submit_action(game_id, legal.actions[0], expected_version=legal.version)
        first.game_log(game_id)
        stream = spectator.watch(game_id, timeout=5.0)
        next(stream)
        stream.close()
        spectator.list_rulesets()
    channel.close()
    routed = {method: meta.get(GAME_HEADER) for method, meta in recorder.seen}
    assert routed == {"CreateGame": None, "GetGame": game_id, "ListLegalActions": game_id, "SubmitAction": game_id,
                      "GetGameLog": game_id, "WatchGame": game_id, "ListRulesets": None}, routed
    assert game_routing_metadata(matchmaking_pb2.GetTicketRequest(name="tickets/t1")) == ()
    assert game_routing_metadata(game_service_pb2.GetGameRequest(name="games/")) == ()


# Helpers

class _MetadataRecorder(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """Notes each call's method and the metadata the client sent with it."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str]]] = []

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        self.seen.append((details.method.rsplit("/", 1)[-1], dict(details.metadata or ())))
        return continuation(details, request)

    intercept_unary_stream = intercept_unary_unary


def _first_to_decide(players: Iterable[TabletopClient], name: str
                     ) -> tuple[TabletopClient, game_service_pb2.ListLegalActionsResponse] | None:
    """The first seat with a legal action and its actions; None once nobody can act (game over)."""
    for player in players:
        legal = player.legal_actions(name)
        if legal.actions:
            return player, legal
    return None


class _FailedCall(grpc.RpcError, grpc.Call):  # type: ignore[misc, unused-ignore]
    """A failed call as grpc raises it, for decoding tests that need no server."""

    def __init__(self, code: grpc.StatusCode, message: str,
                 trailers: tuple[tuple[str, str | bytes], ...]) -> None:
        self._code, self._message, self._trailers = code, message, trailers

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._message

    def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:  # type: ignore[override, unused-ignore]
        return self._trailers

    def initial_metadata(self) -> tuple[()]:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: object) -> bool:
        return False


def test_error_decoding_keeps_unknown_details_packed() -> None:
    info, unknown = any_pb2.Any(), any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason="NOT_YOUR_TURN", domain="tabletop.dev",
                                          metadata={"current_seat": "2"}))
    unknown.Pack(game_pb2.Seat(index=1))
    status = status_pb2.Status(code=9, message="Wait for seat 2.", details=[info, unknown])
    error = TabletopError.from_rpc_error(_FailedCall(
        grpc.StatusCode.FAILED_PRECONDITION, "Wait for seat 2.",
        (("grpc-status-details-bin", status.SerializeToString()),)))
    assert (error.code, error.reason, error.domain) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN",
                                                        "tabletop.dev")
    assert error.metadata == {"current_seat": "2"} and error.message == "Wait for seat 2."
    assert isinstance(error.details[1], any_pb2.Any) and error.details[1].Is(game_pb2.Seat.DESCRIPTOR)
    plain = TabletopError.from_rpc_error(_FailedCall(grpc.StatusCode.INTERNAL, "boom", ()))
    assert (plain.reason, plain.details, plain.message) == ("", (), "boom")


def test_the_generated_stubs_carry_the_contract_limits() -> None:
    """A Python client can read the limits the server enforces from the stubs alone (no server)."""
    options = game_service_pb2.JoinGameRequest.DESCRIPTOR.fields_by_name["display_name"].GetOptions()
    limits = options.Extensions[field_rules_pb2.rules]
    assert (limits.reason, limits.min_length, limits.max_length) == ("INVALID_DISPLAY_NAME", 1, 64)
    assert list(options.Extensions[field_behavior_pb2.field_behavior]) == [field_behavior_pb2.REQUIRED]


def test_a_player_session_plays_with_one_client_per_player(redis_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), api_keys="client-key")
    try:
        with TabletopClient(server.target, api_key="client-key", timeout=10.0) as backend:
            ann = backend.as_player(backend.create_player_session("client-ann", "Ann"))
            bob = backend.as_player(backend.create_player_session("client-bob"))
            created = ann.create_game("ttr-europe", 2)
            assert [(c.seat, c.player_id) for c in created.credentials] == [(0, "client-ann")]
            joined = bob.join_game(created.game.name, "Bob")
            assert (joined.credential.seat, joined.credential.player_id) == (1, "client-bob")
            assert ann.get_game(created.game.name).viewer_seat == 0
            with pytest.raises(TabletopError) as err:
                backend.refresh_player_session("r" * 43)
            assert err.value.reason == "REFRESH_TOKEN_INVALID"
            with pytest.raises(TabletopError) as err:
                backend.create_guest_session()
            assert err.value.reason == "GUEST_SESSIONS_DISABLED"
    finally:
        server.running.stop(0)


def test_a_player_lists_its_games_and_reads_its_inbox(redis_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), api_keys="client-key")
    suffix = uuid.uuid4().hex[:8]
    try:
        with TabletopClient(server.target, api_key="client-key", timeout=10.0) as backend:
            ann = backend.as_player(backend.create_player_session(f"ann-{suffix}", "Ann"))
            bob = backend.as_player(backend.create_player_session(f"bob-{suffix}"))
            name = ann.create_game("ttr-europe", 2).game.name
            bob.join_game(name, "Bob")
            deadline = time.monotonic() + 10
            while not any(g.game.name == name and g.game.status == game_pb2.GAME_STATUS_ACTIVE
                          for g in ann.my_games()) or len(list(bob.notifications())) < 1:
                assert time.monotonic() < deadline, "the index did not follow within 10 s"
                time.sleep(0.05)
            [entry] = [g for g in ann.my_games(filter='status = "ACTIVE"') if g.game.name == name]
            assert entry.seat == 0 and entry.decision_pending  # the opening ticket choice is everyone's
            told = list(bob.notifications(filter="read = false"))
            assert [n.kind for n in told] == [player_pb2.NOTIFICATION_KIND_TURN_STARTED]
            assert bob.mark_notifications_read(every=True) == 0
            assert list(bob.notifications(filter="read = false")) == []
            stream = bob.watch_player(timeout=10)
            with pytest.raises(TabletopError) as err:
                next(ann.with_token(None).watch_player(reconnect=False))
            assert err.value.reason == "MISSING_TOKEN" or err.value.reason == "PLAYER_REQUIRED"
            stream.close()
    finally:
        server.running.stop(0)


def test_a_player_plays_now_and_reads_the_leaderboard(redis_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    key = tmp_path / "session.pem"
    key.write_bytes(session_key_pem())
    server = start_grpc(redis_url, session_key_file=str(key), api_keys="client-key")
    suffix = uuid.uuid4().hex[:8]
    try:
        with TabletopClient(server.target, api_key="client-key", timeout=10.0) as backend:
            ann = backend.as_player(backend.create_player_session(f"qp-ann-{suffix}", "Ann"))
            ticket = ann.find_game("ttr-europe", 2, 2, bots_after_seconds=1)
            deadline = time.monotonic() + 10
            while ann.ticket(ticket.name).state != matchmaking_pb2.TICKET_STATE_SEATED:
                assert time.monotonic() < deadline, "not seated with a bot within 10 s"
                time.sleep(0.05)
            assert ann.ticket(ticket.name).game.startswith("games/")
            waiting = ann.find_game("bang", 4, 4)
            assert ann.cancel_ticket(waiting.name).state == matchmaking_pb2.TICKET_STATE_CANCELLED
            assert ann.profile().player_id == f"qp-ann-{suffix}"
            assert all(e.rank >= 1 for e in backend.leaderboard("ttr-europe", page_size=5))
    finally:
        server.running.stop(0)
