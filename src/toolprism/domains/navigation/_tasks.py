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

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import Ask, Scratch, Simulator, compose_families, other, requests_of, shuffled_compound
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import Each, Quota, Rounds, draft_plan
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
    SECTIONS,
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


def _ask(name: str, direct, indirect, gold, writes, reads=()) -> Ask:  # noqa: ANN001
    return Ask(request(direct, indirect, *gold), frozenset(writes), frozenset(reads), name)


def _active(state: NavigationState) -> bool:
    return state.route.status != "idle"


PLACE_TEXT = {
    "home": "{}",
    "work": "{}",
    "airport": "the {}",
    "gym": "the {}",
    "school": "{}",
    "downtown": "{}",
    "beach": "the {}",
}
CATEGORY_TEXT = {
    "fuel": "{} station",
    "charging": "{} station",
    "coffee": "{} shop",
    "parking": "{} garage",
    "restaurant": "{}",
}
CATEGORY_REASON = {
    "fuel": "I'm running low on fuel",
    "charging": "the battery needs a top-up",
    "coffee": "I need a caffeine fix",
    "parking": "I'll need somewhere to park",
    "restaurant": "we're getting hungry",
}
MODE_TEXT = {"north_up": "north up", "heading_up": "heading up", "3d": "3D", "satellite": "satellite"}
CONTACT_TEXT = {"alex": "Alex", "jordan": "Jordan", "mom": "Mom", "team": "the {team}"}
SORT_TEXT = {"distance": ("nearest", "closest"), "rating": ("best rated", "highest rated")}


def _place(place: str) -> str:
    return PLACE_TEXT[place].format(slot(place))


def _category(category: str) -> str:
    return CATEGORY_TEXT[category].format(slot(category))


def _sorted_by(sort: str) -> tuple[str, str]:
    return tuple(slot(sort, text) for text in SORT_TEXT[sort])  # type: ignore[return-value]


def _contact(contact: str) -> str:
    text = CONTACT_TEXT[contact]
    return text.format(team=slot(contact)) if "{" in text else slot(contact, text)


def _language(language: str) -> str:
    return slot(language, language.title())


def _stop_name(stop: str) -> str:
    return slot(stop, stop.replace("_", " ").title())


# --- single-call requests, each phrased from the current state --------------------------------

_ROUTE_GOALS = {
    "fastest": "get me to {where} by the {route} route, I'm running late",
    "shortest": "take me to {where} the {route} route, keep the distance down",
    "eco": "guide me to {where} on the {route} route to save fuel",
    "scenic": "take me to {where} along the {route} route, I'm in no hurry",
}


