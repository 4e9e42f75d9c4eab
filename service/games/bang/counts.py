"""The printed card totals of BANG! and its expansions: name -> copies (checked by ``catalog.validate``).

An expansion's rows are refused until its totals are here, so a row typed twice or a copy
lost in the data is found at import, never in a game.
"""

from __future__ import annotations

# The printed base deck (BANG-002): 80 cards.
BASE_COUNTS = {
    "bang": 25, "missed": 12, "beer": 6, "panic": 4, "cat_balou": 4, "duel": 3, "stagecoach": 2,
    "general_store": 2, "indians": 2, "gatling": 1, "saloon": 1, "wells_fargo": 1, "jail": 3,
    "barrel": 2, "mustang": 2, "dynamite": 1, "scope": 1, "schofield": 3, "volcanic": 2,
    "remington": 1, "rev_carabine": 1, "winchester": 1,
}
# Dodge City (DC-001, 002): 40 cards, 34 names; 12 of them reprint base cards (rows with only
# ``key`` and ``copies``: more copies of the base card type, acting exactly as it does).
DODGE_CITY_COUNTS = {
    "barrel": 1, "binocular": 1, "dynamite": 1, "hideout": 1, "mustang": 1, "remington": 1, "rev_carabine": 1,
    "bang": 4, "beer": 2, "cat_balou": 1, "general_store": 1, "indians": 1, "missed": 1, "panic": 1, "punch": 1,
    "rag_time": 1, "brawl": 1, "dodge": 2, "springfield": 1, "tequila": 1, "whisky": 1, "bible": 1, "canteen": 1,
    "can_can": 1, "ten_gallon_hat": 1, "conestoga": 1, "derringer": 1, "buffalo_rifle": 1, "howitzer": 1,
    "pepperbox": 1, "iron_plate": 2, "pony_express": 1, "knife": 1, "sombrero": 1,
}
# Armed & Dangerous (AD-001): 28 cards: 13 Dangerous (orange: 9 objects, 4 weapons), 9 new brown
# cards and 6 base reprints (4 BANG!, 1 Missed!, 1 Cat Balou).
ARMED_AND_DANGEROUS_COUNTS = {
    "bang": 4, "cat_balou": 1, "missed": 1, "caravan": 1, "a_little_nip": 1, "quick_shot": 1, "flintlock": 1,
    "arrow": 1, "duck": 1, "reloading": 1, "rust": 1, "squaw": 1, "ace_up_the_sleeve": 1, "bandolier": 1,
    "big_fifty": 1, "bomb": 1, "buntline_special": 1, "bell_tower": 1, "crate": 1, "tumbleweed": 1,
    "double_barrel": 1, "whip": 1, "beer_keg": 1, "lockpick": 1, "thunderer": 1,
}
EXPANSION_COUNTS: dict[str, dict[str, int]] = {"base": BASE_COUNTS, "dodge_city": DODGE_CITY_COUNTS,
                                               "armed_and_dangerous": ARMED_AND_DANGEROUS_COUNTS}
