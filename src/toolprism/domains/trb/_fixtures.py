"""Fixed data and deterministic helpers the ToolRobustBench tools share.

Every output is a pure function of the call's arguments (and, for writes, nothing else either):
a table lookup, a formula, or :func:`fixed` (a number from the SHA-256 of the tool name and the
arguments), so the same call always returns the same payload (ToolRobustBench, section 4: "fixed
outputs, hand-written JSON schemas, deterministic executors").
"""

from __future__ import annotations

import hashlib
import math
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from toolprism.errors import DomainError

City = Literal["paris", "berlin", "madrid", "rome", "vienna", "prague", "amsterdam", "lisbon", "zurich", "oslo"]
CITIES: tuple[str, ...] = get_args(City)
COORDINATES: dict[str, tuple[float, float]] = {
    "paris": (48.857, 2.352),
    "berlin": (52.520, 13.405),
    "madrid": (40.417, -3.704),
    "rome": (41.903, 12.496),
    "vienna": (48.208, 16.373),
    "prague": (50.075, 14.438),
    "amsterdam": (52.370, 4.895),
    "lisbon": (38.722, -9.139),
    "zurich": (47.377, 8.542),
    "oslo": (59.914, 10.752),
}
CITY_ZONE: dict[str, str] = {c: "CET" for c in CITIES} | {"lisbon": "UTC"}
"""The time zone each city keeps (standard time, no daylight saving in this world)."""
Currency = Literal["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "SEK"]
EUR_PER: dict[str, float] = {
    "USD": 0.92,
    "EUR": 1.0,
    "GBP": 1.17,
    "JPY": 0.0061,
    "CHF": 1.04,
    "CAD": 0.68,
    "AUD": 0.61,
    "SEK": 0.088,
}
"""Euros per unit of each currency: the fixed rates every currency tool uses."""
Zone = Literal["UTC", "CET", "EET", "EST", "CST", "PST", "JST", "AEST"]
ZONE_OFFSET_H: dict[str, int] = {"UTC": 0, "CET": 1, "EET": 2, "EST": -5, "CST": -6, "PST": -8, "JST": 9, "AEST": 10}
Product = Literal[
    "laptop", "headphones", "coffee_maker", "desk_lamp", "backpack", "running_shoes", "monitor", "keyboard"
]
BASE_PRICE_EUR: dict[str, int] = {
    "laptop": 899,
    "headphones": 149,
    "coffee_maker": 89,
    "desk_lamp": 39,
    "backpack": 59,
    "running_shoes": 119,
    "monitor": 229,
    "keyboard": 69,
}
Store = Literal["downtown", "airport", "mall", "riverside", "online"]
STORE_MARKUP_PCT: dict[str, int] = {"downtown": 0, "airport": 12, "mall": 4, "riverside": -3, "online": -6}
Contact = Literal["alice", "bob", "carol", "dmitri", "erin", "farah", "gustavo", "hana"]
Restaurant = Literal["la_piazza", "sakura_garden", "el_toro", "spice_route", "le_petit_bistro", "bangkok_street"]
RESTAURANT_CUISINE: dict[str, str] = {
    "la_piazza": "italian",
    "sakura_garden": "japanese",
    "el_toro": "mexican",
    "spice_route": "indian",
    "le_petit_bistro": "french",
    "bangkok_street": "thai",
}
Cuisine = Literal["italian", "japanese", "mexican", "indian", "french", "thai"]
Room = Literal["living_room", "bedroom", "kitchen", "office", "bathroom"]
Mode = Literal["driving", "cycling", "walking", "transit"]
SPEED_KMH: dict[str, int] = {"driving": 80, "cycling": 18, "walking": 5, "transit": 65}
ROUTE_FACTOR: dict[str, float] = {"driving": 1.25, "cycling": 1.2, "walking": 1.2, "transit": 1.15}


def fixed(*parts: object, low: int, high: int) -> int:
    """A whole number in ``[low, high]`` fixed by ``parts`` (the SHA-256 of their text)."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return low + int.from_bytes(digest[:8], "big") % (high - low + 1)


def ident(prefix: str, *parts: object) -> str:
    """An identifier ``<prefix><4 digits>`` fixed by ``parts`` (``RT4821``)."""
    return f"{prefix}{fixed(prefix, *parts, low=1000, high=9999)}"


def choose(options: tuple[str, ...], *parts: object) -> str:
    """One of ``options``, fixed by ``parts``."""
    return options[fixed(*parts, low=0, high=len(options) - 1)]


def great_circle_km(a: str, b: str) -> float:
    """Great-circle distance between two cities of :data:`COORDINATES`, in km."""
    (lat1, lon1), (lat2, lon2) = (tuple(map(math.radians, COORDINATES[c])) for c in (a, b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


def refuse_if(condition: bool, refusal: str) -> None:
    """Refuse the call with ``refusal`` if ``condition`` holds.

    Raises:
        DomainError: ``refusal``.
    """
    if condition:
        raise DomainError(refusal)


class Record(BaseModel):
    """One confirmed write (an order, a booking, a message, a setting)."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    id: str
    arguments: dict[str, int | str]


class TrbState(BaseModel):
    """The environment's only state: the writes confirmed so far (reads never change it)."""

    model_config = ConfigDict(extra="forbid")

    records: list[Record] = []


def confirm(state: TrbState, tool: str, prefix: str, **arguments: int | str) -> str:
    """Record a write in ``state`` and return its identifier (fixed by the arguments)."""
    record_id = ident(prefix, tool, *arguments.values())
    state.records.append(Record(tool=tool, id=record_id, arguments=arguments))
    return record_id
