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

    # FAILED_PRECONDITION: not now.
    NOT_YOUR_TURN = "NOT_YOUR_TURN"  # another seat is to play
    NOT_YOUR_DECISION = "NOT_YOUR_DECISION"  # the pending decision belongs to another seat
    GAME_NOT_STARTED = "GAME_NOT_STARTED"  # seats are still open
    GAME_FINISHED = "GAME_FINISHED"  # the game is over
    SEAT_CONCEDED = "SEAT_CONCEDED"  # the seat conceded: it takes no more decisions
    # INVALID_ARGUMENT: malformed.
    INVALID_ACTION = "INVALID_ACTION"  # the action message is incomplete or contradictory
    INVALID_OPTION = "INVALID_OPTION"  # an option value the ruleset does not accept
    UNKNOWN_RULESET = "UNKNOWN_RULESET"  # CreateGame.ruleset is not offered
    INVALID_SEAT_COUNT = "INVALID_SEAT_COUNT"  # outside the ruleset's seat range
    WRONG_RULESET = "WRONG_RULESET"  # an action or options message of another game


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
