"""Rule errors: the one exception type game code raises.

A rejected action must change nothing and say why with a stable UPPER_SNAKE reason
(DESIGN 9). Games define their reasons as a ``StrEnum``; the engine defines the
reasons every game shares. The service maps these classes to gRPC codes in exactly
one table (``service/api/errors.py``).
"""

from __future__ import annotations

from enum import StrEnum


class EngineReason(StrEnum):
    """Reasons shared by every ruleset."""

    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    NOT_YOUR_DECISION = "NOT_YOUR_DECISION"
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    GAME_FINISHED = "GAME_FINISHED"
    INVALID_ACTION = "INVALID_ACTION"
    INVALID_OPTION = "INVALID_OPTION"
    UNKNOWN_RULESET = "UNKNOWN_RULESET"
    INVALID_SEAT_COUNT = "INVALID_SEAT_COUNT"
    WRONG_RULESET = "WRONG_RULESET"


class RuleError(Exception):
    """The action is well formed but illegal in the current state (FAILED_PRECONDITION).

    ``reason`` is a stable UPPER_SNAKE code; ``message`` tells the player what to do;
    ``details`` are short string facts (route id, cards needed) safe for the acting seat.
    """

    def __init__(self, reason: str, message: str = "", **details: object) -> None:
        self.reason = str(reason)
        self.message = message or self.reason.replace("_", " ").capitalize()
        self.details = {key: str(value) for key, value in details.items()}
        super().__init__(f"{self.reason}: {self.message}")


class MalformedAction(RuleError):
    """The request itself is wrong: unknown ids, missing fields (INVALID_ARGUMENT).

    ``field`` names the offending field path, for a ``BadRequest`` field violation.
    """

    def __init__(self, reason: str, message: str = "", field: str = "action", **details: object) -> None:
        super().__init__(reason, message, **details)
        self.field = field
