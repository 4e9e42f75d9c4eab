"""Page tokens of the listing calls (AIP-158): URL-safe base64 of a text the server wrote, read back here.

ListGames, ListMyGames and ListLeaderboard each write their own cursor text; reading one back is the same
for all three: undo the base64, match the call's pattern, and refuse anything else as the caller's mistake
(``INVALID_PAGE_TOKEN``, naming the call that issues such tokens), never as a server error.
"""

from __future__ import annotations

import base64
import binascii
import re

from tabletop_server.service.api.errors import InvalidArgument, ServiceReason


def read(token: str, pattern: re.Pattern[str], issuer: str) -> re.Match[str]:
    """The cursor ``token`` holds, matched by ``pattern``; INVALID_PAGE_TOKEN unless ``issuer`` wrote it."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        raw = ""
    match = pattern.fullmatch(raw)
    if match is None:
        raise InvalidArgument(ServiceReason.INVALID_PAGE_TOKEN, f"This page token was not issued by {issuer}.",
                              field="page_token")
    return match
