"""The game-agnostic core: the ruleset contract, the seeded RNG, rule errors, the registry.

Nothing here knows any game's rules, and nothing here does I/O.
"""
