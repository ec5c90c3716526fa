"""Task generator of the smart-home domain: single, compound and compositional drafts.

Every draft is built with :mod:`toolprism.domains._phrasing`, so it has an easy form (direct
wording, gold order) and a hard form (indirect wording, reordered requests, chatter). Requests
are written from the seed's fresh world: a verb follows the device's current state ("lock" an
unlocked door, "turn on" a light that is off) and a requested value always differs from the
current one, so every gold write succeeds and changes the state. Each request claims the devices
it touches, and a compound draft only combines requests with disjoint claims (independent
requests, any order). Compositional drafts chain requests whose later calls depend on an earlier
reply (copy a value, act on a condition) or on an earlier call (turn a light on before dimming it).

Mix per seed (:data:`MIX`): 29 single, 76 compound and 25 compositional drafts (130; 260 tasks).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import MAX_CALLS, Ask, Simulator, flip, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import draft_plan, keyed_plan
from toolprism.domains.smart_home import _ops as ops
from toolprism.domains.smart_home._state import (
    BLINDS_ROOMS,
    COLORS,
    FAN_ROOMS,
    FAN_SPEEDS,
    LOCKS,
    PLAYLISTS,
    POSITIONS,
    ROOMS,
    SCENES,
    SPEAKER_ROOMS,
    TEMPERATURE_RANGE,
    ZONES,
    HomeState,
    Room,
    Zone,
)
from toolprism.schema import JSON

MIX: dict[str, int] = {"single": 29, "compound": 76, "compositional": 25}
"""Drafts per kind and seed (22 % / 58 % / 19 %)."""


Maker = Callable[[random.Random, HomeState, set[str]], Ask | None]
"""Builds one request on a device none of whose keys is in the taken set (None: no such device)."""


def _room_keys(room: Room) -> frozenset[str]:
    return frozenset(f"{device}:{room}" for device in ("light", "blinds", "fan", "speaker"))


def _pick(rng: random.Random, candidates: list, key: Callable[[object], str], taken: set[str]) -> object | None:
    free = [c for c in candidates if key(c) not in taken]
    return rng.choice(free) if free else None


def _change(
    rng: random.Random,
    taken: set[str],
    device: str,
    current: Mapping[str, JSON],
    values: Iterable[JSON],
    phrase: Callable[[Any, Any, Any], Request],
) -> Ask | None:
    """An ask setting one ``device`` (``"light"``, ``"speaker"``...) of those in ``current``
    (name → current value) not yet ``taken`` to one of ``values`` other than its current one,
    phrased by ``phrase(name, value, current)``; None when every one is taken. Two
    ``rng.choice`` calls: the device, then the value."""
    name = _pick(rng, list(current), lambda n: f"{device}:{n}", taken)
    if name is None:
        return None
    now = current[name]
    return Ask(phrase(name, other(rng, values, now), now), frozenset({f"{device}:{name}"}))


# --- lights ------------------------------------------------------------------------------------


LIGHT_POWER = AskKind(
    "set_light_power",
    ("turn {power} the {room} light", "switch the {room} light {power}"),
    {
        "on": (
            "put the {room} light {power}, I can't see a thing in there",
            "get the {room} light {power} before it gets dark",
        ),
        "off": (
            "let the {room} light go {power}, nobody is in there any more",
            "save some power by putting the {room} light {power}",
        ),
    },
    key="power",
)
BRIGHTNESS = AskKind(
    "set_light_brightness",
    ("set the {room} light to {brightness}% brightness", "{verb} the {room} light to {brightness}%"),
    "bring the {room} light {way} to {brightness}%, {why}",
)
PLAY = AskKind(
    "play_music",
    ("play {playlist} in the {room}", "put on some {playlist} music in the {room}"),
    (
        "fill the {room} with some {playlist}, it's far too quiet",
        "get some {playlist} going in the background in the {room}",
    ),
)
COLOR = AskKind(
    "set_light_color",
    ("change the {room} light to {color}", "make the {room} light {color}"),
    ("give the {room} a {color} glow for a change of mood", "bathe the {room} in {color} light"),
)


def _power_request(room: Room, power: str) -> Request:
    return LIGHT_POWER.request(room=room, power=power)


def _light_power(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    room = _pick(rng, list(ROOMS), lambda r: f"light:{r}", taken)
    if room is None:
        return None
    power = flip(state.rooms[room].light.power)
    return Ask(_power_request(room, power), frozenset({f"light:{room}"}))


def _brightness_request(room: Room, level: int, current: int) -> Request:
    up = level > current
    why = {"verb": "brighten" if up else "dim", "way": "up" if up else "down"}
    why["why"] = "it's too dark to read in there" if up else "it's too harsh"
    return BRIGHTNESS.request(why, room=room, brightness=level)


def _color_request(room: Room, color: str) -> Request:
    return COLOR.request(room=room, color=color)


def _lit_rooms(state: HomeState) -> list[Room]:
    return [r for r in ROOMS if state.rooms[r].light.power == "on"]


def _brightness(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    brightness = {r: state.rooms[r].light.brightness for r in _lit_rooms(state)}
    return _change(rng, taken, "light", brightness, range(10, 101, 5), _brightness_request)


def _color(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    color = {r: state.rooms[r].light.color for r in _lit_rooms(state)}
    return _change(rng, taken, "light", color, COLORS, lambda r, c, _: _color_request(r, c))


# --- blinds, fans, speakers --------------------------------------------------------------------

BLINDS = AskKind(
    "set_blinds",
    {
        "open": ("{position} the {room} blinds", "raise the {room} blinds so they are {position}"),
        "half": ("set the {room} blinds {position} open", "move the {room} blinds to {position}"),
        "closed": ("get the {room} blinds {position}", "move the {room} blinds to {position}"),
    },
    {
        "open": "let some daylight into the {room} by having the blinds {position}",
        "half": "cut the glare in the {room} by bringing the blinds to {position}",
        "closed": "give me some privacy in the {room} with the blinds {position}",
    },
    key="position",
)


def _blinds(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    blinds = {r: state.rooms[r].blinds for r in BLINDS_ROOMS}
    return _change(rng, taken, "blinds", blinds, POSITIONS, lambda r, p, _: BLINDS.request(room=r, position=p))


def _fan(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    return _change(rng, taken, "fan", {r: state.rooms[r].fan for r in FAN_ROOMS}, FAN_SPEEDS, _fan_request)


def _fan_request(room: Room, speed: str, current: str) -> Request:
    r, v = slot(room), slot(speed)
    if speed == "off":
        direct = (f"turn {v} the {r} fan", f"switch the {r} fan {v}")
        indirect = (f"let the {r} fan go {v}, it's chilly in there",)
    else:
        direct = (f"set the {r} fan to {v}", f"run the {r} fan on {v}")
        if FAN_SPEEDS.index(speed) > FAN_SPEEDS.index(current):
            indirect = (f"get the {r} fan going on {v}, it's stuffy in there",)
        else:
            indirect = (f"calm the {r} fan down to {v}, it's too noisy",)
    return request(direct, indirect, ("set_fan_speed", {"room": room, "speed": speed}))


def _play_request(room: Room, playlist: str) -> Request:
    return PLAY.request(room=room, playlist=playlist)


def _volume_request(room: Room, volume: int, current: int) -> Request:
    r, v = slot(room), slot(volume)
    direct = (f"set the {r} speaker volume to {v}", f"change the volume in the {r} to {v}%")
    if volume > current:
        indirect = (f"raise the {r} speaker to {v}, I can barely hear it",)
    else:
        indirect = (f"turn the {r} speaker down to {v}, it's too loud",)
    return request(direct, indirect, ("set_volume", {"room": room, "volume": volume}))


def _music(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    playlist = {r: state.rooms[r].speaker.playlist for r in SPEAKER_ROOMS}
    return _change(rng, taken, "speaker", playlist, PLAYLISTS, lambda r, p, _: _play_request(r, p))


def _volume(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    volume = {r: state.rooms[r].speaker.volume for r in SPEAKER_ROOMS}
    return _change(rng, taken, "speaker", volume, range(10, 91, 5), _volume_request)


def _music_at_volume(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    """Two calls, independent of each other: a playlist and a volume on one speaker."""
    room = _pick(rng, list(SPEAKER_ROOMS), lambda r: f"speaker:{r}", taken)
    if room is None:
        return None
    speaker = state.rooms[room].speaker
    playlist = other(rng, PLAYLISTS, speaker.playlist)
    volume = other(rng, range(10, 91, 5), speaker.volume)
    gold = (
        ("play_music", {"room": room, "playlist": playlist}),
        ("set_volume", {"room": room, "volume": volume}),
    )
    r, p, v = slot(room), slot(playlist), slot(volume)
    direct = (f"play {p} in the {r} at volume {v}", f"put on {p} in the {r} with the volume at {v}")
    indirect = (f"fill the {r} with {p} at a volume of {v}",)
    return Ask(request(direct, indirect, *gold), frozenset({f"speaker:{room}"}))


def _stop_music(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    playing = [r for r in SPEAKER_ROOMS if state.rooms[r].speaker.playlist is not None]
    room = _pick(rng, playing, lambda r: f"speaker:{r}", taken)
    if room is None:
        return None
    r = slot(room)
    direct = (f"stop the music in the {r}", f"turn the music off in the {r}")
    indirect = (f"give me some quiet in the {r} by stopping the music there",)
    return Ask(request(direct, indirect, ("stop_music", {"room": room})), frozenset({f"speaker:{room}"}))


# --- climate and locks -------------------------------------------------------------------------


def _temperature_request(zone: Zone, degrees: int, current: int) -> Request:
    z, d = slot(zone), slot(degrees)
    direct = (f"set the {z} thermostat to {d} degrees", f"change the {z} target temperature to {d}°C")
    if degrees > current:
        indirect = (f"warm the {z} up to {d} degrees, it's a bit cold",)
    else:
        indirect = (f"bring the {z} down to {d} degrees, it's too warm",)
    return request(direct, indirect, ("set_temperature", {"zone": zone, "temperature": degrees}))


def _temperatures(mode: str) -> range:
    low, high = TEMPERATURE_RANGE[mode]
    return range(max(low, 16), min(high, 27) + 1)


def _temperature(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    zone = _pick(rng, list(ZONES), lambda z: f"thermostat:{z}", taken)
    if zone is None or state.thermostats[zone].mode == "off":
        return None
    current = state.thermostats[zone].target_temperature
    degrees = other(rng, _temperatures(state.thermostats[zone].mode), current)
    return Ask(_temperature_request(zone, degrees, current), frozenset({f"thermostat:{zone}"}))


MODE = AskKind(
    "set_mode",
    {
        "off": ("turn {mode} the {zone} thermostat", "switch the {zone} thermostat {mode}"),
        None: ("switch the {zone} thermostat to {mode} mode", "put the {zone} thermostat in {mode} mode"),
    },
    {
        "heat": "get the {zone} thermostat on {mode}, it's freezing",
        "cool": "get the {zone} thermostat into {mode} mode, it's sweltering",
        "auto": "let the {zone} thermostat decide by itself on {mode}",
        "off": "let the {zone} thermostat go {mode}, nobody will be there today",
    },
    key="mode",
)


def _mode_request(zone: Zone, mode: str) -> Request:
    return MODE.request(zone=zone, mode=mode)


def _mode(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    mode = {z: state.thermostats[z].mode for z in ZONES}
    return _change(rng, taken, "thermostat", mode, ("heat", "cool", "auto", "off"), lambda z, m, _: _mode_request(z, m))


def _lock_request(lock: str, current: str) -> Request:
    d = slot(lock)
    if current == "unlocked":
        direct = (f"lock the {d}", f"make sure the {d} gets locked")
        indirect = (f"secure the {d}, I'm heading out soon",)
        return request(direct, indirect, ("lock_door", {"lock": lock}))
    direct = (f"unlock the {d}", f"undo the lock on the {d}")
    indirect = (f"let my friend in through the {d} by unlocking it",)
    return request(direct, indirect, ("unlock_door", {"lock": lock}))


def _lock(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    lock = _pick(rng, list(LOCKS), lambda lk: f"lock:{lk}", taken)
    if lock is None:
        return None
    return Ask(_lock_request(lock, state.locks[lock]), frozenset({f"lock:{lock}"}))


# --- scenes ------------------------------------------------------------------------------------

SCENE = AskKind(
    "activate_scene",
    ("activate the {scene} scene", "switch the house to the {scene} scene"),
    {
        "movie_night": "set the mood for a film with {scene}",
        "good_morning": "help me wake up with {scene}",
        "good_night": "get the house ready for bed with {scene}",
        "away": "get the house ready for our weekend {scene}",
        "dinner": "get the {scene} scene going, the food is almost ready",
    },
    key="scene",
)


def _scene_claims(state: HomeState, scene: str) -> frozenset[str]:
    preset = state.scenes[scene]
    keys = {"scene"} | {f"light:{r}" for r in preset.lights} | {f"blinds:{r}" for r in preset.blinds}
    keys |= {f"lock:{lk}" for lk in preset.locks} | {f"thermostat:{z}" for z in preset.thermostats}
    return frozenset(keys)


def _scene_request(scene: str) -> Request:
    return SCENE.request(scene=scene)


def _scene(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    free = [s for s in SCENES if not _scene_claims(state, s) & taken]
    if not free:
        return None
    scene = rng.choice(free)
    return Ask(_scene_request(scene), _scene_claims(state, scene))


# --- questions ---------------------------------------------------------------------------------


ROOM_STATUS = AskKind(
    "get_room_status",
    ("tell me what the devices in the {room} are doing", "check the status of the {room}"),
    "take a look at the {room}, I may have left something running",
)
THERMOSTAT_STATUS = AskKind(
    "get_thermostat",
    ("tell me what the {zone} thermostat is set to", "check the {zone} thermostat"),
    "see what the {zone} thermostat is aiming for, I'm curious",
)
LOCK_STATUS = AskKind(
    "get_lock_status",
    ("tell me whether the {lock} is locked", "check the {lock} lock"),
    "see whether I secured the {lock}, I can't remember",
)
SCENE_LIST = AskKind(
    "list_scenes",
    ("list the scenes I can activate", "show me which scenes there are"),
    "remind me which presets this house has by listing the scenes",
)


def _room_question(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    free = [r for r in ROOMS if not _room_keys(r) & taken]
    if not free:
        return None
    room = rng.choice(free)
    return Ask(ROOM_STATUS.request(room=room), _room_keys(room))


def _thermostat_question(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    zone = _pick(rng, list(ZONES), lambda z: f"thermostat:{z}", taken)
    return None if zone is None else Ask(THERMOSTAT_STATUS.request(zone=zone), frozenset({f"thermostat:{zone}"}))


def _lock_question(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    lock = _pick(rng, list(LOCKS), lambda lk: f"lock:{lk}", taken)
    return None if lock is None else Ask(LOCK_STATUS.request(lock=lock), frozenset({f"lock:{lock}"}))


def _scenes_question(rng: random.Random, state: HomeState, taken: set[str]) -> Ask | None:
    return None if "scene" in taken else Ask(SCENE_LIST.request(), frozenset({"scene"}))


WRITES: dict[str, Maker] = {
    "light_power": _light_power,
    "brightness": _brightness,
    "color": _color,
    "blinds": _blinds,
    "fan": _fan,
    "music": _music,
    "volume": _volume,
    "stop_music": _stop_music,
    "temperature": _temperature,
    "mode": _mode,
    "lock": _lock,
    "scene": _scene,
}
"""Single-call write requests, by template name."""

QUESTIONS: dict[str, Maker] = {
    "room_question": _room_question,
    "thermostat_question": _thermostat_question,
    "lock_question": _lock_question,
    "scenes_question": _scenes_question,
}
"""Read-only requests (one read each), by template name."""

# --- compositional templates -------------------------------------------------------------------

Chain = list[Request]
"""Requests in dependency order (later calls depend on earlier ones)."""


def _light_on_then_level(rng: random.Random, state: HomeState) -> Chain | None:
    dark = [r for r in ROOMS if state.rooms[r].light.power == "off"]
    if not dark:
        return None
    room = rng.choice(dark)
    light = state.rooms[room].light
    level = other(rng, range(10, 101, 5), light.brightness)
    chain = [_power_request(room, "on")]
    shape = rng.randrange(3)
    if shape in (0, 2):
        chain.append(_brightness_request(room, level, light.brightness))
    if shape in (1, 2):
        chain.append(_color_request(room, other(rng, COLORS, light.color)))
    return chain


def _mode_then_temperature(rng: random.Random, state: HomeState) -> Chain | None:
    """A new mode, then a target only that mode accepts (the current mode would refuse it)."""
    zone = rng.choice(ZONES)
    current = state.thermostats[zone].mode
    options = [
        (mode, degrees)
        for mode in ("heat", "cool")
        if mode != current
        for degrees in _ONLY_IN[mode]
        if current == "off" or degrees not in range(TEMPERATURE_RANGE[current][0], TEMPERATURE_RANGE[current][1] + 1)
    ]
    if not options:
        return None
    mode, degrees = rng.choice(options)
    after = SIM.after(state, [("set_mode", {"zone": zone, "mode": mode})]).thermostats[zone]
    return [_mode_request(zone, mode), _temperature_request(zone, degrees, after.target_temperature)]


_ONLY_IN = {"heat": range(12, 16), "cool": range(29, 31)}
"""Targets (°C) one mode accepts and another refuses: a frost guard in heat, a mild cool setting."""


def _copy_temperature(rng: random.Random, state: HomeState) -> Chain | None:
    source, target = rng.sample(ZONES, 2)
    value, goal = state.thermostats[source].target_temperature, state.thermostats[target]
    if goal.mode == "off" or value == goal.target_temperature or value not in _temperatures(goal.mode):
        return None
    s, t = slot(source), slot(target)
    read = request(
        (f"check the {s} thermostat", f"look up the {s} target temperature"),
        f"find out what the {s} thermostat is aiming for",
        ("get_thermostat", {"zone": source}),
    )
    write = request(
        (f"set the {t} thermostat to the same target", f"give the {t} thermostat that same target"),
        f"make the {t} thermostat match it so both floors feel the same",
        ("set_temperature", {"zone": target, "temperature": replied(value)}),
    )
    return [read, write]


def _copy_from_room(rng: random.Random, state: HomeState) -> Chain | None:
    """Read one room, copy its light color, playlist or volume to another room."""
    what = rng.choice(("color", "playlist", "volume"))
    if what == "color":
        pairs = [(a, b) for a in ROOMS for b in ROOMS if state.rooms[a].light.color != state.rooms[b].light.color]
    elif what == "playlist":
        playing = [a for a in SPEAKER_ROOMS if state.rooms[a].speaker.playlist is not None]
        pairs = [
            (a, b)
            for a in playing
            for b in SPEAKER_ROOMS
            if state.rooms[a].speaker.playlist != state.rooms[b].speaker.playlist
        ]
    else:
        pairs = [
            (a, b)
            for a in SPEAKER_ROOMS
            for b in SPEAKER_ROOMS
            if state.rooms[a].speaker.volume != state.rooms[b].speaker.volume
        ]
    if not pairs:
        return None
    source, target = rng.choice(pairs)
    s, t = slot(source), slot(target)
    read = request(
        (f"check the {s}", f"look at what the {s} devices are set to"),
        f"peek at the {s} first",
        ("get_room_status", {"room": source}),
    )
    chain = [read]
    if what == "color":
        if state.rooms[target].light.power == "off":
            chain.append(_power_request(target, "on"))
        gold = ("set_light_color", {"room": target, "color": replied(state.rooms[source].light.color)})
        direct = (f"give the {t} light the same color as the {s} light", f"copy the {s} light color to the {t}")
        indirect = f"have the {t} light match the color in the {s}"
    elif what == "playlist":
        gold = ("play_music", {"room": target, "playlist": replied(state.rooms[source].speaker.playlist)})
        direct = (f"play the same playlist in the {t}", f"put whatever the {s} is playing on in the {t} too")
        indirect = f"give the {t} the same music as the {s}"
    else:
        gold = ("set_volume", {"room": target, "volume": replied(state.rooms[source].speaker.volume)})
        direct = (f"set the {t} speaker to the same volume as the {s}", f"match the {t} volume to the {s} speaker")
        indirect = f"make the {t} speaker exactly as loud as the one in the {s}"
    chain.append(request(direct, indirect, gold))
    return chain


def _lock_if(rng: random.Random, state: HomeState) -> Chain | None:
    """Check some doors and lock (or unlock) those whose state calls for it."""
    target = rng.choice(("locked", "unlocked"))
    doors = sorted(rng.sample(LOCKS, rng.randint(1, 3)), key=LOCKS.index)
    acting = [d for d in doors if state.locks[d] != target]
    if not acting or len(doors) + len(acting) > MAX_CALLS:
        return None
    op, verb, other = ("lock_door", "lock", "unlocked") if target == "locked" else ("unlock_door", "unlock", "locked")
    names = " and the ".join(slot(d) for d in doors)
    gold = [("get_lock_status", {"lock": d}) for d in doors] + [(op, {"lock": d}) for d in acting]
    if len(doors) == 1:
        read = request(f"check the {names}", f"look at the {names} first", gold[0])
        act = request(
            (f"{verb} it if it is {other}", f"if it turns out to be {other}, {verb} it"),
            f"{verb} it in case it is {other}",
            *gold[1:],
        )
        return [read, act]
    direct = (f"check the {names} and {verb} any of them that is {other}",)
    indirect = f"go over the {names} and {verb} whichever is {other}"
    return [request(direct, indirect, *gold)]


def _light_if_off(rng: random.Random, state: HomeState) -> Chain | None:
    dark = [r for r in ROOMS if state.rooms[r].light.power == "off"]
    if not dark:
        return None
    room = rng.choice(dark)
    r, on = slot(room), slot("on")
    read = request(
        (f"check the {r}", f"look at the {r} devices"),
        f"take a look at the {r} for me",
        ("get_room_status", {"room": room}),
    )
    act = request(
        (f"if its light is off, turn it {on}", f"switch the light {on} there if it is off"),
        f"put the light {on} there in case it is off",
        ("set_light_power", {"room": room, "power": "on"}),
    )
    return [read, act]


def _scene_then_adjust(rng: random.Random, state: HomeState) -> Chain | None:
    """A scene, then a change to a light it just turned on (the light must be on first)."""
    scene = rng.choice(("movie_night", "good_morning", "dinner"))
    after = SIM.after(state, [("activate_scene", {"scene": scene})])
    lit = [r for r, preset in state.scenes[scene].lights.items() if preset.power == "on"]
    room = rng.choice(lit)
    light = after.rooms[room].light
    chain = [_scene_request(scene)]
    if rng.random() < 0.5:
        chain.append(_brightness_request(room, other(rng, range(10, 101, 5), light.brightness), light.brightness))
    else:
        chain.append(_color_request(room, other(rng, COLORS, light.color)))
    return chain


COMPOSITIONAL: dict[str, Callable[[random.Random, HomeState], Chain | None]] = {
    "light_on_then_level": _light_on_then_level,
    "mode_then_temperature": _mode_then_temperature,
    "copy_temperature": _copy_temperature,
    "copy_from_room": _copy_from_room,
    "lock_if": _lock_if,
    "light_if_off": _light_if_off,
    "scene_then_adjust": _scene_then_adjust,
}
"""Compositional templates: each returns a chain of dependent requests (None: not posable)."""

# --- assembling drafts -------------------------------------------------------------------------

SIM = Simulator(ops.OPERATIONS)


def _independent(first: Chain, second: Chain) -> bool:
    """No argument value (room, zone, door) of one chain's gold occurs in the other's."""

    def targets(chain: Chain) -> set[str]:
        return {str(args.get(k)) for r in chain for _, args in r.gold for k in ("room", "zone", "lock", "scene")}

    scenes = any(op == "activate_scene" for r in first + second for op, _ in r.gold)
    return not scenes and not (targets(first) - {"None"}) & (targets(second) - {"None"})


PLAN = keyed_plan(
    SIM,
    QUESTIONS,
    WRITES,
    COMPOSITIONAL,
    mix=MIX,
    sizes=((2, 3, 4, 5), (3, 4, 3, 1)),
    fits=lambda _, first, second: _independent(first, second),
    compound_writes={**WRITES, "music_at_volume": _music_at_volume},
)
"""Singles (about one question in four), then compound, then compositional drafts: see :data:`MIX`."""


def drafts(state: HomeState, world_seed: int) -> list[TaskDraft]:
    """The domain's drafts on the fresh world ``state`` of ``world_seed``: see :data:`MIX`.

    Deterministic in ``world_seed`` (the task RNG is ``smart_home/tasks/<seed>``, apart from the
    world's own stream). Singles come first, then compound, then compositional drafts.
    """
    return draft_plan(random.Random(f"smart_home/tasks/{world_seed}"), state, PLAN)
