"""Players' JWTs: the verifier against a studio's JWKS served over real HTTP on loopback (issue 27).

Every refusal is UNAUTHENTICATED with its own stable reason: forged, expired, not yet valid,
wrong issuer or audience, unknown kid, ``alg: none`` and algorithm confusion (HS256 keyed with the
RSA public key). The JWKS is fetched once, refetched for an unknown kid at most once per
min-refresh, and its last good copy is kept while the endpoint is down.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabletop_server.service.api.errors import ServiceError, Unavailable
from tabletop_server.service.api.identity import Issuer, Verifier, looks_like_jwt, parse_issuers
from tests.jwks import AUDIENCE, ISSUER, Studio


@pytest.fixture()
def studio() -> Iterator[tuple[Studio, str]]:
    s = Studio()
    with s.serving() as url:
        yield s, url


def _verifier(url: str, skew: float = 30.0, min_refresh: float = 30.0) -> Verifier:
    return Verifier(parse_issuers(json.dumps([{"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": url}])),
                    skew, refresh_seconds=300.0, min_refresh_seconds=min_refresh)


def _refused(verifier: Verifier, token: str) -> str:
    with pytest.raises(ServiceError) as err:
        asyncio.run(verifier.verify(token))
    assert err.value.code.name == "UNAUTHENTICATED", err.value
    return err.value.reason


@pytest.mark.parametrize("kid", ["rsa-1", "ec-1", "ed-1"])
def test_a_token_of_each_algorithm_names_its_player(studio: tuple[Studio, str], kid: str) -> None:
    s, url = studio
    player = asyncio.run(_verifier(url).verify(s.token("ann-42", kid=kid, name="Ann")))
    assert (player.id, player.name, player.issuer) == ("ann-42", "Ann", ISSUER)


def test_the_display_name_is_the_id_without_a_name_claim_and_loses_control_characters(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url)
    assert asyncio.run(verifier.verify(s.token("bo"))).name == "bo"
    assert asyncio.run(verifier.verify(s.token("bo", name="B\u0000o\u200bb"))).name == "Bob"


def test_forged_signature_is_refused(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url)
    head, _body, sig = s.token("ann").split(".")
    other = Studio().token("mallory")  # another key that calls itself ed-1
    assert _refused(verifier, f"{head}.{other.split('.')[1]}.{sig}") == "JWT_SIGNATURE_INVALID"
    assert _refused(verifier, other) == "JWT_SIGNATURE_INVALID"


def test_alg_none_and_algorithm_confusion_are_refused_before_any_signature_check(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url)
    assert _refused(verifier, s.unsigned()) == "JWT_ALGORITHM_REFUSED"
    assert _refused(verifier, s.hs256_with_public_key()) == "JWT_ALGORITHM_REFUSED"
    assert s.fetches == 0  # refused on the header alone


def test_expired_and_not_yet_valid_tokens_are_refused_beyond_the_skew(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url, skew=30)
    now = int(time.time())
    assert _refused(verifier, s.token(exp=now - 31)) == "JWT_EXPIRED"
    assert _refused(verifier, s.token(nbf=now + 120)) == "JWT_NOT_YET_VALID"
    assert asyncio.run(verifier.verify(s.token(exp=now - 10))).id == "player-1"  # within the skew
    assert asyncio.run(verifier.verify(s.token(nbf=now + 10))).id == "player-1"


def test_wrong_issuer_audience_and_missing_claims_are_refused(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url)
    assert _refused(verifier, s.token(iss="https://evil.test")) == "JWT_ISSUER_UNKNOWN"
    assert _refused(verifier, s.token(aud="another-service")) == "JWT_AUDIENCE_MISMATCH"
    assert _refused(verifier, s.token(aud=None)) == "JWT_CLAIMS_INVALID"
    assert _refused(verifier, s.token(exp=None)) == "JWT_CLAIMS_INVALID"
    assert _refused(verifier, s.token(sub="has spaces")) == "JWT_CLAIMS_INVALID"
    assert _refused(verifier, "eyJ.not-json.x") == "JWT_MALFORMED"


def test_an_unknown_kid_refetches_the_jwks_at_most_once_per_min_refresh(studio: tuple[Studio, str]) -> None:
    s, url = studio
    s.published = ["ed-1"]
    verifier = _verifier(url, min_refresh=3600)
    assert asyncio.run(verifier.verify(s.token(kid="ed-1"))).id == "player-1"
    assert s.fetches == 1
    s.published = ["ed-1", "rsa-1"]  # the studio rotates a key in
    assert _refused(verifier, s.token(kid="rsa-1")) == "JWT_KEY_UNKNOWN"  # min refresh not over: no refetch
    assert s.fetches == 1
    s.published = ["ed-1"]
    rotating = _verifier(url, min_refresh=0)
    assert asyncio.run(rotating.verify(s.token(kid="ed-1"))).id == "player-1"
    s.published = ["ed-1", "rsa-1"]
    assert asyncio.run(rotating.verify(s.token(kid="rsa-1"))).id == "player-1"  # refetched for the new kid
    assert s.fetches == 3


def test_the_last_good_jwks_is_kept_while_the_endpoint_is_down(studio: tuple[Studio, str]) -> None:
    s, url = studio
    verifier = _verifier(url, min_refresh=0)
    verifier.sources[ISSUER].refresh_seconds = 0  # every call refreshes
    assert asyncio.run(verifier.verify(s.token())).id == "player-1"
    s.down = True
    assert asyncio.run(verifier.verify(s.token())).id == "player-1"
    cold = _verifier(url)
    with pytest.raises(Unavailable) as err:
        asyncio.run(cold.verify(s.token()))
    assert err.value.reason == "JWKS_UNAVAILABLE"


def test_a_jwks_file_is_read_at_start(tmp_path: Path) -> None:
    s = Studio()
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(s.jwks()))
    verifier = Verifier((Issuer(ISSUER, AUDIENCE, jwks_file=str(path)),), 0)
    assert asyncio.run(verifier.verify(s.token("cy", kid="ec-1"))).id == "cy"


@pytest.mark.parametrize(("setting", "message"), [
    ("{", "not JSON"),
    ('[{"issuer": "x"}]', "needs \"issuer\" and \"audience\""),
    ('[{"issuer": "x", "audience": "a"}]', "exactly one of"),
    ('[{"issuer": "x", "audience": "a", "jwks_url": "http://id.example.com/jwks"}]', "must be https"),
    ('[{"issuer": "x", "audience": "a", "jwks_file": "f", "algorithms": ["HS256"]}]', "only RS256"),
])
def test_bad_issuer_settings_are_refused_with_what_is_wrong(setting: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_issuers(setting)


def test_seat_tokens_are_never_taken_for_jwts() -> None:
    assert not looks_like_jwt("0123abcd.1.secretSECRET_-")
    assert looks_like_jwt(Studio().token())


def test_a_remembered_token_still_expires_and_each_call_gets_its_own_player(studio: tuple[Studio, str]) -> None:
    s, url = studio
    now = [time.time()]
    verifier = Verifier(parse_issuers(s.issuer_setting(url)), 5, clock=lambda: now[0])
    token = s.token(exp=int(now[0]) + 20)
    first = asyncio.run(verifier.verify(token))
    first.seats["g1"] = 0
    fetches = s.fetches
    second = asyncio.run(verifier.verify(token))  # remembered: no key lookup, a fresh Player
    assert (second.id, second.seats, s.fetches) == (first.id, {}, fetches)
    now[0] += 26  # past exp + skew: verified again, and refused
    assert _refused(verifier, token) == "JWT_EXPIRED"