def _start_ask(rng: random.Random, state: NavigationState, exclude: tuple = ()) -> Ask | None:
    if _active(state):
        return None
    dest = rng.choice([p for p in PLACES if p not in exclude])
    route = rng.choice(PREFERENCES)
    where, r = _place(dest), slot(route)
    return _ask(
        "start",
        (f"navigate to {where} using the {r} route", f"start navigation to {where} with the {r} route"),
        _ROUTE_GOALS[route].format(where=where, route=r),
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
    name, at = _stop_name(stop), slot(position)
    return _ask(
        "add_waypoint",
        (f"add {name} as the {at} stop", f"put {name} on the route as the {at} stop"),
        f"add {name} as the {at} stop since {CATEGORY_REASON[CATEGORY_OF[stop]]}",
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
    "fastest": "recalculate for the {} route, I'm running late",
    "shortest": "reroute along the {} route to keep the distance down",
    "eco": "switch to the {} route to save fuel",
    "scenic": "take the {} route instead, there's no rush",
}


def _preference_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if not _active(state):
        return None
    route = other(rng, PREFERENCES, state.route.preference)
    r = slot(route)
    return _ask(
        "set_route_preference",
        (f"switch to the {r} route", f"change the route preference to {r}"),
        _PREFERENCE_GOALS[route].format(r),
        [("set_route_preference", {"route": route})],
        ["route.preference"],
        ROUTE,
    )


_AVOID_GOALS = {
    "tolls": "{setting} {what}, I don't want to pay for the roads",
    "highways": "{setting} {what}, I'd rather take local streets",
    "ferries": "{setting} {what}, I get seasick",
    "unpaved_roads": "{setting} {what} so the car stays clean",
}


def _avoid_ask(rng: random.Random, state: NavigationState, feature: str) -> Ask:
    setting = "allow" if state.avoid[feature] == "avoid" else "avoid"
    what, v = slot(feature), slot(setting)
    if setting == "avoid":
        direct = (f"{v} {what} on my routes", f"set the route options to {v} {what}")
        indirect = _AVOID_GOALS[feature].format(setting=v, what=what)
    else:
        direct = (f"{v} {what} on my routes", f"set the route options to {v} {what}")
        indirect = f"{v} {what} again if they make the drive quicker"
    return _ask(
        "set_avoid",
        direct,
        indirect,
        [("set_avoid", {"feature": feature, "setting": setting})],
        [f"avoid.{feature}"],
    )


_MODE_GOALS = {
    "north_up": "keep north at the top of the map with {} mode",
    "heading_up": "turn the map with the car using {} mode",
    "3d": "show the buildings around me by putting the map in {}",
    "satellite": "show real imagery with the {} map mode",
}


def _mode_ask(rng: random.Random, state: NavigationState) -> Ask:
    mode = other(rng, MAP_MODES, state.map_mode)
    text = slot(mode, MODE_TEXT[mode])
    return _ask(
        "set_mode",
        (f"switch the map to {text}", f"set the map mode to {text}"),
        _MODE_GOALS[mode].format(text),
        [("set_mode", {"mode": mode})],
        ["map.mode"],
    )


_GUIDANCE_GOALS = {
    "full": "talk me through every turn with {level} voice guidance in {lang}",
    "alerts_only": "only speak up for alerts, voice guidance on {level} in {lang}",
    "muted": "silence the voice guidance, {mute} it and keep it in {lang}",
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
    lang, said = _language(language), slot(level)
    text = slot(level, "mute") if level == "muted" else f"set to {said}"
    return _ask(
        "set_voice_guidance",
        (f"set the voice guidance to {said} in {lang}", f"have the voice guidance {text} in {lang}"),
        _GUIDANCE_GOALS[level].format(level=said, mute=slot(level, "mute"), lang=lang),
        [("set_voice_guidance", {"level": level, "language": language})],
        ["voice.level", "voice.language"],
    )


def _volume_ask(rng: random.Random, state: NavigationState) -> Ask | None:
    if state.voice.level == "muted":
        return None
    current = state.voice.volume
    volume = other(rng, range(10, 101, 10), current)
    v = slot(volume)
    if volume > current:
        indirect = f"turn the voice guidance up to {v}% because I can't hear the directions"
    else:
        indirect = f"turn the voice guidance down to {v}%, it's far too loud"
    return _ask(
        "set_volume",
        (f"set the guidance volume to {v}%", f"change the voice guidance volume to {v}%"),
        indirect,
        [("set_volume", {"volume": volume})],
        ["voice.volume"],
        ["voice.level"],
    )


def _share_ask(rng: random.Random, state: NavigationState, contact: str, setting: str | None = None) -> Ask | None:
    setting = setting or ("stop" if state.sharing[contact] == "on" else "start")
    if (setting == "start") == (state.sharing[contact] == "on") or (setting == "start" and not _active(state)):
        return None
    who, v = _contact(contact), slot(setting)
    if setting == "start":
        direct = (f"{v} sharing my ETA with {who}", f"{v} an ETA share with {who}")
        indirect = f"{v} sharing my ETA with {who} so they know when I'll arrive"
    else:
        direct = (f"{v} sharing my ETA with {who}", f"{v} the ETA share with {who}")
        indirect = f"{v} sharing my ETA with {who}, they don't need to follow my trip any more"
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


STATUS = AskKind(
    "get_status",
    {
        "route": ("what is the ETA on the current {section}?", "where is the current {section} taking me?"),
        "display": ("what mode is the map {section} in?", "which map mode is the {section} using?"),
        "voice": ("how is the {section} guidance set?", "what language and volume is the {section} guidance on?"),
        "sharing": ("who am I {section} my ETA with?", "which ETA {section} is on right now?"),
    },
    {
        "route": "check the {section} and tell me when I'll get there",
        "display": "tell me how the {section} is showing the map, it looks different today",
        "voice": "check the {section} guidance settings, the directions sound odd",
        "sharing": "tell me who can see my ETA through {section} right now",
    },
    key="section",
)
SAVED_PLACES = AskKind(
    "list_saved_places",
    ("list my saved places", "which saved places do I have?"),
    "remind me which places I've saved and how long each drive is",
)


def questions(rng: random.Random) -> list[Request]:
    """Read-only questions: one per status section, the saved places, and four place searches."""
    out = [*(STATUS.request(section=section) for section in SECTIONS), SAVED_PLACES.request()]
    for category, sort in rng.sample([(c, s) for c in CATEGORIES for s in SORT_KEYS], 4):
        what = _category(category)
        best, also = _sorted_by(sort)
        out.append(
            request(
                (f"find the {best} {what}", f"which {what} is the {also} one?"),
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
        what, (best, also), at = _category(category), _sorted_by(sort), slot(position)
        s.add(
            request(
                (
                    f"find the {best} {what} and add it as the {at} stop",
                    f"look up the {also} {what} and put it on the route as the {at} stop",
                ),
                f"look for the {best} {what} and make it the {at} stop, {CATEGORY_REASON[category]}",
                ("find_poi", {"category": category, "sort": sort}),
                ("add_waypoint", {"stop": replied(top), "position": position}),
            )
        )
    return s.plan if any(len(r.gold) > 1 for r in s.plan) else None


def pause_or_resume(rng: random.Random, state: NavigationState) -> Plan | None:
    """Check the route; resume it if paused, pause it if running."""
    if not _active(state):
        return None
    op = "resume" if state.route.status == "paused" else "pause"
    route = slot("route")
    return [
        request(
            (
                f"check the {route} and resume the navigation if it's paused, or pause it if it's running",
                f"look at the {route} status: if navigation is paused resume it, otherwise pause it",
            ),
            f"check the {route} and flip the guidance, resume it if it's paused and pause it if it's running",
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
    text = f"{slot(level)} in {_language(lang)}"
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
    r = slot(route)
    s.add(
        request(
            (
                f"navigate to whichever saved place is the shortest drive away, using the {r} route",
                f"check my saved places and start navigation to the closest one with the {r} route",
            ),
            f"look through my saved places and take me to the one with the shortest drive, {r} route please",
            ("list_saved_places", {}),
            ("start", {"destination": replied(nearest), "route": route}),
        )
    )
    return s.plan


def stop_all_shares(rng: random.Random, state: NavigationState) -> Plan | None:
    """Read the ETA shares, then stop every one that is on."""
    sharing = [c for c in CONTACTS if state.sharing[c] == "on"]
    if not sharing:
        return None
    shares, stop = slot("sharing"), slot("stop")
    return [
        request(
            (
                f"check who I'm {shares} my ETA with and {stop} sharing with all of them",
                f"look up my ETA {shares} and {stop} every share that is on",
            ),
            f"I want some privacy, so check the ETA {shares} and {stop} sharing with everyone who can see it",
            ("get_status", {"section": "sharing"}),
            *(("share_eta", {"contact": replied(c), "setting": "stop"}) for c in sharing),
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
