"""Task templates of the smart-home domain.

Each template reads the fresh world of the seed and writes queries whose gold actions all succeed
and each change something: a verb is chosen from the device's current state ("lock" an unlocked
door, "turn on" a light that is off), and a requested value always differs from the current one.
Every argument of the gold is stated in the query; questions have exactly one read as gold.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._base import TaskDraft
from toolprism.domains.smart_home._state import (
    BLINDS_ROOMS,
    COLORS,
    FAN_ROOMS,
    LOCKS,
    PLAYLISTS,
    POSITIONS,
    ROOMS,
    SCENES,
    SPEAKER_ROOMS,
    ZONES,
    HomeState,
    LockName,
    Room,
)

Gold = list[tuple[str, dict]]
Part = tuple[str, Gold]
"""A clause of a query (``"lock the front door"``) and the gold actions it asks for."""


def _words(name: str) -> str:
    return name.replace("_", " ")


def _other(rng: random.Random, values: tuple, current: object) -> object:
    return rng.choice([v for v in values if v != current])


def _sentence(parts: list[Part]) -> tuple[str, Gold]:
    clauses = [text for text, _ in parts]
    text = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]
    return text[0].upper() + text[1:] + ".", [action for _, gold in parts for action in gold]


# --- clauses: one device change each, phrased from the current state ---------------------------


def _light_power(state: HomeState, room: Room) -> Part:
    power = "off" if state.rooms[room].light.power == "on" else "on"
    gold = [("set_light_power", {"room": room, "power": power})]
    return f"turn {power} the {_words(room)} lights", gold


def _turn_on_first(state: HomeState, room: Room) -> Gold:
    if state.rooms[room].light.power == "on":
        return []
    return [("set_light_power", {"room": room, "power": "on"})]


def _brightness(rng: random.Random, state: HomeState, room: Room) -> Part:
    level = _other(rng, tuple(range(10, 101, 10)), state.rooms[room].light.brightness)
    gold = [
        *_turn_on_first(state, room),
        ("set_light_brightness", {"room": room, "brightness": level}),
    ]
    if len(gold) == 2:
        return f"turn on the {_words(room)} lights and set them to {level}% brightness", gold
    return f"set the {_words(room)} lights to {level}% brightness", gold


def _color(rng: random.Random, state: HomeState, room: Room) -> Part:
    color = _other(rng, COLORS, state.rooms[room].light.color)
    gold = [*_turn_on_first(state, room), ("set_light_color", {"room": room, "color": color})]
    if len(gold) == 2:
        return f"turn on the {_words(room)} lights in {_words(color)}", gold
    return f"change the {_words(room)} lights to {_words(color)}", gold


_BLINDS_VERB = {
    "open": "open the {} blinds",
    "half": "set the {} blinds half open",
    "closed": "close the {} blinds",
}


def _blinds(rng: random.Random, state: HomeState, room: Room) -> Part:
    position = _other(rng, POSITIONS, state.rooms[room].blinds)
    text = _BLINDS_VERB[position].format(_words(room))
    return text, [("set_blinds", {"room": room, "position": position})]


def _fan(rng: random.Random, state: HomeState, room: Room) -> Part:
    speed = _other(rng, ("off", "low", "medium", "high"), state.rooms[room].fan)
    text = f"turn off the {_words(room)} fan" if speed == "off" else f"set the {_words(room)} fan to {speed}"
    return text, [("set_fan_speed", {"room": room, "speed": speed})]


def _lock(state: HomeState, lock: LockName) -> Part:
    op, verb = ("unlock_door", "unlock") if state.locks[lock] == "locked" else ("lock_door", "lock")
    return f"{verb} the {_words(lock)}", [(op, {"lock": lock})]


# --- templates ---------------------------------------------------------------------------------


def _per_room(clause: Callable[[random.Random, HomeState, Room], Part], rooms: tuple, count: int):
    def template(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
        return [_sentence([clause(rng, state, room)]) for room in rng.sample(rooms, min(count, len(rooms)))]

    return template


def _light_power_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    return [_sentence([_light_power(state, room)]) for room in rng.sample(ROOMS, 5)]


def _lock_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    return [_sentence([_lock(state, lock)]) for lock in LOCKS]


def _thermostat_mode_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    out = []
    for zone in ZONES:
        current = state.thermostats[zone]
        for mode in rng.sample([m for m in ("heat", "cool", "auto") if m != current.mode], 2):
            degrees = _other(rng, tuple(range(18, 26)), current.target_temperature)
            out.append(
                (
                    f"Set the {zone} thermostat to {mode} at {degrees} degrees.",
                    [
                        ("set_thermostat_mode", {"zone": zone, "mode": mode}),
                        ("set_thermostat_temperature", {"zone": zone, "temperature": degrees}),
                    ],
                )
            )
    return out


def _thermostat_temperature_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    out = []
    for zone in ZONES:
        current = state.thermostats[zone].target_temperature
        for degrees in rng.sample([t for t in range(18, 26) if t != current], 2):
            gold = [("set_thermostat_temperature", {"zone": zone, "temperature": degrees})]
            out.append((f"Set the {zone} thermostat to {degrees} degrees.", gold))
    return out


_SCENE_PHRASES = (
    "Activate the {} scene.",
    "Start the {} scene.",
    "Switch the house to the {} scene.",
)


def _scene_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    return [
        (rng.choice(_SCENE_PHRASES).format(_words(scene)), [("activate_scene", {"scene": scene})])
        for scene in rng.sample(SCENES, 4)
    ]


def _music_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    out = []
    for room in SPEAKER_ROOMS:
        speaker = state.rooms[room].speaker
        playlist = _other(rng, PLAYLISTS, speaker.playlist)
        volume = _other(rng, tuple(range(10, 81, 10)), speaker.volume)
        gold = [
            ("play_music", {"room": room, "playlist": playlist}),
            ("set_speaker_volume", {"room": room, "volume": volume}),
        ]
        out.append((f"Play {playlist} music in the {_words(room)} at volume {volume}.", gold))
    return out


def _question_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    out: list[tuple[str, Gold]] = []
    for room in rng.sample(ROOMS, 2):
        out.append((f"Are the {_words(room)} lights on?", [("get_room_status", {"room": room})]))
    zone = rng.choice(ZONES)
    out.append((f"What is the {zone} thermostat set to?", [("get_thermostat", {"zone": zone})]))
    for lock in rng.sample(LOCKS, 2):
        out.append((f"Is the {_words(lock)} locked?", [("get_lock_status", {"lock": lock})]))
    out.append(("Which scenes can I activate?", [("list_scenes", {})]))
    return out


def _pair_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    rooms = rng.sample(ROOMS, 5)
    return [_sentence([_lock(state, rng.choice(LOCKS)), _light_power(state, room)]) for room in rooms]


def _routine_tasks(rng: random.Random, state: HomeState) -> list[tuple[str, Gold]]:
    out = []
    for room in rng.sample(BLINDS_ROOMS, 3):
        zone = rng.choice(ZONES)
        off = (
            f"turn off the {zone} thermostat",
            [("set_thermostat_mode", {"zone": zone, "mode": "off"})],
        )
        out.append(_sentence([_blinds(rng, state, room), _lock(state, rng.choice(LOCKS)), off]))
    return out


TEMPLATES: dict[str, Callable[[random.Random, HomeState], list[tuple[str, Gold]]]] = {
    "light_power": _light_power_tasks,
    "brightness": _per_room(_brightness, ROOMS, 5),
    "color": _per_room(_color, ROOMS, 5),
    "blinds": _per_room(_blinds, BLINDS_ROOMS, 4),
    "fan": _per_room(_fan, FAN_ROOMS, 3),
    "thermostat_mode": _thermostat_mode_tasks,
    "thermostat_temperature": _thermostat_temperature_tasks,
    "lock": _lock_tasks,
    "scene": _scene_tasks,
    "music": _music_tasks,
    "question": _question_tasks,
    "lock_and_light": _pair_tasks,
    "routine": _routine_tasks,
}
"""Template name → generator of ``(query, gold)`` pairs."""


def drafts(state: HomeState, world_seed: int) -> list[TaskDraft]:
    """Every task on the fresh world ``state`` of ``world_seed``, in template order.

    The task RNG is seeded from ``world_seed`` but distinct from the world's own RNG stream.
    """
    rng = random.Random(f"smart_home/tasks/{world_seed}")
    return [
        TaskDraft(name, query, gold) for name, template in TEMPLATES.items() for query, gold in template(rng, state)
    ]
