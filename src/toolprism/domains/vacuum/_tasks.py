"""Task generator of the robot-vacuum domain: single, compound and compositional drafts.

Every draft is built with :mod:`toolprism.domains._phrasing` (an easy and a hard form). Requests
are written from the seed's fresh world: each asks for a value different from the current one
and only for what the robot accepts in that state (no start while a clean runs, no water level
in vacuum-only mode...), so every gold write succeeds and changes the state. Each request claims
the parts of the world it reads or writes; a compound draft combines requests with disjoint
claims, so they can run in any order. Compositional drafts chain requests where a later call
needs an earlier one (switch maps before cleaning a room there, stop a clean before changing a
no-go zone, switch mode before setting the water level) or uses an earlier reply (copy a day's
schedule, act on what a room or status read shows).

Mix per seed (:data:`MIX`): 29 single, 76 compound and 25 compositional drafts (130; 260 tasks).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from toolprism.domains._asks import AskKind
from toolprism.domains._base import TaskDraft
from toolprism.domains._drafting import MAX_CALLS, Ask, Simulator, flip, gold_of, other
from toolprism.domains._grammar import replied, slot
from toolprism.domains._phrasing import Request, request
from toolprism.domains._plan import draft_plan, keyed_plan
from toolprism.domains.vacuum import _ops as ops
from toolprism.domains.vacuum._state import (
    DAYS,
    FLOOR_OF,
    MAPS,
    MODES,
    MOP_MODES,
    PRESET_TABLE,
    PRESETS,
    ROOMS,
    SUCTIONS,
    WATER_LEVELS,
    ZONE_ROOM,
    ZONES,
    Preset,
    VacuumState,
    rooms_of,
)

MIX: dict[str, int] = {"single": 29, "compound": 76, "compositional": 25}
"""Drafts per kind and seed (22 % / 58 % / 19 %)."""


Maker = Callable[[random.Random, VacuumState, set[str]], Ask | None]
"""Builds one request touching nothing in the taken set (None: not posable)."""
Chain = list[Request]
"""Requests in dependency order."""


def _room_claims(target: str, state: VacuumState) -> frozenset[str]:
    rooms = rooms_of(state.robot.active_map) if target == "whole_map" else (target,)
    return frozenset(f"room:{r}" for r in rooms)


def _modes(state: VacuumState) -> tuple[str, ...]:
    return MODES if state.robot.mop_pad == "attached" else ("vacuum",)


# --- cleaning ----------------------------------------------------------------------------------


def _cleanable(state: VacuumState) -> list[str]:
    """Targets a clean may start on now (rooms of the active map, or whole_map), given the mode."""
    robot = state.robot
    if robot.job is not None:
        return []
    rooms = rooms_of(robot.active_map)
    if robot.mode == "mop":
        return [r for r in rooms if FLOOR_OF[r] != "carpet"]
    return [*rooms, "whole_map"]


START = AskKind(
    "start",
    ("clean the {room} with {passes} {word}", "start a {passes}-pass clean of the {room}"),
    (
        "give the {room} {passes} {word}, the floor is a mess after the party",
        "get the crumbs out of the {room} with {passes} {word}",
    ),
)


def _start_request(target: str, passes: int) -> Request:
    return START.request({"word": "pass" if passes == 1 else "passes"}, room=target, passes=passes)


def _start(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    targets = [t for t in _cleanable(state) if not _room_claims(t, state) & taken]
    if not targets or {"job", "mode", "map"} & taken:
        return None
    target = rng.choice(targets)
    claims = frozenset({"job", "mode", "map"}) | _room_claims(target, state)
    return Ask(_start_request(target, rng.randint(1, 3)), claims)


def _job_claims(state: VacuumState) -> frozenset[str]:
    return frozenset({"job"}) | _room_claims(state.robot.job.target, state)


def _pause(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.status != "cleaning" or "job" in taken:
        return None
    direct = ("pause the robot", "pause the current clean")
    indirect = ("hold the robot where it is for a moment by pausing it, I'm on a call",)
    return Ask(request(direct, indirect, ("pause", {})), _job_claims(state))


def _resume(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.status != "paused" or "job" in taken:
        return None
    direct = ("resume the clean", "let the robot resume cleaning")
    indirect = ("let the robot carry on where it left off by resuming it",)
    return Ask(request(direct, indirect, ("resume", {})), _job_claims(state))


STOP = AskKind(
    "stop",
    {
        "dock": ("stop the clean and send the robot to the {then}", "stop cleaning and have it go back to the {then}"),
        "stay": ("stop the clean and let the robot {then} where it is", "stop cleaning but have it {then} put"),
    },
    {
        "dock": "call off the clean and get the robot back on its {then}",
        "stay": "call off the clean, the robot can just {then} where it is",
    },
    key="then",
)


def _stop_request(then: str) -> Request:
    return STOP.request(then=then)


def _stop(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.job is None or "job" in taken:
        return None
    return Ask(_stop_request(rng.choice(("dock", "stay"))), _job_claims(state))


def _map_request(map_name: str) -> Request:
    m = slot(map_name)
    direct = (f"switch to the {m} map", f"make the {m} map the active one")
    indirect = f"load the {m} map, I'm carrying the robot to the {m}"
    return request(direct, indirect, ("set_map", {"map": map_name}))


def _set_map(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.job is not None or {"job", "map"} & taken:
        return None
    map_name = other(rng, MAPS, state.robot.active_map)
    return Ask(_map_request(map_name), frozenset({"job", "map"}))


# --- settings ----------------------------------------------------------------------------------

MODE = AskKind(
    "set_mode",
    ("switch the robot to {mode} mode", "set the cleaning mode to {mode}"),
    {
        "vacuum": "stick to {mode} mode, it only needs to pick up dust today",
        "mop": "put it in {mode} mode, the tiles are sticky",
        "vacuum_and_mop": "do both at once with {mode} mode",
    },
    key="mode",
)
SETTINGS = frozenset({"mode", "suction", "water"})


def _mode_request(mode: str) -> Request:
    return MODE.request(mode=mode)


def _mode(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    choices = [m for m in _modes(state) if m != state.robot.mode]
    if not choices or SETTINGS & taken:
        return None
    return Ask(_mode_request(rng.choice(choices)), SETTINGS)


def _suction_request(level: str, current: str) -> Request:
    v = slot(level)
    direct = (f"set the suction to {v}", f"change the suction power to {v}")
    if SUCTIONS.index(level) > SUCTIONS.index(current):
        indirect = f"turn the suction up to {v}, there's pet hair everywhere"
    else:
        indirect = f"turn the suction down to {v}, the robot is too loud"
    return request(direct, indirect, ("set_suction", {"level": level}))


def _suction(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.mode == "mop" or {"suction", "mode"} & taken:
        return None
    current = state.robot.suction
    return Ask(_suction_request(other(rng, SUCTIONS, current), current), frozenset({"suction", "mode"}))


def _water_request(level: str, current: str) -> Request:
    v = slot(level)
    direct = (f"set the water level to {v}", f"make the mop water level {v}")
    if WATER_LEVELS.index(level) > WATER_LEVELS.index(current):
        indirect = f"raise the water to {v}, the floor needs a proper scrub"
    else:
        indirect = f"lower the water to {v}, it's leaving puddles"
    return request(direct, indirect, ("set_water_level", {"level": level}))


def _water(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if state.robot.mode == "vacuum" or {"water", "mode"} & taken:
        return None
    current = state.robot.water_level
    return Ask(_water_request(other(rng, WATER_LEVELS, current), current), frozenset({"water", "mode"}))


CHILD_LOCK = AskKind(
    "set_child_lock",
    ("turn {lock} the child lock", "switch the child lock {lock}"),
    {
        "on": "switch the child lock {lock}, the kids keep pressing its buttons",
        "off": "switch the child lock {lock}, I can't use its buttons",
    },
    key="lock",
)


def _child_lock(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    if "child_lock" in taken:
        return None
    lock = flip(state.robot.child_lock)
    return Ask(CHILD_LOCK.request(lock=lock), frozenset({"child_lock"}))


PRESET = AskKind(
    "apply_preset",
    ("apply the {preset} preset", "use the {preset} preset"),
    {
        "quick": "go with the {preset} preset, I'm in a hurry",
        "deep": "go with the {preset} preset, guests are coming",
        "quiet_night": "use the {preset} preset, the baby is asleep",
        "pet_hair": "use the {preset} preset, the dog is shedding",
        "mop_only": "just wash the floors with the {preset} preset",
    },
    key="preset",
)


def _preset_request(preset: str) -> Request:
    return PRESET.request(preset=preset)


def _presets_that_change(state: VacuumState) -> list[str]:
    """Presets the robot accepts now (mop pad) that would change at least one setting."""
    robot = state.robot
    current = (robot.mode, robot.suction, robot.water_level)

    def applied(p: Preset) -> tuple:
        return (p.mode, p.suction or robot.suction, p.water_level or robot.water_level)

    return [n for n in PRESETS if PRESET_TABLE[n].mode in _modes(state) and applied(PRESET_TABLE[n]) != current]


def _preset(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    choices = _presets_that_change(state)
    if not choices or SETTINGS & taken:
        return None
    return Ask(_preset_request(rng.choice(choices)), SETTINGS)


# --- zones and schedule ------------------------------------------------------------------------


NO_GO_ZONE = AskKind(
    "set_no_go_zone",
    ("turn {status} the {zone} no-go zone", "switch the {zone} no-go zone {status}"),
    {
        "on": "keep the robot away from the {zone} by turning that no-go zone {status}",
        "off": "let the robot clean around the {zone} again by switching that no-go zone {status}",
    },
    key="status",
)


def _zone_request(zone: str, status: str) -> Request:
    return NO_GO_ZONE.request(zone=zone, status=status)


def _zone_free(state: VacuumState, zone: str) -> bool:
    job = state.robot.job
    return job is None or f"room:{ZONE_ROOM[zone]}" not in _room_claims(job.target, state)


def _zone(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    zones = [z for z in ZONES if _zone_free(state, z) and not {f"zone:{z}", f"room:{ZONE_ROOM[z]}"} & taken]
    if not zones:
        return None
    zone = rng.choice(zones)
    status = flip(state.zones[zone])
    return Ask(_zone_request(zone, status), frozenset({f"zone:{zone}", f"room:{ZONE_ROOM[zone]}"}))


def _schedule(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    days = [d for d in DAYS if f"day:{d}" not in taken]
    if not days:
        return None
    day = rng.choice(days)
    current = state.schedule[day]
    while True:
        hour, mode = rng.randint(7, 21), rng.choice(_modes(state))
        if current is None or (hour, mode) != (current.hour, current.mode):
            break
    m, d, h = slot(mode), slot(day), slot(hour)
    direct = (f"schedule a {m} clean on {d} at {h}:00", f"set the {d} clean to {m} mode at {h}:00")
    indirect = f"make sure the floors get a {m} clean every {d} at {h}:00"
    gold = ("set_schedule", {"day": day, "hour": hour, "mode": mode})
    return Ask(request(direct, indirect, gold), frozenset({f"day:{day}"}))


# --- questions ---------------------------------------------------------------------------------


STATUS = AskKind(
    "get_status",
    ("tell me what the robot is doing", "check the robot's status and battery"),
    "see whether the robot has enough battery left, I'm curious",
)
ROOM_STATUS = AskKind(
    "get_room",
    ("tell me when the {room} was last cleaned", "check the {room} details"),
    "see whether the {room} has been cleaned lately",
)
PRESET_LIST = AskKind(
    "list_presets",
    ("list the cleaning presets", "show me the presets the robot has"),
    "remind me which presets the robot knows by listing them",
)


def _status_question(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    claims = frozenset({"job", "map", "child_lock", *SETTINGS, *(f"day:{d}" for d in DAYS)})
    return None if claims & taken else Ask(STATUS.request(), claims)


def _room_question(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    rooms = [r for r in ROOMS if f"room:{r}" not in taken]
    if not rooms:
        return None
    room = rng.choice(rooms)
    claims = frozenset({f"room:{room}"} | {f"zone:{z}" for z, zr in ZONE_ROOM.items() if zr == room})
    return Ask(ROOM_STATUS.request(room=room), claims)


def _presets_question(rng: random.Random, state: VacuumState, taken: set[str]) -> Ask | None:
    return None if SETTINGS & taken else Ask(PRESET_LIST.request(), SETTINGS)


WRITES: dict[str, Maker] = {
    "start": _start,
    "pause": _pause,
    "resume": _resume,
    "stop": _stop,
    "set_map": _set_map,
    "mode": _mode,
    "suction": _suction,
    "water": _water,
    "child_lock": _child_lock,
    "preset": _preset,
    "no_go_zone": _zone,
    "schedule": _schedule,
}
"""Single-call write requests, by template name."""

QUESTIONS: dict[str, Maker] = {
    "status_question": _status_question,
    "room_question": _room_question,
    "presets_question": _presets_question,
}
"""Read-only requests (one read each), by template name."""


# --- compositional templates -------------------------------------------------------------------


def _map_then_clean(rng: random.Random, state: VacuumState) -> Chain | None:
    """Switch maps, (switch out of mop-only mode for a carpet,) then clean a room there."""
    if state.robot.job is not None:
        return None
    map_name = other(rng, MAPS, state.robot.active_map)
    chain = [_map_request(map_name)]
    after = SIM.after(state, gold_of(chain))
    if after.robot.mode == "mop" and rng.random() < 0.5:
        mode = rng.choice(("vacuum", "vacuum_and_mop"))
        chain.append(_mode_request(mode))
        after = SIM.after(after, [("set_mode", {"mode": mode})])
    targets = [t for t in _cleanable(after) if t != "whole_map"]
    chain.append(_start_request(rng.choice(targets), rng.randint(1, 3)))
    return chain


def _stop_then_clean(rng: random.Random, state: VacuumState) -> Chain | None:
    """Stop the clean in progress, maybe switch maps, then start another."""
    if state.robot.job is None:
        return None
    chain = [_stop_request(rng.choice(("dock", "stay")))]
    if rng.random() < 0.4:
        chain.append(_map_request(other(rng, MAPS, state.robot.active_map)))
    after = SIM.after(state, gold_of(chain))
    targets = [t for t in _cleanable(after) if t != state.robot.job.target]
    chain.append(_start_request(rng.choice(targets), rng.randint(1, 3)))
    return chain


def _mode_then_setting(rng: random.Random, state: VacuumState) -> Chain | None:
    """Switch mode, then set the suction or water level only the new mode uses."""
    robot = state.robot
    if robot.mode == "vacuum" and robot.mop_pad == "attached":
        mode = rng.choice(MOP_MODES)
        return [_mode_request(mode), _water_request(other(rng, WATER_LEVELS, robot.water_level), robot.water_level)]
    if robot.mode == "mop":
        mode = rng.choice(("vacuum", "vacuum_and_mop"))
        return [_mode_request(mode), _suction_request(other(rng, SUCTIONS, robot.suction), robot.suction)]
    return None


def _mop_mode_then_carpet(rng: random.Random, state: VacuumState) -> Chain | None:
    """Leave mop-only mode, then clean a carpeted room (mop-only would soak it)."""
    if state.robot.mode != "mop" or state.robot.job is not None:
        return None
    carpets = [r for r in rooms_of(state.robot.active_map) if FLOOR_OF[r] == "carpet"]
    mode = rng.choice(("vacuum", "vacuum_and_mop"))
    return [_mode_request(mode), _start_request(rng.choice([*carpets, "whole_map"]), rng.randint(1, 3))]


def _zone_if(rng: random.Random, state: VacuumState) -> Chain | None:
    """Read a room, then flip its no-go zone if it is in the state the query names."""
    zones = [z for z in ZONES if _zone_free(state, z)]
    if not zones:
        return None
    zone = rng.choice(zones)
    room, current = ZONE_ROOM[zone], state.zones[zone]
    status = flip(current)
    r, z, v = slot(room), slot(zone), slot(status)
    read = request(
        (f"check the {r}", f"look up the {r} details"),
        f"take a look at the {r} first",
        ("get_room", {"room": room}),
    )
    act = request(
        (f"if its {z} no-go zone is {current}, turn it {v}", f"turn the {z} zone {v} if it is {current}"),
        f"switch the {z} no-go zone {v} in case it is {current}",
        ("set_no_go_zone", {"zone": zone, "status": status}),
    )
    return [read, act]


def _copy_schedule(rng: random.Random, state: VacuumState) -> Chain | None:
    """Read the schedule, then give one day the same clean as another."""
    pairs = [
        (a, b)
        for a in DAYS
        for b in DAYS
        if state.schedule[a] is not None and a != b and state.schedule[b] != state.schedule[a]
    ]
    if not pairs:
        return None
    source, target = rng.choice(pairs)
    copied = state.schedule[source]
    read = request(
        ("check the cleaning schedule", "look up the weekly schedule"),
        "pull up the weekly schedule first",
        ("get_status", {}),
    )
    t = slot(target)
    write = request(
        (f"give {t} the same clean as {source}", f"copy the {source} clean to {t}"),
        f"make {t} match whatever {source} has",
        ("set_schedule", {"day": target, "hour": replied(copied.hour), "mode": replied(copied.mode)}),
    )
    return [read, write]


def _status_if(rng: random.Random, state: VacuumState) -> Chain | None:
    """Read the status, then act on it: pause a running clean, resume a paused one, or start one."""
    read = request(
        ("check on the robot", "look at the robot's status"),
        "see what the robot is up to first",
        ("get_status", {}),
    )
    status = state.robot.status
    if status == "cleaning":
        act = request(("pause it if it is cleaning",), "pause it in case it is cleaning", ("pause", {}))
    elif status == "paused":
        act = request(("resume it if it is paused",), "have it resume in case it is paused", ("resume", {}))
    else:
        target = rng.choice(_cleanable(state))
        passes = rng.randint(1, 3)
        t, n, word = slot(target), slot(passes), "pass" if passes == 1 else "passes"
        act = request(
            (f"if it is {status}, clean the {t} with {n} {word}",),
            f"give the {t} {n} {word} in case it is {status}",
            ("start", {"room": target, "passes": passes}),
        )
    return [read, act]


def _stop_then_zone(rng: random.Random, state: VacuumState) -> Chain | None:
    """Stop the clean in progress, then change a no-go zone in the room it was cleaning."""
    if state.robot.job is None:
        return None
    zones = [z for z in ZONES if not _zone_free(state, z)]
    if not zones:
        return None
    zone = rng.choice(zones)
    status = flip(state.zones[zone])
    return [_stop_request(rng.choice(("dock", "stay"))), _zone_request(zone, status)]


def _preset_then_tweak(rng: random.Random, state: VacuumState) -> Chain | None:
    """Apply a preset, then override one of the settings it sets."""
    presets = [p for p in _presets_that_change(state) if PRESET_TABLE[p].suction or PRESET_TABLE[p].water_level]
    if not presets:
        return None
    preset = rng.choice(presets)
    chosen = PRESET_TABLE[preset]
    # the override differs from the preset's value and from the value before (or nothing changes)
    robot = state.robot
    if chosen.suction is not None:
        level = rng.choice([s for s in SUCTIONS if s not in (chosen.suction, robot.suction)])
        tweak = _suction_request(level, chosen.suction)
    else:
        level = rng.choice([w for w in WATER_LEVELS if w not in (chosen.water_level, robot.water_level)])
        tweak = _water_request(level, chosen.water_level)
    return [_preset_request(preset), tweak]


COMPOSITIONAL: dict[str, Callable[[random.Random, VacuumState], Chain | None]] = {
    "map_then_clean": _map_then_clean,
    "stop_then_clean": _stop_then_clean,
    "mode_then_setting": _mode_then_setting,
    "mop_mode_then_carpet": _mop_mode_then_carpet,
    "zone_if": _zone_if,
    "copy_schedule": _copy_schedule,
    "status_if": _status_if,
    "stop_then_zone": _stop_then_zone,
    "preset_then_tweak": _preset_then_tweak,
}
"""Compositional templates: each returns a chain of dependent requests (None: not posable)."""


# --- assembling drafts -------------------------------------------------------------------------

SIM = Simulator(ops.OPERATIONS)


def _chains_fit(state: VacuumState, first: Chain, second: Chain) -> bool:
    ops_first = {op for op, _ in gold_of(first) if SIM.is_write(op)}
    ops_second = {op for op, _ in gold_of(second) if SIM.is_write(op)}
    calls = len(gold_of(first)) + len(gold_of(second))
    return calls <= MAX_CALLS and not ops_first & ops_second and SIM.after(state, gold_of(first + second)) != state


PLAN = keyed_plan(SIM, QUESTIONS, WRITES, COMPOSITIONAL, mix=MIX, sizes=((2, 3, 4, 5), (2, 4, 4, 2)), fits=_chains_fit)
"""Singles (about one question in four), then compound, then compositional drafts: see :data:`MIX`."""


def drafts(state: VacuumState, world_seed: int) -> list[TaskDraft]:
    """The domain's drafts on the fresh world ``state`` of ``world_seed``: see :data:`MIX`.

    Deterministic in ``world_seed`` (task RNG ``vacuum/tasks/<seed>``, apart from the world's).
    Singles come first, then compound, then compositional drafts.
    """
    return draft_plan(random.Random(f"vacuum/tasks/{world_seed}"), state, PLAN)
