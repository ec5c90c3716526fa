"""Typed state of the navigation world: the active route, saved places, points of interest, display,
voice guidance and ETA sharing.

The saved places and the points of interest are fixed names; their drive times, distances,
ratings and detours, the route in progress (if any) and every setting are drawn from
``random.Random(f"navigation/world/{world_seed}")``. The initial state satisfies every rule the
operations enforce (see :mod:`._ops`).
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from toolprism.domains._device import Percent, StateModel

Place = Literal["home", "work", "airport", "gym", "school", "downtown", "beach"]
Category = Literal["fuel", "charging", "coffee", "parking", "restaurant"]
Stop = Literal[
    "quickfuel",
    "roadstar",
    "fuel_depot",
    "voltpark",
    "plugstop",
    "chargehub",
    "bean_there",
    "daily_grind",
    "java_junction",
    "central_garage",
    "riverside_lot",
    "market_parking",
    "olive_tree",
    "noodle_bar",
    "burger_barn",
]
SortKey = Literal["distance", "rating"]
RoutePreference = Literal["fastest", "shortest", "eco", "scenic"]
RouteStatus = Literal["idle", "navigating", "paused"]
Position = Literal["first", "last"]
Feature = Literal["tolls", "highways", "ferries", "unpaved_roads"]
AvoidSetting = Literal["avoid", "allow"]
MapMode = Literal["north_up", "heading_up", "3d", "satellite"]
GuidanceLevel = Literal["full", "alerts_only", "muted"]
Language = Literal["english", "spanish", "french", "german"]
Contact = Literal["alex", "jordan", "mom", "team"]
ShareSetting = Literal["start", "stop"]
Power = Literal["on", "off"]
Section = Literal["route", "display", "voice", "sharing"]

PLACES: tuple[Place, ...] = get_args(Place)
CATEGORIES: tuple[Category, ...] = get_args(Category)
STOPS: tuple[Stop, ...] = get_args(Stop)
SORT_KEYS: tuple[SortKey, ...] = get_args(SortKey)
PREFERENCES: tuple[RoutePreference, ...] = get_args(RoutePreference)
POSITIONS: tuple[Position, ...] = get_args(Position)
FEATURES: tuple[Feature, ...] = get_args(Feature)
MAP_MODES: tuple[MapMode, ...] = get_args(MapMode)
LEVELS: tuple[GuidanceLevel, ...] = get_args(GuidanceLevel)
LANGUAGES: tuple[Language, ...] = get_args(Language)
CONTACTS: tuple[Contact, ...] = get_args(Contact)
SECTIONS: tuple[Section, ...] = get_args(Section)

CATEGORY_OF: dict[Stop, Category] = {stop: CATEGORIES[i // 3] for i, stop in enumerate(STOPS)}
"""Three points of interest per category, in declaration order."""
MAX_WAYPOINTS = 3
PREFERENCE_MINUTES: dict[RoutePreference, int] = {"fastest": 0, "shortest": 4, "eco": 6, "scenic": 15}
"""Minutes a route preference adds to the fastest drive."""
AVOID_MINUTES: dict[Feature, int] = {"tolls": 5, "highways": 12, "ferries": 8, "unpaved_roads": 2}
"""Minutes avoiding a road feature adds to a route."""


class SavedPlace(StateModel):
    """A saved destination and its drive time (minutes) from here by the fastest route."""

    address: str
    drive_minutes: int


class PointOfInterest(StateModel):
    """A place along the way; ``detour_minutes`` is what a stop there adds to a route."""

    category: Category
    distance_km: float
    rating: float
    detour_minutes: int


class Route(StateModel):
    """The route; ``destination`` is None and ``waypoints`` empty while idle."""

    status: RouteStatus
    destination: Place | None
    preference: RoutePreference
    waypoints: list[Stop]


class Voice(StateModel):
    """Voice guidance; the volume (percent) is kept while muted."""

    level: GuidanceLevel
    language: Language
    volume: Percent


class NavigationState(StateModel):
    """The whole navigation unit."""

    route: Route
    avoid: dict[Feature, AvoidSetting]
    map_mode: MapMode
    voice: Voice
    sharing: dict[Contact, Power]
    places: dict[Place, SavedPlace]
    pois: dict[Stop, PointOfInterest]


def eta_minutes(state: NavigationState) -> int | None:
    """Minutes to the destination: fastest drive + preference + avoided features + stop detours
    (None while idle)."""
    route = state.route
    if route.destination is None:
        return None
    return (
        state.places[route.destination].drive_minutes
        + PREFERENCE_MINUTES[route.preference]
        + sum(AVOID_MINUTES[f] for f, setting in state.avoid.items() if setting == "avoid")
        + sum(state.pois[s].detour_minutes for s in route.waypoints)
    )


_STREETS = ("Maple Ave", "Harbor Rd", "Elm St", "Station Sq", "Hill Dr", "Lake Blvd", "Park Ln", "Mill Way")


def initial_state(world_seed: int) -> NavigationState:
    """The navigation unit for ``world_seed`` (deterministic; differs across seeds)."""
    rng = random.Random(f"navigation/world/{world_seed}")
    drive = rng.sample(range(8, 75), len(PLACES))  # distinct, so "the closest place" is unique
    places = {
        p: SavedPlace(address=f"{rng.randint(1, 299)} {rng.choice(_STREETS)}", drive_minutes=m)
        for p, m in zip(PLACES, drive, strict=True)
    }
    pois = {}
    for category in CATEGORIES:
        stops = [s for s in STOPS if CATEGORY_OF[s] == category]
        distances = rng.sample(range(3, 90), len(stops))  # distinct, in tenths of a km
        ratings = rng.sample(range(30, 50), len(stops))  # distinct, in tenths of a star
        for stop, d, r in zip(stops, distances, ratings, strict=True):
            pois[stop] = PointOfInterest(
                category=category, distance_km=d / 10, rating=r / 10, detour_minutes=rng.randint(2, 9)
            )
    status = rng.choice(("idle", "navigating", "navigating", "paused"))
    active = status != "idle"
    route = Route(
        status=status,
        destination=rng.choice(PLACES) if active else None,
        preference=rng.choice(PREFERENCES),
        waypoints=rng.sample(STOPS, rng.randint(0, MAX_WAYPOINTS)) if active else [],
    )
    return NavigationState(
        route=route,
        avoid={f: rng.choice(("avoid", "allow")) for f in FEATURES},
        map_mode=rng.choice(MAP_MODES),
        voice=Voice(
            level=rng.choice(("full", "full", "alerts_only", "muted")),
            language=rng.choice(("english", "english", "spanish", "french", "german")),
            volume=rng.randrange(20, 81, 5),
        ),
        sharing={c: rng.choice(("on", "off")) if active else "off" for c in CONTACTS},
        places=places,
        pois=pois,
    )
