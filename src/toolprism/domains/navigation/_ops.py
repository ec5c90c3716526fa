"""The navigation native operations: plain functions ``op(state, **args) -> dict``.

Rules enforced as :class:`~toolprism.errors.DomainError` (checked before any mutation):

- ``start`` needs no route in progress (stop the current one first);
- ``pause`` needs a running route, ``resume`` a paused one, ``stop`` any route in progress;
- stops can be added, and the route preference changed, only while a route is in progress; a
  route holds at most three stops, each once; only a stop on the route can be removed;
- sharing the ETA needs a route in progress (stopping it always works);
- the guidance volume cannot be set while voice guidance is muted.

Stopping a route also stops every ETA share. Other writes are idempotent.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from toolprism.domains._base import operation
from toolprism.domains._opkit import discard, dumped, listing, refuse_if, transition, words
from toolprism.domains.navigation._state import (
    MAX_WAYPOINTS,
    AvoidSetting,
    Category,
    Contact,
    Feature,
    GuidanceLevel,
    Language,
    MapMode,
    NavigationState,
    Place,
    Position,
    RoutePreference,
    Section,
    ShareSetting,
    SortKey,
    Stop,
    eta_minutes,
)
from toolprism.errors import DomainError

StopArg = Annotated[Stop, Field(description="The point of interest (see find_poi).")]
PreferenceArg = Annotated[RoutePreference, Field(description="How to pick the route.")]


def _route_reply(state: NavigationState) -> dict:
    return {**state.route.model_dump(mode="json"), "eta_minutes": eta_minutes(state), "avoid": dict(state.avoid)}


def _require_route(state: NavigationState, what: str) -> None:
    refuse_if(state.route.status == "idle", f"no route is in progress; start navigation before you {what}")


# --- reads -------------------------------------------------------------------------------------


@operation(kind="read", group="status")
def get_status(
    state: NavigationState,
    section: Annotated[
        Section,
        Field(
            description="What to read: route (destination, stops, preference, ETA, avoided roads), "
            "display (map mode), voice (guidance) or sharing (ETA shares)."
        ),
    ],
) -> dict:
    """Get the current state of the route, the map display, voice guidance or ETA sharing."""
    if section == "route":
        return {"route": _route_reply(state)}
    if section == "display":
        return {"display": {"map_mode": state.map_mode}}
    if section == "voice":
        return {"voice": state.voice.model_dump(mode="json")}
    return {"sharing": dict(state.sharing)}


@operation(kind="read", group="places")
def find_poi(
    state: NavigationState,
    category: Annotated[Category, Field(description="What kind of place to find.")],
    sort: Annotated[SortKey, Field(description="Order: nearest first (distance) or best rated first (rating).")],
) -> dict:
    """Find the points of interest of a category, nearest first or best rated first."""
    found = [(name, poi) for name, poi in state.pois.items() if poi.category == category]
    if sort == "distance":
        found.sort(key=lambda item: item[1].distance_km)
    else:
        found.sort(key=lambda item: -item[1].rating)
    results = [dumped("name", name, poi, exclude={"category"}) for name, poi in found]
    return {"category": category, "sort": sort, "results": results}


@operation(kind="read", group="places")
def list_saved_places(state: NavigationState) -> dict:
    """List the saved places with their addresses and drive times (minutes, fastest route)."""
    return {"places": listing(state.places)}


# --- route -------------------------------------------------------------------------------------


@operation(kind="write", group="route")
def start(
    state: NavigationState,
    destination: Annotated[Place, Field(description="The saved place to drive to.")],
    route: PreferenceArg,
) -> dict:
    """Start navigation to a saved place; refused while another route is in progress."""
    if state.route.status != "idle":
        raise DomainError(
            f"navigation to {words(state.route.destination)} is in progress; stop it before starting a new route"
        )
    state.route.status = "navigating"
    state.route.destination = destination
    state.route.preference = route
    state.route.waypoints = []
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def pause(state: NavigationState) -> dict:
    """Pause the running route (guidance stops, the route is kept)."""
    refusal = f"navigation is {state.route.status}, not running; there is nothing to pause"
    transition(state.route, "status", "navigating", "paused", refusal)
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def resume(state: NavigationState) -> dict:
    """Resume a paused route."""
    refusal = f"navigation is {state.route.status}, not paused; there is nothing to resume"
    transition(state.route, "status", "paused", "navigating", refusal)
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def stop(state: NavigationState) -> dict:
    """End the route in progress: clear the destination and stops, and stop every ETA share."""
    _require_route(state, "stop it")
    state.route.status = "idle"
    state.route.destination = None
    state.route.waypoints = []
    state.sharing = {contact: "off" for contact in state.sharing}
    return {"route": _route_reply(state), "sharing": dict(state.sharing)}


@operation(kind="write", group="route")
def add_waypoint(
    state: NavigationState,
    stop: StopArg,
    position: Annotated[Position, Field(description="Make it the first or the last stop before the destination.")],
) -> dict:
    """Add a stop to the route in progress, as its first or last stop (three stops at most)."""
    _require_route(state, "add a stop")
    waypoints = state.route.waypoints
    refuse_if(stop in waypoints, f"{words(stop)} is already a stop on this route")
    refuse_if(len(waypoints) >= MAX_WAYPOINTS, f"the route already has {MAX_WAYPOINTS} stops; remove one first")
    waypoints.insert(0 if position == "first" else len(waypoints), stop)
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def remove_waypoint(state: NavigationState, stop: StopArg) -> dict:
    """Remove a stop from the route."""
    discard(state.route.waypoints, stop, f"{words(stop)} is not a stop on the current route")
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def set_route_preference(state: NavigationState, route: PreferenceArg) -> dict:
    """Recalculate the route in progress as the fastest, shortest, eco or scenic route."""
    _require_route(state, "change the route preference")
    state.route.preference = route
    return {"route": _route_reply(state)}


@operation(kind="write", group="route")
def set_avoid(
    state: NavigationState,
    feature: Annotated[Feature, Field(description="The road feature.")],
    setting: Annotated[AvoidSetting, Field(description="Avoid it or allow it on routes.")],
) -> dict:
    """Avoid or allow a road feature on this and future routes."""
    state.avoid[feature] = setting
    return {"avoid": dict(state.avoid), "eta_minutes": eta_minutes(state)}


# --- display, voice, sharing -------------------------------------------------------------------


@operation(kind="write", group="display")
def set_mode(
    state: NavigationState,
    mode: Annotated[MapMode, Field(description="Map mode: north_up, heading_up, 3d or satellite.")],
) -> dict:
    """Set the map display mode."""
    state.map_mode = mode
    return {"display": {"map_mode": mode}}


@operation(kind="write", group="voice")
def set_voice_guidance(
    state: NavigationState,
    level: Annotated[GuidanceLevel, Field(description="Full guidance, alerts only, or muted.")],
    language: Annotated[Language, Field(description="The guidance language.")],
) -> dict:
    """Set how much voice guidance is spoken, and in which language."""
    state.voice.level = level
    state.voice.language = language
    return {"voice": state.voice.model_dump(mode="json")}


@operation(kind="write", group="voice")
def set_volume(
    state: NavigationState,
    volume: Annotated[int, Field(ge=0, le=100, description="Guidance volume in percent (0-100).")],
) -> dict:
    """Set the voice guidance volume; refused while guidance is muted."""
    refuse_if(
        state.voice.level == "muted",
        "voice guidance is muted; set it to full or alerts_only before changing the volume",
    )
    state.voice.volume = volume
    return {"voice": state.voice.model_dump(mode="json")}


@operation(kind="write", group="sharing")
def share_eta(
    state: NavigationState,
    contact: Annotated[Contact, Field(description="Who to share the ETA with.")],
    setting: Annotated[ShareSetting, Field(description="Start or stop sharing live ETA with them.")],
) -> dict:
    """Start or stop sharing the live ETA with a contact; starting needs a route in progress."""
    if setting == "start":
        _require_route(state, "share your ETA")
    state.sharing[contact] = "on" if setting == "start" else "off"
    return {"contact": contact, "sharing": state.sharing[contact], "eta_minutes": eta_minutes(state)}


OPERATIONS = (
    get_status,
    find_poi,
    list_saved_places,
    start,
    pause,
    resume,
    stop,
    add_waypoint,
    remove_waypoint,
    set_route_preference,
    set_avoid,
    set_mode,
    set_voice_guidance,
    set_volume,
    share_eta,
)
"""All operations, in the order the action space lists them."""
