"""The bot contract (service/engine/bots.py) over every ruleset and every bot it offers.

Whole games mixing the bots end within the ruleset's action limit, every action passing through
``choose`` (which refuses an action that is not legal); a bot's choice replays from its seed;
``choose`` refuses an unknown bot, a seat with nothing to decide and an illegal choice.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from hypothesis import strategies as st

from bench.bots import TABLES, play_game
from tabletop_server.service.engine import registry
from tabletop_server.service.engine.bots import DEFAULT_BOT, bots_of, choose
from tests.volume import run_examples, volumes

BOT_NAMES = ("basic", DEFAULT_BOT)


@pytest.mark.parametrize("ruleset", registry.all_rulesets(), ids=lambda r: r.INFO.id)
def test_every_ruleset_offers_random_and_basic(ruleset: Any) -> None:
    assert set(BOT_NAMES) <= set(bots_of(ruleset))


@pytest.mark.parametrize("examples", volumes(6, 30))
def test_games_of_mixed_bots_end_with_legal_actions_only(examples: int) -> None:
    run_examples(examples, games_of_mixed_bots_end_with_legal_actions_only, table=st.sampled_from(TABLES),
                 seed=st.integers(0, 2**32), bots=st.lists(st.sampled_from(BOT_NAMES), min_size=8, max_size=8))


def games_of_mixed_bots_end_with_legal_actions_only(table: Any, seed: int, bots: list[str]) -> None:
    state = table.ruleset.setup(table.options, table.seats, seed)
    actions = play_game(table.ruleset, state, bots[:table.seats], seed)
    assert table.ruleset.is_over(state)
    assert actions <= table.ruleset.INFO.max_actions


@pytest.mark.parametrize("table", TABLES[:1] + TABLES[4:5], ids=lambda t: t.label)
def test_a_bot_choice_replays_from_its_seed(table: Any) -> None:
    state = table.ruleset.setup(table.options, table.seats, 5)
    seat = table.ruleset.to_act(state)[0]
    for bot in BOT_NAMES:
        first = choose(table.ruleset, state, seat, bot, 99)
        assert all(choose(table.ruleset, state, seat, bot, 99) == first for _ in range(5))


def test_choose_refuses_an_unknown_bot_a_seat_without_a_decision_and_an_illegal_choice() -> None:
    table = TABLES[0]
    ruleset = table.ruleset
    state = ruleset.setup(table.options, table.seats, 3)
    with pytest.raises(KeyError):
        choose(ruleset, state, 0, "no_such_bot", 1)

    class Cheat:
        """The same ruleset with a bot that answers something not listed."""

        def __getattr__(self, name: str) -> Any:
            return getattr(ruleset, name)

        BOTS: ClassVar[dict[str, Any]] = {"cheat": lambda view, legal, rng: {"kind": "pass"}}

    with pytest.raises(ValueError, match="not legal"):
        choose(Cheat(), state, 0, "cheat", 1)  # type: ignore[arg-type]
    ruleset.apply(state, 0, ruleset.legal_actions(state, 0)[0])  # seat 0 has kept its tickets
    with pytest.raises(ValueError, match="no decision"):
        choose(ruleset, state, 0, "basic", 1)



@pytest.mark.parametrize("table", TABLES[:1] + TABLES[4:5], ids=lambda t: t.label)
def test_choose_reads_the_legal_actions_and_view_it_is_given(table: Any) -> None:
    """A caller that has built the seat's legal actions and view (the golden corpus) passes them: the same
    choice as when ``choose`` builds them, and what it was given is what the bot reads."""
    ruleset = table.ruleset
    state = ruleset.setup(table.options, table.seats, 5)
    seat = ruleset.to_act(state)[0]
    legal, view = ruleset.legal_actions(state, seat), ruleset.view(state, seat)
    for bot in BOT_NAMES:
        assert choose(ruleset, state, seat, bot, 99, legal=legal, view=view) == choose(ruleset, state, seat, bot, 99)
    assert choose(ruleset, state, seat, DEFAULT_BOT, 99, legal=legal[-1:]) == legal[-1]
    seen: list[Any] = []

    class Spy:
        def __getattr__(self, name: str) -> Any:
            return getattr(ruleset, name)

        BOTS: ClassVar[dict[str, Any]] = {"spy": lambda view, legal, rng: seen.append(view) or legal[0]}

    choose(Spy(), state, seat, "spy", 1, view=view)  # type: ignore[arg-type]
    assert seen == [view] and seen[0] is view
    with pytest.raises(ValueError, match="no decision"):
        choose(ruleset, state, seat, "basic", 1, legal=[])
