"""Task templates of the navigation domain.

Every request is built from the state it will run on, so each gold write succeeds and changes
something: "pause" only a running route, "start" only when idle, a requested value always differs
from the current one. Compound tasks join requests that touch disjoint settings and whose
preconditions the others leave alone (see :class:`Ask`), so any order works. Compositional tasks
build their requests one after another on a scratch copy of the state: a request may need an
earlier one (stop the route, then start another) or use what an earlier read returns ("find the
nearest charging station and add it as a stop").
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import (
    Ask,
    Each,
    Quota,
    Rounds,
    Scratch,
    Simulator,
    compose_families,
    draft_plan,
    requests_of,
    shuffled_compound,
)
from toolprism.domains._phrasing import Request, request
from toolprism.domains.navigation import _ops
from toolprism.domains.navigation._state import (
    CATEGORIES,
    CATEGORY_OF,
    CONTACTS,
    FEATURES,
    LANGUAGES,
    MAP_MODES,
    MAX_WAYPOINTS,
    PLACES,
    POSITIONS,
    PREFERENCES,
    SORT_KEYS,
    STOPS,
    NavigationState,
)

SINGLE_WRITES = 20
"""Single-call write tasks per seed (the questions add nine more single tasks)."""
COMPOUND = 76
COMPOSITIONAL = 25
COMPOUND_SIZES = {2: 25, 3: 32, 4: 28, 5: 15}
"""Number of requests in a compound task → relative weight."""

ROUTE = ("route.status",)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _ask(name: str, direct, indirect, gold, writes, reads=()) -> Ask:  # noqa: ANN001
    return Ask(request(direct, indirect, *gold), frozenset(writes), frozenset(reads), name)


def _active(state: NavigationState) -> bool:
    return state.route.status != "idle"


PLACE_TEXT = {
    "home": "home",
    "work": "work",
    "airport": "the airport",
    "gym": "the gym",
    "school": "school",
    "downtown": "downtown",
    "beach": "the beach",
}
CATEGORY_TEXT = {
    "fuel": "fuel station",
    "charging": "charging station",
    "coffee": "coffee shop",
    "parking": "parking garage",
    "restaurant": "restaurant",
}
CATEGORY_REASON = {
    "fuel": "I'm running low on fuel",
    "charging": "the battery needs a top-up",
    "coffee": "I need a caffeine fix",
    "parking": "I'll need somewhere to park",
    "restaurant": "we're getting hungry",
}
MODE_TEXT = {"north_up": "north up", "heading_up": "heading up", "3d": "3D", "satellite": "satellite"}
CONTACT_TEXT = {"alex": "Alex", "jordan": "Jordan", "mom": "Mom", "team": "the team"}
SORT_TEXT = {"distance": ("nearest", "closest"), "rating": ("best rated", "highest rated")}


def _stop_name(stop: str) -> str:
    return _words(stop).title()


# --- single-call requests, each phrased from the current state --------------------------------

_ROUTE_GOALS = {
    "fastest": "get me to {} by the fastest route, I'm running late",
    "shortest": "take me to {} the shortest route, keep the distance down",
    "eco": "guide me to {} on the eco route to save fuel",
    "scenic": "take me to {} along the scenic route, I'm in no hurry",
}


def _start_ask(rng: random.Random, state: NavigationState, exclude: tuple = ()) -> Ask | None:
    if _active(state):
        return None
    dest = rng.choice([p for p in PLACES if p not in exclude])
    route = rng.choice(PREFERENCES)
    where = PLACE_TEXT[dest]
    return _ask(
        "start",
        (f"navigate to {where} using the {route} route", f"start navigation to {where} with the {route} route"),
        _ROUTE_GOALS[route].format(where),
        [("start", {"destination": dest, "route": route})],
        ["route.status", "route.destination", "route.preference", "route.waypoints"],
        ROUTE,
    )


def _pause_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if state.route.status != "navigating":
        return None
    return _ask(
        "pause",
        ("pause the navigation", "pause the route guidance"),
        "hold the navigation for a moment, I'm pulling over to stretch my legs",
        [("pause", {})],
        ["route.status"],
        ROUTE,
    )


def _resume_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if state.route.status != "paused":
        return None
    return _ask(
        "resume",
        ("resume the navigation", "resume the paused route"),
        "pick the navigation back up where it left off, I'm back on the road",
        [("resume", {})],
        ["route.status"],
        ROUTE,
    )


def _stop_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if not _active(state):
        return None
    return _ask(
        "stop",
        ("stop the navigation", "end the current route"),
        "end the navigation, I know the way from here",
        [("stop", {})],
        ["route.status", "route.destination", "route.waypoints", *(f"share.{c}" for c in CONTACTS)],
        ROUTE,
    )


def _add_waypoint_ask(
    rng: random.Random, state: NavigationState, stop: str | None = None, position: str | None = None
) -> Ask | None:
    waypoints = state.route.waypoints
    if not _active(state) or len(waypoints) >= MAX_WAYPOINTS:
        return None
    stop = stop or rng.choice([s for s in STOPS if s not in waypoints])
    if stop in waypoints:
        return None
    position = position or rng.choice(POSITIONS)
    name = _stop_name(stop)
    return _ask(
        "add_waypoint",
        (f"add {name} as the {position} stop", f"put {name} on the route as the {position} stop"),
        f"add {name} as the {position} stop since {CATEGORY_REASON[CATEGORY_OF[stop]]}",
        [("add_waypoint", {"stop": stop, "position": position})],
        ["route.waypoints"],
        ROUTE,
    )


def _remove_waypoint_ask(rng: random.Random, state: NavigationState, stop: str | None = None) -> Ask | None:
    if not state.route.waypoints:
        return None
    stop = stop or rng.choice(state.route.waypoints)
    name = _stop_name(stop)
    return _ask(
        "remove_waypoint",
        (f"remove {name} from the route", f"take the {name} stop off the route"),
        f"drop the {name} stop from the route, we don't need it any more",
        [("remove_waypoint", {"stop": stop})],
        ["route.waypoints"],
    )


_PREFERENCE_GOALS = {
    "fastest": "recalculate for the fastest route, I'm running late",
    "shortest": "reroute along the shortest route to keep the distance down",
    "eco": "switch to the eco route to save fuel",
    "scenic": "take the scenic route instead, there's no rush",
}


def _preference_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if not _active(state):
        return None
    route = rng.choice([p for p in PREFERENCES if p != state.route.preference])
    return _ask(
        "set_route_preference",
        (f"switch to the {route} route", f"change the route preference to {route}"),
        _PREFERENCE_GOALS[route],
        [("set_route_preference", {"route": route})],
        ["route.preference"],
        ROUTE,
    )


_AVOID_GOALS = {
    "tolls": "avoid tolls, I don't want to pay for the roads",
    "highways": "avoid highways, I'd rather take local streets",
    "ferries": "avoid ferries, I get seasick",
    "unpaved_roads": "avoid unpaved roads so the car stays clean",
}


def _avoid_ask(rng: random.Random, state: NavigationState, feature: str) -> Ask:
    setting = "allow" if state.avoid[feature] == "avoid" else "avoid"
    what = _words(feature)
    if setting == "avoid":
        direct = (f"avoid {what} on my routes", f"set the route options to avoid {what}")
        indirect = _AVOID_GOALS[feature]
    else:
        direct = (f"allow {what} on my routes", f"set the route options to allow {what}")
        indirect = f"allow {what} again if they make the drive quicker"
    return _ask(
        "set_avoid",
        direct,
        indirect,
        [("set_avoid", {"feature": feature, "setting": setting})],
        [f"avoid.{feature}"],
    )


_MODE_GOALS = {
    "north_up": "keep north at the top of the map with north up mode",
    "heading_up": "turn the map with the car using heading up mode",
    "3d": "show the buildings around me by putting the map in 3D",
    "satellite": "show real imagery with the satellite map mode",
}


def _mode_ask(rng: random.Random, state: NavigationState) -> Ask:
    mode = rng.choice([m for m in MAP_MODES if m != state.map_mode])
    text = MODE_TEXT[mode]
    return _ask(
        "set_mode",
        (f"switch the map to {text}", f"set the map mode to {text}"),
        _MODE_GOALS[mode],
        [("set_mode", {"mode": mode})],
        ["map.mode"],
    )


_GUIDANCE_GOALS = {
    "full": "talk me through every turn with full voice guidance in {}",
    "alerts_only": "only speak up for alerts, voice guidance on alerts only in {}",
    "muted": "silence the voice guidance, mute it and keep it in {}",
}


def _guidance_ask(
    rng: random.Random, state: NavigationState, levels: tuple = ("full", "alerts_only", "muted")
) -> Ask | None:
    voice = state.voice
    options = [(lv, lang) for lv in levels for lang in LANGUAGES if (lv, lang) != (voice.level, voice.language)]
    # Prefer changing one thing at a time, as people usually do.
    simple = [o for o in options if o[0] == voice.level or o[1] == voice.language]
    if not options:
        return None
    level, language = rng.choice(simple or options)
    lang = language.title()
    text = "mute" if level == "muted" else f"set to {_words(level)}"
    return _ask(
        "set_voice_guidance",
        (f"set the voice guidance to {_words(level)} in {lang}", f"have the voice guidance {text} in {lang}"),
        _GUIDANCE_GOALS[level].format(lang),
        [("set_voice_guidance", {"level": level, "language": language})],
        ["voice.level", "voice.language"],
    )


def _volume_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if state.voice.level == "muted":
        return None
    current = state.voice.volume
    volume = rng.choice([v for v in range(10, 101, 10) if v != current])
    if volume > current:
        indirect = f"turn the voice guidance up to {volume}% because I can't hear the directions"
    else:
        indirect = f"turn the voice guidance down to {volume}%, it's far too loud"
    return _ask(
        "set_volume",
        (f"set the guidance volume to {volume}%", f"change the voice guidance volume to {volume}%"),
        indirect,
        [("set_volume", {"volume": volume})],
        ["voice.volume"],
        ["voice.level"],
    )


def _share_ask(rng: random.Random, state: NavigationState, contact: str, setting: str | None = None) -> Ask | None:
    setting = setting or ("stop" if state.sharing[contact] == "on" else "start")
    if (setting == "start") == (state.sharing[contact] == "on") or (setting == "start" and not _active(state)):
        return None
    who = CONTACT_TEXT[contact]
    if setting == "start":
        direct = (f"start sharing my ETA with {who}", f"start an ETA share with {who}")
        indirect = f"start sharing my ETA with {who} so they know when I'll arrive"
    else:
        direct = (f"stop sharing my ETA with {who}", f"stop the ETA share with {who}")
        indirect = f"stop sharing my ETA with {who}, they don't need to follow my trip any more"
    return _ask(
        "share_eta",
        direct,
        indirect,
        [("share_eta", {"contact": contact, "setting": setting})],
        [f"share.{contact}"],
        ROUTE,
    )


def write_asks(rng: random.Random, state: NavigationState) -> list[Ask]:
    """One single-call write for every setting that can change now."""
    asks = [
        _start_ask(rng, state),
        _pause_ask(rng, state),
        _resume_ask(rng, state),
        _stop_ask(rng, state),
        _add_waypoint_ask(rng, state),
        _remove_waypoint_ask(rng, state),
        _preference_ask(rng, state),
        *(_avoid_ask(rng, state, f) for f in FEATURES),
        _mode_ask(rng, state),
        _guidance_ask(rng, state),
        _volume_ask(rng, state),
        *(_share_ask(rng, state, c) for c in CONTACTS),
    ]
    return [a for a in asks if a is not None]


# --- questions (one read each) -----------------------------------------------------------------


def questions(rng: random.Random) -> list[Request]:
    """Read-only questions: one per status section, the saved places, and four place searches."""
    out = [
        request(
            ("what is the ETA on the current route?", "where is the current route taking me?"),
            "check the route and tell me when I'll get there",
            ("get_status", {"section": "route"}),
        ),
        request(
            ("what mode is the map display in?", "which map mode is the display using?"),
            "tell me how the display is showing the map, it looks different today",
            ("get_status", {"section": "display"}),
        ),
        request(
            ("how is the voice guidance set?", "what language and volume is the voice guidance on?"),
            "check the voice guidance settings, the directions sound odd",
            ("get_status", {"section": "voice"}),
        ),
        request(
            ("who am I sharing my ETA with?", "which ETA sharing is on right now?"),
            "tell me who can see my ETA through sharing right now",
            ("get_status", {"section": "sharing"}),
        ),
        request(
            ("list my saved places", "which saved places do I have?"),
            "remind me which places I've saved and how long each drive is",
            ("list_saved_places", {}),
        ),
    ]
    for category, sort in rng.sample([(c, s) for c in CATEGORIES for s in SORT_KEYS], 4):
        what = CATEGORY_TEXT[category]
        best, other = SORT_TEXT[sort]
        out.append(
            request(
                (f"find the {best} {what}", f"which {what} is the {other} one?"),
                f"look up the {best} {what} for me, {CATEGORY_REASON[category]}",
                ("find_poi", {"category": category, "sort": sort}),
            )
        )
    return out


# --- compositional requests: built one after another on a scratch state -----------------------

Plan = list[Request]
SIM = Simulator(_ops.OPERATIONS)


def _stops_and_shares(rng: random.Random, s: Scratch) -> None:
    """After a start: one or two stops, and sometimes an ETA share."""
    for _ in range(rng.randint(1, 2)):
        s.add(_add_waypoint_ask(rng, s.state))
    if rng.random() < 0.5:
        s.add(_share_ask(rng, s.state, rng.choice(CONTACTS), "start"))


def switch_destination(rng: random.Random, state: NavigationState) -> Plan | None:
    """Stop the route in progress, then start another (and maybe add a stop or share the ETA)."""
    if not _active(state):
        return None
    s = Scratch(SIM, state)
    s.add(_stop_ask(rng, s.state))
    s.add(_start_ask(rng, s.state, exclude=(state.route.destination,)))
    if rng.random() < 0.5:
        _stops_and_shares(rng, s)
    return s.plan


def start_trip(rng: random.Random, state: NavigationState) -> Plan | None:
    """Start a route, then add stops to it and maybe share the ETA."""
    if _active(state):
        return None
    s = Scratch(SIM, state)
    s.add(_start_ask(rng, s.state))
    _stops_and_shares(rng, s)
    return s.plan


def find_and_add(rng: random.Random, state: NavigationState) -> Plan | None:
    """Search a category, then add its top result as a stop (starting a route first if idle)."""
    s = Scratch(SIM, state)
    if not _active(state):
        s.add(_start_ask(rng, s.state))
    for category in rng.sample(CATEGORIES, rng.randint(1, 2)):
        sort = rng.choice(SORT_KEYS)
        top = _ops.find_poi(s.state, category, sort)["results"][0]["name"]
        waypoints = s.state.route.waypoints
        if top in waypoints or len(waypoints) >= MAX_WAYPOINTS:
            continue
        position = rng.choice(POSITIONS)
        what, (best, other) = CATEGORY_TEXT[category], SORT_TEXT[sort]
        s.add(
            request(
                (
                    f"find the {best} {what} and add it as the {position} stop",
                    f"look up the {other} {what} and put it on the route as the {position} stop",
                ),
                f"look for the {best} {what} and make it the {position} stop, {CATEGORY_REASON[category]}",
                ("find_poi", {"category": category, "sort": sort}),
                ("add_waypoint", {"stop": top, "position": position}),
            )
        )
    return s.plan if any(len(r.gold) > 1 for r in s.plan) else None


def pause_or_resume(rng: random.Random, state: NavigationState) -> Plan | None:
    """Check the route; resume it if paused, pause it if running."""
    if not _active(state):
        return None
    op = "resume" if state.route.status == "paused" else "pause"
    return [
        request(
            (
                "check the route and resume the navigation if it's paused, or pause it if it's running",
                "look at the route status: if navigation is paused resume it, otherwise pause it",
            ),
            "check the route and flip the guidance, resume it if it's paused and pause it if it's running",
            ("get_status", {"section": "route"}),
            (op, {}),
        )
    ]


def unmute_and_set_volume(rng: random.Random, state: NavigationState) -> Plan | None:
    """Unmute the voice guidance (same language), then set its volume."""
    if state.voice.level != "muted":
        return None
    s = Scratch(SIM, state)
    level = rng.choice(("full", "alerts_only"))
    lang = state.voice.language
    text = f"{_words(level)} in {lang.title()}"
    s.add(
        request(
            (f"unmute the voice guidance to {text}", f"turn the voice guidance back on at {text}"),
            f"bring the voice guidance back, {text}, I keep missing turns",
            ("set_voice_guidance", {"level": level, "language": lang}),
        )
    )
    s.add(_volume_ask(rng, s.state))
    return s.plan


def replace_stop(rng: random.Random, state: NavigationState) -> Plan | None:
    """On a route with the most stops, remove one and add another in its place."""
    if len(state.route.waypoints) < MAX_WAYPOINTS:
        return None
    s = Scratch(SIM, state)
    s.add(_remove_waypoint_ask(rng, s.state))
    s.add(_add_waypoint_ask(rng, s.state, rng.choice([x for x in STOPS if x not in state.route.waypoints])))
    return s.plan


def nearest_saved_place(rng: random.Random, state: NavigationState) -> Plan | None:
    """Stop any route in progress, read the saved places and navigate to the shortest drive."""
    s = Scratch(SIM, state)
    if _active(state):
        s.add(_stop_ask(rng, s.state))
    nearest = min(PLACES, key=lambda p: state.places[p].drive_minutes)
    route = rng.choice(PREFERENCES)
    s.add(
        request(
            (
                f"navigate to whichever saved place is the shortest drive away, using the {route} route",
                f"check my saved places and start navigation to the closest one with the {route} route",
            ),
            f"look through my saved places and take me to the one with the shortest drive, {route} route please",
            ("list_saved_places", {}),
            ("start", {"destination": nearest, "route": route}),
        )
    )
    return s.plan


def stop_all_shares(rng: random.Random, state: NavigationState) -> Plan | None:
    """Read the ETA shares, then stop every one that is on."""
    sharing = [c for c in CONTACTS if state.sharing[c] == "on"]
    if not sharing:
        return None
    return [
        request(
            (
                "check who I'm sharing my ETA with and stop sharing with all of them",
                "look up my ETA sharing and stop every share that is on",
            ),
            "I want some privacy, so check the ETA sharing and stop sharing with everyone who can see it",
            ("get_status", {"section": "sharing"}),
            *(("share_eta", {"contact": c, "setting": "stop"}) for c in sharing),
        )
    ]


COMPOSITIONAL_TEMPLATES: dict[str, Callable[[random.Random, NavigationState], Plan | None]] = {
    "switch_destination": switch_destination,
    "start_trip": start_trip,
    "find_and_add": find_and_add,
    "pause_or_resume": pause_or_resume,
    "unmute_and_set_volume": unmute_and_set_volume,
    "replace_stop": replace_stop,
    "nearest_saved_place": nearest_saved_place,
    "stop_all_shares": stop_all_shares,
}
"""Template name → builder of an ordered plan of dependent requests (None: not possible here)."""
FAMILY = {
    "switch_destination": "route",
    "start_trip": "route",
    "find_and_add": "route",
    "pause_or_resume": "route",
    "replace_stop": "route",
    "nearest_saved_place": "route",
    "unmute_and_set_volume": "voice",
    "stop_all_shares": "sharing",
}
"""Two plans are chained into one task only when their templates belong to different families."""


def _compositional(rng: random.Random, state: NavigationState) -> tuple[str, Plan] | None:
    """One plan, often followed by a plan of another family built on the state the first leaves."""
    return compose_families(rng, SIM, state, COMPOSITIONAL_TEMPLATES, FAMILY, chance=0.6, first_calls=3)


# --- assembly ----------------------------------------------------------------------------------


def _compound(rng: random.Random, state: NavigationState, size: int) -> list[Ask] | None:
    """``size`` pairwise independent asks from a shuffled pool of the world's write asks."""
    return shuffled_compound(rng, write_asks(rng, state), size)


def _sized_compound(rng: random.Random, state: NavigationState) -> list[Request] | None:
    return requests_of(_compound(rng, state, rng.choices(*zip(*COMPOUND_SIZES.items(), strict=True))[0]))


PLAN = (
    Each("question", lambda rng, s: [[q] for q in questions(rng)], "single"),
    Rounds(write_asks, SINGLE_WRITES),
    Quota("compound", _sized_compound, COMPOUND, "compound", tries=20),
    Quota("", _compositional, COMPOSITIONAL, "compositional", tries=40),
)
"""Questions, one-call writes, compound tasks, then compositional ones."""


def drafts(state: NavigationState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``: 29 single, 76 compound and 25
    compositional drafts (fewer only if the world runs out of distinct requests), deterministic.
    """
    return draft_plan(random.Random(f"navigation/tasks/{world_seed}"), state, PLAN)
