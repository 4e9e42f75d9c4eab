"""The character abilities, one module per set (``base.py``, ``dodge_city*.py``, ``armed_and_dangerous.py``).

Each module registers its handlers with ``abilities.ability``; the hooks they implement are those of
``abilities.Ability``. The package is imported by the game's package (``bang/__init__.py``) to register them.
"""
