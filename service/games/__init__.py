"""Game rulesets: pure rules, one package per game (see README.md)."""
